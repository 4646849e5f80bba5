"""One call from a build to predictions: allocation, graph, predictions. The faces do not call it:
`advisor.assess` runs the whole pipeline (prediction, findings, workload, comparison) for them."""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.i18n import _
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.lanes import allocate
from advisor.model.machine import Machine
from advisor.model.predict import Prediction, predict
from advisor.model.tree import machine_from_system, machine_from_tree


def machine_of(build: Build, catalog: Catalog | None = None) -> Machine:
    catalog = catalog or load_catalog()
    if build.system is not None:
        return machine_from_system(build, catalog)
    if build.topology is not None:
        return machine_from_tree(build, catalog)
    return allocate(build, catalog)


def evaluate(build: Build, catalog: Catalog | None = None) -> Prediction:
    machine = machine_of(build, catalog)
    for a, b in machine.nvlink:
        count = len(machine.all_gpus)
        if not (0 <= a < count and 0 <= b < count):
            raise UserError(
                _(
                    "NVLink bridge [{a}, {b}] names a GPU index the build does not have (it has {count})"
                ).format(a=a, b=b, count=count)
            )
    return predict(machine)
