"""JSON Schema for catalog parts and build files, generated from the same pydantic models."""

from __future__ import annotations

from advisor.model.build import Build
from advisor.model.catalog.models import Board, Cpu, Gpu


def schemas() -> dict[str, dict]:
    return {"cpu": Cpu.model_json_schema(), "board": Board.model_json_schema(),
            "gpu": Gpu.model_json_schema(), "build": Build.model_json_schema()}
