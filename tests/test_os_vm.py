"""Settings published machines carry: Windows' WDDM driver model and GPUs passed
through to a virtual machine, each with the published figure it rests on."""

from __future__ import annotations

import json

import pytest

TR_3090 = ("--cpu", "Threadripper PRO 7975WX", "--board", "WRX90E-SAGE", "--gpu", "RTX 3090:2")
TR_ADA = ("--cpu", "Threadripper PRO 7975WX", "--board", "WRX90E-SAGE", "--gpu", "RTX 6000 Ada:2")


def _plan(cli, *args) -> dict:
    code, out, err = cli("plan", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _driver(plan: dict) -> dict:
    return next(layer for layer in plan["readiness"][0]["layers"] if layer["layer"] == "driver")


def test_windows_stages_every_copy_at_wddm_latency(cli):
    """ik_llama.cpp#629: p2pBandwidthLatencyTest.exe under WDDM, 'CANNOT Access Peer' both ways, GPU
    latency 46.09 and 38.57 us."""
    linux, windows = _plan(cli, *TR_ADA), _plan(cli, *TR_ADA, "--os", "windows")
    lp, wp = linux["pairs"][0], windows["pairs"][0]
    assert lp["p2p"] and not wp["p2p"] and wp["via"] == "staged"
    assert 38.57 <= wp["latency_us"] <= 46.09
    assert "WDDM" in wp["p2p_reason"]
    d = _driver(windows)
    assert d["verdict"] == "FAIL" and "Linux" in d["fix"]


def test_a_vm_refuses_p2p_and_adds_latency_to_staged_copies(cli):
    """club-3090's PCIE_P2P.md: 2x RTX 3090 passed through on Proxmox, topo -p2p r CNS, P2P off 11.28
    GB/s and 15.23 us."""
    vm = _plan(cli, *TR_3090, "--virtualization", "vm")
    p = vm["pairs"][0]
    assert not p["p2p"] and "CNS" in p["p2p_reason"]
    assert p["uni_gbps"] == pytest.approx(11.28, rel=0.05)
    assert p["latency_us"] == pytest.approx(15.23, rel=0.05)
    bare = _plan(cli, *TR_3090)["pairs"][0]
    assert bare["latency_us"] < p["latency_us"] and bare["uni_gbps"] == p["uni_gbps"]
    # pro cards too: the guest's host bridge, not the card, is what the driver refuses
    ada = _plan(cli, *TR_ADA, "--virtualization", "vm")
    assert not ada["pairs"][0]["p2p"]
    d = _driver(ada)
    assert d["verdict"] == "FAIL" and "x-nv-gpudirect-clique" in d["fix"]


def test_the_clique_grants_pro_cards_p2p_but_geforce_copies_never_arrive(cli):
    ada = _plan(cli, *TR_ADA, "--virtualization", "vm-clique")
    assert ada["pairs"][0]["p2p"] and _driver(ada)["verdict"] == "PASS"
    patched = ("--driver", "patched", "--bios", "rebar=on", "--kernel-iommu", "pt")
    geforce = _plan(cli, *TR_3090, "--virtualization", "vm-clique", *patched)
    d = _driver(geforce)
    assert d["verdict"] == "FAIL" and "hangs" in d["why"] and "NCCL_P2P_DISABLE=1" in d["fix"]


def test_the_settings_in_a_build_file_and_a_bad_one(cli, write):
    b = write(
        "w.yaml",
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{model: RTX 4090, count: 2}]\n"
        "software: {os: windows, virtualization: none}\n",
    )
    code, out, _ = cli("plan", str(b), "--json")
    assert code == 0 and json.loads(out)["pairs"][0]["latency_us"] > 38
    bad = write(
        "m.yaml",
        "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus: [{model: RTX 4090, count: 2}]\n"
        "software: {os: macos}\n",
    )
    code, _, err = cli("plan", str(bad))
    assert code == 2 and "m.yaml" in err and "os" in err


def test_gen5_host_copies_reach_their_published_share_of_the_link(cli):
    """Gen5 x16 host copies measured 55.3-56.4 GB/s H2D (8x RTX 5090, tinygrad's
    open-gpu-kernel-modules#29; 8x H800) where Gen4's 0.84 of the raw rate gave 52.9; Gen4 keeps 0.84."""
    gen5 = _plan(cli, "--cpu", "Threadripper PRO 7975WX", "--board", "WRX90E-SAGE", "--gpu", "RTX 5090:2")
    g = gen5["gpus"][0]
    assert g["link"]["gen"] == 5 and 55.28 <= g["h2d_gbps"] <= 56.41
    assert 55.1 <= g["d2h_gbps"] <= 57.4
    gen4 = _plan(cli, *TR_ADA)["gpus"][0]
    assert gen4["link"]["gen"] == 4 and gen4["h2d_gbps"] == pytest.approx(0.84 * 31.5, rel=0.01)


def test_host_buffers_on_the_other_socket_cost_what_the_link_measured(cli, write):
    """gearshifft#82: a QPI host, P100 on Gen3 x16, bandwidthTest 12,150.7 MB/s H2D local and 3,783.4
    remote (D2H 12,890.6 and 2,539.2); on Sapphire Rapids' UPI the remote buffer cost nothing."""
    tree = (
        "topology:\n  inter_socket: {link}\n  sockets:\n"
        "    - {{vendor: intel, root_ports: [{{id: r0, children: [{{gpu: RTX 3090, gen: 3}}]}}]}}\n"
        "    - {{vendor: intel, root_ports: [{{id: r1, children: [{{gpu: RTX 3090, gen: 3}}]}}]}}\n"
    )
    qpi = write("qpi.yaml", tree.format(link="QPI"))
    local = _plan(cli, str(qpi))["gpus"][0]
    remote_plan = _plan(cli, str(qpi), "--host-memory", "remote")
    remote = remote_plan["gpus"][0]
    assert remote["h2d_gbps"] / local["h2d_gbps"] == pytest.approx(3783.4 / 12150.7, rel=0.03)
    assert remote["d2h_gbps"] / local["d2h_gbps"] == pytest.approx(2539.2 / 12890.6, rel=0.03)
    assert "other socket" in remote_plan["assumptions"][0]
    upi = write("upi.yaml", tree.format(link="UPI"))
    assert _plan(cli, str(upi), "--host-memory", "remote")["gpus"][0]["h2d_gbps"] == local["h2d_gbps"]
    # one socket: there is no other socket's memory
    one = _plan(cli, *TR_ADA, "--host-memory", "remote")
    assert one["gpus"][0]["h2d_gbps"] == _plan(cli, *TR_ADA)["gpus"][0]["h2d_gbps"]
