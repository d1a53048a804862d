/* headroom-plan-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-format.h"
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

const char *
headroom_plan_part_get_label (HeadroomPlanPart part)
{
  static const char *const labels[] = {
    [HEADROOM_PLAN_PART_COMPUTE] = N_("Compute"),
    [HEADROOM_PLAN_PART_MEMORY_BOUND] = N_("Memory-bound"),
    [HEADROOM_PLAN_PART_RECOMPUTE] = N_("Recomputation"),
    [HEADROOM_PLAN_PART_COMMUNICATION] = N_("Communication"),
    [HEADROOM_PLAN_PART_BUBBLE] = N_("Pipeline bubble"),
    [HEADROOM_PLAN_PART_OPTIMIZER] = N_("Optimizer"),
    [HEADROOM_PLAN_PART_HOST_TRANSFER] = N_("Host link"),
  };

  g_return_val_if_fail (part < HEADROOM_PLAN_N_PARTS, NULL);
  return _(labels[part]);
}

const char *
headroom_plan_part_get_name (HeadroomPlanPart part)
{
  static const char *const names[] = {
    [HEADROOM_PLAN_PART_COMPUTE] = "compute",
    [HEADROOM_PLAN_PART_MEMORY_BOUND] = "memory_bound",
    [HEADROOM_PLAN_PART_RECOMPUTE] = "recompute",
    [HEADROOM_PLAN_PART_COMMUNICATION] = "communication",
    [HEADROOM_PLAN_PART_BUBBLE] = "bubble",
    [HEADROOM_PLAN_PART_OPTIMIZER] = "optimizer",
    [HEADROOM_PLAN_PART_HOST_TRANSFER] = "host_transfer",
  };

  g_return_val_if_fail (part < HEADROOM_PLAN_N_PARTS, NULL);
  return names[part];
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
    case HEADROOM_PLAN_PART_HOST_TRANSFER:
      return split->host_transfer;
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

/* "4 micro-batches × 1.27 s = 5.10 s" */
static char *
per_micro_batch (const HrPlanStep *step,
                 const char       *label,
                 double            seconds)
{
  g_autofree char *total = headroom_format_duration (seconds);
  g_autofree char *each = NULL;

  if (step->micro_batches <= 1)
    return g_strdup_printf ("%s = %s", label, total);
  each = headroom_format_duration (seconds / (double) step->micro_batches);
  /* TRANSLATORS: e.g. "Compute = 4 micro-batches × 1.27 s = 5.10 s" */
  return g_strdup_printf (_("%s = %" G_GINT64_FORMAT " micro-batches × %s = %s"),
                          label, step->micro_batches, each, total);
}

/**
 * headroom_plan_row_dup_explanation:
 * @part: a part of the step
 *
 * The part's derivation with this layout's values, the assumption it rests
 * on and its source, one per line, as headroom_estimator_dup_explanation()
 * gives them (docs/planner.md, "One step-time model").
 *
 * Returns: (transfer full): the text, translated
 */
char *
headroom_plan_row_dup_explanation (HeadroomPlanRow  *self,
                                   HeadroomPlanPart  part)
{
  const HrPlanStep *step;
  const HrTraining *tr;
  g_autofree char *line = NULL;
  g_autofree char *total = NULL;
  g_autofree char *owned_assumption = NULL;
  g_autofree char *owned_source = NULL;
  const char *assumption = NULL;
  const char *source = NULL;

  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), NULL);
  g_return_val_if_fail (part < HEADROOM_PLAN_N_PARTS, NULL);

  step = &self->layout.step;
  tr = &self->layout.training;
  total = headroom_format_duration (headroom_plan_row_get_part_seconds (self, part));
  switch (part)
    {
    case HEADROOM_PLAN_PART_COMPUTE:
      {
        g_autofree char *each = per_micro_batch (step, _("Compute"), step->split.compute);

        /* TRANSLATORS: e.g. "Compute = 4 micro-batches × 1.27 s = 5.10 s, the matrix products at 54 % of peak" */
        line = g_strdup_printf (_("%s, the matrix products at %.0f %% of peak"), each,
                                100 * step->gemm_efficiency);
        assumption = _("2·m·n·k FLOPs per product, the backward twice the forward; each product at "
                       "the share of peak its shape reaches after padding to the GPU’s tiles.");
        source = _("NVIDIA, Matrix Multiplication Background User’s Guide; Narayanan et al. 2021, §5.1");
        break;
      }
    case HEADROOM_PLAN_PART_MEMORY_BOUND:
      {
        GString *what = g_string_new (_("Norms, activation functions, rotary embeddings, residual "
                                        "adds and the loss read and write their tensors at "
                                        "memory bandwidth; the backward of an eager op is its "
                                        "derivative’s passes, a fused kernel’s twice its forward, "
                                        "plus the gradients the backward sums; copies of grouped "
                                        "keys and values once each way"));
        GString *from = g_string_new (_("Williams et al. 2009 (Roofline); Korthikanti et al. "
                                        "2022, §4.2.2; PyTorch tools/autograd/derivatives.yaml"));

        if (step->fsdp_copies > 0)
          {
            g_autofree char *kernels = per_micro_batch (step, _("Memory-bound"),
                                                        step->split.memory_bound
                                                        - step->fsdp_copies);
            g_autofree char *copies = headroom_format_duration (step->fsdp_copies);

            /* TRANSLATORS: e.g. "Memory-bound = 120.3 ms + FSDP2’s copies 66.0 ms = 186.3 ms" */
            line = g_strdup_printf (tr->fsdp2 ? _("%s + FSDP2’s copies %s = %s")
                                              : _("%s + FSDP1’s gradient passes %s = %s"),
                                    kernels, copies, total);
            g_string_append (what, tr->fsdp2
                             ? _("; FSDP2 copies each gathered parameter out and each gradient "
                                 "into the reduce-scatter’s buffer, on the compute stream")
                             : _("; FSDP1’s parameters are views of each unit’s flat buffer, so "
                                 "the backward concatenates their gradients into the flat "
                                 "parameter’s, on the compute stream, and each reduction casts "
                                 "that gradient to the reduce dtype and divides it before and "
                                 "after the reduce-scatter"));
            g_string_append (from, tr->fsdp2
                             ? _("; PyTorch fully_shard (_fsdp_collectives.py)")
                             : _("; PyTorch FlatParamHandle._get_unflat_views, "
                                 "split_with_sizes_backward; FSDP1 _post_backward_hook, "
                                 "_reduce_grad"));
          }
        else
          line = per_micro_batch (step, _("Memory-bound"), step->split.memory_bound);
        if (step->bias_grads > 0)
          {
            g_autofree char *sums = headroom_format_duration (step->bias_grads);
            /* TRANSLATORS: e.g. "Memory-bound = 60.0 ms, of which 9.5 ms sum the bias gradients" */
            char *with_sums = g_strdup_printf (_("%s, of which %s sum the bias gradients"), line,
                                               sums);

            g_free (line);
            line = with_sums;
            g_string_append (what, _("; nn.Linear sums each trained bias’s gradient over the "
                                     "tokens, one more read of that product’s output gradient"));
            g_string_append (from, _("; PyTorch derivatives.yaml (addmm)"));
          }
        if (tr->finetune.method == HR_FINETUNE_QLORA)
          g_string_append (what, _("; QLoRA also dequantises the frozen weights"));
        g_string_append_c (what, '.');
        owned_assumption = g_string_free (what, FALSE);
        owned_source = g_string_free (from, FALSE);
        assumption = owned_assumption;
        source = owned_source;
        break;
      }
    case HEADROOM_PLAN_PART_RECOMPUTE:
      line = per_micro_batch (step, _("Recomputation"), step->split.recompute);
      switch (tr->recompute)
        {
        case HR_RECOMPUTE_FULL:
          assumption = _("Full recomputation repeats each layer’s forward in the backward.");
          source = _("Korthikanti et al. 2022 (reducing activation recomputation), §5");
          break;
        case HR_RECOMPUTE_SELECTIVE:
          assumption = _("Selective recomputation repeats the modules set (Megatron’s "
                         "recompute_modules: the attention scores for core_attn, the norms, the "
                         "experts’ activation, the MLPs or MLA’s up projections); flash attention "
                         "recomputes QKᵀ in its backward.");
          source = _("Korthikanti et al. 2022 (reducing activation recomputation), §5; "
                     "Megatron-Core TransformerConfig.recompute_modules");
          break;
        case HR_RECOMPUTE_OP_SELECTIVE:
          assumption = tr->compile
                       ? _("torchtitan’s op-level policy reruns every second matrix product of a "
                           "layer; flash attention recomputes QKᵀ in its backward.")
                       : _("torchtitan’s op-level policy reruns every second matrix product of a "
                           "layer and, uncompiled, the layer’s memory-bound kernels but its last "
                           "residual add; flash attention recomputes QKᵀ in its backward.");
          source = _("torchtitan activation_checkpoint.py (_custom_policy); torch.utils.checkpoint "
                     "(_CachedTorchDispatchMode); Dao et al. 2022 (FlashAttention), Algorithm 4");
          break;
        case HR_RECOMPUTE_NONE:
        default:
          assumption = _("Flash attention recomputes QKᵀ in its backward.");
          source = _("Dao et al. 2022 (FlashAttention), Algorithm 4");
          break;
        }
      break;
    case HEADROOM_PLAN_PART_COMMUNICATION:
      {
        g_autoptr(GString) links = g_string_new (NULL);

        for (guint i = 0; i < HR_PLAN_COMM_N; i++)
          {
            g_autofree char *exposed = NULL;
            g_autofree char *link = NULL;

            if (step->comm[i].seconds <= 0)
              continue;
            exposed = headroom_format_duration (step->comm[i].exposed);
            link = headroom_format_duration (step->comm[i].seconds);
            /* TRANSLATORS: e.g. "dp 0.12 s of 1.30 s" — exposed of the link time */
            g_string_append_printf (links, _("%s%s %s of %s"), links->len > 0 ? " + " : "",
                                    hr_plan_comm_name ((HrPlanComm) i), exposed, link);
          }
        if (step->nccl_sms > 0)
          {
            g_autofree char *held = headroom_format_duration (step->nccl_sms);

            /* TRANSLATORS: e.g. "Communication = dp 0.12 s of 1.30 s exposed + 0.17 s of compute
             * on the 15 % of SMs the collectives hold = 0.29 s" */
            line = g_strdup_printf (_("%s = %s exposed + %s of compute on the %.0f %% of SMs the "
                                      "collectives hold = %s"),
                                    _("Communication"), links->str, held,
                                    100 * step->nccl_sm_share, total);
            assumption = _("Ring all-reduce, reduce-scatter and all-gather over the link each "
                           "group spans; what overlaps the backward (or the next forward) is "
                           "hidden but for one layer’s share. While a hidden collective runs, "
                           "NCCL holds SMs, two a network card across nodes and the GPU’s NVLink "
                           "channels within a node, and the compute runs on the others.");
            source = _("Patarasuk & Yuan 2009 (ring all-reduce); Rajbhandari et al. 2020 (ZeRO), "
                       "§7; NCCL src/graph/search.cc and connect.cc (one ring a card, two channels "
                       "a ring, a CTA a channel)");
            break;
          }
        /* TRANSLATORS: e.g. "Communication = tp 0.40 s of 0.80 s + dp 0.12 s of 1.30 s exposed = 0.52 s" */
        line = links->len > 0 ? g_strdup_printf (_("%s = %s exposed = %s"), _("Communication"), links->str, total)
                              : g_strdup_printf ("%s = %s", _("Communication"), total);
        assumption = _("Ring all-reduce, reduce-scatter and all-gather over the link each group "
                       "spans; what overlaps the backward (or the next forward) is hidden but for "
                       "one layer’s share.");
        source = _("Patarasuk & Yuan 2009 (ring all-reduce); Shoeybi et al. 2019, §3; "
                   "Rajbhandari et al. 2020 (ZeRO), §7");
        break;
      }
    case HEADROOM_PLAN_PART_BUBBLE:
      {
        gint64 p = tr->pipeline_parallel;
        gint64 v = tr->virtual_stages > 1 ? tr->virtual_stages : 1;

        if (p > 1)
          {
            g_autofree char *each = headroom_format_duration (step->split.bubble * (double) v
                                                              / (double) (p - 1));

            /* TRANSLATORS: e.g. "Pipeline bubble = (4 − 1) ÷ 1 × 0.90 s a micro-batch = 2.70 s" */
            line = g_strdup_printf (_("%s = (%" G_GINT64_FORMAT " − 1) ÷ %" G_GINT64_FORMAT
                                      " × %s a micro-batch = %s"),
                                    _("Pipeline bubble"), p, v, each, total);
          }
        else
          line = g_strdup_printf ("%s = %s", _("Pipeline bubble"), total);
        assumption = _("Fill and drain: (stages − 1) ÷ virtual stages micro-batch times of an "
                       "average stage.");
        source = _("Narayanan et al. 2021, §2.2");
        break;
      }
    case HEADROOM_PLAN_PART_OPTIMIZER:
      line = g_strdup_printf ("%s = %s", _("Optimizer"), total);
      assumption = _("The update reads and writes the optimizer states and master weights on "
                     "this GPU, reads the gradient shard and writes the weights, at memory "
                     "bandwidth (AdamW in mixed precision: 28 bytes an owned parameter).");
      source = _("docs/planner.md, “Optimizer step”");
      break;
    case HEADROOM_PLAN_PART_HOST_TRANSFER:
      {
        g_autofree char *bytes = headroom_format_gib (step->host.bytes);
        g_autofree char *link = headroom_format_duration (step->host.seconds);

        /* TRANSLATORS: e.g. "Host link = 12.7 GiB a step in 0.43 s, exposed 0.43 s" */
        line = g_strdup_printf (_("%s = %s a step in %s, exposed %s"), _("Host link"), bytes,
                                link, total);
        owned_assumption = g_strconcat (_("Paged optimizer states the GPU has no room for "
                                          "leave during the forward and backward and come back "
                                          "for the update, at the link’s raw rate, not hidden; "),
                                        step->host_after_sync
                                        ? _("offloaded activations leave on a side stream behind "
                                            "the forward, but come back exposed: bitsandbytes "
                                            "synchronises the GPU after each parameter’s update, "
                                            "so inside the backward every copy back starts on an "
                                            "idle GPU.")
                                        : _("offloaded activations move on a side stream and show "
                                            "only where they outlast the pass."),
                                        NULL);
        assumption = owned_assumption;
        source = step->host_after_sync
                 ? _("Dettmers et al. 2023 (QLoRA), §2; bitsandbytes prefetch_state and "
                     "Optimizer8bit.step; torchtune OffloadActivations")
                 : _("Dettmers et al. 2023 (QLoRA), §2; bitsandbytes prefetch_state; torchtune "
                     "OffloadActivations");
        break;
      }
    case HEADROOM_PLAN_N_PARTS:
    default:
      g_return_val_if_reached (NULL);
    }
  return g_strdup_printf ("%s\n%s%s\n%s%s", line, _("Assumes: "), assumption, _("Source: "), source);
}
