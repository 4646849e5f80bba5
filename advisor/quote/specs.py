"""A part's spec as the quote writes it, checked against the catalog: "ASUS Pro WS W790E-SAGE SE (7x PCIe
5.0 x16)" or a CSV remark "7条PCIe 5.0 x16" describes the board, not this build, so it is not judged as a
vendor claim about the machine; it is compared with the board's slot table, and a disagreement is shown
(the vendor's spec, the catalog's, and its source) for the buyer to ask about."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.quote.document import Quote
from advisor.quote.vocab import vocab


@dataclass
class SpecCheck:
    line: int
    part_id: str
    says: str  # what the quote writes ("7x PCIe 5.0 x16")
    catalog: str  # what the catalog lists
    agrees: bool
    source: str | None  # the catalog entry's first source


def slot_specs(quote: Quote, catalog) -> list[SpecCheck]:
    out = []
    for x in quote.lines:
        for p in x.parts:
            board = catalog.get(p.part_id) if p.kind == "board" and p.part_id else None
            if board is None:
                continue
            low = x.text.lower()
            for m in vocab().board_slots.finditer(low):
                n, gen, width = int(m.group("n")), int(m.group("gen")), int(m.group("w"))
                if not 1 <= n <= 16 or width not in (1, 2, 4, 8, 16):
                    continue
                same = [s for s in board.slots if (s.physical or s.width) == width and s.gen >= gen]
                slots = board.slots
                listed = (
                    f"{len(same)} slot(s) of Gen{gen} or faster, x{width} long, among {len(slots)} slot(s): "
                    + ", ".join(f"{s.name} Gen{s.gen} x{s.width}" for s in slots)
                )
                out.append(
                    SpecCheck(
                        x.line,
                        board.id,
                        (x.text[m.start() : m.end()] if len(low) == len(x.text) else m.group(0)).strip(),
                        listed,
                        len(same) == n,
                        (board.sources or [None])[0],
                    )
                )
    return out
