"""One call from a build and a workload to the answer: 1 GPU vs N GPUs, speed-up, bottleneck, changes.

The job is predicted in run.py and advised on in advise.py, which re-runs the prediction for each change;
this module only joins the two.
"""

from __future__ import annotations

from advisor.model.build import Build
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.predict import Prediction
from advisor.workload.advise import bottleneck, changes
from advisor.workload.models import Workload
from advisor.workload.result import Analysis, Change, ratio
from advisor.workload.run import configure, run

__all__ = ["Analysis", "Change", "analyse", "configure", "ratio"]


def analyse(
    build: Build,
    w: Workload,
    catalog: Catalog | None = None,
    pred: Prediction | None = None,
    advise: bool = True,
    strategies: bool = True,
) -> Analysis:
    """The job on the build (run.run), its bottleneck in words, and, with `advise`, what to change, each
    change predicted."""
    result = run(build, w, catalog, pred, strategies)
    result.bottleneck = bottleneck(result)
    if advise:
        result.changes = changes(result, catalog or load_catalog())
    return result
