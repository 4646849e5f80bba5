"""`advisor accuracy`: the model against every published calibration case it can describe."""

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


def _value(pred, exp: dict):
    """(the predicted value, its Figure or None, its transport)."""
    metric = exp["metric"]
    if metric == "busbw_gbps":
        f = pred.allreduce
        return (f.value if f else None), f, (f.inputs.get("transport", "") if f else "")
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


def run_cases(catalog: Catalog | None = None) -> tuple[list[Row], list[dict]]:
    catalog = catalog or load_catalog()
    path = bundled("calibration") / "cases.yaml"
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


MIN_RESIDUALS = 4  # below this a family also takes the pooled residuals of its metric kind


def _pool(r: Row) -> str:
    return "latency" if r.metric == "latency_us" else "bandwidth"


def intervals(rows: list[Row], without: str | None = None) -> dict[str, dict]:
    """Per family of figures, the range of measured / (leave-one-out prediction) over the calibration's
    figures: a new prediction p is typically between p x lo and p x hi. The range of n residuals holds a
    new one with probability (n-1)/(n+1) whatever their distribution (a distribution-free tolerance
    interval; 85% for 12), which `coverage` checks case by case. A family with fewer than 4 residuals
    takes its metric kind's pooled range widened to its own. `without` leaves a case out."""
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
        ratios = [float(r.measured) / r.loo for r in [*src, *rs]]
        n = len(src)
        out[fam] = {
            "lo": round(min(1.0, *ratios), 3),
            "hi": round(max(1.0, *ratios), 3),
            "figures": n,
            "expected_coverage_pct": round(100 * (n - 1) / (n + 1)),
            "pooled": pooled,
            "cases": sorted({r.case for r in src}),
        }
    return out


def coverage(rows: list[Row]) -> dict:
    """How often a measured figure falls inside the interval of its leave-one-out prediction, the
    interval itself computed without the figure's case: the check that the intervals mean what they say."""
    inside = total = 0
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
                ratios = [float(x.measured) / x.loo for x in pool]
                fam = {"lo": min(1.0, *ratios), "hi": max(1.0, *ratios)}
            total += 1
            inside += r.loo * fam["lo"] <= float(r.measured) <= r.loo * fam["hi"]
    return {"inside": inside, "figures": total, "pct": round(100 * inside / total, 1) if total else None}


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
        "# the range of measured / leave-one-out prediction over calibration/cases.yaml (sources: the cases\n"
        "# listed). A prediction p is typically between p x lo and p x hi; a range of n residuals holds a new\n"
        "# one with probability (n-1)/(n+1). tests/test_accuracy.py keeps this file equal to the cases.\n"
    )
    return head + yaml.safe_dump({"kind": "intervals", "families": fams}, sort_keys=False, width=100)
