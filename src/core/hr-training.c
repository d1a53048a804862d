/* hr-training.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sources, cited where used:
 * [ZeRO]  Rajbhandari et al. 2019, "ZeRO: Memory Optimizations Toward Training
 *         Trillion Parameter Models", arXiv 1910.02054.
 * [MLM]   Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
 *         on GPU Clusters Using Megatron-LM", arXiv 2104.04473.
 * [SP]    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 *         Transformer Models", arXiv 2205.05198.
 * [PaLM]  Chowdhery et al. 2022, "PaLM", arXiv 2204.02311, App. B (MFU).
 * docs/training.md explains every formula and its assumptions.
 */
#include "hr-training.h"
#include "hr-internal.h"
#include "hr-planner.h"
#include "hr-rates.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* PyTorch DistributedDataParallel's bucket_cap_mb default (25 MiB); two
 * buckets are in flight while the backward pass fills the next one. */
#define DP_BUCKET_BYTES (25.0 * MIB)
#define DP_BUCKETS_IN_FLIGHT 2.0

/* bitsandbytes 8-bit optimizers quantise each state in blocks of 256 values
 * with one fp32 absmax per block (bitsandbytes/optim/optimizer.py,
 * Optimizer8bit.init_state: blocks = n // 256, absmax1 and absmax2 float32;
 * Dettmers et al. 2021, "8-bit Optimizers via Block-wise Quantization", §2). */
#define ADAM_8BIT_BLOCK 256.0

/* PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp):
 * a request of kMinLargeAlloc (10 MiB) or more gets a segment of its own
 * rounded up to kRoundLarge (2 MiB); smaller ones share 2 MiB (kSmallBuffer)
 * or 20 MiB (kLargeBuffer) segments, rounded to 512 bytes (kMinBlockSize). */
#define ALLOCATOR_ROUND_LARGE (2.0 * MIB)
#define ALLOCATOR_MIN_LARGE (10.0 * MIB)

/* Search bounds of hr_training_limits(). */
#define LIMIT_MAX_MICRO_BATCH (INT64_C (1) << 20)
#define LIMIT_MAX_SEQ_LEN (INT64_C (1) << 24)
#define LIMIT_MAX_DATA_PARALLEL (INT64_C (1) << 16)

/* Names */

static const char * const precision_names[] = {
  [HR_PRECISION_FP32] = "fp32",
  [HR_PRECISION_BF16_MIXED] = "bf16-mixed",
  [HR_PRECISION_FP16_MIXED] = "fp16-mixed",
  [HR_PRECISION_BF16] = "bf16",
  [HR_PRECISION_FP8_MIXED] = "fp8-mixed",
};

static const char * const optimizer_names[] = {
  [HR_OPTIMIZER_ADAMW] = "adamw",
  [HR_OPTIMIZER_ADAMW_8BIT] = "adamw-8bit",
  [HR_OPTIMIZER_SGD] = "sgd",
  [HR_OPTIMIZER_SGD_MOMENTUM] = "sgd-momentum",
  [HR_OPTIMIZER_LION] = "lion",
  [HR_OPTIMIZER_ADAFACTOR] = "adafactor",
};

static const char * const schedule_names[] = {
  [HR_PIPELINE_1F1B] = "1f1b",
  [HR_PIPELINE_INTERLEAVED] = "interleaved",
  [HR_PIPELINE_GPIPE] = "gpipe",
};

static const char * const fsdp_names[] = {
  [HR_FSDP_NONE] = "none",
  [HR_FSDP_FULL] = "full",
  [HR_FSDP_GRAD_OP] = "grad-op",
  [HR_FSDP_HYBRID] = "hybrid",
};

static const char * const attention_names[] = {
  [HR_ATTENTION_EAGER] = "eager",
  [HR_ATTENTION_FLASH] = "flash",
};

static const char * const recompute_names[] = {
  [HR_RECOMPUTE_NONE] = "none",
  [HR_RECOMPUTE_SELECTIVE] = "selective",
  [HR_RECOMPUTE_FULL] = "full",
  [HR_RECOMPUTE_OP_SELECTIVE] = "op-selective",
};

static const char * const norm_kernel_names[] = {
  [HR_NORM_KERNEL_FUSED] = "fused",
  [HR_NORM_KERNEL_EAGER] = "eager",
};

static const char * const rope_kernel_names[] = {
  [HR_ROPE_KERNEL_FUSED] = "fused",
  [HR_ROPE_KERNEL_ROTATE_HALF] = "rotate-half",
  [HR_ROPE_KERNEL_COMPLEX] = "complex",
  [HR_ROPE_KERNEL_INTERLEAVED] = "interleaved",
};

static const char * const glu_kernel_names[] = {
  [HR_GLU_KERNEL_FUSED] = "fused",
  [HR_GLU_KERNEL_EAGER] = "eager",
};

static const char * const loss_names[] = {
  [HR_LOSS_FULL] = "full",
  [HR_LOSS_CHUNKED] = "chunked",
  [HR_LOSS_FUSED] = "fused",
};

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

static const char *
name_of (const char * const *names,
         size_t              n,
         int                 value)
{
  if (value < 0 || (size_t) value >= n)
    return "unknown";
  return names[value];
}

static bool
value_of (const char * const *names,
          size_t              n,
          const char         *name,
          int                *value)
{
  if (name == NULL)
    return false;
  for (size_t i = 0; i < n; i++)
    if (strcmp (names[i], name) == 0)
      {
        *value = (int) i;
        return true;
      }
  return false;
}

#define DEFINE_NAMES(prefix, Type, table)                                   \
  const char *                                                              \
  prefix##_name (Type value)                                                \
  {                                                                         \
    return name_of (table, N_ELEMENTS (table), (int) value);               \
  }                                                                         \
  bool                                                                      \
  prefix##_from_name (const char *name,                                     \
                      Type       *value)                                    \
  {                                                                         \
    int v;                                                                  \
    if (!value_of (table, N_ELEMENTS (table), name, &v))                    \
      return false;                                                         \
    *value = (Type) v;                                                      \
    return true;                                                            \
  }

DEFINE_NAMES (hr_precision, HrPrecision, precision_names)
DEFINE_NAMES (hr_optimizer, HrOptimizer, optimizer_names)
DEFINE_NAMES (hr_pipeline_schedule, HrPipelineSchedule, schedule_names)
DEFINE_NAMES (hr_fsdp, HrFsdp, fsdp_names)
DEFINE_NAMES (hr_training_attention, HrAttentionImpl, attention_names)
DEFINE_NAMES (hr_training_recompute, HrRecompute, recompute_names)
DEFINE_NAMES (hr_norm_kernel, HrNormKernel, norm_kernel_names)
DEFINE_NAMES (hr_rope_kernel, HrRopeKernel, rope_kernel_names)
DEFINE_NAMES (hr_glu_kernel, HrGluKernel, glu_kernel_names)
DEFINE_NAMES (hr_loss, HrLoss, loss_names)

/* Settings */

void
hr_training_init (HrTraining *training)
{
  memset (training, 0, sizeof *training);
  training->nodes = 1;
  training->gpus_per_node = 8;
  training->tensor_parallel = 1;
  training->pipeline_parallel = 1;
  training->pipeline_schedule = HR_PIPELINE_1F1B;
  training->virtual_stages = 1;
  training->context_parallel = 1;
  training->expert_parallel = 1;
  training->zero_stage = 0;
  training->fsdp = HR_FSDP_NONE;
  training->micro_batch = 1;
  training->global_batch = 0;
  training->seq_len = 4096;
  training->tokens = 0;
  training->precision = HR_PRECISION_BF16_MIXED;
  training->optimizer = HR_OPTIMIZER_ADAMW;
  training->attention = HR_ATTENTION_FLASH;
  training->recompute = HR_RECOMPUTE_NONE;
  training->dropout = false;
  training->dropout_mask_bytes = 1;
  /* The default FLOPs convention counts attention as the full s×s product
   * (PaLM App. B model FLOPs): docs/flops.md, docs/conventions.md. */
  training->causal = false;
  /* CUDA context (287 MB lazy, 667 MB eager: pytorch/pytorch PR #86509),
   * cuBLAS workspaces, NCCL buffers and allocator slack: docs/training.md. */
  training->overhead_bytes = 1.0 * GIB;
  /* Predicted from the hardware (hr_plan_step(), docs/planner.md); a
   * measured utilisation overrides it (docs/training.md). */
  training->mfu = 0;
  training->price_per_gpu_hour = 0;
  training->fp32_residual = false;
  /* Today's frameworks overlap by default (docs/planner.md, "Overlap"). */
  training->overlap = true;
  hr_finetune_init (&training->finetune);
  training->norm_kernel = HR_NORM_KERNEL_FUSED;
  training->rope_kernel = HR_ROPE_KERNEL_FUSED;
  training->glu_kernel = HR_GLU_KERNEL_FUSED;
  training->compile = false;
  training->compile_loss = true;
  training->loss = HR_LOSS_FULL;
  /* CEWithChunkedOutputLoss(num_output_chunks=8), pytorch/torchtune
   * torchtune/modules/loss/ce_chunked_output_loss.py */
  training->loss_chunks = 8;
  training->loss_parallel = false;
  training->dtensor_tp = false;
  training->async_tp = false;
  training->torch_pipelining = false;
  training->recompute_layers = 0;
  training->offload_activations = false;
  training->optimizer_in_backward = false;
  training->paged_optimizer = false;
}

int64_t
hr_training_gpus (const HrTraining *training)
{
  return training->nodes * training->gpus_per_node;
}

int64_t
hr_training_data_parallel (const HrTraining *training)
{
  int64_t model_parallel = training->tensor_parallel * training->pipeline_parallel
                           * training->context_parallel;

  if (model_parallel <= 0)
    return 0;
  return hr_training_gpus (training) / model_parallel;
}

static bool
is_mixed (const HrTraining *training)
{
  return training->precision == HR_PRECISION_BF16_MIXED
         || training->precision == HR_PRECISION_FP16_MIXED
         || training->precision == HR_PRECISION_FP8_MIXED;
}

/* PyTorch has run fp32 matrix products in full fp32 since 1.12
 * (torch.backends.cuda.matmul.allow_tf32 = False), so fp32 uses the fp32 peak. */
HrDtype
hr_training_compute_dtype (const HrTraining *training)
{
  switch (training->precision)
    {
    case HR_PRECISION_FP32:
      return HR_DTYPE_FP32;
    case HR_PRECISION_FP16_MIXED:
      return HR_DTYPE_FP16;
    case HR_PRECISION_FP8_MIXED:
      return HR_DTYPE_FP8;
    case HR_PRECISION_BF16_MIXED:
    case HR_PRECISION_BF16:
    default:
      return HR_DTYPE_BF16;
    }
}

static int64_t
effective_zero_stage (const HrTraining *training)
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

static int64_t
grad_accumulation (const HrTraining *training)
{
  int64_t dp = hr_training_data_parallel (training);

  if (training->global_batch == 0 || dp <= 0 || training->micro_batch <= 0)
    return 1;
  return training->global_batch / (training->micro_batch * dp);
}

static int64_t
global_batch (const HrTraining *training)
{
  if (training->global_batch > 0)
    return training->global_batch;
  return training->micro_batch * hr_training_data_parallel (training);
}

static HrStatus
check_positive (int64_t     value,
                const char *field,
                HrError    *err)
{
  if (value <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, field, value, 0, NULL);
  return HR_OK;
}

static HrStatus
check_divides (int64_t     divisor,
               int64_t     value,
               const char *field,
               const char *detail,
               HrError    *err)
{
  if (value % divisor != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, field, divisor, value, detail);
  return HR_OK;
}

/* A non-negative, finite amount (tokens, bytes, money). */
static HrStatus
check_amount (double      value,
              const char *field,
              HrError    *err)
{
  if (!isfinite (value))
    return hr_error_set (err, HR_ERROR_WRONG_TYPE, field, 0, 0, "a finite number");
  if (value < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, field, (int64_t) floor (value), 0,
                         "must be 0 or more");
  return HR_OK;
}

static HrStatus
validate_settings (const HrTraining *t,
                   HrError          *err)
{
  struct { int64_t value; const char *field; } positive[] = {
    { t->nodes, "nodes" },
    { t->gpus_per_node, "gpus_per_node" },
    { t->tensor_parallel, "tensor_parallel" },
    { t->pipeline_parallel, "pipeline_parallel" },
    { t->virtual_stages, "virtual_stages" },
    { t->context_parallel, "context_parallel" },
    { t->expert_parallel, "expert_parallel" },
    { t->micro_batch, "micro_batch" },
    { t->seq_len, "seq_len" },
    { t->dropout_mask_bytes, "dropout_mask_bytes" },
    { t->loss_chunks, "loss_chunks" },
  };
  HrStatus status;

  for (size_t i = 0; i < N_ELEMENTS (positive); i++)
    if ((status = check_positive (positive[i].value, positive[i].field, err)) != HR_OK)
      return status;

  if (t->nodes > INT32_MAX || t->gpus_per_node > INT32_MAX)
    return hr_error_set (err, HR_ERROR_OVERFLOW, t->nodes > INT32_MAX ? "nodes" : "gpus_per_node",
                         0, 0, NULL);
  if (t->global_batch < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "global_batch", t->global_batch, 0,
                         "must be 0 (micro_batch × data-parallel) or positive");
  if (t->zero_stage < 0 || t->zero_stage > 3)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "zero_stage", t->zero_stage, 3,
                         "ZeRO stages are 0 to 3");
  if ((unsigned) t->fsdp >= N_ELEMENTS (fsdp_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "fsdp", t->fsdp, 0, NULL);
  if (t->fsdp != HR_FSDP_NONE && t->zero_stage != 0)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "zero_stage", t->zero_stage, 0,
                         "choose either a ZeRO stage or an FSDP mode");
  if ((unsigned) t->precision >= N_ELEMENTS (precision_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "precision", t->precision, 0, NULL);
  if ((unsigned) t->optimizer >= N_ELEMENTS (optimizer_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "optimizer", t->optimizer, 0, NULL);
  if ((unsigned) t->pipeline_schedule >= N_ELEMENTS (schedule_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "pipeline_schedule",
                         t->pipeline_schedule, 0, NULL);
  if ((unsigned) t->attention >= N_ELEMENTS (attention_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "attention", t->attention, 0, NULL);
  if ((unsigned) t->recompute >= N_ELEMENTS (recompute_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute", t->recompute, 0, NULL);
  if ((unsigned) t->norm_kernel >= N_ELEMENTS (norm_kernel_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "norm_kernel", t->norm_kernel, 0, NULL);
  if ((unsigned) t->rope_kernel >= N_ELEMENTS (rope_kernel_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "rope_kernel", t->rope_kernel, 0, NULL);
  if ((unsigned) t->glu_kernel >= N_ELEMENTS (glu_kernel_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "glu_kernel", t->glu_kernel, 0, NULL);
  if ((unsigned) t->loss >= N_ELEMENTS (loss_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "loss", t->loss, 0, NULL);
  if (t->recompute_every < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute_every", t->recompute_every, 0,
                         "0 or 1 (every layer) or k (every k-th layer)");
  if (t->recompute_every > 1 && t->recompute_layers > 0)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "recompute_every", t->recompute_every, 0,
                         "choose either a layer count or a layer frequency");
  if (t->recompute_layers < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute_layers", t->recompute_layers, 0,
                         "0 (every layer) or a count of layers per stage");
  if (t->optimizer_in_backward && grad_accumulation (t) > 1)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "optimizer_in_backward", 1, 0,
                         "the step in the backward needs one micro-batch per step");
  /* bitsandbytes ships paged AdamW, AdamW8bit, Lion and Lion8bit
   * (bitsandbytes/optim/adamw.py PagedAdamW*, lion.py PagedLion*); its
   * states are on the GPU, which ZeRO-Offload moves to the CPU instead. */
  if (t->paged_optimizer && t->optimizer != HR_OPTIMIZER_ADAMW
      && t->optimizer != HR_OPTIMIZER_ADAMW_8BIT && t->optimizer != HR_OPTIMIZER_LION)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "paged_optimizer", 1, 0,
                         "bitsandbytes pages AdamW, 8-bit AdamW and Lion only");
  if (t->paged_optimizer && t->offload_optimizer)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "paged_optimizer", 1, 0,
                         "choose either a paged or an offloaded optimizer");
  if (t->dropout_mask_bytes > 8)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "dropout_mask_bytes",
                         t->dropout_mask_bytes, 8, "1 (CUDA) or 4 (PyTorch on CPU)");
  if ((status = check_amount (t->tokens, "tokens", err)) != HR_OK
      || (status = check_amount (t->overhead_bytes, "overhead_bytes", err)) != HR_OK
      || (status = check_amount (t->price_per_gpu_hour, "price_per_gpu_hour", err)) != HR_OK)
    return status;
  if (!isfinite (t->mfu))
    return hr_error_set (err, HR_ERROR_WRONG_TYPE, "mfu", 0, 0,
                         "0 (predicted) or a finite fraction in (0, 1]");
  if (t->mfu < 0 || t->mfu > 1)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "mfu", (int64_t) floor (t->mfu * 100), 100,
                         "MFU is 0 (predicted) or a fraction in (0, 1]; the value shown is in percent");
  /* Async TP is torch.compile's micro-pipeline pass over sequence-parallel
   * collectives (torchtitan/distributed/tensor_parallel.py,
   * maybe_enable_async_tp: it refuses without compile). */
  if (t->async_tp && (t->tensor_parallel < 2 || !t->sequence_parallel || !t->compile))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "async_tp", 1, 0,
                         "needs tensor parallel over 2 or more GPUs with sequence "
                         "parallel and torch.compile");
  if (t->fp32_residual && !is_mixed (t))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "fp32_residual", 1, 0,
                         "autocast applies to the mixed-precision recipes only");
  return HR_OK;
}

static int64_t kv_heads (const HrModel *model);

static HrStatus
validate_layout (const HrTraining *t,
                 const HrModel    *model,
                 HrError          *err)
{
  int64_t gpus = hr_training_gpus (t);
  int64_t tp = t->tensor_parallel, pp = t->pipeline_parallel, cp = t->context_parallel;
  int64_t dp, m;
  HrStatus status;

  /* tp · pp · cp · dp = GPUs ([MLM] §2.3; Megatron's rank order tp, cp, dp, pp) */
  if ((status = check_divides (tp, gpus, "tensor_parallel", "GPUs", err)) != HR_OK)
    return status;
  if ((status = check_divides (tp * pp, gpus, "pipeline_parallel",
                               "GPUs (with tensor_parallel × pipeline_parallel)", err)) != HR_OK)
    return status;
  if ((status = check_divides (tp * pp * cp, gpus, "context_parallel",
                               "GPUs (with tensor × pipeline × context parallel)", err)) != HR_OK)
    return status;
  dp = gpus / (tp * pp * cp);

  /* Heads: every TP rank holds n_heads / tp query heads. KV heads are split
   * when tp divides them and replicated (tp / kv copies of each) when kv
   * divides tp, as Megatron-Core does for GQA. */
  if ((status = check_divides (tp, model->n_heads, "tensor_parallel",
                               "num_attention_heads", err)) != HR_OK)
    return status;
  if (kv_heads (model) <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "num_key_value_heads", kv_heads (model), 0,
                         NULL);
  if (kv_heads (model) % tp != 0 && tp % kv_heads (model) != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "tensor_parallel", tp, kv_heads (model),
                         "num_key_value_heads (nor do they divide it, for replication)");
  if (model->ffn_size > 0
      && (status = check_divides (tp, model->ffn_size, "tensor_parallel",
                                  "intermediate_size", err)) != HR_OK)
    return status;
  if (model->n_experts > 0 && model->expert_ffn_size > 0
      && (status = check_divides (tp, model->expert_ffn_size, "tensor_parallel",
                                  "moe_intermediate_size", err)) != HR_OK)
    return status;

  /* Layers: pp ranks of virtual_stages chunks each ([MLM] §2.2), which need
   * not hold the same layers (stage_chunk). */
  if (t->pp_first_stage_layers < 0 || t->pp_last_stage_layers < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE,
                         t->pp_first_stage_layers < 0 ? "pp_first_stage_layers"
                                                      : "pp_last_stage_layers",
                         t->pp_first_stage_layers < 0 ? t->pp_first_stage_layers
                                                      : t->pp_last_stage_layers, 0,
                         "0 (an even split) or a count of layers");
  if (t->pp_first_stage_layers > 0 || t->pp_last_stage_layers > 0)
    {
      int64_t fixed = (t->pp_first_stage_layers > 0) + (t->pp_last_stage_layers > 0);
      int64_t rest = model->n_layers - t->pp_first_stage_layers - t->pp_last_stage_layers;
      int64_t v = t->virtual_stages;

      if (pp < 2 || pp < fixed || rest < 0 || (pp == fixed && rest != 0)
          || (pp > fixed && rest % (pp - fixed) != 0))
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "pp_first_stage_layers",
                             t->pp_first_stage_layers, model->n_layers,
                             "the other stages must share the remaining layers evenly");
      /* Megatron cuts each rank's layers into virtual_stages equal chunks
       * (transformer_config.py: "number of layers at first/last stage must
       * be divisible by virtual pipeline parallel degree"). */
      if (v > 1)
        {
          int64_t mid = pp > fixed ? rest / (pp - fixed) : 0;
          int64_t bad = t->pp_first_stage_layers % v != 0 ? t->pp_first_stage_layers
                        : t->pp_last_stage_layers % v != 0 ? t->pp_last_stage_layers
                        : mid % v != 0 ? mid : 0;

          if (bad > 0)
            return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "virtual_stages", v, bad,
                                 "layers of a stage (Megatron cuts each stage into equal "
                                 "chunks)");
        }
    }
  else if (pp * t->virtual_stages > model->n_layers + 2)
    {
      /* torchtitan's split needs a unit (a layer, the embedding or the
       * output) for every stage (generate_llm_fqn_per_model_part: "Number
       * of stages cannot be greater than effective layers"). */
      if (t->virtual_stages > 1)
        return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "virtual_stages", t->virtual_stages,
                             model->n_layers + 2,
                             "pipeline_parallel × virtual_stages stages need at most "
                             "num_hidden_layers + 2 (the embedding and the output count as "
                             "a layer each)");
      if ((status = check_divides (pp, model->n_layers, "pipeline_parallel",
                                   "num_hidden_layers", err)) != HR_OK)
        return status;
    }
  if (t->pipeline_schedule == HR_PIPELINE_INTERLEAVED)
    {
      if (pp < 2)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "pipeline_schedule", pp, 0,
                             "the interleaved schedule needs pipeline_parallel of 2 or more");
    }
  else if (t->virtual_stages != 1)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "virtual_stages", t->virtual_stages, 1,
                         "virtual stages need the interleaved schedule");

  /* Experts: the expert-parallel group is carved out of dp · cp */
  if (t->expert_parallel > 1)
    {
      if (model->n_experts <= 0)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "expert_parallel", t->expert_parallel, 0,
                             "the model has no routed experts");
      if ((status = check_divides (t->expert_parallel, model->n_experts, "expert_parallel",
                                   "n_routed_experts", err)) != HR_OK)
        return status;
      if ((status = check_divides (t->expert_parallel, dp * cp, "expert_parallel",
                                   "data-parallel × context-parallel ranks", err)) != HR_OK)
        return status;
    }

  /* Sequence: CP splits it, SP splits each CP chunk over the TP group */
  if ((status = check_divides (cp, t->seq_len, "context_parallel", "seq_len", err)) != HR_OK)
    return status;
  if (t->sequence_parallel && (t->seq_len / cp) % tp != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "sequence_parallel", tp, t->seq_len / cp,
                         "tokens per context-parallel rank (sequence parallel splits them over "
                         "tensor_parallel)");

  /* Batch: global = micro × dp × accumulation steps */
  if (t->global_batch > 0
      && (status = check_divides (t->micro_batch * dp, t->global_batch, "global_batch",
                                  "(micro_batch × data-parallel must divide the global batch)",
                                  err)) != HR_OK)
    return status;
  m = grad_accumulation (t);
  if (t->pipeline_schedule == HR_PIPELINE_INTERLEAVED
      && !hr_training_interleaved_micro_batches (t, m))
    {
      if (m < pp)
        return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "global_batch", m, pp,
                             "micro-batches per step (the interleaved schedule needs at least one "
                             "per pipeline stage)");
      return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "global_batch",
                           t->torch_pipelining ? m / pp : pp, m,
                           t->torch_pipelining
                           ? "micro-batches per step (torch's interleaved schedule runs them in "
                             "rounds of equal size, micro-batches ÷ pipeline stages)"
                           : "micro-batches per step (the interleaved schedule needs a multiple "
                             "of the pipeline stages)");
    }
  return HR_OK;
}

bool
hr_training_interleaved_micro_batches (const HrTraining *training,
                                       int64_t           m)
{
  int64_t pp = training->pipeline_parallel;

  if (m < pp)
    return false;
  return training->torch_pipelining ? m % (m / pp) == 0 : m % pp == 0;
}

/* Micro-batches of a round of the interleaved schedule, which runs each
 * chunk for a round before the next (torch ScheduleInterleaved1F1B
 * microbatches_per_round; Megatron: pp). */
static int64_t
round_size (const HrTraining *t)
{
  int64_t m = grad_accumulation (t), rounds = m / t->pipeline_parallel;

  return rounds > 1 ? m / rounds : m;
}

HrStatus
hr_training_validate (const HrTraining *training,
                      const HrModel    *model,
                      HrError          *err)
{
  HrStatus status;

  if ((status = hr_model_validate (model, err)) != HR_OK)
    return status;
  if ((status = validate_settings (training, err)) != HR_OK)
    return status;
  if ((status = hr_finetune_validate (&training->finetune, model, err)) != HR_OK)
    return status;
  return validate_layout (training, model, err);
}

/* Parameters per rank */

typedef struct
{
  int64_t attention;       /* one layer, before TP */
  int64_t kv;              /* its k and v projections (replicated when tp > kv heads) */
  int64_t norms;           /* one layer's norms, replicated over TP */
  int64_t dense_mlp;       /* one dense layer's MLP */
  int64_t shared_mlp;      /* one MoE layer's shared experts */
  int64_t router;          /* one MoE layer's router */
  int64_t routed;          /* one MoE layer's routed experts */
  int64_t final_norm;
} LayerParams;

static int64_t
head_dim_qk (const HrModel *model)
{
  if (hr_model_uses_mla (model))
    return model->qk_nope_head_dim + model->qk_rope_head_dim;
  return hr_model_head_dim (model);
}

static int64_t
head_dim_v (const HrModel *model)
{
  if (hr_model_uses_mla (model))
    return model->v_head_dim;
  return hr_model_head_dim (model);
}

/* MLA decompresses k and v for every query head. */
static int64_t
kv_heads (const HrModel *model)
{
  if (hr_model_uses_mla (model))
    return model->n_heads;
  return model->n_kv_heads;
}

static int64_t
norm_params (const HrModel *model)
{
  bool bias = model->norm_kind == HR_NORM_LAYERNORM && model->norm_bias;

  return model->hidden_size * (bias ? 2 : 1);
}

static void
split_layer_params (const HrModel  *model,
                    const HrParams *params,
                    LayerParams    *lp)
{
  int64_t d = hr_model_head_dim (model);

  memset (lp, 0, sizeof *lp);
  lp->attention = params->attention / model->n_layers;
  lp->kv = hr_model_uses_mla (model) ? 0
           : 2 * model->n_kv_heads * d * (model->hidden_size + (model->qkv_bias ? 1 : 0));
  lp->final_norm = model->final_norm ? norm_params (model) : 0;
  lp->norms = (params->norm - lp->final_norm) / model->n_layers;
  if (params->n_dense_layers > 0)
    lp->dense_mlp = params->dense_layer - lp->attention - lp->norms;
  if (params->n_moe_layers > 0)
    {
      lp->routed = params->routed_experts / params->n_moe_layers;
      lp->router = params->router / params->n_moe_layers;
      lp->shared_mlp = params->moe_layer - lp->attention - lp->norms - lp->routed - lp->router;
    }
}

static int64_t
ceil_div (int64_t a,
          int64_t b)
{
  return (a + b - 1) / b;
}

bool
hr_training_even_stages (const HrTraining *t,
                         int64_t           n_layers)
{
  return t->pipeline_parallel <= 1
         || (t->pp_first_stage_layers == 0 && t->pp_last_stage_layers == 0
             && n_layers % (t->pipeline_parallel * t->virtual_stages) == 0);
}

/* Layers of stage k of n_stages without first and last sizes,
 * [*first, *first + count):
 * - `even` (hr_training_even_stages()): L / n_stages each;
 * - otherwise torchtitan's split, which counts the embedding and the norm
 *   with the output as one layer each and gives the remainder to the first
 *   stages (torchtitan/distributed/pipeline_parallel.py,
 *   generate_llm_fqn_per_model_part, input_weight = output_weight = 1).
 *   Llama 3.1 405B's 126 layers on 16 stages are 7, 8 × 14, 7, as the
 *   checked commit's generate_split_points made them too. */
static int64_t
split_stage (int64_t  n_layers,
             int64_t  n_stages,
             int64_t  k,
             bool     even,
             int64_t *first)
{
  int64_t units, per, extra, count;

  if (even)
    {
      *first = k * (n_layers / n_stages);
      return n_layers / n_stages;
    }
  units = n_layers + 2;
  per = units / n_stages;
  extra = units % n_stages;
  /* Units before stage k: k · per + min(k, extra); the embedding is the
   * first stage's first unit. */
  *first = k * per + (k < extra ? k : extra) - (k > 0 ? 1 : 0);
  count = per + (k < extra ? 1 : 0) - (k == 0) - (k == n_stages - 1);
  if (*first > n_layers)
    *first = n_layers;
  if (count > n_layers - *first)
    count = n_layers - *first;
  return count > 0 ? count : 0;
}

/* Layers of pipeline rank `stage` over all its chunks, [*first, *first +
 * count) counted as if they were contiguous (Megatron's first and last
 * stage sizes):
 * - Megatron's --decoder-first-pipeline-num-layers and
 *   --decoder-last-pipeline-num-layers: the first and last stages hold what
 *   is asked, the others share the rest evenly
 *   (megatron/core/transformer/transformer_block.py, get_num_layers_to_build);
 * - otherwise split_stage() over the pp stages. */
static int64_t
stage_layers (const HrTraining *t,
              int64_t           n_layers,
              int64_t           stage,
              int64_t          *first)
{
  int64_t pp = t->pipeline_parallel;

  if (t->pp_first_stage_layers > 0 || t->pp_last_stage_layers > 0)
    {
      int64_t fixed = (t->pp_first_stage_layers > 0) + (t->pp_last_stage_layers > 0);
      int64_t rest = n_layers - t->pp_first_stage_layers - t->pp_last_stage_layers;
      int64_t mid = pp > fixed ? rest / (pp - fixed) : 0;
      int64_t head = t->pp_first_stage_layers > 0 ? t->pp_first_stage_layers : mid;

      *first = stage == 0 ? 0 : head + (stage - 1) * mid;
      if (stage == 0)
        return head;
      if (stage == pp - 1 && t->pp_last_stage_layers > 0)
        return t->pp_last_stage_layers;
      return mid;
    }
  return split_stage (n_layers, pp, stage, hr_training_even_stages (t, n_layers), first);
}

/* Chunk j (0 … v − 1) of rank `stage`: its first layer and layer count.
 * The looped assignment: rank s runs stages s, s + pp, …, s + (v − 1)·pp of
 * the pp · v (Megatron [MLM] §2.2.1; torch.distributed.pipelining
 * _get_pp_rank_to_stage_indices_mapping, style "loop", in torchtitan's
 * pipeline_parallel.py). With Megatron's first and last stage sizes each
 * rank's layers are cut into v equal chunks, chunk j of every rank inside
 * model chunk j (megatron/core/transformer/transformer_layer.py,
 * get_transformer_layer_offset); otherwise the pp · v stages are split by
 * split_stage(). */
static int64_t
stage_chunk (const HrTraining *t,
             int64_t           n_layers,
             int64_t           stage,
             int64_t           j,
             int64_t          *first)
{
  int64_t v = t->virtual_stages, count;

  if (v <= 1)
    return stage_layers (t, n_layers, stage, first);
  if (t->pp_first_stage_layers > 0 || t->pp_last_stage_layers > 0)
    {
      count = stage_layers (t, n_layers, stage, first) / v;
      *first = j * (n_layers / v) + *first / v;
      return count;
    }
  return split_stage (n_layers, t->pipeline_parallel * v, j * t->pipeline_parallel + stage,
                      hr_training_even_stages (t, n_layers), first);
}

int64_t
hr_training_stage_layers (const HrTraining *training,
                          const HrModel    *model,
                          int64_t           stage)
{
  int64_t n = 0;

  if (training->pipeline_parallel <= 1)
    return model->n_layers;
  for (int64_t j = 0; j < training->virtual_stages; j++)
    {
      int64_t first;

      n += stage_chunk (training, model->n_layers, stage, j, &first);
    }
  return n;
}

/* MoE layers of pipeline stage `stage`. */
static int64_t
stage_moe_layers (const HrModel    *model,
                  const HrTraining *t,
                  int64_t           stage)
{
  int64_t n = 0;

  if (model->n_experts <= 0)
    return 0;
  /* Chunk by chunk (virtual_stages of them), not layer by layer. */
  for (int64_t j = 0; j < t->virtual_stages; j++)
    {
      HrLayerCounts c;
      int64_t first, chunk = stage_chunk (t, model->n_layers, stage, j, &first);

      hr_model_count_layers (model, first, first + chunk, &c);
      n += c.n[1][0] + c.n[1][1];
    }
  return n;
}

/* Adafactor second moments of a rows × cols matrix: a row and a column vector
 * (Shazeer & Stern 2018, "Adafactor", §3). */
static int64_t
factored (int64_t rows,
          int64_t cols)
{
  return rows + cols;
}

static int64_t
mlp_factored (const HrModel *model,
              int64_t        ffn,
              int64_t        tp)
{
  int64_t h = model->hidden_size, f = ffn / tp;
  int64_t matrices = model->ffn_kind == HR_FFN_GATED ? 3 : 2;
  int64_t biases = model->mlp_bias ? f * (matrices - 1) + h : 0;

  return matrices * factored (h, f) + biases;
}

static int64_t
attention_factored (const HrModel *model,
                    int64_t        tp)
{
  int64_t h = model->hidden_size;
  int64_t q = model->n_heads / tp * head_dim_qk (model);
  int64_t o = model->n_heads / tp * head_dim_v (model);
  int64_t kv = kv_heads (model) >= tp ? kv_heads (model) / tp : 1;
  int64_t k = kv * head_dim_qk (model), v = kv * head_dim_v (model);

  return factored (h, q) + factored (h, k) + factored (h, v) + factored (o, h)
         + (model->qkv_bias ? q + k + v : 0) + (model->out_bias ? h : 0);
}

/* One layer's parameters on a rank, by kind. */
typedef struct
{
  int64_t dense;
  int64_t moe;          /* an MoE layer's, but its routed experts */
  int64_t moe_experts;  /* its routed experts on the rank */
} RankLayerParams;

/* [MLM] §2.3: q, o and MLP matrices split over TP; k and v split while
 * tp ≤ kv heads, then one head per rank; norms replicated. Routed experts
 * split over EP and over TP inside each expert (Megatron-Core's default
 * expert tensor parallelism). */
static void
rank_layer_params (const HrModel    *model,
                   const HrTraining *training,
                   const HrParams   *params,
                   RankLayerParams  *r)
{
  int64_t tp = training->tensor_parallel, ep = training->expert_parallel;
  int64_t kv = kv_heads (model), attention;
  LayerParams lp;

  split_layer_params (model, params, &lp);
  attention = (lp.attention - lp.kv) / tp + (kv >= tp ? lp.kv / tp : (kv > 0 ? lp.kv / kv : 0));
  r->dense = attention + lp.norms + lp.dense_mlp / tp;
  r->moe = attention + lp.norms + lp.router + lp.shared_mlp / tp;
  r->moe_experts = lp.routed / (ep * tp);
}

/* hr_training_rank() for a validated setting, its stage in range and the
 * model's parameters already counted. */
static void
stage_rank (const HrModel    *model,
            const HrTraining *training,
            const HrParams   *params,
            int64_t           stage,
            HrTrainingRank   *rank)
{
  int64_t tp = training->tensor_parallel, ep = training->expert_parallel;
  int64_t pp = training->pipeline_parallel;
  LayerParams lp;
  RankLayerParams r;
  int64_t dense, moe, moe_experts;
  int64_t shared_factored, dense_factored, moe_factored, dense_layers;

  memset (rank, 0, sizeof *rank);
  split_layer_params (model, params, &lp);
  rank_layer_params (model, training, params, &r);
  dense = r.dense;
  moe = r.moe;
  moe_experts = r.moe_experts;

  shared_factored = attention_factored (model, tp) + model->norms_per_layer * norm_params (model);
  dense_factored = shared_factored + mlp_factored (model, model->ffn_size, tp);
  moe_factored = shared_factored
                 + factored (model->hidden_size, model->n_experts)
                 + model->n_experts / ep * mlp_factored (model, model->expert_ffn_size, tp)
                 + model->n_shared_experts * mlp_factored (model,
                                                           model->shared_expert_ffn_size, tp);

  /* Every layer of a kind holds the same parameters. */
  rank->layers = 0;
  for (int64_t j = 0; j < training->virtual_stages; j++)
    {
      int64_t first;

      rank->layers += stage_chunk (training, model->n_layers, stage, j, &first);
    }
  rank->moe_layers = stage_moe_layers (model, training, stage);
  dense_layers = rank->layers - rank->moe_layers;
  rank->params = dense_layers * dense + rank->moe_layers * moe;
  rank->expert_params = rank->moe_layers * moe_experts;
  rank->factored_elements = dense_layers * dense_factored + rank->moe_layers * moe_factored;
  if (dense_layers > 0 && dense > rank->largest_layer)
    rank->largest_layer = dense;
  if (rank->moe_layers > 0 && moe + moe_experts > rank->largest_layer)
    rank->largest_layer = moe + moe_experts;

  /* Megatron splits the vocabulary over TP (VocabParallelEmbedding); the
   * position table is replicated. A tied LM head keeps a copy of the
   * embedding on the last stage when pp > 1 ([MLM] §2.2). */
  if (stage == 0)
    {
      int64_t rows = ceil_div (model->vocab_size, tp);

      rank->params += ceil_div (params->embedding, tp) + params->position_embedding;
      rank->factored_elements += factored (rows, model->hidden_size)
                                 + (params->position_embedding > 0
                                    ? factored (model->max_positions + model->position_offset,
                                                model->hidden_size) : 0);
    }
  if (stage == pp - 1)
    {
      int64_t head = params->lm_head;

      if (model->tied_embeddings && pp > 1)
        head = params->embedding;
      rank->params += ceil_div (head, tp) + lp.final_norm;
      if (head > 0)
        rank->factored_elements += factored (ceil_div (model->vocab_size, tp), model->hidden_size);
      rank->factored_elements += lp.final_norm;
    }
  rank->outside_layers = rank->params - (dense_layers * dense + rank->moe_layers * moe);
}

HrStatus
hr_training_rank (const HrModel    *model,
                  const HrTraining *training,
                  int64_t           stage,
                  HrTrainingRank   *rank,
                  HrError          *err)
{
  int64_t pp = training->pipeline_parallel;
  HrParams params;
  HrStatus status;

  memset (rank, 0, sizeof *rank);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (stage < 0 || stage >= pp)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "pipeline_parallel", stage, pp - 1,
                         "pipeline stage");
  if ((status = hr_model_count_params (model, &params, err)) != HR_OK)
    return status;
  stage_rank (model, training, &params, stage, rank);
  return HR_OK;
}

/* Model states */

typedef struct
{
  double weights;       /* working copy */
  double master;        /* fp32 master copy */
  double gradients;
  double state;         /* bytes of one optimizer state element */
} StateBytes;

static void
state_bytes (const HrTraining *t,
             StateBytes       *b)
{
  switch (t->precision)
    {
    case HR_PRECISION_FP32:
      /* The parameters are the master copy. */
      *b = (StateBytes) { 4, 0, 4, 4 };
      break;
    case HR_PRECISION_BF16:
      /* Pure bf16: weights, gradients and optimizer states in bf16, no master copy. */
      *b = (StateBytes) { 2, 0, 2, 2 };
      break;
    case HR_PRECISION_FP8_MIXED:
      /* Transformer Engine keeps bf16 weights plus their fp8 cast for the
       * forward and its fp8 transpose for the backward's dgrad (_Linear
       * saves weight_t_fp8; the module caches both across micro-batches):
       * 2 + 1 + 1 bytes. Per-tensor scales and amax histories are a few KiB
       * a module. */
      *b = (StateBytes) { 4, 4, 2, 4 };
      break;
    case HR_PRECISION_BF16_MIXED:
    case HR_PRECISION_FP16_MIXED:
    default:
      /* [ZeRO] §3.1: 2 (16-bit weights) + 2 (16-bit gradients) + 4 (fp32 master). */
      *b = (StateBytes) { 2, 4, 2, 4 };
      break;
    }
  /* Autocast trains the fp32 parameters themselves: their gradients are fp32. */
  if (is_mixed (t) && (t->fp32_gradients || t->fp32_residual))
    b->gradients = 4;
}

/* Optimizer bytes per parameter, excluding the master copy. */
static double
optimizer_bytes (const HrTraining     *t,
                 const HrTrainingRank *rank,
                 double                state)
{
  double params = (double) rank->params + (double) rank->expert_params;

  switch (t->optimizer)
    {
    case HR_OPTIMIZER_ADAMW:
      /* m and v (Loshchilov & Hutter 2019) */
      return 2 * state;
    case HR_OPTIMIZER_ADAMW_8BIT:
      /* m and v in 8 bits, one fp32 absmax per block each */
      return 2 * (1 + 4 / ADAM_8BIT_BLOCK);
    case HR_OPTIMIZER_SGD:
      return 0;
    case HR_OPTIMIZER_SGD_MOMENTUM:
    case HR_OPTIMIZER_LION:
      /* one momentum buffer (Lion: Chen et al. 2023, Alg. 2) */
      return state;
    case HR_OPTIMIZER_ADAFACTOR:
      /* factored second moments; no first moment (beta1 = None, the default) */
      return params > 0 ? state * (double) rank->factored_elements / params : 0;
    default:
      return 0;
    }
}

typedef struct
{
  double dense;   /* ranks sharing ZeRO states of the non-expert parameters */
  double expert;  /* ranks sharing ZeRO states of the routed experts */
} ShardGroups;

/* [ZeRO] shards over the data-parallel group, which Megatron makes dp · cp
 * wide; experts are replicated over dp · cp / ep ranks only. FSDP's hybrid
 * shard keeps the shards within a node. */
static void
shard_groups (const HrTraining *t,
              ShardGroups      *g)
{
  int64_t dp_cp = hr_training_data_parallel (t) * t->context_parallel;
  int64_t expert;

  /* Unvalidated settings shard over nothing rather than divide by zero. */
  if (dp_cp < 1)
    dp_cp = 1;
  expert = t->expert_parallel > 0 ? dp_cp / t->expert_parallel : dp_cp;
  g->dense = (double) dp_cp;
  g->expert = (double) (expert > 0 ? expert : 1);
  if (t->fsdp == HR_FSDP_HYBRID)
    {
      int64_t per_node = t->gpus_per_node / (t->tensor_parallel * t->pipeline_parallel);

      if (per_node < 1)
        per_node = 1;
      if (g->dense > (double) per_node)
        g->dense = (double) per_node;
      if (g->expert > g->dense)
        g->expert = g->dense;
    }
}

static double
bytes_for (const HrTrainingRank *rank,
           const ShardGroups    *g,
           double                bytes_per_param,
           bool                  sharded)
{
  if (!sharded)
    return bytes_per_param * ((double) rank->params + (double) rank->expert_params);
  return bytes_per_param * ((double) rank->params / g->dense
                            + (double) rank->expert_params / g->expert);
}

/* FSDP (full or hybrid shard) under pipeline parallelism keeps the stage's
 * parameters gathered through the step: torchtitan's apply_fsdp passes
 * reshard_after_forward=False with PP ("to avoid per-microbatch
 * all-gathers"), and torch.distributed.pipelining runs every micro-batch's
 * backward but the last without gradient sync or resharding
 * (PipelineStage.backward_maybe_with_nosync: set_requires_gradient_sync and
 * set_reshard_after_backward False), so FSDP2 accumulates the unsharded
 * gradients, in reduce_dtype (FSDPParam.to_accumulated_grad_if_needed). */
static bool
fsdp_pipeline (const HrTraining *t)
{
  return t->fsdp != HR_FSDP_NONE && effective_zero_stage (t) >= 3 && t->pipeline_parallel > 1;
}

void
hr_training_model_states (const HrTraining     *training,
                          const HrTrainingRank *rank,
                          HrTrainingMemory     *memory)
{
  int64_t zero = effective_zero_stage (training);
  double optimizer_per_param;
  StateBytes b;
  ShardGroups g;

  state_bytes (training, &b);
  shard_groups (training, &g);
  optimizer_per_param = optimizer_bytes (training, rank, b.state);

  /* [ZeRO] §5: stage 1 shards optimizer states (with the master copy),
   * stage 2 adds gradients, stage 3 adds the weights. */
  memory->weights = bytes_for (rank, &g, b.weights, zero >= 3);
  /* FSDP with a 16-bit param_dtype keeps only the fp32 shard: each
   * all-gather casts it on the fly (FSDP2 FSDPParam.all_gather_inputs,
   * sharded_param.to(param_dtype); FSDP1 allocates its _mp_shard for the
   * gather and frees it after), so no 16-bit shard persists; the gathered
   * copies are the temporary buffers (stage_states). */
  if (training->fsdp != HR_FSDP_NONE && zero >= 3 && b.master > 0
      && (training->precision == HR_PRECISION_BF16_MIXED
          || training->precision == HR_PRECISION_FP16_MIXED)
      && !training->fp32_residual)
    memory->weights = 0;
  memory->master_weights = bytes_for (rank, &g, b.master, zero >= 1);
  memory->gradients = bytes_for (rank, &g, b.gradients, zero >= 2);
  memory->optimizer = bytes_for (rank, &g, optimizer_per_param, zero >= 1);
  if (fsdp_pipeline (training))
    {
      memory->weights = bytes_for (rank, &g, b.weights, false);
      memory->gradients = bytes_for (rank, &g, b.gradients, false);
    }

  /* 16-bit gradients accumulated over several micro-batches go into an fp32
   * buffer (DeepSpeed's bf16 optimizer, fp32 accumulation) */
  memory->grad_accumulation_buffer = 0;
  if (is_mixed (training) && b.gradients < 4 && grad_accumulation (training) > 1)
    memory->grad_accumulation_buffer = bytes_for (rank, &g, 4, zero >= 2);

  /* ZeRO-Offload (Ren et al. 2021, §4): fp32 master weights, optimizer
   * states and an fp32 gradient copy live in CPU memory. */
  memory->cpu_bytes = 0;
  if (training->offload_optimizer)
    {
      memory->cpu_bytes = memory->master_weights + memory->optimizer
                          + (b.master > 0 ? bytes_for (rank, &g, 4, zero >= 1) : 0);
      memory->master_weights = 0;
      memory->optimizer = 0;
    }
}

/* Activations */

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
  double compute;     /* bytes of projection outputs and attention tensors */
  double input;       /* bytes of a saved projection input */
  double mask;        /* bytes of a dropout mask element (0 without dropout) */
  double attn_casts;  /* saved copies of the attention input (autocast casts per projection) */
  double mlp_casts;   /* the same for the MLP input; 0 when it shares the attention's */
  double norm_fp32;   /* fp32 input copy an eager norm saves inside a layer (0: fused) */
  double head_norm_fp32; /* the same for the final norm (outside the compiled layers) */
  double param;       /* bytes of a parameter element as the model holds it */
} ActShape;

static void
act_shape (const HrModel    *model,
           const HrTraining *t,
           ActShape         *a)
{
  double tp = (double) t->tensor_parallel;
  double cp = (double) t->context_parallel;
  double kv = (double) kv_heads (model);
  bool autocast = t->fp32_residual && is_mixed (t);

  a->batch = (double) t->micro_batch;
  a->s_k = (double) t->seq_len;
  a->s_q = a->s_k / cp;
  a->tokens = a->batch * a->s_q;
  a->h = (double) model->hidden_size;
  a->h_rep = t->sequence_parallel ? a->h / tp : a->h;
  a->tokens_rep = t->sequence_parallel ? a->tokens / tp : a->tokens;
  /* Megatron's sequence-parallel linears save their input split and gather
   * it again in the backward ([SP] §4.2.2; tensor_parallel/layers.py,
   * LinearWithGradAccumulationAndAsyncCommunication). Under DTensor
   * (torchtitan's parallelize_llama.py) PrepareModuleInput redistributes the
   * norm's output from Shard(1) to Replicate before wq, wk, wv and before w1,
   * w3, which then save the gathered tensor. */
  a->h_proj = t->dtensor_tp && t->sequence_parallel ? a->h : a->h_rep;
  a->heads = (double) model->n_heads / tp;
  a->kv_heads = kv >= tp ? kv / tp : 1;
  a->d_qk = (double) head_dim_qk (model);
  a->d_v = (double) head_dim_v (model);

  /* dtypes: fp32 everywhere in fp32; 16-bit otherwise, except that autocast
   * keeps the residual stream and norms in fp32 and casts each projection's
   * input; Transformer Engine saves fp8 casts of the projection inputs. */
  a->compute = t->precision == HR_PRECISION_FP32 ? 4 : 2;
  a->residual = (t->precision == HR_PRECISION_FP32 || autocast) ? 4 : 2;
  a->input = t->precision == HR_PRECISION_FP8_MIXED ? 1 : a->compute;
  a->mask = t->dropout ? (double) t->dropout_mask_bytes : 0;

  /* Under autocast q, k and v (separate modules, as in the HF Llama family)
   * each save their own 16-bit cast of the fp32 norm output; gate and up too. */
  a->attn_casts = autocast ? 3 : 1;
  a->mlp_casts = autocast ? (model->ffn_kind == HR_FFN_GATED ? 2 : 1) : 1;
  if (model->parallel_block && model->norms_per_layer == 1 && !autocast)
    a->mlp_casts = 0;

  /* An eager RMSNorm (transformers LlamaRMSNorm, torchtune RMSNorm) runs
   * x.float(), pow, mean, rsqrt and two muls: pow and mul save the fp32 copy
   * of the input, the weight's mul its normalised input cast back; a fused
   * kernel saves the input and the statistics. Both save one input-sized
   * tensor in the input dtype, so eager adds 4 bytes per element.
   * torch.compile of a layer fuses the pointwise chain: the partitioner
   * recomputes the fp32 copy (torch/_functorch/partitioners.py,
   * min_cut_rematerialization_partition), so the compiled layer's norms save
   * what a fused kernel saves. torchtune and torchtitan compile each
   * transformer block, not the final norm. */
  a->head_norm_fp32 = t->norm_kernel == HR_NORM_KERNEL_EAGER ? 4 : 0;
  a->norm_fp32 = t->compile ? 0 : a->head_norm_fp32;
  a->param = (t->precision == HR_PRECISION_FP32 || autocast) ? 4 : 2;
}

/* Norm statistics: LayerNorm saves mean and rstd, RMSNorm rstd, in fp32. */
static double
norm_stats (const HrModel  *model,
            const ActShape *a)
{
  return a->tokens_rep * 4 * (model->norm_kind == HR_NORM_LAYERNORM ? 2 : 1);
}

/* One MLP of width `ffn` (before TP) run on `tokens` tokens:
 * plain: fc output (activation input) + activation output;
 * gated: gate output, its activation, up output, and their product ([SP] §4.1
 * counts 8sbh + 8sbh for the GPT 4h MLP in 16 bits). */
static double
mlp_bytes (const HrModel    *model,
           const HrTraining *t,
           const ActShape   *a,
           int64_t           ffn,
           double            tokens)
{
  double f = (double) ffn / (double) t->tensor_parallel;

  if (model->ffn_kind == HR_FFN_GATED)
    return tokens * f * (3 * a->compute + a->input);
  return tokens * f * (a->compute + a->input);
}

/* Fine-tuning: what frozen linears no longer save and what adapters add
 * (hr_finetune_layer_activations). */
static double
finetune_layer_bytes (const HrModel    *model,
                      const HrTraining *t,
                      const ActShape   *a,
                      bool              is_moe)
{
  double tp = (double) t->tensor_parallel;
  HrFinetuneLayerShape shape;

  /* Only adapters add to what a layer saves. */
  if (!hr_finetune_is_adapter (&t->finetune))
    return 0;
  shape = (HrFinetuneLayerShape) {
    .tokens = a->tokens,
    .h = a->h_rep,
    .h_full = a->h,
    .tp = tp,
    .o_in = a->heads * a->d_v,
    .ffn = (double) model->ffn_size / tp,
    .input = a->input,
    .compute = a->compute,
    .attn_casts = a->attn_casts,
    .mlp_casts = a->mlp_casts,
    .compute_dtype_bytes = a->compute,
    .kernel_saves_o = t->attention == HR_ATTENTION_FLASH,
    /* An eager norm's "residual" bytes are the normalised input its weight's
     * multiply saves (act_shape); compiled or fused, the input itself. */
    .norm_weight_input = a->norm_fp32 > 0 ? (double) model->norms_per_layer * a->tokens
                                            * a->h_rep * a->residual : 0,
    .is_moe = is_moe,
    .routed_tokens = (double) model->experts_per_token * a->tokens,
    .expert_ffn = (double) model->expert_ffn_size / tp,
    .shared_ffn = (double) (model->n_shared_experts * model->shared_expert_ffn_size) / tp,
  };

  return hr_finetune_layer_activations (model, &t->finetune, &shape);
}

/* One layer of one micro-batch as saved for the backward pass under
 * `recompute`, tensor by tensor after [SP] §4.1 (Eq. 1), for the real
 * architecture. */
static double
layer_bytes (const HrModel    *model,
             const HrTraining *t,
             const ActShape   *a,
             bool              is_moe,
             HrRecompute       recompute)
{
  double probs = a->batch * a->heads * a->s_q * a->s_k;
  double q = a->tokens * a->heads * a->d_qk * a->compute;
  double o = a->tokens * a->heads * a->d_v;
  double bytes = 0;

  /* Full recomputation keeps the layer input only ([SP] §5: 2sbh in 16 bits,
   * split over TP under SP). */
  if (recompute == HR_RECOMPUTE_FULL)
    return a->tokens_rep * a->h * a->residual;

  /* torchtitan's op-level SAC (torchtitan/distributed/activation_checkpoint.py,
   * _custom_policy): the layer input, the outputs of aten.mm except every
   * second one — in a Llama block wq, wk, wv, wo, w1, w3, w2 run in that
   * order, so wq, wv, w1 and w2 are kept (a plain MLP: fc1) — and the SDPA
   * outputs (output and log-sum-exp; eager attention runs bmm, not in the
   * save list). Routed experts run grouped GEMMs, not aten.mm: recomputed. */
  if (recompute == HR_RECOMPUTE_OP_SELECTIVE)
    {
      double f = (double) model->ffn_size / (double) t->tensor_parallel;

      bytes = a->tokens_rep * a->h * a->residual;
      bytes += q + a->tokens * a->kv_heads * a->d_v * a->compute;
      if (t->attention == HR_ATTENTION_FLASH)
        bytes += o * a->compute + a->batch * a->heads * a->s_q * 4;
      if (!is_moe)
        bytes += a->tokens * f * a->compute
                 + (model->ffn_kind == HR_FFN_GATED ? a->tokens * a->h * a->compute : 0);
      return bytes;
    }

  /* Norm inputs and statistics; projection inputs (the norm outputs). */
  bytes += (double) model->norms_per_layer
           * (a->tokens * a->h_rep * (a->residual + a->norm_fp32) + norm_stats (model, a));
  bytes += (a->attn_casts + a->mlp_casts) * a->tokens * a->h_proj * a->input;

  /* Attention core: q after the rotary embedding, k and v. */
  bytes += q;
  if (t->attention == HR_ATTENTION_FLASH)
    {
      /* FlashAttention (Dao et al. 2022, §3.1) saves q, k, v (k/v heads only),
       * the output and an fp32 log-sum-exp per head and row. */
      bytes += a->tokens * a->kv_heads * (a->d_qk + a->d_v) * a->compute;
      bytes += a->batch * a->heads * a->s_q * 4;
      bytes += o * a->compute;
      if (a->input != a->compute)
        bytes += o * a->input;
    }
  else
    {
      /* Eager attention: k and v repeated to every query head (HF repeat_kv),
       * the softmax output and, with dropout, its mask and the dropped
       * probabilities ([SP]: 2as²b + as²b + 2as²b in 16 bits). Autocast runs
       * the softmax in fp32 and saves its 16-bit cast for the product with V. */
      bytes += a->tokens * a->heads * (a->d_qk + a->d_v) * a->compute;
      if (recompute != HR_RECOMPUTE_SELECTIVE)
        {
          bool autocast = t->fp32_residual && is_mixed (t);

          bytes += probs * (autocast ? 4 + a->compute : a->compute);
          if (t->dropout)
            bytes += probs * (a->mask + a->compute);
        }
      bytes += o * a->input;
    }

  /* Dropout after the attention output projection and after the MLP. */
  bytes += 2 * a->tokens * a->h_rep * a->mask;

  if (is_moe)
    {
      /* Router probabilities in fp32; each token's k copies dispatched to its
       * experts (dropless, balanced: k · tokens per rank under EP); shared
       * experts on every token. */
      double routed = (double) model->experts_per_token * a->tokens;

      bytes += a->tokens * (double) model->n_experts * 4;
      bytes += routed * a->h * a->input;
      bytes += mlp_bytes (model, t, a, model->expert_ffn_size, routed);
      bytes += mlp_bytes (model, t, a,
                          model->n_shared_experts * model->shared_expert_ffn_size, a->tokens);
    }
  else
    bytes += mlp_bytes (model, t, a, model->ffn_size, a->tokens);
  return bytes + finetune_layer_bytes (model, t, a, is_moe);
}

/* Bytes one layer of each kind saves, indexed by is_moe. */
typedef struct
{
  double saved[2];  /* under the recompute mode */
  double full[2];   /* with nothing recomputed: live during the layer's backward,
                     * the saved tensors reused and the rest rebuilt */
} LayerKinds;

/* Stages run by torch.distributed.pipelining (one or, interleaved, several
 * a rank). */
static bool
torch_pipelining (const HrTraining *t)
{
  return t->torch_pipelining && t->pipeline_parallel > 1;
}

static void
layer_kinds (const HrModel    *model,
             const HrTraining *training,
             const ActShape   *a,
             LayerKinds       *kinds)
{
  int n_kinds = model->n_experts > 0 ? 2 : 1;

  memset (kinds, 0, sizeof *kinds);
  for (int is_moe = 0; is_moe < n_kinds; is_moe++)
    {
      kinds->saved[is_moe] = layer_bytes (model, training, a, is_moe, training->recompute);
      kinds->full[is_moe] = training->recompute == HR_RECOMPUTE_NONE
                            ? kinds->saved[is_moe]
                            : layer_bytes (model, training, a, is_moe, HR_RECOMPUTE_NONE);
    }
}

/* The first layer inside autograd's graph: the layers outside it
 * (hr_finetune_layer_outside_graph) are a prefix, found by bisection rather
 * than a walk over the layers. */
static int64_t
first_layer_in_graph (const HrTraining *training,
                      int64_t           n_layers)
{
  int64_t lo = 0, hi = n_layers;

  /* Most often there is no such prefix. */
  if (!hr_finetune_layer_outside_graph (&training->finetune, 0))
    return 0;
  while (lo < hi)
    {
      int64_t mid = lo + (hi - lo) / 2;

      if (hr_finetune_layer_outside_graph (&training->finetune, mid))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* What chunk j of rank `stage` saves for one micro-batch in its layers
 * (count[] gets its layers of each kind). Megatron's --recompute-num-layers
 * N (block method): the first N layers of each model chunk run under the
 * recompute mode, the others keep everything
 * (megatron/core/transformer/transformer_block.py, _checkpointed_forward).
 * Identical layers once, times their count: never a walk over the layers. */
static double
chunk_layer_bytes (const HrModel    *model,
                   const HrTraining *training,
                   const LayerKinds *kinds,
                   int64_t           graph_start,
                   int64_t           stage,
                   int64_t           j,
                   int64_t           count[2])
{
  HrLayerCounts all, recomputed, kept;
  int64_t first, chunk = stage_chunk (training, model->n_layers, stage, j, &first);
  int64_t last = first + chunk;
  /* Layers outside autograd's graph (frozen) save nothing. */
  int64_t from = graph_start > first ? (graph_start < last ? graph_start : last) : first;
  int64_t split = training->recompute_layers > 0 && training->recompute_layers < chunk
                  ? first + training->recompute_layers : last;
  /* torchtitan's layer SAC (activation_checkpoint.py, ac_freq): every
   * k-th block of the model is checkpointed, counting from 1, so layers
   * i with (i + 1) mod k = 0: floor(last / k) − floor(from / k) of
   * [from, last), shared among the layer kinds in proportion. */
  double every = 1, bytes = 0;

  hr_model_count_layers (model, first, last, &all);
  /* Most often every layer of the chunk is in the graph and recomputed alike. */
  if (from == first && split == last)
    {
      recomputed = all;
      memset (&kept, 0, sizeof kept);
    }
  else
    {
      hr_model_count_layers (model, from, split, &recomputed);
      hr_model_count_layers (model, from > split ? from : split, last, &kept);
    }
  if (training->recompute_every > 1 && last > from)
    every = (double) (last / training->recompute_every - from / training->recompute_every)
            / (double) (last - from);
  for (int is_moe = 0; is_moe < 2; is_moe++)
    {
      double rec = (double) (recomputed.n[is_moe][0] + recomputed.n[is_moe][1]);
      double keep = (double) (kept.n[is_moe][0] + kept.n[is_moe][1]);

      count[is_moe] += all.n[is_moe][0] + all.n[is_moe][1];
      bytes += every * rec * kinds->saved[is_moe]
               + ((1 - every) * rec + keep) * kinds->full[is_moe];
    }
  return bytes;
}

/* hr_training_activations() for a validated setting and its stage in range. */
static void
stage_activations (const HrModel         *model,
                   const HrTraining      *training,
                   const ActShape        *a,
                   const LayerKinds      *kinds,
                   int64_t                stage,
                   HrTrainingActivations *act)
{
  int64_t pp = training->pipeline_parallel;
  double tp = (double) training->tensor_parallel;
  int64_t count[2] = { 0, 0 };
  int64_t graph_start = first_layer_in_graph (training, model->n_layers);
  double layers_total = 0;

  memset (act, 0, sizeof *act);
  for (int64_t j = 0; j < training->virtual_stages; j++)
    layers_total += chunk_layer_bytes (model, training, kinds, graph_start, stage, j, count);
  act->layers = count[0] + count[1];
  for (int is_moe = 0; is_moe < 2; is_moe++)
    if (count[is_moe] > 0)
      {
        if (kinds->saved[is_moe] > act->per_layer)
          act->per_layer = kinds->saved[is_moe];
        if (kinds->full[is_moe] > act->per_layer_full)
          act->per_layer_full = kinds->full[is_moe];
      }

  /* Token ids (int64), learned position ids, the embedding dropout mask. The
   * embedding output itself is the first layer's input, counted there. */
  if (stage == 0)
    act->embedding = a->tokens * 8
                     + (model->positions == HR_POSITIONS_LEARNED ? a->s_q * 8 : 0)
                     + a->tokens * a->h_rep * a->mask;

  /* Final norm input and statistics, the LM head input (gathered to full
   * width), the fp32 log-probabilities of the cross-entropy loss (split over
   * the vocabulary by TP, Megatron's vocab-parallel loss) and int64 labels. */
  if (stage == pp - 1)
    {
      double vocab = ceil ((double) model->vocab_size / tp);
      double logits = a->tokens * vocab;
      double chunks = (double) training->loss_chunks;
      /* torchtune's compile: True compiles the loss too (compile_loss in
       * full_finetune_single_device.py); torchtitan at 9dec370 compiles the
       * blocks only (train.py: "compiling loss function causes CUDA errors,
       * turning off for now"). */
      bool loss_compiled = training->compile && training->compile_loss;

      if (model->final_norm)
        act->final_norm = a->tokens * a->h_rep
                          * ((hr_finetune_is_adapter (&training->finetune) && a->head_norm_fp32 > 0
                              ? 0 : a->residual) + a->head_norm_fp32)
                          + norm_stats (model, a);
      /* The output layer stays 16-bit under fp8 (Megatron's output layer is
       * not a Transformer Engine module): it saves its input in the compute
       * dtype. */
      act->lm_head = hr_finetune_head_activations (&training->finetune, model, a->tokens, a->h,
                                                   a->compute, a->compute);
      switch (training->loss)
        {
        case HR_LOSS_CHUNKED:
          /* torchtune CEWithChunkedOutputLoss: cross_entropy(chunk.float())
           * per chunk. Eager, log_softmax saves each chunk's fp32 output
           * (all of them by the end of the forward); compiled with the loss,
           * the upcast is recomputed and the 16-bit chunks are saved. The
           * backward of one chunk holds its gradient: fp32 of the
           * log-probabilities and of the logits eager, one 16-bit compiled. */
          act->loss = logits * (loss_compiled ? a->compute : 4);
          act->loss_transient = logits / chunks * (loss_compiled ? a->compute : 8);
          break;
        case HR_LOSS_FUSED:
          {
            /* Liger's fused linear cross-entropy (Liger-Kernel
             * src/liger_kernel/ops/fused_linear_cross_entropy.py) computes
             * the loss and both gradients in the forward, chunk by chunk:
             * it saves grad_input (tokens × h, input dtype) and grad_weight
             * (the weight's dtype) and holds one chunk of logits,
             * next_power_of_2(ceil(tokens / ceil(V / h))) rows. */
            double inc = ceil (vocab / a->h);
            double rows = exp2 (ceil (log2 (ceil (a->tokens / inc))));

            if (rows > a->tokens)
              rows = a->tokens;
            act->lm_head = 0;
            act->loss = a->tokens * a->h * a->compute + vocab * a->h * a->param
                        + a->tokens * 4;
            act->loss_transient = rows * vocab * a->compute;
          }
          break;
        case HR_LOSS_FULL:
        default:
          /* PyTorch cross_entropy on fp32 logits: log_softmax saves its
           * fp32 output. Its backward holds the incoming gradient and the
           * logits' gradient, both fp32; compiled, one fused kernel writes
           * the logits' gradient from the saved fp32 logits. */
          act->loss = logits * 4;
          act->loss_transient = logits * (loss_compiled ? 4 : 8);
          /* DTensor's loss_parallel() (torch/distributed/tensor/parallel/
           * loss.py, _nll_loss_and_log_softmax_backward) computes
           * (zeros_like(x) scattered + exp(x)) · grad: beside the saved
           * log-probabilities x it holds the scattered zeros, exp(x) and
           * their sum, three fp32 buffers of the rank's logits. */
          if (training->loss_parallel && training->tensor_parallel > 1 && !loss_compiled)
            act->loss_transient = logits * 12;
          break;
        }
      /* int64 labels */
      act->loss += a->tokens * 8;
    }

  /* torch.distributed.pipelining (stage.py, forward_one_chunk) keeps each
   * micro-batch's stage output in fwd_cache until its backward_one_chunk:
   * the residual stream leaving the stage, or on the last stage the 16-bit
   * logits (which the fp32 cast of the loss does not save). Interleaved,
   * each of the rank's stages keeps its own: the residual stream from all
   * but the model's last. */
  if (torch_pipelining (training))
    act->stage_output = (double) (training->virtual_stages - 1) * a->tokens * a->h_rep * a->residual
                        + (stage == pp - 1
                           ? a->tokens * ceil ((double) model->vocab_size / tp) * a->compute
                           : a->tokens * a->h_rep * a->residual);

  act->layers_total = layers_total;
  act->micro_batch = act->embedding + layers_total + act->final_norm + act->lm_head + act->loss
                     + act->stage_output;
}

HrStatus
hr_training_activations (const HrModel         *model,
                         const HrTraining      *training,
                         int64_t                stage,
                         HrTrainingActivations *act,
                         HrError               *err)
{
  int64_t pp = training->pipeline_parallel;
  HrStatus status;
  LayerKinds kinds;
  ActShape a;

  memset (act, 0, sizeof *act);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (stage < 0 || stage >= pp)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "pipeline_parallel", stage, pp - 1,
                         "pipeline stage");
  act_shape (model, training, &a);
  layer_kinds (model, training, &a, &kinds);
  stage_activations (model, training, &a, &kinds, stage, act);
  return HR_OK;
}

/* Memory */

static HrStatus
check_gpu (const HrTraining *training,
           const HrGpu      *gpu,
           bool              need_peak,
           HrError          *err)
{
  if (!isfinite (gpu->memory_bytes) || gpu->memory_bytes <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "memory_bytes",
                         hr_error_value (gpu->memory_bytes), 0, "the GPU's memory");
  if (need_peak)
    {
      double peak = gpu->peak_flops[hr_training_compute_dtype (training)];

      if (!isfinite (peak) || peak <= 0)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "precision", training->precision, 0,
                             "the GPU has no peak rate for this precision's compute dtype");
    }
  return HR_OK;
}

/* Micro-batches whose activations stage `stage` holds at once, in units of
 * all its layers. 1F1B: stage i warms up with pp − i forwards ([MLM] §2.2.1);
 * GPipe keeps all m. The interleaved schedule counts chunk by chunk
 * (interleaved_peak). */
static double
in_flight (const HrTraining *t,
           int64_t           stage)
{
  double m = (double) grad_accumulation (t);
  double pp = (double) t->pipeline_parallel;
  double n;

  if (t->pipeline_parallel == 1)
    return 1;
  if (t->pipeline_schedule == HR_PIPELINE_GPIPE)
    return m;
  n = pp - (double) stage;
  return n < m ? n : m;
}

/* Fine-tuning's model states: the frozen base in its storage dtype (sharded
 * only by ZeRO-3/FSDP, which shard every parameter), and weights, gradients
 * and optimizer states for the trained parameters alone. A rank holds the
 * model's trained and frozen parameters in proportion to its share of all
 * parameters. Adapters kept in fp32 (PEFT's autocast_adapter_dtype) are
 * trained as fp32 parameters: no master copy, fp32 gradients and states. */
static void
finetune_states (const HrModel     *model,
                 const HrTraining  *training,
                 const HrParams    *params,
                 HrTrainingMemory  *memory)
{
  HrTrainingRank trained = memory->rank;
  HrTraining t = *training;
  HrFinetuneParams fp;
  double share = (double) memory->params_on_gpu / (double) params->total;
  ShardGroups g;

  if (hr_finetune_params (model, &training->finetune, hr_training_compute_dtype (training)
                          == HR_DTYPE_FP32 ? 4 : 2, &fp, NULL) != HR_OK)
    return;
  if (training->finetune.fp32_adapters && hr_finetune_is_adapter (&training->finetune))
    t.precision = HR_PRECISION_FP32;
  trained.params = (int64_t) llround ((double) fp.trainable * share);
  trained.expert_params = 0;
  trained.factored_elements = (int64_t) llround ((double) trained.factored_elements
                                                 * (double) fp.trainable
                                                 / (double) params->total);
  hr_training_model_states (&t, &trained, memory);

  shard_groups (training, &g);
  memory->frozen_weights = fp.frozen_bytes * share
                           / (effective_zero_stage (training) >= 3 ? g.dense : 1);
  memory->trainable_params = fp.trainable;
  memory->frozen_params = fp.frozen;
  if (hr_finetune_is_adapter (&training->finetune))
    memory->adapters = memory->weights + memory->master_weights + memory->gradients
                       + memory->grad_accumulation_buffer + memory->optimizer;
}

/* Share of the trained parameters whose optimizer states a paged optimizer
 * pages (HrFinetuneParams.paged: tensors of 1e5 elements or more). */
static double
paged_share (const HrModel    *model,
             const HrTraining *training)
{
  HrFinetuneParams fp;

  if (hr_finetune_params (model, &training->finetune, 2, &fp, NULL) != HR_OK
      || fp.trainable <= 0)
    return 0;
  return (double) fp.paged / (double) fp.trainable;
}

/* Mean bytes of a frozen parameter in its storage (16-bit or quantised). */
static double
frozen_bytes_per_param (const HrModel    *model,
                        const HrTraining *training)
{
  double compute = hr_training_compute_dtype (training) == HR_DTYPE_FP32 ? 4 : 2;
  HrFinetuneParams fp;

  if (hr_finetune_params (model, &training->finetune, compute, &fp, NULL) != HR_OK
      || fp.frozen <= 0)
    return compute;
  return fp.frozen_bytes / (double) fp.frozen;
}

/* Transient buffers of fine-tuning: QLoRA dequantises one frozen matrix at a
 * time to the compute dtype, in the forward and again in the backward
 * (bitsandbytes MatMul4Bit, torchao LinearNF4); DoRA's weight norm builds
 * the 16-bit base matrix, B·A and their sum in the adapters' dtype
 * (PEFT DoraLinearLayer.forward) for one matrix at a time. */
static double
finetune_buffers (const HrModel    *model,
                  const HrTraining *training)
{
  const HrFinetune *f = &training->finetune;
  double compute = hr_training_compute_dtype (training) == HR_DTYPE_FP32 ? 4 : 2;
  double adapter = f->fp32_adapters ? 4 : compute;
  HrFinetuneParams fp;
  double bytes = 0;

  if (!hr_finetune_is_adapter (f)
      || hr_finetune_params (model, f, compute, &fp, NULL) != HR_OK)
    return 0;
  bytes += (double) fp.largest_quantized * compute;
  if (f->method == HR_FINETUNE_DORA)
    bytes += (double) fp.largest_adapted * 3 * adapter;
  return bytes / (double) training->tensor_parallel;
}

/* Parameter tensors of one layer: 4 attention matrices, 2 or 3 MLP
 * matrices, the norms; biases as tensors of their own. Used only to count
 * the caching allocator's rounding. */
static double
layer_tensors (const HrModel *model)
{
  double n = 4 + (model->ffn_kind == HR_FFN_GATED ? 3 : 2) + model->norms_per_layer;

  if (model->qkv_bias)
    n += 3;
  if (model->out_bias)
    n += 1;
  if (model->mlp_bias)
    n += model->ffn_kind == HR_FFN_GATED ? 3 : 2;
  return n;
}

/* FSDP's gathered parameters by phase (stage_states): the root group, live
 * from the forward to the end of the backward, and what of the backward's
 * layer buffers (in temporary) the forward and the loss do not hold. */
typedef struct
{
  double root;
  double forward_less;
  double gather_pool;   /* FSDP2's copy-in stream: its largest all-gather buffer */
  double grad_shards;   /* the reduce-scatter stream: the gradient shards */
} FsdpBuffers;

/* The peak of a step is the largest of its phases, not the sum of each
 * part's maximum (docs/training.md, "What users measure"):
 *  - end of the forward: the model states, the gradients where they persist
 *    between steps, every in-flight micro-batch's saved tensors;
 *  - the loss's backward (last stage): the same plus the loss's buffers;
 *  - the backward of the stage's first layer: the gradients complete, the
 *    other in-flight micro-batches' activations, that layer's tensors live
 *    (rebuilt when recomputed) — activations shrink and gradients grow
 *    linearly in between, so the ends bound the middle;
 *  - the optimizer step (fused or in place: no temporaries counted).
 * Communication buffers (ZeRO-3 gathers, DP buckets) are live throughout. */
static void
phases (const HrModel     *model,
        const HrTraining  *training,
        const ActShape    *a,
        const FsdpBuffers *fsdp,
        double             backward,
        HrTrainingMemory  *memory)
{
  const HrTrainingActivations *act = &memory->activation;
  /* Paged states are outside PyTorch's allocator (stage_memory). */
  double states = memory->frozen_weights + memory->weights + memory->master_weights
                  + memory->optimizer - memory->pageable + memory->grad_accumulation_buffer;
  double grads = memory->gradients, grads_forward, head_grad = 0, step_temp = 0;
  double n_tensors;
  StateBytes b;

  state_bytes (training, &b);
  /* torchtune's optimizer_in_bwd registers a step per parameter as its
   * gradient is accumulated (torchtune training/memory.py,
   * register_optim_in_bwd_hooks), then frees it: one parameter's gradient at
   * a time, the largest matrix — the embedding or LM head where the stage
   * holds one, else an MLP matrix. */
  if (training->optimizer_in_backward)
    {
      double rows = ceil ((double) model->vocab_size / (double) training->tensor_parallel);
      double largest = (double) model->ffn_size / (double) training->tensor_parallel
                       * (double) model->hidden_size;

      if ((memory->pipeline_stage == 0 || memory->pipeline_stage == training->pipeline_parallel - 1)
          && rows * (double) model->hidden_size > largest)
        largest = rows * (double) model->hidden_size;
      grads = largest * b.gradients;
      if (grads > memory->gradients)
        grads = memory->gradients;
      memory->gradients = grads;
    }
  /* zero_grad(set_to_none=True), PyTorch's default since 2.0, frees the
   * gradients after each step; they persist through the forward while
   * micro-batches accumulate (grad accumulation, pipelines) and in
   * DeepSpeed's and Megatron's ZeRO buffers. */
  grads_forward = (grad_accumulation (training) > 1 || training->pipeline_parallel > 1
                   || training->zero_stage > 0) ? grads : 0;
  /* torch.optim.AdamW's foreach implementation (_multi_tensor_adamw) makes
   * exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs) for all the
   * parameters at once: one more state-sized buffer during the step. The
   * fused implementations (fused=True, Apex/Transformer Engine FusedAdam,
   * DeepSpeed) update in place. */
  if (training->optimizer_foreach && training->optimizer == HR_OPTIMIZER_ADAMW
      && !training->optimizer_in_backward)
    step_temp = memory->optimizer / 2;
  /* Chunked, the LM head's weight gradient is allocated at the first
   * chunk's backward and summed into over the others: it is live beside the
   * chunk's buffers (full: the fp32 buffers are gone by the time it is made;
   * fused: made in the forward, counted in the loss). */
  if (training->loss == HR_LOSS_CHUNKED && grads_forward == 0 && act->lm_head > 0)
    head_grad = ceil ((double) model->vocab_size / (double) training->tensor_parallel)
                * (double) model->hidden_size * b.gradients;

  {
    /* What is live in each phase: gradients, activations, buffers. */
    double forward_temp = memory->temporary - fsdp->forward_less + fsdp->root;
    double live[4][3] = {
      { grads_forward, memory->activations, forward_temp },
      { grads_forward + head_grad, memory->activations, forward_temp + act->loss_transient },
      { grads, backward, memory->temporary + fsdp->root },
      { training->optimizer_in_backward ? 0 : grads, 0, memory->temporary + step_temp },
    };
    double *peak[4] = { &memory->peak_forward, &memory->peak_loss_backward,
                        &memory->peak_layer_backward, &memory->peak_optimizer };
    double cached[4] = { 0, 0, 0, 0 }, reserved = 0;
    /* the 16-bit logits of the rank's vocabulary rows */
    double logits_16 = a->tokens
                       * ceil ((double) model->vocab_size / (double) training->tensor_parallel) * 2;
    int at = 0;

    for (int i = 0; i < 4; i++)
      {
        *peak[i] = states + live[i][0] + live[i][1] + live[i][2];
        if (*peak[i] > *peak[at])
          at = i;
      }
    memory->allocated_peak = *peak[at];
    for (int i = 0; i < 3; i++)
      memory->growing[i] = live[i][1] + (i == 1 ? act->loss_transient : 0);
    /* Blocks the caching allocator holds free in a phase that the phase
     * cannot use count in what it reserves (reserved_peak, the largest over
     * the phases; below). The allocator keeps a pool of blocks per stream
     * (c10/cuda/CUDACachingAllocator.cpp: a freed block is reused only by
     * its own stream). FSDP reduce-scatters into gradient shards allocated
     * on its reduce-scatter stream (FSDP2 foreach_reduce; FSDP1 its
     * post-backward stream), so once zero_grad frees them their blocks stay
     * reserved there; and FSDP2 all-gathers into a flat buffer allocated on
     * its copy-in stream (foreach_all_gather), whose largest is the root
     * group's, or two layers' with the prefetch. */
    for (int i = 0; i < 4; i++)
      if (fsdp->gather_pool > 0)
        cached[i] = fsdp->gather_pool
                    + (fsdp_pipeline (training) ? fsdp->grad_shards
                       : (fsdp->grad_shards > live[i][0] ? fsdp->grad_shards - live[i][0] : 0));
    /* The eager full loss upcasts the 16-bit logits (torchtitan's loss_fn:
     * cross_entropy(pred.float(), …)) and the logits are dropped before the
     * backward (train.py: del pred). Their block, of T·V 16-bit elements, is
     * its own segment (over kMinLargeAlloc) and half the size of each fp32
     * buffer the loss's backward allocates (the log-probabilities' and the
     * logits' gradients): it stays cached, unused, in that phase — in every
     * step, since the next forward's logits take it back. */
    if (training->loss == HR_LOSS_FULL && act->loss_transient > 0 && act->stage_output == 0
        && logits_16 >= ALLOCATOR_MIN_LARGE
        && !(training->compile && training->compile_loss)
        && hr_training_compute_dtype (training) != HR_DTYPE_FP32)
      cached[1] += logits_16;
    for (int i = 0; i < 4; i++)
      if (*peak[i] + cached[i] > reserved)
        reserved = *peak[i] + cached[i];
    memory->cached_free = reserved - memory->allocated_peak;
    memory->peak_gradients = live[at][0];
    memory->peak_activations = live[at][1];
    memory->peak_temporary = live[at][2];
  }
  memory->temporary += act->loss_transient;

  /* Rounding: a block of kMinLargeAlloc (10 MiB) or more is its own
   * segment, rounded up to kRoundLarge: on average half of it is wasted.
   * Smaller blocks are carved out of shared 2 MiB or 20 MiB segments with
   * 512-byte rounding (negligible). The blocks live at the peak: each
   * layer's saved tensors (about one per parameter tensor: each matrix saves
   * its input or output; the input alone under full recomputation) per
   * in-flight micro-batch and, unsharded, each
   * parameter tensor's copies (weights, master, gradients, optimizer
   * states); ZeRO and FSDP keep flat shards, a few blocks in all. A class
   * counts when its mean block is large. */
  {
    double per_layer = layer_tensors (model);
    double saved_per_layer = training->recompute == HR_RECOMPUTE_FULL ? 1 : per_layer;
    double layers = (double) memory->rank.layers;
    double saved = saved_per_layer * layers * memory->micro_batches_in_flight;
    /* the optimizer's copies less the paged ones, which are not PyTorch's blocks */
    double copies = (b.master > 0 ? 2 : 1) + 1
                    + (training->optimizer == HR_OPTIMIZER_ADAMW
                       || training->optimizer == HR_OPTIMIZER_ADAMW_8BIT ? 2 : 1)
                      * (memory->optimizer > 0 ? 1 - memory->pageable / memory->optimizer : 1);
    double param_block = per_layer * layers > 0
                         ? (double) memory->rank.params * b.weights / (per_layer * layers) : 0;

    /* ZeRO 1 and 2 flatten the trained parameters' groups, ZeRO 3 and FSDP
     * every parameter, into a few flat blocks. */
    bool flat = effective_zero_stage (training) > 0;

    /* Adapters: the base's tensors are frozen, one copy each in their
     * storage; the adapters' own blocks are small. ZeRO 1 and 2 leave the
     * frozen tensors as they are (DeepSpeed flattens only the groups it
     * optimises: stage_1_and_2.py, bit16_groups_flat). */
    if (hr_finetune_is_adapter (&training->finetune))
      {
        copies = 1;
        param_block = per_layer * layers > 0 ? memory->frozen_weights / (per_layer * layers) : 0;
        flat = effective_zero_stage (training) >= 3;
      }

    n_tensors = 0;
    if (memory->activation.per_layer / saved_per_layer >= ALLOCATOR_MIN_LARGE)
      n_tensors += saved;
    if (!flat && param_block >= ALLOCATOR_MIN_LARGE)
      n_tensors += per_layer * layers * copies;
  }
  memory->reserved_peak = memory->allocated_peak + n_tensors * ALLOCATOR_ROUND_LARGE / 2
                          + memory->cached_free;

  memory->overhead = training->overhead_bytes;
  memory->total = memory->reserved_peak + memory->overhead + memory->pageable;
}

/* The interleaved schedule's peak on one rank, chunk by chunk. */
typedef struct
{
  double activations;  /* saved at the peak, after a forward */
  double freed;        /* what the backward that follows frees by its chunk's
                        * first layer: the chunk's layers and the head's tensors */
  double inputs;       /* in-flight micro-batches of the chunks that receive
                        * their input (all but the model's first stage) */
} InterleavedPeak;

/* Forwards of chunk j among the rank's first n, or backwards of chunk j
 * among its first n when `backward`: rounds of r micro-batches (round_size),
 * chunk (t / r) mod v for the forwards and v − 1 − (t / r) mod v for the
 * backwards (Megatron schedules.py get_model_chunk_id, r = pp; torch
 * ScheduleInterleaved1F1B forward_stage_index and backward_stage_index). */
static int64_t
chunk_ops (int64_t r,
           int64_t v,
           int64_t j,
           int64_t n,
           bool    backward)
{
  int64_t period = r * v, rest = n % period - (backward ? v - 1 - j : j) * r;

  return n / period * r + (rest < 0 ? 0 : rest > r ? r : rest);
}

/* One micro-batch of chunk j of rank `stage`: what its backward frees by
 * the chunk's first layer (*freed: the layers' saved tensors, the head's on
 * the model's last stage) and, with the embedding's and the kept stage
 * output (stage_activations), all it holds. `alike`, when not negative, is
 * what the layers of each of the rank's chunks save. */
static double
chunk_micro_batch (const HrModel               *model,
                   const HrTraining            *training,
                   const ActShape              *a,
                   const LayerKinds            *kinds,
                   const HrTrainingActivations *act,
                   int64_t                      graph_start,
                   int64_t                      stage,
                   int64_t                      j,
                   double                       alike,
                   double                      *freed)
{
  int64_t pp = training->pipeline_parallel, v = training->virtual_stages;
  int64_t count[2] = { 0, 0 };
  bool last = stage == pp - 1 && j == v - 1;
  double output = 0;

  if (torch_pipelining (training))
    output = last ? a->tokens * ceil ((double) model->vocab_size
                                      / (double) training->tensor_parallel) * a->compute
                  : a->tokens * a->h_rep * a->residual;
  *freed = (alike >= 0 ? alike : chunk_layer_bytes (model, training, kinds, graph_start, stage, j,
                                                    count))
           + (last ? act->final_norm + act->lm_head + act->loss : 0);
  return *freed + (stage == 0 && j == 0 ? act->embedding : 0) + output;
}

/* chunk_micro_batch() of one rank's chunks, the first CHUNK_MEMO of them
 * worked out once: the schedule's walk asks for each several times. */
#define CHUNK_MEMO 64

typedef struct
{
  const HrModel               *model;
  const HrTraining            *training;
  const ActShape              *a;
  const LayerKinds            *kinds;
  const HrTrainingActivations *act;
  int64_t                      graph_start;
  int64_t                      stage;
  double                       alike;  /* chunk_micro_batch()'s */
  double                       held[CHUNK_MEMO];
  double                       freed[CHUNK_MEMO];
  bool                         have[CHUNK_MEMO];
} Chunks;

static double
chunk_held (Chunks  *c,
            int64_t  j,
            double  *freed)
{
  if (j >= CHUNK_MEMO)
    return chunk_micro_batch (c->model, c->training, c->a, c->kinds, c->act, c->graph_start,
                              c->stage, j, c->alike, freed);
  if (!c->have[j])
    {
      c->held[j] = chunk_micro_batch (c->model, c->training, c->a, c->kinds, c->act,
                                      c->graph_start, c->stage, j, c->alike, &c->freed[j]);
      c->have[j] = true;
    }
  *freed = c->freed[j];
  return c->held[j];
}

/* The interleaved 1F1B schedule on rank s (Megatron schedules.py
 * forward_backward_pipelining_with_interleaving; torch
 * ScheduleInterleaved1F1B, _get_1f1b_rank_ops), in rounds of r
 * micro-batches (round_size: pp when pp divides m): W = min((v − 1)·r +
 * 2(pp − s − 1), m·v) forwards of a chunk and a micro-batch warm up, then
 * each forward is followed by a backward. After the k-th forward (k ≥ W)
 * the rank holds forwards 0 … k less backwards 0 … k − W − 1, chunk by
 * chunk (chunk_ops). From one forward to the next the saved bytes change by
 * the forward's chunk less the backward's, both fixed over runs of steps,
 * and repeat every r·v steps: the peak is at the end of such a run within
 * one period. Equal chunks give (W + 1)/v micro-batches of the rank's
 * layers, [SP] §4.2.3's 2(pp − s − 1) + (v − 1)·pp + 1 chunk forwards. */
static void
interleaved_peak (const HrModel               *model,
                  const HrTraining            *training,
                  const ActShape              *a,
                  const LayerKinds            *kinds,
                  const HrTrainingActivations *act,
                  int64_t                      stage,
                  InterleavedPeak             *peak)
{
  int64_t pp = training->pipeline_parallel, v = training->virtual_stages;
  int64_t m = grad_accumulation (training);
  int64_t r = round_size (training);
  int64_t warmup = (v - 1) * r + 2 * (pp - stage - 1);
  int64_t k, end, at, back;
  double total = 0, freed;
  Chunks c;

  c.model = model;
  c.training = training;
  c.a = a;
  c.kinds = kinds;
  c.act = act;
  c.graph_start = first_layer_in_graph (training, model->n_layers);
  c.stage = stage;
  /* Chunks of one size whose layers all save alike (one layer kind, all in
   * autograd's graph, recomputed alike) share the rank's layers evenly. */
  c.alike = model->n_experts == 0 && c.graph_start == 0 && training->recompute_every <= 1
            && (hr_training_even_stages (training, model->n_layers)
                || training->pp_first_stage_layers > 0 || training->pp_last_stage_layers > 0)
            ? act->layers_total / (double) v : -1;
  memset (c.have, 0, sizeof c.have);
  if (warmup > m * v)
    warmup = m * v;
  /* After the forward of step `warmup` (or the last, when the warm-up is
   * all of them): no backward yet. */
  k = warmup < m * v ? warmup : m * v - 1;
  for (int64_t j = 0; j < v; j++)
    total += (double) chunk_ops (r, v, j, k + 1, false) * chunk_held (&c, j, &freed);
  peak->activations = total;
  at = k;
  end = warmup + r * v < m * v ? warmup + r * v - 1 : m * v - 1;
  while (k < end)
    {
      int64_t done = k - warmup;  /* the backward between this forward and the next */
      int64_t jf = ((k + 1) / r) % v, jb = v - 1 - (done / r) % v;
      int64_t run = r - (k + 1) % r;

      if (r - done % r < run)
        run = r - done % r;
      if (end - k < run)
        run = end - k;
      if (jf != jb)
        total += (double) run * (chunk_held (&c, jf, &freed) - chunk_held (&c, jb, &freed));
      k += run;
      if (total > peak->activations)
        {
          peak->activations = total;
          at = k;
        }
    }

  /* The backward that follows the peak, and the chunks in flight there. */
  back = at - warmup > 0 ? at - warmup : 0;
  chunk_held (&c, v - 1 - (back / r) % v, &peak->freed);
  peak->inputs = 0;
  for (int64_t j = 0; j < v; j++)
    if (j * pp + stage > 0)
      peak->inputs += (double) (chunk_ops (r, v, j, at + 1, false)
                                - chunk_ops (r, v, j, back, true));
}

/* torch.distributed.pipelining runs every backward of a stage but its last
 * without gradient sync or resharding, and at its last FSDP's post_backward,
 * which reduce-scatters the gradients and frees the unsharded ones
 * (stage.py, backward_maybe_with_nosync; last_backward per stage in
 * PipelineScheduleMulti). Each of a rank's stages is its own FSDP module
 * (torchtitan applies fully_shard to each model part), so it holds its
 * unsharded gradients from its first backward to its last, then their
 * shards. With one round of micro-batches (m < 2·pp, round_size) the
 * interleaved schedule runs chunk v − 1's backwards for all m, then chunk
 * v − 2's, … (chunk_ops):
 * the windows do not overlap, and the rank holds one chunk's unsharded
 * gradients at most, with the shards of the chunks after it. Chunks share
 * `gradients` (the rank's, unsharded) by their parameters: their layers, and
 * the embedding or the head where they hold it. */
static double
interleaved_fsdp_gradients (const HrModel          *model,
                            const HrTraining       *training,
                            const HrParams         *params,
                            int64_t                 stage,
                            const HrTrainingMemory *memory)
{
  int64_t pp = training->pipeline_parallel, v = training->virtual_stages;
  double total = (double) (memory->rank.params + memory->rank.expert_params);
  double after = 0, most = 0;
  RankLayerParams r;
  ShardGroups g;

  shard_groups (training, &g);
  rank_layer_params (model, training, params, &r);
  for (int64_t j = v - 1; j >= 0; j--)
    {
      HrLayerCounts c;
      int64_t first, n = stage_chunk (training, model->n_layers, stage, j, &first);
      double chunk, grads;

      hr_model_count_layers (model, first, first + n, &c);
      chunk = (double) (r.dense * (c.n[0][0] + c.n[0][1])
                        + (r.moe + r.moe_experts) * (c.n[1][0] + c.n[1][1]));
      if ((stage == 0 && j == 0) || (stage == pp - 1 && j == v - 1))
        chunk += (double) memory->rank.outside_layers;
      grads = memory->gradients * chunk / total;
      if (grads + after > most)
        most = grads + after;
      after += grads / g.dense;
    }
  return most;
}

/* What a stage's memory takes from the layout and the data-parallel degree
 * (the rank's parameters and model states, the buffers they make) is kept
 * apart from what the micro-batch and the sequence set (the activations):
 * the limits' probes change one side and keep the other. stage_states()
 * fills the first and reads neither the micro-batch nor the sequence;
 * stage_activations() reads neither the data-parallel degree nor the nodes;
 * stage_finish() adds the activations, the buffers and the phases.
 * /training/limits/random holds the probes to whole estimates. */
typedef struct
{
  FsdpBuffers fsdp;
  double      finetune_buffers;   /* finetune_buffers() */
  double      paged_share;        /* paged_share(), with a paged optimizer */
} StageBuffers;

static void
stage_states (const HrModel    *model,
              const HrTraining *training,
              const HrParams   *params,
              int64_t           stage,
              HrTrainingMemory *memory,
              StageBuffers     *buffers)
{
  int64_t zero = effective_zero_stage (training);
  FsdpBuffers *fsdp = &buffers->fsdp;
  StateBytes b;

  memset (memory, 0, sizeof *memory);
  memset (buffers, 0, sizeof *buffers);
  memory->pipeline_stage = stage;
  memory->data_parallel = hr_training_data_parallel (training);
  memory->grad_accumulation = grad_accumulation (training);
  stage_rank (model, training, params, stage, &memory->rank);
  memory->params_on_gpu = memory->rank.params + memory->rank.expert_params;
  if (hr_finetune_is_full (&training->finetune))
    hr_training_model_states (training, &memory->rank, memory);
  else
    finetune_states (model, training, params, memory);
  memory->micro_batches_in_flight = in_flight (training, stage);

  /* Temporary buffers */
  state_bytes (training, &b);
  if (zero >= 3 && hr_training_data_parallel (training) * training->context_parallel > 1
      && !fsdp_pipeline (training))
    {
      bool adapter = hr_finetune_is_adapter (&training->finetune);
      /* a gathered parameter: the frozen base in its storage, else param_dtype */
      double gathered = adapter ? frozen_bytes_per_param (model, training) : b.weights;

      /* ZeRO-3/FSDP gather the layer being computed and prefetch the next, and
       * hold the full gradient of a layer until it is reduce-scattered: the
       * backward's buffers. Under FSDP the end of the forward and the loss
       * hold one layer (torchtitan's apply_fsdp keeps the last block
       * unsharded after its forward; the backward prefetch starts in that
       * block's pre-backward hook). */
      memory->temporary += (double) memory->rank.largest_layer
                           * (adapter ? 2 * gathered : 2 * gathered + b.gradients);
      if (training->fsdp != HR_FSDP_NONE)
        fsdp->forward_less = (double) memory->rank.largest_layer
                             * (adapter ? gathered : gathered + b.gradients);
      /* FSDP does not reshard the root module after its forward ("for the
       * root, do not reshard after forward since for training, the
       * parameters would be freed and all-gathered immediately":
       * FSDPState._lazy_init in FSDP2, _post_forward_reshard in FSDP1): the
       * parameters outside the wrapped blocks (embedding, final norm, head)
       * stay gathered from the forward to the end of the backward. */
      if (training->fsdp != HR_FSDP_NONE)
        fsdp->root = (double) memory->rank.outside_layers * gathered;
    }
  if (training->fsdp != HR_FSDP_NONE && zero >= 3
      && hr_training_data_parallel (training) * training->context_parallel > 1)
    {
      double gathered = hr_finetune_is_adapter (&training->finetune)
                        ? frozen_bytes_per_param (model, training) : b.weights;
      double outside = (double) memory->rank.outside_layers;
      double layers2 = 2 * (double) memory->rank.largest_layer;
      ShardGroups g;

      /* What FSDP's communication streams keep cached (phases()): the
       * largest all-gather buffer, the root group's or two layers', and the
       * gradient shards (under a pipeline the unsharded accumulators are
       * the gradients; the shards are made at the last micro-batch). */
      shard_groups (training, &g);
      fsdp->gather_pool = (outside > layers2 ? outside : layers2) * gathered;
      fsdp->grad_shards = fsdp_pipeline (training) ? memory->gradients / g.dense
                                                   : memory->gradients;
    }
  buffers->finetune_buffers = finetune_buffers (model, training);
  if (training->paged_optimizer)
    buffers->paged_share = paged_share (model, training);
  /* The stages' gradient windows under FSDP (their shards are made by the
   * end of the step: the pool above keeps them all). */
  if (fsdp_pipeline (training) && training->pipeline_schedule == HR_PIPELINE_INTERLEAVED
      && memory->grad_accumulation < 2 * training->pipeline_parallel
      && hr_finetune_is_full (&training->finetune))
    memory->gradients = interleaved_fsdp_gradients (model, training, params, stage, memory);
}

/* The rest of a stage's memory, `memory` holding stage_states()'s and the
 * stage's activations of one micro-batch (stage_activations()). */
static void
stage_finish (const HrModel      *model,
              const HrTraining   *training,
              const ActShape     *a,
              const LayerKinds   *kinds,
              const StageBuffers *buffers,
              HrTrainingMemory   *memory)
{
  int64_t stage = memory->pipeline_stage;
  InterleavedPeak peak;
  double backward;  /* activations live in the backward of the stage's first layer */

  memory->activations_per_layer = memory->activation.per_layer;
  if (training->pipeline_schedule == HR_PIPELINE_INTERLEAVED)
    {
      interleaved_peak (model, training, a, kinds, &memory->activation, stage, &peak);
      memory->activations = peak.activations;
      /* in micro-batches of all the rank's layers */
      memory->micro_batches_in_flight = peak.activations / memory->activation.micro_batch;
      backward = peak.activations - peak.freed
                 + (memory->activation.layers > 0 ? memory->activation.per_layer_full : 0);
    }
  else
    {
      memory->activations = memory->micro_batches_in_flight * memory->activation.micro_batch;
      /* the oldest micro-batch by its backward of the stage's first layer
       * holds its embedding's tensors and kept output */
      backward = (memory->micro_batches_in_flight - 1) * memory->activation.micro_batch
                 + (memory->activation.layers > 0 ? memory->activation.per_layer_full : 0)
                 + memory->activation.embedding + memory->activation.stage_output;
      peak.inputs = stage > 0 ? memory->micro_batches_in_flight : 0;
    }
  /* The layer being recomputed holds the tensors its forward rebuilds during
   * its backward, beside what it saved. */
  if (training->recompute != HR_RECOMPUTE_NONE && memory->activation.layers > 0)
    memory->recompute = memory->activation.per_layer_full - memory->activation.per_layer;

  /* Activation offloading (torchtune training/_activation_offloading.py,
   * OffloadActivations): the layers' saved tensors go to pinned CPU memory
   * in the forward and come back one layer ahead in the backward: two
   * layers stay on the GPU. */
  if (training->offload_activations && memory->activation.layers > 2)
    {
      double resident = 2 * memory->activation.per_layer;
      double moved = memory->micro_batches_in_flight
                     * (memory->activation.layers_total - resident);

      if (moved > 0)
        {
          memory->activations -= moved;
          memory->cpu_bytes += moved;
          memory->offloaded_activations = memory->activation.layers_total - resident;
        }
    }

  /* torch.distributed.pipelining allocates its receive buffers once, one
   * per micro-batch (stage.py: _prepare_forward_infra makes
   * args_recv_info[chunk] for each chunk, _prepare_backward_infra
   * grad_recv_info[mb] for each): every stage but the last receives its
   * output's gradients, every stage but the first its input. An in-flight
   * micro-batch's input buffer is what its first layer saves (counted in
   * the activations); the others are held besides. */
  if (torch_pipelining (training))
    {
      double m = (double) memory->grad_accumulation;
      double boundary = a->tokens * a->h_rep * a->residual;
      /* the rank's stages (interleaved: v of them, stage + j·pp) that send
       * an output, and that receive an input */
      double senders = (double) training->virtual_stages - (stage == training->pipeline_parallel - 1);
      double receivers = (double) training->virtual_stages - (stage == 0);

      memory->temporary += (senders * m + receivers * m - peak.inputs) * boundary;
    }
  if (hr_training_data_parallel (training) * training->context_parallel > 1)
    memory->temporary += DP_BUCKETS_IN_FLIGHT * DP_BUCKET_BYTES;
  memory->temporary += buffers->finetune_buffers;

  /* Paged optimizers (Dettmers et al. 2023, QLoRA §2 "Paged Optimizers";
   * bitsandbytes optim/optimizer.py get_state_buffer): the states of each
   * tensor of 1e5 elements or more are allocated with cudaMallocManaged
   * (functional.py get_paged) and prefetched to the GPU for the update
   * (prefetch_state). The driver evicts them to host memory when the GPU has
   * no room and pages them back on access: they count in the total where
   * there is room, but a run whose other bytes fit does not fail. get_paged
   * wraps the pointer with torch.frombuffer, a CPU tensor: PyTorch's CUDA
   * allocator never sees them, so phases() leaves them out of the allocated
   * and reserved peaks. */
  if (training->paged_optimizer)
    memory->pageable = memory->optimizer * buffers->paged_share;

  phases (model, training, a, &buffers->fsdp, backward, memory);
}

/* The stages whose memory is looked at: the first (most in flight, the
 * embedding) and the last (the loss), the most loaded of even stages, or
 * every stage when they are uneven. Returns how many; examined_stage() gives
 * the k-th. */
static int64_t
examined_stages (const HrTraining *training,
                 const HrModel    *model,
                 int64_t          *first_other)
{
  int64_t pp = training->pipeline_parallel;

  *first_other = hr_training_even_stages (training, model->n_layers) ? pp - 1 : 1;
  return pp > 1 ? 1 + pp - *first_other : 1;
}

static int64_t
examined_stage (int64_t first_other,
                int64_t k)
{
  return k == 0 ? 0 : first_other + k - 1;
}

/* The memory of a validated setting with the model's parameters counted. */
/* The finishing figures of a stage's memory against the GPU's. */
static void
memory_against (const HrGpu      *gpu,
                HrTrainingMemory *memory)
{
  memory->capacity = gpu->memory_bytes;
  /* Paged states leave the GPU before a run fails (stage_finish). */
  memory->fits = memory->total - memory->pageable <= memory->capacity;
  memory->headroom = memory->total <= memory->capacity ? memory->capacity - memory->total : 0;
  memory->overflow = memory->fits ? 0 : memory->total - memory->pageable - memory->capacity;
  memory->paged_out = memory->fits && memory->total > memory->capacity
                      ? memory->total - memory->capacity : 0;
}

/* The limits' probes keep half of each examined stage from the setting's
 * own estimate (stage_states()): the model states when only the micro-batch
 * or the sequence changes, the activations when only the data-parallel
 * degree does. The first STAGE_CACHE stages are kept; any others are worked
 * out whole. */
#define STAGE_CACHE 8

typedef enum
{
  KEEP_NOTHING,       /* the setting itself: both halves, kept in the cache */
  KEEP_STATES,        /* another micro-batch or sequence */
  KEEP_ACTIVATIONS,   /* another data-parallel degree */
} Keep;

typedef struct
{
  ActShape              shape;   /* the setting's */
  LayerKinds            kinds;
  HrTrainingMemory      states[STAGE_CACHE];
  StageBuffers          buffers[STAGE_CACHE];
  HrTrainingActivations activations[STAGE_CACHE];
} StageCache;

/* The memory of a validated setting with the model's parameters counted:
 * of the examined stages, the one with the largest total (the first of
 * equals). With a cache, `keep` says what of the setting's stages it holds
 * or, KEEP_NOTHING, is to hold. The figures against the GPU are left out
 * (memory_against()). */
static void
stages_memory (const HrModel    *model,
               const HrTraining *training,
               const HrParams   *params,
               StageCache       *cache,
               Keep              keep,
               HrTrainingMemory *memory)
{
  ActShape own_shape, *a = &own_shape;
  LayerKinds own_kinds, *kinds = &own_kinds;
  HrTrainingMemory other;
  int64_t first_other, n = examined_stages (training, model, &first_other);

  if (cache != NULL && keep != KEEP_STATES)
    {
      a = &cache->shape;
      kinds = &cache->kinds;
    }
  if (cache == NULL || keep != KEEP_ACTIVATIONS)
    {
      act_shape (model, training, a);
      layer_kinds (model, training, a, kinds);
    }
  for (int64_t k = 0; k < n; k++)
    {
      HrTrainingMemory *at = k == 0 ? memory : &other;
      int64_t stage = examined_stage (first_other, k);
      bool cached = cache != NULL && k < STAGE_CACHE;
      StageBuffers own_buffers;
      StageBuffers *buffers = cached && keep != KEEP_ACTIVATIONS ? &cache->buffers[k]
                                                                 : &own_buffers;

      if (cached && keep == KEEP_STATES)
        *at = cache->states[k];
      else
        {
          stage_states (model, training, params, stage, at, buffers);
          if (cached && keep == KEEP_NOTHING)
            cache->states[k] = *at;
        }
      if (cached && keep == KEEP_ACTIVATIONS)
        at->activation = cache->activations[k];
      else
        {
          stage_activations (model, training, a, kinds, stage, &at->activation);
          if (cached && keep == KEEP_NOTHING)
            cache->activations[k] = at->activation;
        }
      stage_finish (model, training, a, kinds, buffers, at);
      if (k > 0 && other.total > memory->total)
        *memory = other;
    }
}

static void
memory_of (const HrModel    *model,
           const HrTraining *training,
           const HrGpu      *gpu,
           const HrParams   *params,
           HrTrainingMemory *memory)
{
  stages_memory (model, training, params, NULL, KEEP_NOTHING, memory);
  memory_against (gpu, memory);
}

/* What a training estimate checks first: the setting, then the GPU (its
 * peak too for a time); then it counts the model's parameters. */
static HrStatus
check_setting (const HrModel    *model,
               const HrTraining *training,
               const HrGpu      *gpu,
               bool              need_peak,
               HrParams         *params,
               HrError          *err)
{
  HrStatus status;

  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if ((status = check_gpu (training, gpu, need_peak, err)) != HR_OK)
    return status;
  return hr_model_count_params (model, params, err);
}

HrStatus
hr_training_memory (const HrModel    *model,
                    const HrTraining *training,
                    const HrGpu      *gpu,
                    HrTrainingMemory *memory,
                    HrError          *err)
{
  HrStatus status;
  HrParams params;

  if ((status = check_setting (model, training, gpu, false, &params, err)) != HR_OK)
    return status;
  memory_of (model, training, gpu, &params, memory);
  return HR_OK;
}

/* Time */

/* The FLOPs of a validated setting's step, the model's parameters counted. */
static HrStatus
step_flops (const HrModel    *model,
            const HrTraining *training,
            const HrParams   *params,
            HrFlops          *flops,
            HrError          *err)
{
  HrFlopsOptions options = {
    .seq_len = training->seq_len,
    .micro_batch = global_batch (training),
    .attention = training->attention,
    .recompute = training->recompute,
    .causal = training->causal,
    .finetune = &training->finetune,
  };

  return hr_flops_training_counted (model, params, &options, flops, err);
}

/* Ring all-reduce sends 2(n − 1)/n of the buffer per rank; an all-gather or a
 * reduce-scatter half of that (Patarasuk & Yuan 2009). */
static double
ring_factor (double n)
{
  return n > 1 ? 2 * (n - 1) / n : 0;
}

static double
transfer_seconds (double bytes,
                  double bandwidth)
{
  return bandwidth > 0 ? bytes / bandwidth : 0;
}

/* `memory` (or NULL): the setting's, whose rank serves where it is the first stage's. */
static void
communication (const HrModel          *model,
               const HrTraining       *t,
               const HrGpu            *gpu,
               const HrParams         *params,
               const HrTrainingMemory *memory,
               HrTrainingTime         *time)
{
  double tp = (double) t->tensor_parallel;
  double m = (double) grad_accumulation (t);
  double gpn = (double) t->gpus_per_node;
  double dp_cp = (double) (hr_training_data_parallel (t) * t->context_parallel);
  double dp_expert = dp_cp / (double) t->expert_parallel;
  double dp_bw, pp_bw;
  HrTrainingRank rank;
  StateBytes b;
  ActShape a;
  double activation;

  act_shape (model, t, &a);
  state_bytes (t, &b);
  if (memory != NULL && memory->pipeline_stage == 0)
    rank = memory->rank;
  else
    stage_rank (model, t, params, 0, &rank);
  activation = a.tokens * a.h * a.compute;

  /* TP ([MLM] §2.3): two all-reduces of the layer's b·s·h activations in the
   * forward and two in the backward (all-gather + reduce-scatter under SP,
   * the same volume), two more when the forward is recomputed in full. */
  time->tp_comm_bytes = (double) rank.layers * m * ring_factor (tp) * activation
                        * (t->recompute == HR_RECOMPUTE_FULL ? 6 : 4);
  time->tp_comm_seconds = transfer_seconds (time->tp_comm_bytes,
                                            tp <= gpn ? gpu->intra_node_bandwidth
                                                      : gpu->inter_node_bandwidth);

  /* DP ([ZeRO] §7): gradients all-reduced once per step (ZeRO-1/2: reduce-
   * scatter + all-gather, the same volume); ZeRO-3 gathers the weights again
   * in the backward: 1.5× the volume. */
  time->dp_comm_bytes = (effective_zero_stage (t) >= 3 ? 1.5 : 1.0) * b.gradients
                        * ((double) rank.params * ring_factor (dp_cp)
                           + (double) rank.expert_params * ring_factor (dp_expert));
  /* Fine-tuning reduces the trained parameters' gradients only. */
  if (!hr_finetune_is_full (&t->finetune))
    {
      HrFinetuneParams fp;

      if (hr_finetune_params (model, &t->finetune, 2, &fp, NULL) == HR_OK)
        time->dp_comm_bytes *= (double) fp.trainable / (double) params->total;
    }
  /* Megatron orders ranks tp, cp, dp, pp: the DP group stays in a node while
   * tp · cp · dp fits in one. */
  dp_bw = tp * dp_cp <= gpn ? gpu->intra_node_bandwidth : gpu->inter_node_bandwidth;
  time->dp_comm_seconds = transfer_seconds (time->dp_comm_bytes, dp_bw);

  /* PP: each micro-batch's activations go to the next stage and their
   * gradients come back, once per virtual chunk. */
  time->pp_comm_bytes = t->pipeline_parallel > 1
                        ? 2 * m * (double) t->virtual_stages * activation : 0;
  pp_bw = hr_training_gpus (t) <= t->gpus_per_node ? gpu->intra_node_bandwidth
                                                   : gpu->inter_node_bandwidth;
  time->pp_comm_seconds = transfer_seconds (time->pp_comm_bytes, pp_bw);
}

/* hr_training_time() of a validated setting on a GPU check_gpu() passed
 * with its peak, the model's parameters counted; `memory` is the setting's,
 * or NULL to estimate it where needed. */
static HrStatus
time_of (const HrModel          *model,
         const HrTraining       *training,
         const HrGpu            *gpu,
         const HrParams         *params,
         const HrTrainingMemory *memory,
         HrTrainingTime         *time,
         HrError                *err)
{
  double gpus = (double) hr_training_gpus (training);
  double m = (double) grad_accumulation (training);
  double pp = (double) training->pipeline_parallel;
  HrStatus status;
  HrFlops flops;
  HrPlanStep step;
  HrTrainingMemory own;

  if ((status = step_flops (model, training, params, &flops, err)) != HR_OK)
    return status;

  time->tokens_per_step = (double) global_batch (training) * (double) training->seq_len;
  time->model_flops_per_step = flops.model_flops;
  time->hardware_flops_per_step = flops.total;
  time->peak_flops = gpu->peak_flops[hr_training_compute_dtype (training)];
  if (training->mfu == 0)
    {
      /* One step-time model: the planner's prediction from the hardware
       * (docs/planner.md), so that a layout's step is the same number in the
       * plan and in the estimate. QLoRA's dequantisation is in its split.
       * It does not time a CPU optimizer step: ZeRO-Offload needs a measured
       * utilisation. */
      if (training->offload_optimizer)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "mfu", 0, 0,
                             "the predicted step time does not cover an optimizer step on "
                             "the CPU (ZeRO-Offload); set a measured utilisation");
      if (memory == NULL)
        {
          memory_of (model, training, gpu, params, &own);
          memory = &own;
        }
      if ((status = hr_plan_step_counted (model, training, gpu, NULL, params, memory, &step,
                                          err)) != HR_OK)
        return status;
      time->step_seconds = step.step_seconds;
      time->host_bytes = step.host.bytes;
      time->host_seconds = step.split.host_transfer;
      time->predicted = true;
    }
  else
    {
      /* A measured utilisation applies to every FLOP the GPUs execute, the
       * recomputation included, so that recomputing costs time:
       * step = (model + recompute FLOPs) / (GPUs · peak · utilisation). The
       * achieved MFU ([PaLM] App. B: model FLOPs per second over peak) is
       * then the setting × model / hardware FLOPs; the HFU is the setting. */
      time->step_seconds = time->hardware_flops_per_step
                           / (gpus * time->peak_flops * training->mfu);
      /* QLoRA: each micro-batch dequantises the rank's frozen weights in the
       * forward, again in the backward and in a recomputed forward;
       * memory-bound, at the bandwidth the planner's memory-bound kernels
       * run at (hr-rates.h), on top of the products. */
      if (gpu->memory_bandwidth > 0)
        {
          HrPlanAssumptions as;

          hr_plan_assumptions_init (&as);
          time->dequant_seconds = m * (training->recompute == HR_RECOMPUTE_FULL ? 3 : 2)
                                  * hr_finetune_dequant_bytes (model, &training->finetune,
                                                               hr_training_compute_dtype (training)
                                                               == HR_DTYPE_FP32 ? 4 : 2)
                                  / (double) (training->tensor_parallel
                                              * training->pipeline_parallel)
                                  / hr_rates_bandwidth (gpu, as.memory_efficiency);
        }
      time->step_seconds += time->dequant_seconds;
      /* Paged-out optimizer states cross the host link twice a step, on the
       * update's stream (hr-planner.c); the utilisation set does not see
       * them. Offloaded activations overlap the passes on a side stream:
       * the measured utilisation holds what of them is exposed. */
      if (training->paged_optimizer)
        {
          if (memory == NULL)
            {
              memory_of (model, training, gpu, params, &own);
              memory = &own;
            }
          if (memory->paged_out > 0 && !(gpu->host_bandwidth > 0))
            return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "host_bandwidth", 0, 0,
                                 "needed to page optimizer states to the host");
          time->host_bytes = 2 * memory->paged_out;
          if (time->host_bytes > 0)
            time->host_seconds = time->host_bytes / gpu->host_bandwidth;
          time->step_seconds += time->host_seconds;
        }
    }
  time->mfu = time->model_flops_per_step / (gpus * time->peak_flops * time->step_seconds);
  time->hfu = time->hardware_flops_per_step / (gpus * time->peak_flops * time->step_seconds);
  time->tokens_per_second = time->tokens_per_step / time->step_seconds;

  if (training->tokens > 0)
    time->steps = ceil (training->tokens / time->tokens_per_step);
  time->total_seconds = time->steps * time->step_seconds;
  time->gpu_hours = gpus * time->total_seconds / 3600;
  time->cost = time->gpu_hours * training->price_per_gpu_hour;
  /* kWh = W · s / 3.6e6, at board power for the whole run */
  time->energy_kwh = gpus * gpu->power_watts * time->total_seconds / 3.6e6;

  /* Pipeline bubble over the ideal step ([MLM] §2.2): (p − 1)/m for GPipe and
   * 1F1B, (p − 1)/(v·m) interleaved. Its share of the real step is
   * bubble / (1 + bubble); the MFU already contains it. */
  if (training->pipeline_parallel > 1)
    {
      double v = training->pipeline_schedule == HR_PIPELINE_INTERLEAVED
                 ? (double) training->virtual_stages : 1;

      time->bubble_fraction = (pp - 1) / (v * m);
      time->bubble_seconds = time->predicted
                             ? step.split.bubble
                             : time->step_seconds * time->bubble_fraction
                               / (1 + time->bubble_fraction);
    }
  communication (model, training, gpu, params, memory, time);
  return HR_OK;
}

HrStatus
hr_training_time (const HrModel    *model,
                  const HrTraining *training,
                  const HrGpu      *gpu,
                  HrTrainingTime   *time,
                  HrError          *err)
{
  HrStatus status;
  HrParams params;

  memset (time, 0, sizeof *time);
  if ((status = check_setting (model, training, gpu, true, &params, err)) != HR_OK)
    return status;
  return time_of (model, training, gpu, &params, NULL, time, err);
}

/* Utilization from a measured throughput */

HrStatus
hr_training_utilization_from_tokens_per_second (const HrModel         *model,
                                                const HrTraining      *training,
                                                const HrGpu           *gpu,
                                                double                 tokens_per_second,
                                                HrTrainingUtilization *out,
                                                HrError               *err)
{
  double gpus = (double) hr_training_gpus (training);
  double peak, tokens_per_step;
  HrStatus status;
  HrParams params;
  HrFlops flops;

  memset (out, 0, sizeof *out);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (!isfinite (tokens_per_second) || tokens_per_second <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "tokens_per_second",
                         (int64_t) (isfinite (tokens_per_second) ? tokens_per_second : 0), 0,
                         "a measured throughput");
  if ((status = check_gpu (training, gpu, true, err)) != HR_OK)
    return status;
  if ((status = hr_model_count_params (model, &params, err)) != HR_OK
      || (status = step_flops (model, training, &params, &flops, err)) != HR_OK)
    return status;

  peak = gpu->peak_flops[hr_training_compute_dtype (training)];
  tokens_per_step = (double) global_batch (training) * (double) training->seq_len;
  out->tokens_per_second = tokens_per_second;
  out->step_seconds = tokens_per_step / tokens_per_second;
  out->mfu = flops.model_flops / out->step_seconds / (gpus * peak);
  out->hfu = flops.total / out->step_seconds / (gpus * peak);
  return HR_OK;
}

HrStatus
hr_training_utilization_from_step_seconds (const HrModel         *model,
                                           const HrTraining      *training,
                                           const HrGpu           *gpu,
                                           double                 step_seconds,
                                           HrTrainingUtilization *out,
                                           HrError               *err)
{
  double tokens_per_step = (double) global_batch (training) * (double) training->seq_len;
  HrStatus status;

  memset (out, 0, sizeof *out);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (!isfinite (step_seconds) || step_seconds <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "step_seconds",
                         (int64_t) (isfinite (step_seconds) ? step_seconds : 0), 0,
                         "a measured step time");
  return hr_training_utilization_from_tokens_per_second (model, training, gpu,
                                                         tokens_per_step / step_seconds,
                                                         out, err);
}

/* Limits */

/* What every probe of a search shares: the model, its fine-tuning and the
 * GPU are checked once, the model's parameters counted once, and half of
 * each examined stage of the setting's own estimate kept (StageCache). */
typedef struct
{
  const HrModel    *model;
  const HrTraining *training;
  const HrGpu      *gpu;
  HrParams          params;
  StageCache        cache;
} Search;

/* Bytes the GPU must hold for t, the setting with another data-parallel
 * degree, or +inf when that is invalid: what hr_training_memory() gives
 * (less what is pageable), with only the checks the degree can fail. */
static double
dp_bytes (Search           *s,
          const HrTraining *t)
{
  HrTrainingMemory memory;

  if (validate_settings (t, NULL) != HR_OK || validate_layout (t, s->model, NULL) != HR_OK)
    return INFINITY;
  stages_memory (s->model, t, &s->params, &s->cache, KEEP_ACTIVATIONS, &memory);
  return memory.total - memory.pageable;
}

static bool
fits (Search           *s,
      const HrTraining *training)
{
  return dp_bytes (s, training) <= s->gpu->memory_bytes;
}

/* Bytes at n (micro-batch or sequence units), +inf when invalid; memory is
 * nondecreasing in n. `memory` (or NULL) receives the estimate. */
typedef double (*Probe) (Search *, int64_t, HrTrainingMemory *);

/* Where the bytes reach `capacity`, solved from the estimate at n as if
 * what each phase adds for its activations (and the loss's buffers) were
 * proportional to n and nothing else grew (`growing`, set by phases()):
 * the first guess of largest(). The activations scale with the tokens
 * b·s; eager attention's s² scores make the sequence's guess high, which
 * the secant then corrects.
 * Rounding, overhead and paged states are held as they are at n. */
static double
proportional_guess (const HrTrainingMemory *m,
                    int64_t                 n,
                    double                  capacity)
{
  double room = capacity - (m->total - m->pageable - m->allocated_peak);
  double peaks[3] = { m->peak_forward, m->peak_loss_backward, m->peak_layer_backward };
  double guess = INFINITY;

  for (int p = 0; p < 3; p++)
    if (m->growing[p] > 0)
      {
        double at = (double) n * (1 + (room - peaks[p]) / m->growing[p]);

        if (at < guess)
          guess = at;
      }
  return guess;
}

/* Largest n in [1, max] with probe(n) <= capacity, for probe nondecreasing;
 * 0 when none fits. `known` (or NULL) is the estimate at n = `start`, the
 * setting itself, else n = 1 is probed first. The first guess solves that
 * estimate for the capacity (proportional_guess()); the memory is affine in
 * the micro-batch and at most quadratic in the sequence, so it lands on the
 * answer or next to it, and the n after a guess that fits is probed at
 * once. Later guesses are secant steps through the last two probes. Each
 * probe only narrows the bracket [lo, hi) (lo fits or is 0, hi does not),
 * so the result is the bisection's whatever the shape; a bisection closes a
 * bracket the guesses have not closed in a few steps. */
static int64_t
largest (Probe                   probe,
         Search                 *s,
         int64_t                 max,
         int64_t                 start,
         const HrTrainingMemory *known)
{
  double capacity = s->gpu->memory_bytes;
  HrTrainingMemory at_one;
  int64_t lo = 0, hi = max + 1;
  int64_t n0, n1;
  double m0, m1, guess;

  if (max < 1)
    return 0;
  if (known == NULL || start < 1 || start > max)
    {
      start = 1;
      m0 = probe (s, 1, &at_one);
      known = &at_one;
      if (!isfinite (m0))
        return 0;
    }
  else
    m0 = known->total - known->pageable;
  if (m0 <= capacity)
    lo = start;
  else
    hi = start;
  if (hi - lo <= 1)
    return lo;
  guess = proportional_guess (known, start, capacity);
  n0 = n1 = start;
  m1 = m0;

  for (int step = 0; step < 6 && hi - lo > 1; step++)
    {
      int64_t g;
      double mg;

      if (step > 0)
        {
          double slope = (m1 - m0) / (double) (n1 - n0);

          guess = slope > 0 && isfinite (m0) && isfinite (m1)
                  ? (double) n1 + (capacity - m1) / slope : (double) hi;
        }
      if (!(guess < (double) hi))
        guess = (double) (hi - 1);
      g = guess > (double) lo ? (int64_t) floor (guess) : lo + 1;
      if (g <= lo)
        g = lo + 1;
      if (g >= hi)
        g = hi - 1;
      mg = probe (s, g, NULL);
      if (mg <= capacity)
        {
          lo = g;
          /* The answer is often the guess itself: try the next one at once. */
          if (g + 1 < hi)
            {
              double next = probe (s, g + 1, NULL);

              if (next <= capacity)
                lo = g + 1;
              else
                hi = g + 1;
              n0 = g;
              m0 = mg;
              n1 = g + 1;
              m1 = next;
              continue;
            }
        }
      else
        hi = g;
      if (n1 != g)
        {
          n0 = n1;
          m0 = m1;
        }
      n1 = g;
      m1 = mg;
    }

  while (hi - lo > 1)
    {
      int64_t mid = lo + (hi - lo) / 2;

      if (probe (s, mid, NULL) <= capacity)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* Bytes for the setting changed by a probe of the micro-batch or the
 * sequence, which no check can fail (the setting itself passed them all):
 * the model states are the setting's. */
static double
states_kept_bytes (Search           *s,
                   const HrTraining *t,
                   HrTrainingMemory *memory)
{
  HrTrainingMemory scratch;

  if (memory == NULL)
    memory = &scratch;
  stages_memory (s->model, t, &s->params, &s->cache, KEEP_STATES, memory);
  return memory->total - memory->pageable;
}

/* Keeps the gradient-accumulation steps: global = micro × dp × steps, still
 * a multiple of micro × dp; +inf where that overflows. */
static double
micro_batch_bytes (Search           *s,
                   int64_t           micro_batch,
                   HrTrainingMemory *memory)
{
  const HrTraining *training = s->training;
  HrTraining t = *training;

  t.micro_batch = micro_batch;
  if (training->global_batch > 0
      && (__builtin_mul_overflow (micro_batch, hr_training_data_parallel (training),
                                  &t.global_batch)
          || __builtin_mul_overflow (t.global_batch, grad_accumulation (training),
                                     &t.global_batch)))
    return INFINITY;
  return states_kept_bytes (s, &t, memory);
}

/* The sequence in units of what CP and SP must divide. */
static int64_t
seq_unit (const HrTraining *training)
{
  return training->context_parallel
         * (training->sequence_parallel ? training->tensor_parallel : 1);
}

/* In units of seq_unit(): the sequence stays divisible. */
static double
seq_bytes (Search           *s,
           int64_t           units,
           HrTrainingMemory *memory)
{
  const HrTraining *training = s->training;
  HrTraining t = *training;

  t.seq_len = units * seq_unit (training);
  return states_kept_bytes (s, &t, memory);
}

/* The same layout (tp, pp, cp, ep, schedule) with data-parallel degree dp,
 * whole nodes once it outgrows one. */
static bool
with_data_parallel (const HrTraining *training,
                    int64_t           dp,
                    HrTraining       *t)
{
  int64_t gpus = training->tensor_parallel * training->pipeline_parallel
                 * training->context_parallel * dp;

  *t = *training;
  if (gpus <= training->gpus_per_node)
    {
      t->nodes = 1;
      t->gpus_per_node = gpus;
    }
  else if (gpus % training->gpus_per_node == 0)
    t->nodes = gpus / training->gpus_per_node;
  else
    return false;
  return true;
}

/* The data-parallel degrees up to LIMIT_MAX_DATA_PARALLEL the layout can
 * take, ascending: whole nodes once it outgrows one, and with a global batch
 * set, the divisors of global ÷ micro-batch (hr_training_validate()). */
typedef struct
{
  int64_t *divisors;            /* global batch set: the degrees; else NULL */
  int64_t  n;
  int64_t  in_node;             /* no global batch: degrees 1..in_node fit one node */
  int64_t  step;                /* then multiples of step from first_j on */
  int64_t  first_j;
} DpCandidates;

static int64_t
gcd64 (int64_t a,
       int64_t b)
{
  while (b != 0)
    {
      int64_t r = a % b;

      a = b;
      b = r;
    }
  return a;
}

static int
compare_int64 (const void *a,
               const void *b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

  return (x > y) - (x < y);
}

static void
dp_candidates_init (DpCandidates     *c,
                    const HrTraining *training)
{
  int64_t unit = training->tensor_parallel * training->pipeline_parallel
                 * training->context_parallel;
  int64_t gpn = training->gpus_per_node;
  HrTraining t;

  memset (c, 0, sizeof *c);
  c->in_node = unit <= gpn ? gpn / unit : 0;
  c->step = gpn / gcd64 (unit, gpn);
  c->first_j = c->in_node / c->step + 1;
  if (training->global_batch <= 0)
    {
      c->n = c->in_node + (LIMIT_MAX_DATA_PARALLEL / c->step - c->first_j + 1);
      return;
    }
  {
    int64_t q = training->global_batch / training->micro_batch;
    size_t size = 64;

    c->divisors = malloc (size * sizeof *c->divisors);
    for (int64_t i = 1; c->divisors != NULL && i <= LIMIT_MAX_DATA_PARALLEL && i <= q / i; i++)
      {
        int64_t pair[2] = { i, q / i };

        if (q % i != 0)
          continue;
        for (int k = 0; k < (pair[0] == pair[1] ? 1 : 2); k++)
          {
            /* The interleaved schedule's micro-batches per step, q ÷ dp
             * (hr_training_validate()). */
            if (pair[k] > LIMIT_MAX_DATA_PARALLEL || !with_data_parallel (training, pair[k], &t)
                || (training->pipeline_schedule == HR_PIPELINE_INTERLEAVED
                    && !hr_training_interleaved_micro_batches (training, q / pair[k])))
              continue;
            if ((size_t) c->n == size)
              {
                int64_t *grown = realloc (c->divisors, 2 * size * sizeof *grown);

                if (grown == NULL)
                  break;
                c->divisors = grown;
                size *= 2;
              }
            c->divisors[c->n++] = pair[k];
          }
      }
    if (c->divisors == NULL)
      c->n = 0;
    else
      qsort (c->divisors, (size_t) c->n, sizeof *c->divisors, compare_int64);
  }
}

static int64_t
dp_candidate (const DpCandidates *c,
              int64_t             index)
{
  if (c->divisors != NULL)
    return c->divisors[index];
  if (index < c->in_node)
    return index + 1;
  return (c->first_j + index - c->in_node) * c->step;
}

/* The index of degree `dp` among the candidates, −1 when it is not one. */
static int64_t
dp_index (const DpCandidates *c,
          int64_t             dp)
{
  int64_t lo = 0, hi = c->n;

  while (hi > lo)
    {
      int64_t mid = lo + (hi - lo) / 2;

      if (dp_candidate (c, mid) < dp)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < c->n && dp_candidate (c, lo) == dp ? lo : -1;
}

/* Starts a search of a validated setting on a checked GPU, the model's
 * parameters counted: the setting's own memory, kept in the cache, goes to
 * `memory` (hr_training_memory()'s). */
static void
search_init (Search           *s,
             const HrModel    *model,
             const HrTraining *training,
             const HrGpu      *gpu,
             HrTrainingMemory *memory)
{
  s->model = model;
  s->training = training;
  s->gpu = gpu;
  stages_memory (model, training, &s->params, &s->cache, KEEP_NOTHING, memory);
  memory_against (gpu, memory);
}

/* The limits of the search's setting, whose memory is `at`: a point of all
 * three searches. */
static void
limits_of (Search                 *s,
           const HrTrainingMemory *at,
           HrTrainingLimits       *limits)
{
  const HrModel *model = s->model;
  const HrTraining *training = s->training;
  const HrGpu *gpu = s->gpu;
  int64_t max_units, unit;

  limits->max_micro_batch = largest (micro_batch_bytes, s, LIMIT_MAX_MICRO_BATCH,
                                     training->micro_batch, at);

  /* A learned position table bounds the sequence too. */
  max_units = LIMIT_MAX_SEQ_LEN;
  if (model->positions == HR_POSITIONS_LEARNED && model->max_positions < max_units)
    max_units = model->max_positions;
  unit = seq_unit (training);
  limits->max_seq_len = largest (seq_bytes, s, max_units / unit,
                                 training->seq_len % unit == 0 ? training->seq_len / unit : 0,
                                 at) * unit;

  {
    DpCandidates c;
    HrTraining t;
    /* The bracket over the candidates' indices: lo does not fit (or is −1),
     * hi fits (or is c.n: none known to). */
    int64_t lo = -1, hi, dp, at_index;
    /* Two points of M(dp) for the guess, as (dp, bytes). */
    double d[2] = { 0, 0 }, m[2] = { 0, 0 };
    int n_points = 0;

    /* Memory does not grow with the data-parallel degree (more sharding,
     * fewer micro-batches in flight), so the fewest GPUs is a bisection over
     * the degrees the layout can take. The setting's own degree starts the
     * bracket; the largest is probed only when that does not fit. */
    dp_candidates_init (&c, training);
    hi = c.n;
    at_index = dp_index (&c, hr_training_data_parallel (training));
    if (at_index >= 0)
      {
        d[n_points] = (double) hr_training_data_parallel (training);
        m[n_points++] = at->total - at->pageable;
        if (at->total - at->pageable <= gpu->memory_bytes)
          hi = at_index;
        else
          lo = at_index;
      }
    if (hi == c.n && lo < c.n - 1 && c.n > 0)
      {
        dp = dp_candidate (&c, c.n - 1);
        if (with_data_parallel (training, dp, &t)
            && (m[n_points] = dp_bytes (s, &t)) <= gpu->memory_bytes)
          {
            d[n_points++] = (double) dp;
            hi = c.n - 1;
          }
      }
    if (hi < c.n)
      {
        /* The sharded states fall as 1/dp: M(dp) ≈ A + B/dp through two
         * points guesses the edge; it and the degree before it are probed,
         * and the bisection closes what is left. The first degree is the
         * second point where the setting gave one. */
        if (n_points == 1 && hi - lo > 2 && lo < 0
            && with_data_parallel (training, dp_candidate (&c, 0), &t))
          {
            d[1] = (double) dp_candidate (&c, 0);
            m[1] = dp_bytes (s, &t);
            if (m[1] <= gpu->memory_bytes)
              hi = 0;
            else
              {
                lo = 0;
                n_points = 2;
              }
          }
        if (n_points == 2 && hi - lo > 2 && isfinite (m[0]) && isfinite (m[1]) && d[0] != d[1])
          {
            double b = (m[1] - m[0]) / (1.0 / d[1] - 1.0 / d[0]);
            double a = m[0] - b / d[0];
            double guess = gpu->memory_bytes > a && b > 0
                           ? b / (gpu->memory_bytes - a) : (double) dp_candidate (&c, hi);
            int64_t at_lo = lo, at_hi = hi;

            /* The first candidate at or above the guess. */
            while (at_hi - at_lo > 1)
              {
                int64_t mid = at_lo + (at_hi - at_lo) / 2;

                if ((double) dp_candidate (&c, mid) >= guess)
                  at_hi = mid;
                else
                  at_lo = mid;
              }
            if (at_hi < hi)
              {
                if (with_data_parallel (training, dp_candidate (&c, at_hi), &t) && fits (s, &t))
                  {
                    hi = at_hi;
                    if (at_hi - 1 > lo
                        && !(with_data_parallel (training, dp_candidate (&c, at_hi - 1), &t)
                             && fits (s, &t)))
                      lo = at_hi - 1;
                  }
                else
                  lo = at_hi;
              }
          }
        while (hi - lo > 1)
          {
            int64_t mid = lo + (hi - lo) / 2;

            dp = dp_candidate (&c, mid);
            if (with_data_parallel (training, dp, &t) && fits (s, &t))
              hi = mid;
            else
              lo = mid;
          }
        dp = dp_candidate (&c, hi);
        with_data_parallel (training, dp, &t);
        limits->min_gpus = hr_training_gpus (&t);
        limits->min_gpus_tensor_parallel = t.tensor_parallel;
        limits->min_gpus_pipeline_parallel = t.pipeline_parallel;
        limits->min_gpus_data_parallel = dp;
      }
    free (c.divisors);
  }
}

HrStatus
hr_training_limits (const HrModel    *model,
                    const HrTraining *training,
                    const HrGpu      *gpu,
                    HrTrainingLimits *limits,
                    HrError          *err)
{
  HrStatus status;
  Search s;
  HrTrainingMemory at;

  memset (limits, 0, sizeof *limits);
  if ((status = check_setting (model, training, gpu, false, &s.params, err)) != HR_OK)
    return status;
  search_init (&s, model, training, gpu, &at);
  limits_of (&s, &at, limits);
  return HR_OK;
}

HrStatus
hr_training_estimate (const HrModel    *model,
                      const HrTraining *training,
                      const HrGpu      *gpu,
                      HrTrainingMemory *memory,
                      HrTrainingTime   *time,
                      HrTrainingLimits *limits,
                      HrError          *err)
{
  HrStatus status;
  Search s;

  memset (time, 0, sizeof *time);
  if (limits != NULL)
    memset (limits, 0, sizeof *limits);
  /* hr_training_memory()'s checks, then what hr_training_time() adds. */
  if ((status = check_setting (model, training, gpu, false, &s.params, err)) != HR_OK)
    return status;
  search_init (&s, model, training, gpu, memory);
  if ((status = check_gpu (training, gpu, true, err)) != HR_OK
      || (status = time_of (model, training, gpu, &s.params, memory, time, err)) != HR_OK)
    return status;
  if (limits != NULL)
    limits_of (&s, memory, limits);
  return HR_OK;
}
