"""The build as the workload model sees it: per-GPU compute and memory, and the interconnect of
the first k GPUs from the build's own prediction (pred.allreduce, pred.pairs)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from advisor.base.errors import UnknownFigure, UserError
from advisor.model.constants import const
from advisor.model.machine import Machine
from advisor.model.predict import Figure, Prediction, predict

W = "workload.yaml"


@dataclass(frozen=True)
class Device:
    """The slowest of the GPUs in use: compute, memory bandwidth and memory of one GPU."""

    names: str
    peak_tflops: float
    mem_gbps: float | None
    vram_gb: float
    peak_figure: Figure


@dataclass(frozen=True)
class Fabric:
    """How k GPUs talk: ring all-reduce bus bandwidth and transport, and point-to-point between
    consecutive GPUs (for pipeline stages)."""

    gpus: int
    busbw: float | None  # GB/s, nccl-tests busbw of the k-GPU ring
    transport: str  # NVLink | P2P | SHM | none
    allreduce: Figure | None
    p2p_gbps: float | None  # slowest consecutive pair, one direction
    p2p_latency_us: float | None
    pair_via: str
    prediction: Prediction
    # the catalog facts an unknown busbw or pair rate lacks: communication over this fabric is unknown
    missing: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        if self.gpus < 2:
            return "one GPU, no communication"
        if self.busbw is None:
            return f"{self.transport}, all-reduce bus bandwidth unknown"
        return f"{self.transport}, {self.busbw:.1f} GB/s all-reduce bus bandwidth"


def first_gpus(machine: Machine, k: int) -> Machine:
    """The machine with only GPUs 0..k-1 (CUDA_VISIBLE_DEVICES=0..k-1): the others stay in their
    slots as allocated, so links keep the width the full population gave them."""
    keep = {n.id for n in machine.gpus[:k]}
    nodes = {i: n for i, n in machine.nodes.items() if n.kind != "gpu" or i in keep}
    nvlink = [(a, b) for a, b in machine.nvlink if a < k and b < k]
    return dataclasses.replace(machine, nodes=nodes, nvlink=nvlink)


def fabric(pred: Prediction, k: int) -> Fabric:
    machine = pred.machine
    if k > len(machine.gpus):
        raise UserError(f"--gpus {k} is more than the {len(machine.gpus)} GPU(s) this build has")
    sub = pred if k == len(machine.gpus) else predict(first_gpus(machine, k))
    if k < 2 or sub.allreduce is None:
        return Fabric(k, None, "none", None, None, None, "none", sub)
    ar = sub.allreduce
    by = {(p.a, p.b): p for p in sub.pairs} | {(p.b, p.a): p for p in sub.pairs}
    chain = [by[(a, b)] for a, b in zip(sub.ring, sub.ring[1:], strict=False)]
    # the slowest consecutive pair; one whose rate the catalog leaves unknown counts as unknown, not slow
    unknown = [p for p in chain if p.uni.value is None]
    slow = unknown[0] if unknown else min(chain, key=lambda p: p.uni.value)
    missing = tuple(dict.fromkeys([*ar.missing, *(f for p in unknown for f in p.uni.missing)]))
    return Fabric(
        k,
        ar.value,
        ar.inputs.get("transport", "SHM"),
        ar,
        slow.uni.value,
        slow.latency.value,
        slow.via,
        sub,
        missing,
    )


def peak_tflops(gpu, precision: str) -> tuple[float | None, str]:
    if precision == "fp16":
        return gpu.fp16_tflops_dense, "fp16_tflops_dense"
    if precision == "fp32" and gpu.architecture == "turing":  # no TF32: fp32 matmuls on the CUDA cores
        return gpu.fp32_tflops, "fp32_tflops (Turing has no TF32)"
    if precision == "fp32":
        bf = gpu.bf16_tflops_dense
        return (bf * const("tf32_over_bf16", file=W) if bf else None), "bf16_tflops_dense x tf32_over_bf16"
    return gpu.bf16_tflops_dense, "bf16_tflops_dense"


def device(pred: Prediction, k: int, precision: str, need_mem_bw: bool = True) -> Device:
    nodes = pred.machine.gpus[:k]
    rows = []
    for n in nodes:
        g = n.gpu
        if g is None:
            raise UserError(f"GPU{n.index} is not a catalog GPU: its compute and memory are unknown")
        peak, field = peak_tflops(g, precision)
        if peak is None:
            raise UnknownFigure(f"the compute time on {g.name}", [f"{g.name}: {field.split(' ')[0]}"])
        if need_mem_bw and g.memory_bandwidth_gbps is None:
            raise UnknownFigure(f"the memory-bound time on {g.name}", [f"{g.name}: memory_bandwidth_gbps"])
        rows.append((g, peak, field))
    g, peak, field = min(rows, key=lambda r: r[1])
    mem = min((r[0].memory_bandwidth_gbps or 0.0) for r in rows) or None
    vram = min(r[0].vram_gb for r in rows)
    names = ", ".join(sorted({r[0].name for r in rows}))
    fig = Figure(
        peak,
        "TFLOPS",
        f"catalog {field} of {g.name}"
        + (" (the slowest GPU in use)" if len({r[0].id for r in rows}) > 1 else ""),
        {"gpu": g.name, "precision": precision},
        [],
        "calibrated",
    )
    return Device(names, peak, mem, vram, fig)
