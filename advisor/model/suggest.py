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


def with_gpus(build: Build, gpu: str, count: int | None = None) -> Build:
    """`build` with its GPUs replaced by `count` (default: as many as it has) of catalog GPU `gpu`, in
    the board's own choice of slots; NVLink bridges dropped (they joined the old cards)."""
    data = build.model_dump(exclude_unset=True)
    data["gpus"] = [{"model": gpu, "count": count or build.gpu_count()}]
    data.pop("nvlink", None)
    new = Build.model_validate(data)
    new._where = dict(build._where)  # the user's part names stay theirs, with where they wrote them
    return new


def stock_p2p_cards(catalog: Catalog, build: Build, min_vram: float, limit: int = 3) -> list:
    """Up to `limit` catalog cards with P2P on the stock Linux driver, a workstation's own cooling and at
    least `min_vram` GB, that plan cleanly in place of the build's GPUs: the least memory first (the
    nearest to the cards they replace), verified entries before unverified ones."""
    key = ("stock p2p cards", build.model_dump_json(), min_vram, limit)
    if key in catalog.derived:
        return list(catalog.derived[key])  # type: ignore[arg-type]
    cards = sorted(
        (
            g
            for g in catalog.gpus
            if g.p2p.stock_linux
            and g.segment == "workstation"
            and g.cooler not in (None, "passive")
            and g.vram_gb >= min_vram
            and g.card_of is None
        ),
        key=lambda g: (g.vram_gb, not g.verified, g.price_usd or 1e9, g.id),
    )
    found = []
    for g in cards:
        if build.topology is None and plans(with_gpus(build, g.id), catalog):
            found.append(g)
            if len(found) == limit:
                break
    catalog.derived[key] = found
    return found
