"""The quote reader's vocabulary, compiled once from rules/quote.yaml (data, not code)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from advisor.base.errors import Problem, UserError
from advisor.base.resources import bundled
from advisor.base.yamlio import load_bundled

_FLAGS = re.I | re.U


class Lowered:
    """A pattern written in lower case and matched against the lowercased text. Without IGNORECASE Python's
    re runs these about twice as fast, and the reader runs some thirty of them on every line (of a
    10,000-line quote too). Positions refer to the lowercased text, which are the original's for all but the
    few characters whose lower case is longer ("İ"); groups come back in lower case."""

    __slots__ = ("compiled",)

    def __init__(self, compiled: re.Pattern):
        self.compiled = compiled

    @property
    def pattern(self) -> str:
        return self.compiled.pattern

    def search(self, text: str, *args):
        return self.compiled.search(text.lower(), *args)

    def match(self, text: str, *args):
        return self.compiled.match(text.lower(), *args)

    def fullmatch(self, text: str, *args):
        return self.compiled.fullmatch(text.lower(), *args)

    def finditer(self, text: str, *args):
        return self.compiled.finditer(text.lower(), *args)


@dataclass(frozen=True)
class Vocab:
    numerals: dict[str, int]
    quantity: tuple[re.Pattern, ...]
    width_context: Lowered
    spec_after: Lowered
    prices: tuple[re.Pattern, ...]
    total_line: Lowered
    title_line: Lowered
    kind_words: dict[str, Lowered]
    generic_words: frozenset[str]
    card_vendors: dict[str, frozenset[str]]  # a partner's key (its catalog vendor, lower case) -> its words
    card_chip_words: frozenset[str]
    variant_suffixes: tuple[str, ...]
    psu_models: Lowered
    psu_series: Lowered
    watts: Lowered
    redundant: Lowered
    usable: Lowered
    ram_modules: tuple[re.Pattern, ...]
    ram_total: Lowered
    ram_size: Lowered
    spec_line: Lowered
    not_nvme: Lowered
    accessory: Lowered
    m2_socket: re.Pattern
    board_slots: Lowered
    claims: dict[str, re.Pattern]
    pooled_size: re.Pattern
    runs_at: re.Pattern
    psu_margin: re.Pattern
    psu_verbs: re.Pattern
    psu_sustained: re.Pattern
    negation_after: re.Pattern
    negation: re.Pattern
    not_included: re.Pattern
    scope_one: re.Pattern
    scope_all_pairs: re.Pattern
    question: re.Pattern
    prose: Lowered
    notes_label: Lowered
    gift: Lowered
    notes_keys: frozenset[str]
    label_kinds: dict[str, str]  # a line's label, normalised, -> the part kind it names ("none": no part)
    example_words: Lowered
    hypothetical: Lowered
    inline_separators: re.Pattern
    not_asserted: re.Pattern


@lru_cache(maxsize=1)
def vocab() -> Vocab:
    path = bundled("rules") / "quote.yaml"
    data = load_bundled(path)

    def cased(key: str) -> re.Pattern:
        """A pattern whose groups keep the text's case (an M.2 socket's name)."""
        try:
            return re.compile(data[key], _FLAGS)
        except re.error as exc:
            raise UserError(problems=[Problem(f"not a valid pattern: {exc}", str(path), field=key)]) from None

    def rx(key: str, sub: str | None = None) -> Lowered:
        return Lowered(lx(key, sub))

    def lx(key: str, sub: str | None = None) -> re.Pattern:
        """A pattern matched against lowercased text (the claim patterns): compiled without IGNORECASE,
        which makes the many claim searches of a long quote about a third faster."""
        value = data[key] if sub is None else data[key][sub]
        if re.search(r"(?<!\\)(?<!\(\?)[A-Z]", value):
            raise UserError(
                problems=[
                    Problem(
                        "this pattern is matched against lowercased text: write it in lower case",
                        str(path),
                        field=key if sub is None else f"{key}.{sub}",
                    )
                ]
            )
        try:
            return re.compile(value, _FLAGS & ~re.IGNORECASE)
        except re.error as exc:
            raise UserError(problems=[Problem(f"not a valid pattern: {exc}", str(path), field=key)]) from None

    def rxs(key: str) -> tuple[re.Pattern, ...]:
        return tuple(re.compile(p, _FLAGS) for p in data[key])

    return Vocab(
        numerals={str(k): int(v) for k, v in data["numerals"].items()},
        quantity=rxs("quantity"),
        width_context=rx("width_context"),
        spec_after=rx("spec_after"),
        prices=rxs("prices"),
        total_line=rx("total_line"),
        title_line=rx("title_line"),
        kind_words={k: rx("kind_words", k) for k in data["kind_words"]},
        generic_words=frozenset(str(w).lower() for w in [*data["generic_words"], *data["brand_words"]]),
        card_vendors={
            str(k).lower(): frozenset(str(w).lower() for w in v) for k, v in data["card_vendors"].items()
        },
        card_chip_words=frozenset(str(w).lower() for w in data["card_chip_words"]),
        variant_suffixes=tuple(str(w).lower() for w in data["variant_suffixes"]),
        psu_models=rx("psu_models"),
        psu_series=rx("psu_series"),
        watts=rx("watts"),
        redundant=rx("redundant"),
        usable=rx("usable"),
        ram_modules=rxs("ram_modules"),
        ram_total=rx("ram_total"),
        ram_size=rx("ram_size"),
        spec_line=rx("spec_line"),
        not_nvme=rx("not_nvme"),
        accessory=rx("accessory"),
        m2_socket=cased("m2_socket"),
        board_slots=rx("board_slots"),
        claims={k: lx("claims", k) for k in data["claims"]},
        pooled_size=lx("pooled_size"),
        runs_at=lx("runs_at"),
        psu_margin=lx("psu_margin"),
        psu_verbs=lx("psu_verbs"),
        psu_sustained=lx("psu_sustained"),
        negation_after=lx("negation_after"),
        negation=lx("negation"),
        not_included=lx("not_included"),
        scope_one=lx("scope_one"),
        scope_all_pairs=lx("scope_all_pairs"),
        question=lx("question"),
        prose=rx("prose"),
        notes_label=rx("notes_label"),
        gift=rx("gift"),
        notes_keys=frozenset(str(k).lower() for k in data["notes_keys"]),
        label_kinds={
            **{str(w).lower(): "none" for w in data["no_part_labels"]},
            **{str(w).lower(): kind for kind, ws in data["label_kinds"].items() for w in ws},
        },
        example_words=rx("example_words"),
        hypothetical=rx("hypothetical"),
        inline_separators=cased("inline_separators"),
        not_asserted=lx("not_asserted"),
    )
