"""Every --json output is a typed model whose JSON Schema `advisor catalog schema --output` exports; the
examples' outputs validate against it, and golden files keep the schemas and the outputs' shape stable.

The golden files hold schemas and key paths, not figures, so a recalibration of the model does not touch
them; a change of shape does. To accept an intended change: ADVISOR_UPDATE_GOLDEN=1 python -m pytest
tests/test_outputs.py, and review the diff of tests/golden/.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from advisor.cli.parser import OUTPUTS as OUTPUT_NAMES
from tests.conftest import ROOT

GOLDEN = Path(__file__).parent / "golden"
TOOLS = Path(__file__).parent / "fixtures" / "tools"
HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
TREE = str(ROOT / "examples" / "explicit-tree-4x6000ada.yaml")

# (output, name of the golden shape, command line)
EXAMPLES = [
    ("plan", "plan-hero", ["plan", HERO, "--json"]),
    ("plan", "plan-hero-explain-train", ["plan", HERO, "--json", "--explain", "--train", "1.3b"]),
    ("plan", "plan-tree-explain", ["plan", TREE, "--json", "--explain"]),
    (
        "plan",
        "plan-nvme-nic",
        [
            "plan",
            "--cpu",
            "i9-14900K",
            "--board",
            "ROG Strix Z790-E",
            "--gpu",
            "RTX 4090:2",
            "--nvme",
            "M.2_1",
            "--json",
        ],
    ),
    (
        "plan",
        "plan-two-nodes-hgx-explain",
        ["plan", str(ROOT / "examples" / "2-nodes-hgx-a100.yaml"), "--json", "--explain"],
    ),
    ("workload", "workload-train-explain", ["workload", HERO, "--train", "1.3b", "--json", "--explain"]),
    ("workload", "workload-infer", ["workload", HERO, "--infer", "8b", "--json"]),
    (
        "validate",
        "validate-email",
        ["validate", str(ROOT / "examples" / "quotes" / "2x4090-z790-hero-email.txt"), "--json"],
    ),
    (
        "validate",
        "validate-csv",
        ["validate", str(ROOT / "examples" / "quotes" / "strix-z790e-chipset-slot.csv"), "--json"],
    ),
    (
        "validate",
        "validate-incomplete",
        ["validate", str(ROOT / "examples" / "quotes" / "missing-part-noise.txt"), "--json"],
    ),
    (
        "compare",
        "compare-staged",
        [
            "compare",
            HERO,
            str(TOOLS / "p2p" / "kinghorn_2x4090_update_bidi_only.txt"),
            str(TOOLS / "topo" / "club3090_2x5090_phb_tabs.txt"),
            "--json",
        ],
    ),
    (
        "measurement",
        "import-nvbandwidth",
        ["import", "nvbandwidth", str(TOOLS / "nvbandwidth" / "issue15_8x4090_v0.2.txt"), "--json"],
    ),
    (
        "measurement",
        "import-nccl",
        ["import", "nccl-tests", str(TOOLS / "nccltests" / "a3mega_16xH100_sweep.txt"), "--json"],
    ),
]
# every --json output has a model and a published schema: the parser's list is the schemas' list
OUTPUTS = list(OUTPUT_NAMES)
EXAMPLES += [
    ("catalog-list", "catalog-list-gpus", ["catalog", "list", "--kind", "gpu", "--json"]),
    ("catalog-audit", "catalog-audit", ["catalog", "audit", "--json"]),
    ("rules-list", "rules-list", ["rules", "list", "--json"]),
    ("rules-facts", "rules-facts", ["rules", "facts", "--json"]),
    (
        "recommend",
        "recommend-lora-cny",
        [
            "recommend",
            "--train",
            "8b",
            "--lora",
            "16",
            "--budget",
            "40000",
            "--currency",
            "CNY",
            "--as-of",
            "2026-01-01",
            "--json",
        ],
    ),
    (
        "doctor",
        "doctor-recorded",
        [
            "doctor",
            "--lspci",
            str(ROOT / "tests/fixtures/doctor/lspci/wrx90e-sage-1224bc75f732.txt"),
            "--json",
        ],
    ),
]


def test_every_json_output_has_a_schema():
    from advisor.outputs.schema import output_schemas

    assert set(output_schemas()) == set(OUTPUT_NAMES)


def _golden(name: str, value) -> None:
    path = GOLDEN / f"{name}.json"
    text = json.dumps(value, indent=1, sort_keys=True) + "\n"
    if os.environ.get("ADVISOR_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"{path} is missing: run with ADVISOR_UPDATE_GOLDEN=1 to write it"
    assert json.loads(path.read_text()) == value, (
        f"the output's shape differs from {path.name}; if intended, rerun with ADVISOR_UPDATE_GOLDEN=1 and review"
    )


def _shape(value, path: str = "$") -> set[str]:
    """Every key path with the JSON type found there: `$.gpus[].link.width: int`."""
    if isinstance(value, dict):
        out = {f"{path}: object"}
        for k, v in value.items():
            # free-form maps (derivation inputs, constants by name, build data) keep one level of names
            out |= _shape(
                v,
                f"{path}.*"
                if path.endswith(
                    (
                        "inputs",
                        "constants",
                        "per_gpu_gb",
                        "unsourced",
                        "value_basis.parts",
                        "value_basis.parts.*",
                    )
                )
                else f"{path}.{k}",
            )
        return out
    if isinstance(value, list):
        out = {f"{path}: array"}
        for v in value:
            out |= _shape(v, f"{path}[]")
        return out
    kind = {bool: "bool", int: "number", float: "number", str: "string", type(None): "null"}[type(value)]
    return {f"{path}: {kind}"}


@pytest.mark.parametrize("output", OUTPUTS)
def test_the_schema_of_each_output_is_exported_and_stable(cli, output):
    code, out, _ = cli("catalog", "schema", "--output", output)
    assert code == 0
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    _golden(f"schema-{output}", schema)


@pytest.mark.parametrize("output,name,args", EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_each_example_output_validates_against_its_schema_and_keeps_its_shape(cli, output, name, args):
    code, out, err = cli(*args)
    assert code in (0, 1), err
    data = json.loads(out)
    _, schema_text, _ = cli("catalog", "schema", "--output", output)
    jsonschema.validate(data, json.loads(schema_text), cls=jsonschema.Draft202012Validator)
    _golden(f"shape-{name}", sorted(_shape(data)))


def test_a_wrong_output_name_is_a_usage_error(cli):
    with pytest.raises(SystemExit) as exc:
        cli("catalog", "schema", "--output", "nope")
    assert exc.value.code == 2
