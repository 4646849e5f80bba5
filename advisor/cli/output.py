"""`-o FILE` of the commands that write a file: `-` is standard output, anything else goes through
atomic_write (advisor/base/yamlio.py), which keeps the file's mode, follows symbolic links, writes to
devices and pipes without replacing them, and says in one message (exit 2) what stops a write."""

from __future__ import annotations

import sys

STDOUT = "-"


def check_output(path: str) -> None:
    """Before a long run (`advisor bench`): a path that surely cannot be written is said now, not after."""
    if path != STDOUT:
        from advisor.base.yamlio import check_writable

        check_writable(path)


def write_output(path: str, text: str) -> bool:
    """Write `text` to the `-o` path; True when it went to a file (the caller says so on standard
    error), False for `-`, where the text itself is the output."""
    if path == STDOUT:
        sys.stdout.write(text)
        return False
    from advisor.base.yamlio import atomic_write

    atomic_write(path, text)
    return True
