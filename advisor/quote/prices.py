"""A validated quote's prices as a price list (`advisor validate QUOTE --save-prices FILE`), the form
`advisor recommend --prices` reads."""

from __future__ import annotations

from advisor.i18n import _
from advisor.model.prices import CURRENCIES
from advisor.quote.document import Quote

PRICED_KINDS = ("cpu", "board", "gpu")


def quote_prices(quote: Quote, date: str, where: str) -> tuple[list[tuple], list[str]]:
    """(part, unit price, currency, date, where, condition) for each line that names exactly one catalog CPU,
    board or GPU with a price in USD or CNY, and why each other priced line was left out. A line of
    several cards is saved only where the quote's count makes the unit price plain: one card, or a
    price the quote gave per unit; a price whose unit the line does not say is never divided."""
    out: list[tuple] = []
    skipped: list[str] = []
    for x in quote.lines:
        if x.price is None or x.status not in ("part", "recognized"):
            continue
        parts = [p for p in x.parts if p.kind in PRICED_KINDS and p.part_id and p.in_catalog]
        if len(parts) != 1 or len(x.parts) != 1:
            skipped.append(
                _("line {line}: the price covers {n} parts; not saved").format(line=x.line, n=len(x.parts))
            )
            continue
        if x.currency not in CURRENCIES:
            skipped.append(
                _("line {line}: price {price} in {currency}; advisor prices in USD or CNY: not saved").format(
                    line=x.line, price=f"{x.price:g}", currency=x.currency or _("no stated currency")
                )
            )
            continue
        if x.qty != 1:
            skipped.append(
                _(
                    "line {line}: {qty} x {part} at {price} {currency}: whether that is per unit or for all is "
                    "not said; not saved"
                ).format(
                    line=x.line, qty=x.qty, part=parts[0].name, price=f"{x.price:g}", currency=x.currency
                )
            )
            continue
        out.append((parts[0].part_id, x.price, x.currency, date, where, "new"))
    return out, skipped
