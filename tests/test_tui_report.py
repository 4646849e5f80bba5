"""The app writes the same one-page HTML report as the command line: the plan's from the command palette,
the quote's from the Quote view, each offered next to the file it is about."""

from __future__ import annotations

import shutil

from textual.command import CommandPalette
from textual.widgets import Input

from advisor.tui.app import AdvisorApp
from advisor.tui.dialogs import PathPrompt
from tests.conftest import ROOT
from tests.tui_settle import settle

SIZE = (120, 36)


async def test_the_palette_exports_the_plan_report_next_to_the_build(cli, tmp_path):
    build = tmp_path / "hero.yaml"
    shutil.copy(ROOT / "examples" / "2x4090-z790-hero.yaml", build)
    app = AdvisorApp(str(build))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Export report (HTML)")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PathPrompt)
        field = app.screen.query_one(Input)
        assert field.value == str(tmp_path / "hero-report.html")
        await pilot.press("enter")
        await settle(pilot)
        assert any(
            f"report written to {tmp_path / 'hero-report.html'}" in n.message for n in app._notifications
        )
    code, page, _ = cli("plan", str(build), "--format", "html")
    assert code == 0 and (tmp_path / "hero-report.html").read_text(encoding="utf-8") == page


async def test_the_quote_view_exports_the_quote_review_next_to_the_quote(cli, tmp_path):
    quote = tmp_path / "taobao.txt"
    shutil.copy(ROOT / "examples" / "quotes" / "taobao-14900k-dual-4090.txt", quote)
    app = AdvisorApp(str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_quote(str(quote))
        await settle(pilot)
        await pilot.click("#quote-export-html")
        await settle(pilot)
        assert isinstance(app.screen, PathPrompt)
        assert app.screen.query_one(Input).value == str(tmp_path / "taobao-review.html")
        await pilot.press("enter")
        await settle(pilot)
    code, page, _ = cli("validate", str(quote), "--format", "html")
    assert code == 1 and (tmp_path / "taobao-review.html").read_text(encoding="utf-8") == page
