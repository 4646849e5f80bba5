"""Findings from rules: each rule of the job's scopes evaluated on the facts of its subjects.

The job decides the scopes (advisor.findings.finding.JOB_SCOPES): `plan` evaluates build, gpu and
pair rules, and workload rules when a workload is given; `workload` only workload rules; `compare`
only compare rules, once per compared figure that is off. The user's rules (--rules,
$ADVISOR_RULES) take part in every job whose scope they are written for.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from simpleeval import EvalWithCompoundTypes

from advisor.base.errors import UserError
from advisor.findings.collect import prediction_facts
from advisor.findings.facts import BuildFacts, Facts, GpuFacts, PairFacts, RowFacts, contradicted
from advisor.findings.finding import JOB_SCOPES, Finding, Rule
from advisor.findings.rules import BOUNDS_HINT, RuleError, RuleEval, fill, load_rules, user_rule_dirs
from advisor.i18n import _
from advisor.model.catalog.store import Catalog
from advisor.model.predict import Prediction

if TYPE_CHECKING:
    from advisor.workload.result import Analysis


_FACT = re.compile(r"\b([a-z_]+)\.([a-z_0-9]+)\b")


@lru_cache(maxsize=1024)
def _parsed(expr: str):
    return EvalWithCompoundTypes().parse(expr)


def evaluate_rules(
    pred: Prediction,
    *,
    job: str = "plan",
    catalog: Catalog | None = None,
    workload: Analysis | None = None,
    extra_dirs: tuple[str, ...] = (),
) -> list[Finding]:
    """Findings for a prediction, worst first. `workload` (an Analysis) enables rules of scope workload."""
    scopes = JOB_SCOPES[job]
    rules = [r for r in load_rules(tuple(extra_dirs) + user_rule_dirs()) if r.scope in scopes]
    build, gpus, pairs = prediction_facts(pred, catalog)
    if workload is not None:
        build = build.model_copy(update={"workload_asked": True})
    subjects: dict[str, list[dict[str, Facts]]] = {
        "build": [{"build": build}],
        "gpu": [{"build": build, "gpu": g} for g in gpus],
        "pair": [{"build": build, "pair": p} for p in pairs],
        "workload": [],
    }
    if workload is not None and "workload" in scopes:
        from advisor.findings.collect import workload_facts

        subjects["workload"] = [{"build": build, "workload": workload_facts(workload)}]
    unjudged: dict[str, set[str]] = {}
    findings = _run([r for r in rules if "build.unjudged" not in r.when], subjects, unjudged=unjudged)
    if unjudged and "build" in scopes:
        # rules whose condition needs a fact the catalog leaves unknown were not judged: a rule of its
        # own says which, so an unknown never passes for "no problem"
        said = _("; ").join(
            _("{title} (needs {facts})").format(title=title, facts=", ".join(sorted(facts)))
            for title, facts in unjudged.items()
        )
        about = {"build": [{"build": build.model_copy(update={"unjudged": said})}]}
        findings += _run([r for r in rules if "build.unjudged" in r.when], about)
        findings.sort(key=lambda f: f.rank)
    return findings


def compare_rules(extra_dirs: tuple[str, ...] = ()) -> list[Rule]:
    """The rules of scope compare, bundled and the user's, in file order (first suspect first)."""
    return [r for r in load_rules(tuple(extra_dirs) + user_rule_dirs()) if r.scope == "compare"]


def evaluate_compare(
    rules: list[Rule],
    build: BuildFacts,
    row: RowFacts,
    gpu: GpuFacts | None = None,
    pair: PairFacts | None = None,
) -> list[Finding]:
    """The likely causes of one compared figure that is off: those of `compare_rules()` that fire on it,
    less any whose supposition about the machine the measurement files contradict (facts.SUPPOSITIONS)."""
    agree = [r for r in rules if not contradicted(r.supposes, row)]
    return _run(agree, {"compare": [{"build": build, "row": row, "gpu": gpu, "pair": pair}]}, sort=False)


def _unknown_facts(when: str, names: dict) -> list[str]:
    """The facts a condition names whose value is None (a figure the catalog leaves unknown)."""
    out = []
    for root, attr in _FACT.findall(when):
        obj = names.get(root)
        if obj is not None and attr in type(obj).model_fields and getattr(obj, attr) is None:
            out.append(f"{root}.{attr}")
    return out


def _run(
    rules: list[Rule],
    subjects: dict[str, list[dict]],
    sort: bool = True,
    unjudged: dict[str, set[str]] | None = None,
) -> list[Finding]:
    # One evaluator per subject, shared by every rule of its scope (building one is the costly part).
    evaluators = {scope: [(names, RuleEval(names)) for names in subs] for scope, subs in subjects.items()}
    findings: list[Finding] = []
    for rule in rules:
        parsed = _parsed(rule.when)
        for names, evaluator in evaluators.get(rule.scope, []):
            try:
                hit = bool(evaluator.eval(rule.when, previously_parsed=parsed))
            except TypeError as exc:
                missing = _unknown_facts(rule.when, names)
                if not missing or unjudged is None:
                    raise UserError(
                        f"rule {rule.id}: condition {rule.when!r} failed: {exc}",
                        hint="`advisor rules facts` lists the facts and their types",
                    ) from None
                unjudged.setdefault(f"{rule.id} {_(rule.title)}", set()).update(missing)
                continue
            except RuleError as exc:  # a call or a format beyond the rules language's bounds
                raise UserError(
                    f"rule {rule.id}: condition {rule.when!r} failed: {exc}", hint=BOUNDS_HINT
                ) from None
            except MemoryError:
                raise UserError(
                    f"rule {rule.id}: condition {rule.when!r} failed: it needs more memory than a rule may use",
                    hint="compare facts with numbers, strings and short lists",
                ) from None
            except Exception as exc:  # e.g. a user rule comparing a number with a string: say which rule
                raise UserError(
                    f"rule {rule.id}: condition {rule.when!r} failed: {exc}",
                    hint="`advisor rules facts` lists the facts and their types",
                ) from None
            if not hit:
                continue
            try:
                # the rule's sentences in the current language (a user's own rule has no translation
                # and stays as written); the values are filled in after
                message = fill(_(rule.message), names)
                fix = fill(_(rule.fix), names)
            except (AttributeError, KeyError, IndexError, ValueError, TypeError) as exc:
                raise UserError(f"rule {rule.id}: message template cannot be filled in: {exc}") from None
            findings.append(
                Finding(
                    id=rule.id,
                    category=rule.category,
                    severity=rule.severity,
                    message=message,
                    fix=fix,
                    why=_(rule.why),
                    subject=_subject(names),
                )
            )
    if sort:
        findings = _group_pairs(findings, {r.id for r in rules if r.scope == "pair"})
        findings.sort(key=lambda f: f.rank)
    return findings


def _group_pairs(findings: list[Finding], pair_rules: set[str]) -> list[Finding]:
    """One finding per pair rule, naming every pair it fired on: six P2P002 on four GPUs (or twenty NUMA001
    on nine) read as one problem, which they are. The message is the first pair's, with the others listed."""
    out: list[Finding] = []
    seen: dict[str, list[Finding]] = {}
    for f in findings:
        if f.id in pair_rules:
            if f.id not in seen:
                seen[f.id] = []
                out.append(f)  # keeps the first one's place; replaced below
            seen[f.id].append(f)
        else:
            out.append(f)
    for group in seen.values():
        if len(group) == 1:
            continue
        first = group[0]
        others = [f.subject for f in group[1:]]
        shown = ", ".join(others[:8])
        if len(others) > 8:
            shown = _("{pairs} and {n} more").format(pairs=shown, n=len(others) - 8)
        more = _("{message} It fires on {n} more pair(s) too: {pairs}.")
        grouped = first.model_copy(
            update={
                "subject": ", ".join(f.subject for f in group),
                "message": more.format(message=first.message, n=len(others), pairs=shown),
            }
        )
        out[out.index(first)] = grouped
    return out


def _subject(names: dict) -> str:
    if names.get("row") is not None:
        return names["row"].where
    if names.get("gpu") is not None:
        return f"GPU{names['gpu'].index}"
    if names.get("pair") is not None:
        return f"GPU{names['pair'].a}-GPU{names['pair'].b}"
    return "workload" if "workload" in names else "build"
