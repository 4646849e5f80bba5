"""A non-editable install works: catalog and rules ship inside the wheel. The core stays headless."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from tests.conftest import ROOT


def test_the_core_runs_headless():
    """Planning, a workload, findings, a quote, a comparison and the planner load none of textual, torch, rich."""
    code = (
        "import sys; from advisor.model.buildfile import build_from_flags; from advisor.model.engine import evaluate; "
        "from advisor.workload import Workload, analyse; from advisor.workload.presets import resolve; "
        "from advisor.findings.evaluate import evaluate_rules; from advisor.outputs.plan import plan_output; "
        "from advisor.quote.check import evaluate_quote; from advisor.quote.reader import read_quote; "
        "from advisor.model.catalog.store import load_catalog; from advisor.measure import parse; "
        "from advisor.measure.compare import compare; from advisor.outputs.schema import output_schemas; "
        "b = build_from_flags('i9-14900K', 'ROG Maximus Z790 Hero', ['RTX 4090:2']); p = evaluate(b); "
        "a = analyse(b, Workload('train', resolve('1b'), 'ddp', batch=1, seq=256)); "
        "analyse(b, Workload('infer', resolve('8b'), 'tp')); "
        "f = evaluate_rules(p, workload=a); plan_output(p, f, explain=True).dump(); output_schemas(); "
        "c = load_catalog(); evaluate_quote(read_quote('i9-14900K\\nROG Maximus Z790 Hero\\n2x RTX 4090', 'q.txt', c), c); "
        "compare(p, parse('p2p', open('tests/fixtures/tools/p2p/kinghorn_2x4090_driver525_cannot_access.txt').read(), 'x')); "
        "from advisor.session.planner import Planner; pl = Planner(b); pl.add_gpu('RTX 4090'); pl.undo(); "
        "bad = [m for m in ('textual', 'torch', 'rich') if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_import_contracts_hold():
    """pyproject.toml's import-linter contracts: the pipeline's layers, a core free of textual/torch/rich,
    faces that never import each other nor wire the pipeline, no import cycle inside a package."""
    lint_imports = Path(sys.executable).parent / "lint-imports"  # import-linter's command, in the test venv
    r = subprocess.run(
        [str(lint_imports), "--config", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "5 kept, 0 broken" in r.stdout


def test_wheel_installs_and_finds_its_catalog(tmp_path):
    wheels = tmp_path / "wheels"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next(wheels.glob("advisor-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # The wheel's dependencies come from the environment running the tests (not the system Python,
    # which may lack them): a .pth file puts its site-packages after the new venv's own.
    r = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(r.stdout.strip(), "outer-env.pth").write_text("\n".join(sorted(deps)) + "\n")
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(
        [
            str(env_dir / "bin" / "advisor"),
            "plan",
            "--cpu",
            "i9-14900K",
            "--board",
            "ROG Maximus Z790 Hero",
            "--gpu",
            "RTX 4090:2",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert [g["link"]["width"] for g in plan["gpus"]] == [8, 8]
    # the compiled Chinese catalog is package data of the wheel, not a file of the checkout
    r = subprocess.run(
        [
            str(env_dir / "bin" / "advisor"),
            "--lang",
            "zh",
            "plan",
            "--cpu",
            "i9-14900K",
            "--board",
            "ROG Maximus Z790 Hero",
            "--gpu",
            "RTX 4090:2",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("多卡性能偏弱的配置") and "发现的问题" in r.stdout
    r = subprocess.run(
        [str(py), "-c", "import advisor.base.resources as r; print(r.bundled('catalog'))"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert "site-packages" in r.stdout and "_bundled" in r.stdout


def test_the_architecture_document_lists_every_package_and_only_those():
    doc = (ROOT / "docs" / "architecture.md").read_text()
    listed = set(re.findall(r"^\| `advisor/([a-z_]+)(?:\.py)?` \|", doc, flags=re.M))
    packages = {p.name for p in (ROOT / "advisor").iterdir() if (p / "__init__.py").exists()}
    assert listed == packages | {"main"}
    # the layers contract names the same packages
    contract = (ROOT / "pyproject.toml").read_text().split("[[tool.importlinter.contracts]]")[1]
    assert set(re.findall(r"advisor\.([a-z_]+)", contract)) == packages | {"main"}


def test_every_command_of_the_parser_has_its_handler():
    """main.py imports a command's module only when it runs; a renamed handler must fail here, not
    in a user's hands."""
    import argparse

    from advisor.cli.parser import parser
    from advisor.main import _command

    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    names = set(sub.choices) - {"catalog", "rules"}  # those two are dispatched by main() itself
    assert {"plan", "validate", "compare", "tui"} <= names
    for name in names:
        assert callable(_command(name)), name
    assert _command("no-such-command") is None
