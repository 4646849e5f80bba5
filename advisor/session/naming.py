"""The name advisor gives a build ("2x RTX 4090 on i9-14900K / ROG Maximus Z790 Hero"), and whether a
name is one it gave (a generated name follows the parts; a name the user typed is kept)."""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.model.build import Build
from advisor.model.catalog.models import Part
from advisor.model.catalog.store import Catalog
from advisor.session.buildyaml import cards_of, leading_comments
from advisor.session.parts import resolved, said_name, short_part_name


def parts_name(build: Build, catalog: Catalog) -> str:
    """The build named after its parts: GPU count and model, then the board ("2x RTX 4090, Z790 Hero")."""

    def resolve(ref: str | None, kind: str) -> Part | None:
        try:
            return catalog.resolve(ref, kind) if ref else None
        except UserError:
            return None

    counts: dict[str, int] = {}
    for card in cards_of(build):
        name = short_part_name(resolve(card.model, "gpu"), card.model)
        counts[name] = counts.get(name, 0) + 1
    gpus = " + ".join(f"{n}x {name}" for name, n in counts.items())
    board = short_part_name(resolve(build.board, "board"), build.board)
    if not board and build.cpu:
        board = short_part_name(resolve(build.cpu, "cpu"), build.cpu)
    return ", ".join(x for x in (gpus, board) if x) or "build"


def _tree_gpus(build: Build) -> list[str]:
    """The GPU models of an explicit PCIe tree, in the tree's order."""
    from advisor.model.build import TreeSwitch

    def walk(nodes: list) -> list[str]:
        out: list[str] = []
        for n in nodes:
            out += walk(n.children) if isinstance(n, TreeSwitch) else [n.gpu] if n.gpu else []
        return out

    topo = build.topology
    if topo is None:
        return []
    found = [g for s in topo.sockets for rp in s.root_ports for g in walk(rp.children)]
    return found + (walk(topo.chipset.children) if topo.chipset else [])


def _system_gpus(build: Build, catalog: Catalog) -> list[str]:
    """A build on a catalog system: its `gpus` entry, else every position filled with the system's first."""
    if build.gpus:
        return [c.model for c in cards_of(build)]
    system = resolved(catalog, build.system, "system")
    if system is None:
        return []
    return [system.gpus[0]] * system.gpu_positions  # type: ignore[attr-defined]


def _gpus_said(build: Build, catalog: Catalog) -> str:
    """ "2x RTX 4090", "2x RTX 4090 + 1x RTX 3090": the build's GPUs by model, in order."""
    models = (
        _tree_gpus(build)
        if build.topology is not None
        else _system_gpus(build, catalog)
        if build.system is not None
        else [c.model for c in cards_of(build)]
    )
    counts: dict[str, int] = {}
    for model in models:
        said = said_name(resolved(catalog, model, "gpu"), model)
        counts[said] = counts.get(said, 0) + 1
    return " + ".join(f"{n}x {said}" for said, n in counts.items())


# The forms of a generated build name, with and without GPUs: "2x RTX 4090 on i9-14900K / ROG Maximus
# Z790 Hero" (the example's), "8x RTX PRO 6000 on ESC8000A-E13P" (the board alone), and an explicit tree's
NAME_FORMS = {
    "cpu-board": ("{gpus} on {cpu} / {board}", "{cpu} / {board}"),
    "board": ("{gpus} on {board}", "{board}"),
    "tree": ("{gpus}, explicit tree", "explicit tree"),
    "system": ("{gpus} on {system}", "{system}"),
}


def generated_name(build: Build, catalog: Catalog, form: str = "cpu-board") -> str:
    """The name advisor makes for a build from its parts, in one of NAME_FORMS (an explicit tree's is
    always the tree form)."""
    if build.topology is not None:
        form = "tree"
    elif build.system is not None:
        form = "system"
    elif form in ("tree", "system"):
        form = "cpu-board"
    gpus = _gpus_said(build, catalog)
    cpu = said_name(resolved(catalog, build.cpu, "cpu"), build.cpu)
    board = said_name(resolved(catalog, build.board, "board"), build.board)
    system = said_name(resolved(catalog, build.system, "system"), build.system)
    with_gpus, without = NAME_FORMS[form]
    return (with_gpus if gpus else without).format(gpus=gpus, cpu=cpu, board=board, system=system)


def name_form(build: Build, catalog: Catalog) -> str | None:
    """The form of NAME_FORMS the build's name is in, when it is exactly what advisor makes for the
    build's parts (a generated name, which follows the parts); None for no name or a name of the user's
    own (kept as it is, whatever the parts become)."""
    if not build.name:
        return None
    forms = (
        ("tree",) if build.topology is not None else ("system",) if build.system else ("cpu-board", "board")
    )
    for form in forms:
        if build.name == generated_name(build, catalog, form):
            return form
    return None


def _hardware(build: Build, catalog: Catalog) -> tuple:
    """What a build's description speaks of: its CPU, board and GPU models (or its tree)."""

    def key(ref: str | None, kind: str) -> str | None:
        part = resolved(catalog, ref, kind)
        return part.id if part is not None else ref

    gpus = _tree_gpus(build) if build.topology is not None else [c.model for c in cards_of(build)]
    tree = build.topology.model_dump(mode="json") if build.topology is not None else build.system
    return (key(build.cpu, "cpu"), key(build.board, "board"), sorted(key(g, "gpu") or "" for g in gpus), tree)


def example_comments(build: Build, head: str, catalog: Catalog) -> bool:
    """Whether `head` is the comment block of one of advisor's own example builds that describes other
    parts than `build` has (the example's text, not the user's: it may go once the parts change)."""
    from advisor.base.resources import bundled
    from advisor.model.buildfile import load_build

    for example in sorted(bundled("examples").glob("*.yaml")):
        if leading_comments(example) == head:
            try:
                theirs = load_build(example)
            except UserError:
                return False
            return _hardware(theirs, catalog) != _hardware(build, catalog)
    return False
