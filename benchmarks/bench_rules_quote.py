"""Speed of the findings rules, `advisor validate` and `advisor workload` (figures go in the README).

python benchmarks/bench_rules_quote.py
"""

from __future__ import annotations

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
from advisor.model.catalog.store import load_catalog  # noqa: E402
from advisor.model.engine import build_from_data, evaluate  # noqa: E402

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
    filler = [f"Accessory item {i}: cable management kit ... Qty: 1 ... $9.99" for i in range(40 - len(base))]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(base + filler) + "\n")
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "advisor", "validate", fh.name], capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - t0)
    print(
        f"advisor validate on a {len(base) + len(filler)}-line text quote (whole process): "
        f"median {statistics.median(times) * 1000:.0f} ms over 5 runs"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as big:
        filler = [
            f"Accessory item {i}: cable management kit {i % 97} ... Qty: 1 ... $9.99"
            for i in range(10000 - len(base))
        ]
        big.write("\n".join(base + filler) + "\n")
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "advisor", "validate", big.name], capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - t0)
    print(
        f"advisor validate on a 10,000-line text quote (whole process): median {statistics.median(times):.2f} s "
        f"over 3 runs"
    )
    times = []
    hero = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "advisor", "workload", hero, "--train", "1.3b", "--json"],
            capture_output=True,
            cwd=ROOT,
            check=True,
        )
        times.append(time.perf_counter() - t0)
    print(
        "advisor workload (example build, --train 1.3b --json, whole process): "
        f"median {statistics.median(times) * 1000:.0f} ms over 5 runs"
    )


if __name__ == "__main__":
    main()
