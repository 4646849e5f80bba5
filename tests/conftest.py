from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

from advisor.main import main

ROOT = Path(__file__).resolve().parent.parent

# Property tests draw the same examples on every run (derandomize), keep no example database between
# runs and print the blob that replays a failure: a red run is then a bug in the code, never the draw of
# the day, and what failed in CI fails again on any machine. The random search is there by hand:
# `HYPOTHESIS_PROFILE=explore python -m pytest ...`, or `--hypothesis-seed=N` for one reproducible draw.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _own_state_folder(tmp_path, monkeypatch):
    """Every test (and every process it starts) keeps the app's autosave in a folder of its own: tests
    run in parallel workers, and none may read another's unsaved build, nor the user's own."""
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "advisor-state"))
    # the language is the test's to choose: a machine whose locale is Chinese still runs the English tests
    monkeypatch.setenv("ADVISOR_LANG", "en")


def pytest_addoption(parser):
    parser.addoption(
        "--fuzz-minutes",
        type=float,
        default=None,
        help="run tests/test_fuzz.py as a random search for this long instead of its fixed inputs",
    )
    parser.addoption(
        "--fuzz-coverage",
        action="store_true",
        default=False,
        help="with --fuzz-minutes: report the share of each reader's lines the inputs reached (coverage.py)",
    )


def pytest_configure(config):
    import tempfile

    # the parsed-catalog cache of the test runs, apart from the user's, one folder per parallel worker
    # (pytest-xdist names them gw0, gw1, ...) so that two workers never write one file
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    os.environ["ADVISOR_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), f"advisor-test-cache-{worker}")
    config.addinivalue_line("markers", "fuzz: the seeded fuzz of every command (tests/test_fuzz.py)")


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def plan_json(capsys):
    def _plan(*args: str) -> dict:
        code, out, err = run_cli(capsys, "plan", *args, "--json")
        assert code == 0, err
        return json.loads(out)

    return _plan


@pytest.fixture
def cli(capsys):
    def _cli(*args: str) -> tuple[int, str, str]:
        return run_cli(capsys, *args)

    return _cli


@pytest.fixture
def write(tmp_path):
    def _write(name: str, text: str) -> Path:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    return _write
