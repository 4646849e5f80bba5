"""The reader registry, tool detection and the measurement file format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.measure import METRICS, TOOLS, Measurement, Result, detect, parse

FIXTURES = Path(__file__).parent / "fixtures" / "tools"
FOLDER_TOOL = {
    "nvbandwidth": "nvbandwidth",
    "p2p": "p2p",
    "nccltests": "nccl-tests",
    "topo": "topo",
    "smiq": "smi-q",
    "lspci": "lspci",
    "topo_p2p": "topo-p2p",
    "nccl_topo": "nccl-topo",
    "query_gpu": "query-gpu",
    "bandwidthtest": "bandwidthtest",
    "cmdline": "cmdline",
    "nccl_log": "nccl-log",
}
# files kept in another tool's folder on purpose: the topo -p2p matrix in topo/ checks that the
# topo -m reader refuses it by name; detection rightly sends it to the topo-p2p reader
OTHER_TOOL = {"topo/valdemardi_4x3090_p2p_read.txt": "topo-p2p"}
ALL_FILES = sorted(p for p in FIXTURES.glob("*/*") if p.is_file())


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_is_detected_as_its_tool(path: Path) -> None:
    expected = OTHER_TOOL.get(f"{path.parent.name}/{path.name}", FOLDER_TOOL[path.parent.name])
    assert detect(path.read_text(encoding="utf-8")) == expected


def test_auto_reads_like_the_named_tool() -> None:
    text = (FIXTURES / "p2p" / "kinghorn_2x4090_driver525_cannot_access.txt").read_text()
    assert parse("auto", text, "k.txt").model_dump() == parse("p2p", text, "k.txt").model_dump()


def test_unknown_tool_and_undetectable_text() -> None:
    with pytest.raises(
        UserError,
        match="unknown tool 'iperf'.*nvbandwidth, p2p, nccl-tests, topo, smi-q, lspci, topo-p2p, "
        "query-gpu, bandwidthtest, nccl-topo, cmdline, nccl-log, auto",
    ):
        parse("iperf", "x", "f.txt")
    with pytest.raises(UserError, match="f.txt: could not tell which tool wrote this file"):
        parse("auto", "hello world\n", "f.txt")
    with pytest.raises(UserError, match="the file is empty"):
        parse("auto", "", "f.txt")
    assert TOOLS == (
        "nvbandwidth",
        "p2p",
        "nccl-tests",
        "topo",
        "smi-q",
        "lspci",
        "topo-p2p",
        "query-gpu",
        "bandwidthtest",
        "nccl-topo",
        "cmdline",
        "nccl-log",
    )
    # the CLI lists the tools itself (importing every reader at start-up would slow every command)
    from advisor.cli.parser import parser

    imp = next(
        a for a in parser()._subparsers._group_actions[0].choices["import"]._actions if a.dest == "tool"
    )
    assert list(imp.choices) == [*TOOLS, "auto"]


def test_measurement_round_trips_through_a_file(tmp_path: Path) -> None:
    text = (FIXTURES / "nccltests" / "tinygrad_6x4090_single_size.txt").read_text()
    m = parse("nccl-tests", text, "allreduce.txt")
    target = tmp_path / "sub" / "m.json"
    m.save(target)
    assert Measurement.from_file(target) == m
    data = json.loads(target.read_text())
    assert data["schema_version"] == 1 and data["source"] == {"tool": "nccl-tests", "file": "allreduce.txt"}


def test_bad_measurement_file_names_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "source": {"tool": "p2p", "file": "x"},
                "results": [{"metric": "uni_gbps", "a": 0, "b": 1, "value": "fast", "tool": "p2p"}],
            }
        )
    )
    with pytest.raises(UserError, match=r"bad.json: results.0.: uni_gbps must be a number"):
        Measurement.from_file(bad)
    bad.write_text("{")
    with pytest.raises(UserError, match=r"bad.json:1: this is not valid JSON"):
        Measurement.from_file(bad)
    with pytest.raises(UserError, match="no such file"):
        Measurement.from_file(tmp_path / "missing.json")


def test_result_rules() -> None:
    assert "bf16_tflops" in METRICS and "path" in METRICS
    assert Result(metric="link_gen", gpu=0, value=4.0, tool="t").value == 4
    for bad in (
        {"metric": "p2p", "value": 1},
        {"metric": "path", "value": 3.0},
        {"metric": "uni_gbps", "value": float("nan")},
        {"metric": "uni_gbps", "value": -1.0},
        {"metric": "uni_gbps", "value": 1.0, "a": 0},
        {"metric": "speed", "value": 1.0},
    ):
        with pytest.raises(ValueError):
            Result(tool="t", **bad)


def test_core_does_not_import_torch_or_textual() -> None:
    code = (
        "import sys, advisor.measure, advisor.measure.parsers; "
        "print(sorted(m for m in ('torch', 'textual') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert out.stdout.strip() == "[]"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_detect_never_fails(text: str) -> None:
    assert detect(text) in (None, *TOOLS)
