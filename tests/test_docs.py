"""The README and the pages in docs/ as a reader meets them: a short front page whose Quickstart is the
two commands CI runs, links that lead somewhere, commands that run, output excerpts that are what
the commands print today, and pictures of the app made by docs/make_screenshots.py."""

from __future__ import annotations

import contextlib
import html
import io
import re
import shlex
import subprocess
import sys

import pytest

from advisor.cli.parser import parser
from advisor.main import main
from tests.conftest import ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
# A front page read in five minutes: it was 63 KB and 769 lines when everything lived in it
README_MAX_BYTES = 12_000
README_MAX_LINES = 220


def text(path) -> str:
    return path.read_text(encoding="utf-8")


def name(path) -> str:
    return str(path.relative_to(ROOT))


def svg_text(path) -> str:
    """The characters an SVG screenshot shows, as one string."""
    svg = path.read_text(encoding="utf-8")
    return html.unescape(" ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))).replace("\xa0", " ")


def code_blocks(markdown: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", markdown, flags=re.M | re.S)


def section(markdown: str, heading: str) -> str:
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", markdown, flags=re.M | re.S)
    assert m, f"no '## {heading}' section"
    return m.group(1)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces to hyphens."""
    plain = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-")


def anchors(path) -> set[str]:
    body = re.sub(r"^```.*?^```$", "", text(path), flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", body, flags=re.M)}


def links(path) -> list[str]:
    body = re.sub(r"^```.*?^```$", "", text(path), flags=re.M | re.S)
    body = re.sub(r"`[^`]*`", "", body)
    return re.findall(r"\]\(([^)\s]+)\)", body)


def advisor_commands(path) -> list[list[str]]:
    """Every `advisor ...` command line of the page's sh and console blocks, as arguments."""
    out = []
    for block in code_blocks(text(path), "sh") + code_blocks(text(path), "console"):
        for line in block.splitlines():
            line = line.removeprefix("$ ")
            if not line.startswith("advisor "):
                continue
            words = shlex.split(line, comments=True)[1:]
            for stop in (">", "<", "|", "&&"):
                if stop in words:
                    words = words[: words.index(stop)]
            out.append(words)
    return out


# ------------------------------------------------------------------------------- the front page


def test_the_readme_is_a_front_page_not_a_manual():
    readme = text(README)
    assert len(readme.encode("utf-8")) <= README_MAX_BYTES, "move the detail into a docs/ page"
    assert len(readme.splitlines()) <= README_MAX_LINES, "move the detail into a docs/ page"
    for heading in ("Quickstart", "Plan a build", "Validate a vendor's quote", "Check a machine you have"):
        section(readme, heading)
    assert "advisor workload" in section(readme, "Will N GPUs beat one?")


def test_the_quickstart_is_exactly_the_two_commands_ci_runs():
    quickstart = section(text(README), "Quickstart")
    commands = code_blocks(quickstart, "sh")
    assert len(commands) == 2, commands
    assert all(c.count("\n") == 1 for c in commands), "each command is one line"
    first, second = (c.strip() for c in commands)
    assert first.startswith("python3 -m venv .venv && ") and first.endswith(
        "advisor plan examples/2x4090-z790-hero.yaml"
    )
    assert (ROOT / "examples" / "2x4090-z790-hero.yaml").is_file()
    ci = text(ROOT / ".ci" / "run")
    assert second in ci.splitlines(), ".ci/run must run the README's second command verbatim"
    # where torch's CPU build comes from on a machine without this project's local wheels
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in quickstart


def test_every_docs_page_is_reachable_from_the_readme():
    linked = {link.split("#")[0] for link in links(README)}
    for page in PAGES[1:]:
        assert name(page) in linked, f"{name(page)} is not linked from the README"


def test_no_page_tells_the_project_s_history():
    history = re.compile(
        r"\bissue[- ]?#?\d|\bround[- ]?\d|\b(?:this|first|second|third|last|next|previous) (?:\w+ )?round\b",
        re.I,
    )
    for page in PAGES:
        for n, line in enumerate(text(page).splitlines(), 1):
            assert not history.search(line), f"{name(page)}:{n}: {line}"


# ------------------------------------------------------------------------------------ links


def test_every_relative_link_leads_to_a_file_and_heading_that_exist():
    checked = 0
    for page in PAGES:
        for link in links(page):
            if re.match(r"[a-z]+:", link):
                continue  # a web address
            target, _, anchor = link.partition("#")
            path = (page.parent / target).resolve() if target else page
            assert path.exists(), f"{name(page)}: {link} leads nowhere"
            if anchor:
                assert anchor in anchors(path), f"{name(page)}: {link}: no such heading in {target or 'it'}"
            checked += 1
    assert checked >= 30  # the pages do link to each other


def test_the_link_check_knows_github_s_anchors():
    assert slug("In a browser: `advisor serve`") == "in-a-browser-advisor-serve"
    assert slug("Windows, virtual machines and the other socket's memory") == (
        "windows-virtual-machines-and-the-other-sockets-memory"
    )
    assert slug("Will N GPUs beat one: speed-ups") == "will-n-gpus-beat-one-speed-ups"


# --------------------------------------------------------------------------------- commands


def test_every_command_shown_is_one_the_parser_takes():
    shown = 0
    for page in PAGES:
        for words in advisor_commands(page):
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err):
                    parser().parse_args(words)
            except SystemExit:
                pytest.fail(f"{name(page)}: advisor {' '.join(words)}: {err.getvalue().strip()}")
            shown += 1
    assert shown >= 40


CONSOLE = [
    (page, block)
    for page in PAGES
    for block in code_blocks(text(page), "console")
    if block.startswith("$ advisor ")
]


@pytest.mark.parametrize("page, block", CONSOLE, ids=[b.splitlines()[0][2:60] for _, b in CONSOLE])
def test_each_output_excerpt_is_what_the_command_prints(page, block, capsys, monkeypatch):
    """An excerpt (lines of a console block after its `$ advisor ...` line; `...` marks a gap) must
    appear in the command's output, in order, as printed at 100 columns."""
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(ROOT)
    command, *excerpt = block.rstrip("\n").splitlines()
    code = main(shlex.split(command)[2:])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    printed = [line.rstrip() for line in out.splitlines()]
    at = 0
    chunks = re.split(r"\n\.\.\.\n", "\n" + "\n".join(excerpt) + "\n")
    for chunk in (c.strip("\n") for c in chunks):
        if not chunk or chunk == "...":
            continue
        want = [line.rstrip() for line in chunk.splitlines()]
        found = next(
            (i for i in range(at, len(printed) - len(want) + 1) if printed[i : i + len(want)] == want), None
        )
        assert found is not None, f"{name(page)}: not in `{command[2:]}` today:\n" + "\n".join(want)
        at = found + len(want)


def test_the_readme_shows_at_least_three_excerpts():
    assert len([p for p, _ in CONSOLE if p == README]) >= 3


# --------------------------------------------------------------------------------- pictures


def test_the_screenshot_script_draws_the_app_as_a_user_sees_it(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "make_screenshots.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    plan, matrix, findings = (
        svg_text(tmp_path / n) for n in ("tui-plan.svg", "tui-matrix.svg", "tui-findings.svg")
    )
    for shown in (plan, matrix, findings):
        assert "ROG Maximus Z790 Hero" in shown and "all-reduce" in shown
        assert str(ROOT) not in shown  # no path of the machine it was made on
    assert "PCIEX16(G5)_2" in plan  # the build panel with each card's slot
    assert "PHB" in matrix and "SHM" in matrix  # the pair's path class and NCCL transport
    assert "LANE001" in findings


def test_the_pages_show_the_committed_pictures():
    shown = {}
    for page in PAGES:
        for picture in re.findall(r"!\[[^\]]*\]\(([^)]+\.svg)\)", text(page)):
            shown[(page.parent / picture).resolve()] = page
    assert re.search(r"!\[[^\]]*\]\(docs/tui-plan\.svg\)", text(README)), (
        "the README shows no picture of the app"
    )
    for path, page in shown.items():
        assert path.is_file(), f"{name(page)}: {path.name} is not committed"
        assert "advisor" in svg_text(path)
