"""Reader of `lspci -vv` (or -vvv) for NVIDIA GPUs: PCIe link capability and status.

For every NVIDIA display / 3D controller it reads LnkCap (what the device can do) into
link_gen_max / link_width_max and LnkSta (what the link trained to) into link_gen /
link_width, turning 2.5/5/8/16/32/64 GT/s into PCIe gen 1..6. "(downgraded)" is kept as a
note: an idle GPU often drops to 2.5 GT/s, so read LnkSta under load. GPUs are numbered in
lspci order (PCI bus order), which is also nvidia-smi's order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.i18n import N_
from advisor.measure.models import GpuInfo, Machine, Measurement, Result, Source
from advisor.measure.parsers._common import check_not_empty, fail, not_this_tool, numbered_lines

TOOL = "lspci"
GEN_BY_SPEED = {
    "2.5": 1,
    "5": 2,
    "5.0": 2,
    "8": 3,
    "8.0": 3,
    "16": 4,
    "16.0": 4,
    "32": 5,
    "32.0": 5,
    "64": 6,
    "64.0": 6,
}
# a device's first line: its address, its class (with -nn a class code in brackets, dropped) and the rest
_DEVICE = re.compile(
    r"^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:\[]{1,120}?)(?:\s*\[[0-9a-fA-F]{4}\])?:\s+(.*)$"
)
_GPU_CLASS = re.compile(r"VGA compatible controller|3D controller|Display controller", re.IGNORECASE)
_NVIDIA = re.compile(r"NVIDIA|\[10de:", re.IGNORECASE)
_LINK = re.compile(r"^\s*(LnkCap|LnkSta):\s*(.*)$")
_SPEED = re.compile(r"Speed\s+([0-9.]+)\s*GT/s(\s*\(downgraded\))?|Speed\s+(unknown)", re.IGNORECASE)
_WIDTH = re.compile(r"Width\s+x([0-9]{1,2})\b(\s*\(downgraded\))?", re.IGNORECASE)
_BRIDGE_CLASS = re.compile(r"PCI bridge", re.IGNORECASE)
_ACS_CTL = re.compile(r"^\s*ACSCtl:\s*(.*)$")
_REQ_REDIR = re.compile(r"\bReqRedir([+-])")
_BUS = re.compile(
    r"Bus:\s*primary=([0-9a-fA-F]{2}),\s*secondary=([0-9a-fA-F]{2}),\s*subordinate=([0-9a-fA-F]{2})"
)
_STATUS = re.compile(r"^\s*(CESta|UESta):\s*(.*)$")  # AER: correctable, uncorrectable error status
_NUMA_NODE = re.compile(r"^\s*NUMA node:\s*([0-9]+)")
# a 64-bit prefetchable memory region: "Region 1: Memory at ... (64-bit, prefetchable) [size=32G]" (-vv), or
# with -v the region without its number (tinygrad's README shows one: 32G on a 4090 with large BAR).
# An NVIDIA GPU's BAR1 is its Region 1.
_REGION = re.compile(
    r"^\s*(?:Region\s+([0-9]):\s+)?Memory at (\S+) \(64-bit, prefetchable\).*\[size=([0-9]+)([KMGT])\]"
)
_HEX = re.compile(r"[0-9a-fA-F]+")
# in KiB, so that a size of any length stays an exact integer (a float overflows)
_UNIT_KB = {"K": 1, "M": 1024, "G": 1024**2, "T": 1024**3}
# 64-bit BARs address at most 2^64 bytes; a larger size is a damaged file, not a device
_MOST_BAR_MB = 1 << 44


@dataclass
class LinkLine:
    """A LnkCap or LnkSta line as written: the speed in GT/s ("16"; None for "Speed unknown"), the width,
    whether lspci says either is downgraded, and the line's number."""

    speed: str | None
    width: int | None
    speed_downgraded: bool
    width_downgraded: bool
    line: int

    @property
    def gen(self) -> int | None:
        """The PCIe generation of the speed, None for one that is not a PCIe rate."""
        return GEN_BY_SPEED.get(self.speed or "")


@dataclass
class PciDevice:
    """One device of `lspci -vv` (or -vvv, -vvvnn) as written: what the GPU reader below and `advisor
    doctor` (advisor/measure/doctor.py) both read, each with its own strictness."""

    bus_id: str  # 0000:bb:dd.f
    cls: str  # "VGA compatible controller", "PCI bridge"
    description: str  # the rest of its first line: vendor, device, [ids], (rev ..)
    line: int
    secondary: int | None = None  # a bridge's secondary bus
    # (LnkCap or LnkSta, the rest of the line, its number, what it reads as: None for neither speed nor width)
    links: list[tuple[str, str, int, LinkLine | None]] = field(default_factory=list)
    acs: str | None = None  # the flags of its ACSCtl line
    status: dict[str, list[str]] = field(default_factory=dict)  # CESta / UESta: the bits set ('RxErr')
    numa: int | None = None
    regions: list[tuple[str | None, str, int, int]] = field(
        default_factory=list
    )  # (number, address, MiB, line)
    denied: bool = False  # lspci could not read its capabilities ("<access denied>")

    @property
    def is_nvidia_gpu(self) -> bool:
        return bool(_GPU_CLASS.search(self.cls) and _NVIDIA.search(self.description))

    @property
    def is_bridge(self) -> bool:
        return bool(_BRIDGE_CLASS.search(self.cls))

    def link(self, kind: str) -> LinkLine | None:
        """The last LnkCap or LnkSta line that reads as one."""
        return next((read for k, _, _, read in reversed(self.links) if k == kind and read is not None), None)


def read_devices(text: str) -> list[PciDevice]:
    """Every device of `lspci -v/-vv/-vvv` text, in its order, with the lines both readers need."""
    out: list[PciDevice] = []
    cur: PciDevice | None = None
    for line in numbered_lines(text):
        if m := _DEVICE.match(line.text):
            cur = PciDevice(_bus(m.group(1)), m.group(2).strip(), m.group(3), line.number)
            out.append(cur)
            continue
        if cur is None:
            continue
        if "<access denied>" in line.text:
            cur.denied = True
        if b := _BUS.search(line.text):
            cur.secondary = int(b.group(2), 16)
        elif lk := _LINK.match(line.text):
            cur.links.append((lk.group(1), lk.group(2), line.number, _link_line(lk.group(2), line.number)))
        elif a := _ACS_CTL.match(line.text):
            cur.acs = a.group(1)
        elif st := _STATUS.match(line.text):
            cur.status.setdefault(st.group(1), []).extend(
                t[:-1] for t in st.group(2).split() if t.endswith("+")
            )
        elif n := _NUMA_NODE.match(line.text):
            cur.numa = int(n.group(1))
        elif r := _REGION.match(line.text):
            cur.regions.append((r.group(1), r.group(2), _region_mb(r.group(3), r.group(4)), line.number))
    return out


def _region_mb(digits: str, unit: str) -> int:
    """A region's size in whole MiB (at least 1); past 2^64 bytes, a value just past the bound."""
    if len(digits) > 24:  # larger than 2^64 in any unit; and int() refuses more than 4,300 digits
        return _MOST_BAR_MB + 1
    return max(1, (int(digits) * _UNIT_KB[unit] + 512) // 1024)


def _link_line(rest: str, line: int) -> LinkLine | None:
    speed, width = _SPEED.search(rest), _WIDTH.search(rest)
    if speed is None and width is None:
        return None
    return LinkLine(
        speed.group(1) if speed else None,
        int(width.group(1)) if width else None,
        bool(speed and speed.group(2)),
        bool(width and width.group(2)),
        line,
    )


@dataclass
class _Device:
    bus_id: str
    name: str | None
    line: int
    link: dict[str, tuple[int | None, int | None, bool, bool, int]] = field(default_factory=dict)
    denied: bool = False
    bar1_mb: int | None = None


def parse(text: str, filename: str) -> Measurement:
    """Read `lspci -vv` output into a Measurement (NVIDIA GPUs only)."""
    check_not_empty(text, filename, TOOL)
    devices: list[_Device] = []
    acs: dict[str, bool] = {}  # bridge bus id -> ACS P2P request redirect on (ACSCtl ReqRedir+)
    found = read_devices(text)
    any_device = bool(found)
    for dev in found:
        if dev.is_bridge and dev.acs is not None and (redir := _REQ_REDIR.search(dev.acs)):
            acs[dev.bus_id] = redir.group(1) == "+"
        if not dev.is_nvidia_gpu:
            continue
        current = _Device(dev.bus_id, _name(dev.description), dev.line, denied=dev.denied)
        devices.append(current)
        bar1 = [
            (mb, at)
            for number, address, mb, at in dev.regions
            if number in (None, "1") and _HEX.fullmatch(address)
        ]
        if bar1 and bar1[0][0] > _MOST_BAR_MB:
            raise fail(
                filename,
                "this BAR's size is larger than any PCIe device maps (2^64 bytes); "
                "give the output of `sudo lspci -vv` as it was printed",
                bar1[0][1],
            )
        current.bar1_mb = bar1[0][0] if bar1 else None
        for kind, rest, number, read in dev.links:
            current.link[kind] = _link(rest, number, read, kind, filename)
    if not any_device:
        grepped = [line for line in numbered_lines(text) if _ACS_CTL.match(line.text)]
        if (
            grepped
        ):  # `sudo lspci -vvv | grep ACSCtl` (NCCL's troubleshooting page): ACS lines without devices
            acs = {}
            for line in grepped:
                if redir := _REQ_REDIR.search(line.text):
                    acs[f"line {line.number}"] = redir.group(1) == "+"
            return Measurement(source=Source(tool=TOOL, file=filename), results=_acs_result(acs))
        raise not_this_tool(
            text, filename, TOOL, N_("no device line like '01:00.0 VGA compatible controller: ...'")
        )
    if acs and not any(d.link or d.bar1_mb is not None for d in devices):
        # `sudo lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'`: device lines and ACS control, no link lines
        return Measurement(source=Source(tool=TOOL, file=filename), results=_acs_result(acs))
    if not devices:
        raise fail(
            filename,
            "lspci lists no NVIDIA GPU (VGA / 3D controller from NVIDIA)",
            hint="run `lspci -vv -d 10de:` to list only NVIDIA devices",
        )
    machine = Machine()
    results: list[Result] = []
    skipped: list[str] = []
    for device in devices:
        if not device.link and device.bar1_mb is None:
            skipped.append(device.bus_id)
            continue
        index = len(machine.gpus)
        info = GpuInfo(index=index, name=device.name, bus_id=device.bus_id)
        results.extend(_device_results(device, index, info))
        machine.gpus.append(info)
    if not machine.gpus:
        reason = (
            "lspci was not allowed to read them" if any(d.denied for d in devices) else "they are missing"
        )
        raise fail(
            filename,
            f"no LnkCap / LnkSta lines for the NVIDIA GPU(s) {', '.join(skipped)}: {reason}",
            devices[0].line,
            hint="run `sudo lspci -vv`: without root, lspci hides the capability list",
        )
    linkless = [d.bus_id for d in devices if not d.link and d.bar1_mb is not None]
    if skipped or linkless:
        why = (
            "lspci was not allowed to read them: run `sudo lspci -vv`"
            if any(d.denied for d in devices)
            else "run lspci as root"
        )
        for r in results:
            r.note = (r.note or "") + f"; no link lines for {', '.join(skipped + linkless)} ({why})"
    results += _acs_result(acs)
    return Measurement(source=Source(tool=TOOL, file=filename), machine=machine, results=results)


# the note of the ACS result, English in the measurement file (it is data), said in the run's language
# where it is shown (advisor.measure.parsers.note_words)
ACS_ON = N_(
    "ACSCtl ReqRedir+ on {on} of {bridges} bridges ({which}): peer requests through them are redirected "
    "to the root complex"
)
ACS_OFF = N_("ACSCtl ReqRedir- on all {bridges} bridges that show ACS")
MORE = N_("{shown} and {more} more")
NOTES = (ACS_ON, ACS_OFF, MORE)


def _acs_result(acs: dict[str, bool]) -> list[Result]:
    """One machine-wide result: whether any PCI bridge redirects peer requests (ACS ReqRedir+). lspci
    shows ACSCtl only to root; with none read, nothing is said."""
    if not acs:
        return []
    on = sorted(b for b, v in acs.items() if v)
    shown = ", ".join(on[:8])
    if len(on) > 8:
        shown = MORE.format(shown=shown, more=len(on) - 8)
    note = (
        ACS_ON.format(on=len(on), bridges=len(acs), which=shown) if on else ACS_OFF.format(bridges=len(acs))
    )
    return [Result(metric="acs_on", value=bool(on), tool=TOOL, note=note)]


def _link(
    rest: str, line: int, read: LinkLine | None, kind: str, filename: str
) -> tuple[int | None, int | None, bool, bool, int]:
    """(gen, width, speed downgraded, width downgraded, line) from a LnkCap / LnkSta line, or the error
    that says what is wrong with it."""
    if read is None:
        raise fail(
            filename,
            f"expected 'Speed <n>GT/s, Width x<n>' on this {kind} line, found {rest.strip()!r}",
            line,
        )
    gen = None
    if read.speed is not None:
        if read.gen is None:
            raise fail(
                filename, f"{kind} speed {read.speed} GT/s is not a PCIe rate (2.5, 5, 8, 16, 32 or 64)", line
            )
        gen = read.gen
    lanes = read.width
    if lanes is not None and not 1 <= lanes <= 32:
        raise fail(filename, f"{kind} width x{lanes} is not a PCIe link width", line)
    return gen, lanes, read.speed_downgraded, read.width_downgraded, line


def _device_results(device: _Device, index: int, info: GpuInfo) -> list[Result]:
    out: list[Result] = []
    order = "GPU number is the order in lspci (PCI bus order)"
    if device.bar1_mb is not None:
        out.append(
            Result(
                metric="bar1_mb",
                gpu=index,
                value=device.bar1_mb,
                unit="MiB",
                tool=TOOL,
                note=f"BAR1 of {device.bus_id} (its 64-bit prefetchable region): with large BAR the whole "
                f"VRAM, without it 256 MiB; {order}",
            )
        )
    if cap := device.link.get("LnkCap"):
        gen, width, _sd, _wd, _line = cap
        info.pcie_gen_max, info.pcie_width_max = gen, width
        if gen:
            out.append(
                Result(
                    metric="link_gen_max",
                    gpu=index,
                    value=gen,
                    tool=TOOL,
                    note=f"LnkCap of {device.bus_id}: what the GPU can do; {order}",
                )
            )
        if width:
            out.append(
                Result(
                    metric="link_width_max",
                    gpu=index,
                    value=width,
                    tool=TOOL,
                    note=f"LnkCap of {device.bus_id}: what the GPU can do; {order}",
                )
            )
    if sta := device.link.get("LnkSta"):
        gen, width, speed_down, width_down, _line = sta
        info.pcie_gen_current, info.pcie_width_current = gen, width
        if gen:
            note = f"LnkSta of {device.bus_id}: the trained link now"
            if speed_down:
                note += "; lspci says downgraded (idle GPUs drop to 2.5 GT/s to save power; check under load)"
            out.append(Result(metric="link_gen", gpu=index, value=gen, tool=TOOL, note=f"{note}; {order}"))
        if width:
            note = f"LnkSta of {device.bus_id}: the trained link now"
            if width_down:
                note += "; lspci says the width is downgraded (fewer lanes than the GPU and slot support)"
            out.append(
                Result(metric="link_width", gpu=index, value=width, tool=TOOL, note=f"{note}; {order}")
            )
    return out


def _bus(raw: str) -> str:
    raw = raw.lower()
    return raw if raw.count(":") == 2 else f"0000:{raw}"


def _name(description: str) -> str | None:
    """'NVIDIA Corporation AD102GL [RTX 6000 Ada Generation] (rev a1) (prog-if ...)' -> 'AD102GL [...]'."""
    name = description.split("(prog-if", 1)[0].strip()
    if name.endswith(")") and "(rev " in name:
        name = name[: name.rindex("(rev ")].strip()
    if name.startswith("NVIDIA Corporation"):
        name = name[len("NVIDIA Corporation") :].strip()
    return name or None
