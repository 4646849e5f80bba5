"""Measure a real machine with torch (an optional extra). Imported only by `advisor bench`."""
