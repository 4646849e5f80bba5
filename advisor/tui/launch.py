"""`advisor tui` and `advisor serve`: the planner app in a terminal or a browser (the commands of this face)."""

from __future__ import annotations

import sys
from pathlib import Path

from advisor.base.errors import UserError


def cmd_tui(args) -> int:
    from advisor.model.catalog.store import load_catalog
    from advisor.tui.app import AdvisorApp

    for path in [args.build, args.quote, *args.measurement]:
        if path and not Path(path).is_file():
            raise UserError(f"{path}: no such file", hint="check the path")
    app = AdvisorApp(args.build, load_catalog([Path(d) for d in args.catalog]), args.quote, args.measurement)
    app.run()
    return app.return_code or 0


def cmd_serve(args) -> int:
    import shlex

    try:
        from textual_serve.server import Server
    except ImportError:
        raise UserError("advisor serve needs textual-serve", hint="pip install textual-serve") from None
    if args.build and not Path(args.build).is_file():
        raise UserError(f"{args.build}: no such file", hint="check the path")
    command = shlex.join(
        [sys.executable, "-m", "advisor", "tui", *([str(Path(args.build).resolve())] if args.build else [])]
    )
    print(f"advisor: serving the planner at http://{args.host}:{args.port} (Ctrl+C stops)", file=sys.stderr)
    Server(command, host=args.host, port=args.port, title="advisor").serve()
    return 0
