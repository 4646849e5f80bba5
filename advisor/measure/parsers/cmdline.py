"""Reader of the kernel command line: `cat /proc/cmdline`, or the "Command line:" line `dmesg` prints at
boot (P2P driver issue threads post both).

It says the IOMMU mode the kernel was told: `iommu=pt` is passthrough, what the patched P2P
driver needs (aikitoria/open-gpu-kernel-modules README); `iommu=off`, `intel_iommu=off` or
`amd_iommu=off` turn it off; `intel_iommu=on` without `iommu=pt` translates DMA. `amd_iommu=on` is no
option of the kernel (AMD's IOMMU is on whenever the BIOS enables it: ROCm/legacy-rocm-build#3919), so it
says nothing by itself. A command line that names none of these leaves the mode to the kernel's build
and the BIOS: no result, and the note says so.
"""

from __future__ import annotations

import re

from advisor.i18n import N_
from advisor.measure.models import Measurement, Result, Source
from advisor.measure.parsers._common import check_not_empty, fail, numbered_lines

TOOL = "cmdline"
_DMESG = re.compile(r"^(?:\[\s*[0-9.]+\]\s*)?(?:Kernel command line|Command line):\s*(.*)$")
_BARE = re.compile(r"^(?:BOOT_IMAGE=|initrd=|root=)")


def command_line(text: str) -> str | None:
    """The command line in a saved /proc/cmdline or dmesg text, or None."""
    for raw in text.replace("\r", "").split("\n"):
        s = raw.strip()
        m = _DMESG.match(s)
        if m and m.group(1).strip():
            return m.group(1)
        if _BARE.match(s):
            return s
    return None


# the iommu result's note, English in the measurement file (it is data), said in the run's language where
# it is shown (advisor.measure.parsers.note_words); its parts are joined by JOIN
JOIN = N_("{first}; {rest}")
LINE = N_("line {line}: {why}")
OFF = N_("{param}=off: the IOMMU is off")
PT = N_("iommu=pt: passthrough (devices' DMA is not translated)")
ON = N_("intel_iommu=on without iommu=pt: the IOMMU translates DMA")
DEFAULT = N_(
    "no iommu=, intel_iommu= or amd_iommu=off on the command line: the mode is the kernel build's default "
    "and the BIOS's (check `sudo dmesg | grep -i -e DMAR -e AMD-Vi -e iommu`)"
)
OVERRIDE = N_(
    "pcie_acs_override={value}: an out-of-tree kernel patch that treats devices as ACS-isolated (it does "
    "not switch ACS redirect off in the bridges)"
)
NOTES = (JOIN, LINE, OFF, PT, ON, DEFAULT, OVERRIDE)


def _joined(parts: list[str]) -> str:
    out = parts[0]
    for part in parts[1:]:
        out = JOIN.format(first=out, rest=part)
    return out


def parse(text: str, filename: str) -> Measurement:
    check_not_empty(text, filename, "the kernel command line")
    found: tuple[int, str] | None = None
    for line in numbered_lines(text):
        s = line.text.strip()
        m = _DMESG.match(s)
        if m and m.group(1).strip():
            found = (line.number, m.group(1))
            break
        if _BARE.match(s):
            found = (line.number, s)
            break
    if found is None:
        raise fail(
            filename,
            "no kernel command line found (a line like 'BOOT_IMAGE=... root=... ro ...')",
            hint="save `cat /proc/cmdline`, or `sudo dmesg | grep 'Command line'`",
        )
    number, cmdline = found
    params = {}
    for token in cmdline.split():
        key, _, value = token.partition("=")
        params[key] = value
    mode, why = _mode(params)
    results = []
    notes = []
    if "pcie_acs_override" in params:
        notes.append(OVERRIDE.format(value=params["pcie_acs_override"]))
    if mode is not None:
        results.append(
            Result(
                metric="iommu",
                value=mode,
                tool=TOOL,
                note=_joined([LINE.format(line=number, why=why), *notes]),
            )
        )
    else:
        results.append(
            Result(
                metric="iommu",
                value="default",
                tool=TOOL,
                note=_joined([LINE.format(line=number, why=DEFAULT), *notes]),
            )
        )
    return Measurement(source=Source(tool=TOOL, file=filename), results=results)


def _mode(params: dict[str, str]) -> tuple[str | None, str]:
    if params.get("iommu") == "off" or "off" in (params.get("intel_iommu"), params.get("amd_iommu")):
        which = next(k for k in ("iommu", "intel_iommu", "amd_iommu") if params.get(k) == "off")
        return "off", OFF.format(param=which)
    if params.get("iommu") == "pt":
        return "pt", PT
    if params.get("intel_iommu") == "on":
        return "on", ON
    return None, ""
