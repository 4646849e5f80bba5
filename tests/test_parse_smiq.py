"""`nvidia-smi -q` reader: real text reports of three driver generations, and `-q -x` XML."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.errors import UserError
from advisor.measure import Measurement, parse
from tests.mutate import mutated

FIXTURES = Path(__file__).parent / "fixtures" / "tools" / "smiq"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def load(name: str) -> Measurement:
    return parse("smi-q", read(name), name)


def value(m: Measurement, metric: str, label: str, gpu: int = 0):
    found = [r for r in m.find(metric, gpu=gpu) if r.note.startswith(label + ":")]
    assert len(found) <= 1, found
    return found[0].value if found else None


def test_idle_gen1_with_device_and_host_lines_and_host_max_na() -> None:
    m = load("lepton_a10_550_host_max_na.txt")
    assert value(m, "link_gen", "Current") == 1
    assert value(m, "link_gen", "Device Current") == 1
    assert value(m, "link_gen_max", "Max") == 4
    assert value(m, "link_gen_max", "Device Max") == 4
    assert value(m, "link_gen_max", "Host Max") is None  # printed as N/A
    assert (value(m, "link_width", "Current"), value(m, "link_width_max", "Max")) == (16, 16)
    assert "read it under load" in m.find("link_gen", gpu=0)[0].note
    gpu = m.machine.gpus[0]
    assert (gpu.name, gpu.bus_id, gpu.pcie_gen_current, gpu.pcie_gen_max) == (
        "NVIDIA A10",
        "0000:06:00.0",
        1,
        4,
    )
    assert (m.machine.driver, m.machine.cuda) == ("550.127.05", "12.4")


def test_x8_laptop_gpu_with_all_five_generation_lines() -> None:
    m = load("jesse_rtx4070laptop_566_windows.txt")
    assert value(m, "link_gen_max", "Host Max") == 4
    assert value(m, "link_width", "Current") == 8
    assert m.machine.gpus[0].pcie_width_max == 8


def test_old_format_without_device_lines() -> None:
    m = load("microway_v100_410_old_format_excerpt.txt")
    assert (value(m, "link_gen", "Current"), value(m, "link_gen_max", "Max")) == (3, 3)
    assert value(m, "link_gen_max", "Device Max") is None
    assert len(m.results) == 5
    (bar1,) = m.find("bar1_mb")  # "BAR1 Memory Usage / Total : 32768 MiB"
    assert (bar1.gpu, bar1.value) == (0, 32768)
    assert "says 4 GPUs are attached but lists 1" in m.results[0].note
    assert m.machine.driver == "410.48"


def test_xml_report_with_doctype() -> None:
    m = load("checkmk_a100_mig_535.xml")
    assert (value(m, "link_gen", "Current"), value(m, "link_gen_max", "Host Max")) == (4, 4)
    assert value(m, "link_width_max", "Max") == 16
    gpu = m.machine.gpus[0]
    assert (gpu.name, gpu.bus_id) == ("NVIDIA A100-SXM4-80GB", "0000:01:00.0")
    assert (m.machine.driver, m.machine.cuda) == ("535.54.03", "12.2")


def test_xml_with_entities_or_internal_dtd_is_refused() -> None:
    laughs = (
        '<?xml version="1.0"?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<nvidia_smi_log><driver_version>&b;</driver_version>'
        "</nvidia_smi_log>"
    )
    with pytest.raises(UserError, match="refused for safety"):
        parse("smi-q", laughs, "laughs.xml")
    external = '<?xml version="1.0"?>\n<!DOCTYPE x SYSTEM "file:///etc/passwd">\n<x/>'
    with pytest.raises(UserError, match="refused for safety"):
        parse("smi-q", external, "external.xml")


def test_truncated_xml_names_the_line() -> None:
    text = read("checkmk_a100_mig_535.xml")
    cut = text[: text.index("<max_link_width>")]
    with pytest.raises(UserError) as err:
        parse("smi-q", cut, "cut.xml")
    assert "cut.xml:" in str(err.value) and "not well-formed XML" in str(err.value)


def test_unreadable_generation_and_empty_value_name_the_line() -> None:
    text = read("lepton_a10_550_host_max_na.txt").replace(
        "Device Max                : 4", "Device Max                : four"
    )
    with pytest.raises(UserError) as err:
        parse("smi-q", text, "q.txt")
    assert str(err.value).startswith(
        "q.txt:71: expected a PCIe generation for PCIe Generation Device Max, found 'four'"
    )
    text = read("lepton_a10_550_host_max_na.txt").replace(
        "Max                       : 16x", "Max                       :"
    )
    with pytest.raises(UserError, match=r"q.txt:74: expected a value after 'Max :' in Link Width"):
        parse("smi-q", text, "q.txt")


def test_report_without_link_info_says_what_to_run() -> None:
    partial = (
        "\n==============NVSMI LOG==============\n\nAttached GPUs : 1\nGPU 00000000:01:00.0\n"
        "    FB Memory Usage\n        Total : 8188 MiB\n"
    )
    with pytest.raises(UserError, match="no 'GPU Link Info'.*without -d"):
        parse("smi-q", partial, "mem.txt")


def test_wrong_tool_and_empty_file() -> None:
    lspci = (FIXTURES.parent / "lspci" / "stelline_2x6000ada_downgraded_plus_raid.txt").read_text()
    with pytest.raises(UserError, match="it looks like `lspci -vv` output"):
        parse("smi-q", lspci, "lspci.txt")
    with pytest.raises(UserError, match="the file is empty"):
        parse("smi-q", "", "empty.txt")
    with pytest.raises(UserError, match="its root element is <html>, not <nvidia_smi_log>"):
        parse("smi-q", "<html><body/></html>", "page.html")


# ----------------------------------------------------------------------------- properties

TEXTS = [read(p.name) for p in sorted(FIXTURES.iterdir())]
NASTY = [
    "nan",
    "0",
    "99",
    "16x",
    "x",
    "N/A",
    "",
    "٣",
    "9" * 30,
    ":",
    "GPU 00000000:02:00.0",
    "PCI",
    "GPU Link Info",
    "<",
    ">",
    "&",
    "</pci>",
    "<!ENTITY",
    "]>",
    "Max :",
    "4x4",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), mutated(TEXTS, NASTY), st.text().map(lambda t: "<" + t)))
def test_any_text_gives_a_measurement_or_a_user_error(text: str) -> None:
    try:
        m = parse("smi-q", text, "x")
    except UserError:
        return
    assert all(isinstance(r.value, int) and not math.isnan(r.value) for r in m.results)
    Measurement.model_validate_json(m.to_json())
