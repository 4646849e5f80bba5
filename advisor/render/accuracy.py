"""`advisor accuracy` as people read it: the model's predictions against published measurements."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from advisor.model.accuracy import run_cases, summary


def render_accuracy(as_json: bool = False, console: Console | None = None) -> str | None:
    """The bandwidth model on calibration/cases.yaml: JSON text, or a table printed to the console."""
    rows, skipped = run_cases()
    s = summary(rows)
    if as_json:
        return json.dumps(
            {"summary": s, "rows": [r.to_json() for r in rows], "not_described": skipped}, indent=2
        )
    t = Table(title="Predicted vs measured (calibration/cases.yaml)")
    for col in ("case", "metric", "where", "variant", "measured", "predicted", "error"):
        t.add_column(col, overflow="fold")
    for r in rows:
        err = "" if r.error is None else f"{100 * r.error:+.0f}%"
        if r.metric == "path":
            err = "ok" if r.predicted == r.measured else "[red]differs[/]"
        elif r.error is not None and abs(r.error) > 0.15:
            err = f"[yellow]{err}[/]"
        t.add_row(r.case, r.metric, r.where, r.variant, str(r.measured), str(r.predicted), err)
    con = console or Console()
    con.print(t)
    for sk in skipped:
        con.print(f"[yellow]not described[/]: {sk['case']}: {sk['reason']}")
    con.print(
        f"{s['figures']} figures: median absolute error {s['median_abs_error_pct']}%, "
        f"{s['within_15pct']} within 15%; path classes {s['paths_right']}/{s['paths']} right"
    )
    return None
