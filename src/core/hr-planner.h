/* hr-planner.h: predicted step time of a parallel layout, and the search for the best layouts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * hr_plan_step() predicts one optimizer step of a training layout from the
 * hardware: matrix products at a shape-dependent fraction of peak, memory-bound
 * kernels at memory bandwidth, TP/PP/DP/CP/EP communication over the links
 * with stated overlap, the pipeline bubble and the optimizer step.
 *
 * hr_plan_search() enumerates every valid layout of a GPU count, drops those
 * that do not fit (hr_training_memory()), ranks the rest by predicted step
 * time and returns the best few and the memory/throughput Pareto set into
 * arrays the caller owns. docs/planner.md gives the model and its sources.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hr-error.h"
#include "hr-gpu.h"
#include "hr-model.h"
#include "hr-training.h"

/* What limits a layout: the largest of four losses between its step time and
 * the same model FLOPs at the GPU's peak. */
typedef enum
{
  HR_PLAN_BOUND_COMPUTE,        /* matrix products below peak (small or skinny shapes) */
  HR_PLAN_BOUND_MEMORY,         /* memory-bound kernels, recomputation, optimizer step */
  HR_PLAN_BOUND_COMMUNICATION,  /* communication not hidden behind compute, the host link */
  HR_PLAN_BOUND_BUBBLE,         /* pipeline fill and drain */
} HrPlanBound;

/* Figures the model cannot derive from the catalog; hr_plan_assumptions_init()
 * sets the documented defaults (docs/planner.md, "Assumptions"). */
typedef struct
{
  double gemm_efficiency;      /* fraction of peak that large matrix products sustain */
  double memory_efficiency;    /* fraction of memory bandwidth that streaming kernels sustain */
  double link_efficiency;      /* fraction of NVLink / network bandwidth that NCCL sustains */
  double intra_node_latency;   /* seconds per ring step inside a node */
  double inter_node_latency;   /* seconds per ring step between nodes, for GPUs without a figure */
} HrPlanAssumptions;

/* Seconds of one step on the critical path; they add up to the step time. */
typedef struct
{
  double compute;        /* matrix products of forward and backward passes */
  double memory_bound;   /* norms, activation functions, softmax, residual adds */
  double recompute;      /* forward work repeated for the backward pass */
  double communication;  /* communication left exposed after overlap */
  double bubble;         /* pipeline fill and drain */
  double optimizer;      /* optimizer update at memory bandwidth */
  double host_transfer;  /* host link: paged-out optimizer states, offloaded activations */
} HrPlanSplit;

typedef enum
{
  HR_PLAN_COMM_TP,  /* tensor parallel all-reduce (or reduce-scatter + all-gather) */
  HR_PLAN_COMM_PP,  /* pipeline point-to-point sends */
  HR_PLAN_COMM_DP,  /* gradient reduction and ZeRO/FSDP parameter gathers */
  HR_PLAN_COMM_CP,  /* context parallel key/value ring exchange */
  HR_PLAN_COMM_EP,  /* expert parallel all-to-all dispatch and combine */
  HR_PLAN_COMM_N
} HrPlanComm;

typedef struct
{
  double bytes;      /* sent per GPU per step */
  double seconds;    /* link time per step before overlap */
  double exposed;    /* the part on the critical path */
} HrPlanCommCost;

typedef struct
{
  HrPlanSplit    split;
  HrPlanCommCost comm[HR_PLAN_COMM_N];
  HrPlanCommCost host;        /* over the host link (PCIe), exposed = split.host_transfer */
  double  step_seconds;
  double  model_flops;        /* per step, whole cluster: forward + backward */
  double  hardware_flops;     /* per step, whole cluster: with recomputation */
  double  mfu;                /* model FLOPs / (GPUs × peak × step) */
  double  hfu;
  double  tokens_per_second;
  double  tokens_per_second_per_gpu; /* ÷ every GPU of the run: what frameworks log per rank */
  double  gemm_efficiency;    /* achieved fraction of peak over the step's matrix products */
  double  fsdp_copies;        /* of split.memory_bound: FSDP2's copies (training.fsdp2),
                               * or FSDP1's concatenation of the gradients */
  double  bias_grads;         /* of split.memory_bound: the sums of bias gradients over
                               * the tokens (training.fused_bias_grad off) */
  double  nccl_sms;           /* of split.communication: the compute that waits while
                               * hidden cross-node collectives hold SMs */
  double  nccl_sm_share;      /* the share of the SMs they hold (0: none counted) */
  bool    host_after_sync;    /* the offloaded activations come back on an idle GPU:
                               * bitsandbytes synchronises after each parameter's
                               * update inside the backward (optimizer_in_backward) */
  bool    attention_as_gemm;  /* flash attention on a GPU with no rate for the kernel
                               * (HrGpu's attention tables): its core priced as products
                               * at the GEMM rate, an optimistic assumption */
  double  bubble_fraction;    /* bubble / step */
  int64_t micro_batches;      /* per pipeline per step (gradient accumulation) */
  HrPlanBound bound;
} HrPlanStep;

/* "free" for the int pins of HrPlanRequest */
#define HR_PLAN_FREE (-1)

/* The data-parallel sharding a framework has, for the search */
typedef enum
{
  HR_PLAN_SHARDING_ANY,    /* ZeRO 0-3 and FSDP's hybrid mode */
  HR_PLAN_SHARDING_ZERO,   /* DeepSpeed: ZeRO 0-3 */
  HR_PLAN_SHARDING_ZERO1,  /* Megatron: replicated or its distributed optimizer (ZeRO 1) */
  HR_PLAN_SHARDING_FSDP,   /* PyTorch FSDP: replicated (DDP), full, grad-op, hybrid */
  HR_PLAN_SHARDING_FSDP_SHARDED, /* FSDP's sharded modes only: replicated on one rank alone */
} HrPlanSharding;

typedef struct
{
  /* The recipe and the cluster: nodes, gpus_per_node, global_batch (> 0),
   * seq_len, precision, fp32_gradients, optimizer, attention, dropout,
   * causal, overhead_bytes. Its layout fields are ignored: the pins below
   * choose which dimensions are searched. */
  HrTraining training;

  /* Pins; 0 for counts and HR_PLAN_FREE for the others = searched. */
  int64_t tensor_parallel;
  int64_t pipeline_parallel;
  int64_t virtual_stages;       /* 1 = plain 1F1B; > 1 = interleaved */
  int64_t context_parallel;
  int64_t expert_parallel;
  int64_t micro_batch;
  int     zero_stage;           /* 0-3, or HR_PLAN_FREE */
  int     fsdp;                 /* an HrFsdp, or HR_PLAN_FREE */
  int     sequence_parallel;    /* 0, 1, or HR_PLAN_FREE */
  int     recompute;            /* an HrRecompute, or HR_PLAN_FREE */
  unsigned recompute_modes;     /* free recompute tries these: bits 1 << HrRecompute;
                                 * 0 = none, selective and full */
  HrPlanSharding sharding;      /* which modes the free zero_stage and fsdp take */

  HrPlanAssumptions assumptions;
} HrPlanRequest;

typedef struct
{
  HrTraining training;          /* the whole setting of this layout; mfu = 0, predicted:
                                 * hr_training_time() of it gives step.step_seconds */
  int64_t    data_parallel;
  int64_t    grad_accumulation; /* micro-batches per pipeline per step */
  double     memory_total;      /* bytes on the most loaded GPU (hr_training_memory) */
  double     memory_capacity;
  HrPlanStep step;
} HrPlanLayout;

typedef struct
{
  int64_t searched;             /* valid layouts evaluated */
  int64_t fitting;              /* of which fit in memory */
  size_t  n_best;               /* filled entries of `best`, fastest first */
  size_t  n_pareto;             /* filled entries of `pareto`, least memory first */
  bool    pareto_truncated;     /* the front had more points than `pareto` holds */
} HrPlanResult;

void     hr_plan_assumptions_init (HrPlanAssumptions *assumptions);
double   hr_plan_network_latency  (const HrGpu             *gpu,
                                   const HrPlanAssumptions *assumptions);

/* hr_training_init() on the recipe, every dimension free, default assumptions. */
void     hr_plan_request_init     (HrPlanRequest     *request);

/* Predicts one step of `training` (which must pass hr_training_validate()).
 * `assumptions` may be NULL for the defaults. */
HrStatus hr_plan_step             (const HrModel           *model,
                                   const HrTraining        *training,
                                   const HrGpu             *gpu,
                                   const HrPlanAssumptions *assumptions,
                                   HrPlanStep              *step,
                                   HrError                 *err);

/* Fills best[0..n_best) with the fastest fitting layouts and pareto[0..n_pareto)
 * with those no other fitting layout beats in both memory and throughput.
 * Either array may be NULL with a zero size. Finding no fitting layout is not
 * an error: result->n_best is then 0. */
HrStatus hr_plan_search           (const HrModel       *model,
                                   const HrGpu         *gpu,
                                   const HrPlanRequest *request,
                                   HrPlanLayout        *best,
                                   size_t               n_best,
                                   HrPlanLayout        *pareto,
                                   size_t               n_pareto,
                                   HrPlanResult        *result,
                                   HrError             *err);

/* "compute", "memory", "communication", "bubble" */
const char *hr_plan_bound_name (HrPlanBound bound);
/* "tp", "pp", "dp", "cp", "ep" */
const char *hr_plan_comm_name  (HrPlanComm  comm);
