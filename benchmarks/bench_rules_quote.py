"""Speed of the findings rules, `advisor validate` and `advisor workload` (figures go in docs/speed.md).

python benchmarks/bench_rules_quote.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from advisor.base.yamlio import loads  # noqa: E402
from advisor.findings.evaluate import evaluate_rules  # noqa: E402
from advisor.model.buildfile import build_from_data  # noqa: E402
from advisor.model.catalog.store import load_catalog  # noqa: E402
from advisor.model.engine import evaluate  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_engine import EIGHT_GPU_TREE  # noqa: E402


def main() -> None:
    catalog = load_catalog()
    pred = evaluate(build_from_data(loads(EIGHT_GPU_TREE)), catalog)
    evaluate_rules(pred)
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        evaluate_rules(pred)
        times.append(time.perf_counter() - t0)
    print(f"all rules on an 8-GPU build: median {statistics.median(times) * 1000:.2f} ms")
    base = (ROOT / "examples" / "quotes" / "2x4090-z790-hero-email.txt").read_text().splitlines()
    print(
        "advisor validate on a 40-line text quote (whole process):",
        _process(["validate", _quote_file(base, 40)], 15),
    )
    print(
        "advisor validate on a 5,000-line text quote (whole process):",
        _process(["validate", _quote_file(base, 5000)], 5),
    )
    print(
        "advisor workload (example build, --train 1.3b --json, whole process):",
        _process(
            ["workload", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--train", "1.3b", "--json"], 9
        ),
    )


def _quote_file(base: list[str], lines: int) -> str:
    """The example email padded with accessory lines to `lines` lines, in a temporary file."""
    filler = [
        f"Accessory item {i}: cable management kit {i % 97} ... Qty: 1 ... $9.99"
        for i in range(lines - len(base))
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(base + filler) + "\n")
    return fh.name


def _process(args: list[str], runs: int) -> str:
    """Median and range of `python -m advisor ARGS` as a whole process, as a user's install runs it:
    with compiled bytecode (some shells here set PYTHONDONTWRITEBYTECODE, which makes every start
    compile advisor's modules again) and a warm cache folder (one run first, not counted)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, cwd=ROOT, env=env)
        if i:
            times.append(time.perf_counter() - t0)
    unit, scale = ("s", 1) if statistics.median(times) >= 1 else ("ms", 1000)
    fmt = "{:.2f}" if unit == "s" else "{:.0f}"
    lo, mid, hi = (fmt.format(x * scale) for x in (min(times), statistics.median(times), max(times)))
    return f"median {mid} {unit}, range {lo}-{hi} {unit} over {runs} runs"


if __name__ == "__main__":
    main()
