"""Helpers for tests that start real processes: what /proc says of them, and signalling a command
at a known point of its start."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def children(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is `pid`, from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def signal_validate(after_line: str, sig: int = signal.SIGINT, wait: float = 0.0) -> tuple[int, str]:
    """Start `python -X importtime -m advisor validate -` (it waits on its stdin, held open here, so it
    cannot finish before the signal however slow or fast the machine), wait until stderr shows the
    import of `after_line` finished (-X importtime writes a line as each module is done), `wait` more
    seconds, send `sig`: waiting on the process's own report, never on a guess of its speed. Returns
    the exit code and stderr without the import-time lines."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "advisor", "validate", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    seen: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            seen.append(line)
            if line.rstrip().endswith(f"| {after_line}"):
                break
        else:
            pytest.fail("advisor ended before the import it should be signalled after:\n" + "".join(seen))
        time.sleep(wait)
        proc.send_signal(sig)
        _, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    err = "".join(seen) + rest
    return proc.returncode, "\n".join(t for t in err.splitlines() if not t.startswith("import time:"))
