"""The bench's logic on the CPU build of torch with small sizes; CUDA paths skip without a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is the bench's optional extra")

from advisor.bench.torch_bench import Settings, allreduce, run  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.procs import alive, children, cmdline  # noqa: E402

TINY = Settings(
    size_bytes=1 << 16, repeats=3, warmup=1, allreduce_sizes=(1 << 12, 1 << 14), allreduce_timeout_s=60
)


def test_bench_on_cpu_devices_gives_the_plan_metrics():
    meas = run(TINY, devices=[torch.device("cpu"), torch.device("cpu")], backend="gloo")
    metrics = {r.metric for r in meas.results}
    assert {
        "h2d_gbps",
        "d2h_gbps",
        "uni_gbps",
        "bidi_gbps",
        "latency_us",
        "device_mem_gbps",
        "bf16_tflops",
        "busbw_gbps",
    } <= metrics
    uni = meas.find("uni_gbps", a=0, b=1)[0]
    assert uni.p2p is False and "staged" in uni.note and uni.value > 0
    busbw = meas.find("busbw_gbps")[0]
    assert busbw.gpus == 2 and busbw.value > 0 and "gloo" in busbw.note


def test_allreduce_that_hangs_becomes_a_clear_result():
    s = Settings(
        size_bytes=1 << 10, repeats=1, warmup=0, allreduce_sizes=(1 << 10,), allreduce_timeout_s=0.01
    )
    out = allreduce(2, "gloo", s)
    assert isinstance(out, str) and "did not finish" in out


def test_an_all_reduce_that_fails_is_said_as_unmeasured_never_recorded_as_zero(cli, tmp_path):
    s = Settings(
        size_bytes=1 << 10, repeats=1, warmup=0, allreduce_sizes=(1 << 10,), allreduce_timeout_s=0.01
    )
    meas = run(s, devices=[torch.device("cpu"), torch.device("cpu")], backend="gloo")
    assert meas.find("busbw_gbps") == []
    (what,) = meas.unmeasured
    assert what.startswith("all-reduce over 2 ranks:") and "did not finish" in what
    saved = tmp_path / "bench.json"
    meas.save(saved)
    code, out, err = cli("compare", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), str(saved))
    assert code in (0, 1), err
    assert f"{saved}: not measured: all-reduce over 2 ranks" in " ".join(out.split())
    assert "busbw_gbps" not in out


def test_bench_without_a_gpu_says_so_and_exits_cleanly(cli):
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    code, out, _ = cli("bench", "--quick")
    assert code == 0 and "No CUDA GPU" in out
    # as a user runs it, in a fresh process: nothing else on stderr (torch's CPU wheel warns on import
    # when NumPy is not installed, which advisor does not use)
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "advisor", "bench", "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_bench_on_a_real_gpu(tmp_path, cli):
    code, _, err = cli("bench", "--quick", "-o", str(tmp_path / "m.json"))
    assert code == 0, err


@pytest.mark.skipif(not __import__("pathlib").Path("/proc/self/stat").exists(), reason="reads /proc")
def test_killing_the_bench_leaves_no_all_reduce_worker_behind():
    import os
    import signal
    import subprocess
    import sys
    import time

    # a bench whose all-reduce runs for minutes (many repeats), killed with SIGKILL while it runs
    script = (
        "from advisor.bench.torch_bench import Settings, allreduce\n"
        "s = Settings(size_bytes=1 << 10, repeats=10**7, warmup=0, allreduce_sizes=(1 << 12,), "
        "allreduce_timeout_s=600)\n"
        "allreduce(2, 'gloo', s)\n"
    )
    bench = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 120
        workers: set[int] = set()
        while time.monotonic() < deadline and len(workers) < 2:
            workers = {p for p in children(bench.pid) if "multiprocessing" in cmdline(p)}
            time.sleep(0.2)
        assert len(workers) >= 2, "the bench started no all-reduce workers"
        os.kill(bench.pid, signal.SIGKILL)
        bench.wait(timeout=10)
        # a worker still importing torch when the bench died ends as soon as it starts: give a slow,
        # busy machine time for that import
        end = time.monotonic() + 90
        while time.monotonic() < end and any(alive(p) for p in workers):
            time.sleep(0.2)
        assert not any(alive(p) for p in workers), [p for p in workers if alive(p)]
    finally:
        if bench.poll() is None:
            bench.kill()
