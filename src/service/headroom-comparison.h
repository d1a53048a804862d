/* headroom-comparison.h: the figures of several projects side by side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each column is a project (a scenario's settings, or a file the CLI was
 * given) estimated by its own HeadroomEstimator, the one the Estimate view
 * uses, so a column's figures are exactly those its project's Estimate view
 * shows. Rows are the figures that decide (training: parameters, memory
 * per GPU and whether it fits, step time, throughput, MFU, training time,
 * GPU-hours, cost, energy; inference: memory, KV cache capacity, time to
 * first token, time per output token, throughput, cost and energy per
 * million tokens, the last derived here from the GPU's board power as the
 * estimator has no inference energy), each with the direction that is better, compared against a
 * baseline column. A project the estimator refuses gets its error and no
 * figures.
 */
#pragma once

#include <gio/gio.h>

#include "headroom-estimator.h"
#include "headroom-project.h"

G_BEGIN_DECLS

/* Which way a figure is better. */
typedef enum
{
  HEADROOM_BETTER_NEITHER,  /* an input or a size: parameters, GPUs, GPU memory */
  HEADROOM_BETTER_LOWER,    /* memory, times, GPU-hours, cost, energy */
  HEADROOM_BETTER_HIGHER,   /* fits, throughput, MFU, KV cache capacity */
} HeadroomBetter;

/* A column's figure against the baseline's. */
typedef enum
{
  HEADROOM_VERDICT_NONE,    /* the baseline itself, no figure, or no direction */
  HEADROOM_VERDICT_SAME,
  HEADROOM_VERDICT_BETTER,
  HEADROOM_VERDICT_WORSE,
} HeadroomVerdict;

#define HEADROOM_TYPE_COMPARISON (headroom_comparison_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomComparison, headroom_comparison, HEADROOM, COMPARISON, GObject)

HeadroomComparison *headroom_comparison_new (void) G_GNUC_WARN_UNUSED_RESULT;

/* Estimates `project` at once and adds it as the last column. The project
 * is kept (a reference) but not watched: add it again after a change. */
void        headroom_comparison_add           (HeadroomComparison *self,
                                               const char         *name,
                                               HeadroomProject    *project);
/* Replaces every column by the scenarios (HeadroomScenario) of `scenarios`;
 * the baseline stays where it was if that column still exists, else 0. */
void        headroom_comparison_set_scenarios (HeadroomComparison *self,
                                               GListModel         *scenarios);

guint            headroom_comparison_get_n_columns (HeadroomComparison *self);
const char      *headroom_comparison_get_name      (HeadroomComparison *self,
                                                    guint               column);
HeadroomProject *headroom_comparison_get_project   (HeadroomComparison *self,
                                                    guint               column);
/* The estimator's error (one line naming the setting); NULL when estimated. */
const char      *headroom_comparison_get_error     (HeadroomComparison *self,
                                                    guint               column);
HeadroomWorkload headroom_comparison_get_workload  (HeadroomComparison *self,
                                                    guint               column);

/* The column the others are compared with (0 at first). Emits ::changed. */
guint       headroom_comparison_get_baseline  (HeadroomComparison *self);
void        headroom_comparison_set_baseline  (HeadroomComparison *self,
                                               guint               column);

/* The figures that at least one column has, in a fixed order. */
guint       headroom_comparison_get_n_figures (HeadroomComparison *self);
/* Stable English id, also the CSV row and the JSON member: "memory_per_gpu". */
const char *headroom_comparison_get_figure_name  (HeadroomComparison *self,
                                                  guint               figure);
/* Translated label: "Memory per GPU". */
const char *headroom_comparison_get_figure_label (HeadroomComparison *self,
                                                  guint               figure);
/* "bytes", "parameters", "GPUs", "boolean" (1 or 0), "s", "tokens/s",
 * "ratio", "GPU-h", "USD", "kWh", "tokens" */
const char *headroom_comparison_get_figure_unit  (HeadroomComparison *self,
                                                  guint               figure);
HeadroomBetter headroom_comparison_get_figure_better (HeadroomComparison *self,
                                                      guint               figure);
/* The figure of the column, the same number as its estimator's; FALSE where
 * the column has none (an error, the other workload, no token budget, no
 * price, no published board power). */
gboolean    headroom_comparison_get_value     (HeadroomComparison *self,
                                               guint               figure,
                                               guint               column,
                                               double             *value);
/* column ÷ baseline; FALSE where either has no value, the baseline's is 0,
 * or the figure is a yes/no. */
gboolean    headroom_comparison_get_ratio     (HeadroomComparison *self,
                                               guint               figure,
                                               guint               column,
                                               double             *ratio);
HeadroomVerdict headroom_comparison_get_verdict (HeadroomComparison *self,
                                                 guint               figure,
                                                 guint               column);
/* As the window shows them: "41.5 GiB", "Yes"; "—" where there is none. */
char       *headroom_comparison_dup_value_text  (HeadroomComparison *self,
                                                 guint               figure,
                                                 guint               column) G_GNUC_WARN_UNUSED_RESULT;
/* The change from the baseline: "+12 %", "−34 %", "×3.1" from double on,
 * "÷2,356" below a tenth, "same" (NULL for a figure without a direction);
 * NULL for the baseline and where there is no ratio. */
char       *headroom_comparison_dup_change_text (HeadroomComparison *self,
                                                 guint               figure,
                                                 guint               column) G_GNUC_WARN_UNUSED_RESULT;

/* The settings of the column that differ from the baseline's, as keys
 * (headroom_project_dup_differences()); empty for the baseline. */
char      **headroom_comparison_dup_differences (HeadroomComparison *self,
                                                 guint               column) G_GNUC_WARN_UNUSED_RESULT;
/* The same by their labels: "GPU, GPUs per node, ZeRO stage"; "" when none. */
char       *headroom_comparison_dup_differences_text (HeadroomComparison *self,
                                                      guint               column) G_GNUC_WARN_UNUSED_RESULT;
/* A difference key's label, translated ("model" and "model.preset": the model). */
const char *headroom_comparison_difference_label (const char *key);

G_END_DECLS
