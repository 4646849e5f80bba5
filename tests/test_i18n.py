"""The message catalogs and the choice of language: the compiled catalog is the one its .po gives, every
sentence the code and the rules mark has a translation that keeps its placeholders, the language follows
--lang, then $ADVISOR_LANG, then the locale, and machine-readable output is the same in every language."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from advisor import i18n

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "advisor" / "locale" / "zh_CN" / "LC_MESSAGES" / "advisor.po"
MO = PO.with_suffix(".mo")
SEED = ["plan", "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2"]
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _catalog():
    with open(PO, "rb") as f:
        return read_po(f)


def _first(msgid) -> str:
    return msgid[0] if isinstance(msgid, (list, tuple)) else msgid


def _translated(m) -> str:
    return m.string[0] if isinstance(m.string, (list, tuple)) else m.string


def test_the_committed_mo_is_the_compiled_po():
    """A translator who edits the .po and forgets `scripts/i18n.sh compile` ships the old sentences."""
    assert MO.read_bytes() == i18n.compiled(PO), "run scripts/i18n.sh compile"


def test_the_po_says_chinese_has_one_plural_form():
    cat = _catalog()
    assert cat.num_plurals == 1 and cat.plural_expr == "0"
    plurals = [m for m in cat if m.id and m.pluralizable]
    assert plurals, "the catalog has sentences with plural forms (ngettext)"


def test_every_sentence_the_code_and_the_rules_mark_is_in_the_catalog_translated():
    """Extract as scripts/i18n.sh does (babel.cfg): a sentence added to the code or a rule without running
    `scripts/i18n.sh` (and translating it) fails here, naming it."""
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    extracted = {
        _first(msg)
        for _file, _line, msg, _comments, _context in extract_from_dir(
            str(ROOT),
            method_map,
            options_map,
            keywords={"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)},
        )
    }
    translated = {_first(m.id) for m in _catalog() if m.id and _translated(m) and "fuzzy" not in m.flags}
    missing = sorted(extracted - translated)
    assert not missing, f"{len(missing)} sentence(s) without a translation, e.g. {missing[:5]}"


def test_every_translation_keeps_the_placeholders_of_its_sentence():
    """A translation that drops or renames {gpu.index} would fail when the finding is filled in."""
    wrong = []
    for m in _catalog():
        if not m.id or not _translated(m):
            continue
        sources = m.id if isinstance(m.id, (list, tuple)) else [m.id]
        want = {tuple(sorted(set(PLACEHOLDER.findall(s)))) for s in sources}
        got = tuple(sorted(set(PLACEHOLDER.findall(_translated(m)))))
        if got not in want:
            wrong.append((_first(m.id)[:60], got))
    assert not wrong, wrong[:5]


def test_every_rule_has_every_language():
    """Each rule's title, message, why and fix in rules/*.yaml has its Chinese in the catalog."""
    translated = {_first(m.id): _translated(m) for m in _catalog() if m.id}
    rules = 0
    for path in sorted((ROOT / "rules").glob("*.yaml")):
        data = yaml.safe_load(path.read_text()) or {}
        for rule in data.get("rules", []) if isinstance(data, dict) else []:
            rules += 1
            for key in i18n.RULE_TEXTS:
                text = rule.get(key)
                if text:
                    assert translated.get(text), f"{path.name} {rule['id']} {key} has no Chinese"
                    assert translated[text] != text or not re.search("[a-z]{3}", text), (rule["id"], key)
    assert rules > 60


@pytest.mark.parametrize(
    "flag, env, want",
    [
        ("zh", {"ADVISOR_LANG": "en", "LANG": "en_US.UTF-8"}, "zh"),
        ("en", {"ADVISOR_LANG": "zh"}, "en"),
        (None, {"ADVISOR_LANG": "zh", "LANG": "en_US.UTF-8"}, "zh"),
        (None, {"ADVISOR_LANG": "fr"}, "en"),
        (None, {"LANG": "zh_CN.UTF-8"}, "zh"),
        (None, {"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US"}, "zh"),
        (None, {"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),  # the first one set wins, as in setlocale
        (None, {"LC_MESSAGES": "zh_CN", "LANG": "de_DE"}, "zh"),
        (None, {}, "en"),
    ],
)
def test_the_language_is_the_flag_then_advisor_lang_then_the_locale(flag, env, want):
    assert i18n.resolve(flag, env) == want


def test_lang_is_taken_before_or_after_the_command(cli):
    for args in (["--lang", "zh", *SEED], [*SEED, "--lang", "zh"], ["--lang=zh", *SEED]):
        code, out, err = cli(*args)
        assert code == 0, err
        assert out.startswith("多卡性能偏弱的配置"), out[:80]
    assert i18n.language() == "en", "a command's language ends with the command"


def test_an_unknown_language_is_a_clear_error(cli):
    code, out, err = cli("--lang", "fr", *SEED)
    assert code == 2 and out == ""
    assert err.strip() == "advisor: error: --lang 'fr': advisor answers in en, zh"


def test_the_locale_chooses_chinese_for_a_real_process(monkeypatch):
    monkeypatch.delenv("ADVISOR_LANG")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    r = subprocess.run([sys.executable, "-m", "advisor", *SEED], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "发现的问题" in r.stdout
    monkeypatch.setenv("ADVISOR_LANG", "en")
    r = subprocess.run([sys.executable, "-m", "advisor", *SEED], capture_output=True, text=True, cwd=ROOT)
    assert r.stdout.startswith("A weak multi-GPU build")


def test_an_error_keeps_its_file_and_line_and_says_the_rest_in_chinese(cli, tmp_path):
    build = tmp_path / "build.yaml"
    build.write_text(
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n  - model: RTX 4090\n    count: two\n"
    )
    code, _out, err_en = cli("plan", str(build))
    code_zh, _out, err_zh = cli("--lang", "zh", "plan", str(build))
    assert code == code_zh == 2
    where = f"{build}:5"
    assert where in err_en and where in err_zh
    assert err_zh.startswith("advisor：错误：")


def _shape(x):
    """The keys of a JSON document, every level, with lists reduced to the shapes of their items."""
    if isinstance(x, dict):
        return {k: _shape(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_shape(v) for v in x]
    return type(x).__name__


IDENT = re.compile(r"^[A-Za-z0-9_.:/+-]+$")


def _ids(x) -> list:
    """Every identifier-like value of the document (rule ids, severities, verdict words, layers, paths):
    what a script matches on. Sentences may be translated; these may not."""
    out = []
    if isinstance(x, dict):
        for v in x.values():
            out += _ids(v)
    elif isinstance(x, list):
        for v in x:
            out += _ids(v)
    elif isinstance(x, str) and IDENT.match(x):
        out.append(x)
    elif isinstance(x, (int, float, bool)) or x is None:
        out.append(x)
    return out


@pytest.mark.parametrize(
    "args",
    [
        SEED,
        ["validate", "examples/quotes/taobao-14900k-dual-4090.txt"],
        ["workload", "examples/2x4090-z790-hero.yaml", "--train", "llama-3-8b", "--lora", "16"],
        [
            "compare",
            "examples/2x4090-z790-hero.yaml",
            "tests/fixtures/tools/p2p/kinghorn_2x4090_driver525_cannot_access.txt",
            "tests/fixtures/tools/topo_p2p/club3090_1124_2x5090_gns_rw.txt",
            "tests/fixtures/tools/cmdline/aikitoria38_dmesg_iommu_pt.txt",
        ],
        ["doctor", "--lspci", "tests/fixtures/doctor/lspci/wrx90e-sage-1224bc75f732.txt", "--no-load"],
        ["accuracy"],
        ["catalog", "list"],
        ["catalog", "audit"],
        ["rules", "list"],
        ["rules", "facts"],
    ],
    ids=[
        "plan",
        "validate",
        "workload",
        "compare",
        "doctor",
        "accuracy",
        "catalog-list",
        "catalog-audit",
        "rules-list",
        "rules-facts",
    ],
)
def test_json_keys_rule_ids_and_verdicts_are_the_same_in_every_language(cli, args):
    code, out_en, err = cli(*args, "--json")
    assert code in (0, 1), err
    code_zh, out_zh, err = cli("--lang", "zh", *args, "--json")
    assert code_zh == code, err
    en, zh = json.loads(out_en), json.loads(out_zh)
    assert _shape(en) == _shape(zh)
    assert _ids(en) == _ids(zh)


def test_numbers_follow_the_language_with_babel():
    i18n.set_language("zh")
    try:
        assert i18n.decimal(1234.56, 1) == "1234.6"  # no grouping: the same figures as the JSON
        assert i18n.ngettext("{n} warning", "{n} warnings", 5) == "{n} 个警告"
    finally:
        i18n.set_language("en")
    assert i18n.decimal(13.25, 1) == f"{13.25:.1f}"
    assert i18n.ngettext("{n} warning", "{n} warnings", 1) == "{n} warning"


def test_english_is_the_source_text_untouched(cli):
    code, out, _err = cli(*SEED)
    assert code == 0
    assert not re.search(r"[\u4e00-\u9fff]", out)


def _binds_and_calls_underscore(fn) -> tuple[list[int], list[int]]:
    """Lines where a function binds `_` itself (a loop or unpacking target outside a comprehension, which
    makes `_` local to the whole function) and lines where it calls `_()`."""
    import ast

    binds, calls = [], []
    stack = [(c, False) for c in ast.iter_child_nodes(fn)]
    while stack:
        node, in_comp = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue  # its own scope, checked on its own
        inner = in_comp or isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store) and not in_comp:
            binds.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
            calls.append(node.lineno)
        stack.extend((c, inner) for c in ast.iter_child_nodes(node))
    return binds, calls


def test_no_function_hides_the_translation_function_behind_a_throwaway_name():
    """`part, _, field = ...` in a function that also translates makes `_` a string there: the sentence
    fails with "'str' object is not callable" only on the path that reaches it (an unknown catalog value
    did). Comprehensions have their own scope and are fine."""
    import ast

    bad = []
    for path in sorted((ROOT / "advisor").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                binds, calls = _binds_and_calls_underscore(fn)
                if binds and calls:
                    bad.append(f"{path.relative_to(ROOT)}:{binds[0]} ({fn.name})")
    assert not bad, "rename the throwaway `_` where the function also calls _(): " + ", ".join(bad)
