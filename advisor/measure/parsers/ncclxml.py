"""NCCL's view of a machine: the topology XML of `NCCL_TOPO_FILE` / `NCCL_TOPO_DUMP_FILE`.

The format itself, read and written; `nccltopo.py` beside it is the registered reader built on it.

`export(pred)` writes the planned machine as the XML NCCL reads with `NCCL_TOPO_FILE`, so a user can
hand NCCL the topology the plan describes; `read(text)` reads such a file back, or
one NCCL dumped with `NCCL_TOPO_DUMP_FILE`, and `paths(topo)` gives each GPU pair's path the way
NCCL classifies it: NVL over NVLink, PIX through at most one PCIe bridge, PXB through several without
the CPU, PHB through the CPU (its host bridge; NCCL has no NODE), SYS across CPUs.

The format follows NCCL's src/graph/xml.cc and topo.cc (https://github.com/NVIDIA/nccl): `<system
version>`, `<cpu numaid arch vendor>` per socket, `<pci busid class link_speed link_width>` for
bridges (class 0x060400) and devices (0x03xxxx a GPU, 0x02xxxx a NIC), `<gpu dev sm rank gdr>` and
`<nvlink target count tclass>` inside a GPU's `<pci>`. Link speeds are written as the kernel names
them ("16.0 GT/s PCIe"), which NCCL's kvDictPciGen maps to per-lane rates. Bus ids are made up
(0000:BB:00.0, one bus per device and bridge), as the plan has no real ones; NCCL matches GPUs by
bus id, so on a real machine keep NCCL's own dump and compare it instead of injecting this file.
Host bridges and root ports are not written (NCCL does not model them), and a chipset's devices
hang off their CPU like any other root-port device, which is how NCCL classifies them too (PHB).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from xml.sax.saxutils import quoteattr

from advisor.base.errors import Problem, UserError
from advisor.base.inputs import check_xml_depth
from advisor.measure.parsers._common import fail
from advisor.measure.parsers.lspci import (
    GEN_BY_SPEED,
)  # the kernel's link-speed strings, as lspci prints them

GEN_SPEED = {
    1: "2.5 GT/s PCIe",
    2: "5.0 GT/s PCIe",
    3: "8.0 GT/s PCIe",
    4: "16.0 GT/s PCIe",
    5: "32.0 GT/s PCIe",
    6: "64.0 GT/s PCIe",
}
_VENDOR = {"amd": "AuthenticAMD", "intel": "GenuineIntel"}
_UNSAFE = re.compile(r"<!DOCTYPE|<!ENTITY|<!ATTLIST|<!ELEMENT|<!NOTATION", re.IGNORECASE)
MAX_BYTES = 4_000_000


# ---------------------------------------------------------------- export


def export(pred) -> str:
    """The planned machine (a Prediction) as NCCL topology XML."""
    m = pred.machine
    children: dict[str | None, list] = {}
    for n in m.nodes.values():
        children.setdefault(n.parent, []).append(n)
    bus = iter(range(1, 256))
    busid: dict[str, str] = {}

    def next_bus(n) -> str:
        b = busid.get(n.id)
        if b is None:
            try:
                b = busid[n.id] = f"0000:{next(bus):02x}:00.0"
            except StopIteration:
                raise UserError(
                    problems=[Problem("the machine has more than 255 PCIe devices and bridges to number")]
                ) from None
        return b

    # bus ids first, in tree order, so NVLink targets can name their peer
    def number(nid: str | None) -> None:
        for c in children.get(nid, []):
            if c.kind in ("gpu", "nic", "switch", "nvme"):
                next_bus(c)
            number(c.id)

    for s in range(m.sockets):
        number(f"cpu{s}")
    index_of = {n.id: n.index for n in m.gpus}
    nvlinks: dict[int, list[tuple[int, int]]] = {}
    for u, v, e in pred.graph.edges(data=True):
        if e.get("kind") == "nvlink":
            count = e.get("links") or 1
            nvlinks.setdefault(index_of[u], []).append((index_of[v], count))
            nvlinks.setdefault(index_of[v], []).append((index_of[u], count))
    by_index = {n.index: n for n in m.gpus}
    lines = ['<system version="1">']
    vendor = _VENDOR.get(m.cpu_vendor or "", "")

    def attrs(**kv) -> str:
        return " ".join(f"{k}={quoteattr(str(v))}" for k, v in kv.items() if v is not None)

    def emit(n, depth: int) -> None:
        pad = "  " * depth
        link = n.link
        speed = GEN_SPEED.get(link.gen) if link else None
        width = link.width if link else None
        if n.kind == "switch":
            lines.append(
                f"{pad}<pci {attrs(busid=next_bus(n), **{'class': '0x060400'}, link_speed=speed, link_width=width)}>"
            )
            walk(n.id, depth + 1)
            lines.append(f"{pad}</pci>")
        elif n.kind == "gpu":
            lines.append(
                f"{pad}<pci {attrs(busid=next_bus(n), **{'class': '0x030000'}, vendor='0x10de', link_speed=speed, link_width=width)}>"
            )
            cc = (n.gpu.compute_capability if n.gpu else None) or ""
            sm = cc.replace(".", "") if re.fullmatch(r"\d+\.\d", cc) else None
            lines.append(f"{pad}  <gpu {attrs(dev=n.index, sm=sm, rank=n.index, gdr=1)}>")
            for peer, count in sorted(nvlinks.get(n.index, [])):
                lines.append(
                    f"{pad}    <nvlink {attrs(target=next_bus(by_index[peer]), count=count, tclass='0x030000')}/>"
                )
            lines.append(f"{pad}  </gpu>")
            lines.append(f"{pad}</pci>")
        elif n.kind == "nic":
            lines.append(
                f"{pad}<pci {attrs(busid=next_bus(n), **{'class': '0x020000'}, link_speed=speed, link_width=width)}/>"
            )
        elif n.kind in ("host_bridge", "root_port", "chipset"):
            walk(n.id, depth)  # not NCCL nodes: their devices hang off the CPU

    def walk(nid: str, depth: int) -> None:
        for c in children.get(nid, []):
            emit(c, depth)

    bios = getattr(m.build, "bios", None)
    nps4 = bios is not None and bios.nps == 4 and m.cpu_vendor == "amd"
    numa = 0
    for s in range(m.sockets):
        # NPS4: each of a socket's root complexes is a NUMA node of its own, and NCCL gives each its <cpu>
        groups = (
            [[c] for c in children.get(f"cpu{s}", [])]
            if nps4 and any(c.kind == "host_bridge" for c in children.get(f"cpu{s}", []))
            else [None]
        )
        for group in groups:
            lines.append(f"  <cpu {attrs(numaid=numa, arch='x86_64', vendor=vendor or None)}>")
            if group is None:
                walk(f"cpu{s}", 2)
            else:
                for c in group:
                    emit(c, 2)
            lines.append("  </cpu>")
            numa += 1
    lines.append("</system>")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- read


@dataclass
class XmlGpu:
    dev: int
    busid: str
    numa: int
    ancestors: list[str]  # bus ids of the PCIe bridges above it, nearest first
    gen: int | None = None
    width: int | None = None
    nvlink: dict[str, int] = field(default_factory=dict)  # peer bus id -> link count
    nvswitch: bool = False  # NVLinks to NVSwitches (tclass 0x068000): every such GPU reaches every other


@dataclass
class Topology:
    gpus: list[XmlGpu]


def read(text: str, filename: str) -> Topology:
    """An NCCL topology XML (NCCL_TOPO_DUMP_FILE or NCCL_TOPO_FILE) as CPUs, bridges and GPUs."""
    if len(text) > MAX_BYTES:
        raise fail(
            filename, f"the file is larger than {MAX_BYTES // 1_000_000} MB; an NCCL topology is far smaller"
        )
    if _UNSAFE.search(text):
        raise fail(
            filename, "this XML declares a DTD or entities; it is refused for safety (NCCL never writes them)"
        )
    check_xml_depth(text, filename)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise fail(filename, f"this is not well-formed XML: {exc}", line) from None
    if root.tag != "system":
        raise fail(filename, f"an NCCL topology starts with <system>, not <{root.tag}>")
    gpus: list[XmlGpu] = []
    for cpu_i, cpu in enumerate(root.iter("cpu")):
        numa = _int(cpu.get("numaid"), cpu_i)

        def walk(el, bridges: list[str], numa: int = numa) -> None:
            for pci in el.findall("pci"):
                cls = (pci.get("class") or "").lower()
                bid = (pci.get("busid") or "").lower()
                gpu = pci.find("gpu")
                if gpu is not None or cls.startswith("0x03"):
                    g = XmlGpu(
                        dev=_int(gpu.get("dev") if gpu is not None else None, len(gpus)),
                        busid=bid,
                        numa=numa,
                        ancestors=list(reversed(bridges)),
                        gen=GEN_BY_SPEED.get((pci.get("link_speed") or "").split(" ")[0]),
                        width=_int(pci.get("link_width"), None),
                    )
                    if gpu is not None:
                        for nv in gpu.findall("nvlink"):
                            if (nv.get("tclass") or "").lower() == "0x068000":
                                g.nvswitch = True
                            else:
                                g.nvlink[(nv.get("target") or "").lower()] = _int(nv.get("count"), 1)
                    gpus.append(g)
                else:
                    walk(pci, [*bridges, bid] if cls == "0x060400" or pci.findall("pci") else bridges, numa)

        walk(cpu, [])
    if not gpus:
        raise fail(filename, "no GPU in this topology (no <pci> of class 0x03... or <gpu> element)")
    gpus.sort(key=lambda g: g.dev)
    return Topology(gpus)


def paths(topo: Topology) -> dict[tuple[int, int], str]:
    """Each GPU pair's path as NCCL names it: NVL, PIX, PXB, PHB or SYS."""
    out = {}
    for i, a in enumerate(topo.gpus):
        for b in topo.gpus[i + 1 :]:
            if b.busid in a.nvlink or a.busid in b.nvlink or (a.nvswitch and b.nvswitch):
                p = "NVL"
            elif a.numa != b.numa:
                p = "SYS"
            else:
                common = next((x for x in a.ancestors if x in b.ancestors), None)
                if common is None:
                    p = "PHB"
                else:
                    hops = a.ancestors.index(common) + b.ancestors.index(common)
                    p = "PIX" if hops == 0 else "PXB"
            out[(a.dev, b.dev)] = p
    return out


def nccl_class(path: str) -> str:
    """The class NCCL gives a pair nvidia-smi (and the plan) calls `path`: NODE is NCCL's PHB."""
    if path.startswith("NV"):
        return "NVL"
    return {"NODE": "PHB"}.get(path, path)


def _int(v, default):
    try:
        return int(v, 0) if isinstance(v, str) else default
    except ValueError:
        return default
