"""A user's file, read the one way every reader reads one: bounded, checked, its line endings made one.

Every file advisor is given (a build, a quote, a catalog entry, a rules file, a tool's saved output) is
read here before any reader sees it:

- it must be a regular file, or a pipe (`<(lspci -vvv)`, a named pipe: read as `cat` reads it); a device
  (/dev/zero, /dev/urandom), a socket or a folder is refused before a byte is read;
- at most MAX_BYTES are read: a larger file is refused, never read to its end;
- it must be UTF-8 (a byte-order mark is dropped);
- every line break (CR LF, CR alone, U+0085, U+2028, U+2029, and the form feeds and separators that
  Python's own splitlines() breaks on) becomes "\\n", so a cap on lines counts every line however it
  ends;
- with `max_line`, a line longer than that is refused at its line: the text readers scan lines with
  patterns, and no real tool output or quote has a line of thousands of characters.

Its text is not otherwise changed: what is printed from it is made safe where it is printed
(advisor.base.text.plain for a terminal, for_markdown for a document).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from advisor.base.errors import Problem, UserError
from advisor.i18n import N_, _

# A build is a few kilobytes, the largest tool output we know (`lspci -vvv` of a 2-socket server) about
# 200 KB; the bundled rules 50 KB. Four megabytes is far beyond any of them, and small enough that
# every reader finishes one in seconds and well under a gigabyte.
MAX_BYTES = 4 * 1024 * 1024
# The longest line of a real quote or tool output is a few hundred characters (an nvidia-smi CSV header,
# a pasted table row); the text readers refuse a line longer than this.
MAX_LINE = 4096

# How deeply a document may nest (YAML mappings and lists, XML elements): a real file nests a few levels (a
# PCIe tree of switches a dozen); a thousand levels is not a machine, and walking it would exhaust
# Python's recursion limit
MAX_DEPTH = 100

# what str.splitlines() breaks a line on, besides "\n": every one becomes "\n"
_BREAKS = str.maketrans({c: "\n" for c in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"})


def one_newline(text: str) -> str:
    """`text` with every line break written as "\\n" (CR LF as one)."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if text.isascii() and "\r" not in text and "\x0b" not in text and "\x0c" not in text:
        if not any(c in text for c in "\x1c\x1d\x1e"):
            return text
    return text.translate(_BREAKS)


def long_line(text: str, max_line: int) -> tuple[int, int] | None:
    """(line number, its length) of the first line of `text` longer than `max_line`, or None. Linear:
    it looks only at where the line breaks are."""
    start = 0
    number = 1
    n = len(text)
    while start <= n:
        end = text.find("\n", start)
        if end < 0:
            end = n
        if end - start > max_line:
            return number, end - start
        start = end + 1
        number += 1
    return None


def check_lines(text: str, name: str, what: str, max_line: int = MAX_LINE) -> None:
    """Refuse `text` (already one_newline'd) when a line is longer than `max_line`."""
    found = long_line(text, max_line)
    if found is not None:
        line, length = found
        raise UserError(
            problems=[
                Problem(
                    _("this line is {length} characters long; a line of {what} is at most {most}").format(
                        length=f"{length:,}", what=_(what), most=f"{max_line:,}"
                    ),
                    file=name,
                    line=line,
                    hint=_("is this the right file? Give the tool's output as it printed it"),
                )
            ]
        )


A_TEXT_FILE = N_("a text file")


def decode(raw: bytes, name: str, what: str = A_TEXT_FILE) -> str:
    """UTF-8 bytes (a byte-order mark dropped) as text with one kind of line break."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise UserError(
            problems=[
                Problem(
                    _("is not UTF-8 text ({what}): byte {byte} cannot be read").format(
                        what=_(what), byte=f"{exc.start + 1:,}"
                    ),
                    file=name,
                    line=line,
                    hint=_("save it as UTF-8 text"),
                )
            ]
        ) from None
    return one_newline(text)


def read_bytes(path: str | Path, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a user's file: a regular file or a pipe, at most `max_bytes`; anything else, or more,
    is a UserError naming the file and saying what to do."""
    name = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise UserError(_("{file}: no such file").format(file=name), hint=_("check the path")) from None
    except NotADirectoryError:
        raise UserError(
            _("{file}: no such file (a part of the path is a file, not a folder)").format(file=name)
        ) from None
    except OSError as exc:
        raise _unreadable(name, exc) from None
    _check_kind(name, before.st_mode)
    if stat.S_ISREG(before.st_mode) and before.st_size > max_bytes:
        raise _too_large(name, before.st_size, max_bytes)
    if stat.S_ISFIFO(before.st_mode):
        flags &= ~getattr(
            os, "O_NONBLOCK", 0
        )  # a named pipe is read as `cat` reads it: once a writer opens it
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise UserError(_("{file}: is a folder, not a file").format(file=name)) from None
        raise _unreadable(name, exc) from None
    try:
        st = os.fstat(fd)
        _check_kind(name, st.st_mode)  # what was opened, not what the name pointed at a moment before
        if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
            raise _too_large(name, st.st_size, max_bytes)
        if stat.S_ISFIFO(st.st_mode):
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        got = 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if got > max_bytes:
                raise _too_large(name, None, max_bytes)
        return b"".join(chunks)
    except OSError as exc:
        raise _unreadable(name, exc) from None
    finally:
        os.close(fd)


def _unreadable(name: str, exc: OSError) -> UserError:
    return UserError(_("{file}: cannot be read ({error})").format(file=name, error=exc.strerror or exc))


def read_input(
    path: str | Path, what: str = A_TEXT_FILE, max_bytes: int = MAX_BYTES, max_line: int | None = None
) -> str:
    """A user's text file, read as every reader reads one (see the module's docstring). `what` names the
    kind of file in a refusal ("a quote", "nvidia-smi's output")."""
    text = decode(read_bytes(path, max_bytes), str(path), what)
    if max_line is not None:
        check_lines(text, str(path), what, max_line)
    return text


def _check_kind(name: str, mode: int) -> None:
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return
    if stat.S_ISDIR(mode):
        raise UserError(_("{file}: is a folder, not a file").format(file=name))
    kind = (
        _("a character device")
        if stat.S_ISCHR(mode)
        else _("a block device")
        if stat.S_ISBLK(mode)
        else _("a socket")
        if stat.S_ISSOCK(mode)
        else _("not a regular file")
    )
    raise UserError(
        _("{file}: is {kind}, not a file").format(file=name, kind=kind),
        hint=_("give a saved file, or a pipe such as <(lspci -vvv)"),
    )


def _too_large(name: str, size: int | None, max_bytes: int) -> UserError:
    said = (
        _("{n} bytes").format(n=f"{size:,}")
        if size is not None
        else _("more than {n} bytes").format(n=f"{max_bytes:,}")
    )
    return UserError(
        _("{file}: is {size}; advisor reads files of at most {most} bytes").format(
            file=name, size=said, most=f"{max_bytes:,}"
        ),
        hint=_("is this the right file? A build, a quote or a tool's output is far smaller"),
    )


def check_xml_depth(text: str, filename: str) -> None:
    """Refuse an XML document nested more than MAX_DEPTH elements deep, at the line where it goes past
    the limit, before any tree is built from it or walked. Malformed XML is left to the reader's own
    parser, which says what is wrong with it."""
    from xml.parsers import expat

    parser = expat.ParserCreate()
    depth = 0

    def start(name, attrs) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_DEPTH:
            raise UserError(
                problems=[
                    Problem(
                        _("this XML is nested more than {most} elements deep").format(most=MAX_DEPTH),
                        file=filename,
                        line=parser.CurrentLineNumber,
                        hint=_("a tool's XML nests a few levels: is this the file the tool wrote?"),
                    )
                ]
            )

    def end(name) -> None:
        nonlocal depth
        depth -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except expat.ExpatError:
        pass
