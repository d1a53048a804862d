/* headroom-comparison.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-comparison"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-comparison.h"
#include "headroom-format.h"
#include "headroom-scenario.h"

#define TRAINING  (1u << HEADROOM_WORKLOAD_TRAINING)
#define INFERENCE (1u << HEADROOM_WORKLOAD_INFERENCE)

/* Every figure, in the order of the rows. The values are the estimator's
 * (read_figures()), the inference energy aside. */
typedef enum
{
  FIGURE_GPUS,
  FIGURE_PARAMETERS,
  FIGURE_TRAINABLE,
  FIGURE_MEMORY,
  FIGURE_CAPACITY,
  FIGURE_FITS,
  FIGURE_STEP,
  FIGURE_TRAIN_THROUGHPUT,
  FIGURE_MFU,
  FIGURE_TRAINING_TIME,
  FIGURE_GPU_HOURS,
  FIGURE_COST,
  FIGURE_ENERGY,
  FIGURE_KV_CAPACITY,
  FIGURE_TTFT,
  FIGURE_TPOT,
  FIGURE_OUTPUT_THROUGHPUT,
  FIGURE_COST_PER_MILLION,
  FIGURE_ENERGY_PER_MILLION,
  N_FIGURES
} Figure;

static const struct
{
  const char    *name;
  const char    *label;
  const char    *unit;
  HeadroomBetter better;
  guint          workloads;
} figures[N_FIGURES] = {
  { "gpus", N_("GPUs"), "GPUs", HEADROOM_BETTER_NEITHER, TRAINING | INFERENCE },
  { "parameters", N_("Parameters"), "parameters", HEADROOM_BETTER_NEITHER, TRAINING | INFERENCE },
  { "trainable_parameters", N_("Trainable parameters"), "parameters", HEADROOM_BETTER_NEITHER,
    TRAINING },
  { "memory_per_gpu", N_("Memory per GPU"), "bytes", HEADROOM_BETTER_LOWER, TRAINING | INFERENCE },
  { "gpu_memory", N_("GPU memory"), "bytes", HEADROOM_BETTER_NEITHER, TRAINING | INFERENCE },
  { "fits", N_("Fits"), "boolean", HEADROOM_BETTER_HIGHER, TRAINING | INFERENCE },
  { "step_seconds", N_("Step time"), "s", HEADROOM_BETTER_LOWER, TRAINING },
  { "tokens_per_second", N_("Throughput"), "tokens/s", HEADROOM_BETTER_HIGHER, TRAINING },
  { "mfu", N_("Model FLOPs utilisation"), "ratio", HEADROOM_BETTER_HIGHER, TRAINING },
  { "training_seconds", N_("Training time"), "s", HEADROOM_BETTER_LOWER, TRAINING },
  { "gpu_hours", N_("GPU-hours"), "GPU-h", HEADROOM_BETTER_LOWER, TRAINING },
  { "cost", N_("Cost"), "USD", HEADROOM_BETTER_LOWER, TRAINING },
  { "energy", N_("Energy"), "kWh", HEADROOM_BETTER_LOWER, TRAINING },
  { "kv_capacity_tokens", N_("KV cache capacity"), "tokens", HEADROOM_BETTER_HIGHER, INFERENCE },
  { "time_to_first_token", N_("Time to first token"), "s", HEADROOM_BETTER_LOWER, INFERENCE },
  { "time_per_output_token", N_("Time per output token"), "s", HEADROOM_BETTER_LOWER, INFERENCE },
  { "output_tokens_per_second", N_("Throughput"), "tokens/s", HEADROOM_BETTER_HIGHER, INFERENCE },
  { "cost_per_million_tokens", N_("Cost per million tokens"), "USD", HEADROOM_BETTER_LOWER,
    INFERENCE },
  { "energy_per_million_tokens", N_("Energy per million tokens"), "kWh", HEADROOM_BETTER_LOWER,
    INFERENCE },
};

typedef struct
{
  char            *name;
  HeadroomProject *project;
  char            *error;
  HeadroomWorkload workload;
  double           values[N_FIGURES];
  gboolean         has[N_FIGURES];
} Column;

struct _HeadroomComparison
{
  GObject parent_instance;

  GPtrArray *columns;   /* Column */
  GArray    *shown;     /* Figure: those at least one column has */
  guint      baseline;
};

G_DEFINE_FINAL_TYPE (HeadroomComparison, headroom_comparison, G_TYPE_OBJECT)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
column_free (Column *column)
{
  g_free (column->name);
  g_clear_object (&column->project);
  g_free (column->error);
  g_free (column);
}

static void
headroom_comparison_finalize (GObject *object)
{
  HeadroomComparison *self = HEADROOM_COMPARISON (object);

  g_clear_pointer (&self->columns, g_ptr_array_unref);
  g_clear_pointer (&self->shown, g_array_unref);
  G_OBJECT_CLASS (headroom_comparison_parent_class)->finalize (object);
}

static void
headroom_comparison_class_init (HeadroomComparisonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_comparison_finalize;

  /**
   * HeadroomComparison::changed:
   *
   * Emitted after the columns, their figures or the baseline changed.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
headroom_comparison_init (HeadroomComparison *self)
{
  self->columns = g_ptr_array_new_with_free_func ((GDestroyNotify) column_free);
  self->shown = g_array_new (FALSE, FALSE, sizeof (Figure));
}

HeadroomComparison *
headroom_comparison_new (void)
{
  return g_object_new (HEADROOM_TYPE_COMPARISON, NULL);
}

static void
set_figure (Column *column,
            Figure  figure,
            double  value)
{
  column->values[figure] = value;
  column->has[figure] = isfinite (value);
}

/* A total is a figure only where it is computed: 0 means no token budget,
 * no price or no board power (the Estimate view shows no tile then). */
static void
set_positive (Column *column,
              Figure  figure,
              double  value)
{
  if (value > 0)
    set_figure (column, figure, value);
}

/* The figures as the column's estimator holds them, the numbers its
 * Estimate view shows (headroom-estimator-rows.c, headroom_estimator_fill_summary()). */
static void
read_figures (Column            *column,
              HeadroomEstimator *estimator)
{
  set_figure (column, FIGURE_GPUS, (double) headroom_project_get_n_gpus (column->project));
  set_figure (column, FIGURE_PARAMETERS, headroom_estimator_get_total_params (estimator));
  set_figure (column, FIGURE_MEMORY, headroom_estimator_get_memory_bytes (estimator));
  set_figure (column, FIGURE_CAPACITY, headroom_estimator_get_memory_capacity (estimator));
  set_figure (column, FIGURE_FITS, headroom_estimator_get_fits (estimator) ? 1 : 0);

  if (column->workload == HEADROOM_WORKLOAD_TRAINING)
    {
      const HrTrainingMemory *m = headroom_estimator_get_training_memory (estimator);
      const HrTrainingTime *t = headroom_estimator_get_training_time (estimator);

      /* Full training trains every parameter (the CLI's train --json says the same). */
      set_figure (column, FIGURE_TRAINABLE,
                  m->trainable_params > 0 || m->frozen_params > 0
                  ? m->trainable_params : headroom_estimator_get_total_params (estimator));
      /* No times where they need a measured utilisation (an optimizer step
       * on the CPU): the Estimate view says so rather than show 0. */
      if (t->needs_utilization)
        return;
      set_figure (column, FIGURE_STEP, t->step_seconds);
      set_figure (column, FIGURE_TRAIN_THROUGHPUT, t->tokens_per_second);
      set_figure (column, FIGURE_MFU, t->mfu);
      set_positive (column, FIGURE_TRAINING_TIME, t->total_seconds);
      set_positive (column, FIGURE_GPU_HOURS, t->gpu_hours);
      set_positive (column, FIGURE_COST, t->cost);
      if (headroom_estimator_get_power_known (estimator))
        set_positive (column, FIGURE_ENERGY, t->energy_kwh);
    }
  else
    {
      const HrInferenceLatency *l = headroom_estimator_get_inference_latency (estimator);

      set_figure (column, FIGURE_KV_CAPACITY, headroom_estimator_get_kv_capacity_tokens (estimator));
      set_figure (column, FIGURE_TTFT, l->time_to_first_token);
      set_figure (column, FIGURE_TPOT, l->time_per_output_token);
      set_figure (column, FIGURE_OUTPUT_THROUGHPUT, l->tokens_per_second);
      set_positive (column, FIGURE_COST_PER_MILLION, l->cost_per_million_tokens);
      /* The estimator has no inference energy: the GPUs the cost per million
       * tokens pays for (tensor × pipeline parallel, src/core/hr-inference.c)
       * at the catalog's board power for the time they take to generate a
       * million tokens, kWh = W · s / 3.6e6, the training energy's
       * convention (src/core/hr-training.c). None where the power is unpublished. */
      if (l->tokens_per_second > 0)
        {
          HrGpu gpu;

          if (headroom_project_get_gpu (column->project, &gpu, NULL) && gpu.power_watts > 0)
            set_positive (column, FIGURE_ENERGY_PER_MILLION,
                          (double) headroom_project_get_int (column->project, "inference.tensor_parallel")
                          * (double) headroom_project_get_int (column->project,
                                                               "inference.pipeline_parallel")
                          * gpu.power_watts * (1e6 / l->tokens_per_second) / 3.6e6);
        }
    }
}

static Column *
estimate (const char      *name,
          HeadroomProject *project)
{
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  Column *column = g_new0 (Column, 1);

  column->name = g_strdup (name);
  column->project = g_object_ref (project);
  column->workload = headroom_project_get_workload (project);
  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error (estimator) != NULL)
    column->error = g_strdup (headroom_estimator_get_error (estimator));
  else
    read_figures (column, estimator);
  return column;
}

static void
update_shown (HeadroomComparison *self)
{
  g_array_set_size (self->shown, 0);
  for (Figure f = 0; f < N_FIGURES; f++)
    for (guint c = 0; c < self->columns->len; c++)
      {
        Column *column = g_ptr_array_index (self->columns, c);

        if (column->has[f])
          {
            g_array_append_val (self->shown, f);
            break;
          }
      }
}

void
headroom_comparison_add (HeadroomComparison *self,
                         const char         *name,
                         HeadroomProject    *project)
{
  g_return_if_fail (HEADROOM_IS_COMPARISON (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (HEADROOM_IS_PROJECT (project));

  g_ptr_array_add (self->columns, estimate (name, project));
  update_shown (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
headroom_comparison_set_scenarios (HeadroomComparison *self,
                                   GListModel         *scenarios)
{
  g_return_if_fail (HEADROOM_IS_COMPARISON (self));
  g_return_if_fail (G_IS_LIST_MODEL (scenarios));

  g_ptr_array_set_size (self->columns, 0);
  for (guint i = 0; i < g_list_model_get_n_items (scenarios); i++)
    {
      g_autoptr(HeadroomScenario) scenario = g_list_model_get_item (scenarios, i);

      g_ptr_array_add (self->columns, estimate (headroom_scenario_get_name (scenario),
                                                headroom_scenario_get_settings (scenario)));
    }
  if (self->baseline >= self->columns->len)
    self->baseline = 0;
  update_shown (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static Column *
get_column (HeadroomComparison *self,
            guint               column)
{
  g_return_val_if_fail (HEADROOM_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (column < self->columns->len, NULL);
  return g_ptr_array_index (self->columns, column);
}

static Figure
get_figure (HeadroomComparison *self,
            guint               figure)
{
  g_return_val_if_fail (HEADROOM_IS_COMPARISON (self), 0);
  g_return_val_if_fail (figure < self->shown->len, 0);
  return g_array_index (self->shown, Figure, figure);
}

guint
headroom_comparison_get_n_columns (HeadroomComparison *self)
{
  g_return_val_if_fail (HEADROOM_IS_COMPARISON (self), 0);
  return self->columns->len;
}

const char *
headroom_comparison_get_name (HeadroomComparison *self,
                              guint               column)
{
  Column *c = get_column (self, column);

  return c != NULL ? c->name : NULL;
}

HeadroomProject *
headroom_comparison_get_project (HeadroomComparison *self,
                                 guint               column)
{
  Column *c = get_column (self, column);

  return c != NULL ? c->project : NULL;
}

const char *
headroom_comparison_get_error (HeadroomComparison *self,
                               guint               column)
{
  Column *c = get_column (self, column);

  return c != NULL ? c->error : NULL;
}

HeadroomWorkload
headroom_comparison_get_workload (HeadroomComparison *self,
                                  guint               column)
{
  Column *c = get_column (self, column);

  return c != NULL ? c->workload : HEADROOM_WORKLOAD_TRAINING;
}

guint
headroom_comparison_get_baseline (HeadroomComparison *self)
{
  g_return_val_if_fail (HEADROOM_IS_COMPARISON (self), 0);
  return self->baseline;
}

void
headroom_comparison_set_baseline (HeadroomComparison *self,
                                  guint               column)
{
  g_return_if_fail (HEADROOM_IS_COMPARISON (self));
  g_return_if_fail (column < self->columns->len);

  if (self->baseline == column)
    return;
  self->baseline = column;
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

guint
headroom_comparison_get_n_figures (HeadroomComparison *self)
{
  g_return_val_if_fail (HEADROOM_IS_COMPARISON (self), 0);
  return self->shown->len;
}

const char *
headroom_comparison_get_figure_name (HeadroomComparison *self,
                                     guint               figure)
{
  return figures[get_figure (self, figure)].name;
}

const char *
headroom_comparison_get_figure_label (HeadroomComparison *self,
                                      guint               figure)
{
  return _(figures[get_figure (self, figure)].label);
}

const char *
headroom_comparison_get_figure_unit (HeadroomComparison *self,
                                     guint               figure)
{
  return figures[get_figure (self, figure)].unit;
}

HeadroomBetter
headroom_comparison_get_figure_better (HeadroomComparison *self,
                                       guint               figure)
{
  return figures[get_figure (self, figure)].better;
}

gboolean
headroom_comparison_get_value (HeadroomComparison *self,
                               guint               figure,
                               guint               column,
                               double             *value)
{
  Column *c = get_column (self, column);
  Figure f = get_figure (self, figure);

  if (c == NULL || !c->has[f])
    return FALSE;
  *value = c->values[f];
  return TRUE;
}

gboolean
headroom_comparison_get_ratio (HeadroomComparison *self,
                               guint               figure,
                               guint               column,
                               double             *ratio)
{
  double value, base;

  if (g_str_equal (headroom_comparison_get_figure_unit (self, figure), "boolean")
      || !headroom_comparison_get_value (self, figure, column, &value)
      || !headroom_comparison_get_value (self, figure, self->baseline, &base)
      || base <= 0)
    return FALSE;
  *ratio = value / base;
  return TRUE;
}

/* Figures within a part in a million of each other are the same: two
 * estimates of one layout reached by different settings (a framework's
 * default set explicitly) round differently, not to a real change. */
#define SAME_TOLERANCE 1e-6

HeadroomVerdict
headroom_comparison_get_verdict (HeadroomComparison *self,
                                 guint               figure,
                                 guint               column)
{
  HeadroomBetter better;
  double value, base;

  if (column == self->baseline
      || !headroom_comparison_get_value (self, figure, column, &value)
      || !headroom_comparison_get_value (self, figure, self->baseline, &base))
    return HEADROOM_VERDICT_NONE;
  better = headroom_comparison_get_figure_better (self, figure);
  if (better == HEADROOM_BETTER_NEITHER)
    return HEADROOM_VERDICT_NONE;
  if (fabs (value - base) <= SAME_TOLERANCE * MAX (fabs (value), fabs (base)))
    return HEADROOM_VERDICT_SAME;
  if ((value < base) == (better == HEADROOM_BETTER_LOWER))
    return HEADROOM_VERDICT_BETTER;
  return HEADROOM_VERDICT_WORSE;
}

char *
headroom_comparison_dup_value_text (HeadroomComparison *self,
                                    guint               figure,
                                    guint               column)
{
  const char *unit = headroom_comparison_get_figure_unit (self, figure);
  double value;

  if (!headroom_comparison_get_value (self, figure, column, &value))
    return g_strdup ("—");
  if (g_str_equal (unit, "boolean"))
    return g_strdup (value > 0 ? _("Yes") : _("No"));
  return headroom_format_quantity (value, unit);
}

char *
headroom_comparison_dup_change_text (HeadroomComparison *self,
                                     guint               figure,
                                     guint               column)
{
  double ratio, percent;

  if (column == self->baseline || !headroom_comparison_get_ratio (self, figure, column, &ratio))
    return NULL;
  if (fabs (ratio - 1) < 0.0005)
    /* An input (GPUs, parameters) says nothing when it is the baseline's. */
    return headroom_comparison_get_figure_better (self, figure) == HEADROOM_BETTER_NEITHER
           ? NULL : g_strdup (_("same"));
  if (ratio >= 2)
    /* TRANSLATORS: a ratio to the baseline, "×3.1" */
    return g_strdup_printf (_("×%.2g"), ratio);
  if (ratio < 0.1)
    {
      g_autofree char *times = 1 / ratio >= 100 ? headroom_format_integer (1 / ratio)
                                                : g_strdup_printf ("%.2g", 1 / ratio);

      /* TRANSLATORS: the baseline divided by the column, "÷2,356" for a LoRA's trainable parameters */
      return g_strdup_printf (_("÷%s"), times);
    }
  percent = 100 * (ratio - 1);
  /* A real minus sign, as the window writes negative numbers. */
  if (fabs (percent) < 10)
    return g_strdup_printf ("%s%.1f %%", percent < 0 ? "−" : "+", fabs (percent));
  return g_strdup_printf ("%s%.0f %%", percent < 0 ? "−" : "+", fabs (percent));
}

char **
headroom_comparison_dup_differences (HeadroomComparison *self,
                                     guint               column)
{
  Column *c = get_column (self, column);
  Column *base;

  if (c == NULL || column == self->baseline)
    return g_new0 (char *, 1);
  base = get_column (self, self->baseline);
  return headroom_project_dup_differences (c->project, base->project);
}

const char *
headroom_comparison_difference_label (const char *key)
{
  const HeadroomKeyInfo *info;

  g_return_val_if_fail (key != NULL, NULL);

  if (g_str_equal (key, "model.preset"))
    return _("Model");
  if (g_str_equal (key, "model"))
    return _("Model configuration");
  info = headroom_project_find_key (key);
  return info != NULL ? _(info->label) : key;
}

char *
headroom_comparison_dup_differences_text (HeadroomComparison *self,
                                          guint               column)
{
  g_auto(GStrv) keys = headroom_comparison_dup_differences (self, column);
  GString *text = g_string_new (NULL);

  for (guint i = 0; keys[i] != NULL; i++)
    {
      if (i > 0)
        /* TRANSLATORS: between the labels of the settings that differ */
        g_string_append (text, _(", "));
      g_string_append (text, headroom_comparison_difference_label (keys[i]));
    }
  return g_string_free (text, FALSE);
}
