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
_DEVICE = re.compile(r"^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:]{1,120}):\s+(.*)$")
_GPU_CLASS = re.compile(r"VGA compatible controller|3D controller|Display controller", re.IGNORECASE)
_NVIDIA = re.compile(r"NVIDIA|\[10de:", re.IGNORECASE)
_LINK = re.compile(r"^\s*(LnkCap|LnkSta):\s*(.*)$")
_SPEED = re.compile(r"Speed\s+([0-9.]+)\s*GT/s(\s*\(downgraded\))?|Speed\s+(unknown)", re.IGNORECASE)
_WIDTH = re.compile(r"Width\s+x([0-9]{1,2})\b(\s*\(downgraded\))?", re.IGNORECASE)
_BRIDGE_CLASS = re.compile(r"PCI bridge", re.IGNORECASE)
_ACS_CTL = re.compile(r"^\s*ACSCtl:\s*(.*)$")
_REQ_REDIR = re.compile(r"\bReqRedir([+-])")
# BAR1 of an NVIDIA GPU: "Region 1: Memory at ... (64-bit, prefetchable) [size=32G]" (-vv), or with -v the
# first 64-bit prefetchable memory line (tinygrad's README shows one: 32G on a 4090 with large BAR)
_REGION = re.compile(
    r"^\s*(?:Region\s+([0-9]):\s+)?Memory at [0-9a-fA-F]+ \(64-bit, prefetchable\).*\[size=([0-9]+)([KMGT])\]"
)
_UNIT_MB = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


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
    current: _Device | None = None
    bridge: str | None = None
    acs: dict[str, bool] = {}  # bridge bus id -> ACS P2P request redirect on (ACSCtl ReqRedir+)
    any_device = False
    for line in numbered_lines(text):
        if m := _DEVICE.match(line.text):
            any_device = True
            current = None
            bridge = _bus(m.group(1)) if _BRIDGE_CLASS.search(m.group(2)) else None
            if _GPU_CLASS.search(m.group(2)) and _NVIDIA.search(m.group(3)):
                current = _Device(_bus(m.group(1)), _name(m.group(3)), line.number)
                devices.append(current)
            continue
        if bridge is not None and (a := _ACS_CTL.match(line.text)):
            redir = _REQ_REDIR.search(a.group(1))
            if redir:
                acs[bridge] = redir.group(1) == "+"
            continue
        if current is None:
            continue
        if (r := _REGION.match(line.text)) and current.bar1_mb is None and r.group(1) in (None, "1"):
            current.bar1_mb = max(1, round(int(r.group(2)) * _UNIT_MB[r.group(3)]))
            continue
        if "<access denied>" in line.text:
            current.denied = True
        if m := _LINK.match(line.text):
            current.link[m.group(1)] = _link(m.group(2), m.group(1), filename, line.number)
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
            text, filename, TOOL, "no device line like '01:00.0 VGA compatible controller: ...'"
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


def _acs_result(acs: dict[str, bool]) -> list[Result]:
    """One machine-wide result: whether any PCI bridge redirects peer requests (ACS ReqRedir+). lspci
    shows ACSCtl only to root; with none read, nothing is said."""
    if not acs:
        return []
    on = sorted(b for b, v in acs.items() if v)
    shown = ", ".join(on[:8]) + (f" and {len(on) - 8} more" if len(on) > 8 else "")
    note = (
        f"ACSCtl ReqRedir+ on {len(on)} of {len(acs)} bridges ({shown}): peer requests through them are "
        "redirected to the root complex"
        if on
        else f"ACSCtl ReqRedir- on all {len(acs)} bridges that show ACS"
    )
    return [Result(metric="acs_on", value=bool(on), tool=TOOL, note=note)]


def _link(rest: str, kind: str, filename: str, line: int) -> tuple[int | None, int | None, bool, bool, int]:
    """(gen, width, speed downgraded, width downgraded, line) from a LnkCap / LnkSta line."""
    speed = _SPEED.search(rest)
    width = _WIDTH.search(rest)
    if speed is None and width is None:
        raise fail(
            filename,
            f"expected 'Speed <n>GT/s, Width x<n>' on this {kind} line, found {rest.strip()!r}",
            line,
        )
    gen = None
    if speed and speed.group(1):
        key = speed.group(1)
        if key not in GEN_BY_SPEED:
            raise fail(
                filename, f"{kind} speed {key} GT/s is not a PCIe rate (2.5, 5, 8, 16, 32 or 64)", line
            )
        gen = GEN_BY_SPEED[key]
    lanes = int(width.group(1)) if width else None
    if lanes is not None and not 1 <= lanes <= 32:
        raise fail(filename, f"{kind} width x{lanes} is not a PCIe link width", line)
    return gen, lanes, bool(speed and speed.group(2)), bool(width and width.group(2)), line


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
