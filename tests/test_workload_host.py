"""The host's time to issue a small training step's kernels, and torch.nn.DataParallel, which issues every
replica's from one process (published: ryujaehun's torchvision benchmark on a DGX A100, batch 12 per GPU:
ResNet-50 under DataParallel gains 1.05x on two A100s and 1.37x on four)."""

from __future__ import annotations

import json

HGX = ("examples/hgx-h100-8gpu.yaml",)


def _run(cli, *args):
    code, out, err = cli("workload", *HGX, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_dataparallel_of_a_small_cnn_step_gains_little_where_ddp_scales(cli):
    job = ("--train", "resnet-50", "--batch", "12")
    dp = _run(cli, *job, "--strategy", "dataparallel")
    ddp = _run(cli, *job, "--strategy", "ddp")
    assert dp["speedup"] < 2.0 < 6.0 < ddp["speedup"]
    one, many = dp["configurations"]
    assert "host-bound" in " ".join(one["notes"]) and "host-bound" in " ".join(many["notes"])


def test_dataparallel_host_time_grows_with_the_replicas():
    """Each GPU after the first adds dataparallel_host_share of one replica's issue time."""
    from advisor.model.constants import const
    from advisor.model.predict import Figure
    from advisor.workload import defaults
    from advisor.workload.presets import presets
    from advisor.workload.train import host_bound, host_issue

    w = defaults.workload("train", presets()["resnet-50"], strategy="dataparallel", batch=12)
    gpu = Figure(0.001, "s", "GPU compute", {}, [], "low")  # a millisecond of GPU work: host-bound
    host = host_issue(w).value
    share = const("dataparallel_host_share", file="workload.yaml")
    for n in (2, 4, 8):
        t, note = host_bound(gpu, w, n, "dataparallel")
        assert abs(t.value - host * (1 + share * (n - 1))) < 1e-12 and "host-bound" in note
    t, _ = host_bound(gpu, w.but(strategy="ddp"), 8, "ddp")
    assert t.value == host  # DDP: one process per GPU, each issues its own replica's kernels
    slow = Figure(10.0, "s", "GPU compute", {}, [], "low")  # ten seconds of GPU work: the GPU bounds it
    t, note = host_bound(slow, w, 8, "dataparallel")
    assert t is slow and note == ""


def test_transformers_and_graph_frameworks_are_not_taken_as_host_bound(cli):
    """The issue time was measured on CNNs in eager PyTorch: a transformer, or a CNN under TensorFlow,
    keeps its GPU-bound step, and no note claims otherwise."""
    small_lm = _run(cli, "--train", "gpt2", "--batch", "1", "--seq", "128", "--strategy", "ddp")
    tf = _run(cli, "--train", "resnet-50", "--batch", "12", "--framework", "tensorflow")
    for report in (small_lm, tf):
        assert not any("host-bound" in n for c in report["configurations"] for n in c.get("notes", []))
