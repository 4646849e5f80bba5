"""Load, validate, layer and search the catalog.

Each YAML file holds one part with a `kind` (cpu, board, gpu, card). The bundled catalog is loaded
first; user folders are layered over it (a part with the same id replaces the bundled one). A `card` (a
board partner's model of a GPU) becomes a GPU entry of its own once every folder is read: the card's
size, cooler, connectors and power over its GPU's reference values (`expand_cards`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from advisor.base.errors import Problem, UserError
from advisor.base.resources import bundled
from advisor.base.text import long_name, lookalikes
from advisor.base.validation import validate
from advisor.base.yamlio import LineDict, load_file
from advisor.i18n import N_, _
from advisor.model.catalog.models import CARD_FIELDS, PART_TYPES, Board, Card, Cpu, Gpu, Part, System

_NOISE = re.compile(r"\b(nvidia|geforce|intel|amd|processor|graphics card|graphics|gpu|cpu|the)\b")


_GB_SPACE = re.compile(r"(?<=\d)\s+(?=gb\b)")


def normalize(text: str) -> str:
    """A comparison key for part names: lower case, vendor words and punctuation dropped."""
    t = text.lower().replace("™", "").replace("®", "")
    t = _NOISE.sub(" ", t)
    # "48 GB" -> "48gb"; the space is matched only right after a digit (a lookbehind), so a run of
    # digits is never backtracked through: linear on any name
    t = _GB_SPACE.sub("", t)
    t = re.sub(r"[^a-z0-9+]+", "", t)
    return t


@dataclass
class Match:
    part: Part
    score: float  # 0..100
    key: str


@dataclass
class Catalog:
    parts: dict[str, Part] = field(default_factory=dict)
    origin: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # id -> (file, line)
    _keys: list[tuple[str, str]] = field(default_factory=list)  # (normalized key, id)
    _resolved: dict[tuple[str, str], tuple[Part, bool]] = field(default_factory=dict)  # part, read fuzzily
    derived: dict[tuple, object] = field(default_factory=dict)  # answers computed from the parts, by question
    cards: dict[str, Card] = field(default_factory=dict)  # partner cards as written, before expand_cards

    def add(self, part: Part, file: str, line: int | None) -> None:
        if isinstance(part, Card):
            self.cards[part.id] = part
        else:
            self.parts[part.id] = part
        self.origin[part.id] = (file, line)
        self._keys = []
        self._resolved = {}
        self.derived = {}

    def of_kind(self, kind: str) -> list[Part]:
        return [p for p in self.parts.values() if p.kind == kind]

    @property
    def cpus(self) -> list[Cpu]:
        return self.of_kind("cpu")  # type: ignore[return-value]

    @property
    def boards(self) -> list[Board]:
        return self.of_kind("board")  # type: ignore[return-value]

    @property
    def gpus(self) -> list[Gpu]:
        return self.of_kind("gpu")  # type: ignore[return-value]

    @property
    def systems(self) -> list[System]:
        return self.of_kind("system")  # type: ignore[return-value]

    def get(self, part_id: str) -> Part | None:
        return self.parts.get(part_id)

    def _index(self) -> list[tuple[str, str]]:
        if not self._keys:
            keys = []
            for p in self.parts.values():
                for k in [p.id, p.name, *p.aliases]:
                    nk = normalize(k)
                    if nk:
                        keys.append((nk, p.id))
            self._keys = keys
        return self._keys

    def search(self, text: str, kind: str | None = None, limit: int = 5) -> list[Match]:
        """Best matches for a name as people write it, best first, with a 0-100 score."""
        if too_long := long_name(text):
            raise UserError(too_long, hint="give a part's name or id, e.g. from `advisor catalog list`")
        query = normalize(text)
        if not query:
            return []
        keys = [(k, pid) for k, pid in self._index() if kind is None or self.parts[pid].kind == kind]
        exact = [pid for k, pid in keys if k == query]
        if exact:
            return [Match(self.parts[exact[0]], 100.0, query)]
        if text.strip() in self.parts and (kind is None or self.parts[text.strip()].kind == kind):
            return [Match(self.parts[text.strip()], 100.0, text.strip())]
        from rapidfuzz import fuzz, process  # here: a build that names its parts exactly never needs it

        choices = [k for k, _ in keys]
        # Native scorers shortlist; the digit-aware score ranks the shortlist.
        short = {
            idx
            for scorer in (fuzz.ratio, fuzz.partial_ratio)
            for _, _, idx in process.extract(query, choices, scorer=scorer, limit=limit * 4)
        }
        results = [(choices[i], _score(query, choices[i]), i) for i in short]
        best: dict[str, Match] = {}
        for key, score, idx in results:
            pid = keys[idx][1]
            if pid not in best or best[pid].score < score:
                best[pid] = Match(self.parts[pid], float(score), key)
        return sorted(best.values(), key=lambda m: -m.score)[:limit]

    def resolve(self, text: str, kind: str, what: str | None = None, at: Where | None = None) -> Part:
        """The one part `text` names; a UserError with did-you-mean when it names none or several, or when
        the nearest name has another model number (a digit, or a suffix as K/KS, Ti, Super, D: another
        part, never a typo). A spelling read as a catalog name is said (advisor.base.notices). `at` is
        where the text came from (file, line, field), for both."""
        file, line, field_name = at or (None, None, None)
        cached = self._resolved.get((text, kind))
        if cached is not None:
            part, fuzzy = cached
            if fuzzy:
                _note_reading(text, part, at)
            return part
        label = what or kind
        if too_long := long_name(text, label):
            # refused before any matching: no name in the catalog is this long
            raise UserError(
                problems=[
                    Problem(
                        too_long,
                        file,
                        line,
                        field_name,
                        hint=_("`{command}` shows the names").format(
                            command=f"advisor catalog list --kind {kind}"
                        ),
                    )
                ]
            )
        look = lookalikes(text)
        if look is not None:
            # "RТX 4090" (a Cyrillic Т) would match RTX 4090 only because the letter is dropped: a name
            # that must be exact is refused, with its Latin spelling
            raise UserError(
                problems=[
                    Problem(
                        look.sentence(text),
                        file,
                        line,
                        field_name,
                        hint=_("`{command}` shows the names").format(
                            command=f"advisor catalog list --kind {kind}"
                        ),
                    )
                ]
            )
        found = self.search(text, kind, limit=10)
        # a near name whose model number differs is another part: only same-number names may match
        same = [m for m in found if same_model_number(text, m.part)]
        strong = [m for m in same if m.score >= 90]
        if same and same[0].score >= 100:
            strong = same[:1]
        if len(strong) == 1 or (strong and strong[0].score - strong[1].score >= 4):
            part = strong[0].part
            fuzzy = strong[0].score < 100 and not _shortened(text, part)
            self._resolved[(text, kind)] = (part, fuzzy)
            if fuzzy:
                _note_reading(text, part, at)
            return part
        raise no_match(text, label, self._bases_first(found), at, kind)

    def _bases_first(self, found: list[Match]) -> list[Match]:
        """The near names with each partner card's own GPU listed before it: "RTX 4090 Super" is nearest
        to an "MSI ... 4090 SUPRIM" by its letters, but the GPU the user means is the RTX 4090."""
        out: list[Match] = []
        for m in found:
            base = self.parts.get(getattr(m.part, "card_of", None) or "")
            if base is not None and all(x.part.id != base.id for x in out):
                out.append(Match(base, m.score, m.key))
            if all(x.part.id != m.part.id for x in out):
                out.append(m)
        return out


# what a part name is said to be in a refusal (the kind, or the caller's word for it)
LABELS = {
    "part": N_("part"),
    "board": N_("board"),
    "motherboard": N_("motherboard"),
    "system": N_("system"),
    "cpu": N_("CPU"),
    "gpu": N_("GPU"),
}


def _label(label: str) -> str:
    return _(LABELS[label]) if label in LABELS else label


def no_match(text: str, label: str, found: list[Match], at: Where | None = None, kind: str | None = None):
    """The UserError for a name that names no part: did-you-mean the nearest names, and where a near name
    differs only in its model number, that it is another model, not a typo."""
    file, line, field_name = at or (None, None, None)
    near = [m for m in found if m.score >= 50][:3]
    names = ", ".join(f"{m.part.name} ({m.part.id})" for m in near)
    other = [m for m in near if m.score >= 90 and not same_model_number(text, m.part)]
    command = f"advisor catalog list{f' --kind {kind}' if kind else ''}"
    listing = _("`{command}` shows them").format(command=command)
    if other:
        message = _(
            "no {label} in the catalog is {text}: the nearest, {nearest}, has another model number ({differ})"
        ).format(
            label=_label(label),
            text=repr(text),
            nearest=other[0].part.name,
            differ=_differ(text, other[0].part),
        )
        hint = _(
            "did you mean: {names}? If your {label} is not in the catalog, add it to a folder of your own "
            "(--catalog DIR)"
        ).format(names=names, label=_label(label))
    else:
        message = _("no {label} in the catalog matches {text}").format(label=_label(label), text=repr(text))
        hint = _("did you mean: {names}?").format(names=names) if names else listing
    return UserError(problems=[Problem(message, file, line, field_name, hint=hint)])


Where = tuple  # (file or None, line or None, field or flag name or None): where a part name was written

# words that make another model when they follow a model number: RTX 4080 Super is not an RTX 4080, the
# i9-14900KS not the i9-14900K (the glued forms, 4090D or 14900KS, are one token already)
_SUFFIX_WORDS = {"ti", "super", "d", "x", "xt", "xtx", "ks", "k", "kf", "f", "x3d", "wx", "s"}
_MEMORY = re.compile(r"^(\d+)g(?:b)?$")


def model_numbers(text: str) -> list[str]:
    """The model-number pieces of a part name, lower case: every word with a digit, a one-letter prefix
    kept (i9, z790, w5, a6000) and a longer one dropped (RTX4090 is 4090, as RTX 4090 is), a
    following suffix word joined to it (RTX 4080 Super: 4080super), memory sizes as NNgb."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace("™", "").replace("®", ""))
    out: list[str] = []
    last_numbered = False
    for word in words:
        if any(c.isdigit() for c in word):
            mem = _MEMORY.match(word)
            if mem:
                out.append(f"{mem.group(1)}gb")
                last_numbered = False
                continue
            m = re.match(r"([a-z]*)(\d.*)", word)
            prefix, core = m.groups() if m else ("", word)
            out.append(prefix + core if len(prefix) == 1 else core)
            last_numbered = True
        elif word == "gb" and out and out[-1].isdigit():
            out[-1] += "gb"  # "48 GB"
            last_numbered = False
        elif word in _SUFFIX_WORDS and last_numbered:
            out[-1] += word
        else:
            last_numbered = False
    return out


def _same_piece(q: str, k: str) -> bool:
    # "R9" or "i9" written before a number the key writes bare ("Ryzen 9 7950X")
    return q == k or (len(q) >= 2 and q[0].isalpha() and q[1:].isdigit() and q[1:] == k)


def same_model_number(text: str, part: Part) -> bool:
    """Whether every model-number piece `text` writes is one of the part's, in one of its names (name,
    id, an alias); a memory size is checked against a GPU's memory where no name writes one."""
    asked = model_numbers(text)
    if not asked:
        return True
    vram = getattr(part, "vram_gb", None)
    for name in (part.name, part.id, *part.aliases):
        have = model_numbers(name)
        ok = True
        for q in asked:
            if any(_same_piece(q, k) for k in have):
                continue
            mem = _MEMORY.match(q)
            if (
                mem
                and not any(k.endswith("gb") for k in have)
                and vram is not None
                and float(mem.group(1)) == vram
            ):
                continue
            ok = False
            break
        if ok:
            return True
    return False


def _differ(text: str, part: Part) -> str:
    """'14900K, not 14900KS': the part's model number beside the one written, paired by their digits."""
    asked, have = model_numbers(text), model_numbers(part.name)
    pairs = []
    for q in asked:
        if any(_same_piece(q, k) for k in have):
            continue
        digits = re.match(r"[a-z]?(\d+)", q)
        k = next((k for k in have if digits and re.match(rf"[a-z]?{digits.group(1)}(?!\d)", k)), None)
        pairs.append(
            _("{have}, not {asked}").format(have=k.upper(), asked=q.upper())
            if k
            else _("no {asked} in its names").format(asked=q.upper())
        )
    return _("; ").join(pairs) or part.name


def _shortened(text: str, part: Part) -> bool:
    """The text is a part's name, id or alias written shorter ("Maximus Z790 Hero" for ROG Maximus Z790
    Hero): nothing was read as another spelling."""
    q = normalize(text)
    return bool(q) and any(q in normalize(k) for k in (part.name, part.id, *part.aliases))


def note_reading(text: str, match: Match, at: Where | None = None) -> None:
    """Say (advisor.base.notices) that `text` was read as the matched part, where it is not the part's
    name or a shorter form of it."""
    if match.score < 100 and not _shortened(text, match.part):
        _note_reading(text, match.part, at)


def _note_reading(text: str, part: Part, at: Where | None) -> None:
    from advisor.base.notices import note
    from advisor.base.text import plain

    file, line, field_name = at or (None, None, None)
    where = (f"{file}:{line}: " if file and line else f"{file}: " if file else "") + (
        f"{field_name}: " if field_name else ""
    )
    note(where + _("read {text} as {part}").format(text=repr(plain(text)), part=part.name))


def _score(a: str, b: str, **kwargs) -> float:
    from rapidfuzz import fuzz

    # Digits carry the model number: a query whose numbers differ from the key's is a poor match.
    da, db = re.findall(r"\d+", a), re.findall(r"\d+", b)
    # A query may be a shorter form of a key ("4090" for "rtx4090"), never a longer one:
    # "rtx3090ti" must not quietly become "rtx3090".
    base = max(fuzz.ratio(a, b), fuzz.partial_ratio(a, b) * 0.95 if 4 <= len(a) <= len(b) else 0)
    if da and db and not set(da) & set(db):
        base *= 0.6
    return base


def default_user_dirs() -> list[Path]:
    env = os.environ.get("ADVISOR_CATALOG", "")
    return [Path(p) for p in env.split(os.pathsep) if p]


def _yaml_files(folder: Path) -> Iterable[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def _cache_path(folder: Path, files: list[Path]) -> Path:
    """Where a parsed copy of a catalog folder is kept (advisor/base/cache.py), named by every file's
    size and time and the model code's, so an edited file or a new advisor never reads a stale copy."""
    from advisor.base.cache import cache_path
    from advisor.model.catalog import models

    return cache_path("catalog", [*files, Path(models.__file__), Path(__file__)], salt=str(folder.resolve()))


def _load_cached(folder: Path, files: list[Path], catalog: Catalog) -> bool:
    """Read a folder from its parsed copy; False when there is none or it does not validate."""
    from advisor.base.cache import read_cached

    try:
        entries = read_cached(_cache_path(folder, files))
    except OSError:
        return False
    if not isinstance(entries, list) or len(entries) != len(files):
        return False
    parts = []
    try:
        for e in entries:
            parts.append((PART_TYPES[e["data"]["kind"]].model_validate(e["data"]), e["file"], e["line"]))
    except Exception:  # a damaged or foreign cache file: read the YAML instead
        return False
    if len({p.id for p, _, _ in parts}) != len(parts):
        return False
    for part, file, line in parts:
        catalog.add(part, file, line)
    return True


def _save_cached(folder: Path, files: list[Path], entries: list[dict]) -> None:
    from advisor.base.cache import write_cached

    try:
        write_cached(_cache_path(folder, files), entries, "catalog")
    except OSError:
        pass  # a file vanished while the folder was read: no copy this time


def load_folder(folder: Path, catalog: Catalog, problems: list[Problem], cache: bool = False) -> None:
    if not folder.is_dir():
        problems.append(
            Problem(f"{folder}: catalog folder not found", hint="give a folder of part YAML files")
        )
        return
    seen_here: dict[str, str] = {}
    files = list(_yaml_files(folder))
    if cache and _load_cached(folder, files, catalog):
        return
    entries: list[dict] = []
    before = len(problems)
    for path in files:
        try:
            data = load_file(path)
        except UserError as exc:
            problems.extend(exc.problems)
            continue
        if not isinstance(data, LineDict):
            problems.append(
                Problem("a catalog file must be a mapping of one part's keys", file=str(path), line=1)
            )
            continue
        kind = data.get("kind")
        model = PART_TYPES.get(kind) if isinstance(kind, str) else None
        if model is None:
            problems.append(
                Problem(
                    "must be one of 'cpu', 'board', 'gpu', 'card', 'system'",
                    file=str(path),
                    line=data.key_lines.get("kind", data.line),
                    field="kind",
                )
            )
            continue
        part, errs = validate(model, data, str(path))
        if errs:
            problems.extend(errs)
            continue
        assert part is not None
        if part.id in seen_here:
            problems.append(
                Problem(
                    f"id {part.id!r} is already used by {seen_here[part.id]}",
                    file=str(path),
                    line=data.key_lines.get("id"),
                    field="id",
                )
            )
            continue
        seen_here[part.id] = str(path)
        catalog.add(part, str(path), data.line)
        entries.append({"file": str(path), "line": data.line, "data": part.model_dump(mode="json")})
    if cache and len(problems) == before and len(entries) == len(files):
        _save_cached(folder, files, entries)


def load_catalog_checked(user_dirs: Iterable[Path] | None = None) -> tuple[Catalog, list[Problem]]:
    """The layered catalog (bundled, then `user_dirs`, then $ADVISOR_CATALOG) and every problem found."""
    return _load_dirs(list(user_dirs or []) + default_user_dirs())


def _load_dirs(user_dirs: list[Path]) -> tuple[Catalog, list[Problem]]:
    catalog = Catalog()
    problems: list[Problem] = []
    load_folder(bundled("catalog"), catalog, problems, cache=True)
    for d in user_dirs:
        load_folder(Path(d), catalog, problems)
    expand_cards(catalog, problems)
    _cross_check(catalog, problems)
    return catalog, problems


def card_gpu(card: Card, base: Gpu) -> Gpu:
    """The GPU entry of a partner card: the card's names, sources and physical values over the GPU's."""
    own = {f: getattr(card, f) for f in CARD_FIELDS}
    inherited = []
    if own["board_power_w"] is None and base.board_power_w is not None:
        own["board_power_w"] = base.board_power_w
        inherited.append("board_power_w")
    note = f"A {card.vendor} card of the {base.name} ({base.id}): the chip, memory, PCIe and P2P are that entry's."
    if inherited:
        note += f" Board power is the reference {base.board_power_w} W (the card's own is not sourced)."
    data = base.model_dump()
    # A reference value's basis follows only the values the card takes from its GPU (the chip's, and a
    # board power it inherits); the card's own size, cooler and power rest on the card's basis: the
    # Founders Edition's slot width in a review is no basis for a partner card's thickness.
    basis = {
        path: b
        for path, b in data["basis"].items()
        if path.split(".")[0] not in CARD_FIELDS or path.split(".")[0] in inherited
    }
    basis.update({path: b.model_dump() for path, b in card.basis.items()})
    data.update(
        own,
        basis=basis,
        id=card.id,
        name=card.name,
        aliases=list(card.aliases),
        part_numbers=list(card.part_numbers),
        vendor=card.vendor,
        sources=[*card.sources, *(s for s in base.sources if s not in card.sources)],
        verified=card.verified,
        unverified_fields=list(card.unverified_fields),
        evidence=card.evidence,
        notes=" ".join(t for t in (card.notes, note) if t),
        price_usd=card.price_usd,
        prices=list(card.prices),  # a partner card's price is its own, never its GPU's reference price
        card_of=base.id,
        inherited_fields=inherited,
    )
    return Gpu.model_validate(data)


def expand_cards(catalog: Catalog, problems: list[Problem]) -> None:
    """Each partner card becomes a GPU entry (after every folder is layered, so a card follows the GPU
    entry that is in force); a card of a GPU the catalog lacks, or with a GPU's id, is a problem at its line."""
    for card in catalog.cards.values():
        file, line = catalog.origin[card.id]
        base = catalog.parts.get(card.gpu)
        if card.id in catalog.parts and getattr(catalog.parts[card.id], "card_of", None) is None:
            problems.append(
                Problem(
                    f"id {card.id!r} is already a {catalog.parts[card.id].kind}'s",
                    file=file,
                    line=line,
                    field="id",
                )
            )
            continue
        if not isinstance(base, Gpu) or base.card_of is not None:
            problems.append(
                Problem(
                    f"names GPU {card.gpu!r}, which is not a GPU entry in the catalog",
                    file=file,
                    line=line,
                    field="gpu",
                    hint="`advisor catalog list --kind gpu` shows the ids",
                )
            )
            continue
        catalog.add(card_gpu(card, base), file, line)


def _cross_check(catalog: Catalog, problems: list[Problem]) -> None:
    for g in catalog.gpus:
        if g.card_of is not None and g.id not in catalog.cards:
            file, line = catalog.origin[g.id]
            problems.append(
                Problem(
                    "card_of is set by the catalog on a partner card's entry: write the card as `kind: card`",
                    file=file,
                    line=line,
                    field="card_of",
                )
            )
    for sy in catalog.systems:
        for gid in sy.gpus:
            g = catalog.parts.get(gid)
            if g is None or g.kind != "gpu":
                file, line = catalog.origin[sy.id]
                problems.append(
                    Problem(f"names GPU {gid!r}, which the catalog lacks", file=file, line=line, field="gpus")
                )
    families = {c.family for c in catalog.cpus}
    for b in catalog.boards:
        for fam in b.cpu_families or []:
            if fam not in families:
                file, line = catalog.origin[b.id]
                problems.append(
                    Problem(
                        f"names CPU family {fam!r}, which no catalog CPU has",
                        file=file,
                        line=line,
                        field="cpu_families",
                    )
                )


_CACHE: dict[tuple, Catalog] = {}


def load_catalog(user_dirs: Iterable[Path] | None = None) -> Catalog:
    """The bundled catalog with user folders layered over it; a UserError if any file is invalid."""
    dirs = tuple(str(d) for d in (user_dirs or [])) + tuple(str(d) for d in default_user_dirs())
    if dirs in _CACHE:
        return _CACHE[dirs]
    catalog, problems = _load_dirs([Path(d) for d in dirs])
    if problems:
        raise UserError(problems=problems)
    _CACHE[dirs] = catalog
    return catalog
