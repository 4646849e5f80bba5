"""Time against input size for the readers a user's file goes through (a 100,000-line quote once
took 990 s: every reader must scale linearly, and inputs past the limits are refused before any
work). Figures go in docs/speed.md; tests never time things.

    python benchmarks/bench_scaling.py

Each figure is the median of 3 in-process runs (imports and caches warm), on generated inputs made
from real fixtures: a quote padded with prose lines, an nccl-tests table repeated, an nvbandwidth
output with its runs appended. The ratio column is the
time per input unit against the smallest size's: about 1.0 throughout means linear.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _time(fn, runs: int = 3) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def quote_text(lines: int) -> str:
    rng = random.Random(lines)
    words = "the build is fast and has great cooling with quiet fans for your office desk".split()
    head = [
        "Quote for a deep learning workstation",
        "CPU: Intel Core i9-14900K",
        "Board: ASUS ROG Maximus Z790 Hero",
        "GPU: 2x NVIDIA GeForce RTX 4090",
        "PSU: 1600W",
    ]
    return "\n".join(
        head + [" ".join(rng.choice(words) for _ in range(10)) for _ in range(lines - len(head))]
    )


def series(name: str, unit: str, sizes: list[int], make, run) -> None:
    base = None
    for n in sizes:
        data = make(n)
        t = _time(lambda data=data: run(data))
        per = t / n
        base = base or per
        print(f"  {name:28} {n:>7} {unit:8} {t * 1000:9.1f} ms   {per / base:5.2f}")


def main() -> None:
    from advisor.measure import parse
    from advisor.model.catalog.store import load_catalog
    from advisor.quote.check import evaluate_quote
    from advisor.quote.reader import read_quote
    from advisor.render.quote import render

    catalog = load_catalog([])
    tools = ROOT / "tests" / "fixtures" / "tools"
    print(f"{'input':30} {'size':>7} {'unit':8} {'time':>12}   per-unit vs smallest")

    def validate(text: str) -> None:
        render(evaluate_quote(read_quote(text, "q.txt", catalog), catalog), "text")

    series("validate, text quote", "lines", [500, 1000, 2500, 5000], quote_text, validate)

    nccl = (tools / "nccltests" / "a3mega_16xH100_sweep.txt").read_text()
    head, rest = nccl.split("#       size", 1)
    table = "#       size" + rest

    def nccl_text(n: int) -> str:  # n tables of 33 sizes one after another, as a sweep script writes
        return head + table * n

    series(
        "import nccl-tests", "tables", [1, 5, 20, 80], nccl_text, lambda t: parse("nccl-tests", t, "n.txt")
    )

    nvb = (tools / "nvbandwidth" / "issue15_8x4090_v0.2.txt").read_text()
    series(
        "import nvbandwidth (runs)",
        "runs",
        [1, 5, 20, 80],
        lambda n: (nvb + "\n") * n,
        lambda t: parse("nvbandwidth", t, "b.txt"),
    )


if __name__ == "__main__":
    main()
