"""The Textual app driven the way a person drives it (keys, clicks), asserting on what it shows."""

from __future__ import annotations

import importlib.util
import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Input, OptionList, Static, TextArea

from advisor.tui.app import AdvisorApp
from advisor.tui.dialogs import ChoicePicker, ConfirmQuit, HelpScreen, PathPrompt
from tests.conftest import ROOT
from tests.tui_settle import settle

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
SIZE = (100, 30)


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    """Autosaves go to a folder of the test's own."""
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def plain(renderable, width: int = 120) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def build_lines(app: AdvisorApp) -> str:
    """The build panel's text, each value on one line again (the panel wraps long ones)."""
    items = app.query_one("#build-items", OptionList)
    return re.sub(r"\n[ \u00a0]{7}", " ", "\n".join(plain(o.prompt) for o in items.options))


def text_of(app: AdvisorApp, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


def table_rows(app: AdvisorApp, selector: str) -> list[list[str]]:
    table = app.query_one(selector, DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def pick(pilot, key: str, filter_text: str, count: str | None = None) -> None:
    """Open a picker with `key`, type the filter (and a count), press Enter."""
    await pilot.press(key)
    await settle(pilot)
    assert isinstance(pilot.app.screen, ChoicePicker)
    await pilot.press(*filter_text)
    if count is not None:
        pilot.app.screen.query_one("#count", Input).value = count
    await pilot.press("enter")
    await settle(pilot)


async def test_swap_cpu_then_board_and_watch_the_views_follow():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        assert "x8/x8" in text_of(app, "#summary")
        await pick(pilot, "c", "7975wx")  # the Z790 board does not take it: the boards that do
        picker = pilot.app.screen
        assert isinstance(picker, ChoicePicker) and "does not fit" in picker.title_text
        assert "i9-14900K" in build_lines(app)  # nothing changed yet
        names = [
            str(r[0])
            for r in (
                picker.query_one(DataTable).get_row_at(i)
                for i in range(picker.query_one(DataTable).row_count)
            )
        ]
        assert names and all("WRX90" in n or "sTR5" in n or "TRX50" in n or "WRX" in n for n in names), names
        await pilot.press(*"wrx90", "enter")
        await settle(pilot)
        assert "WRX90E" in build_lines(app)
        assert "x16/x16" in text_of(app, "#summary")
        tree = text_of(app, "#machine-text").splitlines()
        assert tree[0] == "ASUS Pro WS WRX90E-SAGE SE"
        assert tree[1].startswith("└─ CPU0 AMD Ryzen Threadripper PRO 7975WX")
        gpu0 = next(line for line in tree if "GPU0" in line)
        assert "Gen4 x16" in gpu0 and "H2D/D2H" in gpu0
        assert any("host bridge" in line for line in tree) and any("empty" in line for line in tree)


async def test_add_gpus_with_a_count_then_remove_one():
    app = AdvisorApp(str(ROOT / "examples" / "explicit-tree-4x6000ada.yaml"))
    async with app.run_test(size=SIZE) as pilot:
        await pick(pilot, "b", "esc8000a")  # a catalog build with eight x16 slots
        await pick(pilot, "g", "pro 6000 server", count="7")
        await pilot.press("2")
        rows = table_rows(app, "#host-table")
        assert len(rows) == 7 and all(r[2] == "Gen5 x16" for r in rows)
        await pilot.press("3")
        matrix = app.query_one("#matrix-table", DataTable)
        assert matrix.row_count == 7 and len(matrix.columns) == 8
        await pilot.press("+")
        await settle(pilot)
        assert "8 GPUs" in text_of(app, "#summary")
        items = app.query_one("#build-items", OptionList)
        items.highlighted = items.get_option_index("gpu:7")
        await pilot.press("delete")
        await settle(pilot)
        assert "7 GPUs" in text_of(app, "#summary")
        assert "GPU7" not in build_lines(app)


async def test_move_a_card_by_hand_and_the_app_says_what_changed():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        items = app.query_one("#build-items", OptionList)
        items.highlighted = items.get_option_index("gpu:1")
        await pilot.press("m")
        await settle(pilot)
        slots = pilot.app.screen.query_one(DataTable)
        specs = [str(slots.get_row_at(i)[1]) for i in range(slots.row_count)]
        assert any("would be Gen4 x4" in s and "chipset" in s for s in specs)
        await pilot.press(*"pciex4", "enter")
        await settle(pilot)
        changes = text_of(app, "#changes")
        assert "GPU1" in changes and "PCIEX16(G5)_2 -> PCIEX4(G4)" in changes
        assert "GPU0" in changes and "Gen4 x8 -> Gen4 x16" in changes
        await pilot.press("2")
        rows = {r[0]: r for r in table_rows(app, "#host-table")}
        assert rows["GPU0"][2] == "Gen4 x16" and rows["GPU1"][1] == "PCIEX4(G4)"
        await pilot.press("4")
        assert "LANE002" in [r[1] for r in table_rows(app, "#findings-table")]
        await pilot.press("2")
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert {r[0]: r[2] for r in table_rows(app, "#host-table")} == {"GPU0": "Gen4 x8", "GPU1": "Gen4 x8"}


async def test_save_then_reopen_in_a_new_app(tmp_path):
    target = tmp_path / "my-build.yaml"
    copy = tmp_path / "hero.yaml"
    copy.write_text(Path(HERO).read_text())
    app = AdvisorApp(str(copy))
    async with app.run_test(size=SIZE) as pilot:
        await pick(pilot, "n", "m.2_2")
        assert "M.2_2" in build_lines(app) and "*unsaved" in app.sub_title
        await pilot.press("ctrl+s")  # saves over the file it came from
        await settle(pilot)
        assert "*unsaved" not in app.sub_title
    assert "socket: M.2_2" in copy.read_text()
    app = AdvisorApp(str(ROOT / "examples" / "explicit-tree-4x6000ada.yaml"))
    async with app.run_test(size=SIZE) as pilot:
        await pick(pilot, "b", "wrx90")
        await pick(pilot, "g", "6000 ada", count="2")
        app.action_save_as()
        await settle(pilot)
        assert isinstance(app.screen, PathPrompt)
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert target.is_file() and not app.planner.dirty
        assert "*unsaved" not in app.sub_title
    again = AdvisorApp(str(target))
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        rows = table_rows(again, "#host-table")
        assert len(rows) == 2 and all(r[2] == "Gen4 x16" for r in rows)
        assert "WRX90E" in build_lines(again)


async def test_quitting_with_unsaved_changes_asks_and_the_autosave_brings_them_back(state_dir):
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pick(pilot, "g", "4090")
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("escape")  # stay
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmQuit) and app.is_running
        await pilot.press("ctrl+q")
        await settle(pilot)
        app.exit()  # the terminal closes without an answer (a crash, a closed window)
    assert list(state_dir.glob("autosave/*.yaml"))
    again = AdvisorApp(HERO)
    async with again.run_test(size=SIZE):
        assert again.planner.dirty and len(again.planner.prediction.machine.all_gpus) == 3
        assert again.planner.path is not None and again.planner.path.name == "2x4090-z790-hero.yaml"
    third = AdvisorApp(HERO)
    async with third.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+q")
        await settle(pilot)
        await pilot.press("d")  # quit without saving: the autosave goes too
        await settle(pilot)
    assert not list(state_dir.glob("autosave/*.yaml"))


async def test_a_pasted_quote_is_checked_and_its_build_opens_in_the_planner():
    app = AdvisorApp(HERO)
    text = (ROOT / "examples" / "quotes" / "strix-z790e-chipset-slot.csv").read_text()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await settle(pilot)
        app.query_one("#quote-text", TextArea).load_text(text)
        await pilot.click("#quote-check")
        await settle(pilot)
        verdict = text_of(app, "#quote-verdict")
        assert verdict.startswith("PROBLEMS")
        claims = text_of(app, "#quote-claims")
        assert "FALSE" in claims
        assert "Strix Z790-E" in build_lines(app)
        await pilot.press("4")
        assert "LANE002" in [r[1] for r in table_rows(app, "#findings-table")]
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert "Maximus Z790 Hero" in build_lines(app)


async def test_pressing_5_then_pasting_puts_the_quote_in_its_box():
    """`5` then a paste did nothing: the focus stayed on the build list. The Quote view takes the focus
    into its text box, and a paste that no text field takes (the build list has the focus, another
    view is shown) lands there too; a paste into a field (a picker's filter) stays in that field."""
    from textual import events

    text = (ROOT / "examples" / "quotes" / "2x4090-z790-hero-email.txt").read_text()
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        box = app.query_one("#quote-text", TextArea)
        assert app.focused is box
        app.post_message(events.Paste(text))  # what the terminal sends for a paste
        await settle(pilot)
        assert box.text == text
        await pilot.click("#quote-check")
        await settle(pilot)
        assert text_of(app, "#quote-verdict").split()[0] in ("PASS", "PROBLEMS", "INCOMPLETE")
        # from the build list, on another view: the paste goes to the quote box, which is shown
        await pilot.press("ctrl+z")  # the quote's build out again
        await pilot.press("1")
        await settle(pilot)
        app.query_one("#build-items").focus()
        box.load_text("")
        app.post_message(events.Paste("i9-14900K + Z790 Hero + 2x RTX 4090"))
        await settle(pilot)
        assert app.query_one("TabbedContent").active == "quote" and app.focused is box
        assert box.text == "i9-14900K + Z790 Hero + 2x RTX 4090"
        # a picker's filter takes its own paste
        await pilot.press("escape")
        app.query_one("#build-items").focus()
        await pilot.press("c")
        await settle(pilot)
        app.post_message(events.Paste("7960X"))
        await settle(pilot)
        assert app.screen.query_one("#filter", Input).value == "7960X"
        assert box.text == "i9-14900K + Z790 Hero + 2x RTX 4090"


async def test_the_bench_says_plainly_what_is_missing():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        await settle(pilot)
        run = app.query_one("#bench-run")
        if importlib.util.find_spec("torch") is None:
            assert run.disabled and "torch is not installed" in text_of(app, "#bench-status")
            return
        import torch

        if torch.cuda.is_available():
            pytest.skip("a CUDA GPU is present: the bench would really run")
        await pilot.click("#bench-run")
        await app.workers.wait_for_complete()
        await settle(pilot)
        log = "\n".join(str(line) for line in app.query_one("#bench-log").lines)
        assert "No CUDA GPU is visible to torch here" in log
        assert not run.disabled


async def test_a_loaded_measurement_is_compared_with_the_build_and_gaps_have_causes():
    app = AdvisorApp(
        HERO,
        measurements=[
            str(ROOT / "tests" / "fixtures" / "tools" / "p2p" / "kinghorn_2x4090_driver525_cannot_access.txt")
        ],
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7")
        await settle(pilot)
        rows = table_rows(app, "#compare-table")
        uni = next(r for r in rows if r[0] == "uni_gbps")
        assert uni[5] == "OFF" and float(uni[4]) > 1.5  # x16 machine measured, x8/x8 build predicted
        table = app.query_one("#compare-table", DataTable)
        table.move_cursor(row=rows.index(uni))
        await settle(pilot)
        assert "CMP014" in text_of(app, "#compare-detail")
        # the machine it was measured on, CPU and board: the comparison follows the build
        await pick(pilot, "c", "5995wx")
        await pilot.press(*"wrx80e", "enter")
        await settle(pilot)
        uni = next(r for r in table_rows(app, "#compare-table") if r[0] == "uni_gbps")
        assert uni[5] == "ok", uni


async def test_the_command_palette_jumps_to_a_part():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Add GPU: RTX 4090 D")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert "RTX 4090 D" in build_lines(app)
        assert "3 GPUs" in text_of(app, "#summary")


async def test_help_theme_and_matrix_modes():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        theme = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != theme
        await pilot.press("3")
        await settle(pilot)
        assert "PHB 11.1" in [str(c) for c in app.query_one("#matrix-table", DataTable).get_row_at(0)]
        detail = text_of(app, "#pair-detail")
        assert "CUDA P2P no" in detail and "staged_efficiency" in detail and "SHM" in detail
        await pilot.press("v")
        await settle(pilot)
        assert "both ways" in text_of(app, "#matrix-title")
        await pilot.press("v")
        await settle(pilot)
        assert "latency" in text_of(app, "#matrix-title")
        assert "PHB 10.8" in [str(c) for c in app.query_one("#matrix-table", DataTable).get_row_at(0)]
        await pilot.press("v")  # path mode: the class in each cell, the one-way derivation below
        await settle(pilot)
        assert app.is_running
        assert "path class" in text_of(app, "#matrix-title")
        assert "PHB" in [str(c) for c in app.query_one("#matrix-table", DataTable).get_row_at(0)]
        detail = text_of(app, "#pair-detail")
        assert "path PHB" in detail and "one way" in detail
        await pilot.press("v")
        await settle(pilot)
        assert "one way, GB/s" in text_of(app, "#matrix-title")  # and round again


async def test_findings_show_the_selected_rule_with_its_fix_and_sources():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(pilot)
        rows = table_rows(app, "#findings-table")
        rank = {"error": 0, "warning": 1, "info": 2}
        assert [rank[r[0]] for r in rows] == sorted(rank[r[0]] for r in rows) and rows[0][0] == "warning"
        table = app.query_one("#findings-table", DataTable)
        table.move_cursor(row=[r[1] for r in rows].index("P2P001"))
        await settle(pilot)
        detail = text_of(app, "#finding-detail")
        assert detail.startswith("WARNING P2P001 (GPU0-GPU1)")
        assert "no CUDA P2P" in detail and "Fix: " in detail and "Sources: https://" in detail


async def test_export_writes_the_markdown_report(tmp_path):
    out = tmp_path / "report.md"
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+e")
        await settle(pilot)
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await settle(pilot)
    report = out.read_text()
    assert (
        report.startswith("# 2x RTX 4090")
        # the slot's underscore escaped, as every text from the catalog is in Markdown: it reads PCIEX16(G5)_1
        and "| 0 | NVIDIA GeForce RTX 4090 | PCIEX16(G5)\\_1 | Gen4 x8 |" in report
    )


async def test_a_broken_file_is_a_message_not_a_crash(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("cpu: i9-14900K\nboard: [unclosed\n")
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        app.open_build(str(bad))
        await settle(pilot)
        assert app.is_running and "Maximus Z790 Hero" in build_lines(app)
        assert any("bad.yaml:3: this is not valid YAML" in n.message for n in app._notifications)


def test_the_cli_refuses_a_missing_build_file_before_starting(cli):
    code, _, err = cli("tui", "no-such-build.yaml")
    assert code == 2 and "no-such-build.yaml: no such file" in err


async def test_the_job_view_answers_will_n_gpus_beat_one_and_follows_the_build():
    from textual.widgets import Select

    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("8")
        await settle(pilot)
        report = text_of(app, "#wl-report")
        assert "train opt-1.3b" in report and "SHM, 7.6 GB/s" in report
        slow = float(re.search(r"Speed-up: ([0-9.]+)x one GPU", report).group(1))
        assert slow < 1  # DDP of 1.3B at micro-batch 1 over host-staged x8/x8 links: slower than one GPU
        assert "WL002" in report  # the workload finding, with its expectation
        app.query_one("#wl-accum", Input).value = "16"
        await settle(pilot)
        accumulated = float(re.search(r"Speed-up: ([0-9.]+)x", text_of(app, "#wl-report")).group(1))
        assert accumulated > slow
        app.query_one("#wl-format", Select).value = "qlora"
        await settle(pilot)
        report = " ".join(text_of(app, "#wl-report").split())
        assert "QLoRA rank 16" in report and "base in 4 bits" in report
        app.query_one("#wl-task", Select).value = "infer"
        await settle(pilot)
        report = text_of(app, "#wl-report")
        assert "time to first" in report and "decode per token" in report and "tokens/s" in report
        assert app.query_one("#wl-format", Select).value == "none"  # the inference formats, 16-bit first
        app.query_one("#wl-format", Select).value = "q4_k_m"
        await settle(pilot)
        report = " ".join(text_of(app, "#wl-report").split())
        # GGUF weights under tensor parallel: llama.cpp serves them, but its nearest split is -sm row
        assert "weights q4_k_m" in report and "row split (-sm row)" in report
        app.query_one("#wl-batch", Input).value = "max"
        await settle(pilot)
        report = " ".join(text_of(app, "#wl-report").split())
        assert "as many as the KV cache admits" in report
        app.query_one("#wl-batch", Input).value = "0"
        await settle(pilot)
        assert "batch: a whole number of at least 1" in text_of(app, "#wl-report")
        app.query_one("#wl-batch", Input).value = "1"
        await settle(pilot)
        before = text_of(app, "#wl-report")
        assert "x8" in before
        await pick(pilot, "c", "7975wx")  # the build changes (CPU and board): the job view follows
        await pilot.press(*"wrx90", "enter")
        await settle(pilot)
        after = text_of(app, "#wl-report")
        assert after != before and "x8" not in after and "cannot evaluate" not in after


async def test_the_findings_list_is_the_planners_findings_worst_first():
    from advisor.findings.finding import SEVERITY_ORDER

    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(pilot)
        rows = table_rows(app, "#findings-table")
        expected = app.planner.findings
        assert [(r[0], r[1]) for r in rows] == [(f.severity, f.id) for f in expected]
        assert [SEVERITY_ORDER[r[0]] for r in rows] == sorted(SEVERITY_ORDER[r[0]] for r in rows)
        # each row's message starts like the finding's (the column is cut to the width)
        for r, f in zip(rows, expected, strict=True):
            assert f.message.startswith(r[3].rstrip("…").rstrip()), (r, f.message)


async def test_the_gpu_picker_filters_as_you_type_and_shows_specs_and_catalog_prices():
    from advisor.model.catalog.store import load_catalog

    catalog = load_catalog()
    app = AdvisorApp(HERO)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, ChoicePicker)
        await pilot.press(*"4090")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        names = {g.name: g for g in catalog.gpus}
        # the filter keeps the catalog's 4090s and nothing else; columns: name, key specs, price, fit
        assert sorted(r[0] for r in rows) == sorted(n for n, g in names.items() if "4090" in f"{n} {g.id}")
        for name, specs, price, _ in rows:
            gpu = names[name]
            assert specs.startswith(f"{gpu.vram_gb:g} GB, Gen{gpu.pcie.gen} x{gpu.pcie.width}")
            assert price == (f"${gpu.price_usd:,.0f}" if gpu.price_usd else "")


def _focusable_in(pane) -> list:
    from textual.widgets import Input
    from textual.widgets._select import SelectOverlay  # the list of an open Select, not a focus stop

    return [w for w in pane.query("*") if w.focusable and not isinstance(w, (TextArea, Input, SelectOverlay))]


async def test_view_keys_switch_views_from_wherever_the_focus_is():
    """Focus inside any view (its buttons, tables, selects, the GPU matrix): 1-8 and the palette's
    "Show ..." still switch views; while typing in the quote box digits are text, Escape leaves it."""
    from textual.widgets import TabbedContent

    from advisor.tui.app import PANES

    app = AdvisorApp(HERO)
    tabs = [tab for _, tab, _, _ in PANES]
    async with app.run_test(size=(160, 45)) as pilot:
        content = app.query_one(TabbedContent)
        checked = 0
        for i, tab in enumerate(tabs):
            await pilot.press(str(i + 1))
            await settle(pilot)
            widgets = _focusable_in(app.query_one(f"#{tab}"))
            assert widgets, tab
            # from the view's last focus stop (the deepest: a table, a select, a log) to the next view
            for widget in widgets[-1:]:
                for j in ((i + 1) % len(tabs),):
                    widget.focus()
                    await pilot.pause()
                    assert app.focused is widget and content.active == tab
                    await pilot.press(str(j + 1))
                    await settle(pilot)
                    assert content.active == tabs[j], (tab, widget, j + 1)
                    checked += 1
        assert checked == len(tabs)
        await pilot.press("6")
        await settle(pilot)
        app.query_one("#bench-run").focus()
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Show Compare", "enter")
        await settle(pilot)
        assert content.active == "compare"
        await pilot.press("5")
        await settle(pilot)
        box = app.query_one("#quote-text", TextArea)
        assert app.focused is box  # the Quote view takes the focus into its box
        box.load_text("")  # the loop's "5", pressed in the Quote view, is text there
        await pilot.press("1", "2")
        await settle(pilot)
        assert content.active == "quote" and box.text.startswith("12")
        assert "Leave the text field" in {b.binding.description for b in app.active_bindings.values()}
        await pilot.press("escape", "1")
        await settle(pilot)
        assert content.active == "machine"


async def test_build_edit_keys_act_only_in_the_build_panel():
    """On the Quote view, Tab then `x` used to delete GPU1. Edit keys act from the build panel (or the
    tab bar), and the footer shows them only there."""
    app = AdvisorApp(HERO)

    def gpus() -> int:
        return sum(g.count for g in app.planner.build.gpus)

    def footer_actions() -> set[str]:
        return {b.binding.action for b in app.active_bindings.values()}

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await settle(pilot)
        app.query_one("#quote-check").focus()
        await settle(pilot)
        assert "remove" not in footer_actions() and "add_gpu" not in footer_actions()
        await pilot.press("x", "delete", "minus", "g", "c")
        await settle(pilot)
        assert gpus() == 2 and isinstance(app.screen, type(app.screen_stack[0]))
        assert not app.planner.dirty
        app.query_one("#build-items").focus()
        await settle(pilot)
        assert {"remove", "add_gpu"} <= footer_actions()
        items = app.query_one("#build-items", OptionList)
        items.highlighted = next(i for i, o in enumerate(items.options) if "RTX 4090" in plain(o.prompt))
        await pilot.press("x")
        await settle(pilot)
        assert gpus() == 1


async def test_the_settings_dialog_sets_bios_and_engine_and_the_readiness_follows(tmp_path):
    """P2P readiness in the app: the Software and BIOS dialog says the patched driver with large BAR off and
    vLLM as the engine; the build panel shows it, the build file keeps it, and the pair's readiness fails
    at the driver layer with the BIOS fix."""
    from textual.widgets import Select

    from advisor.tui.dialogs import FormDialog

    copy = tmp_path / "hero.yaml"
    copy.write_text(Path(HERO).read_text())
    app = AdvisorApp(str(copy))
    async with app.run_test(size=SIZE) as pilot:
        app.action_software()
        await settle(pilot)
        assert isinstance(app.screen, FormDialog)
        app.screen.query_one("#f-driver", Select).value = "patched-p2p"
        app.screen.query_one("#f-large_bar", Select).value = "off"
        app.screen.query_one("#f-above_4g", Select).value = "on"
        app.screen.query_one("#f-engine", Select).value = "vllm"
        app.screen.query_one("#f-virtualization", Select).value = "vm"
        app.screen._apply()
        await settle(pilot)
        lines = build_lines(app)
        assert "patched-p2p driver" in lines and "large BAR off" in lines and "Above 4G on" in lines
        assert "vllm" in lines and "in a VM" in lines
        # in a VM the driver layer fails first on the guest's host bridge; back on bare metal, on large BAR
        from advisor.model.readiness import readiness

        (pair,) = readiness(app.planner.prediction)
        assert next(x for x in pair.layers if x.layer == "driver").why.startswith("in a virtual machine")
        app.action_software()
        await settle(pilot)
        app.screen.query_one("#f-virtualization", Select).value = "none"
        app.screen._apply()
        await settle(pilot)
        assert "in a VM" not in build_lines(app)
        b = app.planner.build
        assert b.bios.above_4g is True and b.software.engine == "vllm" and b.software.large_bar is False
        (pair,) = readiness(app.planner.prediction)
        driver = next(layer for layer in pair.layers if layer.layer == "driver")
        assert driver.verdict == "FAIL" and "large (Resizable) BAR" in driver.why
        await pilot.press("ctrl+s")
        await settle(pilot)
    saved = copy.read_text()
    assert "above_4g: true" in saved and "engine: vllm" in saved and "large_bar: false" in saved


async def test_the_compare_view_refuses_a_measurement_of_another_gpu_count_and_keeps_the_others():
    """An 8-GPU nvbandwidth run beside the 2-GPU machine's own p2p file: the Compare view names the file it
    did not compare and why (both counts), compares the other whole, and never offers 'P2P seems active'
    for a pair the p2p file says cannot access its peer."""
    tools = ROOT / "tests" / "fixtures" / "tools"
    app = AdvisorApp(
        HERO,
        measurements=[
            str(tools / "nvbandwidth" / "issue15_8x4090_v0.2.txt"),
            str(tools / "p2p" / "kinghorn_2x4090_driver525_cannot_access.txt"),
        ],
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        title = " ".join(text_of(app, "#compare-title").split())
        assert "not compared:" in title and "issue15_8x4090_v0.2.txt" in title
        assert "the measurement has 8 GPUs (GPU0-GPU7), the build has 2" in title
        rows = table_rows(app, "#compare-table")
        assert {r[0] for r in rows} == {"uni_gbps", "bidi_gbps", "latency_us"}  # the p2p file, whole
        assert all(r[1] == "GPU0-GPU1" for r in rows)
        table = app.query_one("#compare-table", DataTable)
        for i in range(len(rows)):
            table.move_cursor(row=i)
            await settle(pilot)
            detail = text_of(app, "#compare-detail")
            assert "CMP011" not in detail and "P2P seems active" not in detail
