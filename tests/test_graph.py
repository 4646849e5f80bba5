"""The machine graph (advisor/model/graph.py) is a small graph of its own, so the core starts without
importing networkx; these tests hold it to networkx's behaviour on real builds: the same nodes, edges
and attributes, the same depth-first order (the order NCCL-like rings are built in), and a PCIe
fabric that is a tree."""

from __future__ import annotations

import networkx as nx
import pytest
import yaml

from advisor.base.yamlio import loads
from advisor.model import nodeids as ids
from advisor.model.buildfile import build_from_data, load_build
from advisor.model.engine import evaluate
from advisor.model.graph import NoPath, build_graph, pcie_path
from tests.conftest import ROOT

BUILDS = sorted((ROOT / "tests" / "fixtures" / "builds").glob("*.yaml")) + sorted(
    (ROOT / "examples").glob("*.yaml")
)


MORE = {
    "strix-z790e-chipset": {
        "cpu": "i9-14900K",
        "board": "ROG Strix Z790-E",
        "gpus": [{"model": "RTX 4090", "count": 2}],
    },
    "wrx90-4x6000ada": {
        "cpu": "Threadripper PRO 7985WX",
        "board": "Pro WS WRX90E-SAGE SE",
        "gpus": [{"model": "RTX 6000 Ada", "count": 4}],
    },
    "nvlink-3090s": {
        "nvlink": [[0, 1]],
        "topology": {
            "sockets": [
                {
                    "vendor": "intel",
                    "root_ports": [
                        {"id": "a", "children": [{"gpu": "RTX 3090"}]},
                        {"id": "b", "children": [{"gpu": "RTX 3090"}]},
                    ],
                }
            ]
        },
    },
    "two-sockets-with-switches": {
        "topology": {
            "sockets": [
                {
                    "vendor": "amd",
                    "root_ports": [
                        {
                            "id": "s0",
                            "children": [
                                {
                                    "switch": "sw0",
                                    "gen": 4,
                                    "width": 16,
                                    "children": [{"gpu": "RTX 6000 Ada"}, {"gpu": "RTX 6000 Ada"}],
                                }
                            ],
                        }
                    ],
                },
                {"vendor": "amd", "root_ports": [{"id": "s1", "children": [{"gpu": "RTX 6000 Ada"}]}]},
            ]
        },
    },
}


def _graphs():
    for path in BUILDS:
        yield path.name, evaluate(load_build(path))
    for name, data in MORE.items():
        yield name, evaluate(build_from_data(loads(yaml.safe_dump(data)), name))


CASES = list(_graphs())


def test_there_are_builds_to_check():
    assert len(CASES) >= 5
    assert any(len(p.machine.gpus) >= 4 for _, p in CASES)
    assert any(p.machine.sockets == 2 for _, p in CASES)


@pytest.mark.parametrize("name,pred", CASES, ids=[c[0] for c in CASES])
def test_graph_agrees_with_networkx(name, pred):
    g = build_graph(pred.machine)
    ng = g.to_networkx()
    assert list(ng.nodes) == list(g.nodes)
    assert {n: dict(a) for n, a in ng.nodes(data=True)} == g.nodes
    assert sorted(tuple(sorted((u, v))) for u, v in ng.edges) == sorted(
        tuple(sorted((u, v))) for u, v, _ in g.edges(data=True)
    )
    for u, v, attrs in g.edges(data=True):
        assert ng.edges[u, v] == attrs == g.edges[v, u]
        assert g.has_edge(v, u)
    if ids.ROOT in g:
        assert list(g.dfs_preorder(ids.ROOT)) == list(nx.dfs_preorder_nodes(ng, ids.ROOT))
    # the PCIe fabric (NVLink bridges aside) is one tree
    pcie = nx.Graph((u, v) for u, v, a in g.edges(data=True) if a["kind"] != "nvlink")
    pcie.add_nodes_from(g.nodes)
    assert nx.is_tree(pcie)
    # and the parent-map route is networkx's shortest path on it
    gpus = [n.id for n in pred.machine.gpus]
    for a in gpus:
        for b in gpus:
            if a != b:
                assert pcie_path(g, a, b) == nx.shortest_path(pcie, a, b)


def test_unjoined_nodes_have_no_path():
    _, pred = CASES[0]
    g = build_graph(pred.machine)
    g.add_node("stray", kind="gpu", socket=0, label="stray")
    with pytest.raises(NoPath):
        pcie_path(g, "stray", next(iter(g.nodes)))
