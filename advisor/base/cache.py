"""Parsed copies of bundled files, kept as JSON (never pickle) in the user's cache folder.

A copy is named by a hash of advisor's version and every source file's path, size and time, so an
edited file or a new advisor never reads a stale copy; a damaged or unreadable copy is ignored and the
source is read again; where the cache folder cannot be written, nothing is cached.
`ADVISOR_CACHE_DIR` moves the folder (default `$XDG_CACHE_HOME/advisor` or `~/.cache/advisor`).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

KEEP = 5  # copies kept per prefix (each checkout and each advisor version has its own)


def cache_dir() -> Path:
    base = os.environ.get("ADVISOR_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "advisor"
    )
    return Path(base)


def cache_path(prefix: str, files: list[Path], salt: str = "") -> Path:
    from advisor import __version__

    h = hashlib.sha256(f"{__version__}|{salt}".encode())
    for f in files:
        st = f.stat()
        h.update(f"|{f.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode())
    return cache_dir() / f"{prefix}-{h.hexdigest()[:24]}.json"


def read_cached(path: Path) -> Any:
    """The cached value, or None when there is none or it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return None


def write_cached(path: Path, value: Any, prefix: str) -> None:
    from advisor.base.files import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(value))
        old = sorted(path.parent.glob(f"{prefix}-*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
        for stale in old[KEEP:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only home folder: the source is read every time
