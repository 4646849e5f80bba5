"""LoRA and QLoRA fine-tuning: a frozen base in 16, 8 or 4 bits holds no gradients or
optimizer state, the adapters train as full fine-tuning trains its weights, FSDP still gathers the base,
and the frozen weights' backward needs no weight gradient."""

from __future__ import annotations

import json

import pytest

HERO_4090 = ("--cpu", "i9-14900K", "--board", "ROG Maximus Z790 Hero", "--gpu", "RTX 4090:2")
JOB = ("--train", "llama-3.1-8b", "--batch", "1", "--seq", "1024")


def _run(cli, *args) -> dict:
    code, out, err = cli("workload", *HERO_4090, *JOB, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_adapter_count_matches_peft_for_llama_3_8b_rank_16():
    """PEFT prints 'trainable params: 41,943,040' for Llama-3-8B with r=16 on all linear layers: r x L x
    (q 2h + k (h+kv) + v (h+kv) + o 2h + gate/up/down 3(h+ffn)) with h 4096, kv 1024, ffn 14336."""
    from advisor.workload.models import lora_params
    from advisor.workload.presets import resolve

    assert lora_params(resolve("llama-3.1-8b"), 16) == 41_943_040
    # BERT's MLP has two matrices (intermediate, output), not a gated MLP's three: per layer q, k, v and
    # the attention output (h + h each) and h + ffn twice, with h 1024 and ffn 4096
    assert lora_params(resolve("bert-large"), 8) == 8 * 24 * (4 * 2048 + 2 * (1024 + 4096))


def test_qlora_makes_an_8b_model_fit_a_24gb_card_that_full_fine_tuning_does_not(cli):
    full, qlora = _run(cli), _run(cli, "--qlora")
    assert not full["fits"] and qlora["fits"]
    spec = qlora["workload"]
    assert spec["lora_rank"] == 16 and spec["base_bits"] == 4 and spec["trainable_params"] == 41_943_040
    mem = qlora["memory"]["per_gpu_gb"]
    adapters = 41_943_040
    # the base in NF4 with double quantization (4.127 bits) plus the fp32 adapters under autocast
    assert mem["weights"] == pytest.approx((8.03e9 * 0.516 + adapters * 4) / 1e9, abs=0.02)
    # gradients and AdamW's moments only for the adapters: 4 B and 8 B each
    assert mem["gradients"] == pytest.approx(adapters * 4 / 1e9, abs=0.01)
    assert mem["optimizer"] == pytest.approx(adapters * 8 / 1e9, abs=0.01)
    # the gradient all-reduce moves the adapters' gradients, not the model's
    assert "0.0419B parameters" in qlora["gradients"]


def test_base_bits_change_only_the_frozen_weights(cli):
    sixteen, eight = _run(cli, "--lora", "16"), _run(cli, "--lora", "16", "--base-bits", "8")
    w16, w8 = sixteen["memory"]["per_gpu_gb"], eight["memory"]["per_gpu_gb"]
    assert w16["weights"] - w8["weights"] == pytest.approx(8.03e9 * 1 / 1e9, abs=0.02)
    assert w16["optimizer"] == w8["optimizer"] and w16["gradients"] == w8["gradients"]


def test_lora_compute_skips_the_frozen_weights_gradient(cli):
    """Forward 2N + input gradient 2N per token instead of 6N: two thirds of full fine-tuning's GEMM
    work. The memory-bound part of the step (activations through normalisations and element-wise ops)
    does not shrink, so the step lands between two thirds and the LoRA paper's measured 25% saving."""
    full, lora = _run(cli), _run(cli, "--lora", "16")
    c_full = next(c for c in full["configurations"] if c["gpus"] == 1)["compute_s"]
    c_lora = next(c for c in lora["configurations"] if c["gpus"] == 1)["compute_s"]
    assert 0.66 < c_lora / c_full < 0.78


def test_fsdp_under_lora_still_gathers_the_frozen_base(cli):
    out = _run(cli, "--qlora", "--strategy", "fsdp")
    two = next(c for c in out["configurations"] if c["gpus"] == 2)
    mem = out["memory"]["per_gpu_gb"]
    # sharded over 2 GPUs, with two layers of the 4-bit base gathered at a time
    assert mem["weights"] == pytest.approx((8.03e9 * 0.516 + 41_943_040 * 2) / 2 / 1e9, abs=0.02)
    assert mem["gathered_layers"] == pytest.approx(2 * 8.03e9 / 32 * 0.516 / 1e9, abs=0.01)
    assert two["exposed_comm_s"] is not None


@pytest.mark.parametrize(
    "args, says",
    [
        (("--base-bits", "4"), "--base-bits is the frozen base's width under LoRA"),
        (("--lora", "0"), "--lora must be a rank of 1 or more"),
        (("--qlora", "--base-bits", "8"), "--qlora stores the base in 4 bits"),
    ],
)
def test_lora_flags_that_contradict_each_other_exit_2(cli, args, says):
    code, out, err = cli("workload", *HERO_4090, *JOB, *args)
    assert code == 2
    assert says in " ".join(err.split())


def test_lora_on_a_model_without_dimensions_is_refused(cli):
    code, _, err = cli("workload", *HERO_4090, "--train", "resnet-50", "--lora", "8")
    assert code == 2
    assert "LoRA needs the model's layers" in " ".join(err.split())


def test_dataparallel_replicates_the_frozen_base_in_its_own_bytes(cli):
    """DataParallel copies the module from GPU0 on every micro-step: under QLoRA that is the 4-bit base
    (0.516 B/param) and the adapters, a quarter of what full fine-tuning's fp32 weights take."""
    small = ("--train", "llama-3.2-1b", "--batch", "1", "--seq", "512", "--strategy", "dataparallel")
    code, out, err = cli("workload", *HERO_4090, *small, "--json")
    assert code == 0, err
    full = next(c for c in json.loads(out)["configurations"] if c["gpus"] == 2)["exposed_comm_s"]
    code, out, err = cli("workload", *HERO_4090, *small, "--qlora", "--json")
    assert code == 0, err
    qlora = next(c for c in json.loads(out)["configurations"] if c["gpus"] == 2)["exposed_comm_s"]
    assert qlora < 0.3 * full


def test_lora_flags_on_an_inference_job_exit_2(cli):
    code, _, err = cli("workload", *HERO_4090, "--infer", "llama-3.1-8b", "--qlora")
    assert code == 2 and "are for training" in " ".join(err.split())


def test_training_flags_on_an_inference_job_exit_2(cli):
    code, _, err = cli("workload", *HERO_4090, "--infer", "llama-3.1-8b", "--framework", "megatron")
    assert code == 2 and "--framework: for training" in " ".join(err.split())
