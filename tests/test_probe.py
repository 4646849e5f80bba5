"""The NVML probe: a clear answer where there is no NVIDIA driver, and the mapping of NVML's answers."""

from __future__ import annotations

import types

import pytest

from advisor.measure import probe as probe_mod


def test_probe_without_a_driver_says_so(cli):
    pytest.importorskip("pynvml", reason="nvidia-ml-py is the probe's optional extra")
    import pynvml

    try:
        pynvml.nvmlInit()
        pynvml.nvmlShutdown()
        pytest.skip("an NVIDIA driver is present")
    except pynvml.NVMLError:
        pass
    code, _, err = cli("probe")
    assert code == 2 and "NVML is not available" in err


class _FakeNvml(types.SimpleNamespace):
    """Answers in the shapes nvidia-ml-py returns, for two GPUs on one host bridge without P2P."""

    NVMLError = RuntimeError
    NVML_P2P_STATUS_OK = 0
    NVML_P2P_CAPS_INDEX_READ = 0
    NVML_P2P_CAPS_INDEX_WRITE = 1


def _fake():
    nv = _FakeNvml()
    nv.nvmlDeviceGetCount = lambda: 2
    nv.nvmlDeviceGetHandleByIndex = lambda i: i
    nv.nvmlDeviceGetName = lambda h: b"NVIDIA GeForce RTX 4090"
    nv.nvmlDeviceGetPciInfo = lambda h: types.SimpleNamespace(busId=f"00000000:0{h + 1}:00.0".encode())
    nv.nvmlDeviceGetCurrPcieLinkGeneration = lambda h: 1  # idle
    nv.nvmlDeviceGetCurrPcieLinkWidth = lambda h: 8
    nv.nvmlDeviceGetMaxPcieLinkGeneration = lambda h: 4
    nv.nvmlDeviceGetMaxPcieLinkWidth = lambda h: 16
    nv.nvmlDeviceGetNumaNodeId = lambda h: 0
    nv.nvmlDeviceGetP2PStatus = lambda a, b, idx: 5  # NVML_P2P_STATUS_NOT_SUPPORTED
    nv.nvmlDeviceGetTopologyCommonAncestor = lambda a, b: 30  # NVML_TOPOLOGY_HOSTBRIDGE
    nv.nvmlSystemGetDriverVersion = lambda: "575.51.03"
    return nv


def test_probe_maps_nvml_answers_to_measurement_results():
    meas = probe_mod._read(_fake())
    assert [g.bus_id for g in meas.machine.gpus] == ["00000000:01:00.0", "00000000:02:00.0"]
    assert meas.find("link_gen", gpu=0)[0].value == 1 and "idle" in meas.find("link_gen", gpu=0)[0].note
    assert meas.find("link_width_max", gpu=1)[0].value == 16
    assert meas.find("p2p", a=0, b=1)[0].value is False
    assert meas.find("path", a=1, b=0)[0].value == "PHB"
    assert meas.machine.driver == "575.51.03"
