"""The dominant bottleneck in plain words, and what to change, each change predicted by re-running
the model with the change applied (a different accumulation, strategy, NCCL level, driver, board,
card or an NVLink bridge)."""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.base.text import unknown_because
from advisor.i18n import N_, _, ngettext, sentences
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog
from advisor.model.engine import evaluate
from advisor.model.suggest import plan_problem, x16_platform
from advisor.workload.models import STRATEGY_NAMES, Workload, strategy_words
from advisor.workload.result import Analysis, Change, ratio
from advisor.workload.run import run, unknown_what


def _gb(x: float) -> str:
    return f"{x / 1e9:.1f} GB" if x >= 1e8 else f"{x / 1e6:.1f} MB" if x >= 1e5 else f"{x / 1e3:.0f} KB"


# what communicates in a communication-bound training step, by strategy
_COMM_BOUND = {
    "ddp": N_("the gradient all-reduce"),
    "dataparallel": N_("replicating weights and reducing gradients"),
    "zero2": N_("the per-micro-step gradient reduce-scatter"),
    "zero3": N_("parameter all-gathers and gradient reduce-scatters"),
    "fsdp": N_("parameter all-gathers and gradient reduce-scatters"),
    "tp": N_("the 4 all-reduces per layer"),
    "pp": N_("stage-to-stage transfers"),
}
# why another inference strategy may serve faster
_SERVE_WHY = {
    "replicas": N_("no communication at all; N x throughput with enough concurrent requests"),
    "pp": N_("one small transfer per stage instead of 2 all-reduces per layer"),
    "tp": N_("splits every layer: lower latency per token where all-reduces are cheap"),
    "ep": N_(
        "whole experts on each GPU, attention data-parallel: one token exchange per layer instead of 2 "
        "all-reduces, but each GPU reads the shared weights whole"
    ),
}


def bottleneck(a: Analysis) -> str:
    w, one, many, n = a.workload, a.one, a.many, a.gpus
    gpu = many.memory
    if not many.fits:
        return _(
            "The model does not fit: {need} GB per GPU is needed with {strategy} on {n} GPU(s), {usable} GB is "
            "usable."
        ).format(
            need=f"{gpu.total.value:.1f}", strategy=w.strategy_name, n=n, usable=f"{gpu.usable.value:.1f}"
        )
    if not one.fits:
        return _(
            "It does not fit on one GPU ({need} GB needed, {usable} GB usable); on {n} GPUs with {strategy} it "
            "fits ({each} GB each), so the question is which split, not the speed-up."
        ).format(
            need=f"{one.memory.total.value:.1f}",
            usable=f"{one.memory.usable.value:.1f}",
            n=n,
            strategy=w.strategy_name,
            each=f"{gpu.total.value:.1f}",
        )
    if many.time.value is None:
        return _("Not judged: {what} is {why}.").format(
            what=unknown_what(many.time), why=unknown_because(many.time.missing)
        )
    sp = a.speedup.value if a.speedup else 1.0
    verdict = _("{n} GPUs give {x}x one GPU").format(n=n, x=f"{sp:.2f}") if n > 1 else _("one GPU")
    split = many.split()
    if n == 1:
        return (
            _("One GPU: no communication; compute-bound.")
            if w.task == "train"
            else _("One GPU: no communication; decode is memory-bound.")
        )
    if w.task == "train":
        if split["exposed_comm"] >= 0.2:
            what = _(_COMM_BOUND[w.strategy])
            return _(
                "Communication-bound: {what} ({size} per GPU per step over {fabric}) leaves {pct}% of each "
                "step exposed; {verdict}."
            ).format(
                what=what,
                size=_gb(a_bytes(a)),
                fabric=many.fabric,
                pct=f"{100 * split['exposed_comm']:.0f}",
                verdict=verdict,
            ) + fabric_limits(a)
        if split["bubble"] >= 0.2:
            return _(
                "Pipeline bubbles: {pct}% of each step is fill and drain with {accum} micro-batch(es) on {n} "
                "stages; {verdict}."
            ).format(pct=f"{100 * split['bubble']:.0f}", accum=w.accum, n=n, verdict=verdict)
        return _("Compute-bound: communication hides behind the backward pass ({fabric}); {verdict}.").format(
            fabric=many.fabric, verdict=verdict
        )
    step = many.extra["decode_step"]
    comm = step.inputs.get("comm_s", 0.0) or 0.0
    if w.strategy == "tp" and comm >= 0.3 * (step.value or 1):
        return _(
            "Decode is bound by all-reduce latency: {count} all-reduces of {size} per token take {comm} ms of "
            "each {step} ms step over {fabric}; {verdict}."
        ).format(
            count=2 * w.model.layers,
            size=_gb(w.batch * w.model.hidden * w.bytes_per_value),
            comm=f"{comm * 1e3:.2f}",
            step=f"{step.value * 1e3:.2f}",
            fabric=many.fabric,
            verdict=verdict,
        )
    if split["bubble"] >= 0.2:
        return _(
            "Pipeline stages sit idle {pct}% of the time: {batch} concurrent sequence(s) cannot fill {n} "
            "stages; {verdict}."
        ).format(pct=f"{100 * split['bubble']:.0f}", batch=w.batch, n=n, verdict=verdict)
    bound = step.inputs.get("bound", "memory")
    if bound == "memory":
        return _(
            "Decode is bound by memory bandwidth (every weight is read once per token); {verdict}."
        ).format(verdict=verdict)
    return _("Compute-bound (large batch); {verdict}.").format(verdict=verdict)


def fabric_limits(a: Analysis) -> str:
    """What of the build limits its collectives beyond each GPU's own link, in words: host memory shared by
    every staged copy, and GPUs behind one PCIe switch sharing its uplink."""
    fab, out = a.fabric, []
    if fab.host_bound:
        out.append(
            _(
                "host memory caps the staged all-reduce at {cap} GB/s of bus bandwidth ({n} GPUs' copies move "
                "2 x {n} x that through its {memory} GB/s), below the {links} GB/s the PCIe links allow"
            ).format(
                cap=f"{fab.host_cap_gbps:.1f}",
                n=fab.gpus,
                memory=f"{fab.host_memory_gbps:.0f}",
                links=f"{fab.link_busbw:.1f}",
            )
        )
    if fab.transport in ("SHM", "P2P") and fab.shared_uplinks:
        where = _("; ").join(
            _("GPUs {gpus} behind {switch}").format(gpus=", ".join(str(g) for g in gpus), switch=label)
            for label, gpus in fab.shared_uplinks
        )
        out.append(_("GPUs behind one PCIe switch share its uplink to the CPU ({where})").format(where=where))
    if fab.host_memory_gbps is None and fab.transport == "SHM":
        out.append(_("the host memory is not checked (no catalog CPU; --host-memory-gbps gives it)"))
    if not out:
        return ""
    said = _("; ").join(out)
    return _(" {limits}.").format(limits=said[0].upper() + said[1:])


def a_bytes(a: Analysis) -> float:
    """Bytes one GPU communicates per optimizer step."""
    w = a.workload
    samples = w.batch * w.accum * (a.gpus if w.strategy not in ("tp", "pp") else 1)
    return a.many.comm_bytes_per_sample * samples


# ------------------------------------------------------------------------------------------- changes


def changes(a: Analysis, catalog: Catalog) -> list[Change]:
    """What to change, each predicted, with the flags that run it. A job that does not fit always gets
    the changes that make it fit: first those of this build (the same training result before a change
    of what is trained, the fastest first within each: a user who asked for full fine-tuning should see
    how to get it before being offered something else), then other hardware, which runs the job as
    asked; `a.fit_note` says when nothing on this build fits, with the least it needs."""
    out: list[Change] = []
    w, build = a.workload, a.build

    def add(
        label: str,
        why: str,
        new_build: Build | None = None,
        new_w: Workload | None = None,
        hardware: bool = False,
        other_gpus: bool = False,
        **extra,
    ) -> bool:
        if any(c.change == label for c in out):
            return False
        nb, nw = new_build or build, new_w or w
        c = _rerun(a, catalog, label, why, nb, nw, hardware, other_gpus)
        if c is not None:
            c.flags = _build_flags(build, nb)
            if c.flags is not None:
                c.flags += _workload_flags(w, nw)
                if nw.gpus is None and w.gpus is not None and c.gpus:
                    c.flags += ["--gpus", str(c.gpus)]  # all of the new build's GPUs, not the user's count
            for k, v in extra.items():
                setattr(c, k, v)
            out.append(c)
        return c is not None

    if not a.many.fits:
        _fit_changes(a, add)
    if a.gpus >= 2:
        _speed_changes(a, catalog, add)
    as_asked = [c for c in out if c.fits and not c.hardware and c.quality == 0]
    if not a.many.fits and not as_asked:
        least, takes = _hardware_changes(a, catalog, add, out)
        a.fit_least = a.fit_least or least
        changed = [c for c in out if c.fits and not c.hardware]
        if changed:  # only changes of what is trained (or served) fit here: say so, and what "as asked" takes
            said = [
                (
                    _("{job} as asked does not fit on this build: {least}.")
                    if a.fit_least
                    else _("{job} as asked does not fit on this build.")
                ).format(job=_job_name(w), least=a.fit_least),
                _(
                    "What fits here changes what is trained (its cost is named); other hardware runs it as asked."
                )
                if w.task == "train"
                else _(
                    "What fits here changes the weights' format (its cost is named); other hardware runs it as "
                    "asked."
                ),
            ]
        else:
            said = [
                _("Nothing on this build fits: {least}.").format(least=a.fit_least)
                if a.fit_least
                else _("Nothing on this build fits.")
            ]
        a.fit_note = sentences(said + ([takes] if takes else []))
        a.fit_takes = takes
    # on-build changes before other hardware; among the changes that make a job fit, the ones that
    # keep what is trained first, then the fastest (stable: speed changes keep their order)
    if not a.many.fits:
        out.sort(key=lambda c: (c.hardware, c.quality, -(c.config.throughput.value or 0.0) if c.fits else 0))
    else:
        out.sort(key=lambda c: c.hardware)
    for c in out:
        c.summary = describe_change(a, c)
    return out


def _job_name(w: Workload) -> str:
    if w.task != "train":
        return _("Serving it in {format}").format(format=w.quant or w.precision)
    if w.lora_rank is not None:
        return _("QLoRA training") if w.base_bits == 4 else _("LoRA training")
    return _("Training all {params}B parameters").format(params=f"{w.model.params / 1e9:.3g}")


def _speed_changes(a: Analysis, catalog: Catalog, add) -> None:
    """Changes that make N GPUs faster: accumulation, strategy, NCCL level, driver, board, card, NVLink."""
    w, build = a.workload, a.build
    pairs = a.fabric.prediction.pairs
    if w.task == "train":
        if w.strategy in ("ddp", "dataparallel", "zero2", "zero3", "fsdp") and w.accum < 8:
            add(
                _("--accum 8 (gradient accumulation with no_sync)"),
                _("one reduction per 8 micro-batches")
                if w.strategy in ("ddp",)
                else _("ZeRO/FSDP still reduce on every micro-step, so this helps little"),
                new_w=w.but(accum=8),
            )
        if w.strategy == "pp" and w.accum < 4 * a.gpus:
            add(
                _("--accum {n} micro-batches").format(n=4 * a.gpus),
                _("a fuller pipeline: bubble (p-1)/(m+p-1)"),
                new_w=w.but(accum=4 * a.gpus),
            )
        if w.strategy != "ddp":
            add(
                _("DDP instead of {strategy}").format(strategy=w.strategy_name),
                _(
                    "DDP moves 2x the gradients once per step and needs no re-gathering when the model fits on "
                    "each GPU"
                ),
                new_w=w.but(strategy="ddp"),
            )
    else:
        for s in ("replicas", "pp", "tp", "ep"):
            if s != w.strategy and (s != "ep" or w.model.moe):
                add(
                    _("{strategy} instead of {now}").format(strategy=strategy_words(s), now=w.strategy_name),
                    _(_SERVE_WHY[s]),
                    new_w=w.but(strategy=s),
                )
    sw = build.software
    if any(p.p2p and not p.nccl_p2p and not p.path.startswith("NV") for p in pairs):
        add(
            "NCCL_P2P_LEVEL=SYS",
            _("lets NCCL use the P2P the cards can do across the CPU's root complex"),
            new_build=_software(build, nccl_p2p_level="SYS"),
        )
    gpus = [x.node.gpu for x in a.fabric.prediction.gpus]
    if (
        sw.driver == "stock"
        and any(p.via == "staged" for p in pairs)
        and all(g and (g.p2p.stock_linux or g.p2p.patched_driver) for g in gpus)
    ):
        add(
            _("patched P2P driver + NCCL_P2P_LEVEL=SYS"),
            _(
                "the open kernel module patch enables GeForce P2P (large BAR on, IOMMU off or passthrough; at "
                "your own risk); NCCL's default level would still skip it across the CPU"
            ),
            new_build=_software(
                build,
                driver="patched-p2p",
                nccl_p2p_level="SYS",
                large_bar=True,
                iommu="passthrough" if sw.iommu == "on" else sw.iommu,
            ),
        )
    if build.topology is None:
        narrow = [x for x in a.fabric.prediction.gpus if x.node.link.width < x.node.link.max_width]
        if narrow:
            alt = x16_platform(catalog, len(a.prediction.machine.gpus), gpus[0].id) if gpus[0] else None
            if alt is not None:
                cpu, board = alt
                add(
                    _("{cpu} on {board} (x16 per GPU)").format(cpu=cpu.name, board=board.name),
                    _("every GPU on its own CPU x16 link"),
                    new_build=_rebuild(build, cpu=cpu.id, board=board.id),
                    hardware=True,
                )
        if any(p.via == "staged" for p in pairs):
            card = pro_card(catalog, min(g.vram_gb for g in gpus if g))
            if card is not None:
                extra = any(p.path not in ("PIX", "PXB") and not p.path.startswith("NV") for p in pairs)
                label = (
                    _("{card} cards (P2P over PCIe) + NCCL_P2P_LEVEL=SYS")
                    if extra
                    else _("{card} cards (P2P over PCIe)")
                ).format(card=card.name)
                nb = _rebuild(build, gpu=card.id)
                if extra:
                    nb = _software(nb, nccl_p2p_level="SYS")
                add(
                    label,
                    _("pro cards do P2P with the stock driver; compute changes with the card"),
                    new_build=nb,
                    hardware=True,
                )
    if not build.nvlink and gpus and all(g and g.nvlink.supported for g in gpus):
        count = len(a.prediction.machine.gpus)
        bridges = [[i, i + 1] for i in range(0, count - 1, 2)]
        nb = build.model_copy(update={"nvlink": bridges})
        add(
            ngettext("NVLink bridge {pairs}", "NVLink bridges {pairs}", len(bridges)).format(
                pairs=", ".join(f"{x}-{y}" for x, y in bridges)
            ),
            _(
                "the cards have NVLink connectors: all-reduce over the bridge (no flag says it: the build "
                "file's `nvlink: {bridges}`)"
            ).format(bridges=bridges),
            new_build=nb,
            hardware=True,
        )


def _fit_changes(a: Analysis, add) -> None:
    """When the job does not fit: the build's other GPUs, activation recomputation, smaller
    micro-batches, sharding (training); fewer concurrent sequences (inference)."""
    w = a.workload
    build_gpus = len(a.prediction.machine.gpus)
    if a.gpus < build_gpus:
        for v, label in _variants(w.but(gpus=build_gpus)):
            if add(
                (
                    _("all {n} GPUs (--gpus {n}) with {how}") if label else _("all {n} GPUs (--gpus {n})")
                ).format(n=build_gpus, how=label),
                _("the build's other GPUs share the job"),
                new_w=v,
                other_gpus=True,
            ):
                break
    if w.task == "infer":
        b = w.batch // 2
        while b >= 1:
            add(
                _("--batch {n} (concurrent sequences)").format(n=b),
                _("a smaller KV cache: fewer sequences at once"),
                new_w=w.but(batch=b),
            )
            b //= 2
        _infer_quant(a, add)
        return
    _train_fit(a, add)


# quantized weights a served model fits in where its 16-bit weights do not: (format, how much it changes
# the answers, the cost in words); formats and their bits are rules/workload.yaml weight_bits_per_param
_QUANT = (
    (
        "fp8",
        1,
        N_("quality, a little: weights in FP8 (vLLM --quantization fp8); check your model's evaluations"),
    ),
    (
        "int4",
        2,
        N_("quality: weights in 4 bits (AWQ/GPTQ), a quantized checkpoint of the model to find or make"),
    ),
)


def _infer_quant(a: Analysis, add) -> None:
    """A served model that does not fit: its weights in FP8 or 4-bit AWQ/GPTQ served by vLLM with the asked
    strategy (tensor parallel by default), and in the best GGUF type that fits, served by llama.cpp with its
    layer split (-sm layer, pipeline parallel) and its row split (-sm row); each with the most concurrent
    sequences (the asked number, or half of it, ...) that then fit."""
    w, n = a.workload, a.gpus
    if w.quant is not None or w.model.kind != "decoder":
        return
    gpus = [x.node.gpu for x in a.fabric.prediction.gpus[:n] if x.node.gpu]
    if not gpus:
        return
    from advisor.model.constants import const
    from advisor.workload.memory import usable

    vram = min(g.vram_gb for g in gpus)
    room = usable(vram).value or 0.0

    def fitting(fmt: str, strategy: str) -> Workload | None:
        b = w.batch
        while b >= 1:
            v = w.but(quant=fmt, batch=b, strategy=strategy)
            need = memory_need(v, n, vram)
            if need is not None and need <= room:
                return v
            b //= 2
        return None

    for fmt, quality, cost in _QUANT:
        v = fitting(fmt, w.strategy)
        if v is not None:
            why = (
                _(
                    "the weights take fewer bytes; the linear layers multiply in FP8 at the card's FP8 peak where it "
                    "has one (Ada, Hopper, Blackwell), at the 16-bit peak elsewhere"
                )
                if fmt == "fp8"
                else _(
                    "the weights take fewer bytes; compute still runs at the 16-bit peak (no faster math counted)"
                )
            )
            tp = w.strategy == "tp" and n > 1
            fewer = v.batch != w.batch
            label = {
                (False, False): N_("weights in {format}"),
                (False, True): N_("weights in {format} + --batch {batch}"),
                (True, False): N_("weights in {format}, vLLM tensor parallel"),
                (True, True): N_("weights in {format}, vLLM tensor parallel + --batch {batch}"),
            }[(tp, fewer)]
            add(
                _(label).format(format=fmt, batch=v.batch),
                why,
                new_w=v,
                quality=quality,
                cost=_("costs {what}").format(what=_(cost)),
            )
    if n < 2:
        return
    bits = const("weight_bits_per_param", file="workload.yaml")
    gguf = sorted((k for k in bits if k.startswith(("q", "iq"))), key=lambda k: -bits[k])
    splits = {
        "pp": (
            N_("weights in {format}, llama.cpp's layer split (-sm layer)"),
            N_("weights in {format}, llama.cpp's layer split (-sm layer) + --batch {batch}"),
            N_(
                "the best GGUF type that fits ({bits} bits per weight); each GPU holds its layers and passes the "
                "activations on"
            ),
        ),
        "row": (
            N_("weights in {format}, llama.cpp's row split (-sm row)"),
            N_("weights in {format}, llama.cpp's row split (-sm row) + --batch {batch}"),
            N_(
                "the best GGUF type that fits ({bits} bits per weight); every matrix split by rows over the "
                "GPUs, the activations copied out and back"
            ),
        ),
    }
    for strategy, (label, fewer, how) in splits.items():
        for fmt in gguf:
            v = fitting(fmt, strategy)
            if v is None:
                continue
            b = bits[fmt]
            add(
                _(fewer if v.batch != w.batch else label).format(format=fmt, batch=v.batch),
                _(how).format(bits=f"{b:.2f}"),
                new_w=v,
                quality=1 if b >= 8 else 2 if b >= 4.5 else 3,
                cost=_("costs quality: weights in llama.cpp's {format} ({bits} bits per weight)").format(
                    format=fmt, bits=f"{b:.2f}"
                ),
            )
            break


# what each change that saves memory costs, in words, and how much it changes what is trained (0: the
# same training result; 1: a little, the optimizer's state in 8 bits; 2: LoRA's adapters instead of
# every weight; 3: adapters over a 4-bit base)
_COST = {
    "recompute": (0, N_("speed: each layer's forward pass runs again in the backward pass")),
    "batch": (0, N_("speed where a smaller micro-batch uses the GPU less well")),
    "zero2": (0, N_("speed: gradients are reduce-scattered on every micro-step")),
    "fsdp": (
        0,
        N_("speed: parameters are all-gathered for every forward and backward pass (ZeRO-3: the same)"),
    ),
    "adamw-8bit": (
        1,
        N_(
            "quality, a little: AdamW's moments kept in 8 bits (bitsandbytes; Dettmers et al. 2021 report 32-bit "
            "AdamW's accuracy on their benchmarks, not on yours)"
        ),
    ),
    "lora": (2, N_("quality: only rank-16 adapters are trained, the base stays frozen (not full training)")),
    "qlora": (
        3,
        N_("quality: LoRA adapters over a base held in 4 bits (NF4): the frozen weights carry its error"),
    ),
}
_SHORT = {
    "adamw-8bit": N_("8-bit AdamW"),
    "zero2": STRATEGY_NAMES["zero2"],
    "fsdp": "FSDP / ZeRO-3",
    "recompute": N_("activation recomputation"),
    "lora": "LoRA rank 16",
    "qlora": "QLoRA",
}
_WHY = {
    "recompute": N_("keeps one tensor per layer instead of ~34 s*b*h bytes"),
    "batch": N_("smaller micro-batches, the same samples per step"),
    "zero2": N_("shards gradients and optimizer state over the GPUs"),
    "fsdp": N_("shards weights, gradients and optimizer state over the GPUs"),
    "adamw-8bit": N_("AdamW's two moments in 8 bits instead of 32"),
    "lora": N_(
        "trains rank-16 adapters on every linear layer; the frozen base has no gradients or optimizer state"
    ),
    "qlora": N_("LoRA with the frozen base in 4 bits"),
}
# changes advisor cannot predict, named where a job does not fit so the user knows they exist
NOT_MODELLED = N_(
    "CPU offload (DeepSpeed ZeRO-Offload, FSDP's CPUOffload): the optimizer state, and with ZeRO-3 the "
    "parameters, kept in host memory; advisor models neither its memory nor its PCIe traffic and CPU "
    "optimizer step, so it gives no figure for it"
)


def _saver(knob: str, v: Workload) -> str:
    """A memory saver's short name (a smaller micro-batch with the accumulation that keeps the samples)."""
    if knob == "batch":
        return _("micro-batch {batch} with accumulation {accum}").format(batch=v.batch, accum=v.accum)
    return _(_SHORT[knob])


def _lora_possible(m) -> bool:
    return bool(m.layers and m.hidden and m.ffn and not m.kv_latent)


def _train_fit(a: Analysis, add) -> None:
    """A training job that does not fit: every combination of this build's memory savers (LoRA, QLoRA,
    8-bit AdamW, ZeRO-2, FSDP/ZeRO-3, recomputation, a smaller micro-batch with accumulation) is sized
    by the memory model; each smallest combination that fits (no fitting combination makes a subset of
    its changes) is predicted and listed. What does not fit alone, and the least full training needs,
    go to `a.fit_short` and `a.fit_least`; what advisor does not model, to `a.not_modelled`."""
    from advisor.workload.memory import usable

    w, n = a.workload, a.gpus
    gpus = [x.node.gpu for x in a.fabric.prediction.gpus[:n] if x.node.gpu]
    if not gpus:
        return
    vram = min(g.vram_gb for g in gpus)
    room = usable(vram).value or 0.0
    m = w.model
    methods: list[tuple[str | None, dict]] = [(None, {})]
    if w.lora_rank is None and _lora_possible(m):
        methods += [
            ("lora", {"lora_rank": 16, "base_bits": 16}),
            ("qlora", {"lora_rank": 16, "base_bits": 4}),
        ]
    elif w.lora_rank is not None and w.base_bits > 4:
        methods.append(("qlora", {"base_bits": 4}))
    optimizers = [None] + (["adamw-8bit"] if w.optimizer == "adamw" else [])
    strategies: list[str | None] = [None]
    if n > 1 and w.strategy in ("ddp", "dataparallel"):
        strategies += ["zero2", "fsdp"]
    elif n > 1 and w.strategy == "zero2":
        strategies.append("fsdp")
    recomputes = [False] + ([True] if m.transformer and not w.recompute else [])
    batches = [b for b in range(w.batch - 1, 0, -1) if w.batch % b == 0]  # largest first, same samples
    sized = []  # (knobs, workload, GB per GPU, fits)
    for method, mchange in methods:
        for opt in optimizers:
            if opt and method:
                continue  # LoRA's adapters have little optimizer state: 8-bit moments save nothing there
            for strat in strategies:
                for rc in recomputes:
                    knobs = tuple(k for k in (method, opt, strat, "recompute" if rc else None) if k)
                    v = w.but(**mchange)
                    if opt:
                        v = v.but(optimizer=opt)
                    if strat:
                        v = v.but(strategy=strat)
                    if rc:
                        v = v.but(recompute=True)
                    need = memory_need(v, n, vram)
                    if need is None:
                        continue
                    if need > room:
                        for b in batches:
                            vb = v.but(batch=b, accum=w.accum * w.batch // b)
                            nb = memory_need(vb, n, vram)
                            if nb is not None and (nb <= room or b == batches[-1]):
                                sized.append(((*knobs, "batch"), vb, nb, nb <= room))
                                break
                    sized.append((knobs, v, need, need <= room))
    fitting = [x for x in sized if x[3] and x[0]]
    minimal = [x for x in fitting if not any(set(y[0]) < set(x[0]) for y in fitting)]
    for knobs, v, _need, _fits in minimal:
        quality = max((_COST[k][0] for k in knobs), default=0)
        add(
            " + ".join(_saver(k, v) for k in knobs),
            _("; ").join(_(_WHY[k]) for k in knobs),
            new_w=v,
            quality=quality,
            cost=_("costs {what}").format(what=_("; ").join(_(_COST[k][1]) for k in knobs)),
        )
    # what the memory savers give when they are not enough: each alone, and the least full training needs
    full = [x for x in sized if not any(k in ("lora", "qlora") for k in x[0]) and x[0]]
    if full and not any(x[3] for x in full):
        low = min(full, key=lambda x: (x[2], len(x[0])))
        a.fit_least = ngettext(
            "the least it needs on this build is {need} GB per GPU ({how}) on {n} GPU, {usable} GB is usable",
            "the least it needs on this build is {need} GB per GPU ({how}) on {n} GPUs, {usable} GB is usable",
            n,
        ).format(
            need=f"{low[2]:.1f}",
            how=" + ".join(_(_SHORT[k]) if k in _SHORT else _("a smaller micro-batch") for k in low[0]),
            n=n,
            usable=f"{room:.1f}",
        )
    order = [*_SHORT, "batch"]
    alone = sorted((x for x in sized if len(x[0]) == 1 and not x[3]), key=lambda x: order.index(x[0][0]))
    a.fit_short = [(_saver(x[0][0], x[1]), _workload_flags(w, x[1]), round(x[2], 1)) for x in alone]
    a.not_modelled = [_(NOT_MODELLED)]


# the flags a change may name that take a value: the user's own of the same name are dropped from the
# command, so the change's holds (argparse keeps the last, but --gpu appends)
_VALUED = set(
    "--gpu --gpus --cpu --board --strategy --batch --accum --optimizer --lora --base-bits --driver "
    "--nccl-p2p-level --kernel-iommu --quant".split()
)


def run_line(a: Analysis, c: Change) -> str | None:
    """The command that runs change `c`: the command as run (`a.command`, where the face knows it) with
    the change's flags added and the user's own flags of the same names (and, with another board, the
    board's M.2 sockets, --nvme) left out. None where the command or the flags are not known."""
    import shlex

    if a.command is None or c.flags is None:
        return None
    drop = {f for f in c.flags if f in _VALUED}
    if "--board" in c.flags:
        drop.add("--nvme")
    words, skip = [], False
    for word in a.command:
        if skip:
            skip = False
            continue
        flag = word.split("=", 1)[0]
        if flag in drop:
            skip = "=" not in word
            continue
        words.append(word)
    return shlex.join([*words, *c.flags])


def _workload_flags(old: Workload, new: Workload) -> list[str]:
    """The `advisor workload` flags that, added to the command as run, turn job `old` into `new`."""
    out: list[str] = []
    if new.gpus != old.gpus and new.gpus is not None:
        out += ["--gpus", str(new.gpus)]
    if new.lora_rank != old.lora_rank or new.base_bits != old.base_bits:
        if old.lora_rank is None and new.lora_rank == 16 and new.base_bits == 4:
            out.append("--qlora")
        else:
            out += ["--lora", str(new.lora_rank)] if new.lora_rank != old.lora_rank else []
            out += ["--base-bits", str(new.base_bits)] if new.base_bits != old.base_bits else []
    if new.optimizer != old.optimizer:
        out += ["--optimizer", new.optimizer]
    if new.quant != old.quant and new.quant is not None:
        out += ["--quant", new.quant]
    if new.strategy != old.strategy:
        out += ["--strategy", new.strategy]
    if new.recompute and not old.recompute:
        out.append("--recompute")
    if new.batch != old.batch:
        out += ["--batch", str(new.batch)]
    if new.accum != old.accum:
        out += ["--accum", str(new.accum)]
    return out


def _build_flags(old: Build, new: Build) -> list[str] | None:
    """The flags that, added to the command as run, give build `new` instead of `old`; None where no flag
    says it (an NVLink bridge is a line of the build file)."""
    if new.nvlink != old.nvlink:
        return None
    out: list[str] = []
    if new.cpu != old.cpu:
        out += ["--cpu", str(new.cpu)]
    if new.board != old.board:
        out += ["--board", str(new.board)]
    if [g.model_dump() for g in new.gpus] != [g.model_dump() for g in old.gpus]:
        for g in new.gpus:
            out += ["--gpu", f"{g.model}:{g.count}" + (f"@{g.slot}" if g.slot else "")]
    sw, was = new.software, old.software
    if sw.driver != was.driver:
        out += ["--driver", {"patched-p2p": "patched"}.get(sw.driver, sw.driver)]
    if sw.nccl_p2p_level != was.nccl_p2p_level:
        out += ["--nccl-p2p-level", str(sw.nccl_p2p_level)]
    if sw.large_bar != was.large_bar:
        out += ["--bios", f"rebar={'on' if sw.large_bar else 'off'}"]
    if sw.iommu != was.iommu:
        out += ["--kernel-iommu", {"passthrough": "pt"}.get(sw.iommu, sw.iommu)]
    return out


# -------------------------------------------------------------------- when nothing on the build fits


def _variants(w: Workload) -> list[tuple[Workload, str]]:
    """Ways to run the job in less memory per GPU, the smallest change first, with their labels."""
    if w.task == "infer":
        return [(w, "")] + [(w.but(strategy=s), strategy_words(s)) for s in ("tp", "pp") if s != w.strategy]
    out = [(w, "")]
    rc = w.model.transformer and not w.recompute
    if rc:
        out.append((w.but(recompute=True), "--recompute"))
    for s in ("zero2", "fsdp"):
        if s != w.strategy:
            out.append((w.but(strategy=s), strategy_words(s)))
            if rc:
                out.append((w.but(strategy=s, recompute=True), f"{strategy_words(s)} + --recompute"))
    if w.batch > 1:
        small = w.but(strategy="fsdp", recompute=w.recompute or rc, batch=1, accum=w.accum * w.batch)
        out.append((small, f"FSDP{' + --recompute' if rc else ''} + --batch 1 --accum {small.accum}"))
    return out


def memory_need(w: Workload, k: int, vram_gb: float) -> float | None:
    """GB per GPU the job needs on k GPUs of vram_gb (the memory model alone, no timing), or None where
    the split is not possible (a TP size that does not divide the heads)."""
    import math

    from advisor.workload.memory import inference_memory, training_memory

    if w.strategy == "tp" and k > 1 and (w.model.heads or 0) % k:
        return None
    if w.task == "train":
        if w.strategy in ("tp", "pp") and not w.model.transformer:
            return None
        return training_memory(w, k, vram_gb).total.value
    if w.model.kind != "decoder":
        return None
    seqs = math.ceil(w.batch / k) if w.strategy == "replicas" and k > 1 else w.batch
    return inference_memory(w, k, vram_gb, seqs).total.value


def _least(w: Workload, k: int, vram_gb: float) -> tuple[float, str] | None:
    """The variant that needs the least memory per GPU on k GPUs: (GB, label)."""
    needs = [(memory_need(v, k, vram_gb), label) for v, label in _variants(w)]
    needs = [(n, label) for n, label in needs if n is not None]
    if not needs:
        return None
    low = min(n for n, _ in needs)
    return next((n, label) for n, label in needs if n <= low * 1.001)  # the least changed of the lowest


def _first_fit(w: Workload, k: int, vram_gb: float) -> tuple[Workload, str] | None:
    """The first (least changed) variant that fits on k GPUs of vram_gb."""
    from advisor.workload.memory import usable

    room = usable(vram_gb).value or 0.0
    for v, label in _variants(w):
        need = memory_need(v, k, vram_gb)
        if need is not None and need <= room:
            return v, label
    return None


def _hardware_changes(a: Analysis, catalog: Catalog, add, listed: list[Change]) -> tuple[str, str]:
    """Nothing on this build fits: say the least it needs, and add the smallest hardware that fits
    (cards with more memory at today's GPU count, more of today's cards on a catalog platform with x16
    per GPU, or both), each predicted. Returns the least any change on this build needs, in words, and,
    when no catalog hardware fits, how many of the largest card it would take; the second part says
    how many of the largest card it would take."""
    from advisor.workload.memory import usable

    w, build, n = a.workload, a.build, a.gpus
    base = w.but(gpus=None)
    gpus = [x.node.gpu for x in a.fabric.prediction.gpus if x.node.gpu]
    now = min(gpus, key=lambda g: g.vram_gb) if gpus else None
    vram = now.vram_gb if now else 0.0
    least = _least(w, n, vram)
    note = ""
    if least is not None:
        infer, how = w.task == "infer", bool(least[1])
        singular, plural = {
            (False, False): (
                N_("the least it needs is {need} GB per GPU on {n} GPU, {usable} GB is usable"),
                N_("the least it needs is {need} GB per GPU on {n} GPUs, {usable} GB is usable"),
            ),
            (False, True): (
                N_("the least it needs is {need} GB per GPU ({how}) on {n} GPU, {usable} GB is usable"),
                N_("the least it needs is {need} GB per GPU ({how}) on {n} GPUs, {usable} GB is usable"),
            ),
            (True, False): (
                N_("the least it needs in {format} is {need} GB per GPU on {n} GPU, {usable} GB is usable"),
                N_("the least it needs in {format} is {need} GB per GPU on {n} GPUs, {usable} GB is usable"),
            ),
            (True, True): (
                N_(
                    "the least it needs in {format} is {need} GB per GPU ({how}) on {n} GPU, {usable} GB is usable"
                ),
                N_(
                    "the least it needs in {format} is {need} GB per GPU ({how}) on {n} GPUs, {usable} GB is usable"
                ),
            ),
        }[(infer, how)]
        note = _(singular if n == 1 else plural).format(
            format=w.quant or w.precision,
            need=f"{least[0]:.1f}",
            how=least[1],
            n=n,
            usable=f"{usable(vram).value:.1f}",
        )
    if now is None or build.topology is not None:
        return note, ""
    cards = sorted(
        (
            g
            for g in catalog.gpus
            if g.vram_gb > vram and _coolable(g) and g.bf16_tflops_dense and g.memory_bandwidth_gbps
        ),
        key=lambda g: (g.vram_gb, not g.verified, g.price_usd or 1e9, g.id),
    )
    # a card listed for its speed that also fits already answers "cards with more memory"
    found = any(c.hardware and c.fits and (c.gpus or n) == n for c in listed)

    def label(count: int, card, v_label: str, platform=None) -> str:
        text = {
            (False, False): "{count}x {card} ({vram} GB)",
            (False, True): N_("{count}x {card} ({vram} GB) with {how}"),
            (True, False): N_("{count}x {card} ({vram} GB) on {cpu} + {board}"),
            (True, True): N_("{count}x {card} ({vram} GB) on {cpu} + {board} with {how}"),
        }[(platform is not None, bool(v_label))]
        return _(text).format(
            count=count,
            card=card.name,
            vram=f"{card.vram_gb:g}",
            cpu=platform[0].name if platform else "",
            board=platform[1].name if platform else "",
            how=v_label,
        )

    for card in [] if found else cards:  # cards with more memory, as many as today
        fit = _first_fit(base, n, card.vram_gb)
        if fit is not None:
            nb = _rebuild(build, gpu=card.id)
            found = add(
                label(n, card, fit[1]),
                _("{vram} GB per card instead of {now} GB").format(vram=f"{card.vram_gb:g}", now=f"{vram:g}"),
                new_build=nb,
                new_w=fit[0],
                hardware=True,
            )
            if found:
                break
    most = max((k for k in range(2, 9) if x16_platform(catalog, k, now.id) is not None), default=0)
    for pool in ([now], cards):  # more of today's cards; more cards with more memory when nothing else fits
        if pool is cards and found:
            break
        done = False
        for k in range(max(n, len(a.prediction.machine.gpus)) + 1, most + 1):
            for card in pool:
                fit = _first_fit(base, k, card.vram_gb)
                platform = x16_platform(catalog, k, card.id) if fit is not None else None
                if fit is None or platform is None:
                    continue
                nb = _rebuild(build, cpu=platform[0].id, board=platform[1].id, gpu=card.id, count=k)
                done = add(
                    label(k, card, fit[1], platform),
                    _("{n} GPUs, each on its own CPU x16 link, share the job").format(n=k),
                    new_build=nb,
                    new_w=fit[0],
                    hardware=True,
                    other_gpus=True,
                )
                if done:
                    break
            if done:
                break
        found = found or done
        if done:
            break
    if found:
        return note, ""
    biggest = max([now, *cards], key=lambda g: g.vram_gb)
    for k in range(1, 1025):
        fit = _first_fit(base, k, biggest.vram_gb)
        if fit is not None:
            need = memory_need(fit[0], k, biggest.vram_gb) or 0.0
            return note, (
                _(
                    "It would take at least {count}x {card} ({vram} GB, the catalog's largest card that a "
                    "workstation can cool) with {how}: {need} GB each; the catalog's platforms take at most "
                    "{most} GPUs at x16."
                )
                if fit[1]
                else _(
                    "It would take at least {count}x {card} ({vram} GB, the catalog's largest card that a "
                    "workstation can cool): {need} GB each; the catalog's platforms take at most {most} GPUs at "
                    "x16."
                )
            ).format(
                count=k,
                card=biggest.name,
                vram=f"{biggest.vram_gb:g}",
                how=fit[1],
                need=f"{need:.1f}",
                most=most,
            )
    return note, _("Not even 1024x {card} ({vram} GB) would hold it.").format(
        card=biggest.name, vram=f"{biggest.vram_gb:g}"
    )


def describe_change(a: Analysis, c: Change) -> str:
    """What the change does to this build, in words a buyer reads one way: whether it fits, the speed on
    the change's GPUs and how it compares with the job as asked, then with one GPU run the same way."""
    cfg = c.config
    if cfg is None:
        return ""
    k = c.gpus or a.gpus
    bits = []
    if not a.many.fits or c.hardware:
        bits.append(
            _("fits ({need} of {usable} GB per GPU)").format(
                need=f"{cfg.memory.total.value:.1f}", usable=f"{cfg.memory.usable.value:.1f}"
            )
        )
    rate = ngettext("{n} GPU run {rate} {unit}", "{n} GPUs run {rate} {unit}", k).format(
        n=k, rate=f"{cfg.throughput.value:,.1f}", unit=cfg.throughput.unit
    )
    if not a.many.fits and a.workload.task == "train" and cfg.time.value:
        rate = _("{rate} ({ms} ms a step)").format(rate=rate, ms=f"{cfg.time.value * 1e3:,.1f}")
    if c.vs_now is not None:
        rate = (
            _("{rate}, {x}x the speed of the job as asked (slower)")
            if c.vs_now < 1
            else _("{rate}, {x}x the speed of the job as asked")
        ).format(rate=rate, x=f"{c.vs_now:.2f}")
    elif c.vs_one_gpu_today is not None and k > 1:
        rate = _("{rate}, {x}x the speed of one GPU as asked").format(
            rate=rate, x=f"{c.vs_one_gpu_today:.2f}"
        )
    bits.append(rate)
    if k > 1:
        if c.speedup is None:
            bits.append(_("one GPU could not run it"))
        elif c.speedup >= 1:
            bits.append(_("that is {x}x one GPU run the same way").format(x=f"{c.speedup:.2f}"))
        else:
            bits.append(
                ngettext(
                    "one GPU run the same way would still be faster ({n} GPU do {x}x of it)",
                    "one GPU run the same way would still be faster ({n} GPUs do {x}x of it)",
                    k,
                ).format(n=k, x=f"{c.speedup:.2f}")
            )
    return _("; ").join(bits)


def _software(build: Build, **update) -> Build:
    return build.model_copy(update={"software": build.software.model_copy(update=update)})


def _rebuild(
    build: Build,
    cpu: str | None = None,
    board: str | None = None,
    gpu: str | None = None,
    count: int | None = None,
) -> Build:
    data = build.model_dump()
    if cpu:
        data["cpu"] = cpu
    if board:
        data["board"] = board
        data["nvme"] = []
        data["gpus"] = [{"model": g["model"], "count": g["count"], "slot": None} for g in data["gpus"]]
    if gpu:
        data["gpus"] = [{"model": gpu, "count": g["count"], "slot": g["slot"]} for g in data["gpus"]]
        data["nvlink"] = []
    if count:
        data["gpus"] = [{"model": data["gpus"][0]["model"], "count": count, "slot": None}]
        data["nvlink"] = []
    new = Build.model_validate(data)
    new._where = dict(build._where)  # the user's part names stay theirs, with where they wrote them
    return new


def _rerun(
    a: Analysis,
    catalog: Catalog,
    label: str,
    why: str,
    build: Build,
    w: Workload,
    hardware: bool = False,
    other_gpus: bool = False,
) -> Change | None:
    """The change predicted: the model re-run on the changed build and job. None when it does not run
    (or fit), or changes nothing; other hardware also when a card gets no link or the coolers overlap
    (a build that cannot be assembled)."""
    try:
        if hardware:  # other parts: only a build the advisor can plan cleanly is offered
            pred, problem = plan_problem(build, catalog)
            if problem is not None:
                return None
        else:
            pred = evaluate(build, catalog)
        r = run(build, w, catalog, pred)
    except UserError:
        return None
    if (r.gpus != a.gpus and not other_gpus) or not r.many.fits or r.many.throughput.value is None:
        return None  # only changes that give a configuration that runs, at a speed the model can predict
    if hardware and (r.gpus != sum(g.count for g in build.gpus) or coolers_overlap(pred)):
        return None
    vs_now = ratio(r.many, a.many)
    if vs_now is not None and abs(vs_now - 1) < 0.01:
        return None  # no predicted effect: not worth listing
    return Change(
        label,
        why,
        r.many,
        r.speedup.value if r.speedup else None,
        vs_now,
        r.many.fits,
        ratio(r.many, a.one),
        gpus=r.gpus,
        hardware=hardware,
    )


def _coolable(g) -> bool:
    """A card a desktop or workstation case can cool: its own fan (catalog cooler open-air or blower), not a
    passive or unknown cooler that needs a server's airflow, and not a datacenter part."""
    return g.cooler not in (None, "passive") and g.segment != "datacenter"


def coolers_overlap(pred) -> bool:
    """A card's cooler covers the next card's slot (board slot positions, catalog slot_width), as FIT001
    counts it (findings/collect.py)."""
    spans = sorted(
        (x.position, x.position + (x.gpu.slot_width or 1))
        for x in pred.machine.gpus
        if x.position and x.gpu is not None
    )
    return any(b0 < a1 for (_, a1), (b0, _) in zip(spans, spans[1:], strict=False))


def fit_fix(a: Analysis) -> str:
    """WL006's fix, computed from the changes: what makes this job fit, with its memory per GPU."""
    if a.many.fits:
        return ""
    on_build = [c for c in a.changes if c.fits and not c.hardware and c.config is not None]
    hardware = [c for c in a.changes if c.fits and c.hardware and c.config is not None]

    def gb(cs) -> str:
        return _("; ").join(
            _("{change} ({need} GB per GPU)").format(
                change=c.change, need=f"{c.config.memory.total.value:.1f}"
            )
            for c in cs
        )

    if any(c.quality == 0 for c in on_build):
        return _("on this build, {changes} (each under What to change).").format(changes=gb(on_build[:3]))
    if on_build:  # only changes of what is trained fit here
        job = _job_name(a.workload)
        asked = (
            _("{job} as asked does not fit on this build ({least})")
            if a.fit_least
            else _("{job} as asked does not fit on this build")
        ).format(job=f"{job[0].lower()}{job[1:]}", least=a.fit_least)
        train = a.workload.task == "train"
        text = {
            (True, True): N_(
                "{asked}; on this build, {changes}, which change what is trained; other hardware runs it as "
                "asked: {hardware}."
            ),
            (True, False): N_("{asked}; on this build, {changes}, which change what is trained."),
            (False, True): N_(
                "{asked}; on this build, {changes}, which change the weights' format; other hardware runs it "
                "as asked: {hardware}."
            ),
            (False, False): N_("{asked}; on this build, {changes}, which change the weights' format."),
        }[(train, bool(hardware))]
        return _(text).format(asked=asked, changes=gb(on_build[:3]), hardware=gb(hardware[:2]))
    if not a.fit_note:  # the changes were not asked for (analyse(advise=False))
        return _(
            "shrink the job (--recompute, a smaller --batch with more --accum, ZeRO-2/FSDP, LoRA or QLoRA), "
            "or more GPUs or cards with more memory."
        )
    nothing = (
        _("nothing on this build ({least})").format(least=a.fit_least)
        if a.fit_least
        else _("nothing on this build")
    )
    if hardware:
        return _("{nothing}; other hardware: {hardware}.").format(nothing=nothing, hardware=gb(hardware[:2]))
    if a.fit_takes:
        return _("{nothing}. {takes}").format(nothing=nothing, takes=a.fit_takes)
    return _("{nothing}.").format(nothing=nothing)


def pro_card(catalog: Catalog, min_vram: float):
    """A card with P2P on the stock driver that a workstation can cool, with the catalog figures the
    model needs; the one with the most BF16 compute per dollar."""
    cards = [
        g
        for g in catalog.gpus
        if g.p2p.stock_linux
        and g.segment == "workstation"
        and g.cooler != "passive"
        and g.bf16_tflops_dense
        and g.memory_bandwidth_gbps
        and g.vram_gb >= min_vram
    ]
    if not cards:
        return None
    return max(cards, key=lambda g: (g.bf16_tflops_dense / (g.price_usd or 1e9), g.id))
