"""`advisor accuracy` as people read it: the model's predictions against published measurements."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from advisor.i18n import N_, _, pgettext, retell
from advisor.model.accuracy import held_out_summary, leave_one_out, loo_summary, run_cases, summary
from advisor.render.layout import Col, hang, print_table, terminal_console

# the names the figures are grouped and placed by (the JSON keeps them as they are), said in the run's
# language in the tables: a metric kind, a family (advisor.model.intervals.family), where a figure was
# measured; transports and metric names stay as NCCL and the tools write them
WORDS = (
    N_("all"),
    N_("bandwidth"),
    N_("latency"),
    N_("host copy"),
    N_("all-reduce network"),
    N_("latency {transport}"),
    N_("all-reduce {transport}"),
    N_("GPU-GPU copy {transport}"),
    N_("all GPUs"),
    N_("{n} nodes"),
)
# what advisor.workload.accuracy says itself of a case (the cases' own notes, from calibration/, are
# the maintainers' and stay as written)
CASE_WORDS = (N_("predicted not to fit"), N_("not explained"))
# the workload model's classes of speed-up (advisor.workload.confidence.CLASSES)
CLASS_NAMES = {
    "compute-bound": N_("compute-bound"),
    "staged comm-bound": N_("staged comm-bound"),
    "P2P": N_("P2P"),
    "NVLink": N_("NVLink"),
    "serving": N_("serving"),
}


def _coloured(colour: str, text: str) -> str:
    return f"[{colour}]{escape(text)}[/]"


def _said(name: str) -> str:
    return escape(retell(name, WORDS, depth=0))


def _klass(name: str | None) -> str:
    return _(CLASS_NAMES[name]) if name in CLASS_NAMES else name or ""


def _not_described(con: Console, skipped: list[dict]) -> None:
    for sk in skipped:
        hang(
            con,
            _coloured("yellow", _("not described")) + ": ",
            escape(_("{case}: {reason}").format(case=sk["case"], reason=sk["reason"])),
        )


def _error(r) -> str:
    err = "" if r.error is None else f"{100 * r.error:+.0f}%"
    if r.metric == "path":
        err = "ok" if r.predicted == r.measured else _coloured("red", _("differs"))
    elif r.error is not None and abs(r.error) > 0.15:
        err = f"[yellow]{err}[/]"
    return err


def _cells(r, *values) -> list[str]:
    """A figure's case, metric, where and variant, then `values`, as table cells."""
    return [escape(str(r.case)), escape(str(r.metric)), _said(str(r.where)), escape(str(r.variant))] + [
        escape(str(x)) for x in values
    ]


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
    cols = [Col(_("case"), "key")] + [
        Col(h)
        for h in (
            _("metric"),
            _("where"),
            _("variant"),
            _("measured"),
            _("predicted"),
            pgettext("figure", "error"),
        )
    ]
    rows_out = [_cells(r, r.measured, r.predicted) + [_error(r)] for r in rows]
    con = console or terminal_console()
    print_table(con, cols, rows_out, title=_("Predicted vs measured (calibration/cases.yaml)"), group=0)
    _not_described(con, skipped)
    hang(
        con,
        "",
        escape(
            _(
                "Calibration (in sample): {figures} figures, median absolute error {median}%, {within} within "
                "15%; path classes {right}/{paths} right"
            ).format(
                figures=s["figures"],
                median=s["median_abs_error_pct"],
                within=s["within_15pct"],
                right=s["paths_right"],
                paths=s["paths"],
            )
        ),
    )
    _render_held_out(held, held_skipped, h, con)
    return None


def _render_held_out(held, skipped: list[dict], h: dict, con: Console) -> None:
    """The held-out cases: each figure, then the error by metric and family and the intervals' coverage."""
    cols = [Col(_("case"), "key")] + [
        Col(x)
        for x in (
            _("metric"),
            _("where"),
            _("variant"),
            _("measured"),
            _("predicted"),
            pgettext("figure", "error"),
            _("in 80% range"),
        )
    ]
    out = []
    for r in held:
        inside = "" if r.inside is None else (escape(_("yes")) if r.inside else _coloured("yellow", _("no")))
        out.append(_cells(r, r.measured, r.predicted) + [_error(r), inside])
    print_table(
        con,
        cols,
        out,
        title=_("Held out (calibration/held-out.yaml: no constant is fitted on these)"),
        group=0,
    )
    _not_described(con, skipped)
    cols = [
        Col(_("figures"), "key"),
        Col("n", justify="right"),
        Col(_("median abs error"), justify="right"),
    ]
    cols += [Col(_("within 15%"), justify="right"), Col(_("in 80% range"), justify="right")]
    cov = h["coverage"]["by_family"]
    table = []
    for name, g in [("all", h["all"])] + [(k, v) for k, v in h["by_metric"].items() if k != "path"]:
        c = h["coverage"] if name == "all" else None
        table.append(
            [
                _said(name),
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
                _said(name),
                str(g["figures"]),
                "-" if g["median_abs_error_pct"] is None else f"{g['median_abs_error_pct']}%",
                f"{g['within_15pct']}/{g['figures']}",
                f"{c['inside']}/{c['figures']}" if c else "-",
            ]
        )
    print_table(con, cols, table, title=_("Held out: error by metric and family"))
    p = h["by_metric"]["path"]
    c = h["coverage"]
    hang(
        con,
        "",
        escape(
            _(
                "Held out: {cases} machines; path classes {right}/{paths} right; {inside} of {figures} measured "
                "figures ({pct}%) inside their 80% range (nominal {nominal}%), the ranges built from the "
                "calibration cases' leave-one-out errors."
            ).format(
                cases=h["cases"],
                right=p["right"],
                paths=p["figures"],
                inside=c["inside"],
                figures=c["figures"],
                pct=c["pct"],
                nominal=c["nominal_pct"],
            )
        ),
    )


def _render_loo(rows, s: dict, con: Console) -> None:
    cols = [Col(_("case"), "key")] + [Col(h) for h in (_("metric"), _("where"), _("variant"), _("measured"))]
    cols += [
        Col(_("in sample")),
        Col(_("out of sample")),
        Col(_("refit without this case"), "prose"),
    ]
    out = []
    for r in rows:
        if r.error is None:
            continue
        ins = f"{r.predicted} ({100 * r.error:+.0f}%)"
        if r.loo is None:
            oos = "-"
            note = escape(
                _("rests on this case alone: {constants}").format(constants=", ".join(r.rests_on_own_case))
            )
        else:
            oos = f"{r.loo:.2f} ({100 * r.loo_error:+.0f}%)"
            note = ""
            if abs(r.loo_error) > 0.15:
                oos = f"[yellow]{oos}[/]"
        out.append(_cells(r, r.measured) + [escape(ins), oos, note])
    print_table(con, cols, out, title=_("Leave one out (calibration/cases.yaml)"), group=0)
    cols = [Col(_("figures"), "key"), Col("n", justify="right"), Col(_("in sample"), justify="right")]
    cols += [Col(_("out of sample"), justify="right"), Col(_("within 15%"), justify="right")]
    cols += [Col(_("own case only"), justify="right")]
    table = []
    groups = [("all", s["all"])] + list(s["by_metric"].items()) + list(s["by_family"].items())
    for name, g in groups:
        table.append(
            [
                _said(name),
                str(g["figures"]),
                f"{g['in_sample_median_pct']}%",
                "-"
                if g["loo_median_pct"] is None
                else _("{pct}% of {n}").format(pct=g["loo_median_pct"], n=g["loo_figures"]),
                f"{g['loo_within_15pct']}/{g['loo_figures']}",
                str(g["rest_on_own_case"]),
            ]
        )
    print_table(con, cols, table, title=_("Median absolute error, in sample and leave-one-out"))
    c = s["coverage"]
    hang(
        con,
        "",
        escape(
            _(
                "80% ranges (rules/intervals.yaml): {inside} of {figures} measured figures ({pct}%, nominal "
                "{nominal}%) fall inside the range of their leave-one-out prediction, each range computed "
                "without the figure's own case. Path classes {right}/{paths} right."
            ).format(
                inside=c["inside"],
                figures=c["figures"],
                pct=c["pct"],
                nominal=c["nominal_pct"],
                right=s["paths_right"],
                paths=s["paths"],
            )
        ),
    )


def render_workload_accuracy(console: Console | None = None) -> None:
    """`advisor accuracy --workload` as a table: published 1-GPU vs N-GPU speed-ups against the workload
    model (calibration/workload-cases.yaml), then the figures in sample, left out one at a time and held
    out, by class. The JSON form is advisor.workload.accuracy.render."""
    from advisor.workload.accuracy import held_out_coverage
    from advisor.workload.accuracy import run_cases as workload_cases
    from advisor.workload.accuracy import summary as workload_summary
    from advisor.workload.confidence import CLASSES, COVERAGE, intervals

    rows, skipped = workload_cases()
    s = workload_summary(rows)
    cols = [
        Col(_("case"), "key"),
        Col(pgettext("how many GPUs", "GPUs"), justify="right"),
        Col(_("measured"), justify="right"),
    ]
    cols += [
        Col(_("predicted"), justify="right"),
        Col(pgettext("figure", "error"), justify="right"),
        Col(_("class")),
    ]
    cols += [Col(_("note"), "prose")]
    out = []
    for r in rows:
        loo = (
            _("left out: {speedup}x").format(speedup=f"{r.loo:.2f}")
            if r.in_sample and r.loo is not None
            else ""
        )
        tag = _("held out") if r.held_out else _("in-sample") if r.in_sample else ""
        note = _("; ").join(x for x in (tag, loo, retell(r.note, CASE_WORDS, depth=0)) if x)
        out.append(
            [
                escape(r.case),
                str(r.gpus),
                f"{r.measured:.2f}x",
                "-" if r.predicted is None else f"{r.predicted:.2f}x",
                "" if r.error is None else f"{100 * r.error:+.0f}%",
                escape(_klass(r.klass)),
                escape(note),
            ]
        )
    con = console or terminal_console()
    print_table(
        con, cols, out, title=_("1-GPU vs N-GPU speed-ups (calibration/workload-cases.yaml)"), group=0
    )
    _not_described(con, skipped)
    _compute_fit_table(con)
    labels = {
        "in_sample": _("in sample (fitted on)"),
        "leave_one_out": _("leave-one-out"),
        "held_out": _("held out"),
    }
    cols = [
        Col(_("speed-ups"), "key"),
        Col("n", justify="right"),
        Col(_("median error"), justify="right"),
    ]
    cols += [Col(_("within 15%"), justify="right"), Col(_("sign right"), justify="right")]
    table = []
    for name in ("in_sample", "leave_one_out", "held_out"):
        p = s[name]
        groups = [
            (labels[name], p),
            ("  " + _("comm-bound (efficiency < 85%)"), p["communication_bound"]),
        ]
        groups += [(f"  {_klass(k)}", p["by_class"][k]) for k in CLASSES]
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
    print_table(con, cols, table, title=_("Median absolute error of the speed-ups"))
    hang(
        con,
        "",
        escape(
            _(
                "In sample: the cases the constants are fitted on. Leave-one-out: every calibration case, "
                "predicted with the constants refitted without it. Held out: cases kept apart, never fitted on "
                "and not looked at while the model was built."
            )
        ),
    )
    heads = {
        "in_sample": N_("in-sample: "),
        "leave_one_out": N_("leave-one-out: "),
        "held_out": N_("held-out: "),
    }
    for label in ("in_sample", "leave_one_out", "held_out"):
        p = s[label]
        if p["figures"]:
            hang(
                con,
                escape(_(heads[label])),
                escape(
                    _(
                        "{figures} speed-ups over {cases} cases, median absolute error {median}%, {within15} "
                        "within 15%, {within25} within 25%; slower-than-one-GPU called right {right}/{figures}"
                    ).format(
                        figures=p["figures"],
                        cases=p["cases"],
                        median=p["median_abs_error_pct"],
                        within15=p["within_15pct"],
                        within25=p["within_25pct"],
                        right=p["slower_than_one_gpu_right"],
                    )
                ),
            )
    for iv in intervals().values():
        # the sentence of Interval.words(), said here in the run's language
        words = _(
            "{klass}: {coverage}% of its {figures} published speed-ups, each predicted without its own case, "
            "fell within x{lo}-{hi} of the prediction (median error {median}%)"
        ).format(
            klass=_klass(iv.klass),
            coverage=round(100 * COVERAGE),
            figures=iv.figures,
            lo=f"{iv.lo:.2f}",
            hi=f"{iv.hi:.2f}",
            median=f"{iv.median_abs_error_pct:.0f}",
        )
        large = " " + _coloured("yellow", _("(large errors)")) if iv.large else ""
        hang(con, escape(_("typical range: ")), escape(words) + large)
    cov = held_out_coverage(rows)
    if cov["figures"]:
        hang(
            con,
            "",
            escape(
                _(
                    "{inside} of {figures} held-out speed-ups fall inside their class's typical range "
                    "(rules/workload-intervals.yaml)."
                ).format(inside=cov["inside"], figures=cov["figures"])
            ),
        )
    sets = {"in_sample": N_("in-sample"), "leave_one_out": N_("leave-one-out"), "held_out": N_("held-out")}
    for o in s["off_by_more_than_2x"]:
        hang(
            con,
            _coloured("yellow", _("more than 2x off")) + ": ",
            escape(
                _(
                    "{case} on {gpus} GPUs ({set}): {measured}x measured, {predicted}x predicted; why: {why}"
                ).format(
                    case=o["case"],
                    gpus=o["gpus"],
                    set=_(sets[o["set"]]) if o["set"] in sets else o["set"].replace("_", "-"),
                    measured=f"{o['measured_speedup']:.2f}",
                    predicted=f"{o['predicted_speedup']:.2f}",
                    why=retell(o["why"], CASE_WORDS, depth=0),
                )
            ),
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
    cols = [
        Col(_("case"), "key"),
        Col(_("measured"), justify="right"),
        Col(_("predicted"), justify="right"),
    ]
    cols += [
        Col(pgettext("figure", "error"), justify="right"),
        Col(_("left out"), justify="right"),
        Col(pgettext("figure", "error"), justify="right"),
    ]
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
    print_table(con, cols, out, title=_("1-GPU training micro-step (the compute fit)"), group=0)
    gemm, traffic = compute_fit(rows)
    med = statistics.median(abs(r["error_pct"]) for r in table)
    loo = statistics.median(abs(r["loo_error_pct"]) for r in table)
    hang(
        con,
        escape(_("compute fit: ")),
        escape(
            _(
                "gemm_efficiency {gemm}, activation_traffic_factor {traffic} over {n} published 1-GPU steps; "
                "median absolute error {median}% in sample, {loo}% leave-one-out"
            ).format(
                gemm=f"{gemm:.3f}",
                traffic=f"{traffic:.2f}",
                n=len(rows),
                median=f"{med:.1f}",
                loo=f"{loo:.1f}",
            )
        ),
    )
    for lf in left:
        hang(
            con,
            _coloured("yellow", _("not in the compute fit")) + ": ",
            escape(_("{case}: {reason}").format(case=lf["case"], reason=lf["reason"])),
        )
