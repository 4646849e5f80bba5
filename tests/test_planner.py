"""The planner behind `advisor tui`: edits re-evaluate the build and say, in words, what they changed."""

from __future__ import annotations

import pytest

from advisor.base.errors import UserError
from advisor.model.buildfile import build_from_flags, load_build
from advisor.session.buildyaml import build_yaml
from advisor.session.naming import generated_name, name_form
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


def test_a_cpu_that_does_not_fit_is_refused_and_goes_in_with_a_board_that_takes_it():
    p = hero()
    with pytest.raises(UserError, match="Ryzen 9 7950X does not fit ASUS ROG Maximus Z790 Hero: socket AM5"):
        p.set_cpu("Ryzen 9 7950X")
    assert p.error is None and not p.dirty and not p.undo_stack  # the build is as it was
    cpu = p.catalog.resolve("Ryzen 9 7950X", "cpu")
    boards = p.board_choices(cpu)
    fitting = [c for c in boards if c.fits]
    assert fitting and all(p.catalog.get(c.key).socket == "AM5" for c in fitting)
    assert all(c.why_not for c in boards if not c.fits)
    with pytest.raises(UserError, match="does not fit"):
        p.set_board(fitting[0].key)  # the i9 on an AM5 board: refused the same way
    p.set_platform("Ryzen 9 7950X", fitting[0].key)
    assert p.error is None and len(p.prediction.gpus) == 2 and len(p.undo_stack) == 1
    assert p.cpu.id == cpu.id and p.board.id == fitting[0].key
    assert [n.socket for n in p.build.nvme] == ["M.2_1"]  # the SSD's socket exists on the new board
    with pytest.raises(UserError, match="does not fit"):
        p.set_platform("i9-14900K", fitting[0].key)


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


def test_settings_a_build_leaves_out_stay_unknown_through_edits_and_saves(tmp_path):
    p = hero()
    p.add_gpu("RTX 4090")
    p.set_software(nccl_p2p_level="SYS")
    sw = p.build.software
    assert not any(sw.known(name) for name in ("driver", "iommu", "acs", "large_bar"))
    text = build_yaml(p.build)
    assert "software:\n  nccl_p2p_level: SYS\n" in text  # only what was said
    # said in the file, a default value too, it stays said; said through the BIOS, it is written there once
    path = tmp_path / "said.yaml"
    path.write_text(
        (ROOT / "examples" / "2x4090-z790-hero.yaml").read_text()
        + "software: {driver: stock}\nbios: {acs: 'off'}\n"
    )
    p = Planner.open(path)
    p.add_nvme("M.2_2")
    p.save()
    again = load_build(path).software
    assert again.known("driver") and again.known("acs") and not again.known("iommu")
    saved = path.read_text()
    assert "driver: stock" in saved and saved.count("acs:") == 1


def test_the_settings_form_states_only_what_it_changes():
    p = hero()
    bios, kernel = p.build.bios.model_dump(), p.build.kernel.model_dump()
    # the form applied as shown: driver, IOMMU, ACS, large BAR not set; the rest their assumed values
    shown = {"driver": None, "iommu": None, "acs": None, "large_bar": None, "os": "linux", "cuda_p2p": True}
    p.set_settings(shown, bios, kernel)
    assert p.build.software.model_fields_set == set()
    # ACS picked "off" (the value it is assumed to have): now stated
    p.set_settings(shown | {"acs": "off"}, bios, kernel, chosen={"driver", "iommu", "acs", "large_bar"})
    assert p.build.software.known("acs") and p.build.software.model_fields_set == {"acs"}
    p.set_settings(shown, bios, kernel)  # back to not set
    assert not p.build.software.known("acs")
    p.set_settings(shown | {"acs": "off"}, bios | {"acs": "off"}, kernel)  # said through the BIOS
    assert p.build.software.known("acs") and p.build.bios.acs == "off"


def test_a_generated_name_follows_the_parts_and_a_typed_one_stays():
    p = hero()
    assert name_form(p.build, p.catalog) == "cpu-board"
    p.set_platform("7960X", "TRX50-SAGE")
    assert p.build.name == "2x RTX 4090 on Threadripper 7960X / Pro WS TRX50-SAGE WIFI"
    p.remove_gpu(0)
    assert p.build.name == "1x RTX 4090 on Threadripper 7960X / Pro WS TRX50-SAGE WIFI"
    p.undo()
    assert p.build.name == "2x RTX 4090 on Threadripper 7960X / Pro WS TRX50-SAGE WIFI"
    # the board-only form keeps its form
    board_only = Planner(build_from_flags("i9-14900K", "ROG Maximus Z790 Hero", ["RTX 4090:2"]))
    board_only.build = board_only.build.model_copy(update={"name": "2x RTX 4090 on ROG Maximus Z790 Hero"})
    board_only.set_platform("7960X", "TRX50-SAGE")
    assert board_only.build.name == "2x RTX 4090 on Pro WS TRX50-SAGE WIFI"
    # a name of the user's own, even one that names the parts another way, is kept
    for typed in ("lab box 2", "2x 4090 on 14900K / Z790 Hero", None):
        q = Planner(build_from_flags("i9-14900K", "ROG Maximus Z790 Hero", ["RTX 4090:2"]))
        q.build = q.build.model_copy(update={"name": typed})
        q.set_platform("7960X", "TRX50-SAGE")
        assert q.build.name == typed
    # an explicit tree's generated name becomes a catalog build's when a board is picked
    tree = Planner.open(ROOT / "examples" / "explicit-tree-4x6000ada.yaml")
    assert name_form(tree.build, tree.catalog) == "tree"
    tree.set_board("WRX90E-SAGE")
    assert tree.build.name == generated_name(tree.build, tree.catalog)
