"""The job run on the build: checked, configured on 1 GPU and on N, the speed-up and how sure it is.

analyse.py adds the bottleneck and the changes (advise.py) to what this predicts; advise.py re-runs this
for each change, and never analyse.py."""

from __future__ import annotations

from advisor.base.errors import UnknownFigure, UserError
from advisor.i18n import _
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.constants import const
from advisor.model.engine import evaluate
from advisor.model.predict import Figure, Prediction
from advisor.workload.engines import gguf
from advisor.workload.hardware import Fabric, device, fabric
from advisor.workload.infer import infer_config, sequences
from advisor.workload.memory import inference_memory, training_memory
from advisor.workload.models import INFER_STRATEGIES, TRAIN_STRATEGIES, Workload
from advisor.workload.result import Analysis, Config, ratio
from advisor.workload.train import train_config


def check(w: Workload, build_gpus: int) -> int:
    if w.task == "infer" and w.model.kind != "decoder":
        # before any step that needs a decoder's dimensions (the KV cache of --max-concurrency and
        # --request-rate): the model has none, and none may stand in for them
        raise UserError(
            _("inference is modelled for decoder LLMs (prefill and decode), not {model}").format(
                model=w.model.key
            )
        )
    allowed = TRAIN_STRATEGIES if w.task == "train" else INFER_STRATEGIES
    if w.strategy not in allowed:
        raise UserError(
            (
                _("--strategy {strategy} is not one for training")
                if w.task == "train"
                else _("--strategy {strategy} is not one for inference")
            ).format(strategy=w.strategy),
            hint=_("choose from {choices}").format(choices=", ".join(allowed)),
        )
    for name, value in (
        ("--batch", w.batch),
        ("--accum", w.accum),
        ("--seq", w.seq),
        ("--prompt", w.prompt),
        ("--gen", w.gen),
    ):
        if value < 1:
            raise UserError(_("{flag} must be at least 1 (got {value})").format(flag=name, value=value))
    n = w.gpus if w.gpus is not None else build_gpus
    if n < 1:
        raise UserError(_("{flag} must be at least 1 (got {value})").format(flag="--gpus", value=n))
    if build_gpus == 0:
        raise UserError(_("the build has no GPU with a working link: nothing to run the workload on"))
    if n > build_gpus:
        raise UserError(_("--gpus {k} is more than the {n} GPU(s) this build has").format(k=n, n=build_gpus))
    return n


def engine_batch(w: Workload, pred: Prediction, n: int) -> tuple[Workload, str]:
    """With a serving engine's scheduler (--max-num-seqs), the sequences a decode step really advances:
    at most max_num_seqs per engine instance (vLLM's default 256) and what the KV cache admits; the rest of
    the requests wait. Returns the job at that concurrency and a note, or the job unchanged."""
    if w.task != "infer" or w.max_num_seqs is None:
        return w, ""
    instances = n if n > 1 and w.strategy in ("replicas", "ep") else 1
    running = min(w.batch, w.max_num_seqs * instances)
    live = max(1, min(running, admitted(w.but(batch=running), pred, n)))
    if live >= w.batch:
        return w, ""
    note = (
        _(
            "{live} of the {batch} requests run at once (--max-num-seqs); the rest wait for a slot, as the "
            "engine's scheduler admits them"
        )
        if live == w.max_num_seqs * instances
        else _(
            "{live} of the {batch} requests run at once (what the KV cache admits); the rest wait for a slot, "
            "as the engine's scheduler admits them"
        )
    )
    return w.but(batch=live), note.format(live=live, batch=w.batch)


def configure(w: Workload, pred: Prediction, n: int) -> tuple[Config, Fabric]:
    dev = device(pred, n, w.precision, quant=w.quant)
    fab = fabric(pred, n, w.host_memory_gbps)
    engine = getattr(pred.machine.software, "engine", None)
    w, note = engine_batch(w, pred, n)
    try:
        cfg = train_config(w, n, dev, fab) if w.task == "train" else infer_config(w, n, dev, fab, engine)
    except UnknownFigure as exc:
        if n < 2 or not fab.missing:
            raise  # nothing but the interconnect may be unknown here: a card's own figures stop the job
        cfg = unknown_config(w, n, dev, fab, exc)
    if note:
        cfg.notes.append(note)
    return cfg, fab


def unknown_config(w: Workload, n: int, dev, fab: Fabric, exc: UnknownFigure) -> Config:
    """The job on n GPUs where the interconnect's rate rests on a null catalog value: its memory is known,
    its time is unknown (the missing facts named), and nothing is computed from a stand-in."""
    if w.task == "train":
        mem = training_memory(w, n, dev.vram_gb)
    else:
        mem = inference_memory(w, n, dev.vram_gb, sequences(w, n, w.strategy)[1])

    def unknown(unit: str) -> Figure:
        return Figure(
            None, unit, _("unknown: {what}").format(what=exc.what), {}, [], "low", missing=list(exc.missing)
        )

    keys = ("optimizer",) if w.task == "train" else ("ttft", "decode_step")
    return Config(
        n,
        w.strategy,
        w.task,
        mem,
        time=unknown("s"),
        throughput=unknown("samples/s" if w.task == "train" else "tokens/s"),
        compute=unknown("s"),
        exposed_comm=unknown("s"),
        bubble=unknown("s"),
        extra={k: unknown("s") for k in keys},
        fabric=fab.label,
        notes=[exc.render()],
    )


def admitted(w: Workload, pred: Prediction, n: int) -> int:
    """The concurrent sequences of prompt + gen tokens the KV cache of `w` on n GPUs admits (at least
    1: a model that does not fit one sequence is then reported as not fitting)."""
    dev = device(pred, n, w.precision, need_mem_bw=True)
    m = inference_memory(w, n, dev.vram_gb, 1).max_sequences
    return max(1, int(m.value)) if m is not None and m.value is not None else 1


def _serve(w: Workload, pred: Prediction, k: int):
    """The rate on k GPUs (advisor.workload.rate), or None where one sequence does not fit."""
    from advisor.workload.rate import serve

    dev = device(pred, k, w.precision, need_mem_bw=True, quant=w.quant)
    if not inference_memory(w, k, dev.vram_gb, 1).fits:
        return None
    cap = w.request_cap or admitted(w, pred, k)
    engine = getattr(pred.machine.software, "engine", None)
    return serve(w, k, dev, fabric(pred, k, w.host_memory_gbps), engine, cap)


def _capacity_speedup(serving: list, n: int) -> tuple[Figure | None, Figure | None]:
    """Serving a rate, N GPUs against one is the requests per second each can take."""
    if len(serving) < 2 or serving[0] is None or serving[-1] is None or not serving[0].capacity.value:
        return None, None
    one, many = serving[0].capacity.value, serving[-1].capacity.value
    r = many / one
    speedup = Figure(
        r,
        "x",
        _("N-GPU capacity / 1-GPU capacity (requests/s each keeps up with at its concurrency cap)"),
        {"n_gpu": round(many, 4), "one_gpu": round(one, 4), "unit": "requests/s"},
        [],
        "low",
    )
    return speedup, Figure(r / n, "", _("speed-up / GPUs"), {"speedup": round(r, 4), "gpus": n}, [], "low")


def run(
    build: Build,
    w: Workload,
    catalog: Catalog | None = None,
    pred: Prediction | None = None,
    strategies: bool = True,
) -> Analysis:
    """The job predicted on the build, on 1 GPU and on N (the other strategies too, unless `strategies` is
    off): the Analysis without its bottleneck and changes, which advise.py adds."""
    if build.nodes > 1:  # one machine's GPUs: a build across nodes is refused, never half-planned
        raise UserError(
            _("the workload model plans one machine; this build has {nodes} nodes").format(nodes=build.nodes),
            hint=_(
                "plan the workload on one node (nodes: 1); `advisor plan` gives the all-reduce across nodes"
            ),
        )
    catalog = catalog or load_catalog()
    pred = pred or evaluate(build, catalog)
    n = check(w, len(pred.machine.gpus))
    if w.task == "infer" and w.max_concurrency:
        w = w.but(batch=admitted(w, pred, n), baseline_batch=admitted(w, pred, 1))
    serving = []
    if w.task == "infer" and w.request_rate:
        serving = [_serve(w, pred, k) for k in ((1, n) if n > 1 else (1,))]
        # the tables then show each configuration at the concurrency the rate brings it to
        w = w.but(
            batch=serving[-1].batch if serving[-1] else w.batch,
            baseline_batch=serving[0].batch if serving[0] else None,
        )
    base = w.but(
        batch=w.baseline_batch or w.batch,
        accum=w.baseline_accum or w.accum,
        recompute=w.recompute if w.baseline_recompute is None else w.baseline_recompute,
    )
    one, _fab_one = configure(base, pred, 1)
    many, fab = configure(w, pred, n)
    r = ratio(many, one)
    speedup = eff = None
    if r is not None:
        speedup = Figure(
            r,
            "x",
            _("N-GPU throughput / 1-GPU throughput"),
            {
                "n_gpu": round(many.throughput.value, 4),
                "one_gpu": round(one.throughput.value, 4),
                "unit": many.throughput.unit,
            },
            [],
            "low",
        )
        eff = Figure(r / n, "", _("speed-up / GPUs"), {"speedup": round(r, 4), "gpus": n}, [], "low")
    if serving:
        speedup, eff = _capacity_speedup(serving, n)
    result = Analysis(w, build, pred, n, one, many, fab, speedup, eff, serving=serving)
    if w.task == "infer" and n > 1 and strategies:  # the other strategies, for the table and the findings
        for s in INFER_STRATEGIES:
            if s == "ep" and not w.model.moe:
                continue  # expert parallel is for a mixture of experts only
            if s == "row" and w.strategy != "row" and not gguf(w):
                continue  # llama.cpp's row split: for llama.cpp's own (GGUF) jobs
            try:
                other = w.but(strategy=s)
                if w.max_concurrency:
                    other = other.but(batch=admitted(other, pred, n))
                result.strategies.append(many if s == w.strategy else configure(other, pred, n)[0])
            except UserError as exc:
                result.skipped_strategies[s] = exc.render()
    from advisor.workload.confidence import class_of, interval_for

    if result.speedup is not None:
        result.speedup_class = class_of(result)
        result.speedup_interval = interval_for(result.speedup_class)
    result.assumptions = assumptions(w, n, len(pred.machine.gpus))
    from advisor.workload.engines import run_as

    result.run_as = run_as(
        w, n, fab.transport, getattr(build.software, "engine", None), fab.pair_via in ("pcie-p2p", "nvlink")
    )
    return result


def unknown_what(f: Figure) -> str:
    """What an unknown figure (unknown_config's) is of, in words: its formula without the "unknown: "."""
    head = _("unknown: {what}").split("{what}")[0]
    return f.formula.removeprefix(head)


def assumptions(w: Workload, n: int, build_gpus: int) -> list[str]:
    out = []
    if w.task == "train":
        out.append(
            _(
                "--batch is the micro-batch per GPU for data-parallel strategies (DDP, DataParallel, ZeRO, "
                "FSDP) and per model replica for TP and PP; speed-up compares samples per second."
            )
        )
        if w.model.transformer:
            out.append(
                _(
                    "Compute is two terms: the GEMMs at gemm_efficiency of the catalog's dense tensor peak, and "
                    "the memory-bound ops moving activation_traffic_factor x the activations at the memory "
                    "bandwidth (both fitted on published 1-GPU steps, not on your code); attention scores are "
                    "written to memory (unfused, as in BERT's reference code)."
                )
                if const("attention_scores_in_memory", w.model.kind, file="workload.yaml")
                else _(
                    "Compute is two terms: the GEMMs at gemm_efficiency of the catalog's dense tensor peak, and "
                    "the memory-bound ops moving activation_traffic_factor x the activations at the memory "
                    "bandwidth (both fitted on published 1-GPU steps, not on your code); attention scores stay "
                    "on chip (FlashAttention / SDPA)."
                )
            )
        else:
            out.append(
                _(
                    "Compute runs at mfu_train of the catalog's dense tensor peak (low confidence, not measured "
                    "on your code)."
                )
            )
        if w.strategy == "ddp":
            out.append(_("DDP accumulates with no_sync: one gradient all-reduce per optimizer step."))
    else:
        out.append(_("--batch is the number of concurrent sequences; replicas split them evenly."))
        out.append(
            _(
                "Decode reads all weights and the KV cache each step at decode_memory_efficiency of the memory "
                "bandwidth; prefill runs at mfu_prefill (low confidence)."
            )
        )
        if w.model.moe:
            out.append(
                _(
                    "A mixture of experts: compute follows the active parameters; a decode step reads the "
                    "shared weights and the experts its tokens are routed to, routing taken as uniform "
                    "(1 - (1 - k/E)^tokens of them); with expert parallel (--strategy ep) the busiest GPU's "
                    "touched experts set the step, and no expert placement balancing (EPLB) is assumed."
                )
            )
        if w.quant in ("fp8", "nvfp4"):
            out.append(
                _(
                    "Weights in {quant}: memory and the bytes each step reads shrink; the linear layers multiply "
                    "in {quant} (activations quantised too) at the card's own tensor peak where it has one (fp8 on "
                    "Ada, Hopper and Blackwell, NVFP4 on Blackwell), at the 16-bit peak elsewhere; attention stays "
                    "16-bit; no quantisation cost counted."
                ).format(quant=w.quant)
            )
        elif w.quant:
            out.append(
                _(
                    "Weights in {quant}: memory and the bytes each step reads shrink; compute still runs at the "
                    "16-bit tensor peak (no faster low-precision math, no dequantization cost counted)."
                ).format(quant=w.quant)
            )
    out.append(
        _(
            "Collectives follow NCCL's ring: alpha (NCCL's latency model for the transport) + k x bytes / the "
            "build's predicted all-reduce bus bandwidth, under the protocol NCCL's tuner would pick for the size "
            "(LL at half the bandwidth, Simple at a longer latency)."
        )
    )
    if n < build_gpus:
        out.append(
            _(
                "{n} of the build's {total} GPUs: the first {n} (CUDA_VISIBLE_DEVICES=0..{last}), in the slots "
                "and with the links the full build gives them."
            ).format(n=n, total=build_gpus, last=n - 1)
        )
    if w.model.custom:
        out.append(
            _("{model}: layers, hidden size and heads are those of preset {preset}.").format(
                model=w.model.name, preset=w.model.key
            )
        )
    return out
