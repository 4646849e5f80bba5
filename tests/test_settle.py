"""On the real machine: the readers of what settles each UNKNOWN readiness layer (BAR1
sizes, ACS control, the kernel's IOMMU mode) on real published outputs, and `advisor compare` judging the
layers again with them. Fixtures: tests/fixtures/tools/README.md lists their sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.base.errors import UserError
from advisor.measure import load, parse

TOOLS = Path(__file__).parent / "fixtures" / "tools"
HERO = "examples/2x4090-z790-hero.yaml"


def test_the_kernel_command_line_says_the_iommu_mode():
    m = load(TOOLS / "cmdline" / "aikitoria38_dmesg_iommu_pt.txt")  # dmesg's "Command line:" (auto-detected)
    (r,) = m.find("iommu")
    assert m.source.tool == "cmdline" and r.value == "pt" and "pcie_acs_override" in r.note
    cases = {
        "BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro intel_iommu=on": "on",
        "BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro intel_iommu=on iommu=pt": "pt",
        "BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro amd_iommu=off": "off",
        "BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro amd_iommu=on": "default",  # amd_iommu=on is no option
        "BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro quiet splash": "default",
    }
    for line, mode in cases.items():
        (r,) = parse("auto", line + "\n", "cmdline.txt").find("iommu")
        assert r.value == mode, line
    with pytest.raises(UserError, match="no kernel command line found"):
        parse("cmdline", "hello\n", "x.txt")


def test_bar1_from_nvidia_smi_and_lspci():
    (r,) = load(TOOLS / "smiq" / "aikitoria38_bar1_grep.txt").find("bar1_mb")  # grep -A 4 "BAR1 Memory Usage"
    assert (r.gpu, r.value, r.unit) == (0, 65536, "MiB")
    bars = load(TOOLS / "lspci" / "stelline_2x6000ada_downgraded_plus_raid.txt").find("bar1_mb")
    assert [(b.gpu, b.value) for b in bars] == [(0, 65536), (1, 65536)]


def test_acs_control_from_lspci_grep():
    (on,) = load(TOOLS / "lspci" / "nccl523_grep_acsctl_redirect_on.txt").find("acs_on")
    assert on.value is True and "ReqRedir+ on 5 of 11 bridges" in on.note
    (off,) = load(TOOLS / "lspci" / "nccl1405_grep_acsctl_all_off.txt").find("acs_on")
    assert off.value is False and "all 14 bridges" in off.note
    # the form plan's check asks for (device lines kept): the bridges are named (a line built here)
    text = (
        "00:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge\n"
        "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
        "01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1)\n"
    )
    (r,) = parse("auto", text, "acs.txt").find("acs_on")
    assert r.value is True and "(0000:00:01.1)" in r.note


def _compare(cli, *files: Path) -> dict:
    code, out, err = cli("compare", HERO, *map(str, files), "--json")
    assert code in (0, 1), err
    return json.loads(out)


def test_compare_turns_unknown_layers_into_verdicts(cli, write):
    build = write("b.yaml", Path(HERO).read_text() + "software: {driver: patched-p2p, display_gpus: []}\n")
    code, out, err = cli("plan", str(build), "--json")
    before = {x["layer"]: x["verdict"] for x in json.loads(out)["readiness"][0]["layers"]}
    assert before["driver"] == "UNKNOWN" and before["acs"] == "UNKNOWN"
    code, out, err = cli(
        "compare",
        str(build),
        str(TOOLS / "smiq" / "aikitoria38_bar1_grep.txt"),
        str(TOOLS / "cmdline" / "aikitoria38_dmesg_iommu_pt.txt"),
        str(TOOLS / "lspci" / "nccl1405_grep_acsctl_all_off.txt"),
        "--json",
    )
    r = json.loads(out)
    layers = {x["layer"]: x for x in r["readiness"][0]["layers"]}
    assert layers["driver"]["verdict"] == "PASS" and layers["acs"]["verdict"] == "PASS"
    assert {"GPU0-GPU1 driver", "GPU0-GPU1 acs"} <= set(r["settled_layers"])
    assert any("large BAR is on" in s for s in r["settled"]) and any("iommu=pt" in s for s in r["settled"])
    # ACS on at the bridges and a 256 MiB BAR1 fail instead
    small = write("bar1.txt", "    BAR1 Memory Usage\n        Total : 256 MiB\n        Used : 1 MiB\n")
    code, out, err = cli(
        "compare",
        str(build),
        str(small),
        str(TOOLS / "lspci" / "nccl523_grep_acsctl_redirect_on.txt"),
        "--json",
    )
    layers = {x["layer"]: x for x in json.loads(out)["readiness"][0]["layers"]}
    assert (
        layers["driver"]["verdict"] == "FAIL"
        and "large (Resizable) BAR; it is off" in layers["driver"]["why"]
    )
    assert "ACS is on" in layers["acs"]["why"]


def test_the_drivers_own_p2p_matrix_settles_the_driver_layer(cli, write):
    matrix = write(
        "p2p.txt",
        "nvidia-smi topo -p2p r\n \tGPU0\tGPU1\t\n GPU0\tX\tNS\t\n GPU1\tNS\tX\t\n\nLegend:\n\n  X    = Self\n"
        "  OK   = Status Ok\n  CNS  = Chipset not supported\n  GNS  = GPU not supported\n"
        "  TNS  = Topology not supported\n  NS   = Not supported\n  U    = Unknown\n",
    )
    r = _compare(cli, matrix)
    driver = next(x for x in r["readiness"][0]["layers"] if x["layer"] == "driver")
    assert driver["verdict"] == "FAIL" and driver["why"].startswith("measured:")
    code, out, _ = cli("compare", HERO, str(matrix))
    assert "P2P readiness with what the files show" in out and "FAIL    driver   measured:" in out
