"""`advisor validate`: a vendor's quote read, matched to the catalog, its claims judged against the prediction."""

from __future__ import annotations

import sys
from pathlib import Path

from advisor.base.errors import UserError


def cmd_validate(args) -> int:
    from advisor.cli.output import drawing_or_page, start_report, write_report
    from advisor.model.catalog.store import load_catalog
    from advisor.quote.check import evaluate_quote
    from advisor.quote.reader import read_quote
    from advisor.render.quote import render

    fmt = "json" if args.json else args.format
    start_report(args.output, fmt)
    if args.quote == "-":
        raw, name = (
            sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode(),
            "<stdin>",
        )
    else:
        name = args.quote
        try:
            raw = Path(args.quote).read_bytes()
        except OSError as exc:
            raise UserError(f"{args.quote}: cannot read the quote: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(
            f"{name}: this is not a text file (not UTF-8)", hint="save the quote as text, CSV or YAML"
        ) from None
    catalog = load_catalog([Path(d) for d in args.catalog])
    quote = read_quote(text, name, catalog)
    result = evaluate_quote(quote, catalog, tuple(args.rules))
    if fmt in ("html", "svg", "png"):
        from advisor.render.report import validate_html

        if fmt != "html" and result.plan is None:
            raise UserError(
                f"{name}: the build the quote describes could not be evaluated, so there is no machine to draw"
                + (f" ({result.build_problems[0]})" if result.build_problems else ""),
                hint="--format html reports the quote without the drawing",
            )
        write_report(args.output, drawing_or_page(fmt, result.plan, lambda: validate_html(result)))
    else:
        write_report(args.output, render(result, fmt, explain=getattr(args, "explain", False)))
    if getattr(args, "save_prices", None):
        _save_prices(args, quote, name)
    return result.exit_code


def _save_prices(args, quote, name: str) -> None:
    """The quote's prices as a price list for `advisor recommend --prices`, written atomically; what was left
    out, and why, on stderr."""
    import datetime as dt

    from advisor.base.yamlio import atomic_write
    from advisor.model.prices import price_list_yaml
    from advisor.quote.prices import quote_prices

    day = args.quote_date or dt.date.today().isoformat()
    try:
        dt.date.fromisoformat(day)
    except ValueError:
        raise UserError(f"--quote-date {day[:20]!r} is not a date", hint="YYYY-MM-DD") from None
    prices, skipped = quote_prices(quote, day, Path(name).name)
    for why in skipped:
        print(f"{name}: {why}", file=sys.stderr)
    if not prices:
        raise UserError(
            f"{name}: no line names one catalog CPU, board or GPU with a price in USD or CNY: nothing to save"
        )
    atomic_write(args.save_prices, price_list_yaml(prices))
    print(f"{len(prices)} price(s) saved to {args.save_prices}", file=sys.stderr)
