"""Measure a real machine with torch (an optional extra): the runner behind `advisor bench` and the app's
Measure view. The only package that may import torch."""
