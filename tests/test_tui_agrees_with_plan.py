"""The app and `advisor plan` judge a build the same way: the same verdict, findings and P2P readiness,
read from what the app shows (the summary line, the Findings view, each pair's readiness in the GPUs
view) and from `plan --json` on the same file; a setting the build file leaves out is unknown in both."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, OptionList, Select

from advisor.tui.app import AdvisorApp
from advisor.tui.dialogs import FormDialog
from tests.conftest import ROOT, run_cli
from tests.test_tui import build_lines, pick, table_rows, text_of
from tests.tui_settle import settle

SIZE = (140, 40)  # the size a user met it at
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
LAYER = re.compile(r"^  (PASS|FAIL|UNKNOWN) +(\S+) +(.*)$")


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    """Autosaves go to a folder of the test's own."""
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


def readiness_shown(detail: str) -> tuple[str, list[tuple[str, str, str]]]:
    """A pair's readiness as the GPUs view shows it under the pair: its summary and each layer's
    (verdict, layer, why)."""
    lines = detail.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("P2P readiness: "))
    layers = [m.groups() for line in lines[start + 1 :] if (m := LAYER.match(line))]
    return lines[start].removeprefix("P2P readiness: "), layers


async def shown(app: AdvisorApp, pilot) -> dict:
    """What the app shows of its judgement of the build: the summary's verdict, the Findings view's
    rows, and the readiness of each GPU pair in the GPUs view."""
    await settle(pilot)
    verdict = text_of(app, "#summary").split(" · ")[0]
    await pilot.press("4")
    await settle(pilot)
    findings = [(r[0], r[1], r[2]) for r in table_rows(app, "#findings-table")]
    await pilot.press("3")
    await settle(pilot)
    table = app.query_one("#matrix-table", DataTable)
    gpus = [int(str(table.get_row_at(r)[0]).removeprefix("GPU")) for r in range(table.row_count)]
    pairs = {}
    for i, a in enumerate(gpus):
        for j, b in enumerate(gpus[i + 1 :], start=i + 1):
            table.move_cursor(row=i, column=j + 1)
            await settle(pilot)
            pairs[(a, b)] = readiness_shown(text_of(app, "#pair-detail"))
    return {"verdict": verdict, "findings": findings, "readiness": pairs}


def planned(capsys, path: Path) -> dict:
    """The same judgement from `advisor plan FILE --json`."""
    code, out, err = run_cli(capsys, "plan", str(path), "--json")
    assert code == 0, err
    d = json.loads(out)
    return {
        "verdict": d["verdict"].split(":")[0],
        "findings": [(f["severity"], f["id"], f["subject"]) for f in d["findings"]],
        "readiness": {
            (r["a"], r["b"]): (r["summary"], [(x["verdict"], x["layer"], x["why"]) for x in r["layers"]])
            for r in d["readiness"]
        },
    }


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
async def test_the_app_judges_each_example_as_plan_does(example, capsys):
    app = AdvisorApp(str(example))
    async with app.run_test(size=SIZE) as pilot:
        seen = await shown(app, pilot)
    expected = planned(capsys, example)
    assert expected["readiness"], "an example with GPU pairs"
    assert seen == expected


async def test_a_platform_swapped_in_the_app_is_judged_as_plan_judges_the_saved_file(tmp_path, capsys):
    """`c` 7960X, then the TRX50-SAGE among the boards that take it: the GPUs view said "PASS acs ACS is
    off" while `plan` on the saved file said UNKNOWN, because the edit filled in the settings the file
    leaves out. Both now say UNKNOWN, and the build panel says the settings are not known."""
    path = tmp_path / "hero.yaml"
    shutil.copy(ROOT / "examples" / "2x4090-z790-hero.yaml", path)
    app = AdvisorApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "stock driver (default), IOMMU unknown, ACS unknown" in build_lines(app)
        await pick(pilot, "c", "7960X")  # it does not fit the Z790 board: the boards that take it
        await pilot.press(*"TRX50-SAGE", "enter")
        await settle(pilot)
        lines = build_lines(app)
        assert "Threadripper 7960X" in lines and "TRX50-SAGE" in lines
        assert "stock driver (default), IOMMU unknown, ACS unknown" in lines
        # the settings form says so too, and applying it as shown states nothing
        items = app.query_one("#build-items", OptionList)
        items.focus()
        items.highlighted = items.get_option_index("software")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FormDialog)
        values = {k: app.screen.query_one(f"#f-{k}", Select).value for k in ("driver", "iommu", "acs")}
        assert values == {"driver": "not set (stock)", "iommu": "unknown", "acs": "unknown"}
        await pilot.click("#apply")
        await settle(pilot)
        assert "stock driver (default), IOMMU unknown, ACS unknown" in build_lines(app)
        seen = await shown(app, pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
    acs = [layer for _, layers in seen["readiness"].values() for layer in layers if layer[1] == "acs"]
    assert acs and all(verdict == "UNKNOWN" for verdict, _, _ in acs), acs
    assert "software" not in path.read_text()  # nothing the file did not say
    assert seen == planned(capsys, path)


async def test_settings_the_file_states_are_shown_and_judged_as_stated(tmp_path, capsys):
    """A file that says ACS is off (a default value, said): the panel shows it as stated, the
    readiness passes its ACS layer in both faces, and an edit and a save keep it stated."""
    path = tmp_path / "hero.yaml"
    path.write_text((ROOT / "examples" / "2x4090-z790-hero.yaml").read_text() + "software:\n  acs: 'off'\n")
    app = AdvisorApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "stock driver (default), IOMMU unknown, ACS off" in build_lines(app)
        await pick(pilot, "n", "M.2_2")  # an edit: an SSD more
        assert "ACS off" in build_lines(app)
        seen = await shown(app, pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert "acs: 'off'" in path.read_text() or "acs: off" in path.read_text()
    acs = [layer for _, layers in seen["readiness"].values() for layer in layers if layer[1] == "acs"]
    assert acs and all(verdict == "PASS" for verdict, _, _ in acs), acs
    assert seen == planned(capsys, path)


async def test_a_setting_picked_in_the_form_is_stated_and_judged_as_stated(tmp_path, capsys):
    """ACS picked "off" in the settings form (the value the predictions assume): the build now says
    it, the panel shows it, the saved file keeps it, and both faces pass the ACS layer."""
    path = tmp_path / "hero.yaml"
    shutil.copy(ROOT / "examples" / "2x4090-z790-hero.yaml", path)
    app = AdvisorApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        items = app.query_one("#build-items", OptionList)
        items.focus()
        items.highlighted = items.get_option_index("software")
        await pilot.press("enter")
        await settle(pilot)
        app.screen.query_one("#f-acs", Select).value = "off"
        await pilot.click("#apply")
        await settle(pilot)
        assert "stock driver (default), IOMMU unknown, ACS off" in build_lines(app)
        seen = await shown(app, pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert "acs: 'off'" in path.read_text() or "acs: off" in path.read_text()
    acs = [layer for _, layers in seen["readiness"].values() for layer in layers if layer[1] == "acs"]
    assert acs and all(verdict == "PASS" for verdict, _, _ in acs), acs
    assert seen == planned(capsys, path)
