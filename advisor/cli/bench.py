"""`advisor bench`: the torch microbenchmarks (advisor.bench) with a progress bar, into a measurement file."""

from __future__ import annotations

import sys

from advisor.cli.output import STDOUT, check_output, write_output
from advisor.i18n import _


def cmd_bench(args) -> int:
    from advisor.bench import import_torch

    try:
        torch = import_torch()
    except ImportError:
        print(
            _("advisor bench needs torch: pip install 'advisor[bench]' (or torch on its own)"),
            file=sys.stderr,
        )
        return 2
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        print(
            _(
                "No CUDA GPU is visible to torch here: nothing to measure. `advisor import` reads the outputs of "
                "nvbandwidth, p2pBandwidthLatencyTest, nccl-tests and nvidia-smi from another machine."
            )
        )
        return 0
    check_output(args.output)  # a path that cannot be written is said before the run, not after it
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from advisor.bench.torch_bench import Settings, run

    settings = Settings.quick() if args.quick else Settings()
    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=Console(stderr=True)
    ) as bar:
        task = bar.add_task("starting", total=None)
        meas = run(settings, progress=lambda text: bar.update(task, description=text))
    if write_output(args.output, meas.to_json()):
        print(
            _("wrote {file}: {n} results on {gpus} GPU(s)").format(
                file=args.output, n=len(meas.results), gpus=len(meas.machine.gpus)
            ),
            file=sys.stderr,
        )
    if args.json and args.output != STDOUT:
        print(meas.to_json(), end="")
    return 0
