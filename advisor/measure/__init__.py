"""Measurements: readers of NVIDIA tool outputs and the common model they produce.

`parse(tool, text, filename)` reads the output of nvbandwidth, p2pBandwidthLatencyTest,
nccl-tests, `nvidia-smi topo -m`, `nvidia-smi -q` (text or XML) or `lspci -vv` into a
`Measurement`; `detect(text)` says which tool wrote a file.
"""

from __future__ import annotations

from pathlib import Path

from advisor.measure.models import METRICS, GpuInfo, Machine, Measurement, Result, Source
from advisor.measure.parsers import TOOLS, detect, parse

__all__ = [
    "METRICS",
    "TOOLS",
    "GpuInfo",
    "Machine",
    "Measurement",
    "Result",
    "Source",
    "detect",
    "load",
    "parse",
]


def load(path: str | Path) -> Measurement:
    """A measurement file (from `advisor import`, `bench` or `probe`), or a tool's raw output read as such."""
    from advisor.base.yamlio import read_text

    text = read_text(path)
    if text.lstrip().startswith("{") and '"schema_version"' in text and '"results"' in text:
        return Measurement.from_file(path)
    return parse("auto", text, str(path))
