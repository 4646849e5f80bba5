"""A recommendation's question as people write it: a budget with its currency, the room's circuit."""

from __future__ import annotations

import re

from advisor.base.errors import UserError
from advisor.i18n import _

MAX_BUDGET = 10_000_000
_BUDGET = re.compile(
    r"^\s*([$¥￥]|usd|cny|rmb)?\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*([kKwW万]?)\s*(usd|cny|rmb|元|yuan|dollars?)?\s*$",
    re.I,
)


def parse_budget(text: str, currency: str | None) -> tuple[float, str]:
    """'40000 CNY', '¥40,000', '4w', '4万', '$8000', '8k USD' -> (amount, currency). A currency named in
    the text and another in --currency is a contradiction, refused."""
    from advisor.model.prices import currency_of

    m = _BUDGET.match(text[:60])
    if not m:
        raise UserError(
            _("--budget {text} is not an amount").format(text=repr(text[:40])),
            hint=_("e.g. --budget 40000 --currency CNY, or '$8000'"),
        )
    pre, number, scale, post = m.groups()
    amount = float(number.replace(",", ""))
    amount *= {"k": 1e3, "w": 1e4, "万": 1e4}.get((scale or "").lower(), 1)
    said = [c for c in (currency_of(pre) if pre else None, currency_of(post) if post else None) if c]
    if scale and scale.lower() in ("w", "万"):
        said.append("CNY")
    if len(set(said)) > 1 or (said and currency and said[0] != currency):
        raise UserError(
            _("--budget {text} and --currency {currency} name two currencies").format(
                text=repr(text), currency=currency
            )
        )
    cur = currency or (said[0] if said else "USD")
    if not currency and not said:
        # a bare number is dollars to one buyer and yuan to another: say which it was read as
        from advisor.base.notices import note

        note(
            _(
                "--budget {text}: no currency written, read as USD (for yuan: --currency CNY, or ¥{text})"
            ).format(text=text.strip()[:40])
        )
    if not (0 < amount <= MAX_BUDGET):
        raise UserError(
            _("--budget must be above 0 and at most {most} (got {amount})").format(
                most=f"{MAX_BUDGET:,}", amount=f"{amount:,.0f}"
            )
        )
    return amount, cur


def parse_circuit(text: str) -> tuple[float, float]:
    """'220x10', '220V x 10A', '120 V 15 A' -> (volts, amps)."""
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*v?\s*[x*×, ]\s*(\d+(?:\.\d+)?)\s*a?\s*$", text[:40], re.I)
    if not m:
        raise UserError(
            _("--circuit {text}: write VOLTS x AMPS").format(text=repr(text[:40])),
            hint=_("e.g. --circuit 220x10 or 120x15"),
        )
    volts, amps = float(m.group(1)), float(m.group(2))
    if not (90 <= volts <= 480 and 1 <= amps <= 100):
        raise UserError(_("--circuit {text}: volts 90-480 and amps 1-100").format(text=repr(text)))
    return volts, amps
