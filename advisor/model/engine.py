"""One call from a build to predictions: allocation, graph, predictions (and findings later)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from advisor.base.errors import UserError
from advisor.base.validation import validate
from advisor.base.yamlio import LineDict, load_file
from advisor.model.build import Build, GpuSpec, NvmeSpec
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.lanes import allocate
from advisor.model.machine import Machine
from advisor.model.predict import Prediction, predict
from advisor.model.tree import machine_from_tree


def load_build(path: str | Path) -> Build:
    data = load_file(path)
    return build_from_data(data, str(path))


def build_from_data(data, filename: str = "<build>") -> Build:
    if not isinstance(data, LineDict):
        raise UserError(
            f"{filename}: a build file must be a mapping with keys like cpu, board, gpus",
            hint="see examples/ for build files",
        )
    build, problems = validate(Build, data, filename)
    if problems:
        raise UserError(problems=problems)
    assert build is not None
    return build


def build_from_flags(
    cpu: str | None,
    board: str | None,
    gpus: Iterable[str],
    nvme: Iterable[str] = (),
    base: Build | None = None,
) -> Build:
    """`--gpu "RTX 4090:2"` means two RTX 4090s; `--gpu "RTX 4090@PCIEX16(G5)"` places one in a slot."""
    specs = []
    for g in gpus:
        model, slot, count = g, None, 1
        if "@" in model:
            model, slot = model.split("@", 1)
        if ":" in model:
            model, n = model.rsplit(":", 1)
            if not n.strip().isdigit() or int(n) < 1:
                raise UserError(f"--gpu {g!r}: the count after ':' must be a whole number of at least 1")
            count = int(n)
        specs.append(GpuSpec(model=model.strip(), count=count, slot=slot.strip() if slot else None))
    data = base.model_dump() if base else {}
    if cpu:
        data["cpu"] = cpu
    if board:
        data["board"] = board
    if specs:
        data["gpus"] = [s.model_dump() for s in specs]
    if nvme:
        data["nvme"] = [NvmeSpec(socket=s).model_dump() for s in nvme]
    build, problems = validate(Build, data, None)
    if problems:
        problems[-1].hint = "give --cpu and --board (and --gpu), or a build file"
        raise UserError(problems=problems)
    assert build is not None
    return build


def machine_of(build: Build, catalog: Catalog | None = None) -> Machine:
    catalog = catalog or load_catalog()
    if build.topology is not None:
        return machine_from_tree(build, catalog)
    return allocate(build, catalog)


def evaluate(build: Build, catalog: Catalog | None = None) -> Prediction:
    machine = machine_of(build, catalog)
    for a, b in machine.nvlink:
        count = len(machine.all_gpus)
        if a >= count or b >= count:
            raise UserError(
                f"NVLink bridge [{a}, {b}] names a GPU index the build does not have (it has {count})"
            )
    return predict(machine)
