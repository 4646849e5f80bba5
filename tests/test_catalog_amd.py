"""Every AMD CPU in the catalog plans on every catalog board that takes it, with its lane budget checked.

A multi-GPU buyer picks Threadripper or EPYC for the lanes; a CPU whose usable lane count is unknown gets
LANE009 ('lane budget not checked') on every build. These tests plan each AMD CPU with each board of its
socket and families through the CLI, as a user would, and check the lane figures the plans rest on.
"""

from __future__ import annotations

import pytest

from advisor.model.catalog.store import load_catalog

CATALOG = load_catalog()
GPU = "RTX 6000 Ada"


def _takes(board, cpu) -> bool:
    return board.socket.lower() == cpu.socket.lower() and (
        board.cpu_families is None or cpu.family in board.cpu_families
    )


AMD_CPUS = sorted((c for c in CATALOG.cpus if c.cpu_vendor == "amd"), key=lambda c: c.id)
PAIRS = [(c.id, b.id) for c in AMD_CPUS for b in sorted(CATALOG.boards, key=lambda b: b.id) if _takes(b, c)]


def _ids(plan: dict, rule: str) -> list[dict]:
    return [f for f in plan["findings"] if f["id"] == rule]


def test_the_amd_pairs_cover_every_amd_platform_with_a_board():
    sockets = {CATALOG.parts[b].socket for _, b in PAIRS}
    assert {"SP3", "SP5", "sTR5", "sWRX8", "AM5"} <= sockets
    assert len(PAIRS) >= 100


@pytest.mark.parametrize("cpu_id, board_id", PAIRS)
def test_an_amd_cpu_plans_on_a_board_that_takes_it_with_its_lanes_checked(cli, cpu_id, board_id):
    import json

    board = CATALOG.parts[board_id]
    count = min(4, len(board.slots))
    code, out, err = cli(
        "plan", "--cpu", cpu_id, "--board", board_id, "--gpu", f"{GPU}:{max(count, 1)}", "--json"
    )
    if not board.slots:
        # a board without a slot table is refused with the reason, never planned on invented slots
        assert code == 2 and "has no slot table in the catalog" in err
        return
    assert code == 0, err
    plan = json.loads(out)
    assert plan["cpu"] == cpu_id and plan["board"] == board_id
    assert len(plan["gpus"]) == count
    assert not _ids(plan, "LANE009"), f"{cpu_id} on {board_id}: lane budget not checked"
    # within the CPU's own lanes: the boards' slot tables never draw more than these CPUs have
    assert not _ids(plan, "LANE008"), _ids(plan, "LANE008")


@pytest.mark.parametrize("cpu", AMD_CPUS, ids=lambda c: c.id)
def test_every_amd_cpu_has_a_consistent_lane_count_and_says_where_it_rests(cpu):
    pcie = cpu.pcie
    assert pcie.usable_lanes is not None, f"{cpu.id}: usable lanes unknown"
    assert pcie.lanes_by_gen and sum(pcie.lanes_by_gen.values()) == pcie.usable_lanes
    assert max(pcie.lanes_by_gen) == pcie.max_gen
    if pcie.total_lanes is not None:
        assert pcie.total_lanes >= pcie.usable_lanes
        # lanes the CPU has but not for slots: the chipset link, and nothing else we know of
        uplink = cpu.chipset_uplink.width if cpu.chipset_uplink else 0
        assert pcie.total_lanes - pcie.usable_lanes in (0, uplink)
    # a value not read on a vendor page says so: the lane count then rests on a basis with its reasoning
    if "pcie.usable_lanes" in cpu.unverified_fields:
        assert "pcie.usable_lanes" in cpu.basis, f"{cpu.id}: unverified lane count without a basis"
        assert cpu.basis["pcie.usable_lanes"].basis in ("secondary", "inferred")


def test_a_pro_cpu_on_a_trx50_board_gets_only_the_lanes_the_board_wires(plan_json):
    """Threadripper PRO 7000WX fits TRX50 boards but runs their lane set there: the plan places the GPUs on
    the board's own slots and links, exactly as for the Threadripper 7000 the board was made for."""
    args = ("--board", "asus-pro-ws-trx50-sage-wifi", "--gpu", f"{GPU}:4")
    pro = plan_json("--cpu", "amd-ryzen-threadripper-pro-7995wx", *args)
    hedt = plan_json("--cpu", "amd-ryzen-threadripper-7980x", *args)

    def links(plan):
        return sorted((g["slot"], g["link"]["gen"], g["link"]["width"]) for g in plan["gpus"])

    assert links(pro) == links(hedt)
    assert not _ids(pro, "LANE008") and not _ids(pro, "LANE009")
    cpu = CATALOG.parts["amd-ryzen-threadripper-pro-7995wx"]
    assert any(c.startswith("TRX50:") for c in cpu.pcie.configurations or [])
