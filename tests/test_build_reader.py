"""Whatever a user writes in a build file, the reader answers with a build or one clear error."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.base.yamlio import dumps, loads
from advisor.model.buildfile import build_from_data
from advisor.model.catalog.store import load_catalog
from advisor.model.engine import evaluate

KEYS = ["cpu", "board", "gpus", "nvme", "nvlink", "topology", "software", "psu_w", "ram_gb", "name", "colour"]
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(KEYS + ["model", "count", "slot", "gpu"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYS), values, max_size=5))
def test_any_build_mapping_gives_a_plan_or_a_user_error(data):
    catalog = load_catalog()
    try:
        build = build_from_data(loads(dumps(data)), "fuzz.yaml")
        evaluate(build, catalog)
    except UserError as exc:
        assert exc.render()


@settings(max_examples=120, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_yaml_or_a_user_error(text):
    try:
        loads(text, "fuzz.yaml")
    except UserError as exc:
        assert "fuzz.yaml" in exc.render()


_CAT = load_catalog()
_CPUS = sorted(c.id for c in _CAT.cpus)
_BOARDS = sorted(b.id for b in _CAT.boards)
_GPUS = sorted(g.id for g in _CAT.gpus)
_SLOTS = sorted({c.name for b in _CAT.boards for c in b.slots + b.m2})


_PAIRS = sorted(
    (c.id, b.id)
    for b in _CAT.boards
    for c in _CAT.cpus
    if c.socket.lower() == b.socket.lower() and (b.cpu_families is None or c.family in b.cpu_families)
)


@settings(max_examples=200, deadline=None)
@given(
    pair=st.sampled_from(_PAIRS),
    gpus=st.lists(
        st.fixed_dictionaries(
            {"model": st.sampled_from(_GPUS), "count": st.integers(1, 4)},
            optional={"slot": st.sampled_from(_SLOTS)},
        ),
        max_size=3,
    ),
    nvme=st.lists(st.fixed_dictionaries({"socket": st.sampled_from(_SLOTS)}), max_size=2),
    bridges=st.lists(st.lists(st.integers(0, 5), min_size=2, max_size=2), max_size=2),
)
def test_any_catalog_combination_plans_or_explains_why_not(pair, gpus, nvme, bridges):
    cpu, board = pair
    data = {"cpu": cpu, "board": board, "gpus": gpus, "nvme": nvme, "nvlink": bridges}
    try:
        pred = evaluate(build_from_data(loads(dumps(data)), "fuzz.yaml"), _CAT)
    except UserError as exc:
        assert exc.render()
        return
    for g in pred.gpus:
        assert g.h2d.value > 0 and g.h2d_all.value <= g.h2d.value + 1e-6
    for p in pred.pairs:
        assert p.uni.value is None or p.uni.value > 0
    from advisor.findings.evaluate import evaluate_rules

    assert all(f.message for f in evaluate_rules(pred))
