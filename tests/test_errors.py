"""A user's mistake gets one clear message and exit code 2, never a traceback."""

from __future__ import annotations

import os

import pytest


def test_unknown_part_suggests_close_names(cli):
    code, out, err = cli(
        "plan", "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4909"
    )
    assert code == 2
    assert "no GPU in the catalog matches 'RTX 4909'" in err
    assert "did you mean" in err and "RTX 4090" in err
    assert "Traceback" not in err


def test_socket_mismatch_is_explained(cli):
    code, _, err = cli(
        "plan", "--cpu", "Ryzen 9 7950X", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090"
    )
    assert code == 2
    assert "socket AM5" in err and "LGA1700" in err


def test_more_cards_than_slots(cli):
    code, _, err = cli("plan", "--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:5")
    assert code == 2
    assert "5 cards" in err and "3 slots" in err


def test_malformed_yaml_points_at_the_line(cli, write):
    path = write("bad.yaml", "cpu: i9-14900K\nboard: [unclosed\ngpus:\n  - model: RTX 4090\n")
    code, _, err = cli("plan", str(path))
    assert code == 2
    assert f"{path}:" in err and "not valid YAML" in err


def test_unknown_key_in_build_names_file_line_and_field(cli, write):
    path = write(
        "typo.yaml", "cpu: i9-14900K\nboard: ROG Strix Z790-E\ngpus:\n  - model: RTX 4090\n    cnt: 2\n"
    )
    code, _, err = cli("plan", str(path))
    assert code == 2
    assert f"{path}:5: gpus[0].cnt: is not a known key" in err


def test_unknown_slot_lists_the_boards_slots(cli):
    code, _, err = cli("plan", "--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090@SLOT9")
    assert code == 2
    assert "no slot 'SLOT9'" in err and "PCIEX16(G5)" in err


def test_missing_build_file(cli, tmp_path):
    code, _, err = cli("plan", str(tmp_path / "nope.yaml"))
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "list"],
        ["catalog", "list"],
        ["plan", "examples/2x4090-z790-hero.yaml"],
        ["validate", "examples/quotes/taobao-14900k-dual-4090.txt"],
        ["plan", "examples/2x4090-z790-hero.yaml", "--json"],
    ],
)
def test_output_into_a_closed_pipe_ends_quietly(args):
    """`advisor rules list | head -1`: the reader goes away; advisor ends without a traceback. The pipe's
    read end is closed before advisor writes, so every write meets a gone reader, on any machine."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "advisor", *args], stdout=w, stderr=subprocess.PIPE, cwd=ROOT, timeout=120
        )
    finally:
        os.close(w)
    assert proc.stderr.decode() == ""  # no traceback, no "Exception ignored"
    # 141 (128 + SIGPIPE) from advisor's own output; 1 where rich draws the table and ends the same way
    assert proc.returncode in (1, 141)
