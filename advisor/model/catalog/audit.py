"""`advisor catalog audit`: how complete and how well sourced the catalog is.

Counts by kind, the verified share, the nulls in the fields the model reads (a CPU's lane counts, a
board that takes each CPU, a board's slot table, slot positions and host bridges, a GPU's power and
NVLink links), the sources by
domain (primary or secondary, from the kept lists in rules/sources.yaml), and the entries whose sources
are refused or secondary only. The result is plain JSON data; the CLI draws it as tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from advisor.i18n import N_
from advisor.model.catalog.models import Board, Cpu, Gpu
from advisor.model.catalog.sources import domain_of, is_primary, is_reputable, refused_domain
from advisor.model.catalog.store import Catalog

KINDS = ("cpu", "board", "gpu", "card", "system")


def kind_of(part) -> str:
    """A partner card's entry is a GPU the catalog made from a `kind: card` file: it is counted as a card."""
    return "card" if getattr(part, "card_of", None) else part.kind


# the goal the audit measures against: share of entries verified, no nulls in lane counts and slot tables,
# and a board for every CPU
GOAL_VERIFIED = 0.9
# and the share of entries whose every model-relevant value is sourced (primary, secondary or inferred)
GOAL_SOURCED = 0.95

# The values the model reads, by kind. An entry is sourced when each of these that is not null rests on a
# primary page (a verified entry that does not list it as unverified), a reputable review (an unverified
# entry citing one, or a `basis: secondary`) or a documented inference (`basis: inferred`). A null value is
# not counted: the tool shows it as unknown.
MODEL_FIELDS: dict[str, tuple[str, ...]] = {
    "cpu": (
        "socket",
        "max_sockets",
        "pcie.max_gen",
        "pcie.total_lanes",
        "pcie.usable_lanes",
        "pcie.lanes_by_gen",
        "chipset_uplink",
        "inter_socket",
        "memory.channels",
        "memory.max_speed_mts",
        "tdp_w",
        "max_power_w",
    ),
    "board": ("socket", "sockets", "cpu_families", "lane_groups", "slots", "m2", "sharing", "slot_positions"),
    "gpu": (
        "form_factor",
        "vram_gb",
        "memory_bandwidth_gbps",
        "bf16_tflops_dense",
        "fp16_tflops_dense",
        "fp8_tflops_dense",
        "fp4_tflops_dense",
        "pcie",
        "nvlink",
        "p2p",
        "board_power_w",
        "power_connector",
        "slot_width",
        "cooler",
    ),
    "card": ("slot_width", "length_mm", "power_connector", "board_power_w", "cooler"),
    "system": ("gpus", "gpu_positions", "nvswitch_chips", "sockets", "topology"),
}


@dataclass(frozen=True)
class Check:
    kind: str
    field: str
    what: str  # what the model loses when it is null
    counts: Callable[..., tuple[int, int]]  # (missing, checked) within one part
    goal: bool = False  # part of the goal: no nulls here
    with_catalog: bool = False  # counts(part, catalog): the check looks at other parts too


def _one(missing: bool) -> tuple[int, int]:
    return int(missing), 1


def _card(g: Gpu, missing: bool) -> tuple[int, int]:
    """A check that only a PCIe card's entry can fail (an SXM module is not counted)."""
    return (0, 0) if g.form_factor == "sxm" else _one(missing)


def _slots_without_position(b: Board) -> tuple[int, int]:
    return sum(1 for s in b.slots if s.position is None), len(b.slots)


def _cpu_groups_without_host_bridge(b: Board) -> tuple[int, int]:
    groups = [g for g in b.lane_groups if g.source == "cpu"]
    return sum(1 for g in groups if g.host_bridge is None), len(groups)


def _takes(board: Board, cpu: Cpu) -> bool:
    """The board takes the CPU and can be planned on: its socket, a family it lists (or none listed),
    and a slot table. A board without one is refused at plan time, so it plans no CPU."""
    return (
        board.socket.lower() == cpu.socket.lower()
        and (board.cpu_families is None or cpu.family in board.cpu_families)
        and bool(board.slots)
    )


def _without_board(cpu: Cpu, catalog: Catalog) -> tuple[int, int]:
    return _one(not any(_takes(b, cpu) for b in catalog.boards))


def _nvlink_links(g: Gpu) -> tuple[int, int]:
    return (int(g.nvlink.links is None), 1) if g.nvlink.supported else (0, 0)


CHECKS: tuple[Check, ...] = (
    Check(
        "cpu",
        "pcie.usable_lanes",
        N_("lane budget, '? lanes'"),
        lambda c: _one(c.pcie.usable_lanes is None),
        True,
    ),
    Check("cpu", "pcie.total_lanes", N_("lane counts"), lambda c: _one(c.pcie.total_lanes is None), True),
    Check(
        "cpu",
        "pcie.lanes_by_gen",
        N_("lanes per generation"),
        lambda c: _one(c.pcie.lanes_by_gen is None),
        True,
    ),
    # a CPU no catalog board takes cannot be planned at all, however complete its own entry is
    Check("cpu", N_("a board that takes it"), N_("plan has no board for it"), _without_board, True, True),
    Check("cpu", "memory.channels", N_("MEM rules"), lambda c: _one(c.memory.channels is None)),
    Check(
        "cpu",
        "tdp_w / max_power_w",
        N_("PSU sizing"),
        lambda c: _one(c.tdp_w is None and c.max_power_w is None),
    ),
    Check("board", "slots", N_("no slot table: plan refuses the board"), lambda b: _one(not b.slots), True),
    Check(
        "board",
        N_("slots: one listed"),
        N_("two GPUs refused: likely incomplete"),
        lambda b: _one(len(b.slots) == 1),
    ),
    Check("board", "slots[].position", N_("FIT rules skipped (slots)"), _slots_without_position),
    Check(
        "board",
        "lane_groups[].host_bridge",
        N_("NODE/PHB paths guessed (CPU groups)"),
        _cpu_groups_without_host_bridge,
    ),
    Check("gpu", "board_power_w", N_("PSU and power rules"), lambda g: _one(g.board_power_w is None)),
    Check("gpu", "nvlink.links", N_("NV# path (NVLink cards)"), _nvlink_links),
    # a card's size, cable and cooler: an SXM module sits on a baseboard, which has none of the three
    Check("gpu", "slot_width", N_("FIT rules"), lambda g: _card(g, g.slot_width is None)),
    Check("gpu", "power_connector", N_("12V-2x6 cable check"), lambda g: _card(g, g.power_connector is None)),
    Check("gpu", "cooler", N_("open-air spacing rule"), lambda g: _card(g, g.cooler is None)),
    Check(
        "gpu",
        "memory_bandwidth_gbps",
        N_("workload model"),
        lambda g: _one(g.memory_bandwidth_gbps is None),
    ),
    Check("gpu", "bf16_tflops_dense", N_("workload model"), lambda g: _one(g.bf16_tflops_dense is None)),
    Check("card", "slot_width", N_("FIT rules (the real card)"), lambda g: _one(g.slot_width is None)),
    Check("card", "length_mm", N_("case fit"), lambda g: _one(g.length_mm is None)),
    Check("card", "power_connector", N_("12V-2x6 cable check"), lambda g: _one(g.power_connector is None)),
    Check("card", "cooler", N_("open-air spacing rule"), lambda g: _one(g.cooler is None)),
    Check(
        "card",
        N_("board_power_w (own)"),
        N_("PSU rules use the reference power"),
        lambda g: _one("board_power_w" in g.inherited_fields or g.board_power_w is None),
    ),
)


def _covers(a: str, b: str) -> bool:
    """One dotted path names the other, or a part of it ('pcie' and 'pcie.gen', 'slots' and 'slots.position')."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _flag_path(flag: str) -> str:
    """An `unverified_fields` item as a dotted path: its first word, list indexes dropped
    ('slots[PCIEX16_2].physical' -> 'slots.physical', 'lane_groups.host_bridge (slots 1/3)' ->
    'lane_groups.host_bridge')."""
    return re.sub(r"\[[^\]]*\]", "", flag.split(" ", 1)[0]).strip(".")


def _value(data, path: str):
    """The value at a dotted path; through a list, the non-null values of its items (None if none)."""
    at = data
    for i, key in enumerate(path.split(".")):
        if isinstance(at, list):
            rest = ".".join(path.split(".")[i:])
            found = [v for v in (_value(item, rest) for item in at) if v not in (None, [], {})]
            return found or None
        if not isinstance(at, dict):
            return None
        at = at.get(key)
    return at


def value_bases(part) -> dict[str, str | None]:
    """Each non-null model-relevant value of a part and what it rests on: 'primary', 'secondary',
    'inferred', or None where nothing does (an unverified value with no basis, or an unverified entry
    citing no primary page or reputable review)."""
    kind = kind_of(part)
    data = part.model_dump()
    inherited = set(getattr(part, "inherited_fields", []) or [])
    flags = [_flag_path(f) for f in part.unverified_fields]
    out: dict[str, str | None] = {}
    for field in MODEL_FIELDS[kind]:
        if _value(data, field) in (None, [], {}) or field in inherited:
            continue
        bases = [b.basis for path, b in part.basis.items() if _covers(path, field)]
        if bases:
            out[field] = (
                "inferred" if "inferred" in bases else "secondary" if "secondary" in bases else "primary"
            )
        elif any(_covers(flag, field) and _value(data, flag) not in (None, [], {}) for flag in flags):
            out[field] = None
        elif part.verified:
            out[field] = "primary"
        else:
            cited = any(is_reputable(s) or is_primary(s) for s in part.sources)
            out[field] = "secondary" if cited else None
    return out


def _sourcing(parts) -> dict:
    """Entries whose every model-relevant value is sourced, the weakest basis of each counted apart."""
    # "none": an entry that knows none of these values (every one unknown, so nothing to source): counted
    # apart, as it says nothing the model can use beyond its name
    counts = {"primary": 0, "secondary": 0, "inferred": 0, "none": 0}
    unsourced: dict[str, list[str]] = {}
    for p in parts:
        bases = value_bases(p)
        missing = sorted(f for f, b in bases.items() if b is None)
        if missing:
            unsourced[p.id] = missing
        elif not bases:
            counts["none"] += 1
        elif "inferred" in bases.values():
            counts["inferred"] += 1
        elif "secondary" in bases.values():
            counts["secondary"] += 1
        else:
            counts["primary"] += 1
    sourced = sum(counts.values())
    return {
        "sourced": sourced,
        "sourced_share": _share(sourced, len(parts)),
        "weakest_basis": counts,
        "unsourced": unsourced,
    }


def _share(n: int, of: int) -> float:
    return round(n / of, 3) if of else 0.0


def audit(catalog: Catalog) -> dict:
    """The audit of a (layered) catalog as JSON-ready data."""
    parts = sorted(catalog.parts.values(), key=lambda p: (KINDS.index(kind_of(p)), p.id))
    by_kind = {k: [p for p in parts if kind_of(p) == k] for k in KINDS}
    kinds = [
        {
            "kind": k,
            "parts": len(ps),
            "verified": sum(1 for p in ps if p.verified),
            "verified_share": _share(sum(1 for p in ps if p.verified), len(ps)),
        }
        for k, ps in by_kind.items()
    ]
    verified = sum(1 for p in parts if p.verified)
    nulls = []
    for c in CHECKS:
        missing = checked = 0
        ids = []
        for p in by_kind[c.kind]:
            m, n = c.counts(p, catalog) if c.with_catalog else c.counts(p)
            missing, checked = missing + m, checked + n
            if m:
                ids.append(p.id)
        nulls.append(
            {
                "kind": c.kind,
                "field": c.field,
                "used_for": c.what,
                "missing": missing,
                "of": checked,
                "parts": ids,
                "goal": c.goal,
            }
        )
    domains: dict[str, dict] = {}
    refused, secondary_only = [], []
    for p in parts:
        bad = [s for s in p.sources if refused_domain(s)]
        if bad:
            refused.append({"id": p.id, "file": catalog.origin[p.id][0], "sources": bad})
        if not any(is_primary(s) for s in p.sources):
            secondary_only.append(p.id)
        for s in p.sources:
            d = domain_of(s)
            row = domains.setdefault(
                d,
                {
                    "domain": d,
                    "class": "refused" if refused_domain(s) else "primary" if is_primary(s) else "secondary",
                    "citations": 0,
                    "parts": 0,
                    "_ids": set(),
                },
            )
            row["citations"] += 1
            row["_ids"].add(p.id)
    sources = []
    for row in sorted(domains.values(), key=lambda r: (-r["citations"], r["domain"])):
        ids = row.pop("_ids")
        row["parts"] = len(ids)
        sources.append(row)
    citations = sum(r["citations"] for r in sources)
    primary = sum(r["citations"] for r in sources if r["class"] == "primary")
    goal_nulls = {f"{n['kind']} {n['field']}": n["missing"] for n in nulls if n["goal"]}
    # values that rest on a reputable review or on reasoning from a primary source, counted apart from
    # the primary ones: the figures that use them are shown at lower confidence
    basis = {"secondary": 0, "inferred": 0, "primary": 0}
    basis_parts: dict[str, dict[str, str]] = {}
    for p in parts:
        for path, b in p.basis.items():
            basis[b.basis] += 1
            if b.basis != "primary":
                basis_parts.setdefault(p.id, {})[path] = b.basis
    sourcing = _sourcing(parts)
    return {
        "parts": len(parts),
        "verified": verified,
        "verified_share": _share(verified, len(parts)),
        "kinds": kinds,
        "nulls": nulls,
        "sources": {
            "citations": citations,
            "primary_citations": primary,
            "primary_share": _share(primary, citations),
            "domains": sources,
        },
        "refused": refused,
        "secondary_only": secondary_only,
        "value_basis": {"counts": basis, "parts": basis_parts},
        "sourcing": sourcing,
        "goal": {
            "sourced_share": GOAL_SOURCED,
            "sourced_met": sourcing["sourced_share"] >= GOAL_SOURCED,
            "verified_share": GOAL_VERIFIED,
            "verified_met": _share(verified, len(parts)) >= GOAL_VERIFIED,
            "nulls": goal_nulls,
            "nulls_met": not any(goal_nulls.values()),
        },
    }
