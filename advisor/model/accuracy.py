"""`advisor accuracy`: the model against every published calibration case it can describe."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from advisor.base.errors import UserError
from advisor.base.resources import bundled
from advisor.base.yamlio import load_file
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.engine import build_from_data, evaluate


@dataclass
class Row:
    case: str
    metric: str
    where: str
    variant: str
    measured: float | str
    predicted: float | str | None
    error: float | None  # relative, signed

    def to_json(self) -> dict:
        return {
            "case": self.case,
            "metric": self.metric,
            "where": self.where,
            "variant": self.variant,
            "measured": self.measured,
            "predicted": self.predicted,
            "error_pct": None if self.error is None else round(100 * self.error, 1),
        }


def _value(pred, exp: dict):
    metric = exp["metric"]
    if metric == "busbw_gbps":
        return pred.allreduce.value if pred.allreduce else None
    if "gpu" in exp:
        g = next(p for p in pred.gpus if p.node.index == exp["gpu"])
        return {"h2d_gbps": g.h2d, "d2h_gbps": g.d2h, "h2d_all_gbps": g.h2d_all}[metric].value
    a, b = exp["pair"]
    p = next(p for p in pred.pairs if {p.a, p.b} == {a, b})
    if metric == "path":
        return p.path
    return {"uni_gbps": p.uni, "bidi_gbps": p.bidi, "latency_us": p.latency}[metric].value


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
                got = _value(pred, exp)
                meas = exp["value"]
                where = (
                    f"GPU{exp['gpu']}"
                    if "gpu" in exp
                    else f"{exp['pair'][0]}-{exp['pair'][1]}"
                    if "pair" in exp
                    else "all GPUs"
                )
                if isinstance(meas, str) or exp["metric"] == "path":
                    rows.append(Row(cid, exp["metric"], where, variant, meas, got, None))
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
