"""Segment a quote, then find THE parts list in it.

A published build list is rarely only a list: a title ("Quad A6000 training box"), summary bullets
("four A6000s, each on x16"), a lane table with one row per card, host names, a hypothetical ("even with
four cards ..."), the candidates someone compared before buying. Counting every mention adds them up
(4 + 4 + 4 + 16 cards). The reading instead:

1. `shapes`: each line's shape (a table row, a bullet, a labelled line "CPU: ...", a one-line list, a
   heading, a rule, a prose sentence) and its label's part kind ("显卡：" is a GPU, "GPU内存" no part);
2. `select`: the lines are cut into runs of item lines (a heading, a rule or a sentence ends a run); runs
   that follow each other under headings and name different kinds are one list (a spec sheet's sections);
   the list is the one naming the most kinds of CPU, board and GPU (a heading or a prose sentence can be
   it, where nothing else names parts). Every other line that names a part is a mention: it is shown, and
   corroborates (a count the list leaves unwritten, a disagreement said), but is never added up. A kind
   the list lacks is taken from the mentions when they agree on it, and the report says so.

Every stage is linear in the quote's lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from advisor.i18n import _, pgettext
from advisor.quote.items import FROM_LINE, IN_HEADING, OTHER_MENTIONS
from advisor.quote.vocab import vocab

MAIN = ("cpu", "board", "gpu")
MINOR = ("psu", "ram")
COUNTED = ("part", "recognized", "not_in_catalog")

_RULE = re.compile(r"\s*(?:[-=_*~#^]\s*){3,}")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_BULLET = re.compile(r"^\s*(?:[-*•·+>]|\d{1,2}[.、)]|\(\d{1,2}\)|[①-⑳])\s+\S|^\s*[•·]\S")
_LABEL_AT = re.compile(
    r"^(?:[-*•·+>]\s+|\d{1,2}[.、)]\s*)?[*_]{0,2}\s*(?P<label>[^:：|*\n]{1,32}?)\s*[*_]{0,2}\s*[:：]"
    r"\s*[*_]{0,2}\s*(?P<value>\S.*)?$"
)


class _Label:
    """`_LABEL.match(line)`: a labelled line ("- **GPU**: 2x RTX 4090"), matched after its leading blanks
    are cut. A pattern that began with them (and with the blanks around a bullet and the label) tried every
    way to split a long run of them: seconds on a few hundred spaces."""

    @staticmethod
    def match(text: str):
        if ":" not in text and "：" not in text:
            return None  # no label without its colon: most lines, answered without the pattern
        return _LABEL_AT.match(text.lstrip())


_LABEL = _Label()
_DASH_LABEL = re.compile(
    r"^\s*[-*•]\s+(?P<label>[A-Za-z\u4e00-\u9fff][\w ()/\u4e00-\u9fff]{0,28}?)\s+[-–—]\s+(?P<value>\S.*)$"
)
_TAIL_LABEL = re.compile(r"(?:^|(?<!\s)\s{2,})(?P<label>[A-Z][A-Za-z ]{1,15}):\s+(?P<value>\S.*)$")
_EMOJI = re.compile(r"[^\w\s+/.()（）&-]", re.U)
_PAREN = re.compile(r"(?<!\s)\s*[(（][^)）]*[)）]\s*$")
_ORDINAL_WORDS = ("primary", "secondary", "main", "extra")
_PRICE = re.compile(r"[$€£¥￥]\s?\d|\d\s?(?:元|€)|@\s+\w")
_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=[.;；])(?=\s+[A-Z\u4e00-\u9fff\"“(])")
_WORDS = re.compile(r"[^\W\d_]{2,}|[\u4e00-\u9fff]")


@dataclass
class Shape:
    kind: str  # row | bullet | label | inline | heading | rule | prose | short
    label: str | None = None
    label_kind: str | None = None  # cpu board gpu psu ram nvme nic, "none" (a label of no part), or None
    heading_kind: str | None = None  # the part kind a heading names ("## GPUs (x7)", a bare "GPUS" line)

    @property
    def item(self) -> bool:
        return self.kind in ("row", "bullet", "label", "inline", "short")


def label_kind(label: str) -> str | None:
    """The part kind a label names: cpu, board, gpu, psu, ram, nvme, nic; "none" for a label that names no
    part (a cooler, an OS, a power limit); None for a label that is not known."""
    table = vocab().label_kinds
    t = _EMOJI.sub(" ", label).lower().replace("*", " ").replace("_", " ")
    t = re.sub(r"\s+", " ", t).strip(" .-/")
    for cand in (t, _PAREN.sub("", t).strip(), _without_ordinal(_PAREN.sub("", t)).strip()):
        if cand in table:
            return table[cand]
    return None


def _without_ordinal(t: str) -> str:
    """A label without the numbers and ordinal words after it ("GPU #1", "显卡 2", "SSD primary"), cut from
    the end a piece at a time: a pattern of repeated optional pieces would try every way to split a run of
    digits, which takes exponential time on a long one."""
    end = len(t)
    while end:
        s = t[:end]
        word = next((w for w in _ORDINAL_WORDS if s.endswith(w) and s[: -len(w)][-1:].isspace()), None)
        if word is not None:
            end = len(s[: -len(word)].rstrip())
            continue
        k = end
        while k and s[k - 1].isdigit():
            k -= 1
        if k == end:
            break
        if k and s[k - 1] == "#":
            k -= 1
        end = len(s[:k].rstrip())
    return t[:end]


def shape_of(text: str, table_row: bool, structured: bool) -> Shape:
    """One line's shape and its label."""
    if structured:
        return Shape("row")
    if _RULE.fullmatch(text) and "|" not in text:
        return Shape("rule")
    if table_row:
        cells = [c.strip(" *_") for c in text.strip().strip("|").split("|")]
        cells = [c for c in cells if c]
        label = (
            cells[0]
            if len(cells) >= 2 and len(cells[0]) <= 32 and not re.fullmatch(r"[\d.,\s$¥€%-]+", cells[0])
            else None
        )
        lk = label_kind(label) if label else None
        if lk == "none" and re.search(r"\d", label or ""):
            lk = None  # "| PCIE1 | RTX 4090 #1 | x16 |": a slot's name, not a label of no part
        return Shape("row", label, lk)
    if _MD_HEADING.match(text):
        head = text.strip().lstrip("#").strip()
        return Shape("heading", heading_kind=label_kind(re.sub(r"[(（][^)）]*[)）]", "", head)))
    m = _LABEL.match(text)
    if (
        m
        and not re.match(r"\s*https?$", m.group("label"), re.I)
        and not re.search(r"\d\s*$", m.group("label")[-1:] + " ")
    ):
        lk = label_kind(m.group("label"))
        if lk is not None or len(m.group("label")) <= 24:
            return Shape("label", m.group("label").strip(), lk)
    m = _DASH_LABEL.match(text)
    if m and label_kind(m.group("label")) is not None:
        return Shape("label", m.group("label").strip(), label_kind(m.group("label")))
    m = _TAIL_LABEL.search(text)
    if m and label_kind(m.group("label")) is not None:
        return Shape("label", m.group("label").strip(), label_kind(m.group("label")))
    start = _pcpartpicker_label(text)
    if start:
        return Shape("label", start, label_kind(start))
    if len(vocab().inline_separators.findall(text)) >= 2:
        return Shape("inline")
    if _BULLET.match(text):
        return Shape("bullet")
    words = len(re.findall(r"[A-Za-z]{2,}", text)) + len(re.findall(r"[\u4e00-\u9fff]", text)) // 2
    bare = text.strip().strip("*_:： ")
    if _PRICE.search(text):
        return Shape("short")  # a priced line ("Intel Core i9-12900K (boxed) ....... $379") is an item
    lk = label_kind(bare) if len(bare) <= 24 else None
    if lk is not None and lk != "none":
        return Shape("heading", heading_kind=lk)  # a bare "GPUS" or "主板" over the items of that kind
    flat = re.sub(r"\.{2,}|…+", " ", text).strip()
    if words >= 10 or (words >= 5 and re.search(r"[。！？，]|[.!?](?:\s|$)", flat)):
        return Shape("prose")
    return Shape("short")


def _pcpartpicker_label(text: str) -> str | None:
    """A PCPartPicker list pasted as text: "Video Card NVIDIA GeForce GTX 1080 8GB ... $699.99 @ Best Buy"."""
    if not _PRICE.search(text):
        return None
    low = text.strip().lower()
    best = next((lab for lab in _pcpartpicker_labels() if low.startswith(lab + " ")), None)
    return text.strip()[: len(best)] if best else None


@lru_cache(maxsize=1)
def _pcpartpicker_labels() -> tuple[str, ...]:
    """The labels a PCPartPicker line may start with, longest first (not a short one like "os")."""
    labels = [
        lab
        for lab, kind in vocab().label_kinds.items()
        if not ((lab.isascii() and " " not in lab and len(lab) < 3) or (kind == "none" and " " not in lab))
    ]
    return tuple(sorted(labels, key=len, reverse=True))


def sentences(text: str) -> list[str]:
    """A prose line's sentences (a decimal point or "4.0" is not an end)."""
    out = [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]
    return out or [text]


@dataclass
class Unit:
    """A candidate for THE parts list: a group of runs, a heading, or one sentence of prose."""

    form: str  # list | heading | prose
    lines: list = field(default_factory=list)  # QuoteLines (list, heading) ...
    mentions: list = field(default_factory=list)  # ... or Mentions (prose)
    order: int = 0

    def parts(self):
        if self.form == "prose":
            return [p for m in self.mentions for p in m.parts]
        return [p for x in self.lines for p in x.parts]

    def kinds(self, weak: frozenset[int] = frozenset()) -> set[str]:
        """The kinds the unit names; lines in `weak` (examples under a label of no part: "编译型任务：如
        i9-13900K或7950X") name none that make a parts list."""
        if self.form == "prose":
            return {p.kind for p in self.parts() if p.kind in MAIN + MINOR}
        return {p.kind for x in self.lines if id(x) not in weak for p in x.parts if p.kind in MAIN + MINOR}

    def labelled(self, shapes) -> int:
        """Lines whose label names the kind of part they hold ("| **CPU** | ..."): a parts list, where a
        summary's bullets ("**5 GPUs Total**: 4x RTX 3090 + 1x RTX 5090") name the same parts unlabelled."""
        return sum(
            1
            for x in self.lines
            if (sh := shapes.get(x.line)) is not None and sh.label_kind in {p.kind for p in x.parts}
        )

    def score(self, weak: frozenset[int] = frozenset()) -> int:
        k = self.kinds(weak)
        base = 10 * len(k & set(MAIN)) + len(k & set(MINOR))
        return base - {"list": 0, "heading": 8, "prose": 5}[self.form]


@dataclass
class Mention:
    """One sentence of prose and the parts it names, each with the count written beside it."""

    line: int
    text: str
    parts: list = field(default_factory=list)
    named_in: str = ""  # the clauses of the sentence that name the parts

    def cautious(self) -> bool:
        """A sentence that supposes, plans or compares, or clauses naming the parts that offer examples or a
        recommendation ("推荐电源功率不低于850W"; not "显卡都会给出电源的功率建议, 今天我们就用 i9 14900K ..."):
        it names no part of this build."""
        v = vocab()
        return bool(v.hypothetical.search(self.text) or v.example_words.search(self.named_in or self.text))


def _key(p) -> str | None:
    """What makes two mentions the same part: its catalog id, else its model numbers."""
    if p.part_id:
        return p.part_id
    if p.kind in ("psu", "ram") and p.value:
        return f"{p.kind} {p.value}"
    from advisor.quote.match import tokens

    req = sorted(tokens(p.name).required)
    return " ".join(req) or None


def _count(x, p) -> tuple[int | None, str]:
    """The count written for part p on line x (None when none is written)."""
    if p.count is not None:
        return p.count, p.count_source
    if x is not None and len([o for o in x.parts if o.kind in MAIN]) > 1:
        return None, ""  # "i9-14900K + 双4090 + Z790": the line's count is the GPUs', not every part's
    if x is not None and not x.qty_source.startswith("none written") and not x.qty_unclear:
        return x.qty, x.qty_source
    return None, ""


def _span(lines) -> str:
    nums = sorted(x.line for x in lines)
    if len(nums) == 1:
        return _("line {line}").format(line=nums[0])
    return _("lines {first}-{last}").format(first=nums[0], last=nums[-1])


def kind_name(kind: str) -> str:
    """A part's kind as a sentence names it: 'cpu', 'board', 'psu' in English."""
    names = {
        "cpu": pgettext("part kind", "cpu"),
        "board": pgettext("part kind", "board"),
        "gpu": pgettext("part kind", "gpu"),
        "psu": pgettext("part kind", "psu"),
        "ram": pgettext("part kind", "ram"),
        "nvme": pgettext("part kind", "nvme"),
        "nic": pgettext("part kind", "nic"),
        "bridge": pgettext("part kind", "bridge"),
        "part": pgettext("part kind", "part"),
    }
    return names.get(kind, kind)


def select(q, shapes: dict[int, Shape]) -> None:
    """Find THE parts list and turn every other line that names a part into a mention (see the module's
    docstring). Structured quotes (CSV, YAML, JSON) are a list by construction: nothing to select."""
    if q.format != "text":
        return
    q.selected = True
    units: list[Unit] = []
    group: Unit | None = None
    run: list = []
    prose_since = False  # a sentence since the last run: the next run is not a section of the same list

    def close_run() -> None:
        nonlocal group, run, prose_since
        cands = [x for x in run if x.status in COUNTED and x.parts]
        if cands:
            kinds = {p.kind for x in cands for p in x.parts if p.kind in MAIN + MINOR}
            if group is not None and not (kinds & group.kinds()):
                group.lines += run
            else:
                group = Unit("list", list(run), order=len(units))
                units.append(group)
            prose_since = False
        run = []

    prev = None
    marked = 0
    for x in q.lines:
        sh = shapes.get(x.line, Shape("short"))
        if (
            run
            and x.status == "header"
            and re.search(r"[^\W\d_]", x.text)
            and (prev is None or prev.status != "header")
        ):
            close_run()  # a table with its own header ("| Slot | Device | Lanes |") is another list
        elif (
            run
            and prev is not None
            and x.text.lstrip().startswith("|")
            and prev.status != "header"
            and not prev.text.lstrip().startswith(("|", "+"))
        ):
            close_run()  # a table that starts after other lines is another list (an upgrade's, a lane table)
        elif (
            run
            and sh.kind == "short"
            and x.parts
            and marked >= 2
            and prev is not None
            and _marked(shapes.get(prev.line))
        ):
            # "• GPU: ...", "• CPU: ..." then "Upgraded motherboard, 4090 and AMD CPU" (a caption), "RTX 4090"
            # (a section's name): lines written another way after a marked list are not more of it
            close_run()
        if not run:
            marked = 0
        if x.parts and _marked(sh):
            marked += 1  # the run's item lines written as a list's (counted as they come: one pass)
        prev = x
        if sh.kind in ("rule", "heading", "prose") and x.status not in ("header", "continued"):
            close_run()
            if sh.kind == "prose":
                prose_since = True
            if sh.kind == "heading" and x.parts:
                units.append(Unit("heading", [x], order=len(units)))
            for m in x.mentions:
                units.append(Unit("prose", [x], [m], order=len(units)))
            continue
        run.append(x)
        if x.status == "title" and x.parts:
            units.append(
                Unit("heading", [x], order=len(units))
            )  # a title line: fills a kind nothing else names
        for m in x.mentions:
            units.append(Unit("prose", [x], [m], order=len(units)))
    close_run()
    v = vocab()
    weak = frozenset(
        id(x)
        for x in q.lines
        if (sh := shapes.get(x.line)) is not None
        and sh.label_kind not in ("cpu", "board", "gpu", "psu", "ram", "nvme", "nic")
        and sh.kind != "inline"  # "1600W PSU OR dual 1000W PSUs" inside a one-line list is a choice of PSU
        and (v.example_words.search(x.text) or v.hypothetical.search(x.text))
    )
    usable = [u for u in units if not (u.form == "prose" and u.mentions[0].cautious())]
    if any(u.form == "list" and u.kinds(weak) & set(MAIN) for u in usable):
        usable = [u for u in usable if u.form != "heading"]  # a title is the list only where there is none
    if not usable:
        return
    best = max(usable, key=lambda u: (u.score(weak), u.labelled(shapes), -u.order))
    if best.score(weak) < 10 - 8:  # names no CPU, board or GPU at all: every item line stays as read
        return
    _heading_counts(q, shapes)
    chosen: set[int] = set()
    if best.form == "prose":
        _promote(best.lines[0], best.mentions[0].parts, _("the build as the text writes it in a sentence"))
        chosen.add(id(best.lines[0]))
    else:
        chosen.update(id(x) for x in best.lines if x.status in COUNTED and x.parts)
    listed = [x for x in q.lines if id(x) in chosen]
    where = _span(listed) if listed else _("the parts list")
    kinds = {p.kind for x in listed for p in x.parts}
    original = {id(x): list(x.parts) for x in q.lines}
    filled: dict[int, set[str]] = {}  # line -> the kinds taken from it
    for kind in (*MAIN, "psu"):
        if kind not in kinds and _fill(q, units, best, kind, chosen, original, filled):
            kinds.add(kind)
    for x in q.lines:
        if id(x) in chosen or not x.parts:
            continue
        if x.status in COUNTED:
            x.status = "mention"
            x.read_as = _("names a part outside the parts list ({where}): a mention, not counted").format(
                where=where
            )
        elif x.status == "title":
            x.read_as = _("a title or heading: not counted (the parts list is {where})").format(where=where)
    _corroborate(q, units, chosen, where)


def _marked(sh: Shape | None) -> bool:
    """A line written as a list's item: a table row, a bullet or a labelled line."""
    return sh is not None and sh.kind in ("row", "bullet", "label")


def _heading_counts(q, shapes: dict[int, Shape]) -> None:
    """A heading's count ("## CPUs (x2)") for the one line of its kind under it that writes none."""
    from advisor.quote.items import quantities

    lines = q.lines
    for i, h in enumerate(lines):
        sh = shapes.get(h.line)
        if sh is None or sh.kind != "heading" or sh.heading_kind not in MAIN:
            continue
        qs = quantities(h.text)
        if not qs:
            continue
        under = []
        for x in lines[i + 1 :]:
            if shapes.get(x.line, Shape("short")).kind in ("heading", "rule"):
                break
            if any(p.kind == sh.heading_kind for p in x.parts):
                under.append(x)
        if len(under) == 1 and under[0].qty_source.startswith("none written") and len(under[0].parts) == 1:
            x = under[0]
            x.qty, x.qty_source = qs[0][0], IN_HEADING.format(source=qs[0][1], line=h.line)


def _promote(x, parts, why: str) -> None:
    x.parts = list(parts)
    x.status = (
        "part"
        if any(p.part_id for p in x.parts)
        else ("not_in_catalog" if all(not p.in_catalog for p in x.parts) else "recognized")
    )
    x.read_as = why


def _fill(
    q, units: list[Unit], best: Unit, kind: str, chosen: set[int], original: dict, filled: dict
) -> bool:
    """A kind the parts list lacks, from the mentions: used when every mention of it names the same part."""
    cands = []  # (line, parts of the kind)
    for u in units:
        if u is best:
            continue
        if u.form == "prose":
            m = u.mentions[0]
            ps = [p for p in m.parts if p.kind == kind]
            if ps and not m.cautious():
                cands.append((u.lines[0], ps, "prose"))
        else:
            for x in u.lines:
                ps = [p for p in original.get(id(x), x.parts) if p.kind == kind]
                if (
                    ps
                    and (id(x) not in chosen or id(x) in filled)
                    and not vocab().hypothetical.search(x.text)
                ):
                    cands.append((x, ps, "line"))
    if not cands:
        return False
    keys = {_key(p) for _, ps, _ in cands for p in ps}
    if len(keys) != 1 or None in keys:
        q.notes.append(
            _("the {kind} is named differently outside the parts list ({lines}): not counted").format(
                kind=kind_name(kind),
                lines=", ".join(_("line {line}").format(line=c[0].line) for c in cands[:4]),
            )
        )
        return False
    x, ps, form = cands[0]
    counts = {
        c for xx, pp, _ in cands for p in pp if (c := _count(xx if xx.parts else None, p)[0]) is not None
    }
    part = ps[0]
    if len(counts) == 1:
        (n,) = counts
        if x.parts and part in x.parts and _count(x, part)[0] is None:
            part.count, part.count_source = n, OTHER_MENTIONS
        elif part.count is None:
            part.count, part.count_source = n, OTHER_MENTIONS
    kinds_here = filled.setdefault(id(x), set()) | {kind}
    filled[id(x)] = kinds_here
    if form == "prose":
        keep = [p for p in x.parts if p.kind in kinds_here and id(x) in filled and p.kind != kind] + ps[:1]
    else:
        keep = [p for p in original.get(id(x), x.parts) if p.kind in kinds_here]
    if part not in keep:
        keep.append(part)
    if not x.parts or x.status not in COUNTED:
        _promote(x, keep, "")
    else:
        x.parts = keep
    where = ", ".join(dict.fromkeys(_("line {line}").format(line=c[0].line) for c in cands[:6]))
    n = part.count if part.count is not None else (x.qty if form == "line" and len(keep) == 1 else 1)
    x.read_as = _(
        "read as {kind} x{n} ({part}): the parts list names no {what}, and every line naming one agrees ({where})"
    ).format(kind=kind.upper(), n=n, part=part.name, what=kind_name(kind), where=where)
    chosen.add(id(x))
    q.notes.append(
        _("line {line}: the parts list names no {what}; taken from {where} ({part}, x{n})").format(
            line=x.line, what=kind_name(kind), where=where, part=part.name, n=n
        )
    )
    return True


def _corroborate(q, units: list[Unit], chosen: set[int], where: str) -> None:
    """Counts the list leaves unwritten from the mentions that write one (when they agree), and every
    disagreement between a mention's count and the list's said."""
    written: dict[str, list[tuple[int, int, str]]] = {}  # key -> (count, line, source)
    for u in units:
        if u.form == "prose" and u.mentions[0].cautious():
            continue  # "即使同时使用4块RTX 4090显卡, ...": a supposition writes no count of this build's cards
        for x in u.lines:
            if id(x) in chosen or (u.form != "prose" and vocab().hypothetical.search(x.text)):
                continue
            parts = [p for m in u.mentions for p in m.parts] if u.form == "prose" else x.parts
            for p in parts:
                if p.kind != "gpu":
                    continue  # "四卡 ... EPYC 7763": a title's count is the cards', never the CPU's
                n, src = _count(None if u.form == "prose" else x, p)
                k = _key(p)
                if n is not None and k:
                    written.setdefault(k, []).append((n, x.line, src))
    for x in q.lines:
        if id(x) not in chosen:
            continue
        for p in x.parts:
            k = _key(p)
            if p.kind != "gpu" or not k or k not in written:
                continue
            n, _src = _count(x, p)
            others = written[k]
            counts = {c for c, _, _ in others}
            if n is None and len(counts) == 1 and len(x.parts) == 1:
                (c,) = counts
                if c > 1:
                    line, src = others[0][1], others[0][2]
                    x.qty, x.qty_source = c, FROM_LINE.format(count=c, line=line, source=src)
                    q.notes.append(
                        _("line {line}: {part} read as {count}, the count line {other} writes").format(
                            line=x.line, part=p.name, count=c, other=line
                        )
                    )
            elif n is not None:
                for c, line, _source in others:
                    if c != n and x.line != line:
                        q.notes.append(
                            _(
                                "line {line} writes {count}x {part}; the parts list ({where}) has {n}: the list's "
                                "count is used"
                            ).format(line=line, count=c, part=p.name, where=where, n=n)
                        )
