"""Every command's --help as a person reads it: each option says what it is for, and `plan --help`
stays short enough to read (its job flags beyond the common ones live in `workload --help`)."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from advisor.cli.parser import parser
from advisor.main import main
from tests.conftest import ROOT

# plan --help was 135 lines when every job flag was listed there, one help line wrapped into several
PLAN_HELP_MAX_LINES = 50


def commands(p: argparse.ArgumentParser, name: tuple[str, ...] = ()):
    """(words that name the command, its parser) for every command and subcommand."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield (*name, word), sub
                yield from commands(sub, (*name, word))


def leaf_commands() -> list[tuple[str, ...]]:
    return [
        words
        for words, sub in commands(parser())
        if not any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
    ]


def help_of(capsys, monkeypatch, *words: str) -> str:
    monkeypatch.setenv("COLUMNS", "80")  # as in a pipe: what `advisor plan --help | wc -l` counts
    with pytest.raises(SystemExit) as done:
        main([*words, "--help"])
    assert done.value.code == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def option_help(text: str, option: str) -> str:
    """The help text printed for `option` (its line and any continuation lines), '' when none."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"^  (?:-\w, )?{re.escape(option)}\b(?:[ =][^ ]+)?( {{2,}}(.*))?$", line)
        if m:
            said = [m.group(2) or ""]
            for more in lines[i + 1 :]:
                if not re.match(r"^ {6,}\S", more):
                    break
                said.append(more.strip())
            return " ".join(s for s in said if s).strip()
    return ""


def test_every_option_of_every_command_has_help_text():
    missing = []
    for words, sub in commands(parser()):
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            if action.help is None or not action.help.strip():
                missing.append(f"advisor {' '.join(words)} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_every_json_and_catalog_flag_says_what_it_does_in_the_printed_help(capsys, monkeypatch):
    seen = 0
    for words in leaf_commands():
        text = help_of(capsys, monkeypatch, *words)
        for option in ("--json", "--catalog"):
            if re.search(rf"^  {option}\b", text, flags=re.M):
                seen += 1
                assert len(option_help(text, option)) >= 10, f"advisor {' '.join(words)} {option}:\n{text}"
    assert seen >= 20  # the check found the flags it is about


def test_plan_help_is_grouped_and_short(capsys, monkeypatch):
    text = help_of(capsys, monkeypatch, "plan")
    assert len(text.splitlines()) <= PLAN_HELP_MAX_LINES, text
    for group in ("build", "software settings", "output", "job"):
        assert re.search(rf"^{group}\b.*:$", text, flags=re.M), f"no {group!r} group in:\n{text}"
    for option in ("--cpu", "--board", "--gpu", "--driver", "--bios", "--json", "--format", "--train"):
        assert option_help(text, option), option
    assert "advisor workload --help" in text  # where the other job flags are explained


def test_the_job_flags_plan_does_not_list_are_explained_by_workload(capsys, monkeypatch):
    plan = next(sub for words, sub in commands(parser()) if words == ("plan",))
    hidden = [a.option_strings[0] for a in plan._actions if a.help == argparse.SUPPRESS]
    assert "--lora" in hidden and "--quant" in hidden
    workload = help_of(capsys, monkeypatch, "workload")
    for option in hidden:
        assert option_help(workload, option), f"{option} is explained nowhere"
    # and plan still takes them
    code = main(
        ["plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--train", "8b", "--qlora", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    job = json.loads(out)["workload"]["workload"]
    assert (job["lora_rank"], job["base_bits"]) == (16, 4)
