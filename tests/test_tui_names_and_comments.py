"""A build's name and comments after its parts change, driven as a user does (`c`, a board, Ctrl+S): a
name advisor made from the parts follows them, a name the user typed is kept; the example's own comment
goes once it no longer describes the build, and every comment the user wrote is kept."""

from __future__ import annotations

import shutil

import pytest

from advisor.model.buildfile import load_build
from advisor.session.buildyaml import HEADER
from advisor.tui.app import AdvisorApp
from tests.conftest import ROOT
from tests.test_tui import pick
from tests.tui_settle import settle

SIZE = (140, 40)
HERO = ROOT / "examples" / "2x4090-z790-hero.yaml"


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


async def swap_to_threadripper(pilot) -> None:
    """`c` 7960X, which the Z790 board does not take, then the TRX50-SAGE among the boards that do."""
    await pick(pilot, "c", "7960X")
    await pilot.press(*"TRX50-SAGE", "enter")
    await settle(pilot)


async def test_the_examples_name_and_comment_follow_the_new_parts(tmp_path):
    path = tmp_path / "hero.yaml"
    shutil.copy(HERO, path)
    app = AdvisorApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("2x RTX 4090 on i9-14900K / ROG Maximus Z790 Hero")
        await swap_to_threadripper(pilot)
        assert app.sub_title.startswith("2x RTX 4090 on Threadripper 7960X / Pro WS TRX50-SAGE WIFI")
        await pilot.press("ctrl+s")
        await settle(pilot)
    text = path.read_text()
    assert load_build(path).name == "2x RTX 4090 on Threadripper 7960X / Pro WS TRX50-SAGE WIFI"
    # the example's comment spoke of the Core i9 and x8/x8: it is gone, advisor's own header instead
    assert "x8/x8" not in text and "Core i9" not in text and text.startswith(HEADER)
    # undo brings the old parts back with their name
    app = AdvisorApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pick(pilot, "g", "A6000")
        assert "2x RTX 4090 + 1x RTX A6000 on Threadripper 7960X" in app.sub_title
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.sub_title.startswith("2x RTX 4090 on Threadripper 7960X /")


async def test_a_name_and_comments_the_user_wrote_are_kept(tmp_path):
    path = tmp_path / "mine.yaml"
    original = HERO.read_text().split("\n", 2)[2]  # the example without its comment
    original = original.replace(
        "name: 2x RTX 4090 on i9-14900K / ROG Maximus Z790 Hero", "name: lab box 2 (runs x8/x8)"
    )
    original = original.replace("psu_w: 1600", "psu_w: 1600  # the seller's PSU, 'x8/x8' in their note")
    path.write_text("# my notes: this box runs x8/x8, bought in March\n" + original + "# keep the 4090s\n")
    app = AdvisorApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await swap_to_threadripper(pilot)
        assert app.sub_title.startswith("lab box 2 (runs x8/x8)")
        await pilot.press("ctrl+s")
        await settle(pilot)
    text = path.read_text()
    assert text.startswith("# my notes: this box runs x8/x8, bought in March\n")
    assert "# the seller's PSU, 'x8/x8' in their note" in text and "# keep the 4090s" in text
    saved = load_build(path)
    assert saved.name == "lab box 2 (runs x8/x8)" and saved.cpu == "amd-ryzen-threadripper-7960x"
    # saved again: each comment once, where the first save put it
    app = AdvisorApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pick(pilot, "n", "M.2_2")
        await pilot.press("ctrl+s")
        await settle(pilot)
    again = path.read_text()
    assert again.count("# keep the 4090s") == 1 and again.count("the seller's PSU") == 1
    assert again.count("# my notes") == 1
