"""Every GPU copying to or from host memory at once: GPUs behind one switch share its uplink, and GPUs on
one root complex share that complex's path to memory where the platform's is measured (eight RTX PRO
6000 behind two switches on a Threadripper PRO 7955WX: 114 GB/s on two root complexes, 73 on one)."""

from __future__ import annotations

import json

import pytest

GPU = "{gpu: RTX PRO 6000 Blackwell Server}"


def _tree(family: str, root_ports: list[tuple[str, str]]) -> str:
    lines = [f"topology:\n  sockets:\n    - vendor: amd\n      family: {family}\n      root_ports:\n"]
    for i, (rp, hb) in enumerate(root_ports):
        lines.append(
            f"        - {{id: '{rp}', host_bridge: '{hb}', children: [{{switch: s{i}, gen: 5, width: 16, "
            f"children: [{GPU}, {GPU}, {GPU}, {GPU}]}}]}}\n"
        )
    return "".join(lines)


def _plan(cli, write, name: str, text: str) -> dict:
    code, out, err = cli("plan", str(write(name, text)), "--json", "--explain")
    assert code in (0, 1), err
    return json.loads(out)


def test_switch_uplinks_and_a_shared_root_complex_limit_the_aggregate(cli, write):
    two = _plan(
        cli, write, "two.yaml", _tree("amd-threadripper-pro-7000wx", [("00:01.1", "00"), ("40:01.1", "40")])
    )
    one = _plan(
        cli, write, "one.yaml", _tree("amd-threadripper-pro-7000wx", [("e0:01.1", "e0"), ("e0:03.1", "e0")])
    )
    alone = two["gpus"][0]["h2d_gbps"]
    # two switches, two Gen5 x16 uplinks: each four GPUs share one uplink's rate
    assert two["host_all"]["h2d_gbps"] == pytest.approx(2 * alone, rel=0.01)
    assert two["gpus"][0]["h2d_all_gbps"] == pytest.approx(alone / 4, rel=0.01)
    assert "Gen5 x16 uplink" in " ".join(two["host_all"]["limited_by"])
    # both switches on root complex e0: its path to memory, 73 GB/s on this platform
    assert one["host_all"]["h2d_gbps"] == pytest.approx(73.0, abs=0.1)
    assert one["host_all"]["d2h_gbps"] == pytest.approx(73.0, abs=0.1)
    assert one["host_all"]["limited_by"] == ["the path to memory of host bridge e0, shared by 8 GPUs"]
    assert "host_bridge_dma_gbps" in one["host_all"]["derivation"]["h2d"]["constants"]


def test_a_platform_with_no_measured_root_complex_limit_is_held_by_its_links_alone(cli, write):
    """An unmeasured platform's root complexes are not a limit (null, never a guessed figure)."""
    one = _plan(cli, write, "g.yaml", _tree("amd-epyc-9004", [("e0:01.1", "e0"), ("e0:03.1", "e0")]))
    assert one["host_all"]["h2d_gbps"] == pytest.approx(2 * one["gpus"][0]["h2d_gbps"], rel=0.01)
    assert "host_bridge_dma_gbps" not in one["host_all"]["derivation"]["h2d"]["constants"]
    code, text, _ = cli(
        "plan", str(write("t.yaml", _tree("amd-threadripper-pro-7000wx", [("e0:01.1", "e0")])))
    )
    assert "All 4 GPUs copying at once:" in " ".join(text.split())
