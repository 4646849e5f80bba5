"""Findings from rules: YAML rules in rules/ evaluated on the facts the predictions computed.

Conditions go through simpleeval (a safe expression evaluator), never eval/exec. Each rule has
`scope` build, gpu, pair or workload: it is evaluated once per build, per GPU or per GPU pair, with
the facts of that scope as names (`build`, `gpu`, `pair`); a `workload` rule only when a workload
is given (`advisor workload`, or `advisor plan --train/--infer`), with `build` and `workload`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Literal

from pydantic import Field
from simpleeval import EvalWithCompoundTypes

from advisor.model.catalog.models import Strict
from advisor.base.errors import Problem, UserError
from advisor.model.predict import Prediction
from advisor.base.resources import bundled
from advisor.base.validation import validate
from advisor.base.yamlio import LineDict, load_file

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
CATEGORIES = ("lanes", "p2p", "nvlink", "numa", "power", "fit", "memory", "software", "workload", "catalog")


class Rule(Strict):
    id: str = Field(pattern=r"^[A-Z][A-Z0-9]*[0-9]{3}$")
    category: Literal["lanes", "p2p", "nvlink", "numa", "power", "fit", "memory", "software", "workload", "catalog"]
    severity: Literal["error", "warning", "info"]
    scope: Literal["build", "gpu", "pair", "workload"]
    title: str
    when: str
    message: str
    why: str
    fix: str
    example: str | None = None
    sources: list[str] = Field(min_length=1)


class RuleFile(Strict):
    kind: Literal["rules"]
    rules: list[Rule]


@dataclass
class Finding:
    id: str
    category: str
    severity: str
    message: str
    fix: str
    why: str
    subject: str

    def to_json(self) -> dict:
        return {"id": self.id, "category": self.category, "severity": self.severity, "message": self.message,
                "fix": self.fix, "why": self.why, "subject": self.subject}


def load_rules(extra_dirs: tuple[str, ...] = ()) -> list[Rule]:
    # The bundled rules are read once; a user's folders are read afresh (they may be being edited).
    rules, problems = _load(extra_dirs) if not extra_dirs else _load.__wrapped__(extra_dirs)
    if problems:
        raise UserError(problems=problems)
    return rules


@lru_cache(maxsize=8)
def _load(extra_dirs: tuple[str, ...]) -> tuple[list[Rule], list[Problem]]:
    files = sorted(bundled("rules").glob("*.yaml"))  # files of another kind (model, workload) are skipped below
    for d in extra_dirs:
        if not Path(d).is_dir():
            problems_dir = [Problem(f"{d}: rules folder not found", hint="give a folder of rule YAML files")]
            return [], problems_dir
        files += sorted(Path(d).glob("*.yaml"))
    rules: list[Rule] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    evaluator = EvalWithCompoundTypes()
    for path in files:
        data = load_file(path)
        if not isinstance(data, LineDict) or data.get("kind") != "rules":
            continue
        parsed, errs = validate(RuleFile, data, str(path))
        problems += errs
        if parsed is None:
            continue
        for i, rule in enumerate(parsed.rules):
            line = data["rules"].item_lines[i]
            if rule.id in seen:
                problems.append(Problem(f"rule id {rule.id} is already used in {seen[rule.id]}", str(path), line, "id"))
                continue
            try:
                evaluator.parse(rule.when)
            except SyntaxError as exc:
                problems.append(Problem(f"condition is not a valid expression: {exc.msg}", str(path), line, "when"))
                continue
            seen[rule.id] = str(path)
            rules.append(rule)
    return rules, problems


def _ns(d: dict) -> SimpleNamespace:
    return SimpleNamespace(**d)


def facts(pred: Prediction) -> tuple[SimpleNamespace, list[SimpleNamespace], list[SimpleNamespace]]:
    m = pred.machine
    sw = m.software
    gpus = []
    for p in pred.gpus:
        n = p.node
        g = n.gpu
        chain = [m.nodes[a].kind for a in m.ancestors(n.id)[1:]]
        gpus.append(_ns(dict(
            index=n.index, model=g.name if g else "?", id=n.part_id, slot=n.connector or "?",
            gen=n.link.gen, width=n.link.width, max_gen=n.link.max_gen, max_width=n.link.max_width,
            limited_by="; ".join(n.link.limited_by) or "-", on_chipset="chipset" in chain,
            behind_switch="switch" in chain, socket=n.socket,
            h2d=round(p.h2d.value, 1), h2d_all=round(p.h2d_all.value, 1),
            segment=g.segment if g else "?", geforce=bool(g and g.segment == "geforce"),
            p2p_stock=bool(g and g.p2p.stock_linux), nvlink_capable=bool(g and g.nvlink.supported),
            slot_width=(g.slot_width or 0) if g else 0, power_w=(g.board_power_w or 0) if g else 0,
            vram_gb=g.vram_gb if g else 0,
            physical=_physical(m, n), cooler=(g.cooler or "?") if g else "?", position=n.position or 0,
        )))
    by_index = {g.index: g for g in gpus}
    pairs = []
    for p in pred.pairs:
        ga, gb = by_index[p.a], by_index[p.b]
        pairs.append(_ns(dict(
            a=p.a, b=p.b, model_a=ga.model, model_b=gb.model, path=p.path, p2p=p.p2p, via=p.via,
            nccl_transport=p.nccl_transport, nccl_p2p=p.nccl_p2p, p2p_reason=p.p2p_reason,
            nccl_reason=p.nccl_reason, uni=round(p.uni.value or 0, 1), bidi=round(p.bidi.value or 0, 1),
            latency=round(p.latency.value or 0, 1), geforce=ga.geforce or gb.geforce,
            nvlink_capable=ga.nvlink_capable and gb.nvlink_capable, bridged=p.path.startswith("NV"),
        )))
    cpu = m.cpu
    total_power = sum(g.power_w for g in gpus)
    cpu_power = (cpu.max_power_w or cpu.tdp_w or 0) if cpu else 0
    total_vram = sum(g.vram_gb for g in gpus)
    nvlink_capable_unbridged = [p for p in pairs if p.nvlink_capable and not p.bridged]
    build = _ns(dict(
        cpu=cpu.name if cpu else "unknown CPU", cpu_vendor=m.cpu_vendor, cpu_segment=cpu.segment if cpu else "?",
        cpu_lanes=(cpu.pcie.usable_lanes or 0) if cpu else 0,
        board=m.board.name if m.board else "explicit tree", board_segment=m.board.segment if m.board else "?",
        gpus=len(gpus), geforce_gpus=sum(1 for g in gpus if g.geforce),
        gpus_on_chipset=sum(1 for g in gpus if g.on_chipset),
        gpus_below_x16=sum(1 for g in gpus if g.width < g.max_width),
        sockets=m.sockets, gpu_sockets=len({g.socket for g in gpus}),
        total_vram_gb=total_vram, ram_gb=m.build.ram_gb if m.build and m.build.ram_gb else 0,
        psu_w=m.build.psu_w if m.build and m.build.psu_w else 0, gpu_power_w=total_power, cpu_power_w=cpu_power,
        system_power_w=total_power + cpu_power + 100,
        driver=sw.driver, iommu=sw.iommu, acs=sw.acs, large_bar=sw.large_bar,
        nccl_p2p_disable=sw.nccl_p2p_disable, nccl_p2p_level=sw.nccl_p2p_level or "default",
        framework=sw.framework or "unknown",
        staged_pairs=sum(1 for p in pairs if p.via == "staged"),
        p2p_not_used_by_nccl=sum(1 for p in pairs if p.p2p and not p.nccl_p2p and not p.bridged),
        unbridged_nvlink_pairs=len(nvlink_capable_unbridged),
        switched_pairs=sum(1 for p in pairs if p.path in ("PIX", "PXB")),
        busbw=round(pred.allreduce.value, 1) if pred.allreduce else 0,
        unlinked=len(m.unlinked), unlinked_list=", ".join(m.unlinked) or "-",
        dimms=m.build.dimms if m.build and m.build.dimms else 0,
        mem_channels=(cpu.memory.channels or 0) * m.sockets if cpu else 0,
        unverified_parts=", ".join(sorted({x.name for x in [cpu, m.board, *[n.gpu for n in m.gpus]]
                                           if x is not None and not x.verified})) or "",
        alternative=_alternative(len(gpus)) if cpu and cpu.segment == "desktop" and len(gpus) >= 2 else "",
        slot_overlaps=_overlaps(gpus),
        open_air_neighbours=_open_air_neighbours(gpus),
        nvlink_bridges=len(m.nvlink),
        nvlink_invalid=", ".join(f"GPU{a}-GPU{b}" for a, b in m.nvlink
                                 if not (by_index.get(a) and by_index.get(b) and by_index[a].nvlink_capable
                                         and by_index[b].nvlink_capable)),
        chipset_nvme=sum(1 for n in m.nodes.values() if n.kind == "nvme" and n.parent and
                         m.nodes[n.parent].kind == "chipset"),
        hpwr_needed=sum(n.gpu.power_connector.count for n in m.gpus if n.gpu and n.gpu.power_connector
                        and n.gpu.power_connector.type in ("12VHPWR", "12V-2x6")),
        psu_12v_2x6=m.build.psu_12v_2x6 if m.build and m.build.psu_12v_2x6 is not None else -1,
        p2p_pairs=sum(1 for p in pairs if p.p2p and not p.bridged),
        grad_seconds_1b3=round(2.6 * 2 * (len(gpus) - 1) / len(gpus) / pred.allreduce.value, 2)
        if pred.allreduce and pred.allreduce.value else 0, min_h2d=min((g.h2d for g in gpus), default=0),
        max_h2d=max((g.h2d for g in gpus), default=0),
    ))
    return build, gpus, pairs


@lru_cache(maxsize=16)
def _alternative(n_gpus: int) -> str:
    """A concrete workstation platform from the catalog that gives n GPUs a CPU x16 link each."""
    from advisor.model.catalog.store import load_catalog
    catalog = load_catalog()
    best = None
    for board in sorted(catalog.boards, key=lambda b: (not b.verified, b.price_usd or 1e9, b.id)):
        if board.segment != "workstation" or not board.cpu_families:
            continue
        cpu_groups = {g.id for g in board.lane_groups if g.source == "cpu"}
        x16 = [c for c in board.slots if c.group in cpu_groups and c.width >= 16]
        if len(x16) < n_gpus:
            continue
        cpus = sorted((c for c in catalog.cpus if c.family in board.cpu_families),
                      key=lambda c: (not c.verified, c.price_usd or 1e9, c.id))
        if cpus:
            best = f"{cpus[0].name} on {board.name} ({len(x16)} CPU x16 slots)"
            break
    return best or "a Threadripper, Xeon W or EPYC platform"


def _physical(m, n) -> int:
    conn = m.board.connector(n.connector) if m.board and n.connector else None
    return (conn.physical or 0) if conn else 0


def _open_air_neighbours(gpus) -> int:
    """Open-air cards with less than one free slot position between them."""
    spans = sorted((g.position, g.position + (g.slot_width or 1)) for g in gpus if g.position and g.cooler == "open-air")
    return sum(1 for (a0, a1), (b0, _) in zip(spans, spans[1:]) if b0 - a1 < 1)


def _overlaps(gpus) -> int:
    spans = sorted((g.position, g.position + (g.slot_width or 1)) for g in gpus if g.position)
    return sum(1 for (a0, a1), (b0, _) in zip(spans, spans[1:]) if b0 < a1)


CLI_RULE_DIRS: tuple[str, ...] = ()  # set by the CLI from --rules for the command being run


def user_rule_dirs() -> tuple[str, ...]:
    """Rule folders of the user's own: --rules, then $ADVISOR_RULES (separated like PATH)."""
    return CLI_RULE_DIRS + tuple(p for p in os.environ.get("ADVISOR_RULES", "").split(os.pathsep) if p)


@lru_cache(maxsize=1024)
def _parsed(expr: str):
    return EvalWithCompoundTypes().parse(expr)


def evaluate_rules(pred: Prediction, extra_dirs: tuple[str, ...] = (), workload=None) -> list[Finding]:
    """Findings for a prediction; `workload` (an advisor.workload Analysis) enables rules of scope workload."""
    rules = load_rules(tuple(extra_dirs) + user_rule_dirs())
    build, gpus, pairs = facts(pred)
    wl = None
    if workload is not None:
        from advisor.workload.facts import workload_facts
        wl = workload_facts(workload)
    findings: list[Finding] = []
    functions = {"min": min, "max": max, "round": round}

    def evaluators(subjects: list[dict]) -> list[tuple[dict, EvalWithCompoundTypes]]:
        # One evaluator per subject, shared by every rule of its scope (building one is the costly part).
        return [(names, EvalWithCompoundTypes(names=names, functions=functions)) for names in subjects]

    by_scope = {"build": evaluators([{"build": build}]),
                "gpu": evaluators([{"build": build, "gpu": g} for g in gpus]),
                "pair": evaluators([{"build": build, "pair": p} for p in pairs]),
                "workload": evaluators([{"build": build, "workload": wl}] if wl is not None else [])}
    for rule in rules:
        parsed = _parsed(rule.when)
        for names, evaluator in by_scope[rule.scope]:
            try:
                hit = bool(evaluator.eval(rule.when, previously_parsed=parsed))
            except Exception as exc:  # a user rule naming an unknown fact: say which rule
                raise UserError(f"rule {rule.id}: condition {rule.when!r} failed: {exc}",
                                hint="`advisor rules explain ID` lists the facts rules can use") from None
            if not hit:
                continue
            try:
                message = rule.message.format(**names)
                fix = rule.fix.format(**names)
            except (AttributeError, KeyError, IndexError, ValueError) as exc:
                raise UserError(f"rule {rule.id}: message template names an unknown fact: {exc}") from None
            subject = (f"GPU{names['gpu'].index}" if "gpu" in names else
                       f"GPU{names['pair'].a}-GPU{names['pair'].b}" if "pair" in names else
                       "workload" if "workload" in names else "build")
            findings.append(Finding(rule.id, rule.category, rule.severity, message, fix, rule.why, subject))
    findings.sort(key=lambda f: (SEVERITY_ORDER[f.severity], f.id, f.subject))
    return findings
