"""What a quote is read into: its lines (each reported once, with how it was read), the claims its
sentences make, and the Quote that holds them with the build assembled from its parts. The reader fills
these in stages (formats, items, match, claims, assemble); the checks read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.quote.match import Found


@dataclass
class QuoteLine:
    line: int
    text: str
    status: str  # part | recognized | not_in_catalog | title | total | claim | header | continued | other
    parts: list[Found] = field(default_factory=list)
    qty: int = 1
    qty_source: str = ""
    qty_unclear: bool = False
    qty_readings: tuple[int, ...] = ()  # the counts an unclear quantity could be, the one used first
    price: float | None = None
    currency: str | None = None
    shape: str = (
        ""  # row | bullet | label | inline | heading | rule | prose | short (advisor/quote/segment.py)
    )
    read_as: str = (
        ""  # how the line was read, for --explain ("a mention outside the parts list: not counted")
    )
    mentions: list = field(default_factory=list)  # a prose line's sentences that name parts (segment.Mention)


@dataclass
class Claim:
    text: str
    line: int
    about: str  # pcie, p2p, nvlink, pooled_memory, psu, numa, numa_split, full_speed, fit
    negated: bool = False
    gen: int | None = None
    width: int | None = None  # x16, x8
    runs_at: tuple[int, int] | None = None  # the link the claim itself says it runs at
    scope: str = "all"  # all | one | pairs (every pair, for NVLink)
    margin: bool = False  # a PSU claim of headroom ("plenty of headroom"), not only of enough power
    sustained: bool = False  # a PSU claim about the sustained load only ("für die Dauerlast")
    memory_gb: int | None = None  # the GPU memory a pooled-memory claim says the cards make ("叠加成48G")
    channels: int | None = (
        None  # the memory channels a claim says the platform has ("四通道", "8-Channel DDR5")
    )
    # a pooled-memory claim read from a size alone ("48G显存"): one only if no single card holds that much
    size_only: bool = False


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
    details: dict = field(default_factory=dict)  # a structured quote's other keys (vendor, title, totals)
    unplaced_nvme: int = 0  # drives whose M.2 socket the quote does not name
    selected: bool = False  # the parts list was chosen among the lines: titles fill nothing more
    build_error: str = ""  # why the parts read make no valid build (reported, never an exit)
    title_mismatch: list[str] = field(default_factory=list)

    @property
    def matched(self) -> list[QuoteLine]:
        return [x for x in self.lines if x.status in ("part", "recognized")]

    def of_status(self, status: str) -> list[QuoteLine]:
        return [x for x in self.lines if x.status == status]
