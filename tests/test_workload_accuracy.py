"""`advisor accuracy --workload`: the model against published 1-GPU vs N-GPU results."""

from __future__ import annotations

import json
import math

import pytest
import yaml


def _all_cases() -> list[dict]:
    """Every case of every calibration file the report reads."""
    from advisor.workload.accuracy import case_files

    return [c for path in case_files() for c in yaml.safe_load(path.read_text())["cases"]]


def _report(cli) -> dict:
    code, out, err = cli("accuracy", "--workload", "--json")
    assert code == 0, err
    return json.loads(out)


def test_every_bundled_case_is_predicted_or_says_why_not(cli):
    report = _report(cli)
    cases = _all_cases()
    skipped = {c["id"] for c in cases if c.get("skip")}
    described = [c for c in cases if not c.get("skip")]
    # only the cases marked `skip:` are not described, each with its reason
    assert {item["case"] for item in report["not_described"]} == skipped
    assert all(item["reason"] for item in report["not_described"])
    # one row per measured GPU count above 1 of every described case
    counts = {c["id"]: sorted(int(n) for n in c["measured"]["values"]) for c in described}
    expected = [(cid, n) for cid, ns in counts.items() for n in ns if n > 1]
    assert [(r["case"], r["gpus"]) for r in report["rows"]] == expected
    # a row without a prediction says why; every figure is a row with one
    assert all(r["note"] for r in report["rows"] if r["predicted_speedup"] is None)
    s = report["summary"]
    predicted = sum(r["error_pct"] is not None for r in report["rows"])
    assert s["leave_one_out"]["figures"] + s["held_out"]["figures"] == predicted
    predicted_cases = {r["case"] for r in report["rows"] if r["predicted_speedup"] is not None}
    assert predicted_cases == {c["id"] for c in described}


def test_the_held_out_cases_are_reported_apart_and_never_fitted(cli):
    """The cases marked held_out are exactly the held-out rows; no constant rests on them (not in sample, no
    leave-one-out refit, not among any fitted constant's sources)."""
    from advisor.model.constants import constants

    report = _report(cli)
    cases = _all_cases()
    held = {c["id"] for c in cases if c.get("held_out") and not c.get("skip")}
    assert len(held) >= 5
    rows = report["rows"]
    assert {r["case"] for r in rows if r["held_out"]} == held
    assert not any(r["in_sample"] or r["loo_predicted_speedup"] is not None for r in rows if r["held_out"])
    for c in constants("workload.yaml").values():
        assert not held & set(c.sources), c.name
    s = report["summary"]
    assert s["held_out"]["figures"] == sum(
        1 for r in rows if r["held_out"] and r["predicted_speedup"] is not None
    )
    assert s["leave_one_out"]["cases"] == len(
        {r["case"] for r in rows if not r["held_out"] and r["predicted_speedup"]}
    )
    code, out, _ = cli("accuracy", "--workload")
    assert code == 0 and "Held out: cases kept apart, never fitted on" in " ".join(out.split())


def test_accuracy_summary_keeps_in_sample_leave_one_out_and_held_out_apart_by_class(cli):
    report = _report(cli)
    s = report["summary"]
    rows = report["rows"]
    assert s["in_sample"]["figures"] == sum(1 for r in rows if r["in_sample"] and r["predicted_speedup"])
    assert s["leave_one_out"]["median_abs_error_pct"] <= 15
    # communication-bound: the rows whose measured scaling efficiency is below 85%, recomputed here
    for name, sel in (
        ("leave_one_out", [r for r in rows if not r["held_out"]]),
        ("held_out", [r for r in rows if r["held_out"]]),
    ):
        bound = [r for r in sel if r["measured_speedup"] / r["gpus"] < 0.85]
        part = s[name]["communication_bound"]
        assert part["cases"] == len({r["case"] for r in bound if r["predicted_speedup"] is not None})
        assert part["not_predicted"] == sum(r["predicted_speedup"] is None for r in bound)
        # every class is reported; their figures add up to the set's
        by = s[name]["by_class"]
        assert set(by) == {"compute-bound", "staged comm-bound", "P2P", "NVLink", "serving"}
        assert sum(p["figures"] for p in by.values()) == s[name]["figures"]
        assert all(r["class"] in by for r in sel if r["predicted_speedup"] is not None)
    # serving is every inference case's class
    cases = {c["id"]: c for c in _all_cases()}
    assert all(
        (r["class"] == "serving") == (cases[r["case"]]["run"]["task"] == "infer")
        for r in rows
        if r["class"] is not None
    )


def test_every_speed_up_more_than_2x_off_out_of_sample_is_listed_with_why(cli):
    report = _report(cli)
    off = {(o["case"], o["gpus"]) for o in report["summary"]["off_by_more_than_2x"]}
    for r in report["rows"]:
        p = r["predicted_speedup"] if not r["in_sample"] else r["loo_predicted_speedup"]
        if p:
            assert ((r["case"], r["gpus"]) in off) == (
                max(p / r["measured_speedup"], r["measured_speedup"] / p) > 2
            )
    # the calibration cases that far off each say why (held-out ones may not: they were never looked at)
    assert all(
        o["why"] != "not explained"
        for o in report["summary"]["off_by_more_than_2x"]
        if o["set"] != "held_out"
    )


def test_zero2_with_accumulation_is_predicted_below_ddp_as_published(cli):
    rows = {r["case"]: r for r in _report(cli)["rows"]}
    zero2 = rows["tinyllama-issue1-4090-zero2-ga4-1v2"]
    ddp = rows["tinyllama-issue1-4090-ddp-ga4-1v2"]
    assert zero2["measured_speedup"] < ddp["measured_speedup"]
    assert zero2["predicted_speedup"] < ddp["predicted_speedup"]


def test_layer_split_decode_is_predicted_no_faster_than_one_gpu(cli):
    rows = [
        r for r in _report(cli)["rows"] if r["case"].startswith("xdai-llamacpp-may2024-4090-llama3-8b-f16-tg")
    ]
    assert rows and all(r["predicted_speedup"] <= 1.0 and r["measured_speedup"] < 1.0 for r in rows)


def test_text_report_names_cases_and_the_summary(cli):
    code, out, _ = cli("accuracy", "--workload")
    assert code == 0 and "lambda-4090-bertlarge" in out and "leave-one-out" in out and "not described" in out


def test_the_fitted_shm_overlap_is_what_the_cases_give_and_is_checked_left_out(cli):
    """overlap_under_shm is fitted on the cases that depend on it: rules/workload.yaml
    holds the fit, and each of those cases is also predicted with the value the other cases give."""
    from advisor.model.constants import constants
    from advisor.workload.accuracy import fit, fit_table

    table = fit_table()
    c = constants("workload.yaml")["overlap_under_shm"]
    assert c.value == fit(table)
    assert set(c.sources) == set(table)  # its sources are exactly the cases it was fitted on
    report = _report(cli)
    fitted = [r for r in report["rows"] if r["in_sample"]]
    assert fitted and all(r["loo_predicted_speedup"] is not None for r in fitted if r["predicted_speedup"])
    s = report["summary"]
    assert s["leave_one_out"]["figures"] == sum(
        1 for r in report["rows"] if not r["held_out"] and r["predicted_speedup"] is not None
    )


def test_every_grid_fitted_constant_is_its_fit_and_names_its_cases():
    """overlap_under_p2p, row_split_sync_us and dataparallel_host_share, like overlap_under_shm:
    rules/workload.yaml holds each one's fit over the cases its selector admits, and its case-id sources are
    exactly those."""
    from advisor.model.constants import constants
    from advisor.workload.accuracy import FITS, fit, fit_table

    for name in FITS:
        table = fit_table(name=name)
        c = constants("workload.yaml")[name]
        assert table and c.value == fit(table, name=name), name
        assert {s for s in c.sources if not s.startswith("http")} == set(table), name
    # the row split is fitted on decode only: the prefill cases stay out of its sample
    rows = fit_table(name="row_split_sync_us")
    assert rows and all("-tg-" in cid for cid in rows)


def test_the_compute_constants_are_the_fit_of_the_published_one_gpu_steps(cli):
    """gemm_efficiency and activation_traffic_factor are the least-squares fit of the
    published 1-GPU transformer training steps; their sources are exactly those cases, and the report
    gives each step in sample and with both constants refitted without it."""
    from advisor.model.constants import constants
    from advisor.workload.accuracy import compute_fit, compute_rows

    rows, left = compute_rows()
    gemm, traffic = compute_fit(rows)
    c = constants("workload.yaml")
    assert c["gemm_efficiency"].value == round(gemm, 3)
    assert c["activation_traffic_factor"].value == round(traffic, 1)
    used = {r.case for r in rows}
    for name in ("gemm_efficiency", "activation_traffic_factor"):
        assert {s for s in c[name].sources if not s.startswith("http")} == used
    # a case left out of the fit says why (TinyLlama rows that cannot be full-step figures)
    assert left and all(item["reason"] for item in left)
    report = _report(cli)["compute_fit"]
    assert {r["case"] for r in report["rows"]} == used
    assert all(abs(r["loo_error_pct"]) < 40 for r in report["rows"])
    code, out, _ = cli("accuracy", "--workload")
    assert "1-GPU training micro-step (the compute fit)" in out and "leave-one-out" in out


def test_one_gpu_training_speed_follows_bandwidth_as_well_as_peak(cli):
    """Published (Lambda, BERT-large fp16): the RTX 6000 Ada (2.2x the 4090's FP32-accumulate peak, about
    the same memory bandwidth) trains no faster than the 4090 per sample. A single MFU said 2.2x faster."""

    def per_sample_ms(gpu: str, batch: int) -> float:
        code, out, err = cli(
            "workload",
            "--cpu",
            "Threadripper PRO 7985WX",
            "--board",
            "Pro WS WRX90E-SAGE SE",
            "--gpu",
            f"{gpu}:1",
            "--train",
            "bert-large",
            "--seq",
            "384",
            "--batch",
            str(batch),
            "--precision",
            "fp16",
            "--json",
        )
        assert code == 0, err
        c = json.loads(out)["configurations"][0]
        return 1000 / c["samples_per_s"]

    ada, rtx4090 = per_sample_ms("RTX 6000 Ada", 64), per_sample_ms("RTX 4090", 28)
    measured = 10.75 / 12.66  # 4090 / 6000 Ada per-sample time, published
    single_mfu = 364.2 / 165.2  # what one MFU for both cards gave: the ratio of their peaks
    # the two-term model is still off (the 6000 Ada also runs at a lower clock than its peak assumes), but
    # at least halves the single MFU's log error
    assert abs(math.log(rtx4090 / ada / measured)) < abs(math.log(single_mfu / measured)) / 2


def test_the_compute_model_meets_nanogpt_on_a_4090_out_of_sample(cli):
    """nanoGPT's GPT-2 124M (batch 12, block 1024, bf16) on one RTX 4090 reported 29% of an A100's
    312 TFLOPS in nanoGPT's estimate_mfu (karpathy/nanoGPT#182); no constant was fitted on it."""
    code, out, err = cli(
        "workload",
        "--cpu",
        "i9-14900K",
        "--board",
        "ROG Maximus Z790 Hero",
        "--gpu",
        "RTX 4090:1",
        "--train",
        "gpt2",
        "--batch",
        "12",
        "--seq",
        "1024",
        "--precision",
        "bf16",
        "--json",
    )
    assert code == 0, err
    tokens_per_s = json.loads(out)["configurations"][0]["samples_per_s"] * 1024
    flops_per_token = 6 * 124e6 + 12 * 12 * 768 * 1024  # nanoGPT's estimate_mfu (PaLM appendix B)
    mfu_of_a100 = tokens_per_s * flops_per_token / 312e12
    assert 0.24 < mfu_of_a100 < 0.34


def test_a_rome_server_caps_its_staged_all_reduce_with_the_fitted_rome_share(cli, tmp_path):
    """On two EPYC 7352 sockets the SHM all-reduce of 8 RTX 3090 is capped by
    shm_host_memory_efficiency_epyc7002 x one socket's memory / 16: on Rome the second socket's memory adds
    nothing (shm_far_socket_share_epyc7002), so 8 GPUs over both sockets reduce at half the rate of 4 on
    one; a build without a catalog CPU keeps shm_host_memory_efficiency, which never binds there."""
    from advisor.model.constants import constants

    rome = constants("workload.yaml")["shm_host_memory_efficiency_epyc7002"].value
    case = next(r for r in _report(cli)["rows"] if r["case"] == "servergear-3090-vgg16-fp16-bs64-1v2v4v8")
    assert case["class"] == "staged comm-bound"
    import yaml

    from advisor.base.yamlio import load_file
    from advisor.model.buildfile import build_from_data
    from advisor.model.catalog.store import load_catalog
    from advisor.model.engine import evaluate
    from advisor.workload.hardware import fabric

    def sockets(cpu):
        gpu = {"gpu": "RTX 3090"}
        ports = [{"id": f"p{i}", "host_bridge": str(i), "children": [gpu]} for i in range(4)]
        return {"vendor": "amd", "root_ports": ports} | ({"cpu": cpu} if cpu else {})

    def predicted(cpu):
        path = tmp_path / f"{cpu or 'none'}.yaml"
        path.write_text(yaml.safe_dump({"topology": {"sockets": [sockets(cpu)] * 2}}))
        return evaluate(build_from_data(load_file(path), str(path)), catalog)

    catalog = load_catalog()
    fab = fabric(predicted("EPYC 7352"), 8)
    assert constants("workload.yaml")["shm_far_socket_share_epyc7002"].value == 0.0
    assert fab.host_bound and abs(fab.busbw - rome * 204.8 / 16) < 1e-9
    four = fabric(predicted("EPYC 7352"), 4)  # the first socket's four GPUs
    assert abs(four.busbw - rome * 204.8 / 8) < 1e-9 and abs(fab.busbw - four.busbw / 2) < 1e-9
    # the all-reduce's derivation names both Rome constants over both sockets, the share alone over one
    from advisor.workload.comm import collective

    assert {"shm_host_memory_efficiency_epyc7002", "shm_far_socket_share_epyc7002"} <= set(
        collective("all-reduce", 1e9, fab).constants
    )
    assert "shm_far_socket_share_epyc7002" not in collective("all-reduce", 1e9, four).constants
    without = fabric(predicted(None), 8)
    assert not without.host_bound and without.busbw > fab.busbw


def test_a_sapphire_rapids_ring_over_both_sockets_counts_both_sockets_memory(tmp_path):
    """Where the platform's second socket counts in full (shm_far_socket_share, derived from the published
    8-GPU SHM all-reduce over two Xeon Platinum 8480+), 8 GPUs over both sockets get the staged rate of 4 on
    one; on Rome they get half of it (the test above)."""
    import yaml

    from advisor.base.yamlio import load_file
    from advisor.model.buildfile import build_from_data
    from advisor.model.catalog.store import load_catalog
    from advisor.model.constants import constants
    from advisor.workload.hardware import fabric

    assert constants("workload.yaml")["shm_far_socket_share"].value == 1.0
    gpu = {"gpu": "RTX 5090"}
    ports = [{"id": f"p{i}", "host_bridge": str(i), "children": [gpu]} for i in range(4)]
    socket = {"vendor": "intel", "cpu": "Xeon Platinum 8480+", "root_ports": ports}
    path = tmp_path / "spr.yaml"
    path.write_text(yaml.safe_dump({"topology": {"sockets": [socket, socket]}}))
    from advisor.model.engine import evaluate

    pred = evaluate(build_from_data(load_file(path), str(path)), load_catalog())
    four, eight = fabric(pred, 4), fabric(pred, 8)
    assert four.host_cap_gbps is not None and eight.host_memory_gbps == 2 * four.host_memory_gbps
    assert abs(eight.host_cap_gbps - four.host_cap_gbps) < 1e-9


def test_a_case_on_a_gpu_without_a_catalog_peak_is_reported_not_a_crash(cli, tmp_path, monkeypatch):
    """A published BERT run on a card whose fp16 peak the catalog leaves null: the report still runs, the
    compute fit leaves the case out with the missing value named, and its speed-up row says why it has no
    prediction."""
    import advisor.workload.accuracy as accuracy

    card = next(
        g for g in accuracy.load_catalog().gpus if g.fp16_tflops_dense is None and g.form_factor == "pcie"
    )
    ports = [{"id": f"p{i}", "host_bridge": str(i), "children": [{"gpu": card.id}]} for i in range(2)]
    case = {
        "id": "test-null-peak-bert-1v2",
        "sources": ["https://example.com/run"],
        "quote": "1 GPU 100, 2 GPUs 190 sequences/s",
        "assumptions": [],
        "build": {"topology": {"sockets": [{"vendor": "amd", "root_ports": ports}]}},
        "run": {"task": "train", "model": "bert-large", "strategy": "ddp", "precision": "fp16", "batch": 16},
        "measured": {"metric": "sequences_per_s", "values": {1: 100.0, 2: 190.0}, "basis": "stated"},
    }
    extra = tmp_path / "workload-cases-test.yaml"
    extra.write_text(yaml.safe_dump({"kind": "workload-cases", "cases": [case]}))
    files = accuracy.case_files()
    monkeypatch.setattr(accuracy, "case_files", lambda: [*files, extra])
    report = _report(cli)
    left = {item["case"]: item["reason"] for item in report["compute_fit"]["not_used"]}
    assert "fp16_tflops_dense" in left["test-null-peak-bert-1v2"]
    (row,) = [r for r in report["rows"] if r["case"] == "test-null-peak-bert-1v2"]
    assert row["predicted_speedup"] is None and "fp16_tflops_dense" in row["note"]


def test_a_collective_takes_nccls_fastest_protocol_for_its_size(tmp_path):
    """NCCL's tuner prices each protocol (src/graph/tuning.cc): LL at its low latency and half the ring's bus
    bandwidth, Simple at the full rate after a longer latency per ring step, and runs the faster one. Over
    SHM on two GPUs an 8-byte all-reduce is LL's, a 512 KB one (a decode step of 64 sequences of an 8B model
    sends 72 of them) Simple's, which costs more than LL's latency at Simple's bandwidth would say."""
    import yaml

    from advisor.base.yamlio import load_file
    from advisor.model.buildfile import build_from_data
    from advisor.model.catalog.store import load_catalog
    from advisor.model.constants import const
    from advisor.model.engine import evaluate
    from advisor.workload.comm import collective
    from advisor.workload.hardware import fabric

    ports = [{"id": f"r{i}", "children": [{"gpu": "RTX 4090"}]} for i in range(2)]
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump({"topology": {"sockets": [{"vendor": "intel", "root_ports": ports}]}}))
    fab = fabric(evaluate(build_from_data(load_file(path), str(path)), load_catalog()), 2)
    assert fab.transport == "SHM"
    W = "workload.yaml"
    small, mid = collective("all-reduce", 8, fab), collective("all-reduce", 512e3, fab)
    assert small.inputs["protocol"] == "LL" and mid.inputs["protocol"] == "Simple"
    ll_alpha = const("nccl_base_latency_us", file=W) + 2 * const("nccl_hop_latency_us", "SHM", file=W)
    simple_alpha = const("nccl_simple_base_latency_us", file=W) + 2 * const(
        "nccl_simple_hop_latency_us", "SHM", file=W
    )
    assert small.value * 1e6 == pytest.approx(ll_alpha + 8 / (0.5 * fab.busbw * 1e3), rel=1e-6)
    assert mid.value * 1e6 == pytest.approx(simple_alpha + 512e3 / (fab.busbw * 1e3), rel=1e-6)
    assert mid.value * 1e6 > ll_alpha + 512e3 / (fab.busbw * 1e3)
    assert (
        "nccl_simple_base_latency_us" in mid.constants
        and "nccl_simple_base_latency_us" not in small.constants
    )
