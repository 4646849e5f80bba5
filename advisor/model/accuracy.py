"""`advisor accuracy`: the model against every published case it can describe.

Two sets of cases: calibration/cases.yaml, which the constants are fitted on (in sample, and leave one
out), and calibration/held-out.yaml, machines no constant rests on, written down before the model was
run on them: the error there is what the model does on a machine it never saw, and the share of their
measured values inside the figures' 80% intervals checks the intervals."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from advisor.base.errors import UserError
from advisor.base.resources import bundled
from advisor.base.yamlio import load_file
from advisor.model.buildfile import build_from_data
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.engine import evaluate


@dataclass
class Row:
    case: str
    metric: str
    where: str
    variant: str
    measured: float | str
    predicted: float | str | None
    error: float | None  # relative, signed
    transport: str = (
        ""  # nvlink | pcie-p2p | staged (pairs), host (copies to a GPU), P2P/SHM/NVLink (all-reduce)
    )
    groups: tuple[tuple[str, str], ...] = ()  # the (constant, entry) pairs the prediction rests on
    loo: float | None = None  # the prediction with every constant refitted without this case
    loo_error: float | None = None
    rests_on_own_case: list[str] = field(default_factory=list)  # constants fitted on this case alone
    exact: float | None = None  # the prediction unrounded
    inside: bool | None = None  # held out: the measured value inside the prediction's 80% range

    def to_json(self) -> dict:
        out = {
            "case": self.case,
            "metric": self.metric,
            "where": self.where,
            "variant": self.variant,
            "measured": self.measured,
            "predicted": self.predicted,
            "error_pct": None if self.error is None else round(100 * self.error, 1),
        }
        if self.inside is not None:
            out["inside_80pct_range"] = self.inside
        if self.loo is not None or self.rests_on_own_case:
            out["loo_predicted"] = None if self.loo is None else round(self.loo, 2)
            out["loo_error_pct"] = None if self.loo_error is None else round(100 * self.loo_error, 1)
            if self.rests_on_own_case:
                out["rests_on_own_case"] = self.rests_on_own_case
        return out

    @property
    def family(self) -> str:
        """Which interval a figure of this kind takes: its metric kind and transport."""
        from advisor.model.intervals import family

        return family(self.metric, self.transport)


CASE_FILES = {"calibration": "cases.yaml", "held-out": "held-out.yaml"}


def _value(pred, exp: dict):
    """(the predicted value, its Figure or None, its transport)."""
    metric = exp["metric"]
    if metric in ("h2d_sum_gbps", "d2h_sum_gbps"):
        f = pred.host_sum.get(metric[:3])
        return (f.value if f else None), f, "host"
    if metric == "busbw_gbps":
        f = pred.allreduce
        return (f.value if f else None), f, ((f.transport or "") if f else "")
    if "gpu" in exp:
        g = next(p for p in pred.gpus if p.node.index == exp["gpu"])
        f = {"h2d_gbps": g.h2d, "d2h_gbps": g.d2h, "h2d_all_gbps": g.h2d_all}[metric]
        return f.value, f, "host"
    a, b = exp["pair"]
    p = next(p for p in pred.pairs if {p.a, p.b} == {a, b})
    if metric == "path":
        return p.nvml_path, None, p.via  # published topo -m matrices print NVML's label
    f = {"uni_gbps": p.uni, "bidi_gbps": p.bidi, "latency_us": p.latency}[metric]
    return f.value, f, p.via


def _groups(f) -> tuple[tuple[str, str], ...]:
    if f is None:
        return ()
    return tuple(dict.fromkeys((c, f.keys.get(c, "")) for c in f.constants))


def run_cases(catalog: Catalog | None = None, which: str = "calibration") -> tuple[list[Row], list[dict]]:
    """Every expected figure of one case file (`which`: calibration or held-out) against the model."""
    catalog = catalog or load_catalog()
    path = bundled("calibration") / CASE_FILES[which]
    data = load_file(path)
    rows: list[Row] = []
    skipped: list[dict] = []
    for case in data["cases"]:
        cid = case["id"]
        try:
            base = build_from_data(case["build"], f"{path}:{case['build'].line}")
            for exp in case["expect"]:
                build = base
                variant = ""
                if exp.get("software"):
                    sw = base.software.model_copy(update=dict(exp["software"]))
                    build = base.model_copy(update={"software": sw})
                    variant = ", ".join(f"{k}={v}" for k, v in exp["software"].items())
                pred = evaluate(build, catalog)
                got, fig, transport = _value(pred, exp)
                meas = exp["value"]
                where = (
                    f"GPU{exp['gpu']}"
                    if "gpu" in exp
                    else f"{exp['pair'][0]}-{exp['pair'][1]}"
                    if "pair" in exp
                    else "all GPUs"
                    if build.nodes == 1
                    else f"{build.nodes} nodes"
                )
                if isinstance(meas, str) or exp["metric"] == "path":
                    rows.append(Row(cid, exp["metric"], where, variant, meas, got, None, transport))
                else:
                    err = None if got is None else (got - meas) / meas
                    rows.append(
                        Row(
                            cid,
                            exp["metric"],
                            where,
                            variant,
                            meas,
                            None if got is None else round(got, 2),
                            err,
                            transport,
                            _groups(fig),
                            exact=got,
                        )
                    )
        except UserError as exc:
            skipped.append({"case": cid, "reason": exc.render()})
    return rows, skipped


def summary(rows: list[Row]) -> dict:
    errs = [abs(r.error) for r in rows if r.error is not None]
    paths = [r for r in rows if r.metric == "path"]
    return {
        "figures": len(errs),
        "median_abs_error_pct": round(100 * statistics.median(errs), 1) if errs else None,
        "mean_abs_error_pct": round(100 * statistics.fmean(errs), 1) if errs else None,
        "within_15pct": sum(1 for e in errs if e <= 0.15),
        "paths_right": sum(1 for r in paths if r.predicted == r.measured),
        "paths": len(paths),
    }


# ---------------------------------------------------------------- leave-one-out


def leave_one_out(rows: list[Row]) -> None:
    """Each figure predicted again with the constants it rests on refitted without its own case.

    The fitted constants are medians of what each of their source cases implies (rules/model.yaml). A
    prediction is proportional to each efficiency, factor or latency it uses, so a case implies the
    constant times the median measured/predicted ratio of its figures that use that entry, and the
    refit without case k is the constant times median(ratios of the other cases) / median(ratios of
    all of them). A constant whose only source case is k cannot be refitted: the figure is marked
    `rests_on_own_case` and left out of the leave-one-out figures, which is the honest count of what
    the model predicts out of sample. A figure using several constants makes each case's ratio a
    blend of them: the refit is an approximation of a full one, and says so in the README."""
    from advisor.model.constants import constants

    table = constants()
    cases_of: dict[tuple[str, str], dict[str, list[float]]] = {}
    for r in rows:
        if r.exact is None or r.error is None:
            continue
        for g in r.groups:
            c = table.get(g[0])
            if c is None or r.case not in c.sources:
                continue  # a constant from a URL, or one this case did not help fit
            cases_of.setdefault(g, {}).setdefault(r.case, []).append(float(r.measured) / r.exact)
    implied = {g: {k: statistics.median(v) for k, v in by.items()} for g, by in cases_of.items()}
    for r in rows:
        if r.exact is None or r.error is None:
            continue
        factor, own = 1.0, []
        for g in r.groups:
            by = implied.get(g)
            if not by or r.case not in by:
                continue
            others = [v for k, v in by.items() if k != r.case]
            if not others:
                own.append(g[0] + (f"[{g[1]}]" if g[1] else ""))
                continue
            factor *= statistics.median(others) / statistics.median(by.values())
        r.rests_on_own_case = own
        if not own:
            r.loo = r.exact * factor
            r.loo_error = (r.loo - float(r.measured)) / float(r.measured)


MIN_RESIDUALS = 8  # below this a family takes the pooled residuals of its metric kind
NOMINAL = 80  # the intervals' nominal coverage, percent: the 10th to the 90th percentile of the residuals


def _pool(r: Row) -> str:
    return "latency" if r.metric == "latency_us" else "bandwidth"


def _range(ratios: list[float]) -> tuple[float, float]:
    """An 80% range of measured / predicted from n residuals: the k-th smallest to the k-th largest, with
    k = floor(0.1 (n + 1)) (at least 1), the split-conformal rule, which holds a new residual of the same
    kind at least 80% of the time whatever their distribution; widened to hold 1.0, so a range always
    holds its own prediction. Residuals of one machine are not independent, which the held-out cases'
    coverage checks."""
    ordered = sorted(ratios)
    k = max(1, int(0.1 * (len(ordered) + 1)))
    return min(1.0, ordered[k - 1]), max(1.0, ordered[-k])


def intervals(rows: list[Row], without: str | None = None) -> dict[str, dict]:
    """Per family of figures, the 80% range of measured / (leave-one-out prediction) over the calibration's
    figures: a new prediction p falls between p x lo and p x hi four times in five if the family's
    out-of-sample errors are what they were. A family with fewer than MIN_RESIDUALS residuals takes its
    metric kind's pooled range, widened to hold its own residuals. `without` leaves a case out (for checking the ranges)."""
    use = [r for r in rows if r.loo is not None and r.case != without]
    fams: dict[str, list[Row]] = {}
    pools: dict[str, list[Row]] = {}
    for r in use:
        fams.setdefault(r.family, []).append(r)
        pools.setdefault(_pool(r), []).append(r)
    out = {}
    for fam, rs in sorted(fams.items()):
        pooled = len(rs) < MIN_RESIDUALS
        src = pools[_pool(rs[0])] if pooled else rs
        lo, hi = _range([float(r.measured) / r.loo for r in src])
        if pooled:  # the pooled range widened to hold the family's own residuals
            own = [float(r.measured) / r.loo for r in rs]
            lo, hi = min(lo, *own), max(hi, *own)
        out[fam] = {
            "lo": round(lo, 3),
            "hi": round(hi, 3),
            "figures": len(src),
            "nominal_coverage_pct": NOMINAL,
            "pooled": pooled,
            "cases": sorted({r.case for r in src}),
        }
    return out


def _inside(r: Row, value: float, fam: dict) -> bool:
    return value * fam["lo"] <= float(r.measured) <= value * fam["hi"]


def coverage(rows: list[Row]) -> dict:
    """How often a measured calibration figure falls inside the interval of its leave-one-out prediction,
    the interval itself computed without the figure's case, by family."""
    by: dict[str, list[bool]] = {}
    for case in sorted({r.case for r in rows if r.loo is not None}):
        iv = intervals(rows, without=case)
        for r in rows:
            if r.case != case or r.loo is None:
                continue
            fam = iv.get(r.family)
            if fam is None:  # the only case of its family: its metric kind's pooled range
                pool = [x for x in rows if x.loo is not None and x.case != case and _pool(x) == _pool(r)]
                if not pool:
                    continue
                lo, hi = _range([float(x.measured) / x.loo for x in pool])
                fam = {"lo": lo, "hi": hi}
            by.setdefault(r.family, []).append(_inside(r, r.loo, fam))
    return _coverage_summary(by)


def _coverage_summary(by: dict[str, list[bool]]) -> dict:
    flat = [x for v in by.values() for x in v]
    return {
        "inside": sum(flat),
        "figures": len(flat),
        "pct": round(100 * sum(flat) / len(flat), 1) if flat else None,
        "nominal_pct": NOMINAL,
        "by_family": {k: {"inside": sum(v), "figures": len(v)} for k, v in sorted(by.items())},
    }


def held_out_coverage(held: list[Row], calibration: list[Row]) -> dict:
    """The share of held-out measured values inside the 80% interval of their prediction, the intervals
    built from the calibration cases' leave-one-out errors alone, by family."""
    iv = intervals(calibration)
    by: dict[str, list[bool]] = {}
    for r in held:
        if r.exact is None or r.error is None:
            continue
        fam = iv.get(r.family)
        if fam is None:
            pool = [x for x in calibration if x.loo is not None and _pool(x) == _pool(r)]
            lo, hi = _range([float(x.measured) / x.loo for x in pool])
            fam = {"lo": lo, "hi": hi}
        r.inside = _inside(r, r.exact, fam)
        by.setdefault(r.family, []).append(r.inside)
    return _coverage_summary(by)


def held_out_summary(held: list[Row], calibration: list[Row]) -> dict:
    """The held-out cases' error by metric (bandwidth, latency, path class) and by family, and coverage."""

    def stats(rs: list[Row]) -> dict:
        errs = [abs(r.error) for r in rs if r.error is not None]
        return {
            "figures": len(errs),
            "median_abs_error_pct": round(100 * statistics.median(errs), 1) if errs else None,
            "within_15pct": sum(1 for e in errs if e <= 0.15),
        }

    num = [r for r in held if r.error is not None]
    paths = [r for r in held if r.metric == "path"]
    fams: dict[str, list[Row]] = {}
    for r in num:
        fams.setdefault(r.family, []).append(r)
    right = sum(1 for r in paths if r.predicted == r.measured)
    return {
        "cases": len({r.case for r in held}),
        "all": stats(num),
        "by_metric": {
            "bandwidth": stats([r for r in num if r.metric != "latency_us"]),
            "latency": stats([r for r in num if r.metric == "latency_us"]),
            "path": {
                "figures": len(paths),
                "right": right,
                "right_pct": round(100 * right / len(paths), 1) if paths else None,
            },
        },
        "by_family": {k: stats(v) for k, v in sorted(fams.items())},
        "coverage": held_out_coverage(held, calibration),
    }


def loo_summary(rows: list[Row]) -> dict:
    """In-sample and leave-one-out error, by metric kind and by transport."""

    def stats(rs: list[Row]) -> dict:
        ins = [abs(r.error) for r in rs if r.error is not None]
        loo = [abs(r.loo_error) for r in rs if r.loo_error is not None]
        return {
            "figures": len(ins),
            "in_sample_median_pct": round(100 * statistics.median(ins), 1) if ins else None,
            "loo_figures": len(loo),
            "loo_median_pct": round(100 * statistics.median(loo), 1) if loo else None,
            "loo_within_15pct": sum(1 for e in loo if e <= 0.15),
            "rest_on_own_case": sum(1 for r in rs if r.rests_on_own_case),
        }

    num = [r for r in rows if r.error is not None]
    kinds = {
        "bandwidth": [r for r in num if r.metric != "latency_us"],
        "latency": [r for r in num if r.metric == "latency_us"],
    }
    fams: dict[str, list[Row]] = {}
    for r in num:
        fams.setdefault(r.family, []).append(r)
    paths = [r for r in rows if r.metric == "path"]
    return {
        "all": stats(num),
        "by_metric": {k: stats(v) for k, v in kinds.items()},
        "by_family": {k: stats(v) for k, v in sorted(fams.items())},
        "paths_right": sum(1 for r in paths if r.predicted == r.measured),
        "paths": len(paths),
        "coverage": coverage(rows),
    }


def write_intervals(rows: list[Row]) -> str:
    """rules/intervals.yaml as text, from rows that leave_one_out has run on."""
    import yaml

    fams = intervals(rows)
    head = (
        "# Written by `advisor accuracy --write-intervals`: do not edit. Per family of predicted figures,\n"
        "# the 10th-90th percentile range of measured / leave-one-out prediction over calibration/cases.yaml\n"
        "# (sources: the cases listed; families with few figures pool their metric kind's): a prediction p is\n"
        "# between p x lo and p x hi four times in five. tests/test_accuracy.py keeps it equal to the cases.\n"
    )
    return head + yaml.safe_dump({"kind": "intervals", "families": fams}, sort_keys=False, width=100)
