"""Score `advisor validate` on the quote corpus (tests/fixtures/quotes): each quote beside its expected
result (NN-name.expect.yaml, what a careful buyer concludes). Used by test_quote_corpus.py and by
`python tests/quote_corpus.py`, which prints the corpus figures (quotes, parts and claims right).

`python tests/quote_corpus.py --heldout` scores tests/fixtures/quotes-heldout: quotes written by a helper
that had seen neither the reader nor the corpus. It is a measurement, not a test. Each held-out set joins
the corpus once the reader has learned from it (corpus 34-45 were the first set of 12, 47-60 the second
set of 14, 61-76 the third of 16: 2/16 fully right, parts 39/46, claims 31/56 before any change made
for them), and a fresh one is written for the next measurement. The fourth set (14 quotes, in the
held-out folder now) scored 4/14 fully right, parts 31/39, claims 33/51 when first read."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import yaml

CORPUS = Path(__file__).parent / "fixtures" / "quotes"


def cases() -> list[Path]:
    return sorted(
        p
        for p in CORPUS.glob("*")
        if p.is_file()
        and not p.name.endswith(".expect.yaml")
        and p.with_name(p.stem + ".expect.yaml").exists()
        and p.name != "README.md"
    )


def expected(path: Path) -> dict:
    return yaml.safe_load(path.with_name(path.stem + ".expect.yaml").read_text())


def score(path: Path, catalog) -> dict[str, list]:
    """{check: [ok, got, want]} for one quote."""
    from advisor.quote.check import evaluate_quote
    from advisor.quote.reader import read_quote

    want = expected(path)
    q = read_quote(path.read_text(encoding="utf-8"), str(path), catalog)
    r = evaluate_quote(q, catalog)
    out: dict[str, list] = {}

    def check(name, got, exp):
        out[name] = [got == exp, got, exp]

    check("verdict", r.verdict, want["verdict"])
    check("exit_code", r.exit_code, want.get("exit_code", 0 if want["verdict"] == "PASS" else 1))
    b = q.build_data
    got_parts = Counter()
    if "cpu" in b:
        got_parts[("cpu", b["cpu"])] += b.get("cpu_count", 1)
    if "board" in b:
        got_parts[("board", b["board"])] += 1
    for g in b.get("gpus", []):
        got_parts[("gpu", g["model"])] += g["count"]
    want_parts = Counter()
    any_count = set()  # qty: null, a count the quote leaves unclear: the part must be there, in any number
    for p in want.get("parts", []):
        if p.get("qty", 1) is None:
            any_count.add((p["kind"], p["id"]))
            continue
        want_parts[(p["kind"], p["id"])] += p.get("qty", 1)
    for key in set(got_parts) | set(want_parts) | any_count:
        if key in any_count:
            check(f"part {key[0]} {key[1]}", got_parts.get(key, 0) > 0, True)
        else:
            check(f"part {key[0]} {key[1]}", got_parts.get(key, 0), want_parts.get(key, 0))
    if "psu_w" in want:
        check("psu_w", b.get("psu_w"), want["psu_w"])
    if "ram_gb" in want:
        check("ram_gb", b.get("ram_gb"), want["ram_gb"])
    if "nvme" in want:
        check("nvme", len(b.get("nvme", [])) + q.unplaced_nvme, want["nvme"])
    check(
        "not_in_catalog",
        sorted({p.kind for x in r.not_in_catalog for p in x.parts}),
        sorted(want.get("not_in_catalog", [])),
    )
    plan = r.plan
    if "links" in want:
        check("links", [[g.link.gen, g.link.width] for g in plan.gpus] if plan else None, want["links"])
    if "p2p" in want:
        check("p2p", all(p.p2p for p in plan.pairs) if plan and plan.pairs else None, want["p2p"])
    if want.get("findings"):
        cats = {f.category for f in plan.findings} if plan else set()
        check("findings", sorted(set(want["findings"]) & cats), sorted(want["findings"]))
    got_claims: dict[int, list] = {}
    for c in r.claims:
        got_claims.setdefault(c.line, []).append(c.verdict)
    want_claims = {c["line"]: c["verdict"] for c in want.get("claims", [])}
    for line in set(got_claims) | set(want_claims):
        vs = got_claims.get(line)
        got = (
            None
            if vs is None
            else (False if False in vs else (True if all(v is True for v in vs) else "unknown"))
        )
        check(f"claim line {line}", got, want_claims.get(line))
    if "qty_unclear" in want:
        check(
            "qty_unclear",
            sorted({p.kind for x in q.lines if x.qty_unclear and x.status == "part" for p in x.parts}),
            sorted(want.get("qty_unclear") or []),
        )
    if "title_mismatch" in want:
        check("title_mismatch", bool(q.title_mismatch), bool(want["title_mismatch"]))
    return out


def report() -> str:
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from advisor.model.catalog.store import load_catalog

    catalog = load_catalog()
    quotes_right = parts_right = parts_all = claims_right = claims_all = 0
    lines = []
    paths = cases()
    for path in paths:
        s = score(path, catalog)
        bad = {k: v for k, v in s.items() if not v[0]}
        quotes_right += not bad
        parts = {k: v for k, v in s.items() if k.startswith("part ")}
        parts_all += len(parts)
        parts_right += sum(v[0] for v in parts.values())
        claims = {k: v for k, v in s.items() if k.startswith("claim ")}
        claims_all += len(claims)
        claims_right += sum(v[0] for v in claims.values())
        lines.append(
            f"{'ok ' if not bad else 'BAD'} {path.name}"
            + "".join(f"\n      {k}: got {v[1]!r}, want {v[2]!r}" for k, v in bad.items())
        )
    lines.append(
        f"{quotes_right}/{len(paths)} quotes fully right; parts {parts_right}/{parts_all}; "
        f"claims {claims_right}/{claims_all}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    if "--heldout" in sys.argv:
        CORPUS = Path(__file__).parent / "fixtures" / "quotes-heldout"
    print(report())
