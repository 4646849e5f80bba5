"""The serving engines' flags that run an inference job the way the model predicts it.

Flags as vLLM's engine arguments, SGLang's server arguments and llama.cpp's server document them:
https://docs.vllm.ai/en/latest/configuration/engine_args.html (its custom all-reduce's gates:
https://github.com/vllm-project/vllm/blob/00d618aab60448acdf3fac3e9c4e2e22d0c6c753/vllm/distributed/device_communicators/custom_all_reduce.py;
small-message times: https://github.com/haohervchb/sglang-V100/pull/2 and
https://github.com/voipmonitor/rtx6kpro/blob/070506ff96a20039f71a067adcb250e8fe3414f8/hardware/pcie-bandwidth.md),
https://docs.sglang.ai/backend/server_arguments.html (expert parallel with DP attention:
https://docs.sglang.io/cookbook/base/reference/server_arguments and
https://docs.sglang.io/advanced_features/expert_parallelism.html; vLLM's:
https://docs.vllm.ai/en/latest/serving/expert_parallel_deployment/),
https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md.
"""

from __future__ import annotations

import math

from advisor.i18n import _
from advisor.model.readiness import ENGINE_MAX_BYTES, ENGINE_WORLD_SIZES, custom_all_reduce_runs
from advisor.workload.models import Workload

GGUF_PREFIXES = ("q", "iq")


def gguf(w: Workload) -> bool:
    """GGUF weights or a GGUF KV-cache type: llama.cpp's formats, not vLLM's or SGLang's."""
    return bool(
        (w.quant and w.quant.startswith(GGUF_PREFIXES)) or (w.kv_cache and w.kv_cache.startswith("q"))
    )


def _split_flag(w: Workload, n: int, flags: dict[str, str]) -> list[str]:
    """An engine's flag that splits the job over n GPUs by its strategy ({n} the GPU count); none on one GPU
    or where the engine has no flag for the strategy."""
    return [flags[w.strategy].format(n=n)] if n > 1 and w.strategy in flags else []


def _running_cap(w: Workload) -> int:
    """The sequences an engine runs at once: all of them, or its scheduler's cap (--max-num-seqs)."""
    return w.batch if w.max_num_seqs is None else min(w.batch, w.max_num_seqs)


def _per_gpu(w: Workload, n: int, cmd: str, port: str) -> str:
    """Independent replicas: the same server once on each GPU, each on its own port."""
    if n > 1 and w.strategy == "replicas":
        return _("one server per GPU: CUDA_VISIBLE_DEVICES=i {cmd} --port {port} (i = 0..{last})").format(
            cmd=cmd, port=port, last=n - 1
        )
    return cmd


def _vllm(w: Workload, n: int, transport: str, cuda_p2p: bool, engine: str | None) -> str | None:
    if gguf(w) or (n > 1 and w.strategy == "row"):
        return None
    ctx = w.prompt + w.gen
    parts = ["vllm serve MODEL"]
    parts += _split_flag(
        w,
        n,
        {
            "tp": "--tensor-parallel-size {n}",
            "pp": "--pipeline-parallel-size {n}",
            # attention data-parallel, experts split
            "ep": "--data-parallel-size {n} --enable-expert-parallel",
        },
    )
    seqs = _running_cap(w)
    if n > 1 and w.strategy == "ep":  # the cap is per rank
        seqs = math.ceil(w.batch / n) if w.max_num_seqs is None else w.max_num_seqs
    parts += [f"--max-num-seqs {seqs}", f"--max-model-len {ctx}"]
    if w.quant == "fp8":
        parts.append("--quantization fp8")
    if w.kv_cache == "fp8":
        parts.append("--kv-cache-dtype fp8")
    cmd = _per_gpu(w, n, " ".join(parts), "800i")
    notes = []
    if w.quant in ("int4", "nvfp4", "int8"):
        notes.append(
            {
                "int4": _("an AWQ or GPTQ checkpoint (vLLM reads its quantization_config)"),
                "nvfp4": _("an NVFP4 checkpoint (ModelOpt; Blackwell tensor cores)"),
                "int8": _("a W8A8 checkpoint (llm-compressor)"),
            }[w.quant]
        )
    if n > 1 and w.strategy == "tp":
        notes.append(_custom_all_reduce(n, transport, cuda_p2p, engine))
    if not notes:
        return f"vLLM: {cmd}"
    return _("vLLM: {cmd} ({notes})").format(cmd=cmd, notes=_("; ").join(notes))


def custom_all_reduce_applies(n: int, transport: str, cuda_p2p: bool) -> bool:
    """The engines' gates on a workload's fabric: NCCL's ring over NVLink stands for NVLink between all."""
    return custom_all_reduce_runs(n, transport == "NVLink", cuda_p2p)


def _custom_all_reduce(n: int, transport: str, cuda_p2p: bool, engine: str | None) -> str:
    """Whether vLLM's custom all-reduce takes the TP all-reduces, and whether the prediction follows it."""
    cap = f"{ENGINE_MAX_BYTES // (1024 * 1024)} MiB"
    if not cuda_p2p:
        return _("without P2P vLLM skips its custom all-reduce and uses NCCL's, as predicted")
    if n not in ENGINE_WORLD_SIZES:
        return _("vLLM's custom all-reduce takes 2, 4, 6 or 8 GPUs, not {n}: NCCL's, as predicted").format(
            n=n
        )
    if not custom_all_reduce_applies(n, transport, cuda_p2p):
        return _(
            "beyond 2 GPUs without NVLink between all of them vLLM turns its custom all-reduce off: "
            "NCCL's, as predicted"
        )
    if transport in ("NVLink", "P2P"):
        return _(
            "vLLM's custom all-reduce takes the all-reduces under {cap}; NCCL would use the same {transport} "
            "links, and the prediction keeps NCCL's figures (the kernel's published small-message times, "
            "4-7.5 us, are about NCCL's modelled latency)"
        ).format(cap=cap, transport=transport)
    if engine in ("vllm", "sglang"):
        return _(
            "vLLM's custom all-reduce (CUDA P2P, under {cap}) takes the all-reduces where NCCL would use "
            "{transport}: the prediction follows it (the build names the engine)"
        ).format(cap=cap, transport=transport)
    return _(
        "vLLM's custom all-reduce (CUDA P2P, under {cap}) takes the all-reduces where NCCL would use "
        "{transport}: the prediction keeps NCCL's {transport} figures and is pessimistic here (name the "
        "engine, software.engine: vllm or --engine vllm, to predict with it)"
    ).format(cap=cap, transport=transport)


def _sglang(w: Workload, n: int) -> str | None:
    """SGLang's server (https://docs.sglang.ai/backend/server_arguments.html): tensor and data parallel
    sizes, the running-request cap, the context length, fp8 weights and KV cache."""
    if gguf(w) or w.quant == "nvfp4" or (n > 1 and w.strategy == "row"):
        return None
    parts = ["python -m sglang.launch_server --model-path MODEL"]
    parts += _split_flag(
        w,
        n,
        {
            "tp": "--tp-size {n}",
            "replicas": "--dp-size {n}",
            "pp": "--pp-size {n}",
            # DP attention over all GPUs, the experts split over them
            "ep": "--tp-size {n} --ep-size {n} --enable-dp-attention --dp-size {n}",
        },
    )
    parts += [f"--max-running-requests {w.batch}", f"--context-length {w.prompt + w.gen}"]
    if w.quant == "fp8":
        parts.append("--quantization fp8")
    if w.kv_cache == "fp8":
        parts.append("--kv-cache-dtype fp8_e5m2")
    return "SGLang: " + " ".join(parts)


def _trtllm(w: Workload, n: int) -> str | None:
    """TensorRT-LLM's OpenAI server (trtllm-serve, https://nvidia.github.io/TensorRT-LLM/0.18.2/commands/trtllm-serve.html):
    tensor, pipeline and expert parallel sizes, the scheduled-request cap and the longest request."""
    if gguf(w) or (n > 1 and w.strategy == "row"):
        return None
    parts = ["trtllm-serve MODEL"]
    parts += _split_flag(
        w, n, {"tp": "--tp_size {n}", "pp": "--pp_size {n}", "ep": "--tp_size {n} --ep_size {n}"}
    )
    parts += [f"--max_batch_size {_running_cap(w)}", f"--max_seq_len {w.prompt + w.gen}"]
    return "TensorRT-LLM: " + _per_gpu(w, n, " ".join(parts), "800i")


def _llama_cpp(w: Workload, n: int) -> str | None:
    if w.quant and not w.quant.startswith(GGUF_PREFIXES):
        return None
    # llama.cpp has no expert parallel, and its row split is not tensor parallel (--strategy row)
    if w.kv_cache == "fp8" or (n > 1 and w.strategy in ("ep", "tp")):
        return None
    ctx = w.prompt + w.gen
    parts = ["llama-server -m MODEL.gguf -ngl 999"]
    # row: each weight matrix split by rows over the GPUs; layer (the default): consecutive layers on each
    parts += _split_flag(w, n, {"row": "-sm row", "pp": "-sm layer"})
    parts += [f"-np {w.batch}", f"-c {ctx * w.batch}"]
    if w.kv_cache in ("q8_0", "q4_0"):
        parts.append(
            f"-fa on -ctk {w.kv_cache} -ctv {w.kv_cache}"
        )  # a quantized V cache needs flash attention
    return "llama.cpp: " + _per_gpu(w, n, " ".join(parts), "808i")


def run_as(
    w: Workload, n: int, transport: str, engine: str | None = None, cuda_p2p: bool | None = None
) -> list[str]:
    """The commands that serve `w` on n GPUs as the prediction assumes (SGLang's or TensorRT-LLM's server in
    vLLM's place when the build names it as its engine); none for training."""
    if w.task != "infer":
        return []
    p2p = transport in ("P2P", "NVLink") if cuda_p2p is None else cuda_p2p
    if engine == "sglang":
        server = _sglang(w, n)
    elif engine == "tensorrt-llm":
        server = _trtllm(w, n)
    else:
        server = _vllm(w, n, transport, p2p, engine)
    out = [c for c in (server, _llama_cpp(w, n)) if c]
    if not out and n > 1 and w.strategy == "ep":
        out.append(
            _(
                "expert parallel runs on vLLM or SGLang, which do not read --quant {quant}: llama.cpp has no "
                "expert parallel (its -sm layer is --strategy pp)"
            ).format(quant=w.quant)
        )
    elif (
        not out
        and n > 1
        and w.strategy == "tp"
        and (w.quant or "").startswith(GGUF_PREFIXES)
        and w.kv_cache != "fp8"
    ):
        out.append(
            _(
                "tensor parallel runs on vLLM or SGLang, which do not read --quant {quant}: llama.cpp's "
                "nearest is its row split (-sm row), which is --strategy row"
            ).format(quant=w.quant)
        )
    elif not out:
        out.append(
            _(
                "no engine advisor knows serves --quant {quant} with --kv-cache {kv_cache}: vLLM takes fp8, "
                "int8, int4 and nvfp4 weights with an fp8 KV cache, llama.cpp GGUF types with q8_0 or q4_0"
            ).format(quant=w.quant, kv_cache=w.kv_cache)
        )
    return out
