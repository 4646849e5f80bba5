"""Torch microbenchmarks: host<->device, GPU<->GPU, all-reduce, device memory, BF16 matmul.

Every figure is the median of timed runs after warm-up, timed with CUDA events on a GPU (wall
clock on the CPU, which the tests use with small sizes). Results become a Measurement with the
same metric names as `advisor plan --json`.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from advisor.measure.models import GpuInfo, Machine, Measurement, Result, Source

GB = 1e9


@dataclass
class Settings:
    size_bytes: int = 256 * 2**20
    repeats: int = 10
    warmup: int = 3
    allreduce_sizes: tuple[int, ...] = (2**20, 16 * 2**20, 128 * 2**20, 512 * 2**20)
    allreduce_timeout_s: float = 120.0

    @classmethod
    def quick(cls) -> Settings:
        return cls(
            size_bytes=64 * 2**20,
            repeats=5,
            warmup=2,
            allreduce_sizes=(2**20, 64 * 2**20),
            allreduce_timeout_s=60.0,
        )


def _timer(torch, device) -> Callable[[Callable[[], None], int, int], float]:
    """Median seconds of fn over repeats after warmup, with CUDA events where the device is a GPU."""

    def run(fn, repeats, warmup):
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(repeats):
            if device.type == "cuda":
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / 1000)
            else:
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
        return statistics.median(times)

    return run


def host_copies(torch, device, s: Settings, pinned: bool = True) -> tuple[float, float]:
    """(h2d, d2h) GB/s for one device."""
    n = s.size_bytes
    host = torch.empty(n, dtype=torch.uint8, pin_memory=pinned and device.type == "cuda")
    dev = torch.empty(n, dtype=torch.uint8, device=device)
    host.random_(0, 255)
    t = _timer(torch, device)
    h2d = t(lambda: dev.copy_(host, non_blocking=True), s.repeats, s.warmup)
    d2h = t(lambda: host.copy_(dev, non_blocking=True), s.repeats, s.warmup)
    return n / h2d / GB, n / d2h / GB


def peer_copy(torch, a, b, s: Settings) -> tuple[float, float, float, bool]:
    """(uni GB/s a->b, bidi GB/s, latency us, p2p used) between two devices."""
    p2p = a.type == "cuda" and b.type == "cuda" and torch.cuda.can_device_access_peer(a.index, b.index)
    n = s.size_bytes
    xa = torch.empty(n, dtype=torch.uint8, device=a).random_(0, 255)
    xb = torch.empty(n, dtype=torch.uint8, device=b)
    ya = torch.empty(n, dtype=torch.uint8, device=a)
    yb = torch.empty(n, dtype=torch.uint8, device=b).random_(0, 255)
    t = _timer(torch, a)
    uni = t(lambda: xb.copy_(xa, non_blocking=True), s.repeats, s.warmup)

    def both():
        xb.copy_(xa, non_blocking=True)
        ya.copy_(yb, non_blocking=True)
        if b.type == "cuda":
            torch.cuda.synchronize(b)

    bidi = t(both, s.repeats, s.warmup)
    small_a = torch.empty(4, dtype=torch.uint8, device=a)
    small_b = torch.empty(4, dtype=torch.uint8, device=b)
    lat = t(lambda: small_b.copy_(small_a), max(s.repeats, 20), s.warmup)
    return n / uni / GB, 2 * n / bidi / GB, lat * 1e6, p2p


def device_memory(torch, device, s: Settings) -> float:
    """Device-to-device copy GB/s, counting bytes read plus written."""
    x = torch.empty(s.size_bytes, dtype=torch.uint8, device=device).random_(0, 255)
    y = torch.empty_like(x)
    sec = _timer(torch, device)(lambda: y.copy_(x), s.repeats, s.warmup)
    return 2 * s.size_bytes / sec / GB


def matmul_tflops(torch, device, s: Settings, n: int | None = None) -> float:
    n = n or (8192 if device.type == "cuda" else 256)
    dtype = torch.bfloat16
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    sec = _timer(torch, device)(lambda: a @ b, s.repeats, s.warmup)
    return 2 * n**3 / sec / 1e12


def _allreduce_worker(rank, world, backend, sizes, repeats, port, queue, parent):  # pragma: no cover - child
    from advisor.base.process import end_with_parent

    end_with_parent(parent, name="advisor-bench-parent")  # a worker never outlives the bench (NCCL hangs)
    import torch
    import torch.distributed as dist

    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group(backend, rank=rank, world_size=world)
    device = torch.device("cuda", rank) if backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    out = []
    for size in sizes:
        x = torch.ones(size // 4, dtype=torch.float32, device=device)
        for _ in range(2):
            dist.all_reduce(x)
        if device.type == "cuda":
            torch.cuda.synchronize()
        times = []
        for _ in range(repeats):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(x)
            if device.type == "cuda":
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        sec = statistics.median(times)
        algbw = size / sec / GB
        out.append((size, algbw * 2 * (world - 1) / world))  # nccl-tests busbw factor for all_reduce
    if rank == 0:
        queue.put(out)
    dist.destroy_process_group()


def allreduce(world: int, backend: str, s: Settings) -> list[tuple[int, float]] | str:
    """busbw per size through torch.distributed in spawned processes, or a message on failure/hang."""
    import socket

    import torch.multiprocessing as mp

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [
        ctx.Process(
            target=_allreduce_worker,
            args=(r, world, backend, s.allreduce_sizes, s.repeats, port, queue, os.getpid()),
            daemon=True,  # ended with the bench when it exits normally; end_with_parent when it is killed
        )
        for r in range(world)
    ]
    for p in procs:
        p.start()
    deadline = time.monotonic() + s.allreduce_timeout_s
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    if any(p.is_alive() for p in procs):
        for p in procs:
            p.kill()
        return (
            f"all-reduce did not finish in {s.allreduce_timeout_s:.0f} s: NCCL hangs like this on multi-GPU "
            "GeForce with broken P2P; try NCCL_P2P_DISABLE=1"
        )
    if any(p.exitcode != 0 for p in procs):
        return f"all-reduce failed (exit codes {[p.exitcode for p in procs]})"
    return queue.get(timeout=5)


def run(
    settings: Settings,
    progress: Callable[[str], None] = lambda _: None,
    devices: list | None = None,
    backend: str | None = None,
) -> Measurement:
    """All benchmarks on every visible CUDA GPU (or on the given devices, e.g. CPU ones in tests)."""
    import torch

    if devices is None:
        devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    results: list[Result] = []
    gpus = []
    for i, d in enumerate(devices):
        name = torch.cuda.get_device_name(d) if d.type == "cuda" else "cpu"
        gpus.append(GpuInfo(index=i, name=name))
        progress(f"GPU{i}: host copies")
        for pinned in (True, False):
            h2d, d2h = host_copies(torch, d, settings, pinned)
            note = None if pinned else "pageable host memory"
            if pinned:
                results += [
                    Result(metric="h2d_gbps", gpu=i, value=h2d, unit="GB/s", tool="advisor-bench"),
                    Result(metric="d2h_gbps", gpu=i, value=d2h, unit="GB/s", tool="advisor-bench"),
                ]
            else:
                results += [
                    Result(metric="h2d_gbps", gpu=i, value=h2d, unit="GB/s", tool="advisor-bench", note=note)
                ]
        progress(f"GPU{i}: device memory and BF16 matmul")
        results.append(
            Result(
                metric="device_mem_gbps",
                gpu=i,
                value=device_memory(torch, d, settings),
                unit="GB/s",
                tool="advisor-bench",
            )
        )
        results.append(
            Result(
                metric="bf16_tflops",
                gpu=i,
                value=matmul_tflops(torch, d, settings),
                unit="TFLOP/s",
                tool="advisor-bench",
            )
        )
    for i, a in enumerate(devices):
        for j, b in enumerate(devices):
            if i == j:
                continue
            progress(f"GPU{i} -> GPU{j}: peer copies")
            uni, bidi, lat, p2p = peer_copy(torch, a, b, settings)
            note = None if p2p else "staged through host memory (no CUDA peer access)"
            results += [
                Result(
                    metric="uni_gbps",
                    a=i,
                    b=j,
                    value=uni,
                    unit="GB/s",
                    p2p=p2p,
                    tool="advisor-bench",
                    note=note,
                ),
                Result(metric="bidi_gbps", a=i, b=j, value=bidi, unit="GB/s", p2p=p2p, tool="advisor-bench"),
                Result(metric="latency_us", a=i, b=j, value=lat, unit="us", p2p=p2p, tool="advisor-bench"),
            ]
    unmeasured: list[str] = []
    if len(devices) > 1:
        progress(f"all-reduce over {len(devices)} ranks")
        be = backend or (
            "nccl" if devices[0].type == "cuda" and torch.distributed.is_nccl_available() else "gloo"
        )
        out = allreduce(len(devices), be, settings)
        if isinstance(out, str):  # no figure stands in for an all-reduce that failed: it is said as such
            unmeasured.append(f"all-reduce over {len(devices)} ranks: {out}")
        else:
            size, busbw = max(out, key=lambda x: x[1])
            results.append(
                Result(
                    metric="busbw_gbps",
                    value=busbw,
                    unit="GB/s",
                    gpus=len(devices),
                    size_bytes=size,
                    tool="advisor-bench",
                    note=f"{be}; best over sizes {[s for s, _ in out]}",
                )
            )
    return Measurement(
        source=Source(tool="advisor-bench", file="-", tool_version=torch.__version__),
        machine=Machine(gpus=gpus, cuda=torch.version.cuda),
        results=results,
        unmeasured=unmeasured,
    )
