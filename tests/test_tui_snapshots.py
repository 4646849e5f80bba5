"""Snapshots of the main screens at 100x30 (pytest-textual-snapshot). After an intended change of
the layout, review the new pictures and accept them with `pytest --snapshot-update`."""

from __future__ import annotations

import pytest

from advisor.tui.app import AdvisorApp
from tests.conftest import ROOT

SIZE = (100, 30)
HERO = "examples/2x4090-z790-hero.yaml"
EIGHT = "tests/fixtures/builds/8x-rtxpro6000-esc8000a.yaml"


@pytest.fixture(autouse=True)
def in_checkout(tmp_path, monkeypatch):
    """Relative paths (the header shows them) and autosaves of the test's own."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


def test_planner_machine_tree(snap_compare):
    assert snap_compare(AdvisorApp(HERO), terminal_size=SIZE)


def test_links_view(snap_compare):
    assert snap_compare(AdvisorApp(HERO), press=["2"], terminal_size=SIZE)


def test_eight_gpu_matrix(snap_compare):
    assert snap_compare(AdvisorApp(EIGHT), press=["3"], terminal_size=SIZE)


def test_findings_view(snap_compare):
    assert snap_compare(AdvisorApp(HERO), press=["4", "down", "down"], terminal_size=SIZE)


def test_quote_checked(snap_compare):
    app = AdvisorApp(HERO, quote_path="examples/quotes/strix-z790e-chipset-slot.csv")
    assert snap_compare(app, terminal_size=SIZE)


def test_compare_with_a_measurement(snap_compare):
    app = AdvisorApp(
        HERO, measurements=["tests/fixtures/tools/p2p/kinghorn_2x4090_driver525_cannot_access.txt"]
    )
    assert snap_compare(app, press=["7"], terminal_size=SIZE)


def test_gpu_picker(snap_compare):
    assert snap_compare(AdvisorApp(HERO), press=["g", "4", "0", "9", "0"], terminal_size=SIZE)


def test_help(snap_compare):
    assert snap_compare(AdvisorApp(HERO), press=["f1"], terminal_size=SIZE)


def test_light_theme_full_screen(snap_compare):
    assert snap_compare(AdvisorApp(EIGHT), press=["ctrl+t"], terminal_size=(160, 48))


def test_job_view(snap_compare):
    assert snap_compare(AdvisorApp(HERO), press=["8"], terminal_size=SIZE)
