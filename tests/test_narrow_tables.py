"""The CLI's tables on an 80-column terminal: no line is wider than the terminal, prose
(a finding, a pair's why, a part's name) is not squeezed into a column one word per line, and an id the user
types next (a part id, a case id) is printed whole. On a wide terminal the same commands keep the table."""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.conftest import ROOT

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
TREE = str(ROOT / "examples" / "explicit-tree-4x6000ada.yaml")
EIGHT = str(ROOT / "tests" / "fixtures" / "builds" / "8x-rtxpro6000-esc8000a.yaml")
TOOLS = ROOT / "tests" / "fixtures" / "tools"
COMPARE = [
    "compare",
    HERO,
    str(TOOLS / "p2p" / "kinghorn_2x4090_update_bidi_only.txt"),
    str(TOOLS / "topo" / "club3090_2x5090_phb_tabs.txt"),
]

COMMANDS = {
    "plan": ["plan", HERO],
    "plan-explain": ["plan", "--explain", HERO],
    "plan-tree": ["plan", TREE],
    "plan-eight": ["plan", EIGHT],
    "plan-train": ["plan", HERO, "--train", "1.3b"],
    "accuracy": ["accuracy"],
    "accuracy-workload": ["accuracy", "--workload"],
    "catalog-list": ["catalog", "list"],
    "catalog-list-gpu": ["catalog", "list", "--kind", "gpu"],
    "rules-list": ["rules", "list"],
    "rules-facts": ["rules", "facts"],
    "workload-train": ["workload", HERO, "--train", "1.3b"],
    "workload-train-explain": ["workload", HERO, "--train", "1.3b", "--explain"],
    "workload-infer": ["workload", HERO, "--infer", "8b"],
    # a strategy that cannot run says why: prose that used to fill a column one word per line
    "workload-skipped-strategy": ["workload", TREE, "--infer", "8b", "--gpus", "3", "--strategy", "pp"],
    "compare": COMPARE,
    "validate-email": ["validate", str(ROOT / "examples" / "quotes" / "2x4090-z790-hero-email.txt")],
    "validate-csv": ["validate", str(ROOT / "examples" / "quotes" / "strix-z790e-chipset-slot.csv")],
    "validate-zh": [
        "validate",
        str(ROOT / "tests" / "fixtures" / "quotes" / "33-wechat-table-4x6000ada-wrx90e-1600w.txt"),
    ],
}
BOX = re.compile(r"[\u2500-\u257f]")  # rich's box-drawing characters


@pytest.fixture
def columns(monkeypatch):
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    monkeypatch.delenv("ADVISOR_RULES", raising=False)

    def _set(n: int) -> None:
        monkeypatch.setenv("COLUMNS", str(n))

    return _set


def _run(cli, *args: str) -> str:
    code, out, err = cli(*args)
    assert code in (0, 1), err  # compare exits 1 when a figure is off
    return out


def _one_word_run(text: str) -> int:
    """The longest run of consecutive lines that hold one short word each (box characters aside): prose
    squeezed into a narrow column. A list of long ids one per line (a constant's sources) is not that."""
    best = run = 0
    for line in text.splitlines():
        words = BOX.sub(" ", line).split()
        run = run + 1 if len(words) == 1 and len(words[0]) < 16 else 0
        best = max(best, run)
    return best


def _flat(text: str) -> str:
    return " ".join(BOX.sub(" ", text).split())


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_no_line_is_wider_than_80_columns(cli, columns, args):
    columns(80)
    out = _run(cli, *args)
    wide = [line for line in out.splitlines() if len(line) > 80]
    assert not wide, f"{len(wide)} line(s) over 80 columns, e.g. {wide[0]!r}"
    assert _one_word_run(out) < 5, "text wrapped one word per line"
    assert "…" not in out  # nothing ellipsised


@pytest.mark.parametrize("width", [40, 80, 120, 200])
@pytest.mark.parametrize("kind", [None, "gpu"])
def test_catalog_list_prints_every_id_whole(cli, columns, width, kind):
    columns(width)
    extra = ["--kind", kind] if kind else []
    ids = [p["id"] for p in json.loads(_run(cli, "catalog", "list", "--json", *extra))]
    assert ids
    out = _run(cli, "catalog", "list", *extra)
    words = set(BOX.sub(" ", out).split())
    missing = [i for i in ids if i not in words]
    assert not missing, f"ids cut or missing at {width} columns: {missing}"
    assert "…" not in out


def test_accuracy_prints_every_case_id_whole_at_80(cli, columns):
    columns(80)
    cases = {r["case"] for r in json.loads(_run(cli, "accuracy", "--json"))["rows"]}
    words = set(BOX.sub(" ", _run(cli, "accuracy")).split())
    assert cases <= words, sorted(cases - words)
    cases = {r["case"] for r in json.loads(_run(cli, "accuracy", "--workload", "--json"))["rows"]}
    words = set(BOX.sub(" ", _run(cli, "accuracy", "--workload")).split())
    assert cases <= words, sorted(cases - words)  # no longer cut at 58 characters


def test_plan_findings_and_why_read_as_text_at_80(cli, columns, plan_json):
    columns(80)
    plan = plan_json(HERO)
    out = _run(cli, "plan", HERO)
    flat = _flat(out)
    lines = out.splitlines()
    for f in plan["findings"]:
        assert _flat(f"{f['id']}: {f['message']}") in flat  # whole, in order
        start = " ".join(f"{f['id']}: {f['message']}".split()[:4])
        assert any(start in line for line in lines), f"{f['id']}'s message does not start on one line"
    for p in plan["pairs"]:
        why = p["p2p_reason"] if not p["p2p"] else p["nccl_reason"]
        assert _flat(why) in flat
        # the why goes below its row, indented, and its first words stay together
        assert any(line.startswith(" ") and "why: " + " ".join(why.split()[:4]) in line for line in lines)
    assert _one_word_run(out) < 5


def test_before_the_fix_the_squeezed_column_would_fail_the_check():
    """The one-word-run check catches what the issue reported: a why column 7 characters wide."""
    squeezed = "\n".join(
        f"│ 0-1 │ {w:7} │" if i == 0 else f"│     │ {w:7} │" for i, w in enumerate("a b c d e f".split())
    )
    assert _one_word_run(squeezed) >= 5


@pytest.mark.parametrize(
    "args,headers",
    [
        (["plan", HERO], ["GPU", "model", "slot", "link", "H2D", "limit"]),
        (["plan", HERO], ["pair", "path", "CUDA P2P", "NCCL uses", "latency us", "why"]),
        (["accuracy"], ["case", "metric", "where", "variant", "measured", "predicted", "error"]),
        (["catalog", "list"], ["kind", "id", "name", "key specs", "verified"]),
        (["catalog", "list", "--kind", "gpu"], ["kind", "id", "name", "key specs", "verified"]),
        (["accuracy", "--workload"], ["case", "GPUs", "measured", "predicted", "error"]),
        (
            ["workload", TREE, "--infer", "8b", "--gpus", "3", "--strategy", "pp"],
            ["strategy", "tokens/s", "time to first token", "memory per GPU", "why not"],
        ),
    ],
)
def test_at_200_columns_the_table_layout_stays(cli, columns, args, headers):
    columns(200)
    out = _run(cli, *args)
    header = [line for line in out.splitlines() if line.startswith("┃") and all(h in line for h in headers)]
    assert header, f"no boxed header row with {headers}"
    assert not [line for line in out.splitlines() if len(line) > 200]


def test_at_200_columns_a_why_stays_in_its_row(cli, columns, plan_json):
    columns(200)
    plan = plan_json(HERO)
    out = _run(cli, "plan", HERO)
    for p in plan["pairs"]:
        why = p["p2p_reason"] if not p["p2p"] else p["nccl_reason"]
        assert any(
            line.startswith("│") and f"{p['a']}-{p['b']}" in line and why in line for line in out.splitlines()
        )


def test_at_80_columns_the_narrow_layout_is_used(cli, columns):
    """80 columns is too narrow for these tables boxed: they stack, prose below each row."""
    columns(80)
    out = _run(cli, "plan", HERO)
    assert "┃ pair" not in out and re.search(r"^pair +path +CUDA P2P", out, re.M)
    assert re.search(r"^ +why: ", out, re.M) and re.search(r"^ +limit: ", out, re.M)
    out = _run(cli, "catalog", "list")
    assert re.search(r"^kind +id +verified$", out, re.M)


def test_output_into_a_pipe_is_laid_out_for_80_columns_whatever_the_terminal(cli, monkeypatch):
    """Without $COLUMNS and with stdout not a terminal, the width is 80: the same file on every machine."""
    monkeypatch.delenv("COLUMNS", raising=False)

    def not_a_terminal(*_):
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", not_a_terminal)
    first = _run(cli, "plan", HERO)
    assert first == _run(cli, "plan", HERO)
    assert max(len(line) for line in first.splitlines()) <= 80
    monkeypatch.setenv("COLUMNS", "80")
    assert _run(cli, "plan", HERO) == first
