"""Writing files so that nothing is lost: atomic saves that keep a file's mode, owner and links, write
to a device or a pipe as it is, and say every failure with the path, what is wrong and what to do.

Below every other base module that writes (the YAML reader's cache, the app's autosave, the measurement
files), and importing none of them.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from advisor.base.errors import UserError


def default_mode() -> int:
    """The mode a new file gets from the user's umask (0666 & ~umask), as `open()` would make it."""
    try:  # Linux: the umask without changing it (os.umask would, for a moment, for every thread)
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


class WriteError(UserError, OSError):
    """A file that cannot be written, said as the user needs it: the path, what is wrong, what to do.

    A UserError (one message, exit 2) and an OSError, so code that treats any failed write as an OSError
    (the cache, which then works without one) still does."""

    def __init__(self, message: str, hint: str | None = None, errno: int | None = None) -> None:
        super().__init__(message, hint=hint)
        self.errno = errno


def atomic_write(
    path: str | Path, text: str | bytes, mode: int | None = None, *, parents: bool = False
) -> None:
    """Write `text` (UTF-8; or bytes as they are, a picture) to the file at `path` so that what was there is
    never lost or half-replaced.

    - A regular file (or none yet) is written to a temp file in the same folder, fsynced and renamed
      over the target: a crash leaves the old file or the new one, never half of one. It gets `mode`,
      or else the mode (and, where allowed, the owner) it had, or else the user's usual mode for a new
      file (0666 & ~umask); never the 0600 of the temp file (mkstemp's). Pass mode=0o600 for files only
      this program reads (the autosave).
    - A symbolic link is followed: the file it points to is written, the link stays. A link to nothing
      is an error that says so (writing would replace the link with a file).
    - A regular file with more than one name (hard links) is written in place: see _write_in_place.
    - A character device (/dev/null, a terminal), a FIFO or a socket's path (/dev/stdout as a pipe) is
      opened and written to, never replaced: renaming a file over /dev/null (as root) replaced the
      device node for every program on the machine. A block device (a disk) is refused.
    - A folder that does not exist is an error, unless `parents` (the app's own state folders).

    Every failure is a WriteError naming the path, what is wrong and what to do; the old content is
    intact whenever one is raised (the temp file is removed).
    """
    path = Path(path)
    fd = _open_descriptor(path)
    if fd is not None:  # /dev/stdout, /dev/fd/3: what the shell opened, written as it opened it
        _write_fd(path, fd, text)
        return
    target, st = _resolve_target(path)
    if st is not None:
        kind = st.st_mode
        if stat.S_ISDIR(kind):
            raise WriteError(
                f"{path}: is a folder, not a file", hint="give a file name, inside it or elsewhere"
            )
        if stat.S_ISBLK(kind):
            raise WriteError(
                f"{path}: is a block device, a disk or partition: advisor does not write to disks",
                hint="give a file name",
            )
        if not stat.S_ISREG(kind):  # a character device, a FIFO, a pipe or socket through /dev/fd
            _write_direct(path, text)
            return
        if st.st_nlink > 1:
            _write_in_place(path, target, text, st, mode)
            return
    else:
        _check_folder(path, target.parent, parents)
    _replace(path, target, text, st, mode)


def check_writable(path: str | Path, *, parents: bool = False) -> None:
    """Raise the WriteError that writing `path` would surely end in (a missing folder, a folder in its
    place, a link to nothing), before a long run whose result would then be lost (`advisor bench`).
    Nothing is written."""
    path = Path(path)
    if _open_descriptor(path) is not None:
        return
    target, st = _resolve_target(path)
    if st is None:
        _check_folder(path, target.parent, parents)
    elif stat.S_ISDIR(st.st_mode):
        raise WriteError(f"{path}: is a folder, not a file", hint="give a file name, inside it or elsewhere")
    elif stat.S_ISBLK(st.st_mode):
        raise WriteError(f"{path}: is a block device, a disk or partition: advisor does not write to disks")


def _resolve_target(path: Path) -> tuple[Path, os.stat_result | None]:
    """The file a write to `path` must change (the end of its symbolic links) and its stat, or None
    when there is no file yet."""
    try:
        st = os.stat(path)  # follows links, /proc/self/fd's magic ones too
    except FileNotFoundError:
        st = None
    except NotADirectoryError:  # a file where a folder of the path should be: say which
        _check_folder(path, path.parent, False)
        raise _error_for(
            path, OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)), path.parent, False
        ) from None
    except OSError as exc:
        raise _error_for(path, exc, path.parent, False) from None
    if os.path.islink(path):
        if st is None:
            raise WriteError(
                f"{path}: is a symbolic link to {os.readlink(path)}, which does not exist",
                hint="create the file it points to, remove the link, or give another name",
                errno=errno.ENOENT,
            )
        if stat.S_ISREG(st.st_mode):
            return Path(os.path.realpath(path)), st
    return path, st


def _check_folder(path: Path, folder: Path, parents: bool) -> None:
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        if parents:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise _error_for(path, exc, folder, False) from None
            return
        raise WriteError(
            f"{path}: the folder {folder} does not exist",
            hint=f"create it first with mkdir -p {folder}, or give a path in a folder that exists",
            errno=errno.ENOENT,
        ) from None
    except NotADirectoryError:
        st = None
    except OSError as exc:
        raise _error_for(path, exc, folder, False) from None
    if st is None or not stat.S_ISDIR(st.st_mode):
        blocker = folder
        while not blocker.exists() and blocker.parent != blocker:
            blocker = blocker.parent
        raise WriteError(
            f"{path}: {blocker} is a file, not a folder",
            hint="give a path whose folders are folders",
            errno=errno.ENOTDIR,
        )


def _data(text: str | bytes) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else text


def _replace(
    path: Path, target: Path, text: str | bytes, st: os.stat_result | None, mode: int | None
) -> None:
    """The atomic write: a temp file in the target's folder, fsync, rename over the target."""
    if mode is None:
        mode = stat.S_IMODE(st.st_mode) if st is not None else default_mode()
    folder = target.parent
    try:
        # the temp file's name is short whatever the target's: a 250-byte name is still a valid one
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:32]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _error_for(path, exc, folder, st is not None) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_data(text))
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
                if st is not None and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                    try:  # root saving a user's file: it stays theirs
                        os.fchown(fh.fileno(), st.st_uid, st.st_gid)
                    except OSError:
                        pass
            else:  # Windows: only the read-only bit means anything
                os.chmod(tmp, mode)
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, WriteError):
            raise _error_for(path, exc, folder, st is not None) from None
        raise
    _sync_folder(folder)


def _write_in_place(
    path: Path, target: Path, text: str | bytes, st: os.stat_result, mode: int | None
) -> None:
    """A file with hard links (more than one name for the same file) is written in place, through
    its inode. Replacing it, as _replace does, would give this name a new file and leave every other
    name on the old content: the links would silently stop being the same file. In place is not
    atomic (a crash in the middle can leave it half-written), so the free space is checked first and
    the file is only touched when the whole text fits."""
    data = _data(text)
    grow = len(data) - st.st_size
    if grow > 0 and hasattr(os, "statvfs"):
        try:
            vfs = os.statvfs(target.parent)
            free = vfs.f_bavail * vfs.f_frsize
        except OSError:
            free = None
        if free is not None and free < grow:
            raise _error_for(path, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), target.parent, True)
    try:
        fd = os.open(target, os.O_WRONLY)
    except OSError as exc:
        raise _error_for(path, exc, target.parent, True) from None
    try:
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        if mode is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        os.fsync(fd)
    except OSError as exc:
        raise _error_for(path, exc, target.parent, False) from None
    finally:
        os.close(fd)


def _open_descriptor(path: Path) -> int | None:
    """The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N names (POSIX). Written
    through it, the output goes where the shell sent it, as it was opened (`>>` appends); reopened by
    name, a file would be written from its start, and replaced, the shell's file would be left empty."""
    if os.name != "posix":
        return None
    name = os.path.normpath(os.path.abspath(path))
    fixed = {"/dev/stdout": 1, "/dev/stderr": 2}
    if name in fixed:
        return fixed[name]
    for folder in ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/"):
        if name.startswith(folder) and name[len(folder) :].isdigit():
            return int(name[len(folder) :])
    return None


def _write_fd(path: Path, fd: int, text: str | bytes) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.fileno() == fd:
                stream.flush()  # what the command printed before comes first
        except (OSError, ValueError, AttributeError):
            pass  # a test's captured stream has no descriptor
    try:
        _write_all(fd, _data(text))
    except BrokenPipeError:
        pass  # the reader has gone, as with `| head`: nothing more to say
    except OSError as exc:
        if exc.errno == errno.EBADF:
            raise WriteError(f"{path}: descriptor {fd} is not open", hint="give a file name") from None
        raise _error_for(path, exc, path.parent, False) from None


def _write_direct(path: Path, text: str | bytes) -> None:
    """A device, FIFO or pipe: opened and written to, as a shell's `>` would; never replaced."""
    # a FIFO without a reader is said at once (ENXIO) rather than waited on for ever; once open, the
    # writes block as usual
    nonblock = getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | nonblock)
    except OSError as exc:
        raise _error_for(path, exc, path.parent, False) from None
    try:
        if nonblock:
            os.set_blocking(fd, True)
        _write_all(fd, _data(text))
    except BrokenPipeError:
        pass  # the reader has gone, as with `| head`: nothing more to say
    except OSError as exc:
        raise _error_for(path, exc, path.parent, False) from None
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _sync_folder(folder: Path) -> None:
    """The rename itself survives a crash once the folder is synced (where folders can be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _error_for(path: Path, exc: OSError, folder: Path, existed: bool) -> WriteError:
    """What went wrong writing `path`, in words, with what to do; `existed`: an old file is there and
    is unchanged."""
    code = exc.errno
    kept = f"; {path} is unchanged" if existed else ""
    if code in (errno.EACCES, errno.EPERM):
        what = f"permission denied: you cannot write in the folder {folder}, or to this file"
        hint = "check the permissions with ls -ld, or give a path in a folder of yours"
    elif code == errno.EROFS:
        what, hint = "the file system is read-only", "give a path on a writable disk"
    elif code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        what = "the disk is full" if code == errno.ENOSPC else "your disk quota is used up"
        hint = "free some space, or give a path on another disk"
    elif code == errno.ENAMETOOLONG:
        limit = 255
        try:
            limit = os.pathconf(folder if folder.is_dir() else ".", "PC_NAME_MAX")
        except (OSError, ValueError, AttributeError):
            pass
        what = f"the file name is too long: {len(path.name.encode())} bytes, the limit here is {limit}"
        hint = "give a shorter name"
    elif code == errno.EISDIR:
        what, hint = "is a folder, not a file", "give a file name, inside it or elsewhere"
    elif code == errno.ENOTDIR:
        what, hint = "a part of the path is a file, not a folder", "give a path whose folders are folders"
    elif code == errno.ELOOP:
        what, hint = "too many levels of symbolic links: a loop", "fix the links, or give another path"
    elif code == errno.ENXIO:
        what, hint = "nothing is reading from this FIFO or socket", "start the reader first, or give a file"
    else:
        what, hint = f"cannot be written: {exc.strerror or exc}", "give another path"
    return WriteError(f"{path}: {what}", hint=hint + kept, errno=code)
