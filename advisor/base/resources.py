"""Where the bundled catalog, rules, calibration cases and examples live at run time.

In a wheel they ship inside the package (advisor/_bundled/...); in a source checkout they are the
top-level folders of the repository.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent  # the advisor package


def bundled(name: str) -> Path:
    """Path of a bundled data folder: 'catalog', 'rules', 'calibration' or 'examples'."""
    inside = _PKG / "_bundled" / name
    if inside.is_dir():
        return inside
    return _PKG.parent / name
