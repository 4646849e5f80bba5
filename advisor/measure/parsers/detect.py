"""Tell which measurement tool wrote a text, from marks each tool always prints.

Used for `--tool auto` and to turn "you gave me the wrong file" into a useful message.
"""

from __future__ import annotations

import re

TOOL_LABELS: dict[str, str] = {
    "nvbandwidth": "nvbandwidth",
    "p2p": "p2pBandwidthLatencyTest",
    "nccl-tests": "nccl-tests",
    "topo": "`nvidia-smi topo -m`",
    "smi-q": "`nvidia-smi -q`",
    "lspci": "`lspci -vv`",
}

_P2P = re.compile(r"P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test|P2P=(?:Dis|En)abled .*Matrix")
_NVBW = re.compile(r"nvbandwidth Version|^Running \w+_(?:ce|sm)\.|^memcpy (?:CE|SM) |^Waiving \w+\.",
                   re.MULTILINE)
_NCCL = re.compile(r"^#\s*nThread \d|^#.*\bsize\b.*\bcount\b.*\bbusbw\b|^# Avg bus bandwidth", re.MULTILINE)
_SMIQ = re.compile(r"=+NVSMI LOG=+|<nvidia_smi_log\b|^\s*GPU Link Info\s*$", re.MULTILINE)
_TOPO = re.compile(r"^[ \t]*GPU0\b.*(?:CPU Affinity|\bGPU1\b)", re.MULTILINE)
_TOPO_ROW = re.compile(r"^GPU0\s+X\b|^\s*GPU0\s+X\s+(?:OK|CNS|GNS|TNS|NS|DR|U)\b", re.MULTILINE)
_LSPCI = re.compile(r"^\s*Lnk(?:Cap|Sta):", re.MULTILINE)
_LSPCI_DEVICE = re.compile(r"^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] [^:\n]+: .*\n"
                           r"(?:\s+.*\n)*?\s+(?:Capabilities|Kernel driver in use):", re.MULTILINE)


def detect(text: str) -> str | None:
    """The tool name ('nvbandwidth', 'p2p', 'nccl-tests', 'topo', 'smi-q', 'lspci') or None."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("{") or '"nvbandwidth"' in text[:4000]:
        if '"nvbandwidth"' in text:
            return "nvbandwidth"
        if '"results"' in text and ('"bus_bw"' in text or '"nccl_version"' in text):
            return "nccl-tests"
    if _P2P.search(text):
        return "p2p"
    if _NVBW.search(text):
        return "nvbandwidth"
    if _NCCL.search(text):
        return "nccl-tests"
    if _SMIQ.search(text):
        return "smi-q"
    if _TOPO.search(text) and _TOPO_ROW.search(text):
        return "topo"
    if _LSPCI.search(text) or _LSPCI_DEVICE.search(text):
        return "lspci"
    return None
