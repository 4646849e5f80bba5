"""The rule registry: YAML rules from rules/ and the user's folders, checked when they are loaded.

Conditions go through simpleeval (a safe expression evaluator), never eval/exec. Each rule's
condition and message templates may only name the facts of its scope (advisor.findings.facts);
a rule that names anything else is refused with its file:line and the nearest fact names.
"""

from __future__ import annotations

import ast
import os
import re
import string
from functools import lru_cache
from pathlib import Path

from simpleeval import EvalWithCompoundTypes

from advisor.base.errors import Problem, UserError
from advisor.base.resources import bundled
from advisor.base.validation import validate
from advisor.base.yamlio import LineDict, load_bundled, load_file
from advisor.findings.facts import SCOPE_NAMES, SUPPOSITIONS
from advisor.findings.finding import Check, CheckFile, Rule, RuleFile

# Bounds on what one call of the rules language may be given: facts are a few dozen numbers, strings and
# lists, and arguments far beyond them are a mistake or an attack (`round(x, -99999999)` computes
# 10**99999999 and never ends)
MAX_ROUND_DIGITS = 15
MAX_ARGUMENTS = 1000


class RuleError(ValueError):
    """A call or a format in a condition outside the rules language's bounds."""


def _numbers_or_text(args: tuple, what: str) -> list:
    items = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple, set, dict)) else list(args)
    if not items:
        raise RuleError(f"{what}() of nothing")
    if len(items) > MAX_ARGUMENTS:
        raise RuleError(f"{what}() of {len(items):,} values, more than {MAX_ARGUMENTS:,}")
    return items


def _min(*args):
    return min(_numbers_or_text(args, "min"))


def _max(*args):
    return max(_numbers_or_text(args, "max"))


def _round(number, ndigits=None):
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise RuleError(f"round() of {type(number).__name__}, not a number")
    if ndigits is None:
        return round(number)
    if isinstance(ndigits, bool) or not isinstance(ndigits, int) or abs(ndigits) > MAX_ROUND_DIGITS:
        raise RuleError(f"round() to {str(ndigits)[:20]} digits; at most {MAX_ROUND_DIGITS} either way")
    return round(number, ndigits)


FUNCTIONS = {"min": _min, "max": _max, "round": _round}


class RuleEval(EvalWithCompoundTypes):
    """simpleeval's evaluator for rule conditions, with every call bounded at the time it is made, not only
    the constants written (FUNCTIONS above), and every f-string format held to a short, simple one."""

    def __init__(self, names=None) -> None:
        super().__init__(names=names, functions=FUNCTIONS)

    def _eval_formattedvalue(self, node):
        if node.format_spec:
            spec = str(self._eval(node.format_spec))
            if bad := _spec_problem(spec):
                raise RuleError(f"format {{:{spec[:30]}}}: {bad}")
            return format(self._eval(node.value), spec)
        return self._eval(node.value)


def user_rule_dirs() -> tuple[str, ...]:
    """Rule folders of the user's own from the environment: $ADVISOR_RULES (separated like PATH). A
    command's --rules folders come with its request (advisor.assess.Request.rule_dirs), never a global."""
    return tuple(p for p in os.environ.get("ADVISOR_RULES", "").split(os.pathsep) if p)


def load_rules(extra_dirs: tuple[str, ...] = ()) -> list[Rule]:
    """The bundled rules, then those in `extra_dirs`; a UserError lists every problem with file:line."""
    # The bundled rules are read once; a user's folders are read afresh (they may be being edited).
    rules, problems = _load(extra_dirs) if not extra_dirs else _load.__wrapped__(extra_dirs)
    if problems:
        raise UserError(problems=problems)
    return rules


def rule_by_id(rule_id: str, extra_dirs: tuple[str, ...] = ()) -> Rule | Check | None:
    """The rule, or the registered check (`advisor doctor`'s), of that id."""
    every = [*load_rules(extra_dirs), *load_checks()]
    return next((r for r in every if r.id.lower() == rule_id.lower()), None)


@lru_cache(maxsize=1)
def load_checks() -> list[Check]:
    """The checks registered beside the rules (files of `kind: checks` in rules/: doctor's, the quote
    check's): procedures with ids and documentation."""
    checks: list[Check] = []
    for path in sorted(bundled("rules").glob("*.yaml")):
        data = load_bundled(path)
        if not isinstance(data, LineDict) or data.get("kind") != "checks":
            continue
        parsed, problems = validate(CheckFile, data, str(path))
        if problems or parsed is None:
            raise UserError(problems=problems)
        checks += parsed.checks
    return checks


@lru_cache(maxsize=8)
def _load(extra_dirs: tuple[str, ...]) -> tuple[list[Rule], list[Problem]]:
    files = sorted(
        bundled("rules").glob("*.yaml")
    )  # files of another kind (model, workload, facts) are skipped
    for d in extra_dirs:
        if not Path(d).is_dir():
            return [], [Problem(f"{d}: rules folder not found", hint="give a folder of rule YAML files")]
        # regular files only: a FIFO or a device named x.yaml would block the read forever
        files += sorted(p for p in Path(d).iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    rules: list[Rule] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path in files:
        mine = path.parent != bundled("rules")
        data = load_file(path) if mine else load_bundled(path)
        if not isinstance(data, LineDict) or data.get("kind") != "rules":
            if mine:  # the bundled folder also holds constants and vocabularies; a user's folder, rules
                problems.append(_not_rules(path, data))
            continue
        parsed, errs = validate(RuleFile, data, str(path))
        problems += errs
        if parsed is None:
            continue
        for i, rule in enumerate(parsed.rules):
            raw = data["rules"][i]
            line = data["rules"].item_lines[i]
            if rule.id in seen:
                problems.append(
                    Problem(f"rule id {rule.id} is already used in {seen[rule.id]}", str(path), line, "id")
                )
                continue
            errs = check_rule(rule, str(path), raw.key_lines if isinstance(raw, LineDict) else {})
            if errs:
                problems += errs
                continue
            seen[rule.id] = str(path)
            rules.append(rule)
    return rules, problems


def check_rule(rule: Rule, file: str, key_lines: dict[str, int]) -> list[Problem]:
    """Problems with a rule's condition and templates: syntax, and names that are not facts of its scope."""
    names = SCOPE_NAMES[rule.scope]
    problems = []
    where = key_lines.get("when")
    if len(rule.when) > MAX_CONDITION_CHARS:
        return [
            Problem(
                f"condition is {len(rule.when)} characters long, more than {MAX_CONDITION_CHARS}",
                file,
                where,
                "when",
                hint="split it into simpler rules",
            )
        ]
    try:
        EvalWithCompoundTypes().parse(rule.when)
        tree = ast.parse(rule.when, mode="eval")
    except SyntaxError as exc:
        return [Problem(f"condition is not a valid expression: {exc.msg}", file, where, "when")]
    except (RecursionError, MemoryError):
        return [
            Problem(
                "condition is nested too deeply to read",
                file,
                where,
                "when",
                hint="split it into simpler rules",
            )
        ]
    if bad := _unbounded(tree):
        return [Problem(f"condition {bad}", file, where, "when", hint=BOUNDS_HINT)]
    # names a comprehension binds (`max([w for w in ...])`) are the rule's own, not facts
    bound = {
        n.id
        for c in ast.walk(tree)
        if isinstance(c, ast.comprehension)
        for n in ast.walk(c.target)
        if isinstance(n, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in bound:
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
            problem = _unknown_fact(node.value.id, node.attr, rule.scope)
        elif isinstance(node, ast.Name) and node.id not in names and node.id not in FUNCTIONS:
            problem = _unknown_name(node.id, rule.scope)
        else:
            continue
        if problem:
            problems.append(
                Problem(problem, file, key_lines.get("when"), "when", hint="`advisor rules facts` lists them")
            )
    problems += _supposition_problems(rule, file, key_lines.get("supposes"))
    for key in ("message", "fix"):
        if bad := template_problem(getattr(rule, key)):
            problems.append(Problem(bad, file, key_lines.get(key), key, hint=BOUNDS_HINT))
            continue
        for field in _template_fields(getattr(rule, key)):
            root, _, rest = field.partition(".")
            attr = rest.split(".")[0].split("[")[0]
            if root not in names:
                problem = _unknown_name(root, rule.scope)
            elif not attr:
                problem = f"{{{field}}} names a whole scope; name one fact, e.g. {{{root}.{next(iter(names[root].model_fields))}}}"
            else:
                problem = _unknown_fact(root, attr, rule.scope)
            if problem:
                problems.append(
                    Problem(problem, file, key_lines.get(key), key, hint="`advisor rules facts` lists them")
                )
    return problems


def _supposition_problems(rule: Rule, file: str, line: int | None) -> list[Problem]:
    if rule.supposes and rule.scope != "compare":
        return [
            Problem(
                "only a rule of scope compare can suppose facts of a measurement",
                file,
                line,
                "supposes",
                hint="remove `supposes:`, or make the rule's scope compare",
            )
        ]
    problems = []
    for key, value in rule.supposes.items():
        values = SUPPOSITIONS.get(key)
        if values is None:
            problems.append(
                Problem(
                    f"unknown supposition {key!r}",
                    file,
                    line,
                    "supposes",
                    hint="a rule can suppose " + ", ".join(SUPPOSITIONS),
                )
            )
        elif value not in values:
            problems.append(
                Problem(
                    f"{key}: {value!r} is not a value it can take",
                    file,
                    line,
                    "supposes",
                    hint=f"{key} is one of " + ", ".join(values),
                )
            )
    return problems


# Bounds on what a rule may ask of the evaluator: facts are a few dozen numbers, strings and lists,
# and a condition that needs more than these is a mistake or an attack (`10**4000000`,
# `'x'.join([...]*99999)`, `.center(3000000000)` each ran for a minute or took gigabytes).
MAX_CONDITION_CHARS = 2000
MAX_CONDITION_NODES = 400
MAX_CONSTANT = 10**15
MAX_FORMAT_WIDTH = 200
BOUNDS_HINT = (
    "conditions compare facts with numbers, strings and lists and may call min, max and round; templates name "
    "one fact each, as {scope.fact} with an optional short format such as {gpu.h2d_gbps:.1f}"
)
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")
_SPEC = re.compile(r"^(?:[^{}]?[<>=^])?[+\- ]?#?0?(\d*)([,_])?(?:\.(\d+))?[bcdeEfFgGnosxX%]?$")


def _unbounded(tree: ast.AST) -> str | None:
    """What in a parsed condition could make its evaluation unbounded, or None."""
    nodes = list(ast.walk(tree))
    if len(nodes) > MAX_CONDITION_NODES:
        return f"has {len(nodes)} parts, more than {MAX_CONDITION_NODES}"
    for node in nodes:
        if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
            return "calls a method; only the functions of the rules language can be called"
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.LShift)):
            return "uses ** or <<, which the rules language does not have"
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > MAX_CONSTANT:
                return f"holds the number {str(v)[:20]}..., beyond {MAX_CONSTANT:.0e}"
            if isinstance(v, str) and len(v) > 200:
                return "holds a string longer than 200 characters"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for side in (node.left, node.right):
                if isinstance(side, (ast.List, ast.Tuple, ast.ListComp, ast.JoinedStr)) or (
                    isinstance(side, ast.Constant) and isinstance(side.value, str)
                ):
                    return "repeats a string or a list with *"
    return None


def template_problem(template: str) -> str | None:
    """Why a message or fix template is not allowed (a field that walks attributes or indexes, a huge
    format width), or None."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"template cannot be read: {exc}"
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if not _FIELD.match(field):
            return f"template field {{{field}}} must name one fact, as {{scope.fact}}"
        if conversion:
            return f"template field {{{field}!{conversion}}}: no conversions"
        if spec and (bad := _spec_problem(spec)):
            return f"template field {{{field}:{spec}}}: {bad}"
    return None


def _spec_problem(spec: str) -> str | None:
    """Why a format spec (":>10", ".1f") is not allowed in a rule, or None."""
    m = _SPEC.match(spec)
    if not m or "{" in spec:
        return "not a simple format"
    if len(m.group(1) or "") > 4 or len(m.group(3) or "") > 4:
        return "a width or precision that large is not allowed"
    width, precision = int(m.group(1) or 0), int(m.group(3) or 0)
    if width > MAX_FORMAT_WIDTH or precision > 20:
        return "a width or precision that large is not allowed"
    return None


def fill(template: str, names: dict) -> str:
    """A checked template (see template_problem) filled in from the facts: each field is one fact read
    as an attribute of its scope's object, never anything further."""
    out = []
    for literal, field, spec, _ in string.Formatter().parse(template):
        out.append(literal)
        if field is None:
            continue
        root, attr = field.split(".")
        value = getattr(names[root], attr)
        # a fact the catalog leaves unknown reads "unknown", never "0" or "None"
        out.append("unknown" if value is None else format(value, spec or ""))
    return "".join(out)


def _template_fields(template: str) -> list[str]:
    try:
        return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError:
        return []  # a malformed template is reported when it is filled in


def _unknown_fact(root: str, attr: str, scope: str) -> str | None:
    fields = SCOPE_NAMES[scope][root].model_fields
    if attr in fields:
        return None
    from rapidfuzz import process  # only for a rule file that names an unknown fact

    near = [f"{root}.{m}" for m, _, _ in process.extract(attr, list(fields), limit=3, score_cutoff=60)]
    return f"unknown fact '{root}.{attr}'" + (f" (did you mean {', '.join(near)}?)" if near else "")


def _unknown_name(name: str, scope: str) -> str:
    allowed = ", ".join(list(SCOPE_NAMES[scope]) + list(FUNCTIONS))
    return f"unknown fact '{name}': a rule of scope {scope} can name {allowed}"


def _not_rules(path: Path, data: object) -> Problem:
    hint = "a rules file starts with `kind: rules` and a `rules:` list (`advisor rules list` shows the bundled ones)"
    if data is None:
        return Problem("not a rules file: it is empty", str(path), hint=hint)
    if not isinstance(data, LineDict):
        return Problem(
            f"not a rules file: it holds a {type(data).__name__}, not a mapping", str(path), hint=hint
        )
    kind = data.get("kind")
    what = f"kind is {kind!r}" if "kind" in data else "it has no `kind:`"
    return Problem(f"not a rules file: {what}", str(path), data.key_lines.get("kind", data.line), hint=hint)
