/* headroom-framework.c: the layouts each framework can run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-framework.h"
#include "headroom-project.h"

HrPlanSharding
headroom_framework_sharding (const char *framework)
{
  /* DeepSpeed's ZeRO stages, Megatron's distributed optimizer (ZeRO 1),
   * PyTorch FSDP's modes (torchtitan and torchtune shard with FSDP2, which
   * has no ZeRO 1 or 2); Hugging Face's Trainer and no framework, all. */
  if (g_strcmp0 (framework, "deepspeed") == 0)
    return HR_PLAN_SHARDING_ZERO;
  if (g_strcmp0 (framework, "megatron") == 0)
    return HR_PLAN_SHARDING_ZERO1;
  if (g_strcmp0 (framework, "fsdp") == 0 || g_strcmp0 (framework, "torchtitan") == 0)
    return HR_PLAN_SHARDING_FSDP;
  /* torchtune's distributed recipes always shard: no DDP. */
  if (g_strcmp0 (framework, "torchtune") == 0)
    return HR_PLAN_SHARDING_FSDP_SHARDED;
  return HR_PLAN_SHARDING_ANY;
}

typedef enum
{
  DIM_TENSOR,
  DIM_PIPELINE,
  DIM_VIRTUAL,
  DIM_CONTEXT,
  DIM_EXPERT,
  DIM_ZERO,
  DIM_FSDP,
  DIM_SCHEDULE,
} Dim;

static const char * const dim_keys[] = {
  [DIM_TENSOR] = "training.tensor_parallel",
  [DIM_PIPELINE] = "training.pipeline_parallel",
  [DIM_VIRTUAL] = "training.virtual_stages",
  [DIM_CONTEXT] = "training.context_parallel",
  [DIM_EXPERT] = "training.expert_parallel",
  [DIM_ZERO] = "training.zero_stage",
  [DIM_FSDP] = "training.fsdp",
  [DIM_SCHEDULE] = "training.pipeline_schedule",
};

typedef enum
{
  WHEN_ALWAYS,
  WHEN_PIPELINE,  /* with more than one pipeline stage */
  WHEN_ADAPTERS,  /* LoRA, QLoRA, DoRA */
  WHEN_DATA_PARALLEL, /* with more than one data-parallel rank */
} When;

/* The values of a dimension the framework runs, least to most (HrFsdp and
 * HrPipelineSchedule by their enum order: none and 1F1B first). */
static const struct
{
  const char *framework;
  Dim dim;
  int64_t least;
  int64_t most;
  When when;
  const char *why;
} rules[] = {
  /* DeepSpeed's PipelineEngine runs TrainSchedule, synchronous 1F1B over one
   * chunk of layers per stage (runtime/pipe/schedule.py), and asserts
   * zero_optimization_stage() < 2: "ZeRO-2 and ZeRO-3 are incompatible with
   * pipeline parallelism" (runtime/pipe/engine.py; both still so at
   * deepspeedai/DeepSpeed edaa722, August 2026). */
  { "deepspeed", DIM_VIRTUAL, 0, 1, WHEN_ALWAYS,
    N_("DeepSpeed’s pipeline engine has no interleaved schedule: one stage per rank") },
  { "deepspeed", DIM_SCHEDULE, 0, HR_PIPELINE_1F1B, WHEN_PIPELINE,
    N_("DeepSpeed’s pipeline engine runs 1F1B") },
  { "deepspeed", DIM_ZERO, 0, 1, WHEN_PIPELINE,
    N_("DeepSpeed runs ZeRO 2 and 3 only without pipeline parallelism") },
  /* DeepSpeed splits long sequences with Ulysses (all-to-all over the
   * heads), not with a ring over key/value blocks. */
  { "deepspeed", DIM_CONTEXT, 0, 1, WHEN_ALWAYS,
    N_("DeepSpeed has no ring-attention context parallelism (its Ulysses sequence "
       "parallelism is not modelled)") },
  { "deepspeed", DIM_FSDP, 0, HR_FSDP_NONE, WHEN_ALWAYS,
    N_("DeepSpeed shards with ZeRO stages, not FSDP") },
  /* torchtune's distributed recipes (at bd2a0fc7, April 2026) mesh data,
   * tensor and context parallel ranks, no pipeline or experts; lora_finetune_distributed.py asserts
   * tensor_parallel_dim 1 ("Tensor parallelism is not supported in this
   * recipe"). Both it and torchtitan shard with FSDP2's fully_shard. */
  { "torchtune", DIM_PIPELINE, 0, 1, WHEN_ALWAYS,
    N_("torchtune’s recipes have no pipeline parallelism") },
  { "torchtune", DIM_EXPERT, 0, 1, WHEN_ALWAYS,
    N_("torchtune’s recipes have no expert parallelism") },
  { "torchtune", DIM_TENSOR, 0, 1, WHEN_ADAPTERS,
    N_("torchtune’s LoRA recipe has no tensor parallelism") },
  /* full_finetune_distributed.py and lora_finetune_distributed.py shard
   * every model with fully_shard, whatever the ranks: no DDP. */
  { "torchtune", DIM_FSDP, HR_FSDP_FULL, HR_FSDP_HYBRID, WHEN_DATA_PARALLEL,
    N_("torchtune’s distributed recipes shard with FSDP (full, grad-op or hybrid), never "
       "replicate") },
  { "torchtune", DIM_ZERO, 0, 0, WHEN_ALWAYS,
    N_("torchtune shards with FSDP, which has no ZeRO stages") },
  { "torchtitan", DIM_ZERO, 0, 0, WHEN_ALWAYS,
    N_("torchtitan shards with FSDP, which has no ZeRO stages") },
  /* The Trainer, and FSDP on a Hugging Face model, parallelise through
   * accelerate (ParallelismConfig: data replicate and shard, tensor and
   * context parallel sizes) or DeepSpeed ZeRO, never DeepSpeed's
   * PipelineModule. */
  { "hf", DIM_PIPELINE, 0, 1, WHEN_ALWAYS,
    N_("the Hugging Face Trainer has no pipeline parallelism") },
  { "fsdp", DIM_PIPELINE, 0, 1, WHEN_ALWAYS,
    N_("FSDP on a Hugging Face model has no pipeline parallelism (torchtitan runs FSDP under a "
       "pipeline)") },
  { "fsdp", DIM_EXPERT, 0, 1, WHEN_ALWAYS,
    N_("FSDP on a Hugging Face model has no expert parallelism") },
};

static int64_t
layout_value (const HrTraining *t,
              Dim               dim)
{
  switch (dim)
    {
    case DIM_TENSOR:
      return t->tensor_parallel;
    case DIM_PIPELINE:
      return t->pipeline_parallel;
    case DIM_VIRTUAL:
      return t->virtual_stages;
    case DIM_CONTEXT:
      return t->context_parallel;
    case DIM_EXPERT:
      return t->expert_parallel;
    case DIM_ZERO:
      return t->zero_stage;
    case DIM_FSDP:
      return t->fsdp;
    case DIM_SCHEDULE:
    default:
      return t->pipeline_schedule;
    }
}

static gboolean
has_adapters (const HrTraining *t)
{
  return t->finetune.method == HR_FINETUNE_LORA || t->finetune.method == HR_FINETUNE_QLORA
         || t->finetune.method == HR_FINETUNE_DORA;
}

static gboolean
applies (guint             rule,
         const HrTraining *t)
{
  int64_t model_parallel = t->tensor_parallel * t->pipeline_parallel * t->context_parallel;

  switch (rules[rule].when)
    {
    case WHEN_PIPELINE:
      return t->pipeline_parallel > 1;
    case WHEN_ADAPTERS:
      return has_adapters (t);
    case WHEN_DATA_PARALLEL:
      return model_parallel > 0 && t->nodes * t->gpus_per_node / model_parallel > 1;
    case WHEN_ALWAYS:
    default:
      return TRUE;
    }
}

static gboolean
refuse (guint    rule,
        GError **error)
{
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, dim_keys[rules[rule].dim],
                                  "%s", _(rules[rule].why));
  return FALSE;
}

gboolean
headroom_framework_check (const char       *framework,
                          const HrTraining *training,
                          GError          **error)
{
  g_return_val_if_fail (training != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      int64_t value;

      if (g_strcmp0 (framework, rules[i].framework) != 0 || !applies (i, training))
        continue;
      value = layout_value (training, rules[i].dim);
      if (value < rules[i].least || value > rules[i].most)
        return refuse (i, error);
    }
  return TRUE;
}

/* The request's pin of a count (0 = searched), or NULL. */
static int64_t *
count_pin (HrPlanRequest *request,
           Dim            dim)
{
  switch (dim)
    {
    case DIM_TENSOR:
      return &request->tensor_parallel;
    case DIM_PIPELINE:
      return &request->pipeline_parallel;
    case DIM_VIRTUAL:
      return &request->virtual_stages;
    case DIM_CONTEXT:
      return &request->context_parallel;
    case DIM_EXPERT:
      return &request->expert_parallel;
    case DIM_ZERO:
    case DIM_FSDP:
    case DIM_SCHEDULE:
    default:
      return NULL;
    }
}

unsigned
headroom_framework_recompute_modes (const char *framework)
{
  const unsigned layers = (1u << HR_RECOMPUTE_NONE) | (1u << HR_RECOMPUTE_FULL);

  /* torchtitan's activation_checkpoint modes: none, full and op-level
   * selective (its layer-level one is recompute_every). */
  if (g_strcmp0 (framework, "torchtitan") == 0)
    return layers | (1u << HR_RECOMPUTE_OP_SELECTIVE);
  /* Whole layers: the Trainer's gradient_checkpointing (also under
   * DeepSpeed and FSDP) and torchtune's enable_activation_checkpointing. */
  if (g_strcmp0 (framework, "deepspeed") == 0 || g_strcmp0 (framework, "hf") == 0
      || g_strcmp0 (framework, "fsdp") == 0 || g_strcmp0 (framework, "torchtune") == 0)
    return layers;
  /* Megatron's --recompute-granularity selective or full; no framework,
   * the same. */
  return layers | (1u << HR_RECOMPUTE_SELECTIVE);
}

gboolean
headroom_framework_restrict (const char    *framework,
                             HrPlanRequest *request,
                             GError       **error)
{
  g_return_val_if_fail (request != NULL, FALSE);

  request->sharding = headroom_framework_sharding (framework);
  request->recompute_modes = headroom_framework_recompute_modes (framework);
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      int64_t *count = count_pin (request, rules[i].dim);

      if (g_strcmp0 (framework, rules[i].framework) != 0
          || (rules[i].when == WHEN_ADAPTERS && !has_adapters (&request->training)))
        continue;
      if (count != NULL)
        {
          if (*count > rules[i].most)
            return refuse (i, error);
          *count = rules[i].most;
        }
      /* A free ZeRO stage or FSDP mode takes the framework's sharding
       * (which keeps FSDP's sharded modes wherever there are data-parallel
       * ranks); the search runs ZeRO 2 and 3 without a pipeline only. */
      else if (rules[i].dim == DIM_ZERO)
        {
          if (request->zero_stage > rules[i].most
              && (rules[i].when == WHEN_ALWAYS || request->pipeline_parallel > 1))
            return refuse (i, error);
        }
      else if (rules[i].dim == DIM_FSDP)
        {
          if (request->fsdp != HR_PLAN_FREE && request->fsdp > rules[i].most)
            return refuse (i, error);
        }
      /* The project's schedule paces the layouts of one stage per rank: one
       * the framework runs, wherever a pipeline may be searched. */
      else if (rules[i].dim == DIM_SCHEDULE && request->pipeline_parallel != 1
               && request->training.pipeline_schedule > rules[i].most)
        return refuse (i, error);
    }
  return TRUE;
}
