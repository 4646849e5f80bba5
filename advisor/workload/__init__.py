"""Will N GPUs beat one for my workload? Training and inference models on the predicted interconnect.

The core of `advisor workload`: presets and constants from rules/workload.yaml, memory per GPU,
step times for DDP, DataParallel, ZeRO-2/3, FSDP, tensor and pipeline parallel, inference with
TP, PP or replicas, and what to change. Never imports textual or torch.

The package imports its model only when a name is asked for: the command line reads
advisor.workload.defaults for every command's argument help, and the model would cost every command
(`advisor rules list` too) about 50 ms of imports.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.workload.analyse import Analysis, analyse
    from advisor.workload.models import Workload

__all__ = ["Analysis", "Workload", "analyse"]
_NAMES = {"Analysis": "advisor.workload.analyse", "analyse": "advisor.workload.analyse"}
_NAMES["Workload"] = "advisor.workload.models"


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_NAMES[name]), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """`advisor.workload.analyse` is the function, as the eager import made it: importing the submodule
    of the same name would otherwise leave the module there."""

    def __setattr__(self, name: str, value) -> None:
        if name == "analyse" and isinstance(value, types.ModuleType):
            value = value.analyse
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
