"""A null in the catalog never becomes a zero in a figure: an unknown stays unknown, with the missing value
named, and the verdict says what could not be judged.

Two bridged H200 NVL cards (the catalog has no link count or rate for their bridge) once read "NVLink on
every pair" with an all-reduce of 0.0 GB/s, and a row-split job on them a time to first token of three
billion seconds. The sweep below sets each model-relevant field of a part to null in turn, in a catalog
folder of the user's own (`--catalog DIR`, as a user overrides a part), and runs `plan` and `workload`
through the CLI: no figure that the full entry gives comes out 0, infinite, NaN or a thousand-fold off
(the mark of a stand-in like 1e-9), and a command that cannot answer says which value it lacks."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from advisor.model.catalog.store import load_catalog
from tests.conftest import ROOT, run_cli

H200_PAIR = """name: 2x H200 NVL bridged
topology:
  sockets:
    - vendor: amd
      root_ports:
        - {id: "00:01.1", host_bridge: "00", children: [{gpu: "GPU"}]}
        - {id: "00:03.1", host_bridge: "00", children: [{gpu: "GPU"}]}
nvlink: [[0, 1]]
"""

# the catalog's own prose and identity: not figures a formula reads
NOT_MODEL = {
    "id",
    "kind",
    "name",
    "aliases",
    "part_numbers",
    "vendor",
    "sources",
    "verified",
    "unverified_fields",
    "evidence",
    "notes",
    "price_usd",
    "patched_driver_url",
    "card_of",
    "bridge",
    "memory_type",
    "type",
}

JOBS = [
    ("plan",),
    ("workload", "--train", "llama-3-8b", "--qlora"),
    ("workload", "--infer", "llama-3-8b", "--strategy", "tp"),
    ("workload", "--infer", "llama-3-8b", "--strategy", "row"),
]


def _numbers(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _numbers(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, x


def _leaves(data: dict, path: tuple = ()):
    """Every scalar field, also inside lists of mappings (a board's slots and lane groups)."""
    for key, value in data.items():
        if key in NOT_MODEL:
            continue
        if isinstance(value, dict):
            yield from _leaves(value, (*path, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    yield from _leaves(item, (*path, key, i))
        elif value is not None:
            yield (*path, key)


def _bad_figures(full: dict, nulled: dict) -> list[str]:
    bad = []
    before = dict(_numbers(full))
    for path, v in _numbers(nulled):
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            bad.append(f"{path} = {v}")
            continue
        was = before.get(path)
        if not was:
            continue
        if v == 0:
            bad.append(f"{path}: {was} -> 0")
        elif not 1e-3 < abs(v / was) < 1e3:
            bad.append(f"{path}: {was} -> {v}")
    return bad


def _sweep(capsys, tmp_path, build_file, part_id: str) -> int:
    """Null each field of the part in turn; returns how many fields were nulled (the catalog refuses a null
    in a required field at load, with its file:line, which is the other acceptable answer)."""
    part = load_catalog().get(part_id).model_dump(mode="json")
    full = {}
    for job in JOBS:
        code, out, err = run_cli(capsys, job[0], str(build_file), *job[1:], "--json")
        assert code == 0, err
        full[job] = json.loads(out)
    nulled = 0
    problems = []
    for path in _leaves(part):
        data = json.loads(json.dumps(part))
        at = data
        for key in path[:-1]:
            at = at[key]
        at[path[-1]] = None
        folder = tmp_path / "-".join(map(str, path))
        folder.mkdir(parents=True)
        (folder / f"{part_id}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
        field = ".".join(f"[{k}]" if isinstance(k, int) else k for k in path).replace(".[", "[")
        required = False
        for job in JOBS:
            code, out, err = run_cli(
                capsys, job[0], str(build_file), *job[1:], "--json", "--catalog", str(folder)
            )
            assert "Traceback" not in err, f"{field} null, {' '.join(job)}: {err}"
            if code == 2 and f"{part_id}.yaml:" in err:
                required = True  # the catalog refuses a null in this field, at its file:line
                break
            if code == 2:
                # nothing else can be said: the error names the value the catalog lacks
                assert field in err and "unknown" in err, f"{field} null, {' '.join(job)}: {err}"
                continue
            assert code == 0, f"{field} null, {' '.join(job)}: exit {code} {err}"
            problems += [
                f"{field} null, {' '.join(job)}: {b}" for b in _bad_figures(full[job], json.loads(out))
            ]
        nulled += not required
    assert not problems, "\n".join(problems[:20])
    return nulled


def test_each_gpu_field_nulled_in_turn_leaves_no_zero_figure(capsys, tmp_path):
    assert _sweep(capsys, tmp_path, ROOT / "examples" / "2x4090-z790-hero.yaml", "nvidia-rtx-4090") >= 8


def test_each_cpu_and_board_field_nulled_in_turn_leaves_no_zero_figure(capsys, tmp_path):
    build = ROOT / "examples" / "2x4090-z790-hero.yaml"
    assert _sweep(capsys, tmp_path / "cpu", build, "intel-core-i9-14900k") >= 8
    assert _sweep(capsys, tmp_path / "board", build, "asus-rog-maximus-z790-hero") >= 12


def test_each_field_of_a_bridged_card_nulled_in_turn_leaves_no_zero_figure(capsys, tmp_path, write):
    build = write("pair.yaml", H200_PAIR.replace("GPU", "nvidia-h100-nvl"))
    assert _sweep(capsys, tmp_path, build, "nvidia-h100-nvl") >= 8


@pytest.fixture
def h200(write):
    return write("h200.yaml", H200_PAIR.replace("GPU", "nvidia-h200-nvl"))


def test_a_bridge_of_unknown_rate_reads_unknown_in_plan_not_zero(cli, h200):
    code, out, err = cli("plan", str(h200), "--json")
    assert code == 0, err
    plan = json.loads(out)
    ar = plan["allreduce"]
    assert ar["busbw_gbps"] is None
    assert "NVIDIA H200 NVL: nvlink.links" in ar["unknown"]
    assert "as far as it could be judged" in plan["verdict"]
    assert "all-reduce is unknown (not in the catalog: NVIDIA H200 NVL" in plan["verdict"]
    # the rule that needs the all-reduce says it was not judged, and the bridge finding reads "unknown"
    (cat,) = [f for f in plan["findings"] if f["id"] == "CAT002"]
    assert "WL001" in cat["message"]
    (nvl,) = [f for f in plan["findings"] if f["id"] == "NVL003"]
    assert "unknown GB/s one way" in nvl["message"] and "0.0" not in nvl["message"]
    code, text, _ = cli("plan", str(h200))
    assert code == 0 and "0.0 GB/s" not in text
    assert "All-reduce bus bandwidth (2 GPUs): unknown (not in the catalog: NVIDIA H200 NVL:" in text


def test_a_row_split_over_a_bridge_of_unknown_rate_keeps_its_one_gpu_figures(cli, h200):
    args = ("workload", str(h200), "--infer", "deepseek-r1-distill-qwen-32b", "--strategy", "row")
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    w = json.loads(out)
    one, two = w["configurations"]
    assert one["tokens_per_s"] > 0 and one["ttft_s"] > 0  # one GPU needs no bridge: known
    assert two["tokens_per_s"] is None and two["ttft_s"] is None and two["split"]["compute"] is None
    assert "NVIDIA H200 NVL: nvlink.gbps_per_direction" in two["unknown"]
    assert w["speedup"] is None and w["bottleneck"].startswith("Not judged")
    # the strategy that needs no interconnect is still predicted; the others read unknown, not 0
    by = {s["strategy"]: s for s in w["strategies"]}
    assert by["replicas"]["tokens_per_s"] > 0 and by["tp"]["tokens_per_s"] is None
    code, text, _ = cli(*args)
    assert code == 0
    assert "Speed-up: unknown" in text and "x one GPU" not in text.split("Speed-up")[1].split("\n")[0]
    assert "e+" not in text  # no 3,103,784,960 s from a 1e-9 GB/s stand-in


def test_compare_sets_a_measured_all_reduce_against_an_unknown_prediction_without_a_ratio(cli, h200, write):
    """A measured all-reduce over a bridge whose rate the catalog lacks: the measured figure is shown, the
    prediction reads unknown, and nothing is flagged from a ratio to a stand-in."""
    nccl = write(
        "nccl.txt",
        "# nThread 1 nGpus 1 minBytes 33554432 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20\n"
        "# Using devices\n"
        "#   Rank  0 Pid 195 on host device  0 [0x01] NVIDIA H200 NVL\n"
        "#   Rank  1 Pid 196 on host device  1 [0x02] NVIDIA H200 NVL\n"
        "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "  1073741824     268435456     float     sum   3100.0  346.37  346.37  0e+00   3100.0  346.37  346.37  0e+00\n"
        "# Avg bus bandwidth    : 346.37\n",
    )
    code, out, err = cli("compare", str(h200), str(nccl), "--json")
    assert code in (0, 1), err
    (row,) = [r for r in json.loads(out)["rows"] if r["metric"] == "busbw_gbps"]
    assert (
        row["predicted"] is None and row["measured"] == 346.37 and row["ratio"] is None and not row["flagged"]
    )
    code, text, _ = cli("compare", str(h200), str(nccl))
    (line,) = [x for x in text.splitlines() if x.startswith("busbw_gbps")]
    assert line.split()[3:] == ["unknown", "346.37", "not", "judged"]
