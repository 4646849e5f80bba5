"""`advisor accuracy` as people read it: the model's predictions against published measurements."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from advisor.model.accuracy import held_out_summary, leave_one_out, loo_summary, run_cases, summary
from advisor.render.layout import Col, hang, print_table, terminal_console


def render_accuracy(as_json: bool = False, console: Console | None = None, loo: bool = False) -> str | None:
    """The bandwidth model on calibration/cases.yaml, then on the held-out cases (calibration/held-out.yaml,
    machines no constant is fitted on): JSON text, or tables printed to the console. `loo`: each
    calibration figure also predicted out of sample (leave one out), and the error both ways."""
    rows, skipped = run_cases()
    held, held_skipped = run_cases(which="held-out")
    s = summary(rows)
    leave_one_out(rows)  # the intervals the held-out coverage checks are built from these
    if loo:
        s = s | {"leave_one_out": loo_summary(rows)}
    h = held_out_summary(held, rows)
    if as_json:
        from advisor.outputs.catalog import AccuracyOutput

        return AccuracyOutput(
            summary=s,
            rows=[r.to_json() for r in rows],
            not_described=skipped,
            held_out={
                "summary": h,
                "rows": [r.to_json() for r in held],
                "not_described": held_skipped,
            },
        ).json_text()
    con = console or terminal_console()
    if loo:
        _render_loo(rows, s["leave_one_out"], con)
        _render_held_out(held, held_skipped, h, con)
        return None
    # the case id is what `calibration/cases.yaml` and the docs name: printed whole; when the table does
    # not fit, each case heads its rows instead of being a column
    cols = [Col("case", "key")] + [
        Col(h) for h in ("metric", "where", "variant", "measured", "predicted", "error")
    ]
    rows_out = []
    for r in rows:
        err = "" if r.error is None else f"{100 * r.error:+.0f}%"
        if r.metric == "path":
            err = "ok" if r.predicted == r.measured else "[red]differs[/]"
        elif r.error is not None and abs(r.error) > 0.15:
            err = f"[yellow]{err}[/]"
        rows_out.append(
            [escape(str(x)) for x in (r.case, r.metric, r.where, r.variant, r.measured, r.predicted)] + [err]
        )
    con = console or terminal_console()
    print_table(con, cols, rows_out, title="Predicted vs measured (calibration/cases.yaml)", group=0)
    for sk in skipped:
        hang(con, "[yellow]not described[/]: ", f"{escape(sk['case'])}: {escape(sk['reason'])}")
    hang(
        con,
        "",
        f"Calibration (in sample): {s['figures']} figures, median absolute error "
        f"{s['median_abs_error_pct']}%, {s['within_15pct']} within 15%; path classes "
        f"{s['paths_right']}/{s['paths']} right",
    )
    _render_held_out(held, held_skipped, h, con)
    return None


def _render_held_out(held, skipped: list[dict], h: dict, con: Console) -> None:
    """The held-out cases: each figure, then the error by metric and family and the intervals' coverage."""
    cols = [Col("case", "key")] + [
        Col(x) for x in ("metric", "where", "variant", "measured", "predicted", "error", "in 80% range")
    ]
    out = []
    for r in held:
        err = "" if r.error is None else f"{100 * r.error:+.0f}%"
        if r.metric == "path":
            err = "ok" if r.predicted == r.measured else "[red]differs[/]"
        elif r.error is not None and abs(r.error) > 0.15:
            err = f"[yellow]{err}[/]"
        inside = "" if r.inside is None else ("yes" if r.inside else "[yellow]no[/]")
        out.append(
            [escape(str(x)) for x in (r.case, r.metric, r.where, r.variant, r.measured, r.predicted)]
            + [err, inside]
        )
    print_table(
        con, cols, out, title="Held out (calibration/held-out.yaml: no constant is fitted on these)", group=0
    )
    for sk in skipped:
        hang(con, "[yellow]not described[/]: ", f"{escape(sk['case'])}: {escape(sk['reason'])}")
    cols = [Col("figures", "key"), Col("n", justify="right"), Col("median abs error", justify="right")]
    cols += [Col("within 15%", justify="right"), Col("in 80% range", justify="right")]
    cov = h["coverage"]["by_family"]
    table = []
    for name, g in [("all", h["all"])] + [(k, v) for k, v in h["by_metric"].items() if k != "path"]:
        c = h["coverage"] if name == "all" else None
        table.append(
            [
                name,
                str(g["figures"]),
                "-" if g["median_abs_error_pct"] is None else f"{g['median_abs_error_pct']}%",
                f"{g['within_15pct']}/{g['figures']}",
                f"{c['inside']}/{c['figures']}" if c else "",
            ]
        )
    for name, g in h["by_family"].items():
        c = cov.get(name)
        table.append(
            [
                escape(name),
                str(g["figures"]),
                "-" if g["median_abs_error_pct"] is None else f"{g['median_abs_error_pct']}%",
                f"{g['within_15pct']}/{g['figures']}",
                f"{c['inside']}/{c['figures']}" if c else "-",
            ]
        )
    print_table(con, cols, table, title="Held out: error by metric and family")
    p = h["by_metric"]["path"]
    c = h["coverage"]
    hang(
        con,
        "",
        f"Held out: {h['cases']} machines; path classes {p['right']}/{p['figures']} right; "
        f"{c['inside']} of {c['figures']} measured figures ({c['pct']}%) inside their 80% range "
        f"(nominal {c['nominal_pct']}%), the ranges built from the calibration cases' leave-one-out errors.",
    )


def _render_loo(rows, s: dict, con: Console) -> None:
    cols = [Col("case", "key")] + [Col(h) for h in ("metric", "where", "variant", "measured")]
    cols += [Col("in sample"), Col("out of sample"), Col("refit without this case", "prose")]
    out = []
    for r in rows:
        if r.error is None:
            continue
        ins = f"{r.predicted} ({100 * r.error:+.0f}%)"
        if r.loo is None:
            oos, note = "-", "rests on this case alone: " + ", ".join(r.rests_on_own_case)
        else:
            oos = f"{r.loo:.2f} ({100 * r.loo_error:+.0f}%)"
            note = ""
            if abs(r.loo_error) > 0.15:
                oos = f"[yellow]{oos}[/]"
        out.append(
            [escape(str(x)) for x in (r.case, r.metric, r.where, r.variant, r.measured)] + [ins, oos, note]
        )
    print_table(con, cols, out, title="Leave one out (calibration/cases.yaml)", group=0)
    cols = [Col("figures", "key"), Col("n", justify="right"), Col("in sample", justify="right")]
    cols += [Col("out of sample", justify="right"), Col("within 15%", justify="right")]
    cols += [Col("own case only", justify="right")]
    table = []
    groups = [("all", s["all"])] + list(s["by_metric"].items()) + list(s["by_family"].items())
    for name, g in groups:
        table.append(
            [
                escape(name),
                str(g["figures"]),
                f"{g['in_sample_median_pct']}%",
                "-" if g["loo_median_pct"] is None else f"{g['loo_median_pct']}% of {g['loo_figures']}",
                f"{g['loo_within_15pct']}/{g['loo_figures']}",
                str(g["rest_on_own_case"]),
            ]
        )
    print_table(con, cols, table, title="Median absolute error, in sample and leave-one-out")
    c = s["coverage"]
    hang(
        con,
        "",
        f"80% ranges (rules/intervals.yaml): {c['inside']} of {c['figures']} measured figures ({c['pct']}%, "
        f"nominal {c['nominal_pct']}%) fall inside the range of their leave-one-out prediction, each range "
        f"computed without the figure's own case. Path classes {s['paths_right']}/{s['paths']} right.",
    )


def render_workload_accuracy(console: Console | None = None) -> None:
    """`advisor accuracy --workload` as a table: published 1-GPU vs N-GPU speed-ups against the workload
    model (calibration/workload-cases.yaml), then the figures in sample, left out one at a time and held
    out, by class. The JSON form is advisor.workload.accuracy.render."""
    from advisor.workload.accuracy import held_out_coverage
    from advisor.workload.accuracy import run_cases as workload_cases
    from advisor.workload.accuracy import summary as workload_summary
    from advisor.workload.confidence import CLASSES, intervals

    rows, skipped = workload_cases()
    s = workload_summary(rows)
    cols = [Col("case", "key"), Col("GPUs", justify="right"), Col("measured", justify="right")]
    cols += [Col("predicted", justify="right"), Col("error", justify="right"), Col("class")]
    cols += [Col("note", "prose")]
    out = []
    for r in rows:
        loo = f"left out: {r.loo:.2f}x" if r.in_sample and r.loo is not None else ""
        tag = "held out" if r.held_out else "in-sample" if r.in_sample else ""
        note = "; ".join(x for x in (tag, loo, r.note) if x)
        out.append(
            [
                escape(r.case),
                str(r.gpus),
                f"{r.measured:.2f}x",
                "-" if r.predicted is None else f"{r.predicted:.2f}x",
                "" if r.error is None else f"{100 * r.error:+.0f}%",
                escape(r.klass or ""),
                escape(note),
            ]
        )
    con = console or terminal_console()
    print_table(con, cols, out, title="1-GPU vs N-GPU speed-ups (calibration/workload-cases.yaml)", group=0)
    for sk in skipped:
        hang(con, "[yellow]not described[/]: ", f"{escape(sk['case'])}: {escape(sk['reason'])}")
    _compute_fit_table(con)
    labels = {
        "in_sample": "in sample (fitted on)",
        "leave_one_out": "leave-one-out",
        "held_out": "held out",
    }
    cols = [Col("speed-ups", "key"), Col("n", justify="right"), Col("median error", justify="right")]
    cols += [Col("within 15%", justify="right"), Col("sign right", justify="right")]
    table = []
    for name in ("in_sample", "leave_one_out", "held_out"):
        p = s[name]
        groups = [
            (labels[name], p),
            ("  comm-bound (efficiency < 85%)", p["communication_bound"]),
        ]
        groups += [(f"  {k}", p["by_class"][k]) for k in CLASSES]
        for label, g in groups:
            table.append(
                [
                    escape(label),
                    str(g["figures"]),
                    "-" if g["median_abs_error_pct"] is None else f"{g['median_abs_error_pct']}%",
                    f"{g['within_15pct']}/{g['figures']}",
                    f"{g['slower_than_one_gpu_right']}/{g['figures']}",
                ]
            )
    print_table(con, cols, table, title="Median absolute error of the speed-ups")
    hang(
        con,
        "",
        "In sample: the cases the constants are fitted on. Leave-one-out: every calibration case, "
        "predicted with the constants refitted without it. Held out: cases kept apart, never fitted on "
        "and not looked at while the model was built.",
    )
    for label in ("in_sample", "leave_one_out", "held_out"):
        p = s[label]
        if p["figures"]:
            hang(
                con,
                f"{label.replace('_', '-')}: ",
                f"{p['figures']} speed-ups over {p['cases']} cases, "
                f"median absolute error {p['median_abs_error_pct']}%, {p['within_15pct']} within 15%, "
                f"{p['within_25pct']} within 25%; slower-than-one-GPU called right "
                f"{p['slower_than_one_gpu_right']}/{p['figures']}",
            )
    for iv in intervals().values():
        hang(con, "typical range: ", escape(iv.words()) + (" [yellow](large errors)[/]" if iv.large else ""))
    cov = held_out_coverage(rows)
    if cov["figures"]:
        hang(
            con,
            "",
            f"{cov['inside']} of {cov['figures']} held-out speed-ups fall inside their class's typical range "
            "(rules/workload-intervals.yaml).",
        )
    for o in s["off_by_more_than_2x"]:
        hang(
            con,
            "[yellow]more than 2x off[/]: ",
            f"{escape(o['case'])} on {o['gpus']} GPUs ({o['set'].replace('_', '-')}): {o['measured_speedup']:.2f}x "
            f"measured, {o['predicted_speedup']:.2f}x predicted; why: {escape(o['why'])}",
        )


def _compute_fit_table(con: Console) -> None:
    """The 1-GPU training step times gemm_efficiency and activation_traffic_factor are fitted on, each
    predicted in sample and with both constants refitted without it."""
    import statistics

    from advisor.workload.accuracy import compute_fit, compute_rows, compute_summary

    rows, left = compute_rows()
    if not rows:
        return
    table = compute_summary(rows)
    cols = [Col("case", "key"), Col("measured", justify="right"), Col("predicted", justify="right")]
    cols += [Col("error", justify="right"), Col("left out", justify="right"), Col("error", justify="right")]
    out = [
        [
            escape(r["case"]),
            f"{r['measured_ms']:.0f} ms",
            f"{r['predicted_ms']:.0f} ms",
            f"{r['error_pct']:+.0f}%",
            f"{r['loo_predicted_ms']:.0f} ms",
            f"{r['loo_error_pct']:+.0f}%",
        ]
        for r in table
    ]
    print_table(con, cols, out, title="1-GPU training micro-step (the compute fit)", group=0)
    gemm, traffic = compute_fit(rows)
    med = statistics.median(abs(r["error_pct"]) for r in table)
    loo = statistics.median(abs(r["loo_error_pct"]) for r in table)
    hang(
        con,
        "compute fit: ",
        f"gemm_efficiency {gemm:.3f}, activation_traffic_factor {traffic:.2f} over {len(rows)} published "
        f"1-GPU steps; median absolute error {med:.1f}% in sample, {loo:.1f}% leave-one-out",
    )
    for lf in left:
        hang(con, "[yellow]not in the compute fit[/]: ", f"{escape(lf['case'])}: {escape(lf['reason'])}")
