"""The planner behind `advisor tui`: edits re-evaluate the build and say, in words, what they changed."""

from __future__ import annotations

import pytest

from advisor.base.errors import UserError
from advisor.model.engine import build_from_flags, load_build
from advisor.session.planner import Planner
from tests.conftest import ROOT


def links(p: Planner) -> dict[int, tuple[str, str]]:
    return {g.node.index: (g.node.connector, g.node.link.label) for g in p.prediction.gpus}


def hero() -> Planner:
    return Planner.open(ROOT / "examples" / "2x4090-z790-hero.yaml")


def test_an_ssd_that_steals_gpu_lanes_is_named_in_the_change():
    p = Planner(build_from_flags("i9-14900K", "ROG Strix Z790-E", ["RTX 4090"]))
    assert links(p) == {0: ("PCIEX16(G5)", "Gen4 x16")}
    m2_1 = next(c for c in p.m2_choices() if c.key == "M.2_1")
    assert "shares lanes with PCIEX16(G5)" in m2_1.specs
    changes = p.add_nvme("M.2_1")
    assert links(p) == {0: ("PCIEX16(G5)", "Gen4 x8")}
    assert any(
        "GPU0" in c and "Gen4 x16 -> Gen4 x8" in c and "M.2_1 shares its lanes" in c for c in changes
    ), changes
    assert "new findings: LANE001" in changes
    changes = p.remove_nvme("M.2_1")
    assert links(p)[0][1] == "Gen4 x16" and "resolved: LANE001" in changes


def test_adding_a_third_card_on_z790_lands_on_the_chipset_and_halves_the_all_reduce():
    p = hero()
    before = p.prediction.allreduce.value
    changes = p.add_gpu("RTX 4090")
    assert links(p)[2] == ("PCIEX4(G4)", "Gen4 x4")
    assert p.prediction.allreduce.value < before
    assert any(c.startswith("all-reduce ") for c in changes)
    assert "LANE002" in {f.id for f in p.findings}  # GPU on chipset lanes
    assert p.dirty


def test_move_swaps_cards_and_automatic_placement_comes_back():
    p = Planner(build_from_flags("Threadripper PRO 7975WX", "WRX90E-SAGE", ["RTX 6000 Ada:2"]))
    first, second = p.placement[0], p.placement[1]
    p.move_gpu(1, first)
    assert p.placement[1] == first and p.placement[0] != first
    p.move_gpu(0, "pciex16(g5)_4")  # slot names match case-insensitively
    assert p.placement[0] == "PCIEX16(G5)_4"
    p.auto_place()
    assert {p.placement[0], p.placement[1]} == {first, second}
    with pytest.raises(UserError, match="has no slot 'PCIEX99'"):
        p.move_gpu(0, "PCIEX99")


def test_slot_choices_say_what_each_slot_would_give():
    p = hero()
    choices = {c.key: c for c in p.slot_choices(1)}
    assert choices[""].label == "automatic"
    assert "here now" in choices["PCIEX16(G5)_2"].specs
    assert "would be Gen4 x4" in choices["PCIEX4(G4)"].specs and "chipset" in choices["PCIEX4(G4)"].specs
    assert "swaps with GPU0" in choices["PCIEX16(G5)_1"].specs
    assert p.undo_stack == [] and not p.dirty  # trying the slots changed nothing


def test_a_cpu_that_does_not_fit_leaves_a_build_that_says_why_and_boards_that_fit():
    p = hero()
    p.set_cpu("Ryzen 9 7950X")
    assert p.prediction is None and "does not fit" in p.error
    boards = p.board_choices()
    fitting = [c for c in boards if c.fits]
    assert fitting and all(p.catalog.get(c.key).socket == "AM5" for c in fitting)
    assert all(c.why_not for c in boards if not c.fits)
    p.set_board(fitting[0].key)
    assert p.error is None and len(p.prediction.gpus) == 2
    assert [n.socket for n in p.build.nvme] == ["M.2_1"]  # the SSD's socket exists on the new board


def test_an_edit_that_breaks_a_working_build_is_refused_with_the_reason():
    p = hero()
    with pytest.raises(UserError, match="4 cards .* 3 slots"):
        p.add_gpu("RTX 4090", count=2)
    assert len(p.prediction.gpus) == 2 and not p.dirty and not p.undo_stack


def test_undo_and_redo_walk_the_history():
    p = hero()
    p.add_gpu("RTX 4090")
    assert len(p.prediction.machine.all_gpus) == 3
    p.undo()
    assert len(p.prediction.gpus) == 2
    p.redo()
    assert len(p.prediction.machine.all_gpus) == 3
    p.undo()
    p.remove_gpu(1)
    assert p.redo_stack == [] and len(p.prediction.gpus) == 1


def test_save_writes_a_file_that_opens_to_the_same_build(tmp_path):
    p = hero()
    p.add_gpu("RTX 4090")
    p.move_gpu(0, "PCIEX16(G5)_1")
    p.set_software(nccl_p2p_level="SYS")
    target = p.save(tmp_path / "sub" / "mine.yaml")
    assert not p.dirty and target.exists()
    again = Planner.open(target)
    assert again.build == p.build
    assert links(again) == links(p)
    text = target.read_text()
    assert "count: 2" not in text or "slot" in text  # cards with a slot are listed one by one
    assert load_build(target).software.nccl_p2p_level == "SYS"
    assert not list(target.parent.glob(".*tmp"))  # atomic write left no temp file


def test_saving_over_a_file_keeps_the_comments_at_its_top(tmp_path):
    original = (ROOT / "examples" / "2x4090-z790-hero.yaml").read_text()
    path = tmp_path / "hero.yaml"
    path.write_text(original)
    p = Planner.open(path)
    p.add_nvme("M.2_2")
    p.save()
    text = path.read_text()
    header = "".join(line for line in original.splitlines(keepends=True) if line.startswith("#"))
    assert text.startswith(header) and "socket: M.2_2" in text
    assert Planner.open(path).build == p.build


def test_explicit_trees_are_shown_but_not_edited_slot_by_slot():
    p = Planner.open(ROOT / "examples" / "explicit-tree-4x6000ada.yaml")
    assert p.explicit and len(p.prediction.gpus) == 4
    with pytest.raises(UserError, match="explicit PCIe tree"):
        p.add_gpu("RTX 4090")
    p.set_board("WRX90E-SAGE")  # picking a board starts a catalog build from it
    assert not p.explicit and p.error is None and p.build.cpu


def test_remove_gpu_renumbers_nvlink_bridges():
    p = Planner(build_from_flags("Threadripper PRO 5975WX", "WRX80E-SAGE", ["RTX 3090:3"]))
    p.toggle_nvlink(1, 2)
    assert p.prediction.pairs[-1].path.startswith("NV")
    p.remove_gpu(0)
    assert p.build.nvlink == [[0, 1]]
    assert p.prediction.pairs[0].path.startswith("NV")
