"""The one check every suggestion of parts passes before the user sees it: the suggested CPU, board
and GPUs plan cleanly in this catalog.

A suggestion is a promise that the named parts make a machine the advisor can answer for. A CPU whose
lane count the catalog lacks plans as "? lanes" and skips the lane budget, and a card that gets no link
or an unknown one has no bandwidth to predict; suggesting either would send the user to a build the
tool itself cannot vouch for. So every suggester (the findings' platform alternative, a CPU with the
lanes, the workload's other cards, platforms and GPU counts) asks `plan_problem` first and offers only
builds it passes.
"""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.model.build import Build
from advisor.model.catalog.store import Catalog


def plan_problem(build: Build, catalog: Catalog):
    """(prediction, None) when `build` plans cleanly, else (prediction or None, why not in words):
    every part resolves and fits, the CPU's usable PCIe lanes are known, and every GPU the build asks
    for is placed with a link of known generation and width."""
    from advisor.model.engine import evaluate

    try:
        pred = evaluate(build, catalog)
    except UserError as exc:
        return None, exc.render()
    m = pred.machine
    if build.topology is None:
        if m.cpu is None:
            return pred, "no CPU"
        if m.cpu.pcie.usable_lanes is None:
            return pred, f"the catalog does not hold {m.cpu.name}'s usable PCIe lanes"
    asked = build.gpu_count()
    if m.unlinked:
        return pred, "no lanes reach " + ", ".join(m.unlinked)
    if len(pred.gpus) != asked:
        return pred, f"{len(pred.gpus)} of the {asked} GPUs are placed"
    for g in pred.gpus:
        link = g.node.link
        if link is None or not link.width or not link.gen:
            return pred, f"GPU{g.node.index} has no known link"
    return pred, None


def plans(build: Build, catalog: Catalog) -> bool:
    """Whether a suggested build plans cleanly (plan_problem finds nothing), cached per catalog."""
    key = ("plans cleanly", build.model_dump_json())
    if key not in catalog.derived:
        catalog.derived[key] = plan_problem(build, catalog)[1] is None
    return bool(catalog.derived[key])


def platform_build(cpu: str, board: str, gpu: str, count: int) -> Build:
    """A suggested platform: `count` of the GPU in the board's slots, the board's own choice of slots."""
    return Build.model_validate({"cpu": cpu, "board": board, "gpus": [{"model": gpu, "count": count}]})


def x16_platform(catalog: Catalog, n_gpus: int, gpu: str):
    """The cheapest verified workstation CPU + board from the catalog with n CPU x16 slots, on which n of
    `gpu` (a catalog id) plan cleanly, each at its card's full width; None when none does."""
    key = ("x16 platform", n_gpus, gpu)
    if key in catalog.derived:
        return catalog.derived[key]
    found = None
    for board in sorted(catalog.boards, key=lambda b: (not b.verified, b.price_usd or 1e9, b.id)):
        if board.segment != "workstation" or not board.cpu_families:
            continue
        cpu_groups = {g.id for g in board.lane_groups if g.source == "cpu"}
        if len([c for c in board.slots if c.group in cpu_groups and c.width >= 16]) < n_gpus:
            continue
        cpus = sorted(
            (c for c in catalog.cpus if c.family in board.cpu_families),
            key=lambda c: (not c.verified, c.price_usd or 1e9, c.id),
        )
        for cpu in cpus:
            if cpu.pcie.usable_lanes is None:  # plan_problem would say so; skip the evaluation
                continue
            pred, problem = plan_problem(platform_build(cpu.id, board.id, gpu, n_gpus), catalog)
            if problem is None and all(g.node.link.width >= g.node.link.max_width for g in pred.gpus):
                found = (cpu, board)
                break
        if found:
            break
    catalog.derived[key] = found
    return found
