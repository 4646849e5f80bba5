"""The buyer's scenarios of the engine issue, through `advisor plan --json` as a user runs it."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT


def _pair(plan, a, b):
    return next(p for p in plan["pairs"] if {p["a"], p["b"]} == {a, b})


def test_i9_on_z790_with_two_cpu_slots_splits_x8_x8_and_stages_copies(plan_json):
    plan = plan_json("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")
    links = [(g["link"]["gen"], g["link"]["width"]) for g in plan["gpus"]]
    assert links == [(4, 8), (4, 8)]
    pair = _pair(plan, 0, 1)
    assert pair["p2p"] is False and pair["via"] == "staged" and pair["nccl_transport"] == "SHM"
    assert pair["path"] == "PHB"
    # staged through host memory: below either GPU's own H2D, and ~10 us latency
    assert pair["uni_gbps"] < plan["gpus"][0]["h2d_gbps"]
    assert pair["latency_us"] > 5
    assert any("x16 -> x8" in n for n in plan["allocation_notes"])


def test_one_cpu_slot_board_puts_second_card_on_chipset_x4(plan_json):
    plan = plan_json("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:2")
    first, second = plan["gpus"]
    assert (first["link"]["gen"], first["link"]["width"]) == (4, 16)
    assert (second["link"]["gen"], second["link"]["width"]) == (4, 4)
    assert second["slot"].startswith("PCIEX16(G4)")
    assert second["h2d_gbps"] < first["h2d_gbps"] / 3


def test_single_4090_gets_gen4_x16(plan_json):
    plan = plan_json("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090")
    assert [(g["link"]["gen"], g["link"]["width"]) for g in plan["gpus"]] == [(4, 16)]
    assert 24 < plan["gpus"][0]["h2d_gbps"] < 29
    assert plan["pairs"] == [] and plan["allreduce"] is None


def test_m2_ssd_steals_lanes_from_the_gpu_slot(plan_json):
    alone = plan_json("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090")
    with_ssd = plan_json(
        "--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090", "--nvme", "M.2_1"
    )
    assert alone["gpus"][0]["link"]["width"] == 16
    assert with_ssd["gpus"][0]["link"]["width"] == 8
    other = plan_json(
        "--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090", "--nvme", "M.2_2"
    )
    assert other["gpus"][0]["link"]["width"] == 16


def test_two_gpus_on_a_chipset_share_its_uplink(plan_json, write):
    build = write(
        "am5.yaml",
        """
topology:
  sockets:
    - vendor: amd
      root_ports: [{id: peg, children: [{gpu: "RTX 4090"}]}]
  chipset: {gen: 4, width: 4, children: [{gpu: "RTX 4090", width: 4}, {gpu: "RTX 4090", width: 4}]}
""",
    )
    plan = plan_json(str(build))
    g1, g2 = plan["gpus"][1], plan["gpus"][2]
    assert g1["h2d_gbps"] == pytest.approx(6.6, abs=0.1)
    assert g1["h2d_all_gbps"] == pytest.approx(g1["h2d_gbps"] / 2, abs=0.1)
    assert g1["h2d_all_gbps"] + g2["h2d_all_gbps"] <= 7.9 * 0.84 + 0.05
    assert plan["gpus"][0]["h2d_all_gbps"] == plan["gpus"][0]["h2d_gbps"]


def test_third_gpu_on_z790_lands_behind_the_chipset(plan_json):
    plan = plan_json("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:3")
    chipset_gpus = [g for g in plan["gpus"] if g["slot"].startswith("PCIEX16(G4)")]
    assert len(chipset_gpus) == 2
    assert all("chipset" not in g["bottleneck"] or g["link"]["width"] == 4 for g in chipset_gpus)


def test_nvlink_bridge_between_two_3090s_gives_nv4(plan_json, write):
    build = write(
        "nvl.yaml",
        """
nvlink: [[0, 1]]
topology:
  sockets:
    - vendor: intel
      root_ports: [{id: a, children: [{gpu: "RTX 3090"}]}, {id: b, children: [{gpu: "RTX 3090"}]}]
""",
    )
    plan = plan_json(str(build))
    pair = _pair(plan, 0, 1)
    assert pair["path"] == "NV4" and pair["via"] == "nvlink" and pair["nccl_transport"] == "NVLink"
    assert pair["uni_gbps"] > 40
    assert plan["topo"]["matrix"] == [["X", "NV4"], ["NV4", "X"]]


def test_switch_server_gives_pix_and_pxb_and_caps_concurrent_h2d(plan_json, write):
    build = write(
        "sw.yaml",
        """
topology:
  sockets:
    - vendor: intel
      root_ports:
        - id: r0
          children:
            - switch: top
              gen: 4
              width: 16
              children:
                - {switch: a, gen: 4, width: 16, children: [{gpu: "RTX 6000 Ada"}, {gpu: "RTX 6000 Ada"}]}
                - {switch: b, gen: 4, width: 16, children: [{gpu: "RTX 6000 Ada"}, {gpu: "RTX 6000 Ada"}]}
""",
    )
    plan = plan_json(str(build))
    assert _pair(plan, 0, 1)["path"] == "PIX"
    assert _pair(plan, 0, 2)["path"] == "PXB"
    assert _pair(plan, 0, 1)["nccl_transport"] == "P2P"
    alone = plan["gpus"][0]["h2d_gbps"]
    together = sum(g["h2d_all_gbps"] for g in plan["gpus"])
    assert together == pytest.approx(alone, rel=0.02)  # four GPUs share one x16 uplink


def test_dual_socket_pairs_are_sys(plan_json, write):
    build = write(
        "2s.yaml",
        """
topology:
  sockets:
    - {vendor: amd, root_ports: [{id: a, children: [{gpu: "RTX 6000 Ada"}]}, {id: b, children: [{gpu: "RTX 6000 Ada"}]}]}
    - {vendor: amd, root_ports: [{id: c, children: [{gpu: "RTX 6000 Ada"}]}, {id: d, children: [{gpu: "RTX 6000 Ada"}]}]}
""",
    )
    plan = plan_json(str(build))
    assert _pair(plan, 0, 2)["path"] == "SYS"
    assert _pair(plan, 0, 1)["path"] == "PHB"
    assert _pair(plan, 0, 2)["uni_gbps"] < _pair(plan, 0, 1)["uni_gbps"]


def test_pro_cards_do_p2p_but_nccl_skips_it_through_an_intel_root_complex(plan_json, write):
    build = write(
        "a6000.yaml",
        """
cpu: i9-14900K
board: ROG Maximus Z790 Hero
gpus: [{model: RTX A6000, count: 2}]
""",
    )
    plan = plan_json(str(build))
    pair = _pair(plan, 0, 1)
    assert pair["p2p"] is True and pair["via"] == "pcie-p2p"
    assert pair["nccl_transport"] == "SHM" and "NCCL_P2P_LEVEL" in pair["nccl_reason"]


def test_every_figure_can_show_its_derivation(plan_json):
    plan = plan_json(
        "--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2", "--explain"
    )
    d = plan["pairs"][0]["derivation"]["uni"]
    assert "staged_efficiency" in d["constants"] and d["inputs"]["arch"] == "ada"
    assert (
        "kinghorn-2x4090-trpro5995wx-driver525.105.17-p2p-disabled"
        in plan["constants"]["staged_efficiency"]["sources"]
    )


def test_bundled_example_plans(plan_json):
    plan = plan_json(str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    assert len(plan["gpus"]) == 2
    plan = plan_json(str(ROOT / "examples" / "explicit-tree-4x6000ada.yaml"))
    assert {p["path"] for p in plan["pairs"]} == {"PHB", "NODE"}


def test_epyc_9004_server_gives_each_rtx6000ada_gen4_x16_with_p2p(plan_json):
    plan = plan_json("--cpu", "EPYC 9654", "--board", "AS-4125GS-TNRT2", "--gpu", "RTX 6000 Ada:4")
    assert [(g["link"]["gen"], g["link"]["width"]) for g in plan["gpus"]] == [(4, 16)] * 4
    assert all(p["p2p"] for p in plan["pairs"])
    assert any(p["path"] == "PIX" and p["nccl_transport"] == "P2P" for p in plan["pairs"])


def test_dual_socket_epyc_with_eight_gpus_has_sys_pairs_and_switch_limits(plan_json):
    plan = plan_json("--cpu", "EPYC 9654", "--board", "AS-4125GS-TNRT2", "--gpu", "RTX 6000 Ada:8")
    paths = {p["path"] for p in plan["pairs"]}
    assert {"SYS", "PIX"} <= paths
    shared = [g for g in plan["gpus"] if g["h2d_all_gbps"] < g["h2d_gbps"] - 0.5]
    assert shared, "GPUs behind one switch uplink share it when all copy at once"
    assert any("uplink" in g["bottleneck"] or g["h2d_all_gbps"] < g["h2d_gbps"] for g in shared)


def test_threadripper_pro_gives_every_gpu_x16(plan_json):
    plan = plan_json("--cpu", "Threadripper PRO 7965WX", "--board", "WRX90E-SAGE", "--gpu", "RTX 6000 Ada:4")
    assert [g["link"]["width"] for g in plan["gpus"]] == [16] * 4


def test_plan_starts_with_a_verdict_that_says_what_matters_most(plan_json, cli):
    hero = plan_json(str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    assert hero["verdict"].startswith("A weak multi-GPU build: GPU0 runs at Gen4 x8 (card: x16)")
    assert "no P2P" in hero["verdict"]
    strix = plan_json("--cpu", "i9-14900K", "--board", "ROG Strix Z790-E", "--gpu", "RTX 4090:2")
    assert strix["verdict"].startswith("Not ready as it stands: GPU1 runs at Gen4 x4 on chipset lanes")
    good = plan_json("--cpu", "Threadripper PRO 5995WX", "--board", "WRX80E-SAGE", "--gpu", "RTX 6000 Ada:4")
    assert good["verdict"].startswith(
        "A good multi-GPU build: every GPU at its full link, CUDA P2P on every pair"
    )
    assert "but NCCL uses host memory (SHM) on every pair by default" in good["verdict"]
    code, out, _ = cli("plan", str(ROOT / "examples" / "2x4090-z790-hero.yaml"))
    assert out.startswith("A weak multi-GPU build")  # the text report's first line too


def test_a_rule_that_fires_on_every_pair_is_one_finding_naming_the_pairs(plan_json):
    plan = plan_json("--cpu", "Threadripper PRO 5995WX", "--board", "WRX80E-SAGE", "--gpu", "RTX 4090:4")
    p2p = [f for f in plan["findings"] if f["id"] == "P2P001"]
    assert len(p2p) == 1
    pairs = p2p[0]["subject"].split(", ")
    assert len(pairs) == 6 and pairs[0] == "GPU0-GPU1" and "GPU2-GPU3" in pairs
    assert "fires on 5 more pair(s) too: GPU0-GPU2" in p2p[0]["message"]


def test_w790e_m2_1_and_m2_2_each_get_their_own_x4_root_port(plan_json):
    # SMBIOS of a real W790E-SAGE SE: M.2_1 on root port 8d:01.0, M.2_2 on 8d:03.0, each x4
    plan = plan_json(
        "--cpu",
        "w9-3495X",
        "--board",
        "W790E-SAGE SE",
        "--gpu",
        "RTX 4090:2",
        "--nvme",
        "M.2_1",
        "--nvme",
        "M.2_2",
    )
    ssds = {d["connector"]: (d["link"]["gen"], d["link"]["width"]) for d in plan["devices"]}
    assert ssds == {"M.2_1": (4, 4), "M.2_2": (4, 4)}
    assert plan["unlinked"] == []
    assert not [f for f in plan["findings"] if f["id"] == "LANE004"]


def test_automatic_placement_keeps_the_lanes_of_the_users_ssds(plan_json):
    # ROMED8-2T: PCIE2 and M2_1 share lanes; with SSDs in M2_1 and M2_2, no card goes to PCIE2
    plan = plan_json(
        "--cpu",
        "EPYC 7543",
        "--board",
        "ROMED8-2T",
        "--gpu",
        "RTX 3090:4",
        "--nvme",
        "M2_1",
        "--nvme",
        "M2_2",
    )
    assert "PCIE2" not in [g["slot"] for g in plan["gpus"]]
    assert [g["link"]["width"] for g in plan["gpus"]] == [16] * 4
    assert {d["connector"] for d in plan["devices"] if d["link"]} == {"M2_1", "M2_2"}
    assert plan["unlinked"] == []


def test_a_one_socket_epyc_on_a_two_socket_server_uses_the_slots_of_its_own_socket(plan_json):
    # EPYC 9354P is a one-socket part: socket 1 of the AS-4125GS-TNRT2 stays empty, and so do the
    # switches behind it (SLOT1-4); the cards go behind socket 0's switches (SLOT8-12)
    plan = plan_json("--cpu", "EPYC 9354P", "--board", "AS-4125GS-TNRT2", "--gpu", "RTX 6000 Ada:4")
    assert plan["sockets"] == 1
    assert all(g["link"] and g["link"]["width"] == 16 for g in plan["gpus"])
    assert {g["slot"].split()[0] for g in plan["gpus"]} <= {"SLOT8", "SLOT9", "SLOT10", "SLOT11", "SLOT12"}
    assert any("runs in one socket only" in n for n in plan["allocation_notes"])


def _staged(plan_json, write, gpu):
    build = write(
        "staged.yaml",
        "cpu: amd-ryzen-threadripper-pro-5975wx\nboard: asus-pro-ws-wrx80e-sage-se-wifi\n"
        f"gpus: [{{model: {gpu}, count: 2}}]\nsoftware: {{cuda_p2p: false}}\n",
    )
    plan = plan_json(str(build), "--explain")
    pair = _pair(plan, 0, 1)
    assert pair["via"] == "staged"
    return pair


def test_staged_copies_follow_the_card_family_not_the_architecture_name(plan_json, write):
    # the same Gen4 x16 links: the GeForce 3090 measured 11.2-11.4 GB/s staged, the A100 80GB PCIe
    # 21.4-21.8 (both Ampere), so one architecture key cannot serve both
    geforce = _staged(plan_json, write, "RTX 3090")
    a100 = _staged(plan_json, write, "A100 80GB PCIe")
    assert 10.5 < geforce["uni_gbps"] < 12 and 20.5 < a100["uni_gbps"] < 23
    assert "staged_efficiency[ampere-geforce]" in geforce["derivation"]["uni"]["formula"]
    assert "staged_efficiency[sm80]" in a100["derivation"]["uni"]["formula"]  # GA100, the A100's chip
    assert geforce["confidence"] == a100["confidence"] == "calibrated"
    # no staged copy of an Ampere workstation card is published: the figure says it is a guess
    # nor of a datacenter GA102 (the A40 shares the A100's segment, not its chip)
    for card in ("RTX A6000", "A40"):
        other = _staged(plan_json, write, card)
        assert "staged_efficiency[default]" in other["derivation"]["uni"]["formula"]
        assert other["confidence"] == "low"


def _two_socket_pair(plan_json, write, gpu, cpu="EPYC 9124"):
    build = write(
        "dual.yaml",
        f"""
topology:
  inter_socket: xGMI
  sockets:
    - {{cpu: "{cpu}", vendor: amd, root_ports: [{{id: "00:01.1", host_bridge: "00", children: [{{gpu: "{gpu}"}}]}}]}}
    - {{cpu: "{cpu}", vendor: amd, root_ports: [{{id: "80:01.1", host_bridge: "80", children: [{{gpu: "{gpu}"}}]}}]}}
""",
    )
    pair = _pair(plan_json(str(build), "--explain"), 0, 1)
    assert pair["path"] == "SYS" and pair["via"] == "pcie-p2p"
    return pair


def test_dual_genoa_caps_gen5_p2p_between_sockets_but_not_gen4(plan_json, write):
    # published: dual EPYC 9124, RTX PRO 6000 Blackwell, 42.0-44.4 GB/s across sockets vs 57.3 within;
    # dual EPYC 9374F with Gen4 RTX 6000 Ada cards: 26.32 across, 26.33 within
    gen5 = _two_socket_pair(plan_json, write, "RTX PRO 6000 Blackwell Server")
    assert 39 < gen5["uni_gbps"] < 45
    assert "p2p_inter_socket_cap_gbps[amd-epyc-9004]" in gen5["derivation"]["uni"]["formula"]
    gen4 = _two_socket_pair(plan_json, write, "RTX 6000 Ada")
    assert 25 < gen4["uni_gbps"] < 28 and "inter_socket_cap" not in gen4["derivation"]["uni"]["formula"]
    # dual Turin measured 50-56 across sockets: no cap
    turin = _two_socket_pair(plan_json, write, "RTX PRO 6000 Blackwell Server", cpu="EPYC 9575F")
    assert turin["uni_gbps"] > 50
