/* hr-flops.h: floating-point operations of training and inference
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Matrix products only (2·m·n·k each); bias adds, norms, softmax and
 * element-wise work are left out, as in the PaLM model-FLOPs convention.
 * Attention is counted as the full s×s product unless `causal` is set, which
 * halves QKᵀ and attention over V (as FlashAttention kernels and Megatron count).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hr-error.h"
#include "hr-finetune.h"
#include "hr-model.h"

typedef enum
{
  HR_ATTENTION_EAGER,  /* probabilities saved for the backward pass */
  HR_ATTENTION_FLASH,  /* QKᵀ recomputed in the backward pass */
} HrAttentionImpl;

typedef enum
{
  HR_RECOMPUTE_NONE,
  HR_RECOMPUTE_SELECTIVE,  /* attention core (QKᵀ, attention over V) recomputed */
  HR_RECOMPUTE_FULL,       /* each layer's forward run again */
  HR_RECOMPUTE_OP_SELECTIVE, /* torchtitan's op-level SAC: matmul outputs saved except
                              * every second one, attention outputs saved */
} HrRecompute;

/* What the selective mode recomputes: Megatron-Core's recompute_modules
 * (megatron/core/transformer/transformer_config.py; default core_attn).
 * core_attn, mlp, moe and shared_experts rerun the module from its saved
 * input; layernorm, moe_act and mla_up_proj discard their output and rebuild
 * it before the backward needs it (CheckpointWithoutOutput). */
enum
{
  HR_RECOMPUTE_CORE_ATTN = 1 << 0,       /* the attention core */
  HR_RECOMPUTE_LAYERNORM = 1 << 1,       /* the norms' outputs */
  HR_RECOMPUTE_MOE_ACT = 1 << 2,         /* the routed experts' activation */
  HR_RECOMPUTE_MLP = 1 << 3,             /* dense MLPs */
  HR_RECOMPUTE_MOE = 1 << 4,             /* MoE layers' MLP part */
  HR_RECOMPUTE_SHARED_EXPERTS = 1 << 5,  /* shared experts */
  HR_RECOMPUTE_MLA_UP_PROJ = 1 << 6,     /* MLA's up projections and rotary embedding */
};
#define HR_RECOMPUTE_MODULES_MASK ((1u << 7) - 1)

typedef enum
{
  HR_FLOPS_ATTN_PROJ,    /* q, k, v projections (MLA: its low-rank chain) */
  HR_FLOPS_ATTN_SCORES,  /* QKᵀ */
  HR_FLOPS_ATTN_OVER_V,  /* probabilities × V */
  HR_FLOPS_ATTN_OUT,     /* output projection */
  HR_FLOPS_MLP,          /* dense MLPs, shared experts and the routed experts tokens use */
  HR_FLOPS_ROUTER,
  HR_FLOPS_LM_HEAD,
  HR_FLOPS_N_COMPONENTS
} HrFlopsComponent;

typedef struct
{
  int64_t         seq_len;
  int64_t         micro_batch;
  HrAttentionImpl attention;
  HrRecompute     recompute;
  unsigned        recompute_modules; /* HR_RECOMPUTE_* bits the selective mode reruns */
  bool            causal;
  const HrFinetune *finetune;  /* what is trained; NULL = everything (hr-finetune.h) */
  double          recompute_skipped; /* share of the layers the recompute mode leaves
                                      * out (hr_training_recompute_skipped ()); 0: none */
} HrFlopsOptions;

typedef struct
{
  double forward;
  double backward;   /* the plain backward pass: twice the forward for matrix products */
  double recompute;  /* extra forward work of the attention implementation and recompute mode */
} HrFlopsPart;

typedef struct
{
  int64_t     tokens;                             /* micro_batch × seq_len */
  HrFlopsPart component[HR_FLOPS_N_COMPONENTS];
  double      forward, backward, recompute;
  double      total;                              /* forward + backward + recompute */
  double      per_token;                          /* total / tokens */
  double      model_flops;                        /* forward + backward: what MFU counts */
  double      six_n_per_token;                    /* 6·N, N = active non-embedding parameters */
  double      palm_per_token;                     /* PaLM App. B: 6N + 12·L·H·Q·T */
} HrFlops;

/* One training step of micro_batch × seq_len tokens on the whole model. */
HrStatus hr_flops_training (const HrModel        *model,
                            const HrFlopsOptions *options,
                            HrFlops              *flops,
                            HrError              *err);

/* Forward FLOPs of a prefill of `prompt` tokens for each of `batch` sequences. */
double hr_flops_prefill (const HrModel *model,
                         int64_t        batch,
                         int64_t        prompt,
                         bool           causal);

/* Forward FLOPs of one generated token per sequence, attending over `context`
 * cached tokens (sliding-window layers attend over at most their window). */
double hr_flops_decode_token (const HrModel *model,
                              int64_t        batch,
                              int64_t        context);

/* The same by component (HrFlopsComponent order, whole model); each returns
 * the sum of `parts`. */
double hr_flops_prefill_components (const HrModel *model,
                                    int64_t        batch,
                                    int64_t        prompt,
                                    bool           causal,
                                    double         parts[HR_FLOPS_N_COMPONENTS]);
double hr_flops_decode_token_components (const HrModel *model,
                                         int64_t        batch,
                                         int64_t        context,
                                         double         parts[HR_FLOPS_N_COMPONENTS]);

const char *hr_flops_component_name (HrFlopsComponent component); /* "attention_projections", … */

/* Added by core-model */

/* Training FLOPs for a budget of `tokens` tokens at the step's per-token cost. */
double hr_flops_for_tokens (const HrFlops *step,
                            double         tokens);

/* Compute-optimal training tokens, 20 per parameter (Hoffmann et al. 2022). */
double hr_flops_chinchilla_tokens (const HrParams *params);
