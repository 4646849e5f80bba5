"""Score `advisor validate` on the real published build lists (tests/quotes/real): each text through the
CLI (`advisor validate FILE --json`), against the reading a careful buyer makes of it (NN-name.expect.yaml).

Figures, each over the texts scored:
- verdict right: the verdict is the expected one;
- parts right: each expected part read right (a catalog part with its count, a part the catalog lacks
  reported as such on its line, a kind no line names reported missing, the PSU's watts), over those
  plus every part read that the text does not have;
- claims right: each expected claim's line judged as expected (false if any claim on it is false, true if
  all are true, else unknown), over those plus every other line judged true or false;
- crashes: an exit code of 2 or a traceback;
- wrong silent matches: a catalog CPU, board or GPU in the build that the text does not name.

`python tests/quote_real.py` prints the in-corpus figures and, apart, the hold-out's (`--holdout` for the
hold-out's details, `--all` for every text's).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REAL = Path(__file__).parent / "quotes" / "real"
KINDS = ("cpu", "board", "gpu")


def cases() -> list[Path]:
    return sorted(
        p
        for p in REAL.iterdir()
        if p.is_file()
        and not p.name.endswith(".expect.yaml")
        and p.name != "README.md"
        and p.with_name(p.stem + ".expect.yaml").exists()
    )


def expected(path: Path) -> dict:
    return yaml.safe_load(path.with_name(path.stem + ".expect.yaml").read_text(encoding="utf-8"))


@dataclass
class Score:
    name: str
    holdout: bool
    crashed: str = ""
    verdict: tuple[str, str] = ("", "")  # (got, want)
    parts: list[tuple[bool, str]] = field(default_factory=list)  # (right, what)
    claims: list[tuple[bool, str]] = field(default_factory=list)
    wrong_matches: list[str] = field(default_factory=list)
    extra_unknown_claims: list[str] = field(default_factory=list)

    @property
    def verdict_right(self) -> bool:
        return not self.crashed and self.verdict[0] == self.verdict[1]


def run_cli(path: Path) -> tuple[int, str, str]:
    """`advisor validate PATH --json` in this process: (exit code, stdout, stderr)."""
    from advisor.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["validate", str(path), "--json"])
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _norm(s: str) -> str:
    return unicodedata.normalize("NFKC", s).lower().replace("\u2011", "-")


def _base(catalog, part_id: str) -> str:
    p = catalog.get(part_id)
    return getattr(p, "card_of", None) or part_id


def score(path: Path, catalog) -> Score:
    want = expected(path)
    s = Score(path.name, bool(want.get("holdout")))
    try:
        code, out, err = run_cli(path)
    except Exception as exc:  # a traceback is a crash, reported, not raised
        s.crashed = f"{type(exc).__name__}: {exc}"[:200]
        return s
    if code == 2 or not out.strip():
        s.crashed = (err.strip().splitlines() or ["exit 2"])[-1][:200]
        return s
    r = json.loads(out)
    s.verdict = (r["verdict"], want["verdict"])
    build = r["quote"]["build"]
    found: dict[str, dict[str, int]] = {k: {} for k in KINDS}
    if build.get("cpu"):
        found["cpu"][build["cpu"]] = int(build.get("cpu_count", 1))
    if build.get("board"):
        found["board"][build["board"]] = 1
    for g in build.get("gpus", []):
        found["gpu"][g["model"]] = found["gpu"].get(g["model"], 0) + g["count"]
    unknown = [  # (kind, line text, qty) of each part the catalog lacks
        (p["kind"], _norm(x["text"]), x["qty"])
        for x in r["quote"]["lines"]
        for p in x["parts"]
        if p["kind"] in KINDS
        and not p["in_catalog"]
        and x["status"] in ("part", "recognized", "not_in_catalog")
    ]  # a mention (a title, a summary, a candidate) is shown, not read as a part of the build
    used_unknown: set[int] = set()
    expected_ids = {k: set() for k in KINDS}
    for part in want.get("parts") or []:
        kind = part["kind"]
        if "id" in part:
            pid, qty = part["id"], part.get("qty", 1)
            expected_ids[kind].add(pid)
            got = sum(
                n for f, n in found[kind].items() if f == pid or _base(catalog, f) == _base(catalog, pid)
            )
            s.parts.append((got == qty, f"{kind} {pid} x{qty}: got {got}"))
        else:
            frag = _norm(part["not_in_catalog"])
            hits = [i for i, (k, t, _) in enumerate(unknown) if k == kind and frag in t]
            used_unknown.update(hits)
            qty = part.get("qty")
            got_qty = sum(unknown[i][2] for i in hits)
            ok = bool(hits) and (qty is None or got_qty == qty)
            s.parts.append(
                (
                    ok,
                    f"{kind} not in catalog '{part['not_in_catalog']}'"
                    + (f" x{qty}: got {got_qty}" if qty else ""),
                )
            )
    for kind in want.get("missing") or []:
        s.parts.append((kind in r["missing"] and not found[kind], f"{kind} missing"))
    for kind in want.get("unknown_kinds") or []:
        used_unknown.update(i for i, (k, _, _) in enumerate(unknown) if k == kind)
        ok = not found[kind] and (kind in r["missing"] or any(k == kind for k, _, _ in unknown))
        s.parts.append((ok, f"{kind} unknown or missing"))
    if "psu_w" in want:
        s.parts.append(
            (build.get("psu_w") == want["psu_w"], f"psu {want['psu_w']} W: got {build.get('psu_w')}")
        )
    for kind in KINDS:
        for pid, n in found[kind].items():
            if pid in expected_ids[kind]:
                continue
            if _base(catalog, pid) == pid and any(_base(catalog, e) == pid for e in expected_ids[kind]):
                continue  # the expected partner card read as its GPU: less precise, not another part
            s.parts.append((False, f"{kind} {pid} x{n} read, not in the text"))
            s.wrong_matches.append(f"{kind} {pid}")
    known_unknown = {i for i, (k, _, _) in enumerate(unknown)} - used_unknown
    for i in sorted(known_unknown):
        k, t, q = unknown[i]
        s.parts.append((False, f"{k} read as a part the catalog lacks, not in the text's list: '{t[:60]}'"))
    by_line: dict[int, list] = {}
    for c in r["claims"]:
        by_line.setdefault(c["line"], []).append(c["verdict"])
    want_claims = {c["line"]: c for c in want.get("claims") or []}
    for line, c in want_claims.items():
        vs = by_line.get(line)
        got = (
            None
            if vs is None
            else (False if False in vs else (True if all(v is True for v in vs) else "unknown"))
        )
        s.claims.append((got == c["verdict"], f"line {line} {c['about']}: got {got}, want {c['verdict']}"))
    for line, vs in by_line.items():
        if line in want_claims:
            continue
        if any(v is True or v is False for v in vs):
            s.claims.append((False, f"line {line}: judged {vs}, not a claim the text makes"))
        else:
            s.extra_unknown_claims.append(f"line {line}")
    return s


@dataclass
class Figures:
    texts: int = 0
    verdicts: int = 0
    parts: int = 0
    parts_all: int = 0
    claims: int = 0
    claims_all: int = 0
    crashes: int = 0
    wrong_matches: int = 0

    def add(self, s: Score) -> None:
        self.texts += 1
        self.verdicts += s.verdict_right
        self.parts += sum(ok for ok, _ in s.parts)
        self.parts_all += len(s.parts)
        self.claims += sum(ok for ok, _ in s.claims)
        self.claims_all += len(s.claims)
        self.crashes += bool(s.crashed)
        self.wrong_matches += len(s.wrong_matches)

    @staticmethod
    def pct(a: int, b: int) -> str:
        return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"

    def line(self) -> str:
        return (
            f"{self.texts} texts: verdict right {self.pct(self.verdicts, self.texts)}; parts right "
            f"{self.pct(self.parts, self.parts_all)}; claims right {self.pct(self.claims, self.claims_all)}; "
            f"crashes {self.crashes}; wrong silent matches {self.wrong_matches}"
        )


def measure(holdout: bool | None = None) -> tuple[Figures, list[Score]]:
    from advisor.model.catalog.store import load_catalog

    catalog = load_catalog()
    figs, scores = Figures(), []
    for path in cases():
        if holdout is not None and bool(expected(path).get("holdout")) != holdout:
            continue
        s = score(path, catalog)
        figs.add(s)
        scores.append(s)
    return figs, scores


def describe(s: Score) -> str:
    bad = [w for ok, w in s.parts + s.claims if not ok]
    if s.crashed:
        bad = [f"CRASH {s.crashed}"]
    elif not s.verdict_right:
        bad.insert(0, f"verdict {s.verdict[0]}, want {s.verdict[1]}")
    return f"{'ok ' if not bad else 'BAD'} {s.name}" + "".join(f"\n      {b}" for b in bad)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent.parent))
    show_holdout = "--holdout" in sys.argv or "--all" in sys.argv
    figs, scores = measure(holdout=False)
    for s in scores:
        print(describe(s))
    print("in-corpus:", figs.line())
    hfigs, hscores = measure(holdout=True)
    if show_holdout:
        for s in hscores:
            print(describe(s))
    print("hold-out: ", hfigs.line())
