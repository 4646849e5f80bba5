"""JSON Schema for catalog parts and build files (the inputs) and for every command's --json output.

Both come from the same pydantic models the code reads and writes, so a schema cannot drift from
what the tool accepts or prints.
"""

from __future__ import annotations

from advisor.model.build import Build
from advisor.model.catalog.models import Board, Card, Cpu, Gpu, System


def schemas() -> dict[str, dict]:
    return {
        "cpu": Cpu.model_json_schema(),
        "board": Board.model_json_schema(),
        "gpu": Gpu.model_json_schema(),
        "card": Card.model_json_schema(),
        "system": System.model_json_schema(),
        "build": Build.model_json_schema(),
    }


def output_schemas() -> dict[str, dict]:
    """`plan`, `validate`, `compare`, `workload`: their --json output; `measurement`: import/bench/probe files."""
    from advisor.measure.models import Measurement
    from advisor.outputs.compare import CompareOutput
    from advisor.outputs.plan import PlanOutput
    from advisor.outputs.validate import ValidateOutput
    from advisor.outputs.workload import WorkloadOutput

    models = {
        "plan": PlanOutput,
        "validate": ValidateOutput,
        "compare": CompareOutput,
        "workload": WorkloadOutput,
        "measurement": Measurement,
    }
    return {name: m.model_json_schema(mode="serialization") for name, m in models.items()}
