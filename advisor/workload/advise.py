"""The dominant bottleneck in plain words, and what to change, each change predicted by re-running
the model with the change applied (a different accumulation, strategy, NCCL level, driver, board,
card or an NVLink bridge)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.base.errors import UserError
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
    out: list[Change] = []
    w, build = a.workload, a.build
    if a.gpus < 2:
        return out
    pairs = a.fabric.prediction.pairs

    def add(label: str, why: str, new_build: Build | None = None, new_w: Workload | None = None) -> None:
        c = _rerun(a, catalog, label, why, new_build or build, new_w or w)
        if c is not None:
            out.append(c)

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
        if not a.many.fits:
            _fit_changes(a, add)
    else:
        for s in ("replicas", "pp", "tp"):
            if s != w.strategy:
                add(
                    f"{STRATEGY_NAMES[s]} instead of {w.strategy_name}",
                    {
                        "replicas": "no communication at all; N x throughput with enough concurrent requests",
                        "pp": "one small transfer per stage instead of 2 all-reduces per layer",
                        "tp": "splits every layer: lower latency per token where all-reduces are cheap",
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
        )
    return out


def _fit_changes(a: Analysis, add) -> None:
    """When the job does not fit: activation recomputation, smaller micro-batches, sharding."""
    w = a.workload
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


def _software(build: Build, **update) -> Build:
    return build.model_copy(update={"software": build.software.model_copy(update=update)})


def _rebuild(build: Build, cpu: str | None = None, board: str | None = None, gpu: str | None = None) -> Build:
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
    return Build.model_validate(data)


def _rerun(a: Analysis, catalog: Catalog, label: str, why: str, build: Build, w: Workload) -> Change | None:
    from advisor.workload.analyse import Change, analyse, ratio

    try:
        pred = evaluate(build, catalog)
        r = analyse(build, w, catalog, pred, advise=False)
    except UserError:
        return None
    if r.gpus != a.gpus or not r.many.fits:
        return None  # only changes that give a configuration that runs
    vs_now = ratio(r.many, a.many)
    if vs_now is not None and abs(vs_now - 1) < 0.01:
        return None  # no predicted effect: not worth listing
    return Change(
        label, why, r.many, r.speedup.value if r.speedup else None, vs_now, r.many.fits, ratio(r.many, a.one)
    )


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
