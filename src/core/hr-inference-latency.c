/* hr-inference-latency.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Serving latency: a roofline per phase (Williams et al. 2009, "Roofline:
 * an insightful visual performance model"; Pope et al. 2022, "Efficiently
 * Scaling Transformer Inference", §2) over the layout of hr-inference.c.
 * docs/inference.md explains every rule.
 */
#include <math.h>

#include "hr-flops.h"
#include "hr-inference.h"
#include "hr-internal.h"
#include "hr-rates.h"

/* Decode steps summed one by one up to this many; beyond, evenly spaced
 * samples stand for the steps between them. */
#define MAX_DECODE_SAMPLES 8192

/* ---- Latency --------------------------------------------------------------- */

/* The precision the matrix products run at: 16-bit for bf16/fp16 and for
 * the weight-only int8/int4 kernels (W8A16/W4A16, weights dequantised on the
 * fly), fp8 tensor cores for fp8 where the GPU has them (vLLM falls back to
 * a W8A16 kernel otherwise). */
static HrDtype
compute_dtype (const HrGpu       *gpu,
               const HrInference *inf)
{
  HrDtype bf16 = gpu->peak_flops[HR_DTYPE_BF16] > 0.0 ? HR_DTYPE_BF16 : HR_DTYPE_FP16;
  HrDtype fp16 = gpu->peak_flops[HR_DTYPE_FP16] > 0.0 ? HR_DTYPE_FP16 : HR_DTYPE_BF16;

  switch (inf->weights)
    {
    case HR_WEIGHTS_FP8:
      return gpu->peak_flops[HR_DTYPE_FP8] > 0.0 ? HR_DTYPE_FP8 : bf16;
    case HR_WEIGHTS_FP16:
    case HR_WEIGHTS_INT8:
    case HR_WEIGHTS_INT4:
    case HR_WEIGHTS_AWQ:
    case HR_WEIGHTS_GPTQ:
    case HR_WEIGHTS_Q4_0:
    case HR_WEIGHTS_Q4_K_M:
    case HR_WEIGHTS_Q5_K_M:
    case HR_WEIGHTS_Q6_K:
    case HR_WEIGHTS_Q8_0:
    case HR_WEIGHTS_IQ2_XXS:
    case HR_WEIGHTS_IQ2_XS:
    case HR_WEIGHTS_IQ3_XXS:
    case HR_WEIGHTS_IQ4_NL:
    case HR_WEIGHTS_IQ4_XS:
      return fp16;
    case HR_WEIGHTS_BF16:
    case HR_WEIGHTS_N:
    default:
      return bf16;
    }
}

/* Seconds the matrix products of one step take on one TP rank
 * (docs/inference.md, "Rates"): each component's FLOPs (`parts`, the whole
 * model's) ÷ TP at the rate training uses (hr-rates.h: the catalog's
 * sustained rate, else peak × compute_efficiency) × the tile efficiency of
 * its product. `tokens` is the step's query tokens, `queries` and `keys`
 * one sequence's, `lm_rows` the LM head's rows. A prefill runs attention's
 * core as FlashAttention at the catalog's causal forward rate for `keys`;
 * a decode step's products are skinny (one row per sequence), run by GEMV
 * and narrow-tile kernels that pad no rows, so only n and k are padded
 * there, and its attention core, a memory-bound read of the cache, is
 * counted at the sustained rate. The LM head, router and attention core stay
 * 16-bit, as in fp8 serving (vLLM quantises the linear layers only). */
static double
products_time (const HrModel     *model,
               const HrInference *inf,
               const HrGpu       *gpu,
               const double       parts[HR_FLOPS_N_COMPONENTS],
               double             tokens,
               double             queries,
               double             keys,
               double             lm_rows,
               bool               prefill)
{
  HrDtype dtype = compute_dtype (gpu, inf);
  HrDtype dtype16 = dtype == HR_DTYPE_FP8
                    ? (gpu->peak_flops[HR_DTYPE_BF16] > 0.0 ? HR_DTYPE_BF16 : HR_DTYPE_FP16)
                    : dtype;
  double rate = hr_rates_gemm (gpu, dtype, inf->compute_efficiency);
  double rate16 = hr_rates_gemm (gpu, dtype16, inf->compute_efficiency);
  double t = (double) inf->tensor_parallel;
  double h = (double) model->hidden_size;
  double hd = (double) hr_model_head_dim (model);
  double q = (double) model->n_heads * hd / t;
  double qkv = q * (model->attention_gate ? 2.0 : 1.0)  /* AFMoE's gate_proj beside q */
               + 2.0 * (double) hr_inference_kv_heads_per_gpu (model, inf) * hd;
  bool moe = model->n_experts > 0;
  double ffn = (double) (moe ? model->expert_ffn_size : model->ffn_size)
               * (model->ffn_kind == HR_FFN_GATED ? 2.0 : 1.0) / t;  /* gate and up fused */
  double expert_rows = moe ? tokens * (double) model->experts_per_token / (double) model->n_experts
                           : tokens;
  double rows = prefill ? tokens : HR_RATES_TILE_MN;
  double spf[HR_FLOPS_N_COMPONENTS];
  double fwd, total = 0.0;

  spf[HR_FLOPS_ATTN_PROJ] = 1.0 / (rate * hr_rates_tile (rows, qkv, h));
  spf[HR_FLOPS_ATTN_OUT] = 1.0 / (rate * hr_rates_tile (rows, h, q));
  spf[HR_FLOPS_MLP] = 1.0 / (rate * hr_rates_tile (prefill ? expert_rows : rows, ffn, h));
  spf[HR_FLOPS_ROUTER] = 1.0 / (rate16 * hr_rates_tile (rows, (double) (moe ? model->n_experts
                                                                              + model->zero_experts
                                                                            : 1), h));
  spf[HR_FLOPS_LM_HEAD] = 1.0 / (rate16 * hr_rates_tile (prefill ? lm_rows : rows,
                                                         (double) model->vocab_size / t, h));
  if (!prefill)
    spf[HR_FLOPS_ATTN_SCORES] = spf[HR_FLOPS_ATTN_OVER_V] = 1.0 / rate16;
  else if (hr_rates_attention_forward_seconds_per_flop (gpu, keys, inf->causal, &fwd))
    spf[HR_FLOPS_ATTN_SCORES] = spf[HR_FLOPS_ATTN_OVER_V] = fwd;
  else
    {
      spf[HR_FLOPS_ATTN_SCORES] = 1.0 / (rate16 * hr_rates_tile (queries, keys, hd));
      spf[HR_FLOPS_ATTN_OVER_V] = 1.0 / (rate16 * hr_rates_tile (queries, hd, keys));
    }
  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    total += parts[c] / t * spf[c];
  return total;
}

/* What one forward step over the whole model reads per TP rank: every
 * weight except the token embedding table (a lookup touches `tokens` rows;
 * a tied table is read whole as the LM head), and of the routed experts
 * (and JetMoE's attention experts) only those some token chose. With uniform
 * routing an expert is missed by all `tokens` tokens with probability
 * (1 − k/E)^tokens. */
typedef struct
{
  double weights;         /* all stages, this rank's shard */
  double embedding_table; /* the part not read by a lookup */
  double routed_experts;  /* this rank's shard of every routed expert */
  double attention_experts; /* likewise of JetMoE's attention experts' q and o */
  int64_t sliding_layers; /* layers capped at the window when reading */
  double kv_token_layer;  /* bytes per token and layer on this rank */
  double elementwise;     /* bytes the memory-bound kernels move per token, all layers */
} ModelReads;

/* Bytes the memory-bound kernels of one token move through every layer on
 * one TP rank, 16-bit activations, as vLLM's kernels do them (csrc/):
 * each norm fused with the residual add before it (`fused_add_rms_norm`:
 * reads the input and the residual, writes both, 4·h elements), the gated
 * activation (`silu_and_mul`: reads gate and up, writes their product,
 * 3·ffn/tp; 2·ffn/tp ungated) for each expert a token runs, and rotary
 * embedding in place on q and k (`rotary_embedding`: reads and writes them,
 * 2·(q + kv)/tp). TensorRT-LLM and LMDeploy fuse the same passes. */
static double
elementwise_bytes (const HrModel     *model,
                   const HrInference *inf)
{
  double t = (double) inf->tensor_parallel;
  double h = (double) model->hidden_size;
  double hd = (double) hr_model_head_dim (model);
  double ffn = (double) model->ffn_size;
  double per_layer;

  if (model->n_experts > 0)
    ffn = (double) model->experts_per_token * (double) model->expert_ffn_size
          + (double) model->n_shared_experts * (double) model->shared_expert_ffn_size;
  per_layer = 4.0 * h * (double) model->norms_per_layer
              + (model->ffn_kind == HR_FFN_GATED ? 3.0 : 2.0) * ffn / t;
  if (model->positions == HR_POSITIONS_ROTARY)
    per_layer += 2.0 * ((double) model->n_heads * hd / t
                        + (double) hr_inference_kv_heads_per_gpu (model, inf) * hd);
  return per_layer * (double) model->n_layers * BYTES_16BIT;
}

static void
model_reads (const HrModel     *model,
             const HrInference *inf,
             const HrParams    *params,
             const HrGpu       *gpu,
             ModelReads        *r)
{
  *r = (ModelReads) { 0 };
  for (int64_t stage = 0; stage < inf->pipeline_parallel; stage++)
    {
      HrInferenceMemory m;

      hr_inference_stage_memory (model, inf, params, gpu, stage, &m);
      r->weights += m.weights;
    }
  if (!model->tied_embeddings || inf->pipeline_parallel > 1)
    r->embedding_table = hr_inference_vocab_table_bytes (model, inf, false, false);
  r->routed_experts = hr_inference_matrix_bytes (inf, (double) params->routed_experts /
                                                      (double) inf->tensor_parallel);
  r->attention_experts = hr_inference_matrix_bytes (inf, 2.0 * (double) model->n_layers
                                                         * (double) model->attention_experts
                                                         * (double) model->hidden_size
                                                         * (double) model->n_kv_heads
                                                         * (double) hr_model_head_dim (model)
                                                         / (double) inf->tensor_parallel);
  {
    HrLayerCounts counts;

    hr_model_count_layers (model, 0, model->n_layers, &counts);
    r->sliding_layers = counts.n[0][1] + counts.n[1][1];
  }
  r->kv_token_layer = hr_inference_kv_bytes_per_token_layer (model, inf);
  r->elementwise = elementwise_bytes (model, inf);
}

static double
weights_read (const HrModel    *model,
              const ModelReads *r,
              double            tokens)
{
  double used = 1.0, used_attention = 1.0;

  if (model->n_experts > 0)
    used = 1.0 - pow (1.0 - (double) model->experts_per_token / (double) model->n_experts, tokens);
  if (model->attention_experts > 0)
    used_attention = 1.0 - pow (1.0 - (double) (model->n_heads / model->n_kv_heads)
                                      / (double) model->attention_experts, tokens);
  return r->weights - r->embedding_table - r->routed_experts * (1.0 - used)
         - r->attention_experts * (1.0 - used_attention);
}

/* KV bytes attention reads on one rank for one sequence of `context` tokens:
 * windowed layers read their window only, whatever the engine keeps. */
static double
kv_read (const HrModel    *model,
         const ModelReads *r,
         int64_t           context)
{
  double global = (double) (model->n_layers - r->sliding_layers) * (double) context;
  double windowed = (double) r->sliding_layers *
                    (double) (model->sliding_window < context ? model->sliding_window : context);

  return (global + windowed) * r->kv_token_layer;
}

/* NCCL's latency for a ring all-reduce of small messages (LL protocol)
 * within an NVLink node, from its own cost model (src/graph/tuning.cc,
 * ncclTopoTuneModel: baseLat Ring/LL 6.6 µs plus hwLat NVLink Ring/LL 0.6 µs
 * for each of the 2(n − 1) steps). */
#define NCCL_RING_LL_BASE_LATENCY 6.6e-6
#define NCCL_NVLINK_RING_LL_STEP_LATENCY 0.6e-6

/* Ring all-reduce (Patarasuk & Yuan 2009): each rank sends and receives
 * 2(n − 1)/n of the buffer, after NCCL's latency for the call. Two per
 * layer in Megatron TP (§3: after the attention and after the MLP), over
 * every layer of every stage, `calls` times (once per prefill chunk). */
static double
allreduce_time (const HrModel     *model,
                const HrInference *inf,
                const HrGpu       *gpu,
                double             tokens,
                double             calls)
{
  double n = (double) inf->tensor_parallel;
  double bytes = tokens * (double) model->hidden_size * BYTES_16BIT;
  double latency = NCCL_RING_LL_BASE_LATENCY + 2.0 * (n - 1.0) * NCCL_NVLINK_RING_LL_STEP_LATENCY;

  if (inf->tensor_parallel == 1)
    return 0.0;
  return 2.0 * (double) model->n_layers *
         (calls * latency + 2.0 * (n - 1.0) / n * bytes / gpu->intra_node_bandwidth);
}

HrStatus
hr_inference_latency (const HrModel      *model,
                      const HrInference  *inf,
                      const HrGpu        *gpu,
                      HrInferenceLatency *lat,
                      HrError            *err)
{
  HrParams params;
  HrStatus status;
  ModelReads reads;
  double parts[HR_FLOPS_N_COMPONENTS];
  double bandwidth;
  double batch = (double) inf->batch;
  int64_t chunk;
  int64_t chunks;
  int64_t steps = inf->generate > 0 ? inf->generate - 1 : 0;
  int64_t samples;
  double decode_time = 0.0;

  if ((status = hr_inference_validate (model, inf, err)) != HR_OK ||
      (status = hr_inference_validate_gpu (gpu, err)) != HR_OK ||
      (status = hr_model_params (model, &params, err)) != HR_OK)
    return status;

  bandwidth = hr_rates_bandwidth (gpu, inf->memory_efficiency);
  if (!(hr_rates_gemm (gpu, compute_dtype (gpu, inf), inf->compute_efficiency) > 0.0))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "peak_flops", 0, 0,
                         "the GPU lists no peak for this precision");
  if (!(bandwidth > 0.0 && isfinite (bandwidth)))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "memory_bandwidth", 0, 0, NULL);
  if (inf->tensor_parallel > 1 && !(gpu->intra_node_bandwidth > 0.0))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "intra_node_bandwidth", 0, 0,
                         "tensor parallelism needs the GPU interconnect bandwidth");

  model_reads (model, inf, &params, gpu, &reads);
  *lat = (HrInferenceLatency) { 0 };

  /* Prefill: one roofline over the whole prompt. The weights are read once
   * per chunk; the prompt's K and V are written once. */
  chunk = hr_inference_prefill_chunk_tokens (inf);
  chunks = (inf->prompt + chunk - 1) / chunk;
  lat->prefill_flops = hr_flops_prefill_components (model, inf->batch, inf->prompt, inf->causal,
                                                    parts);
  lat->prefill_compute_time = products_time (model, inf, gpu, parts, batch * (double) chunk,
                                             (double) chunk, (double) inf->prompt, batch, true);
  lat->prefill_memory_time = ((double) chunks * weights_read (model, &reads, batch * (double) chunk) +
                              batch * (double) inf->prompt * (double) model->n_layers *
                              reads.kv_token_layer) / bandwidth;
  lat->prefill_bound = lat->prefill_compute_time >= lat->prefill_memory_time ?
                       HR_BOUND_COMPUTE : HR_BOUND_MEMORY;
  lat->prefill_allreduce_time = allreduce_time (model, inf, gpu, batch * (double) inf->prompt,
                                                 (double) chunks);
  lat->prefill_elementwise_time = batch * (double) inf->prompt * reads.elementwise / bandwidth;
  lat->time_to_first_token = fmax (lat->prefill_compute_time, lat->prefill_memory_time) +
                             lat->prefill_elementwise_time + lat->prefill_allreduce_time;

  /* Decode: step j (1 ≤ j < generate) feeds token j at position
   * prompt + j − 1 and attends over prompt + j tokens, itself included. */
  lat->decode_allreduce_time = steps > 0 ? allreduce_time (model, inf, gpu, batch, 1.0) : 0.0;
  lat->decode_elementwise_time = steps > 0 ? batch * reads.elementwise / bandwidth : 0.0;
  samples = steps < MAX_DECODE_SAMPLES ? steps : MAX_DECODE_SAMPLES;
  for (int64_t i = 0; i < samples; i++)
    {
      /* Sample i stands for steps [first, last]; its middle step is timed. */
      int64_t first = 1 + i * steps / samples;
      int64_t last = (i + 1) * steps / samples;
      int64_t j = (first + last) / 2;
      double weight = (double) (last - first + 1);
      double flops = hr_flops_decode_token_components (model, inf->batch, inf->prompt + j, parts);
      double compute = products_time (model, inf, gpu, parts, batch, 1.0,
                                      (double) (inf->prompt + j), batch, false);
      double memory = (weights_read (model, &reads, batch) +
                       batch * kv_read (model, &reads, inf->prompt + j)) / bandwidth;

      lat->decode_flops += weight * flops;
      lat->decode_compute_time += weight * compute;
      lat->decode_memory_time += weight * memory;
      decode_time += weight * (fmax (compute, memory) + lat->decode_elementwise_time +
                               lat->decode_allreduce_time);
    }
  if (steps > 0)
    {
      lat->decode_flops /= (double) steps;
      lat->decode_compute_time /= (double) steps;
      lat->decode_memory_time /= (double) steps;
      lat->time_per_output_token = decode_time / (double) steps;
    }
  lat->decode_bound = lat->decode_compute_time >= lat->decode_memory_time ?
                      HR_BOUND_COMPUTE : HR_BOUND_MEMORY;

  lat->end_to_end = lat->time_to_first_token + decode_time;
  if (inf->generate > 0)
    {
      double generated = batch * (double) inf->generate;

      lat->tokens_per_second = generated / lat->end_to_end;
      lat->tokens_per_second_per_sequence = (double) inf->generate / lat->end_to_end;
      lat->cost_per_million_tokens = inf->price_per_gpu_hour * (double) inf->gpus *
                                     lat->end_to_end / 3600.0 / generated * 1e6;
    }
  return HR_OK;
}
