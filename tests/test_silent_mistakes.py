"""A user's mistake gets one clear message (file:line where there is a file), exit 2, never a traceback;
nothing wrong is accepted silently."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.procs import signal_validate

HERO = ["--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero"]
BUILD = ROOT / "examples" / "2x4090-z790-hero.yaml"
NCCL_J = ROOT / "tests" / "fixtures" / "tools" / "nccltests" / "tinygrad_6x4090_in_util_cu_json_layout.json"
NVB_J = ROOT / "tests" / "fixtures" / "tools" / "nvbandwidth" / "dcgm_1gpu_v0.5.json"
BIG = "9" * 5000  # past Python's 4,300-digit limit for int(str)


def _clear(code: int, err: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    assert err.startswith("advisor: error: ") or "error:" in err
    assert len(err) < 2000, "a message shows a huge number by its size, not all its digits"


def _build(write, tail: str, name: str = "b.yaml") -> Path:
    return write(
        name,
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n  - model: RTX 4090\n    count: 2\n" + tail,
    )


# ---------------------------------------------------------------- tracebacks


def test_a_gpu_count_beyond_its_range_names_the_flag_and_the_range(cli):
    code, _, err = cli("plan", *HERO, "--gpu", "RTX 4090:17")
    _clear(code, err)
    assert "--gpu 'RTX 4090:17'" in err and "count" in err and "from 1 to 16" in err and "(got 17)" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "0"])
def test_params_that_is_not_a_count_is_refused(cli, value):
    code, _, err = cli("workload", *HERO, "--gpu", "RTX 4090:2", "--train", "1b", f"--params={value}")
    _clear(code, err)
    assert "--params must be a parameter count from 1e5" in err


@pytest.mark.parametrize("value", ["1e400", "1e30"])
def test_a_train_count_beyond_any_model_is_refused(cli, value):
    code, _, err = cli("workload", *HERO, "--gpu", "RTX 4090:2", "--train", value)
    _clear(code, err)
    assert f"'{value}' is not a parameter count advisor models" in err


def test_a_5000_digit_number_in_a_build_is_refused_at_its_line(cli, write):
    path = _build(write, f"ram_gb: {BIG}\n")
    code, _, err = cli("plan", str(path))
    _clear(code, err)
    assert f"{path}:6: a 5000-digit number" in err


def test_1e400_in_a_build_is_refused_at_its_line_not_read_as_infinity(cli, write):
    path = _build(write, "psu_w: 1600\nram_gb: 1e400\n")
    code, _, err = cli("plan", str(path))
    _clear(code, err)
    assert f"{path}:7: 1e400 is too large a number" in err


@pytest.mark.parametrize(
    "name,text,line,words",
    [
        (
            "q.yaml",
            f"cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\nram_gb: {BIG}\n",
            3,
            # a number past Python's limit cannot fit a quote's line, which is refused first
            "this line is 5,008 characters long; a line of a quote is at most 4,096",
        ),
        (
            "q.json",
            '{"cpu": "i9-14900K",\n "ram_gb": ' + BIG + "}\n",
            2,
            "this line is 5,012 characters long; a line of a quote is at most 4,096",
        ),
        ("q.json", '{"cpu": "i9-14900K",\n "psu_w": NaN}\n', 2, "NaN is not a number"),
        ("q.json", '{"cpu": "i9-14900K",\n "psu_w": 1e309}\n', 2, "1e309 is too large a number"),
    ],
    ids=["yaml-5000-digits", "json-5000-digits", "json-nan", "json-1e309"],
)
def test_a_huge_or_non_finite_number_in_a_quote_is_refused_at_its_line(cli, write, name, text, line, words):
    path = write(name, text)
    code, _, err = cli("validate", str(path))
    _clear(code, err)
    assert f"{path}:{line}: {words}" in err


def test_a_huge_number_in_a_rules_file_is_refused_at_its_line(cli, write, tmp_path):
    write("rules/mine.yaml", f"kind: rules\nrules:\n  - id: X001\n    severity: {BIG}\n")
    code, _, err = cli("rules", "list", "--rules", str(tmp_path / "rules"))
    _clear(code, err)
    assert f"{tmp_path / 'rules' / 'mine.yaml'}:4: a 5000-digit number" in err


@pytest.mark.parametrize(
    "fixture,old,new,what",
    [
        (NCCL_J, '"bus_bw":24.58', '"bus_bw":1e309', "1e309 is too large a number"),
        (NCCL_J, '"bus_bw":24.58', '"bus_bw":' + "9" * 1000, "a 1000-digit number"),
        (NCCL_J, '"size":33554432', '"size":' + BIG, "a 5000-digit number"),
        (NCCL_J, '"time":2275.1', '"time":1e309', "1e309 is too large a number"),
        (NCCL_J, '"bus_bw":24.58', '"bus_bw":NaN', "NaN is not a number"),
        (NVB_J, '"CUDA Runtime Version" : 12070', '"CUDA Runtime Version" : ' + BIG, "a 5000-digit number"),
        (NVB_J, '"CUDA Runtime Version" : 12070', '"CUDA Runtime Version" : Infinity', "Infinity is not"),
    ],
    ids=[
        "nccl-1e309",
        "nccl-1000-digits",
        "nccl-5000-digits",
        "nccl-time-1e309",
        "nccl-nan",
        "nvb-5000-digits",
        "nvb-inf",
    ],
)
def test_tool_json_with_huge_or_non_finite_numbers_is_a_parse_problem_at_the_line(
    cli, write, fixture, old, new, what
):
    text = fixture.read_text()
    assert old in text
    path = write("tool.json", text.replace(old, new, 1))
    line = text[: text.index(old)].count("\n") + 1
    tool = "nccl-tests" if fixture == NCCL_J else "nvbandwidth"
    code, _, err = cli("import", tool, str(path))
    _clear(code, err)
    assert f"{path}:{line}: {what}" in err


def test_a_huge_number_in_a_measurement_file_is_refused_at_its_line(cli, write):
    path = write(
        "m.json", '{"schema_version": 1,\n "source": {"tool": "x", "file": "y"},\n "results": ' + BIG + "}\n"
    )
    code, _, err = cli("compare", str(BUILD), str(path))
    _clear(code, err)
    assert f"{path}:3: a 5000-digit number" in err


# ---------------------------------------------------------------- every number has a sane range


def test_a_huge_ram_figure_in_a_quote_says_the_range(cli, write):
    path = write(
        "q.yaml", "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n  - model: RTX 4090\nram_gb: 1e200\n"
    )
    code, _, err = cli("validate", str(path))
    _clear(code, err)
    assert f"{path}:5: ram: must be GB of RAM from 1 to 65536 (got 1e+200)" in err


def test_a_huge_price_in_a_quote_is_refused_not_read_as_one_dollar(cli, write):
    path = write(
        "q.yaml",
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n  - {model: RTX 4090, count: 2, price: 1e200}\n",
    )
    code, _, err = cli("validate", str(path))
    _clear(code, err)
    assert f"{path}:4: a price must be from 0 to 100,000,000" in err


def test_a_huge_max_sockets_in_a_user_catalog_part_says_the_range(cli, tmp_path):
    source = (ROOT / "catalog" / "cpus" / "intel-core-i9-14900k.yaml").read_text()
    folder = tmp_path / "mine"
    folder.mkdir()
    lines = source.splitlines()
    at = next(i for i, t in enumerate(lines) if t.startswith("max_sockets:"))
    lines[at] = "max_sockets: " + "9" * 50
    lines = [('id: "my-14900k"' if t.startswith("id:") else t) for t in lines]
    (folder / "cpu.yaml").write_text("\n".join(lines) + "\n")
    code, _, err = cli("plan", str(BUILD), "--catalog", str(folder))
    _clear(code, err)
    assert f"{folder / 'cpu.yaml'}:{at + 1}: max_sockets: must be from 1 to 8 (got a 50-digit number)" in err


@pytest.mark.parametrize(
    "tail,line,words",
    [
        ("psu_w: 99999999\n", 6, "psu_w: must be from 100 to 20000 (got 99999999)"),
        ("ram_gb: 1e200\n", 6, "ram_gb: must be from 1 to 65536 (got 1e+200)"),
        ("dimms: 100000\n", 6, "dimms: must be from 1 to 128"),
    ],
    ids=["psu_w", "ram_gb", "dimms"],
)
def test_a_build_number_outside_its_range_says_the_range(cli, write, tail, line, words):
    path = _build(write, tail)
    code, _, err = cli("plan", str(path))
    _clear(code, err)
    assert f"{path}:{line}: {words}" in err


# ---------------------------------------------------------------- accepted without a word


def test_an_nvlink_bridge_to_gpu_minus_one_is_refused_at_its_line(cli, write):
    path = _build(write, "nvlink: [[-1, 0]]\n")
    code, _, err = cli("plan", str(path))
    _clear(code, err)
    assert f"{path}:6: nvlink[0][0]: must be at least 0 (got -1)" in err


def test_an_nvlink_bridge_to_a_gpu_the_build_lacks_names_the_line(cli, write):
    path = _build(write, "nvlink:\n  - [0, 1]\n  - [1, 2]\n")
    code, _, err = cli("plan", str(path))
    _clear(code, err)
    assert f"{path}:8: nvlink[1]: bridge [1, 2] names GPU 2, but the build has 2 GPU(s): GPUs 0 to 1" in err


@pytest.mark.parametrize("flag", ["--seq", "--batch", "--accum", "--gpus", "--prompt", "--gen"])
@pytest.mark.parametrize("value", ["0", "-3"])
def test_a_count_flag_of_zero_or_less_is_an_error_even_without_a_job(cli, flag, value):
    code, _, err = cli("plan", str(BUILD), flag, value)
    _clear(code, err)
    assert f"{flag} must be at least 1 (got {value})" in err


def test_a_count_flag_beyond_its_range_is_an_error(cli):
    code, _, err = cli("workload", str(BUILD), "--train", "1b", "--seq", "9" * 30)
    _clear(code, err)
    assert "--seq must be at most 10,000,000 (got a 30-digit number)" in err


def test_a_csv_row_with_an_unclosed_quote_is_an_error_at_its_line(cli, write):
    path = write(
        "broken.csv",
        "Item,Description,Qty,Unit Price,Total\n"
        '1,"Intel Core i9-14900K,1,$549.00,$549.00\n'
        "2,ASUS ROG Maximus Z790 Hero,1,$449.99,$449.99\n"
        '3,NVIDIA GeForce RTX 4090,2,"$1,599.00","$3,198.00"\n',
    )
    code, _, err = cli("validate", str(path))
    _clear(code, err)
    assert f'{path}:2: this row opens a quote (") that it never closes' in err


def test_a_csv_row_with_a_stray_quote_after_a_quoted_cell_is_an_error(cli, write):
    path = write(
        "broken.csv",
        "Item,Description,Qty,Unit Price\n"
        '1,"Intel Core i9-14900K"x,1,$549.00\n'
        "2,ASUS ROG Maximus Z790 Hero,1,$449.99\n",
    )
    code, _, err = cli("validate", str(path))
    _clear(code, err)
    assert f"{path}:2: this row's quotes are not valid CSV" in err


CYRILLIC_T = "\u0422"  # looks like a Latin T


def test_a_cyrillic_lookalike_in_a_build_file_is_refused_with_the_latin_spelling(cli, write):
    path = write(
        "b.yaml", f"cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n  - model: R{CYRILLIC_T}X 4090\n"
    )
    code, _, err = cli("plan", str(path))
    _clear(code, err)
    assert f"{path}:4: gpus[0].model:" in err
    assert "Cyrillic letters that look Latin" in err and "CYRILLIC CAPITAL LETTER TE" in err
    assert 'write it in Latin letters, "RTX 4090"' in err


def test_a_greek_lookalike_in_a_flag_is_refused(cli):
    code, _, err = cli("plan", "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090")
    assert code == 0
    code, _, err = cli(
        "plan", "--cpu", "i9-14900K", "--board", "R\u039fG Maximus Z790 Hero", "--gpu", "RTX 4090"
    )
    _clear(code, err)
    assert "Greek letters that look Latin" in err and '"ROG Maximus Z790 Hero"' in err


def test_catalog_show_refuses_a_lookalike_name(cli):
    code, _, err = cli("catalog", "show", f"R{CYRILLIC_T}X 4090")
    _clear(code, err)
    assert "Cyrillic letters that look Latin" in err


def test_a_cyrillic_lookalike_in_a_quote_is_read_and_said(cli, write):
    path = write(
        "q.txt",
        f"Intel Core i9-14900K\nASUS ROG Maximus Z790 Hero\n2x NVIDIA GeForce R{CYRILLIC_T}X 4090\nPSU 1600W\n",
    )
    code, out, err = cli("validate", str(path), "--json")
    assert code in (0, 1), err
    data = json.loads(out)
    line = next(x for x in data["quote"]["lines"] if x["line"] == 3)
    assert line["parts"][0]["part_id"] == "nvidia-rtx-4090"
    assert line["parts"][0]["how"].startswith(
        "read as NVIDIA GeForce RTX 4090: the name has Cyrillic letters"
    )
    assert any(n.startswith("line 3: read as NVIDIA GeForce RTX 4090") for n in data["quote"]["notes"])
    code, out, _ = cli("validate", str(path))
    assert (
        "note: line 3: read as NVIDIA GeForce RTX 4090: the name has Cyrillic letters that look Latin"
        in " ".join(out.split())
    )


def test_a_bad_measurement_file_names_commands_that_exist(cli, write):
    path = write(
        "m.json",
        json.dumps(
            {
                "schema_version": 1,
                "source": {"tool": "x", "file": "y"},
                "results": [{"metric": "nope", "tool": "x"}],
            }
        ),
    )
    code, _, err = cli("compare", str(BUILD), str(path))
    _clear(code, err)
    assert "advisor measure`" not in err and "`advisor import`" in err


def test_no_hint_anywhere_names_a_command_that_does_not_exist():
    from advisor.cli.parser import parser

    commands = set(parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    import re

    for path in (ROOT / "advisor").rglob("*.py"):
        for m in re.finditer(r"`advisor ([a-z][a-z-]*)", path.read_text(encoding="utf-8")):
            assert m.group(1) in commands, f"{path}: names `advisor {m.group(1)}`, which is no command"


# ---------------------------------------------------------------- Ctrl-C


def _interrupt(after_line: str, wait: float) -> tuple[int, str]:
    return signal_validate(after_line, signal.SIGINT, wait)


def test_ctrl_c_while_advisor_loads_its_modules_is_one_line_and_130():
    # right after the package itself is imported: advisor.main, the parser and pydantic are still loading
    code, err = _interrupt("advisor", 0.0)
    assert code == 130, err
    assert err.strip() == "advisor: interrupted"


def test_ctrl_c_while_a_command_runs_says_interrupted_and_130():
    # a second after advisor.main is loaded: the command runs (it waits on stdin, held open)
    code, err = _interrupt("advisor.main", 1.0)
    assert code == 130, err
    assert err.strip() == "advisor: interrupted"
