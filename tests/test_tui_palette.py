"""The command palette (Ctrl+P) as the help and the docs describe it: typing a part's short name offers
that part, and picking a board the build's CPU does not fit brings a CPU it takes, in one undoable
edit."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.command import CommandList, CommandPalette

from advisor.tui.app import AdvisorApp
from tests.conftest import ROOT
from tests.tui_settle import settle

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
SIZE = (100, 30)


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    """Autosaves go to a folder of the test's own."""
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


def offered(app) -> list[str]:
    """The palette's rows as the user reads them (each the command and its help line)."""
    rows = []
    for option in app.screen.query_one(CommandList).options:
        console = Console(width=200, file=io.StringIO(), record=True)
        console.print(option.prompt)
        rows.append(" ".join(console.export_text().split()))
    return rows


async def type_in_palette(pilot, text: str) -> list[str]:
    await pilot.press("ctrl+p")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*text)
    await settle(pilot)
    return offered(pilot.app)


async def test_board_wrx90e_finds_the_board_from_the_example_build_and_brings_a_cpu_it_takes():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        rows = await type_in_palette(pilot, "Board: WRX90E")
        assert rows, "the palette offers nothing for 'Board: WRX90E'"
        assert rows[0].startswith("Board: ASUS Pro WS WRX90E-SAGE SE"), rows[:3]
        assert "takes another CPU: with" in rows[0]  # the i9-14900K does not fit it, and it says so
        await pilot.press("enter")
        await settle(pilot)
        planner = app.planner
        assert planner.board is not None and planner.board.id == "asus-pro-ws-wrx90e-sage-se"
        assert planner.cpu is not None and planner.cpu.socket == "sTR5"
        assert planner.error is None and planner.prediction is not None
        assert f"with {planner.cpu.name})" in rows[0]  # the CPU it said it would bring
        await pilot.press("ctrl+z")  # one edit: one undo brings the whole old platform back
        await settle(pilot)
        assert (planner.cpu.name, planner.board.name) == (
            "Intel Core i9-14900K",
            "ASUS ROG Maximus Z790 Hero",
        )


async def test_a_part_is_found_by_an_alias_that_is_not_in_its_name():
    """MSI's board number MS-7D86 is an alias of the MEG Z790 ACE, not a part of its name."""
    app = AdvisorApp(HERO)
    ace = app.planner.catalog.get("msi-meg-z790-ace")
    assert ace is not None and "MS-7D86" in ace.aliases and "7D86" not in ace.name
    async with app.run_test(size=SIZE) as pilot:
        rows = await type_in_palette(pilot, "Board: MS-7D86")
        assert rows and rows[0].startswith("Board: MSI MEG Z790 ACE"), rows[:3]
        await pilot.press("enter")
        await settle(pilot)
        assert app.planner.board is not None and app.planner.board.id == "msi-meg-z790-ace"


async def test_a_cpu_the_board_does_not_take_brings_a_board_that_takes_it():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        rows = await type_in_palette(pilot, "CPU: Threadripper 7960X")
        assert rows and rows[0].startswith("CPU: AMD Ryzen Threadripper 7960X"), rows[:3]
        assert "not on this board: with" in rows[0]
        await pilot.press("enter")
        await settle(pilot)
        planner = app.planner
        assert planner.cpu is not None and "7960X" in planner.cpu.name
        assert planner.board is not None and planner.board.socket == "sTR5"
        assert planner.error is None
