/* hr-training.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A training setting: its names, defaults and checks. The estimate is in
 * hr-training-*.c; docs/training.md explains every formula and its
 * assumptions.
 *
 * Sources, cited where used:
 * [MLM]   Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
 *         on GPU Clusters Using Megatron-LM", arXiv 2104.04473.
 */
#include "hr-training.h"
#include "hr-internal.h"

#include <math.h>
#include <string.h>

/* Names */

static const char * const precision_names[] = {
  [HR_PRECISION_FP32] = "fp32",
  [HR_PRECISION_BF16_MIXED] = "bf16-mixed",
  [HR_PRECISION_FP16_MIXED] = "fp16-mixed",
  [HR_PRECISION_BF16] = "bf16",
  [HR_PRECISION_FP8_MIXED] = "fp8-mixed",
};

static const char * const fp8_recipe_names[] = {
  [HR_FP8_RECIPE_TRANSFORMER_ENGINE] = "transformer-engine",
  [HR_FP8_RECIPE_TORCHAO] = "torchao",
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
  [HR_PIPELINE_ZB_H1] = "zb-h1",
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

static const char * const flash_kernel_names[] = {
  [HR_FLASH_KERNEL_FA2] = "fa2",
  [HR_FLASH_KERNEL_TRITON] = "triton",
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
  [HR_NORM_KERNEL_LOW_PRECISION] = "low-precision",
};

static const char * const rope_kernel_names[] = {
  [HR_ROPE_KERNEL_FUSED] = "fused",
  [HR_ROPE_KERNEL_ROTATE_HALF] = "rotate-half",
  [HR_ROPE_KERNEL_COMPLEX] = "complex",
  [HR_ROPE_KERNEL_INTERLEAVED] = "interleaved",
};

static const char * const projections_names[] = {
  [HR_PROJECTIONS_FUSED] = "fused",
  [HR_PROJECTIONS_SPLIT] = "split",
  [HR_PROJECTIONS_SEPARATE] = "separate",
};

static const char * const glu_kernel_names[] = {
  [HR_GLU_KERNEL_FUSED] = "fused",
  [HR_GLU_KERNEL_EAGER] = "eager",
};

static const char * const loss_names[] = {
  [HR_LOSS_FULL] = "full",
  [HR_LOSS_CHUNKED] = "chunked",
  [HR_LOSS_FUSED] = "fused",
  [HR_LOSS_KERNEL] = "kernel",
  [HR_LOSS_VOCAB_PARALLEL] = "vocab-parallel",
  [HR_LOSS_TE] = "te",
  [HR_LOSS_CHUNKED_HEAD] = "chunked-head",
};

const char *
hr_name_of (const char * const *names,
            size_t              n,
            int                 value)
{
  if (value < 0 || (size_t) value >= n)
    return "unknown";
  return names[value];
}

bool
hr_name_index (const char * const *names,
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

DEFINE_NAMES (hr_precision, HrPrecision, precision_names)
DEFINE_NAMES (hr_optimizer, HrOptimizer, optimizer_names)
DEFINE_NAMES (hr_pipeline_schedule, HrPipelineSchedule, schedule_names)
DEFINE_NAMES (hr_fsdp, HrFsdp, fsdp_names)
DEFINE_NAMES (hr_training_attention, HrAttentionImpl, attention_names)
DEFINE_NAMES (hr_flash_kernel, HrFlashKernel, flash_kernel_names)
DEFINE_NAMES (hr_training_recompute, HrRecompute, recompute_names)
DEFINE_NAMES (hr_fp8_recipe, HrFp8Recipe, fp8_recipe_names)
DEFINE_NAMES (hr_norm_kernel, HrNormKernel, norm_kernel_names)
DEFINE_NAMES (hr_rope_kernel, HrRopeKernel, rope_kernel_names)
DEFINE_NAMES (hr_projections, HrProjections, projections_names)
DEFINE_NAMES (hr_glu_kernel, HrGluKernel, glu_kernel_names)
DEFINE_NAMES (hr_loss, HrLoss, loss_names)

static const char * const recompute_module_names[] = {
  "core_attn", "layernorm", "moe_act", "mlp", "moe", "shared_experts", "mla_up_proj",
};

bool
hr_name_list_bits (const char         *text,
                   const char * const *names,
                   size_t              n,
                   unsigned           *bits)
{
  unsigned set = 0;
  const char *p = text;

  if (text == NULL)
    return false;
  while (*p != '\0')
    {
      size_t len = strcspn (p, ",");
      const char *next = p + len;
      size_t i;

      /* "q, v" as well as "q,v" */
      while (len > 0 && *p == ' ')
        p++, len--;
      while (len > 0 && p[len - 1] == ' ')
        len--;
      for (i = 0; i < n; i++)
        if (strlen (names[i]) == len && strncmp (names[i], p, len) == 0)
          break;
      if (i == n)
        return false;
      set |= 1u << i;
      p = next;
      if (*p == ',' && *++p == '\0')
        return false;
    }
  *bits = set;
  return true;
}

bool
hr_recompute_modules_from_string (const char *text,
                                  unsigned   *modules)
{
  return hr_name_list_bits (text, recompute_module_names, N_ELEMENTS (recompute_module_names),
                            modules);
}

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
  training->expert_tensor_parallel = 0;
  training->zero_stage = 0;
  training->fsdp = HR_FSDP_NONE;
  training->micro_batch = 1;
  training->global_batch = 0;
  training->seq_len = 4096;
  training->tokens = 0;
  training->precision = HR_PRECISION_BF16_MIXED;
  training->fp8_recipe = HR_FP8_RECIPE_TRANSFORMER_ENGINE;
  training->fp8_params = false;
  training->optimizer = HR_OPTIMIZER_ADAMW;
  training->attention = HR_ATTENTION_FLASH;
  training->flash_kernel = HR_FLASH_KERNEL_FA2;
  training->recompute = HR_RECOMPUTE_NONE;
  /* Megatron-Core's default recompute_modules. */
  training->recompute_modules = HR_RECOMPUTE_CORE_ATTN;
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
  training->sharding_16bit_params = false;
  training->fp32_accumulation_buffer = true;
  /* Today's frameworks overlap by default (docs/planner.md, "Overlap"). */
  training->overlap = true;
  training->no_sync = false;
  hr_finetune_init (&training->finetune);
  training->norm_kernel = HR_NORM_KERNEL_FUSED;
  training->rope_kernel = HR_ROPE_KERNEL_FUSED;
  training->glu_kernel = HR_GLU_KERNEL_FUSED;
  training->fused_bias_grad = true;
  training->compile = false;
  training->compile_loss = true;
  training->loss = HR_LOSS_FULL;
  training->expand_kv = false;
  training->projections = HR_PROJECTIONS_FUSED;
  training->model_upcasts_logits = false;
  /* CEWithChunkedOutputLoss(num_output_chunks=8), pytorch/torchtune
   * torchtune/modules/loss/ce_chunked_output_loss.py */
  training->loss_chunks = 8;
  training->loss_parallel = false;
  training->dtensor_tp = false;
  training->async_tp = false;
  training->fsdp2 = false;
  training->fsdp_embedding_units = false;
  training->megatron_fsdp = false;
  training->optimizer_loop = false;
  training->torch_pipelining = false;
  training->torch_context_parallel = false;
  training->recompute_layers = 0;
  training->offload_activations = false;
  training->offload_layers = 0;
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
  return hr_training_dp (training);
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

HrStatus
hr_training_validate_settings (const HrTraining *t,
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
  if ((unsigned) t->flash_kernel >= N_ELEMENTS (flash_kernel_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "flash_kernel", t->flash_kernel, 0, NULL);
  if ((unsigned) t->recompute >= N_ELEMENTS (recompute_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute", t->recompute, 0, NULL);
  if ((t->recompute_modules & ~HR_RECOMPUTE_MODULES_MASK) != 0)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "recompute_modules", 0, 0,
                         "an empty item or a name other than core_attn, layernorm, moe_act, mlp, moe, "
                         "shared_experts and mla_up_proj");
  if ((unsigned) t->fp8_recipe >= N_ELEMENTS (fp8_recipe_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "fp8_recipe", t->fp8_recipe, 0, NULL);
  if (hr_training_torchao_fp8 (t) && t->fp8_params)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "fp8_params", 1, 0,
                         "not with torchao’s float8, whose fp8 all-gather is not modelled "
                         "(Transformer Engine only)");
  if ((unsigned) t->norm_kernel >= N_ELEMENTS (norm_kernel_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "norm_kernel", t->norm_kernel, 0, NULL);
  if ((unsigned) t->rope_kernel >= N_ELEMENTS (rope_kernel_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "rope_kernel", t->rope_kernel, 0, NULL);
  if ((unsigned) t->projections >= N_ELEMENTS (projections_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "projections", t->projections, 0, NULL);
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
  if (t->offload_layers < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "offload_layers", t->offload_layers, 0,
                         "0 (all but the last) or a count of layers per stage");
  if (t->recompute_layers < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute_layers", t->recompute_layers, 0,
                         "0 (every layer) or a count of layers per stage");
  if (t->optimizer_in_backward && hr_training_grad_accumulation (t) > 1)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "optimizer_in_backward", 1, 0,
                         "the step in the backward needs one micro-batch per step");
  /* bitsandbytes ships paged AdamW, AdamW8bit, Lion and Lion8bit
   * (bitsandbytes/optim/adamw.py PagedAdamW*, lion.py PagedLion*); its
   * states are on the GPU, which ZeRO-Offload moves to the CPU instead. */
  if (t->paged_optimizer && t->optimizer != HR_OPTIMIZER_ADAMW
      && t->optimizer != HR_OPTIMIZER_ADAMW_8BIT && t->optimizer != HR_OPTIMIZER_LION)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "paged_optimizer", 1, 0,
                         "bitsandbytes pages AdamW, 8-bit AdamW and Lion only");
  if (t->paged_optimizer && hr_training_cpu_optimizer (t))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "paged_optimizer", 1, 0,
                         "choose either a paged or an offloaded optimizer");
  /* FSDP and ZeRO offload the shards of sharded parameters. */
  if (t->offload_params && hr_training_effective_zero_stage (t) < 3)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "offload_params", 1, 0,
                         "offloaded parameters are sharded ones: set ZeRO-3 or FSDP full or "
                         "hybrid shard");
  /* Under pipeline parallelism FSDP keeps the stage gathered through the
   * step (hr_training_fsdp_pipeline), and ZeRO-3 does not pipeline. */
  if (t->offload_params && t->pipeline_parallel > 1)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "offload_params", 1, 0,
                         "offloaded parameters under pipeline parallelism are not modelled");
  /* FSDP1 with use_orig_params: a wrapped layer's frozen and trained
   * weights share one FlatParameter (hr-finetune.h). */
  if (t->finetune.frozen_gradients && t->finetune.method != HR_FINETUNE_LORA
      && t->finetune.method != HR_FINETUNE_DORA)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "frozen_gradients", 1, 0,
                         "frozen weights share a flat parameter with trained ones under LoRA "
                         "and DoRA only (FSDP does not flatten quantised weights)");
  if (t->finetune.frozen_gradients && t->fsdp == HR_FSDP_NONE)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "frozen_gradients", 1, 0,
                         "frozen weights get gradients through FSDP's flat parameters: set FSDP");
  /* torchtune 0.1's QLoRA recipe held every weight whole on its one GPU
   * (hr-finetune-load.c). */
  if (hr_finetune_whole_nf4_load (&t->finetune)
      && (t->tensor_parallel > 1 || t->pipeline_parallel > 1 || t->context_parallel > 1
          || t->expert_parallel > 1 || hr_training_effective_zero_stage (t) >= 3))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "quant_load_whole", 1, 0,
                         "the whole-tensor NF4 load is modelled with every weight on each GPU, "
                         "as torchtune 0.1's single-device recipe ran it: no tensor, pipeline, "
                         "context or expert parallelism, no ZeRO-3 or FSDP");
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
  /* As the serving efficiencies, at least 0.1 %: below it a step would take
   * longer than any run, and the time can overflow. */
  if (t->mfu > 0 && t->mfu < 1e-3)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "mfu", 0, 0,
                         "a measured utilisation under 0.1 % (0 predicts the time from the "
                         "hardware)");
  /* Async TP is torch.compile's micro-pipeline pass over sequence-parallel
   * collectives (torchtitan/distributed/tensor_parallel.py,
   * maybe_enable_async_tp: it refuses without compile). */
  if (t->async_tp && (t->tensor_parallel < 2 || !t->sequence_parallel || !t->compile))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "async_tp", 1, 0,
                         "needs tensor parallel over 2 or more GPUs with sequence "
                         "parallel and torch.compile");
  if (t->optimizer_loop && t->optimizer_foreach)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "optimizer_loop", 1, 0,
                         "not with the foreach step: they are two implementations of the update");
  if (t->megatron_fsdp && t->fsdp2)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "megatron_fsdp", 1, 0,
                         "not with FSDP2: they are two implementations of FSDP");
  if (t->fp32_residual && !hr_training_is_mixed (t))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "fp32_residual", 1, 0,
                         "autocast applies to the mixed-precision recipes only");
  return HR_OK;
}

HrStatus
hr_training_validate_layout (const HrTraining *t,
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
  /* torchtune's TiedLinear is no module: FSDP cannot wrap a tied head apart. */
  if (t->fsdp_embedding_units && model->tied_embeddings)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "fsdp_embedding_units", 1, 0,
                         "the model ties its head to the embedding: a tied head is no module "
                         "FSDP can wrap apart");

  /* Heads: every TP rank holds n_heads / tp query heads. KV heads are split
   * when tp divides them and replicated (tp / kv copies of each) when kv
   * divides tp, as Megatron-Core does for GQA. */
  if ((status = check_divides (tp, model->n_heads, "tensor_parallel",
                               "num_attention_heads", err)) != HR_OK)
    return status;
  if (hr_training_kv_heads (model) <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "num_key_value_heads",
                         hr_training_kv_heads (model), 0, NULL);
  if (hr_training_kv_heads (model) % tp != 0 && tp % hr_training_kv_heads (model) != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "tensor_parallel", tp,
                         hr_training_kv_heads (model),
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
   * not hold the same layers (hr_training_stage_chunk). */
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
  /* torch.distributed.pipelining's ZB1P is ScheduleInterleavedZeroBubble,
   * several stages per rank; ZB-H1 with one is the paper's Megatron fork. */
  if (t->pipeline_schedule == HR_PIPELINE_ZB_H1 && t->torch_pipelining && pp > 1)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "pipeline_schedule", pp, 0,
                         "PyTorch pipelining has no zero-bubble schedule with one stage per "
                         "rank (its ScheduleInterleavedZeroBubble needs virtual stages)");

  /* Experts: TP inside each expert divides tp; the expert-parallel group
   * is carved out of dp · cp, or, with whole experts on fewer TP ranks,
   * out of tp · dp · cp / etp (Megatron-Core, parallel_state.py) */
  if (t->expert_tensor_parallel < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "expert_tensor_parallel",
                         t->expert_tensor_parallel, 0, "0 (as tensor parallel) or a divisor of it");
  if (t->expert_tensor_parallel > 0
      && (status = check_divides (t->expert_tensor_parallel, t->tensor_parallel,
                                  "expert_tensor_parallel", "tensor_parallel", err)) != HR_OK)
    return status;
  if (t->expert_tensor_parallel > 0 && t->expert_tensor_parallel < t->tensor_parallel
      && !t->sequence_parallel)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "expert_tensor_parallel",
                         t->expert_tensor_parallel, 0,
                         "experts on fewer TP ranks need sequence parallelism, as Megatron-Core "
                         "requires for MoE under TP");
  if (t->expert_parallel > 1)
    {
      if (model->n_experts <= 0)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "expert_parallel", t->expert_parallel, 0,
                             "the model has no routed experts");
      if ((status = check_divides (t->expert_parallel, model->n_experts, "expert_parallel",
                                   "n_routed_experts", err)) != HR_OK)
        return status;
      if (hr_training_expert_tp (t) == t->tensor_parallel)
        status = check_divides (t->expert_parallel, dp * cp, "expert_parallel",
                                "data-parallel × context-parallel ranks", err);
      else
        status = check_divides (t->expert_parallel, hr_training_expert_ranks (t),
                                "expert_parallel",
                                "tensor × data × context-parallel ranks ÷ expert tensor parallel",
                                err);
      if (status != HR_OK)
        return status;
    }

  /* Sequence: CP splits it, SP splits each CP chunk over the TP group */
  if ((status = check_divides (cp, t->seq_len, "context_parallel", "seq_len", err)) != HR_OK)
    return status;
  if (t->sequence_parallel && (t->seq_len / cp) % tp != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "sequence_parallel", tp, t->seq_len / cp,
                         "tokens per context-parallel rank (sequence parallel splits them over "
                         "tensor_parallel)");

  /* torchtitan's ChunkedLossWrapper splits a rank's tokens into equal chunks
   * ("sequence length must be divisible by num_chunks") */
  if (t->loss == HR_LOSS_CHUNKED_HEAD
      && (status = check_divides (t->loss_chunks, t->micro_batch * (t->seq_len / cp), "loss_chunks",
                                  "tokens of a micro-batch on a context-parallel rank", err))
         != HR_OK)
    return status;

  /* Batch: global = micro × dp × accumulation steps */
  if (t->global_batch > 0
      && (status = check_divides (t->micro_batch * dp, t->global_batch, "global_batch",
                                  "(micro_batch × data-parallel must divide the global batch)",
                                  err)) != HR_OK)
    return status;
  m = hr_training_grad_accumulation (t);
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

HrStatus
hr_training_validate (const HrTraining *training,
                      const HrModel    *model,
                      HrError          *err)
{
  HrStatus status;

  if ((status = hr_model_validate (model, err)) != HR_OK)
    return status;
  if ((status = hr_training_validate_settings (training, err)) != HR_OK)
    return status;
  if ((status = hr_finetune_validate (&training->finetune, model, err)) != HR_OK)
    return status;
  return hr_training_validate_layout (training, model, err);
}
