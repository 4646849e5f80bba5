"""Small helpers every reader shares: numbered lines, strict number parsing, clear errors.

Numbers are only accepted in plain ASCII decimal form, so text such as '٣', '1_000', 'nan'
or '1e999' can never turn into a figure: a reader either returns what the tool printed or
raises a UserError that names the file and line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from advisor.base.errors import Problem, UserError
from advisor.base.text import strip_ansi
from advisor.i18n import _
from advisor.measure.parsers.detect import TOOL_LABELS, detect

MAX_GPUS = 512  # larger matrices are refused: no real machine has them, and they would take minutes
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,18}(?:\.[0-9]{0,18})?|\.[0-9]{1,18})(?:[eE][+-]?[0-9]{1,3})?")
_INT = re.compile(r"[0-9]{1,18}")


@dataclass(frozen=True)
class Line:
    """One line of the input and its 1-based number."""

    number: int
    text: str

    @property
    def tokens(self) -> list[str]:
        return self.text.split()


def normalise(text: str) -> str:
    """Drop a byte-order mark and terminal escape sequences (`nvidia-smi topo -m` copied from a
    terminal underlines its header with them), and turn CRLF / CR line ends into LF."""
    text = strip_ansi(text.removeprefix("\ufeff"))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def numbered_lines(text: str) -> list[Line]:
    return [Line(i, t) for i, t in enumerate(normalise(text).split("\n"), start=1)]


def fail(filename: str, message: str, line: int | None = None, hint: str | None = None) -> UserError:
    """A UserError for one problem at file:line (returned, so callers write `raise fail(...)`)."""
    return UserError(problems=[Problem(message, file=filename, line=line, hint=hint)])


def shown(value: object) -> str:
    """A value as a message shows it: a huge number as its digit count, never all its digits."""
    text = repr(value)
    if len(text) <= 40:
        return text
    if isinstance(value, int):
        return _("a {digits}-digit number").format(digits=len(str(abs(value))))
    return text[:30] + "..."


def is_float(token: str) -> bool:
    return _FLOAT.fullmatch(token) is not None


def is_int(token: str) -> bool:
    return _INT.fullmatch(token) is not None


def to_float(token: str, filename: str, line: int | None, what: str, decimals: int | None = None) -> float:
    """A finite, non-negative number from a token, or a UserError saying what was expected.

    With `decimals`, the token must have exactly that many digits after the point, as the
    tool prints them; a value cut short by truncation ('924' for '924.19') is then caught.
    """
    if not is_float(token):
        raise fail(
            filename,
            _("expected a number for {what}, found {token}").format(what=what, token=repr(token)),
            line,
        )
    if decimals is not None and not re.fullmatch(rf"[0-9]+\.[0-9]{{{decimals}}}", token):
        example = "12." + "3" * decimals
        raise fail(
            filename,
            _("expected a number like {example} for {what}, found {token}").format(
                example=example, what=what, token=repr(token)
            ),
            line,
            hint=_("the value looks cut short or edited; save the tool's full output again"),
        )
    value = float(token)
    if not math.isfinite(value):
        raise fail(
            filename,
            _("expected a finite number for {what}, found {token}").format(what=what, token=repr(token)),
            line,
        )
    if value < 0:
        raise fail(
            filename,
            _("expected a number >= 0 for {what}, found {token}").format(what=what, token=repr(token)),
            line,
        )
    return value + 0.0  # turns -0.0 into 0.0


def check_not_empty(text: str, filename: str, tool: str) -> None:
    if not normalise(text).strip():
        raise fail(
            filename,
            _("the file is empty; expected {tool} output").format(tool=_(TOOL_LABELS.get(tool, tool))),
            hint=_("save the tool's output with `> file.txt` and check the command succeeded"),
        )


def not_this_tool(text: str, filename: str, tool: str, expected: str) -> UserError:
    """The error for input that has none of the marks of the tool we were asked to read."""
    found = detect(text)
    label = TOOL_LABELS.get(tool, tool)
    if found and found != tool:
        return fail(
            filename,
            _("this is not {tool} output ({expected}); it looks like {found} output").format(
                tool=_(label), expected=_(expected), found=_(TOOL_LABELS[found])
            ),
            hint=_("read it with `advisor import {found} FILE` or `advisor import auto FILE`").format(
                found=found
            ),
        )
    return fail(
        filename,
        _("this is not {tool} output: {expected}").format(tool=_(label), expected=_(expected)),
        hint=_("check that the file holds the tool's full, unedited output"),
    )


def iter_pairs(n: int) -> Iterator[tuple[int, int]]:
    """Every ordered pair (a, b) of distinct indices below n."""
    for a in range(n):
        for b in range(n):
            if a != b:
                yield a, b
