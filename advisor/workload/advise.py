"""The dominant bottleneck in plain words, and what to change, each change predicted by re-running
the model with the change applied (a different accumulation, strategy, NCCL level, driver, board,
card or an NVLink bridge)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.base.errors import UserError
from advisor.base.text import unknown_because
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog
from advisor.model.engine import evaluate
from advisor.workload.models import STRATEGY_NAMES, Workload

if TYPE_CHECKING:
    from advisor.workload.analyse import Analysis, Change


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


def a_bytes(a: Analysis) -> float:
    """Bytes one GPU communicates per optimizer step."""
    w = a.workload
    samples = w.batch * w.accum * (a.gpus if w.strategy not in ("tp", "pp") else 1)
    return a.many.comm_bytes_per_sample * samples


# ------------------------------------------------------------------------------------------- changes


def changes(a: Analysis, catalog: Catalog) -> list[Change]:
    """What to change, each predicted. A job that does not fit always gets the changes that make it fit
    (7B on 2x RTX 4090 once got none): settings of this build first; when none fits, other cards or
    more GPUs from the catalog, and `a.fit_note` says so, with what it would take when nothing does."""
    out: list[Change] = []
    w, build = a.workload, a.build

    def add(
        label: str,
        why: str,
        new_build: Build | None = None,
        new_w: Workload | None = None,
        hardware: bool = False,
        other_gpus: bool = False,
    ) -> bool:
        if any(c.change == label for c in out):
            return False
        c = _rerun(a, catalog, label, why, new_build or build, new_w or w, hardware, other_gpus)
        if c is not None:
            out.append(c)
        return c is not None

    if not a.many.fits:
        _fit_changes(a, add)
    if a.gpus >= 2:
        _speed_changes(a, catalog, add)
    if not a.many.fits and not any(c.fits and not c.hardware for c in out):
        least, takes = _hardware_changes(a, catalog, add, out)
        a.fit_note = (
            "Nothing on this build fits" + (f": {least}." if least else ".") + (f" {takes}" if takes else "")
        )
        a.fit_least, a.fit_takes = least, takes
    for c in out:
        c.summary = describe_change(a, c)
    return out


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
            alt = x16_platform(catalog, len(a.prediction.machine.gpus))
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
            "the cards have NVLink connectors: all-reduce over the bridge",
            new_build=nb,
            hardware=True,
        )


def _fit_changes(a: Analysis, add) -> None:
    """When the job does not fit: the build's other GPUs, activation recomputation, smaller
    micro-batches, sharding (training); fewer concurrent sequences (inference)."""
    w = a.workload
    build_gpus = len(a.prediction.machine.gpus)
    if a.gpus < build_gpus:
        for v, label in _variants(w.but(gpus=None)):
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
        return
    if not w.recompute and w.model.transformer:
        add(
            "--recompute (activation checkpointing)",
            "keeps one tensor per layer instead of ~34 s*b*h bytes; costs a second forward",
            new_w=w.but(recompute=True),
        )
    b = w.batch // 2
    while b >= 1:
        add(
            f"--batch {b} --accum {w.accum * w.batch // b}",
            "smaller micro-batches, same samples per step",
            new_w=w.but(batch=b, accum=w.accum * w.batch // b),
        )
        b //= 2
    for s in ("zero2", "fsdp"):
        if s != w.strategy:
            add(
                f"{STRATEGY_NAMES[s]} instead of {w.strategy_name}",
                "shards optimizer state (FSDP: everything) over the GPUs",
                new_w=w.but(strategy=s),
            )
            if w.model.transformer and not w.recompute:
                add(
                    f"{STRATEGY_NAMES[s]} + --recompute",
                    "sharded states and checkpointed activations",
                    new_w=w.but(strategy=s, recompute=True),
                )


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
            f"the least any change needs is {least[0]:.1f} GB per GPU{how} on {n} GPU{'s' if n > 1 else ''}, "
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
    most = max((k for k in range(2, 9) if x16_platform(catalog, k) is not None), default=0)
    for pool in ([now], cards):  # more of today's cards; more cards with more memory when nothing else fits
        if pool is cards and found:
            break
        done = False
        for k in range(max(n, len(a.prediction.machine.gpus)) + 1, most + 1):
            for card in pool:
                fit = _first_fit(base, k, card.vram_gb)
                platform = x16_platform(catalog, k) if fit is not None else None
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
    return Build.model_validate(data)


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
    from advisor.workload.analyse import Change, analyse, ratio

    try:
        pred = evaluate(build, catalog)
        r = analyse(build, w, catalog, pred, advise=False)
    except UserError:
        return None
    if (r.gpus != a.gpus and not other_gpus) or not r.many.fits or r.many.throughput.value is None:
        return None  # only changes that give a configuration that runs, at a speed the model can predict
    if hardware and (r.gpus != sum(g.count for g in build.gpus) or _coolers_overlap(pred)):
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


def _coolers_overlap(pred) -> bool:
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
    if on_build:
        shown = "; ".join(f"{c.change} ({c.config.memory.total.value:.1f} GB per GPU)" for c in on_build[:3])
        return f"on this build, {shown} (each under What to change)."
    if not a.fit_note:  # the changes were not asked for (analyse(advise=False))
        return (
            "shrink the job (--recompute, a smaller --batch with more --accum, ZeRO-2/FSDP), or more GPUs or "
            "cards with more memory."
        )
    nothing = "nothing on this build" + (f" ({a.fit_least})" if a.fit_least else "")
    other = [c for c in a.changes if c.fits and c.config is not None]
    if other:
        shown = "; ".join(f"{c.change} ({c.config.memory.total.value:.1f} GB per GPU)" for c in other[:2])
        return f"{nothing}; other hardware: {shown}."
    return f"{nothing}. {a.fit_takes}".strip()


def x16_platform(catalog: Catalog, n_gpus: int):
    """The cheapest verified workstation CPU + board from the catalog with n CPU x16 slots."""
    for board in sorted(catalog.boards, key=lambda b: (not b.verified, b.price_usd or 1e9, b.id)):
        if board.segment != "workstation" or not board.cpu_families:
            continue
        cpu_groups = {g.id for g in board.lane_groups if g.source == "cpu"}
        if len([c for c in board.slots if c.group in cpu_groups and c.width >= 16]) < n_gpus:
            continue
        cpus = sorted(
            (c for c in catalog.cpus if c.family in board.cpu_families),
            key=lambda c: (not c.verified, c.price_usd or 1e9, c.id),
        )
        if cpus:
            return cpus[0], board
    return None


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
