/* hr-inference.h: serving a model: memory per GPU, latency, throughput and what fits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Plain C11, no allocation. Fill an HrInference with hr_inference_init(),
 * set the fields, then ask for the memory, the latency or the limits; each
 * call validates the settings against the model first. Memory is per GPU,
 * for the most loaded pipeline stage; bytes are doubles holding integers
 * (exact below 2^53). docs/inference.md states every rule and its source.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hr-error.h"
#include "hr-gpu.h"
#include "hr-model.h"

/* Serving precision of the weights. int8 and int4 are weight-only and
 * group-wise (GPTQ/AWQ layout): each group of group_size weights of a row
 * stores one fp16 scale and one zero point at the weight's own width; awq
 * and gptq are int4 in that layout. The q* types are GGUF files as
 * llama.cpp quantises them, tensor by tensor (hr-serving.h). */
typedef enum
{
  HR_WEIGHTS_BF16,
  HR_WEIGHTS_FP16,
  HR_WEIGHTS_FP8,
  HR_WEIGHTS_INT8,
  HR_WEIGHTS_INT4,
  HR_WEIGHTS_AWQ,
  HR_WEIGHTS_GPTQ,
  HR_WEIGHTS_Q4_0,
  HR_WEIGHTS_Q4_K_M,
  HR_WEIGHTS_Q5_K_M,
  HR_WEIGHTS_Q6_K,
  HR_WEIGHTS_Q8_0,
  HR_WEIGHTS_IQ2_XXS,
  HR_WEIGHTS_IQ2_XS,
  HR_WEIGHTS_IQ3_XXS,
  HR_WEIGHTS_IQ4_NL,
  HR_WEIGHTS_IQ4_XS,
  HR_WEIGHTS_N
} HrWeightPrecision;

typedef enum
{
  HR_KV_FP32,
  HR_KV_BF16,
  HR_KV_FP16,
  HR_KV_FP8,
  HR_KV_INT8,
  HR_KV_Q8_0,          /* llama.cpp --cache-type-k/-v q8_0: 34 B per 32 */
  HR_KV_Q4_0,          /* llama.cpp q4_0: 18 B per 32 */
  HR_KV_N
} HrKvDtype;

typedef enum
{
  HR_BOUND_COMPUTE,
  HR_BOUND_MEMORY,
} HrBound;

/* Defaults set by hr_inference_init(); sources in docs/inference.md. */
#define HR_INFERENCE_DEFAULT_GROUP_SIZE          128   /* GPTQ and AWQ default */
#define HR_INFERENCE_DEFAULT_PAGED_BLOCK         16    /* vLLM default block_size */
#define HR_INFERENCE_DEFAULT_OVERHEAD_BYTES      (2.0 * 1024.0 * 1024.0 * 1024.0)
#define HR_INFERENCE_DEFAULT_COMPUTE_EFFICIENCY  0.5
#define HR_INFERENCE_DEFAULT_MEMORY_EFFICIENCY   0.7

typedef struct
{
  int64_t gpus;                /* must equal tensor_parallel × pipeline_parallel */
  int64_t tensor_parallel;
  int64_t pipeline_parallel;
  int64_t batch;               /* concurrent sequences */
  int64_t prompt;              /* prompt tokens per sequence, >= 1 */
  int64_t generate;            /* generated tokens per sequence; 0 = prefill only */

  HrWeightPrecision weights;
  int64_t group_size;          /* weights per quantisation group (int8/int4), >= 1 */
  bool    keep_embeddings_16bit; /* token embedding and LM head stay at 16 bit */
  HrKvDtype kv_dtype;
  int64_t paged_block;         /* tokens per KV block; 0 = contiguous (no rounding) */
  int64_t prefill_chunk;       /* tokens per sequence per prefill step; 0 = whole prompt */

  double  overhead_bytes;      /* CUDA context, CUDA graphs, allocator: per GPU */
  double  compute_efficiency;  /* achieved / peak FLOP/s, in (0, 1] */
  double  memory_efficiency;   /* achieved / peak memory bandwidth, in (0, 1] */
  double  price_per_gpu_hour;  /* currency units; 0 = no cost */
  bool    causal;              /* count causal attention FLOPs (half the s×s product) */
  bool    cap_sliding_window;  /* windowed layers keep only their window (vLLM) */
  bool    fp8_keep_attention;  /* fp8 weights: attention and the first and last layers
                                * stay 16-bit (Llama 3 FP8 recipe, docs/inference.md) */
} HrInference;

typedef struct
{
  double  weights;             /* at the serving precision, this GPU's shard */
  double  kv_cache;            /* batch × (prompt + generate), window-capped if set, paged */
  double  kv_cache_per_token;  /* one token of one sequence, all layers on this GPU */
  double  kv_cache_uncapped;   /* kv_cache without window capping (paged alike) */
  double  activations;         /* transient peak of one layer at the prefill chunk + logits */
  double  overhead;
  double  total;               /* weights + kv_cache + activations + overhead */
  double  capacity;            /* the GPU's memory */
  double  headroom;            /* capacity − total when it fits, else 0 */
  double  overflow;            /* total − capacity when it does not fit, else 0 */
  bool    fits;
  int64_t stage;               /* the pipeline stage described (the most loaded), from 0 */
  int64_t stage_layers;        /* layers on that stage */
  int64_t kv_heads_per_gpu;    /* KV heads each TP rank caches (1 for MLA: the latent) */
  double  kv_cache_windowed;   /* the part of kv_cache in sliding-window or chunked layers;
                                * the rest is in global layers */
} HrInferenceMemory;

typedef struct
{
  double  time_to_first_token;        /* s: the prefill */
  double  time_per_output_token;      /* s: mean decode step, (E2E − TTFT) / (generate − 1) */
  double  end_to_end;                 /* s: TTFT + (generate − 1) × TPOT */
  double  tokens_per_second;          /* generated tokens/s, all sequences */
  double  tokens_per_second_per_sequence;
  double  prefill_compute_time;       /* s: the products at the sustained rates (hr-rates.h) */
  double  prefill_memory_time;        /* s: weights and KV bytes / (bandwidth × efficiency) */
  double  prefill_elementwise_time;   /* s: norms, activation, rotary: memory-bound, in the TTFT */
  HrBound prefill_bound;
  double  decode_compute_time;        /* s: mean over the decode steps */
  double  decode_memory_time;         /* s: mean over the decode steps */
  double  decode_elementwise_time;    /* s: of one decode step, in the TPOT */
  HrBound decode_bound;
  double  prefill_allreduce_time;     /* s: TP all-reduces of the prefill, in the TTFT */
  double  decode_allreduce_time;      /* s: TP all-reduces of one decode step, in the TPOT */
  double  prefill_flops;              /* whole model, all GPUs */
  double  decode_flops;               /* whole model, mean decode step */
  double  cost_per_million_tokens;    /* price × gpus per generated million tokens; 0 if none */
} HrInferenceLatency;

typedef struct
{
  int64_t max_batch;           /* largest batch that fits at this context; 0 = none */
  int64_t max_context;         /* largest prompt + generate (generate kept) at this batch, at
                                * most the model's max_positions; 0 = none */
  int64_t min_gpus;            /* fewest tp × pp (up to 4096) that fit this batch and context; 0 = none */
  int64_t min_gpus_tensor_parallel;
  int64_t min_gpus_pipeline_parallel;
} HrInferenceLimits;

void     hr_inference_init     (HrInference       *inference);
HrStatus hr_inference_validate (const HrModel     *model,
                                const HrInference *inference,
                                HrError           *err);

HrStatus hr_inference_memory   (const HrModel      *model,
                                const HrInference  *inference,
                                const HrGpu        *gpu,
                                HrInferenceMemory  *memory,
                                HrError            *err);
HrStatus hr_inference_latency  (const HrModel      *model,
                                const HrInference  *inference,
                                const HrGpu        *gpu,
                                HrInferenceLatency *latency,
                                HrError            *err);
HrStatus hr_inference_limits   (const HrModel      *model,
                                const HrInference  *inference,
                                const HrGpu        *gpu,
                                HrInferenceLimits  *limits,
                                HrError            *err);

/* Bytes of one stored element (int4: 0.5, before group overhead; a GGUF
 * type: its main tensor type's block bytes per weight, scales included). */
double   hr_weight_precision_bytes (HrWeightPrecision precision);
double   hr_kv_dtype_bytes         (HrKvDtype         dtype);

/* "bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", "q4_0", "q4_k_m",
 * "q5_k_m", "q6_k", "q8_0", "iq2_xxs", "iq2_xs", "iq3_xxs", "iq4_nl", "iq4_xs" /
 * "fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q4_0".
 * from_name returns false for an unknown name and leaves *out unchanged. */
const char *hr_weight_precision_name      (HrWeightPrecision  precision);
bool        hr_weight_precision_from_name (const char        *name,
                                           HrWeightPrecision *out);
const char *hr_kv_dtype_name              (HrKvDtype          dtype);
bool        hr_kv_dtype_from_name         (const char        *name,
                                           HrKvDtype         *out);
const char *hr_bound_name                 (HrBound            bound); /* "compute", "memory" */
