"""Where unsaved work is kept between sessions, so that quitting or a crash never loses it.

One autosave file per build file (or one for an untitled build) in the state folder:
$ADVISOR_STATE_DIR, else $XDG_STATE_HOME/advisor, else ~/.local/state/advisor.

Each running app holds the autosave it writes with a lock (`<file>.lock`, flock), which ends with the app
however it ends: a second app on the same build writes a file of its own (`<name>.2.yaml`), never reads
another live app's file as its own and never deletes it. At the next start the unsaved work of every app
that has gone is found: the newest is restored, and each other one is kept aside, as
`<name>.unsaved-<date>-<time>.yaml`, and named in a note.

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

from advisor.base.files import atomic_write
from advisor.i18n import _

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


MAX_APPS = 16  # apps at once on one build, each with its own autosave


class Claim:
    """This app's autosave for one build (`origin`, None for an untitled one): `path` is the file only it
    writes while it runs, held by a lock on `<path>.lock`; `path` is None when every one of MAX_APPS
    files is another live app's (autosave is then off for this build)."""

    def __init__(self, origin: Path | None, path: Path | None, fd: int | None) -> None:
        self.origin, self.path, self._fd = origin, path, fd

    def discard(self) -> None:
        """Delete this app's autosave (never another's)."""
        if self.path is not None:
            try:
                self.path.unlink()
            except OSError:
                pass

    def release(self) -> None:
        """Let the file go (the app has ended or moved to another build): its lock file is removed while
        still held, so no other app ever holds a lock on a file that has gone."""
        if self._fd is not None and self.path is not None:
            try:
                os.unlink(_lock_name(self.path))
            except OSError:
                pass
            os.close(self._fd)
        self._fd = None


def _slots(origin: Path | None) -> list[Path]:
    first = autosave_path(origin)
    return [first] + [first.with_name(f"{first.stem}.{n}.yaml") for n in range(2, MAX_APPS + 1)]


def _lock_name(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _lock(path: Path) -> int | None | bool:
    """Lock `path`'s lock file for this app: its descriptor; None when another live app holds it; True
    where files cannot be locked here (no fcntl), and every app then shares the first file as before."""
    try:
        import fcntl
    except ImportError:
        return True
    name = _lock_name(path)
    for _try in range(3):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(name, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError:
            return True  # the folder cannot be written: autosave is off anyway (problem())
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        try:  # the file locked is still the one named (its holder did not remove it meanwhile)
            if os.fstat(fd).st_ino == os.stat(name).st_ino:
                return fd
        except OSError:
            pass
        os.close(fd)
    return None


def claim(origin: Path | None) -> Claim:
    """A file of this app's own to autosave `origin`'s build in: the first that no live app holds and no
    app that has gone left unsaved work in (that work is found at the next start)."""
    for path in _slots(origin):
        if os.path.lexists(path):
            continue
        held = _lock(path)
        if held is True:
            return Claim(origin, path, None)
        if held is not None:
            return Claim(origin, path, held)  # type: ignore[arg-type]
    return Claim(origin, None, None)


class Recovery:
    """What an app finds at its start for one build: its claim, the unsaved text it restores (or None),
    the other apps' unsaved work kept aside (paths), the autosaves that could not be read (Damaged), and
    how many live apps hold an autosave of this build."""

    def __init__(self, claim: Claim) -> None:
        self.claim = claim
        self.text: str | None = None
        self.kept: list[Path] = []
        self.damaged: list[Damaged] = []
        self.busy = 0


def recover(origin: Path | None) -> Recovery:
    """Claim an autosave for `origin` and find the unsaved work of the apps that have gone: the newest is
    to be restored (and its file becomes this app's), every other one is kept aside. Another live app's
    autosave is left alone."""
    found: list[tuple[float, Path, str, int | None]] = []  # unsaved work: mtime, file, text, lock
    free: list[tuple[Path, int | None]] = []  # files this app holds that have nothing to restore
    damaged: list[Damaged] = []
    busy = 0
    for path in _slots(origin):
        if free and not os.path.lexists(path):
            continue  # a free file is claimed already; only existing ones need a look
        held = _lock(path)
        if held is None:
            busy += int(os.path.lexists(path))
            continue
        fd = None if held is True else held
        try:
            text = _pending_file(path, origin)
        except Damaged as d:  # moved aside (or, where it could not be, left alone and not claimed)
            damaged.append(d)
            if d.kept is None:
                _unlock(path, fd)
            else:
                free.append((path, fd))
            text = None
        else:
            if text is None:
                free.append((path, fd))
            else:
                found.append((os.lstat(path).st_mtime, path, text, fd))
        if held is True:
            break  # no locks here: the first file only, as an app without locks always did
    found.sort(key=lambda f: f[0], reverse=True)
    if found:
        _, path, text, fd = found[0]
        rec = Recovery(Claim(origin, path, fd))
        rec.text = text
        for _, other, _, other_fd in found[1:]:
            try:
                rec.kept.append(keep_aside(other, "unsaved"))
            except OSError:
                pass  # it stays where it is, and is found again at the next start
            _unlock(other, other_fd)
        spare = free
    elif free:
        rec = Recovery(Claim(origin, *free[0]))
        spare = free[1:]
    else:
        rec = Recovery(claim(origin))
        spare = []
    for other, other_fd in spare:
        _unlock(other, other_fd)
    rec.busy, rec.damaged = busy, damaged
    return rec


def _unlock(path: Path, fd: int | None) -> None:
    if fd is not None:
        Claim(None, path, fd).release()


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
        return _("the state folder {folder} cannot be written ({why})").format(
            folder=folder, why=exc.strerror or exc
        )
    return None


def write(where: Claim | Path | None, text: str) -> Path:
    """Keep `text` for `origin`. The file is private (0600), whatever the umask: only this app reads it,
    in the user's own state folder, and it holds work the user has not yet chosen to write anywhere
    (the build file itself, once saved, gets the user's usual mode).

    The autosave is always a file of its own: where its name is a symbolic link or one name of a file
    with hard links, only that name is removed first (writing through it would change the file it
    points to, which may be a user's); anything else in its place (a folder) is moved aside."""
    path = where.path if isinstance(where, Claim) else autosave_path(where)
    if path is None:
        raise OSError(
            errno.EBUSY, _("{count} other advisor apps hold an autosave of this build").format(count=MAX_APPS)
        )
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
    return _pending_file(autosave_path(origin), origin)


def _pending_file(path: Path, origin: Path | None) -> str | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # the state folder itself cannot be looked in: nothing can be restored
        if exc.errno in (errno.ENOTDIR, errno.ENOENT):  # a file where the state folder should be
            return None
        raise _damaged(path, _("it cannot be read: {why}").format(why=exc.strerror or exc)) from None
    if not stat.S_ISREG(st.st_mode):
        raise _damaged(path, _("it is not a plain file"))
    if st.st_size > MAX_BYTES:
        raise _damaged(path, _("it is {size} bytes, far more than a build").format(size=f"{st.st_size:,}"))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _damaged(path, _("it is not UTF-8 text")) from None
    except OSError as exc:
        raise _damaged(path, _("it cannot be read: {why}").format(why=exc.strerror or exc)) from None
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


def set_aside(where: Claim | Path | None, why: str) -> Damaged:
    """An autosave that was read but is not a build this version understands: moved aside like a
    damaged one. Returns the Damaged that says where it went."""
    path = where.path if isinstance(where, Claim) else autosave_path(where)
    assert path is not None
    return _damaged(path, why)


def _damaged(path: Path, why: str) -> Damaged:
    try:
        return Damaged(path, why, keep_aside(path))
    except OSError as exc:
        return Damaged(path, why, None, exc.strerror or str(exc))


def keep_aside(path: Path, why: str = "unreadable") -> Path:
    """Move `path` to `<stem>.<why>-<date>-<time>.yaml` in its folder, never over another file;
    the new path. OSError when it cannot be moved."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        name = f"{path.stem}.{why}-{stamp}" + (f"-{n}" if n > 1 else "") + ".yaml"
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
