"""The parts catalog: CPUs, motherboards and GPUs as sourced, validated YAML."""

from __future__ import annotations

from advisor.model.catalog.models import Board, Cpu, Gpu, Part
from advisor.model.catalog.store import Catalog, load_catalog

__all__ = ["Board", "Catalog", "Cpu", "Gpu", "Part", "load_catalog"]
