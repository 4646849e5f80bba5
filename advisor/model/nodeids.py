"""The ids of the machine graph's nodes, built in one place.

Both builders (lanes.py for catalog boards, tree.py for explicit PCIe trees), the graph queries and
the faces name nodes only through these functions, so an id is never re-derived by string elsewhere.
"""

from __future__ import annotations

ROOT = "cpu0"  # the socket the others hang off in the graph (sockets are joined at cpu0)


def socket(s: int) -> str:
    return f"cpu{s}"


def host_bridge(s: int, bridge: str | None) -> str:
    """A host bridge (PCIe root complex) of socket s; None is the socket's first (the chipset's) bridge."""
    return f"{socket(s)}/hb{bridge or '0'}"


def root_port(bridge_id: str, *names: str) -> str:
    """A root port under a host bridge, named by its lane group and connector (or the tree's port id)."""
    return "/".join((bridge_id, *names))


def chipset(s: int) -> str:
    return f"chipset{s}"


def switch(switch_id: str) -> str:
    return f"switch:{switch_id}"


def device(kind: str, index: int) -> str:
    """A GPU, NVMe drive or NIC: gpu0, nvme1, nic0."""
    return f"{kind}{index}"


def group_parent(
    source: str, socket_index: int, bridge: str | None = None, switch_id: str | None = None
) -> str:
    """The node a board lane group's slots hang under: its host bridge, the chipset, or its switch."""
    if source == "cpu":
        return host_bridge(socket_index, bridge)
    if source == "chipset":
        return chipset(socket_index)
    return switch(switch_id or "")
