"""What to buy (key r), driven the way a person drives it: a job and a budget, Search, and Enter on a row
opens that build in the planner (and Ctrl+Z brings the previous one back); Escape leaves it."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input

from advisor.tui.app import AdvisorApp
from tests.conftest import ROOT
from tests.tui_settle import settle

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
SIZE = (120, 36)


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


def build_lines(app: AdvisorApp) -> str:
    from tests.test_tui import build_lines as lines

    return lines(app)


async def test_a_recommended_row_opens_as_the_build_in_the_planner():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        budget = app.screen.query_one("#rc-budget", Input)
        budget.value = "3000"
        await pilot.click("#rc-search")
        await settle(pilot)
        table = app.screen.query_one("#rc-table", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert rows and [r[0] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]
        prices = [float(r[2].split()[0].replace(",", "")) for r in rows]
        assert prices == sorted(prices) and prices[-1] <= 3000
        # the last row, the fastest within the budget, opens in the planner
        last = rows[-1]
        table.focus()
        table.move_cursor(row=len(rows) - 1)
        await pilot.press("enter")
        await settle(pilot)
        lines = build_lines(app)
        gpu_name = last[1].split(" in ")[0].split("x ", 1)[1]
        assert gpu_name in lines
        assert app.planner.build.name.startswith("recommended #")
        assert app.planner.error is None
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert "RTX 4090" in build_lines(app)
        assert not (app.planner.build.name or "").startswith("recommended")


async def test_escape_leaves_what_to_buy_with_the_build_as_it_was():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        before = app.planner.build
        await pilot.press("r")
        await settle(pilot)
        assert app.screen.query("#rc-table")
        await pilot.press("escape")
        await settle(pilot)
        assert not app.screen.query("#rc-table") and app.planner.build == before


async def test_a_budget_that_is_not_an_amount_is_said_in_the_view():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        app.screen.query_one("#rc-budget", Input).value = "lots"
        await pilot.click("#rc-search")
        await settle(pilot)
        note = str(app.screen.query_one("#rc-note").render())
        assert "is not an amount" in note
        assert app.screen.query_one("#rc-table", DataTable).row_count == 0
