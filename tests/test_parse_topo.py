"""`nvidia-smi topo -m` reader: real matrices with tabs, spaces, NICs and NVLink."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.measure import Measurement, parse
from tests.mutate import mutated

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "topo"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("topo", read(name), name)


def path(m: Measurement, a: int, b: int) -> str:
    (r,) = m.find("path", a=a, b=b)
    return r.value


def test_tab_separated_matrix_with_nvlink_pairs() -> None:
    m = load("valdemardi_4x3090_nv4_tabs.txt")
    assert path(m, 0, 2) == "NV4" and path(m, 1, 3) == "NV4"
    assert path(m, 0, 1) == "PHB" and path(m, 0, 3) == "NODE" and path(m, 3, 2) == "PHB"
    assert len(m.results) == 12  # 4 x 4 without the X diagonal
    assert [g.numa_node for g in m.machine.gpus] == [0, 0, 0, 0]
    assert all(r.note is None for r in m.results)


def test_two_consumer_gpus_on_one_host_bridge() -> None:
    m = load("club3090_2x5090_phb_tabs.txt")
    assert (path(m, 0, 1), path(m, 1, 0)) == ("PHB", "PHB")


def test_space_separated_matrix_with_nic_rows_and_columns() -> None:
    m = load("stelline_2x6000ada_spaces_nics.txt")
    assert [(r.a, r.b, r.value) for r in m.results] == [(0, 1, "PHB"), (1, 0, "PHB")]
    assert [g.numa_node for g in m.machine.gpus] == [0, 0]


def test_na_numa_affinity_leaves_numa_unknown() -> None:
    m = load("xuesongtap_2x1080ti_spaces_na.txt")
    assert path(m, 0, 1) == "PHB"
    assert [g.numa_node for g in m.machine.gpus] == [None, None]


def test_truncated_row_is_refused_with_line_and_counts() -> None:
    with pytest.raises(UserError) as err:
        load("nccl1435_8xH100_nv12_truncated.txt")
    assert str(err.value).startswith(
        "nccl1435_8xH100_nv12_truncated.txt:9: expected 14 cells in the row for GPU7, found 13"
    )


def test_missing_gpu_row_is_refused() -> None:
    text = read("club3090_2x5090_phb_tabs.txt")
    with pytest.raises(UserError, match="2 GPU columns but 1 GPU rows"):
        parse("topo", text.split("GPU1\tPHB")[0], "cut.txt")


def test_shifted_columns_are_refused_not_read_as_paths() -> None:
    text = read("club3090_2x5090_phb_tabs.txt").replace("GPU0\t X \tPHB\t", "GPU0\t X \t", 1)
    with pytest.raises(UserError, match="expected a connection type .* between GPU0 and GPU1, found '0-63'"):
        parse("topo", text, "shifted.txt")


def test_p2p_status_matrix_is_named_as_such() -> None:
    with pytest.raises(UserError, match=r"this is `nvidia-smi topo -p2p` output"):
        load("valdemardi_4x3090_p2p_read.txt")


def test_wrong_tool_and_empty_file() -> None:
    smi = (FIXTURES.parent / "smiq" / "lepton_a10_550_host_max_na.txt").read_text()
    with pytest.raises(UserError, match="it looks like `nvidia-smi -q` output"):
        parse("topo", smi, "q.txt")
    with pytest.raises(UserError, match="the file is empty"):
        parse("topo", "", "empty.txt")


# ----------------------------------------------------------------------------- properties

TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = [
    "X",
    " X ",
    "NV12",
    "PHB",
    "0-23",
    "N/A",
    "",
    "GPU9",
    "NIC0",
    "GPU0",
    "٣",
    "9" * 30,
    "\t",
    "OK",
    "nv4",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("topo", text, "x")
    except UserError:
        return
    assert all(isinstance(r.value, str) and r.value for r in m.results)
    Measurement.model_validate_json(m.to_json())


@pytest.mark.parametrize("tool", ["topo", "auto"])
def test_a_matrix_copied_from_a_terminal_with_its_escape_codes_reads_the_same(tool) -> None:
    # nvidia-smi underlines and colours the matrix on a terminal; a copy keeps the ANSI sequences
    text = read("stelline_2x6000ada_spaces_nics.txt").splitlines()
    head = next(i for i, line in enumerate(text) if line.lstrip().startswith("GPU0"))
    text[head] = "\x1b[4m\x1b[1m" + text[head] + "\x1b[0m"
    text[head + 1] = text[head + 1].replace("PHB", "\x1b[32mPHB\x1b[0m")
    coloured = parse(tool, "\n".join(text) + "\n", "copied.txt")
    assert coloured.results == load("stelline_2x6000ada_spaces_nics.txt").results
