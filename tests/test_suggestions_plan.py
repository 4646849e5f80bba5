"""Every part the advisor suggests, anywhere, for the bundled examples, is a part it can plan: the
suggested CPU's lane count is known, every GPU gets a link of known width, nothing is left unlinked.

The example build's own recommended upgrade once named a Threadripper whose lane count the catalog
does not hold, so planning it printed "? lanes". Suggestions come from the findings (the workstation
platform of PLAT001 and LANE001, the CPU with the lanes of LANE006, P2P001's cards) and from the
workload's "What to change" (other cards, platforms, GPU counts); each is planned here as a user
would type it.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import ROOT

EXAMPLES = sorted(str(p) for p in (ROOT / "examples").glob("*.yaml"))
JOBS = [
    ["--train", "1.3b"],
    ["--train", "llama-3-8b"],
    ["--train", "1.3b", "--batch", "8"],
    ["--train", "70b"],
    ["--infer", "70b"],
    ["--train", "resnet-50", "--batch", "512"],
]


def plans_cleanly(cli, *args: str) -> None:
    code, out, err = cli("plan", *args, "--json")
    assert code in (0, 1), f"{args}: {err}"
    plan = json.loads(out)
    assert plan["unlinked"] == [], (args, plan["unlinked"])
    assert plan["gpus"], args
    for g in plan["gpus"]:
        assert g["link"]["width"] and g["link"]["gen"], (args, g)
    assert not [f for f in plan["findings"] if f["id"] == "LANE009"], (args, "CPU lanes unknown")
    assert "? lanes" not in out


def gpu_of(plan: dict) -> tuple[str, int]:
    ids = {g["model_id"] for g in plan["gpus"]}
    assert len(ids) == 1
    return ids.pop(), len(plan["gpus"])


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_every_part_a_finding_suggests_plans_cleanly(cli, example):
    code, out, err = cli("plan", example, "--json")
    plan = json.loads(out)
    if plan.get("board") is None:
        return  # an explicit tree: no catalog platform to suggest from
    gpu, count = gpu_of(plan)
    suggested = 0
    for f in plan["findings"]:
        for cpu, board in re.findall(r"e\.g\. (.+?) on (.+?) \(\d+ CPU x16 slots\)", f["fix"]):
            plans_cleanly(cli, "--cpu", cpu, "--board", board, "--gpu", f"{gpu}:{count}")
            suggested += 1
        for cards in re.findall(r"each planned on this build: ([^)]+)\)", f["fix"]):
            for card in cards.split(", "):
                plans_cleanly(cli, example, "--gpu", f"{card}:{count}")
                suggested += 1
        for cpu in re.findall(r"a CPU this board takes with the lanes: (.+?) \(\d+ lanes\)", f["fix"]):
            plans_cleanly(cli, example, "--cpu", cpu)
            suggested += 1
    if "2x4090" in example:
        assert suggested >= 2  # the platform and P2P001's cards: the check has something to check


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.rsplit("/", 1)[-1])
@pytest.mark.parametrize("job", JOBS, ids=lambda j: "-".join(j).strip("-"))
def test_every_hardware_change_the_workload_suggests_plans_cleanly(cli, example, job):
    code, out, err = cli("workload", example, *job, "--json")
    if "\nnodes:" in Path(example).read_text():  # the workload model plans one machine: said, not guessed
        assert code == 2 and "the workload model plans one machine" in err, err
        return
    assert code == 0, err
    for c in json.loads(out)["changes"]:
        if not c["hardware"]:
            continue
        if c["command"] is None:  # an NVLink bridge: a line of the build file, the parts are the build's
            assert c["flags"] is None
            continue
        words = shlex.split(c["command"])
        assert words[:2] == ["advisor", "workload"]
        parts = []
        for i, w in enumerate(words):
            if w in ("--cpu", "--board", "--gpu", "--driver", "--nccl-p2p-level", "--bios", "--kernel-iommu"):
                parts += [w, words[i + 1]]
        plans_cleanly(cli, example, *parts)
