"""Reader of NCCL's debug log (`NCCL_DEBUG=INFO`): the transport NCCL chose for each GPU pair.

NCCL prints one line per channel and peer when it connects, e.g.

    node031:1936469:1936513 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct
    10-4-3-3:97095:97196 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer
    <host>:919:1150 [0] NCCL INFO Channel 01/0 : 8[0] -> 15[7] via P2P/IPC/read
    09677202c889:5278:5702 [3] NCCL INFO Channel 12/0 : 3[201d0] -> 2[201c0] via P2P/IPC/read

`rank[dev]`: newer NCCL writes the CUDA device in brackets, older NCCL the PCI bus id (201d0 = bus
0x20, device 0x1d): those are numbered in bus order, as nvidia-smi numbers the GPUs. Each pair becomes a
`nccl_transport` result for the pair, lower GPU first (P2P or SHM, with NCCL's own words in the note);
a pair whose channels disagree keeps the slowest (SHM before P2P). Lines `[send] via NET/...` connect to another node and are
left out of the pairs. NCCL's version and the P2P settings it was told (`NCCL_P2P_LEVEL set by
environment to ...`, `NCCL_P2P_DISABLE`) go into the notes, and so do the rings rank 0 prints
(`Channel 00/04 :    0   1   2   3`, by rank) and each channel's tree root (`Trees [0] 1/-1/-1->0->-1`:
the rank whose parent is -1). NCCL up to 2.12 wrote SHM as "via direct shared memory".
"""

from __future__ import annotations

import re

from advisor.measure.models import Machine, Measurement, Result, Source
from advisor.measure.parsers._common import check_not_empty, fail, numbered_lines

TOOL = "nccl-log"
_CHANNEL = re.compile(
    r"^(?P<host>[^\s:]+):\d+:\d+ \[\d+\] NCCL INFO Channel \d+(?:/\d+)? : "
    r"(?P<ra>\d+)\[(?P<da>[0-9a-fA-F]+)\] -> (?P<rb>\d+)\[(?P<db>[0-9a-fA-F]+)\]"
    r"(?P<send> \[(?:send|receive)\])? via (?P<via>[A-Za-z0-9_/ ]+?)\s*$"
)
_VERSION = re.compile(r"NCCL version ([0-9][0-9.]*[0-9](?:\+\S+)?)")
# rank 0 prints each ring once it is built (src/graph/rings.cc): "Channel 00/04 :    0   1   2   3"
_RING = re.compile(r"NCCL INFO Channel (?P<c>\d+)/(?P<n>\d+) :(?P<ranks>(?:\s+\d+)+)\s*$")
# every rank prints its place in each channel's tree (src/init.cc): "Trees [0] 1/-1/-1->0->-1 [1] ...";
# NCCL 2.7 appended the reverse tree after "|"
_TREES = re.compile(r"NCCL INFO Trees(?P<trees>(?: \[\d+\] -?\d+/-?\d+/-?\d+->\d+->-?\d+(?:\|\S+)?)+)")
_TREE = re.compile(r"\[(?P<c>\d+)\] (?P<down>-?\d+/-?\d+/-?\d+)->(?P<rank>\d+)->(?P<up>-?\d+)")
# NCCL up to 2.12 wrote its SHM transport as "via direct shared memory" (src/transport/shm.cc)
_OLD_SHM = "direct shared memory"

_ENV = re.compile(r"NCCL INFO (NCCL_[A-Z0-9_]+) set by environment to (\S+)")
_RANK_ORDER = {"SHM": 0, "NET": 0, "P2P": 1}


def parse(text: str, filename: str) -> Measurement:
    check_not_empty(text, filename, "an NCCL debug log")
    pairs: dict[tuple[int, int], tuple[str, str, int]] = {}  # (a, b) -> (transport, NCCL's words, line)
    busids: dict[str, set[str]] = {}
    raw: list[tuple[str, str, str, str, int]] = []
    version = None
    env: dict[str, str] = {}
    hosts: list[str] = []
    rings: dict[int, str] = {}
    roots: dict[int, int] = {}
    for line in numbered_lines(text):
        s = line.text.strip()
        if version is None and (v := _VERSION.search(s)):
            version = v.group(1)
        if r := _RING.search(s):
            rings.setdefault(int(r.group("c")), " ".join(r.group("ranks").split()))
            continue
        if t := _TREES.search(s):
            for node in _TREE.finditer(t.group("trees")):
                if node.group("up") == "-1":
                    roots.setdefault(int(node.group("c")), int(node.group("rank")))
            continue
        if e := _ENV.search(s):
            env[e.group(1)] = e.group(2)
        m = _CHANNEL.match(s)
        if not m:
            continue
        via = m.group("via").strip()
        if via == _OLD_SHM:
            via = "SHM/direct shared memory"
        if m.group("send") or via.startswith("NET"):
            continue  # another node
        if m.group("host") not in hosts:
            hosts.append(m.group("host"))
        if m.group("host") != hosts[0]:
            continue  # one machine's pairs: the first host's
        raw.append((m.group("da"), m.group("db"), via, m.group("ra") + "->" + m.group("rb"), line.number))
        busids.setdefault(m.group("host"), set()).update((m.group("da"), m.group("db")))
    if not raw:
        raise fail(
            filename,
            "no 'NCCL INFO Channel NN : a[x] -> b[y] via ...' lines: not an NCCL_DEBUG=INFO log, or one cut "
            "before the channels connect",
            hint="run the job with NCCL_DEBUG=INFO and save its whole output (2>&1)",
        )
    # newer NCCL: the CUDA device (0-63); older: the PCI bus id, numbered in bus order
    ids = sorted({x for a, b, *_ in raw for x in (a, b)}, key=lambda x: int(x, 16))
    by_bus = any(len(x) >= 4 for x in ids)
    index = {x: i for i, x in enumerate(ids)} if by_bus else {x: int(x) for x in ids}
    for a, b, via, _ranks, number in raw:
        key = tuple(sorted((index[a], index[b])))  # a pair's transport, whichever way the channel runs
        kind = via.split("/")[0]
        if kind not in _RANK_ORDER:
            continue
        old = pairs.get(key)
        if old is None or _RANK_ORDER[kind] < _RANK_ORDER[old[0]]:
            pairs[key] = (kind, via, number)
    notes = []
    if version:
        notes.append(f"NCCL {version}")
    notes += [f"{k}={v} (set by environment)" for k, v in sorted(env.items())]
    if by_bus:
        notes.append("GPUs numbered by PCI bus id (older NCCL logs write the bus id in brackets)")
    if rings:
        orders = list(dict.fromkeys(rings[c] for c in sorted(rings)))
        notes.append(f"rings over {len(rings)} channel(s), by rank: " + " | ".join(orders))
    if roots:
        notes.append(
            "tree roots by channel: " + ", ".join(f"[{c}] rank {r}" for c, r in sorted(roots.items()))
        )
    results = [
        Result(
            metric="nccl_transport",
            a=a,
            b=b,
            value=kind,
            tool=TOOL,
            note="; ".join([f"line {number}: via {via}", *notes]),
        )
        for (a, b), (kind, via, number) in sorted(pairs.items())
    ]
    return Measurement(
        source=Source(tool=TOOL, file=filename, tool_version=version), machine=Machine(), results=results
    )
