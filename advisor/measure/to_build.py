"""A build from a measured machine: `nvidia-smi topo -m` (paths) plus `nvidia-smi -q` or the probe
(GPU models, links) become an explicit PCIe-tree build, so a board that is not in the catalog can
still be predicted.

GPUs are grouped by how far apart topo says they are: not SYS -> same socket, within PHB -> same
host bridge, within PXB -> same root port (behind switches), PIX -> same switch.
"""

from __future__ import annotations

from advisor.base.errors import UserError
from advisor.measure.models import Measurement

_RANK = {"PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}


def _groups(members: list[int], joined) -> list[list[int]]:
    """Connected components of `members` under the relation joined(a, b)."""
    out: list[list[int]] = []
    for m in members:
        hits = [g for g in out if any(joined(m, x) for x in g)]
        merged = [m] + [x for g in hits for x in g]
        out = [g for g in out if g not in hits] + [sorted(merged)]
    return sorted(out)


def build_from(measurements: list[Measurement], default_gpu: str | None = None) -> dict:
    paths: dict[tuple[int, int], str] = {}
    names: dict[int, str] = {}
    links: dict[int, tuple[int | None, int | None]] = {}
    numa: dict[int, int] = {}
    vendor = None
    for meas in measurements:
        for r in meas.find("path"):
            paths[(r.a, r.b)] = paths[(r.b, r.a)] = str(r.value)
        for g in meas.machine.gpus:
            if g.name:
                names[g.index] = g.name
            gen, width = g.pcie_gen_max, g.pcie_width_max
            if gen or width:
                links[g.index] = (gen, width)
            if g.numa_node is not None:
                numa[g.index] = g.numa_node
    if not paths:
        raise UserError("no GPU-to-GPU paths in these files", hint="give the output of `nvidia-smi topo -m`")
    gpus = sorted({a for a, _ in paths})
    missing = [i for i in gpus if i not in names]
    if missing and not default_gpu:
        raise UserError(
            f"the GPU model of GPU{missing[0]} is not known",
            hint="add `nvidia-smi -q` output, or give --gpu MODEL for all GPUs",
        )

    def rank(a: int, b: int) -> int:
        label = paths.get((a, b), "SYS")
        return 0 if label.startswith("NV") else _RANK.get(label, 5)

    def within(limit: int):
        return lambda a, b: rank(a, b) <= limit and not paths.get((a, b), "").startswith("NV")

    nvlink = sorted({tuple(sorted(k)) for k, v in paths.items() if v.startswith("NV")})

    def device(i: int) -> dict:
        d: dict = {"gpu": names.get(i, default_gpu), "name": f"GPU{i}"}
        gen, width = links.get(i, (None, None))
        if gen:
            d["gen"] = gen
        if width:
            d["width"] = width
        return d

    sockets = []
    socket_groups = _groups(gpus, lambda a, b: rank(a, b) < 5)
    for s, members in enumerate(socket_groups):
        root_ports = []
        for h, hb in enumerate(_groups(members, within(3))):
            for r, rp in enumerate(_groups(hb, within(2))):
                switches = _groups(rp, within(1))
                if len(rp) == 1:
                    children = [device(rp[0])]
                else:
                    subs = [
                        {
                            "switch": f"s{s}-{h}-{r}-{k}",
                            "gen": 4,
                            "width": 16,
                            "children": [device(i) for i in grp],
                        }
                        if len(grp) > 1
                        else device(grp[0])
                        for k, grp in enumerate(switches)
                    ]
                    children = (
                        subs
                        if len(switches) == 1 and "switch" in subs[0]
                        else [{"switch": f"s{s}-{h}-{r}", "gen": 4, "width": 16, "children": subs}]
                    )
                root_ports.append({"id": f"s{s}h{h}r{r}", "host_bridge": str(h), "children": children})
        sockets.append({"root_ports": root_ports, **({"vendor": vendor} if vendor else {})})
    build = {"name": "measured machine (from nvidia-smi topo -m)", "topology": {"sockets": sockets}}
    if nvlink:
        build["nvlink"] = [list(p) for p in nvlink]
    return build
