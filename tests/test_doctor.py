"""`advisor doctor` on recorded files: a real linux-hardware.org `lspci -vvv` of a
WRX90E-SAGE with two RTX 6000 Ada-class GPUs (tests/fixtures/doctor/README.md), as recorded and with
faults planted in a sysfs tree and a kernel command line built here. Never needs a GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from advisor.measure.doctor import check, read_lspci, read_sysfs
from tests.conftest import ROOT

DUMP = Path(__file__).parent / "fixtures" / "doctor" / "lspci" / "wrx90e-sage-1224bc75f732.txt"
GPU0, GPU1 = "0000:c1:00.0", "0000:e1:00.0"


def _doctor(cli, *args) -> tuple[int, dict]:
    code, out, err = cli("doctor", "--lspci", str(DUMP), *args, "--json")
    assert code in (0, 1), err
    return code, json.loads(out)


def _ids(report: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for f in report["findings"]:
        found.setdefault(f["id"], []).append(f)
    return found


def test_the_recorded_dump_shows_its_own_faults(cli):
    code, r = _doctor(cli)
    assert code == 1  # warnings found
    assert [g["bus_id"] for g in r["gpus"]] == [GPU0, GPU1]
    assert r["gpus"][0]["path"] == ["0000:c0:01.1"] and r["gpus"][1]["path"] == ["0000:e0:03.1"]
    found = _ids(r)
    # GPU1 trained x8 of x16 (its root port e0:03.1 is x8): a width fault, said once (not again as a
    # narrower path)
    (width,) = [f for f in found["DOC001"] if f["severity"] == "warning"]
    assert width["subject"] == f"GPU1 {GPU1}" and "links at x8, not the x16 it can" in width["message"]
    assert "DOC002" not in found
    # both GPUs idle at Gen1: said to be idle readings, not faults
    idle = [f for f in found["DOC001"] if f["severity"] == "info"]
    assert len(idle) == 2 and all("read idle" in f["message"] for f in idle)
    # BAR1 of 256 MiB on both: large BAR off
    assert len(found["DOC004"]) == 2 and "large (Resizable) BAR is off" in found["DOC004"][0]["message"]
    # ACS redirect on the two root ports above the GPUs (ACSCtl ReqRedir+ in the dump)
    (acs,) = found["DOC006"]
    assert "0000:c0:01.1, 0000:e0:03.1" in acs["message"] and "setpci" in acs["fix"]
    assert any("troubleshooting" in s for s in acs["sources"])
    # nothing read that would tell the IOMMU mode, AER counters or NUMA
    assert not {"DOC003", "DOC005", "DOC007"} & set(found)


def _plant(root: Path) -> None:
    """A sysfs tree for the same machine with three faults: correctable link errors on GPU1, GPU0 on NUMA
    node 1 while the job runs on node 0's CPUs, and IOMMU units present."""
    devs = root / "sys" / "bus" / "pci" / "devices"
    for bdf, numa in ((GPU0, "1"), (GPU1, "0")):
        d = devs / bdf
        d.mkdir(parents=True)
        (d / "numa_node").write_text(numa + "\n")
        (d / "class").write_text("0x030000\n")
        (d / "vendor").write_text("0x10de\n")
    (devs / GPU1 / "aer_dev_correctable").write_text(
        "RxErr 12\nBadTLP 3\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\n"
        "TOTAL_ERR_COR 15\n"
    )
    nodes = root / "sys" / "devices" / "system" / "node"
    for n, cpus in (("node0", "0-15"), ("node1", "16-31")):
        (nodes / n).mkdir(parents=True)
        (nodes / n / "cpulist").write_text(cpus + "\n")
    (root / "sys" / "class" / "iommu" / "ivhd0").mkdir(parents=True)


def test_planted_faults_are_each_reported_with_their_fix(cli, tmp_path):
    _plant(tmp_path)
    cmdline = tmp_path / "cmdline"
    cmdline.write_text("BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic root=UUID=x ro quiet splash\n")
    code, r = _doctor(cli, "--sysfs", str(tmp_path), "--cmdline", str(cmdline), "--cpus", "0-15")
    found = _ids(r)
    (aer,) = found["DOC003"]
    assert aer["subject"] == f"GPU1 {GPU1}" and "15 correctable errors counted" in aer["message"]
    assert "riser" in aer["fix"] and f"/sys/bus/pci/devices/{GPU1}/aer_dev_correctable" in aer["fix"]
    (numa,) = found["DOC007"]
    assert numa["subject"] == f"GPU0 {GPU0}" and "NUMA node 1" in numa["message"]
    assert "numactl --cpunodebind=1 --membind=1" in numa["fix"]
    (iommu,) = found["DOC005"]
    assert "lists IOMMU units and the command line sets no passthrough" in iommu["message"]
    assert "iommu=pt" in iommu["fix"]
    # the faults the dump itself shows are still there
    assert {"DOC001", "DOC004", "DOC006"} <= set(found)
    # with iommu=pt the IOMMU finding goes
    cmdline.write_text("BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro amd_iommu=on iommu=pt\n")
    _, r = _doctor(cli, "--sysfs", str(tmp_path), "--cmdline", str(cmdline), "--cpus", "0-15")
    assert "DOC005" not in _ids(r)


def test_a_gpu_behind_the_chipset_and_a_narrow_uplink(tmp_path):
    """An Intel desktop's chipset root port (00:1c.4, a PCH port) with an x4 link, a GPU below it (lines
    written here in lspci's format): DOC008 and DOC002."""
    text = (
        "00:1c.4 PCI bridge [0604]: Intel Corporation Raptor Lake PCI Express Root Port #5 [8086:7a3c] (rev 11)\n"
        "\tBus: primary=00, secondary=05, subordinate=05, sec-latency=0\n"
        "\t\tLnkCap:\tPort #5, Speed 16GT/s, Width x4, ASPM L1\n"
        "\t\tLnkSta:\tSpeed 16GT/s (ok), Width x4 (ok)\n"
        "05:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n"
        "\t\tLnkSta:\tSpeed 16GT/s (ok), Width x4 (downgraded)\n"
    )
    devs = read_lspci(text)
    assert devs["0000:05:00.0"].parent == "0000:00:1c.4"
    _, findings = check(devs, None, None, "read under load", None)
    ids = {f.id for f in findings}
    assert {"DOC001", "DOC008"} <= ids
    (chipset,) = [f for f in findings if f.id == "DOC008"]
    assert "hangs off the chipset (0000:00:1c.4" in chipset.message


def test_sysfs_alone_reads_links_and_finds_the_gpus(tmp_path):
    _plant(tmp_path)
    for bdf, now, top in (
        (GPU0, "2.5 GT/s PCIe", "16.0 GT/s PCIe"),
        (GPU1, "16.0 GT/s PCIe", "16.0 GT/s PCIe"),
    ):
        d = tmp_path / "sys" / "bus" / "pci" / "devices" / bdf
        (d / "current_link_speed").write_text(now + "\n")
        (d / "max_link_speed").write_text(top + "\n")
        (d / "current_link_width").write_text("16\n")
        (d / "max_link_width").write_text("16\n")
    devs: dict = {}
    read = read_sysfs(tmp_path, devs)
    assert read == [f"{tmp_path}/sys/bus/pci/devices: 2 devices"]
    assert devs[GPU0].is_gpu and devs[GPU0].sta == (1, 16) and devs[GPU0].cap == (4, 16)
    assert devs[GPU1].aer_counts == {"correctable": 15}


def test_bad_cpu_list_is_a_clear_error(cli):
    code, _, err = cli("doctor", "--lspci", str(DUMP), "--cpus", "0-x")
    assert code == 2 and "--cpus '0-x'" in err and "Traceback" not in err


def test_doctor_on_this_machine_runs_read_only_and_says_what_it_read():
    """As a user runs it, in a real process. Where this machine has no NVIDIA GPU (CI, this project's
    machines) nothing can be checked, and that is said, never 'No problem found', with exit 2; on a GPU
    machine the GPUs are checked (exit 0 or 1)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "advisor", "doctor", "--no-load", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    r = json.loads(done.stdout)
    assert any(line.startswith("kernel command line") for line in r["read"])
    if r["gpus"]:
        assert done.returncode in (0, 1), done.stderr
        assert r["nothing_to_check"] is None
        return
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert r["findings"] == [] and r["nothing_to_check"].startswith("Nothing to check: no NVIDIA GPU found")
    assert "advisor: error: Nothing to check" in done.stderr and "nvidia-smi" in done.stderr
    text = subprocess.run(
        [sys.executable, "-m", "advisor", "doctor", "--no-load"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert text.returncode == 2 and "No problem found" not in text.stdout + text.stderr
    assert "no NVIDIA GPU found in what was read" in text.stdout  # the read: lines say what was looked at


def test_recorded_files_without_a_gpu_are_nothing_to_check(cli, tmp_path):
    """An ACSCtl grep (real, bridges only) and a sysfs tree of a machine without an NVIDIA device: every
    check is about the GPUs, so the doctor says nothing was checked and what to give it, exit 2."""
    acs = ROOT / "tests" / "fixtures" / "tools" / "lspci" / "nccl1405_grep_acsctl_all_off.txt"
    code, out, err = cli("doctor", "--lspci", str(acs))
    assert code == 2 and "No problem found" not in out
    assert "Nothing to check: no NVIDIA GPU in the files given (--lspci:" in err
    assert "whole `sudo lspci -vvv`" in err
    base = tmp_path / "sys" / "bus" / "pci" / "devices"
    for bdf, cls, vendor in (("0000:00:00.0", "0x060000", "0x8086"), ("0000:00:02.0", "0x030000", "0x8086")):
        (base / bdf).mkdir(parents=True)
        (base / bdf / "class").write_text(cls + "\n")
        (base / bdf / "vendor").write_text(vendor + "\n")
    code, out, err = cli("doctor", "--sysfs", str(tmp_path), "--json")
    r = json.loads(out)
    assert code == 2 and r["gpus"] == [] and r["findings"] == []
    assert "(--sysfs: 2 PCI device(s) read, none of them an NVIDIA GPU)" in r["nothing_to_check"]
    assert r["nothing_to_check"] in err


def test_the_load_step_says_why_it_could_not_load_the_gpus():
    """On a machine without a CUDA GPU (CI: torch's CPU build) the links are read idle, and the report
    says so; a loader that works is called back while the GPUs are busy."""
    from advisor.bench.load import load_gpus
    from advisor.measure.doctor import diagnose

    text = DUMP.read_text()
    r = diagnose(text, None, None, live=True, load=True, lspci_note="lspci", loader=load_gpus)
    assert any(line.startswith("links read idle: torch") for line in r.read)
    calls = []

    def fake(reread):
        calls.append(reread())
        return "read while a fake load ran"

    r = diagnose(text, None, None, live=True, load=True, lspci_note="lspci", loader=fake)
    assert calls and "links read while a fake load ran" in r.read
    # read under load, a Gen1 link is a fault, not an idle reading
    gen = [f for f in r.findings if f.id == "DOC001" and "under load" in f.message]
    assert len(gen) == 2 and all(f.severity == "warning" for f in gen)


def test_doctor_on_a_live_machine_loads_its_gpus_through_torch(cli, tmp_path, monkeypatch):
    """`advisor doctor` on the machine itself hands the loader to the check: with an lspci that shows two
    GPUs, it tries torch (CI: the CPU build, or no torch) and says why the links were read idle; with
    --no-load it does not try."""
    fake = tmp_path / "bin" / "lspci"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ncat '{DUMP}'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    code, out, err = cli("doctor", "--json")
    assert code in (0, 1), err
    read = json.loads(out)["read"]
    assert any(line.startswith("links read idle: torch") for line in read), read
    code, out, err = cli("doctor", "--json", "--no-load")
    assert not any(line.startswith("links read") for line in json.loads(out)["read"])


def test_a_healthy_desktop_dump_stays_quiet(cli):
    """The quiet twin, also real: one RTX 6000 Ada-class GPU on a ProArt Z790-Creator's CPU x16 port with
    Resizable BAR on (BAR1 64 GiB): no width, BAR or chipset fault, and ACS is not a question with one GPU."""
    z790 = DUMP.parent / "proart-z790-a02b3e3c9146.txt"
    code, out, err = cli("doctor", "--lspci", str(z790), "--json")
    r = json.loads(out)
    assert code == 0, err
    (gpu,) = r["gpus"]
    assert gpu["bus_id"] == "0000:01:00.0" and gpu["bar1_mib"] == 65536 and gpu["link_max"] == [4, 16]
    assert [f["id"] for f in r["findings"]] == ["DOC001"]  # the idle Gen1 reading, said to be one
    assert r["findings"][0]["severity"] == "info"


def test_nvml_names_the_gpus_and_gives_their_memory_and_bar1(monkeypatch):
    """With nvidia-ml-py on a machine with a driver, doctor reads each GPU's name, memory and BAR1 through
    NVML; here a stand-in module answers as NVML does for one 48 GB card with a 32 GB BAR1."""
    import sys
    import types

    from advisor.measure.doctor import diagnose

    fake = types.ModuleType("pynvml")
    fake.nvmlInit = lambda: None
    fake.nvmlShutdown = lambda: None
    fake.nvmlDeviceGetCount = lambda: 1
    fake.nvmlDeviceGetHandleByIndex = lambda i: i
    fake.nvmlDeviceGetPciInfo = lambda h: types.SimpleNamespace(busId=b"00000000:C1:00.0")
    fake.nvmlDeviceGetName = lambda h: b"NVIDIA RTX 6000 Ada Generation"
    fake.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(total=48 << 30)
    fake.nvmlDeviceGetBAR1MemoryInfo = lambda h: types.SimpleNamespace(bar1Total=32 << 30)
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    r = diagnose(DUMP.read_text(), None, None, live=True, load=False, lspci_note="lspci")
    assert "NVML: 1 GPU(s)" in r.read
    g0 = next(g for g in r.gpus if g["bus_id"] == GPU0)
    assert g0["name"] == "NVIDIA RTX 6000 Ada Generation" and g0["bar1_mib"] == 32768
    # a BAR1 smaller than the memory, though not the 256 MiB of large BAR off
    (small,) = [f for f in r.findings if f.id == "DOC004" and f.subject.endswith(GPU0)]
    assert small.severity == "info" and "smaller than its 49152 MiB" in small.message


def test_a_virtual_machine_guest_is_named_with_the_clique_fix(cli, tmp_path):
    """The recorded dump with its first host bridge planted as QEMU's q35 one ([8086:29c0], what a guest
    shows; club-3090's PCIE_P2P.md): DOC009 says P2P is refused there and gives the clique fix; the dump
    as recorded (bare metal) stays without it."""
    text = DUMP.read_text()
    first = text.splitlines()[0]
    assert first.startswith("00:00.0 Host bridge [0600]:")
    guest = tmp_path / "guest-lspci.txt"
    guest.write_text(
        text.replace(
            first,
            "00:00.0 Host bridge [0600]: Intel Corporation 82G33/G31/P35/P31 Express DRAM Controller [8086:29c0]",
            1,
        )
    )
    code, out, err = cli("doctor", "--lspci", str(guest), "--json")
    assert code == 1, err
    (vm,) = _ids(json.loads(out))["DOC009"]
    assert "virtual machine" in vm["message"] and "CNS" in vm["message"]
    assert "x-nv-gpudirect-clique=0" in vm["fix"] and "NCCL_P2P_DISABLE=1" in vm["fix"]
    _, bare = _doctor(cli)
    assert "DOC009" not in _ids(bare)


def test_doctor_and_the_lspci_reader_read_each_gpu_the_same():
    """One lspci reader: `advisor doctor` builds its devices on the one `advisor import` uses, so each
    NVIDIA GPU's link (now and at most) and BAR1 read the same by both, on every recorded dump."""
    from advisor.measure.parsers.lspci import parse

    dumps = sorted((ROOT / "tests" / "fixtures" / "doctor" / "lspci").glob("*.txt"))
    dumps += [ROOT / "tests" / "fixtures" / "tools" / "lspci" / "stelline_2x6000ada_downgraded_plus_raid.txt"]
    compared = 0
    for path in dumps:
        text = path.read_text()
        m = parse(text, str(path))
        devs = read_lspci(text)
        for info in m.machine.gpus:
            d = devs[info.bus_id]
            assert d.is_gpu, path.name
            assert d.sta == (info.pcie_gen_current, info.pcie_width_current), (path.name, info.bus_id)
            assert d.cap == (info.pcie_gen_max, info.pcie_width_max), (path.name, info.bus_id)
            bar1 = [r.value for r in m.results if r.metric == "bar1_mb" and r.gpu == info.index]
            assert [d.bar1_mb] == bar1, (path.name, info.bus_id)
            compared += 1
    assert compared >= 5  # the WRX90E's two GPUs, the ProArt's one, the Stelline box's two
