/* hr-planner.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The step-time model; the layout search is in hr-planner-search.c.
 * docs/planner.md derives every term; the comments here name the source
 * of each.
 */
#include <math.h>
#include <string.h>

#include "hr-internal.h"
#include "hr-planner.h"
#include "hr-rates.h"

/* Rank order of the process grid, innermost first: tp, cp, dp, pp
 * (Megatron-LM's default), so a TP group is contiguous within a node. */

void
hr_plan_assumptions_init (HrPlanAssumptions *assumptions)
{
  *assumptions = (HrPlanAssumptions) {
    .gemm_efficiency = 0.75,
    .memory_efficiency = 0.80,
    .link_efficiency = 0.80,
    /* NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel):
     * hwLat of a ring step with the Simple protocol, which NCCL picks for
     * the megabytes a training step moves: 3.4 µs over NVLink, 14 µs
     * over the network (docs/planner.md, "Assumptions"). */
    .intra_node_latency = 3.4e-6,
    .inter_node_latency = 14e-6,
  };
}

void
hr_plan_request_init (HrPlanRequest *request)
{
  memset (request, 0, sizeof *request);
  hr_training_init (&request->training);
  request->zero_stage = HR_PLAN_FREE;
  request->fsdp = HR_PLAN_FREE;
  request->sequence_parallel = HR_PLAN_FREE;
  request->recompute = HR_PLAN_FREE;
  hr_plan_assumptions_init (&request->assumptions);
}

const char *
hr_plan_bound_name (HrPlanBound bound)
{
  switch (bound)
    {
    case HR_PLAN_BOUND_COMPUTE:
      return "compute";
    case HR_PLAN_BOUND_MEMORY:
      return "memory";
    case HR_PLAN_BOUND_COMMUNICATION:
      return "communication";
    case HR_PLAN_BOUND_BUBBLE:
      return "bubble";
    default:
      return "unknown";
    }
}

const char *
hr_plan_comm_name (HrPlanComm comm)
{
  switch (comm)
    {
    case HR_PLAN_COMM_TP:
      return "tp";
    case HR_PLAN_COMM_PP:
      return "pp";
    case HR_PLAN_COMM_DP:
      return "dp";
    case HR_PLAN_COMM_CP:
      return "cp";
    case HR_PLAN_COMM_EP:
      return "ep";
    case HR_PLAN_COMM_N:
    default:
      return "unknown";
    }
}

static double
dtype_bytes (HrDtype dtype)
{
  switch (dtype)
    {
    case HR_DTYPE_FP32:
    case HR_DTYPE_TF32:
      return 4.0;
    case HR_DTYPE_FP8:
    case HR_DTYPE_INT8:
      return 1.0;
    case HR_DTYPE_BF16:
    case HR_DTYPE_FP16:
    case HR_DTYPE_N:
    default:
      return 2.0;
    }
}

/* Bytes of an activation element: FP8 recipes keep activations in bf16
 * (Transformer Engine casts only the matrix-product inputs). */
static double
activation_bytes (HrDtype dtype)
{
  return dtype == HR_DTYPE_FP8 ? 2.0 : dtype_bytes (dtype);
}

/* Bytes of an element in the working dtype: fp32, else 16-bit. */
static double
working_bytes (const HrTraining *training)
{
  return training->precision == HR_PRECISION_FP32 ? 4.0 : 2.0;
}

/* Bytes of a weight element and of a gradient element as communicated:
 * fp8 parameters are gathered in fp8 (Megatron's --fp8-param-gather, "perform
 * the param all-gather in fp8"), their transposes made after the gather. */
static double
weight_bytes (const HrTraining *training)
{
  return training->fp8_params && training->precision == HR_PRECISION_FP8_MIXED
         ? 1.0 : working_bytes (training);
}

/* Mixed precision reduces fp32 gradients when asked to (Megatron's
 * main_grad) or when autocast trains fp32 parameters (hr-training.h). */
static double
gradient_bytes (const HrTraining *training)
{
  bool mixed = training->precision == HR_PRECISION_BF16_MIXED
               || training->precision == HR_PRECISION_FP16_MIXED
               || training->precision == HR_PRECISION_FP8_MIXED;

  if (mixed && (training->fp32_gradients || hr_training_autocast (training)))
    return 4.0;
  return working_bytes (training);
}

/* FSDP1's split of the gradient average over `ranks` (PyTorch
 * DefaultState._get_gradient_predivide_factor, which _init_process_group_state
 * takes for the whole data-parallel group): from 1, doubled while it divides
 * `ranks` and ranks / factor exceeds it (8 ranks: 4). The postdivide factor
 * is the rest (8 ranks: 2). */
static double
gradient_predivide_factor (double ranks)
{
  double factor = 1.0;

  while (fmod (ranks, factor) == 0.0 && ranks / factor > factor)
    factor *= 2.0;
  return factor;
}

/* The rate large products sustain in `dtype` (hr-rates.h). */
static double
gemm_rate (const HrPlanContext *ctx,
           HrDtype              dtype)
{
  return hr_rates_gemm (ctx->gpu, dtype, ctx->as.gemm_efficiency);
}

static bool
attention_seconds_per_flop (const HrPlanContext *ctx,
                            HrFlashKernel        kernel,
                            double               len,
                            bool                 causal,
                            double              *fwd,
                            double              *bwd)
{
  return hr_rates_attention_seconds_per_flop (ctx->gpu, kernel, len, causal, fwd, bwd);
}

/* Bytes one layer's ring attention moves in PyTorch's eager merge and
 * accumulation ops (torch/distributed/tensor/experimental/_attention.py:
 * _templated_ring_attention and its backward, convert_to_f32 and load
 * balancing on), on the rank that pays most: the last, whose c − 1 later
 * steps all take the whole query. `elements` = local tokens × query heads ×
 * head_dim (the output; K and V are as large once expanded), `a` bytes per
 * 16-bit element, fp32 = 4.
 * Forward: K, V made contiguous (4a) and concatenated for the exchange at
 * each step but the last ((c − 1)·4a); each step's output cast to fp32
 * (a + 4; nothing in fp32) and, after the first, merged by
 * out − sigmoid(lse' − lse)·(out − out'): 12 + 8 + 12 = 32; the result cast
 * back (4 + a).
 * Backward: fp32 zeros for the three gradients (12), K, V contiguous (4a) and
 * concatenated ((c − 1)·4a); the first step adds the kernel's 16-bit
 * gradients into q, k, v (3·(8 + a)); each later step adds q's (8 + a) and
 * updates half of k's and v's, then concatenates each back (2·((8 + a)/2 +
 * 8)); the fp32 K/V gradients are concatenated for the next hop at every
 * step (16c); the results cast back (4 + a for q, 8 + 2a for k and v). */
static void
torch_ring_bytes (double  c,
                  double  a,
                  double  elements,
                  double *forward,
                  double *backward)
{
  double to_fp32 = a < 4.0 ? a + 4.0 : 0.0;
  double from_fp32 = a < 4.0 ? 4.0 + a : 0.0;

  *forward = elements * (4.0 * a + (c - 1.0) * 4.0 * a + to_fp32 + (c - 1.0) * (to_fp32 + 32.0)
                         + from_fp32);
  *backward = elements * (12.0 + 4.0 * a + (c - 1.0) * 4.0 * a + 3.0 * (8.0 + a)
                          + (c - 1.0) * (2.0 * (8.0 + a) + 16.0) + 16.0 * c
                          + from_fp32 + (a < 4.0 ? 8.0 + 2.0 * a : 0.0));
}

/* Seconds per FLOP of one rank's attention core. Context parallelism splits
 * the sequence into 2·c chunks, two per rank (Megatron-Core's load
 * balancing for a causal mask): a rank runs its own chunks against
 * themselves under the mask (1/c of its FLOPs, s/c tokens) and c − 1
 * unmasked steps of s/(2c)-token blocks; without a mask, c unmasked steps
 * of s/c tokens. A sliding window caps the keys. */
static bool
core_seconds_per_flop (const HrPlanContext *ctx,
                       HrFlashKernel        kernel,
                       double               s,
                       double               c,
                       double               keys,
                       bool                 causal,
                       double              *fwd,
                       double              *bwd)
{
  double diag_fwd, diag_bwd, off_fwd, off_bwd;
  double block = s / c < keys ? s / c : keys;
  double half = s / (2.0 * c) < keys ? s / (2.0 * c) : keys;

  if (c <= 1.0 || !causal)
    return attention_seconds_per_flop (ctx, kernel, block, causal, fwd, bwd);
  if (!attention_seconds_per_flop (ctx, kernel, block, true, &diag_fwd, &diag_bwd)
      || !attention_seconds_per_flop (ctx, kernel, half, false, &off_fwd, &off_bwd))
    return false;
  *fwd = diag_fwd / c + (c - 1.0) / c * off_fwd;
  *bwd = diag_bwd / c + (c - 1.0) / c * off_bwd;
  return true;
}

/* Seconds per FLOP of an m×k by k×n product: its roofline (hr-rates.h) at
 * the bandwidth this GPU sustains. */
static double
gemm_seconds_per_flop (const HrPlanContext *ctx,
                       double               rate,
                       double               elem,
                       double               m,
                       double               n,
                       double               k,
                       bool                 write_out)
{
  return hr_rates_gemm_seconds_per_flop (rate, hr_rates_bandwidth (ctx->gpu, ctx->as.memory_efficiency),
                                         elem, m, n, k, write_out);
}

/* Seconds of LoRA's products in one micro-batch of `tokens` on the rank
 * (the adapted matrices' `share`: its layers, split over TP), forward and
 * backward, each at its own roofline (gemm_seconds_per_flop): x·A (T × in
 * by in × r) and ·B (T × r by r × out) forward; the gradients of B's input
 * (T × out by out × r) and weight (out × T by T × r) and of A's (T × r by
 * r × in; r × T by T × in) backward ([LoRA] §4.1: 2·r·(in + out) FLOPs per
 * token and matrix, twice that backward). The matrices' mean in and out
 * stand for each: a rank-r product's traffic per FLOP hardly depends on
 * them. */
static void
adapter_seconds (const HrPlanContext *ctx,
                 const HrTraining    *tr,
                 double               rate,
                 double               elem,
                 double               tokens,
                 double               share,
                 double              *forward,
                 double              *backward)
{
  const HrFinetuneAdapterWidths *w = &ctx->adapters;
  double r = (double) tr->finetune.rank, in, out, flops_a, flops_b;

  *forward = *backward = 0.0;
  if (w->count <= 0)
    return;
  in = w->in / w->count;
  out = w->out / w->count;
  flops_a = 2.0 * tokens * r * w->in * share;
  flops_b = 2.0 * tokens * r * w->out * share;
  *forward = flops_a * gemm_seconds_per_flop (ctx, rate, elem, tokens, r, in, true)
             + flops_b * gemm_seconds_per_flop (ctx, rate, elem, tokens, out, r, true);
  *backward = flops_b * (gemm_seconds_per_flop (ctx, rate, elem, tokens, r, out, true)
                         + gemm_seconds_per_flop (ctx, rate, elem, out, r, tokens, true))
              + flops_a * (gemm_seconds_per_flop (ctx, rate, elem, tokens, in, r, true)
                           + gemm_seconds_per_flop (ctx, rate, elem, r, in, tokens, true));
}

/* Ring collectives over n ranks (Patarasuk & Yuan 2009; NCCL's ring):
 * reduce-scatter or all-gather move (n − 1)/n of the buffer through each
 * rank's link in n − 1 steps; an all-reduce is both. */
static double
ring_seconds (double volume,
              double n,
              double bandwidth,
              double latency,
              double passes)
{
  if (n <= 1.0 || volume <= 0.0)
    return 0.0;
  return passes * ((n - 1.0) / n * volume / bandwidth + (n - 1.0) * latency);
}

static double
ring_bytes (double volume,
            double n,
            double passes)
{
  if (n <= 1.0)
    return 0.0;
  return passes * (n - 1.0) / n * volume;
}

static double
max2 (double a,
      double b)
{
  return a > b ? a : b;
}

static double
min2 (double a,
      double b)
{
  return a < b ? a : b;
}

typedef struct
{
  double bandwidth;
  double latency;
} Link;

/* A ring step between nodes: the GPU's figure where it has one (the
 * project's hardware.inter_node_latency), else the assumption's, NCCL's
 * (`assumptions` NULL: the defaults). */
double
hr_plan_network_latency (const HrGpu             *gpu,
                         const HrPlanAssumptions *assumptions)
{
  HrPlanAssumptions defaults;

  if (gpu->inter_node_latency > 0.0)
    return gpu->inter_node_latency;
  if (assumptions == NULL)
    {
      hr_plan_assumptions_init (&defaults);
      assumptions = &defaults;
    }
  return assumptions->inter_node_latency;
}

static double
network_latency (const HrPlanContext *ctx)
{
  return hr_plan_network_latency (ctx->gpu, &ctx->as);
}

static Link
node_link (const HrPlanContext *ctx)
{
  return (Link) { ctx->gpu->intra_node_bandwidth * ctx->as.link_efficiency,
                  ctx->as.intra_node_latency };
}

/* One GPU's own network card: a point-to-point send between nodes. */
static Link
nic_link (const HrPlanContext *ctx)
{
  return (Link) { ctx->gpu->inter_node_bandwidth * ctx->as.link_efficiency,
                  network_latency (ctx) };
}

/* The network cards a ring of `size` ranks `stride` apart drives in each
 * node it spans, one per member there (ring_link); 0 within one node. */
static int64_t
ring_cards (int64_t stride,
            int64_t size,
            int64_t gpus_per_node)
{
  int64_t per_node;

  if (stride * size <= gpus_per_node)
    return 0;
  per_node = stride < gpus_per_node ? gpus_per_node / stride : 1;
  return per_node > size ? size : per_node;
}

/* The ring of a group of `size` ranks `stride` apart (rank order tp, cp,
 * dp, pp). Within a node it runs on NVLink. Across nodes NCCL runs one ring
 * channel per network card, and HGX/DGX nodes have a card per GPU (DGX H100
 * and A100 user guides: eight ConnectX per eight GPUs), so a group with k
 * members in each node drives k cards at once: each rank's share of the
 * ring moves at k × the card's rate, up to NVLink's (docs/planner.md,
 * "Networks"). */
static Link
ring_link (const HrPlanContext *ctx,
           int64_t              stride,
           int64_t              size,
           int64_t              gpus_per_node)
{
  int64_t per_node = ring_cards (stride, size, gpus_per_node);
  double bandwidth, nodes, latency;

  if (per_node == 0)
    return node_link (ctx);
  bandwidth = (double) per_node * ctx->gpu->inter_node_bandwidth;
  if (bandwidth > ctx->gpu->intra_node_bandwidth)
    bandwidth = ctx->gpu->intra_node_bandwidth;
  /* Of the ring's size − 1 steps, nodes − 1 cross the network and the
   * others stay on NVLink (NCCL's tuning.cc counts them so): the latency
   * is their mean, so that ring_seconds()'s (n − 1) steps add up to it. */
  nodes = (double) size / (double) per_node;
  latency = size > 1 ? ((nodes - 1.0) * network_latency (ctx)
                        + ((double) size - nodes) * ctx->as.intra_node_latency) / (double) (size - 1)
                     : network_latency (ctx);
  return (Link) { bandwidth * ctx->as.link_efficiency, latency };
}

/* `params`: the model's, counted; NULL to validate the model and count them. */
HrStatus
hr_plan_context_init (HrPlanContext           *ctx,
                      const HrModel           *model,
                      const HrGpu             *gpu,
                      const HrPlanAssumptions *assumptions,
                      const HrParams          *params,
                      HrError                 *err)
{
  HrStatus status;

  memset (ctx, 0, sizeof *ctx);
  ctx->model = model;
  ctx->gpu = gpu;
  if (assumptions != NULL)
    ctx->as = *assumptions;
  else
    hr_plan_assumptions_init (&ctx->as);

  if (!(ctx->as.gemm_efficiency > 0.0 && ctx->as.gemm_efficiency <= 1.0))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "gemm_efficiency", 0, 1,
                         "must lie in (0, 1]");
  if (!(ctx->as.memory_efficiency > 0.0 && ctx->as.memory_efficiency <= 1.0))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "memory_efficiency", 0, 1,
                         "must lie in (0, 1]");
  if (!(ctx->as.link_efficiency > 0.0 && ctx->as.link_efficiency <= 1.0))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "link_efficiency", 0, 1,
                         "must lie in (0, 1]");
  if (!(ctx->as.intra_node_latency >= 0.0) || !isfinite (ctx->as.intra_node_latency))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "intra_node_latency", 0, 0,
                         "must be a finite number of seconds >= 0");
  if (!(ctx->as.inter_node_latency >= 0.0) || !isfinite (ctx->as.inter_node_latency))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "inter_node_latency", 0, 0,
                         "must be a finite number of seconds >= 0");
  if (!(gpu->memory_bandwidth > 0.0) || !isfinite (gpu->memory_bandwidth))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "memory_bandwidth", 0, 0, NULL);
  if (!(gpu->inter_node_latency >= 0.0) || !isfinite (gpu->inter_node_latency))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "inter_node_latency", 0, 0,
                         "must be a finite number of seconds >= 0");

  if (params != NULL)
    ctx->params = *params;
  else if ((status = hr_model_params (model, &ctx->params, err)) != HR_OK)
    return status;

  ctx->head_dim = hr_model_head_dim (model);
  ctx->q_dim = model->n_heads * ctx->head_dim;
  ctx->kv_dim = model->n_kv_heads * ctx->head_dim;
  return HR_OK;
}

/* FLOPs of one sequence (micro_batch 1) under `recompute`; FLOPs grow
 * linearly with the micro-batch. */
HrStatus
hr_plan_context_flops (HrPlanContext    *ctx,
                       const HrTraining *training,
                       HrRecompute       recompute,
                       HrError          *err)
{
  HrFlopsOptions options = {
    .seq_len = training->seq_len,
    .micro_batch = 1,
    .attention = training->attention,
    .recompute = recompute,
    .recompute_modules = training->recompute_modules,
    .causal = training->causal,
    .finetune = &training->finetune,
  };
  HrStatus status;

  if (!ctx->have_adapters)
    {
      hr_finetune_adapter_widths (ctx->model, &training->finetune, &ctx->adapters);
      hr_finetune_flops (ctx->model, &training->finetune, 1.0, HR_FLOPS_N_COMPONENTS,
                         ctx->finetune_grad, ctx->adapter_flops);
      ctx->have_adapters = true;
    }
  if (ctx->have_flops[recompute])
    return HR_OK;
  status = hr_flops_training_counted (ctx->model, &ctx->params, &options, &ctx->flops[recompute],
                                      err);
  if (status != HR_OK)
    return status;
  ctx->have_flops[recompute] = true;
  return HR_OK;
}

/* Checks what the step model needs of a setting: the optimizer step on the
 * GPU, a peak rate for the compute dtype and the network figures. */
HrStatus
hr_plan_check_setting (const HrPlanContext *ctx,
                       const HrTraining    *training,
                       HrError             *err)
{
  int64_t gpus = training->nodes * training->gpus_per_node;
  bool intra = training->tensor_parallel > 1 || (training->gpus_per_node > 1 && gpus > 1);

  if (hr_training_cpu_optimizer (training))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED,
                         training->offload_params ? "offload_params" : "offload_optimizer", 1, 0,
                         "the step-time model does not cover a CPU optimizer step");
  if (!(ctx->gpu->peak_flops[hr_training_compute_dtype (training)] > 0.0))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "precision", (int64_t) training->precision, 0,
                         HR_NO_PEAK_DETAIL);

  if (intra && !(ctx->gpu->intra_node_bandwidth > 0.0))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "intra_node_bandwidth", 0, 0,
                         "needed to communicate between the GPUs of a node");
  if (training->nodes > 1 && !(ctx->gpu->inter_node_bandwidth > 0.0))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "inter_node_bandwidth", 0, 0,
                         "needed to communicate between nodes");
  return HR_OK;
}

/* Bytes a gated or plain activation function reads and writes per element
 * of the MLP's intermediate, forward, or in the backward. Fused: read a,
 * write a (gated: read both halves), the backward counted as twice that.
 * Eager SwiGLU, silu(gate(x)) * up(x) in transformers', torchtitan's and
 * torchtune's MLPs: silu reads and writes a, the product reads 2a and writes
 * a; backward, the product's two gradients (grad · up, grad · silu: 3a
 * each) and silu_backward (grad and gate in, 3a). torch.compile fuses it. */
static double
glu_bytes (const HrTraining *tr,
           const HrModel    *model,
           double            a,
           bool              backward)
{
  double fused = model->ffn_kind == HR_FFN_GATED ? 3.0 * a : 2.0 * a;

  if (model->ffn_kind == HR_FFN_GATED && tr->glu_kernel == HR_GLU_KERNEL_EAGER && !tr->compile)
    return backward ? 9.0 * a : 5.0 * a;
  return backward ? 2.0 * fused : fused;
}

/* Bytes the rotary embedding reads and writes per element of q and k,
 * forward or backward (docs/planner.md, "Memory-bound kernels"); the
 * cos/sin tables are per token and negligible. A fused kernel reads and
 * writes each element once, its backward counted as twice that. Eager, op
 * by op, and the ops' derivatives (tools/autograd/derivatives.yaml):
 * - rotate-half (transformers' apply_rotary_pos_emb): forward q·cos 2a,
 *   −x2 a (half the elements), cat 2a, ·sin 2a, add 3a = 10a; backward
 *   grad·cos 2a, grad·sin 2a, the negation a, each half's slice_backward
 *   (zeros, then the half copied in: 2a, twice), q's three gradients
 *   summed (3a, twice) = 15a;
 * - complex (torchtitan): float() a + 4, complex multiply 4 + 4,
 *   type_as 4 + a, the same backward (the gradient times the conjugate);
 * - interleaved (torchtune): forward float() a + 4, four products of half
 *   the elements 4 × (2 + 2), a difference and a sum 2 × (4 + 2), stack
 *   4 + 4, type_as 4 + a; backward type_as a + 4, the difference's
 *   negation 2 + 2, the four products 4 × (2 + 2), each of the four
 *   halves' select_backward (zeros 4, the half copied in 2 + 2: 8), their
 *   four gradients summed (3 × 12), float() 4 + a.
 * In fp32 the casts copy nothing. torch.compile fuses the ops. */
static double
rope_bytes (const HrTraining *tr,
            double            a,
            bool              backward)
{
  double casts = a < 4.0 ? 2.0 * (a + 4.0) : 0.0;
  double fused = backward ? 4.0 * a : 2.0 * a;

  if (tr->compile)
    return fused;
  switch (tr->rope_kernel)
    {
    case HR_ROPE_KERNEL_ROTATE_HALF:
      return backward ? 15.0 * a : 10.0 * a;
    case HR_ROPE_KERNEL_COMPLEX:
      return casts + 8.0;
    case HR_ROPE_KERNEL_INTERLEAVED:
      return casts + (backward ? 4.0 + 16.0 + 4.0 * 8.0 + 3.0 * 12.0 : 16.0 + 12.0 + 8.0);
    case HR_ROPE_KERNEL_FUSED:
    default:
      return fused;
    }
}

/* Bytes an eager RMSNorm (transformers' LlamaRMSNorm, torchtune's,
 * torch.nn.RMSNorm) moves per element of an input of d bytes, its ops run
 * one by one in fp32: to(fp32) d + 4, pow 4 + 4, mean 4, × rsqrt 4 + 4,
 * to(dtype) 4 + d, × weight d + d. Backward, their derivatives: × weight
 * grad·w (2d) and grad·x̂ summed over the tokens for w (3d + d); to(dtype)
 * d + 4; × rsqrt grad·r (8) and grad·x summed over the row for r (12 + 4);
 * mean, the expanded gradient divided (4); pow(2), x.pow(1) copied, doubled
 * and times the gradient (8 + 8 + 12); the fp32 copy's two gradients summed
 * (12); to(fp32) 4 + d. In fp32 the casts copy nothing. */
static double
eager_rmsnorm_bytes (double d,
                     bool   backward)
{
  double casts = d < 4.0 ? 2.0 * (d + 4.0) : 0.0;

  return casts + (backward ? 6.0 * d + 24.0 + 4.0 + 28.0 + 12.0 : 20.0 + 2.0 * d);
}

/* Whole-parameter gathers of a ZeRO-3 or FSDP rank in a step of m
 * micro-batches, for the forwards and for the backwards (fractions where a
 * backward re-gathers part). Each micro-batch gathers every unit for its
 * forward and again for its backward, but for what stays gathered:
 * PyTorch's FSDP never reshards its root after the forward (FSDP1
 * _post_forward_reshard frees non-root units only; FSDP2's lazy_init sets
 * the root's post_forward_mesh_info to None), and FSDP2 as torchtitan's
 * apply_fsdp runs it leaves the last block unsharded too ("FSDP would
 * prefetch it immediately"; torchtune's shard_model reshards it, one
 * layer's gather more). SHARD_GRAD_OP gathers for the forward only; under
 * a pipeline a stage keeps its parameters gathered through the step
 * (hr_training_fsdp_pipeline): once. DeepSpeed's ZeRO-3 has no root; an
 * embedding and head wrapped apart (fsdp_embedding_units) leave it and
 * are gathered again for their backward, like a layer. */
static void
fsdp_gathers (const HrTraining       *tr,
              const HrTrainingMemory *memory,
              double                  m,
              double                 *forward,
              double                 *backward)
{
  double params = (double) memory->params_on_gpu, kept = 0;

  *forward = hr_training_fsdp_pipeline (tr) ? 1.0 : m;
  *backward = 0;
  if (hr_training_fsdp_pipeline (tr) || tr->fsdp == HR_FSDP_GRAD_OP)
    return;
  if (tr->fsdp != HR_FSDP_NONE)
    kept = (double) hr_training_rank_root (&memory->rank)
           + (tr->fsdp2 ? (double) memory->rank.largest_layer : 0);
  *backward = params > 0 ? m * max2 (0.0, 1.0 - kept / params) : m;
}

/* The step of a validated layout as one pipeline rank paces it: `stage`
 * holds `rank_layers` layers, and the LM head and loss when `head`.
 * `memory` supplies the optimizer's bytes. */
static void
evaluate_rank (const HrPlanContext    *ctx,
               const HrTraining       *tr,
               const HrTrainingMemory *memory,
               double                  rank_layers,
               bool                    head,
               HrPlanStep             *step)
{
  const HrModel *model = ctx->model;
  const HrFlops *flops = &ctx->flops[tr->recompute];
  const HrPlanAssumptions *as = &ctx->as;
  HrDtype dtype = hr_training_compute_dtype (tr);
  /* FP8 recipes run the linear layers in fp8; attention and the LM head stay
   * 16-bit (Transformer Engine's fp8_autocast covers te.Linear and friends,
   * not DotProductAttention's core; the head is kept out of it). */
  HrDtype dtype16 = dtype == HR_DTYPE_FP8 ? HR_DTYPE_BF16 : dtype;
  double peak = ctx->gpu->peak_flops[dtype];
  double rate = gemm_rate (ctx, dtype);
  double rate16 = gemm_rate (ctx, dtype16);
  double elem = dtype_bytes (dtype);
  double elem16 = dtype_bytes (dtype16);
  double a = activation_bytes (dtype);
  double bw = hr_rates_bandwidth (ctx->gpu, as->memory_efficiency);
  int64_t gpn = tr->gpus_per_node;
  int64_t gpus = tr->nodes * gpn;
  double t = (double) tr->tensor_parallel;
  double p = (double) tr->pipeline_parallel;
  double v = (double) (tr->virtual_stages > 1 ? tr->virtual_stages : 1);
  double c = (double) tr->context_parallel;
  double e = (double) tr->expert_parallel;
  double b = (double) tr->micro_batch;
  double s = (double) tr->seq_len;
  double h = (double) model->hidden_size;
  double L = (double) model->n_layers;
  int64_t dp = gpus / (tr->tensor_parallel * tr->pipeline_parallel * tr->context_parallel);
  double d = (double) dp;
  double global = (double) (tr->global_batch > 0 ? tr->global_batch : tr->micro_batch * dp);
  double m = global / (d * b);
  double tokens = b * s / c;                 /* tokens of one micro-batch on this GPU */
  double shard = tr->sequence_parallel && t > 1 ? 1.0 / t : 1.0;
  double layers = rank_layers;               /* layers of this pipeline rank */
  bool moe = model->n_experts > 0;
  double moe_layers = (double) ctx->params.n_moe_layers * rank_layers / L;
  double keys, ffn, expert_tokens, mask, kv_local;
  double spf[HR_FLOPS_N_COMPONENTS];         /* seconds per FLOP of each component */
  double spf_bwd[HR_FLOPS_N_COMPONENTS];     /* the same in the backward pass */
  double attn_fwd, attn_bwd;
  double scale = b / (t * c);                /* FLOPs of the model for one sequence → this GPU */
  double gemm_fwd = 0, gemm_bwd = 0, gemm_rec = 0, flops_gpu = 0;
  double lm_fwd, lm_bwd, core_fwd, core_bwd;
  double norm_bytes, act_bytes, mem_layer, mem_layer_bwd, mem_softmax, kv_copy, mem_fwd, mem_bwd, mem_rec;
  double logits_local, loss_fwd, loss_bwd;
  double resid, casts, weight_casts, bias_grads, ffn_elements, rope_elements;
  bool autocast, eager_norm;
  double cast_fwd = 0, cast_bwd = 0;
  double tp_fwd = 0, tp_bwd = 0, tp_rec = 0, tp_rec_exposed = 0, tp_exposed = 0, tp_bytes = 0;
  double cp_time = 0, cp_exposed = 0, cp_bytes = 0;
  /* CP by PyTorch's context_parallel(), which runs fused SDPA kernels only */
  bool torch_cp = tr->torch_context_parallel && tr->context_parallel > 1
                  && tr->attention == HR_ATTENTION_FLASH;
  double ep_time = 0, ep_bytes = 0;
  double pp_time = 0, pp_bytes = 0;
  double dp_time = 0, dp_exposed = 0, dp_bytes = 0;
  double fsdp_copies = 0;                    /* FSDP's copies a step, seconds */
  double fwd_gathers, bwd_gathers;           /* whole-parameter gathers a step (fsdp_gathers) */
  double compute_mb, memory_mb, recompute_mb, comm_mb, per_mb, per_mb_avg;
  double ideal, losses[4];
  /* The recompute mode's share of this rank's layers: Megatron's
   * --recompute-num-layers N covers the first N of each of its v chunks,
   * torchtitan's layer SAC every k-th block (hr_training_recompute_skipped ());
   * `full` is that share under full recomputation, else 0. */
  double skipped = hr_training_recompute_skipped (tr, model), covered = 1.0, full;
  const HrFlops *none = ctx->have_flops[HR_RECOMPUTE_NONE] ? &ctx->flops[HR_RECOMPUTE_NONE] : flops;
  int i;

  memset (step, 0, sizeof *step);
  if (tr->recompute_every > 1)
    covered = 1.0 - skipped;
  else if (tr->recompute_layers > 0 && rank_layers > 0)
    covered = min2 (1.0, (double) tr->recompute_layers * v / rank_layers);
  full = tr->recompute == HR_RECOMPUTE_FULL ? covered : 0.0;

  /* Key/value heads are split over TP, or replicated once TP exceeds them. */
  kv_local = model->n_kv_heads >= tr->tensor_parallel
             ? (double) ctx->kv_dim / t : (double) ctx->head_dim;

  /* Shapes of each product (docs/planner.md, "Matrix products"). */
  keys = s;
  if (model->sliding_window > 0 && model->sliding_window < keys && model->sliding_window_period <= 1)
    keys = (double) model->sliding_window;
  ffn = (double) (moe ? model->expert_ffn_size : model->ffn_size);
  if (model->ffn_kind == HR_FFN_GATED)
    ffn *= 2.0;                               /* gate and up fused into one product */
  expert_tokens = moe
                  ? tokens * (double) model->experts_per_token * e / (double) model->n_experts
                  : tokens;
  spf[HR_FLOPS_ATTN_PROJ] = gemm_seconds_per_flop (ctx, rate, elem, tokens,
                                                   (double) ctx->q_dim / t + 2.0 * kv_local,
                                                   h, true);
  spf[HR_FLOPS_ATTN_SCORES] = gemm_seconds_per_flop (ctx, rate16, elem16, s / c, keys,
                                                     (double) ctx->head_dim,
                                                     tr->attention == HR_ATTENTION_EAGER);
  spf[HR_FLOPS_ATTN_OVER_V] = gemm_seconds_per_flop (ctx, rate16, elem16, s / c,
                                                     (double) ctx->head_dim, keys, true);
  spf[HR_FLOPS_ATTN_OUT] = gemm_seconds_per_flop (ctx, rate, elem, tokens, h,
                                                  (double) ctx->q_dim / t, true);
  /* Experts on etp of the TP ranks take etp/t of the routed copies, ffn/etp wide. */
  {
    double etp = (double) (moe ? hr_training_expert_tp (tr) : tr->tensor_parallel);

    spf[HR_FLOPS_MLP] = gemm_seconds_per_flop (ctx, rate, elem, expert_tokens * etp / t, ffn / etp,
                                               h, true);
  }
  spf[HR_FLOPS_ROUTER] = gemm_seconds_per_flop (ctx, rate16, elem16, tokens,
                                                (double) (moe ? model->n_experts + model->zero_experts
                                                          : 1), h, true);
  spf[HR_FLOPS_LM_HEAD] = gemm_seconds_per_flop (ctx, rate16, elem16, tokens,
                                                 (double) model->vocab_size / t, h, true);
  for (i = 0; i < HR_FLOPS_N_COMPONENTS; i++)
    spf_bwd[i] = spf[i];
  /* FlashAttention runs at its own measured rates (docs/planner.md,
   * "Attention kernel"). */
  if (tr->attention == HR_ATTENTION_FLASH)
    {
      if (core_seconds_per_flop (ctx, tr->flash_kernel, s, c, keys, tr->causal, &attn_fwd,
                                 &attn_bwd))
        {
          spf[HR_FLOPS_ATTN_SCORES] = spf[HR_FLOPS_ATTN_OVER_V] = attn_fwd;
          spf_bwd[HR_FLOPS_ATTN_SCORES] = spf_bwd[HR_FLOPS_ATTN_OVER_V] = attn_bwd;
        }
      else
        step->attention_as_gemm = true;
    }

  /* Matrix products of one micro-batch on the last pipeline rank: its share
   * of the layers, and the LM head. */
  for (i = 0; i < HR_FLOPS_N_COMPONENTS; i++)
    {
      const HrFlopsPart *part = &flops->component[i];
      double share = scale * rank_layers / L;

      if (i == HR_FLOPS_LM_HEAD)
        continue;
      gemm_fwd += part->forward * share * spf[i];
      gemm_bwd += part->backward * share * spf_bwd[i];
      /* What the mode reruns, on the layers it covers; flash attention's
       * own recomputation on all. */
      gemm_rec += (none->component[i].recompute
                   + covered * (part->recompute - none->component[i].recompute)) * share * spf[i];
      flops_gpu += (part->forward + part->backward) * share;
    }
  /* LoRA's products at their own shapes (adapter_seconds), not at the rate
   * of the matrix they adapt, where the FLOPs above charged them. */
  if (hr_finetune_is_adapter (&tr->finetune))
    {
      double share = scale * rank_layers / L;
      double fwd, bwd;

      for (i = 0; i < HR_FLOPS_N_COMPONENTS; i++)
        {
          double sequence = ctx->adapter_flops[i] * s;   /* the adapters' forward FLOPs of one sequence */

          if (i == HR_FLOPS_LM_HEAD)
            continue;
          gemm_fwd -= sequence * share * spf[i];
          gemm_bwd -= 2.0 * sequence * share * spf_bwd[i];
          gemm_rec -= full * sequence * share * spf[i];
        }
      adapter_seconds (ctx, tr, rate16, elem16, tokens, rank_layers / L / t, &fwd, &bwd);
      gemm_fwd += fwd;
      gemm_bwd += bwd;
      gemm_rec += full * fwd;
    }
  lm_fwd = head ? flops->component[HR_FLOPS_LM_HEAD].forward * scale * spf[HR_FLOPS_LM_HEAD] : 0.0;
  lm_bwd = head ? flops->component[HR_FLOPS_LM_HEAD].backward * scale * spf[HR_FLOPS_LM_HEAD] : 0.0;
  if (head)
    flops_gpu += (flops->component[HR_FLOPS_LM_HEAD].forward
                  + flops->component[HR_FLOPS_LM_HEAD].backward) * scale;
  core_fwd = (flops->component[HR_FLOPS_ATTN_SCORES].forward * spf[HR_FLOPS_ATTN_SCORES]
              + flops->component[HR_FLOPS_ATTN_OVER_V].forward * spf[HR_FLOPS_ATTN_OVER_V])
             * scale / L;
  core_bwd = (flops->component[HR_FLOPS_ATTN_SCORES].backward * spf_bwd[HR_FLOPS_ATTN_SCORES]
              + flops->component[HR_FLOPS_ATTN_OVER_V].backward * spf_bwd[HR_FLOPS_ATTN_OVER_V])
             * scale / L;

  /* Memory-bound kernels of one layer's forward, bytes read and written;
   * the backward's follow (mem_layer_bwd). Sequence parallel shards the
   * hidden-sized ones over TP (Korthikanti et al. 2022 §4.2.2). */
  mask = tr->dropout ? (double) tr->dropout_mask_bytes : 0.0;
  /* A norm kernel reads and writes each element once: 2a bytes. An eager
   * RMSNorm runs its ops one by one (eager_rmsnorm_bytes); torch.compile
   * fuses them back into one kernel. LayerNorm is one kernel either way. */
  /* Autocast over fp32 parameters (training.fp32_residual: the Hugging Face
   * Trainer's --bf16, Lightning's bf16-mixed) keeps the residual stream in
   * fp32, `resid` = 4 bytes an element: a sum promotes to its widest input,
   * and the norms run in fp32 (torch.autocast's fp32 list has layer_norm).
   * Each projection casts its fp32 input to 16 bits (the lower-precision
   * list: linear), the casts the saved tensors count (attn_casts,
   * mlp_casts). MPT's LPLayerNorm (low-precision) casts its own input
   * instead and normalises in 16 bits, so its output needs no cast.
   * torch.compile fuses these passes as it fuses a norm's. */
  autocast = hr_training_autocast (tr) && a < 4.0;
  resid = autocast && !tr->compile ? 4.0 : a;
  casts = 0.0;
  eager_norm = tr->norm_kernel == HR_NORM_KERNEL_EAGER && model->norm_kind == HR_NORM_RMSNORM;
  norm_bytes = eager_norm && !tr->compile ? eager_rmsnorm_bytes (resid, false) : 2.0 * resid;
  if (resid > a)
    {
      HrActShape shape;

      hr_training_act_shape (model, tr, &shape);
      if (tr->norm_kernel == HR_NORM_KERNEL_LOW_PRECISION)
        norm_bytes = (resid + a) + 2.0 * a;
      else
        casts = (shape.attn_casts + shape.mlp_casts) * (resid + a);
    }
  mem_layer = tokens * h * shard * ((double) model->norms_per_layer * norm_bytes  /* norms */
                                    + casts                                   /* into 16 bits */
                                    + 2.0 * (2.0 * resid + a)                 /* residual adds */
                                    + (tr->dropout ? 2.0 * (2.0 * a + mask) : 0.0));
  ffn_elements = (moe ? tokens * (double) model->experts_per_token : tokens)
                 * (double) (moe ? model->expert_ffn_size : model->ffn_size) / t;
  act_bytes = ffn_elements * glu_bytes (tr, model, a, false);   /* activation function */
  mem_layer += act_bytes;
  rope_elements = model->positions == HR_POSITIONS_ROTARY
                  ? tokens * ((double) ctx->q_dim / t + kv_local) : 0.0;
  mem_layer += rope_elements * rope_bytes (tr, a, false);
  mem_softmax = 0.0;
  if (tr->attention == HR_ATTENTION_EAGER)
    {
      double scores = b * (double) model->n_heads / t * (s / c) * keys;

      mem_softmax = scores * (2.0 * a + (tr->dropout ? 2.0 * a + mask : 0.0));
    }
  mem_layer += mem_softmax;
  /* Grouped K and V copied to every query head (reshape of an expanded
   * view: read kv, write q elements, each of K and V); the backward sums
   * the copies' gradients back, the same bytes. Eager attention always
   * does this; a fused kernel takes grouped K and V unless the code base
   * expands them first (training.expand_kv). */
  kv_copy = 0.0;
  if ((tr->attention == HR_ATTENTION_EAGER || tr->expand_kv) && !hr_model_uses_mla (model)
      && (double) ctx->q_dim / t > kv_local)
    kv_copy = tokens * 2.0 * ((double) ctx->q_dim / t + kv_local) * a;
  /* The cross-entropy on the last rank, bytes per logit forward and
   * backward. Eager over fp32 logits: three passes of 4 bytes forward, twice
   * that backward. A cross-entropy kernel on the 16-bit logits (flash-attn's,
   * Transformer Engine's: a row of a 128K vocabulary is 256 KiB, its second
   * pass served by the L2 cache) reads them once, and in the backward reads
   * them and writes their gradient; so does a compiled loss that upcasts
   * them itself (one fused kernel a pass, hr-training-activations.c):
   * torchtitan's cross_entropy(pred.float()), and torchtune's chunked loss,
   * whose compute_cross_entropy(chunk.float()) compile_loss compiles. A
   * compiled loss on fp32 logits the model upcast (torchtune's
   * TransformerDecoder: output(h).float()) reads them once forward after the
   * eager upcast (a + 4 + 4) and writes their fp32 gradient, which the
   * upcast's backward casts back (4 + 4 + 4 + a). */
  loss_fwd = 3.0 * 4.0;
  loss_bwd = 2.0 * loss_fwd;
  if (tr->loss == HR_LOSS_KERNEL || tr->loss == HR_LOSS_TE || hr_training_loss_on_16bit_logits (tr)
      || (tr->loss == HR_LOSS_CHUNKED && tr->compile && tr->compile_loss))
    {
      loss_fwd = a;
      loss_bwd = 2.0 * a;
    }
  else if (tr->loss == HR_LOSS_FULL && tr->compile && tr->compile_loss)
    {
      loss_fwd = a + 8.0;
      loss_bwd = 12.0 + a;
    }
  logits_local = head ? tokens * (double) model->vocab_size / t : 0.0;
  /* Uncompiled, PyTorch's cross_entropy on the logits upcast from the
   * head's 16-bit output (torchtune's output(h).float() or its chunked
   * loss's chunk.float(), torchtitan's pred.float(), transformers'
   * logits.float(): a + 4 each way): log_softmax reads each row three times
   * and writes it once (cunn_SoftMaxForward: the maximum, the sum of
   * exponentials, the output; a 128K-vocabulary row of 512 KiB does not stay
   * in cache), 16 bytes a logit; backward, nll_loss_backward's zeroed fp32
   * gradient (4) and log_softmax's backward, which reads the gradient for
   * its row sum, then the gradient and the output, and writes (16).
   * DTensor's loss_parallel keeps the passes above. */
  if ((tr->loss == HR_LOSS_FULL || tr->loss == HR_LOSS_CHUNKED || tr->loss == HR_LOSS_CHUNKED_HEAD)
      && !(tr->compile && tr->compile_loss) && !(tr->loss_parallel && t > 1))
    {
      double upcast = a < 4.0 ? a + 4.0 : 0.0;

      loss_fwd = 16.0 + upcast;
      loss_bwd = 4.0 + 16.0 + upcast;
    }
  /* The backward of the layer's kernels. A fused kernel's, and
   * torch.compile's, is counted as twice its forward: it reads its input and
   * the incoming gradient and writes the gradient. Uncompiled, the eager ops
   * run their ATen derivatives (tools/autograd/derivatives.yaml): RMSNorm's
   * (eager_rmsnorm_bytes), the rotary embedding's, SwiGLU's and each
   * autocast cast's, once its forward (a + r). An add passes its gradient
   * through, and the autograd engine sums the gradients of a tensor that
   * two ops read (torch/csrc/autograd/input_buffer.cpp, InputBuffer::add:
   * read both, write one, 3 bytes of its type): where the residual stream
   * branches into a norm and the next add, twice a layer, compiled or not;
   * and uncompiled, where separate q, k and v (two sums; MLA's q and kv
   * down-projections, one) and a dense gated MLP's gate and up (one) read
   * the same normalised input (training.projections separate), in fp32
   * after autocast's casts back. One product split into views (split)
   * has split_backward concatenate the views' gradients instead (torch.cat:
   * read and write q + 2kv, and 2·ffn for a gated MLP's gate and up);
   * compiled, these passes join their neighbours' kernels. Under autocast
   * a residual add promotes to fp32, and its backward casts the gradient
   * back for the 16-bit operand (r + a). */
  {
    double norm_bwd = eager_norm && !tr->compile ? eager_rmsnorm_bytes (resid, true) : 2.0 * norm_bytes;
    bool gated = model->ffn_kind == HR_FFN_GATED && !moe;
    double sums = 0.0, split = 0.0;

    if (tr->projections == HR_PROJECTIONS_SEPARATE && !tr->compile)
      sums = (hr_model_uses_mla (model) ? 1.0 : 2.0) + (gated ? 1.0 : 0.0);
    if (tr->projections == HR_PROJECTIONS_SPLIT && !tr->compile && !hr_model_uses_mla (model))
      split = 2.0 * a * (tokens * ((double) ctx->q_dim / t + 2.0 * kv_local) + (gated ? ffn_elements * 2.0 : 0.0));

    mem_layer_bwd = tokens * h * shard * ((double) model->norms_per_layer * norm_bwd
                                          + casts
                                          + 2.0 * (3.0 * resid + (resid > a ? resid + a : 0.0))
                                          + (tr->dropout ? 4.0 * (2.0 * a + mask) : 0.0))
                    + tokens * h * sums * 3.0 * (casts > 0 ? resid : a)
                    + ffn_elements * glu_bytes (tr, model, a, true)
                    + rope_elements * rope_bytes (tr, a, true)
                    + split
                    + 2.0 * mem_softmax;
  }
  mem_fwd = (layers * mem_layer + logits_local * loss_fwd) / bw;
  mem_bwd = (layers * mem_layer_bwd + logits_local * loss_bwd) / bw;
  /* The final norm, on the last rank. torchtune and torchtitan compile each
   * layer, not it, so an eager RMSNorm stays eager there. */
  if (head)
    {
      mem_fwd += tokens * h * shard * (eager_norm ? eager_rmsnorm_bytes (resid, false) : norm_bytes) / bw;
      mem_bwd += tokens * h * shard * (eager_norm ? eager_rmsnorm_bytes (resid, true) : 2.0 * norm_bytes) / bw;
    }
  /* The token embedding's backward, where the last rank holds it too (no
   * pipeline) and it trains: embedding_dense_backward zero-fills the V × h
   * gradient (a an element) and adds each token's gradient row into it
   * (read and write T·h); a head tied to it has the two gradients summed by
   * the autograd engine (3a an element of V × h). Eager in every framework:
   * torchtune and torchtitan compile the layers only. */
  if (head && p == 1 && hr_finetune_is_full (&tr->finetune))
    {
      double vocab = (double) model->vocab_size / t;

      mem_bwd += (vocab * h * a * (model->tied_embeddings ? 4.0 : 1.0) + 2.0 * a * tokens * h) / bw;
    }
  mem_fwd += layers * kv_copy / bw;
  mem_bwd += layers * kv_copy / bw;
  /* Bias gradients. nn.Linear runs addmm, whose gradient for the bias is
   * the output gradient itself (derivatives.yaml, addmm: `self:
   * maybe_multiply(grad, beta)`), which the autograd engine sums over the
   * tokens to the bias's shape (sum_to): a read of T × out per biased
   * product, backward, in the share of it that trains (hr_finetune_flops:
   * none for an adapter's frozen base, the layers above a frozen bottom).
   * Transformer Engine's linears (Megatron's) compute it in the
   * weight-gradient GEMM (training.fused_bias_grad). Row-parallel outputs
   * (attention output, MLP down) are h wide, split by SP like the other
   * h-sized terms. */
  bias_grads = 0.0;
  if (!tr->fused_bias_grad)
    {
      const HrFinetuneGrad *trains = ctx->finetune_grad;
      double routed = moe ? tokens * (double) model->experts_per_token : tokens;
      double ffn_out = (double) (moe ? model->expert_ffn_size : model->ffn_size) / t
                       * (model->ffn_kind == HR_FFN_GATED ? 2.0 : 1.0);
      double qkv = model->qkv_bias ? tokens * ((double) ctx->q_dim / t + 2.0 * kv_local) : 0.0;
      double out = model->out_bias ? tokens * h * shard : 0.0;
      double mlp = model->mlp_bias ? routed * ffn_out + (moe ? routed * h : tokens * h * shard) : 0.0;

      bias_grads = (layers * (trains[HR_FLOPS_ATTN_PROJ].weight_grad * qkv
                              + trains[HR_FLOPS_ATTN_OUT].weight_grad * out
                              + trains[HR_FLOPS_MLP].weight_grad * mlp)
                    + (model->lm_head_bias ? trains[HR_FLOPS_LM_HEAD].weight_grad * logits_local : 0.0))
                   * a / bw;
      mem_bwd += bias_grads;
    }
  /* Autocast casts each fp32 weight to 16 bits in every forward (read 4,
   * write 2; its cache lasts one autocast region), and the backward casts
   * each trained weight's 16-bit gradient back to fp32 (read 2, write 4);
   * a quantised base is dequantised instead (below). */
  weight_casts = 0.0;
  if (autocast)
    {
      bool quantized = tr->finetune.method == HR_FINETUNE_QLORA
                       && tr->finetune.quant != HR_QUANT_NONE;
      double weights = (double) memory->params_on_gpu;

      weight_casts = (a + 4.0) * (quantized ? weights * memory->gradient_share : weights) / bw;
      mem_fwd += weight_casts;
      mem_bwd += (a + 4.0) * weights * memory->gradient_share / bw;
    }
  /* ChunkedLossWrapper's fp32 buffer of the head's input gradient: zeroed
   * (4 bytes an element), each chunk's 16-bit gradient copied in (a + 4),
   * cast back after the loop (4 + a), over tokens × h. */
  if (head && tr->loss == HR_LOSS_CHUNKED_HEAD)
    mem_bwd += tokens * h * (12.0 + 2.0 * a) / bw;
  /* FP8 linear layers: Transformer Engine casts each 16-bit operand to fp8
   * and takes its amax in one fused pass (read a, write 1 byte per element):
   * the input and the weight in the forward, the output gradient in the
   * backward; the backward also needs the fp8 transposes of the input and
   * weight (read 1, write 1), since Hopper's fp8 products take only the TN
   * layout (TE's cast_transpose kernels). torchao's dynamic tensorwise
   * float8 takes each operand's amax in a pass of its own (tensor_to_amax,
   * read a) before the scaled cast (read a, write 1). Eager, that is 2a + 1
   * a cast: the input and the weight in the forward and, from the 16-bit
   * tensors it saved, again in the backward, with the output gradient cast
   * twice there, row- and column-major (matmul_with_hp_or_float8_args).
   * Compiled, one kernel writes both layouts of the input and of the output
   * gradient, and the weight's two casts share its amax: input 2a + 2,
   * weight 3a + 2, output gradient 2a + 2 (torchao's own roofline of its
   * compiled casts, roofline_utils.py get_tensor_memory_traffic_ovhd_s,
   * "tensorwise", amax not fused with the producer). */
  if (dtype == HR_DTYPE_FP8)
    {
      double held = moe ? (double) model->n_experts / e : 1.0;   /* experts on this rank */
      double ffn_out = (double) (moe ? model->expert_ffn_size : model->ffn_size) / t;
      double ffn_in = ffn / t;                                  /* gate and up, fused */
      double qkv = (double) ctx->q_dim / t * (model->attention_gate ? 2.0 : 1.0) + 2.0 * kv_local;
      double q = (double) ctx->q_dim / t;
      double x = tokens * (h + q) + expert_tokens * held * (h + ffn_out);
      double w = h * qkv + q * h + held * (h * ffn_in + ffn_out * h);
      double dy = tokens * (qkv + h) + expert_tokens * held * (ffn_in + h);

      if (hr_training_torchao_fp8 (tr) && tr->compile)
        {
          cast_fwd = layers * ((2.0 * a + 2.0) * x + (2.0 * a + 1.0) * w) / bw;
          cast_bwd = layers * ((a + 1.0) * w + (2.0 * a + 2.0) * dy) / bw;
        }
      else if (hr_training_torchao_fp8 (tr))
        {
          cast_fwd = layers * (2.0 * a + 1.0) * (x + w) / bw;
          cast_bwd = layers * (2.0 * a + 1.0) * (2.0 * dy + x + w) / bw;
        }
      else
        {
          cast_fwd = layers * (a + 1.0) * (x + w) / bw;
          cast_bwd = layers * ((a + 1.0) * dy + 2.0 * (x + w)) / bw;
        }
    }
  mem_rec = full * (layers * (mem_layer + kv_copy) / bw + cast_fwd + weight_casts);
  /* torchtitan's op-level SAC, eager: the backward replays each layer's
   * forward under torch.utils.checkpoint's _CachedTorchDispatchMode, which
   * takes what the policy saved (the products but every second, attention)
   * from its cache and runs every other op again, so the memory-bound
   * kernels too, up to the last tensor the backward needs (non-reentrant
   * checkpoint stops there): all but the layer's last residual add.
   * torch.compile fuses them into the backward's kernels instead. */
  if (tr->recompute == HR_RECOMPUTE_OP_SELECTIVE && !tr->compile)
    mem_rec = covered * (layers * (mem_layer + kv_copy - tokens * h * shard * (2.0 * resid + a)) / bw
                         + weight_casts);
  /* Megatron's selective modules rerun their memory-bound kernels: the
   * attention core's softmax (eager), the norms, the experts' or the dense
   * MLP's activation (moe_act, moe, mlp). */
  if (tr->recompute == HR_RECOMPUTE_SELECTIVE)
    {
      unsigned rerun = tr->recompute_modules;
      double again = (rerun & HR_RECOMPUTE_CORE_ATTN) ? mem_softmax : 0.0;

      if (rerun & HR_RECOMPUTE_LAYERNORM)
        again += tokens * h * shard * (double) model->norms_per_layer * norm_bytes;
      if (moe ? (rerun & (HR_RECOMPUTE_MOE_ACT | HR_RECOMPUTE_MOE)) : (rerun & HR_RECOMPUTE_MLP))
        again += act_bytes;
      mem_rec = covered * layers * again / bw;
    }
  /* LoRA's ops around its products, per token and adapted matrix
   * (torchtune LoRALinear.forward: out + (alpha / rank) · lora_b(lora_a(x));
   * PEFT lora.Linear.forward: result + lora_B(lora_A(x)) · scaling): the
   * scaling reads and writes the T × out product (2a) and the sum reads two
   * and writes one (3a); backward, the scaled gradient (2a) and the sum of
   * x's two gradients, the base's and the adapter's (3a per input element).
   * torch.compile fuses the scaling into the sum (3a) and the gradients'
   * sum into its neighbours. A dropout before A (lora_dropout > 0) reads x and
   * writes it and a 1-byte mask, forward and backward. */
  if (hr_finetune_is_adapter (&tr->finetune))
    {
      const HrFinetuneAdapterWidths *w = &ctx->adapters;
      double per_token = tokens * rank_layers / L / t;
      double fwd_bytes, bwd_bytes, drop;

      drop = tr->finetune.dropout > 0 ? (2.0 * a + 1.0) * w->in : 0.0;
      fwd_bytes = (tr->compile ? 3.0 : 5.0) * a * w->out + drop;
      bwd_bytes = 2.0 * a * w->out + (tr->compile ? 0.0 : 3.0 * a * w->in) + drop;
      mem_fwd += per_token * fwd_bytes / bw;
      mem_bwd += per_token * bwd_bytes / bw;
      mem_rec += full * per_token * fwd_bytes / bw;
    }
  /* DoRA (PEFT DoraLinearLayer.forward, torchtune DoRALinear.forward): each
   * forward rebuilds every adapted matrix's column norms ||W + s·B·A||,
   * detached (Liu et al. 2024 §4.3, so nothing of it in the backward):
   * torch.eye(in) written (a·in²) and passed through A and B (in × in by
   * in × r, in × r by r × out), then s·(B·A) (2a per element of W), W plus
   * it (3a) and the norm's read (a): 6a·in·out. The output,
   * (m − 1)·base + m·(s·lora) added to the base, takes eager ops on T × out
   * of 2a, 2a, 2a, 3a and 3a where LoRA's take 5a (7a more), and backward
   * 17a where LoRA's take 2a (15a more: the two scaled gradients, the
   * magnitude's two products and reductions, 4a each, and the base output's
   * two gradients summed, 3a); torch.compile fuses them into one pass as it
   * does LoRA's. Full recomputation repeats the forward. */
  if (tr->finetune.method == HR_FINETUNE_DORA && ctx->adapters.count > 0)
    {
      const HrFinetuneAdapterWidths *w = &ctx->adapters;
      double share = rank_layers / L / t;
      double r = (double) tr->finetune.rank;
      double in = w->in / w->count, out = w->out / w->count;
      double norms = share * (a * w->in_squared + 6.0 * a * w->area) / bw
                     + share * 2.0 * r * w->in_squared
                       * gemm_seconds_per_flop (ctx, rate16, elem16, in, r, in, true)
                     + share * 2.0 * r * w->area
                       * gemm_seconds_per_flop (ctx, rate16, elem16, in, out, r, true);
      double outputs_fwd = tr->compile ? 0.0 : tokens * share * 7.0 * a * w->out / bw;
      double outputs_bwd = tr->compile ? 0.0 : tokens * share * 15.0 * a * w->out / bw;

      mem_fwd += norms + outputs_fwd;
      mem_bwd += outputs_bwd;
      mem_rec += full * (norms + outputs_fwd);
      /* PEFT with lora_dropout > 0 passes the dropped input to the DoRA
       * layer with base_result None, which then runs F.linear(x, W) again:
       * the frozen products once more forward (2·T·in·out per matrix) and
       * their input gradients backward (the same; W takes no gradient). */
      if (tr->finetune.dora_base_rerun && tr->finetune.dropout > 0)
        {
          double rerun = 2.0 * tokens * share * w->area
                         * gemm_seconds_per_flop (ctx, rate, elem, tokens, out, in, true);

          gemm_fwd += rerun;
          gemm_bwd += rerun;
          gemm_rec += full * rerun;
        }
    }
  /* PyTorch's ring attention (torch_cp) merges and accumulates in eager ops:
   * per layer, bytes read and written (docs/planner.md, "Context parallel in
   * PyTorch"); a full recomputation repeats the forward's. */
  if (torch_cp)
    {
      double ring_fwd, ring_bwd;

      torch_ring_bytes (c, a, tokens * (double) ctx->q_dim / t, &ring_fwd, &ring_bwd);
      mem_fwd += layers * ring_fwd / bw;
      mem_bwd += layers * ring_bwd / bw;
      mem_rec += full * layers * ring_fwd / bw;
    }

  /* Tensor parallel: two all-reduces (or reduce-scatter + all-gather pairs
   * with sequence parallel, the same traffic) per layer in each pass
   * (Shoeybi et al. 2019 §3; Korthikanti et al. 2022 §4.2.2); one when
   * attention and MLP share an input. The forward ones block; the backward
   * ones overlap with the weight-gradient products (Korthikanti et al. 2022
   * §6.2), about half of the backward products. */
  if (t > 1)
    {
      Link link = ring_link (ctx, 1, tr->tensor_parallel, gpn);
      double per_layer = model->parallel_block ? 1.0 : 2.0;
      double volume = tokens * h * a;
      double one = ring_seconds (volume, t, link.bandwidth, link.latency, 2.0);

      tp_fwd = layers * per_layer * one;
      tp_bwd = tp_fwd;
      tp_rec = full * tp_fwd;
      tp_rec_exposed = tp_rec;
      tp_exposed = tp_fwd + tp_rec + max2 (0.0, tp_bwd - 0.5 * gemm_bwd);
      if (tr->async_tp)
        {
          /* Async TP (torch's micro-pipeline TP, Wang et al. 2022): each
           * all-gather feeds a column-parallel product (qkv, MLP in) and
           * each reduce-scatter follows a row-parallel one (attention out,
           * MLP out), in the backward the input-gradient product of the
           * same shape. The product runs as t chunks, the transfer as
           * t − 1: the local chunk is consumed first while the first
           * remote one arrives (torch/distributed/_symmetric_memory,
           * _pipelined_multi_all_gather_and_consume), or produced last
           * while the last one leaves (_pipelined_produce_and_all2all).
           * Step time g/t + (t − 1)·max(g/t, c/(t − 1)); exposed
           * max(0, c − (t − 1)/t · g). */
          double half = one / 2.0;                  /* one all-gather or reduce-scatter */
          double per = scale / L;                   /* FLOPs of a sequence → this GPU, one layer */
          double mlp_in = ffn / (ffn + (double) (moe ? model->expert_ffn_size : model->ffn_size));
          double qkv = flops->component[HR_FLOPS_ATTN_PROJ].forward * per * spf[HR_FLOPS_ATTN_PROJ];
          double out = flops->component[HR_FLOPS_ATTN_OUT].forward * per * spf[HR_FLOPS_ATTN_OUT];
          double mlp = flops->component[HR_FLOPS_MLP].forward * per * spf[HR_FLOPS_MLP];
          double hidden = (t - 1.0) / t;
          double exposed;

          /* Parallel blocks gather once for both inputs and scatter their sum. */
          if (model->parallel_block)
            exposed = max2 (0.0, half - hidden * (qkv + mlp_in * mlp))
                      + max2 (0.0, half - hidden * (out + (1.0 - mlp_in) * mlp));
          else
            exposed = max2 (0.0, half - hidden * qkv) + max2 (0.0, half - hidden * out)
                      + max2 (0.0, half - hidden * mlp_in * mlp)
                      + max2 (0.0, half - hidden * (1.0 - mlp_in) * mlp);
          tp_rec_exposed = full * layers * exposed;
          tp_exposed = 2.0 * layers * exposed + tp_rec_exposed;
        }
      tp_bytes = layers * per_layer * ring_bytes (volume, t, 2.0)
                 * (2.0 + full);
    }

  /* Context parallel: each rank passes its key/value block around the ring,
   * c − 1 hops, each sent while the attention of the block in hand runs
   * (Liu et al. 2023, Ring Attention; Megatron-Core context parallel): a
   * hop hides behind one of the c attention steps, and only what it
   * outlasts is exposed. The backward pass also returns the blocks'
   * gradients: twice the bytes per hop. */
  if (c > 1 && torch_cp)
    {
      /* PyTorch's ring (torch/distributed/tensor/experimental/_attention.py,
       * rotate method "allgather", torchtitan's default): K and V, expanded
       * to every query head by the model (torchtitan's repeat_kv), are
       * all-gathered once per pass, hidden behind the first of the c steps
       * only; the backward all-gathers them again and passes the fp32 K/V
       * gradients one hop per step (all-to-all), each behind the next step,
       * the last after the loop. A full recomputation repeats the forward's
       * gather. */
      Link link = ring_link (ctx, tr->tensor_parallel, tr->context_parallel, gpn);
      double block = tokens * 2.0 * (double) ctx->q_dim / t * a;
      double gather = (c - 1.0) * (block / link.bandwidth + link.latency);
      double hop_grad = block * 4.0 / a / link.bandwidth + link.latency;
      double passes = 1.0 + full;

      cp_time = layers * ((passes + 1.0) * gather + c * hop_grad);
      cp_exposed = layers * (passes * max2 (0.0, gather - core_fwd / c)
                             + max2 (0.0, gather - core_bwd / c)
                             + (c - 1.0) * max2 (0.0, hop_grad - core_bwd / c) + hop_grad);
      cp_bytes = layers * ((passes + 1.0) * (c - 1.0) * block + c * block * 4.0 / a);
    }
  else if (c > 1)
    {
      Link link = ring_link (ctx, tr->tensor_parallel, tr->context_parallel, gpn);
      double block = tokens * 2.0 * kv_local * a;
      double hop_fwd = block / link.bandwidth + link.latency;
      double hop_bwd = 2.0 * block / link.bandwidth + link.latency;

      cp_time = layers * (c - 1.0) * (hop_fwd + hop_bwd);
      cp_exposed = layers * (c - 1.0) * (max2 (0.0, hop_fwd - core_fwd / c)
                                         + max2 (0.0, hop_bwd - core_bwd / c));
      cp_bytes = layers * 3.0 * (c - 1.0) * block;
    }

  /* Expert parallel: all-to-all dispatch and combine of every routed token
   * copy, (e − 1)/e of them leaving the GPU, in each pass (Lepikhin et al.
   * 2020, GShard; Fedus et al. 2021). Not overlapped. */
  if (moe && e > 1 && moe_layers > 0)
    {
      /* Expert ranks are ordered etp, ep, edp (Megatron-Core): the group's
       * members are etp ranks apart. */
      Link link = ring_link (ctx, hr_training_expert_tp (tr), tr->expert_parallel, gpn);
      double volume = tokens * shard * (double) model->experts_per_token * h * a;
      double sent = 2.0 * volume * (e - 1.0) / e;
      double one = sent / link.bandwidth + 2.0 * (e - 1.0) * link.latency;

      ep_time = moe_layers * 2.0 * one;
      ep_bytes = moe_layers * 2.0 * sent;
    }

  /* Pipeline: each micro-batch crosses every chunk boundary forward and
   * backward; with TP the message is scattered over the TP ranks
   * (Narayanan et al. 2021 §4.1), 2·v sends per micro-batch on the critical
   * path. */
  if (p > 1)
    {
      /* The slowest hop paces the pipeline: a network one once the
       * pipeline spans nodes. */
      Link link = gpus <= gpn ? node_link (ctx) : nic_link (ctx);
      double volume = tokens * h * a / t;
      double one = volume / link.bandwidth + link.latency;

      pp_time = 2.0 * v * one;
      pp_bytes = 2.0 * v * volume * m;
    }

  compute_mb = gemm_fwd + gemm_bwd + lm_fwd + lm_bwd;
  memory_mb = mem_fwd + mem_bwd + cast_fwd + cast_bwd;
  recompute_mb = gemm_rec + mem_rec + tp_rec_exposed;
  comm_mb = (tp_exposed - tp_rec_exposed) + cp_exposed + ep_time + pp_time;
  per_mb = compute_mb + memory_mb + recompute_mb + comm_mb;
  /* An average rank, without the LM head and loss of the last one, sets
   * the fill and drain (Narayanan et al. 2021 §2.2: (p − 1)/m for 1F1B
   * and GPipe, (p − 1)/(v·m) interleaved). */
  per_mb_avg = per_mb - (1.0 - 1.0 / p) * (lm_fwd + lm_bwd
                                            + logits_local * (loss_fwd + loss_bwd) / bw);
  /* ZB-H1 (Qi et al. 2024, Zero Bubble Pipeline Parallelism, §2.1) splits
   * the backward into B (input gradients) and W (weight gradients) and
   * moves the W passes of the warm-up into the drain: its bubble is
   * (p − 1)(T_F + T_B − T_W) where 1F1B's is (p − 1)(T_F + T_B + T_W).
   * W is the weight-gradient products of an average rank (its layers and
   * 1/p of the LM head, as per_mb_avg counts them): what a linear's
   * backward computes beyond its forward (none for a frozen matrix, whose
   * backward is its input gradient only). */
  if (tr->pipeline_schedule == HR_PIPELINE_ZB_H1)
    {
      double weight_grads = max2 (0.0, lm_bwd - lm_fwd) / p;

      for (i = 0; i < HR_FLOPS_N_COMPONENTS; i++)
        {
          const HrFlopsPart *part = &flops->component[i];

          if (i == HR_FLOPS_LM_HEAD || i == HR_FLOPS_ATTN_SCORES || i == HR_FLOPS_ATTN_OVER_V)
            continue;
          weight_grads += max2 (0.0, part->backward - part->forward) * scale * rank_layers / L
                          * spf_bwd[i];
        }
      per_mb_avg = max2 (0.0, per_mb_avg - 2.0 * weight_grads);
    }

  fsdp_gathers (tr, memory, m, &fwd_gathers, &bwd_gathers);
  /* Data parallel (ring over dp·cp ranks; experts over dp·cp/ep):
   * ZeRO 0 all-reduces gradients once per step; ZeRO 1 and Megatron's
   * distributed optimizer reduce-scatter gradients and all-gather weights;
   * DeepSpeed ZeRO 2 reduce-scatters each micro-batch; ZeRO 3 and FSDP
   * all-gather weights for the forward and again for the backward of each
   * micro-batch, but for what stays gathered (fsdp_gathers), and
   * reduce-scatter gradients (Rajbhandari et al. 2020 §7: 1.5× the
   * all-reduce volume). Hybrid FSDP shards within a node and all-reduces
   * its shard across nodes. */
  {
    double n = d * c;
    double n_exp = d * c / e;
    double w = weight_bytes (tr), g = gradient_bytes (tr);
    double dense = (double) (ctx->params.total - ctx->params.routed_experts) / (t * p);
    double experts = (double) ctx->params.routed_experts / (t * e * p);
    Link link = ring_link (ctx, tr->tensor_parallel, tr->context_parallel * dp, gpn);
    double bwd_window = gemm_bwd + mem_bwd + gemm_rec + mem_rec;
    double fwd_window = gemm_fwd + mem_fwd;
    /* Fine-tuning reduces the gradients it has only (HrTrainingMemory.gradient_share). */
    double trained = memory->gradient_share;
    /* no_sync accumulation reduce-scatters once per step, after the last
     * micro-batch (hr_training_unsharded_accumulation). */
    double reductions = hr_training_unsharded_accumulation (tr) || hr_training_fsdp_pipeline (tr)
                        ? 1.0 : m;
    double rs, ag, ar, bucket;
    /* the collectives' time that crosses nodes behind the compute, and the
     * cards each of their rings drives from a node */
    double hidden_across = 0;
    int64_t cards = tr->fsdp == HR_FSDP_HYBRID
                    ? 0 : ring_cards (tr->tensor_parallel, tr->context_parallel * dp, gpn);
    int zero = tr->fsdp == HR_FSDP_FULL || tr->fsdp == HR_FSDP_HYBRID ? 3
               : tr->fsdp == HR_FSDP_GRAD_OP ? 2 : tr->zero_stage;

    g *= trained;
    rs = ring_seconds (dense * g, n, link.bandwidth, link.latency, 1.0)
         + ring_seconds (experts * g, n_exp, link.bandwidth, link.latency, 1.0);
    ag = ring_seconds (dense * w, n, link.bandwidth, link.latency, 1.0)
         + ring_seconds (experts * w, n_exp, link.bandwidth, link.latency, 1.0);
    ar = 2.0 * rs;
    bucket = 1.0 / (layers > 1.0 ? layers : 1.0);   /* one layer's share is the last bucket */

    if (tr->fsdp == HR_FSDP_HYBRID)
      {
        double per_node = (double) (gpn / tr->tensor_parallel > 1 ? gpn / tr->tensor_parallel : 1);
        double inside = per_node < n ? per_node : n;
        /* One rank per node in each cross-node ring: its own card. */
        Link node = node_link (ctx);
        Link net = nic_link (ctx);
        double params = dense + experts;
        double shard_ag = ring_seconds (params * w, inside, node.bandwidth, node.latency, 1.0);
        double shard_rs = ring_seconds (params * g, inside, node.bandwidth, node.latency, 1.0);
        double across = ring_seconds (params * g / inside, n / inside, net.bandwidth, net.latency, 2.0);
        double bwd_ag = shard_ag * bwd_gathers / m;   /* one backward's gathers */

        dp_time = (fwd_gathers + bwd_gathers) * shard_ag + reductions * shard_rs + across;
        dp_bytes = (fwd_gathers + bwd_gathers) * ring_bytes (params * w, inside, 1.0)
                   + reductions * ring_bytes (params * g, inside, 1.0)
                   + ring_bytes (params * g / inside, n / inside, 2.0);
        if (tr->overlap)
          {
            double across_exposed = max2 (across * bucket, across - bwd_window);

            dp_exposed = fwd_gathers * max2 (shard_ag * bucket, shard_ag - fwd_window)
                         + (m - reductions) * max2 (bwd_ag * bucket, bwd_ag - bwd_window)
                         + reductions * max2 ((bwd_ag + shard_rs) * bucket,
                                              bwd_ag + shard_rs - bwd_window)
                         + across_exposed;
            hidden_across = across - across_exposed;
          }
        else
          dp_exposed = dp_time;
        cards = n > inside ? 1 : 0;   /* one rank a node in each cross-node ring */
      }
    else if (zero >= 3)
      {
        double bwd_ag = ag * bwd_gathers / m;   /* one backward's gathers */

        dp_time = (fwd_gathers + bwd_gathers) * ag + reductions * rs;
        dp_bytes = (fwd_gathers + bwd_gathers)
                   * (ring_bytes (dense * w, n, 1.0) + ring_bytes (experts * w, n_exp, 1.0))
                   + reductions * (ring_bytes (dense * g, n, 1.0) + ring_bytes (experts * g, n_exp, 1.0));
        if (tr->overlap)
          dp_exposed = fwd_gathers * max2 (ag * bucket, ag - fwd_window)
                       + (m - reductions) * max2 (bwd_ag * bucket, bwd_ag - bwd_window)
                       + reductions * max2 ((bwd_ag + rs) * bucket, bwd_ag + rs - bwd_window);
        else
          dp_exposed = dp_time;
      }
    else if (zero == 2)
      {
        double gathers = tr->fsdp == HR_FSDP_GRAD_OP ? m : 1.0;

        dp_time = reductions * rs + gathers * ag;
        dp_bytes = reductions * (ring_bytes (dense * g, n, 1.0) + ring_bytes (experts * g, n_exp, 1.0))
                   + gathers * (ring_bytes (dense * w, n, 1.0) + ring_bytes (experts * w, n_exp, 1.0));
        if (tr->overlap)
          dp_exposed = reductions * max2 (rs * bucket, rs - bwd_window)
                       + gathers * max2 (ag * bucket, ag - fwd_window);
        else
          dp_exposed = dp_time;
      }
    else if (zero == 1)
      {
        dp_time = rs + ag;
        dp_bytes = ring_bytes (dense * g, n, 1.0) + ring_bytes (experts * g, n_exp, 1.0)
                   + ring_bytes (dense * w, n, 1.0) + ring_bytes (experts * w, n_exp, 1.0);
        if (tr->overlap)
          dp_exposed = max2 (rs * bucket, rs - bwd_window) + max2 (ag * bucket, ag - fwd_window);
        else
          dp_exposed = dp_time;
      }
    else
      {
        dp_time = ar;
        dp_bytes = ring_bytes (dense * g, n, 2.0) + ring_bytes (experts * g, n_exp, 2.0);
        if (tr->overlap)
          dp_exposed = max2 (ar * bucket, ar - bwd_window);
        else
          dp_exposed = dp_time;
      }
    if (tr->fsdp != HR_FSDP_HYBRID && cards > 0)
      hidden_across = dp_time - dp_exposed;   /* the whole group crosses nodes */

    /* NCCL's kernels hold their SMs for as long as they move data: one CTA
     * a channel. Across nodes two channels a ring, for it finds one ring per
     * card (src/graph/search.cc: each card carries one ring at its rate)
     * and doubles them (src/graph/connect.cc, ncclTopoPostset); within a
     * node the GPU's nvlink_nccl_channels. The compute behind a hidden
     * collective runs on the other SMs, and what it could not do there
     * waits (docs/planner.md, "SMs that collectives hold"). */
    if (ctx->gpu->sm_count > 0)
      {
        double sms = ctx->gpu->sm_count;
        double hidden = max2 (0.0, dp_time - dp_exposed);
        double within = d * c > 1.0 ? max2 (0.0, hidden - hidden_across) : 0.0;

        step->nccl_sms = min2 (1.0, 2.0 * (double) cards / sms) * hidden_across
                         + min2 (1.0, ctx->gpu->nvlink_nccl_channels / sms) * within;
        if (hidden > 0)
          step->nccl_sm_share = step->nccl_sms / hidden;
      }
  }

  /* Optimizer: reads and writes its states and master weights, reads the
   * gradient shard and writes the working weights, at memory bandwidth;
   * without a master copy it updates the weights in place, read and written
   * (torch's _fused_adamw_, bitsandbytes' optimizer_update_8bit_blockwise). */
  {
    bool sharded = tr->zero_stage >= 1 || tr->fsdp != HR_FSDP_NONE;
    double owned = (double) memory->params_on_gpu / (sharded ? d * c : 1.0);

    if (memory->trainable_params > 0)
      owned *= (double) memory->trainable_params / (double) ctx->params.total;
    step->split.optimizer = (2.0 * (memory->optimizer + memory->master_weights)
                             + owned * (gradient_bytes (tr)
                                        + (memory->master_weights > 0 ? 1.0 : 2.0) * weight_bytes (tr)))
                            / bw;
    /* torch.optim.AdamW's foreach step (torch/optim/adam.py,
     * _multi_tensor_adam, not capturable) runs one pass per op over every
     * parameter: p ·= 1 − lr·wd (read and write p), lerp m toward g (m, g →
     * m), v ·= β₂ (v → v), v += (1 − β₂)·g² (v, g, g → v), s = sqrt(v)
     * (v → s), s /= √bc₂ and s += ε (s → s, twice), p += step · m / s
     * (p, m, s → p): 4 bytes of p, 14 of the states' dtype and 3 of the
     * gradient's per parameter, where the fused step moves 2p + 4s + g. The
     * updated p is the fp32 master where there is one, which then writes
     * the working copy as above. A loop over the tensors in unfused ops
     * (Composer's DecoupledAdamW, optimizer_loop) is counted the same: it
     * scales m and adds g to it where foreach lerps (two more accesses of
     * m) and skips the decay pass at weight decay 0 (two fewer of p). */
    if (tr->optimizer == HR_OPTIMIZER_ADAMW && (tr->optimizer_foreach || tr->optimizer_loop)
        && owned > 0)
      {
        double state = memory->optimizer / (2.0 * owned);
        double master = memory->master_weights / owned;

        step->split.optimizer = owned * (4.0 * (master > 0 ? master : weight_bytes (tr))
                                         + 14.0 * state + 3.0 * gradient_bytes (tr)
                                         + (master > 0 ? weight_bytes (tr) : 0.0)) / bw;
      }
  }

  /* FSDP2's copies on the compute stream (docs/planner.md, "FSDP2's
   * copies"; torch/distributed/_composable/fsdp/_fsdp_collectives.py):
   * foreach_all_gather_copy_out splits each gathered buffer into the
   * parameters (split_with_sizes_copy: the gathered bytes read and
   * written), and the compute stream waits for
   * foreach_reduce_scatter_copy_in, which concatenates the unsharded
   * gradients into a buffer of the reduce dtype (read them, write it).
   * What is gathered is what the data-parallel term moves (fsdp_gathers).
   * Under a pipeline or no_sync the unsharded gradients are summed over the
   * micro-batches in the reduce dtype (FSDPParam.to_accumulated_grad_if_needed
   * casts the first, the others are added) and copied in once. */
  if (tr->fsdp2 && tr->fsdp != HR_FSDP_NONE && d * c > 1.0)
    {
      double params = (double) memory->params_on_gpu;
      /* the gradients the data-parallel term reduces */
      double trained = params * memory->gradient_share;
      double gathered = (fwd_gathers + bwd_gathers) * params, summed;
      double grad = working_bytes (tr), reduce = gradient_bytes (tr);

      if (hr_training_fsdp_pipeline (tr) || hr_training_unsharded_accumulation (tr))
        summed = trained * ((reduce != grad ? grad + reduce : 0.0)
                            + (m - 1.0) * (grad + 2.0 * reduce) + 2.0 * reduce);
      else
        summed = m * trained * (grad + reduce);
      fsdp_copies = (2.0 * weight_bytes (tr) * gathered + summed) / bw;
    }
  /* FSDP1's flat parameters: a unit's parameters are views of its gathered
   * flat buffer (FlatParamHandle._get_unflat_views: torch.split, then view),
   * so their gradients reach the flat parameter through
   * split_with_sizes_backward, an at::cat: each trained parameter's
   * gradient read and written once a micro-batch, on the compute stream.
   * Under no_sync or a pipeline the flat gradient is kept and the next
   * micro-batches' are added to it (AccumulateGrad: two reads, a write).
   * Each reduction then makes passes of its own on the post-backward stream
   * (torch/distributed/fsdp/_runtime_utils.py, _post_backward_hook and
   * _reduce_grad): the unsharded gradient cast to the reduce dtype when it
   * differs, divided in place by the predivide factor before the
   * reduce-scatter and the shard by the postdivide factor after it; with a
   * reduction every micro-batch the shards are summed (_saved_grad_shard
   * += new_sharded_grad). */
  else if (tr->fsdp != HR_FSDP_NONE && !tr->megatron_fsdp && d * c > 1.0)
    {
      double trained = (double) memory->params_on_gpu * memory->gradient_share;
      double grad = hr_training_autocast (tr) ? 4.0 : working_bytes (tr);
      double reduce = gradient_bytes (tr);
      double ranks = d * c, pre = gradient_predivide_factor (ranks), post = ranks / pre;
      bool once = hr_training_fsdp_pipeline (tr) || hr_training_unsharded_accumulation (tr);
      double kept = once ? (m - 1.0) * 3.0 * grad : 0.0;
      double passes = (reduce != grad ? grad + reduce : 0.0) + (pre > 1.0 ? 2.0 * reduce : 0.0)
                      + (post > 1.0 ? 2.0 * reduce / ranks : 0.0);
      double sums = once ? 0.0 : (m - 1.0) * 3.0 * reduce / ranks;

      fsdp_copies = trained * (m * 2.0 * grad + kept + (once ? 1.0 : m) * passes + sums) / bw;
    }

  /* The host link (docs/training.md, "Paged optimizers" and "Time on the
   * host link"), at its raw rate. Paged optimizer states the GPU has no
   * room for are evicted in the forward and backward and paged back by the
   * update (bitsandbytes prefetch_state, on the update's stream): twice
   * paged_out a step, with nothing to hide behind. Offloaded activations
   * leave in each micro-batch's forward and return in its backward on a
   * side stream (torchtune OffloadActivations, use_streams): only what
   * outlasts the pass is exposed. Each copy back is issued when the
   * backward unpacks its tensor (unpack_tensor_with_streams), so it hides
   * only while the CPU runs ahead of the GPU. bitsandbytes' optimizers
   * synchronise the device after every parameter's update
   * (Optimizer8bit.step: torch.cuda.synchronize(), sync_gpu since 0.47);
   * stepped inside the backward, they leave every copy back to start on
   * an idle GPU, all of it exposed. */
  {
    double host = ctx->gpu->host_bandwidth;
    double paging = 2.0 * memory->paged_out;
    double one_way = host > 0 ? memory->offloaded_activations / host : 0;
    double backward = gemm_bwd + mem_bwd + gemm_rec + mem_rec;

    step->host_after_sync = memory->offloaded_activations > 0 && tr->optimizer_in_backward
                            && (tr->optimizer == HR_OPTIMIZER_ADAMW_8BIT || tr->paged_optimizer);
    step->host.bytes = paging + 2.0 * m * memory->offloaded_activations;
    if (host > 0)
      {
        step->host.seconds = step->host.bytes / host;
        step->host.exposed = paging / host
                             + m * (max2 (0, one_way - (gemm_fwd + mem_fwd))
                                    + (step->host_after_sync ? one_way
                                                             : max2 (0, one_way - backward)));
      }
    step->split.host_transfer = step->host.exposed;
  }

  step->micro_batches = (int64_t) llround (m);
  step->split.compute = m * compute_mb;
  step->split.memory_bound = m * memory_mb + fsdp_copies;
  step->fsdp_copies = fsdp_copies;
  step->bias_grads = m * bias_grads;
  /* QLoRA dequantises the rank's frozen weights in each forward and
   * backward (and recomputed forward): memory-bound (hr-finetune.h). */
  step->split.memory_bound += m * (2.0 + full)
                              * hr_finetune_dequant_bytes (model, &tr->finetune, hr_training_compute_dtype (tr))
                              / (t * p) / bw;
  step->split.recompute = m * recompute_mb;
  step->split.bubble = (p - 1.0) / v * per_mb_avg;
  step->split.communication = m * comm_mb + dp_exposed + step->nccl_sms;
  step->step_seconds = step->split.compute + step->split.memory_bound + step->split.recompute
                       + step->split.communication + step->split.bubble + step->split.optimizer
                       + step->split.host_transfer;

  step->comm[HR_PLAN_COMM_TP] = (HrPlanCommCost) { m * tp_bytes, m * (tp_fwd + tp_bwd + tp_rec),
                                                   m * tp_exposed };
  step->comm[HR_PLAN_COMM_PP] = (HrPlanCommCost) { pp_bytes, m * pp_time, m * pp_time };
  step->comm[HR_PLAN_COMM_DP] = (HrPlanCommCost) { dp_bytes, dp_time, dp_exposed };
  step->comm[HR_PLAN_COMM_CP] = (HrPlanCommCost) { m * cp_bytes, m * cp_time, m * cp_exposed };
  step->comm[HR_PLAN_COMM_EP] = (HrPlanCommCost) { m * ep_bytes, m * ep_time, m * ep_time };

  step->model_flops = flops->model_flops * global;
  step->hardware_flops = (flops->model_flops + none->recompute
                          + (1.0 - skipped) * (flops->recompute - none->recompute)) * global;
  step->mfu = step->model_flops / ((double) gpus * peak * step->step_seconds);
  step->hfu = step->hardware_flops / ((double) gpus * peak * step->step_seconds);
  step->tokens_per_second = global * s / step->step_seconds;
  step->tokens_per_second_per_gpu = step->tokens_per_second / (double) gpus;
  step->gemm_efficiency = flops_gpu / (peak * compute_mb);
  step->bubble_fraction = step->split.bubble / step->step_seconds;

  /* The bound: the largest loss against the model FLOPs at peak. */
  ideal = step->model_flops / ((double) gpus * peak);
  losses[HR_PLAN_BOUND_COMPUTE] = step->split.compute - ideal;
  losses[HR_PLAN_BOUND_MEMORY] = step->split.memory_bound + step->split.recompute
                                 + step->split.optimizer;
  losses[HR_PLAN_BOUND_COMMUNICATION] = step->split.communication + step->split.host_transfer;
  losses[HR_PLAN_BOUND_BUBBLE] = step->split.bubble;
  step->bound = HR_PLAN_BOUND_COMPUTE;
  for (i = 1; i < 4; i++)
    if (losses[i] > losses[step->bound])
      step->bound = (HrPlanBound) i;
}

/* The step of a validated layout: the last pipeline rank (it holds the LM
 * head and the loss), or, when the stages hold different numbers of layers
 * (docs/training.md, "Pipelines"), whichever of it and the most loaded
 * other rank is slower: 1F1B runs at the slowest stage's pace, and the
 * interleaved schedule at the slowest rank's, which runs all its chunks of
 * every micro-batch in the steady state. */
void
hr_plan_evaluate (const HrPlanContext    *ctx,
                  const HrTraining       *tr,
                  const HrTrainingMemory *memory,
                  HrPlanStep             *step)
{
  const HrModel *model = ctx->model;
  int64_t pp = tr->pipeline_parallel;
  int64_t most = 0;
  HrPlanStep other;

  if (hr_training_even_stages (tr, model->n_layers))
    {
      evaluate_rank (ctx, tr, memory, (double) model->n_layers / (double) (pp > 1 ? pp : 1),
                     true, step);
      return;
    }
  evaluate_rank (ctx, tr, memory, (double) hr_training_stage_layers (tr, model, pp - 1), true,
                 step);
  for (int64_t stage = 0; stage < pp - 1; stage++)
    {
      int64_t n = hr_training_stage_layers (tr, model, stage);

      if (n > most)
        most = n;
    }
  evaluate_rank (ctx, tr, memory, (double) most, false, &other);
  if (other.step_seconds > step->step_seconds)
    *step = other;
}

/* hr_plan_step() past the checks of the model and the setting; `memory`
 * is the setting's, or NULL to estimate it. */
static HrStatus
plan_step (HrPlanContext          *ctx,
           const HrTraining       *training,
           const HrTrainingMemory *memory,
           HrPlanStep             *step,
           HrError                *err)
{
  HrTrainingMemory own;
  HrStatus status;

  status = hr_plan_check_setting (ctx, training, err);
  if (status != HR_OK)
    return status;
  status = hr_plan_context_flops (ctx, training, training->recompute, err);
  /* A mode on some layers only: the others rerun what no mode does. */
  if (status == HR_OK && (training->recompute_layers > 0 || training->recompute_every > 1))
    status = hr_plan_context_flops (ctx, training, HR_RECOMPUTE_NONE, err);
  if (status != HR_OK)
    return status;
  if (memory == NULL)
    {
      status = hr_training_memory (ctx->model, training, ctx->gpu, &own, err);
      if (status != HR_OK)
        return status;
      memory = &own;
    }

  hr_plan_evaluate (ctx, training, memory, step);
  if (step->host.bytes > 0 && !(ctx->gpu->host_bandwidth > 0.0))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "host_bandwidth", 0, 0,
                         "needed to page optimizer states or offload activations to the host");
  return HR_OK;
}

HrStatus
hr_plan_step (const HrModel           *model,
              const HrTraining        *training,
              const HrGpu             *gpu,
              const HrPlanAssumptions *assumptions,
              HrPlanStep              *step,
              HrError                 *err)
{
  HrPlanContext ctx;
  HrStatus status;

  status = hr_plan_context_init (&ctx, model, gpu, assumptions, NULL, err);
  if (status != HR_OK)
    return status;
  status = hr_training_validate (training, model, err);
  if (status != HR_OK)
    return status;
  return plan_step (&ctx, training, NULL, step, err);
}

HrStatus
hr_plan_step_counted (const HrModel           *model,
                      const HrTraining        *training,
                      const HrGpu             *gpu,
                      const HrPlanAssumptions *assumptions,
                      const HrParams          *params,
                      const HrTrainingMemory  *memory,
                      HrPlanStep              *step,
                      HrError                 *err)
{
  HrPlanContext ctx;
  HrStatus status;

  status = hr_plan_context_init (&ctx, model, gpu, assumptions, params, err);
  if (status != HR_OK)
    return status;
  return plan_step (&ctx, training, memory, step, err);
}
