"""Snapshots of the main screens at a fixed terminal size (pytest-textual-snapshot). After an intended
change of the layout, review the new pictures and accept them with `pytest --snapshot-update`.

Each screenshot is taken once the app has settled (tests/tui_settle.py), not after a timed pause. Screens
whose content follows the catalog's prices or the rules' wording (the part pickers, the findings list)
are checked by Pilot assertions in test_tui.py instead, so that growing the catalog or rewording a
rule does not redraw a picture."""

from __future__ import annotations

import pytest

from advisor.tui.app import AdvisorApp
from tests.conftest import ROOT
from tests.tui_settle import after

SIZE = (100, 30)
HERO = "examples/2x4090-z790-hero.yaml"
EIGHT = "tests/fixtures/builds/8x-rtxpro6000-esc8000a.yaml"


@pytest.fixture(autouse=True)
def in_checkout(tmp_path, monkeypatch):
    """Relative paths (the header shows them), autosaves of the test's own, no user catalog or rules."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    monkeypatch.delenv("ADVISOR_RULES", raising=False)


def test_planner_machine_tree(snap_compare):
    assert snap_compare(AdvisorApp(HERO), run_before=after(), terminal_size=SIZE)


def test_links_view(snap_compare):
    assert snap_compare(AdvisorApp(HERO), run_before=after("2"), terminal_size=SIZE)


def test_eight_gpu_matrix(snap_compare):
    assert snap_compare(AdvisorApp(EIGHT), run_before=after("3"), terminal_size=SIZE)


def test_quote_checked(snap_compare):
    app = AdvisorApp(HERO, quote_path="examples/quotes/strix-z790e-chipset-slot.csv")
    assert snap_compare(app, run_before=after(), terminal_size=SIZE)


def test_compare_with_a_measurement(snap_compare):
    app = AdvisorApp(
        HERO, measurements=["tests/fixtures/tools/p2p/kinghorn_2x4090_driver525_cannot_access.txt"]
    )
    assert snap_compare(app, run_before=after("7"), terminal_size=SIZE)


def test_help(snap_compare):
    assert snap_compare(AdvisorApp(HERO), run_before=after("f1"), terminal_size=SIZE)


def test_light_theme_full_screen(snap_compare):
    assert snap_compare(AdvisorApp(EIGHT), run_before=after("ctrl+t"), terminal_size=(160, 48))


def test_job_view(snap_compare):
    assert snap_compare(AdvisorApp(HERO), run_before=after("8"), terminal_size=SIZE)
