"""A build: what the user describes (catalog parts and placements, or an explicit PCIe tree)."""
