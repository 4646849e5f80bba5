"""Match a line item to catalog parts (CPU, board, GPU) and recognise the other kinds (PSU, RAM, NVMe,
NIC, NVLink bridge).

Never a wrong part: a catalog part matches only if the line has every model number of one of its
names (RTX A5000 is not an RTX 4090 D; MAG Z790 TOMAHAWK is not a ROG Strix Z790-E), every other
distinguishing word of that name, and, for a GPU, a memory size that agrees. A vendor part number
matches its part exactly. Candidates come from an index of model numbers, so each line costs the same
whatever the catalog's size and the quote's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from advisor.base.text import lookalikes
from advisor.i18n import _
from advisor.model.catalog.store import Catalog
from advisor.quote.vocab import vocab

KINDS = ("cpu", "board", "gpu")


@dataclass(frozen=True)
class Tokens:
    digits: frozenset[str]  # model numbers: tokens with a digit ("4090", "z790e", "14900k", "a5000")
    words: frozenset[str]  # the other words
    caps: frozenset[int]  # memory sizes written with the part ("48G", "24GB")
    strong: bool = False  # every model number is required, even a letter and a digit ("L4")

    @property
    def required(self) -> frozenset[str]:
        """Model numbers a line must have: all but weak ones like 'i9' or '9' (Core Ultra 9)."""
        if self.strong:
            return self.digits
        return frozenset(d for d in self.digits if not re.fullmatch(r"[a-z]?\d", d))


# A memory size stands after a space, a symbol or a Chinese character ("2080ti魔改22g"): a CJK character is
# a word character to Python's \w, so the lookbehind names the Latin ones, or the size would go unread
# and a 22 GB card match the 11 GB one.
_CAP = re.compile(r"(?<![a-z0-9_.])(\d{1,3})\s*g(?:b)?(?![a-z0-9])")
_SIZE = re.compile(r"(?<![a-z0-9_.])\d{1,4}\s*g(?:b)?(?![a-z0-9])")
_SPEC = re.compile(
    r"pcie\s*(?:gen\s*)?\d(?:\.0)?|\bgen\s*\d\b|\bx\d{1,2}\b|\d{3,5}\s*w(?![a-z0-9])|ddr\d(?:-\d+)?"
    r"|(?<!\d)\d+(?:\.\d+)?\s*(?:ghz|mhz|mm|mt/s|gb/s|gbps|tflops|tops|tb|cores?|threads?)(?![a-z0-9])"
)
_BEFORE_CJK = re.compile(r"([a-z0-9])(?=[\u4e00-\u9fff])")
_AFTER_CJK = re.compile(r"([\u4e00-\u9fff])(?=[a-z0-9])")
_SERIES = re.compile(r"\b(rtx|gtx|rx|gt)(?=\d)")
_SUFFIX = re.compile(r"(\d)[\s-]([a-wyz])\b")
_TOKEN = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


def tokens(text: str) -> Tokens:
    t = text.lower().replace("™", " ").replace("®", " ")
    caps = frozenset(int(m.group(1)) for m in _CAP.finditer(t))
    t = _SIZE.sub(" ", t)
    t = _SPEC.sub(" ", t)
    if _CJK.search(t):
        t = _BEFORE_CJK.sub(r"\1 ", t)
        t = _AFTER_CJK.sub(r"\1 ", t)
    t = _SERIES.sub(r"\1 ", t)
    t = _SUFFIX.sub(r"\1\2", t)  # "4090 d" -> "4090d", "z790-e" -> "z790e"
    t = _variant().sub(r"\1\2", t)  # "3090 ti" -> "3090ti": a different model
    toks = _TOKEN.findall(t)
    # a token is letters and digits, or a run of CJK characters: it has a digit unless it is all letters
    return Tokens(
        frozenset(x for x in toks if not x.isalpha()),
        frozenset(x for x in toks if x.isalpha()),
        caps,
    )


@lru_cache(maxsize=1)
def _variant() -> re.Pattern:
    words = "|".join(re.escape(w) for w in vocab().variant_suffixes)
    return re.compile(rf"(\d[a-z]?)[\s-]+({words})\b")


_PLURAL = re.compile(r"(?<![\w.])([A-Za-z]{0,2}\d{3,4})s\b")  # lower-case s only: "4080S" is a model
_REVISIONS = frozenset({"ii", "iii", "iv", "r2", "r3"})  # a board's revision words ("WIFI II", "R2.0")


def _pn(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


@dataclass
class Found:
    kind: str  # cpu board gpu psu ram nvme nic bridge
    name: str
    part_id: str | None = None  # a catalog part
    confidence: float | None = None
    value: int | None = None  # PSU usable watts, RAM GB (total of the line), a CPU's stated power (W)
    socket: str | None = None  # an NVMe drive's M.2 socket
    in_catalog: bool = True
    how: str = ""  # how it was recognised
    lookalike: bool = False  # found by reading Cyrillic or Greek lookalike letters as Latin ("RТX 4090")
    count: int | None = None  # the count written beside this part on a line that names several ("2x EPYC")
    count_source: str = ""
    nearest: list[str] = field(default_factory=list)  # for a part the catalog lacks: its nearest entries


@dataclass
class _Key:
    part: object
    text: str
    tok: Tokens
    words: frozenset[str]  # distinguishing words


@dataclass
class Matcher:
    catalog: Catalog
    index: dict[str, list[_Key]] = field(default_factory=dict)
    numbers: dict[str, object] = field(default_factory=dict)
    # GPUs named by words alone ("TITAN RTX"): matched when every word of the name is written
    word_named: list[_Key] = field(default_factory=list)
    # Chinese words of the catalog's names and the brand vocabulary ("七彩虹", "火神", "涡轮版"), longest first:
    # shops run them together ("七彩虹火神4090"), and a run of Chinese characters is one token otherwise
    cjk_words: re.Pattern | None = None

    @classmethod
    def of(cls, catalog: Catalog) -> Matcher:
        key = ("quote matcher",)
        if key not in catalog.derived:
            m = cls(catalog)
            v = vocab()
            generic = v.generic_words
            for part in catalog.parts.values():
                if part.kind not in KINDS:
                    continue
                base = catalog.get(part.card_of) if getattr(part, "card_of", None) else None
                shared = (
                    frozenset(w for t in _names(base) for w in tokens(t).words) | v.card_chip_words
                    if base is not None
                    else frozenset()
                )
                # sorted: equal scores must resolve the same way in every process (a set's order
                # follows the per-process string hash)
                for text in sorted(_names(part)):
                    tok = tokens(text)
                    if not tok.required and part.kind == "gpu" and len(tok.digits) == 1:
                        # "NVIDIA L4": a GPU whose only model number is a letter and a digit
                        tok = Tokens(tok.digits, tok.words, tok.caps, strong=True)
                    if not tok.required:
                        if (
                            part.kind == "gpu"
                            and base is None
                            and not tok.digits
                            and len(tok.words - generic) >= 1
                        ):
                            if len(tok.words) >= 2:
                                m.word_named.append(_Key(part, text, tok, tok.words))
                        continue
                    if base is not None:
                        # a partner card: its series and maker words, however common ("gaming", "oc")
                        words = frozenset(w for w in tok.words if w not in shared)
                        if not words:
                            continue  # a card name that reads as its GPU's own would match every line
                    else:
                        words = frozenset(w for w in tok.words if w not in generic and len(w) > 0)
                    k = _Key(part, text, tok, words)
                    for d in tok.required:
                        m.index.setdefault(d, []).append(k)
                for pn in getattr(part, "part_numbers", []) or []:
                    m.numbers[_pn(pn)] = part
            m.cjk_words = _cjk_lexicon(catalog, v)
            catalog.derived[key] = m
        return catalog.derived[key]  # type: ignore[return-value]

    def parts(self, text: str, kind: str | None = None) -> list[Found]:
        """Catalog parts the text names (best per kind), by part number or by name. A name written with
        Cyrillic or Greek letters that look Latin ("RТX 4090", a Cyrillic Т) is read in Latin letters,
        and the match says so: it is never a silent match."""
        look = lookalikes(text)
        if look is None or look.latin is None:
            return self._parts(text, kind)
        found = self._parts(look.latin, kind)
        for f in found:
            f.lookalike = True
            f.how = (
                _("read as {name}: the name has {scripts} letters that look Latin ({names})").format(
                    name=f.name, scripts=look.said_scripts(), names=look.names()
                )
                + "; "
                + f.how
            )
        return found

    def _parts(self, text: str, kind: str | None = None) -> list[Found]:
        for raw in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-./]{5,}", text):
            part = self.numbers.get(_pn(raw))
            if part is not None and (kind is None or part.kind == kind):
                return [Found(part.kind, part.name, part.id, 100.0, how=f"part number {raw}")]
        # "four RTX 4090s": a plural, where the catalog has no model written that way ("2080S" is a SUPER)
        text = _PLURAL.sub(lambda m: m.group(1) if m.group(0).lower() not in self.index else m.group(0), text)
        tok = tokens(self._split_cjk(text))
        best: dict[str, tuple[tuple, _Key]] = {}
        seen = set()
        for d in sorted(tok.digits):
            for k in self.index.get(d, []):
                if id(k) in seen or (kind is not None and k.part.kind != kind):
                    continue
                seen.add(id(k))
                if not k.tok.required <= tok.digits or not k.words <= tok.words:
                    continue
                if k.tok.caps and not k.tok.caps <= tok.caps:
                    continue
                if k.part.kind == "board" and (_REVISIONS & (tok.words | tok.digits)) - (
                    k.tok.words | k.tok.digits
                ):
                    continue  # "WRX80E-SAGE SE WIFI II": a later revision of the board, another part
                if getattr(k.part, "card_of", None) and _other_partner(k.part.vendor, tok.words):
                    continue  # "华硕 ... GAMING OC" is not Gigabyte's Gaming OC
                if (
                    k.part.kind == "gpu"
                    and tok.caps
                    and not k.tok.caps
                    and k.part.vram_gb not in tok.caps
                    and any(c >= 8 for c in tok.caps)
                ):
                    continue  # "4090 48G" is not the 24 GB card
                score = (
                    len(k.tok.required),
                    len(k.words),
                    fuzz.token_set_ratio(k.text.lower(), text.lower()),
                )
                if k.part.kind not in best or score > best[k.part.kind][0]:
                    best[k.part.kind] = (score, k)
        for k in self.word_named:
            if (kind is None or k.part.kind == kind) and k.part.kind not in best and k.words <= tok.words:
                if tok.required - k.tok.digits:
                    continue  # "TITAN RTX 2080": another model number is written beside the words
                score = (0, len(k.words), fuzz.token_set_ratio(k.text.lower(), text.lower()))
                if k.part.kind not in best or score > best[k.part.kind][0]:
                    best[k.part.kind] = (score, k)
        return [
            Found(kind_, k.part.name, k.part.id, round(float(s[2]), 1), how=f"name '{k.text}'")
            for kind_, (s, k) in sorted(best.items(), key=lambda kv: (kv[1][0], kv[0]), reverse=True)
        ]

    def nearest(self, text: str, kind: str, n: int = 2) -> list[str]:
        """The catalog parts of a kind whose names are nearest a name the catalog lacks ("X299-WU8" ->
        nothing close; "WRX80E-SAGE SE WIFI II" -> the WRX80E-SAGE SE WIFI): offered, never matched."""

        key = ("nearest", kind)
        if key not in self.catalog.derived:
            names = {}
            for part in self.catalog.parts.values():
                if part.kind == kind and not getattr(part, "card_of", None):
                    names[part.name] = part.name
            self.catalog.derived[key] = names
        names = self.catalog.derived[key]
        cache = self.catalog.derived.setdefault(("nearest-of", kind), {})
        low = text.lower()[:120]
        if low not in cache:
            mine = tokens(low).required
            scored = []
            for name in names:
                theirs = tokens(name).required
                model = max((fuzz.ratio(a, b) for a in mine for b in theirs), default=0.0)
                scored.append((model, fuzz.token_set_ratio(low, name.lower()), name))
            scored.sort(reverse=True)
            cache[low] = [name for model, words, name in scored[:n] if model >= 70 or words >= 85]
        return cache[low]

    def kind_of_model_number(self, text: str) -> str | None:
        """The kind of part a line's model number belongs to in the catalog, when the line names no catalog
        part ("H20 141G": the H20's model number with a size the catalog lacks is a GPU, not an Intel H20
        chipset's board; "A800 40G PCIe" a GPU): the one kind every catalog name with that number has."""
        text = self._split_cjk(text)
        # letters with digits only ("h20", "a800"): a bare number is as often a price or a revision ("1.00")
        codes = [d for d in tokens(text).required if re.search(r"[a-z]", d) and re.search(r"\d\d", d)]
        kinds = {k.part.kind for d in codes for k in self.index.get(d, [])}
        return kinds.pop() if len(kinds) == 1 else None

    def _split_cjk(self, text: str) -> str:
        if self.cjk_words is not None and _CJK.search(text):
            return self.cjk_words.sub(r" \g<0> ", text)
        return text

    def model_number_of(self, text: str) -> bool:
        """Whether the text writes a model number (a part the catalog may lack): three digits or more, or
        letters with two or more ("A5000", "4080", "Z790"), or a long name with a digit inside ("GENOAD8X"),
        not a stray count or percentage."""
        return any(
            re.fullmatch(
                r"[a-z]*\d{3,}[a-z0-9]*|[a-z]+\d{2,}[a-z0-9]*|(?!g?ddr|lpddr|hbm)[a-z]{4,}\d[a-z]+\d*", d
            )
            for d in tokens(text).required
        )  # the last: a board name with one digit inside ("GENOAD8X")


def _cjk_lexicon(catalog: Catalog, v) -> re.Pattern | None:
    """The Chinese words a quote line is split on: every run of two or more Chinese characters in a part's
    names, the Chinese brand names and the partners' Chinese names. A pattern of literal words, longest
    first, so "涡轮版" is read whole and not as "涡轮" and a stray "版"."""
    words = {w for w in v.generic_words | frozenset(x for ws in v.card_vendors.values() for x in ws)}
    for part in catalog.parts.values():
        if part.kind in KINDS:
            for name in _names(part):
                words.update(_CJK_RUN.findall(name))
    words = {w for w in words if _CJK_RUN.fullmatch(w) and len(w) >= 2}
    if not words:
        return None
    return re.compile("|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w))))


def _names(part) -> set[str]:
    return {part.name, *part.aliases, part.id.replace("-", " ")}


def _other_partner(vendor: str, words: frozenset[str]) -> bool:
    """The line names a board partner, and not this card's maker."""
    vendors = vocab().card_vendors
    own = vendors.get(vendor.lower(), frozenset({vendor.lower()}))
    named = {key for key, ws in vendors.items() if ws & words}
    return bool(named) and not (own & words)


def other_kinds(text: str, kind_hint: str | None = None, value=None) -> Found | None:
    """A PSU, RAM, NVMe drive, NIC or NVLink bridge, by its words."""
    v = vocab()
    low = text.lower()
    kw = v.kind_words
    if kind_hint in (None, "bridge") and (kind_hint == "bridge" or kw["bridge"].search(low)):
        return Found("bridge", "NVLink bridge", how="NVLink bridge words")
    if kind_hint == "psu" and isinstance(value, int):
        return Found("psu", f"PSU {value} W", value=value, how="psu_w")
    if kind_hint == "ram" and isinstance(value, int):
        return Found("ram", f"RAM {value} GB", value=value, how="ram_gb")
    if kind_hint in (None, "psu") and (
        kind_hint == "psu" or kw["psu"].search(low) or v.psu_series.search(low)
    ):
        w = psu_watts(low, labelled=kind_hint == "psu")
        if w:
            total = bool(v.usable.search(low) or v.redundant.search(low))
            return Found(
                "psu", f"PSU {w} W", value=w, how="usable watts" if total else "PSU words and wattage"
            )
    if kind_hint in (None, "ram") and (
        kind_hint == "ram" or (kw["ram"].search(low) and not kw["gpu"].search(low))
    ):
        gb, total = ram_gb(low)
        if gb:
            return Found("ram", f"RAM {gb} GB", value=gb, how="RAM total" if total else "RAM words and size")
    if kind_hint in (None, "nvme") and (
        kind_hint == "nvme" or (kw["nvme"].search(low) and not v.not_nvme.search(low))
    ):
        s = v.m2_socket.search(text)
        socket = re.sub(r"(?i)^m\.?2[_\s-]?", "M.2_", s.group(1)) if s else None
        return Found("nvme", "NVMe SSD" + (f" in {socket}" if socket else ""), socket=socket, how="SSD words")
    if kind_hint in (None, "nic") and (kind_hint == "nic" or kw["nic"].search(low)):
        return Found("nic", "NIC", how="network card words")
    return None


_CONNECTOR = re.compile(
    r"\s*(?:的\s*)?(?:12\s*v\s*hpwr|12v-2x6|pcie|pci-e|接口|输出|connectors?|cables?|plug)"
)


def psu_watts(low: str, labelled: bool = False) -> int | None:
    """Usable watts: a stated usable figure, N of N+M redundant modules, else the wattage or model number."""
    v = vocab()
    u = v.usable.search(low)
    if u:
        return int(u.group("w") or u.group("w2"))
    # "2路600W的12VHPWR显卡电源输出", "600W 12V-2x6 cable": a connector's rating, not the supply's
    w = next((m for m in v.watts.finditer(low) if not _CONNECTOR.match(low, m.end())), None)
    watts = int(w.group("w")) if w else None
    if watts is None:
        m = v.psu_models.search(low)
        watts = int(m.group("w")) if m else None
    if watts is None and labelled:
        # "PSU Primary | EVGA SuperNOVA 1600 T2 Titanium": on a PSU's own line, the model's wattage
        m = re.search(r"(?<![\d.,])(\d{3,4})(?![\d.,%])", low)
        watts = int(m.group(1)) if m and 300 <= int(m.group(1)) <= 3000 else None
    if watts is None or not 200 <= watts <= 20000:
        return None
    r = v.redundant.search(low)
    return watts * int(r.group("a")) if r else watts


def ram_gb(low: str) -> tuple[int | None, bool]:
    """(GB of one line item, whether that is already the total of the line): a stated total ("= 256G",
    "(128GB total)"); else one kit or module ("64 GB Kit (2x 32 GB)" is 64; "8 x 32GB" is 256)."""
    v = vocab()
    m = v.ram_total.search(low)
    if m:
        return int(m.group("gb") or m.group("gb2") or m.group("gb3") or m.group("gb4")), True
    for rx in v.ram_modules:
        m = rx.search(low)
        if m:
            modules = int(m.group("n")) * int(m.group("gb"))
            sizes = [int(s.group("gb")) for s in v.ram_size.finditer(low[: m.start()])]
            return (sizes[-1] if sizes and sizes[-1] == modules else modules), False
    m = v.ram_size.search(low)
    return (int(m.group("gb")) if m else None), False


def kind_of_words(text: str) -> str | None:
    """The part kind a line's words name (cpu, board, gpu), for a line that matches no catalog part."""
    low = text.lower()
    for k in ("gpu", "cpu", "board"):
        if vocab().kind_words[k].search(low):
            return k
    return None
