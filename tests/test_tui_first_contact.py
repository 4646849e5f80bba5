"""What a new user met at 100x30, driven the same way: a quote's build saved and quit, the file
modes of what is saved, the help against the tab bar, one click on a GPU line, the machine tree's long
lines. Each test asserts on what the user sees (the dialog's text, the prompt, the screen's lines, the
file's mode)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from textual.widgets import Input, Label, OptionList, Tab, TabbedContent

import advisor.tui.app as app_module
from advisor.base.files import atomic_write
from advisor.tui.app import AdvisorApp
from advisor.tui.dialogs import ChoicePicker, ConfirmQuit, HelpScreen, PathPrompt
from tests.conftest import ROOT
from tests.tui_settle import settle

SIZE = (100, 30)
HERO = ROOT / "examples" / "2x4090-z790-hero.yaml"
QUOTE = "examples/quotes/2x4090-z790-hero-email.txt"
EIGHT = ROOT / "tests" / "fixtures" / "builds" / "8x-rtxpro6000-esc8000a.yaml"


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    """Autosaves go to a folder of the test's own; paths are relative to the checkout, as typed."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def screen_lines(app) -> list[str]:
    """The terminal's lines as the user sees them."""
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


# ---------------------------------------------------------------------- a: a quote's build


async def test_a_quotes_build_is_named_after_its_parts_and_never_spoken_of_as_the_quote(tmp_path, umask_022):
    quote = (ROOT / QUOTE).read_text()
    app = AdvisorApp(str(HERO), quote_path=QUOTE)  # advisor tui --quote examples/quotes/...email.txt
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.planner.path is None and "Board  ASUS ROG Maximus Z790" in "\n".join(screen_lines(app))
        title = screen_lines(app)[0]
        assert "build from quote 2x4090-z790-hero-email.txt" in title and "examples/quotes" not in title
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmQuit)
        prompt = str(app.screen.query_one(".dialog-title", Label).render())
        assert prompt == "The build from quote 2x4090-z790-hero-email.txt has unsaved changes."
        assert not re.search(
            r"email\.txt has unsaved", prompt.replace("quote 2x4090-z790-hero-email.txt", "")
        )
        await pilot.press("s")  # save: the build has no file yet, so the app asks for one
        await settle(pilot)
        assert isinstance(app.screen, PathPrompt)
        field = app.screen.query_one("#path", Input)
        assert (
            field.value == "2x-tuf-4090-z790-hero.yaml"
        )  # GPU count and card (the TUF), the board's short name
        assert "2x-tuf-4090-z790-hero.yaml" in "\n".join(screen_lines(app))
        field.value = str(tmp_path / field.value)
        await pilot.press("enter")
        await settle(pilot)
    saved = tmp_path / "2x-tuf-4090-z790-hero.yaml"
    assert saved.is_file() and "name: build from quote 2x4090-z790-hero-email.txt" in saved.read_text()
    assert mode(saved) == 0o644  # the user's usual mode (umask 022), not mkstemp's 0600
    assert (ROOT / QUOTE).read_text() == quote  # the quote itself is untouched


async def test_a_pasted_quote_opened_in_the_planner_is_a_build_from_a_pasted_quote():
    app = AdvisorApp(str(HERO))
    text = (ROOT / "examples" / "quotes" / "clean-2x6000ada-wrx90.txt").read_text()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await settle(pilot)
        app.query_one("#quote-text").load_text(text)
        await pilot.click("#quote-check")
        await settle(pilot)
        assert "build from a pasted quote" in screen_lines(app)[0]
        app.action_save_as()
        await settle(pilot)
        assert app.screen.query_one("#path", Input).value == "2x-rtx-6000-ada-wrx90e-sage.yaml"
        await pilot.press("escape")
        await pilot.press("ctrl+q")
        await settle(pilot)
        prompt = str(app.screen.query_one(".dialog-title", Label).render())
        assert prompt == "The build from a pasted quote has unsaved changes."


# ---------------------------------------------------------------------- b: the mode of saved files


def test_atomic_write_gives_new_files_the_usual_mode_and_keeps_an_existing_files(tmp_path, umask_022):
    new = tmp_path / "new.yaml"
    atomic_write(new, "a: 1\n")
    assert mode(new) == 0o644  # 0666 & ~022, as `open()` would make it; not mkstemp's 0600
    kept = tmp_path / "kept.yaml"
    kept.write_text("a: 0\n")
    kept.chmod(0o640)
    atomic_write(kept, "a: 2\n")
    assert kept.read_text() == "a: 2\n" and mode(kept) == 0o640
    private = tmp_path / "private.yaml"
    atomic_write(private, "a: 3\n", mode=0o600)
    assert mode(private) == 0o600
    os.umask(0o077)
    atomic_write(tmp_path / "strict.yaml", "a: 4\n")
    assert mode(tmp_path / "strict.yaml") == 0o600
    assert not list(tmp_path.glob(".*.tmp"))  # still atomic: no temp file left


async def test_saving_over_a_build_keeps_its_mode_and_reports_get_the_usual_one(
    tmp_path, umask_022, state_dir
):
    copy = tmp_path / "hero.yaml"
    copy.write_text(HERO.read_text())
    copy.chmod(0o640)
    app = AdvisorApp(str(copy))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")  # an SSD in M.2_2
        await settle(pilot)
        await pilot.press(*"m.2_2", "enter")
        await settle(pilot)
        app.flush_autosave()
        (autosaved,) = state_dir.glob("autosave/*.yaml")
        assert mode(autosaved) == 0o600  # the autosave stays private: only the app reads it
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "*unsaved" not in screen_lines(app)[0]
        await pilot.press("ctrl+e")
        await settle(pilot)
        app.screen.query_one("#path", Input).value = str(tmp_path / "report.md")
        await pilot.press("enter")
        await settle(pilot)
    assert "socket: M.2_2" in copy.read_text() and mode(copy) == 0o640
    assert mode(tmp_path / "report.md") == 0o644


# ---------------------------------------------------------------------- c: the help and the tab bar


def help_text(app, kind: str) -> list[str]:
    """The help screen's table cells (kind "MarkdownTableCellContents") or paragraphs
    ("MarkdownParagraph"), as drawn (the screen scrolls through them)."""
    assert isinstance(app.screen, HelpScreen)
    return [str(w.render()) for w in app.screen.walk_children() if type(w).__name__ == kind]


def tab_bar(app) -> list[str]:
    labels = [str(t.label) for t in app.query_one(TabbedContent).query(Tab)]
    assert screen_lines(app)[1].split()[-len(labels) :] == labels  # as the user sees the tab bar
    return labels


async def check_help_against_the_tab_bar(app, pilot) -> list[str]:
    await settle(pilot)
    labels = tab_bar(app)
    await pilot.press("f1")
    await settle(pilot)
    cells = help_text(app, "MarkdownTableCellContents")
    row = cells.index(f"1-{len(labels)}")  # the view keys' row: 1-8, then the views in key order
    assert cells[row + 1] == ", ".join(labels) + " (from any focus but a text field)"
    views = [c for c in help_text(app, "MarkdownParagraph") if re.match(r"\w+ \(\d\): ", c)]
    assert [v.split(" (")[0] for v in views] == labels  # each view, as the tab bar names it
    assert [int(v.split("(")[1][0]) for v in views] == list(range(1, len(labels) + 1))
    return cells + views


async def test_the_help_names_each_view_and_its_key_as_the_tab_bar_does():
    app = AdvisorApp(str(HERO))
    async with app.run_test(size=SIZE) as pilot:
        cells = await check_help_against_the_tab_bar(app, pilot)
        assert not any("Workload" in c for c in cells)
        # every key in the key table is one the app binds (or the build list's Enter, the palette's)
        from advisor.tui.help import key_name

        bound = {key_name(k.strip()) for b in app.BINDINGS for k in b.key.split(",")}
        table = help_text(app, "MarkdownTableCellContents")
        assert table[:2] == ["key", "does"]
        for cell in table[2::2]:
            for key in re.split(r" / |, | or ", cell):
                assert key in bound | {"Enter", "Ctrl+P", f"1-{len(app_module.PANES)}"}, key


async def test_the_help_follows_the_tab_bar_when_a_tab_is_renamed(monkeypatch):
    """The help's view names come from the table the tab bar is made from, so that they cannot drift
    (the help once said "Workload" where the tab said "Job"): rename a tab and the help follows."""
    panes = [("Jobs", *p[1:]) if p[1] == "workload" else p for p in app_module.PANES]
    monkeypatch.setattr(app_module, "PANES", tuple(panes))
    app = AdvisorApp(str(HERO))
    async with app.run_test(size=SIZE) as pilot:
        cells = await check_help_against_the_tab_bar(app, pilot)
        assert any(c.startswith("Jobs (8): will N GPUs beat one") for c in cells)


# ---------------------------------------------------------------------- d: one click selects


def line_at(app, text: str) -> tuple[int, int]:
    """Where `text` is on the screen, in the build panel (x, y)."""
    for y, line in enumerate(screen_lines(app)):
        x = line.find(text)
        if 0 <= x < 38:
            return x, y
    raise AssertionError(f"{text!r} is not in the build panel")


async def test_one_click_on_a_gpu_line_selects_it_and_a_double_click_opens_the_move_dialog():
    app = AdvisorApp(str(HERO))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        items = app.query_one("#build-items", OptionList)
        await pilot.click(offset=line_at(app, "GPU1"))
        await settle(pilot)
        assert not isinstance(app.screen, ChoicePicker)  # no Move dialog
        assert items.highlighted_option.id == "gpu:1" and app.focused is items
        await pilot.click(offset=line_at(app, "SSD    NVMe"))  # one click on the SSD line: it stays
        await settle(pilot)
        assert items.highlighted_option.id.startswith("nvme:") and app.planner.build.nvme
        assert "SSD    NVMe in M.2_1" in "\n".join(screen_lines(app))
        await pilot.click(offset=line_at(app, "GPU1"), times=2)  # a double click edits the line
        await settle(pilot)
        assert isinstance(app.screen, ChoicePicker)
        assert "Move GPU1 to a slot" in "\n".join(screen_lines(app))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("enter")  # and so does Enter on the selected line
        await settle(pilot)
        assert isinstance(app.screen, ChoicePicker) and "Move GPU1" in app.screen.title_text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.click(offset=line_at(app, "+ add GPU"))  # the '+ add' lines are buttons
        await settle(pilot)
        assert isinstance(app.screen, ChoicePicker) and "Add GPUs" in app.screen.title_text


# ---------------------------------------------------------------------- e: the machine tree


def tree_lines(app) -> list[str]:
    """The machine view's lines on the screen (right of the build panel, under the tab bar)."""
    region = app.query_one("#machine-tree").content_region
    lines = screen_lines(app)[region.y : region.bottom]
    return [line[region.x : region.right].rstrip() for line in lines if line[region.x : region.right].strip()]


def check_tree_shape(lines: list[str]) -> None:
    """Every line after the title is a branch (its guides, then ├─ or └─, then its label) or a
    wrapped label's further line, indented under its own branch's label with the guides drawn on."""
    assert lines and not lines[0].startswith((" ", "│"))
    label_at = None  # the column the last branch's label starts at
    for line in lines[1:]:
        m = re.match(r"^([ │]*)([├└]─ )?", line)
        guides, branch = m.group(1), m.group(2)
        if branch:
            label_at = len(guides) + 3
            continue
        assert label_at is not None, line
        # a further line of a label: only guides and spaces up to past where that label starts
        assert len(guides) >= label_at + 2, line


async def test_the_machine_tree_keeps_long_lines_inside_their_branch_at_100_columns():
    app = AdvisorApp(str(HERO))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = tree_lines(app)
        check_tree_shape(lines)
        text = "\n".join(lines)
        assert text.count("H2D/D2H 13.2/13.2 GB/s") == 2  # whole, never cut at the edge
        gpu0 = next(i for i, line in enumerate(lines) if "GPU0" in line)
        assert lines[gpu0].startswith("   │  │  └─ GPU0 RTX 4090 Gen4 x8 (of x16)")
        assert lines[gpu0 + 1] == "   │  │       H2D/D2H 13.2/13.2 GB/s"
        width = app.query_one("#machine-tree").scrollable_content_region.width
        assert all(len(line) <= width for line in lines)


async def test_the_machine_tree_of_eight_gpus_behind_switches_wraps_under_each_branch():
    app = AdvisorApp(str(EIGHT))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.query_one("#machine-tree")
        text = str(app.query_one("#machine-text").render()).splitlines()
        assert all(len(line) <= tree.scrollable_content_region.width for line in text)
        check_tree_shape(text)
        assert sum("H2D/D2H 55.8/56.1 GB/s" in line for line in text) == 8
        await pilot.resize_terminal(160, 45)  # wider: the lines join again
        await settle(pilot)
        wide = str(app.query_one("#machine-text").render()).splitlines()
        check_tree_shape(wide)
        assert len(wide) < len(text)
        assert any("GPU0 RTX PRO 6000" in line and "H2D/D2H 55.8/56.1 GB/s" in line for line in wide)
