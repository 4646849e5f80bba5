"""A bounded, seeded fuzz of every command on mutated real files.

Every fixture kind (build files, quotes in each format, catalog entries, rule files, every tool
output) is mutated with a seeded random generator and run through the real CLI entry point in
process. Each input must end with exit code 0, 1 or 2, no traceback, within its time budget.

The default run is deterministic (fixed seeds, a fixed number of inputs per kind) so that the suite
never flakes; `python -m pytest -m fuzz tests/test_fuzz.py --fuzz-minutes 30` runs a long random
search by hand and prints what it tried. A failing input is written out under the test's tmp folder
and named in the failure, with the seed, so it can be replayed.
"""

from __future__ import annotations

import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from advisor.main import main
from tests.conftest import ROOT

pytestmark = pytest.mark.fuzz

FIXTURES = ROOT / "tests" / "fixtures"
PER_KIND = 150  # inputs per kind in the default (CI) run
# One input may use this much CPU time before it counts as a hang. The budget is CPU time (ITIMER_PROF,
# this process's own seconds on a core), not wall-clock time: another job loading the machine slows the
# clock, never this count, so the verdict on an input is the same on a busy CI runner as on an idle one.
BUDGET_S = 30

# what hostile or broken files hold: numbers out of range, YAML/JSON structure, encodings, controls
TOKENS = [
    "1e309",
    "-1",
    "0",
    "nan",
    "inf",
    "9" * 5000,
    "1e200",
    "-0",
    "4294967296",
    "0x10",
    "１６",
    "&a",
    "*a",
    "[",
    "]",
    "{",
    "}",
    ":",
    "- ",
    "|",
    "\t",
    '"',
    "'",
    ",",
    ";",
    "#",
    "%",
    "!!python/object",
    "\x00",
    "\x1b[2J",
    "\u202e",
    "\ufeff",
    "ＲＴＸ",
    "RТX 4090",
    "x16",
    "x0",
    "Gen9",
    "PCIe 0.0 x99",
    "null",
    "~",
    "true",
    "[]",
    "{}",
    "count: 100000",
    "gpus: 99999",
    "\n" * 50,
    "a" * 3000,
]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True) or [""]
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(lines))
        if op == 0:
            del lines[i]
            lines = lines or [""]
        elif op == 1:
            lines.insert(i, lines[i] * rng.randint(1, 3))
        elif op == 2:  # a token in the middle of a line
            line = lines[i]
            at = rng.randrange(len(line) + 1)
            lines[i] = line[:at] + rng.choice(TOKENS) + line[at:]
        elif op == 3:  # a number replaced
            lines[i] = _renumber(lines[i], rng)
        elif op == 4:  # a character flipped
            line = lines[i]
            if line:
                at = rng.randrange(len(line))
                lines[i] = (
                    line[:at]
                    + chr(rng.choice([0x20, 0x2D, 0x3A, 0x5B, 0x7B, rng.randrange(32, 0x3000)]))
                    + line[at + 1 :]
                )
        elif op == 5:  # cut short
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: rng.randrange(len(lines[-1]) + 1)]
        else:  # two lines swapped
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def _renumber(line: str, rng: random.Random) -> str:
    import re

    nums = list(re.finditer(r"\d+(?:\.\d+)?", line))
    if not nums:
        return line
    m = rng.choice(nums)
    return (
        line[: m.start()]
        + rng.choice(["0", "-1", "65", "1e309", "99999999", "9" * 400, "0.0001"])
        + line[m.end() :]
    )


def _files(*patterns: str) -> list[Path]:
    out = []
    for pattern in patterns:
        out += sorted(p for p in ROOT.glob(pattern) if p.is_file() and not p.name.endswith(".expect.yaml"))
    return out


# kind -> (seed files, how to run one mutated file: the CLI arguments)
KINDS = {
    "build": (
        _files("examples/*.yaml", "tests/fixtures/builds/*.yaml"),
        lambda f, d: ["plan", str(f), "--json"],
    ),
    "build-text": (_files("examples/*.yaml"), lambda f, d: ["plan", str(f), "--explain"]),
    "quote": (_files("tests/fixtures/quotes/*", "examples/quotes/*"), lambda f, d: ["validate", str(f)]),
    "quote-markdown": (
        _files("examples/quotes/*"),
        lambda f, d: ["validate", str(f), "--format", "markdown"],
    ),
    "catalog": (_files("catalog/*/*.yaml"), lambda f, d: ["catalog", "validate", "--catalog", str(d)]),
    "rule-test-build": (_files("tests/fixtures/rules/*.yaml"), lambda f, d: ["plan", str(f), "--json"]),
    # a user's rules folder holding one mutated copy of the bundled rules
    "rules": (
        _files("rules/findings.yaml"),
        lambda f, d: ["plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--rules", str(d)],
    ),
    "tool-output": (_files("tests/fixtures/tools/*/*"), lambda f, d: ["import", "auto", str(f), "--json"]),
    "price-list": (
        _files("tests/fixtures/recommend/prices.*"),
        lambda f, d: [
            "recommend",
            "--train",
            "8b",
            "--lora",
            "16",
            "--max-gpus",
            "1",
            "--budget",
            "3000",
            "--as-of",
            "2026-01-01",
            "--used",
            "--prices",
            str(f),
        ],
    ),
}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_one(kind: str, seed_file: Path, seed: int, tmp: Path, capsys) -> tuple[int | str, float]:
    rng = random.Random(seed)
    text = seed_file.read_text(encoding="utf-8", errors="replace")
    folder = tmp / f"{kind}-{seed}"
    folder.mkdir()
    target = folder / seed_file.name
    target.write_text(mutate(text, rng), encoding="utf-8", errors="surrogatepass")
    args = KINDS[kind][1](target, folder)
    old = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, BUDGET_S)
    start = time.monotonic()
    try:
        code = main(args)
    except Hang:
        code = "hang"
    except SystemExit as exc:  # argparse on a bad argument
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception as exc:  # a traceback for a user's file: the bug this test looks for
        code = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    took = time.monotonic() - start
    _, err = capsys.readouterr()
    if code in (0, 1, 2) and "Traceback" in err:
        code = "traceback on stderr"
    if code in (0, 1, 2):
        shutil.rmtree(folder, ignore_errors=True)
    return code, took


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGPROF to bound each input")
@pytest.mark.parametrize("kind", list(KINDS))
def test_mutated_files_end_with_a_clear_answer(kind, tmp_path, capsys, monkeypatch, request):
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    monkeypatch.delenv("ADVISOR_RULES", raising=False)
    seeds, _ = KINDS[kind]
    assert seeds, f"no fixtures of kind {kind}"
    minutes = request.config.getoption("--fuzz-minutes")
    deadline = time.monotonic() + 60 * minutes / len(KINDS) if minutes else None
    bad = []
    tried = 0
    seed = 1000 * (list(KINDS).index(kind) + 1)
    rng = random.Random(seed) if deadline is None else random.Random()
    while (tried < PER_KIND) if deadline is None else (time.monotonic() < deadline):
        seed_file = seeds[rng.randrange(len(seeds))]
        case_seed = rng.randrange(1 << 30)
        code, took = run_one(kind, seed_file, case_seed, tmp_path, capsys)
        tried += 1
        if code not in (0, 1, 2):
            bad.append(f"{seed_file.relative_to(ROOT)} seed {case_seed}: {code} ({took:.1f} s)")
    if deadline is not None:
        print(f"fuzz {kind}: {tried} inputs, {len(bad)} failing")
    assert not bad, (
        f"{len(bad)} of {tried} mutated {kind} inputs failed (files under {tmp_path}):\n"
        + "\n".join(bad[:10])
    )
