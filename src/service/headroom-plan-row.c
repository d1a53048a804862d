/* headroom-plan-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "headroom-plan-row.h"

struct _HeadroomPlanRow
{
  GObject      parent_instance;

  HrPlanLayout layout;
  guint        rank;
};

G_DEFINE_FINAL_TYPE (HeadroomPlanRow, headroom_plan_row, G_TYPE_OBJECT)

static const char * const layout_keys[] = {
  "training.tensor_parallel",
  "training.pipeline_parallel",
  "training.pipeline_schedule",
  "training.virtual_stages",
  "training.context_parallel",
  "training.expert_parallel",
  "training.zero_stage",
  "training.fsdp",
  "training.sequence_parallel",
  "training.micro_batch",
  "training.recompute",
  NULL
};

static void
headroom_plan_row_class_init (HeadroomPlanRowClass *klass)
{
}

static void
headroom_plan_row_init (HeadroomPlanRow *self)
{
}

HeadroomPlanRow *
headroom_plan_row_new (const HrPlanLayout *layout,
                       guint               rank)
{
  HeadroomPlanRow *self;

  g_return_val_if_fail (layout != NULL, NULL);

  self = g_object_new (HEADROOM_TYPE_PLAN_ROW, NULL);
  self->layout = *layout;
  self->rank = rank;
  return self;
}

const HrPlanLayout *
headroom_plan_row_get_layout (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), NULL);

  return &self->layout;
}

guint
headroom_plan_row_get_rank (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->rank;
}

gint64
headroom_plan_row_get_tensor_parallel (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.training.tensor_parallel;
}

gint64
headroom_plan_row_get_pipeline_parallel (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.training.pipeline_parallel;
}

gint64
headroom_plan_row_get_virtual_stages (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.training.virtual_stages;
}

gint64
headroom_plan_row_get_data_parallel (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.data_parallel;
}

gint64
headroom_plan_row_get_context_parallel (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.training.context_parallel;
}

gint64
headroom_plan_row_get_expert_parallel (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.training.expert_parallel;
}

gint64
headroom_plan_row_get_micro_batch (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.training.micro_batch;
}

int
headroom_plan_row_get_zero_stage (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.training.zero_stage;
}

const char *
headroom_plan_row_get_fsdp (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), NULL);

  return hr_fsdp_name (self->layout.training.fsdp);
}

gboolean
headroom_plan_row_get_sequence_parallel (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), FALSE);

  return self->layout.training.sequence_parallel;
}

const char *
headroom_plan_row_get_recompute (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), NULL);

  return hr_training_recompute_name (self->layout.training.recompute);
}

double
headroom_plan_row_get_memory (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.memory_total;
}

double
headroom_plan_row_get_memory_capacity (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.memory_capacity;
}

double
headroom_plan_row_get_step_seconds (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.step.step_seconds;
}

double
headroom_plan_row_get_mfu (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.step.mfu;
}

double
headroom_plan_row_get_tokens_per_second (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->layout.step.tokens_per_second;
}

const char *
headroom_plan_row_get_bound (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), NULL);

  return hr_plan_bound_name (self->layout.step.bound);
}

double
headroom_plan_row_get_part_seconds (HeadroomPlanRow  *self,
                                    HeadroomPlanPart  part)
{
  const HrPlanSplit *split;

  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  split = &self->layout.step.split;
  switch (part)
    {
    case HEADROOM_PLAN_PART_COMPUTE:
      return split->compute;
    case HEADROOM_PLAN_PART_MEMORY_BOUND:
      return split->memory_bound;
    case HEADROOM_PLAN_PART_RECOMPUTE:
      return split->recompute;
    case HEADROOM_PLAN_PART_COMMUNICATION:
      return split->communication;
    case HEADROOM_PLAN_PART_BUBBLE:
      return split->bubble;
    case HEADROOM_PLAN_PART_OPTIMIZER:
      return split->optimizer;
    case HEADROOM_PLAN_N_PARTS:
    default:
      g_return_val_if_reached (0);
    }
}

gboolean
headroom_plan_row_get_comm (HeadroomPlanRow  *self,
                            guint             index,
                            const char      **name,
                            double           *seconds,
                            double           *exposed)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), FALSE);

  if (index >= HR_PLAN_COMM_N)
    return FALSE;
  if (name != NULL)
    *name = hr_plan_comm_name ((HrPlanComm) index);
  if (seconds != NULL)
    *seconds = self->layout.step.comm[index].seconds;
  if (exposed != NULL)
    *exposed = self->layout.step.comm[index].exposed;
  return TRUE;
}

const char * const *
headroom_plan_row_get_keys (void)
{
  return layout_keys;
}

char *
headroom_plan_row_dup_value (HeadroomPlanRow *self,
                             const char      *key)
{
  const HrTraining *tr;

  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  tr = &self->layout.training;
  if (g_str_equal (key, "training.tensor_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->tensor_parallel);
  if (g_str_equal (key, "training.pipeline_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->pipeline_parallel);
  if (g_str_equal (key, "training.pipeline_schedule"))
    return g_strdup (hr_pipeline_schedule_name (tr->pipeline_schedule));
  if (g_str_equal (key, "training.virtual_stages"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->virtual_stages);
  if (g_str_equal (key, "training.context_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->context_parallel);
  if (g_str_equal (key, "training.expert_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->expert_parallel);
  if (g_str_equal (key, "training.zero_stage"))
    return g_strdup_printf ("%d", tr->zero_stage);
  if (g_str_equal (key, "training.fsdp"))
    return g_strdup (hr_fsdp_name (tr->fsdp));
  if (g_str_equal (key, "training.sequence_parallel"))
    return g_strdup (tr->sequence_parallel ? "true" : "false");
  if (g_str_equal (key, "training.micro_batch"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->micro_batch);
  if (g_str_equal (key, "training.recompute"))
    return g_strdup (hr_training_recompute_name (tr->recompute));
  g_return_val_if_reached (NULL);
}
