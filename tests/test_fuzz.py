"""A bounded, seeded fuzz of every reader on mutated real files, through the real CLI entry point.

Every fixture kind (build files, quotes, catalog entries, rule files, each tool's saved output, lspci for
`doctor`, measurements for `compare`) is mutated with a seeded random generator and run through
advisor.main.main in this process. The mutations are those that found hangs and tracebacks: lines
dropped, repeated, cut, swapped, numbers and characters changed, and also lines thousands of characters
long, structures nested hundreds deep, every kind of line break, one line repeated to megabytes, terminal
escapes and markup, and special files in the file's place (a link to /dev/zero, a FIFO, a folder, bytes
that are not UTF-8).

Each input must end with exit code 0, 1 or 2, no traceback, no control character on stdout or stderr,
within a budget of CPU time and of memory that the kernel enforces: the inputs run one after another in
a worker process (tests/bounded.py) whose RLIMIT_CPU and RLIMIT_AS are moved before each one, so a
pattern backtracking in C for ever is ended as surely as a loop, and a loaded machine, which slows the
clock but not a process's CPU seconds, changes no verdict.

The default run is deterministic (fixed seeds, a fixed number of inputs per kind, sizes kept small) so
that the suite never flakes. By hand, a long random search at full sizes:

    python -m pytest -n0 -s tests/test_fuzz.py --fuzz-minutes 60 [--fuzz-coverage]

prints, per kind, the inputs tried, the failures, the slowest input's CPU time and the largest accepted
input's size, CPU time and memory (run again alone in a subprocess), and with --fuzz-coverage (needs
coverage.py) the share of its reader's lines the inputs reached. A failing input is kept under the
test's tmp folder and named in the failure with its seed.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.bounded import Worker
from tests.conftest import ROOT

pytestmark = pytest.mark.fuzz

FIXTURES = ROOT / "tests" / "fixtures"
PER_KIND = 40  # inputs per kind in the default (CI) run
# One input may use this much CPU time before it counts as a hang, and this much more memory.
BUDGET_S = 10
BUDGET_MB = 1024
# The largest a mutation makes a file: small in CI (the suite stays quick), past the 4 MB every reader
# accepts in a long run by hand (so that the bound itself is tried)
CI_BYTES = 96 * 1024
LONG_BYTES = 4_400_000
EXAMPLE = ROOT / "examples" / "2x4090-z790-hero.yaml"

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
# what a terminal acts on, and markup a renderer acts on: none may reach stdout or stderr raw
ESCAPES = [
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: write the clipboard
    "\x1b[2J",  # clear the screen
    "\x1b]0;pwned\x07",  # the window's title
    "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07",  # a hyperlink
    "\x9b31m",  # C1 CSI
    "\u202e",  # right-to-left override
    "\x00",
    "\x07",
    "\r",
    "[link=http://evil.example]x[/link]",  # rich markup
    "[@click=app.quit]x[/]",  # textual's actions
    "<script>alert(1)</script>",
    "[x](javascript:alert(1))",
    "http://evil.example www.evil.example",
]
# what a long line is made of: each has taken a pattern into quadratic or exponential time somewhere
UNITS = [
    " ",
    "\t",
    "1",
    "a",
    "x",
    "-",
    ".",
    ",",
    ":",
    "k:",
    "1 ",
    "a ",
    "1.",
    "1,",
    "1/",
    "x1",
    "[",
    "(",
    "<",
    "{",
    "|",
    "*",
    "#",
    "显",
    "GPU: ",
    "4090 ",
    "and ",
    "$1",
    "¥",
    "GB ",
    "x16 ",
    "1-",
    "@",
]
BREAKS = ["\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0c", "\x0b"]
NESTS = [("[", "]"), ("{a: ", "}"), ("- ", ""), ("<pci>", "</pci>"), ("(", ")"), ("> ", ""), ('{"a":', "}")]
SPECIAL = ["dev-zero", "dev-urandom", "fifo", "endless-fifo", "folder", "not-utf8", "empty", "bom-only"]


def mutate(text: str, rng: random.Random, most: int) -> tuple[str, str | None]:
    """`text` changed by 1-4 mutations, and the special file to put in its place (or None). `most`: the
    largest the text may grow to."""
    lines = text.splitlines(keepends=True) or [""]
    special = None
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(13)
        i = rng.randrange(len(lines))
        if op == 0:
            del lines[i]
            lines = lines or [""]
        elif op == 1:
            lines.insert(i, lines[i] * rng.randint(1, 3))
        elif op == 2:  # a token in the middle of a line
            lines[i] = _insert(lines[i], rng.choice(TOKENS), rng)
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
        elif op == 6:  # two lines swapped
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 7:  # a long line: up to the length every reader accepts, and past it
            unit = rng.choice(UNITS)
            n = rng.choice([500, 2000, 4000, 4095, 4097, 10_000])
            long = (unit * (n // len(unit) + 1))[:n] + rng.choice(["", "!", "k: x", ":", "\x01", " 1"])
            lines.insert(i, long + "\n" if rng.random() < 0.5 else _insert(lines[i], long, rng))
        elif op == 8:  # nesting
            a, b = rng.choice(NESTS)
            n = rng.choice([50, 101, 500, 2000])
            lines.insert(i, a * n + "x" + b * n + "\n")
        elif op == 9:  # another kind of line break, everywhere or on one line
            brk = rng.choice(BREAKS)
            if rng.random() < 0.5:
                lines = [ln.replace("\n", brk) for ln in lines]
            else:
                lines[i] = lines[i].replace("\n", brk)
        elif op == 10:  # one line repeated up to megabytes
            line = lines[i] if lines[i].strip() else "GPU: NVIDIA RTX 4090 24GB x2 $1,599.00\n"
            line = line if line.endswith("\n") else line + "\n"
            k = max(1, rng.randint(most // 8, most) // max(1, len(line)))
            lines[i : i + 1] = [line * k]
        elif op == 11:  # terminal escapes and markup
            lines[i] = _insert(lines[i], rng.choice(ESCAPES), rng)
        else:  # a special file in its place
            special = rng.choice(SPECIAL)
    return "".join(lines)[: most + 4096], special


def _insert(line: str, what: str, rng: random.Random) -> str:
    at = rng.randrange(len(line) + 1)
    return line[:at] + what + line[at:]


def _renumber(line: str, rng: random.Random) -> str:
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
        out += sorted(
            p
            for p in ROOT.glob(pattern)
            if p.is_file() and not p.name.endswith(".expect.yaml") and p.name != "README.md"
        )
    return out


# the tools' folders of fixtures, by the name `advisor import` gives each tool
TOOL_FOLDERS = {
    "bandwidthtest": "bandwidthtest",
    "cmdline": "cmdline",
    "lspci": "lspci",
    "nccl-log": "nccl_log",
    "nccl-topo": "nccl_topo",
    "nccl-tests": "nccltests",
    "nvbandwidth": "nvbandwidth",
    "p2p": "p2p",
    "query-gpu": "query_gpu",
    "smi-q": "smiq",
    "topo": "topo",
    "topo-p2p": "topo_p2p",
}
# the module that reads each tool's output, where it is not named after the tool
READER_MODULES = {
    "nccl-topo": "advisor/measure/parsers/ncclxml.py",
    "nccl-log": "advisor/measure/parsers/nccllog.py",
    "nccl-tests": "advisor/measure/parsers/nccltests.py",
    "query-gpu": "advisor/measure/parsers/querygpu.py",
    "smi-q": "advisor/measure/parsers/smiq.py",
    "topo-p2p": "advisor/measure/parsers/topop2p.py",
}
QUOTE_READER = ["advisor/quote", "advisor/render/quote.py", "advisor/base/inputs.py"]
BUILD_READER = ["advisor/model/build.py", "advisor/model/buildfile.py", "advisor/base/yamlio.py"]

# kind -> (seed files, how to run one mutated file: the CLI arguments, the reader's modules for coverage)
KINDS: dict[str, tuple[list[Path], object, list[str]]] = {
    "build": (
        _files("examples/*.yaml", "tests/fixtures/builds/*.yaml"),
        lambda f, d: ["plan", str(f), "--json"],
        BUILD_READER,
    ),
    "build-text": (
        _files("examples/*.yaml"),
        lambda f, d: ["plan", str(f), "--explain"],
        [*BUILD_READER, "advisor/render/plan.py", "advisor/render/layout.py"],
    ),
    "build-markdown": (
        _files("examples/*.yaml"),
        lambda f, d: ["plan", str(f), "--format", "markdown"],
        [*BUILD_READER, "advisor/render/plan.py"],
    ),
    "quote": (
        _files("tests/fixtures/quotes/*", "examples/quotes/*"),
        lambda f, d: ["validate", str(f)],
        QUOTE_READER,
    ),
    "quote-markdown": (
        _files("examples/quotes/*"),
        lambda f, d: ["validate", str(f), "--format", "markdown"],
        QUOTE_READER,
    ),
    "catalog": (
        _files("catalog/*/*.yaml"),
        lambda f, d: ["catalog", "validate", "--catalog", str(d)],
        ["advisor/model/catalog"],
    ),
    "rule-test-build": (
        _files("tests/fixtures/rules/*.yaml"),
        lambda f, d: ["plan", str(f), "--json"],
        BUILD_READER,
    ),
    # a user's rules folder holding one mutated copy of the bundled rules
    "rules": (
        _files("rules/findings.yaml"),
        lambda f, d: ["plan", str(EXAMPLE), "--rules", str(d)],
        ["advisor/findings/rules.py", "advisor/findings/evaluate.py"],
    ),
    **{
        f"tool-{tool}": (
            _files(f"tests/fixtures/tools/{folder}/*"),
            lambda f, d, tool=tool: ["import", tool, str(f), "--json"],
            [
                READER_MODULES.get(tool, f"advisor/measure/parsers/{tool}.py"),
                "advisor/measure/parsers/_common.py",
            ],
        )
        for tool, folder in TOOL_FOLDERS.items()
    },
    "tool-auto": (
        _files("tests/fixtures/tools/*/*"),
        lambda f, d: ["import", "auto", str(f), "--json"],
        ["advisor/measure/parsers"],
    ),
    "doctor-lspci": (
        _files("tests/fixtures/doctor/lspci/*", "tests/fixtures/tools/lspci/*"),
        lambda f, d: ["doctor", "--lspci", str(f), "--no-load"],
        ["advisor/measure/doctor.py", "advisor/cli/measure.py"],
    ),
    "compare": (
        _files(
            "tests/fixtures/tools/nvbandwidth/*", "tests/fixtures/tools/p2p/*", "tests/fixtures/tools/topo/*"
        ),
        lambda f, d: ["compare", str(EXAMPLE), str(f)],
        ["advisor/measure/compare.py", "advisor/render/compare.py"],
    ),
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
        ["advisor/model/prices.py", "advisor/recommend"],
    ),
}

# a control character, a bidirectional override or a Unicode line separator: none may be printed raw
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _place(target: Path, text: str, special: str | None) -> threading.Thread | None:
    """Write the mutated text to `target`, or put the special file there; a thread that feeds a FIFO."""
    if special is None:
        target.write_text(text, encoding="utf-8", errors="surrogatepass")
    elif special in ("dev-zero", "dev-urandom"):
        target.symlink_to("/dev/zero" if special == "dev-zero" else "/dev/urandom")
    elif special == "folder":
        target.mkdir()
    elif special == "not-utf8":
        target.write_bytes(text.encode("latin-1", errors="replace") + b"\xff\xfe\x80")
    elif special == "empty":
        target.write_bytes(b"")
    elif special == "bom-only":
        target.write_bytes(b"\xef\xbb\xbf")
    else:  # a FIFO with a writer: what it writes, then the end; or without end
        os.mkfifo(target)
        data = text.encode("utf-8", errors="surrogatepass")
        endless = special == "endless-fifo"

        def feed() -> None:
            try:
                with open(target, "wb") as pipe:  # waits for the reader, or for _unblock
                    while True:
                        pipe.write(data or b"x\n")
                        if not endless:
                            return
            except OSError:  # the reader stopped reading (it refused the file): done
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        return writer
    return None


def _unblock(target: Path, writer: threading.Thread | None) -> None:
    """A FIFO writer still waiting for a reader (the command never opened the file) is let go."""
    if writer is None:
        return
    for _ in range(50):
        if not writer.is_alive():
            return
        try:
            fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
            try:
                while os.read(fd, 1 << 16):
                    pass
            except BlockingIOError:
                pass
            os.close(fd)
        except OSError:
            pass
        writer.join(timeout=0.1)


def run_one(kind: str, seed_file: Path, seed: int, tmp: Path, worker: Worker, most: int) -> dict:
    """One mutated input through the CLI in the worker: its outcome, CPU time and size."""
    rng = random.Random(seed)
    text = seed_file.read_text(encoding="utf-8", errors="replace")
    folder = tmp / f"{kind}-{seed}"
    folder.mkdir()
    target = folder / seed_file.name
    mutated, special = mutate(text, rng, most)
    writer = _place(target, mutated, special)
    args = KINDS[kind][1](target, folder)
    try:
        got = worker.run(args)
    finally:
        _unblock(target, writer)
    code, out, err = got["code"], got["out"], got["err"]
    if code in (0, 1, 2) and "Traceback" in err:
        code = "traceback on stderr"
    elif code in (0, 1, 2) and (raw := _RAW.search(out + err)):
        code = f"raw {raw.group()!r} on {'stdout' if _RAW.search(out) else 'stderr'}"
    size = len(mutated.encode("utf-8", errors="surrogatepass")) if special is None else 0
    if code in (0, 1, 2) and not (size and code in (0, 1)):
        shutil.rmtree(folder, ignore_errors=True)
    return {"code": code, "cpu": got["cpu"], "size": size, "folder": folder, "args": args, "special": special}


# runs `python -m advisor ARGS` as its only child and prints the child's CPU seconds and peak memory
# (the peak of RUSAGE_CHILDREN is the largest child's: alone, it is this command's)
_MEASURE = (
    "import resource, subprocess, sys; "
    "subprocess.run([sys.executable, '-m', 'advisor', *sys.argv[1:]], capture_output=True); "
    "r = resource.getrusage(resource.RUSAGE_CHILDREN); print(r.ru_utime + r.ru_stime, r.ru_maxrss)"
)


def _measured(args: list[str]) -> tuple[float, float]:
    """(CPU seconds, peak memory in MB) of the command run alone, as a user runs it."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    cpu, kb = done.stdout.split()
    return float(cpu), int(kb) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="the worker reads its memory from /proc")
@pytest.mark.parametrize("kind", list(KINDS))
def test_mutated_files_end_with_a_clear_answer(kind, tmp_path, capsys, monkeypatch, request):
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    monkeypatch.delenv("ADVISOR_RULES", raising=False)
    seeds = KINDS[kind][0]
    assert seeds, f"no fixtures of kind {kind}"
    minutes = request.config.getoption("--fuzz-minutes")
    deadline = time.monotonic() + 60 * minutes / len(KINDS) if minutes else None
    most = LONG_BYTES if minutes else CI_BYTES
    worker = Worker(BUDGET_S, BUDGET_MB)
    if request.config.getoption("--fuzz-coverage"):
        pytest.importorskip("coverage", reason="--fuzz-coverage needs coverage.py (pip install coverage)")
        worker.measure_coverage([str(ROOT / p) for p in KINDS[kind][2]])
    bad, tried, slowest, largest = [], 0, 0.0, None
    seed = 1000 * (list(KINDS).index(kind) + 1)
    rng = random.Random(seed) if deadline is None else random.Random()
    started = time.monotonic()
    try:
        while (tried < PER_KIND) if deadline is None else (time.monotonic() < deadline):
            seed_file = seeds[rng.randrange(len(seeds))]
            case_seed = rng.randrange(1 << 30)
            one = run_one(kind, seed_file, case_seed, tmp_path, worker, most)
            tried += 1
            slowest = max(slowest, one["cpu"])
            if one["code"] not in (0, 1, 2):
                bad.append(
                    f"{seed_file.relative_to(ROOT)} seed {case_seed}: {one['code']} ({one['cpu']:.1f} s)"
                )
            elif one["size"] and one["code"] in (0, 1):
                if largest is None or one["size"] > largest["size"]:
                    one, largest = largest, one  # the largest accepted input is kept, to be measured alone
                if one is not None:
                    shutil.rmtree(one["folder"], ignore_errors=True)
        covered = worker.coverage_percent() if worker.coverage is not None else None
    finally:
        worker.close()
    if deadline is not None:
        with capsys.disabled():
            line = (
                f"\nfuzz {kind}: {tried} inputs in {time.monotonic() - started:.0f} s, {len(bad)} failing, "
                f"slowest {slowest:.2f} s CPU"
            )
            if largest is not None:
                cpu, mb = _measured(largest["args"])
                line += f"; largest accepted {largest['size']:,} bytes: {cpu:.2f} s CPU, {mb:.0f} MB"
            if covered is not None:
                line += f"; reader coverage {covered:.0f}%"
            print(line)
    assert not bad, (
        f"{len(bad)} of {tried} mutated {kind} inputs failed (files under {tmp_path}):\n"
        + "\n".join(bad[:10])
    )
