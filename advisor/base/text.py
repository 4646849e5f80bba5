"""Text that came from a user's file, made safe to print: no terminal control sequences."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls (ESC-less CSI is U+009B), and the Unicode
# bidirectional overrides that reorder what a terminal shows (the "Trojan Source" characters)
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# whole ANSI sequences (colours from a terminal copy, cursor moves, window titles): CSI, OSC, and
# two-character ESC sequences
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]"
)


def strip_ansi(text: str) -> str:
    """`text` without its terminal escape sequences (colours, underlines from a copied terminal)."""
    if "\x1b" in text or "\x9b" in text:
        return _ANSI.sub("", text)
    return text


def plain(text: str) -> str:
    """`text` as a terminal would show it without its escape sequences (colour, titles, cursor moves
    dropped), every other control character written out by `visible`."""
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    return visible(text)


def visible(text: str) -> str:
    """`text` with every control character written out (ESC as \\x1b), so printing it cannot move the
    cursor, clear the screen, retitle the window or hide text. Tabs and newlines stay."""
    if not _HIDDEN.search(text):
        return text
    return _HIDDEN.sub(lambda m: _name(m.group()), text)


def _name(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def has_hidden(text: str) -> bool:
    return bool(_HIDDEN.search(text))
