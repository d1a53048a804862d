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

#include "hr-rates.h"
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
    .cpu_memory_bandwidth = HR_SERVING_DEFAULT_CPU_MEMORY_BANDWIDTH,
    .first_token_overhead = -1.0,
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
  if (!(s->cpu_memory_bandwidth > 0.0 && isfinite (s->cpu_memory_bandwidth)))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "cpu_memory_bandwidth",
                         (int64_t) s->cpu_memory_bandwidth, 0, NULL);
  if (!(s->first_token_overhead <= 10.0))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "first_token_overhead",
                         (int64_t) (s->first_token_overhead * 1000.0), 10000,
                         "at most 10 s, or negative for the engine's default");
  if (s->gpu_layers > ((int64_t) 1 << 40))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "gpu_layers", s->gpu_layers,
                         (int64_t) 1 << 40, "-1 (all) or layers");
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

/* Bytes of the token embedding (head false) or output matrix as llama.cpp
 * stores them: GGUF types tensor by tensor, else the weights' width. */
static double
llamacpp_table_bytes (const HrModel     *model,
                      const HrInference *inf,
                      bool               head)
{
  int64_t width = model->embed_proj_dim > 0 ? model->embed_proj_dim : model->hidden_size;
  double n = (double) model->vocab_size * (double) width;

  if (hr_weights_is_gguf (inf->weights))
    return hr_gguf_vocab_bytes (model, inf->weights, head, n);
  return n * hr_weight_precision_bytes (inf->weights);
}

/* llama.cpp (src/llama-model.cpp load_tensors): with --gpu-layers n, the
 * last n layers go to the GPU (i_gpu_start = n_layer − n), the output
 * layer too once n > n_layer; the token embedding always stays on the CPU.
 * The KV cache is one contiguous buffer of n_ctx cells per layer, on the
 * device of its layer (offload_kqv). A decode step reads each part at its
 * memory's bandwidth, one after the other. Layers are taken at their mean
 * size (the _M mixes differ a little from layer to layer). */
static void
llamacpp_plan (const HrModel           *model,
               const HrInference       *inf,
               const HrServing         *serving,
               const HrGpu             *gpu,
               const HrInferenceMemory *m,
               HrServingPlan           *plan)
{
  int64_t n_layers = model->n_layers;
  int64_t ngl = serving->gpu_layers < 0 ? n_layers + 1 : serving->gpu_layers;
  int64_t on_gpu = ngl < n_layers ? ngl : n_layers;
  bool output_on_gpu = ngl > n_layers;
  double embd = llamacpp_table_bytes (model, inf, false);
  /* A tied table is stored once and read as the output too. */
  double output = llamacpp_table_bytes (model, inf, true);
  double layers;
  double per_layer;
  double kv_per_layer = plan->kv_per_token / (double) n_layers;
  double context = (double) plan->max_model_len;
  double gpu_bytes;

  /* m->weights counts both tables (tied: one); the rest is the layers and
   * the final norm. */
  layers = m->weights - embd - (model->tied_embeddings ? 0.0 : output);
  per_layer = fmax (layers, 0.0) / (double) n_layers;

  plan->usable = plan->total;
  plan->non_torch = 0.0;
  plan->block_size = 1;
  plan->gpu_layers = on_gpu;
  plan->weights = (double) on_gpu * per_layer + (output_on_gpu ? output : 0.0);
  plan->cpu_weights = (double) (n_layers - on_gpu) * per_layer + embd +
                      (output_on_gpu || model->tied_embeddings ? 0.0 : output);
  plan->activations = on_gpu > 0 ? m->activations : 0.0;
  plan->kv_cache = context * kv_per_layer * (double) on_gpu;
  plan->cpu_kv_cache = context * kv_per_layer * (double) (n_layers - on_gpu);
  plan->kv_blocks = plan->max_model_len;
  plan->kv_capacity_tokens = plan->max_model_len;
  plan->max_concurrency = 1.0;
  plan->fits = plan->weights + plan->kv_cache + plan->activations <= plan->total;

  /* One token at the full context: the GPU's layers (and output) at the
   * bandwidth it sustains (hr-rates.h), the CPU's at the host bandwidth. */
  gpu_bytes = plan->weights + plan->kv_cache;
  plan->gpu_decode_time = gpu->memory_bandwidth > 0.0 ?
                          gpu_bytes / hr_rates_bandwidth (gpu, inf->memory_efficiency) : 0.0;
  /* A lookup reads a row of the token embedding, not the table, unless
   * the table is also the output matrix left on the CPU. */
  plan->cpu_decode_time = (plan->cpu_weights + plan->cpu_kv_cache -
                           (model->tied_embeddings && !output_on_gpu ? 0.0 : embd)) /
                          serving->cpu_memory_bandwidth;
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
  /* An engine refuses a request longer than its max_model_len (vLLM's
   * "maximum context length is … However, you requested …"). */
  if (serving->max_model_len > 0 && serving->max_model_len < inference->prompt + inference->generate)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "max_model_len", serving->max_model_len,
                         inference->prompt + inference->generate,
                         "a request's prompt and generated tokens are longer");
  if (!(gpu->memory_bytes > 0.0 && isfinite (gpu->memory_bytes)))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "memory_bytes",
                         hr_error_value (gpu->memory_bytes), 0, NULL);

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
    .total_from_datasheet = !(gpu->driver_memory_bytes > 0.0),
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
       * engine (weights, activation buffers at max_num_tokens) is loaded, in
       * blocks of its own tokens_per_block. */
      if (fraction == 0.0)
        fraction = HR_SERVING_DEFAULT_TRTLLM_FREE_FRACTION;
      plan->activations = m.activations;
      plan->non_torch = non_torch;
      plan->usable = plan->total;
      plan->block_size = HR_SERVING_TRTLLM_TOKENS_PER_BLOCK;
      fill_capacity (plan, fraction * (plan->total - plan->weights - plan->activations -
                                       plan->non_torch));
      break;

    case HR_ENGINE_LLAMACPP:
      llamacpp_plan (model, inference, serving, gpu, &m, plan);
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

/* ---- Continuous batching ----------------------------------------------------- */

/* A request's first token waits for one engine step's CPU work: the
 * scheduler admits it and prepares the prefill's inputs before the forward,
 * and the sampled token is copied back and turned into output after it.
 * Decode steps hide that work behind the GPU (vLLM >= 0.6 processes outputs
 * asynchronously and runs the engine core apart from the API server, and
 * replays decode steps as CUDA graphs), so only the first token pays it. */
static double
first_token_overhead (const HrServing *serving)
{
  if (serving->first_token_overhead >= 0.0)
    return serving->first_token_overhead;
  return serving->engine == HR_ENGINE_VLLM ? HR_SERVING_VLLM_FIRST_TOKEN_OVERHEAD : 0.0;
}

HrStatus
hr_serving_latency (const HrModel       *model,
                    const HrInference   *inference,
                    const HrServing     *serving,
                    const HrGpu         *gpu,
                    const HrServingPlan *plan,
                    HrServingLatency    *lat,
                    HrError             *err)
{
  HrInference wave = *inference;
  HrInferenceLatency l;
  HrStatus status;
  int64_t context = inference->prompt + inference->generate;
  int64_t block = plan->block_size > 0 ? plan->block_size : 1;
  int64_t seqs = serving->max_num_seqs > 0 ? serving->max_num_seqs : HR_SERVING_DEFAULT_MAX_NUM_SEQS;
  int64_t running = inference->batch;
  int64_t fit;

  if ((status = validate (serving, err)) != HR_OK)
    return status;

  /* A request holds ⌈context ÷ block⌉ blocks for its whole life (vLLM
   * admits while free blocks remain; KVCacheManager.allocate_slots). */
  fit = plan->kv_blocks / ((context + block - 1) / block);
  if (serving->engine != HR_ENGINE_HF && running > seqs)
    running = seqs;
  if (serving->engine != HR_ENGINE_HF && running > fit)
    running = fit;
  if (running < 1)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "max_model_len", context,
                         plan->kv_capacity_tokens,
                         "one request of prompt + generate does not fit the KV cache");

  /* The step budget split between the wave's prompts: vLLM V1 schedules
   * up to max_num_batched_tokens prompt tokens per step. hf prefills whole. */
  wave.batch = running;
  wave.prefill_chunk = 0;
  if (serving->engine != HR_ENGINE_HF && plan->max_num_batched_tokens > 0)
    {
      int64_t chunk = plan->max_num_batched_tokens / running;

      wave.prefill_chunk = chunk > 0 ? chunk : 1;
    }
  if ((status = hr_inference_latency (model, &wave, gpu, &l, err)) != HR_OK)
    return status;

  *lat = (HrServingLatency) {
    .first_token_overhead = first_token_overhead (serving),
    .running = running,
    .waves = (inference->batch + running - 1) / running,
    .prefill_chunk = wave.prefill_chunk > 0 && wave.prefill_chunk < inference->prompt ?
                     wave.prefill_chunk : inference->prompt,
    .time_to_first_token = l.time_to_first_token,
    .time_per_output_token = l.time_per_output_token,
  };
  /* The engine's step work around each wave's prefill delays its first
   * tokens; decode steps overlap it (see first_token_overhead ()). */
  l.end_to_end += lat->first_token_overhead;
  lat->time_to_first_token += lat->first_token_overhead;
  /* llama.cpp with layers left on the CPU: a decode step reads them at the
   * host's bandwidth (the plan's split), not the GPU's. */
  if (serving->engine == HR_ENGINE_LLAMACPP && plan->gpu_layers < model->n_layers &&
      inference->generate > 1)
    {
      double tpot = plan->gpu_decode_time + plan->cpu_decode_time;

      l.end_to_end = lat->time_to_first_token + (double) (inference->generate - 1) * tpot;
      lat->time_per_output_token = tpot;
    }
  lat->end_to_end = (double) lat->waves * l.end_to_end;

  if (serving->engine != HR_ENGINE_HF && plan->max_num_batched_tokens > 0)
    {
      HrInference alone = *inference;
      HrInference others = *inference;
      HrInferenceLatency a;
      HrInferenceLatency o = { 0 };
      int64_t budget = plan->max_num_batched_tokens - (running - 1);
      double steps;
      double compute;
      double memory;

      if (budget < 1)
        budget = 1;
      /* The new prompt alone, chunked by what the decodes leave. */
      alone.batch = 1;
      alone.generate = 0;
      alone.prefill_chunk = budget;
      if ((status = hr_inference_latency (model, &alone, gpu, &a, err)) != HR_OK)
        return status;
      /* The others' mean decode step. */
      if (running > 1)
        {
          others.batch = running - 1;
          if (others.generate < 2)
            others.generate = 2;
          if ((status = hr_inference_latency (model, &others, gpu, &o, err)) != HR_OK)
            return status;
        }
      lat->loaded_prefill_chunk = budget < inference->prompt ? budget : inference->prompt;
      lat->loaded_prefill_steps = (inference->prompt + budget - 1) / budget;
      steps = (double) lat->loaded_prefill_steps;
      /* One mixed step: the FLOPs of both add up; both read the same
       * weights once, so the step reads the larger of the two (the
       * chunk's few KV writes beside the others' KV reads are left out). */
      compute = a.prefill_compute_time / steps + o.decode_compute_time;
      memory = fmax (a.prefill_memory_time / steps, o.decode_memory_time);
      lat->time_to_first_token_loaded = steps * (fmax (compute, memory) + o.decode_elementwise_time +
                                                 o.decode_allreduce_time) +
                                        a.prefill_elementwise_time + a.prefill_allreduce_time +
                                        lat->first_token_overhead;
    }
  if (inference->generate > 0 && lat->end_to_end > 0.0)
    lat->tokens_per_second = (double) inference->batch * (double) inference->generate /
                             lat->end_to_end;
  return HR_OK;
}

/* ---- GGUF ------------------------------------------------------------------ */

/* ggml block types (ggml/src/ggml-common.h block_* structs): bytes per
 * block and weights per block. */
typedef enum
{
  GGML_Q4_0,    /* d (f16) + 16 B of nibbles: 18 B / 32 */
  GGML_Q5_0,    /* d + qh[4] + qs[16]: 22 B / 32 */
  GGML_Q5_1,    /* d, m + qh[4] + qs[16]: 24 B / 32 */
  GGML_Q8_0,    /* d + qs[32]: 34 B / 32 */
  GGML_Q2_K,    /* scales[16] + qs[64] + d, dmin: 84 B / 256 */
  GGML_Q3_K,    /* hmask[32] + qs[64] + scales[12] + d: 110 B / 256 */
  GGML_Q4_K,    /* d, dmin + scales[12] + qs[128]: 144 B / 256 */
  GGML_Q5_K,    /* d, dmin + scales[12] + qh[32] + qs[128]: 176 B / 256 */
  GGML_Q6_K,    /* ql[128] + qh[64] + scales[16] + d: 210 B / 256 */
  GGML_IQ2_XXS, /* d + uint16 qs[32]: 66 B / 256 (2.0625 bits) */
  GGML_IQ2_XS,  /* d + uint16 qs[32] + scales[8]: 74 B / 256 (2.3125) */
  GGML_IQ2_S,   /* d + qs[64] + qh[8] + scales[8]: 82 B / 256 (2.5625) */
  GGML_IQ3_XXS, /* d + qs[96]: 98 B / 256 (3.0625) */
  GGML_IQ3_S,   /* d + qs[64] + qh[8] + signs[32] + scales[4]: 110 B / 256 (3.4375) */
  GGML_IQ4_NL,  /* d + qs[16]: 18 B / 32 (4.5) */
  GGML_IQ4_XS,  /* d + scales_h (2) + scales_l[4] + qs[128]: 136 B / 256 (4.25) */
  GGML_F16,
} GgmlType;

static const struct
{
  double bytes;
  double block;
} ggml_types[] = {
  [GGML_Q4_0] = { 18, 32 },
  [GGML_Q5_0] = { 22, 32 },
  [GGML_Q5_1] = { 24, 32 },
  [GGML_Q8_0] = { 34, 32 },
  [GGML_Q2_K] = { 84, 256 },
  [GGML_Q3_K] = { 110, 256 },
  [GGML_Q4_K] = { 144, 256 },
  [GGML_Q5_K] = { 176, 256 },
  [GGML_Q6_K] = { 210, 256 },
  [GGML_IQ2_XXS] = { 66, 256 },
  [GGML_IQ2_XS] = { 74, 256 },
  [GGML_IQ2_S] = { 82, 256 },
  [GGML_IQ3_XXS] = { 98, 256 },
  [GGML_IQ3_S] = { 110, 256 },
  [GGML_IQ4_NL] = { 18, 32 },
  [GGML_IQ4_XS] = { 136, 256 },
  [GGML_F16] = { 2, 1 },
};

/* Norms and biases stay F32 (tensor_allows_quantization: 1-D tensors). */
#define GGUF_VECTOR_BYTES 4.0

bool
hr_weights_is_gguf (HrWeightPrecision weights)
{
  return weights >= HR_WEIGHTS_Q4_0 && weights < HR_WEIGHTS_N;
}

/* The file type's default tensor type (llama_model_quantize_impl). */
static GgmlType
gguf_default_type (HrWeightPrecision weights)
{
  switch (weights)
    {
    case HR_WEIGHTS_Q4_0:
      return GGML_Q4_0;
    case HR_WEIGHTS_Q4_K_M:
      return GGML_Q4_K;
    case HR_WEIGHTS_Q5_K_M:
      return GGML_Q5_K;
    case HR_WEIGHTS_Q6_K:
      return GGML_Q6_K;
    case HR_WEIGHTS_IQ2_XXS:
      return GGML_IQ2_XXS;
    case HR_WEIGHTS_IQ2_XS:
      return GGML_IQ2_XS;
    case HR_WEIGHTS_IQ3_XXS:
      return GGML_IQ3_XXS;
    case HR_WEIGHTS_IQ4_NL:
      return GGML_IQ4_NL;
    case HR_WEIGHTS_IQ4_XS:
      return GGML_IQ4_XS;
    case HR_WEIGHTS_Q8_0:
    default:
      return GGML_Q8_0;
    }
}

/* tensor_type_fallback: rows whose length (ne[0]) is not a multiple of the
 * block take the nearest 32-weight type (IQ4_NL for the IQ types, Q4_0 for
 * Q2_K and Q3_K), else F16. */
static GgmlType
gguf_fallback (GgmlType type,
               int64_t  columns)
{
  if (columns % (int64_t) ggml_types[type].block == 0)
    return type;
  switch (type)
    {
    case GGML_Q4_K:
      type = GGML_Q5_0;
      break;
    case GGML_Q5_K:
      type = GGML_Q5_1;
      break;
    case GGML_Q6_K:
      type = GGML_Q8_0;
      break;
    case GGML_Q2_K:
    case GGML_Q3_K:
      type = GGML_Q4_0;
      break;
    case GGML_IQ2_XXS:
    case GGML_IQ2_XS:
    case GGML_IQ2_S:
    case GGML_IQ3_XXS:
    case GGML_IQ3_S:
    case GGML_IQ4_XS:
      type = GGML_IQ4_NL;
      break;
    case GGML_IQ4_NL:
    case GGML_Q4_0:
    case GGML_Q5_0:
    case GGML_Q5_1:
    case GGML_Q8_0:
    case GGML_F16:
    default:
      break;
    }
  return columns % (int64_t) ggml_types[type].block == 0 ? type : GGML_F16;
}

static double
ggml_bytes (GgmlType type,
            double   elements)
{
  return elements * ggml_types[type].bytes / ggml_types[type].block;
}

double
hr_gguf_bytes_per_weight (HrWeightPrecision weights)
{
  return ggml_bytes (gguf_default_type (weights), 1.0);
}

/* llama-quant.cpp use_more_bits(i, n): i < n/8, i ≥ 7n/8, or (i − n/8) % 3
 * == 2 between. Counted over [first, last) without a walk: below n/8 and
 * from 7n/8 all; between, of the m layers from n/8 on, m/3 have j % 3 == 2. */
static int64_t
rich_below (int64_t n,
            int64_t x)
{
  int64_t lo = n / 8;
  int64_t hi = 7 * n / 8;

  if (x <= lo)
    return x;
  if (x <= hi)
    return lo + (x - lo) / 3;
  return lo + (hi - lo) / 3 + (x - hi);
}

static bool
is_mixed_k (HrWeightPrecision weights)
{
  return weights == HR_WEIGHTS_Q4_K_M || weights == HR_WEIGHTS_Q5_K_M;
}

static bool
is_iq2 (HrWeightPrecision weights)
{
  return weights == HR_WEIGHTS_IQ2_XXS || weights == HR_WEIGHTS_IQ2_XS;
}

int64_t
hr_gguf_rich_layers (const HrModel    *model,
                     HrWeightPrecision weights,
                     int64_t           first,
                     int64_t           last)
{
  int64_t eighth = model->n_layers / 8;

  if (is_mixed_k (weights))
    return rich_below (model->n_layers, last) - rich_below (model->n_layers, first);
  /* The IQ2 mixes: ffn_down of the first eighth of the layers. */
  if (is_iq2 (weights))
    return (last < eighth ? last : eighth) - (first < eighth ? first : eighth);
  return 0;
}

/* The types llama_tensor_get_type_impl (src/llama-quant.cpp) gives one
 * layer's matrices. The IQ files are taken as published, quantised with an
 * importance matrix (IQ1 and IQ2 require one; IQ3_XXS and IQ4 pick other
 * types without). */
typedef struct
{
  GgmlType q, k, v, o, down, rest;
} LayerTypes;

static void
gguf_layer_types (const HrModel    *model,
                  HrWeightPrecision weights,
                  bool              rich,
                  LayerTypes       *t)
{
  GgmlType base = gguf_default_type (weights);
  bool eight_experts = model->n_experts == 8;
  int64_t gqa = model->n_kv_heads > 0 ? model->n_heads / model->n_kv_heads : 1;

  *t = (LayerTypes) { base, base, base, base, base, base };
  if (is_iq2 (weights))
    {
      /* Their own branch: attn_v Q4_K with GQA ≥ 4 or ≥ 4 experts, else
       * Q2_K; attn_k Q4_K and attn_output Q5_K with eight experts; ffn_down
       * Q2_K in the first eighth. No 70B or eight-expert lifts beyond. */
      t->v = gqa >= 4 || model->n_experts >= 4 ? GGML_Q4_K : GGML_Q2_K;
      if (eight_experts)
        {
          t->k = GGML_Q4_K;
          t->o = GGML_Q5_K;
        }
      if (rich)
        t->down = GGML_Q2_K;
      return;
    }
  /* attn_v: Q6_K where use_more_bits in the _M mixes; IQ3_XXS Q4_K with
   * GQA ≥ 4; IQ4 Q5_K with GQA ≥ 4; a 70B (80 layers) lifts Q4_K to Q5_K;
   * eight experts (Mixtral) take Q8_0 for attn_v and attn_k. */
  if (is_mixed_k (weights) && rich)
    t->v = GGML_Q6_K;
  if (weights == HR_WEIGHTS_IQ3_XXS && gqa >= 4)
    t->v = GGML_Q4_K;
  if ((weights == HR_WEIGHTS_IQ4_XS || weights == HR_WEIGHTS_IQ4_NL) && gqa >= 4)
    t->v = GGML_Q5_K;
  if (model->n_layers == 80 && t->v == GGML_Q4_K)
    t->v = GGML_Q5_K;
  if (eight_experts)
    t->v = t->k = GGML_Q8_0;
  /* IQ3_XXS: attn_q and attn_k IQ2_S, attn_output IQ3_S. */
  if (weights == HR_WEIGHTS_IQ3_XXS)
    {
      t->q = GGML_IQ2_S;
      if (!eight_experts)
        t->k = GGML_IQ2_S;
      t->o = GGML_IQ3_S;
    }
  /* attn_output with eight experts: Q5_K in Q4_K_M, IQ3_XXS and the IQ4s. */
  if (eight_experts && (weights == HR_WEIGHTS_Q4_K_M || weights == HR_WEIGHTS_IQ3_XXS ||
                        weights == HR_WEIGHTS_IQ4_XS || weights == HR_WEIGHTS_IQ4_NL))
    t->o = GGML_Q5_K;
  /* ffn_down (dense, experts and shared experts alike): Q6_K where
   * use_more_bits in the _M mixes. */
  if (is_mixed_k (weights) && rich)
    t->down = GGML_Q6_K;
}

double
hr_gguf_layer_bytes (const HrModel    *model,
                     HrWeightPrecision weights,
                     bool              moe,
                     bool              rich,
                     int64_t           tensor_parallel,
                     double            matrices,
                     double            vectors)
{
  LayerTypes t;
  double tp = (double) tensor_parallel;
  double h = (double) model->hidden_size;
  double hd = (double) hr_model_head_dim (model);
  double kv = 0.0;
  double q = 0.0;
  double o = 0.0;
  double down;
  int64_t down_columns;

  gguf_layer_types (model, weights, rich, &t);
  if (hr_model_uses_mla (model))
    kv = (double) model->kv_lora_rank * (double) model->n_heads *
         (double) (model->qk_nope_head_dim + model->v_head_dim) / tp;
  else
    {
      /* One of K or V, this rank's share (a replicated head when tp > kv). */
      kv = h * hd * (model->n_kv_heads >= tensor_parallel ?
                     (double) model->n_kv_heads / tp : 1.0);
      q = o = (double) model->n_heads * hd * h / tp;
    }

  if (moe)
    {
      down = h * ((double) model->n_experts * (double) model->expert_ffn_size +
                  (double) (model->n_shared_experts * model->shared_expert_ffn_size)) / tp;
      down_columns = model->expert_ffn_size;
    }
  else
    {
      down = h * (double) model->ffn_size / tp;
      down_columns = model->ffn_size;
    }
  if (hr_model_uses_mla (model))
    {
      /* kv_b is the only attn_v-like tensor; K is inside kv_a, left at base. */
      double rest = fmax (matrices - kv - down, 0.0);

      return ggml_bytes (gguf_fallback (t.rest, model->hidden_size), rest) +
             ggml_bytes (gguf_fallback (t.v, model->kv_lora_rank), kv) +
             ggml_bytes (gguf_fallback (t.down, down_columns), down) +
             vectors * GGUF_VECTOR_BYTES;
    }
  {
    double rest = fmax (matrices - q - 2.0 * kv - o - down, 0.0);

    return ggml_bytes (gguf_fallback (t.rest, model->hidden_size), rest) +
           ggml_bytes (gguf_fallback (t.q, model->hidden_size), q) +
           ggml_bytes (gguf_fallback (t.k, model->hidden_size), kv) +
           ggml_bytes (gguf_fallback (t.v, model->hidden_size), kv) +
           ggml_bytes (gguf_fallback (t.o, model->n_heads * hr_model_head_dim (model)), o) +
           ggml_bytes (gguf_fallback (t.down, down_columns), down) +
           vectors * GGUF_VECTOR_BYTES;
  }
}

double
hr_gguf_vocab_bytes (const HrModel    *model,
                     HrWeightPrecision weights,
                     bool              head,
                     double            elements)
{
  GgmlType base = gguf_default_type (weights);
  int64_t columns = model->embed_proj_dim > 0 ? model->embed_proj_dim : model->hidden_size;
  GgmlType type = base;

  if (head || model->tied_embeddings)
    {
      /* output.weight, and token_embd when it doubles as the output: Q8_0
       * if the rows do not split into the base type's blocks; Q5_K in the
       * IQ2 and IQ3_XXS mixes; Q8_0 stays Q8_0; every other type Q6_K. */
      if (columns % (int64_t) ggml_types[base].block != 0)
        type = GGML_Q8_0;
      else if (is_iq2 (weights) || weights == HR_WEIGHTS_IQ3_XXS)
        type = GGML_Q5_K;
      else if (base != GGML_Q8_0)
        type = GGML_Q6_K;
    }
  else if (is_iq2 (weights))
    type = GGML_Q2_K;      /* an untied token_embd: Q2_K in the IQ2 mixes, */
  else if (weights == HR_WEIGHTS_IQ3_XXS)
    type = GGML_IQ3_S;     /* IQ3_S in IQ3_XXS, else the base type */
  return ggml_bytes (gguf_fallback (type, columns), elements);
}
