"""A child process that never outlives the process that started it."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time


def end_with_parent(parent: int, *, grace_s: float | None = None, name: str = "advisor-parent") -> None:
    """End this process once `parent` (a pid passed in by the parent itself: a child still starting
    when its parent was killed has a new parent already) is no longer its parent. With `grace_s` the
    process is first sent SIGTERM, to end as it would when asked (an app restores its terminal), and
    ends that many seconds later regardless; without, it exits at once. Call it from the main thread.

    Two watchers, so that a busy process ends as surely as an idle one: on Linux the kernel sends SIGTERM
    the moment the parent dies (PR_SET_PDEATHSIG), and a daemon thread polls for it everywhere. Once the
    parent is gone the thread arms a kernel timer (SIGALRM, its default action ends the process) for the
    grace period: a main thread too busy to act on SIGTERM (an app drawing, its event loop blocked) is
    ended by the kernel, not by Python code that would wait for it."""
    if grace_s is not None and hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the timer's signal ends the process
    if grace_s is not None and sys.platform.startswith("linux"):
        _death_signal(signal.SIGTERM)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        if grace_s is not None:
            if hasattr(signal, "setitimer"):
                signal.setitimer(signal.ITIMER_REAL, max(grace_s, 0.01))
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(grace_s)
        os._exit(1)

    threading.Thread(target=watch, name=name, daemon=True).start()


def _death_signal(sig: int) -> None:
    """Ask the kernel to send `sig` to this process when its parent dies (Linux prctl PR_SET_PDEATHSIG);
    nothing where that cannot be asked."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(sig), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
