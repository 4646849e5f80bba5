"""`advisor accuracy --workload`: predicted vs published 1-GPU vs N-GPU speed-ups
(calibration/workload-cases.yaml), with in-sample cases (a constant was fitted on them) apart."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from advisor.base.errors import UnknownFigure, UserError
from advisor.base.resources import bundled
from advisor.base.yamlio import load_file
from advisor.i18n import _
from advisor.model.buildfile import build_from_data
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.engine import evaluate
from advisor.workload import defaults
from advisor.workload.analyse import analyse
from advisor.workload.models import Workload
from advisor.workload.presets import resolve

TIME_METRICS = ("step_time_s", "seconds_per_epoch")


# The constants fitted on the cases (rules/workload.yaml): each one's value is the grid point that
# minimises the mean absolute log error of the speed-ups over the cases whose prediction depends on it
# (and that its selector admits); a case's leave-one-out prediction uses the values the other cases give.
FITTED = "overlap_under_shm"
GRID = tuple(round(0.05 * i, 2) for i in range(21))
# llama.cpp's row-split synchronisation: fitted on the decode cases only, where it is nearly all of the
# cost (a token's copies are a few KB); the prefill cases, whose copies are megabytes, test the copy term
ROW_FITTED = "row_split_sync_us"
ROW_GRID = tuple(float(v) for v in range(0, 101, 2))
# DataParallel: the extra host time per replica after the first, as a share of one replica's issue time
DP_FITTED = "dataparallel_host_share"
DP_GRID = tuple(round(0.01 * i, 2) for i in range(151))
# Staged (SHM) traffic on EPYC 7002 servers as a share of their host memory's rate: from 0.01, as the
# published runs reach a few percent of it
HOST_FITTED = "shm_host_memory_efficiency_epyc7002"
HOST_GRID = tuple(round(0.01 * i, 2) for i in range(1, 101))
# A serving engine's time per decode step besides the GPUs' work: fitted on the cases that name vLLM or SGLang
ENGINE_FITTED = "engine_decode_step_overhead_us"
ENGINE_GRID = tuple(float(v) for v in range(0, 8001, 250))
# TensorRT-LLM's time per tensor-parallel decode step: fitted on the cases that name it
TRT_FITTED = "trtllm_decode_step_overhead_us"
# the host's round trip at each GPU boundary of a layer split that no serving engine drives
LAYER_FITTED = "layer_split_sync_us"
LAYER_GRID = tuple(float(v) for v in range(0, 1001, 10))
# and its CPU work per running sequence per decode step (scheduling, input preparation, detokenising)
SEQ_FITTED = "engine_decode_per_sequence_us"
SEQ_GRID = tuple(float(v) for v in range(0, 301, 5))
# name: (grid, the cases it is fitted on, the value with no case to fit: the model without the constant)
FITS = {
    FITTED: (GRID, lambda case: True, 1.0),
    "overlap_under_p2p": (GRID, lambda case: True, 1.0),
    ROW_FITTED: (
        ROW_GRID,
        lambda case: case["run"].get("strategy") == "row" and case["run"].get("phase") == "decode",
        0.0,
    ),
    DP_FITTED: (DP_GRID, lambda case: case["run"].get("strategy") == "dataparallel", 0.0),
    # the staged traffic of two-socket EPYC 7002 servers: fitted on the builds that name such a CPU
    HOST_FITTED: (HOST_GRID, lambda case: _cpu_family(case) == "amd-epyc-7002", 1.0),
    ENGINE_FITTED: (ENGINE_GRID, lambda case: _names_engine(case), 0.0),
    SEQ_FITTED: (SEQ_GRID, lambda case: _names_engine(case), 0.0),
    TRT_FITTED: (ENGINE_GRID, lambda case: _names_engine(case, ("tensorrt-llm",)), 0.0),
    LAYER_FITTED: (
        LAYER_GRID,
        lambda case: (
            case["run"].get("strategy") == "pp"
            and case["run"].get("task") == "infer"
            and _engine_of(case) is None
        ),
        0.0,
    ),
}


def _engine_of(case: dict) -> str | None:
    """The serving engine the case's build names (software.engine), else None: the layer split's host wait
    is the model's only where no engine drives the split."""
    build = case.get("build") or {}
    software = build.get("software") or (build.get("topology") or {}).get("software") or {}
    return software.get("engine")


def _names_engine(case: dict, engines: tuple[str, ...] = ("vllm", "sglang")) -> bool:
    """The case's build names one of these serving engines (by default vLLM or SGLang, whose overheads are
    fitted together)."""
    return _engine_of(case) in engines


def _cpu_family(case: dict) -> str | None:
    """The catalog family of the CPU a case's build names (one name for every socket), else None."""
    from advisor.model.catalog.store import load_catalog

    build = case.get("build") or {}
    names = {build.get("cpu")} | {s.get("cpu") for s in (build.get("topology") or {}).get("sockets") or []}
    names.discard(None)
    if len(names) != 1:
        return None
    try:
        cpu = load_catalog().resolve(str(names.pop()), "cpu")
    except UserError:
        return None
    return getattr(cpu, "family", None)


@dataclass
class Row:
    case: str
    gpus: int
    measured: float  # speed-up over one GPU, from the published values
    predicted: float | None
    in_sample: bool
    note: str = ""
    loo: float | None = None  # the prediction with the fitted constant refitted without this case
    held_out: bool = False  # a case kept apart: no constant is fitted on it, the model was not built on it
    klass: str | None = None  # advisor.workload.confidence's class of the predicted speed-up
    why_off: str = ""  # the case's `why_off`: why its prediction is far off, where that is known

    @property
    def error(self) -> float | None:
        return None if self.predicted is None else (self.predicted - self.measured) / self.measured

    @property
    def out_of_sample(self) -> float | None:
        """The prediction made without this case: refitted without it where a constant rests on it."""
        return self.loo if self.in_sample else self.predicted

    def to_json(self) -> dict:
        return {
            "case": self.case,
            "gpus": self.gpus,
            "measured_speedup": round(self.measured, 3),
            "predicted_speedup": None if self.predicted is None else round(self.predicted, 3),
            "error_pct": None if self.error is None else round(100 * self.error, 1),
            "in_sample": self.in_sample,
            "held_out": self.held_out,
            "class": self.klass,
            "loo_predicted_speedup": None if self.loo is None else round(self.loo, 3),
            "note": self.note,
            "why_off": self.why_off,
        }


def _workload(run: dict) -> tuple[Workload, str]:
    """A case's run; a field it does not give takes advisor.workload.defaults' value."""
    return defaults.workload(
        run["task"],
        resolve(str(run["model"])),
        strategy=run["strategy"],
        precision=run.get("precision"),
        batch=None if run.get("batch") is None else int(run["batch"]),
        seq=None if run.get("seq") is None else int(run["seq"]),
        accum=None if run.get("accum") is None else int(run["accum"]),
        prompt=None if run.get("prompt") is None else int(run["prompt"]),
        gen=None if run.get("gen") is None else int(run["gen"]),
        recompute=bool(run.get("recompute", False)),
        framework=run.get("framework"),
        accum_sync=run.get("accum_sync"),
        optimizer=run.get("optimizer"),
        lora_rank=None if run.get("lora_rank") is None else int(run["lora_rank"]),
        base_bits=None if run.get("base_bits") is None else int(run["base_bits"]),
        quant=run.get("quant"),
        kv_cache=run.get("kv_cache"),
        baseline_batch=None if run.get("baseline_batch") is None else int(run["baseline_batch"]),
        baseline_accum=None if run.get("baseline_accum") is None else int(run["baseline_accum"]),
        baseline_recompute=run.get("baseline_recompute"),
        attention=run.get("attention"),
        param_dtype=run.get("param_dtype"),
        host_memory_gbps=None if run.get("host_memory_gbps") is None else float(run["host_memory_gbps"]),
        max_num_seqs=None if run.get("max_num_seqs") is None else int(run["max_num_seqs"]),
    ), run.get("phase", "")


def _rate(cfg, phase: str, w: Workload) -> float:
    """The figure the published metric measures: samples/s for training, decode or prefill tokens/s."""
    if phase == "decode":
        return w.batch / cfg.extra["decode_step"].value
    if phase == "prefill":
        return w.batch * w.prompt / cfg.extra["ttft"].value
    return cfg.throughput.value


def case_files() -> list:
    """The calibration files of published 1-GPU vs N-GPU results: workload-cases.yaml and any
    workload-cases-*.yaml beside it (one file per gathering, each with its own held-out draw)."""
    folder = bundled("calibration")
    return [folder / "workload-cases.yaml", *sorted(folder.glob("workload-cases-*.yaml"))]


def _cases(catalog: Catalog, held_out: bool = True):
    """(case, build, prediction, workload, phase, measured values) of every described case, and the skipped.
    held_out=False leaves the held-out cases out (the fits never see them)."""
    out, skipped = [], []
    for path in case_files():
        more, also = _cases_in(path, catalog, held_out)
        out += more
        skipped += also
    return out, skipped


def _cases_in(path, catalog: Catalog, held_out: bool):
    data = load_file(path)
    out, skipped = [], []
    for case in data["cases"]:
        cid = case["id"]
        if case.get("skip"):
            skipped.append({"case": cid, "reason": case["skip"]})
            continue
        if case.get("held_out") and not held_out:
            continue
        try:
            build = build_from_data(case["build"], f"{path}:{case['build'].line}")
            pred = evaluate(build, catalog)
            w, phase = _workload(case["run"])
            values = {int(k): float(v) for k, v in case["measured"]["values"].items()}
        except UserError as exc:
            skipped.append({"case": cid, "reason": exc.render()})
            continue
        out.append((case, build, pred, w, phase, values))
    return out, skipped


def _predict(item, catalog: Catalog) -> list[tuple[int, float, float | None, str, str | None]]:
    """(GPUs, measured speed-up, predicted speed-up or None, note, class) for each measured GPU count above 1."""
    from advisor.workload.confidence import config_class

    case, build, pred, w, phase, values = item
    base = values[1]
    out = []
    for n, v in sorted(values.items()):
        if n == 1:
            continue
        measured = base / v if case["measured"]["metric"] in TIME_METRICS else v / base
        try:
            a = analyse(build, w.but(gpus=n), catalog, pred, advise=False)
        except UserError as exc:
            out.append((n, measured, None, exc.problems[0].message, None))
            continue
        if not (a.one.fits and a.many.fits):
            out.append((n, measured, None, "predicted not to fit", None))
            continue
        klass = config_class(w.task, a.fabric.transport, a.many)
        out.append((n, measured, _rate(a.many, phase, w) / _rate(a.one, phase, w), "", klass))
    return out


def _log_error(table: dict[str, dict[float, list]], value: float, leave_out: str | None = None) -> float:
    """Mean absolute log error of the speed-ups at one grid value (a too-high and a too-low prediction by
    the same factor weigh the same; a mean is stable where a median jumps between flat stretches)."""
    errs = [
        abs(math.log(p / m))
        for cid, by in table.items()
        if cid != leave_out
        for _, m, p, *_ in by[value]
        if p is not None and p > 0 and m > 0
    ]
    return statistics.fmean(errs) if errs else float("inf")


def fit(table: dict[str, dict[float, list]], leave_out: str | None = None, name: str = FITTED) -> float:
    """The grid value of a fitted constant with the smallest mean log error over the cases (but one)."""
    grid, _, prior = FITS[name]
    if not any(cid != leave_out for cid in table):
        return prior  # no other case to fit it on: the model without it
    return min(grid, key=lambda v: (round(_log_error(table, v, leave_out), 9), -v))


def fit_table(catalog: Catalog | None = None, name: str = FITTED, items=None):
    """Each case's predictions at every grid value of a fitted constant, for the cases that depend on it."""
    from advisor.model.constants import overridden

    catalog = catalog or load_catalog()
    if items is None:
        items, _ = _cases(catalog, held_out=False)
    grid, admits, _ = FITS[name]
    table: dict[str, dict[float, list]] = {}
    for item in items:
        if item[0].get("held_out") or not admits(item[0]):
            continue
        by = {}
        for value in grid:
            with overridden(**{name: value}):
                by[value] = _predict(item, catalog)
        if any(by[v] != by[grid[-1]] for v in grid):
            table[item[0]["id"]] = by
    return table


@dataclass
class ComputeRow:
    """One published 1-GPU training step of a transformer, split the way the compute model splits it."""

    case: str
    measured_s: float  # one micro-step, from the published throughput (optimizer step taken out)
    gemm_s: float  # FLOPs / peak: the GEMM term at gemm_efficiency 1
    memory_s: float  # activations / (bandwidth x decode_memory_efficiency): the memory term per unit factor
    accum: int = 1

    def predict(self, gemm_eff: float, traffic: float) -> float:
        return self.gemm_s / gemm_eff + self.memory_s * traffic


def compute_rows(catalog: Catalog | None = None) -> tuple[list[ComputeRow], list[dict]]:
    """The 1-GPU figures gemm_efficiency and activation_traffic_factor are fitted on: every described
    transformer training case, except those whose `compute_fit: false` says why their 1-GPU figure
    cannot be used (given as the second list)."""
    from advisor.model.constants import const
    from advisor.workload.hardware import device
    from advisor.workload.train import activation_bytes, optimizer_time, transformer_flops

    catalog = catalog or load_catalog()
    items, _skipped = _cases(catalog, held_out=False)
    rows, left = [], []
    for case, _build, pred, w, _phase, values in items:
        if w.task != "train" or not w.model.transformer or 1 not in values:
            continue
        # the 1-GPU figure is the 1-GPU run's: its own batch, accumulation and recomputation where the
        # published comparison set them apart
        w = w.but(
            batch=w.baseline_batch or w.batch,
            accum=w.baseline_accum or w.accum,
            recompute=w.recompute if w.baseline_recompute is None else w.baseline_recompute,
        )
        if case.get("compute_fit") is False:
            left.append({"case": case["id"], "reason": case.get("compute_fit_why", "")})
            continue
        try:
            dev = device(pred, 1, w.precision, True)
        except UnknownFigure as exc:
            # a GPU whose peak or memory bandwidth the catalog lacks: its step says nothing of the fit
            left.append({"case": case["id"], "reason": exc.render()})
            continue
        rate = values[1]
        metric = case["measured"]["metric"]
        if metric == "seconds_per_epoch":
            # the time of a whole epoch: the number of steps in it is the data set's, not the run's
            left.append(
                {"case": case["id"], "reason": _("an epoch's time, not a step's: no step time to fit on")}
            )
            continue
        step = (
            rate
            if metric == "step_time_s"
            else w.batch * w.accum / (rate / w.seq if metric == "tokens_per_s" else rate)
        )
        micro = (step - optimizer_time(w, dev, 1).value) / w.accum
        flops = transformer_flops(w)[0]
        acts = activation_bytes(w)[0] * (
            const("recompute_flops_factor", file="workload.yaml") / 6 if w.recompute else 1
        )
        eff = const("decode_memory_efficiency", file="workload.yaml")
        rows.append(
            ComputeRow(
                case["id"],
                micro,
                flops / (dev.peak_tflops * 1e12),
                acts / (dev.mem_gbps * 1e9 * eff),
                w.accum,
            )
        )
    return rows, left


def compute_fit(rows: list[ComputeRow], leave_out: str | None = None) -> tuple[float, float]:
    """(gemm_efficiency, activation_traffic_factor) minimising the squared relative error of the 1-GPU
    micro-step times: least squares in x = 1/gemm_efficiency and y = the factor, t = x g + y m."""
    sel = [r for r in rows if r.case != leave_out]
    # minimise sum((x g + y m) / t - 1)^2: the normal equations of a 2-parameter linear fit
    gg = sum((r.gemm_s / r.measured_s) ** 2 for r in sel)
    mm = sum((r.memory_s / r.measured_s) ** 2 for r in sel)
    gm = sum(r.gemm_s * r.memory_s / r.measured_s**2 for r in sel)
    g1 = sum(r.gemm_s / r.measured_s for r in sel)
    m1 = sum(r.memory_s / r.measured_s for r in sel)
    det = gg * mm - gm * gm
    x = (g1 * mm - m1 * gm) / det
    y = (gg * m1 - gm * g1) / det
    return 1 / x, y


COMPUTE_FITTED = ("gemm_efficiency", "activation_traffic_factor")


def compute_summary(rows: list[ComputeRow]) -> list[dict]:
    """Each 1-GPU figure: measured, predicted in sample and with the two constants refitted without it."""
    from advisor.model.constants import const

    now = (
        const("gemm_efficiency", file="workload.yaml"),
        const("activation_traffic_factor", file="workload.yaml"),
    )
    out = []
    for r in rows:
        pin = r.predict(*now)
        ploo = r.predict(*compute_fit(rows, leave_out=r.case))
        out.append(
            {
                "case": r.case,
                "measured_ms": round(1e3 * r.measured_s, 2),
                "predicted_ms": round(1e3 * pin, 2),
                "error_pct": round(100 * (pin / r.measured_s - 1), 1),
                "loo_predicted_ms": round(1e3 * ploo, 2),
                "loo_error_pct": round(100 * (ploo / r.measured_s - 1), 1),
            }
        )
    return out


def run_cases(catalog: Catalog | None = None) -> tuple[list[Row], list[dict]]:
    from advisor.model.constants import overridden

    catalog = catalog or load_catalog()
    items, skipped = _cases(catalog)
    fit_items = [item for item in items if not item[0].get("held_out")]
    tables = {name: fit_table(catalog, name, fit_items) for name in FITS}
    crow, _ = compute_rows(catalog)
    computed = {r.case for r in crow}
    rows: list[Row] = []
    for item in items:
        case = item[0]
        cid, held = case["id"], bool(case.get("held_out"))
        grid_fitted = [name for name, table in tables.items() if cid in table]
        fitted = not held and (bool(grid_fitted) or cid in computed or bool(case.get("fitted")))
        loo = None
        if fitted and (grid_fitted or cid in computed):
            over = {name: fit(tables[name], leave_out=cid, name=name) for name in grid_fitted}
            if cid in computed:
                over |= dict(zip(COMPUTE_FITTED, compute_fit(crow, leave_out=cid), strict=True))
            with overridden(**over):
                loo = _predict(item, catalog)
        for i, (n, measured, predicted, note, klass) in enumerate(_predict(item, catalog)):
            rows.append(
                Row(
                    cid,
                    n,
                    measured,
                    predicted,
                    fitted,
                    note,
                    loo[i][2] if loo else None,
                    held,
                    klass,
                    str(case.get("why_off", "")),
                )
            )
    return rows, skipped


def _part(sel: list[Row], pred) -> dict:
    """The figures of a set of rows: their errors with predictions `pred(row)` (None: not predicted)."""
    pairs = [(r, pred(r)) for r in sel]
    errs = [abs((p - r.measured) / r.measured) for r, p in pairs if p is not None]
    return {
        "figures": len(errs),
        "cases": len({r.case for r, p in pairs if p is not None}),
        "median_abs_error_pct": round(100 * statistics.median(errs), 1) if errs else None,
        "mean_abs_error_pct": round(100 * statistics.fmean(errs), 1) if errs else None,
        "within_15pct": sum(1 for e in errs if e <= 0.15),
        "within_25pct": sum(1 for e in errs if e <= 0.25),
        "slower_than_one_gpu_right": sum(
            1 for r, p in pairs if p is not None and (p < 1) == (r.measured < 1)
        ),
        "not_predicted": sum(1 for _, p in pairs if p is None),
    }


SETS = ("in_sample", "leave_one_out", "held_out")


def _set(rows: list[Row], name: str) -> tuple[list[Row], object]:
    """The rows of one of the report's sets and the prediction each is judged by."""
    if name == "in_sample":
        return [r for r in rows if r.in_sample], lambda r: r.predicted
    if name == "leave_one_out":
        return [r for r in rows if not r.held_out], lambda r: r.out_of_sample
    return [r for r in rows if r.held_out], lambda r: r.predicted


def comm_bound(r: Row) -> bool:
    """A speed-up that tests the communication model: measured scaling efficiency below 85%."""
    return r.measured / r.gpus < 0.85


def summary(rows: list[Row]) -> dict:
    from advisor.workload.confidence import CLASSES

    out: dict = {}
    for name in SETS:
        sel, pred = _set(rows, name)
        part = _part(sel, pred)
        part["communication_bound"] = _part([r for r in sel if comm_bound(r)], pred)
        part["by_class"] = {k: _part([r for r in sel if r.klass == k], pred) for k in CLASSES}
        out[name] = part
    # every speed-up predicted more than 2x off, out of sample, with what the case says of why
    out["off_by_more_than_2x"] = [
        {
            "case": r.case,
            "gpus": r.gpus,
            "set": "held_out" if r.held_out else "leave_one_out",
            "measured_speedup": round(r.measured, 3),
            "predicted_speedup": round(p, 3),
            "why": r.why_off or "not explained",
        }
        for r in rows
        for p in [r.out_of_sample]
        if p is not None and p > 0 and max(p / r.measured, r.measured / p) > 2
    ]
    return out


def class_intervals(rows: list[Row]) -> dict[str, dict]:
    """Each class's typical range of measured / predicted speed-up, from the leave-one-out predictions of
    the calibration cases (never the held-out ones): the central COVERAGE share of the ratios."""
    from advisor.workload.confidence import CLASSES, COVERAGE, is_large

    out = {}
    for k in CLASSES:
        ratios = sorted(
            r.measured / r.out_of_sample
            for r in rows
            if not r.held_out and r.klass == k and r.out_of_sample and r.out_of_sample > 0
        )
        if len(ratios) < 3:
            continue
        tail = (1 - COVERAGE) / 2
        lo = ratios[max(0, math.ceil(tail * len(ratios)) - 1)]
        hi = ratios[min(len(ratios) - 1, math.ceil((1 - tail) * len(ratios)) - 1)]
        med = statistics.median(abs(1 / x - 1) for x in ratios)
        out[k] = {
            "lo": round(lo, 3),
            "hi": round(hi, 3),
            "figures": len(ratios),
            "median_abs_error_pct": round(100 * med, 1),
            "large_errors": is_large(med, lo, hi),
            "cases": sorted({r.case for r in rows if not r.held_out and r.klass == k and r.out_of_sample}),
        }
    return out


def write_intervals(rows: list[Row]) -> str:
    """rules/workload-intervals.yaml as text."""
    import yaml

    head = (
        "# Written by `advisor accuracy --workload --write-intervals`: do not edit. Per class of predicted\n"
        "# speed-up (advisor.workload.confidence), the central 80% of measured / leave-one-out predicted\n"
        "# speed-up over the calibration cases of calibration/workload-cases.yaml, never the held-out ones (the\n"
        "# cases listed are its sources). tests/test_workload_confidence.py keeps this file equal to the cases.\n"
    )
    body = {"kind": "workload-intervals", "coverage_pct": 80, "classes": class_intervals(rows)}
    return head + yaml.safe_dump(body, sort_keys=False, width=110)


def held_out_coverage(rows: list[Row]) -> dict:
    """How many held-out speed-ups fall inside their class's range (rules/workload-intervals.yaml)."""
    from advisor.workload.confidence import interval_for

    inside = total = 0
    for r in rows:
        iv = interval_for(r.klass) if r.held_out else None
        if iv is None or not r.predicted:
            continue
        total += 1
        inside += iv.lo <= r.measured / r.predicted <= iv.hi
    return {"figures": total, "inside": inside}


def render(rows: list[Row], skipped: list[dict], as_json: bool) -> str:
    import json

    s = summary(rows)
    crow, left = compute_rows()
    gemm, traffic = compute_fit(crow) if crow else (None, None)
    return json.dumps(
        {
            "summary": s,
            "intervals": class_intervals(rows),
            "held_out_in_interval": held_out_coverage(rows),
            "rows": [r.to_json() for r in rows],
            "not_described": skipped,
            "compute_fit": {
                "gemm_efficiency": None if gemm is None else round(gemm, 4),
                "activation_traffic_factor": None if traffic is None else round(traffic, 3),
                "rows": compute_summary(crow),
                "not_used": left,
            },
        },
        indent=2,
    )
