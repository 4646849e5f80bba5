"""A build evaluated in the planner, and what an edit changed, in words (each card moved, each link
changed, the findings that came and went)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.assess import Assessment
from advisor.i18n import _
from advisor.model.predict import Prediction


@dataclass
class Evaluation:
    prediction: Prediction | None
    findings: list[Any] = field(default_factory=list)  # advisor.findings.finding.Finding
    error: str | None = None  # why the build cannot be evaluated, in the user's words
    assessment: Assessment | None = None  # the same assessment `plan` makes of the build


def link_delta(old: Any, new: Any) -> str:
    """'Gen4 x8 -> x16' between two GPU nodes' links; empty when the link is the same."""
    none = _("no lanes")
    a = old.link.label if old is not None and old.link else none
    b = new.link.label if new is not None and new.link else none
    if a == b:
        return ""
    if a != none and b != none and a.split()[0] == b.split()[0]:
        return f"{a} -> {b.split()[1]}"
    return f"{a} -> {b}"


def _links(ev: Evaluation) -> dict[str, tuple[str, str, str]]:
    """Device key -> (label, connector, link) for the devices an evaluation placed."""
    out: dict[str, tuple[str, str, str]] = {}
    if ev.prediction is None:
        return out
    none = _("no lanes")
    for n in ev.prediction.machine.nodes.values():
        if n.kind == "gpu":
            key = f"GPU{n.index}"
            out[key] = (
                f"GPU{n.index} {n.gpu.name if n.gpu else n.label}",
                n.connector or "-",
                n.link.label if n.link else none,
            )
        elif n.kind in ("nvme", "nic"):
            out[f"{n.kind}:{n.connector}"] = (
                "SSD" if n.kind == "nvme" else n.label,
                n.connector or "-",
                n.link.label if n.link else none,
            )
    return out


def describe_changes(before: Evaluation, after: Evaluation) -> list[str]:
    """What an edit did, in plain words: links that moved, findings that came or went, the all-reduce.
    A line about a card that moved or whose link changed has "->" in it, in every language (the app
    announces those)."""
    if after.error:
        return [_("the build cannot be evaluated: {error}").format(error=after.error)]
    old, new = _links(before), _links(after)
    out: list[str] = []
    reasons = {}
    if after.prediction:
        for n in after.prediction.machine.all_gpus:
            if n.link and n.link.limited_by:
                reasons[f"GPU{n.index}"] = "; ".join(n.link.limited_by)
    for key, (label, conn, link) in new.items():
        if key not in old:
            if key in reasons:
                said = _("{device} placed in {slot}: {link} ({why})").format(
                    device=label, slot=conn, link=link, why=reasons[key]
                )
            else:
                said = _("{device} placed in {slot}: {link}").format(device=label, slot=conn, link=link)
            out.append(said)
            continue
        _label, oconn, olink = old[key]
        name = key if key.startswith("GPU") else label  # the card's model is in the build list
        if oconn != conn and olink != link:
            out.append(
                _("{device} {old_slot} -> {slot}: {old} -> {new}").format(
                    device=name, old_slot=oconn, slot=conn, old=olink, new=link
                )
            )
        elif oconn != conn:
            out.append(
                _("{device} {old_slot} -> {slot} ({link})").format(
                    device=name, old_slot=oconn, slot=conn, link=link
                )
            )
        elif olink != link:
            values = dict(device=name, slot=conn, old=olink, new=link)
            if key in reasons and link != _("no lanes"):
                out.append(_("{device} in {slot}: {old} -> {new} ({why})").format(**values, why=reasons[key]))
            else:
                out.append(_("{device} in {slot}: {old} -> {new}").format(**values))
    for key, (label, _conn, _link) in old.items():
        if key not in new:
            out.append(_("{device} removed").format(device=label))
    if before.prediction and after.prediction:
        a, b = before.prediction.allreduce, after.prediction.allreduce
        if a and b and a.value and b.value and abs(a.value - b.value) > 0.05:
            out.append(f"all-reduce {a.value:.1f} -> {b.value:.1f} GB/s")
    old_ids = {(f.id, f.subject) for f in before.findings}
    new_ids = {(f.id, f.subject) for f in after.findings}
    came = sorted({f.id for f in after.findings if (f.id, f.subject) not in old_ids})
    went = sorted({f.id for f in before.findings if (f.id, f.subject) not in new_ids})
    if came:
        out.append(_("new findings: {ids}").format(ids=", ".join(came)))
    if went:
        out.append(_("resolved: {ids}").format(ids=", ".join(went)))
    if before.error and not after.error:
        out.insert(0, _("the build evaluates again"))
    return out
