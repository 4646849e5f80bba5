"""The bundled catalog's CPUs as a buyer meets them: every Intel CPU plans on every board that takes it, with
its lane budget checked, and no CPU is listed without a board that takes it.

A board takes a CPU when their sockets match and the board's cpu_families (if it lists any) names the CPU's
family; only a board with a slot table can hold a GPU, so a board without one does not count.
"""

from __future__ import annotations

import pytest

from advisor.model.catalog.store import load_catalog

GPU = "nvidia-rtx-6000-ada"

# Families no catalog board takes yet, because no source read so far states which board does (a vendor CPU
# list, BIOS notes or a probe dump of a board running one) and none can be inferred from a board of the same
# platform: the catalog entries' notes say what was sought. (A refresh on a board's socket, such as the
# W-3500 on a W790 board or a Zen 5 Threadripper on an sTR5 board, is listed as an inference with its basis.)
# strict: the day a sourced board takes one of them, its test passes and this entry has to go.
NO_SOURCED_BOARD: dict[str, str] = {}

CATALOG = load_catalog()


def _boards_taking(cpu):
    return [
        b
        for b in CATALOG.boards
        if b.socket.lower() == cpu.socket.lower()
        and (b.cpu_families is None or cpu.family in b.cpu_families)
        and b.slots
    ]


INTEL_PAIRS = [
    (cpu.id, board.id) for cpu in CATALOG.cpus if cpu.cpu_vendor == "intel" for board in _boards_taking(cpu)
]


def _cpu_case(cpu):
    reason = NO_SOURCED_BOARD.get(cpu.family)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(cpu.id, id=cpu.id, marks=marks)


@pytest.mark.parametrize("cpu_id, board_id", INTEL_PAIRS, ids=[f"{c}@{b}" for c, b in INTEL_PAIRS])
def test_an_intel_cpu_plans_on_each_board_that_takes_it_with_its_lanes_checked(plan_json, cpu_id, board_id):
    plan = plan_json("--cpu", cpu_id, "--board", board_id, "--gpu", GPU)
    (gpu,) = plan["gpus"]
    assert gpu["model_id"] == GPU and gpu["slot"]
    assert gpu["link"]["width"] >= 1 and not plan["unlinked"]
    # the CPU's usable lane count is in the catalog, so the lane budget was checked, not skipped
    assert not [f for f in plan["findings"] if f["id"] == "LANE009"], plan["findings"]
    assert (plan["cpu"], plan["board"]) == (cpu_id, board_id)


def test_the_intel_pairs_cover_the_platforms_people_plan_on():
    """The pairs above are not an empty or shrinking list: each Intel socket with a catalog board is in it."""
    sockets = {CATALOG.parts[c].socket for c, _ in INTEL_PAIRS}
    assert {"LGA1700", "LGA1851", "LGA4677"} <= sockets
    assert len(INTEL_PAIRS) >= 30


@pytest.mark.parametrize("cpu_id", [_cpu_case(c) for c in CATALOG.cpus])
def test_every_cpu_has_a_board_with_a_slot_table_that_takes_it(cli, cpu_id):
    cpu = CATALOG.parts[cpu_id]
    boards = _boards_taking(cpu)
    assert boards, f"{cpu_id} ({cpu.family}, {cpu.socket}): no catalog board takes it"
    # and that board is one the user can plan on with this CPU, through the CLI
    code, out, err = cli("plan", "--cpu", cpu_id, "--board", boards[0].id, "--gpu", GPU)
    assert code == 0, err


def test_the_audit_lists_without_a_board_exactly_the_cpus_of_the_families_above(cli):
    """The audit's count of CPUs no board takes and the families listed above tell the same story: a family
    that gets a board leaves both at once, and a CPU that loses its board shows in both."""
    import json

    code, out, _ = cli("catalog", "audit", "--json")
    assert code == 0
    row = {(n["kind"], n["field"]): n for n in json.loads(out)["nulls"]}[("cpu", "a board that takes it")]
    expected = sorted(c.id for c in CATALOG.cpus if c.family in NO_SOURCED_BOARD)
    assert row["parts"] == expected and row["missing"] == len(expected)
