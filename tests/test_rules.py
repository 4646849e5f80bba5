"""Each rule fires on a build that has the problem and stays quiet on one that does not."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _ids(plan, rule):
    return [f for f in plan["findings"] if f["id"] == rule]


TWO_4090_X8 = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")
ONE_4090 = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090")


@pytest.mark.parametrize(
    "rule,fires,quiet",
    [
        ("LANE001", TWO_4090_X8, ONE_4090),
        (
            "LANE002",
            ("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:2"),
            TWO_4090_X8,
        ),
        (
            "P2P001",
            TWO_4090_X8,
            ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX A6000:2"),
        ),
        (
            "P2P002",
            ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX A6000:2"),
            TWO_4090_X8,
        ),
        ("PLAT001", TWO_4090_X8, ONE_4090),
        (
            "NVL001",
            ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 3090:2"),
            TWO_4090_X8,
        ),
    ],
)
def test_rule_fires_and_stays_quiet(plan_json, rule, fires, quiet):
    hit = _ids(plan_json(*fires), rule)
    assert hit, f"{rule} should fire"
    assert hit[0]["message"] and hit[0]["fix"] and hit[0]["severity"] in ("error", "warning", "info")
    assert not _ids(plan_json(*quiet), rule), f"{rule} should not fire"


def test_lane_message_names_the_part_the_slot_and_the_numbers(plan_json):
    msg = _ids(plan_json(*TWO_4090_X8), "LANE001")[0]["message"]
    assert "RTX 4090" in msg and "PCIEX16(G5)_1" in msg and "x8" in msg and "GB/s" in msg


def test_power_and_memory_rules(plan_json, write):
    small = write(
        "b.yaml",
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{model: RTX 4090, count: 2}]\n"
        "psu_w: 1000\nram_gb: 32\n",
    )
    plan = plan_json(str(small))
    assert _ids(plan, "PWR001") and _ids(plan, "MEM001")
    big = write(
        "c.yaml",
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{model: RTX 4090, count: 2}]\n"
        "psu_w: 2000\nram_gb: 128\n",
    )
    plan = plan_json(str(big))
    assert not _ids(plan, "PWR001") and not _ids(plan, "MEM001")


def test_a_psu_above_the_sustained_load_but_short_of_the_spike_headroom_is_a_warning(plan_json, write):
    """2x RTX 4090 on 1600 W: 1253 W of board power, within an ATX 3.x PSU's rating, below 1.3x. It was an
    ERROR; it is a warning that says the margin in watts. Below the sustained load it is an error."""
    base = "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{model: RTX 4090, count: 2}]\n"
    plan = plan_json(str(write("a.yaml", base + "psu_w: 1600\n")))
    (f,) = [f for f in plan["findings"] if f["category"] == "power" and f["id"].startswith("PWR00")]
    assert f["id"] == "PWR004" and f["severity"] == "warning"
    assert "1253 W with 347 W to spare" in f["message"] and "1629 W" in f["message"]
    plan = plan_json(str(write("b.yaml", base + "psu_w: 1200\n")))
    (f,) = _ids(plan, "PWR001")
    assert f["severity"] == "error" and "margin -53 W" in f["message"]
    assert not _ids(plan, "PWR004")


def test_findings_are_worst_first(plan_json):
    plan = plan_json("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:2")
    order = {"error": 0, "warning": 1, "info": 2}
    sev = [order[f["severity"]] for f in plan["findings"]]
    assert sev == sorted(sev) and sev[0] == 0


def test_rules_explain_prints_the_sections(cli):
    code, out, _ = cli("rules", "explain", "P2P001")
    assert code == 0
    for section in ("What it checks", "Why it matters", "Fix", "Sources"):
        assert section in out
    code, _, err = cli("rules", "explain", "NOPE999")
    assert code == 2 and "no rule" in err


def test_thick_cards_in_adjacent_slots_do_not_fit_and_placement_avoids_it(plan_json):
    cramped = plan_json(
        "--cpu",
        "TR PRO 7985WX",
        "--board",
        "WRX90E-SAGE",
        "--gpu",
        "RTX 4090@pciex16(g5)_1",
        "--gpu",
        "RTX 4090@PCIEX16(G5)_2",
    )
    assert _ids(cramped, "FIT001")
    auto = plan_json("--cpu", "TR PRO 7985WX", "--board", "WRX90E-SAGE", "--gpu", "RTX 4090:2")
    assert not _ids(auto, "FIT001")
    assert auto["gpus"][1]["slot"] != "PCIEX16(G5)_2"


def test_unverified_parts_are_named(plan_json):
    plan = plan_json("--cpu", "TR PRO 7985WX", "--board", "WRX90E-SAGE", "--gpu", "RTX 4090")
    assert "7985WX" in _ids(plan, "CAT001")[0]["message"]
    plan = plan_json("--cpu", "i9-13900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090")
    assert not _ids(plan, "CAT001")


FIXTURES = Path(__file__).parent / "fixtures" / "rules"
RULES_WITH_FIXTURES = sorted({p.name.split("-")[0] for p in FIXTURES.glob("*-fires.yaml")})
# A compare rule's fixture holds a build and a measurement (`build:`, `measurement:`); the others are builds.
COMPARE_FIXTURES = sorted(
    r for r in RULES_WITH_FIXTURES if "measurement:" in (FIXTURES / f"{r}-fires.yaml").read_text()
)
PLAN_FIXTURES = [r for r in RULES_WITH_FIXTURES if r not in COMPARE_FIXTURES]


def _fixture_args(path: Path) -> list[str]:
    """A fixture's first line may carry plan flags (a workload, or a catalog folder of test parts, from the
    repository's root): `# args: --train 1b --batch 1`, `# args: --catalog tests/fixtures/rules-catalog`."""
    first = path.read_text().splitlines()[0]
    args = shlex.split(first.split("# args:", 1)[1]) if first.startswith("# args:") else []
    return [str(ROOT / a) if i and args[i - 1] == "--catalog" else a for i, a in enumerate(args)]


@pytest.mark.parametrize("rule", PLAN_FIXTURES)
def test_rule_fixture_fires_and_its_twin_does_not(plan_json, rule):
    path = FIXTURES / f"{rule}-fires.yaml"
    fires = plan_json(str(path), *_fixture_args(path))
    assert _ids(fires, rule), f"{rule} should fire on {rule}-fires.yaml"
    path = FIXTURES / f"{rule}-quiet.yaml"
    quiet = plan_json(str(path), *_fixture_args(path))
    assert not _ids(quiet, rule), f"{rule} must not fire on {rule}-quiet.yaml"


def _compare_causes(cli, tmp_path, fixture: Path) -> list[str]:
    """`advisor compare` of the fixture's build against its measurement: the ids of every cause shown."""
    import json

    import yaml

    data = yaml.safe_load(fixture.read_text())
    build, meas = tmp_path / f"{fixture.stem}-build.yaml", tmp_path / f"{fixture.stem}-measurement.json"
    build.write_text(yaml.safe_dump(data["build"]))
    meas.write_text(json.dumps(data["measurement"]))
    code, out, err = cli("compare", str(build), str(meas), "--json")
    assert code in (0, 1), err
    return [c["id"] for row in json.loads(out)["rows"] for c in row["causes"]]


@pytest.mark.parametrize("rule", COMPARE_FIXTURES)
def test_compare_rule_fixture_fires_and_its_twin_does_not(cli, tmp_path, rule):
    assert rule in _compare_causes(cli, tmp_path, FIXTURES / f"{rule}-fires.yaml"), f"{rule} should fire"
    assert rule not in _compare_causes(cli, tmp_path, FIXTURES / f"{rule}-quiet.yaml"), (
        f"{rule} must stay quiet"
    )


def test_every_rule_has_a_firing_and_a_quiet_example():
    """Every rule of the bundled files has its `-fires` and `-quiet` fixture, which the two tests above
    run: a rule without one is a rule nobody has seen fire."""
    import yaml

    from advisor.base.resources import bundled
    from advisor.findings.rules import load_rules

    # read independently: every rule of the `kind: rules` files is loaded, exactly once
    files = [yaml.safe_load(p.read_text()) for p in sorted(bundled("rules").glob("*.yaml"))]
    ids = [r["id"] for d in files if d.get("kind") == "rules" for r in d["rules"]]
    assert sorted(r.id for r in load_rules()) == sorted(ids) and len(set(ids)) == len(ids)
    assert sorted(RULES_WITH_FIXTURES) == sorted(ids), set(ids) ^ set(RULES_WITH_FIXTURES)
    # each fixture comes as a firing and a quiet twin, nothing else in the folder
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(
        f"{rule}-{twin}.yaml" for rule in RULES_WITH_FIXTURES for twin in ("fires", "quiet")
    )


def test_consumer_platform_finding_names_a_concrete_catalog_alternative(plan_json):
    from advisor.model.catalog.store import load_catalog

    fix = _ids(plan_json(*TWO_4090_X8), "PLAT001")[0]["fix"]
    boards = [b.name for b in load_catalog().boards if b.segment == "workstation"]
    assert any(name in fix for name in boards), fix


def test_a_users_own_rules_folder_adds_findings(plan_json, tmp_path, cli):
    (tmp_path / "mine.yaml").write_text(
        "kind: rules\nrules:\n  - id: MY001\n    category: workload\n    severity: info\n    scope: gpu\n"
        '    title: Big card\n    when: "gpu.vram_gb >= 24"\n    message: "GPU{gpu.index} has {gpu.vram_gb:g} GB"\n'
        "    why: because\n    fix: nothing\n    sources: ['https://example.com']\n"
    )
    plan = plan_json(*ONE_4090, "--rules", str(tmp_path))
    assert _ids(plan, "MY001")[0]["message"] == "GPU0 has 24 GB"
    (tmp_path / "bad.yaml").write_text("kind: rules\nrules:\n  - id: BAD001\n    category: nope\n")
    code, _, err = cli("plan", *ONE_4090, "--rules", str(tmp_path))
    assert code == 2 and f"{tmp_path / 'bad.yaml'}:4: rules[0].category" in err


def test_lane_fixes_follow_the_cause_of_the_narrow_link(plan_json):
    """LANE001 offered "move the M.2 SSD" to builds with no SSD, and LANE002 on the Hero "a board that wires
    two CPU slots x8/x8", which the Hero does: each fix is now computed from the link's cause."""

    def fixes(*args):
        return {
            (f["id"], f["subject"]): f["fix"]
            for f in plan_json(*args)["findings"]
            if f["id"].startswith("LANE")
        }

    split = fixes(str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    assert all("SSD" not in fix for fix in split.values())
    assert split[("LANE001", "GPU0")].startswith("The CPU's graphics lanes are split between the cards")
    assert "for x16 per GPU, a workstation platform, e.g. " in split[("LANE001", "GPU0")]
    ssd = fixes("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090", "--nvme", "M.2_1")
    assert ssd[("LANE001", "GPU0")].startswith("Move the SSD out of M.2_1")
    chipset = fixes(
        "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero",
        "--gpu", "RTX 4090@PCIEX16(G5)_1", "--gpu", "RTX 4090@PCIEX4(G4)",
    )  # fmt: skip
    assert chipset[("LANE002", "GPU1")].startswith("Move the card to PCIEX16(G5)_2 (CPU lanes, x8)")
    full = fixes("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:2")
    assert full[("LANE002", "GPU1")].startswith("Every CPU-wired slot of this board is taken")


def test_a_two_socket_build_counts_both_cpus_power(plan_json, write):
    """Two EPYC 9654 (360 W each) with eight L40S: the sustained load counts 720 W of CPUs, not one
    socket's 360 W (it did, and a PSU short by the second CPU passed)."""
    build = write(
        "d.yaml",
        "cpu: amd-epyc-9654\ncpu_count: 2\nboard: supermicro-as-4125gs-tnrt2\n"
        "gpus: [{model: nvidia-l40s, count: 8}]\npsu_w: 3500\n",
    )
    (f,) = _ids(plan_json(str(build)), "PWR001")
    assert "+ CPU 720 W" in f["message"]


def test_a_cpu_without_a_power_figure_is_said_to_be_left_out_of_the_psu_check(plan_json, tmp_path):
    """PWR005: every bundled CPU now has a sourced power figure, so the CPU without one is made
    in a user catalog: a copy of the EPYC 9575F with its TDP taken out."""
    import re

    from advisor.model.catalog.store import load_catalog

    src = load_catalog().origin["amd-epyc-9575f"][0]
    text = re.sub(r"(?m)^(tdp_w|max_power_w):.*$", r"\1: null", open(src).read())
    text = text.replace("amd-epyc-9575f", "my-epyc-9575f").replace("AMD EPYC 9575F", "My EPYC 9575F")
    text = re.sub(r"(?ms)^aliases:.*?(?=^\w)", "aliases: []\n", text)
    text = re.sub(r"(?m)^part_numbers:.*$", "part_numbers: []", text)
    (tmp_path / "cpu.yaml").write_text(text)
    args = ("--board", "ESC8000A-E13P", "--gpu", "RTX 6000 Ada:2", "--catalog", str(tmp_path))
    plan = plan_json("--cpu", "my-epyc-9575f", *args)
    assert not [f for f in plan["findings"] if f["id"] == "PWR005"]  # no PSU in the build: no PSU check
    import yaml

    build = tmp_path / "b.yaml"
    build.write_text(
        yaml.safe_dump(
            {
                "cpu": "my-epyc-9575f",
                "board": "ESC8000A-E13P",
                "psu_w": 1600,
                "gpus": [{"model": "RTX 6000 Ada", "count": 2}],
            }
        )
    )
    plan = plan_json(str(build), "--catalog", str(tmp_path))
    (f,) = [f for f in plan["findings"] if f["id"] == "PWR005"]
    # never counted as 0 W: the check is made against the known parts only, and the headroom rule that
    # needs the whole sum is reported as not judged
    assert "no power figure for My EPYC 9575F" in f["message"] and "about 700 W" in f["message"]
    (cat,) = [f for f in plan["findings"] if f["id"] == "CAT002"]
    assert "PWR004" in cat["message"] and "build.psu_margin_w" in cat["message"]
    build.write_text(build.read_text().replace("my-epyc-9575f", "amd-epyc-9575f"))
    plan = plan_json(str(build), "--catalog", str(tmp_path))
    assert not [f for f in plan["findings"] if f["id"] == "PWR005"]  # the bundled one: AMD's 400 W


# Words shaped like an id (letters, then three digits or more) that name parts, never a check: the code and
# the rule texts mention them, and none is an id a user looks up.
NOT_IDS = {
    "A4500": "NVIDIA RTX A4500",
    "A5000": "NVIDIA RTX A5000",
    "A6000": "NVIDIA RTX A6000",
    "RTX4090": "a GeForce RTX 4090 as a part number writes it",
    "GA100": "NVIDIA's Ampere data-centre die",
    "GA102": "NVIDIA's Ampere consumer die",
    "GB200": "NVIDIA's Grace Blackwell superchip",
    "PEX88096": "a Broadcom PCIe switch",
    "PEX89104": "a Broadcom PCIe switch",
    "PM50100": "a Microchip PCIe switch",
    "LL128": "NCCL's protocol with 120 data bytes in every 128",
}
ID_SHAPE = r"\b[A-Z][A-Z0-9]{1,4}[0-9]{3,}\b"


def _strings_in_code() -> list[str]:
    """Every string the package's code holds (f-strings' literal parts too): an id the tool prints is
    written in one of them, or read from the rule files."""
    import ast

    out = []
    for path in sorted((ROOT / "advisor").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.append(node.value)
    return out


def _strings_in_rule_files() -> list[str]:
    """Every string of rules/*.yaml (ids, titles, messages, fixes): a finding's text may name another id."""
    import yaml

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                yield from walk(k)
                yield from walk(v)
        elif isinstance(x, list):
            for v in x:
                yield from walk(v)
        elif isinstance(x, str):
            yield x

    return [s for p in sorted((ROOT / "rules").glob("*.yaml")) for s in walk(yaml.safe_load(p.read_text()))]


def test_every_id_the_tool_can_print_is_explained(cli):
    """A finding's id is what a user looks up: every id any output can hold (a rule's, a check's of the
    doctor or of a quote, a claim check's, an id a message names) answers `advisor rules explain ID`.
    The ids are gathered from everything the tool can print from: every string in the code and in the
    rule files; a word shaped like an id that is neither registered nor a part's name fails here."""
    import re

    from advisor.findings.rules import load_checks, load_rules
    from advisor.quote.claim_checks import CLAIM_CHECKS

    registered = {r.id for r in load_rules()} | {c.id for c in load_checks()}
    written = {m for s in _strings_in_code() + _strings_in_rule_files() for m in re.findall(ID_SHAPE, s)}
    assert written - registered - set(NOT_IDS) == set(), "ids printed but not registered"
    assert not set(NOT_IDS) & registered
    # every registered check is one the code makes: the doctor's and the parts checks' ids are written
    # in the code, and each claim check is the judge of its kind
    code_ids = {m for s in _strings_in_code() for m in re.findall(ID_SHAPE, s)}
    checks = load_checks()
    assert {c.id for c in checks if c.claim is None} <= code_ids
    assert {(c.id, c.claim) for c in checks if c.claim} == {(c.id, k) for k, c in CLAIM_CHECKS.items()}
    assert len(registered) == len(load_rules()) + len(checks)  # no id registered twice
    for rule_id in sorted(registered | (written - set(NOT_IDS))):
        code, out, err = cli("rules", "explain", rule_id)
        assert code == 0 and out.startswith(rule_id) and "Why it matters" in out, (rule_id, err)
        assert re.search(r"\nSources\n  \S", out), rule_id  # every id names where it comes from


def test_a_board_taking_a_cpu_family_by_inference_says_so_only_for_that_family(plan_json):
    """The WRX90E-SAGE SE takes Threadripper PRO 9000WX by inference from the socket (its basis applies to
    that family alone); the PRO 7000WX it was probed with rests on the dump. CAT003 names the board's
    cpu_families for a 9975WX build and not for a 7975WX one."""
    said = "ASUS Pro WS WRX90E-SAGE SE: cpu_families (inferred)"
    zen5 = _ids(
        plan_json("--cpu", "TR PRO 9975WX", "--board", "WRX90E-SAGE SE", "--gpu", "RTX 6000 Ada:2"), "CAT003"
    )
    zen4 = _ids(
        plan_json("--cpu", "TR PRO 7975WX", "--board", "WRX90E-SAGE SE", "--gpu", "RTX 6000 Ada:2"), "CAT003"
    )
    assert said in zen5[0]["message"]
    assert all(said not in f["message"] for f in zen4)


def test_values_from_a_review_or_reasoning_are_said_and_lower_the_confidence(plan_json, write):
    """CAT003: the Threadripper 7960X's lane counts are reasoned from the platform's figures (basis:
    inferred), and the plan says so; a build whose parts rest on primary pages only is quiet. A bridge
    rate from a review lowers the pair figure's confidence and says what it rests on."""
    plan = plan_json("--cpu", "7960X", "--board", "TRX50-SAGE", "--gpu", "RTX 6000 Ada:2")
    (f,) = _ids(plan, "CAT003")
    assert "AMD Ryzen Threadripper 7960X: pcie.usable_lanes (inferred)" in f["message"]
    assert not _ids(plan_json(str(ROOT / "examples" / "2x4090-z790-hero.yaml")), "CAT003")
    tree = write(
        "a800.yaml",
        "topology:\n  sockets:\n    - vendor: amd\n      root_ports:\n"
        '        - {id: "00:01.1", host_bridge: "00", children: [{gpu: "A800 80GB PCIe"}]}\n'
        '        - {id: "00:03.1", host_bridge: "00", children: [{gpu: "A800 80GB PCIe"}]}\n'
        "nvlink: [[0, 1]]\n",
    )
    plan = plan_json(str(tree), "--explain")
    (pair,) = plan["pairs"]
    assert pair["confidence"] == "low"
    assert any("nvlink" in r for r in pair["derivation"]["uni"]["inputs"]["rests_on"])
