"""`advisor validate`: a vendor's quote read, matched to the catalog, its claims judged against the prediction."""

from __future__ import annotations

import sys
from pathlib import Path

from advisor.base.errors import UserError
from advisor.base.inputs import MAX_BYTES, decode, read_bytes
from advisor.i18n import _, ngettext


def cmd_validate(args) -> int:
    from advisor.cli.output import drawing_or_page, start_report, write_report
    from advisor.model.catalog.store import load_catalog
    from advisor.quote.check import evaluate_quote
    from advisor.quote.reader import read_quote
    from advisor.render.quote import render

    fmt = "json" if args.json else args.format
    start_report(args.output, fmt)
    if args.quote == "-":
        name = "<stdin>"
        raw = _read_stdin(MAX_BYTES)
    else:
        name = args.quote
        raw = read_bytes(args.quote)
    text = decode(raw, name, "a quote")
    catalog = load_catalog([Path(d) for d in args.catalog])
    quote = read_quote(text, name, catalog)
    result = evaluate_quote(quote, catalog, tuple(args.rules))
    if fmt in ("html", "svg", "png"):
        from advisor.render.report import validate_html

        if fmt != "html" and result.plan is None:
            raise UserError(
                _(
                    "{file}: the build the quote describes could not be evaluated, so there is no machine to draw"
                ).format(file=name)
                + (f" ({result.build_problems[0]})" if result.build_problems else ""),
                hint=_("--format html reports the quote without the drawing"),
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

    from advisor.base.files import atomic_write
    from advisor.model.prices import price_list_yaml
    from advisor.quote.prices import quote_prices

    day = args.quote_date or dt.date.today().isoformat()
    try:
        dt.date.fromisoformat(day)
    except ValueError:
        raise UserError(
            _("--quote-date {day} is not a date").format(day=repr(day[:20])), hint="YYYY-MM-DD"
        ) from None
    prices, skipped = quote_prices(quote, day, Path(name).name)
    for why in skipped:
        print(_("{file}: {note}").format(file=name, note=why), file=sys.stderr)
    if not prices:
        raise UserError(
            _(
                "{file}: no line names one catalog CPU, board or GPU with a price in USD or CNY: nothing to save"
            ).format(file=name)
        )
    atomic_write(args.save_prices, price_list_yaml(prices))
    print(
        ngettext("{n} price saved to {file}", "{n} prices saved to {file}", len(prices)).format(
            n=len(prices), file=args.save_prices
        ),
        file=sys.stderr,
    )


def _read_stdin(limit: int) -> bytes:
    """A quote piped in, read up to `limit` bytes: more is refused, never read to its end."""
    stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
    if stream is None:
        raw = sys.stdin.read(limit + 1).encode()
    else:
        raw = stream.read(limit + 1)
    if len(raw) > limit:
        raise UserError(
            f"<stdin>: is more than {limit:,} bytes; advisor reads files of at most {limit:,} bytes",
            hint="is this the right file? A quote is far smaller",
        )
    return raw
