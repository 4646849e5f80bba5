"""A non-editable install works: catalog and rules ship inside the wheel. The core stays headless."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from tests.conftest import ROOT


def test_core_never_imports_textual_or_torch():
    code = ("import sys, advisor.model.engine, advisor.render.plan, advisor.model.accuracy, advisor.workload, advisor.workload.report, "
            "advisor.session.planner, advisor.quote.reader, advisor.measure.compare, advisor.measure; "
            "from advisor.model.engine import build_from_flags, evaluate; "
            "from advisor.workload import Workload, analyse; from advisor.workload.presets import resolve; "
            "b = build_from_flags('i9-14900K', 'ROG Maximus Z790 Hero', ['RTX 4090:2']); evaluate(b); "
            "analyse(b, Workload('train', resolve('1b'), 'ddp', batch=1, seq=256)); "
            "analyse(b, Workload('infer', resolve('8b'), 'tp')); "
            "from advisor.session.planner import Planner; p = Planner(b); p.add_gpu('RTX 4090'); p.undo(); "
            "bad = [m for m in ('textual', 'torch') if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_wheel_installs_and_finds_its_catalog(tmp_path):
    wheels = tmp_path / "wheels"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels),
                        str(ROOT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next(wheels.glob("advisor-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # The wheel's dependencies come from the environment running the tests (not the system Python,
    # which may lack them): a .pth file puts its site-packages after the new venv's own.
    r = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       capture_output=True, text=True, check=True)
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(r.stdout.strip(), "outer-env.pth").write_text("\n".join(sorted(deps)) + "\n")
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(env_dir / "bin" / "advisor"), "plan", "--cpu", "i9-14900K", "--board",
                        "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2", "--json"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert [g["link"]["width"] for g in plan["gpus"]] == [8, 8]
    r = subprocess.run([str(py), "-c", "import advisor.base.resources as r; print(r.bundled('catalog'))"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "site-packages" in r.stdout and "_bundled" in r.stdout
