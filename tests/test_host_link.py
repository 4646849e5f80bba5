"""Each GPU's host link: the raw rate of the narrowest link between the GPU and its CPU, the ceiling its
host copies reach a fraction of. A figure added through the model (model/predict.py) and the view model
(outputs/plan.py); `plan --json` carries it, `--explain` its derivation, and the text and Markdown reports
say it under the host copies."""

from __future__ import annotations

import re

import yaml

from tests.conftest import ROOT

MODEL = yaml.safe_load((ROOT / "rules" / "model.yaml").read_text())["constants"]
LANE = MODEL["pcie_lane_gbps"]["value"]  # GB/s per lane per direction, by PCIe generation
H2D = MODEL["h2d_efficiency"]["value"]


def _without_chipset_uplink(folder) -> list[str]:
    """The plan flags of i9-14900K + ROG Strix Z790-E + 2x RTX 4090 (the second card behind the chipset)
    over a user's catalog folder holding the board and CPU with their chipset uplink nulled."""
    for src in ("boards/asus-rog-strix-z790-e-gaming-wifi.yaml", "cpus/intel-core-i9-14900k.yaml"):
        text = (ROOT / "catalog" / src).read_text()
        text, n = re.subn(r"(?ms)^chipset_uplink:.*?(?=^\w)", "chipset_uplink: null\n", text)
        assert n == 1
        (folder / src.split("/")[1]).write_text(text)
    return [
        "--cpu",
        "i9-14900K",
        "--board",
        "ROG Strix Z790-E",
        "--gpu",
        "RTX 4090:2",
        "--catalog",
        str(folder),
    ]


def test_the_host_link_is_the_narrowest_links_raw_rate_and_the_copies_a_fraction_of_it(plan_json):
    plan = plan_json(str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    for g in plan["gpus"]:
        link = g["link"]
        assert (link["gen"], link["width"]) == (4, 8)  # the Hero splits its CPU lanes x8/x8
        assert g["host_link_gbps"] == round(LANE[4] * 8, 1)
        assert g["h2d_gbps"] == round(LANE[4] * 8 * H2D["default"], 1) < g["host_link_gbps"]


def test_behind_the_chipset_the_narrowest_link_on_the_way_sets_it(plan_json):
    plan = plan_json("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:2")
    cpu_lanes, chipset = plan["gpus"]
    assert cpu_lanes["host_link_gbps"] == round(LANE[4] * 16, 1)
    # the second card runs x4 behind the chipset's Gen4 x8 uplink: its own x4 is the narrower
    assert (chipset["link"]["gen"], chipset["link"]["width"]) == (4, 4)
    assert chipset["host_link_gbps"] == round(LANE[4] * 4, 1)


def test_explain_gives_its_formula_constant_and_basis(cli):
    import json

    code, out, err = cli("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--json", "--explain")
    assert code == 0, err
    d = json.loads(out)["gpus"][0]["derivation"]["host_link"]
    assert d["constants"] == ["pcie_lane_gbps"] and d["confidence"] == "spec"
    assert d["value"] == round(LANE[4] * 8, 3) and d["inputs"]["bottleneck"] == "its own Gen4 x8 link"
    assert "narrowest link between the GPU and its CPU" in d["formula"]


def test_a_chipset_uplink_the_catalog_lacks_leaves_it_unknown_never_a_guess(plan_json, tmp_path):
    """The board's and the CPU's chipset uplink nulled (a user's copy of each): a GPU behind the chipset has
    no known narrowest link, so its host link is null, not its own link's rate and not 0."""
    plan = plan_json(*_without_chipset_uplink(tmp_path))
    cpu_lanes, chipset = plan["gpus"]
    assert cpu_lanes["host_link_gbps"] == round(LANE[4] * 16, 1)  # CPU lanes: no uplink on the way
    assert chipset["host_link_gbps"] is None
    # and the JSON names what it would need, as a pair's `unknown` does
    assert cpu_lanes["unknown"] == []
    assert chipset["unknown"] == ["ASUS ROG Strix Z790-E Gaming WiFi: chipset_uplink (and the CPU's)"]
    # its copies can only be read from its own link: at most that, at low confidence, and said so
    plan = plan_json(*_without_chipset_uplink(tmp_path), "--explain")
    cpu_lanes, chipset = plan["gpus"]
    h2d = chipset["derivation"]["h2d"]
    assert h2d["confidence"] == "low" and "at most: the chipset's uplink" in h2d["formula"]
    assert cpu_lanes["derivation"]["h2d"]["confidence"] != "low"


def test_the_text_and_markdown_reports_say_each_gpus_raw_link_and_unknown_where_it_is(cli, tmp_path):
    hero = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
    code, out, err = cli("plan", hero)
    assert code == 0, err
    said = " ".join(out.split())  # the line wraps at the terminal's width
    rate = f"{LANE[4] * 8:.1f} GB/s"
    assert (
        f"Raw link to the CPU, each direction (the copies above reach a share of it): GPU0 {rate}, GPU1 {rate}"
        in said
    )
    code, out, err = cli("plan", hero, "--format", "markdown")
    assert (
        f"Raw link to the CPU, each direction (the copies above reach a share of it): GPU0 {rate}, GPU1 {rate}"
        in out
    )
    # a chipset uplink the catalog lacks: the GPU behind it says unknown, never a rate
    args = _without_chipset_uplink(tmp_path)
    code, out, err = cli("plan", *args)
    assert f"GPU0 {LANE[4] * 16:.1f} GB/s, GPU1 unknown" in " ".join(out.split()), out


def test_the_text_derivations_print_keyed_constants_with_their_key(cli):
    """A formula names a constant by generation ("h2d_efficiency[gen]"): the text --explain prints it so,
    where rich had read "[gen]" as a markup tag and dropped it."""
    code, out, err = cli("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--explain")
    assert code in (0, 1), err
    flat = " ".join(out.split())
    assert "x h2d_efficiency[gen]; inputs" in flat
