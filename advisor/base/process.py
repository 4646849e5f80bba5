"""A child process that never outlives the process that started it."""

from __future__ import annotations

import os
import signal
import threading
import time


def end_with_parent(parent: int, *, grace_s: float | None = None, name: str = "advisor-parent") -> None:
    """End this process once `parent` (a pid passed in by the parent itself: a child still starting
    when its parent was killed has a new parent already) is no longer its parent. With `grace_s` the
    process is first sent SIGTERM, to end as it would when asked (an app restores its terminal), and
    exits that many seconds later regardless; without, it exits at once. Polls from a daemon thread."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        if grace_s is not None:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(grace_s)
        os._exit(1)

    threading.Thread(target=watch, name=name, daemon=True).start()
