"""A build evaluated in the planner, and what an edit changed, in words (each card moved, each link
changed, the findings that came and went)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.assess import Assessment
from advisor.model.predict import Prediction


@dataclass
class Evaluation:
    prediction: Prediction | None
    findings: list[Any] = field(default_factory=list)  # advisor.findings.finding.Finding
    error: str | None = None  # why the build cannot be evaluated, in the user's words
    assessment: Assessment | None = None  # the same assessment `plan` makes of the build


def link_delta(old: Any, new: Any) -> str:
    """'Gen4 x8 -> x16' between two GPU nodes' links; empty when the link is the same."""
    a = old.link.label if old is not None and old.link else "no lanes"
    b = new.link.label if new is not None and new.link else "no lanes"
    if a == b:
        return ""
    if a.split()[0] == b.split()[0] and a != "no lanes":
        return f"{a} -> {b.split()[1]}"
    return f"{a} -> {b}"


def _links(ev: Evaluation) -> dict[str, tuple[str, str, str]]:
    """Device key -> (label, connector, link) for the devices an evaluation placed."""
    out: dict[str, tuple[str, str, str]] = {}
    if ev.prediction is None:
        return out
    for n in ev.prediction.machine.nodes.values():
        if n.kind == "gpu":
            key = f"GPU{n.index}"
            out[key] = (
                f"GPU{n.index} {n.gpu.name if n.gpu else n.label}",
                n.connector or "-",
                n.link.label if n.link else "no lanes",
            )
        elif n.kind in ("nvme", "nic"):
            out[f"{n.kind}:{n.connector}"] = (
                "SSD" if n.kind == "nvme" else n.label,
                n.connector or "-",
                n.link.label if n.link else "no lanes",
            )
    return out


def describe_changes(before: Evaluation, after: Evaluation) -> list[str]:
    """What an edit did, in plain words: links that moved, findings that came or went, the all-reduce."""
    if after.error:
        return [f"the build cannot be evaluated: {after.error}"]
    old, new = _links(before), _links(after)
    out: list[str] = []
    reasons = {}
    if after.prediction:
        for n in after.prediction.machine.all_gpus:
            if n.link and n.link.limited_by:
                reasons[f"GPU{n.index}"] = "; ".join(n.link.limited_by)
    for key, (label, conn, link) in new.items():
        if key not in old:
            out.append(f"{label} placed in {conn}: {link}" + (f" ({reasons[key]})" if key in reasons else ""))
            continue
        _, oconn, olink = old[key]
        name = key if key.startswith("GPU") else label  # the card's model is in the build list
        if oconn != conn and olink != link:
            out.append(f"{name} {oconn} -> {conn}: {olink} -> {link}")
        elif oconn != conn:
            out.append(f"{name} {oconn} -> {conn} ({link})")
        elif olink != link:
            why = f" ({reasons[key]})" if key in reasons and link != "no lanes" else ""
            out.append(f"{name} in {conn}: {olink} -> {link}{why}")
    for key, (label, _, _) in old.items():
        if key not in new:
            out.append(f"{label} removed")
    if before.prediction and after.prediction:
        a, b = before.prediction.allreduce, after.prediction.allreduce
        if a and b and a.value and b.value and abs(a.value - b.value) > 0.05:
            out.append(f"all-reduce {a.value:.1f} -> {b.value:.1f} GB/s")
    old_ids = {(f.id, f.subject) for f in before.findings}
    new_ids = {(f.id, f.subject) for f in after.findings}
    came = sorted({f.id for f in after.findings if (f.id, f.subject) not in old_ids})
    went = sorted({f.id for f in before.findings if (f.id, f.subject) not in new_ids})
    if came:
        out.append("new findings: " + ", ".join(came))
    if went:
        out.append("resolved: " + ", ".join(went))
    if before.error and not after.error:
        out.insert(0, "the build evaluates again")
    return out
