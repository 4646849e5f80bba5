"""The CPU lane budget: the lanes a build's devices take against the lanes its CPU has.

A Xeon w5-2455X has 64 PCIe lanes. On the Pro WS W790E-SAGE SE, four GPUs at x16 (slots 1, 3, 5, 7: the
board wires 2, 4 and 6 only for a 112-lane W-3400) and an SSD in the CPU-wired M.2_1 take 68: the plan
says so (LANE008) with the numbers, what the board's catalog entry decides, and the sources.
"""

from __future__ import annotations

import yaml

from advisor.base.resources import bundled
from advisor.model.build import Build
from advisor.model.catalog.store import load_catalog
from advisor.model.engine import evaluate

W790E = ("--cpu", "Xeon w5-2455X", "--board", "ASUS Pro WS W790E-SAGE SE", "--gpu", "RTX 4090:4")


def _ids(plan, rule):
    return [f for f in plan["findings"] if f["id"] == rule]


def test_four_gpus_and_an_ssd_on_a_w5_2455x_draw_68_of_its_64_lanes(plan_json):
    plan = plan_json(*W790E, "--nvme", "M.2_1")
    (f,) = _ids(plan, "LANE008")
    msg = f["message"]
    assert f["severity"] == "warning" and f["subject"] == "build"
    assert "take 68 of the CPU's PCIe lanes, but Intel Xeon w5-2455X has 64 usable: 4 short" in msg
    # the devices that draw them, each with its connector and width
    for gpu, slot in enumerate(("PCIEx16(G5)_1", "PCIEx16(G5)_3", "PCIEx16(G5)_5", "PCIEx16(G5)_7")):
        assert f"GPU{gpu} in {slot} x16" in msg
    assert "NVMe SSD in M.2_1 x4" in msg
    # what the board's entry decides (slots 2, 4, 6 need 112 lanes), and that the rest is the manual's
    assert "PCIEX16(G5)_2, PCIEX16(G5)_4 and PCIEX16(G5)_6 only for a CPU with 112 lanes" in msg
    assert "no rule for which connector loses lanes" in msg and "board manual" in msg
    # the sources of the CPU's lane count and of the board's lane groups
    assert "https://ark.intel.com/" in msg and "https://github.com/linuxhw/DMI/" in msg
    assert "board manual's slot table" in f["fix"] and "a CPU this board takes with the lanes" in f["fix"]
    assert not _ids(plan, "LANE009")


def test_the_same_board_within_the_cpu_lanes_says_nothing(plan_json):
    assert not _ids(plan_json(*W790E), "LANE008")  # four GPUs: 64 of 64
    bigger = ("--cpu", "Xeon w7-3465X", *W790E[2:], "--nvme", "M.2_1")
    plan = plan_json(*bigger)
    assert not _ids(plan, "LANE008") and not _ids(plan, "LANE009")


def test_the_budget_is_counted_per_socket_from_the_negotiated_links():
    catalog = load_catalog()
    build = Build(
        cpu="intel-xeon-w5-2455x",
        board="asus-pro-ws-w790e-sage-se",
        gpus=[{"model": "nvidia-rtx-4090", "count": 4}],
        nvme=[{"socket": "M.2_1"}],
    )
    (budget,) = evaluate(build, catalog).machine.lane_budget
    assert (budget.socket, budget.usable, budget.drawn, budget.over) == (0, 64, 68, 4)
    assert ("NVMe SSD", "M.2_1", 4) in budget.takers
    assert budget.off_by_rule == ["PCIEX16(G5)_2", "PCIEX16(G5)_4", "PCIEX16(G5)_6"]
    # a chipset slot takes no CPU lanes: the Z790-E's second GPU on the chipset is not counted
    m = evaluate(
        Build(
            cpu="intel-core-i9-14900k",
            board="asus-rog-strix-z790-e-gaming-wifi",
            gpus=[{"model": "nvidia-rtx-4090", "count": 2}],
        ),
        catalog,
    ).machine
    (budget,) = m.lane_budget
    assert budget.drawn == 16 and budget.usable == 20 and budget.over == 0


def test_a_cpu_without_a_lane_count_is_said_once_not_checked(plan_json, tmp_path):
    data = yaml.safe_load((bundled("catalog") / "cpus" / "intel-xeon-w5-2455x.yaml").read_text())
    data.update(id="my-w5-no-lanes", name="My W5 Without Lanes", aliases=[], part_numbers=[])
    data["pcie"].update(usable_lanes=None, total_lanes=None, lanes_by_gen=None)
    (tmp_path / "cpu.yaml").write_text(yaml.safe_dump(data))
    plan = plan_json(
        *W790E[2:], "--cpu", "My W5 Without Lanes", "--nvme", "M.2_1", "--catalog", str(tmp_path)
    )
    (f,) = _ids(plan, "LANE009")  # one finding for the build, not one per device
    assert f["severity"] == "info"
    assert "does not hold My W5 Without Lanes's usable PCIe lanes" in f["message"]
    assert (
        "whether the 68 CPU lanes this build's devices take fit within them was not checked" in f["message"]
    )
    assert not _ids(plan, "LANE008")
