"""Read a vendor's quote into a Build: format -> line items -> parts -> build; claims are read beside.

`read_quote` is the entry point; each stage has its own module (formats, items, match, assemble,
claims). Every input line that holds anything is one QuoteLine, reported exactly once.
"""

from __future__ import annotations

import re
from dataclasses import replace

from advisor.base.errors import Problem, UserError
from advisor.base.inputs import check_lines, one_newline
from advisor.i18n import N_, _
from advisor.quote.assemble import assemble
from advisor.quote.claims import claims_in
from advisor.quote.document import Claim, Quote, QuoteLine
from advisor.quote.formats import read_document
from advisor.quote.items import (
    BOARD_ONCE,
    EACH_PART,
    NONE_WRITTEN,
    ON_LINE,
    READING,
    UNCLEAR,
    VERSUS,
    item_of,
)
from advisor.quote.match import KINDS, Found, Matcher, kind_of_words, other_kinds
from advisor.quote.vocab import vocab

# A quote lists a build's parts: the longest of the real corpus has 147 lines. Each line is read through
# every stage (about half a millisecond), so a cap far above any quote keeps the whole read to seconds.
MAX_LINES = 5000
# the parts one line may list ("CPU: ... 显卡: ... 内存: ..."): a line split into more pieces than this names
# no parts of a build, and reading each piece as one would make a long line's work grow with its pieces
MAX_SEGMENTS = 32


def read_quote(text: str, filename: str, catalog) -> Quote:
    if not isinstance(text, str):
        raise UserError(problems=[Problem("a quote must be text", file=filename)])
    if "\x00" in text or sum(1 for ch in text[:4000] if ord(ch) < 32 and ch not in "\t\r\n\f") > 8:
        raise UserError(
            problems=[
                Problem(
                    "this looks like a binary file, not a quote",
                    file=filename,
                    hint="give the quote as text, CSV, YAML or JSON",
                )
            ]
        )
    if not text.strip():
        raise UserError(problems=[Problem("the quote is empty", file=filename)])
    # every line break one kind ("\r" alone, U+2028 and U+0085 too), so that the cap counts every line;
    # and no line longer than any real quote's, so that each stage's work on a line stays small
    text = one_newline(text)
    check_lines(text, filename, N_("a quote"))
    if text.count("\n") > MAX_LINES:
        raise UserError(
            problems=[
                Problem(
                    f"the quote has more than {MAX_LINES:,} lines",
                    file=filename,
                    hint="give the quote itself, not a whole mailbox or catalogue",
                )
            ]
        )
    try:
        doc = read_document(text, filename)
    except RecursionError:
        raise UserError(problems=[Problem("the quote is nested too deeply", file=filename)]) from None
    q = Quote(filename=filename, format=doc.format, details=doc.details)
    matcher = Matcher.of(catalog)
    from advisor.quote.segment import select, shape_of

    structured = doc.format in ("yaml", "json", "csv")
    shapes = {
        raw.line: shape_of(raw.text, raw.text.count("|") >= 2 or raw.desc is not None, structured)
        for raw in doc.lines
    }
    context: dict[int, str | None] = {}  # the part kind of the heading above a line ("## GPUs (x7)", "GPUS")
    heading_kind = None
    for raw in doc.lines:
        sh = shapes[raw.line]
        if sh.kind == "rule":
            heading_kind = None
        elif sh.kind == "heading":
            heading_kind = sh.heading_kind
        elif sh.kind == "short" and not re.match(r"\s*[-*•·+]|\s*\d", raw.text) and not _URL.search(raw.text):
            heading_kind = None  # "ssdhybrid" over the next items: another section
        context[raw.line] = heading_kind

    notes_from = None  # the line of a notes heading ("卖家说明：") whose lines are remarks, not items
    last_line = 0
    for raw in doc.lines:
        it = item_of(raw)
        if _separator(raw.text) or (
            raw.line > last_line + 1 and notes_from is not None and notes_from < last_line
        ):
            notes_from = None  # a rule, or a blank line after the notes (not right under their heading)
        last_line = raw.line
        if it.role == "note":
            notes_from = it.line
        elif (
            notes_from is not None
            and it.role in ("item", "title")
            and it.kind_hint is None
            and it.price is None
            and raw.qty is None
            and not _labelled(raw.desc if raw.desc is not None else it.text)
        ):
            it.role = "note"
        ql = QuoteLine(
            raw.line,
            raw.text[:500],
            it.role,
            qty=it.qty,
            qty_source=it.qty_source,
            qty_unclear=it.qty_unclear,
            qty_readings=it.qty_readings,
            price=it.price,
            currency=it.currency,
        )
        q.lines.append(ql)
        sh = shapes[raw.line]
        ql.shape = sh.kind
        if (
            it.role == "title"
            and it.kind_hint is None
            and (sh.label_kind in PART_LABELS or sh.kind == "inline" or _labels_in(it.text) >= 2)
        ):
            it.role = "item"  # "2025方案 CPU:2× EPYC 9554 显卡:8× RTX 4090": a one-line config, not a title
        if it.role == "continued":
            ql.status = "continued"
            continue
        if it.role in ("header", "total"):
            continue
        if it.role == "note":
            found_claims = claims_in(raw.desc if raw.desc is not None else it.text, it.line)
            q.claims += found_claims
            ql.status = "claim" if found_claims else "other"
            continue
        if it.role == "claim":
            found_claims = claims_in(it.text, it.line)
            q.claims += found_claims
            if not found_claims:
                q.notes.append(
                    _("line {line}: claim not understood: {text}").format(line=it.line, text=it.text[:120])
                )
            continue
        claim_text = raw.desc if raw.desc is not None else it.text
        if raw.width:
            claim_text = f"{claim_text} {raw.width}"  # "| RTX 4090 #1 | x16 | PCIe 5.0 |": the link it claims
        if it.kind_hint is None and sh.label_kind == "none" and it.role != "title":
            # "Case: ...", "PCIe: x8 lanes negotiated", "GPU内存: 24g*2": a line of no part
            found_claims = (
                claims_in(claim_text, it.line, sized=False) if vocab().prose.search(claim_text) else []
            )
            q.claims += found_claims
            ql.status = "claim" if found_claims else "other"
            continue
        if (
            it.kind_hint is None
            and vocab().spec_line.search(claim_text)
            and not matcher.parts(it.desc, "board")  # "准系统：超微 AS-4125GS-TNRT2": the server is the board
        ):
            ql.status = "other"  # "Platform: Intel W790 / Xeon W-2400": a spec, not a part
            continue
        # a memory size alone ("48G显存") is a claim only in a clause that names no part: not read here
        line_claims = claims_in(claim_text, it.line, sized=False) if it.kind_hint is None else []
        if (
            line_claims
            and it.price is None
            and raw.qty is None
            and sh.label_kind not in PART_LABELS  # "显卡:双路RTX 4090(需支持NVLink)": a part, with a note
            and sh.kind != "inline"  # "4× RTX 3090 · NVLink bridges · WRX80 board · 1600W PSU": a list
            and (
                vocab().prose.search(claim_text)
                or _chat_sentence(it, claim_text)
                or any(c.about == "pooled_memory" for c in line_claims)  # "memory pools to 48 GB": not RAM
            )
        ):
            # a sentence about the parts ("both cards run at x16", "双卡P2P直连"), not a line item;
            # a bridge it gives away ("赠送 NVLink 桥接器") is in the build all the same
            bridge = other_kinds(claim_text) if vocab().gift.search(claim_text) else None
            if bridge is not None and bridge.kind == "bridge":
                ql.parts = [bridge]
            ql.status = "recognized" if ql.parts else "claim"
            q.claims += line_claims if ql.parts else claims_in(claim_text, it.line)
            continue
        if (
            it.kind_hint is None
            and sh.label_kind not in PART_LABELS
            and sh.kind != "inline"
            and _prose_sentence(it, raw)
        ):
            ql.status = "other"  # "we swapped the RTX 6000 Ada cards for RTX A5000s": prose, not an item
            continue
        from advisor.quote.items import strip_prices

        counted = scrub(strip_prices(raw.desc if raw.desc is not None else it.text))[:500]
        parts = _parts_of(
            matcher,
            counted if it.kind_hint is None else it.desc,
            it.kind_hint,
            it.value,
            sh.label_kind,
            context.get(raw.line),
            it,
        )
        ql.parts = parts
        if ql.qty_unclear and len([p for p in parts if p.count is not None]) >= 2:
            # "4× RTX 3090 · ... · dual 1000W PSUs": each part has its own count, the line has none
            ql.qty, ql.qty_unclear, ql.qty_readings = 1, False, ()
            ql.qty_source = EACH_PART
        if ql.qty_unclear and raw.qty is None and parts and all(p.kind == "board" for p in parts):
            # "AS-4125GS-TNRT2（双路SP5 4U，10个GPU位）": the counts describe the board, which comes once
            ql.qty, ql.qty_unclear, ql.qty_readings = 1, False, ()
            ql.qty_source = BOARD_ONCE
        q.notes += [
            _("line {line}: {how}").format(line=it.line, how=p.how.split("; ")[0])
            for p in parts
            if p.lookalike
        ]
        if parts:
            if it.role != "title":
                ql.status = (
                    "part"
                    if any(p.part_id for p in parts)
                    else ("not_in_catalog" if all(not p.in_catalog for p in parts) else "recognized")
                )
        elif it.role in ("item", "title"):
            ql.status = "other"
        if it.role != "title" or vocab().prose.search(it.text):
            # a listing's title ("双3090 NVLink 深度学习主机") names the parts, it makes no claim to judge
            found_claims = (
                line_claims if parts or it.kind_hint is not None else claims_in(claim_text, it.line)
            )
            if parts:
                # a line of parts with a claim beside them ("i9-14900K + Z790 Hero + 双4090, 总价 38999 元,
                # 支持双卡P2P满速"): a board's line, or one labelled with its kind ("主板："), gives only the
                # claims of its clauses that name no part (a board's spec, "7x PCIe 5.0 x16", describes the
                # board, not this build), and a memory size ("48G显存") counts only in such a clause (beside
                # a card it is the card's own); a board's sockets ("single socket SP3") are its spec too
                board = ql.status in ("part", "not_in_catalog") and any(p.kind == "board" for p in parts)
                clauses_only = board or it.kind_hint is not None
                kept = [] if clauses_only else line_claims
                found_claims = kept + [
                    c
                    for c in _clause_claims(matcher, claim_text, it.line)
                    if (clauses_only or c.size_only)
                    and not any(k.about == c.about for k in kept)
                    and not (board and c.about in ("numa", "numa_split"))
                ]
            if found_claims and ql.status == "other" and not vocab().prose.search(it.text):
                found_claims = [c for c in found_claims if c.about != "pcie"]
            if (
                parts
                and not any(p.kind == "gpu" for p in parts)
                and not vocab().kind_words["gpu"].search(claim_text.lower())
            ):
                # "| PCIE5 | Samsung 990 PRO | x4 | PCIe 4.0 |": the link of an SSD or a NIC, not a GPU's;
                # a board's "双x8" / "x8/x8" is the split it gives two cards, a claim about this build's GPUs
                found_claims = [
                    c
                    for c in found_claims
                    if c.about != "pcie" or (c.width == 8 and any(p.kind == "board" for p in parts))
                ]
            if sh.kind == "heading" and len(it.text.split()) < 4:
                found_claims = []  # "### NVLink": a section's heading claims nothing
            if any(p.kind == "bridge" for p in parts):
                # a bridge sold as a line item is a part: whether it can join the cards is the NVLink
                # findings' to say (NVL002), not a vendor claim
                found_claims = [c for c in found_claims if c.about != "nvlink"]
            q.claims += found_claims
            if found_claims and ql.status == "other":
                ql.status = "claim"
    for x in q.lines:
        if (
            x.shape in ("prose", "heading")
            and x.status not in ("header", "continued", "total")
            and not (
                x.shape == "heading" and x.status in ("part", "recognized", "not_in_catalog") and x.parts
            )
        ):
            x.mentions = _mentions(matcher, x.text, x.line)
    if not any(x.parts or x.mentions for x in q.lines) and not q.claims:
        raise UserError(
            problems=[
                Problem(
                    "no CPU, board, GPU, PSU or RAM line found in the quote",
                    file=filename,
                    hint="give one line item per line, e.g. '2x NVIDIA RTX 4090 $1,599.00'",
                )
            ]
        )
    select(q, shapes)
    _repeats(q, matcher)
    assemble(q, catalog)
    _sized_claims(q, catalog)
    return q


def _sized_claims(q: Quote, catalog) -> None:
    """A memory size read as a pooled-memory claim ("双卡48G显存") is one only where it is more than one of
    the quote's cards holds: "48G显存" of a 48 GB card is its spec. Without a card to tell, it is left out."""
    vram = [
        p.vram_gb
        for g in q.build_data.get("gpus", [])
        if (p := catalog.get(g["model"])) is not None and getattr(p, "vram_gb", None)
    ]
    spec = [c for c in q.claims if c.size_only and (not vram or (c.memory_gb or 0) <= max(vram))]
    if not spec:
        return
    q.claims = [c for c in q.claims if c not in spec]
    left = {c.line for c in q.claims}
    for x in q.lines:
        if x.status == "claim" and x.line not in left and any(c.line == x.line for c in spec):
            x.status = "other"


def _repeats(q: Quote, matcher: Matcher) -> None:
    """Lines that name a kind without a model, after the items named it with one: a price breakdown
    ("显卡 ¥21,500 ×6 = ¥129,000", "硬盘+网卡 ¥18,400") repeats the items, it adds no part. A count it
    writes that differs from the item's makes the item's count unclear, never silently one of them."""
    items = {id(x) for x in q.lines if x.status in ("part", "recognized") and x.parts}
    seen: set[str] = set()  # the kinds the items above this line name (one pass: linear in the quote)
    gpu_items: list = []  # the items above this line naming a catalog GPU
    for x in q.lines:
        _repeat_of(q, matcher, x, seen, gpu_items)
        if id(x) in items:
            seen.update(p.kind for p in x.parts)
            if any(p.kind == "gpu" and p.part_id for p in x.parts):
                gpu_items.append(x)


def _repeat_of(q: Quote, matcher: Matcher, x, seen: set[str], gpu_items: list) -> None:
    """One line of `_repeats`, given the kinds and GPU items named above it."""
    if x.status not in ("other", "recognized") or x.price is None:
        return
    if x.status == "recognized" and not all(
        p.kind in ("nvme", "nic") and p.how in ("SSD words", "network card words") for p in x.parts
    ):
        return
    kinds = {p.kind for p in x.parts} if x.parts else {kind_of_words(x.text)} - {None}
    if not kinds or not (seen & kinds):
        return
    text = strip_for_kind(x.text)
    if (
        matcher.model_number_of(text)
        or _words(re.sub(r"[=+]", " ", text)) > 3
        or re.search(r"(?<!\d)\d+(?:\.\d+)?\s*(?:tb|gb|t|g)\b", text, re.I)
    ):
        return  # a model, a size ("NVMe SSD 4TB") or more words than a kind's name: an item of its own
    if x.status == "recognized":
        x.status, x.parts = "other", []
        q.notes.append(
            _("line {line}: a price line of parts listed above, not more of them").format(line=x.line)
        )
    times = re.search(r"[×x*]\s*(\d{1,3})\s*=", x.text)  # "¥21,500 ×6 = ¥129,000": unit price x count
    count = x.qty if x.qty_source != NONE_WRITTEN else (int(times.group(1)) if times else None)
    if "gpu" in kinds and count:
        if len(gpu_items) == 1 and gpu_items[0].qty != count and not gpu_items[0].qty_unclear:
            y = gpu_items[0]
            y.qty_unclear = True
            y.qty_readings = (y.qty, count)
            y.qty_source = UNCLEAR.format(
                readings=VERSUS.format(
                    a=READING.format(qty=y.qty, source=y.qty_source),
                    b=READING.format(qty=count, source=ON_LINE.format(line=x.line)),
                )
            )


def strip_for_kind(text: str) -> str:
    """A price line without its prices and counts, to look for a model number in."""
    from advisor.quote.items import strip_prices, strip_quantities

    return strip_quantities(strip_prices(text))


# Clause breaks of a line: Chinese punctuation anywhere, ASCII only before a space (not "38,999", "4.0").
_CLAUSE = re.compile(r"(?<!\s)\s*(?:[，；。！、]|[,;!.](?=\s|$))\s*")


# Clause breaks of a sentence of prose: Chinese punctuation, and ASCII commas and semicolons written between
# Chinese words ("功率建议,不过 ..."), not inside a number ("38,999")
_PROSE_CLAUSE = re.compile(r"(?<!\s)\s*(?:[，；。！、]|[,;!](?!\d)|[.](?=\s|$))\s*")


def _clause_claims(matcher: Matcher, text: str, line: int) -> list[Claim]:
    """The claims in the clauses of a line that name no part. A clause that lists a board's slots is its
    spec; a PCIe link without a word that asserts it ("PCIe 5.0 x16") is a part's spec too."""

    v = vocab()
    out: list[Claim] = []
    # a note in brackets is a clause of its own ("主板: ProArt X670E-CREATOR (支持双x8直连)")
    for clause in (c for part in _CLAUSE.split(text) for c in re.split(r"[()（）]", part)):
        if not clause.strip() or v.board_slots.search(clause):
            continue
        found = claims_in(clause, line)
        if not found:
            continue
        pooled = any(c.about == "pooled_memory" and not c.size_only for c in found)
        if any(not (pooled and p.kind == "ram") for p in _parts_of(matcher, clause, None, None)):
            continue  # a part's clause; "memory pools to 48 GB" names GPU memory, not RAM
        out += [c for c in found if c.about != "pcie" or v.prose.search(clause)]
    return out


def _separator(text: str) -> bool:
    """A rule between sections ("-----", "=====", "***")."""
    return bool(re.fullmatch(r"\s*[-=_*~#]{3,}\s*", text))


def _labelled(text: str) -> bool:
    """A line that starts with a label ("GPU:", "显卡：", "Memory -")."""
    # leading blanks cut first: the pattern never tries each way to split them
    return bool(re.match(r"[-*•·]?\s*[\w\u4e00-\u9fff /.&+-]{1,24}\s*[:：]", text.lstrip()))


def _words(text: str) -> int:
    """Words in a line, a Chinese character counting half (a Chinese word is one to three characters)."""
    return len(re.findall(r"[^\W\u4e00-\u9fff]+", text)) + len(re.findall(r"[\u4e00-\u9fff]", text)) // 2


def _chat_sentence(it, text: str) -> bool:
    """A chat message's sentence that claims something ("P2P的话5090驱动默认是关的，卡之间走内存中转"):
    not a title or a labelled item, written as a sentence (a comma or full stop of Chinese text, or twelve
    words)."""
    return (
        it.role != "title"
        and not _labelled(text)
        and (bool(re.search(r"[，。！；]", text)) or _words(text) >= 12)
    )


def _prose_sentence(it, raw) -> bool:
    """A sentence of an email or chat that names parts, not a line item: prose words, no price, no count,
    no label ("GPU:", "显卡："), and sentence-long."""
    text = raw.desc if raw.desc is not None else it.text
    if it.price is not None or raw.qty is not None or it.qty_source != "none written: 1":
        return False
    if _labelled(text):
        return False
    return bool(vocab().prose.search(text)) and _words(text) >= 8


# every alternative begins where a run of blanks begins ((?<!\s)): a pattern that could begin inside the
# run tried the rest of it from every one of its positions (quadratic in a long run)
_SPLIT = re.compile(r"(?<!\s)(?:\s*(?<!\d)[+＋](?!\d)\s*|\s*、\s*|\s+/\s+|\s+[—–]\s+)")
PART_LABELS = ("cpu", "board", "gpu", "psu", "ram", "nvme", "nic")
# A one-line config names each part after its label: "CPU:2× EPYC 9554 显卡:8× RTX 4090 内存:1TB".
_LABEL_AT = re.compile(
    r"(?<![\w])(?=(?:cpu|gpu|显卡|顯卡|主板|内存|內存|电源|電源|硬盘|motherboard|mainboard|psu|ram|memory)\s*[:：])",
    re.I,
)
_MDLINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+", re.I)
# a host name or a login ("root@1207-gpu-4090-1", "gpu-node-a6000", "node-4090") names no card
_HOST = re.compile(
    r"[\w.-]+@[\w.-]+|(?<![\w-])(?:node|gpu|host|server|srv|worker|compute|vm|box|rig)(?:-[a-z0-9]+)+(?![\w-])"
    # a file's path ("~/club-3090/models-cache", "/data/a6000-runs/"), not "3090/4090" or "x8/x8"
    r"|(?<![\w/])(?:~|\.{1,2})?/[\w.<>-]+(?:/[\w.<>-]*)+"
)
# phrases of a sentence that names several parts ("a TRX40-E motherboard paired with a 3960X and a pair of A4500s")
_PHRASE = re.compile(
    r"(?<!\s)\s*(?:[,，;；、(（)）]|\s(?:and|with|plus|paired\s+with|along\s+with|over|instead\s+of|rather\s+than|than|vs\.?|versus)\s|以及|及|和|搭配|配合|配上|加上|(?<!\d)[+＋](?!\d))\s*",
    re.I,
)


def _labels_in(text: str) -> int:
    return sum(1 for _ in _LABEL_AT.finditer(text))


def scrub(text: str) -> str:
    """A line without what names no part in it: a link's address (its text, and a "Model=" it carries,
    are kept), host names and logins."""
    from urllib.parse import unquote

    def url(m: re.Match) -> str:
        model = re.search(r"[?&]model=([^&#\s]+)", m.group(0), re.I)
        return f" {unquote(model.group(1))} " if model else " "

    t = _MDLINK.sub(r"\1", text)
    t = _URL.sub(url, t)
    return _HOST.sub(" ", t)


def _model_words(name: str) -> str:
    """The model a sentence names, without the words before it ("Dennis's build centers on an ASUS ROG Strix
    TRX40-E Gaming motherboard" -> "ASUS ROG Strix TRX40-E Gaming motherboard")."""
    short = re.sub(r"^.*?\b(?:an?|the|with|and|of|on|uses?|using|paired with)\s+(?=[A-Z0-9])", "", name)
    return short if len(short) >= 4 else name


def _mentions(matcher: Matcher, text: str, line: int) -> list:
    """The sentences of a prose line that name parts, each part with the count written beside it."""
    from advisor.quote.items import quantities, strip_prices
    from advisor.quote.segment import Mention, sentences

    out = []
    for sentence in sentences(scrub(text)):
        if vocab().question.search(sentence.lower().strip()):
            continue
        parts: list[Found] = []
        named_in: list[str] = []
        for clause, phrase in ((c, p) for c in _PROSE_CLAUSE.split(sentence) for p in _PHRASE.split(c)):
            if not phrase.strip():
                continue
            for p in _parts_of(matcher, phrase, None, None):
                if clause not in named_in:
                    named_in.append(clause)
                if p.kind == "bridge" and claims_in(phrase, line):
                    continue
                if not p.in_catalog:
                    p = replace(p, name=_model_words(p.name))
                qs = quantities(strip_prices(phrase))
                if qs and p.count is None:
                    p = replace(p, count=qs[0][0], count_source=qs[0][1])
                if not any(_same(p, o) for o in parts):
                    parts.append(p)
        if any(p.kind in KINDS or p.kind == "psu" for p in parts):
            out.append(Mention(line, sentence, parts, named_in=" ".join(named_in)))
    return out


def _same(a: Found, b: Found) -> bool:
    return a.kind == b.kind and (a.part_id or a.name) == (b.part_id or b.name)


def _parts_of(
    matcher: Matcher,
    desc: str,
    kind_hint: str | None,
    value,
    label_kind: str | None = None,
    context_kind: str | None = None,
    item=None,
) -> list[Found]:
    """The parts one line names: a line may list several ("i9-14900K + 双4090 + Z790", "CPU:2× EPYC 9554
    显卡:8× RTX 4090"). A label's kind ("显卡：", "| **GPU** |") decides what a segment can be; the heading
    above the line (a bare "GPUS") decides it for a model-less item with a count ("- x4: <link>")."""
    from advisor.quote.items import quantities, strip_prices, strip_quantities
    from advisor.quote.segment import _LABEL
    from advisor.quote.segment import label_kind as kind_of_label

    label_kind_of = kind_of_label
    segments = [desc]
    paired = _paired(desc) if kind_hint is None else None
    if paired:
        # "主板 + CPU: ASUS Z790-P + i7-13700KF": each label names the value in its place
        out: list[Found] = []
        for kind, seg in paired:
            out += _parts_of(matcher, seg, None, None, kind, None, None)
        return out
    if kind_hint is None:
        pieces = [p for chunk in _LABEL_AT.split(desc) for p in vocab().inline_separators.split(chunk)]
        segments = [s for piece in pieces for s in _SPLIT.split(piece) if s.strip()] or [desc]
        if len(segments) == 1 and desc.count("/") >= 2 and not re.search(r"x\d+\s*/\s*x\d+", desc, re.I):
            segments = [s for s in desc.split("/") if s.strip()]
        if len(segments) > MAX_SEGMENTS:
            segments = [desc]  # not a list of parts: a line of a table or a log, read as one piece
    several = len(segments) > 1
    out: list[Found] = []
    for written in segments:
        count = None
        if several and kind_hint is None:
            # the count beside the part, before any clause after it ("1600W 电源, 总价 38999 元, both at x16")
            qs = quantities(strip_prices(_CLAUSE.split(written)[0]))
            count = qs[0] if qs else None
        seg = strip_quantities(written) if kind_hint is None else written
        seg_kind = label_kind if label_kind in PART_LABELS else None
        if kind_hint is None:
            m = _LABEL.match(seg)
            own = kind_of_label(m.group("label")) if m else None
            if own == "none":
                continue
            if own in PART_LABELS:
                seg_kind = own
            elif several and m is None and label_kind in PART_LABELS and seg is not segments[0]:
                seg_kind = None  # "显卡: 双RTX 3090 + NVLink桥": the label names the first segment
        hint = kind_hint if kind_hint is not None else (seg_kind if seg_kind not in KINDS else None)
        if hint is not None and kind_hint is None and _blank_value(seg):
            continue  # "Storage (Data): none"
        kind = kind_hint if kind_hint in KINDS else (seg_kind if seg_kind in KINDS else None)
        other = other_kinds(seg, hint, value) if kind_hint not in KINDS and kind is None or hint else None
        if kind in KINDS and kind_hint is None:
            bridge = other_kinds(seg, None, None)
            other = bridge if bridge is not None and bridge.kind == "bridge" else None
        found = [] if hint in ("psu", "ram", "nvme", "nic", "bridge") else matcher.parts(seg, kind)
        if other is not None and other.kind == "bridge":
            gpu = [p for p in found if p.kind == "gpu"]
            if gpu and not vocab().kind_words["bridge"].search(seg.lower().split("(")[0].split("（")[0]):
                out.append(
                    replace(gpu[0], count=count[0] if count else None, count_source=count[1] if count else "")
                )
            out.append(other)
            continue
        if found and (
            other is None
            or other.kind not in ("psu", "ram")
            or not vocab().kind_words[other.kind].search(seg)  # "EPYC 9654 ... 360W": a TDP, not a PSU
        ):
            part = found[0]
            tdp = vocab().watts.search(seg.lower()) if part.kind == "cpu" else None
            if tdp and 35 <= int(tdp.group("w")) <= 1000:
                part = replace(part, value=int(tdp.group("w")))  # the CPU's power as the quote states it
            if count:
                part = replace(part, count=count[0], count_source=count[1])
            out.append(part)
            continue
        if other is not None:
            out.append(other if not count else replace(other, count=count[0], count_source=count[1]))
            continue
        k = kind if kind in KINDS else (kind_hint if kind_hint in KINDS else None)
        k = k or matcher.kind_of_model_number(seg) or kind_of_words(seg)
        if k and kind_hint is None and kind is None and vocab().accessory.search(seg):
            continue  # "CPU Cooling: Noctua NH-U14S DX-4677": an accessory, not an unknown CPU
        if not k:
            if not (context_kind in KINDS and item is not None and _counted_link(item)):
                continue  # no kind of part: nothing to name (and no model number to look for)
            k, named = (
                context_kind,
                True,
            )  # "GPUS" / "- x4: <a shop's link>": four GPUs of a model not written
        else:
            named = matcher.model_number_of(seg) or (
                kind is not None
                and (_names_something(seg) or (bool(_SHORT_MODEL.search(seg)) and not _recommends(seg)))
            )
        if named:
            lab = _LABEL.match(seg)
            value = (lab.group("value") or "") if lab and label_kind_of(lab.group("label")) else seg
            text = value.strip(" *_-|")[:80] or (item.text.strip()[:80] if item is not None else "")
            f = Found(k, text, in_catalog=False, how="a model number the catalog lacks")
            out.append(f if not count else replace(f, count=count[0], count_source=count[1]))
    return out


def _paired(desc: str) -> list[tuple[str, str]] | None:
    """A compound label and as many values ("主板 + CPU: ASUS Z790-P + i7-13700KF"): (kind, value) pairs."""
    from advisor.quote.segment import _LABEL
    from advisor.quote.segment import label_kind as kind_of_label

    m = _LABEL.match(desc)
    if not m or not m.group("value"):
        return None
    labels = [s for s in re.split(r"\s*[+/&、和]\s*", m.group("label")) if s.strip()]
    if len(labels) < 2:
        return None
    kinds = [kind_of_label(lab) for lab in labels]
    values = [v for v in _SPLIT.split(m.group("value")) if v.strip()]
    if len(values) != len(kinds) or not all(k in PART_LABELS for k in kinds):
        return None
    return list(zip(kinds, values, strict=True))


# A letter and a digit standing alone ("L2", "T4", "A2"): a model number only where a label says the kind,
# as in "显卡：L2 24G": unlabelled, it is as often a PCIe width or a revision
_SHORT_MODEL = re.compile(r"(?<![A-Za-z0-9.])[A-Za-z]\d(?![A-Za-z0-9.])")


def _names_something(seg: str) -> bool:
    """A labelled value that names a product ("Asus ROG ZENITH II EXTREME ALPHA"), not a recommendation
    ("选择高性能的CPU，如Intel Core i9或...") or a blank ("N/A", "-", "集成")."""
    from advisor.quote.segment import _LABEL

    if _recommends(seg):
        return False
    m = _LABEL.match(seg)
    value = (m.group("value") or "") if m else seg
    words = re.findall(r"[A-Za-z]{2,}", value)
    return len(words) >= 2 and not re.fullmatch(r"\W*(?:n/?a|none|tbd|-+|集成|无)\W*", value, re.I)


def _recommends(seg: str) -> bool:
    """A labelled value that gives advice instead of a part ("选择高性能的CPU，如Intel Core i9或..."): the "i9" in
    it is an example, not the CPU of this build."""
    from advisor.quote.segment import _LABEL

    m = _LABEL.match(seg)
    value = (m.group("value") or "") if m else seg
    return bool(vocab().example_words.search(value) or vocab().prose.search(value))


def _blank_value(seg: str) -> bool:
    from advisor.quote.segment import _LABEL

    m = _LABEL.match(seg)
    value = (m.group("value") or "") if m else ""
    return bool(m) and bool(re.fullmatch(r"\W*(?:n/?a|none|nil|tbd|-+|无|没有|不含|暂无)?\W*", value, re.I))


def _counted_link(item) -> bool:
    return item.qty_source != "none written: 1" and bool(re.search(r"https?://", item.text))
