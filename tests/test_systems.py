"""HGX baseboards as catalog systems, and builds of several nodes joined by their NICs: planned end to end
through the CLI, their all-reduce figures set against published results."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT

H100 = str(ROOT / "examples" / "hgx-h100-8gpu.yaml")
TWO_A100 = str(ROOT / "examples" / "2-nodes-hgx-a100.yaml")


def _plan(cli, *args: str) -> dict:
    code, out, err = cli("plan", *args, "--json")
    assert code in (0, 1), err
    return json.loads(out)


def test_an_hgx_h100_plans_end_to_end_with_nvswitch_nvls_and_its_nics(cli):
    d = _plan(cli, H100)
    assert d["system"] == "nvidia-hgx-h100-8gpu" and d["cpu"] == "intel-xeon-platinum-8480plus"
    assert len(d["gpus"]) == 8 and len(d["pairs"]) == 28
    assert {p["path"] for p in d["pairs"]} == {"NV18"} and {p["via"] for p in d["pairs"]} == {"nvlink"}
    # SXM modules on their baseboard: not refused as cards in a slot
    assert not any(f["id"] in ("FIT004", "FIT003") for f in d["findings"])
    # NVLS: 476 GB/s measured on an 8x H100 node (nccl-tests#290), 480 in NVIDIA's GTC talk (nccl#1374)
    ar = d["allreduce"]
    assert ar["transport"] == "NVLS" and ar["gpus"] == 8 and ar["nodes"] == 1
    assert ar["busbw_gbps"] == pytest.approx(480, rel=0.05)
    # each GPU on a Gen5 switch of its own with one 400 Gb/s NIC: PIX to it, GPUDirect RDMA
    assert len(d["nics"]) == 8 and all(n["path"] == "PIX" and n["gpudirect_rdma"] for n in d["nics"])
    assert [row[i] for i, row in enumerate(d["topo"]["nic_matrix"])] == ["PIX"] * 8
    assert d["topo"]["nic_matrix"][0][4] == "SYS"  # the other socket's NIC
    # every GPU copying to host at once: eight Gen5 x16 links, nothing shared
    assert d["host_all"]["h2d_gbps"] == pytest.approx(8 * d["gpus"][0]["h2d_gbps"], rel=0.01)
    driver = next(x for x in d["readiness"][0]["layers"] if x["layer"] == "driver")
    assert "Fabric Manager" in driver["why"] and driver["check"] == "systemctl status nvidia-fabricmanager"
    code, text, _ = cli("plan", H100)
    words = " ".join(text.split())
    assert "NVIDIA HGX H100 8-GPU" in words and "NVLS: the NVSwitch reduces in the fabric" in words
    assert "NICs (what NCCL moves across nodes, per direction)" in words


def test_an_hgx_h100_without_nvls_runs_the_ring_and_p2p_off_stages_on_the_baseboard(cli):
    d = _plan(cli, H100, "--nccl-nvls", "off")
    # NCCL's ring over NVSwitch: 365-370 GB/s (nccl#1455)
    assert d["allreduce"]["transport"] == "NVLink"
    assert d["allreduce"]["busbw_gbps"] == pytest.approx(367.5, rel=0.03)
    off = _plan(cli, H100, "--nccl-p2p-disable")
    assert off["allreduce"]["transport"] == "SHM"


def test_an_hgx_a100_all_reduce_and_its_staged_copies(cli, write):
    d = _plan(cli, str(write("a.yaml", "system: nvidia-hgx-a100-8gpu\n")))
    ar = d["allreduce"]
    # the A100 has no NVLS (nccl-tests#228): the ring, ~230 GB/s (nccl-tests#149), 220 measured (#228)
    assert ar["transport"] == "NVLink" and ar["busbw_gbps"] == pytest.approx(225, rel=0.05)
    assert {p["path"] for p in d["pairs"]} == {"NV12"}
    # GPU and NICs one switch level apart (PXB), the NICs of the other complex on the socket NODE
    assert d["topo"]["nic_matrix"][0][:2] == ["PXB", "NODE"]
    code, out, _ = cli(
        "plan", str(write("b.yaml", "system: nvidia-hgx-a100-8gpu\nsoftware: {cuda_p2p: false}\n")), "--json"
    )
    pair = json.loads(out)["pairs"][0]
    assert pair["via"] == "staged" and pair["latency_us"] == 24.56  # an HGX A100's P2P-off copies


def test_a_system_refuses_what_does_not_fit_it(cli, write):
    code, _, err = cli(
        "plan", str(write("x.yaml", "system: nvidia-hgx-h100-8gpu\ngpus: [{model: RTX 4090, count: 8}]\n"))
    )
    assert code == 2 and "does not fit its SXM sockets" in err
    code, _, err = cli("plan", str(write("y.yaml", "system: nvidia-hgx-h100-8gpu\nnvlink: [[0, 1]]\n")))
    assert code == 2 and "NVSwitch" in err
    code, _, err = cli(
        "plan",
        str(write("z.yaml", "system: nvidia-hgx-h100-8gpu\nnics: [{name: CX7, gbps: 400, count: 9}]\n")),
    )
    assert code == 2 and "8 NIC positions" in err
    d = _plan(
        cli, str(write("four.yaml", "system: nvidia-hgx-h100-8gpu\ngpus: [{model: H100 SXM5, count: 4}]\n"))
    )
    assert len(d["gpus"]) == 4 and d["allreduce"]["gpus"] == 4


def test_an_sxm_module_in_a_pcie_slot_is_still_refused_as_a_card(cli):
    code, out, _ = cli(
        "plan",
        "--cpu",
        "amd-epyc-9575f",
        "--board",
        "asus-esc8000a-e13p",
        "--gpu",
        "nvidia-h100-sxm5:2",
        "--json",
    )
    assert "FIT004" in {f["id"] for f in json.loads(out)["findings"]}


def test_two_nodes_plan_end_to_end_and_meet_the_published_all_reduce(cli):
    """Two HGX A100 nodes with eight 200 Gb/s HDR NICs each: NCCL's maintainer measures 192 GB/s with the
    ring on DGX A100s (nccl#812); on two nodes NCCL's tree can exceed the network, up to one node's own."""
    ring = _plan(cli, TWO_A100, "--nccl-algo", "ring")
    ar = ring["allreduce"]
    assert ring["nodes"] == 2 and ar["nodes"] == 2 and ar["gpus"] == 16 and ar["transport"] == "NET"
    assert ar["busbw_gbps"] == pytest.approx(192, rel=0.05)
    assert ar["network_gbps"] == pytest.approx(192, rel=0.01) and ar["algorithm"] == "ring"
    assert ar["node_busbw_gbps"] == pytest.approx(230, rel=0.03)
    assert len(ring["nics"]) == 8 and all(n["gpudirect_rdma"] for n in ring["nics"])
    tree = _plan(cli, TWO_A100)["allreduce"]
    assert tree["algorithm"] == "tree (NCCL's choice)" and tree["busbw_gbps"] == ar["node_busbw_gbps"]
    assert tree["confidence"] == "low"
    code, text, _ = cli("plan", TWO_A100, "--nccl-algo", "ring")
    words = " ".join(text.split())
    assert "16 GPUs on 2 nodes" in words and "NCCL's ring across nodes, limited by the nodes' NICs" in words


def test_without_gpudirect_rdma_the_nic_traffic_goes_through_the_cpu_and_shares_the_uplinks(cli):
    d = _plan(cli, TWO_A100, "--nccl-algo", "ring", "--gpudirect-rdma", "off")
    ar, nics = d["allreduce"], d["nics"]
    assert not any(n["gpudirect_rdma"] for n in nics) and ar["confidence"] == "low"
    # each NIC's traffic now crosses its switch's x16 uplink twice, with the other NIC's
    assert ar["busbw_gbps"] < 0.5 * 192
    assert "staged through the CPU" in nics[0]["gpudirect_reason"]


def test_a_multi_node_build_without_a_known_network_is_unknown_never_a_zero(cli, write):
    no_nics = _plan(cli, str(write("n.yaml", "system: nvidia-hgx-a100-8gpu\nnodes: 2\nnics: []\n")))
    assert no_nics["allreduce"]["busbw_gbps"] is not None  # an empty list keeps the reference NICs
    bare = write(
        "t.yaml",
        "nodes: 2\ntopology:\n  sockets:\n    - vendor: amd\n      root_ports:\n"
        "        - {id: a, children: [{gpu: RTX 4090}]}\n        - {id: b, children: [{gpu: RTX 4090}]}\n",
    )
    ar = _plan(cli, str(bare))["allreduce"]
    assert ar["busbw_gbps"] is None and any("nics" in u for u in ar["unknown"])
    tcp = write(
        "e.yaml",
        "nodes: 2\ntopology:\n  sockets:\n    - vendor: amd\n      root_ports:\n"
        "        - {id: a, children: [{gpu: RTX 4090}]}\n"
        "        - {id: b, children: [{nic: X710, gbps: 10, fabric: ethernet}]}\n",
    )
    ar = _plan(cli, str(tcp))["allreduce"]
    assert ar["busbw_gbps"] is None  # no measured efficiency for NCCL's socket transport


def test_a_catalog_board_build_joins_nodes_through_its_nic_slot(cli, write):
    build = write(
        "b.yaml",
        "cpu: amd-epyc-9575f\ncpu_count: 2\nboard: asus-esc8000a-e13p\nnodes: 2\n"
        "gpus: [{model: nvidia-rtx-pro-6000-blackwell-server, count: 2}]\n"
        "nics: [{name: ConnectX-7, gbps: 400, fabric: infiniband, gen: 5, width: 16}]\n",
    )
    d = _plan(cli, str(build))
    assert len(d["nics"]) == 1 and d["allreduce"]["transport"] == "NET"
    assert 0 < d["allreduce"]["busbw_gbps"] <= 50


def test_compare_sets_a_run_across_nodes_against_a_build_of_as_many_nodes(cli, write, tmp_path):
    meas = tmp_path / "m.json"
    code, _, err = cli(
        "import",
        "nccl-tests",
        str(ROOT / "tests/fixtures/tools/nccltests/a3mega_16xH100_sweep.txt"),
        "-o",
        str(meas),
    )
    assert code == 0, err
    two = write(
        "two.yaml",
        "system: nvidia-hgx-h100-8gpu\nnodes: 2\n"
        "nics: [{name: GPU NIC, gbps: 200, fabric: roce, gen: 5, width: 16, count: 8}]\n",
    )
    code, out, err = cli("compare", str(two), str(meas), "--json")
    assert code in (0, 1), err
    rows = json.loads(out)["rows"]
    assert any(r["metric"] == "busbw_gbps" for r in rows)
    one = write("one.yaml", "system: nvidia-hgx-h100-8gpu\n")
    code, _, err = cli("compare", str(one), str(meas))
    assert code == 2 and "2 nodes" in err


def test_the_workload_model_plans_one_node_and_says_so(cli):
    code, _, err = cli("workload", TWO_A100, "--train", "8b")
    assert code == 2 and "plans one machine; this build has 2 nodes" in err
    code, _, err = cli("plan", TWO_A100, "--train", "8b")
    assert code == 2 and "nodes: 1" in err


def test_a_null_nvlink_value_of_the_system_s_gpu_is_unknown_never_a_zero(cli, tmp_path):
    """An SXM module whose NVLink rate the catalog does not hold: its copies over the NVSwitch are unknown,
    naming the value, and so is the all-reduce over them; the PCIe figures stay."""
    text = (ROOT / "catalog" / "gpus" / "nvidia-h100-sxm5.yaml").read_text()
    assert "  gbps_per_direction: 450\n" in text and "  links: 18\n" in text
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "h100.yaml").write_text(
        text.replace("  gbps_per_direction: 450\n", "  gbps_per_direction: null\n").replace(
            "  links: 18\n", "  links: null\n"
        )
    )
    d = _plan(cli, H100, "--catalog", str(folder))
    pair = d["pairs"][0]
    assert pair["uni_gbps"] is None and any("gbps_per_direction" in u for u in pair["unknown"])
    assert d["allreduce"]["busbw_gbps"] is None and d["allreduce"]["unknown"]
    assert d["gpus"][0]["h2d_gbps"] > 0
