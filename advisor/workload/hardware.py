"""The build as the workload model sees it: per-GPU compute and memory, and the interconnect of
the first k GPUs from the build's own prediction (pred.allreduce, pred.pairs)."""

from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass

from advisor.base.errors import UnknownFigure, UserError
from advisor.i18n import N_, _
from advisor.model.constants import const, overrides_of
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
    # the rate of an inference model's quantised linear layers where the GPU multiplies in their format
    # (fp8 W8A8 on Ada, Hopper and Blackwell; NVFP4 W4A4 on Blackwell); else peak_tflops
    linear_tflops: float | None = None
    # "GPU: field" where the GPU multiplies the format natively but the catalog lacks that peak (the 16-bit
    # rate is used and the report says so)
    linear_missing: str | None = None
    # "GPU: field (basis)" where the peak used rests on a review or on reasoning, not a vendor page
    linear_basis: str | None = None

    @property
    def linear(self) -> float:
        return self.linear_tflops or self.peak_tflops


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
    # over SHM: the memory bandwidth of the sockets that hold the GPUs (GB/s, None where the CPU is
    # unknown), the bus bandwidth it leaves each GPU's staged copies (shm_host_memory_efficiency x it /
    # (2 x GPUs)), and the interconnect's own busbw before that cap
    host_memory_gbps: float | None = None
    host_cap_gbps: float | None = None
    link_busbw: float | None = None
    # GPUs of the ring that share a PCIe switch's uplink: (switch label, GPU indices)
    shared_uplinks: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @property
    def host_bound(self) -> bool:
        """The host memory, not the PCIe links, sets this fabric's all-reduce bandwidth."""
        return (
            self.host_cap_gbps is not None
            and self.link_busbw is not None
            and self.host_cap_gbps < self.link_busbw
        )

    @property
    def label(self) -> str:
        if self.gpus < 2:
            return _("one GPU, no communication")
        if self.busbw is None:
            return _("{transport}, all-reduce bus bandwidth unknown").format(transport=self.transport)
        return _("{transport}, {busbw} GB/s all-reduce bus bandwidth").format(
            transport=self.transport, busbw=f"{self.busbw:.1f}"
        )


def first_gpus(machine: Machine, k: int) -> Machine:
    """The machine with only GPUs 0..k-1 (CUDA_VISIBLE_DEVICES=0..k-1): the others stay in their
    slots as allocated, so links keep the width the full population gave them."""
    keep = {n.id for n in machine.gpus[:k]}
    nodes = {i: n for i, n in machine.nodes.items() if n.kind != "gpu" or i in keep}
    nvlink = [(a, b) for a, b in machine.nvlink if a < k and b < k]
    return dataclasses.replace(machine, nodes=nodes, nvlink=nvlink)


def host_memory_gbps(machine: Machine) -> float | None:
    """One socket's memory bandwidth, channels x MT/s x 8 bytes, from the catalog CPU; None where the build
    names no catalog CPU or the catalog lacks its memory (then the host is not checked, and says so)."""
    cpu = machine.cpu
    mem = getattr(cpu, "memory", None)
    if mem is None or not mem.channels or not mem.max_speed_mts:
        return None
    return mem.channels * mem.max_speed_mts * 8 / 1000


# CPU families whose staged (SHM) traffic has constants of its own in rules/workload.yaml, fitted on or
# derived from published runs on that platform: the family's suffix names them, and each stands for the
# general constant on its builds (shm_host_memory_efficiency_epyc7002, shm_far_socket_share_epyc7002)
FAMILY_CONSTANT_SUFFIX = {"amd-epyc-7002": "epyc7002"}


def family_constant_name(machine: Machine, base: str) -> str:
    """The constant named `base`, or the build's CPU family's own one where rules/workload.yaml has it."""
    suffix = FAMILY_CONSTANT_SUFFIX.get(getattr(machine.cpu, "family", None) or "")
    return f"{base}_{suffix}" if suffix else base


def shm_host_efficiency_name(machine: Machine) -> str:
    """The constant that sets the share of host memory NCCL's staged traffic reaches on this build's CPU."""
    return family_constant_name(machine, "shm_host_memory_efficiency")


def shm_host_efficiency(machine: Machine) -> float:
    return const(shm_host_efficiency_name(machine), file=W)


def gpu_sockets(machine: Machine) -> int:
    """How many CPU sockets hold this machine's GPUs."""
    return len({n.socket for n in machine.gpus})


def shm_far_socket_share_name(machine: Machine) -> str:
    """The constant that sets how much of each further socket's memory a staged ring over several sockets
    adds to the first socket's."""
    return family_constant_name(machine, "shm_far_socket_share")


def shared_uplinks(machine: Machine, ring: list[int]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The PCIe switches with two or more of the ring's GPUs below them: their staged copies share the
    switch's uplink to the CPU."""
    below: dict[str, list[int]] = {}
    gpus = {n.index: n for n in machine.gpus}
    for idx in ring:
        node = gpus.get(idx)
        while node is not None and node.parent is not None:
            parent = machine.nodes.get(node.parent)
            if parent is None:
                break
            if parent.kind == "switch":
                below.setdefault(parent.label, []).append(idx)
            node = parent
    return tuple((label, tuple(sorted(ix))) for label, ix in below.items() if len(ix) > 1)


# The first k GPUs' own prediction, by (the full prediction's id, k, the bandwidth model's overridden
# constants): the accuracy report's grid fits ask for the same one thousands of times while changing only
# workload constants, which predict() never reads. An entry goes with the prediction it was made from.
_SUBS: dict[tuple, Prediction] = {}
_WATCHED: set[int] = set()


def _first_k(pred: Prediction, k: int) -> Prediction:
    key = (id(pred), k, overrides_of("model.yaml"))
    sub = _SUBS.get(key)
    if sub is None:
        if key[0] not in _WATCHED:
            _WATCHED.add(key[0])
            weakref.finalize(pred, _forget, key[0])
        sub = _SUBS[key] = predict(first_gpus(pred.machine, k))
    return sub


def _forget(pred_id: int) -> None:
    _WATCHED.discard(pred_id)
    for key in [key for key in _SUBS if key[0] == pred_id]:
        del _SUBS[key]


def fabric(pred: Prediction, k: int, host_gbps: float | None = None) -> Fabric:
    """The interconnect of the first k GPUs. Over SHM every staged byte is written to host memory and read
    back, so k GPUs' copies need 2 k x busbw of it: the bus bandwidth is capped at
    shm_host_memory_efficiency x the memory bandwidth of the sockets that hold the GPUs / (2 k).
    `host_gbps` stands for one socket's memory bandwidth where the build's CPU is not in the catalog."""
    machine = pred.machine
    if k > len(machine.gpus):
        raise UserError(
            _("--gpus {k} is more than the {n} GPU(s) this build has").format(k=k, n=len(machine.gpus))
        )
    sub = pred if k == len(machine.gpus) else _first_k(pred, k)
    if k < 2 or sub.allreduce is None:
        return Fabric(k, None, "none", None, None, None, "none", sub)
    ar = sub.allreduce
    by = {(p.a, p.b): p for p in sub.pairs} | {(p.b, p.a): p for p in sub.pairs}
    chain = [by[(a, b)] for a, b in zip(sub.ring, sub.ring[1:], strict=False)]
    # the slowest consecutive pair; one whose rate the catalog leaves unknown counts as unknown, not slow
    unknown = [p for p in chain if p.uni.value is None]
    slow = unknown[0] if unknown else min(chain, key=lambda p: p.uni.value)
    missing = tuple(dict.fromkeys([*ar.missing, *(f for p in unknown for f in p.uni.missing)]))
    transport = ar.transport.value if ar.transport else "SHM"
    busbw, host, cap = ar.value, None, None
    if transport == "SHM":
        per_socket = host_gbps if host_gbps is not None else host_memory_gbps(machine)
        if per_socket is not None:
            # the memory of the sockets that hold the ring's GPUs: the first socket's, and of each further
            # one the share the platform's cross-socket staged copies reach
            sockets = gpu_sockets(sub.machine)
            far = const(shm_far_socket_share_name(sub.machine), file=W) if sockets > 1 else 0.0
            host = per_socket * (1 + far * (sockets - 1))
            cap = shm_host_efficiency(sub.machine) * host / (2 * k)
            if busbw is not None:
                busbw = min(busbw, cap)
    return Fabric(
        k,
        busbw,
        transport,
        ar,
        slow.uni.value,
        slow.latency.value,
        slow.via,
        sub,
        missing,
        host,
        cap,
        ar.value,
        shared_uplinks(sub.machine, list(sub.ring)),
    )


def peak_tflops(gpu, precision: str) -> tuple[float | None, str]:
    if precision == "fp16":
        return gpu.fp16_tflops_dense, "fp16_tflops_dense"
    if precision == "fp32" and gpu.architecture == "turing":  # no TF32: fp32 matmuls on the CUDA cores
        return gpu.fp32_tflops, N_("fp32_tflops (Turing has no TF32)")
    if precision == "fp32":
        bf = gpu.bf16_tflops_dense
        return (bf * const("tf32_over_bf16", file=W) if bf else None), "bf16_tflops_dense x tf32_over_bf16"
    return gpu.bf16_tflops_dense, "bf16_tflops_dense"


# a quantised format's tensor peak, and the architectures that multiply in it natively (vLLM's and
# TensorRT-LLM's W8A8 / W4A4 kernels); elsewhere the weights are widened and multiplied at the 16-bit rate
LOW_PRECISION = {
    "fp8": ("fp8_tflops_dense", ("ada", "hopper", "blackwell")),
    "nvfp4": ("fp4_tflops_dense", ("blackwell",)),
}


def linear_tflops(gpu, quant: str | None) -> tuple[float | None, str | None]:
    """(the peak an inference model's linear layers run at in `quant`'s format, its catalog field), or
    (None, field) where the GPU would run the format natively but the catalog lacks its peak, or
    (None, None) where the format is multiplied at the 16-bit rate."""
    if quant not in LOW_PRECISION:
        return None, None
    field, archs = LOW_PRECISION[quant]
    if gpu.architecture not in archs:
        return None, None
    return getattr(gpu, field, None), field


def device(
    pred: Prediction, k: int, precision: str, need_mem_bw: bool = True, quant: str | None = None
) -> Device:
    nodes = pred.machine.gpus[:k]
    rows = []
    for n in nodes:
        g = n.gpu
        if g is None:
            raise UserError(
                _("GPU{index} is not a catalog GPU: its compute and memory are unknown").format(index=n.index)
            )
        peak, field = peak_tflops(g, precision)
        if peak is None:
            raise UnknownFigure(
                _("the compute time on {gpu}").format(gpu=g.name), [f"{g.name}: {field.split(' ')[0]}"]
            )
        if need_mem_bw and g.memory_bandwidth_gbps is None:
            raise UnknownFigure(
                _("the memory-bound time on {gpu}").format(gpu=g.name), [f"{g.name}: memory_bandwidth_gbps"]
            )
        rows.append((g, peak, field))
    g, peak, field = min(rows, key=lambda r: r[1])
    mem = min((r[0].memory_bandwidth_gbps or 0.0) for r in rows) or None
    vram = min(r[0].vram_gb for r in rows)
    names = ", ".join(sorted({r[0].name for r in rows}))
    fig = Figure(
        peak,
        "TFLOPS",
        (
            _("catalog {field} of {gpu} (the slowest GPU in use)")
            if len({r[0].id for r in rows}) > 1
            else _("catalog {field} of {gpu}")
        ).format(field=_(field), gpu=g.name),
        {"gpu": g.name, "precision": precision},
        [],
        "calibrated",
    )
    lows = [(r[0], *linear_tflops(r[0], quant)) for r in rows]
    linear = min(v for _, v, _ in lows) if lows and all(v is not None for _, v, _ in lows) else None
    missing = sorted({f"{gpu.name}: {field}" for gpu, v, field in lows if field and v is None})
    weaker = sorted(
        {
            f"{gpu.name}: {field} ({b.basis})"
            for gpu, v, field in lows
            if linear
            and field
            and (b := (getattr(gpu, "basis", None) or {}).get(field))
            and b.basis != "primary"
        }
    )
    return Device(names, peak, mem, vram, fig, linear, ", ".join(missing) or None, ", ".join(weaker) or None)
