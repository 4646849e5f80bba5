"""The job every face assumes where the user does not say: the values, in one place, below the model.

`advisor workload` and `plan --train/--infer` (argparse defaults and help), the app's Job view (the
form's first values), the calibration runner (a case's missing fields) and plan's WL001 (the job it
assumes when no workload was asked) all read these. With defaults of their own, the CLI's micro-batch 8
once said "does not fit" where the Job view's micro-batch 1 said 0.45x, for the same question.

The training default answers a buyer's first question, "will a second GPU speed up my training?",
with a job that runs on one 24 GB consumer card, so the first answer is a speed-up, not "does not
fit": mixed-precision Adam keeps 16 B of model state per parameter (rules/workload.yaml
model_state_bytes_per_param), 21 GB for the 1.3B default model, which leaves one 24 GB card
(23.2 GB usable, vram_usable_fraction) room for the activations of one 1024-token sequence
(1.9 GB) but not of two; tests/test_workload_first_contact.py checks that this still holds. A
larger micro-batch, accumulation or sharding is then a "What to change" line with its prediction.

The workload model (models.py: a Workload's own defaults; presets.py: the parameter counts it takes)
reads these, and defaults.py builds the default job from them; so this module imports nothing.
"""

# the model the Job view opens with and WL001 assumes: GPT-3 XL's size (arXiv 2005.14165), a size
# people fine-tune on 2-8 consumer GPUs; its shape is OPT-1.3B's config.json (rules/workload.yaml)
MODEL = "opt-1.3b"
PRECISION = "bf16"  # mixed precision under torch.autocast, what current training scripts default to
# DDP: what PyTorch recommends over DataParallel (pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead);
# TP: vLLM's multi-GPU default (docs.vllm.ai/en/latest/serving/parallelism_scaling.html)
STRATEGY = {"train": "ddp", "infer": "tp"}
BATCH = {"train": 1, "infer": 1}  # micro-batch per GPU (train), concurrent sequences (infer): see above
SEQ = 1024  # training tokens per sequence, where the preset has no length of its own (BERT: 512)
ACCUM = 1  # no gradient accumulation unless asked: what a training loop does unless told
PROMPT = 512  # inference prompt tokens
GEN = 256  # inference generated tokens
# the parameter counts advisor models: a 100K-parameter toy to a 10T-parameter model (the largest
# published are about 2T); nan, inf and 1e308 are refused before any arithmetic
PARAMS = (1e5, 1e13)
PARAMS_TEXT = "1e5 (100K) to 1e13 (10T)"
