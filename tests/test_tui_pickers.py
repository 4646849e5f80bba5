"""The pickers and the change box, driven the way a person drives them.

Moving one card can move others (automatic placement runs again for the cards left to it): the
Move picker names every card a slot would shift and the change box names every card that moved,
summarising what does not fit rather than cutting it. Picker columns take the width there is, and
the board picker's summary counts CPU slots and their modes from the catalog. The assertions read
the screen as drawn (textual's compositor), so what is cut or hidden there fails them.
"""

from __future__ import annotations

import re

import pytest
from textual.widgets import DataTable, OptionList

from advisor.model.catalog.store import load_catalog
from advisor.session import parts
from advisor.tui.app import AdvisorApp
from advisor.tui.dialogs import ChoicePicker
from tests.conftest import ROOT
from tests.tui_settle import settle

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
EIGHT = str(ROOT / "tests" / "fixtures" / "builds" / "8x-rtxpro6000-esc8000a.yaml")
SMALL, LARGE = (100, 30), (160, 45)


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    """Autosaves go to a folder of the test's own."""
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))


def screen_lines(app) -> list[str]:
    """The terminal as drawn, one string per line."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def seen_in(app, widget) -> list[str]:
    """The lines of the screen inside a widget's region: what the user sees of it."""
    r = widget.region
    return [line[r.x : r.right].rstrip() for line in screen_lines(app)[r.y : r.bottom]]


def flat(lines: list[str]) -> str:
    """Wrapped lines as one string again (each line's text, joined by single spaces)."""
    return re.sub(r"\s+", " ", " ".join(line.strip(" │") for line in lines)).strip()


def picker_rows(app) -> dict[str, str]:
    """Each row of the open picker as seen on screen: its name -> the row's text, a row that runs
    over more lines joined into one, the name column read on its own."""
    picker = app.screen
    assert isinstance(picker, ChoicePicker)
    table = picker.query_one(DataTable)
    lines = seen_in(app, table)[: table.scrollable_content_region.height]  # not a scrollbar's line
    widths = [c.get_render_width(table) for c in table.columns.values()]
    rows: dict[str, str] = {}
    y = table.header_height - round(table.scroll_y)
    for row in table.ordered_rows:
        h = row.height
        block = lines[y : y + h] if y >= table.header_height else []
        y += h
        if len(block) < h:  # scrolled out of sight
            continue
        name = flat([line[: widths[0]] for line in block])
        rows[name] = flat([line[widths[0] :] for line in block])
    return rows


async def open_picker(pilot, key: str) -> dict[str, str]:
    await pilot.press(key)
    await settle(pilot)
    return picker_rows(pilot.app)


def select_line(app, key: str) -> None:
    items = app.query_one("#build-items", OptionList)
    items.highlighted = items.get_option_index(key)


# ---------------------------------------------------------------------- moves name every card


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_move_picker_names_the_other_card_a_slot_would_move(size):
    app = AdvisorApp(HERO)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        select_line(app, "gpu:0")
        rows = await open_picker(pilot, "m")
        # GPU1 is placed automatically: with GPU0 in the chipset slot it goes to the first x16 slot
        assert "would be Gen4 x4" in rows["PCIEX4(G4)"]
        assert "GPU1 moves to PCIEX16(G5)_1" in rows["PCIEX4(G4)"]
        assert "Gen4 x8 -> x16" in rows["PCIEX4(G4)"]
        assert "swaps with GPU1" in rows["PCIEX16(G5)_2"] and "would be Gen4 x8" in rows["PCIEX16(G5)_2"]
        assert "here now" in rows["PCIEX16(G5)_1"] and "current" in rows["PCIEX16(G5)_1"]
        await pilot.press(*"pciex4", "enter")
        await settle(pilot)
        assert app.planner.placement == {0: "PCIEX4(G4)", 1: "PCIEX16(G5)_1"}
        box = app.query_one("#changes")
        seen = flat(seen_in(app, box))
        assert "GPU0 PCIEX16(G5)_1 -> PCIEX4(G4): Gen4 x8 -> Gen4 x4" in seen
        assert "GPU1 PCIEX16(G5)_2 -> PCIEX16(G5)_1: Gen4 x8 -> Gen4 x16" in seen
        # and the rest of what the edit did, whole or named: nothing cut by the box's height
        for change in app.planner.changes:
            assert change in seen or "more:" in seen, (change, seen)
        assert "resolved: LANE001" in seen or "resolved LANE001" in seen


async def test_a_move_that_shifts_many_cards_is_summarised_naming_each_of_them():
    app = AdvisorApp(EIGHT)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        before = dict(app.planner.placement)
        select_line(app, "gpu:1")
        rows = await open_picker(pilot, "m")
        row = rows["SW4-GPU7"]
        for j in range(2, 8):  # every card after GPU1 moves up one slot when GPU1 takes the last one
            assert f"GPU{j} moves to {before[j - 1]}" in row, row
        await pilot.press(*"sw4-gpu7", "enter")
        await settle(pilot)
        after = app.planner.placement
        moved = sorted(i for i in after if after[i] != before[i])
        assert moved == list(range(1, 8))
        box = app.query_one("#changes")
        seen = flat(seen_in(app, box))
        assert re.search(r"\d+ more: ", seen), seen
        for i in moved:
            assert re.search(rf"\bGPU{i}\b", seen), (i, seen)
        # the box's last line on screen is the summary, not a change cut off in the middle
        lines = [line for line in seen_in(app, box) if line.strip(" │")]
        assert any("more:" in line for line in lines)
        assert box.tooltip and all(c in str(box.tooltip) for c in app.planner.changes)


# ---------------------------------------------------------------------- columns use the width


async def test_picker_columns_use_the_width_of_a_wide_terminal():
    app = AdvisorApp(HERO)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        rows = await open_picker(pilot, "m")
        assert rows["automatic"].startswith("the slots that give the GPUs the most bandwidth")
        assert "…" not in " ".join(rows.values())
        await pilot.press("escape")
        await settle(pilot)
        rows = await open_picker(pilot, "b")
        hero = rows["ASUS ROG Maximus Z790 Hero"]
        assert hero.startswith("2 CPU x16 slots (x16, or x8/x8 with both)"), hero
        assert hero == parts.board_summary(app.planner.board) + " current"  # whole, nothing cut
        assert "ASUS ROG Strix Z790-E Gaming WiFi" in rows  # the name whole
        table = app.screen.query_one(DataTable)
        drawn = sum(c.get_render_width(table) for c in table.columns.values())
        assert drawn == table.scrollable_content_region.width  # the columns fill the table


async def test_at_100_columns_text_is_shortened_but_names_never_cut():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        rows = await open_picker(pilot, "b")
        names = [c.label for c in app.screen.shown]
        assert sorted(rows) == sorted(names)  # every board name whole, as the user picks it
        assert rows["ASUS ROG Maximus Z790 Hero"].startswith("2 CPU x16 slots (x16, or x8/x8 with both)")
        await pilot.press("escape")
        await settle(pilot)
        rows = await open_picker(pilot, "g")  # GPU names are long: one runs over a second line
        shown = {c.label for c in app.screen.shown}
        assert set(rows) <= shown and len(rows) >= 8
        longest = max(shown, key=len)
        assert len(longest) > app.screen.widths[0]  # longer than its column: it wraps, whole
        await pilot.press(*"clamshell")
        await settle(pilot)
        assert list(picker_rows(app)) == [longest]


async def test_the_columns_follow_a_terminal_that_grows():
    app = AdvisorApp(HERO)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        narrow = (await open_picker(pilot, "b"))["ASUS ROG Maximus Z790 Hero"]
        await pilot.resize_terminal(*LARGE)
        await settle(pilot)
        wide = picker_rows(app)["ASUS ROG Maximus Z790 Hero"]
        assert len(wide) > len(narrow) and wide.endswith("LGA1700 consumer current"), (narrow, wide)


# ---------------------------------------------------------------------- the board summary


# what the board picker says of each, read against its catalog entry
SUMMARIES = {
    "asus-rog-maximus-z790-hero": "2 CPU x16 slots (x16, or x8/x8 with both) · 1 chipset slot (x4) · 3 M.2 · LGA1700 consumer",
    "asus-rog-strix-z790-e-gaming-wifi": "1 CPU x16 slot (x16; x8 with M.2_1) · 2 chipset slots (x4) · 5 M.2 · LGA1700 consumer",
    "asus-pro-ws-trx50-sage-wifi": "4 CPU x16 slots (x16 each; PCIEx16(G5)_3 x8 with M.2_1 or M.2_2) · 3 M.2 · sTR5 workstation",
    "asus-pro-ws-wrx90e-sage-se": "7 CPU x16 slots (x16 each) · sTR5 workstation",
    "asus-pro-ws-w790e-sage-se": "7 CPU x16 slots (6 at x16, 1 at x8; 3 need a CPU with 112 lanes) · 3 M.2 · LGA4677 workstation",
    "asus-proart-x670e-creator-wifi": "2 CPU x16 slots (x16, or x8/x8 with both) · 1 chipset slot (x2) · 4 M.2 · AM5 consumer",
    "supermicro-h12ssl-i": "5 CPU x16 slots (x16 each) · 2 CPU x8 slots · 2 M.2 · SP3 server",
    "asus-esc8000a-e13p": "8 x16 slots behind 4 switches (each x16 to a CPU) · SP5 gpu-server",
    "gigabyte-mz73-lm0": "slots not in the catalog · SP5 server",
}


@pytest.mark.parametrize("board", list(SUMMARIES))
def test_the_board_summary_reads_the_catalog_wiring(board):
    assert parts.board_summary(load_catalog().get(board)) == SUMMARIES[board]


def test_every_board_summary_counts_its_cpu_x16_slots():
    for b in load_catalog().boards:
        on_cpu = [c for c in b.slots if b.group(c.group).source == "cpu" and (c.physical or c.width) >= 16]
        text = parts.board_summary(b)
        if on_cpu:
            n = len(on_cpu)
            assert text.startswith(f"{n} CPU x16 slot{'s' if n > 1 else ''} ("), (b.id, text)
        else:
            assert "CPU x16" not in text, (b.id, text)


# ---------------------------------------------------------------------- what Enter takes


async def typed_and_entered(pilot, key: str, text: str) -> list[str]:
    """Open a picker with `key`, type `text`, press Enter; the rows' names as they were listed."""
    await pilot.press(key)
    await settle(pilot)
    picker = pilot.app.screen
    assert isinstance(picker, ChoicePicker)
    await pilot.press(*text)
    await settle(pilot)
    table = picker.query_one(DataTable)
    names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
    await pilot.press("enter")
    await settle(pilot)
    return names


async def test_enter_takes_the_best_match_of_what_was_typed(tmp_path):
    """`m`, `G5)_2`, Enter put the card in PCIEx16(G5)_1: the filter also matched the rows' specs (the
    "automatic" row says where automatic placement would put every card) and Enter took the first
    row. The slot whose name holds what was typed comes first and Enter takes it; the part pickers
    the same."""
    path = tmp_path / "trx50.yaml"
    path.write_text(
        "cpu: Threadripper 7960X\nboard: TRX50-SAGE\ngpus:\n"
        "  - {model: RTX 4090, slot: PCIEx16(G5)_3}\n  - {model: RTX 4090, slot: PCIEx16(G5)_1}\n"
    )
    app = AdvisorApp(str(path))
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        names = await typed_and_entered(pilot, "m", "G5)_2")  # GPU0, the first card
        assert names[0] == "PCIEX16(G5)_2" and "automatic" in names  # its specs name G5)_2
        assert app.planner.placement == {0: "PCIEX16(G5)_2", 1: "PCIEx16(G5)_1"}
    app = AdvisorApp(HERO)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        await typed_and_entered(pilot, "c", "7960X")  # the boards that take it are offered
        await pilot.press(*"TRX50-SAGE", "enter")
        await settle(pilot)
        assert app.planner.placement == {0: "PCIEx16(G5)_1", 1: "PCIEX16(G5)_2"}
        # a GPU: "4090" is the RTX 4090 itself, not the first of the partner cards whose names hold it
        names = await typed_and_entered(pilot, "g", "4090")
        assert names[0] == "NVIDIA GeForce RTX 4090" and "AORUS GeForce RTX 4090 MASTER 24G" in names
        assert app.planner.build.gpus[-1].model == "nvidia-rtx-4090"
        # a board: the name typed, not a board whose specs hold the words
        names = await typed_and_entered(pilot, "b", "TRX50")
        assert names[0] == "ASUS Pro WS TRX50-SAGE WIFI"
        # a CPU: the one named, before the others of its line
        names = await typed_and_entered(pilot, "c", "7970X")
        assert names[0] == "AMD Ryzen Threadripper 7970X"
        assert app.planner.cpu.name == "AMD Ryzen Threadripper 7970X"


def test_match_rank_puts_names_before_specs():
    from advisor.tui.dialogs import match_rank

    a = parts.Choice("PCIEx16(G5)_1", "PCIEx16(G5)_1", "x16, swaps with GPU1 in PCIEX16(G5)_2")
    b = parts.Choice("PCIEX16(G5)_2", "PCIEX16(G5)_2", "x16: here now")
    assert match_rank(b, "G5)_2") < match_rank(a, "G5)_2")
    assert match_rank(a, "nothing like it") is None
    assert match_rank(a, "") == match_rank(b, "")  # no text: the picker's own order


# ---------------------------------------------------------------------- a CPU the board does not take


async def test_a_cpu_the_board_does_not_take_is_offered_with_the_boards_that_do():
    """`c` 7960X on the Z790 Hero was taken: "cannot evaluate", GPUs shown as "? ? (auto)", a hint
    naming a CLI command. The boards that take it are offered instead; Esc keeps the build as it was,
    a board puts both in, one undo step."""
    app = AdvisorApp(HERO)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        await typed_and_entered(pilot, "c", "7960X")
        picker = app.screen
        assert isinstance(picker, ChoicePicker)
        assert picker.title_text.startswith(
            "AMD Ryzen Threadripper 7960X does not fit ASUS ROG Maximus Z790 Hero (socket sTR5"
        )
        boards = [load_catalog().get(c.key) for c in picker.choices]
        assert boards and all(b.socket == "sTR5" for b in boards)
        await pilot.press("escape")
        await settle(pilot)
        assert app.planner.cpu.name == "Intel Core i9-14900K" and app.planner.prediction is not None
        assert not app.planner.dirty and not app.planner.undo_stack
        summary = str(app.query_one("#summary").render())
        assert "cannot evaluate" not in summary and "x8/x8" in summary
        await typed_and_entered(pilot, "c", "7960X")
        await pilot.press(*"TRX50", "enter")
        await settle(pilot)
        assert app.planner.cpu.name == "AMD Ryzen Threadripper 7960X" and app.planner.error is None
        assert "x16/x16" in str(app.query_one("#summary").render())
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.planner.cpu.name == "Intel Core i9-14900K"
        assert app.planner.board.name == "ASUS ROG Maximus Z790 Hero"


async def test_a_file_whose_cpu_the_board_does_not_take_says_which_keys_fix_it(tmp_path):
    path = tmp_path / "mismatch.yaml"
    path.write_text(
        "cpu: Threadripper 7960X\nboard: ROG Maximus Z790 Hero\ngpus:\n  - {model: RTX 4090, count: 2}\n"
    )
    app = AdvisorApp(str(path))
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        summary = str(app.query_one("#summary").render())
        assert summary.startswith("cannot evaluate: AMD Ryzen Threadripper 7960X (socket sTR5) does not fit")
        assert "press b for a board that takes the CPU, or c for a CPU that fits the board" in summary
        assert "`advisor" not in summary and "catalog list" not in summary
        items = app.query_one("#build-items", OptionList)
        gpu0 = str(items.get_option("gpu:0").prompt)
        assert "not evaluated" in gpu0 and "?" not in gpu0
        # b: the boards that take the CPU; one puts the build right
        names = await typed_and_entered(pilot, "b", "TRX50")
        assert names[0] == "ASUS Pro WS TRX50-SAGE WIFI"
        assert app.planner.error is None
