"""Line items: each raw line's quantity (and where it was read), price and role (part, title, total, claim).

A quantity is never silently 1: a line whose count cannot be told (two readings disagree, a table's
qty cell is unreadable) is marked unclear, and the report says the prediction rests on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.i18n import N_, retell
from advisor.quote.formats import RawLine
from advisor.quote.vocab import vocab

MAX_QTY = 64

# Where a line's count was read (Item.qty_source): English data, which the reader compares ("none
# written: 1", "the qty column") and the JSON keeps; said in the run's language where it is shown
# (count_source_words). A count quoted from the text ("'2 x'") is the quote's own words.
NONE_WRITTEN = N_("none written: 1")
QTY_COLUMN = N_("the qty column")
LEADING_COLUMN = N_("a leading qty column")
TRAILING_COLUMN = N_("a trailing qty column")
EACH_PART = N_("each part's own count")
BOARD_ONCE = N_("a board, once (the counts in its description are its specs)")
OTHER_MENTIONS = N_("the count the other mentions write")
UNREADABLE = N_("qty column {text} unreadable")
FROM_TOTAL = N_("the total {total} at the unit price {price}")
UNCLEAR = N_("unclear: {readings}")
VERSUS = N_("{a} vs {b}")
READING = N_("{qty} ({source})")
ON_LINE = N_("line {line}")
IN_HEADING = N_("{source} in the heading on line {line}")
FROM_LINE = N_("{count} from line {line} ({source}): the list writes no count")
COUNT_SOURCES = (
    NONE_WRITTEN,
    QTY_COLUMN,
    LEADING_COLUMN,
    TRAILING_COLUMN,
    EACH_PART,
    BOARD_ONCE,
    OTHER_MENTIONS,
    UNREADABLE,
    FROM_TOTAL,
    UNCLEAR,
    FROM_LINE,
    IN_HEADING,
    VERSUS,
    ON_LINE,
    READING,
)


def count_source_words(source: str) -> str:
    """Where a count was read, in the run's language ("the qty column"; "'4x'" as the quote writes it)."""
    return retell(source, COUNT_SOURCES, depth=6)


@dataclass
class Item:
    line: int
    text: str
    desc: str  # what to match parts in (the description, without quantity and price marks)
    qty: int = 1
    qty_source: str = NONE_WRITTEN  # where the quantity was read
    qty_unclear: bool = False
    qty_readings: tuple[int, ...] = ()  # the counts an unclear quantity could be, the one used first
    price: float | None = None
    currency: str | None = None
    role: str = "item"  # item | title | total | header | claim | note | continued
    kind_hint: str | None = None
    value: object = None


def item_of(raw: RawLine) -> Item:
    v = vocab()
    text = raw.text[:500]
    desc = (raw.desc if raw.desc is not None else text)[:500]
    it = Item(raw.line, text, desc, kind_hint=raw.kind, value=raw.value)
    if raw.header:
        it.role = "header"
        return it
    if raw.continued is not None:
        it.role = "continued"  # read with the row it finishes
        return it
    if raw.claim:
        it.role = "claim"
        return it
    if raw.note or (raw.kind is None and v.notes_label.search(text)):
        it.role = "note"  # the vendor's remarks: judged if they claim something, never a line item
        return it
    if v.total_line.search(desc.strip()):
        it.role = "total"
        it.price, it.currency = price_of(desc)
        return it
    # price: the table's cell, else the text
    if raw.price:
        it.price, it.currency = price_of(raw.price, bare=True)
    else:
        it.price, it.currency = price_of(desc)
    stripped = strip_prices(desc)
    readings = []  # (qty, source)
    if raw.qty is not None:
        m = re.fullmatch(r"\s*(?:[x×]\s*)?(\d{1,3})\s*(?:[x×]|pcs|stk|张|块|个|条|片)?\s*", raw.qty)
        if m and 1 <= int(m.group(1)) <= MAX_QTY:
            readings.append((int(m.group(1)), QTY_COLUMN))
        elif raw.qty.strip():
            it.qty_unclear, it.qty_source = True, UNREADABLE.format(text=f"'{raw.qty.strip()[:20]}'")
    for q, src in quantities(stripped):
        readings.append((q, src))
    if raw.qty is None and raw.total and raw.price:
        n = _price_ratio(raw.price, raw.total)
        if n is not None:  # "| RTX 4090 | $1,799 | $7,196 |": a total of four at the unit price
            readings.append((n, FROM_TOTAL.format(total=raw.total.strip(), price=raw.price.strip())))
    counts = {q for q, _ in readings}
    if readings:
        it.qty, it.qty_source = readings[0][0], readings[0][1]
        # a table's qty column is the count unless the description writes two other counts of its own
        text_counts = {q for q, s in readings if s != QTY_COLUMN}
        column_wins = readings[0][1] == QTY_COLUMN and len(text_counts) <= 1
        if len(counts) > 1 and not column_wins:
            it.qty_unclear = True
            said = [READING.format(qty=q, source=s) for q, s in readings]
            joined = said[0]
            for more in said[1:]:
                joined = VERSUS.format(a=joined, b=more)
            it.qty_source = UNCLEAR.format(readings=joined)
            it.qty_readings = tuple(dict.fromkeys(q for q, _ in readings))
    it.desc = strip_quantities(stripped)
    if (
        v.title_line.search(desc)
        and it.price is None
        and raw.qty is None
        and not re.match(r"\s*(?:\d{1,2}\s*[.、)]|[-*•·])\s*\S", desc)  # "1. 双5090跑...": a numbered note
    ):
        it.role = "title"  # a priced or counted table row is an item, whatever its words
    return it


def quantities(text: str) -> list[tuple[int, str]]:
    """Every quantity the text writes, with the form it was written in."""
    v = vocab()
    out = []
    spans: list[tuple[int, int]] = []
    low = text.lower()
    # every pattern is tried (the first that matches gives the count); a different count written another
    # way ("x2 (4 pcs reserved)") makes the quantity unclear, never silently one of them
    for rx in v.quantity:
        for m in rx.finditer(low):
            n = _number(m)
            if n is None or not 1 <= n <= MAX_QTY:
                continue
            if any(m.start() < e and s < m.end() for s, e in spans):
                continue  # the same words read by an earlier pattern
            if m.group(0).lstrip()[:1] in "x×*" and (
                v.width_context.search(low[: m.start()])
                or (n in (8, 16) and low[: m.start()].rstrip().endswith("|"))
            ):
                continue  # "PCIe 4.0 x8", "GPU #1 A6000 | x16": a link width, not a count
            if (re.search(r"[x×*]", m.group(0)) and _ram_like(low, m)) or v.spec_after.match(low[m.end() :]):
                continue  # RAM modules, or a spec ("7x PCIe 5.0 x16")
            spans.append(m.span())
            out.append((n, f"'{m.group(0).strip()}'"))
    if out:
        return out[:1] + [o for o in out[1:] if o[0] != out[0][0]][:1]
    leading = re.match(r"^\s*(?:[-*•·]\s*)?(\d{1,2})\s{2,}(?=[^\d\s])", text)
    if leading and 1 <= int(leading.group(1)) <= MAX_QTY:
        return [(int(leading.group(1)), LEADING_COLUMN)]
    trailing = re.search(r"(?:(?<!\s)\s{2,}|\|\s*)(\d{1,2})\s*$", text)
    if trailing and 1 <= int(trailing.group(1)) <= MAX_QTY:
        return [(int(trailing.group(1)), TRAILING_COLUMN)]
    return []


def _number(m: re.Match) -> int | None:
    gd = m.groupdict()
    if gd.get("n"):
        return int(gd["n"])
    if gd.get("cn"):
        return vocab().numerals.get(gd["cn"])
    return None


def _ram_like(low: str, m: re.Match) -> bool:
    """'8 x 32GB': the modules of a RAM line, not a count of the line's part."""
    kw = vocab().kind_words
    if not kw["ram"].search(low) or kw["gpu"].search(low):
        return False
    after = low[m.end() : m.end() + 8]
    before = low[max(0, m.start() - 8) : m.start()]
    return bool(re.match(r"\s*\d{1,3}\s*g", after) or re.search(r"\d\s*g(?:b)?\s*$", before))


def strip_quantities(text: str) -> str:
    v = vocab()
    t = text
    for rx in v.quantity:

        def keep_modules(m: re.Match, t=t) -> str:
            # "32G*8" on a RAM line: the modules stay for the RAM total to read
            return m.group(0) if re.search(r"[x×*]", m.group(0)) and _ram_like(t.lower(), m) else " "

        t = rx.sub(keep_modules, t)
    t = re.sub(r"^\s*(?:[-*•·]\s*)?\d{1,2}\s{2,}", " ", t)
    return re.sub(r"\s+", " ", t).strip()


def strip_prices(text: str) -> str:
    t = text
    for rx in vocab().prices:
        t = rx.sub(" ", t)
    return t


def _price_ratio(unit: str, total: str) -> int | None:
    """How many a line total buys at the unit price, where it is a whole number of them (2 or more)."""
    u, t = price_of(unit, bare=True)[0], price_of(total, bare=True)[0]
    if not u or not t or u <= 0 or t <= u:
        return None
    n = round(t / u)
    return n if 2 <= n <= MAX_QTY and abs(t - n * u) <= 0.005 * t else None


def price_of(text: str, bare: bool = False) -> tuple[float | None, str | None]:
    for rx in vocab().prices:
        m = rx.search(text)
        if m:
            return _amount(m.group("v")), _currency(m.group("cur"))
    if bare:
        m = re.search(r"\d[\d.,\s\u00a0]*", text)
        if m:
            return _amount(m.group(0).strip()), None
    return None, None


def _amount(s: str) -> float | None:
    s = s.replace("\u00a0", " ").strip()
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?", s) or re.fullmatch(r"\d+,\d{1,2}", s):
        s = s.replace(".", "").replace(",", ".")  # European: 1.649,00
    else:
        s = s.replace(",", "").replace(" ", "")
    try:
        return float(s)
    except ValueError:
        return None


def _currency(cur: str | None) -> str | None:
    if not cur:
        return None
    c = cur.upper()
    return {
        "$": "USD",
        "US$": "USD",
        "€": "EUR",
        "£": "GBP",
        "¥": "CNY",
        "￥": "CNY",
        "元": "CNY",
        "块钱": "CNY",
        "RMB": "CNY",
    }.get(c, c)
