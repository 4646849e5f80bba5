"""Trends the workload model must keep on any build and job (hypothesis): NVLink or P2P never
predicts slower than staged copies, more accumulation never more communication per sample, and a
job that does not fit gets no speed-up."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.yamlio import dumps, loads
from advisor.model.buildfile import build_from_data
from advisor.model.catalog.store import load_catalog
from advisor.workload import Workload, analyse
from advisor.workload.models import INFER_STRATEGIES, TRAIN_STRATEGIES
from advisor.workload.presets import presets

CAT = load_catalog()
P2P_GPUS = sorted(
    g.id for g in CAT.gpus if g.p2p.stock_linux and g.bf16_tflops_dense and g.memory_bandwidth_gbps
)
NVLINK_GPUS = sorted(
    g.id for g in CAT.gpus if g.nvlink.supported and g.bf16_tflops_dense and g.memory_bandwidth_gbps
)
DECODERS = sorted(k for k, p in presets().items() if p.kind == "decoder")
ALL_MODELS = sorted(presets())
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _build(gpu: str, count: int, software: dict, nvlink: list | None = None, switch: bool = True):
    cards = [{"gpu": gpu} for _ in range(count)]
    ports = (
        [{"id": "r0", "children": [{"switch": "sw", "gen": 4, "width": 16, "children": cards}]}]
        if switch
        else [{"id": f"r{i}", "host_bridge": "0", "children": [card]} for i, card in enumerate(cards)]
    )
    data = {"topology": {"sockets": [{"vendor": "intel", "root_ports": ports}]}, "software": software}
    if nvlink:
        data["nvlink"] = nvlink
    return build_from_data(loads(dumps(data)), "prop.yaml")


STAGED = {"cuda_p2p": False, "nccl_p2p_disable": True}

jobs = st.one_of(
    st.builds(
        lambda m, s, b, seq, a: ("train", m, s, b, seq, a),
        st.sampled_from(ALL_MODELS),
        st.sampled_from(TRAIN_STRATEGIES),
        st.sampled_from([1, 2, 4, 8]),
        st.sampled_from([128, 512, 1024]),
        st.sampled_from([1, 2, 4]),
    ),
    st.builds(
        lambda m, s, b, p, g: ("infer", m, s, b, p, g),
        st.sampled_from(DECODERS),
        st.sampled_from(INFER_STRATEGIES),
        st.sampled_from([1, 4, 32]),
        st.sampled_from([128, 1024]),
        st.sampled_from([16, 128]),
    ),
)


def _workload(job, count: int) -> Workload | None:
    task, model, strategy, b, x, y = job
    spec = presets()[model]
    if task == "train":
        if strategy in ("tp", "pp") and not spec.transformer:
            return None
        if strategy == "tp" and spec.heads % count:
            return None
        return Workload("train", spec, strategy, batch=b, seq=x, accum=y, recompute=True)
    if strategy == "tp" and spec.heads % count:
        return None
    if strategy == "ep" and not spec.moe:  # expert parallel is for a mixture of experts only
        return None
    return Workload("infer", spec, strategy, batch=b, prompt=x, gen=y)


def _throughput(build, w):
    a = analyse(build, w, CAT, advise=False)
    return a.many.throughput.value if a.many.fits else None


@SETTINGS
@given(gpu=st.sampled_from(P2P_GPUS), count=st.integers(2, 4), job=jobs)
def test_p2p_is_never_predicted_slower_than_staged(gpu, count, job):
    w = _workload(job, count)
    if w is None:
        return
    fast = _throughput(_build(gpu, count, {}), w)
    slow = _throughput(_build(gpu, count, STAGED), w)
    if fast is not None and slow is not None:
        assert fast >= slow * (1 - 1e-9)


@SETTINGS
@given(gpu=st.sampled_from(NVLINK_GPUS), job=jobs)
def test_nvlink_is_never_predicted_slower_than_staged(gpu, job):
    w = _workload(job, 2)
    if w is None:
        return
    bridged = _throughput(
        _build(gpu, 2, STAGED | {"cuda_p2p": True, "nccl_p2p_disable": False}, [[0, 1]], switch=False), w
    )
    staged = _throughput(_build(gpu, 2, STAGED, switch=False), w)
    if bridged is not None and staged is not None:
        assert bridged >= staged * (1 - 1e-9)


@SETTINGS
@given(
    gpu=st.sampled_from(P2P_GPUS + NVLINK_GPUS),
    count=st.integers(2, 4),
    job=jobs,
    more=st.sampled_from([2, 3, 8]),
    staged=st.booleans(),
)
def test_more_accumulation_never_means_more_communication_per_sample(gpu, count, job, more, staged):
    w = _workload(job, count)
    if w is None or w.task != "train":
        return
    build = _build(gpu, count, STAGED if staged else {})
    few = analyse(build, w, CAT, advise=False).many
    many = analyse(build, w.but(accum=w.accum * more), CAT, advise=False).many
    samples_few = few.throughput.value * few.time.value
    samples_many = many.throughput.value * many.time.value
    assert many.comm_bytes_per_sample <= few.comm_bytes_per_sample * (1 + 1e-9)
    assert many.exposed_comm.value / samples_many <= few.exposed_comm.value / samples_few * (1 + 1e-9) + 1e-15


@SETTINGS
@given(gpu=st.sampled_from(P2P_GPUS + NVLINK_GPUS), count=st.integers(1, 4), job=jobs)
def test_a_job_that_does_not_fit_gets_no_speedup(gpu, count, job):
    w = _workload(job, count)
    if w is None:
        return
    a = analyse(_build(gpu, count, {}), w, CAT, advise=False)
    if not a.one.fits or not a.many.fits:
        assert a.speedup is None and a.efficiency is None
    else:
        assert a.speedup is not None and a.speedup.value > 0


_PAIRS = sorted(
    (c.id, b.id)
    for b in CAT.boards
    for c in CAT.cpus
    if c.socket.lower() == b.socket.lower() and (b.cpu_families is None or c.family in b.cpu_families)
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pair=st.sampled_from(_PAIRS),
    gpu=st.sampled_from(sorted(g.id for g in CAT.gpus)),
    count=st.integers(1, 4),
    job=jobs,
    gpus=st.one_of(st.none(), st.integers(0, 5)),
)
def test_any_catalog_build_and_job_gives_an_answer_or_one_clear_error(pair, gpu, count, job, gpus):
    from advisor.base.errors import UserError
    from advisor.findings.evaluate import evaluate_rules

    w = _workload(job, 1)
    if w is None:
        return
    try:
        build = build_from_data(
            loads(dumps({"cpu": pair[0], "board": pair[1], "gpus": [{"model": gpu, "count": count}]})),
            "fuzz.yaml",
        )
        a = analyse(build, w.but(gpus=gpus), CAT)
    except UserError as exc:
        assert exc.render()
        return
    assert a.bottleneck
    assert a.one.time.value > 0 and a.many.time.value > 0
    assert all(f.message for f in evaluate_rules(a.prediction, workload=a))
