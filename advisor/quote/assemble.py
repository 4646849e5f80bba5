"""Assemble the quote's build from its part lines; title lines only cross-check counts (or fill a kind
no line item names)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from advisor.i18n import _
from advisor.quote.document import Quote
from advisor.quote.segment import kind_name


def assemble(q: Quote, catalog) -> None:
    from advisor.model.build import Build

    data: dict[str, Any] = {"name": q.filename}
    gpus: dict[str, int] = {}
    ram = 0
    sockets: list[str] = []
    bridges = 0
    nics = 0
    stated_ram = 0
    psu_fixed = False
    item_lines = [x for x in q.lines if x.status in ("part", "recognized", "not_in_catalog")]
    titles = [x for x in q.lines if x.status == "title" and x.parts]
    kinds_in_items = {p.kind for x in item_lines for p in x.parts}
    used = list(item_lines)
    for t in titles if not q.selected else []:  # a listing whose only mention of a kind is its title
        extra = [p for p in t.parts if p.kind not in kinds_in_items]
        if extra:
            used.append(replace(t, parts=extra))
            q.notes.append(
                _("line {line}: the title is the only line naming the {kinds}; used as written").format(
                    line=t.line, kinds=", ".join(kind_name(k) for k in sorted({p.kind for p in extra}))
                )
            )
    for x in used:
        for p in x.parts:
            if not p.in_catalog:
                continue
            n = x.qty if len([pp for pp in x.parts if pp.kind == p.kind]) == 1 else 1
            if len(x.parts) > 1 and p.kind != "gpu":
                n = 1
            if p.count is not None:
                n = p.count  # "CPU:2× EPYC 9554 显卡:8× RTX 4090": each part's own count
            if p.kind in ("cpu", "board"):
                if p.kind in data and data[p.kind] != p.part_id:
                    q.notes.append(
                        _("line {line}: a second {kind} ({part}); using {used}").format(
                            line=x.line, kind=kind_name(p.kind), part=p.part_id, used=data[p.kind]
                        )
                    )
                elif p.kind == "cpu" and p.part_id == data.get("cpu"):
                    # the same CPU on a line per socket ("2 sockets" / "- Xeon Gold 6248R" twice)
                    data["cpu_count"] = int(data.get("cpu_count", 1)) + n
                    continue
                data.setdefault(p.kind, p.part_id)
                if p.kind == "cpu" and n > 1:
                    data["cpu_count"] = n
            elif p.kind == "gpu":
                gpus[p.part_id] = gpus.get(p.part_id, 0) + n
            elif p.kind == "psu" and p.value:
                watts = p.value * (n if p.how == "PSU words and wattage" else 1)
                if p.how == "psu_w":
                    data["psu_w"] = watts  # a structured quote's own figure wins over its items
                    psu_fixed = True
                elif not psu_fixed:
                    # two supplies on two lines ("PSU Primary 1600 W", "PSU Secondary 1000 W") add up
                    data["psu_w"] = data.get("psu_w", 0) + watts
            elif p.kind == "ram" and p.value:
                if p.how == "ram_gb":
                    stated_ram = p.value
                else:
                    ram += p.value * (1 if p.how == "RAM total" else n)
            elif p.kind == "nvme":
                if p.socket:
                    sockets += [p.socket] * n
                else:
                    q.unplaced_nvme += n
            elif p.kind == "nic":
                nics += n
            elif p.kind == "bridge":
                bridges += n
    # title counts cross-check the line items
    total = sum(gpus.values())
    for t in titles:
        for p in t.parts:
            if (
                p.kind == "gpu"
                and p.in_catalog
                and t.qty_source != "none written: 1"
                and t.qty != total
                and gpus
            ):
                q.title_mismatch.append(
                    _("line {line} says {qty}x {part}, the line items have {total} GPU(s)").format(
                        line=t.line, qty=t.qty, part=p.name, total=total
                    )
                )
    if gpus:
        data["gpus"] = [{"model": m, "count": min(n, 16)} for m, n in gpus.items()]
    ram = stated_ram or ram
    if ram:
        data["ram_gb"] = ram
    if nics:
        data["nics"] = [{"name": "NIC"} for _ in range(min(nics, 8))]
    if bridges:
        if total >= 2:
            data["nvlink"] = [[2 * i, 2 * i + 1] for i in range(min(bridges, total // 2))]
        else:
            q.notes.append(
                _("an NVLink bridge is listed but the quote has {n} GPU(s); bridge not placed").format(
                    n=total
                )
            )
    board = catalog.get(data["board"]) if "board" in data else None
    if sockets and board is not None:
        names = {m.name.upper().replace(" ", ""): m.name for m in board.m2}
        placed = []
        for s in sockets:
            if s.upper() in names:
                placed.append({"socket": names[s.upper()]})
            else:
                q.notes.append(
                    _("M.2 socket {socket} is not on {board}; that SSD is not placed").format(
                        socket=s, board=board.name
                    )
                )
                q.unplaced_nvme += 1
        if placed:
            data["nvme"] = placed
    named = {p.kind for x in used for p in x.parts}
    for k in ("cpu", "board"):
        if k not in data and k not in named:
            q.missing.append(k)  # no line names one (a part the catalog lacks is listed apart)
    if not gpus and "gpu" not in named:
        q.missing.append("gpu")
    if not gpus:
        q.notes.append(_("the quote lists no GPU from the catalog"))
    from advisor.model.build import PSU_W, RAM_GB

    outside = {
        "psu_w": _("{value} PSU watts is outside {low}-{high}: left out, ask the vendor"),
        "ram_gb": _("{value} GB of RAM is outside {low}-{high}: left out, ask the vendor"),
    }
    for key, (low, high) in (("psu_w", PSU_W), ("ram_gb", RAM_GB)):
        if key in data and not low <= data[key] <= high:
            # a count read into a wattage ("1600W ×16") never stops the reading: the figure is left out
            q.notes.append(outside[key].format(value=f"{data[key]:,}", low=f"{low:,}", high=f"{high:,}"))
            del data[key]
    q.build_data = data
    if q.missing or "cpu" not in data or "board" not in data:
        return
    try:
        q.build = Build.model_validate(data)
    except Exception as exc:  # pydantic ValidationError
        # what was read is reported, with why it makes no build: never an exit without a report
        errors = getattr(exc, "errors", None)
        first = errors()[0] if callable(errors) and errors() else None
        why = (
            f"{'.'.join(str(x) for x in first['loc'])}: {first['msg']}" if first else str(exc).splitlines()[0]
        )
        q.build_error = f"the parts read do not make a valid build ({why})"
