"""One assessment behind every face: a typed Request in, a frozen Assessment out.

The pipeline is catalog -> prediction -> workload analysis -> findings -> comparison -> verdict. It is
wired here and only here: the CLI, the app, the browser face and the quote check each build a Request
and render the Assessment, so two faces can never judge the same build differently (an import contract
in pyproject.toml keeps the faces from calling the pipeline's stages themselves).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from advisor.base.errors import UserError
from advisor.findings.evaluate import evaluate_rules
from advisor.findings.finding import Finding
from advisor.findings.verdict import Verdict, verdict
from advisor.i18n import _
from advisor.measure import shape
from advisor.measure.compare import TOLERANCE, Row, compare
from advisor.measure.models import Measurement
from advisor.measure.settle import Settled, settle
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog
from advisor.model.engine import evaluate
from advisor.model.predict import Prediction

if TYPE_CHECKING:
    from advisor.workload.models import Workload
    from advisor.workload.result import Analysis

Job = Literal["plan", "workload", "compare"]


@dataclass(frozen=True)
class Request:
    """What to assess. `job` decides which rules speak: `plan` the build's (and the workload's, when
    one is given), `workload` the workload's only, `compare` none but the comparison's causes."""

    build: Build
    catalog: Catalog
    job: Job = "plan"
    workload: Workload | None = None
    measurements: tuple[tuple[str, Measurement], ...] = ()  # (the file as the user named it, what it holds)
    gpu_map: str | None = None  # compare --gpus: which measured GPU each of the build's GPUs is
    tolerance: float = TOLERANCE
    rule_dirs: tuple[str, ...] = ()  # the user's own rule folders (--rules), beside $ADVISOR_RULES
    command: tuple[str, ...] = ()  # the command line as run, for the "run: advisor ..." of suggestions
    prediction: Prediction | None = None  # the build's prediction where the caller already has it
    # a file of another machine shape is refused (the CLI's exit 2); the app sets it aside instead, with
    # why, and compares the others
    set_aside_other_shapes: bool = False
    # what to change, each change predicted by re-running the model: a face that shows one build wants it;
    # a search over many builds (advisor.recommend) compares the builds themselves and leaves it out
    advise: bool = True
    # the findings: a search ranks many builds by their prediction and asks for the findings of the few
    # it keeps (advisor.recommend), each then assessed again with them
    findings: bool = True


@dataclass(frozen=True)
class Comparison:
    """Measured against predicted: each compared figure with its file, the readiness the files settle,
    and notes on what was left out (another GPU count mapped, a figure a tool could not measure)."""

    rows: tuple[tuple[str, Row], ...]
    settled: Settled | None
    notes: tuple[str, ...] = ()
    set_aside: tuple[str, ...] = ()  # why each file of another shape was not compared (the app's way)

    @property
    def flagged(self) -> bool:
        return any(r.flagged for _, r in self.rows)


@dataclass(frozen=True)
class Assessment:
    request: Request
    prediction: Prediction
    findings: tuple[Finding, ...]
    verdict: Verdict
    analysis: Analysis | None = None
    comparison: Comparison | None = None

    @property
    def build(self) -> Build:
        return self.request.build


def assess(request: Request) -> Assessment:
    pred = request.prediction or evaluate(request.build, request.catalog)
    analysis = None
    if request.workload is not None:
        from advisor.workload.analyse import analyse

        # the other strategies' table feeds the findings: without findings it is not asked for
        analysis = analyse(
            request.build,
            request.workload,
            request.catalog,
            pred,
            advise=request.advise,
            strategies=request.findings,
        )
        if request.command:  # a face without a command line (the app) gets the flags alone
            analysis.command = list(request.command)
    findings: list[Finding] = []
    if request.job in ("plan", "workload") and request.findings:
        findings = evaluate_rules(
            pred, job=request.job, catalog=request.catalog, workload=analysis, extra_dirs=request.rule_dirs
        )
    comparison = _compare(request, pred) if request.measurements or request.job == "compare" else None
    return Assessment(request, pred, tuple(findings), verdict(pred, findings), analysis, comparison)


def _compare(request: Request, pred: Prediction) -> Comparison:
    """Each file set against the prediction, like with like: a file of another machine shape is refused
    unless the user maps its GPUs onto the build's (`gpu_map`), and every file's statements about the
    machine (peer access, links, NVLink) rule causes out in all of them."""
    indices = sorted(g.node.index for g in pred.gpus)
    mapping = shape.parse_map(request.gpu_map, len(indices)) if request.gpu_map else None
    loaded = list(request.measurements)
    if mapping is not None:
        shown = set().union(*(shape.shown(m) for _, m in loaded))
        absent = [m for m in mapping if m is not None and m not in shown]
        if shown and absent:
            raise UserError(
                _("--gpus {text} names measured GPU{index}, which none of the files shows").format(
                    text=repr(request.gpu_map), index=absent[0]
                ),
                hint=_("the files show {gpus}").format(gpus=", ".join(f"GPU{i}" for i in sorted(shown))),
            )
    nodes = pred.machine.node_count
    measured: list[tuple[str, Measurement]] = []
    notes: list[str] = []
    set_aside: list[str] = []
    for path, meas in loaded:
        try:
            if mapping is not None:
                meas, said = shape.apply_map(meas, mapping, indices, path)
                notes += said
            else:
                notes += shape.check(meas, indices, path, nodes=nodes)
        except UserError as exc:
            if not request.set_aside_other_shapes:
                raise
            set_aside.append(exc.render())
            continue
        notes += [_("{file}: not measured: {what}").format(file=path, what=what) for what in meas.unmeasured]
        measured.append((path, meas))
    others: Sequence[Measurement] = [m for _, m in measured]
    rows = [
        (path, r)
        for path, meas in measured
        for r in compare(
            pred, meas, request.tolerance, request.catalog, others, mapping is not None, request.rule_dirs
        )
    ]
    settled = settle(request.build, pred, measured, request.catalog) if pred.pairs else None
    return Comparison(tuple(rows), settled, tuple(notes), tuple(set_aside))
