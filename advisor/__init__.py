"""advisor: a hardware configuration advisor for multi-GPU deep-learning machines.

The core (catalog -> build -> lane model and graph -> predictions -> findings) imports neither
textual nor torch; the CLI, the TUI and the bench are faces over it.
"""

from __future__ import annotations

import signal as _signal
import sys as _sys

__version__ = "0.1.0"


def exit_interrupted(signum=None, frame=None):  # pragma: no cover - runs in the interrupted process
    """The SIGINT handler while the `advisor` program loads its modules: one line and exit 130, never an
    import's traceback. `advisor.main.main` hands SIGINT back to KeyboardInterrupt
    inside its own `try`, so a command that is running cleans up (atomic writes) before it ends."""
    import os

    try:
        os.write(2, b"advisor: interrupted\n")
    finally:
        os._exit(130)


def exit_terminated(signum=None, frame=None):  # pragma: no cover - runs in the terminated process
    """The SIGTERM handler while the program loads: one line and exit 143 (128 + SIGTERM)."""
    import os

    try:
        os.write(2, b"advisor: terminated\n")
    finally:
        os._exit(143)


def _is_the_program() -> bool:
    """Whether this process is the `advisor` program (`python -m advisor`, the console script), not a
    program that imports advisor as a library (a test runner keeps its own Ctrl-C)."""
    argv = list(getattr(_sys, "orig_argv", None) or [])
    i = 1
    while i < len(argv) and argv[i].startswith("-"):  # the interpreter's own options, up to -m MODULE
        if argv[i] == "-m":
            return argv[i + 1 : i + 2] == ["advisor"]
        i += 2 if argv[i] in ("-X", "-W", "--check-hash-based-pycs") else 1
    name = (_sys.argv[0] if _sys.argv else "").replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.removesuffix(".exe") == "advisor"


if _is_the_program():
    # before anything else loads: `python -m advisor` imports this package first, then its __main__
    _signal.signal(_signal.SIGINT, exit_interrupted)
    _signal.signal(_signal.SIGTERM, exit_terminated)
