"""`advisor recommend`: the builds of the catalog that run a job best for their price."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from advisor.base.errors import UserError
from advisor.i18n import _
from advisor.recommend.question import parse_budget, parse_circuit


def parse_own(items: list[str], catalog) -> tuple[tuple[str, int], ...]:
    from advisor.model.buildfile import count_as_written
    from advisor.model.prices import resolve_any

    out: dict[str, int] = {}
    for item in items:
        written = count_as_written(item, "--own")
        name, _colon, count = written.rpartition(":") if ":" in written else (written, "", "1")
        if not count.strip().isdigit() or not (1 <= int(count) <= 16):
            raise UserError(_("--own {item}: write PART or PART:COUNT (1 to 16)").format(item=repr(item)))
        part = resolve_any(catalog, name, ("--own", None, None))
        out[part] = out.get(part, 0) + int(count)
    return tuple(out.items())


def parse_day(text: str | None) -> dt.date:
    if text is None:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UserError(
            _("--as-of {text} is not a date").format(text=repr(text[:20])), hint="YYYY-MM-DD"
        ) from None


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
