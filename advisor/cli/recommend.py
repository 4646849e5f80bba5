"""`advisor recommend`: the builds of the catalog that run a job best for their price."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from advisor.base.errors import UserError

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
            f"--budget {text[:40]!r} is not an amount", hint="e.g. --budget 40000 --currency CNY, or '$8000'"
        )
    pre, number, scale, post = m.groups()
    amount = float(number.replace(",", ""))
    amount *= {"k": 1e3, "w": 1e4, "万": 1e4}.get((scale or "").lower(), 1)
    said = [c for c in (currency_of(pre) if pre else None, currency_of(post) if post else None) if c]
    if scale and scale.lower() in ("w", "万"):
        said.append("CNY")
    if len(set(said)) > 1 or (said and currency and said[0] != currency):
        raise UserError(f"--budget {text!r} and --currency {currency} name two currencies")
    cur = currency or (said[0] if said else "USD")
    if not (0 < amount <= MAX_BUDGET):
        raise UserError(f"--budget must be above 0 and at most {MAX_BUDGET:,} (got {amount:,.0f})")
    return amount, cur


def parse_circuit(text: str) -> tuple[float, float]:
    """'220x10', '220V x 10A', '120 V 15 A' -> (volts, amps)."""
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*v?\s*[x*×, ]\s*(\d+(?:\.\d+)?)\s*a?\s*$", text[:40], re.I)
    if not m:
        raise UserError(
            f"--circuit {text[:40]!r}: write VOLTS x AMPS", hint="e.g. --circuit 220x10 or 120x15"
        )
    volts, amps = float(m.group(1)), float(m.group(2))
    if not (90 <= volts <= 480 and 1 <= amps <= 100):
        raise UserError(f"--circuit {text!r}: volts 90-480 and amps 1-100")
    return volts, amps


def parse_own(items: list[str], catalog) -> tuple[tuple[str, int], ...]:
    from advisor.model.prices import resolve_any

    out: dict[str, int] = {}
    for item in items:
        name, _, count = item.rpartition(":") if ":" in item else (item, "", "1")
        if not count.strip().isdigit() or not (1 <= int(count) <= 16):
            raise UserError(f"--own {item!r}: write PART or PART:COUNT (1 to 16)")
        part = resolve_any(catalog, name, ("--own", None, None))
        out[part] = out.get(part, 0) + int(count)
    return tuple(out.items())


def parse_day(text: str | None) -> dt.date:
    if text is None:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UserError(f"--as-of {text[:20]!r} is not a date", hint="YYYY-MM-DD") from None


def cmd_recommend(args) -> int:
    from advisor.cli.plan import workload_from_args
    from advisor.model.catalog.store import load_catalog
    from advisor.model.prices import PriceBook, read_price_list
    from advisor.recommend import Constraints, recommend
    from advisor.recommend.output import answer_output

    catalog = load_catalog([Path(d) for d in args.catalog])
    budget, currency = (None, args.currency or "USD")
    if args.budget is not None:
        budget, currency = parse_budget(args.budget, args.currency)
    user = []
    for path in args.prices or []:
        user += read_price_list(path, catalog)
    book = PriceBook(catalog, currency, parse_day(args.as_of), user)
    constraints = Constraints(
        budget=budget,
        min_gpus=args.min_gpus,
        max_gpus=args.max_gpus,
        form=args.form,
        circuit=parse_circuit(args.circuit) if args.circuit else None,
        used=args.used,
        own=parse_own(args.own or [], catalog),
        exclude_vendors=tuple(args.exclude_vendor or ()),
    )
    workload = workload_from_args(args)
    answer = recommend(workload, catalog, book, constraints)
    out = answer_output(answer)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        print(out.json_text())
    elif fmt == "markdown":
        from advisor.render.recommend import render_markdown

        print(render_markdown(out), end="")
    else:
        from advisor.render.layout import terminal_console
        from advisor.render.recommend import render_text

        render_text(out, terminal_console())
    return 0 if answer.front else 1
