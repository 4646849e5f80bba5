"""Speed of `advisor tui` (figures go in docs/speed.md; tests never time things).

    python benchmarks/bench_tui.py

Both figures are taken the way a person meets them: the app runs in a pseudo-terminal of
100x30, this script types into it and reads what it draws.

1. Ready: from starting `advisor tui BUILD` until the first full screen (the summary line with
   the all-reduce figure) has been written to the terminal.
2. Key press to updated views on an 8-GPU build: Ctrl+Z / Ctrl+Y alternately add back and
   remove the eighth card; timed from writing the key to the terminal until the redrawn summary
   ("8 GPUs" / "7 GPUs", drawn in the same frame as the build panel and the visible view) has
   been read back. Every such edit re-evaluates the build (allocation, predictions, all rules).
3. For reference, the parts of that work timed in-process: evaluation and each view's redraw.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EIGHT = ROOT / "tests" / "fixtures" / "builds" / "8x-rtxpro6000-esc8000a.yaml"


class Terminal:
    """`advisor tui` in a 100x30 pseudo-terminal."""

    def __init__(self, path: str, env: dict) -> None:
        self.start = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(sys.executable, [sys.executable, "-m", "advisor", "tui", path], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.seen = b""

    def wait_for(self, text: bytes, timeout: float = 20.0) -> float:
        """Seconds until `text` appears in what the app writes from now on."""
        start = time.perf_counter()
        self.seen = b""
        while time.perf_counter() - start < timeout:
            r, _, _ = select.select([self.fd], [], [], 0.01)
            if r:
                self.seen += os.read(self.fd, 1 << 16)
                if text in self.seen:
                    return time.perf_counter() - start
        raise SystemExit(f"{text!r} did not appear in {timeout} s")

    def press(self, keys: bytes, expect: bytes) -> float:
        os.write(self.fd, keys)
        return self.wait_for(expect)

    def close(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def env() -> dict:
    return dict(os.environ, ADVISOR_STATE_DIR=tempfile.mkdtemp(), TERM="xterm-256color")


def ready_time(path: str, runs: int = 5) -> list[float]:
    out = []
    for _ in range(runs):
        term = Terminal(path, env())
        term.wait_for(b"all-reduce")
        out.append(time.perf_counter() - term.start)
        term.close()
    return out


def key_to_views(path: str, rounds: int = 100) -> list[float]:
    term = Terminal(path, env())
    term.wait_for(b"all-reduce")
    time.sleep(0.5)
    term.press(b"\x1b[B" * 10, b"GPU")  # down to a GPU line
    term.press(b"\x1b[3~", b"7 GPUs")  # Delete: remove it (now Ctrl+Z brings it back)
    times = []
    for i in range(rounds):
        time.sleep(0.05)
        if i % 2 == 0:
            times.append(term.press(b"\x1a", b"8 GPUs"))  # Ctrl+Z
        else:
            times.append(term.press(b"\x19", b"7 GPUs"))  # Ctrl+Y
    term.close()
    return [1000 * t for t in times]


def parts(path: str) -> dict[str, float]:
    from textual.widgets import TabbedContent

    from advisor.tui.app import PANES, AdvisorApp
    from advisor.tui.views import BuildPanel, FindingsView, HostView, MachineTree, MatrixView

    async def run() -> dict[str, float]:
        app = AdvisorApp(path)
        async with app.run_test(size=(100, 30)) as pilot:
            planner = app.planner
            for _, tab, _, _ in PANES[:4]:  # a view is mounted when its tab is first shown
                app.query_one(TabbedContent).active = tab
                await pilot.pause()
            jobs = {"evaluate (allocation, predictions, rules)": lambda: planner._evaluate(planner.build)}
            for cls in (BuildPanel, MachineTree, HostView, MatrixView, FindingsView):
                w = app.query_one(cls)
                jobs[f"{cls.__name__}.show"] = lambda w=w: w.show(planner)
            out = {}
            for name, fn in jobs.items():
                samples = []
                for _ in range(20):
                    t = time.perf_counter()
                    fn()
                    samples.append(1000 * (time.perf_counter() - t))
                out[name] = statistics.median(samples)
            return out

    return asyncio.run(run())


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        os.environ["ADVISOR_STATE_DIR"] = d
        path = str(EIGHT)
        ready = ready_time(path)
        print(
            f"`advisor tui` ready (first full screen): median {statistics.median(ready):.2f} s over {len(ready)} runs "
            f"(min {min(ready):.2f}, max {max(ready):.2f})"
        )
        t = sorted(key_to_views(path))
        print(
            f"key press -> updated views, 8-GPU build, 100x30: median {statistics.median(t):.0f} ms, "
            f"p90 {t[int(0.9 * len(t))]:.0f} ms, max {t[-1]:.0f} ms over {len(t)} edits"
        )
        for name, ms in parts(path).items():
            print(f"  {name}: {ms:.1f} ms")


if __name__ == "__main__":
    main()
