"""Where unsaved work is kept between sessions, so that quitting or a crash never loses it.

One autosave file per build file (or one for an untitled build) in the state folder:
$ADVISOR_STATE_DIR, else $XDG_STATE_HOME/advisor, else ~/.local/state/advisor.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from advisor.base.yamlio import atomic_write


def state_dir() -> Path:
    if os.environ.get("ADVISOR_STATE_DIR"):
        return Path(os.environ["ADVISOR_STATE_DIR"])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "advisor"


def autosave_path(origin: Path | None) -> Path:
    if origin is None:
        return state_dir() / "autosave" / "untitled.yaml"
    key = hashlib.sha1(str(origin.resolve()).encode()).hexdigest()[:12]
    return state_dir() / "autosave" / f"{origin.stem}-{key}.yaml"


def write(origin: Path | None, text: str) -> Path:
    """Keep `text` for `origin`. The file is private (0600), whatever the umask: only this app reads it,
    in the user's own state folder, and it holds work the user has not yet chosen to write anywhere
    (the build file itself, once saved, gets the user's usual mode)."""
    path = autosave_path(origin)
    atomic_write(path, text, mode=0o600)
    return path


def pending(origin: Path | None) -> str | None:
    """The autosaved text for `origin` when it holds work the file does not (newer and different)."""
    path = autosave_path(origin)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    if origin is None:
        return text
    try:
        if origin.stat().st_mtime > path.stat().st_mtime:
            return None
        if origin.read_text(encoding="utf-8") == text:
            return None
    except OSError:
        pass
    return text


def discard(origin: Path | None) -> None:
    try:
        autosave_path(origin).unlink()
    except OSError:
        pass
