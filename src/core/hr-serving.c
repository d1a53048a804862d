/* hr-serving.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The start-up memory plans of serving engines, read from their code:
 * vLLM (vllm/v1/worker/gpu_worker.py determine_available_memory,
 * vllm/v1/core/kv_cache_utils.py), SGLang (python/sglang/srt/model_executor/
 * model_runner.py profile_max_num_token), TensorRT-LLM (KvCacheConfig
 * free_gpu_memory_fraction) and llama.cpp (llama-context.cpp, one
 * contiguous cache of n_ctx cells). The paged KV cache after Kwon et al.
 * 2023, "Efficient Memory Management for Large Language Model Serving with
 * PagedAttention", §4. docs/inference.md, "Serving engines", explains each.
 */
#include <math.h>
#include <string.h>

#include "hr-serving.h"

static const char *const engine_names[HR_ENGINE_N] = {
  "hf", "vllm", "sglang", "trtllm", "llamacpp",
};

/* vLLM's sampler warm-up at start-up (gpu_model_runner.py _dummy_sampler_run)
 * samples max_num_seqs rows with top-k and top-p, the widest path of
 * vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p. Per row and
 * vocabulary entry it holds at once: the LM head's 16-bit output (2 B), the
 * fp32 logits (4), their sorted values (4) and int64 sort indices (8), the
 * softmax of the sorted values (4) and the scattered result (4): 26 bytes. */
#define SAMPLER_BYTES_PER_LOGIT 26.0

/* vLLM V0 SchedulerConfig: without chunked prefill, max_num_batched_tokens
 * defaults to max(max_model_len, 2048) (_DEFAULT_MAX_NUM_BATCHED_TOKENS). */
#define VLLM_MIN_BATCHED_TOKENS 2048

/* SGLang's default mem_fraction_static by TP size (server_args.py
 * __post_init__, v0.4): 0.88 alone, 0.87 from TP 2, 0.85 from 4, 0.81 from
 * 8, 0.79 from 16. */
static double
sglang_default_fraction (int64_t tp)
{
  if (tp >= 16)
    return 0.79;
  if (tp >= 8)
    return 0.81;
  if (tp >= 4)
    return 0.85;
  if (tp >= 2)
    return 0.87;
  return 0.88;
}

void
hr_serving_init (HrServing *serving)
{
  *serving = (HrServing) {
    .engine = HR_ENGINE_VLLM,
    .gpu_memory_utilization = 0.0,
    .max_model_len = 0,
    .max_num_batched_tokens = 0,
    .max_num_seqs = 0,
    .gpu_layers = -1,
    .non_torch_bytes = -1.0,
  };
}

double
hr_gpu_driver_memory (const HrGpu *gpu)
{
  return gpu->driver_memory_bytes > 0.0 ? gpu->driver_memory_bytes : gpu->memory_bytes;
}

const char *
hr_engine_name (HrEngine engine)
{
  return (unsigned) engine < HR_ENGINE_N ? engine_names[engine] : "";
}

bool
hr_engine_from_name (const char *name,
                     HrEngine   *out)
{
  for (int i = 0; name != NULL && i < HR_ENGINE_N; i++)
    if (strcmp (name, engine_names[i]) == 0)
      {
        *out = (HrEngine) i;
        return true;
      }
  return false;
}

static int64_t
padded_vocab (const HrModel *model)
{
  /* vLLM pads the vocabulary to a multiple of 64 (vocab_parallel_embedding.py). */
  return (model->vocab_size + 63) / 64 * 64;
}

static HrStatus
validate (const HrServing *s,
          HrError         *err)
{
  if ((unsigned) s->engine >= HR_ENGINE_N)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "engine", s->engine, HR_ENGINE_N - 1,
                         "hf, vllm, sglang, trtllm or llamacpp");
  if (!(s->gpu_memory_utilization >= 0.0 && s->gpu_memory_utilization <= 1.0))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "gpu_memory_utilization",
                         (int64_t) (s->gpu_memory_utilization * 100.0), 1,
                         "a fraction in (0, 1], or 0 for the engine's default");
  if (s->max_model_len < 0 || s->max_model_len > ((int64_t) 1 << 40))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "max_model_len", s->max_model_len,
                         (int64_t) 1 << 40, "0 (prompt + generate) or tokens");
  if (s->max_num_batched_tokens < 0 || s->max_num_batched_tokens > ((int64_t) 1 << 40))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "max_num_batched_tokens",
                         s->max_num_batched_tokens, (int64_t) 1 << 40,
                         "0 (the engine's default) or tokens");
  if (s->max_num_seqs < 0 || s->max_num_seqs > ((int64_t) 1 << 40))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "max_num_seqs", s->max_num_seqs,
                         (int64_t) 1 << 40, "0 (256) or sequences");
  if (!isfinite (s->non_torch_bytes))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "non_torch_bytes", 0, 0, NULL);
  return HR_OK;
}

/* The KV cache left once the engine's plan is paid, split into blocks. */
static void
fill_capacity (HrServingPlan *p,
               double         kv_bytes)
{
  double block_bytes = (double) p->block_size * p->kv_per_token;

  p->kv_cache = fmax (kv_bytes, 0.0);
  p->kv_blocks = block_bytes > 0.0 ? (int64_t) floor (p->kv_cache / block_bytes) : 0;
  p->kv_capacity_tokens = p->kv_blocks * p->block_size;
  p->max_concurrency = (double) p->kv_capacity_tokens / (double) p->max_model_len;
  p->fits = p->kv_capacity_tokens >= p->max_model_len;
}

HrStatus
hr_serving_plan (const HrModel     *model,
                 const HrInference *inference,
                 const HrServing   *serving,
                 const HrGpu       *gpu,
                 HrServingPlan     *plan,
                 HrError           *err)
{
  HrInference profile = *inference;
  HrInferenceMemory m;
  HrStatus status;
  double fraction = serving->gpu_memory_utilization;
  int64_t max_len = serving->max_model_len > 0 ? serving->max_model_len :
                    inference->prompt + inference->generate;
  int64_t seqs = serving->max_num_seqs > 0 ? serving->max_num_seqs : HR_SERVING_DEFAULT_MAX_NUM_SEQS;
  int64_t batched = serving->max_num_batched_tokens;
  double non_torch = serving->non_torch_bytes >= 0.0 ? serving->non_torch_bytes :
                     HR_SERVING_DEFAULT_NON_TORCH_BYTES;
  double sampler;

  if ((status = validate (serving, err)) != HR_OK ||
      (status = hr_inference_validate (model, inference, err)) != HR_OK)
    return status;
  if (!(gpu->memory_bytes > 0.0 && isfinite (gpu->memory_bytes)))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "memory_bytes",
                         (int64_t) gpu->memory_bytes, 0, NULL);

  /* vLLM profiles one step of max_num_batched_tokens tokens. */
  if (batched == 0)
    batched = max_len > VLLM_MIN_BATCHED_TOKENS ? max_len : VLLM_MIN_BATCHED_TOKENS;
  if (seqs > batched)
    seqs = batched;

  /* The profiling step: one sequence of `batched` tokens, nothing cached.
   * Its weights are the serving weights; its activations the peak of one
   * layer over those tokens (docs/inference.md, "Activations"). */
  profile.batch = 1;
  profile.prompt = batched;
  profile.generate = 0;
  profile.prefill_chunk = 0;
  if ((status = hr_inference_memory (model, &profile, gpu, &m, err)) != HR_OK)
    return status;

  *plan = (HrServingPlan) {
    .total = hr_gpu_driver_memory (gpu),
    .weights = m.weights,
    .kv_per_token = m.kv_cache_per_token,
    .block_size = inference->paged_block > 0 ? inference->paged_block : 1,
    .max_model_len = max_len,
    .max_num_batched_tokens = batched,
    .gpu_layers = model->n_layers,
  };

  /* The sampler's warm-up on the last stage: full-vocabulary rows (the LM
   * head's shards are gathered before sampling). */
  sampler = (double) seqs * (double) padded_vocab (model) * SAMPLER_BYTES_PER_LOGIT;

  switch (serving->engine)
    {
    case HR_ENGINE_VLLM:
      /* determine_available_memory: requested = gmu × total; KV = requested
       * − (weights + torch peak increase + non-torch increase). CUDA graphs
       * are captured after the KV cache is sized, out of the (1 − gmu) left. */
      if (fraction == 0.0)
        fraction = HR_SERVING_DEFAULT_GPU_MEMORY_UTILIZATION;
      plan->usable = fraction * plan->total;
      plan->activations = fmax (m.activations, sampler);
      plan->non_torch = non_torch;
      fill_capacity (plan, plan->usable - plan->weights - plan->activations - plan->non_torch);
      break;

    case HR_ENGINE_SGLANG:
      /* profile_max_num_token: rest = free after loading − free at start ×
       * (1 − mem_fraction_static) = mfs × free at start − weights; the free
       * memory at start is the driver's total less the engine's own
       * allocations. Activations and CUDA graphs live in the 1 − mfs. */
      if (fraction == 0.0)
        fraction = sglang_default_fraction (inference->tensor_parallel);
      plan->non_torch = non_torch;
      plan->usable = fraction * (plan->total - plan->non_torch);
      plan->activations = 0.0;
      plan->block_size = 1;   /* page_size 1: a token pool */
      fill_capacity (plan, plan->usable - plan->weights);
      break;

    case HR_ENGINE_TRTLLM:
      /* The KV cache takes free_gpu_memory_fraction of what is free once the
       * engine (weights, activation buffers at max_num_tokens) is loaded. */
      if (fraction == 0.0)
        fraction = HR_SERVING_DEFAULT_TRTLLM_FREE_FRACTION;
      plan->activations = m.activations;
      plan->non_torch = non_torch;
      plan->usable = plan->total;
      fill_capacity (plan, fraction * (plan->total - plan->weights - plan->activations -
                                       plan->non_torch));
      break;

    case HR_ENGINE_LLAMACPP:
      /* One contiguous cache of n_ctx cells shared by the parallel slots;
       * every layer and the output on the GPU (--gpu-layers all). */
      plan->usable = plan->total;
      plan->activations = m.activations;
      plan->non_torch = 0.0;
      plan->block_size = 1;
      plan->kv_cache = (double) max_len * plan->kv_per_token;
      plan->kv_blocks = max_len;
      plan->kv_capacity_tokens = max_len;
      plan->max_concurrency = 1.0;
      plan->fits = plan->weights + plan->kv_cache + plan->activations <= plan->total;
      break;

    case HR_ENGINE_HF:
    case HR_ENGINE_N:
    default:
      /* No plan: what the project's overhead and one profiling step leave. */
      plan->usable = plan->total;
      plan->activations = m.activations;
      plan->non_torch = inference->overhead_bytes;
      fill_capacity (plan, plan->total - plan->weights - plan->activations - plan->non_torch);
      break;
    }
  return HR_OK;
}
