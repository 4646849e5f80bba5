"""Terminal layout shared by the text reports: the width to print for, paragraphs with a hanging indent,
and tables that stay readable on a narrow terminal.

A table is drawn as a boxed rich table when it fits the width; when it does not, it is stacked: a plain
grid of its short columns, with each row's long text (a finding's why, a part's name) wrapped below the
row, indented. A key column (an id the user types next: a part id, a rule id, a case id, a slot) is never
wrapped, cut or ellipsised, at any width; the other columns give way.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from dataclasses import dataclass
from typing import Literal

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

# below this many characters a prose column reads one word per line: the table stacks instead
PROSE_MIN = 30
# a column that may wrap (a model name) keeps at least this many characters in the boxed table
WRAP_MIN = 16
GAP = 2  # spaces between the columns of a stacked table


def terminal_width() -> int:
    """The width to lay text out for: $COLUMNS when set, else the width of the terminal stdout goes to,
    else 80. Output into a pipe or a file is laid out for 80 columns whatever terminal it was run from,
    so that it is the same on every machine."""
    return max(20, shutil.get_terminal_size((80, 24)).columns)


def terminal_console() -> Console:
    """A console for stdout at terminal_width()."""
    return Console(width=terminal_width())


def hang(console: Console, head: str, body: str, indent: int | None = None) -> None:
    """Print `head` then `body` (both rich markup), the body wrapped to the console's width with every
    further line indented to where the body starts (or by `indent`)."""
    for line in hang_lines(console, head, body, indent):
        console.print(line, soft_wrap=True)


def hang_lines(console: Console, head: str, body: str, indent: int | None = None) -> list[Text]:
    head_t = console.render_str(head) if head else Text()
    body_t = console.render_str(body)
    width = console.width
    first = head_t.cell_len
    indent = first if indent is None else indent
    if width - max(first, indent) < 20:  # no room beside the head: the body goes under it, or less indented
        indent = min(indent, 4)
        if not head_t.plain.strip():
            head_t, first = Text(" " * indent), indent
        elif width - first < 20:
            return [_rs(head_t), *_wrapped(console, body_t, indent, width - indent)]
    # the first line has width - first columns; the rest width - indent
    parts = _wrap(console, body_t, max(1, width - first))
    if not parts:
        return [_rs(head_t)]
    lead = parts[0]
    lines = [_rs(Text.assemble(head_t, lead))]
    rest = _lstrip(body_t[len(lead.plain) :])
    if rest.plain:
        lines += _wrapped(console, rest, indent, width - indent)
    return lines


def _ascii(text: str) -> bool:
    """Printable ASCII only: one cell a character, no tab or line break to expand."""
    return text.isascii() and text.isprintable()


def _divide(text: str, width: int) -> list[str]:
    """rich's word wrap (Text.wrap with overflow="fold") for printable ASCII, on plain strings: words
    with the spaces after them are laid greedily, a word longer than the width is folded, and a line
    keeps at most `width` characters. A validate report wraps every line of the quote, and rich's Text
    objects made that half the time of a 10,000-line quote; tests hold the two equal."""
    breaks: list[int] = []
    offset = 0
    pos = 0
    for m in _WORD.finditer(text):
        start, word = m.start(), m.group(0)
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:
            chunks = [word[i : i + width] for i in range(0, len(word), width)]
            for i, chunk in enumerate(chunks):
                if start:
                    breaks.append(start)
                if i == len(chunks) - 1:
                    offset = len(chunk)
                else:
                    start += len(chunk)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    lines = []
    for end in [*breaks, len(text)]:
        line = text[pos:end]
        pos = end
        if len(line) > width:
            excess = len(line) - width
            trailing = len(line) - len(line.rstrip())
            line = line[: len(line) - min(trailing, excess)]
        lines.append(line[:width])
    return lines


_WORD = re.compile(r"\s*\S+\s*")


def plain_hang_lines(head: str, body: str, width: int, indent: int | None = None) -> list[str] | None:
    """hang_lines for plain (unmarked) printable-ASCII text, as strings; None for any other text, which
    takes hang_lines itself."""
    if not (_ascii(head) and _ascii(body)):
        return None
    first = len(head)
    indent = first if indent is None else indent
    if width - max(first, indent) < 20:
        indent = min(indent, 4)
        if not head.strip():
            head, first = " " * indent, indent
        elif width - first < 20:
            return [head.rstrip(), *_plain_wrapped(body, indent, width - indent)]
    parts = _divide(body, max(1, width - first)) if body else []
    if not parts:
        return [head.rstrip()]
    lead = parts[0]
    lines = [(head + lead).rstrip()]
    rest = body[len(lead) :].lstrip()
    if rest:
        lines += _plain_wrapped(rest, indent, width - indent)
    return lines


def wrap_lines(text: str, width: int, first: str = "", rest: str | None = None) -> list[str]:
    """Plain text (no markup) wrapped to `width` columns after `first`, further lines after `rest` (default:
    as `first`); a word longer than the line (an address, an id) is kept whole, never broken. A line of
    Chinese, which has no spaces between its words, may also break between two of its characters, each
    of which takes two columns."""
    import textwrap

    rest = first if rest is None else rest
    width = max(width, len(rest) + 20)
    from advisor.i18n import language

    if language() == "en" or not any(unicodedata.east_asian_width(c) in ("W", "F") for c in text):
        return textwrap.wrap(
            text,
            width=width,
            initial_indent=first,
            subsequent_indent=rest,
            break_long_words=False,
            break_on_hyphens=False,
        )
    from rich.markup import escape

    console = Console(width=width)
    return [line.plain for line in hang_lines(console, escape(first), escape(text), indent=len(rest))]


def _plain_wrapped(text: str, indent: int, width: int) -> list[str]:
    return [(" " * indent + line).rstrip() for line in _divide(text, max(1, width))]


def _rs(t: Text) -> Text:
    t = t.copy()
    t.rstrip()
    return t


def _lstrip(t: Text) -> Text:
    n = len(t.plain) - len(t.plain.lstrip())
    return t[n:]


def _wrapped(console: Console, text: Text, indent: int, width: int) -> list[Text]:
    pad = Text(" " * indent)
    return [_rs(Text.assemble(pad, line)) for line in _wrap(console, text, max(1, width))]


# no line starts with these: Chinese closing punctuation stays on the line of the word it closes
_NO_START = set("，。；：、）」』》】！？%,.;:)")
# and no line ends with an opening bracket: it goes down with the word it opens
_NO_END = set("（「『《【")


def _wrap(console: Console, text: Text, width: int) -> list[Text]:
    """rich's word wrap, and for Chinese pages (text with wide characters, which has no spaces between its
    words) a wrap that may also break between two wide characters: rich would move a whole run of
    Chinese to the next line, or cut it at the edge of the line in the middle of a word."""
    from advisor.i18n import language

    plain = text.plain
    # English pages keep rich's wrap even around Chinese quoted from an input: their lines stay as they were
    if language() == "en" or not any(unicodedata.east_asian_width(c) in ("W", "F") for c in plain):
        return list(text.wrap(console, width, overflow="fold"))
    offsets: list[int] = []
    used, start, last = 0, 0, None  # cells on the line, where it starts, the last place it may break
    for i, c in enumerate(plain):
        if c == "\n":
            offsets.append(i + 1)
            used, start, last = 0, i + 1, None
            continue
        wide = unicodedata.east_asian_width(c) in ("W", "F")
        if i > start and c not in _NO_START and plain[i - 1] not in _NO_END:
            before = plain[i - 1]
            if before == " " or wide or unicodedata.east_asian_width(before) in ("W", "F"):
                last = i
        cells = 2 if wide else 1
        if used + cells > width and c != " " and i > start:
            cut = last if last is not None and last > start else i
            offsets.append(cut)
            start, last = cut, None
            used = sum(2 if unicodedata.east_asian_width(x) in ("W", "F") else 1 for x in plain[cut : i + 1])
            continue
        used += cells
    lines = []
    for line in text.divide(offsets):
        line = _lstrip(line) if lines else line
        line.rstrip()
        line.remove_suffix("\n")
        lines.append(line)
    return lines


def wrap_text(console: Console, text: Text, width: int) -> list[Text]:
    """`text` in lines of at most `width` cells, wrapped as the reports wrap it (Chinese may break between
    two of its characters): for a face that lays text out itself, the TUI's panes."""
    return _wrap(console, text, width)


Kind = Literal["key", "cell", "wrap", "prose"]


@dataclass
class Col:
    """A column: `key` never wraps nor is cut (ids); `cell` a short value; `wrap` may wrap (a name);
    `prose` long text, below its row when the table is stacked. `label`: a stacked table names the
    column before its value below the row ('why: ...'); a name or a spec reads without it. `min_width`:
    the narrowest a wrap or prose column may be in the boxed table (WRAP_MIN, PROSE_MIN)."""

    header: str
    kind: Kind = "cell"
    justify: Literal["left", "right"] = "left"
    label: bool = True
    min_width: int | None = None


def print_table(
    console: Console,
    cols: list[Col],
    rows: list[list[str]],
    title: str | None = None,
    group: int | None = None,
) -> None:
    """Print rows (rich markup in each cell) as a boxed table when it fits the console, else stacked.
    `group`: the index of a key column whose value heads each run of rows in the stacked layout (a case
    id), printed whole on a line of its own instead of as a column."""
    if _fits_boxed(console, cols, rows):
        # a title wider than the table would wrap above it: the table takes the title's width instead
        t = Table(
            title=title, min_width=len(title) + 4 if title and len(title) + 4 <= console.width else None
        )
        for i, c in enumerate(cols):
            t.add_column(
                c.header,
                justify=c.justify,
                no_wrap=c.kind in ("key", "cell"),
                min_width=_natural(console, c, rows, i) if c.kind == "key" else None,
                overflow="fold",
            )
        for r in rows:
            t.add_row(*r)
        console.print(t)
        return
    _print_stacked(console, cols, rows, title, group)


def _texts(console: Console, cell: str) -> Text:
    return console.render_str(cell, highlight=False)


def _natural(console: Console, col: Col, rows: list[list[str]], i: int) -> int:
    return max([cell_len(col.header)] + [_texts(console, r[i]).cell_len for r in rows])


def _longest_word(console: Console, col: Col, rows: list[list[str]], i: int) -> int:
    words = [w for r in rows for w in _texts(console, r[i]).plain.split()] + col.header.split()
    return max((cell_len(w) for w in words), default=1)


def _fits_boxed(console: Console, cols: list[Col], rows: list[list[str]]) -> bool:
    need = 3 * len(cols) + 1  # the box's rules and a space either side of each cell
    for i, c in enumerate(cols):
        nat = _natural(console, c, rows, i)
        if c.kind == "prose":
            need += min(nat, c.min_width or PROSE_MIN)
        elif c.kind == "wrap":
            need += min(nat, max(c.min_width or WRAP_MIN, _longest_word(console, c, rows, i)))
        else:
            need += nat
    return need <= console.width


def _print_stacked(
    console: Console, cols: list[Col], rows: list[list[str]], title: str | None, group: int | None
) -> None:
    width = console.width
    margin = 2 if group is not None else 0
    grid = [i for i, c in enumerate(cols) if c.kind != "prose" and i != group]
    widths = {i: _natural(console, cols[i], rows, i) for i in grid}
    values = {i: max((_texts(console, r[i]).cell_len for r in rows), default=0) for i in grid}
    header_word = {i: max((cell_len(w) for w in cols[i].header.split()), default=0) for i in grid}
    floor = {
        i: widths[i]
        if cols[i].kind == "key"
        else max(values[i], header_word[i])
        if cols[i].kind == "cell"
        else min(widths[i], max(WRAP_MIN, _longest_word(console, cols[i], rows, i)))
        for i in grid
    }

    def total() -> int:
        return margin + sum(widths[i] for i in grid) + GAP * max(0, len(grid) - 1)

    # the short columns' headers wrap first ('time to first token' on two lines), then the wrapping columns
    # give way, widest first, down to WRAP_MIN or their longest word; a key column keeps its width
    if total() > width:  # once one header takes two lines, the others may as well
        for i in grid:
            if cols[i].kind == "cell":
                widths[i] = floor[i]
    for kinds in (("wrap",),):
        while total() > width:
            movable = [i for i in grid if cols[i].kind in kinds and widths[i] > floor[i]]
            if not movable:
                break
            i = max(movable, key=lambda j: widths[j])
            widths[i] = max(floor[i], widths[i] - (total() - width))
    for i in grid:  # a wrapped column is as wide as its longest wrapped line, not the width it was given
        if widths[i] < _natural(console, cols[i], rows, i):
            cells = [f"[bold]{cols[i].header}[/]"] + [r[i] for r in rows]
            widths[i] = max(
                line.cell_len
                for c in cells
                for line in _texts(console, c).wrap(console, widths[i], overflow="fold")
            )
    # then the short columns go below the row, the rightmost first; key columns always stay
    moved: list[int] = []
    while total() > width:
        rest = [i for i in grid if cols[i].kind != "key"]
        if not rest:
            break
        moved.insert(0, rest[-1])
        grid.remove(rest[-1])
    below = sorted([i for i, c in enumerate(cols) if c.kind == "prose"] + moved)
    first = grid[0] if grid else None
    # the text below a row starts under its second column, when the first is narrow
    indent = margin + (widths[first] + GAP if first is not None and widths[first] + GAP <= width // 3 else 4)

    if title:
        hang(console, "", f"[bold]{title}[/]")
    for line in _row_lines(console, cols, grid, widths, margin, [f"[bold]{c.header}[/]" for c in cols]):
        console.print(line, soft_wrap=True)
    heading = None
    for r in rows:
        if group is not None and r[group] != heading:
            heading = r[group]
            console.print(_texts(console, heading), soft_wrap=True)
        for line in _row_lines(console, cols, grid, widths, margin, r):
            console.print(line, soft_wrap=True)
        items = []
        for i in below:
            value = r[i]
            if not _texts(console, value).plain.strip():
                continue
            items.append(f"{cols[i].header}: {value}" if cols[i].label else value)
        if items:
            for line in hang_lines(console, " " * indent, "; ".join(items)):
                console.print(line, soft_wrap=True)


def _row_lines(
    console: Console, cols: list[Col], grid: list[int], widths: dict[int, int], margin: int, cells: list[str]
) -> list[Text]:
    wrapped: list[list[Text]] = []
    for i in grid:
        t = _texts(console, cells[i])
        if cols[i].kind == "key" or t.cell_len <= widths[i]:
            parts = [t]
        else:
            parts = list(t.wrap(console, widths[i], overflow="fold")) or [Text()]
        wrapped.append(parts)
    height = max((len(p) for p in wrapped), default=1)
    out = []
    for n in range(height):
        line = Text(" " * margin)
        for k, i in enumerate(grid):
            piece = wrapped[k][n].copy() if n < len(wrapped[k]) else Text()
            pad = max(0, widths[i] - piece.cell_len)
            if cols[i].justify == "right":
                piece = Text.assemble(Text(" " * pad), piece)
            elif k < len(grid) - 1:
                piece = Text.assemble(piece, Text(" " * pad))
            if k:
                line.append(" " * GAP)
            line.append_text(piece)
        out.append(_rs(line))
    return out
