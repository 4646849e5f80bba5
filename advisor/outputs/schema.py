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
    """The schema of every --json output, by name: `plan`, `validate`, `compare`, `workload`, `doctor`,
    `catalog-list`, `catalog-audit`, `rules-list`, `rules-facts`, `accuracy`, `accuracy-workload`, `recommend`; and
    `measurement`, the files `import`, `bench` and `probe` write."""
    from advisor.measure.doctor import DoctorReport
    from advisor.measure.models import Measurement
    from advisor.outputs.catalog import (
        AccuracyOutput,
        AuditOutput,
        CatalogListOutput,
        FactsOutput,
        RulesListOutput,
        WorkloadAccuracyOutput,
    )
    from advisor.outputs.compare import CompareOutput
    from advisor.outputs.plan import PlanOutput
    from advisor.outputs.recommend import RecommendOutput
    from advisor.outputs.validate import ValidateOutput
    from advisor.outputs.workload import WorkloadOutput

    models = {
        "plan": PlanOutput,
        "validate": ValidateOutput,
        "compare": CompareOutput,
        "workload": WorkloadOutput,
        "measurement": Measurement,  # import, bench, probe
        "doctor": DoctorReport,
        "catalog-list": CatalogListOutput,
        "catalog-audit": AuditOutput,
        "rules-list": RulesListOutput,
        "rules-facts": FactsOutput,
        "accuracy": AccuracyOutput,
        "accuracy-workload": WorkloadAccuracyOutput,
        "recommend": RecommendOutput,
    }
    return {name: m.model_json_schema(mode="serialization") for name, m in models.items()}
