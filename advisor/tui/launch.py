"""`advisor tui` and `advisor serve`: the planner app in a terminal or a browser (the commands of this face)."""

from __future__ import annotations

import os
from pathlib import Path

from advisor.base.errors import UserError
from advisor.i18n import _

# set by `advisor serve` (advisor/tui/serve.py) for the app processes it starts: the server's pid
SERVE_PARENT = "ADVISOR_SERVE_PARENT"
# The largest terminal a session may ask for, in cells: an 8K screen at a small font is under 1000 columns
# and 400 rows. A session's size comes from its browser (the WebSocket's URL, its resize messages); one of
# 100,000 columns made its app draw, and grow, without end.
MAX_COLUMNS = 1000
MAX_ROWS = 400


def terminal_size(width: object, height: object) -> tuple[int, int]:
    """A session's terminal size as the app gets it: whole numbers from 1 up to MAX_COLUMNS x MAX_ROWS;
    what is not a number is the usual 80 x 24."""
    return _cells(width, 80, MAX_COLUMNS), _cells(height, 24, MAX_ROWS)


def _cells(value: object, default: int, most: int) -> int:
    n = default
    if isinstance(value, (int, float, str, bytes)) and not isinstance(value, bool):
        try:
            n = int(value)
        except (ValueError, OverflowError):
            n = default
    return max(1, min(most, n))


def cmd_tui(args) -> int:
    served_by = os.environ.pop(SERVE_PARENT, None)
    if served_by:
        from advisor.base.process import end_with_parent

        # the server is gone without ending this app (killed): quit as on SIGTERM, exit in 3 s regardless
        end_with_parent(int(served_by), grace_s=3, name="advisor-serve-parent")
    from advisor.model.catalog.store import load_catalog
    from advisor.tui.app import AdvisorApp

    catalog = load_catalog([Path(d) for d in args.catalog])
    if served_by:
        # started ahead of its session by `advisor serve`: imported and ready, it waits for the
        # session to begin; the build is read from then on
        size = _wait_for_session()
        if size is None:
            return 0  # the server stopped first
        os.environ["COLUMNS"], os.environ["ROWS"] = size
    for path in [args.build, args.quote, *args.measurement]:
        if path and not Path(path).is_file():
            raise UserError(_("{path}: no such file").format(path=path), hint=_("check the path"))
    app = AdvisorApp(args.build, catalog, args.quote, args.measurement)
    app.run()
    return app.return_code or 0


def _wait_for_session() -> tuple[str, str] | None:
    """The line "WIDTH HEIGHT" that `advisor serve` writes when a browser session takes this process.
    Read a byte at a time from fd 0: what follows it is the session's input, read by textual."""
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            return None
        line += byte
    fields = line.split()
    width, height = terminal_size(*(fields + [b"", b""])[:2])
    return str(width), str(height)


def cmd_serve(args) -> int:
    try:
        from advisor.tui.serve import TOKEN_ENV, new_token, serve, startup_lines, token_problem
    except ImportError:
        raise UserError(_("advisor serve needs textual-serve"), hint="pip install textual-serve") from None
    if args.build and not Path(args.build).is_file():
        raise UserError(_("{path}: no such file").format(path=args.build), hint=_("check the path"))
    if args.max_sessions < 1:
        raise UserError(_("--max-sessions: needs 1 or more"), hint=_("the default is 4"))
    given, source = (
        (args.token, "--token") if args.token is not None else (os.environ.get(TOKEN_ENV), TOKEN_ENV)
    )
    if given:
        if problem := token_problem(given):
            raise UserError(f"{source}: {problem}", hint=_("or leave it out: each run makes its own"))
        token = given
    elif args.token is not None:
        raise UserError(_("--token: empty"), hint=_("or leave it out: each run makes its own"))
    else:
        token = new_token()  # ADVISOR_SERVE_TOKEN unset or empty
    # printed on the terminal once listening (like Jupyter's URL); the server logs neither the token
    # nor requests' URLs
    announce = startup_lines(args.host, args.port, token)
    serve(args.build, args.host, args.port, token=token, max_sessions=args.max_sessions, announce=announce)
    return 0
