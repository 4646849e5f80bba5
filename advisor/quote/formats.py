"""Read a quote's format into numbered raw lines: plain text, CSV (any delimiter, any header language),
Markdown/ASCII tables, YAML and JSON (any extra keys kept as the quote's details).

Every input line that holds anything becomes one RawLine, so every line is reported exactly once.
A table row keeps its cells by role (description, qty, price) where a header names them.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from typing import Any

from advisor.base.errors import Problem, UserError
from advisor.base.numbers import json_loads
from advisor.base.text import plain
from advisor.quote.vocab import vocab

# Header words per role, in English, German and Chinese (matched against lower-case header cells).
HEADER_ROLES = {
    "qty": r"^(?:qty|quantity|menge|anzahl|stück|stk|count|units|pcs|数量|数目|件数)\.?$",
    "unit_price": r"unit\s*price|price\s*each|einzelpreis|stückpreis|单价|e-?preis",
    "price": r"^(?:(?:est\.?|estimated|approx\.?|ca\.?)\s*)?(?:price|cost|amount|total|gesamt|gesamtpreis|preis|betrag|金额|总价|价格|小计)",
    "desc": r"desc|item|product|part\s*(?:name)?|component|model|artikel|bezeichnung|beschreibung|name|品牌型号|型号|配件名称|名称|规格|产品",
    "kind": r"type|category|kind|typ|kategorie|配件类型|类型|类别|配件",
    "index": r"^(?:#|no\.?|pos\.?|position|nr\.?|序号|编号)$",
    "note": r"note|remark|comment|bemerkung|备注|说明",
    # a lane table ("| Slot | Device | Lanes |"): its slot and width cells ("PCIE1", "x16") are no name or count
    "slot": r"^(?:slot|插槽)$",
    "width": r"^(?:lanes?|link|width|通道|带宽)",
}


@dataclass
class RawLine:
    line: int
    text: str  # the line as written
    desc: str | None = None  # a table's description cell, where there is one
    qty: str | None = None  # a table's quantity cell
    price: str | None = None  # a table's (unit) price cell
    kind: str | None = None  # a structured quote's part kind (cpu, board, gpu, psu, ram, nvme, nic)
    value: Any = None  # a structured value (psu_w, ram_gb, a gpus entry's count)
    claim: bool = False  # a structured quote's claim sentence
    note: bool = False  # a vendor's remark (a notes key, a "Notes:" label): judged if it claims, never a part
    header: bool = False  # a table header or separator row
    continued: int | None = None  # the line of a table row this line finishes (a wrapped description)
    width: str | None = None  # a lane table's width cell ("x16"): read for claims, never as a count
    total: str | None = None  # a line total beside a unit price (no qty column): the count is their ratio


@dataclass
class Document:
    format: str
    lines: list[RawLine]
    details: dict[str, Any] = field(default_factory=dict)  # a structured quote's other keys


def read_document(text: str, filename: str) -> Document:
    """The quote's lines, each cell's text without terminal escape sequences (a quote copied from a
    coloured terminal reads as plain text) and with any other control character written out: a quote
    line is printed in reports, and nothing in it may reach the terminal as a command."""
    doc = _read_document(text, filename)
    for line in doc.lines:
        for name in ("text", "desc", "qty", "price"):
            value = getattr(line, name)
            if isinstance(value, str):
                setattr(line, name, plain(value))
        if isinstance(line.value, str):
            line.value = plain(line.value)
    doc.details = {plain(str(k)): _visible_value(v) for k, v in doc.details.items()}
    return doc


def _visible_value(value: Any) -> Any:
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, tuple):
        return tuple(_visible_value(v) for v in value)
    if isinstance(value, list):
        return [_visible_value(v) for v in value]
    return value


def _read_document(text: str, filename: str) -> Document:
    fmt = detect(text, filename)
    if fmt == "yaml":
        return _structured(text, filename, "yaml")
    if fmt == "json":
        return _structured(text, filename, "json")
    if fmt == "csv":
        return Document("csv", _csv(text, filename))
    return Document("text", _text(text))


def detect(text: str, filename: str) -> str:
    low = filename.lower()
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    if low.endswith(".json"):
        return "json"
    if low.endswith((".csv", ".tsv")):
        return "csv"
    stripped = text.lstrip()
    if low.endswith((".txt", ".eml", ".text", ".md")):
        return "text"
    if stripped.startswith(("{", "[")):
        try:
            json_loads(text, filename)
            return "json"
        except UserError:
            return "json"  # JSON with a refused number (NaN, 1e309): read as JSON, which says where
        except (ValueError, RecursionError):
            pass
    if re.search(r"^(cpu|board|gpus|items)\s*:", text, re.M):
        return "yaml"
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if _delimiter(first) and _header_roles(_split(first, _delimiter(first))):
        return "csv"
    return "text"


# ---------------------------------------------------------------- tables


def _delimiter(line: str) -> str | None:
    counts = {d: line.count(d) for d in (",", ";", "\t")}
    d = max(counts, key=lambda k: counts[k])
    return d if counts[d] >= 1 else None


def _split(line: str, delim: str) -> list[str]:
    try:
        return next(csv.reader([line], delimiter=delim))
    except (csv.Error, StopIteration):
        return line.split(delim)


# Description headers, strongest first: "Item" is often the row number when "Description" is there too.
DESC_STRENGTH = (
    r"desc|beschreibung|bezeichnung|品牌型号|型号|规格|product|produkt|artikel|component|配件名称|名称",
    r"part|model|name|产品|^device$|^card$",
    r"item",
)


_SHORT_ROLES = ("qty", "unit_price", "price", "desc")


def _split_header(cells: list[str]) -> list[str]:
    """A header cell that is a row-number column and the next column's name with one space between
    ("Pos. Menge", "No. Qty", "Item Description"), split into one cell each; a name of several words
    ("Unit Price", "Part Number") stays whole."""
    out = []
    for c in cells:
        words = c.split()
        if (
            len(words) > 1
            and all(any(re.search(HEADER_ROLES[r], w.lower()) for r in _SHORT_ROLES) for w in words[1:])
            and re.search(HEADER_ROLES["index"] + "|^item$", words[0].lower())
        ):
            out += words
        else:
            out.append(c)
    return out


def _header_roles(cells: list[str]) -> dict[str, int]:
    roles: dict[str, int] = {}
    low = [c.strip().lower().strip("*_ ") for c in cells]
    for rx in DESC_STRENGTH:
        hit = next((i for i, c in enumerate(low) if c and re.search(rx, c)), None)
        if hit is not None:
            roles["desc"] = hit
            break
    for i, c in enumerate(low):
        if i in roles.values():
            continue
        for role, rx in HEADER_ROLES.items():
            if role not in roles and c and re.search(rx, c):
                roles[role] = i
                break
        else:
            if c in ("item", "pos", "#") and "index" not in roles:
                roles["index"] = i
    if "desc" in roles and ({"qty", "price", "unit_price", "kind", "width"} & set(roles)):
        return roles
    return {}


def _row(line: int, text: str, cells: list[str], roles: dict[str, int]) -> RawLine:
    def cell(role: str) -> str:
        i = roles.get(role)
        return cells[i].strip() if i is not None and i < len(cells) else ""

    desc = cell("desc")
    kind = cell("kind")
    if kind and desc:
        desc = f"{kind} {desc}"
    others = [c.strip() for i, c in enumerate(cells) if c.strip() and i not in roles.values()]
    if not desc:
        desc = " ".join(c.strip() for c in cells if c.strip())
    elif others:
        desc = f"{desc} {' '.join(others)}"
    note = cell("note")
    if note and note not in desc:
        desc = f"{desc} {note}"
    return RawLine(
        line,
        text,
        desc=desc,
        qty=cell("qty") or None,
        price=cell("unit_price") or cell("price") or None,
        width=cell("width") or None,
        total=(cell("price") or None) if "unit_price" in roles else None,
    )


def _strict_cells(raw: str, delim: str, filename: str, line: int) -> list[str]:
    """One CSV row's cells; a quote that is opened and never closed on its line is an error at the line.
    Read loosely, it swallows the rest of the row into one cell (or, read as a whole file, the rows
    after it): the board disappears and the CPU takes the GPU's qty and price."""
    try:
        return next(csv.reader([raw], delimiter=delim, strict=True))
    except StopIteration:
        return []
    except csv.Error as exc:
        if "end of data" in str(exc):
            what = 'this row opens a quote (") that it never closes'
        else:
            what = f"this row's quotes are not valid CSV ({exc}): a quoted cell must end right after its closing quote"
        raise UserError(
            problems=[
                Problem(
                    what,
                    file=filename,
                    line=line,
                    hint='close the quote on the same line; write "" for a quote mark inside a quoted cell',
                )
            ]
        ) from None


def _csv(text: str, filename: str) -> list[RawLine]:
    lines = text.splitlines()
    out: list[RawLine] = []
    roles: dict[str, int] = {}
    delim = None
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        if not roles:
            d = _delimiter(raw)
            r = _header_roles(_split(raw, d)) if d else {}
            if r:
                roles, delim = r, d
                out.append(RawLine(i, raw, header=True))
                continue
            out.append(RawLine(i, raw))
            continue
        out.append(_row(i, raw, _strict_cells(raw, delim or ",", filename, i), roles))
    if not roles:
        raise UserError(
            problems=[
                Problem(
                    "a CSV quote needs a header row with a description and a qty or "
                    "price column (any language: Qty, Menge, 数量, ...)",
                    file=filename,
                    line=1,
                )
            ]
        )
    return out


_TABLE_SEP_AT = re.compile(r"[|+]?\s*:?-{2,}:?\s*(?:[|+]\s*:?-{2,}:?\s*)*[|+]?|\+[-=+]+\+")


class _TableSep:
    """`_TABLE_SEP.match(line)`: a table's rule line ("|---|:--:|", "+----+"), matched on the line without
    its blanks at either end: a pattern that began and ended with them tried every split of a long run."""

    @staticmethod
    def match(text: str):
        return _TABLE_SEP_AT.fullmatch(text.strip())


_TABLE_SEP = _TableSep()


def _text(text: str) -> list[RawLine]:
    """Plain text; Markdown and ASCII tables (| cells |) keep their cells by the header's roles."""
    out: list[RawLine] = []
    roles: dict[str, int] = {}
    aligned = 0  # cells of an aligned text table's header (columns split by 2+ spaces)
    pipe_roles: dict[str, int] = {}  # a Markdown/ASCII table's header roles
    pending: tuple[int, list[str]] | None = None  # (index in out, cells) of a row short of cells
    last_row: int | None = None  # index in out of the last whole table row
    last_pipe = 0  # the line of the last Markdown/ASCII table row
    for i, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        if raw.count("|") >= 2 and last_pipe and i > last_pipe + 1 and not _TABLE_SEP.match(raw):
            pipe_roles = {}  # a new table after a gap: its own header (a lane table is not the parts table)
        if raw.count("|") >= 2 or _TABLE_SEP.match(raw):
            last_pipe = i
        if _TABLE_SEP.match(raw):
            out.append(RawLine(i, raw, header=True))
            continue
        if raw.count("|") >= 2:
            cells = [c for c in raw.strip().strip("|").split("|")]
            # a row with a number or a price in a cell is no header (and is not read as one: one pass)
            r = {} if any(_NUMBER_CELL.fullmatch(c.strip()) for c in cells) else _header_roles(cells)
            if r:
                pipe_roles = r
                out.append(RawLine(i, raw, header=True))
                continue
            if pipe_roles:
                out.append(_row(i, raw, cells, pipe_roles))
                continue
            out.append(_guess(i, raw, cells))
            continue
        cols = [c for c in re.split(r"\s{2,}|\t", raw.strip()) if c]
        if len(cols) >= 3:
            r = _header_roles(cols)
            split = _split_header(cols)
            if split != cols and _header_roles(split):
                cols, r = split, _header_roles(split)  # "Pos. Menge  Artikel": two columns, one space
            if r:
                roles, aligned = r, len(cols)
                out.append(RawLine(i, raw, header=True))
                continue
            if roles and aligned and len(cols) == aligned:
                pending, last_row = None, len(out)
                out.append(_row(i, raw, cols, roles))
                continue
        if roles and aligned and not _MONEY_LINE.search(raw):
            # a PDF table's wrapped row: the description runs onto an indented next line, which may
            # carry the qty and prices ("NVIDIA RTX PRO 6000 Blackwell Server" / "Edition 96GB ... 8 $8,990")
            lead = len(raw) - len(raw.lstrip())
            indented = lead >= 8 or (last_row is not None and _under_desc(out[last_row], lead))
            if pending is not None and indented and len(pending[1]) + len(cols) - 1 == aligned:
                j, pcols = pending
                merged = pcols[:-1] + [pcols[-1] + " " + cols[0]] + cols[1:]
                first = out[j]
                out[j] = _row(first.line, first.text.rstrip() + " " + raw.strip(), merged, roles)
                out.append(RawLine(i, raw, continued=first.line))
                pending, last_row = None, j
                continue
            if last_row is not None and indented and len(cols) == 1 and pending is None:
                prev = out[last_row]
                prev.desc = f"{prev.desc or ''} {cols[0]}".strip()
                prev.text = prev.text.rstrip() + " " + raw.strip()
                out.append(RawLine(i, raw, continued=prev.line))
                continue
            if 1 < len(cols) < aligned and not indented:
                pending, last_row = (len(out), cols), None
                out.append(RawLine(i, raw))
                continue
        pending = last_row = None
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.line == i - 1
            and prev.continued is None
            and not prev.header
            and _LABELLED.match(prev.text)
            and not _PRICED.search(prev.text)
            and len(raw) - len(raw.lstrip()) >= 8
            and not _LABELLED.match(raw)
            and _PRICED.search(raw)
        ):
            # "GPU:  NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation" / "      Edition 96GB  Qty: 4  $33,996.00":
            # one item whose name wrapped, its qty and price on the second line
            prev.text = prev.text.rstrip() + " " + raw.strip()
            out.append(RawLine(i, raw, continued=prev.line))
            continue
        out.append(RawLine(i, raw))
    return out


_NUMBER_CELL = re.compile(r"[$€£¥￥~]?\s?\d[\d,.\s]*\s?(?:元|€|\$)?")
_LABELLED_AT = re.compile(r"[-*•·]?\s*[\w\u4e00-\u9fff /.&+()-]{1,24}[:：]\s+\S")


class _Labelled:
    """A line that starts with a label ("GPU:  NVIDIA ..."), matched after its leading blanks are cut: a
    pattern that began with them tried every way to split a long run of them (19 s on 2,000 spaces)."""

    @staticmethod
    def match(text: str):
        if ":" not in text and "：" not in text:
            return None
        return _LABELLED_AT.match(text.lstrip())


_LABELLED = _Labelled()
_PRICED = re.compile(r"[$€£¥￥]|\bqty\b|\bmenge\b|数量|\d[.,]\d{2}\b|\d\s*元", re.I)


def _under_desc(row: RawLine, lead: int) -> bool:
    """A line that starts under the description cell of the table row above it (a PDF table's wrapped
    description, indented less than a whole tab)."""
    if not row.desc or lead < 2:
        return False
    start = row.text.find(row.desc.split()[0]) if row.desc.split() else -1
    return start > 0 and abs(lead - start) <= 2


_MONEY_LINE = re.compile(r"(?:subtotal|total|freight|shipping|tax)\b", re.I)


_MONEY = re.compile(
    r"^(?:[$€£¥￥]|rmb|usd|eur|cny)?\s?\d{1,3}(?:[,.\s]\d{3})*(?:[.,]\d{1,2})?\s?(?:[$€£元]|eur|usd)?$", re.I
)


def _guess(line: int, text: str, cells: list[str]) -> RawLine:
    """A table row without a header: a small whole number is the qty, a money-like cell the price."""
    cells = [c.strip() for c in cells if c.strip()]
    qty = next((c for c in cells if re.fullmatch(r"\d{1,2}", c) and 1 <= int(c) <= 64), None)
    price = next(
        (c for c in reversed(cells) if c != qty and _MONEY.match(c) and re.search(r"\d{2}", c)), None
    )
    desc = " ".join(c for c in cells if c not in (qty, price))
    return RawLine(line, text, desc=desc, qty=qty, price=price)


# ---------------------------------------------------------------- YAML and JSON

_PART_KEYS = {
    "cpu": "cpu",
    "processor": "cpu",
    "board": "board",
    "motherboard": "board",
    "mainboard": "board",
    "psu": "psu",
    "psu_w": "psu",
    "power_supply": "psu",
    "ram": "ram",
    "ram_gb": "ram",
    "memory": "ram",
    "nvme": "nvme",
    "ssd": "nvme",
    "storage": "nvme",
    "nic": "nic",
    "nics": "nic",
    "network": "nic",
    "gpu": "gpu",
    "gpus": "gpu",
    "graphics": "gpu",
    "nvlink": "bridge",
}
_ITEM_LIST_KEYS = (
    "items",
    "line_items",
    "lines",
    "parts",
    "components",
    "bom",
    "positions",
    "positionen",
    "entries",
    "配置",
    "清单",
    "明细",
)
_CLAIM_KEYS = ("claims", "features", "highlights", "notes_claims", "卖点", "说明")


def _structured(text: str, filename: str, fmt: str) -> Document:
    from advisor.base.yamlio import LineDict, loads

    if fmt == "json":
        try:
            data = json_loads(text, filename)  # NaN, 1e309, a 5000-digit number: refused at the line
        except json.JSONDecodeError as exc:
            raise UserError(
                problems=[Problem(f"this is not valid JSON: {exc.msg}", file=filename, line=exc.lineno)]
            ) from None
        except RecursionError:
            raise UserError(problems=[Problem("the quote is nested too deeply", file=filename)]) from None
        line_of = _json_lines(text)
    else:
        data = loads(text, filename)
        line_of = None
    doc = Document(fmt, [])
    if isinstance(data, list):
        _items(data, doc, filename, line_of, 1)
    elif isinstance(data, dict):
        key_lines = data.key_lines if isinstance(data, LineDict) else {}
        for key, value in data.items():
            k = str(key).lower()
            line = key_lines.get(key) or (line_of(str(key)) if line_of else None) or 1
            if k in _ITEM_LIST_KEYS and isinstance(value, list):
                _items(value, doc, filename, line_of, line)
            elif k in _CLAIM_KEYS and isinstance(value, (list, str)):
                for j, c in enumerate([value] if isinstance(value, str) else value):
                    cl = _item_line(value, j, line) if isinstance(value, list) else line
                    if line_of and isinstance(c, str):
                        cl = line_of(c) or cl
                    doc.lines.append(RawLine(cl, str(c), desc=str(c), claim=True))
            elif k in vocab().notes_keys and isinstance(value, (list, str)):
                for j, c in enumerate([value] if isinstance(value, str) else value):
                    if not isinstance(c, (str, int, float)):
                        continue
                    cl = _item_line(value, j, line) if isinstance(value, list) else line
                    if line_of:
                        cl = line_of(str(c)) or cl
                    doc.lines.append(RawLine(cl, str(c), desc=str(c), note=True))
            elif k in _PART_KEYS:
                _part(k, value, doc, filename, line, line_of)
            else:
                doc.details[str(key)] = (
                    value
                    if isinstance(value, (str, int, float, bool)) or value is None
                    else json.loads(json.dumps(value, default=str))
                )
    else:
        raise UserError(
            problems=[
                Problem(
                    "a structured quote must be a mapping (cpu, board, gpus, ...) or a list of line items",
                    file=filename,
                    line=1,
                )
            ]
        )
    doc.lines.sort(key=lambda r: r.line)
    return doc


def _item_line(seq, j: int, default: int) -> int:
    lines = getattr(seq, "item_lines", None)
    return (lines[j] if lines and j < len(lines) else None) or default


def _part(key: str, value: Any, doc: Document, filename: str, line: int, line_of) -> None:
    kind = _PART_KEYS[key]
    if kind == "gpu" and isinstance(value, list):
        for j, g in enumerate(value):
            gl = _item_line(value, j, line)
            _part_value(kind, g, doc, filename, gl, line_of)
        return
    if kind in ("nvme", "nic") and isinstance(value, list):
        for j, v in enumerate(value):
            _part_value(kind, v, doc, filename, _item_line(value, j, line), line_of)
        return
    _part_value(kind, value, doc, filename, line, line_of)


def _part_value(kind: str, v: Any, doc: Document, filename: str, line: int, line_of) -> None:
    if isinstance(v, dict):
        model = next((v[k] for k in ("model", "name", "description", "part", "socket") if k in v), None)
        count = v.get("count", v.get("qty", v.get("quantity")))
        if count is not None and (
            isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 64
        ):
            raise UserError(
                problems=[Problem("a count must be a whole number from 1 to 64", file=filename, line=line)]
            )
        if model is None:
            raise UserError(
                problems=[Problem(f"a {kind} entry needs a `model` (or name)", file=filename, line=line)]
            )
        text = str(model)
        if kind == "nvme" and "socket" in v:
            text = f"NVMe SSD in {v['socket']}" + (f" {model}" if model != v["socket"] else "")
        price = _price(v.get("price"), filename, line)
        doc.lines.append(
            RawLine(
                line,
                text,
                desc=text,
                qty=str(count) if count is not None else None,
                price=str(price) if price is not None else None,
                kind=kind,
            )
        )
        return
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        if kind == "bridge" and isinstance(v, list):
            doc.lines.append(RawLine(line, f"nvlink: {v}", desc="NVLink bridge", kind="bridge", value=v))
            return
        raise UserError(
            problems=[Problem(f"{kind} must be a part name or a number", file=filename, line=line)]
        )
    if isinstance(v, (int, float)) and kind in ("psu", "ram"):
        from advisor.model.build import PSU_W, RAM_GB

        low, high = PSU_W if kind == "psu" else RAM_GB
        if not low <= v <= high:
            what = "PSU watts" if kind == "psu" else "GB of RAM"
            shown = (
                f"{v:g}"
                if isinstance(v, float) or len(str(v)) <= 20
                else f"a {len(str(abs(v)))}-digit number"
            )
            raise UserError(
                problems=[
                    Problem(
                        f"{kind}: must be {what} from {low} to {high} (got {shown})", file=filename, line=line
                    )
                ]
            )
        unit = "W" if kind == "psu" else "GB"
        doc.lines.append(RawLine(line, f"{kind}: {v:g} {unit}", kind=kind, value=int(v)))
        return
    if line_of and isinstance(v, str):
        line = line_of(v) or line
    doc.lines.append(RawLine(line, str(v), desc=str(v), kind=kind))


MAX_PRICE = 100_000_000  # one line item's price: beyond any machine a quote prices


def _price(price: Any, filename: str, line: int) -> Any:
    """A structured quote's price as written; a number outside 0..MAX_PRICE (1e200) is refused at its
    line rather than read as something else ("1e+200" would read as 1.00)."""
    if isinstance(price, (int, float)) and not isinstance(price, bool) and not 0 <= price <= MAX_PRICE:
        shown = f"{price:g}" if isinstance(price, float) or len(str(price)) <= 20 else "a huge number"
        raise UserError(
            problems=[
                Problem(f"a price must be from 0 to {MAX_PRICE:,} (got {shown})", file=filename, line=line)
            ]
        )
    if isinstance(price, float) and not price.is_integer():
        return f"{price:.2f}"
    if isinstance(price, float):
        return int(price)
    return price


def _items(items: list, doc: Document, filename: str, line_of, base: int) -> None:
    for j, it in enumerate(items):
        line = _item_line(items, j, base + j)
        if isinstance(it, (str, int, float)) and not isinstance(it, bool):
            if line_of and isinstance(it, str):
                line = line_of(it) or line
            doc.lines.append(RawLine(line, str(it)))
        elif isinstance(it, dict):
            desc = next(
                (
                    it[k]
                    for k in (
                        "description",
                        "item",
                        "name",
                        "model",
                        "part",
                        "product",
                        "artikel",
                        "型号",
                        "名称",
                    )
                    if k in it
                ),
                None,
            )
            if not isinstance(desc, (str, int)):
                raise UserError(
                    problems=[
                        Problem(
                            "a line item needs a `description` (or item/name/model)", file=filename, line=line
                        )
                    ]
                )
            if line_of:
                line = line_of(str(desc)) or line
            qty = next((it[k] for k in ("qty", "quantity", "count", "menge", "数量") if k in it), None)
            if qty is not None and (isinstance(qty, bool) or not isinstance(qty, (int, str))):
                raise UserError(problems=[Problem("qty must be a whole number", file=filename, line=line)])
            kind = next((str(it[k]) for k in ("type", "category", "kind", "类型") if k in it), "")
            price = next((it[k] for k in ("price", "unit_price", "单价", "preis") if k in it), None)
            if price is not None and (isinstance(price, bool) or not isinstance(price, (int, float, str))):
                raise UserError(problems=[Problem("a price must be a number", file=filename, line=line)])
            price = _price(price, filename, line)
            text = f"{kind} {desc}".strip()
            doc.lines.append(
                RawLine(
                    line,
                    text,
                    desc=text,
                    qty=None if qty is None else str(qty),
                    price=None if price is None else str(price),
                )
            )
        else:
            raise UserError(
                problems=[Problem("a line item must be text or a mapping", file=filename, line=line)]
            )


def _json_lines(text: str):
    """A JSON file's line of a string value (json has no line info): the first line that holds it."""
    lines = text.splitlines()

    def line_of(value: str) -> int | None:
        needle = json.dumps(value)[1:-1]
        for i, ln in enumerate(lines, 1):
            if needle and needle in ln:
                return i
        return None

    return line_of
