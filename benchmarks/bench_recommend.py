"""Speed of `advisor recommend` on typical questions (figures go in docs/recommend.md; tests never time).

    python benchmarks/bench_recommend.py

For each question of tests/fixtures/recommend/questions.yaml: the whole command as a process (the median
of 3 runs, catalog cache warm), the search alone in-process (the median of 3), and how many builds the
search enumerated, pruned by each bound, assessed in full and kept on the front.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

AS_OF = ["--as-of", "2026-01-01"]


def process_seconds(args: list[str], runs: int = 3) -> tuple[float, dict]:
    times, out = [], {}
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "advisor", "recommend", *args, *AS_OF, "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        times.append(time.perf_counter() - start)
        out = json.loads(done.stdout)
    return statistics.median(times), out


def search_seconds(args: list[str], runs: int = 3) -> float:
    from advisor.cli.parser import parser
    from advisor.cli.recommend import cmd_recommend

    parsed = parser().parse_args(["recommend", *args, *AS_OF, "--json"])
    times = []
    import contextlib
    import io

    for _ in range(runs):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            cmd_recommend(parsed)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    questions = yaml.safe_load((ROOT / "tests" / "fixtures" / "recommend" / "questions.yaml").read_text())
    print(
        f"{'question':34} {'process s':>9} {'search s':>9} {'enum':>6} {'pruned':>6} {'eval':>5} {'front':>5}"
    )
    for q in questions:
        wall, out = process_seconds(q["args"])
        inproc = search_seconds(q["args"])
        c = out["counts"]
        print(
            f"{q['id']:34} {wall:9.2f} {inproc:9.2f} {c['enumerated']:6} {sum(x['count'] for x in c['pruned']):6} "
            f"{c['evaluated']:5} {c['front']:5}"
        )
        print("    pruned: " + ", ".join(f"{x['count']} {x['why']}" for x in c["pruned"]))
        if c["rejected"]:
            print(
                "    set aside after the assessment: "
                + ", ".join(f"{x['count']} {x['why']}" for x in c["rejected"])
            )
    every_part_priced()


def every_part_priced() -> None:
    """The search's worst case: a synthetic list pricing every unpriced CPU, board and GPU at 1,000 USD, so
    that no combination is set aside for want of a price (to time the search, never to answer anything)."""
    import tempfile

    from advisor.model.catalog.store import load_catalog
    from advisor.model.prices import PriceBook, price_list_yaml

    catalog = load_catalog()
    book = PriceBook(catalog)
    rows = [
        (p.id, 1000.0, "USD", "2025-12-01", "synthetic, for timing", "new")
        for p in catalog.parts.values()
        if p.kind in ("cpu", "board", "gpu")
        and getattr(p, "card_of", None) is None
        and book.price(p.id) is None
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "every-part.yaml"
        path.write_text(price_list_yaml(rows))
        print(f"\nEvery part priced ({len(rows)} synthetic prices of 1,000 USD added):")
        for name, args in (
            ("lora-8b, no budget", ["--train", "8b", "--lora", "16"]),
            ("lora-8b, 8,000 USD", ["--train", "8b", "--lora", "16", "--budget", "8000"]),
            ("70b q4_k_m, 20 users", ["--infer", "70b", "--quant", "q4_k_m", "--batch", "20"]),
        ):
            wall, out = process_seconds([*args, "--prices", str(path)])
            c = out["counts"]
            print(
                f"{name:34} {wall:9.2f} {'':>9} {c['enumerated']:6} {sum(x['count'] for x in c['pruned']):6} "
                f"{c['evaluated']:5} {c['front']:5}"
            )
            print("    pruned: " + ", ".join(f"{x['count']} {x['why']}" for x in c["pruned"]))


if __name__ == "__main__":
    main()
