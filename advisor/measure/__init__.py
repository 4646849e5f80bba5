"""Measurements: readers of NVIDIA tool outputs and the common model they produce.

`parse(tool, text, filename)` reads the output of nvbandwidth, p2pBandwidthLatencyTest,
nccl-tests, `nvidia-smi topo -m`, `nvidia-smi -q` (text or XML) or `lspci -vv` into a
`Measurement`; `detect(text)` says which tool wrote a file.
"""

from __future__ import annotations

from advisor.measure.models import METRICS, GpuInfo, Machine, Measurement, Result, Source
from advisor.measure.parsers import TOOLS, detect, parse

__all__ = ["METRICS", "TOOLS", "GpuInfo", "Machine", "Measurement", "Result", "Source", "detect", "parse"]
