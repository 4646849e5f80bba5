"""Measure a real machine with torch (an optional extra): the runner behind `advisor bench` and the app's
Measure view. The only package that may import torch."""


def import_torch():
    """torch, imported without its warning that NumPy is missing (a CPU wheel installed alone has none):
    advisor uses no NumPy, and the warning would land in the middle of a report. ImportError where torch
    is not installed."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
        import torch
    return torch
