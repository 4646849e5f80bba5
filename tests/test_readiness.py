"""P2P readiness in `plan`: per GPU pair, the layers that decide whether P2P is really
used, each PASS / FAIL / UNKNOWN with its reason, fix, the command that settles it, and its sources. The
four machines it was first checked on, and that unknown settings stay unknown."""

from __future__ import annotations

import pytest

from advisor.model.build import Build

HERO = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")
WRX90 = ("--cpu", "Threadripper PRO 7975WX", "--board", "WRX90E-SAGE", "--gpu", "RTX 5090:4")


def _layers(pair: dict) -> dict[str, dict]:
    return {x["layer"]: x for x in pair["layers"]}


def test_each_pair_has_the_layers_in_order_with_verdicts(plan_json):
    plan = plan_json(*HERO)
    (pair,) = plan["readiness"]
    assert (pair["a"], pair["b"], pair["path"]) == (0, 1, "PHB")
    assert [x["layer"] for x in pair["layers"]] == ["hardware", "driver", "acs", "nccl"]
    assert {x["verdict"] for x in pair["layers"]} <= {"PASS", "FAIL", "UNKNOWN"}
    assert all(set(x) >= {"layer", "verdict", "why", "fix"} for x in pair["layers"])


def test_two_4090s_on_a_core_i9_stop_at_the_stock_driver(plan_json):
    (pair,) = plan_json(*HERO)["readiness"]
    layers = _layers(pair)
    assert pair["verdict"] == "FAIL" and pair["summary"] == "P2P not used: stopped at driver"
    assert layers["hardware"]["verdict"] == "PASS" and layers["hardware"]["why"].startswith("PHB")
    driver = layers["driver"]
    assert driver["verdict"] == "FAIL"
    assert "stock Linux driver never grants PCIe P2P on NVIDIA GeForce RTX 4090" in driver["why"]
    # the cards to move to are P2P001's, each planned on this build, not a list written by hand
    assert "patched open kernel module" in driver["fix"] and "P2P001 names catalog cards" in driver["fix"]
    assert any("aikitoria" in s for s in driver["sources"])
    # nothing says whether ACS is on: unknown, with the command that settles it
    assert layers["acs"]["verdict"] == "UNKNOWN" and "ACSCtl" in layers["acs"]["check"]
    assert layers["nccl"]["verdict"] == "FAIL" and "SHM" in layers["nccl"]["why"]
    assert "driver layer first" in layers["nccl"]["fix"]


def test_the_patched_driver_with_rebar_off_fails_on_large_bar(plan_json):
    (pair,) = plan_json(*HERO, "--driver", "patched", "--bios", "rebar=off")["readiness"]
    driver = _layers(pair)["driver"]
    assert driver["verdict"] == "FAIL"
    assert "needs large (Resizable) BAR; it is off" in driver["why"] and "not the 24 GB" in driver["why"]
    assert "Turn on Resizable BAR" in driver["fix"] and "BAR1" in driver["check"]
    # the prediction agrees: no P2P, staged copies
    plan = plan_json(*HERO, "--driver", "patched", "--bios", "rebar=off")
    assert plan["pairs"][0]["p2p"] is False and plan["pairs"][0]["via"] == "staged"


def test_the_patched_driver_says_what_is_not_yet_known_and_how_to_find_out(plan_json):
    (pair,) = plan_json(*HERO, "--driver", "patched")["readiness"]
    driver = _layers(pair)["driver"]
    assert driver["verdict"] == "UNKNOWN"
    assert "large (Resizable) BAR" in driver["why"] and "IOMMU" in driver["why"]
    assert "nvidia-smi -q -d MEMORY" in driver["check"] and "/proc/cmdline" in driver["check"]
    # told, the same prerequisites pass
    (pair,) = plan_json(
        *HERO, "--driver", "patched", "--bios", "rebar=on", "--kernel-iommu", "pt", "--bios", "acs=off"
    )["readiness"]
    layers = _layers(pair)
    assert layers["driver"]["verdict"] == "PASS" and layers["acs"]["verdict"] == "PASS"
    # NCCL's default P2P level on Intel stops at PXB: the PHB pair stages, and the fix names the variable
    assert layers["nccl"]["verdict"] == "FAIL" and "NCCL_P2P_LEVEL=SYS" in layers["nccl"]["fix"]
    assert pair["summary"] == "P2P not used: stopped at nccl"


def test_four_rtx_6000_ada_behind_a_switch_with_acs_on_fail_at_acs(write, plan_json):
    build = write(
        "switch.yaml",
        """\
name: 4x RTX 6000 Ada behind one PCIe switch
topology:
  sockets:
    - cpu: Threadripper PRO 7975WX
      root_ports:
        - id: "00:01.1"
          host_bridge: "00"
          children:
            - switch: PEX 89048
              gen: 4
              width: 16
              children:
                - {gpu: RTX 6000 Ada}
                - {gpu: RTX 6000 Ada}
                - {gpu: RTX 6000 Ada}
                - {gpu: RTX 6000 Ada}
bios: {acs: "on"}
""",
    )
    plan = plan_json(str(build))
    assert len(plan["readiness"]) == 6 and {p["path"] for p in plan["readiness"]} == {"PIX"}
    for pair in plan["readiness"]:
        layers = _layers(pair)
        assert layers["hardware"]["verdict"] == "PASS" and "PEX 89048" in layers["hardware"]["why"]
        assert layers["driver"]["verdict"] == "PASS"  # pro cards: the stock driver grants P2P
        acs = layers["acs"]
        assert acs["verdict"] == "FAIL" and "redirected up to the root complex" in acs["why"]
        assert "setpci" in acs["fix"] and "BIOS" in acs["fix"]
        assert any("troubleshooting" in s for s in acs["sources"])
    # the same machine with ACS off passes every layer
    build.write_text(build.read_text().replace('acs: "on"', 'acs: "off"'))
    plan = plan_json(str(build))
    assert {p["verdict"] for p in plan["readiness"]} == {"PASS"}


def test_a_4x_5090_vllm_server_loses_the_custom_all_reduce(plan_json):
    plan = plan_json(
        *WRX90, "--engine", "vllm", "--driver", "patched", "--kernel-iommu", "pt", "--bios", "rebar=on"
    )
    assert len(plan["readiness"]) == 6
    for pair in plan["readiness"]:
        layers = _layers(pair)
        assert [x["layer"] for x in pair["layers"]][-1] == "engine"
        engine = layers["engine"]
        assert engine["verdict"] == "FAIL"
        assert "more than two PCIe-only GPUs (4 here)" in engine["why"]
        assert "--disable-custom-all-reduce" in engine["fix"]
        assert any("vllm-project/vllm" in s for s in engine["sources"])
        # the display prerequisite of patched 5090s is not known until the build says it
        assert "drives a display" in layers["driver"]["why"] and layers["driver"]["verdict"] == "UNKNOWN"


def test_vllm_on_two_gpus_keeps_custom_all_reduce_only_with_p2p(plan_json):
    two = ("--cpu", "Threadripper PRO 7975WX", "--board", "WRX90E-SAGE", "--engine", "vllm")
    (pair,) = plan_json(*two, "--gpu", "RTX 6000 Ada:2")["readiness"]
    engine = _layers(pair)["engine"]
    assert engine["verdict"] == "PASS" and "under 8 MiB" in engine["why"]
    (pair,) = plan_json(*two, "--gpu", "RTX 5090:2")["readiness"]
    engine = _layers(pair)["engine"]
    assert engine["verdict"] == "FAIL" and "needs P2P" in engine["why"]
    (pair,) = plan_json(*two, "--gpu", "RTX 5090:2", "--engine", "sglang")["readiness"]
    assert _layers(pair)["engine"]["why"].startswith("SGLang") and any(
        "sgl-project/sglang" in s for s in _layers(pair)["engine"]["sources"]
    )


def test_a_display_on_a_patched_5090_fails_and_the_prediction_agrees(write, plan_json):
    build = write(
        "b.yaml",
        """\
cpu: Threadripper PRO 7975WX
board: WRX90E-SAGE
gpus: [{model: RTX 5090, count: 2}]
software: {driver: patched-p2p, display_gpus: [0]}
bios: {rebar: true, acs: "off"}
kernel: {iommu: pt}
""",
    )
    plan = plan_json(str(build))
    driver = _layers(plan["readiness"][0])["driver"]
    assert driver["verdict"] == "FAIL" and "GPU0 drives a display" in driver["why"]
    assert plan["pairs"][0]["p2p"] is False
    build.write_text(build.read_text().replace("display_gpus: [0]", "display_gpus: []"))
    plan = plan_json(str(build))
    assert _layers(plan["readiness"][0])["driver"]["verdict"] == "PASS" and plan["pairs"][0]["p2p"] is True


def test_bios_and_software_that_disagree_are_refused():
    with pytest.raises(ValueError, match="software.large_bar: True disagrees with bios.rebar: false"):
        Build(cpu="x", board="y", software={"large_bar": True}, bios={"rebar": False})
    # stated once, the BIOS setting is what the predictions use
    b = Build(cpu="x", board="y", bios={"rebar": False, "acs": "on"}, kernel={"iommu": "pt"})
    assert (b.software.large_bar, b.software.acs, b.software.iommu) == (False, "on", "passthrough")
    assert b.software.known("large_bar") and not Build(cpu="x", board="y").software.known("large_bar")


def test_a_bad_bios_flag_is_a_clear_error(cli):
    code, _, err = cli("plan", *HERO, "--bios", "rebar")
    assert code == 2 and "KEY=VALUE" in err and "Traceback" not in err
    code, _, err = cli("plan", *HERO, "--bios", "rebar=maybe")
    assert code == 2 and "rebar is on or off" in err


def test_the_text_and_markdown_reports_show_readiness(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = cli("plan", *WRX90, "--engine", "vllm")
    assert code == 0 and "P2P readiness" in out
    # six pairs that read the same are shown once
    assert "pairs 0-1, 0-2, 0-3, 1-2, 1-3, 2-3: P2P not used: stopped at driver" in out
    assert out.count("FAIL    engine") == 1
    code, out, _ = cli("plan", *HERO, "--format", "markdown")
    assert code == 0 and "## P2P readiness" in out and "| driver | FAIL |" in out


def test_unknown_layers_are_never_guessed_for_a_non_nvidia_card():
    from advisor.model.catalog.store import load_catalog
    from advisor.model.engine import evaluate
    from advisor.model.readiness import readiness

    catalog = load_catalog()
    amd = [g for g in catalog.gpus if g.architecture.startswith("rdna")]
    if not amd:
        pytest.skip("no AMD card in the catalog")
    build = Build(
        cpu="amd-ryzen-threadripper-pro-7975wx",
        board="asus-pro-ws-wrx90e-sage-se",
        gpus=[{"model": amd[0].id, "count": 2}],
    )
    (r,) = readiness(evaluate(build, catalog))
    assert [x.verdict for x in r.layers] == ["UNKNOWN"] * 4 and "NVIDIA GPUs only" in r.layers[0].why


def test_a_user_error_in_a_build_section_names_it(write, cli):
    build = write("b.yaml", "cpu: i9-14900K\nboard: ROG Maximus Z790 Hero\nbios: {rebar: maybe}\n")
    code, _, err = cli("plan", str(build))
    assert code == 2 and "b.yaml:3" in err and "bios.rebar" in err
