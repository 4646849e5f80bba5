"""`advisor validate`: a vendor's quote read, matched to the catalog, its claims judged against the prediction."""

from __future__ import annotations

import sys
from pathlib import Path

from advisor.base.errors import UserError
from advisor.base.inputs import MAX_BYTES, decode, read_bytes


def cmd_validate(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.quote.check import evaluate_quote
    from advisor.quote.reader import read_quote
    from advisor.render.quote import render

    if args.quote == "-":
        name = "<stdin>"
        raw = _read_stdin(MAX_BYTES)
    else:
        name = args.quote
        raw = read_bytes(args.quote)
    text = decode(raw, name, "a quote")
    catalog = load_catalog([Path(d) for d in args.catalog])
    result = evaluate_quote(read_quote(text, name, catalog), catalog, tuple(args.rules))
    print(
        render(result, "json" if args.json else args.format, explain=getattr(args, "explain", False)), end=""
    )
    return result.exit_code


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
