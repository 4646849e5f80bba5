"""Reader of NCCL_DEBUG=INFO logs: the transport NCCL chose for each pair, on real logs
from issue threads (tests/fixtures/tools/README.md lists them), and `compare` naming where NCCL's
choice and the plan's differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.base.errors import UserError
from advisor.measure import load, parse

LOGS = Path(__file__).parent / "fixtures" / "tools" / "nccl_log"


def _pairs(m):
    return {(r.a, r.b): r.value for r in m.find("nccl_transport")}


def test_eight_4090s_over_shm():
    m = load(LOGS / "nccltests307_8x4090_shm.txt")
    assert m.source.tool == "nccl-log"
    # the ring 0-1-...-7-0: each hop once, lower GPU first, all staged through host memory
    assert _pairs(m) == {**{(i, i + 1): "SHM" for i in range(7)}, (0, 7): "SHM"}
    assert "via SHM/direct/direct" in m.find("nccl_transport")[0].note


def test_p2p_direct_pointer_and_bus_id_brackets():
    assert set(_pairs(load(LOGS / "nccl1773_8gpu_p2p_level_sys.txt")).values()) == {"P2P"}
    m = load(LOGS / "megatron516_busid_p2p_ipc_read.txt")
    # brackets are bus ids (101c0 ... a01c0): numbered in bus order, as nvidia-smi numbers the GPUs
    assert _pairs(m) == {
        (0, 1): "P2P",
        (1, 2): "P2P",
        (2, 3): "P2P",
        (3, 4): "P2P",
        (4, 5): "P2P",
        (5, 6): "P2P",
    }
    assert "bus id" in m.find("nccl_transport")[0].note


def test_other_nodes_and_slowest_channel():
    text = (
        "h1:1:2 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to PHB\n"
        "h1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
        "h1:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via SHM/direct/direct\n"
        "h1:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0\n"
    )  # a log written here: two channels that disagree, and a hop to another node
    m = parse("auto", text, "x.log")
    (r,) = m.find("nccl_transport")
    assert (r.a, r.b, r.value) == (0, 1, "SHM") and "NCCL_P2P_LEVEL=PHB" in r.note
    with pytest.raises(UserError, match="no 'NCCL INFO Channel"):
        parse("nccl-log", "NCCL INFO Bootstrap : Using eth0\n", "x.log")


def test_rings_and_tree_roots_from_a_two_vm_log():
    """nccl-tests#321 (NCCL 2.26.5, two VMs of 2 H20s): rank 0's rings and each channel's tree root go
    into the notes; the pair inside the first VM is P2P (CUMEM), the hops between VMs are NET."""
    m = load(LOGS / "nccltests321_vm_h20_2x2_rings_trees.txt")
    (r,) = m.find("nccl_transport")
    assert (r.a, r.b, r.value) == (0, 1, "P2P") and "via P2P/CUMEM" in r.note
    assert "rings over 4 channel(s), by rank: 0 3 2 1 | 0 1 2 3" in r.note
    # channel 0's root is rank 1 ("0/3/-1->1->-1"), channel 1's rank 0, 2's rank 3, 3's rank 2
    assert "tree roots by channel: [0] rank 1, [1] rank 0, [2] rank 3, [3] rank 2" in r.note
    assert "NCCL 2.26.5+cuda12.2" in r.note and "NCCL_P2P_LEVEL=NVL" in r.note


def test_nccl_before_2_13_wrote_shm_as_direct_shared_memory():
    """NCCL 2.7-2.12 src/transport/shm.cc: INFO(..., "Channel %02d : %d[%lx] -> %d[%lx] via direct shared
    memory", ...); the line below is that format filled in, with 2.7's tree format (reverse tree after
    "|") beside it."""
    text = (
        "h:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1|-1->0->1/-1/-1 [1] 1/-1/-1->0->-1|-1->0->1/-1/-1\n"
        "h:1:2 [1] NCCL INFO Channel 00 : 1[1a000] -> 2[af000] via direct shared memory\n"
        "h:1:2 [2] NCCL INFO Channel 00 : 2[af000] -> 3[b1000] via P2P/IPC\n"
    )
    m = parse("auto", text, "old.log")
    assert _pairs(m) == {(0, 1): "SHM", (1, 2): "P2P"}
    shm = next(r for r in m.find("nccl_transport") if r.value == "SHM")
    assert "direct shared memory" in shm.note and "tree roots by channel: [0] rank 0, [1] rank 0" in shm.note


def test_compare_names_where_nccl_and_the_plan_differ(cli, write):
    build = write(
        "b.yaml",
        "cpu: Threadripper PRO 7975WX\nboard: WRX90E-SAGE\ngpus: [{model: RTX 6000 Ada, count: 2}]\n",
    )
    # the log is of an 8-GPU machine: its GPU0 and GPU1 are compared as the build's two, said with --gpus
    log = str(LOGS / "nccltests307_8x4090_shm.txt")
    code, out, _ = cli("compare", str(build), log, "--gpus", "0,1", "--json")
    (row,) = [r for r in json.loads(out)["rows"] if r["metric"] == "nccl_transport"]
    assert (row["where"], row["predicted"], row["measured"], row["flagged"]) == (
        "GPU0-GPU1",
        "P2P",
        "SHM",
        True,
    )
    (cause,) = row["causes"]
    assert cause["id"] == "CMP040"
    assert cause["message"].startswith(
        "NCCL used SHM between GPU0 and GPU1, where the plan has P2P on the PHB path"
    )
