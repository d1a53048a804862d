/* hr-internal.h: what the core's files call in one another
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The public calls past the checks their caller has already made: a
 * training estimate validates the model and the setting and counts the
 * parameters once, not in every call it makes. Then the types and helpers
 * that the files of one estimate share (hr-training*.c, hr-inference*.c,
 * hr-planner*.c). For src/core only.
 */
#pragma once

#include "hr-flops.h"
#include "hr-inference.h"
#include "hr-planner.h"
#include "hr-training.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

/* names[value], or "unknown" past the table. */
const char *hr_name_of    (const char * const *names,
                           size_t              n,
                           int                 value);

/* The index of `name` in `names` into *value; false when absent or NULL. */
bool        hr_name_index (const char * const *names,
                           size_t              n,
                           const char         *name,
                           int                *value);

/* prefix_name() and prefix_from_name() of an enum over its name table. */
#define DEFINE_NAMES(prefix, Type, table)                                   \
  const char *                                                              \
  prefix##_name (Type value)                                                \
  {                                                                         \
    return hr_name_of (table, N_ELEMENTS (table), (int) value);            \
  }                                                                         \
  bool                                                                      \
  prefix##_from_name (const char *name,                                     \
                      Type       *value)                                    \
  {                                                                         \
    int v;                                                                  \
    if (!hr_name_index (table, N_ELEMENTS (table), name, &v))               \
      return false;                                                         \
    *value = (Type) v;                                                      \
    return true;                                                            \
  }

/* The bits of a comma-separated list of names, names[i] setting bit i,
 * spaces around each allowed ("" is 0); false on a name not in `names`, an
 * empty item or a trailing comma. */
bool     hr_name_list_bits (const char         *text,
                            const char * const *names,
                            size_t              n,
                            unsigned           *bits);

/* hr_model_params() of a model hr_model_validate() accepted. */
HrStatus hr_model_count_params (const HrModel *model,
                                HrParams      *params,
                                HrError       *err);

/* hr_flops_training() with the model's parameters counted (which validates it). */
HrStatus hr_flops_training_counted (const HrModel        *model,
                                    const HrParams       *params,
                                    const HrFlopsOptions *options,
                                    HrFlops              *flops,
                                    HrError              *err);

/* hr_plan_step() of a setting hr_training_validate() accepted, with its
 * model's parameters counted and its memory (hr_training_memory()). */
HrStatus hr_plan_step_counted (const HrModel           *model,
                               const HrTraining        *training,
                               const HrGpu             *gpu,
                               const HrPlanAssumptions *assumptions,
                               const HrParams          *params,
                               const HrTrainingMemory  *memory,
                               HrPlanStep              *step,
                               HrError                 *err);

/* Serving estimates: the layout and memory (hr-inference.c), which the
 * latency (hr-inference-latency.c) reads. */

/* Bytes of one 16-bit activation or unquantised vector element. */
#define BYTES_16BIT 2.0

/* The GPU's memory. */
HrStatus hr_inference_validate_gpu (const HrGpu *gpu,
                                    HrError     *err);

/* KV heads on one GPU: split over TP, at least one (MLA: its one latent). */
int64_t  hr_inference_kv_heads_per_gpu (const HrModel     *model,
                                        const HrInference *inf);

/* KV cache bytes of one token in one layer on one GPU. */
double   hr_inference_kv_bytes_per_token_layer (const HrModel     *model,
                                                const HrInference *inf);

/* Bytes of n weights of a matrix in the setting's weight format. */
double   hr_inference_matrix_bytes (const HrInference *inf,
                                    double             n);

/* Bytes of the token table or, `head`, the LM head (`bias`: with its bias)
 * on one GPU. */
double   hr_inference_vocab_table_bytes (const HrModel     *model,
                                         const HrInference *inf,
                                         bool               head,
                                         bool               bias);

/* Tokens of the prompt one prefill step runs. */
int64_t  hr_inference_prefill_chunk_tokens (const HrInference *inf);

/* Fills `m` for one pipeline stage of a validated setting. */
void     hr_inference_stage_memory (const HrModel     *model,
                                    const HrInference *inf,
                                    const HrParams    *params,
                                    const HrGpu       *gpu,
                                    int64_t            stage,
                                    HrInferenceMemory *m);

/* The planner's step-time model (hr-planner.c), which its layout search
 * (hr-planner-search.c) runs for each layout: a model and a GPU with the
 * figures every layout shares. */
typedef struct
{
  const HrModel    *model;
  const HrGpu      *gpu;
  HrPlanAssumptions as;
  HrParams          params;
  HrFlops           flops[HR_RECOMPUTE_OP_SELECTIVE + 1];  /* micro_batch 1 */
  bool              have_flops[HR_RECOMPUTE_OP_SELECTIVE + 1];
  /* LoRA-style adapters of the request (every layout shares them): the
   * layers' adapted matrices and their forward FLOPs per token */
  HrFinetuneAdapterWidths adapters;
  double            adapter_flops[HR_FLOPS_N_COMPONENTS];
  HrFinetuneGrad    finetune_grad[HR_FLOPS_N_COMPONENTS];  /* what each component trains */
  bool              have_adapters;
  int64_t           head_dim;
  int64_t           q_dim;     /* query heads × head_dim */
  int64_t           kv_dim;    /* key/value heads × head_dim */
} HrPlanContext;

/* Fills `ctx` for the model on the GPU; `params`: the model's, counted;
 * NULL to validate the model and count them. */
HrStatus hr_plan_context_init (HrPlanContext           *ctx,
                               const HrModel           *model,
                               const HrGpu             *gpu,
                               const HrPlanAssumptions *assumptions,
                               const HrParams          *params,
                               HrError                 *err);

/* The FLOPs of one sequence under `recompute`, worked out once. */
HrStatus hr_plan_context_flops (HrPlanContext    *ctx,
                                const HrTraining *training,
                                HrRecompute       recompute,
                                HrError          *err);

/* Checks what the step model needs of a setting: the optimizer step on the
 * GPU, a peak rate for the compute dtype and the network figures. */
HrStatus hr_plan_check_setting (const HrPlanContext *ctx,
                                const HrTraining    *training,
                                HrError             *err);

/* The step of a validated layout whose memory is `memory`, with its
 * context's FLOPs for the layout's recompute mode. */
void     hr_plan_evaluate (const HrPlanContext    *ctx,
                           const HrTraining       *training,
                           const HrTrainingMemory *memory,
                           HrPlanStep             *step);

/* The parts of a training estimate, hr-training*.c */

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* Settings (hr-training.c) */

/* hr_training_data_parallel(), inline: the estimate asks for it in its
 * inner loops. */
static inline int64_t
hr_training_dp (const HrTraining *training)
{
  int64_t model_parallel = training->tensor_parallel * training->pipeline_parallel
                           * training->context_parallel;

  if (model_parallel <= 0)
    return 0;
  return training->nodes * training->gpus_per_node / model_parallel;
}

/* TP inside each routed expert: expert_tensor_parallel, or tp when 0. */
static inline int64_t
hr_training_expert_tp (const HrTraining *training)
{
  return training->expert_tensor_parallel > 0 ? training->expert_tensor_parallel
                                              : training->tensor_parallel;
}

/* The ranks one pipeline stage's experts are spread over, expert parallel
 * times expert data parallel: Megatron-Core re-splits the stage's
 * tp · dp · cp ranks as etp × ep × edp (parallel_state.py); `etp_setting`
 * is expert_tensor_parallel, 0 for tp. */
static inline int64_t
hr_expert_ranks (int64_t etp_setting,
                 int64_t tp,
                 int64_t dp_cp)
{
  int64_t etp = etp_setting > 0 ? etp_setting : tp;

  return etp > 0 ? tp * dp_cp / etp : 0;
}

static inline int64_t
hr_training_expert_ranks (const HrTraining *training)
{
  return hr_expert_ranks (training->expert_tensor_parallel, training->tensor_parallel,
                          hr_training_dp (training) * training->context_parallel);
}

static inline bool
hr_training_is_mixed (const HrTraining *training)
{
  return training->precision == HR_PRECISION_BF16_MIXED
         || training->precision == HR_PRECISION_FP16_MIXED
         || training->precision == HR_PRECISION_FP8_MIXED;
}

/* The memory model and the planner refuse a precision the GPU has no rate
 * for with the same words. */
#define HR_NO_PEAK_DETAIL "the GPU has no peak rate for this precision's compute dtype"

/* fp8-mixed with torchao's float8 linear layers (hr-training.h, HrFp8Recipe). */
static inline bool
hr_training_torchao_fp8 (const HrTraining *training)
{
  return training->precision == HR_PRECISION_FP8_MIXED
         && training->fp8_recipe == HR_FP8_RECIPE_TORCHAO;
}

/* Autocast over fp32 parameters: fp32_residual under a mixed precision, but
 * for a framework that holds 16-bit parameters once it shards them
 * (sharding_16bit_params under FSDP or ZeRO). */
static inline bool
hr_training_autocast (const HrTraining *training)
{
  return training->fp32_residual && hr_training_is_mixed (training)
         && !(training->sharding_16bit_params
              && (training->fsdp != HR_FSDP_NONE || training->zero_stage > 0));
}

/* The optimizer step runs on the CPU: ZeRO-Offload, or offloaded parameters
 * (FSDP's CPU offload steps the optimizer where the shards are). */
static inline bool
hr_training_cpu_optimizer (const HrTraining *training)
{
  return training->offload_optimizer || training->offload_params;
}

/* The full loss, or each chunk's of torchtitan's ChunkedLossWrapper,
 * compiled with its fp32 upcast inside (torchtitan's
 * cross_entropy(pred.float(), …)): it keeps the 16-bit logits and runs one
 * fused kernel a pass over them (hr-training-activations.c). */
static inline bool
hr_training_loss_on_16bit_logits (const HrTraining *training)
{
  return (training->loss == HR_LOSS_FULL || training->loss == HR_LOSS_CHUNKED_HEAD)
         && training->compile && training->compile_loss && !training->model_upcasts_logits;
}

/* FSDP's root unit on the rank: what lies outside the layers but the
 * embedding and head wrapped apart (fsdp_embedding_units). */
static inline int64_t
hr_training_rank_root (const HrTrainingRank *rank)
{
  return rank->outside_layers - rank->embedding_unit - rank->head_unit;
}

static inline int64_t
hr_training_effective_zero_stage (const HrTraining *training)
{
  switch (training->fsdp)
    {
    case HR_FSDP_FULL:
    case HR_FSDP_HYBRID:
      return 3;
    case HR_FSDP_GRAD_OP:
      return 2;
    case HR_FSDP_NONE:
    default:
      return training->zero_stage;
    }
}

static inline int64_t
hr_training_grad_accumulation (const HrTraining *training)
{
  int64_t dp = hr_training_dp (training);

  if (training->global_batch == 0 || dp <= 0 || training->micro_batch <= 0)
    return 1;
  return training->global_batch / (training->micro_batch * dp);
}

static inline int64_t
hr_training_global_batch (const HrTraining *training)
{
  if (training->global_batch > 0)
    return training->global_batch;
  return training->micro_batch * hr_training_dp (training);
}

/* hr_training_validate()'s checks of the setting alone and of the setting
 * against the model, without the error's field when `err` is NULL. */
HrStatus hr_training_validate_settings (const HrTraining *training,
                                        HrError          *err);
HrStatus hr_training_validate_layout (const HrTraining *training,
                                      const HrModel    *model,
                                      HrError          *err);

/* Parameters per rank and model states (hr-training-states.c) */

static inline int64_t
hr_training_head_dim_qk (const HrModel *model)
{
  if (hr_model_uses_mla (model))
    return model->qk_nope_head_dim + model->qk_rope_head_dim;
  return hr_model_head_dim (model);
}

static inline int64_t
hr_training_head_dim_v (const HrModel *model)
{
  if (hr_model_uses_mla (model))
    return model->v_head_dim;
  return hr_model_head_dim (model);
}

/* MLA decompresses k and v for every query head. */
static inline int64_t
hr_training_kv_heads (const HrModel *model)
{
  if (hr_model_uses_mla (model))
    return model->n_heads;
  return model->n_kv_heads;
}

/* One layer's parameters on a rank, by kind. */
typedef struct
{
  int64_t dense;
  int64_t moe;          /* an MoE layer's, but its routed experts */
  int64_t moe_experts;  /* its routed experts on the rank */
} HrRankLayerParams;

typedef struct
{
  double weights;       /* working copy */
  double master;        /* fp32 master copy */
  double gradients;
  double state;         /* bytes of one optimizer state element */
} HrStateBytes;

typedef struct
{
  double dense;   /* ranks sharing ZeRO states of the non-expert parameters */
  double expert;  /* ranks sharing ZeRO states of the routed experts */
} HrShardGroups;
/* FSDP (full or hybrid shard) under pipeline parallelism keeps the stage's
 * parameters gathered through the step: torchtitan's apply_fsdp passes
 * reshard_after_forward=False with PP ("to avoid per-microbatch
 * all-gathers"), and torch.distributed.pipelining runs every micro-batch's
 * backward but the last without gradient sync or resharding
 * (PipelineStage.backward_maybe_with_nosync: set_requires_gradient_sync and
 * set_reshard_after_backward False), so FSDP2 accumulates the unsharded
 * gradients, in reduce_dtype (FSDPParam.to_accumulated_grad_if_needed). */
static inline bool
hr_training_fsdp_pipeline (const HrTraining *t)
{
  return t->fsdp != HR_FSDP_NONE && hr_training_effective_zero_stage (t) >= 3
         && t->pipeline_parallel > 1;
}

/* Gradient accumulation under FSDP's no_sync() (FSDP1; FSDP2's
 * set_requires_gradient_sync(False)) skips the reduce-scatter of every
 * micro-batch but the step's last: each wrapped unit keeps its unsharded
 * gradient, summed into over the micro-batches (torch FSDP's no_sync
 * docstring: "FSDP will accumulate the full model gradients (instead of
 * gradient shards) until the eventual sync"). */
static inline bool
hr_training_unsharded_accumulation (const HrTraining *t)
{
  return t->no_sync && t->fsdp != HR_FSDP_NONE && hr_training_grad_accumulation (t) > 1;
}

/* One layer's parameters on a rank of the setting, by kind. */
void     hr_training_rank_layer_params (const HrModel     *model,
                                        const HrTraining  *training,
                                        const HrParams    *params,
                                        HrRankLayerParams *r);

/* hr_training_rank() of a validated setting, its stage in range and the
 * model's parameters counted. */
void     hr_training_stage_rank (const HrModel    *model,
                                 const HrTraining *training,
                                 const HrParams   *params,
                                 int64_t           stage,
                                 HrTrainingRank   *rank);

/* Bytes per parameter of each model state under the setting's precision. */
void     hr_training_state_bytes (const HrTraining *training,
                                  HrStateBytes     *b);

/* The ranks that share the ZeRO or FSDP shards. */
void     hr_training_shard_groups (const HrTraining *training,
                                   HrShardGroups    *g);

/* Bytes of the gradients of `rank`'s parameters as the setting keeps them:
 * sharded from ZeRO-2, whole under FSDP's pipeline or no_sync accumulation. */
double   hr_training_gradient_bytes (const HrTraining     *training,
                                     const HrTrainingRank *rank);

/* Activations (hr-training-activations.c) */

typedef struct
{
  double tokens;      /* b · s / cp: tokens of one micro-batch on a CP rank */
  double batch;       /* b */
  double s_q, s_k;    /* query rows (s / cp) and key columns (s) of one attention */
  double h;           /* hidden size */
  double h_rep;       /* hidden width of the tensors TP does not split: h, or h / tp under SP */
  double h_proj;      /* width of a saved column-parallel projection input (below) */
  double tokens_rep;  /* tokens whose statistics TP does not split: b·s/cp, or / tp under SP */
  double heads;       /* query heads per TP rank */
  double kv_heads;    /* k/v heads per TP rank (at least one) */
  double d_qk, d_v;   /* head dims */
  double residual;    /* bytes of the residual stream */
  double norm_input;  /* bytes of a norm's saved input: the stream's, or under autocast
                       * MPT's LPLayerNorm's 16-bit copy */
  double compute;     /* bytes of projection outputs and attention tensors */
  double input;       /* bytes of a saved projection input */
  double mask;        /* bytes of a dropout mask element (0 without dropout) */
  double attn_casts;  /* saved copies of the attention input (autocast casts per projection) */
  double mlp_casts;   /* the same for the MLP input; 0 when it shares the attention's */
  double norm_fp32;   /* fp32 input copy an eager norm saves inside a layer (0: fused) */
  double head_norm_fp32; /* the same for the final norm (outside the compiled layers) */
  double param;       /* bytes of a parameter element as the model holds it */
} HrActShape;

/* Bytes one layer of each kind saves, indexed by is_moe. */
typedef struct
{
  double saved[2];  /* under the recompute mode */
  double full[2];   /* with nothing recomputed: live during the layer's backward,
                     * the saved tensors reused and the rest rebuilt */
  double held[2];   /* inputs its quantised matmuls keep on their autograd contexts
                     * (hr_finetune_layer_held_inputs) */
} HrLayerKinds;

/* Stages run by torch.distributed.pipelining (one or, interleaved, several
 * a rank). */
static inline bool
hr_training_torch_pipelining (const HrTraining *t)
{
  return t->torch_pipelining && t->pipeline_parallel > 1;
}

/* The tensor shapes and dtypes of one micro-batch of the setting. */
void     hr_training_act_shape (const HrModel    *model,
                                const HrTraining *training,
                                HrActShape       *a);

/* What one layer of each kind saves. */
void     hr_training_layer_kinds (const HrModel    *model,
                                  const HrTraining *training,
                                  const HrActShape *a,
                                  HrLayerKinds     *kinds);

/* The first layer inside autograd's graph (fine-tuning may freeze a prefix). */
int64_t  hr_training_first_layer_in_graph (const HrTraining *training,
                                           int64_t           n_layers);

/* What chunk j of rank `stage` saves for one micro-batch in its layers;
 * count[] gets its layers of each kind. */
double   hr_training_chunk_layer_bytes (const HrModel      *model,
                                        const HrTraining   *training,
                                        const HrLayerKinds *kinds,
                                        int64_t             graph_start,
                                        int64_t             stage,
                                        int64_t             j,
                                        int64_t             count[2]);

/* hr_training_activations() of a validated setting and its stage in range. */
void     hr_training_stage_activations (const HrModel         *model,
                                        const HrTraining      *training,
                                        const HrActShape      *a,
                                        const HrLayerKinds    *kinds,
                                        int64_t                stage,
                                        HrTrainingActivations *act);

/* The pipeline (hr-training-pipeline.c) */

/* Whether the interleaved schedule runs m micro-batches a step: at least
 * pp of them, in rounds of equal size (Megatron: a multiple of pp;
 * torch.distributed.pipelining's ScheduleInterleaved1F1B: m a multiple of
 * max(1, m / pp) rounds). */
bool     hr_training_interleaved_micro_batches (const HrTraining *training,
                                                int64_t           m);

/* Whether every pipeline rank holds the same layers in chunks of one size:
 * pp · v dividing the layers, no first or last stage sizes, and not
 * torchtitan's split (torch_pipelining). */
bool     hr_training_even_stages (const HrTraining *training,
                                  int64_t           n_layers);

/* Chunk j (0 … v − 1) of rank `stage`: its first layer and layer count. */
int64_t  hr_training_stage_chunk (const HrTraining *training,
                                  int64_t           n_layers,
                                  int64_t           stage,
                                  int64_t           j,
                                  int64_t          *first);

/* Micro-batches whose activations stage `stage` holds at once under 1F1B
 * or GPipe, in units of all its layers. */
double   hr_training_in_flight (const HrTraining *training,
                                int64_t           stage);

/* The interleaved schedule's peak on one rank, chunk by chunk. */
typedef struct
{
  double activations;  /* saved at the peak, after a forward */
  double freed;        /* what the backward that follows frees by its chunk's
                        * first layer: the chunk's layers and the head's tensors */
  double inputs;       /* in-flight micro-batches of the chunks that receive
                        * their input (all but the model's first stage) */
} HrInterleavedPeak;

/* The interleaved schedule's peak of activations on rank `stage`. */
void     hr_training_interleaved_peak (const HrModel               *model,
                                       const HrTraining            *training,
                                       const HrActShape            *a,
                                       const HrLayerKinds          *kinds,
                                       const HrTrainingActivations *act,
                                       int64_t                      stage,
                                       HrInterleavedPeak           *peak);

/* The unsharded gradients FSDP holds at most on rank `stage` under the
 * interleaved schedule with one round of micro-batches. */
double   hr_training_interleaved_fsdp_gradients (const HrModel          *model,
                                                 const HrTraining       *training,
                                                 const HrParams         *params,
                                                 int64_t                 stage,
                                                 const HrTrainingMemory *memory);

/* Memory (hr-training-memory.c) */

/* FSDP's gathered parameters by phase (stage_states): the root group, live
 * from the forward to the end of the backward, and what of the backward's
 * layer buffers (in temporary) the forward and the loss do not hold. */
typedef struct
{
  double root;
  double head_unit;     /* fsdp_embedding_units: the head gathered for the loss's backward, */
  double embedding_unit;/* the embedding for the first layer's (the end of the backward) */
  double forward_less;
  double gather_pool;   /* FSDP2's copy-in stream: its largest all-gather buffer */
  double grad_shards;   /* the reduce-scatter stream: the gradient shards */
} HrFsdpBuffers;
/* What a stage's memory takes from the layout and the data-parallel degree
 * (the rank's parameters and model states, the buffers they make) is kept
 * apart from what the micro-batch and the sequence set (the activations):
 * the limits' probes change one side and keep the other. stage_states()
 * fills the first and reads neither the micro-batch nor the sequence;
 * hr_training_stage_activations() reads neither the data-parallel degree
 * nor the nodes; stage_finish() adds the activations, the buffers and the
 * phases (hr-training-memory.c).
 * /training/limits/random holds the probes to whole estimates. */
typedef struct
{
  HrFsdpBuffers fsdp;
  double        finetune_buffers;   /* finetune_buffers(), in temporary: the largest
                                     * dequantised matrix and DoRA's buffers */
  double        dequant_layer;      /* QLoRA: the layers' largest matrix dequantised, */
  double        dequant_head;       /* and the LM head's (0 when it stays 16-bit) */
  double        paged_share;        /* paged_share(), with a paged optimizer */
} HrStageBuffers;

/* The limits' probes keep half of each examined stage from the setting's
 * own estimate (stage_states()): the model states when only the micro-batch
 * or the sequence changes, the activations when only the data-parallel
 * degree does. The first HR_STAGE_CACHE stages are kept; any others are
 * worked out whole. */
#define HR_STAGE_CACHE 8

typedef enum
{
  HR_KEEP_NOTHING,       /* the setting itself: both halves, kept in the cache */
  HR_KEEP_STATES,        /* another micro-batch or sequence */
  HR_KEEP_ACTIVATIONS,   /* another data-parallel degree */
} HrKeep;

typedef struct
{
  HrActShape            shape;   /* the setting's */
  HrLayerKinds          kinds;
  HrTrainingMemory      states[HR_STAGE_CACHE];
  HrStageBuffers        buffers[HR_STAGE_CACHE];
  HrTrainingActivations activations[HR_STAGE_CACHE];
} HrStageCache;

/* The GPU's memory, and with `need_peak` its peak rate for the setting. */
HrStatus hr_training_check_gpu (const HrTraining *training,
                                const HrGpu      *gpu,
                                bool              need_peak,
                                HrError          *err);

/* What a training estimate checks first (the setting, then the GPU), then
 * the model's parameters counted. */
HrStatus hr_training_check_setting (const HrModel    *model,
                                    const HrTraining *training,
                                    const HrGpu      *gpu,
                                    bool              need_peak,
                                    HrParams         *params,
                                    HrError          *err);

/* The memory of a validated setting, its largest examined stage, without
 * the figures against the GPU; `cache` (or NULL) per `keep`. */
void     hr_training_stages_memory (const HrModel    *model,
                                    const HrTraining *training,
                                    const HrParams   *params,
                                    HrStageCache     *cache,
                                    HrKeep            keep,
                                    HrTrainingMemory *memory);

/* The finishing figures of a stage's memory against the GPU's. */
void     hr_training_memory_against (const HrGpu      *gpu,
                                     HrTrainingMemory *memory);

/* hr_training_memory() of a checked setting, the model's parameters counted. */
void     hr_training_memory_of (const HrModel    *model,
                                const HrTraining *training,
                                const HrGpu      *gpu,
                                const HrParams   *params,
                                HrTrainingMemory *memory);

/* Time (hr-training-time.c) */

/* hr_training_time() of a checked setting, the model's parameters counted;
 * `memory` is the setting's, or NULL. */
HrStatus hr_training_time_of (const HrModel          *model,
                              const HrTraining       *training,
                              const HrGpu            *gpu,
                              const HrParams         *params,
                              const HrTrainingMemory *memory,
                              HrTrainingTime         *time,
                              HrError                *err);
