"""Speed of the engine (figures go in docs/speed.md; tests never time things).

    python benchmarks/bench_engine.py

1. Full evaluations per second (allocation + every prediction) of an 8-GPU build, one core.
2. `advisor plan --json` as a whole process, median of 10 runs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.base.yamlio import loads  # noqa: E402
from advisor.model.buildfile import build_from_data  # noqa: E402
from advisor.model.catalog.store import load_catalog  # noqa: E402
from advisor.model.engine import evaluate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

EIGHT_GPU_TREE = """
topology:
  sockets:
    - vendor: amd
      root_ports:
        - {id: a, host_bridge: "0", children: [{switch: s0, gen: 5, width: 16, children: [{gpu: "RTX PRO 6000 Blackwell Server"}, {gpu: "RTX PRO 6000 Blackwell Server"}]}]}
        - {id: b, host_bridge: "1", children: [{switch: s1, gen: 5, width: 16, children: [{gpu: "RTX PRO 6000 Blackwell Server"}, {gpu: "RTX PRO 6000 Blackwell Server"}]}]}
    - vendor: amd
      root_ports:
        - {id: c, host_bridge: "0", children: [{switch: s2, gen: 5, width: 16, children: [{gpu: "RTX PRO 6000 Blackwell Server"}, {gpu: "RTX PRO 6000 Blackwell Server"}]}]}
        - {id: d, host_bridge: "1", children: [{switch: s3, gen: 5, width: 16, children: [{gpu: "RTX PRO 6000 Blackwell Server"}, {gpu: "RTX PRO 6000 Blackwell Server"}]}]}
"""


def evals_per_second(build, catalog, seconds: float = 3.0) -> float:
    evaluate(build, catalog)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        evaluate(build, catalog)
        n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    catalog = load_catalog()
    tree = build_from_data(loads(EIGHT_GPU_TREE))
    print(f"8-GPU explicit tree (2 sockets, 4 switches): {evals_per_second(tree, catalog):.0f} evaluations/s")
    boards = [b for b in catalog.boards if len(b.slots) >= 8]
    for board in boards[:2]:
        cpu = next((c for c in catalog.cpus if board.cpu_families and c.family in board.cpu_families), None)
        if cpu is None:
            continue
        slots = [s.name for s in board.slots][:8]
        data = {
            "cpu": cpu.id,
            "board": board.id,
            "cpu_count": board.sockets,
            "gpus": [{"model": "RTX 6000 Ada", "slot": s} for s in slots],
        }
        try:
            build = build_from_data(loads(__import__("json").dumps(data)))
            print(
                f"8-GPU catalog build on {board.id} (placed): {evals_per_second(build, catalog):.0f} evaluations/s"
            )
        except Exception as exc:  # a board whose slots need a second CPU family, etc.
            print(f"{board.id}: skipped ({exc})")
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "advisor",
                "plan",
                str(ROOT / "examples" / "2x4090-z790-hero.yaml"),
                "--json",
            ],
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - t0)
    print(
        f"advisor plan --json (whole process): median {statistics.median(times) * 1000:.0f} ms over 10 runs"
    )


if __name__ == "__main__":
    main()
