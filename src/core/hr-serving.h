/* hr-serving.h: how serving engines plan a GPU's memory: KV capacity and concurrency
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Plain C11, no allocation. An engine sizes its KV cache once at start-up
 * from the memory the driver reports, the weights, a profiling peak and its
 * own reserve, then admits as many requests as the cache holds. Fill an
 * HrServing with hr_serving_init(), pick the engine, and ask for the plan of
 * an HrInference (its layout, precisions and KV block). docs/inference.md,
 * "Serving engines", gives every rule and its source.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hr-error.h"
#include "hr-gpu.h"
#include "hr-inference.h"
#include "hr-model.h"

typedef enum
{
  HR_ENGINE_HF,        /* transformers generate(): what is left after the estimate */
  HR_ENGINE_VLLM,
  HR_ENGINE_SGLANG,
  HR_ENGINE_TRTLLM,
  HR_ENGINE_LLAMACPP,
  HR_ENGINE_N
} HrEngine;

/* vLLM CacheConfig.gpu_memory_utilization and SchedulerConfig.max_num_seqs. */
#define HR_SERVING_DEFAULT_GPU_MEMORY_UTILIZATION 0.9
#define HR_SERVING_DEFAULT_MAX_NUM_SEQS           256
/* Two channels of DDR5-5600 (JEDEC JESD79-5): 2 × 8 B × 5.6e9 transfers/s,
 * a current desktop's host memory bandwidth. */
#define HR_SERVING_DEFAULT_CPU_MEMORY_BANDWIDTH   89.6e9
/* CPU work of one vLLM engine step that the GPU waits for: scheduling,
 * preparing the step's inputs, copying the sampled tokens back and turning
 * them into outputs. The profiler traces in vllm-project/vllm RFC #6854
 * ("Multi-Step Scheduling"; its PR #7000 benchmarks Llama 3 8B) show about
 * 4 ms of GPU idle per decode step. */
#define HR_SERVING_VLLM_FIRST_TOKEN_OVERHEAD      0.004
/* TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction. */
#define HR_SERVING_DEFAULT_TRTLLM_FREE_FRACTION   0.9
/* TensorRT-LLM KvCacheConfig.tokens_per_block (tensorrt_llm/llmapi/
 * llm_args.py, the LLM API and trtllm-serve); engines built by older
 * releases set it in PluginConfig: 128 at NVIDIA/TensorRT-LLM 035b99e0. */
#define HR_SERVING_TRTLLM_TOKENS_PER_BLOCK        32
/* Memory an engine allocates outside PyTorch (cuBLAS and NCCL workspaces,
 * the CUDA context's growth), as vLLM's profiles print it: 0.16 GiB on one
 * H100 (vllm PR #12126), 0.20 GiB per RTX 3090 at TP 4 (PR #14447). */
#define HR_SERVING_DEFAULT_NON_TORCH_BYTES        (0.2 * 1024.0 * 1024.0 * 1024.0)

typedef struct
{
  HrEngine engine;
  /* Fraction of the driver's total the engine may use: vLLM
   * gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM
   * kv_cache_free_gpu_mem_fraction (of the memory left free). 0 = the
   * engine's default. Ignored by hf and llama.cpp. */
  double   gpu_memory_utilization;
  int64_t  max_model_len;          /* tokens per request; 0 = prompt + generate */
  int64_t  max_num_batched_tokens; /* tokens of the profiling step; 0 = engine default */
  int64_t  max_num_seqs;           /* sequences per step; 0 = 256 */
  int64_t  gpu_layers;             /* llama.cpp --gpu-layers; < 0 = all (and the output) */
  double   non_torch_bytes;        /* < 0 = HR_SERVING_DEFAULT_NON_TORCH_BYTES */
  double   cpu_memory_bandwidth;   /* host memory, bytes/s, for layers left on the CPU */
  /* s of engine step work a request waits for around its prefill (< 0 =
   * the engine's default: vLLM HR_SERVING_VLLM_FIRST_TOKEN_OVERHEAD, the
   * others 0, no published figure). */
  double   first_token_overhead;
} HrServing;

typedef struct
{
  double  total;                   /* bytes the driver reports (or the catalog's memory) */
  bool    total_from_datasheet;    /* no published driver figure: total is the datasheet's,
                                    * an upper bound on what the driver reports */
  double  usable;                  /* bytes the engine may use for weights, activations, KV */
  double  weights;                 /* on this GPU */
  double  activations;             /* the profiling run's peak */
  double  non_torch;
  double  kv_cache;                /* bytes set aside for the KV cache; 0 if none is left */
  double  kv_per_token;            /* one token, all layers on this GPU */
  int64_t block_size;              /* tokens per KV block (1 = unpaged) */
  int64_t kv_blocks;
  int64_t kv_capacity_tokens;      /* kv_blocks × block_size */
  int64_t max_model_len;           /* resolved */
  int64_t max_num_batched_tokens;  /* resolved */
  int64_t gpu_layers;              /* layers on the GPU (llama.cpp), else all */
  double  cpu_weights;             /* llama.cpp: weights left in host memory */
  double  cpu_kv_cache;            /* llama.cpp: their layers' KV cache, in host memory */
  double  cpu_decode_time;         /* llama.cpp: s per token reading them at the CPU's bandwidth */
  double  gpu_decode_time;         /* llama.cpp: s per token reading the GPU's part */
  double  max_concurrency;         /* kv_capacity_tokens / max_model_len */
  bool    fits;                    /* one request of max_model_len fits */
} HrServingPlan;

typedef struct
{
  int64_t running;               /* sequences in flight: batch capped by max_num_seqs and the KV cache */
  int64_t waves;                 /* ⌈batch ÷ running⌉ rounds of admission */
  int64_t prefill_chunk;         /* prompt tokens per sequence per step (budget ÷ running) */
  double  first_token_overhead;  /* s: the engine's step work before a first token */
  double  time_to_first_token;   /* s: the first wave's prefill steps + the overhead */
  double  time_per_output_token; /* s: a decode step of `running` sequences */
  double  end_to_end;            /* s: every wave, one after the other */
  double  tokens_per_second;     /* generated tokens/s over the whole batch */
  /* A request arriving while running − 1 others decode (Sarathi-Serve's
   * stall-free schedule): each step carries their decode tokens and a
   * chunk of its prompt in the rest of the step budget. */
  int64_t loaded_prefill_chunk;  /* prompt tokens per step: budget − (running − 1) */
  int64_t loaded_prefill_steps;  /* ⌈prompt ÷ chunk⌉ */
  double  time_to_first_token_loaded; /* s, with the overhead */
} HrServingLatency;

void     hr_serving_init (HrServing *serving);
HrStatus hr_serving_plan (const HrModel     *model,
                          const HrInference *inference,
                          const HrServing   *serving,
                          const HrGpu       *gpu,
                          HrServingPlan     *plan,
                          HrError           *err);

/* Continuous batching (Yu et al. 2022, Orca) of inference->batch requests
 * under the plan: at most `running` in flight, the rest wait for a slot;
 * each wave's prompts prefilled in chunks of the step budget
 * (max_num_batched_tokens, Sarathi-Serve: Agrawal et al. 2024), then
 * decoded together. The times come from hr_inference_latency(). */
HrStatus hr_serving_latency (const HrModel       *model,
                             const HrInference   *inference,
                             const HrServing     *serving,
                             const HrGpu         *gpu,
                             const HrServingPlan *plan,
                             HrServingLatency    *latency,
                             HrError             *err);

/* Bytes the driver reports: driver_memory_bytes when the catalog knows it,
 * else memory_bytes. */
double      hr_gpu_driver_memory (const HrGpu *gpu);

/* "hf", "vllm", "sglang", "trtllm", "llamacpp". */
const char *hr_engine_name       (HrEngine    engine);
bool        hr_engine_from_name  (const char *name,
                                  HrEngine   *out);

/* ---- GGUF files (llama.cpp) ------------------------------------------------ */

/* Whether the weights are one of the GGUF types (q4_0 … iq4_xs). */
bool   hr_weights_is_gguf       (HrWeightPrecision weights);
/* Block bytes per weight of the type's main tensor type (ggml-common.h):
 * Q4_0 18/32, Q4_K 144/256, Q5_K 176/256, Q6_K 210/256, Q8_0 34/32,
 * IQ2_XXS 66/256, IQ2_XS 74/256, IQ3_XXS 98/256, IQ4_NL 18/32, IQ4_XS 136/256. */
double hr_gguf_bytes_per_weight (HrWeightPrecision weights);
/* Bytes of one layer of a GGUF file: `matrices` elements (this rank's
 * share) at the types llama-quant.cpp picks tensor by tensor, `vectors` in
 * F32. `rich`: a layer the file type lifts (use_more_bits in the _M mixes:
 * attn_v and ffn_down Q6_K; the first eighth in the IQ2 mixes: ffn_down
 * Q2_K); `moe`: an MoE layer. */
double  hr_gguf_layer_bytes     (const HrModel    *model,
                                 HrWeightPrecision weights,
                                 bool              moe,
                                 bool              rich,
                                 int64_t           tensor_parallel,
                                 double            matrices,
                                 double            vectors);
/* How many of layers [first, last) the file type lifts (llama-quant.cpp). */
int64_t hr_gguf_rich_layers     (const HrModel    *model,
                                 HrWeightPrecision weights,
                                 int64_t           first,
                                 int64_t           last);
/* Bytes of `elements` of the token embedding (head false) or the output
 * matrix (head true); a tied table is quantised as the output. */
double hr_gguf_vocab_bytes      (const HrModel    *model,
                                 HrWeightPrecision weights,
                                 bool              head,
                                 double            elements);
