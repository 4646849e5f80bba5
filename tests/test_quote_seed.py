"""`advisor validate` on the seed's own trap: i9-14900K + Z790 Hero + two RTX 4090 runs both cards at Gen4
x8 with no P2P (every copy staged through host memory). A quote of that build never passes, its summary
names what is wrong, and every common way of claiming P2P, full speed, x16 or pooled memory is judged
false with the reason, whether the claim sits on its own line or on the line that lists the parts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from tests.conftest import ROOT

PARTS = "i9-14900K + 华硕 Z790 Hero + 双4090 24G + 1600W 电源"
SEED = f"{PARTS}, 总价 38999 元, 支持双卡P2P满速"

P2P_WHY = ("no P2P", "stock Linux driver", "staged through host memory")
X8_WHY = ("Gen4 x8",)
POOLED_WHY = ("does not add up into one space", "24 GB each", "tensor", "each card still holds its own part")

# each phrasing, and what it claims: the property and words its reason must give
PHRASINGS = {
    "支持双卡P2P满速": {"p2p": P2P_WHY, "full_speed": X8_WHY},
    "双卡P2P": {"p2p": P2P_WHY},
    "P2P直连": {"p2p": P2P_WHY},
    "支持P2P": {"p2p": P2P_WHY},
    "满速运行": {"full_speed": X8_WHY},
    "双x16满速": {"full_speed": X8_WHY, "pcie": X8_WHY},
    "两张卡都跑x16": {"pcie": X8_WHY},
    "PCIe 4.0 x16满血": {"pcie": X8_WHY, "full_speed": X8_WHY},
    "显存叠加": {"pooled_memory": POOLED_WHY},
    "显存池化": {"pooled_memory": POOLED_WHY},
    "显存可以叠加成48G": {"pooled_memory": (*POOLED_WHY, "the 48 GB is their sum")},
    "两张卡显存合并48GB": {"pooled_memory": (*POOLED_WHY, "the 48 GB is their sum")},
    "48G显存": {"pooled_memory": (*POOLED_WHY, "the 48 GB is their sum")},
    "supports P2P at full speed": {"p2p": P2P_WHY, "full_speed": X8_WHY},
    "both cards at full x16": {"pcie": X8_WHY},
    "48GB pooled VRAM": {"pooled_memory": (*POOLED_WHY, "the 48 GB is their sum")},
    "memory pools to 48 GB": {"pooled_memory": (*POOLED_WHY, "the 48 GB is their sum")},
}


def validate(cli, write, text: str, name: str = "quote.txt") -> tuple[int, dict]:
    code, out, err = cli("validate", str(write(name, text)), "--json")
    assert out, err
    return code, json.loads(out)


def test_the_seed_line_fails_and_says_why_in_a_real_process(tmp_path):
    path = tmp_path / "seed.txt"
    path.write_text(SEED + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "advisor", "validate", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    head = done.stdout.split("\n\n")[0]  # the verdict and its summary, before the quote's lines
    assert head.startswith("PROBLEMS: ")
    flat = " ".join(head.split())
    assert "GPU0 (NVIDIA GeForce RTX 4090) runs at Gen4 x8" in flat
    assert "GPU1 (NVIDIA GeForce RTX 4090) runs at Gen4 x8" in flat
    assert "no P2P between the GPUs: copies go through host memory" in flat
    assert "the claim '支持双卡P2P满速' is false" in flat
    claims = done.stdout.split("Vendor claims")[1]
    assert claims.count("FALSE   line 1: 支持双卡P2P满速") == 2


def test_the_seed_lines_claim_is_judged_beside_its_parts(cli, write):
    code, r = validate(cli, write, SEED + "\n")
    assert code == 1 and r["exit_code"] == 1 and r["verdict"] == "PROBLEMS"
    line = r["quote"]["lines"][0]
    assert line["status"] == "part"
    assert {p["part_id"] for p in line["parts"]} >= {"asus-rog-maximus-z790-hero", "nvidia-rtx-4090"}
    verdicts = {c["about"]: (c["verdict"], c["why"]) for c in r["claims"]}
    assert set(verdicts) == {"p2p", "full_speed"}
    assert all(c["claim"] == "支持双卡P2P满速" and c["line"] == 1 for c in r["claims"])
    assert verdicts["p2p"][0] is False and all(w in verdicts["p2p"][1] for w in P2P_WHY)
    assert verdicts["full_speed"][0] is False
    assert "GPU0 in PCIEX16(G5)_1 runs Gen4 x8 (card: Gen4 x16)" in verdicts["full_speed"][1]


def test_the_seed_build_without_any_claim_is_a_warning_that_names_its_problems(cli, write):
    code, r = validate(cli, write, f"{PARTS}, 总价 38999 元\n")
    assert r["claims"] == [] and not r["build_problems"] and not r["not_in_catalog"]
    assert code == 1 and r["exit_code"] == 1 and r["verdict"] == "WARN"
    assert "Gen4 x8" in r["summary"] and "no P2P" in r["summary"] and "host memory" in r["summary"]
    # no error finding: the build runs, below what its parts allow
    severities = {f["id"]: f["severity"] for f in r["plan"]["findings"]}
    assert "error" not in severities.values()
    assert severities["LANE001"] == "warning" and severities["P2P001"] == "warning"


@pytest.mark.parametrize("where", ["own line", "parts line"])
@pytest.mark.parametrize("phrase", list(PHRASINGS))
def test_each_phrasing_is_judged_false_with_its_reason(cli, write, phrase, where):
    text = f"{PARTS}\n{phrase}\n" if where == "own line" else f"{PARTS}, 总价 38999 元, {phrase}\n"
    code, r = validate(cli, write, text)
    want = PHRASINGS[phrase]
    line = 2 if where == "own line" else 1
    got = {c["about"]: c for c in r["claims"] if c["line"] == line}
    assert set(got) == set(want), r["claims"]
    for about, words in want.items():
        assert got[about]["verdict"] is False, got[about]
        assert got[about]["claim"] == phrase
        for w in words:
            assert w in got[about]["why"], (about, w, got[about]["why"])
    assert code == 1 and r["verdict"] == "PROBLEMS"
    assert {c["claim"] for c in r["false_claims"]} == {phrase}
    # the build is still read from the parts; a line that only claims is a claim, not a part
    assert r["quote"]["build"]["gpus"] == [{"model": "nvidia-rtx-4090", "count": 2}]
    assert "ram_gb" not in r["quote"]["build"]
    if where == "own line":
        assert r["quote"]["lines"][1]["status"] == "claim" and r["quote"]["lines"][1]["parts"] == []


def test_a_card_that_holds_48g_itself_is_not_claimed_to_pool(cli, write):
    # "RTX 4090 48G ... 单卡48G显存": the card's own memory, not a sum of two cards
    text = (
        "CPU: AMD EPYC 7543\n主板：超微 H12SSL-i\n"
        "显卡：RTX 4090 48G 魔改 涡轮版 x2 （单卡48G显存，双宽）\n电源：1600W\n"
    )
    code, r = validate(cli, write, text)
    assert [c for c in r["claims"] if c["about"] == "pooled_memory"] == []
    assert r["quote"]["build"]["gpus"] == [{"model": "nvidia-rtx-4090-48gb", "count": 2}]
    # four cards of 48 GB written as 192G: their sum, a claim to judge
    code, r = validate(cli, write, text.replace("x2", "x4") + "四卡显存共192G\n")
    pooled = [c for c in r["claims"] if c["about"] == "pooled_memory"]
    assert len(pooled) == 1 and pooled[0]["verdict"] is False
    assert "48 GB each; the 192 GB is their sum" in pooled[0]["why"]


def test_a_board_lines_own_spec_is_not_a_claim(cli, write):
    # the slot list and socket count describe the board, not this build
    code, r = validate(
        cli,
        write,
        "AMD EPYC 7543\nSupermicro H12SSL-i, single socket SP3, 5x PCIe 4.0 x16\n2x NVIDIA RTX A6000\n1600W PSU\n",
    )
    assert r["claims"] == []


def test_full_speed_on_a_chipset_slot_is_false(cli, write):
    text = (ROOT / "examples" / "quotes" / "strix-z790e-chipset-slot.csv").read_text()
    text = text.replace("Note: both cards run at x16/x16", "Note: both cards run at full speed")
    code, r = validate(cli, write, text, "quote.csv")
    assert code == 1 and r["verdict"] == "PROBLEMS"
    assert "GPU1 (NVIDIA GeForce RTX 4090) runs at Gen4 x4 on chipset lanes" in r["summary"]
    (claim,) = r["claims"]
    assert claim["about"] == "full_speed" and claim["verdict"] is False
    assert "GPU1 in PCIEX16(G4)_1 runs Gen4 x4 on chipset lanes (card: Gen4 x16)" in claim["why"]


def test_a_build_whose_all_reduce_goes_through_host_memory_is_a_warning(cli, write):
    # full links and CUDA P2P on every pair, but NCCL's default keeps P2P off across the CPU's host
    # bridge: a training job's all-reduce runs over host memory (SHM)
    code, r = validate(
        cli, write, "Intel Xeon w9-3495X\nASUS Pro WS W790E-SAGE SE\n4x NVIDIA RTX 6000 Ada\n2000W PSU\n"
    )
    assert all(p["p2p"] for p in r["plan"]["pairs"])
    assert "P2P002" in {f["id"] for f in r["plan"]["findings"]}
    assert code == 1 and r["verdict"] == "WARN"
    assert r["summary"] == "NCCL uses host memory (SHM), not P2P, by default on every GPU pair."


def test_the_clean_quote_passes(cli):
    code, out, _ = cli("validate", str(ROOT / "examples" / "quotes" / "clean-2x6000ada-wrx90.txt"), "--json")
    r = json.loads(out)
    assert code == 0 and r["exit_code"] == 0 and r["verdict"] == "PASS"
    assert r["summary"].startswith("No problem found")
    plan = r["plan"]
    assert all(g["link"]["width"] == g["link"]["max_width"] for g in plan["gpus"])
    assert all(p["p2p"] for p in plan["pairs"]) and plan["verdict"].startswith("A good multi-GPU build")
    assert {c["verdict"] for c in r["claims"]} == {True}


@pytest.mark.parametrize(
    "text",
    [
        f"{PARTS}, 总价 38999 元\n",
        (ROOT / "examples" / "quotes" / "clean-2x6000ada-wrx90.txt").read_text(),
        (ROOT / "examples" / "quotes" / "strix-z790e-chipset-slot.csv").read_text(),
        "AMD Ryzen 9 9950X\nASUS ProArt X870E-Creator WiFi\n2x NVIDIA RTX 6000 Ada\n1600W PSU\n",
        "AMD EPYC 7543\nSupermicro H12SSL-i\n4x NVIDIA RTX A6000\n2000W PSU\n",
    ],
    ids=["seed", "clean", "chipset", "x870e-6000ada", "h12ssl-4xa6000"],
)
def test_the_verdict_agrees_with_plans_headline_on_the_same_build(cli, write, text):
    name = "quote.csv" if text.startswith("Item,") else "quote.txt"
    code, r = validate(cli, write, text, name)
    build = write("build.yaml", yaml.safe_dump(r["quote"]["build"], allow_unicode=True))
    pcode, out, err = cli("plan", str(build), "--json")
    assert pcode == 0, err
    headline = json.loads(out)["verdict"]
    assert headline == r["plan"]["verdict"]
    plan = r["plan"]
    below = [
        g
        for g in plan["gpus"]
        if g["link"]["width"] < g["link"]["max_width"] or g["link"]["gen"] < g["link"]["max_gen"]
    ]
    staged = [p for p in plan["pairs"] if not p["p2p"]]
    for g in below:  # each GPU the headline names below its link, the summary names at the same link
        said = f"GPU{g['index']} runs at Gen{g['link']['gen']} x{g['link']['width']}"
        assert said in headline
        assert f"runs at Gen{g['link']['gen']} x{g['link']['width']}" in r["summary"]
        assert f"GPU{g['index']} (" in r["summary"]
    if staged:
        assert "no P2P" in headline and "no P2P" in r["summary"]
    if below or staged or headline.startswith(("Not ready", "A weak", "A workable")):
        assert r["verdict"] != "PASS" and r["exit_code"] == 1
    if r["verdict"] == "PASS":
        assert headline.startswith(("A good multi-GPU build", "A one-GPU build:"))


async def test_the_quote_view_shows_the_warning_and_its_reasons(tmp_path, monkeypatch):
    from textual.widgets import Static, TextArea

    from advisor.tui.app import AdvisorApp
    from tests.tui_settle import settle

    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    app = AdvisorApp(str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("5")
        await settle(pilot)
        app.query_one("#quote-text", TextArea).load_text(f"{PARTS}, 总价 38999 元\n")
        await pilot.click("#quote-check")
        await settle(pilot)
        verdict = " ".join(str(app.query_one("#quote-verdict", Static).render()).split())
        assert verdict.startswith("WARN ")
        assert "runs at Gen4 x8" in verdict and "no P2P between the GPUs" in verdict
        app.query_one("#quote-text", TextArea).load_text(SEED + "\n")
        await pilot.click("#quote-check")
        await settle(pilot)
        assert str(app.query_one("#quote-verdict", Static).render()).startswith("PROBLEMS")
        claims = str(app.query_one("#quote-claims", Static).render())
        assert claims.count("FALSE") == 2 and "支持双卡P2P满速" in claims
