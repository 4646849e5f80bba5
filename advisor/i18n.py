"""The language advisor answers in: English (the source text) or Simplified Chinese.

Every sentence a user reads is written whole in English in the code (or in rules/*.yaml), with its
values put in by name, and looked up at the moment it is shown in a gettext catalog compiled from
advisor/locale/<locale>/LC_MESSAGES/advisor.po (managed with Babel: docs/languages.md). A sentence
with no translation is shown in English, never dropped.

The language is chosen once per command: `--lang zh|en`, else $ADVISOR_LANG, else the locale
($LC_ALL, $LC_MESSAGES, $LANG, the first one set; zh_CN.UTF-8 and the like mean Chinese), else English.
Machine-readable output (JSON keys, rule ids, enum values) never changes with the language.

Core module: standard library only at import (Babel is imported when a number is formatted).
"""

from __future__ import annotations

import gettext as _gettext
import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

DOMAIN = "advisor"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
# language code (what --lang takes) -> the catalog's locale name (a folder of LOCALE_DIR) and the
# language tag an HTML page declares
LANGUAGES = {"en": ("en", "en"), "zh": ("zh_CN", "zh-CN")}

_current = "en"
_catalogs: dict[str, _gettext.NullTranslations] = {}


def resolve(flag: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The language code a command runs in: the flag, else $ADVISOR_LANG, else the locale, else en.
    An $ADVISOR_LANG or a locale advisor has no catalog for means English (a flag is checked by the
    parser); a locale 'C' or 'POSIX' is English too."""
    env = os.environ if env is None else env
    if flag:
        return flag
    chosen = env.get("ADVISOR_LANG", "").strip().lower()
    if chosen:
        return _code(chosen) or "en"
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "").strip()
        if value:  # the first one set wins, as in C's setlocale
            return _code(value.lower()) or "en"
    return "en"


def _code(value: str) -> str | None:
    """'zh', 'zh_CN.UTF-8', 'zh-Hans' -> 'zh'; 'en_US' -> 'en'; anything else -> None."""
    for code in LANGUAGES:
        if value == code or value.startswith((code + "_", code + "-", code + ".")):
            return code
    return None


def set_language(code: str) -> None:
    if code not in LANGUAGES:
        raise ValueError(f"no such language: {code!r} (one of {', '.join(LANGUAGES)})")
    global _current
    _current = code


def language() -> str:
    return _current


def html_lang() -> str:
    """The language tag of a page in the current language (lang="zh-CN")."""
    return LANGUAGES[_current][1]


def catalog(code: str | None = None) -> _gettext.NullTranslations:
    """The compiled catalog of a language (English: none, the source text is English)."""
    code = code or _current
    if code not in _catalogs:
        locale = LANGUAGES[code][0]
        _catalogs[code] = _gettext.translation(
            DOMAIN, localedir=str(LOCALE_DIR), languages=[locale], fallback=True
        )
    return _catalogs[code]


def _(message: str) -> str:
    """`message` in the current language (itself where it has no translation)."""
    if _current == "en" or not message:
        return message
    return catalog().gettext(message)


def pgettext(context: str, message: str) -> str:
    """`message` in the current language, where the same English word means another thing elsewhere
    ("on" over a column of what a finding is about; "on" as a setting's value): the catalog tells the
    two apart by `context`."""
    if _current == "en" or not message:
        return message
    return catalog().pgettext(context, message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a sentence for a count `n` (Chinese has one form; English two)."""
    if _current == "en":
        return singular if n == 1 else plural
    return catalog().ngettext(singular, plural, n)


def sentences(parts: list[str]) -> str:
    """Whole sentences one after another: a space between two in English; in Chinese none after a
    sentence that ends in a full-width stop (。；！？), as Chinese is written."""
    if _current == "en":
        return " ".join(parts)
    out = ""
    for part in parts:
        if out and out[-1] not in "。；！？）":
            out += " "
        out += part
    return out


def N_(message: str) -> str:
    """Marks a sentence for the catalog where it is written (a module constant) without translating it
    there: it is translated where it is shown, with `_`, once the language is known."""
    return message


# a note a reader writes is a sentence or two (the longest, a list of bridges, a few hundred characters);
# a measurement file edited by hand may hold one of megabytes
MAX_RETOLD = 4096


def retell(text: str, templates: Sequence[str], depth: int = 4) -> str:
    """`text`, an English sentence made from one of `templates` (msgids whose {name}s are simple names),
    said again in the current language, each value itself retold where it too is made from a template.
    `text` itself where no template makes it, and in English.

    For sentences kept in English as data where they are made (a measurement file's note, where a
    quote's count was read: code and files compare them) or made by code that is not ours (argparse's
    errors): they are translated where they are shown, like any other. A text longer than any sentence
    advisor writes (MAX_RETOLD) is shown as it is: it was not made here, and matching a template's
    values in it costs time that grows with the square of its length."""
    if _current == "en" or not text or len(text) > MAX_RETOLD:
        return text
    for template in templates:
        m = _pattern(template).fullmatch(text)
        if m:
            values = {
                k: retell(v, templates, depth - 1) if depth > 0 else v for k, v in m.groupdict().items()
            }
            return _(template).format(**values)
    return text


@lru_cache(maxsize=512)
def _pattern(template: str) -> re.Pattern:
    """The regular expression that finds a template's values in a sentence made from it."""
    parts = re.split(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", template)
    return re.compile(
        "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)), re.S
    )


def decimal(x: float, digits: int = 1) -> str:
    """A figure with `digits` decimals in the current language's notation (Babel's locale data), with
    no grouping of thousands: tables keep the same figures as the JSON."""
    if _current == "en":
        return f"{x:.{digits}f}"
    from babel.numbers import format_decimal

    pattern = "0." + "0" * digits if digits > 0 else "0"
    return format_decimal(x, format=pattern, locale=LANGUAGES[_current][0], decimal_quantization=True)


def _extract_with(fileobj, keywords, comment_tags, options, call: str):
    """Python's extraction, with the first argument of `call(...)` taken as a message too."""
    from babel.messages.extract import extract_python

    for line, funcname, messages, comments in extract_python(
        fileobj, [*keywords, call], comment_tags, options
    ):
        if funcname == call:
            first = messages[0] if isinstance(messages, tuple) else messages
            yield line, "_", first, comments
        else:
            yield line, funcname, messages, comments


def extract_report(fileobj, keywords, comment_tags, options):
    """Babel extraction method for the report's modules (babel.cfg): Python's, with `t(...)` (the report's
    sentence function, advisor.render.words) taken as a message too. Only there: elsewhere `t` is a
    variable, which Babel would read as a call."""
    yield from _extract_with(fileobj, keywords, comment_tags, options, "t")


def extract_facts(fileobj, keywords, comment_tags, options):
    """Babel extraction method for advisor/findings/facts.py (babel.cfg): each fact's description, the first
    argument of `fact(...)`, is a sentence of the catalog (`advisor rules facts` shows it translated)."""
    yield from _extract_with(fileobj, keywords, comment_tags, options, "fact")


# Babel's extractor for the rules' texts (babel.cfg): each rule's title, message, why and fix is a
# sentence of the catalog, translated where a finding is filled in (advisor.findings.evaluate), and its
# example where `advisor rules explain` shows it; each registered check's (doctor's, the quote's) title,
# what it checks, why, fix and example, shown by `advisor rules list` and `rules explain`; and each model
# constant's unit in words, translated where --explain lists the constants
RULE_TEXTS = ("title", "message", "why", "fix", "example")
CHECK_TEXTS = ("title", "what", "why", "fix", "example")


def extract_rules(fileobj, keywords, comment_tags, options):
    """Babel extraction method for rules/*.yaml: yields (line, funcname, message, comments) for each
    rule's texts and each constant's unit in words; the line is the rule's `id:` line (the constant's
    name), so a translator can find it."""
    import yaml

    text = fileobj.read().decode("utf-8")
    data = yaml.safe_load(text) or {}
    if not isinstance(data, dict):
        return
    lines = text.splitlines()
    for group, keys in (("rules", RULE_TEXTS), ("checks", CHECK_TEXTS)):
        entries = data.get(group)
        if not isinstance(entries, list):
            continue
        for rule in entries:
            if not isinstance(rule, dict) or "id" not in rule:
                continue
            rid = str(rule["id"])
            line = next(
                (i + 1 for i, x in enumerate(lines) if x.strip() in (f"- id: {rid}", f"id: {rid}")), 0
            )
            for key in keys:
                value = rule.get(key)
                if isinstance(value, str) and value.strip():
                    yield line, None, value, [f"rule {rid} {key}"]
    consts = data.get("constants")
    for name, c in consts.items() if isinstance(consts, dict) else []:
        unit = c.get("unit") if isinstance(c, dict) else None
        if isinstance(unit, str) and constant_unit_is_words(unit):
            line = next((i + 1 for i, x in enumerate(lines) if x.rstrip() == f"  {name}:"), 0)
            yield line, None, unit, [f"constant {name} unit"]


def constant_unit_is_words(unit: str) -> bool:
    """A model constant's `unit` that says what the constant is in words ("fraction of the raw link rate"),
    which --explain shows translated; a bare unit ("us", "GB/s") is shown as it is."""
    return " " in unit.strip()


def compiled(po_path: Path) -> bytes:
    """The .mo a .po compiles to (Babel's write_mo; fuzzy entries left out, as gettext's msgfmt does)."""
    import io

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with open(po_path, "rb") as f:
        cat = read_po(f)
    out = io.BytesIO()
    write_mo(out, cat, use_fuzzy=False)
    return out.getvalue()


def _compile_all() -> None:
    for po in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        po.with_suffix(".mo").write_bytes(compiled(po))
        print(f"compiled {po.relative_to(LOCALE_DIR.parent.parent)}")


if __name__ == "__main__":  # python -m advisor.i18n compile (scripts/i18n.sh)
    import sys

    if sys.argv[1:] != ["compile"]:
        raise SystemExit("usage: python -m advisor.i18n compile")
    _compile_all()
