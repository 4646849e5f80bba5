"""Every catalog board as a buyer meets it: it has a slot table, and a build of up to two GPUs plans on it with
a CPU that fits it, through the CLI.

A board without a slot table is refused at plan time ('has no slot table in the catalog'); the catalog keeps
such a board only when no source with its slots could be read, and says so here with the reason.
"""

from __future__ import annotations

import json

import pytest

from advisor.model.catalog.store import load_catalog

GPU = "nvidia-rtx-6000-ada"

# Boards the catalog holds without a slot table, with what was sought. strict: the day one gets a sourced
# slot table, its test passes and its line here has to go.
NO_SLOT_TABLE = {
    "supermicro-h13ssl-n": "no SMBIOS dump of an H13SSL in linux-hardware.org's DMI snapshot (whole snapshot "
    "searched by board name), no dmidecode -t 9 or lspci tree of one in a public repository, and neither "
    "Supermicro's page nor the MNL-2545 manual nor a reputable review was reachable; owners' repositories give "
    "five slots (three x16, two x8), SLOT5 at Gen5 x16 and SLOT1/SLOT5 on different root buses, but not which of "
    "SLOT1-SLOT4 are x8",
    "gigabyte-mz73-lm0": "no SMBIOS dump of an MZ73-LM0 in linux-hardware.org's DMI snapshot (whole snapshot "
    "searched by board name), no dmidecode -t 9 or lspci of one in a public repository, and neither Gigabyte's "
    "spec page nor its manual PDFs nor a reputable review with its slot list was reachable",
}

CATALOG = load_catalog()
BOARDS = sorted(CATALOG.boards, key=lambda b: b.id)


def _cpus_taking(board):
    return sorted(
        (
            c
            for c in CATALOG.cpus
            if c.socket.lower() == board.socket.lower()
            and (board.cpu_families is None or c.family in board.cpu_families)
        ),
        key=lambda c: c.id,
    )


def _board_case(board):
    reason = NO_SLOT_TABLE.get(board.id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(board.id, id=board.id, marks=marks)


@pytest.mark.parametrize("board_id", [_board_case(b) for b in BOARDS])
def test_every_board_has_a_slot_table_that_two_gpus_plan_on(cli, board_id):
    board = CATALOG.parts[board_id]
    cpus = _cpus_taking(board)
    assert cpus, f"{board_id}: no catalog CPU fits it ({board.socket}, {board.cpu_families})"
    count = max(1, min(2, len(board.slots)))
    code, out, err = cli(
        "plan", "--cpu", cpus[0].id, "--board", board_id, "--gpu", f"{GPU}:{count}", "--json"
    )
    assert code == 0, err
    plan = json.loads(out)
    assert len(plan["gpus"]) == count and not plan["unlinked"]
    assert all(g["slot"] and g["link"]["width"] >= 1 for g in plan["gpus"])
    assert not [f for f in plan["findings"] if f["id"] == "LANE009"], plan["findings"]


def test_the_boards_without_a_slot_table_are_exactly_the_listed_ones(cli):
    """A board added without slots fails here until its reason is written above; a listed one that is gone
    or got its slots fails too, so the list never outlives the catalog."""
    assert {b.id for b in BOARDS if not b.slots} == set(NO_SLOT_TABLE)
    for board_id in NO_SLOT_TABLE:
        cpu = _cpus_taking(CATALOG.parts[board_id])[0]
        code, _, err = cli("plan", "--cpu", cpu.id, "--board", board_id, "--gpu", GPU)
        assert code == 2 and "has no slot table in the catalog" in err


def test_the_catalog_has_the_boards_people_build_multi_gpu_machines_on():
    """Not an empty or shrinking list: at least 50 boards, dual-socket and x8/x8 desktop boards among them."""
    assert len(BOARDS) >= 50
    assert sum(1 for b in BOARDS if b.sockets == 2 and b.slots) >= 8
    # a desktop board whose second CPU slot splits the graphics lanes x8/x8
    split = [
        b
        for b in BOARDS
        if b.segment == "consumer" and any("x8x8" in (g.bifurcation or []) for g in b.lane_groups)
    ]
    assert len(split) >= 8


def test_a_cpu_no_board_takes_is_refused_with_the_way_to_add_its_board(cli, tmp_path):
    """A CPU whose family no catalog board lists is refused on a board of its socket, and the message says
    how a user whose board's BIOS runs it can plan anyway: a copy of the board's entry in their own catalog
    folder, its cpu_families extended; with that copy the same build plans."""
    import yaml

    from advisor.base.resources import bundled
    from advisor.base.yamlio import load_file, to_plain

    cpu = to_plain(load_file(bundled("catalog") / "cpus" / "amd-ryzen-threadripper-7980x.yaml"))
    cpu.update(
        id="my-new-tr", name="My New Threadripper", aliases=[], part_numbers=[], family="my-new-family"
    )
    only_cpu = tmp_path / "my-cpu"
    only_cpu.mkdir()
    (only_cpu / "cpu.yaml").write_text(yaml.safe_dump(cpu, allow_unicode=True))
    args = ("plan", "--catalog", str(only_cpu), "--cpu", "my-new-tr", "--board", "gigabyte-trx50-aero-d")
    code, _, err = cli(*args, "--gpu", f"{GPU}:2")
    assert code == 2
    assert "Gigabyte TRX50 AERO D does not take My New Threadripper (family my-new-family)" in err
    assert "no catalog board takes the my-new-family family yet" in err
    assert "--catalog DIR" in err and "add my-new-family to its cpu_families" in err

    # a second folder: the catalog of a folder is read once per process
    mine = tmp_path / "with-my-board"
    mine.mkdir()
    (mine / "cpu.yaml").write_text((only_cpu / "cpu.yaml").read_text())
    board = to_plain(load_file(bundled("catalog") / "boards" / "gigabyte-trx50-aero-d.yaml"))
    board["cpu_families"] = [*board["cpu_families"], "my-new-family"]
    (mine / "board.yaml").write_text(yaml.safe_dump(board, allow_unicode=True))
    code, out, err = cli("plan", "--catalog", str(mine), *args[3:], "--gpu", f"{GPU}:2", "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert len(plan["gpus"]) == 2 and not plan["unlinked"]


def test_a_cpu_another_board_takes_is_refused_with_those_boards_named(cli):
    """A Threadripper 7000 on a WRX90 board, which lists PRO parts only: the message names the TRX50 boards
    of the catalog that take it."""
    code, _, err = cli(
        "plan", "--cpu", "amd-ryzen-threadripper-7980x", "--board", "asus-pro-ws-wrx90e-sage-se"
    )
    assert code == 2
    takers = sorted(
        b.name
        for b in BOARDS
        if b.slots and b.socket == "sTR5" and b.cpu_families and "amd-threadripper-7000" in b.cpu_families
    )
    assert takers and f"or a board that takes this one: {', '.join(takers)}" in " ".join(err.split())
