"""Tell which measurement tool wrote a text, from marks each tool always prints.

Used for `--tool auto` and to turn "you gave me the wrong file" into a useful message. It looks
at one line at a time with plain substring tests and short anchored patterns, so that any
input, however long or strange, is classified in linear time.
"""

from __future__ import annotations

import re

from advisor.i18n import N_

TOOL_LABELS: dict[str, str] = {
    "nvbandwidth": "nvbandwidth",
    "p2p": "p2pBandwidthLatencyTest",
    "nccl-tests": "nccl-tests",
    "topo": "`nvidia-smi topo -m`",
    "smi-q": "`nvidia-smi -q`",
    "lspci": "`lspci -vv`",
    "topo-p2p": "`nvidia-smi topo -p2p`",
    "query-gpu": "`nvidia-smi --query-gpu`",
    "bandwidthtest": "cuda-samples bandwidthTest",
    "nccl-topo": N_("NCCL topology XML (NCCL_TOPO_DUMP_FILE)"),
    "cmdline": N_("the kernel command line (`cat /proc/cmdline`)"),
    "nccl-log": N_("an NCCL debug log (NCCL_DEBUG=INFO)"),
}
_ORDER = (
    "nccl-log",
    "p2p",
    "nvbandwidth",
    "nccl-tests",
    "smi-q",
    "topo",
    "topo-p2p",
    "bandwidthtest",
    "query-gpu",
    "lspci",
    "cmdline",
)
_NVBW_RUNNING = re.compile(r"(?:Running|Waiving) [a-z0-9_]{1,80}_(?:ce|sm)\.$")
_NCCL_THREADS = re.compile(r"#\s*nThread [0-9]")
_LSPCI_DEVICE = re.compile(r"(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] [^:]{1,80}: ")
_TOPO_P2P_ROW = re.compile(r"GPU0\s+X\s+(?:OK|CNS|GNS|TNS|NS|DR|U)(?:\s|$)")
_TOPO_P2P_LEGEND = re.compile(r"(?:OK\s+= Status Ok|CNS\s+= Chipset not supported)$")
_BWTEST_TITLE = re.compile(
    r"(?:Host to Device|Device to Host|Device to Device) Bandwidth, [0-9]{1,4} Device\(s\)$"
)
_BWTEST_CSV = re.compile(r"bandwidthTest-(?:H2D|D2H|D2D)[A-Za-z-]{0,30}, Bandwidth = ")
_CMDLINE = re.compile(
    r"(?:BOOT_IMAGE=|initrd=|root=)|(?:\[\s*[0-9.]+\]\s*)?(?:Kernel command line|Command line):.*BOOT_IMAGE="
)
_QUERY_FIELD = re.compile(r"pcie\.link\.(?:gen|width)\.[a-z]{1,12}")


def detect(text: str) -> str | None:
    """The tool name (one of TOOL_LABELS: 'nvbandwidth', 'p2p', 'topo', ...) or None."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("{") or '"nvbandwidth"' in text[:4000]:
        if '"nvbandwidth"' in text:
            return "nvbandwidth"
        if '"results"' in text and ('"bus_bw"' in text or '"nccl_version"' in text):
            return "nccl-tests"
    if "<nvidia_smi_log" in text[:4000]:
        return "smi-q"
    if head.startswith("<system") and "<cpu" in text[:20000]:
        return "nccl-topo"
    found: set[str] = set()
    topo_header = False
    lspci_device_at = -10
    for number, raw in enumerate(text.replace("\r", "\n").split("\n")):
        line = raw.strip()
        if not line:
            continue
        if " NCCL INFO Channel " in line and "] via " in line:
            found.add(
                "nccl-log"
            )  # before nccl-tests: a test run with NCCL_DEBUG=INFO is read for its transports
            continue
        if "P2P (Peer-to-Peer) GPU Bandwidth Latency Test" in line or (
            "P2P=" in line and "Matrix" in line and "abled" in line
        ):
            return "p2p"
        if line.startswith(("nvbandwidth Version", "memcpy CE ", "memcpy SM ")) or _NVBW_RUNNING.fullmatch(
            line
        ):
            found.add("nvbandwidth")
        elif line.startswith("#") and (
            _NCCL_THREADS.match(line) or line.startswith("# Avg bus bandwidth") or _is_nccl_header(line)
        ):
            found.add("nccl-tests")
        elif "NVSMI LOG" in line and line.startswith("=") or line == "GPU Link Info":
            found.add("smi-q")
        elif line.startswith("GPU0"):
            tokens = line.split()
            if len(tokens) > 1 and tokens[1] in ("GPU1", "CPU"):
                topo_header = True
            elif topo_header and _TOPO_P2P_ROW.match(line):
                found.add("topo-p2p")
            elif topo_header and tokens[1:2] == ["X"]:
                found.add("topo")
        elif _TOPO_P2P_LEGEND.match(line):
            found.add("topo-p2p")
        elif (
            line == "[CUDA Bandwidth Test] - Starting..."
            or _BWTEST_TITLE.match(line)
            or _BWTEST_CSV.match(line)
        ):
            found.add("bandwidthtest")
        elif "--query-gpu" in line and "--format=csv" in line and _QUERY_FIELD.search(line):
            found.add("query-gpu")
        elif line.startswith(("index,", "pcie.", "name,")) and _QUERY_FIELD.search(line) and "," in line:
            found.add("query-gpu")
        elif line.startswith(("LnkCap:", "LnkSta:", "ACSCtl:")):
            found.add("lspci")  # ACSCtl alone: `sudo lspci -vvv | grep ACSCtl`, as NCCL's docs ask
        elif line == "BAR1 Memory Usage":
            found.add("smi-q")  # `nvidia-smi -q | grep -A3 "BAR1 Memory Usage"`
        elif _CMDLINE.match(line):
            found.add("cmdline")  # cat /proc/cmdline, or dmesg's "Command line: BOOT_IMAGE=..."
        elif _LSPCI_DEVICE.match(raw):
            lspci_device_at = number
        elif (
            number - lspci_device_at < 40
            and line.startswith(("Capabilities:", "Kernel driver in use:"))
            and raw[:1] in (" ", "\t")
        ):
            found.add("lspci")
    return next((tool for tool in _ORDER if tool in found), None)


def _is_nccl_header(line: str) -> bool:
    tokens = line.lstrip("#").split()
    return tokens[:2] == ["size", "count"] and "busbw" in tokens
