"""Will N GPUs beat one for my workload? Training and inference models on the predicted interconnect.

The core of `advisor workload`: presets and constants from rules/workload.yaml, memory per GPU,
step times for DDP, DataParallel, ZeRO-2/3, FSDP, tensor and pipeline parallel, inference with
TP, PP or replicas, and what to change. Never imports textual or torch.
"""

from __future__ import annotations

from advisor.workload.analyse import Analysis, analyse
from advisor.workload.models import Workload

__all__ = ["Analysis", "Workload", "analyse"]
