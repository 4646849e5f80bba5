"""The README's pictures of the app: made by docs/make_screenshots.py, committed in docs/."""

from __future__ import annotations

import html
import re
import subprocess
import sys

from tests.conftest import ROOT


def svg_text(path) -> str:
    """The characters an SVG screenshot shows, as one string."""
    svg = path.read_text(encoding="utf-8")
    return html.unescape(" ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))).replace("\xa0", " ")


def test_the_screenshot_script_draws_the_app_as_a_user_sees_it(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "make_screenshots.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    plan, matrix, findings = (
        svg_text(tmp_path / n) for n in ("tui-plan.svg", "tui-matrix.svg", "tui-findings.svg")
    )
    for shown in (plan, matrix, findings):
        assert "ROG Maximus Z790 Hero" in shown and "all-reduce" in shown
        assert str(ROOT) not in shown  # no path of the machine it was made on
    assert "PCIEX16(G5)_2" in plan  # the build panel with each card's slot
    assert "PHB" in matrix and "SHM" in matrix  # the pair's path class and NCCL transport
    assert "LANE001" in findings


def test_the_readme_shows_the_committed_pictures():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]*\]\((docs/[^)]+\.svg)\)", readme)
    assert shown, "the README shows no picture of the app"
    for path in shown:
        assert (ROOT / path).is_file(), f"{path} is not committed"
        assert "advisor" in svg_text(ROOT / path)
