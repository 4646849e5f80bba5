"""The dominant bottleneck in plain words, and what to change, each change predicted by re-running
the model with the change applied (a different accumulation, strategy, NCCL level, driver, board,
card or an NVLink bridge)."""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.base.text import unknown_because
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog
from advisor.model.engine import evaluate
from advisor.model.suggest import plan_problem, x16_platform
from advisor.workload.models import STRATEGY_NAMES, Workload
from advisor.workload.result import Analysis, Change, ratio
from advisor.workload.run import run


def _gb(x: float) -> str:
    return f"{x / 1e9:.1f} GB" if x >= 1e8 else f"{x / 1e6:.1f} MB" if x >= 1e5 else f"{x / 1e3:.0f} KB"


def bottleneck(a: Analysis) -> str:
    w, one, many, n = a.workload, a.one, a.many, a.gpus
    gpu = many.memory
    if not many.fits:
        return (
            f"The model does not fit: {gpu.total.value:.1f} GB per GPU is needed with {w.strategy_name} "
            f"on {n} "
            f"GPU(s), {gpu.usable.value:.1f} GB is usable."
        )
    if not one.fits:
        return (
            f"It does not fit on one GPU ({one.memory.total.value:.1f} GB needed, "
            f"{one.memory.usable.value:.1f} GB "
            f"usable); on {n} GPUs with {w.strategy_name} it fits ({gpu.total.value:.1f} GB each), so the "
            "question is which split, not the speed-up."
        )
    if many.time.value is None:
        return f"Not judged: {many.time.formula.removeprefix('unknown: ')} is {unknown_because(many.time.missing)}."
    sp = a.speedup.value if a.speedup else 1.0
    verdict = f"{n} GPUs give {sp:.2f}x one GPU" if n > 1 else "one GPU"
    split = many.split()
    if n == 1:
        return "One GPU: no communication; " + (
            "compute-bound." if w.task == "train" else "decode is memory-bound."
        )
    if w.task == "train":
        if split["exposed_comm"] >= 0.2:
            what = {
                "ddp": "the gradient all-reduce",
                "dataparallel": "replicating weights and reducing gradients",
                "zero2": "the per-micro-step gradient reduce-scatter",
                "zero3": "parameter all-gathers and gradient reduce-scatters",
                "fsdp": "parameter all-gathers and gradient reduce-scatters",
                "tp": "the 4 all-reduces per layer",
                "pp": "stage-to-stage transfers",
            }[w.strategy]
            return (
                f"Communication-bound: {what} ({_gb(a_bytes(a))} per GPU per step over {many.fabric}) "
                f"leaves {100 * split['exposed_comm']:.0f}% of each step exposed; {verdict}."
                + fabric_limits(a)
            )
        if split["bubble"] >= 0.2:
            return (
                f"Pipeline bubbles: {100 * split['bubble']:.0f}% of each step is fill and drain "
                f"with {w.accum} "
                f"micro-batch(es) on {n} stages; {verdict}."
            )
        return f"Compute-bound: communication hides behind the backward pass ({many.fabric}); {verdict}."
    step = many.extra["decode_step"]
    comm = step.inputs.get("comm_s", 0.0) or 0.0
    if w.strategy == "tp" and comm >= 0.3 * (step.value or 1):
        return (
            f"Decode is bound by all-reduce latency: {2 * w.model.layers} all-reduces of "
            f"{_gb(w.batch * w.model.hidden * w.bytes_per_value)} per token take {comm * 1e3:.2f} ms of each "
            f"{step.value * 1e3:.2f} ms step over {many.fabric}; {verdict}."
        )
    if split["bubble"] >= 0.2:
        return (
            f"Pipeline stages sit idle {100 * split['bubble']:.0f}% of the time: "
            f"{w.batch} concurrent sequence(s) "
            f"cannot fill {n} stages; {verdict}."
        )
    bound = step.inputs.get("bound", "memory")
    if bound == "memory":
        return f"Decode is bound by memory bandwidth (every weight is read once per token); {verdict}."
    return f"Compute-bound (large batch); {verdict}."


def fabric_limits(a: Analysis) -> str:
    """What of the build limits its collectives beyond each GPU's own link, in words: host memory shared by
    every staged copy, and GPUs behind one PCIe switch sharing its uplink."""
    fab, out = a.fabric, []
    if fab.host_bound:
        out.append(
            f"host memory caps the staged all-reduce at {fab.host_cap_gbps:.1f} GB/s of bus bandwidth "
            f"({fab.gpus} GPUs' copies move 2 x {fab.gpus} x that through its {fab.host_memory_gbps:.0f} GB/s), "
            f"below the {fab.link_busbw:.1f} GB/s the PCIe links allow"
        )
    if fab.transport in ("SHM", "P2P") and fab.shared_uplinks:
        where = "; ".join(
            f"GPUs {', '.join(str(g) for g in gpus)} behind {label}" for label, gpus in fab.shared_uplinks
        )
        out.append(f"GPUs behind one PCIe switch share its uplink to the CPU ({where})")
    if fab.host_memory_gbps is None and fab.transport == "SHM":
        out.append("the host memory is not checked (no catalog CPU; --host-memory-gbps gives it)")
    return (" " + "; ".join(out)[0].upper() + "; ".join(out)[1:] + ".") if out else ""


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
            what = "what is trained" if w.task == "train" else "the weights' format"
            a.fit_note = (
                f"{_job_name(w)} as asked does not fit on this build"
                + (f": {a.fit_least}" if a.fit_least else "")
                + f". What fits here changes {what} (its cost is named); other hardware runs it as asked."
                + (f" {takes}" if takes else "")
            )
        else:
            a.fit_note = (
                "Nothing on this build fits"
                + (f": {a.fit_least}." if a.fit_least else ".")
                + (f" {takes}" if takes else "")
            )
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
        return f"Serving it in {w.quant or w.precision}"
    if w.lora_rank is not None:
        return "QLoRA training" if w.base_bits == 4 else "LoRA training"
    return f"Training all {w.model.params / 1e9:.3g}B parameters"


def _speed_changes(a: Analysis, catalog: Catalog, add) -> None:
    """Changes that make N GPUs faster: accumulation, strategy, NCCL level, driver, board, card, NVLink."""
    w, build = a.workload, a.build
    pairs = a.fabric.prediction.pairs
    if w.task == "train":
        if w.strategy in ("ddp", "dataparallel", "zero2", "zero3", "fsdp") and w.accum < 8:
            add(
                "--accum 8 (gradient accumulation with no_sync)",
                "one reduction per 8 micro-batches"
                if w.strategy in ("ddp",)
                else "ZeRO/FSDP still reduce on every micro-step, so this helps little",
                new_w=w.but(accum=8),
            )
        if w.strategy == "pp" and w.accum < 4 * a.gpus:
            add(
                f"--accum {4 * a.gpus} micro-batches",
                "a fuller pipeline: bubble (p-1)/(m+p-1)",
                new_w=w.but(accum=4 * a.gpus),
            )
        if w.strategy != "ddp":
            add(
                "DDP instead of " + w.strategy_name,
                "DDP moves 2x the gradients once per step and needs no "
                "re-gathering when the model fits on each GPU",
                new_w=w.but(strategy="ddp"),
            )
    else:
        for s in ("replicas", "pp", "tp", "ep"):
            if s != w.strategy and (s != "ep" or w.model.moe):
                add(
                    f"{STRATEGY_NAMES[s]} instead of {w.strategy_name}",
                    {
                        "replicas": "no communication at all; N x throughput with enough concurrent requests",
                        "pp": "one small transfer per stage instead of 2 all-reduces per layer",
                        "tp": "splits every layer: lower latency per token where all-reduces are cheap",
                        "ep": "whole experts on each GPU, attention data-parallel: one token exchange per "
                        "layer instead of 2 all-reduces, but each GPU reads the shared weights whole",
                    }[s],
                    new_w=w.but(strategy=s),
                )
    sw = build.software
    if any(p.p2p and not p.nccl_p2p and not p.path.startswith("NV") for p in pairs):
        add(
            "NCCL_P2P_LEVEL=SYS",
            "lets NCCL use the P2P the cards can do across the CPU's root complex",
            new_build=_software(build, nccl_p2p_level="SYS"),
        )
    gpus = [x.node.gpu for x in a.fabric.prediction.gpus]
    if (
        sw.driver == "stock"
        and any(p.via == "staged" for p in pairs)
        and all(g and (g.p2p.stock_linux or g.p2p.patched_driver) for g in gpus)
    ):
        add(
            "patched P2P driver + NCCL_P2P_LEVEL=SYS",
            "the open kernel module patch enables GeForce P2P (large BAR on, IOMMU off or passthrough; "
            "at your "
            "own risk); NCCL's default level would still skip it across the CPU",
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
                    f"{cpu.name} on {board.name} (x16 per GPU)",
                    "every GPU on its own CPU x16 link",
                    new_build=_rebuild(build, cpu=cpu.id, board=board.id),
                    hardware=True,
                )
        if any(p.via == "staged" for p in pairs):
            card = pro_card(catalog, min(g.vram_gb for g in gpus if g))
            if card is not None:
                extra = any(p.path not in ("PIX", "PXB") and not p.path.startswith("NV") for p in pairs)
                label = f"{card.name} cards (P2P over PCIe)" + (" + NCCL_P2P_LEVEL=SYS" if extra else "")
                nb = _rebuild(build, gpu=card.id)
                if extra:
                    nb = _software(nb, nccl_p2p_level="SYS")
                add(
                    label,
                    "pro cards do P2P with the stock driver; compute changes with the card",
                    new_build=nb,
                    hardware=True,
                )
    if not build.nvlink and gpus and all(g and g.nvlink.supported for g in gpus):
        count = len(a.prediction.machine.gpus)
        bridges = [[i, i + 1] for i in range(0, count - 1, 2)]
        nb = build.model_copy(update={"nvlink": bridges})
        add(
            "NVLink bridge"
            + ("s" if len(bridges) > 1 else "")
            + " "
            + ", ".join(f"{x}-{y}" for x, y in bridges),
            "the cards have NVLink connectors: all-reduce over the bridge (no flag says it: the build "
            f"file's `nvlink: {bridges}`)",
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
                f"all {build_gpus} GPUs (--gpus {build_gpus})" + (f" with {label}" if label else ""),
                "the build's other GPUs share the job",
                new_w=v,
                other_gpus=True,
            ):
                break
    if w.task == "infer":
        b = w.batch // 2
        while b >= 1:
            add(
                f"--batch {b} (concurrent sequences)",
                "a smaller KV cache: fewer sequences at once",
                new_w=w.but(batch=b),
            )
            b //= 2
        _infer_quant(a, add)
        return
    _train_fit(a, add)


# quantized weights a served model fits in where its 16-bit weights do not: (format, how much it changes
# the answers, the cost in words); formats and their bits are rules/workload.yaml weight_bits_per_param
_QUANT = (
    ("fp8", 1, "quality, a little: weights in FP8 (vLLM --quantization fp8); check your model's evaluations"),
    ("int4", 2, "quality: weights in 4 bits (AWQ/GPTQ), a quantized checkpoint of the model to find or make"),
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

    why = "the weights take fewer bytes; compute still runs at the 16-bit peak (no faster math counted)"
    for fmt, quality, cost in _QUANT:
        v = fitting(fmt, w.strategy)
        if v is not None:
            served = ", vLLM tensor parallel" if w.strategy == "tp" and n > 1 else ""
            add(
                f"weights in {fmt}{served}" + (f" + --batch {v.batch}" if v.batch != w.batch else ""),
                why,
                new_w=v,
                quality=quality,
                cost="costs " + cost,
            )
    if n < 2:
        return
    bits = const("weight_bits_per_param", file="workload.yaml")
    gguf = sorted((k for k in bits if k.startswith(("q", "iq"))), key=lambda k: -bits[k])
    for strategy, split in (("pp", "layer split (-sm layer)"), ("row", "row split (-sm row)")):
        for fmt in gguf:
            v = fitting(fmt, strategy)
            if v is None:
                continue
            b = bits[fmt]
            add(
                f"weights in {fmt}, llama.cpp's {split}"
                + (f" + --batch {v.batch}" if v.batch != w.batch else ""),
                f"the best GGUF type that fits ({b:.2f} bits per weight); "
                + (
                    "each GPU holds its layers and passes the activations on"
                    if strategy == "pp"
                    else "every matrix split by rows over the GPUs, the activations copied out and back"
                ),
                new_w=v,
                quality=1 if b >= 8 else 2 if b >= 4.5 else 3,
                cost=f"costs quality: weights in llama.cpp's {fmt} ({b:.2f} bits per weight)",
            )
            break


# what each change that saves memory costs, in words, and how much it changes what is trained (0: the
# same training result; 1: a little, the optimizer's state in 8 bits; 2: LoRA's adapters instead of
# every weight; 3: adapters over a 4-bit base)
_COST = {
    "recompute": (0, "speed: each layer's forward pass runs again in the backward pass"),
    "batch": (0, "speed where a smaller micro-batch uses the GPU less well"),
    "zero2": (0, "speed: gradients are reduce-scattered on every micro-step"),
    "fsdp": (0, "speed: parameters are all-gathered for every forward and backward pass (ZeRO-3: the same)"),
    "adamw-8bit": (
        1,
        "quality, a little: AdamW's moments kept in 8 bits (bitsandbytes; Dettmers et al. 2021 report 32-bit "
        "AdamW's accuracy on their benchmarks, not on yours)",
    ),
    "lora": (2, "quality: only rank-16 adapters are trained, the base stays frozen (not full training)"),
    "qlora": (
        3,
        "quality: LoRA adapters over a base held in 4 bits (NF4): the frozen weights carry its error",
    ),
}
_SHORT = {
    "adamw-8bit": "8-bit AdamW",
    "zero2": STRATEGY_NAMES["zero2"],
    "fsdp": "FSDP / ZeRO-3",
    "recompute": "activation recomputation",
    "lora": "LoRA rank 16",
    "qlora": "QLoRA",
}
_WHY = {
    "recompute": "keeps one tensor per layer instead of ~34 s*b*h bytes",
    "batch": "smaller micro-batches, the same samples per step",
    "zero2": "shards gradients and optimizer state over the GPUs",
    "fsdp": "shards weights, gradients and optimizer state over the GPUs",
    "adamw-8bit": "AdamW's two moments in 8 bits instead of 32",
    "lora": "trains rank-16 adapters on every linear layer; the frozen base has no gradients or optimizer state",
    "qlora": "LoRA with the frozen base in 4 bits",
}
# changes advisor cannot predict, named where a job does not fit so the user knows they exist
NOT_MODELLED = (
    "CPU offload (DeepSpeed ZeRO-Offload, FSDP's CPUOffload): the optimizer state, and with ZeRO-3 the "
    "parameters, kept in host memory; advisor models neither its memory nor its PCIe traffic and CPU "
    "optimizer step, so it gives no figure for it"
)


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
    for knobs, v, _need, _ in minimal:
        quality = max((_COST[k][0] for k in knobs), default=0)
        label = " + ".join(
            f"micro-batch {v.batch} with accumulation {v.accum}" if k == "batch" else _SHORT[k] for k in knobs
        )
        add(
            label,
            "; ".join(_WHY[k] for k in knobs),
            new_w=v,
            quality=quality,
            cost="costs " + "; ".join(_COST[k][1] for k in knobs),
        )
    # what the memory savers give when they are not enough: each alone, and the least full training needs
    full = [x for x in sized if not any(k in ("lora", "qlora") for k in x[0]) and x[0]]
    if full and not any(x[3] for x in full):
        low = min(full, key=lambda x: (x[2], len(x[0])))
        a.fit_least = (
            f"the least it needs on this build is {low[2]:.1f} GB per GPU ("
            + " + ".join(_SHORT.get(k, "a smaller micro-batch") for k in low[0])
            + f") on {n} GPU{'s' if n > 1 else ''}, {room:.1f} GB is usable"
        )
    order = [*_SHORT, "batch"]
    alone = sorted((x for x in sized if len(x[0]) == 1 and not x[3]), key=lambda x: order.index(x[0][0]))
    a.fit_short = [
        (
            f"micro-batch {x[1].batch} with accumulation {x[1].accum}"
            if x[0][0] == "batch"
            else _SHORT[x[0][0]],
            _workload_flags(w, x[1]),
            round(x[2], 1),
        )
        for x in alone
    ]
    a.not_modelled = [NOT_MODELLED]


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
        return [(w, "")] + [(w.but(strategy=s), STRATEGY_NAMES[s]) for s in ("tp", "pp") if s != w.strategy]
    out = [(w, "")]
    rc = w.model.transformer and not w.recompute
    if rc:
        out.append((w.but(recompute=True), "--recompute"))
    for s in ("zero2", "fsdp"):
        if s != w.strategy:
            out.append((w.but(strategy=s), STRATEGY_NAMES[s]))
            if rc:
                out.append((w.but(strategy=s, recompute=True), f"{STRATEGY_NAMES[s]} + --recompute"))
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
        how = f" ({least[1]})" if least[1] else ""
        note = (
            f"the least it needs{f' in {w.quant or w.precision}' if w.task == 'infer' else ''} is "
            f"{least[0]:.1f} GB per GPU{how} on {n} GPU{'s' if n > 1 else ''}, "
            f"{usable(vram).value:.1f} GB is usable"
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
        where = f" on {platform[0].name} + {platform[1].name}" if platform else ""
        return f"{count}x {card.name} ({card.vram_gb:g} GB){where}" + (f" with {v_label}" if v_label else "")

    for card in [] if found else cards:  # cards with more memory, as many as today
        fit = _first_fit(base, n, card.vram_gb)
        if fit is not None:
            nb = _rebuild(build, gpu=card.id)
            found = add(
                label(n, card, fit[1]),
                f"{card.vram_gb:g} GB per card instead of {vram:g} GB",
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
                    f"{k} GPUs, each on its own CPU x16 link, share the job",
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
            how = f" with {fit[1]}" if fit[1] else ""
            return note, (
                f"It would take at least {k}x {biggest.name} ({biggest.vram_gb:g} GB, the catalog's largest "
                f"card that a workstation can cool){how}: {need:.1f} GB each; the catalog's platforms take at "
                f"most {most} GPUs at x16."
            )
    return note, f"Not even 1024x {biggest.name} ({biggest.vram_gb:g} GB) would hold it."


def describe_change(a: Analysis, c: Change) -> str:
    """What the change does to this build, in words a buyer reads one way: whether it fits, the speed on
    the change's GPUs and how it compares with the job as asked, then with one GPU run the same way."""
    cfg = c.config
    if cfg is None:
        return ""
    k = c.gpus or a.gpus
    gp = f"{k} GPU{'s' if k != 1 else ''}"
    bits = []
    if not a.many.fits or c.hardware:
        bits.append(f"fits ({cfg.memory.total.value:.1f} of {cfg.memory.usable.value:.1f} GB per GPU)")
    rate = f"{gp} run {cfg.throughput.value:,.1f} {cfg.throughput.unit}"
    if not a.many.fits and a.workload.task == "train" and cfg.time.value:
        rate += f" ({cfg.time.value * 1e3:,.1f} ms a step)"
    if c.vs_now is not None:
        rate += f", {c.vs_now:.2f}x the speed of the job as asked" + (" (slower)" if c.vs_now < 1 else "")
    elif c.vs_one_gpu_today is not None and k > 1:
        rate += f", {c.vs_one_gpu_today:.2f}x the speed of one GPU as asked"
    bits.append(rate)
    if k > 1:
        if c.speedup is None:
            bits.append("one GPU could not run it")
        elif c.speedup >= 1:
            bits.append(f"that is {c.speedup:.2f}x one GPU run the same way")
        else:
            bits.append(f"one GPU run the same way would still be faster ({gp} do {c.speedup:.2f}x of it)")
    return "; ".join(bits)


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
        return "; ".join(f"{c.change} ({c.config.memory.total.value:.1f} GB per GPU)" for c in cs)

    if any(c.quality == 0 for c in on_build):
        return f"on this build, {gb(on_build[:3])} (each under What to change)."
    if on_build:  # only changes of what is trained fit here
        job = _job_name(a.workload)
        asked = f"{job[0].lower()}{job[1:]} as asked does not fit on this build" + (
            f" ({a.fit_least})" if a.fit_least else ""
        )
        other = f"; other hardware runs it as asked: {gb(hardware[:2])}" if hardware else ""
        what = "what is trained" if a.workload.task == "train" else "the weights' format"
        return f"{asked}; on this build, {gb(on_build[:3])}, which change {what}{other}."
    if not a.fit_note:  # the changes were not asked for (analyse(advise=False))
        return (
            "shrink the job (--recompute, a smaller --batch with more --accum, ZeRO-2/FSDP, LoRA or QLoRA), "
            "or more GPUs or cards with more memory."
        )
    nothing = "nothing on this build" + (f" ({a.fit_least})" if a.fit_least else "")
    if hardware:
        return f"{nothing}; other hardware: {gb(hardware[:2])}."
    return f"{nothing}. {a.fit_takes}".strip()


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
