"""`advisor validate`: a vendor's quote read, matched to the catalog, its claims judged against the prediction."""

from __future__ import annotations

import sys
from pathlib import Path

from advisor.base.errors import UserError


def cmd_validate(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.quote.check import evaluate_quote
    from advisor.quote.reader import read_quote
    from advisor.render.quote import render

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
    result = evaluate_quote(read_quote(text, name, catalog), catalog, tuple(args.rules))
    print(
        render(result, "json" if args.json else args.format, explain=getattr(args, "explain", False)), end=""
    )
    return result.exit_code
