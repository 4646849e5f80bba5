"""Commands run one after another in a worker process, each within a budget the kernel enforces.

A budget kept in the test's own process (a SIGPROF timer) acts only when Python gets control back: a
regular expression caught in catastrophic backtracking runs in C and never returns it, so the test would
hang instead of failing. The worker runs `advisor.main.main(argv)` for each command it is sent; before
each one it moves its RLIMIT_CPU soft limit to the CPU time it has used plus the budget (past it, the
kernel ends the worker with SIGXCPU, in a regex or not) and its RLIMIT_AS to the memory it has plus the
memory budget (past it, the command gets a MemoryError). A worker that was ended is replaced by a new one
for the next command. CPU time, not the clock: a loaded machine does not change the verdict.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_WORKER = r"""
import contextlib, io, json, math, os, resource, sys, traceback
out = os.fdopen(os.dup(1), "w")
cpu_s, mem_mb = float(sys.argv[1]), int(sys.argv[2])
cov = None
from advisor.main import main

def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024

def used():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

for line in sys.stdin:
    ask = json.loads(line)
    if "coverage" in ask:
        import coverage
        cov = coverage.Coverage(source=ask["coverage"], data_file=None)
        cov.start()
        out.write("{}\n"); out.flush()
        continue
    if "report" in ask:
        pct = None
        if cov is not None:
            cov.stop()
            pct = cov.report(file=io.StringIO())
        out.write(json.dumps({"coverage": pct}) + "\n"); out.flush()
        continue
    start = used()
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    soft = math.ceil(start + cpu_s)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    mem = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (vm() + mem_mb * 1024 * 1024, mem[1]))
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(ask["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except MemoryError:
        code = f"over {mem_mb} MB of memory"
    except BaseException as exc:
        code = f"{type(exc).__name__}: {exc}"[:300] + " | " + traceback.format_exc()[-600:]
    finally:
        resource.setrlimit(resource.RLIMIT_AS, mem)
    out.write(json.dumps({"code": code, "out": stdout.getvalue(), "err": stderr.getvalue(),
                          "cpu": used() - start}) + "\n")
    out.flush()
"""


class Worker:
    """`python -c _WORKER`: send it argvs (`run`), get back the exit code, stdout, stderr and CPU time of
    each. `cpu_s` and `mem_mb` are each command's budget."""

    def __init__(self, cpu_s: float = 10, mem_mb: int = 1024, env: dict | None = None) -> None:
        self.cpu_s, self.mem_mb = cpu_s, mem_mb
        self.env = dict(os.environ if env is None else env, PYTHONPATH=str(ROOT))
        self.coverage: list[str] | None = None
        self.proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _WORKER, str(self.cpu_s), str(self.mem_mb)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                cwd=ROOT,
                env=self.env,
            )
            if self.coverage is not None:
                self._ask({"coverage": self.coverage})
        return self.proc

    def _ask(self, what: dict) -> dict | None:
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(what) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            return None
        answer = proc.stdout.readline()
        return json.loads(answer) if answer else None

    def run(self, argv: list[str]) -> dict:
        """{"code", "out", "err", "cpu"}: code is the exit code, or what went wrong in words."""
        self._start()
        got = self._ask({"argv": argv})
        if got is None:  # ended by the kernel: past its CPU budget (SIGXCPU), or killed otherwise
            assert self.proc is not None
            status = self.proc.wait()
            over = status in (-24, 128 + 24)  # SIGXCPU
            return {
                "code": f"over {self.cpu_s:g} s of CPU time" if over else f"the worker ended ({status})",
                "out": "",
                "err": "",
                "cpu": self.cpu_s if over else 0.0,
            }
        return got

    def measure_coverage(self, sources: list[str]) -> None:
        """From now on (and in every worker that replaces this one), record coverage of `sources`."""
        self.coverage = sources
        if self.proc is not None and self.proc.poll() is None:
            self._ask({"coverage": sources})

    def coverage_percent(self) -> float | None:
        if self.proc is None or self.proc.poll() is not None:
            return None
        got = self._ask({"report": True})
        return None if got is None else got["coverage"]

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
