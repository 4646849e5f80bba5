"""Where unsaved work is kept between sessions, so that quitting or a crash never loses it.

One autosave file per build file (or one for an untitled build) in the state folder:
$ADVISOR_STATE_DIR, else $XDG_STATE_HOME/advisor, else ~/.local/state/advisor.

An autosave that cannot be read back (damaged, not UTF-8, or written by a newer advisor with a key this
one does not know) is never overwritten and never deleted: it is moved aside, in the same folder, as
`<name>.unreadable-<date>-<time>.yaml`, and the app says where. A state folder that cannot be written
turns autosave off, with a warning; nothing a recovery does ever writes to a user's own files.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
import time
from pathlib import Path

from advisor.base.yamlio import atomic_write

# an autosave is one build's YAML: a few kilobytes. A file far larger is not one of ours (and reading
# it whole at start-up would stall the app).
MAX_BYTES = 4 * 1024 * 1024


class Damaged(Exception):
    """An autosave that cannot be read back: `why` in words, and where it now is (`kept`), or None
    when it could not be moved aside either (`move_error` says why; autosave must then stay off for
    it, so that nothing overwrites it)."""

    def __init__(self, path: Path, why: str, kept: Path | None, move_error: str | None = None) -> None:
        super().__init__(why)
        self.path, self.why, self.kept, self.move_error = path, why, kept, move_error


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


def problem() -> str | None:
    """Why autosaves cannot be kept here (the folder cannot be made or written to), or None. Checked
    at start-up by making and removing an empty file, so the app can say so before any work is done."""
    folder = state_dir() / "autosave"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"the state folder {folder} cannot be written ({exc.strerror or exc})"
    return None


def write(origin: Path | None, text: str) -> Path:
    """Keep `text` for `origin`. The file is private (0600), whatever the umask: only this app reads it,
    in the user's own state folder, and it holds work the user has not yet chosen to write anywhere
    (the build file itself, once saved, gets the user's usual mode).

    The autosave is always a file of its own: where its name is a symbolic link or one name of a file
    with hard links, only that name is removed first (writing through it would change the file it
    points to, which may be a user's); anything else in its place (a folder) is moved aside."""
    path = autosave_path(origin)
    try:
        st = os.lstat(path)
    except OSError:
        st = None
    if st is not None and (stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink > 1)):
        os.unlink(path)
    elif st is not None and not stat.S_ISREG(st.st_mode):
        keep_aside(path)
    atomic_write(path, text, mode=0o600, parents=True)
    return path


def pending(origin: Path | None) -> str | None:
    """The autosaved text for `origin` when it holds work the file does not (newer and different).

    Raises Damaged (after moving the file aside) when there is an autosave that cannot be read."""
    path = autosave_path(origin)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # the state folder itself cannot be looked in: nothing can be restored
        if exc.errno in (errno.ENOTDIR, errno.ENOENT):  # a file where the state folder should be
            return None
        raise _damaged(path, f"it cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _damaged(path, "it is not a plain file")
    if st.st_size > MAX_BYTES:
        raise _damaged(path, f"it is {st.st_size:,} bytes, far more than a build")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _damaged(path, "it is not UTF-8 text") from None
    except OSError as exc:
        raise _damaged(path, f"it cannot be read: {exc.strerror or exc}") from None
    if origin is None:
        return text
    try:
        if origin.stat().st_mtime > st.st_mtime:
            return None
        if origin.read_text(encoding="utf-8") == text:
            return None
    except (OSError, UnicodeDecodeError):
        pass
    return text


def set_aside(origin: Path | None, why: str) -> Damaged:
    """An autosave that was read but is not a build this version understands: moved aside like a
    damaged one. Returns the Damaged that says where it went."""
    return _damaged(autosave_path(origin), why)


def _damaged(path: Path, why: str) -> Damaged:
    try:
        return Damaged(path, why, keep_aside(path))
    except OSError as exc:
        return Damaged(path, why, None, exc.strerror or str(exc))


def keep_aside(path: Path) -> Path:
    """Move `path` to `<stem>.unreadable-<date>-<time>.yaml` in its folder, never over another file;
    the new path. OSError when it cannot be moved."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        name = f"{path.stem}.unreadable-{stamp}" + (f"-{n}" if n > 1 else "") + ".yaml"
        kept = path.with_name(name)
        if os.path.lexists(kept):
            continue
        try:
            os.link(path, kept, follow_symlinks=False)  # fails, rather than replaces, if the name is taken
        except FileExistsError:
            continue
        except OSError:  # a folder, or a file system without hard links: rename, the name was free
            os.rename(path, kept)
            return kept
        os.unlink(path)
        return kept
    raise OSError(errno.EEXIST, f"no free name for {path.name} in {path.parent}")


def discard(origin: Path | None) -> None:
    try:
        autosave_path(origin).unlink()
    except OSError:
        pass
