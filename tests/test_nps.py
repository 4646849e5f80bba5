"""AMD's NUMA nodes per socket: with NPS4 each quadrant of a socket is a NUMA node, so
GPUs on two root complexes of one socket are SYS to nvidia-smi and to NCCL, as nvidia-smi's legend
defines SYS (the SMP interconnect between NUMA nodes); the data path, and so the bandwidth, is NODE's."""

from __future__ import annotations

import json

SERVER = ("--cpu", "EPYC 9124", "--board", "ESC8000A-E13P", "--gpu", "RTX 6000 Ada:4")


def _pairs(cli, *args) -> dict:
    code, out, err = cli("plan", *SERVER, *args, "--json")
    assert code == 0, err
    return {(p["a"], p["b"]): p for p in json.loads(out)["pairs"]}


def test_nps4_makes_root_complexes_of_one_socket_sys(cli):
    nps1, nps4 = _pairs(cli, "--bios", "nps=1"), _pairs(cli, "--bios", "nps=4")
    default = _pairs(cli)
    for key, p in nps1.items():
        q = nps4[key]
        assert q["route"] == p["route"]  # the physical path does not change
        assert q["uni_gbps"] == p["uni_gbps"] and q["latency_us"] == p["latency_us"]
        if p["route"] == "NODE":
            assert p["path"] == "NODE" and q["path"] == "SYS" and "NPS4" in q["nccl_reason"]
        else:  # behind one switch, or one root complex: one NUMA node either way
            assert q["path"] == p["path"]
    assert any(p["route"] == "NODE" for p in nps1.values())
    assert {k: p["path"] for k, p in default.items()} == {k: p["path"] for k, p in nps1.items()}


def test_nccl_p2p_level_phb_no_longer_reaches_across_quadrants_under_nps4(cli):
    node = next(k for k, p in _pairs(cli).items() if p["route"] == "NODE")
    nps1 = _pairs(cli, "--bios", "nps=1", "--nccl-p2p-level", "PHB")[node]
    nps4 = _pairs(cli, "--bios", "nps=4", "--nccl-p2p-level", "PHB")[node]
    assert nps1["nccl_transport"] == "P2P" and nps4["nccl_transport"] == "SHM"


def test_nps_is_an_amd_setting_and_takes_1_2_or_4(cli, write):
    intel = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")
    code, out, _ = cli("plan", *intel, "--bios", "nps=4", "--json")
    assert code == 0 and json.loads(out)["pairs"][0]["path"] == "PHB"
    code, _, err = cli("plan", *SERVER, "--bios", "nps=3")
    assert code == 2 and "nps is 1, 2 or 4" in err
    build = write(
        "b.yaml",
        "cpu: EPYC 9124\nboard: ESC8000A-E13P\ngpus: [{model: RTX 6000 Ada, count: 4}]\nbios: {nps: 4}\n",
    )
    code, out, _ = cli("plan", str(build), "--json")
    assert code == 0 and "SYS" in {p["path"] for p in json.loads(out)["pairs"]}


def test_the_plan_text_says_why_a_pair_is_sys(cli):
    code, out, _ = cli("plan", *SERVER, "--bios", "nps=4")
    assert code == 0
    text = " ".join(out.split())
    assert "0-2 SYS" in text and "NPS4: the root complexes are in two NUMA nodes" in text
    code, out, _ = cli("plan", *SERVER, "--bios", "nps=1")
    text = " ".join(out.split())
    assert "0-2 NODE" in text and "NPS4" not in text


def test_the_label_of_root_complexes_of_one_socket_is_the_platform_s(cli, write):
    """nvidia-smi labels GPUs on two root complexes of one socket NODE or SYS by what the platform's
    firmware reports, from published topo outputs: Threadripper PRO 5000WX SYS (NUMA affinity N/A),
    Threadripper PRO 7000WX NODE; the route and the figures are NODE's either way, and NPS4 is SYS."""

    def pair(cpu: str, *args: str) -> dict:
        build = write(
            f"{cpu}.yaml",
            f"topology:\n  sockets:\n    - cpu: {cpu}\n      root_ports:\n"
            "        - {id: a, host_bridge: '40', children: [{gpu: RTX 6000 Ada}]}\n"
            "        - {id: b, host_bridge: '60', children: [{gpu: RTX 6000 Ada}]}\n",
        )
        code, out, err = cli("plan", str(build), *args, "--json")
        assert code in (0, 1), err
        return json.loads(out)["pairs"][0]

    zen3 = pair("amd-ryzen-threadripper-pro-5995wx")
    zen4 = pair("amd-ryzen-threadripper-pro-7965wx")
    assert zen3["route"] == zen4["route"] == "NODE"
    assert zen3["path"] == "SYS" and zen4["path"] == "NODE"
    assert zen3["uni_gbps"] == zen4["uni_gbps"]
    assert pair("amd-ryzen-threadripper-pro-7965wx", "--bios", "nps=4")["path"] == "SYS"
