"""What the HTML report, the drawing and the picture share: how a sentence is written, how text is made
inert in HTML and SVG, and how wide a line of text is.

Every sentence and label of those faces is written whole, once, as the first argument of `t`, with its
values put in by name ("GPU {index}", never "GPU " + str(index)): one sentence is one string, so it can
be replaced as a whole (by a translation, or a reworded one) without touching the code that lays it out.
"""

from __future__ import annotations

import html
import unicodedata

from advisor.i18n import _

# what a page of ours may load and run: nothing but its own inline style (no script, no font, no image
# from anywhere), so a report opened from a chat or a mail client cannot call out
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def t(text: str, /, **values: object) -> str:
    """A sentence or label of the report in the current language (advisor.i18n), with its values put in
    by name (plain text: `esc` makes it HTML)."""
    text = _(text)
    return text.format(**values) if values else text


def esc(text: object) -> str:
    """Text (from an input, or a sentence holding a value from one) as inert HTML or SVG: safe between
    tags and inside a quoted attribute; a <script> from a build's name is shown, never run."""
    return html.escape(str(text), quote=True)


def number(x: float | None, digits: int = 1) -> str | None:
    """A figure as the report writes it; None stays None (the caller says "unknown", never 0)."""
    return None if x is None else f"{x:.{digits}f}"


def cells(text: str) -> int:
    """How many half-width cells `text` takes: a Chinese character (East Asian wide) takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def wrap(text: str, width: int, lines: int = 2) -> list[str]:
    """`text` in at most `lines` lines of `width` cells, cut at spaces where it has them (Chinese text,
    which has none, anywhere); what does not fit ends in an ellipsis."""
    words: list[str] = []
    for w in text.split():
        while cells(w) > width:  # a word longer than a line (a part number, Chinese text): cut it
            n, used = 0, 0
            while n < len(w) and used + cells(w[n]) <= width:
                used += cells(w[n])
                n += 1
            words.append(w[:n])
            w = w[n:]
        if w:
            words.append(w)
    out: list[str] = []
    for w in words:
        if out and cells(out[-1]) + 1 + cells(w) <= width:
            out[-1] += " " + w
        else:
            out.append(w)
    if len(out) > lines:
        last = out[lines - 1]
        while last and cells(last) + 1 > width:
            last = last[:-1]
        out = out[: lines - 1] + [last.rstrip() + "…"]
    return out


# labels more than one part of the report uses, each written once


def unknown() -> str:
    return t("unknown")


def gpu_label(index: object) -> str:
    return t("GPU{index}", index=index)


def link_label(gen: int, width: int) -> str:
    return t("Gen{gen} x{width}", gen=gen, width=width)


def uplink_label(gen: int, width: int) -> str:
    return t("Uplink: Gen{gen} x{width}", gen=gen, width=width)


def slot_label(slot: str) -> str:
    return t("Slot {slot}", slot=slot)


def way_label(via: str) -> str:
    """How a pair of GPUs copies: nvlink, pcie-p2p or staged (through host memory)."""
    return {"nvlink": t("NVLink"), "pcie-p2p": t("PCIe P2P"), "staged": t("Through host memory")}.get(
        via, via
    )


def unknown_without(facts: list[str]) -> str:
    return t("Unknown without: {facts}.", facts=", ".join(facts))


def other_formats() -> str:
    return t("use --format svg or --format html")


def constant_line(k) -> str:
    """A model constant as --explain lists it: its name, value and what it is (its unit, in words), then
    its sources (rich markup)."""
    from advisor.i18n import constant_unit_is_words

    return _("{name} = {value} {unit}  [dim]sources: {sources}[/]").format(
        name=k.name,
        value=k.value,
        unit=_(k.unit) if constant_unit_is_words(k.unit) else k.unit,
        sources=", ".join(k.sources),
    )
