"""Load every GPU briefly so that `advisor doctor` reads the PCIe links as they train under load (an idle
GPU drops its link to Gen1 to save power). Here, not in the core: it imports torch."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from advisor.i18n import _
from advisor.measure.doctor import NoLoad


def load_gpus(reread: Callable[[], object], seconds: float = 1.5) -> str:
    """Copy from pinned host memory to every GPU for `seconds`, calling `reread` halfway; how it was done."""
    from advisor.bench import import_torch

    try:
        torch = import_torch()
    except ImportError:
        raise NoLoad(_("torch is not installed")) from None
    if not torch.cuda.is_available():
        raise NoLoad(_("torch sees no CUDA GPU"))
    stop = time.monotonic() + seconds
    errors: list[str] = []

    def copy(i: int) -> None:
        try:
            src = torch.empty(64 << 20, dtype=torch.uint8, pin_memory=True)
            dst = torch.empty(64 << 20, dtype=torch.uint8, device=f"cuda:{i}")
            while time.monotonic() < stop:
                dst.copy_(src, non_blocking=True)
                torch.cuda.synchronize(i)
        except RuntimeError as exc:  # out of memory, a GPU in use by another process
            errors.append(f"cuda:{i}: {exc}")

    threads = [
        threading.Thread(target=copy, args=(i,), daemon=True) for i in range(torch.cuda.device_count())
    ]
    for t in threads:
        t.start()
    time.sleep(seconds / 2)
    reread()
    for t in threads:
        t.join()
    if errors and len(errors) == len(threads):
        raise NoLoad(_("no GPU could be loaded ({errors})").format(errors="; ".join(errors[:2])))
    return _("read while torch copied to {n} GPU(s) for {seconds} s").format(
        n=len(threads) - len(errors), seconds=f"{seconds:g}"
    )
