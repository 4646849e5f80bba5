"""Headlines say what a job will use, and a part name is never silently read as another model.

- The first line of `plan` on a WRX90E with four RTX 6000 Ada said "P2P on every pair" while NCCL, which
  a training job's all-reduce runs on, goes through host memory on every pair at its default level.
- `--cpu i9-14900KS` became the i9-14900K without a word: a name whose model number (a digit, or a
  suffix as KS, Ti, Super, D) differs from the nearest catalog name is refused, with "did you mean";
  a typo in a word (`--board "Z790 Herro"`) is read as the catalog's name and said on stderr.

Every case runs `python -m advisor` as a user does and reads what the user sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

HERO_PARTS = ["--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, COLUMNS="100"),
    )


def flat(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------------------ headlines


def test_the_wrx90e_headline_says_nccl_goes_through_host_memory(tmp_path):
    build = tmp_path / "wrx90e.yaml"
    build.write_text(
        "name: 4x RTX 6000 Ada on a WRX90E\n"
        "cpu: Threadripper PRO 7975WX\n"
        "board: Pro WS WRX90E-SAGE SE\n"
        "gpus:\n"
        "  - {model: RTX 6000 Ada, count: 4}\n"
    )
    done = run("plan", str(build))
    assert done.returncode in (0, 1), done.stderr
    head = flat(done.stdout.split("\n\n")[0].split("ASUS Pro WS WRX90E-SAGE SE")[0])
    assert head.startswith("A good multi-GPU build: every GPU at its full link, CUDA P2P on every pair, but")
    assert "NCCL uses host memory (SHM) on every pair by default" in head
    assert "NCCL_P2P_LEVEL=SYS" in head
    # the same build told to let NCCL use P2P: the headline says P2P, and nothing of host memory
    done = run("plan", str(build), "--nccl-p2p-level", "SYS", "--json")
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict.startswith("A good multi-GPU build: every GPU at its full link, P2P on every pair")
    assert "SHM" not in verdict


# ----------------------------------------------------------------- a changed model number is refused


@pytest.mark.parametrize(
    "flag,name,meant",
    [
        ("--cpu", "i9-14900KS", "Intel Core i9-14900K"),
        ("--cpu", "i9-14900", "Intel Core i9-14900K"),
        ("--gpu", "RTX 4090 Super:2", "NVIDIA GeForce RTX 4090"),
    ],
)
def test_a_name_with_another_model_number_is_refused_with_did_you_mean(flag, name, meant):
    args = {"--cpu": ["--cpu", "i9-14900K"], "--gpu": ["--gpu", "RTX 4090:2"]}
    parts = ["--board", "ROG Maximus Z790 Hero", *args["--cpu"], *args["--gpu"]]
    i = parts.index(flag)
    parts[i + 1] = name
    done = run("plan", *parts)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    err = flat(done.stderr)
    assert "another model number" in err and "did you mean:" in err and meant in err
    assert flag in err  # where the name came from


def test_the_ks_refusal_names_the_file_and_line_of_a_build_file(tmp_path):
    build = tmp_path / "ks.yaml"
    build.write_text(
        "name: mine\ncpu: i9-14900KS\nboard: ROG Maximus Z790 Hero\ngpus:\n  - {model: RTX 4090, count: 2}\n"
    )
    done = run("plan", str(build))
    assert done.returncode == 2 and done.stdout == ""
    err = flat(done.stderr)
    assert f"{build}:2: cpu: no CPU in the catalog is 'i9-14900KS'" in err
    assert "(14900K, not 14900KS)" in err
    assert "did you mean: Intel Core i9-14900K (intel-core-i9-14900k)" in err


def test_a_gpu_model_in_a_build_file_is_refused_at_its_line(tmp_path):
    build = tmp_path / "super.yaml"
    build.write_text(
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n  - model: RTX 4090 Super\n    count: 2\n"
    )
    done = run("workload", str(build), "--train", "1.3b")
    assert done.returncode == 2
    assert f"{build}:4: gpus[0].model: no GPU in the catalog is 'RTX 4090 Super'" in flat(done.stderr)


# ------------------------------------------------------------------------ a typo in words is read


def test_a_typo_in_a_word_is_read_and_said_on_stderr():
    done = run("plan", "--cpu", "i9-14900K", "--board", "Z790 Herro", "--gpu", "RTX 4090:2", "--json")
    assert done.returncode in (0, 1), done.stderr
    plan = json.loads(done.stdout)  # stdout stays JSON: the note is on stderr
    assert plan["board"] == "asus-rog-maximus-z790-hero"
    assert "advisor: note: --board: read 'Z790 Herro' as ASUS ROG Maximus Z790 Hero" in done.stderr
    assert done.stderr.count("read 'Z790 Herro'") == 1  # said once, however often the name is read


def test_a_typo_in_a_build_file_is_said_with_its_line(tmp_path):
    build = tmp_path / "herro.yaml"
    build.write_text("cpu: i9-14900K\nboard: Z790 Herro\ngpus:\n  - {model: RTX 4090, count: 2}\n")
    done = run("workload", str(build), "--train", "1.3b")
    assert done.returncode == 0, done.stderr
    assert f"advisor: note: {build}:2: board: read 'Z790 Herro' as ASUS ROG Maximus Z790 Hero" in done.stderr
    assert "Workload: train" in done.stdout


@pytest.mark.parametrize(
    "written, name",
    [("RTX 4090 x2", "RTX 4090"), ("2x RTX 4090", "RTX 4090"), ("2 × 4090", "4090"), ("4090*2", "4090")],
)
def test_a_count_written_as_in_a_listing_is_read_and_said(written, name):
    """ "2x RTX 4090" is how listings and people write a count: read as ':2', said on stderr, the same
    build as --gpu 'RTX 4090:2'."""
    done = run("plan", "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", written, "--json")
    assert done.returncode in (0, 1), done.stderr
    assert [g["index"] for g in json.loads(done.stdout)["gpus"]] == [0, 1]
    assert f"advisor: note: read --gpu '{written}' as 2 x '{name}' (--gpu '{name}:2')" in done.stderr
    # a count past the limit is refused with the flag as written
    done = run("plan", "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090 x99")
    assert done.returncode == 2 and "--gpu 'RTX 4090 x99': count: must be from 1 to" in done.stderr
    # neither a bare count nor a name with a number inside is taken for a count
    done = run("plan", "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "x2")
    assert done.returncode == 2 and "no GPU in the catalog matches 'x2'" in done.stderr
    # the same for the cards a buyer already owns
    done = run("recommend", "--train", "8b", "--lora", "16", "--own", "2x RTX 4090", "--json")
    assert done.returncode in (0, 1), done.stderr
    assert "advisor: note: read --own '2x RTX 4090' as 2 x 'RTX 4090' (--own 'RTX 4090:2')" in done.stderr
    assert json.loads(done.stdout)["constraints"]["own"] == [{"part": "nvidia-rtx-4090", "count": 2}]


def test_a_shorter_form_of_a_name_is_no_typo():
    done = run("plan", "--cpu", "14900K", "--board", "Maximus Z790 Hero", "--gpu", "RTX 4090:2")
    assert done.returncode in (0, 1) and done.stderr == ""


def test_catalog_show_refuses_another_model_number_and_says_a_typo():
    done = run("catalog", "show", "i9-14900KS")
    assert done.returncode == 2 and done.stdout == ""
    assert "has another model number (14900K, not 14900KS)" in flat(done.stderr)
    done = run("catalog", "show", "Z790 Herro")
    assert done.returncode == 0 and "id: asus-rog-maximus-z790-hero" in done.stdout
    assert "advisor: note: read 'Z790 Herro' as ASUS ROG Maximus Z790 Hero" in done.stderr
