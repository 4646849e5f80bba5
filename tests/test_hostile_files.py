"""Hostile files: each ends at once with one clear message, exit 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.procs import signal_validate

BOMB = "\n".join(
    ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
)


def run(*args: str, timeout: float = 120) -> tuple[int, str, str]:
    """The real command, as a user runs it, with a memory cap so a bomb cannot take the machine and a CPU
    cap (30 s of its own CPU time, whatever else loads the machine) so a runaway expansion is killed and
    fails the test; the wall-clock timeout only ends a command blocked for good (a FIFO read)."""
    done = subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, ADVISOR_STATE_DIR=os.environ.get("ADVISOR_STATE_DIR", "/tmp")),
        preexec_fn=_limit_memory if sys.platform.startswith("linux") else None,
    )
    return done.returncode, done.stdout, done.stderr


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (30, 30))


@pytest.mark.parametrize(
    "where",
    ["nvlink: *a9", "nvme:\n  - socket: M.2_1\n    notes: *a9"],
    ids=["top-level", "inside-an-nvme-item"],
)
def test_a_yaml_quote_with_an_alias_bomb_is_refused_at_once(tmp_path, where):
    quote = tmp_path / "quote.yaml"
    quote.write_text(
        f"title: 2x 4090\n{BOMB}\nparts:\n  - NVIDIA GeForce RTX 4090 x2\n  - Intel Core i9-14900K\n{where}\n"
    )
    code, out, err = run("validate", str(quote))
    assert code == 2, err
    # the line of the first value that grows past the limit: a5's, 9**6 values, on line 7
    assert f"{quote}:7: this YAML cannot be read: it expands to more than 200,000 values" in err
    assert "Traceback" not in err and out == ""


def test_a_build_file_with_an_alias_bomb_or_a_self_reference_is_refused(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(f"{BOMB}\ncpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: *a9\n")
    code, _, err = run("plan", str(bomb))
    assert code == 2 and "expands to more than 200,000 values" in err and "Traceback" not in err
    loop = tmp_path / "loop.yaml"
    loop.write_text("cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: &g [*g]\n")
    code, _, err = run("plan", str(loop))
    assert (
        code == 2
        and f"{loop}:3: this YAML cannot be read: an alias refers to the value that contains it" in err
    )


def test_aliases_of_ordinary_size_still_read(tmp_path):
    build = tmp_path / "build.yaml"
    build.write_text(
        "card: &card {model: RTX 4090, count: 1}\ncpu: i9-14900K\nboard: ROG Maximus Z790 Hero\n"
        "gpus: [*card, *card]\n"
    )
    code, out, err = run("plan", str(build), "--json")
    # the extra top-level key is the build's own business; what matters is that aliases are read
    assert "cannot be read" not in err and "Traceback" not in err, err
    assert code in (0, 1, 2)


def test_a_rules_file_of_one_rule_repeated_is_refused_before_it_is_checked(tmp_path):
    """A user's rules folder holding the bundled rules with one line repeated 150,000 times (a mutation
    the long fuzz run found): each repeat is a rule to check, and checking them took 20 s and 2 GB, past
    the fuzz budget; the file is refused as soon as it is read, under the same caps as any command."""
    rules = tmp_path / "rules"
    rules.mkdir()
    text = (ROOT / "rules" / "findings.yaml").read_text(encoding="utf-8")
    head, sep, tail = text.partition("rules:\n")
    assert sep, "rules/findings.yaml has a top-level rules list"
    (rules / "findings.yaml").write_text(head + sep + "  - id: MEM002\n" * 150_000 + tail, encoding="utf-8")
    code, out, err = run("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--rules", str(rules))
    assert code == 2 and out == "", err
    assert re.search(r"findings\.yaml:\d+: this YAML cannot be read: it holds more than 100,000 values", err)
    assert "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_a_rules_folder_does_not_block(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    os.mkfifo(rules / "x.yaml")
    code, _, err = run("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--rules", str(rules))
    assert code == 0, err


def test_a_rules_folder_file_that_is_not_a_rules_file_is_named(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.yml").write_text("kind: rule\nrules: []\n")
    (rules / "empty.yaml").write_text("")
    code, _, err = run("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--rules", str(rules))
    assert code == 2
    assert f"{rules / 'mine.yml'}:1: not a rules file: kind is 'rule'" in err
    assert f"{rules / 'empty.yaml'}: not a rules file: it is empty" in err


def test_escape_sequences_in_a_quote_never_reach_the_terminal(cli, write):
    quote = write(
        "esc.txt",
        "CPU: Intel Core i9-14900K \x1b[2J\x1b]0;pwned\x07\nBoard: ASUS ROG Maximus Z790 Hero\n"
        "GPU: 2x RTX 4090\nNote: \x1b[31mthis is red\x1b[0m P2P works \x9b31m\u202e\n",
    )
    for fmt in ("text", "markdown"):
        code, out, err = cli("validate", str(quote), "--format", fmt)
        assert code == 1, err
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\u202e" not in out
        # a coloured copy reads as its plain text, and the claim in it is still judged
        assert "Note: this is red P2P works" in out
    assert "\\u202e" in cli("validate", str(quote))[1]  # what is not an escape sequence is written out


def test_a_control_character_in_a_part_or_build_name_is_refused_where_it_is_written(cli, write, tmp_path):
    cpu = (ROOT / "catalog" / "cpus" / "intel-core-i9-14900k.yaml").read_text()
    folder = tmp_path / "mine"
    folder.mkdir()
    evil = "\n".join(
        'id: "evil-cpu"'
        if ln.startswith("id:")
        else 'name: "Evil \\e]0;pwned\\a CPU"'
        if ln.startswith("name:")
        else ln
        for ln in cpu.splitlines()
    )
    (folder / "evil.yaml").write_text(evil + "\n")
    code, out, err = cli("catalog", "validate", "--catalog", str(folder))
    assert code == 1
    assert f'{folder / "evil.yaml"}:3: name: "Evil \\x1b]0;pwned\\x07 CPU" holds a control character' in err
    assert "\x1b" not in out + err
    build = write(
        "b.yaml",
        'name: "my \\e[31mbuild"\ncpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{model: RTX 4090}]\n',
    )
    code, out, err = cli("plan", str(build))
    assert code == 2 and f'{build}:1: name: "my \\x1b[31mbuild" holds a control character' in err


def test_a_markdown_report_never_carries_html_or_links_from_the_quote(cli, write):
    quote = write(
        "md.txt",
        "CPU: Intel Core i9-14900K <script>alert(1)</script>\nBoard: ASUS ROG Maximus Z790 Hero\n"
        "GPU: 2x RTX 4090 <img src=x onerror=alert(1)>\nNote: P2P works [click](javascript:alert(1)) <javascript:x>\n",
    )
    code, out, _ = cli("validate", str(quote), "--format", "markdown")
    assert code == 1
    assert "<script>" not in out and "<img" not in out and "<javascript:" not in out
    assert not re.search(r"(?<!\\)\]\(javascript:", out)  # the link syntax is broken: \[click\](...)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out  # shown, as the vendor wrote it


def test_a_source_url_that_cannot_be_parsed_is_no_traceback(cli, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    gpu = (ROOT / "catalog" / "gpus" / "nvidia-rtx-pro-5000-blackwell.yaml").read_text()
    (folder / "x.yaml").write_text(gpu.replace('"https://', '"https://[', 1))  # found by tests/test_fuzz.py
    for args in (("catalog", "validate"), ("catalog", "audit")):
        code, _, err = cli(*args, "--catalog", str(folder))
        assert code in (0, 1) and "Traceback" not in err


@pytest.mark.parametrize("after", ["advisor", "advisor.main"])
def test_sigterm_ends_a_command_with_one_line_and_143(after):
    import signal

    # `validate -` waits on its stdin (held open), so the command is still there when the signal
    # comes, whether it arrives while the modules load or once the command runs
    code, err = signal_validate(after, signal.SIGTERM)
    assert code == 143, err
    assert err.strip() == "advisor: terminated"


def test_a_build_nested_hundreds_of_levels_deep_is_refused_not_a_recursion_error(cli, tmp_path):
    import json

    node: dict = {"gpu": "RTX 6000 Ada"}
    for i in range(400):  # 400 switches one under another: found by hand, a RecursionError traceback
        node = {"switch": f"s{i}", "children": [node]}
    root_port = {"id": "00:01.1", "host_bridge": "00", "children": [node]}
    doc = {"topology": {"sockets": [{"vendor": "amd", "root_ports": [root_port]}]}}
    build = tmp_path / "deep.yaml"
    build.write_text(json.dumps(doc))  # JSON is YAML
    code, _, err = cli("plan", str(build))
    assert code == 2 and "this YAML cannot be read: it is nested more than 100 levels deep" in err


def test_the_whole_build_is_bounded_before_any_work(cli, write):
    many = write(
        "many.yaml",
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n" + "  - {model: RTX 4090, count: 16}\n" * 500,
    )
    code, _, err = cli("plan", str(many))
    assert code == 2 and "the `gpus` entries add up to 8000 GPUs; advisor plans machines of up to 64" in err
    drives = write(
        "drives.yaml",
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{model: RTX 4090}]\nnvme:\n"
        + "  - {socket: M.2_1}\n" * 100,
    )
    code, _, err = cli("plan", str(drives))
    assert code == 2 and "`nvme` lists 100 entries; a machine has at most 64" in err
