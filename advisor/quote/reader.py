"""Read a vendor's quote (YAML, CSV or the plain text of an email/PDF) into a Build, and check its claims.

Each line is matched against the catalog: every window of up to 7 words that holds a digit is
searched per kind (cpu, board, gpu); the best window wins (an exact name before a fuzzy one, a
longer window before a shorter one) when it scores at least MATCH_MIN. PSUs (wattage), RAM (total
GB), NVMe SSDs and NVLink bridges are recognised by their words. Lines that are no part are kept as
'unmatched'; lines that look like a CPU, board or GPU but match nothing are 'not in catalog'.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

from advisor.base.errors import Problem, UserError

MATCH_MIN = 88.0
# Capacities, clocks, wattages, quantities: numbers that name no model.
_UNIT_TOKEN = re.compile(
    r"^(\d+(\.\d+)?(gb|tb|mb|ghz|mhz|w|mm|v|mt/s|-?cores?|-core|pcs)|\d{1,2}x|x\d+|\d+x\d+gb|g?ddr\d(-\d+)?)$",
    re.I,
)
KINDS = ("cpu", "board", "gpu")

_PRICE = re.compile(
    r"(?:(?:US)?\$|€|£|\bUSD\s?|\bEUR\s?)\s?(\d{1,3}(?:[,\s]\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)"
    r"|(\d{1,3}(?:,\d{3})+\.\d{2}|\d+\.\d{2})\s?(?:USD|EUR|\$)",
    re.I,
)
_QTY = [
    re.compile(r"\b(?:qty|quantity|menge)\s*[:=#]?\s*(\d{1,3})\b", re.I),
    re.compile(r"\(\s*[x×]\s*(\d{1,3})\s*\)", re.I),
    re.compile(r"^\s*[-*•]?\s*(\d{1,3})\s*(?:[x×]|pcs\b|pc\b|units?\b)\s*(?!\d+\s*gb)", re.I),
    re.compile(r"\s[x×]\s?(\d{1,3})\s*$", re.I),
]
_RAM_MODS = re.compile(r"(\d{1,2})\s*[x×]\s*(\d{1,3})\s*gb\b", re.I)
_GB = re.compile(r"(\d{1,4})\s*gb\b", re.I)
_RAM_WORDS = re.compile(r"\b(ddr[345]|ram|memory|dimms?|rdimms?|udimms?|ecc\s+reg\w*)\b", re.I)
_WATT = re.compile(r"(\d{3,4})\s*(?:w|watts?)\b", re.I)
_PSU_WORDS = re.compile(
    r"\b(psu|power\s+supply|netzteil|80\s*\+|80\s*plus|platinum|titanium|atx\s*3\.\d)\b", re.I
)
_NVME_WORDS = re.compile(r"\b(nvme|ssd|m\.2|990\s*pro|980\s*pro|sn850x?|t700|firecuda)\b", re.I)
_M2_SOCKET = re.compile(r"\b(M\.?2_\d+)\b", re.I)
_BRIDGE = re.compile(r"\bnvlink\b.*\bbridge\b|\bbridge\b.*\bnvlink\b|\bnvlink\s+\d[- ]slot\b", re.I)
_PARTLIKE = {
    "cpu": re.compile(r"\b(cpu|processor|core\s+i[3579]|core\s+ultra|ryzen|epyc|xeon|threadripper)\b", re.I),
    "board": re.compile(r"\b(motherboard|mainboard|mobo|board|[xzwbh]\d{3}[a-z]?|wrx\d\d|trx\d\d)\b", re.I),
    "gpu": re.compile(r"\b(gpu|graphics|geforce|rtx|gtx|radeon|quadro|tesla|video\s+card)\b", re.I),
}
_CLAIMS = [
    (
        "pcie_x16",
        re.compile(
            r"pcie\s*(?:gen\s*)?\d(?:\.0)?\s*x16|dual\s+x16|x16\s*/\s*x16|full\s+x16|"
            r"(?:both|all|each|every)\b[^.]*\bx16\b",
            re.I,
        ),
    ),
    ("nvlink", re.compile(r"\bnvlink\b", re.I)),
    ("p2p", re.compile(r"\bp2p\b|peer[- ]to[- ]peer", re.I)),
    (
        "psu",
        re.compile(
            r"\d{3,4}\s*w\b[^.]*\b(enough|sufficient|plenty|adequate|ample)\b|"
            r"\b(psu|power\s+supply)\b[^.]*\b(enough|sufficient|plenty|adequate|ample)\b",
            re.I,
        ),
    ),
]
_PROSE_CLAIM = re.compile(
    r"\b(enough|sufficient|guarantee\w*|support\w*|run\w*|will|both|each|all|full)\b", re.I
)
_YAML_KEYS = {
    "cpu",
    "board",
    "gpus",
    "gpu",
    "psu_w",
    "psu",
    "ram_gb",
    "ram",
    "nvme",
    "nvlink",
    "claims",
    "items",
    "name",
    "vendor",
    "customer",
    "date",
    "total",
    "subtotal",
    "shipping",
    "tax",
    "notes",
    "currency",
    "quote",
    "reference",
    "valid_until",
}


@dataclass
class QuoteLine:
    line: int
    text: str
    status: str  # matched | recognized | unmatched | not_in_catalog
    kind: str | None = None  # cpu board gpu psu ram nvme nvlink
    part_id: str | None = None
    part_name: str | None = None
    confidence: float | None = None
    qty: int = 1
    price: float | None = None
    value: int | None = None  # PSU watts, RAM GB, NVMe socket count
    socket: str | None = None


@dataclass
class Claim:
    text: str
    line: int
    kind: str  # pcie_x16 | nvlink | p2p | psu
    gen: int | None = None


@dataclass
class Quote:
    filename: str
    format: str
    lines: list[QuoteLine] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    build_data: dict = field(default_factory=dict)
    build: Any = None  # advisor.model.build.Build, or None when incomplete
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def matched(self) -> list[QuoteLine]:
        return [x for x in self.lines if x.status in ("matched", "recognized")]

    def of_status(self, status: str) -> list[QuoteLine]:
        return [x for x in self.lines if x.status == status]


# ---------------------------------------------------------------- entry point


def read_quote(text: str, filename: str, catalog) -> Quote:
    if not isinstance(text, str):
        raise UserError(problems=[Problem("a quote must be text", file=filename)])
    if "\x00" in text or sum(1 for ch in text[:4000] if ord(ch) < 32 and ch not in "\t\r\n\f") > 8:
        raise UserError(
            problems=[
                Problem(
                    "this looks like a binary file, not a quote",
                    file=filename,
                    hint="give the quote as text, CSV or YAML",
                )
            ]
        )
    if not text.strip():
        raise UserError(problems=[Problem("the quote is empty", file=filename)])
    fmt = _detect(text, filename)
    q = Quote(filename=filename, format=fmt)
    try:
        if fmt == "yaml":
            _read_yaml(text, q, catalog)
        elif fmt == "csv":
            _read_csv(text, q, catalog)
        else:
            for i, raw in enumerate(text.splitlines(), 1):
                if raw.strip():
                    _add_line(q, catalog, i, raw.strip())
    except RecursionError:
        raise UserError(problems=[Problem("the quote is nested too deeply", file=filename)]) from None
    if not q.matched and not q.of_status("not_in_catalog"):
        raise UserError(
            problems=[
                Problem(
                    "no CPU, board, GPU, PSU or RAM line found in the quote",
                    file=filename,
                    hint="give one line item per line, e.g. '2x NVIDIA RTX 4090 $1,599.00'",
                )
            ]
        )
    _assemble(q, catalog)
    return q


def _detect(text: str, filename: str) -> str:
    low = filename.lower()
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    if low.endswith((".csv", ".tsv")):
        return "csv"
    if low.endswith((".txt", ".eml", ".text", ".md")):
        return "text"
    stripped = text.lstrip()
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    if re.search(r"^(cpu|board|gpus|items)\s*:", text, re.M) or stripped.startswith("- "):
        try:
            from advisor.base.yamlio import loads

            data = loads(text, filename)
            if (isinstance(data, list) and data) or (
                isinstance(data, dict) and set(data) & {"cpu", "board", "gpus", "items"}
            ):
                return "yaml"
        except UserError:
            pass
    if _csv_header(first) is not None:
        return "csv"
    return "text"


# ---------------------------------------------------------------- one line


def _price(text: str) -> float | None:
    m = _PRICE.search(text)
    if not m:
        return None
    s = (m.group(1) or m.group(2) or "").replace(",", "").replace(" ", "")
    try:
        return float(s)
    except ValueError:
        return None


def _qty(text: str) -> int | None:
    for rx in _QTY:
        m = rx.search(text)
        if m:
            n = int(m.group(1))
            if 1 <= n <= 64:
                return n
    return None


def _strip_noise(text: str) -> str:
    t = _PRICE.sub(" ", text)
    for rx in _QTY:
        t = rx.sub(" ", t)
    return t


def best_match(catalog, text: str, kind: str):
    """(part, score, window) for the best window of `text` of this kind, or None."""
    words = re.findall(r"[^\s,;|()\[\]]+", text)[:40]
    best = None
    for i in range(len(words)):
        for j in range(i + 1, min(len(words), i + 7) + 1):
            if not any(re.search(r"\d", w) and not _UNIT_TOKEN.match(w) for w in words[i:j]):
                continue
            win = " ".join(words[i:j])
            for m in catalog.search(win, kind, limit=1):
                key = (m.score >= 100, m.score, len(win))
                if best is None or key > best[0]:
                    best = (key, m.part, m.score, win)
    if best is None:
        return None
    return best[1], best[2], best[3]


def _add_line(
    q: Quote,
    catalog,
    line: int,
    text: str,
    qty: int | None = None,
    price: float | None = None,
    kind_hint: str | None = None,
    match_text: str | None = None,
) -> QuoteLine:
    text = text[:500]
    mtext = match_text if match_text is not None else text
    claims = _find_claims(mtext, line)
    q.claims.extend(claims)
    if qty is None:
        qty = _qty(mtext)
    price = price if price is not None else _price(mtext)
    has_item_marks = qty is not None or price is not None
    qty = qty or 1
    ql = QuoteLine(line=line, text=text, status="unmatched", qty=qty, price=price)
    q.lines.append(ql)
    if claims and not has_item_marks and kind_hint is None and _PROSE_CLAIM.search(mtext):
        return ql  # a sentence about the parts, not a line item
    clean = _strip_noise(mtext)
    if kind_hint in (None, "nvlink") and _BRIDGE.search(mtext):
        ql.status, ql.kind, ql.part_name = "recognized", "nvlink", "NVLink bridge"
        return ql
    kinds = [kind_hint] if kind_hint in KINDS else KINDS
    ram_line = kind_hint is None and _RAM_WORDS.search(mtext) and not _PARTLIKE["gpu"].search(mtext)
    if kind_hint in (None, *KINDS) and not ram_line:
        found = []
        for k in kinds:
            r = best_match(catalog, clean, k)
            if r and r[1] >= MATCH_MIN:
                found.append((r[1], k, r[0]))
        if found:
            score, k, part = max(found, key=lambda x: x[0])
            ql.status, ql.kind, ql.part_id, ql.part_name, ql.confidence = (
                "matched",
                k,
                part.id,
                part.name,
                round(score, 1),
            )
            return ql
    if kind_hint in (None, "psu"):
        w = _WATT.search(clean)
        if w and (kind_hint == "psu" or _PSU_WORDS.search(mtext)):
            ql.status, ql.kind, ql.value = "recognized", "psu", int(w.group(1))
            ql.part_name = f"PSU {ql.value} W"
            return ql
    if kind_hint in (None, "ram") and (kind_hint == "ram" or _RAM_WORDS.search(mtext)):
        mods = _RAM_MODS.search(mtext)
        if mods:
            ql.value = int(mods.group(1)) * int(mods.group(2))
            if _qty(_RAM_MODS.sub(" ", mtext)) is None:
                ql.qty = 1
        else:
            gb = _GB.search(mtext)
            ql.value = int(gb.group(1)) if gb else None
        if ql.value:
            ql.status, ql.kind = "recognized", "ram"
            ql.part_name = f"RAM {ql.value * ql.qty} GB"
            return ql
    if kind_hint in (None, "nvme") and (kind_hint == "nvme" or _NVME_WORDS.search(mtext)):
        ql.status, ql.kind = "recognized", "nvme"
        s = _M2_SOCKET.search(mtext)
        ql.socket = s.group(1).upper().replace("M2_", "M.2_") if s else None
        ql.part_name = "NVMe SSD" + (f" in {ql.socket}" if ql.socket else "")
        return ql
    if kind_hint in KINDS or any(rx.search(mtext) for rx in _PARTLIKE.values()):
        if kind_hint in KINDS or (has_item_marks and re.search(r"\d", clean)):
            ql.status = "not_in_catalog"
            ql.kind = kind_hint or next(k for k, rx in _PARTLIKE.items() if rx.search(mtext))
    return ql


def _find_claims(text: str, line: int) -> list[Claim]:
    out = []
    for kind, rx in _CLAIMS:
        m = rx.search(text)
        if not m:
            continue
        if (
            kind == "nvlink"
            and _BRIDGE.search(text) is None
            and re.search(r"\bno\s+nvlink|without\s+nvlink", text, re.I)
        ):
            continue
        gen = None
        if kind == "pcie_x16":
            g = re.search(r"pcie\s*(?:gen\s*)?(\d)", text, re.I)
            gen = int(g.group(1)) if g else None
        out.append(Claim(text=text.strip()[:300], line=line, kind=kind, gen=gen))
    return out


# ---------------------------------------------------------------- CSV


def _csv_header(first: str) -> list[str] | None:
    if not first or not any(d in first for d in ",;\t"):
        return None
    delim = max(",;\t", key=first.count)
    cells = [c.strip().lower() for c in first.split(delim)]
    if any(re.search(r"desc|item|product|part|component|model|name", c) for c in cells) and any(
        re.search(r"qty|quantity|price|cost|amount|count|units", c) for c in cells
    ):
        return cells
    return None


def _read_csv(text: str, q: Quote, catalog) -> None:
    lines = text.splitlines()
    first_i = next((i for i, ln in enumerate(lines) if ln.strip()), 0)
    if _csv_header(lines[first_i]) is None:
        raise UserError(
            problems=[
                Problem(
                    "a CSV quote needs a header row with a description and a qty or price column",
                    file=q.filename,
                    line=first_i + 1,
                )
            ]
        )
    first = lines[first_i]
    delim = max(",;\t", key=first.count)
    try:
        reader = csv.reader(io.StringIO("\n".join(lines[first_i:])), delimiter=delim)
        header = [c.strip().lower() for c in next(reader)]

        def col(rx: str, avoid: str | None = None) -> int | None:
            for i, c in enumerate(header):
                if re.search(rx, c) and not (avoid and re.search(avoid, c)):
                    return i
            return None

        desc = next(
            (
                i
                for rx in ("desc", "product", "part", "component", "model", "name", "item")
                if (i := col(rx)) is not None
            ),
            None,
        )
        qcol = col(r"qty|quantity|count|units")
        pcol = col(r"unit|price|cost", r"total") or col(r"price|cost|amount|total")
        for row in reader:
            lineno = first_i + reader.line_num
            if not any(c.strip() for c in row):
                continue
            cell = lambda i, row=row: row[i].strip() if i is not None and i < len(row) else ""  # noqa: E731
            d = cell(desc) or " ".join(c.strip() for c in row if c.strip())
            others = " ".join(c.strip() for i, c in enumerate(row) if i not in (qcol, pcol) and c.strip())
            qty = None
            if cell(qcol):
                m = re.search(r"\d+", cell(qcol))
                qty = int(m.group()) if m and 1 <= int(m.group()) <= 64 else None
            price = _price("$" + cell(pcol).lstrip("$€£")) if cell(pcol) else None
            _add_line(q, catalog, lineno, d, qty=qty, price=price, match_text=others or d)
    except csv.Error as exc:
        raise UserError(problems=[Problem(f"this is not valid CSV: {exc}", file=q.filename)]) from None


# ---------------------------------------------------------------- YAML


def _read_yaml(text: str, q: Quote, catalog) -> None:
    from advisor.base.yamlio import loads

    data = loads(text, q.filename)
    if isinstance(data, list):
        _yaml_items(data, q, catalog, 1)
        return
    if not isinstance(data, dict):
        raise UserError(
            problems=[
                Problem(
                    "a YAML quote must be a mapping (cpu, board, gpus, psu_w, ram_gb, claims) "
                    "or a list of line items",
                    file=q.filename,
                    line=1,
                )
            ]
        )
    kl = getattr(data, "key_lines", {}) or {}
    for key in data:
        if not isinstance(key, str) or key not in _YAML_KEYS:
            raise UserError(
                problems=[
                    Problem(
                        f"unknown key {key!r}",
                        file=q.filename,
                        line=kl.get(key),
                        hint="a quote has cpu, board, gpus, psu_w, ram_gb, nvme, nvlink, claims, items",
                    )
                ]
            )
    for key in ("cpu", "board"):
        if key in data:
            v = data[key]
            if not isinstance(v, (str, int, float)):
                raise UserError(
                    problems=[Problem(f"{key} must be a part name", file=q.filename, line=kl.get(key))]
                )
            _add_line(q, catalog, kl.get(key) or 1, str(v), kind_hint=key)
    gpus = data.get("gpus", data.get("gpu"))
    line = kl.get("gpus") or kl.get("gpu") or 1
    if gpus is not None:
        if isinstance(gpus, (str, dict)):
            gpus = [gpus]
        if not isinstance(gpus, list):
            raise UserError(problems=[Problem("gpus must be a list", file=q.filename, line=line)])
        for i, g in enumerate(gpus):
            gl = getattr(gpus, "item_lines", None)
            gline = (gl[i] if gl and i < len(gl) else None) or getattr(g, "line", None) or line
            if isinstance(g, dict):
                model = g.get("model")
                count = g.get("count", 1)
                if (
                    not isinstance(model, str)
                    or not isinstance(count, int)
                    or isinstance(count, bool)
                    or not 1 <= count <= 64
                ):
                    raise UserError(
                        problems=[
                            Problem(
                                "a GPU entry needs `model` (a name) and `count` (1-64)",
                                file=q.filename,
                                line=gline,
                            )
                        ]
                    )
                _add_line(
                    q, catalog, gline, model, qty=count, price=_num(g.get("price"), q, gline), kind_hint="gpu"
                )
            elif isinstance(g, (str, int)):
                _add_line(q, catalog, gline, str(g), kind_hint="gpu")
            else:
                raise UserError(
                    problems=[
                        Problem("a GPU entry must be a name or {model, count}", file=q.filename, line=gline)
                    ]
                )
    for key, kind in (("psu_w", "psu"), ("psu", "psu"), ("ram_gb", "ram"), ("ram", "ram")):
        if key in data:
            v = data[key]
            kline = kl.get(key) or 1
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise UserError(
                    problems=[
                        Problem(f"{key} must be a number or a line of text", file=q.filename, line=kline)
                    ]
                )
            if isinstance(v, int):
                if not 1 <= v <= 100000:
                    raise UserError(
                        problems=[Problem(f"{key} must be a positive number", file=q.filename, line=kline)]
                    )
                unit = "W" if kind == "psu" else "GB"
                ql = QuoteLine(
                    line=kline,
                    text=f"{key}: {v}",
                    status="recognized",
                    kind=kind,
                    value=v,
                    part_name=f"{'PSU' if kind == 'psu' else 'RAM'} {v} {unit}",
                )
                q.lines.append(ql)
            else:
                ql = _add_line(q, catalog, kline, v, kind_hint=kind)
    if "nvme" in data:
        v = data["nvme"]
        nline = kl.get("nvme") or 1
        items = v if isinstance(v, list) else [v]
        for it in items:
            if isinstance(it, dict):
                s = it.get("socket")
                ql = QuoteLine(
                    line=nline,
                    text=str(dict(it))[:200],
                    status="recognized",
                    kind="nvme",
                    socket=str(s) if s else None,
                    part_name="NVMe SSD" + (f" in {s}" if s else ""),
                )
                q.lines.append(ql)
            elif isinstance(it, (str, int)):
                _add_line(q, catalog, nline, str(it), kind_hint="nvme")
            else:
                raise UserError(
                    problems=[Problem("nvme entries must be names or {socket}", file=q.filename, line=nline)]
                )
    if "nvlink" in data:
        v = data["nvlink"]
        if v:
            q.lines.append(
                QuoteLine(
                    line=kl.get("nvlink") or 1,
                    text=f"nvlink: {v}"[:200],
                    status="recognized",
                    kind="nvlink",
                    part_name="NVLink bridge",
                )
            )
            q.claims.append(Claim(text=f"nvlink: {v}"[:200], line=kl.get("nvlink") or 1, kind="nvlink"))
    if "claims" in data:
        c = data["claims"]
        cline = kl.get("claims") or 1
        if isinstance(c, str):
            c = [c]
        if not isinstance(c, list) or not all(isinstance(x, (str, int, float)) for x in c):
            raise UserError(
                problems=[Problem("claims must be a list of sentences", file=q.filename, line=cline)]
            )
        il = getattr(c, "item_lines", None)
        for i, x in enumerate(c):
            xline = (il[i] if il and i < len(il) else None) or cline + 1 + i
            found = _find_claims(str(x), xline)
            q.claims.extend(found)
            if not found:
                q.notes.append(f"line {xline}: claim not understood: {str(x)[:120]}")
    if "items" in data:
        items = data["items"]
        if not isinstance(items, list):
            raise UserError(problems=[Problem("items must be a list", file=q.filename, line=kl.get("items"))])
        _yaml_items(items, q, catalog, kl.get("items") or 1)


def _num(v, q: Quote, line: int) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool):
        raise UserError(problems=[Problem("a price must be a number", file=q.filename, line=line)])
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        return _price(v if re.search(r"[$€£]|usd|eur", v, re.I) else "$" + v.strip())
    raise UserError(problems=[Problem("a price must be a number", file=q.filename, line=line)])


def _yaml_items(items: list, q: Quote, catalog, base_line: int) -> None:
    il = getattr(items, "item_lines", None)
    for i, it in enumerate(items):
        line = (il[i] if il and i < len(il) else None) or getattr(it, "line", None) or base_line + i
        if isinstance(it, (str, int, float)) and not isinstance(it, bool):
            _add_line(q, catalog, line, str(it))
        elif isinstance(it, dict):
            desc = next(
                (it[k] for k in ("description", "item", "name", "model", "part", "product") if k in it), None
            )
            if not isinstance(desc, (str, int)):
                raise UserError(
                    problems=[
                        Problem(
                            "a line item needs a `description` (or item/name/model)",
                            file=q.filename,
                            line=line,
                        )
                    ]
                )
            qty = it.get("qty", it.get("quantity", it.get("count")))
            if qty is not None and (isinstance(qty, bool) or not isinstance(qty, int) or not 1 <= qty <= 64):
                raise UserError(
                    problems=[Problem("qty must be a whole number from 1 to 64", file=q.filename, line=line)]
                )
            _add_line(q, catalog, line, str(desc), qty=qty, price=_num(it.get("price"), q, line))
        else:
            raise UserError(
                problems=[Problem("a line item must be text or a mapping", file=q.filename, line=line)]
            )


# ---------------------------------------------------------------- the build


def _assemble(q: Quote, catalog) -> None:
    from advisor.model.build import Build

    data: dict[str, Any] = {"name": q.filename}
    gpus: dict[str, int] = {}
    ram = 0
    sockets: list[str] = []
    bridge = False
    for x in q.matched:
        if x.kind in ("cpu", "board"):
            if x.kind in data and data[x.kind] != x.part_id:
                q.notes.append(f"line {x.line}: a second {x.kind} ({x.part_id}); using {data[x.kind]}")
            data.setdefault(x.kind, x.part_id)
        elif x.kind == "gpu":
            gpus[x.part_id] = gpus.get(x.part_id, 0) + x.qty
        elif x.kind == "psu" and x.value:
            data.setdefault("psu_w", x.value)
        elif x.kind == "ram" and x.value:
            ram += x.value * x.qty
        elif x.kind == "nvme":
            if x.socket:
                sockets.append(x.socket)
        elif x.kind == "nvlink":
            bridge = True
    if gpus:
        data["gpus"] = [{"model": m, "count": min(n, 16)} for m, n in gpus.items()]
    if ram:
        data["ram_gb"] = ram
    total = sum(gpus.values())
    if bridge:
        if total == 2:
            data["nvlink"] = [[0, 1]]
        else:
            q.notes.append(f"an NVLink bridge is listed but the quote has {total} GPU(s); bridge not placed")
    board = catalog.get(data["board"]) if "board" in data else None
    if sockets and board is not None:
        names = {m.name.upper(): m.name for m in board.m2}
        placed = []
        for s in sockets:
            if s.upper() in names:
                placed.append({"socket": names[s.upper()]})
            else:
                q.notes.append(f"M.2 socket {s} is not on {board.name}; that SSD is not placed")
        if placed:
            data["nvme"] = placed
    for k in ("cpu", "board"):
        if k not in data:
            q.missing.append(k)
    if not gpus:
        q.notes.append("the quote lists no GPU from the catalog")
    q.build_data = data
    if q.missing:
        return
    try:
        q.build = Build.model_validate(data)
    except Exception as exc:  # pydantic ValidationError
        raise UserError(
            problems=[
                Problem(
                    f"the quote does not make a valid build: {str(exc).splitlines()[-2:]}", file=q.filename
                )
            ]
        ) from None
