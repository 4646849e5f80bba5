"""Reader of `nvidia-smi -q` PCIe link information, plain text or `-q -x` XML.

From each GPU's "GPU Link Info" it takes the PCIe generation (Max, Current, and on newer
drivers Device Current / Device Max / Host Max) and the link width (Max, Current). `Max` is
what the GPU and the slot can both do; `Current` drops at idle to save power, so read it
under load. GPUs are numbered in the order nvidia-smi lists them (PCI bus order).
XML is parsed with xml.etree after refusing any entity declaration or internal DTD subset
(defusedxml's rules), so a hostile file cannot expand entities or reach other files; the
plain `<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_vNN.dtd">` line nvidia-smi writes is fine.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from advisor.base.inputs import check_xml_depth
from advisor.i18n import N_
from advisor.measure.models import GpuInfo, Machine, Measurement, Metric, Result, Source
from advisor.measure.parsers._common import (
    check_not_empty,
    fail,
    is_int,
    normalise,
    not_this_tool,
    numbered_lines,
)

TOOL = "smi-q"
_GPU = re.compile(r"^GPU\s+([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s*$")
_DOCTYPE = re.compile(r"<!DOCTYPE\s+nvidia_smi_log(?:\s+SYSTEM\s+\"[^\"<>\[\]]*\")?\s*>")
_UNSAFE = re.compile(r"<!ENTITY|<!ATTLIST|<!ELEMENT|<!NOTATION", re.IGNORECASE)
_DOCTYPE_START = re.compile(r"<!DOCTYPE", re.IGNORECASE)
# nvidia-smi's DOCTYPE line is about 60 characters; each declaration is read up to its '>' within this
# many, so a file of thousands of unclosed '<!DOCTYPE' costs a bounded look at each, never a scan to the end
_MOST_DOCTYPE = 300
_NOT_AVAILABLE = {"N/A", "Unknown", "Unknown Error", "[N/A]", "Not Supported", "[Not Supported]"}

# (section path under "GPU Link Info", key) -> (field, metric, note)
_TEXT_FIELDS: dict[tuple[str, str], tuple[str, Metric, str]] = {
    ("PCIe Generation", "Max"): ("gen_max", "link_gen_max", "Max: the most the GPU and its slot can both do"),
    ("PCIe Generation", "Current"): (
        "gen_current",
        "link_gen",
        "Current: drops at idle to save power; read it under load",
    ),
    ("PCIe Generation", "Device Current"): (
        "gen_device_current",
        "link_gen",
        "Device Current: the GPU side of the link right now",
    ),
    ("PCIe Generation", "Device Max"): (
        "gen_device_max",
        "link_gen_max",
        "Device Max: the GPU's own highest generation",
    ),
    ("PCIe Generation", "Host Max"): (
        "gen_host_max",
        "link_gen_max",
        "Host Max: the slot / root port's highest generation",
    ),
    ("Link Width", "Max"): ("width_max", "link_width_max", "Max: the widest link the GPU and slot agree on"),
    ("Link Width", "Current"): (
        "width_current",
        "link_width",
        "Current: lanes in use now; can drop at idle on some GPUs",
    ),
}
_XML_FIELDS = {
    ("pcie_gen", "max_link_gen"): ("PCIe Generation", "Max"),
    ("pcie_gen", "current_link_gen"): ("PCIe Generation", "Current"),
    ("pcie_gen", "device_current_link_gen"): ("PCIe Generation", "Device Current"),
    ("pcie_gen", "max_device_link_gen"): ("PCIe Generation", "Device Max"),
    ("pcie_gen", "max_host_link_gen"): ("PCIe Generation", "Host Max"),
    ("link_widths", "max_link_width"): ("Link Width", "Max"),
    ("link_widths", "current_link_width"): ("Link Width", "Current"),
}


@dataclass
class _Gpu:
    bus_id: str | None
    name: str | None = None
    values: dict[tuple[str, str], int] = field(default_factory=dict)
    bar1_mb: int | None = None  # "BAR1 Memory Usage" Total: the GPU memory peers can map


_MIB = re.compile(r"^([0-9]{1,9})\s*MiB$")


def parse(text: str, filename: str) -> Measurement:
    """Read `nvidia-smi -q` or `nvidia-smi -q -x` output into a Measurement."""
    check_not_empty(text, filename, TOOL)
    body = normalise(text)
    if body.lstrip().startswith("<"):
        gpus, machine, attached = _parse_xml(body, filename)
    else:
        gpus, machine, attached = _parse_text(body, filename)
    return _measurement(gpus, machine, attached, filename)


# ----------------------------------------------------------------------------- text


def _parse_text(text: str, filename: str) -> tuple[list[_Gpu], Machine, int | None]:
    lines = numbered_lines(text)
    machine = Machine()
    gpus: list[_Gpu] = []
    attached = None
    seen_log = False
    stack: list[tuple[int, str]] = []  # (indent, section name) above the current line
    for line in lines:
        raw = line.text.rstrip()
        if not raw.strip():
            continue
        if "NVSMI LOG" in raw:
            seen_log = True
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if m := _GPU.match(raw.strip()):
            gpus.append(_Gpu(bus_id=_bus(m.group(1))))
            stack = [(indent, "GPU")]
            continue
        key, colon, value = raw.strip().partition(":")
        key, value = key.strip(), value.strip()
        if not colon:
            stack.append((indent, key))
            continue
        path = [name for _i, name in stack]
        if not path:
            _machine_field(machine, key, value)
            if key == "Attached GPUs" and is_int(value):
                attached = int(value)
            continue
        if not gpus or path[0] != "GPU":
            continue
        if path == ["GPU"] and key == "Product Name" and value:
            gpus[-1].name = value
            continue
        if path == ["GPU", "BAR1 Memory Usage"] and key == "Total":
            gpus[-1].bar1_mb = _mib(value, filename, line.number)
            continue
        spec = (path[3], key) if len(path) == 4 and path[1:3] == ["PCI", "GPU Link Info"] else None
        if spec in _TEXT_FIELDS:
            if not value:
                raise fail(
                    filename,
                    f"expected a value after '{key} :' in {spec[0]}, found nothing",
                    line.number,
                    hint="the file may be cut short; save `nvidia-smi -q` again",
                )
            number = _link_number(value, spec, filename, line.number)
            if number is not None:
                gpus[-1].values[spec] = number
        elif not value:
            stack.append((indent, key))  # 'Name :' with nothing after it opens a section
    if not seen_log and not gpus:
        grepped = _bar1_grep(lines, filename)
        if grepped:
            return grepped, machine, None
        raise not_this_tool(text, filename, TOOL, N_("no '==============NVSMI LOG==============' banner"))
    return gpus, machine, attached


def _bar1_grep(lines, filename: str) -> list[_Gpu]:
    """`nvidia-smi -q | grep -A3 "BAR1 Memory Usage"`, as P2P issue threads post it: each block's Total is
    the next GPU's (nvidia-smi lists GPUs in PCI bus order)."""
    gpus: list[_Gpu] = []
    inside = False
    for line in lines:
        s = line.text.strip()
        if s == "BAR1 Memory Usage":
            gpus.append(_Gpu(bus_id=None))
            inside = True
        elif inside and s.partition(":")[0].strip() == "Total":
            gpus[-1].bar1_mb = _mib(s.partition(":")[2].strip(), filename, line.number)
            inside = False
    return [g for g in gpus if g.bar1_mb is not None]


def _mib(value: str, filename: str, line: int | None) -> int | None:
    if value in _NOT_AVAILABLE:
        return None
    m = _MIB.match(value.strip())
    if not m:
        raise fail(filename, f"expected the BAR1 total like '32768 MiB', found {value!r}", line)
    return int(m.group(1))


def _machine_field(machine: Machine, key: str, value: str) -> None:
    if key == "Driver Version" and value:
        machine.driver = value
    elif key == "CUDA Version" and value:
        machine.cuda = value


def _link_number(value: str, spec: tuple[str, str], filename: str, line: int | None) -> int | None:
    """A generation ('4') or a width ('16x'); None for N/A; an error for anything else."""
    if value in _NOT_AVAILABLE:
        return None
    token = value[:-1] if spec[0] == "Link Width" and value.lower().endswith("x") else value
    if not is_int(token):
        kind = "PCIe generation" if spec[0] == "PCIe Generation" else "link width (like '16x')"
        raise fail(filename, f"expected a {kind} for {spec[0]} {spec[1]}, found {value!r}", line)
    number = int(token)
    limit = 7 if spec[0] == "PCIe Generation" else 32
    if spec[0] == "PCIe Generation" and number == 0:
        return None  # some drivers print 0 for an unknown host maximum
    if not 1 <= number <= limit:
        raise fail(filename, f"{spec[0]} {spec[1]} is {value!r}, which no PCIe link has", line)
    return number


# ----------------------------------------------------------------------------- XML


def _parse_xml(text: str, filename: str) -> tuple[list[_Gpu], Machine, int | None]:
    unsafe, foreign = _UNSAFE.search(text) is not None, False
    for m in _DOCTYPE_START.finditer(text):
        if unsafe or foreign:
            break
        end = text.find(">", m.start(), m.start() + _MOST_DOCTYPE)
        if end >= 0 and "[" in text[m.start() : end]:
            unsafe = True  # an internal DTD subset
        elif end < 0 or not _DOCTYPE.fullmatch(text, m.start(), end + 1):
            foreign = True
    if unsafe:
        raise fail(
            filename,
            "this XML declares entities or an internal DTD, which nvidia-smi never writes; "
            "it is refused for safety",
            hint="save the output of `nvidia-smi -q -x` unedited",
        )
    if foreign:
        raise fail(filename, "this XML has a DOCTYPE that is not nvidia-smi's; it is refused for safety")
    check_xml_depth(text, filename)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise fail(
            filename,
            f"this is not well-formed XML ({_xml_reason(exc)})",
            line,
            hint="the file may be cut short; save `nvidia-smi -q -x` again",
        ) from None
    if root.tag != "nvidia_smi_log":
        raise not_this_tool(text, filename, TOOL, f"its root element is <{root.tag}>, not <nvidia_smi_log>")
    machine = Machine(driver=_xml_text(root, "driver_version"), cuda=_xml_text(root, "cuda_version"))
    attached_text = _xml_text(root, "attached_gpus")
    attached = int(attached_text) if attached_text and is_int(attached_text) else None
    gpus = []
    for element in root.findall("gpu"):
        gpu = _Gpu(bus_id=_bus(element.get("id")), name=_xml_text(element, "product_name"))
        bar1 = _xml_text(element, "bar1_memory_usage/total")
        if bar1 is not None:
            gpu.bar1_mb = _mib(bar1, filename, None)
        link = element.find("pci/pci_gpu_link_info")
        if link is not None:
            for (group, key), spec in _XML_FIELDS.items():
                value = _xml_text(link, f"{group}/{key}")
                if value is not None:
                    number = _link_number(value, spec, filename, None)
                    if number is not None:
                        gpu.values[spec] = number
        gpus.append(gpu)
    return gpus, machine, attached


def _xml_text(element: ET.Element, path: str) -> str | None:
    found = element.find(path)
    if found is None or found.text is None:
        return None
    return found.text.strip() or None


def _xml_reason(exc: ET.ParseError) -> str:
    return str(exc).split(":")[0] or "parse error"


# ----------------------------------------------------------------------------- common


def _bus(raw: str | None) -> str | None:
    """'00000000:41:00.0' -> '0000:41:00.0' (the last four digits of the domain)."""
    if not raw:
        return None
    m = re.fullmatch(r"([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])", raw.strip())
    if not m:
        return None
    return f"{m.group(1)[-4:].lower()}:{m.group(2).lower()}:{m.group(3).lower()}.{m.group(4)}"


def _measurement(gpus: list[_Gpu], machine: Machine, attached: int | None, filename: str) -> Measurement:
    if not gpus:
        raise fail(filename, "the report lists no GPUs", hint="check that `nvidia-smi -q` ran without errors")
    if not any(g.values or g.bar1_mb is not None for g in gpus):
        raise fail(
            filename,
            "the report has no 'GPU Link Info' (PCIe generation and width) and no BAR1 size for any GPU",
            hint="run `nvidia-smi -q` without -d (or -d MEMORY for the BAR1 size)",
        )
    extra = None
    if attached is not None and attached != len(gpus):
        extra = f"the report says {attached} GPUs are attached but lists {len(gpus)}"
    results = []
    for index, gpu in enumerate(gpus):
        v = gpu.values
        machine.gpus.append(
            GpuInfo(
                index=index,
                name=gpu.name,
                bus_id=gpu.bus_id,
                pcie_gen_current=v.get(("PCIe Generation", "Current")),
                pcie_width_current=v.get(("Link Width", "Current")),
                pcie_gen_max=v.get(("PCIe Generation", "Max")),
                pcie_width_max=v.get(("Link Width", "Max")),
            )
        )
        for spec, (_field, metric, note) in _TEXT_FIELDS.items():
            if spec in v:
                text = f"{note}; GPU number is the order nvidia-smi lists them (PCI bus order)"
                if extra:
                    text += f"; {extra}"
                results.append(Result(metric=metric, gpu=index, value=v[spec], tool=TOOL, note=text))
        if gpu.bar1_mb is not None:
            results.append(
                Result(
                    metric="bar1_mb",
                    gpu=index,
                    value=gpu.bar1_mb,
                    unit="MiB",
                    tool=TOOL,
                    note="BAR1 Memory Usage Total: the GPU memory a peer or the CPU can map at once; with "
                    "large BAR it is the whole VRAM, without it 256 MiB",
                )
            )
    return Measurement(source=Source(tool=TOOL, file=filename), machine=machine, results=results)
