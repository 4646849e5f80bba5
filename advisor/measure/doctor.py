"""`advisor doctor`: what is wrong with the multi-GPU machine on the desk.

Read-only. It reads what Linux shows without root where it can: `lspci -vvv` (link capability and
status of every GPU and bridge, ACS control, AER status, BAR sizes, NUMA node; the capability list needs
root), sysfs under /sys/bus/pci (link speed and width, NUMA node, AER counters), /proc/cmdline and
/sys/class/iommu (the IOMMU mode). The same checks run on recorded files (`--lspci FILE --cmdline FILE
--sysfs DIR`), which is how they are tested: on real published dumps, never needing a GPU.

Each finding says what was seen, where, why it matters and what to do, with its source.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.base.inputs import one_newline
from advisor.base.text import plain
from advisor.findings.rules import load_checks
from advisor.i18n import _, ngettext
from advisor.measure.parsers.lspci import GEN_BY_SPEED, read_devices

Severity = Literal["error", "warning", "info"]

# the host bridge QEMU's q35 machine presents to a guest (PCI_DEVICE_ID_INTEL_Q35_MCH): the NVIDIA driver
# does not know it and refuses peer access behind it
QEMU_Q35_HOST_BRIDGE = ("8086", "29c0")

_GPU_CLASS = ("VGA compatible controller", "3D controller", "Display controller")


@dataclass
class Dev:
    bdf: str
    cls: str
    name: str
    vendor: str | None = None  # PCI vendor id, lower-case hex ("10de")
    device: str | None = None
    secondary: int | None = None  # a bridge's secondary bus
    cap: tuple[int | None, int | None] | None = None  # LnkCap (gen, width)
    sta: tuple[int | None, int | None] | None = None  # LnkSta (gen, width)
    acs_redirect: bool | None = None  # ACSCtl ReqRedir+
    errors: list[str] = field(default_factory=list)  # AER status bits set ('CESta RxErr')
    uncorrectable: list[str] = field(default_factory=list)
    aer_counts: dict[str, int] = field(default_factory=dict)  # sysfs aer_dev_* TOTAL_ERR_*
    numa: int | None = None
    bar1_mb: int | None = None
    parent: str | None = None

    @property
    def is_gpu(self) -> bool:
        return (self.vendor == "10de" or "NVIDIA" in self.name) and self.cls.startswith(_GPU_CLASS)

    @property
    def bus(self) -> tuple[str, int]:
        domain, bus, _ = self.bdf.split(":")
        return domain, int(bus, 16)


class DoctorFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    severity: Severity
    subject: str = Field(description="The GPU, bridge or setting it is about")
    message: str
    fix: str
    sources: list[str] = Field(default_factory=list)


class DoctorReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal[1] = 1
    read: list[str] = Field(description="What was read, and what could not be")
    gpus: list[dict] = Field(description="Each GPU: bus id, name, link now and at most, NUMA node, BAR1")
    findings: list[DoctorFinding]
    nothing_to_check: str | None = Field(
        default=None,
        description="Set when no NVIDIA GPU was in what was read, so nothing was checked: what was looked for "
        "and what to run or install (`advisor doctor` then exits 2)",
    )


# ----------------------------------------------------------------------------- reading


_IDS = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]")


def read_lspci(text: str) -> dict[str, Dev]:
    """Devices from `lspci -vvv` (or -vvvnn) text, with each one's parent bridge: every device the lspci
    reader finds (advisor/measure/parsers/lspci.py), read leniently (a speed that is not a PCIe rate is an
    unknown generation, never an error: the other checks still run)."""
    devs: dict[str, Dev] = {}
    for p in read_devices(text):
        ids = _IDS.findall(p.description)
        vendor, device = (ids[-1][0].lower(), ids[-1][1].lower()) if ids else (None, None)
        name = re.sub(r"\s*\(rev [0-9a-f]+\).*$|\s*\(prog-if.*$", "", p.description).strip()
        d = Dev(p.bus_id, p.cls, name, vendor, device, secondary=p.secondary, numa=p.numa)
        for kind, _pos, _raw, read in p.links:
            value = (read.gen, read.width) if read is not None else (None, None)
            if kind == "LnkCap":
                d.cap = value
            else:
                d.sta = value
        if p.acs is not None:
            d.acs_redirect = "ReqRedir+" in p.acs
        d.errors = [f"CESta {b}" for b in p.status.get("CESta", []) if b != "AdvNonFatalErr"]
        d.uncorrectable = [f"UESta {b}" for b in p.status.get("UESta", [])]
        bar1 = [mb for number, _, mb, _ in p.regions if number == "1"]
        d.bar1_mb = bar1[-1] if bar1 else None
        devs[d.bdf] = d
    _parents(devs)
    return devs


def _parents(devs: dict[str, Dev]) -> None:
    bridges = {(d.bus[0], d.secondary): d.bdf for d in devs.values() if d.secondary is not None}
    for d in devs.values():
        parent = bridges.get(d.bus)
        d.parent = parent if parent != d.bdf else None


def read_sysfs(root: Path | None, devs: dict[str, Dev]) -> list[str]:
    """What sysfs adds (root: a folder that holds sys/bus/pci/devices, '/' on the live machine): link speed
    and width, NUMA node, AER counters, the parent from the device's real path. Returns what was read."""
    if root is None:
        return [_("sysfs: not read (recorded files only)")]
    base = root / "sys" / "bus" / "pci" / "devices"
    if not base.is_dir() or not _inside(base, root):
        return [_("{path}: not found (no sysfs read)").format(path=base)]
    read = 0
    entries = []
    for entry in base.iterdir():
        if len(entries) >= SYSFS_MAX_DEVICES:
            return [
                _("{path}: more than {most} entries, not a machine's devices (no sysfs read)").format(
                    path=base, most=f"{SYSFS_MAX_DEVICES:,}"
                )
            ]
        entries.append(entry)
    for entry in sorted(entries):
        bdf = entry.name.lower()
        if not re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", bdf) or not _inside(entry, root):
            continue
        d = devs.get(bdf)
        if d is None:
            cls = _file(entry / "class", root) or ""
            kind = (
                "VGA compatible controller"
                if cls.startswith("0x0300")
                else "3D controller"
                if cls.startswith("0x0302")
                else "PCI bridge"
                if cls.startswith("0x0604")
                else cls
            )
            vendor = (_file(entry / "vendor", root) or "").removeprefix("0x") or None
            d = devs[bdf] = Dev(
                bdf, kind, "", vendor, (_file(entry / "device", root) or "").removeprefix("0x") or None
            )
        read += 1
        gen_now = _gen(_file(entry / "current_link_speed", root))
        width_now = _int(_file(entry / "current_link_width", root))
        if gen_now or width_now:
            d.sta = (gen_now, width_now)
        gen_max, width_max = (
            _gen(_file(entry / "max_link_speed", root)),
            _int(_file(entry / "max_link_width", root)),
        )
        if gen_max or width_max:
            d.cap = (gen_max, width_max)
        numa = _int(_file(entry / "numa_node", root))
        if numa is not None and numa >= 0:
            d.numa = numa
        for kind in ("correctable", "nonfatal", "fatal"):
            text = _file(entry / f"aer_dev_{kind}", root)
            if text:
                total = next(
                    (line.split()[-1] for line in text.splitlines() if line.startswith("TOTAL_ERR")), None
                )
                if total is not None and total.isdigit():
                    d.aer_counts[kind] = int(total)
        up = Path(os.path.realpath(entry)).parent.name.lower()
        if re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", up):
            d.parent = up
    return [ngettext("{path}: {n} device", "{path}: {n} devices", read).format(path=base, n=read)]


# A sysfs attribute is one short line (a link speed, a class code; an AER counter file a few lines): this
# much is read at most, whatever the file's size says
SYSFS_MAX_BYTES = 16 * 1024
# the PCI devices a machine has: a few hundred on the largest servers
SYSFS_MAX_DEVICES = 4096


def _inside(path: Path, root: Path) -> bool:
    """Whether `path`, its links followed, is inside the tree at `root` (a recorded tree's links never
    lead out of it: one that does would read this machine's files, or /dev/zero)."""
    top = os.path.realpath(root)
    real = os.path.realpath(path)
    return top == os.sep or real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _file(path: Path, root: Path | None = None) -> str | None:
    """A sysfs attribute's text, or None when it is not there or cannot be read: only a regular file inside
    the tree at `root`, at most SYSFS_MAX_BYTES of it, and UTF-8. A FIFO, a device, a link out of the tree
    or a file that is not text is not read (it would block, never end, or read another machine's)."""
    import stat

    if root is not None and not _inside(path, root):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, SYSFS_MAX_BYTES)
        return plain(raw.decode("utf-8")).strip()
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _gen(text: str | None) -> int | None:
    """sysfs '16.0 GT/s PCIe' (or '8 GT/s') -> 4."""
    if not text:
        return None
    m = re.match(r"([0-9.]+)\s*GT/s", text)
    return GEN_BY_SPEED.get(m.group(1)) if m else None


def iommu_mode(cmdline: str | None, root: Path | None) -> tuple[str | None, str]:
    """(mode, how it was read): pt, on, off, or None when the command line does not say."""
    if cmdline is None:
        return None, _("no kernel command line read")
    params = dict(t.partition("=")[::2] for t in cmdline.split())
    if params.get("iommu") == "off" or "off" in (params.get("intel_iommu"), params.get("amd_iommu")):
        return "off", _("the kernel command line turns the IOMMU off")
    if params.get("iommu") == "pt":
        return "pt", _("iommu=pt on the kernel command line")
    if params.get("intel_iommu") == "on":
        return "on", _("intel_iommu=on without iommu=pt on the kernel command line")
    units = root / "sys" / "class" / "iommu" if root is not None else None
    if units is not None and units.is_dir() and any(units.iterdir()):
        return "on", _("{path} lists IOMMU units and the command line sets no passthrough").format(path=units)
    return None, _("the command line sets no IOMMU mode")


# ----------------------------------------------------------------------------- checks


def _path(devs: dict[str, Dev], d: Dev) -> list[Dev]:
    """The bridges from the GPU up to its root port, nearest first."""
    out, seen = [], {d.bdf}
    cur = devs.get(d.parent) if d.parent else None
    while cur is not None and cur.bdf not in seen:
        out.append(cur)
        seen.add(cur.bdf)
        cur = devs.get(cur.parent) if cur.parent else None
    return out


def _chipset(b: Dev) -> bool:
    """A chipset port: named so by lspci, or an Intel PCH root port (bus 00, devices 1Ah-1Dh)."""
    if re.search(r"chipset|\bPCH\b", b.name, re.IGNORECASE):
        return True
    domain, bus = b.bus
    dev_no = int(b.bdf.split(":")[2].split(".")[0], 16)
    return b.vendor == "8086" and bus == 0 and 0x1A <= dev_no <= 0x1D and b.parent is None


def _label(d: Dev) -> str:
    return f"{d.bdf} ({d.name})" if d.name else d.bdf


def check(
    devs: dict[str, Dev],
    cmdline: str | None,
    root: Path | None,
    loaded: str | None,
    process_nodes: set[int] | None,
    vram_mb: dict[str, int] | None = None,
) -> tuple[list[dict], list[DoctorFinding]]:
    """The findings for the devices read; `loaded` says how the links were read under load (None: idle)."""
    gpus = sorted((d for d in devs.values() if d.is_gpu), key=lambda d: d.bdf)
    out: list[DoctorFinding] = []
    table = []
    for i, g in enumerate(gpus):
        path = _path(devs, g)
        table.append(
            {
                "index": i,
                "bus_id": g.bdf,
                "name": g.name,
                "link_now": list(g.sta) if g.sta else None,
                "link_max": list(g.cap) if g.cap else None,
                "numa_node": g.numa,
                "bar1_mib": g.bar1_mb,
                "path": [b.bdf for b in path],
            }
        )
        subject = f"GPU{i} {g.bdf}"
        if g.sta and g.cap and g.sta[1] and g.cap[1] and g.sta[1] < g.cap[1]:
            out.append(
                DoctorFinding(
                    id="DOC001",
                    severity="warning",
                    subject=subject,
                    message=_(
                        "GPU{index} ({name}) links at x{width}, not the x{most} it can: every host copy and staged "
                        "GPU-to-GPU copy runs at that width."
                    ).format(index=i, name=g.name or g.bdf, width=g.sta[1], most=g.cap[1]),
                    fix=_(
                        "Check the board manual's slot table (an SSD or a second card may take the slot's lanes; "
                        "`advisor plan` shows the link the board gives), reseat the card, and replace a riser."
                    ),
                )
            )
        if g.sta and g.cap and g.sta[0] and g.cap[0] and g.sta[0] < g.cap[0]:
            if loaded:
                out.append(
                    DoctorFinding(
                        id="DOC001",
                        severity="warning",
                        subject=subject,
                        message=_(
                            "GPU{index} trains at Gen{gen} under load ({how}), below its Gen{most}."
                        ).format(index=i, gen=g.sta[0], how=loaded, most=g.cap[0]),
                        fix=_(
                            "Set the slot's PCIe generation to Auto or the card's in the BIOS; a riser or retimer "
                            "rated below the card's generation holds it back: replace it."
                        ),
                    )
                )
            else:
                out.append(
                    DoctorFinding(
                        id="DOC001",
                        severity="info",
                        subject=subject,
                        message=_(
                            "GPU{index} reads Gen{gen} of its Gen{most}, read idle: an idle GPU drops its link to "
                            "save power, so this says nothing until read under load."
                        ).format(index=i, gen=g.sta[0], most=g.cap[0]),
                        fix=_(
                            "Run `advisor doctor` on the machine with torch installed (it loads each GPU briefly), "
                            "or read `nvidia-smi -q -d PCIE` while a job runs."
                        ),
                    )
                )
        # a bridge above the GPU narrower than the GPU's own link (the GPU's own width is DOC001's)
        own = (g.sta[1] if g.sta and g.sta[1] else None) or (g.cap[1] if g.cap else None)
        narrow = [b for b in path if b.sta and b.sta[1] and own and b.sta[1] < own]
        if narrow:
            b = narrow[-1] if _chipset(narrow[-1]) else narrow[0]
            where = _("the chipset") if any(_chipset(x) for x in path) else _("a switch or bridge")
            out.append(
                DoctorFinding(
                    id="DOC002",
                    severity="warning",
                    subject=subject,
                    message=_(
                        "GPU{index}'s path to the CPU narrows to x{width} at {bridge} ({where}): its host copies "
                        "cannot be faster than that link."
                    ).format(index=i, width=b.sta[1], bridge=_label(b), where=where),
                    fix=_(
                        "Move the card to a CPU-wired x16 slot (the board manual's block diagram says which)."
                    ),
                )
            )
        if any(_chipset(b) for b in path):
            out.append(
                DoctorFinding(
                    id="DOC008",
                    severity="warning",
                    subject=subject,
                    message=_(
                        "GPU{index} hangs off the chipset ({bridge}): it shares the chipset's uplink with every "
                        "SSD, USB and network port behind it."
                    ).format(index=i, bridge=_label(next(b for b in path if _chipset(b)))),
                    fix=_(
                        "Use a CPU-wired slot for every GPU; on a desktop platform that means two cards at x8/x8 at "
                        "most, more needs a Threadripper, Xeon W or EPYC board."
                    ),
                )
            )
        errs = [(x, x.errors, x.aer_counts.get("correctable", 0)) for x in [g, *path]]
        errs = [(x, e, c) for x, e, c in errs if e or c]
        if errs:
            x, e, c = errs[0]
            what = ", ".join(e) if e else _("{n} correctable errors counted").format(n=c)
            out.append(
                DoctorFinding(
                    id="DOC003",
                    severity="warning",
                    subject=subject,
                    message=_(
                        "Link errors logged on GPU{index}'s path, at {device}: {what}. Correctable errors are "
                        "retried silently; many of them mean a weak link (a riser, a long cable, a card not fully "
                        "seated) that costs bandwidth and can drop the link."
                    ).format(index=i, device=_label(x), what=what),
                    fix=_(
                        "Reseat the card, replace the riser or cable with one rated for the link's generation, or "
                        "set the slot one generation lower in the BIOS; watch {path}."
                    ).format(path=f"/sys/bus/pci/devices/{x.bdf}/aer_dev_correctable"),
                )
            )
        bad = [
            (x, x.uncorrectable)
            for x in [g, *path]
            if x.uncorrectable or x.aer_counts.get("fatal") or x.aer_counts.get("nonfatal")
        ]
        if bad:
            x, u = bad[0]
            out.append(
                DoctorFinding(
                    id="DOC003",
                    severity="error",
                    subject=subject,
                    message=_("Uncorrectable PCIe errors on GPU{index}'s path, at {device}: {what}.").format(
                        index=i, device=_label(x), what=", ".join(u) if u else _("counted in sysfs")
                    ),
                    fix=_(
                        "Check `sudo dmesg | grep -i -e aer -e xid`; reseat or replace the riser; if it follows the "
                        "card, the card may be failing."
                    ),
                )
            )
        vram = (vram_mb or {}).get(g.bdf)
        if g.bar1_mb is not None and g.bar1_mb <= 256:
            out.append(
                DoctorFinding(
                    id="DOC004",
                    severity="warning",
                    subject=subject,
                    message=_(
                        "GPU{index}'s BAR1 is {mib} MiB: large (Resizable) BAR is off, so the patched P2P driver "
                        "cannot map the card's memory for its peers."
                    ).format(index=i, mib=g.bar1_mb),
                    fix=_("Turn on Above 4G Decoding and Resizable BAR in the BIOS."),
                )
            )
        elif g.bar1_mb is not None and vram and g.bar1_mb < vram:
            out.append(
                DoctorFinding(
                    id="DOC004",
                    severity="info",
                    subject=subject,
                    message=_(
                        "GPU{index}'s BAR1 ({mib} MiB) is smaller than its {vram} MiB of memory."
                    ).format(index=i, mib=g.bar1_mb, vram=vram),
                    fix=_("Turn on Resizable BAR in the BIOS for a BAR1 as large as the VRAM."),
                )
            )
        if process_nodes is not None and g.numa is not None and g.numa not in process_nodes:
            out.append(
                DoctorFinding(
                    id="DOC007",
                    severity="info",
                    subject=subject,
                    message=_(
                        "GPU{index} is on NUMA node {node}, but this process may run only on node(s) {nodes}: its "
                        "pinned host buffers sit on the far socket."
                    ).format(index=i, node=g.numa, nodes=", ".join(map(str, sorted(process_nodes)))),
                    fix=_(
                        "Run the job for GPU{index} with {command}, or let NCCL and the framework pick CPUs near "
                        "each GPU (do not pin all ranks to one node)."
                    ).format(index=i, command=f"numactl --cpunodebind={g.numa} --membind={g.numa}"),
                )
            )
    # ACS on the bridges between the GPUs
    if len(gpus) >= 2:
        bridges = {b.bdf: b for g in gpus for b in _path(devs, g)}
        on = sorted(b for b, x in bridges.items() if x.acs_redirect)
        known = [x for x in bridges.values() if x.acs_redirect is not None]
        if on:
            out.append(
                DoctorFinding(
                    id="DOC006",
                    severity="warning",
                    subject="ACS",
                    message=_(
                        "ACS redirects peer requests (ACSCtl ReqRedir+) on {n} bridge(s) between the GPUs: "
                        "{bridges}. GPU-to-GPU traffic is sent up to the root complex: slower P2P, and NCCL can "
                        "hang when the IOMMU blocks it."
                    ).format(n=len(on), bridges=f"{', '.join(on[:8])}{' ...' if len(on) > 8 else ''}"),
                    fix=_(
                        "Turn ACS off in the BIOS, or clear it per bridge ({command}; it resets at reboot) on a "
                        "machine that runs no untrusted VMs."
                    ).format(command="sudo setpci -s <bridge> ECAP_ACS+0x6.w=0000"),
                )
            )
        elif not known:
            out.append(
                DoctorFinding(
                    id="DOC006",
                    severity="info",
                    subject="ACS",
                    message=_(
                        "ACS on the bridges between the GPUs is not in what was read: lspci shows the capability "
                        "list only to root, and a listing of single devices (-s) leaves the bridges out."
                    ),
                    fix=_("Run `sudo lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'` (or `sudo advisor doctor`)."),
                )
            )
    q35 = next(
        (d for d in devs.values() if d.cls == "Host bridge" and (d.vendor, d.device) == QEMU_Q35_HOST_BRIDGE),
        None,
    )
    if q35 is not None and len(gpus) >= 2:
        out.append(
            DoctorFinding(
                id="DOC009",
                severity="warning",
                subject=_("virtual machine"),
                message=_(
                    "This is a virtual machine: {bridge} is QEMU's emulated q35 host bridge [8086:29c0], which the "
                    "NVIDIA driver does not know, so it refuses peer access between the GPUs (nvidia-smi topo -p2p "
                    "r reads CNS) and NCCL stages every copy through host memory."
                ).format(bridge=q35.bdf),
                fix=_(
                    "On the host, pass each GPU with x-nv-gpudirect-clique=0 (a QEMU vfio-pci option; Proxmox: "
                    "args:) and check that topo -p2p r reads OK. Between GeForce cards the clique's P2P does not "
                    "deliver and NCCL's first collective hangs: keep NCCL_P2P_DISABLE=1 there."
                ),
            )
        )
    mode, how = iommu_mode(cmdline, root)
    if mode == "on" and gpus:
        out.append(
            DoctorFinding(
                id="DOC005",
                severity="warning",
                subject="IOMMU",
                message=_(
                    "The IOMMU translates DMA ({how}): GPU peer traffic goes through its page tables; the patched "
                    "P2P driver's transfers fail, and P2P through the IOMMU is slower."
                ).format(how=how),
                fix=_(
                    "Add iommu=pt to the kernel command line (intel_iommu=on iommu=pt on Intel), or turn the IOMMU "
                    "off in the BIOS on a machine without VMs."
                ),
            )
        )
    # each finding's sources are its check's, as registered beside the rules (rules/doctor.yaml)
    registered = {c.id: c for c in load_checks()}
    out = [f.model_copy(update={"sources": list(registered[f.id].sources)}) for f in out]
    order = {"error": 0, "warning": 1, "info": 2}
    return table, sorted(out, key=lambda f: (order[f.severity], f.id, f.subject))


# ----------------------------------------------------------------------------- the live machine


def cpu_list(text: str) -> set[int]:
    """'0-15,32-47' -> the CPUs; a UserError for anything else."""
    from advisor.base.errors import UserError

    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"([0-9]{1,5})(?:-([0-9]{1,5}))?", part)
        if not m or (m.group(2) and int(m.group(2)) < int(m.group(1))):
            raise UserError(
                _("--cpus {text}: {part} is not a CPU number or range").format(
                    text=repr(text), part=repr(part)
                ),
                hint=_("e.g. --cpus 0-15,32-47"),
            )
        out |= set(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return out


def process_nodes(root: Path | None, cpus: set[int] | None = None) -> set[int] | None:
    """NUMA nodes whose CPUs the job may run on: `cpus`, or this process's (sched_getaffinity), against the
    node cpulists under sys/devices/system/node."""
    if cpus is None:
        try:
            cpus = os.sched_getaffinity(0)
        except (AttributeError, OSError):
            return None
    nodes = set()
    base = root / "sys" / "devices" / "system" / "node" if root is not None else None
    if base is None or not base.is_dir():
        return None
    for node in base.glob("node[0-9]*"):
        if not re.fullmatch(r"node[0-9]{1,4}", node.name):
            continue
        text = _file(node / "cpulist", root) or ""
        mine = set()
        # a range past the most CPUs Linux numbers (CONFIG_NR_CPUS is at most 8192) is not a machine's:
        # skipped, never expanded
        for part in text.split(","):
            m = re.fullmatch(r"([0-9]{1,4})(?:-([0-9]{1,4}))?", part.strip())
            if m:
                mine |= set(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
        if mine & cpus:
            nodes.add(int(node.name[4:]))
    return nodes or None


def read_nvml(devs: dict[str, Dev]) -> tuple[dict[str, int], str]:
    """GPU names, memory and BAR1 sizes from NVML (nvidia-ml-py), where it is installed and a driver runs:
    ({bus id: VRAM MiB}, what was read). Read-only; nothing when NVML is not there."""
    try:
        import pynvml
    except ImportError:
        return {}, _("NVML: not read (nvidia-ml-py is not installed)")
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # no driver, no GPU: NVMLError and its subclasses
        return {}, _("NVML: not available ({error})").format(error=exc)
    vram: dict[str, int] = {}
    try:
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            bus = pynvml.nvmlDeviceGetPciInfo(h).busId
            bus = (bus.decode() if isinstance(bus, bytes) else bus).lower()
            bdf = bus[-12:] if len(bus) > 12 else bus  # '00000000:41:00.0' -> '0000:41:00.0'
            name = pynvml.nvmlDeviceGetName(h)
            name = name.decode() if isinstance(name, bytes) else name
            d = devs.setdefault(bdf, Dev(bdf, "3D controller", name, "10de"))
            d.name = d.name if d.name and "Device [" not in d.name else name
            vram[bdf] = int(pynvml.nvmlDeviceGetMemoryInfo(h).total // (1 << 20))
            try:
                d.bar1_mb = int(pynvml.nvmlDeviceGetBAR1MemoryInfo(h).bar1Total // (1 << 20))
            except Exception:  # not supported on this GPU
                pass
    finally:
        pynvml.nvmlShutdown()
    return vram, _("NVML: {n} GPU(s)").format(n=len(vram))


class NoLoad(Exception):
    """The GPUs could not be loaded to read the links under load; the message says why."""


def diagnose(
    lspci_text: str | None,
    cmdline: str | None,
    root: Path | None,
    live: bool,
    load: bool,
    lspci_note: str,
    cpus: set[int] | None = None,
    loader=None,
) -> DoctorReport:
    """Read what there is, load the GPUs when asked and possible, and check. `loader(reread)` loads the
    GPUs, calls `reread()` while they are busy and returns how (advisor.bench.load: the core never imports
    torch); it raises NoLoad with the reason when it cannot."""
    # what lspci printed and the command line, as read: every line break one kind, and no control
    # character left in a device's name to reach a terminal
    if lspci_text is not None:
        lspci_text = plain(one_newline(lspci_text))
    if cmdline is not None:
        cmdline = plain(one_newline(cmdline))
    read = [lspci_note]
    devs = read_lspci(lspci_text) if lspci_text else {}
    read += read_sysfs(root, devs)
    vram: dict[str, int] = {}
    if live:
        vram, how = read_nvml(devs)
        read.append(how)
    read.append(_("kernel command line: read") if cmdline is not None else _("kernel command line: not read"))
    loaded = None
    if live and load and any(d.is_gpu for d in devs.values()):
        try:
            if loader is None:
                raise NoLoad(_("no loader given"))
            loaded = loader(lambda: read_sysfs(root, devs))
            read.append(_("links {how}").format(how=loaded))
        except NoLoad as exc:
            read.append(
                _(
                    "links read idle: {why} (an idle GPU drops to Gen1; the Gen checks wait for a load)"
                ).format(why=exc)
            )
    elif not live:
        read.append(_("links as recorded in the files (idle unless they were saved under load)"))
    nodes = process_nodes(root, cpus) if (live or cpus is not None) else None
    table, findings = check(devs, cmdline, root, loaded, nodes, vram)
    nothing = None
    if not table:
        read.append(_("no NVIDIA GPU found in what was read"))
        nothing = nothing_to_check(devs, live, lspci_text is not None, root)
    return DoctorReport(read=read, gpus=table, findings=findings, nothing_to_check=nothing)


def nothing_to_check(devs: dict[str, Dev], live: bool, lspci_read: bool, root: Path | None) -> str:
    """What was looked for and not found when no NVIDIA GPU was read, and what to run or install: every
    check is about the GPUs, so without one a quiet report would claim a health that was never checked."""
    import shutil

    nvidia = [d for d in devs.values() if d.vendor == "10de" or "NVIDIA" in d.name]
    pci = _("{n} PCI device(s) read, none of them an NVIDIA GPU").format(n=len(devs))
    if nvidia:
        pci = _("{n} PCI device(s) read; the NVIDIA ones, {devices}, are not GPUs").format(
            n=len(devs), devices=", ".join(d.bdf for d in nvidia[:4])
        )
    if not live:
        given = []
        if lspci_read:
            given.append("--lspci")
        if root is not None:
            given.append("--sysfs")
        return _(
            "Nothing to check: no NVIDIA GPU in the files given ({given}: {pci}). Give the GPU machine's whole "
            "`sudo lspci -vvv` (not a grep of some of its lines) with --lspci, or its sys/bus/pci tree with "
            "--sysfs, or run `advisor doctor` on that machine."
        ).format(given=_(" and ").join(given) or _("no lspci or sysfs"), pci=pci)
    missing = []
    if not lspci_read:
        missing.append(_("lspci, from pciutils"))
    if shutil.which("nvidia-smi") is None:
        missing.append(_("nvidia-smi, which comes with the NVIDIA driver"))
    found = (
        _("{pci}; not found: {missing}").format(pci=pci, missing=_("; ").join(missing)) if missing else pci
    )
    return _(
        "Nothing to check: no NVIDIA GPU found on this machine ({found}). Run `advisor doctor` on the machine "
        "with the GPUs, with the NVIDIA driver installed (`nvidia-smi` lists every GPU) and pciutils for lspci "
        "(`sudo advisor doctor` also reads ACS and link errors); in a container, pass the GPUs in (docker run "
        "--gpus all). Or check files recorded there: `advisor doctor --lspci lspci.txt --cmdline cmdline.txt` "
        "(sudo lspci -vvv > lspci.txt; cat /proc/cmdline > cmdline.txt)."
    ).format(found=found)
