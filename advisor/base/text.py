"""Text that came from a user's file, made safe to show: `plain` for a terminal (no control sequences),
`for_markdown` for a Markdown or HTML document (no markup, no links). Every face shows input text
through one of the two."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from advisor.i18n import N_

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
    return visible(strip_ansi(text))


def visible(text: str) -> str:
    """`text` with every control character written out (ESC as \\x1b), so printing it cannot move the
    cursor, clear the screen, retitle the window or hide text. Tabs and newlines stay."""
    if not _HIDDEN.search(text):
        return text
    return _HIDDEN.sub(lambda m: _name(m.group()), text)


# what may reach a terminal from advisor's own output: rich's colours and styles (SGR, ESC [ ... m) and
# nothing else; every other control character, the bidirectional overrides and the Unicode line
# separators are written out
_SGR = r"\x1b\[[0-9;:]*m"
_UNSAFE_OUT = re.compile(
    f"({_SGR})|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


def for_output(text: str) -> str:
    """What a command writes to stdout or stderr, with any control character that is not a colour
    written out as \\uXXXX (a valid escape inside a JSON string too). The last guard before the
    terminal: input text is made safe where it is read and where it is shown, and a file name in an
    error where the error is rendered; this catches whatever a new message forgets."""
    if text.isascii() and text.isprintable():
        return text
    return _UNSAFE_OUT.sub(lambda m: m.group(1) or f"\\u{ord(m.group()):04x}", text)


def _name(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def has_hidden(text: str) -> bool:
    return bool(_HIDDEN.search(text))


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#~])")
# what a GFM renderer turns into a link without any markup: a scheme's "://" and a bare "www."
_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9+.-])://|\bwww\.")


def for_markdown(text: object) -> str:
    """Text from an input (a quote, a build's name, a part's name) as inert Markdown and HTML: HTML is
    shown, not run (no <script>, no <img onerror>); no link, emphasis, heading or table cell can be made
    from it (no [x](javascript:...)); and a bare address is written so that no renderer links it
    ("http[:]//...", "www[.]..."). Control characters are written out, as on a terminal. One line."""
    s = html.escape(plain(str(text)), quote=False)
    s = _AUTOLINK.sub(lambda m: "[:]//" if m.group().startswith(":") else m.group()[:3] + "[.]", s)
    return _MD_SPECIAL.sub(r"\\\1", s).replace("\n", " ")


# A part's name, id or alias in the catalog is at most about 60 characters ("RTX 4090 48GB (modified,
# aftermarket clamshell rework, blower)"); a name far longer names no part, and matching it fuzzily
# against every catalog name takes time in proportion to its length times theirs
MAX_NAME = 200


def clip(text: str, most: int = 60) -> str:
    """`text` shortened for a message: its first `most` characters and how long it was."""
    if len(text) <= most:
        return text
    return f"{text[:most]}... ({len(text):,} characters)"


def long_name(text: str, what: str = "part") -> str | None:
    """Why `text` cannot be a `what`'s name (longer than any name in the catalog), or None."""
    if len(text) <= MAX_NAME:
        return None
    return (
        f"a {what} name of {len(text):,} characters is longer than any in the catalog (at most {MAX_NAME}): "
        f"{plain(clip(text))!r}"
    )


# Cyrillic and Greek letters drawn like Latin ones: "RТX 4090" with a Cyrillic Т reads as RTX 4090 to
# a person and to a matcher that drops what is not Latin, but is another text.
_LOOKALIKE = dict(
    zip(
        "АВЕКМНОРСТУХаеорсухіјѕІЈЅԚԛԜԝһԁӏҮΑΒΕΖΗΙΚΜΝΟΡΤΥΧοινκ",
        "ABEKMHOPCTYXaeopcyxijsIJSQqWwhdlYABEZHIKMNOPTYXoivk",
        strict=True,
    )
)
_WORD = re.compile(r"[^\W_]+")


def _foreign_script(ch: str) -> str | None:
    code = ord(ch)
    if 0x0370 <= code <= 0x03FF or 0x1F00 <= code <= 0x1FFF:
        return "Greek"
    if 0x0400 <= code <= 0x052F:
        return "Cyrillic"
    return None


@dataclass(frozen=True)
class Lookalikes:
    """Cyrillic or Greek letters inside a Latin-looking name."""

    scripts: str  # "Cyrillic", "Greek" or "Cyrillic and Greek"
    letters: str  # the letters, each once, as found
    latin: str | None  # the text with each lookalike written in Latin; None when one has no Latin twin

    def names(self) -> str:
        import unicodedata

        from advisor.i18n import _

        return ", ".join(
            _("{letter} is {name}").format(letter=c, name=unicodedata.name(c, f"U+{ord(c):04X}"))
            for c in self.letters
        )

    def said_scripts(self) -> str:
        """The scripts in the run's language ("Cyrillic and Greek")."""
        from advisor.i18n import _

        return _(" and ").join(_(_SCRIPTS.get(s, s)) for s in self.scripts.split(" and "))

    def sentence(self, text: str) -> str:
        """The refusal for a name that must be written exactly (a build's part, a catalog query)."""
        from advisor.i18n import _

        if self.latin is None:
            return _(
                '"{text}" mixes {scripts} letters into Latin words ({names}): write it in Latin letters'
            ).format(text=text, scripts=self.said_scripts(), names=self.names())
        return _(
            '"{text}" has {scripts} letters that look Latin ({names}): write it in Latin letters, "{latin}"'
        ).format(text=text, scripts=self.said_scripts(), names=self.names(), latin=self.latin)


# the scripts a lookalike letter comes from, as a sentence names them
_SCRIPTS = {"Greek": N_("Greek"), "Cyrillic": N_("Cyrillic")}


def lookalikes(text: str) -> Lookalikes | None:
    """The Cyrillic or Greek letters of `text` that sit in a word with Latin letters or digits ("RТX",
    "4090х2"), or that make up a word of lookalike capitals beside Latin text ("РТХ 4090"); None when
    there are none. A word wholly in Cyrillic or Greek ("Видеокарта") is that language, not a
    lookalike."""
    if text.isascii():
        return None
    ascii_alnum = any(c.isascii() and c.isalnum() for c in text)
    found: list[str] = []
    scripts: list[str] = []
    latin = list(text)
    readable = True
    for m in _WORD.finditer(text):
        word = m.group()
        foreign = [(i, c, s) for i, c in enumerate(word) if (s := _foreign_script(c))]
        if not foreign:
            continue
        mixed = any(c.isascii() for c in word)
        capitals = len(word) >= 2 and all(c in _LOOKALIKE and c.isupper() for c in word)
        if not mixed and not (capitals and ascii_alnum):
            continue
        for i, c, script in foreign:
            if c not in found:
                found.append(c)
            if script not in scripts:
                scripts.append(script)
            if c in _LOOKALIKE:
                latin[m.start() + i] = _LOOKALIKE[c]
            else:
                readable = False
    if not found:
        return None
    return Lookalikes(" and ".join(sorted(scripts)), "".join(found), "".join(latin) if readable else None)


def unknown_because(missing: list[str]) -> str:
    """How a figure that rests on null catalog values reads: "unknown (not in the catalog: NVIDIA H200
    NVL: nvlink.links, nvlink.gbps_per_direction)". One GPU's several fields are named once."""
    from advisor.i18n import _

    if not missing:
        return _("unknown")
    by_part: dict[str, list[str]] = {}
    for item in missing:
        part, _sep, fld = item.rpartition(": ")
        by_part.setdefault(part, []).append(fld)
    said = _("; ").join(f"{part}: {', '.join(f)}" if part else ", ".join(f) for part, f in by_part.items())
    return _("unknown (not in the catalog: {said})").format(said=said)
