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
/* TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction. */
#define HR_SERVING_DEFAULT_TRTLLM_FREE_FRACTION   0.9
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
} HrServing;

typedef struct
{
  double  total;                   /* bytes the driver reports (or the catalog's memory) */
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
  double  max_concurrency;         /* kv_capacity_tokens / max_model_len */
  bool    fits;                    /* one request of max_model_len fits */
} HrServingPlan;

void     hr_serving_init (HrServing *serving);
HrStatus hr_serving_plan (const HrModel     *model,
                          const HrInference *inference,
                          const HrServing   *serving,
                          const HrGpu       *gpu,
                          HrServingPlan     *plan,
                          HrError           *err);

/* Bytes the driver reports: driver_memory_bytes when the catalog knows it,
 * else memory_bytes. */
double      hr_gpu_driver_memory (const HrGpu *gpu);

/* "hf", "vllm", "sglang", "trtllm", "llamacpp". */
const char *hr_engine_name       (HrEngine    engine);
bool        hr_engine_from_name  (const char *name,
                                  HrEngine   *out);
