"""Safe by construction: no eval/exec, safe YAML only, XML without DTDs, rule
conditions that cannot reach attributes, imports or unbounded arithmetic, a server on localhost."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import ROOT

FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "breakpoint"}


def _sources():
    return sorted((ROOT / "advisor").rglob("*.py"))


def test_no_module_of_advisor_calls_eval_exec_or_loads_unsafely():
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Name) and f.id in FORBIDDEN_CALLS:
                    found.append(f"{where}: {f.id}()")
                if isinstance(f, ast.Attribute) and f.attr in (
                    "load",
                    "load_all",
                    "unsafe_load",
                    "full_load",
                ):
                    if isinstance(f.value, ast.Name) and f.value.id == "yaml":
                        loader = [k for k in node.keywords if k.arg == "Loader"]
                        if not loader:
                            found.append(f"{where}: yaml.{f.attr} without the safe loader")
                if isinstance(f, ast.Attribute) and f.attr == "system" and getattr(f.value, "id", "") == "os":
                    found.append(f"{where}: os.system()")
                if any(k.arg == "shell" and getattr(k.value, "value", False) is True for k in node.keywords):
                    found.append(f"{where}: a subprocess with shell=True")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(n.split(".")[0] in ("pickle", "marshal", "shelve", "dill") for n in names):
                    found.append(f"{where}: imports {names}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "tag",
    [
        '!!python/object/apply:os.system ["echo owned"]',
        "!!python/name:os.system",
        '!!python/object/new:subprocess.Popen [["echo", "owned"]]',
    ],
)
def test_yaml_python_tags_are_refused_in_every_file_a_user_gives(cli, write, tag):
    build = write(
        "b.yaml", f"cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{{model: RTX 4090}}]\nname: {tag}\n"
    )
    code, _, err = cli("plan", str(build))
    assert code == 2 and f"{build}:4:" in err and "not valid YAML" in err
    quote = write("q.yaml", f"title: {tag}\nparts: [RTX 4090]\n")
    code, _, err = cli("validate", str(quote))
    assert code == 2 and "not valid YAML" in err


@pytest.mark.parametrize(
    ("when", "said"),
    [
        ("__import__('os').system('echo owned') == 0", "calls a method"),
        ("build.__class__ is not None", "unknown fact 'build.__class__'"),
        ("9**9**9 > 0", "uses ** or <<"),
        ("len([1] * 10000000) > 0", "repeats a string or a list with *"),
    ],
)
def test_rule_conditions_cannot_reach_imports_attributes_or_unbounded_work(cli, tmp_path, when, said):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.yaml").write_text(
        "kind: rules\nrules:\n  - id: EVL001\n    category: lanes\n    severity: info\n    scope: build\n"
        f'    title: evil\n    when: "{when}"\n    message: "hit"\n    why: x\n    fix: x\n'
        "    sources: ['https://example.com']\n"
    )
    code, _, err = cli("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"), "--rules", str(rules))
    assert code == 2 and said in err, err


def test_the_server_listens_on_this_machine_only_unless_told():
    from advisor.cli.parser import parser

    assert parser().parse_args(["serve"]).host == "127.0.0.1"
