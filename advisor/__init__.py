"""advisor: a hardware configuration advisor for multi-GPU deep-learning machines.

The core (catalog -> build -> lane model and graph -> predictions -> findings) imports neither
textual nor torch; the CLI, the TUI and the bench are faces over it.
"""

from __future__ import annotations

__version__ = "0.1.0"
