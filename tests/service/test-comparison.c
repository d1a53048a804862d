/* test-comparison.c: scenarios side by side: each column's figures are its
 * own estimate, the baseline, verdicts and the CSV export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "headroom-comparison.h"
#include "headroom-report.h"
#include "headroom-scenario.h"

static guint
find_figure (HeadroomComparison *comparison,
             const char         *name)
{
  for (guint f = 0; f < headroom_comparison_get_n_figures (comparison); f++)
    if (g_str_equal (headroom_comparison_get_figure_name (comparison, f), name))
      return f;
  g_assert_not_reached ();
}

static double
value_of (HeadroomComparison *comparison,
          const char         *name,
          guint               column)
{
  double value = -1;

  g_assert_true (headroom_comparison_get_value (comparison, find_figure (comparison, name),
                                                column, &value));
  return value;
}

/* The launch project (Llama 3.1 8B on 8 H100 SXM, ZeRO-1, TP 2, 1T
 * tokens), the same on 16 A100 with ZeRO-3, and a LoRA fine-tune. */
static HeadroomProject *
training_scenarios (void)
{
  HeadroomProject *project = headroom_project_new_default ();

  g_assert_nonnull (headroom_project_keep_scenario (project, "Today", NULL));
  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "a100-80gb-sxm", NULL));
  g_assert_true (headroom_project_set_int (project, "hardware.nodes", 2, NULL));
  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 3, NULL));
  g_assert_nonnull (headroom_project_keep_scenario (project, NULL, NULL));
  headroom_project_apply_scenario (project, 0);
  g_assert_true (headroom_project_set_string (project, "training.method", "lora", NULL));
  g_assert_nonnull (headroom_project_keep_scenario (project, "LoRA", NULL));
  return project;
}

/* Each column holds exactly what the Estimate view shows once its scenario
 * is applied to the editor: the same estimator on the same settings. */
static void
test_figures_are_the_estimate (void)
{
  g_autoptr(HeadroomProject) project = training_scenarios ();
  g_autoptr(HeadroomComparison) comparison = headroom_comparison_new ();
  GListModel *scenarios = headroom_project_get_scenarios (project);

  headroom_comparison_set_scenarios (comparison, scenarios);
  g_assert_cmpuint (headroom_comparison_get_n_columns (comparison), ==, 3);

  for (guint c = 0; c < 3; c++)
    {
      g_autoptr(HeadroomEstimator) estimator = NULL;
      const HrTrainingTime *t;
      const HrTrainingMemory *m;

      headroom_project_apply_scenario (project, c);
      estimator = headroom_estimator_new (project);
      headroom_estimator_recompute_now (estimator);
      g_assert_null (headroom_estimator_get_error (estimator));
      g_assert_null (headroom_comparison_get_error (comparison, c));
      t = headroom_estimator_get_training_time (estimator);
      m = headroom_estimator_get_training_memory (estimator);

      g_assert_cmpfloat (value_of (comparison, "parameters", c), ==,
                         headroom_estimator_get_total_params (estimator));
      g_assert_cmpfloat (value_of (comparison, "trainable_parameters", c), ==,
                         c == 2 ? m->trainable_params : headroom_estimator_get_total_params (estimator));
      g_assert_cmpfloat (value_of (comparison, "memory_per_gpu", c), ==,
                         headroom_estimator_get_memory_bytes (estimator));
      g_assert_cmpfloat (value_of (comparison, "gpu_memory", c), ==,
                         headroom_estimator_get_memory_capacity (estimator));
      g_assert_cmpfloat (value_of (comparison, "fits", c), ==,
                         headroom_estimator_get_fits (estimator) ? 1 : 0);
      g_assert_cmpfloat (value_of (comparison, "step_seconds", c), ==,
                         headroom_estimator_get_step_seconds (estimator));
      g_assert_cmpfloat (value_of (comparison, "tokens_per_second", c), ==,
                         headroom_estimator_get_tokens_per_second (estimator));
      g_assert_cmpfloat (value_of (comparison, "mfu", c), ==, t->mfu);
      g_assert_cmpfloat (value_of (comparison, "training_seconds", c), ==,
                         headroom_estimator_get_total_seconds (estimator));
      g_assert_cmpfloat (value_of (comparison, "gpu_hours", c), ==, t->gpu_hours);
      g_assert_cmpfloat (value_of (comparison, "cost", c), ==,
                         headroom_estimator_get_cost (estimator));
      /* H100 SXM and A100 SXM publish their board power (700 W, 400 W). */
      g_assert_true (headroom_estimator_get_power_known (estimator));
      g_assert_cmpfloat (value_of (comparison, "energy", c), ==, t->energy_kwh);
    }

  /* 8 GPUs against 16: GPU count is an input, no verdict, ratio 2 exactly. */
  {
    guint gpus = find_figure (comparison, "gpus");
    double ratio = 0;

    g_assert_cmpfloat (value_of (comparison, "gpus", 1), ==, 16);
    g_assert_true (headroom_comparison_get_ratio (comparison, gpus, 1, &ratio));
    g_assert_cmpfloat (ratio, ==, 2.0);
    g_assert_cmpint (headroom_comparison_get_verdict (comparison, gpus, 1), ==,
                     HEADROOM_VERDICT_NONE);
  }
  /* ZeRO-3 over 16 ranks (DP 8) shards weights, gradients and optimizer
   * states that ZeRO-1 over DP 4 keeps whole or shards 4 ways, at the same
   * activations (micro-batch 1, TP 2): less memory per GPU, better. */
  g_assert_cmpfloat (value_of (comparison, "memory_per_gpu", 1), <,
                     value_of (comparison, "memory_per_gpu", 0));
  g_assert_cmpint (headroom_comparison_get_verdict (comparison,
                                                    find_figure (comparison, "memory_per_gpu"), 1),
                   ==, HEADROOM_VERDICT_BETTER);
  /* LoRA r = 8 on q and v (the default targets) trains r × (in + out) per
   * matrix: 8 × (4096 + 4096) + 8 × (4096 + 1024) = 106,496 per layer,
   * × 32 layers = 3,407,872 parameters. */
  g_assert_cmpfloat (value_of (comparison, "trainable_parameters", 2), ==, 3407872);
  /* The baseline has no change and no verdict. */
  g_assert_null (headroom_comparison_dup_change_text (comparison,
                                                      find_figure (comparison, "cost"), 0));
  g_assert_cmpint (headroom_comparison_get_verdict (comparison, find_figure (comparison, "cost"), 0),
                   ==, HEADROOM_VERDICT_NONE);
  /* No inference row for training scenarios. */
  for (guint f = 0; f < headroom_comparison_get_n_figures (comparison); f++)
    g_assert_cmpstr (headroom_comparison_get_figure_name (comparison, f), !=, "time_to_first_token");

  /* The settings that differ, by label, against the chosen baseline. */
  {
    g_autofree char *text = headroom_comparison_dup_differences_text (comparison, 1);
    g_autofree char *none = headroom_comparison_dup_differences_text (comparison, 0);
    g_autofree char *lora = headroom_comparison_dup_differences_text (comparison, 2);

    g_assert_cmpstr (text, ==, "GPU, Nodes, ZeRO stage");
    g_assert_cmpstr (none, ==, "");
    g_assert_cmpstr (lora, ==, "Fine-tuning method");
  }
  headroom_comparison_set_baseline (comparison, 1);
  {
    g_autofree char *lora = headroom_comparison_dup_differences_text (comparison, 2);

    g_assert_cmpstr (lora, ==, "GPU, Nodes, ZeRO stage, Fine-tuning method");
  }
  g_assert_cmpint (headroom_comparison_get_verdict (comparison,
                                                    find_figure (comparison, "memory_per_gpu"), 0),
                   ==, HEADROOM_VERDICT_WORSE);
}

static void
test_inference (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomComparison) comparison = headroom_comparison_new ();
  guint memory, kv;

  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  g_assert_nonnull (headroom_project_keep_scenario (project, "BF16", NULL));
  g_assert_true (headroom_project_set_string (project, "inference.weights", "fp8", NULL));
  g_assert_nonnull (headroom_project_keep_scenario (project, "FP8", NULL));
  headroom_comparison_set_scenarios (comparison, headroom_project_get_scenarios (project));

  for (guint c = 0; c < 2; c++)
    {
      g_autoptr(HeadroomEstimator) estimator = NULL;
      const HrInferenceLatency *l;

      headroom_project_apply_scenario (project, c);
      estimator = headroom_estimator_new (project);
      headroom_estimator_recompute_now (estimator);
      l = headroom_estimator_get_inference_latency (estimator);
      g_assert_cmpfloat (value_of (comparison, "memory_per_gpu", c), ==,
                         headroom_estimator_get_memory_bytes (estimator));
      g_assert_cmpfloat (value_of (comparison, "kv_capacity_tokens", c), ==,
                         headroom_estimator_get_kv_capacity_tokens (estimator));
      g_assert_cmpfloat (value_of (comparison, "time_to_first_token", c), ==,
                         l->time_to_first_token);
      g_assert_cmpfloat (value_of (comparison, "time_per_output_token", c), ==,
                         l->time_per_output_token);
      g_assert_cmpfloat (value_of (comparison, "output_tokens_per_second", c), ==,
                         l->tokens_per_second);
      g_assert_cmpfloat (value_of (comparison, "cost_per_million_tokens", c), ==,
                         l->cost_per_million_tokens);
      /* One H100 SXM (700 W board power) for the 10^6 / tokens-per-second
       * seconds a million tokens take: 700 × 10^6 / (tok/s) / 3.6e6 kWh. */
      g_assert_cmpfloat_with_epsilon (value_of (comparison, "energy_per_million_tokens", c),
                                      700.0 * 1e6 / l->tokens_per_second / 3.6e6, 1e-12);
    }

  /* FP8 weights take 1 byte per parameter instead of 2: 8.03 GB less of
   * weights on the GPU, so less memory and more room for the KV cache. */
  memory = find_figure (comparison, "memory_per_gpu");
  kv = find_figure (comparison, "kv_capacity_tokens");
  g_assert_cmpint (headroom_comparison_get_verdict (comparison, memory, 1), ==,
                   HEADROOM_VERDICT_BETTER);
  g_assert_cmpint (headroom_comparison_get_verdict (comparison, kv, 1), ==,
                   HEADROOM_VERDICT_BETTER);
  /* No training rows. */
  for (guint f = 0; f < headroom_comparison_get_n_figures (comparison); f++)
    {
      g_assert_cmpstr (headroom_comparison_get_figure_name (comparison, f), !=, "step_seconds");
      g_assert_cmpstr (headroom_comparison_get_figure_name (comparison, f), !=, "energy");
    }
}

static void
test_error_column (void)
{
  g_autoptr(HeadroomProject) base = headroom_project_new_default ();
  g_autoptr(HeadroomProject) bad = headroom_project_new_default ();
  g_autoptr(HeadroomComparison) comparison = headroom_comparison_new ();
  g_autofree char *text = NULL;
  double value;

  g_assert_true (headroom_project_set_int (bad, "training.tensor_parallel", 3, NULL));
  headroom_comparison_add (comparison, "Base", base);
  headroom_comparison_add (comparison, "TP 3", bad);
  g_assert_null (headroom_comparison_get_error (comparison, 0));
  /* Named by its label, as everywhere (issue 13). */
  g_assert_cmpstr (headroom_comparison_get_error (comparison, 1), ==,
                   "Tensor parallel: 3 does not divide 8 GPUs");
  g_assert_false (headroom_comparison_get_value (comparison, find_figure (comparison, "memory_per_gpu"),
                                                 1, &value));
  text = headroom_comparison_dup_value_text (comparison, find_figure (comparison, "memory_per_gpu"), 1);
  g_assert_cmpstr (text, ==, "—");
}

/* A scenario with the optimizer step on the CPU and no measured utilisation
 * has its memory and no times ("—", never 0), as its Estimate view. */
static void
test_untimed_column (void)
{
  g_autoptr(HeadroomProject) base = headroom_project_new_default ();
  g_autoptr(HeadroomProject) offloaded = headroom_project_new_default ();
  g_autoptr(HeadroomComparison) comparison = headroom_comparison_new ();
  g_autofree char *step = NULL;
  double value;

  g_assert_true (headroom_project_set_boolean (offloaded, "training.offload_optimizer", TRUE, NULL));
  headroom_comparison_add (comparison, "Base", base);
  headroom_comparison_add (comparison, "Offloaded", offloaded);
  g_assert_null (headroom_comparison_get_error (comparison, 1));
  g_assert_true (headroom_comparison_get_value (comparison, find_figure (comparison, "memory_per_gpu"),
                                                1, &value));
  g_assert_cmpfloat (value, >, 0);
  g_assert_true (headroom_comparison_get_value (comparison, find_figure (comparison, "step_seconds"),
                                                0, &value));
  g_assert_false (headroom_comparison_get_value (comparison, find_figure (comparison, "step_seconds"),
                                                 1, &value));
  g_assert_false (headroom_comparison_get_value (comparison, find_figure (comparison, "cost"),
                                                 1, &value));
  step = headroom_comparison_dup_value_text (comparison, find_figure (comparison, "step_seconds"), 1);
  g_assert_cmpstr (step, ==, "—");
}

static void
test_csv (void)
{
  g_autoptr(HeadroomProject) project = training_scenarios ();
  g_autoptr(HeadroomComparison) comparison = headroom_comparison_new ();
  g_autofree char *csv = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (headroom_project_rename_scenario (project, 2, "=LoRA, r=8", NULL));
  headroom_comparison_set_scenarios (comparison, headroom_project_get_scenarios (project));
  csv = headroom_report_comparison_to_csv (comparison);

  /* The name starting with = is quoted with a leading ' (OWASP), and
   * quoted again for its comma (RFC 4180). */
  g_assert_true (g_str_has_prefix (csv, "figure,label,unit,Today,"
                                        "\"16 × NVIDIA A100 SXM4 80GB, ZeRO stage 3\","
                                        "\"'=LoRA, r=8\"\r\n"));
  g_assert_nonnull (strstr (csv, "\r\ngpus,GPUs,GPUs,8,16,8\r\n"));
  g_assert_nonnull (strstr (csv, "\r\ntrainable_parameters,Trainable parameters,parameters,"
                                 "8030261248,8030261248,3407872\r\n"));
  g_assert_nonnull (strstr (csv, "\r\nbaseline,Baseline,boolean,true,false,false\r\n"));
  g_assert_nonnull (strstr (csv, "\r\ndiffers_from_baseline,Settings that differ,,,"
                                 "GPU; Nodes; ZeRO stage,Fine-tuning method\r\n"));
  g_assert_true (g_str_has_suffix (csv, "\r\nerror,Error,,,,\r\n"));

  /* Every row has 3 + 3 fields: count the commas outside quotes. */
  lines = g_strsplit (csv, "\r\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      guint commas = 0;
      gboolean quoted = FALSE;

      for (const char *p = lines[i]; *p != '\0'; p++)
        if (*p == '"')
          quoted = !quoted;
        else if (*p == ',' && !quoted)
          commas++;
      g_assert_cmpuint (commas, ==, 5);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/comparison/figures-are-the-estimate", test_figures_are_the_estimate);
  g_test_add_func ("/comparison/inference", test_inference);
  g_test_add_func ("/comparison/error-column", test_error_column);
  g_test_add_func ("/comparison/untimed-column", test_untimed_column);
  g_test_add_func ("/comparison/csv", test_csv);

  return g_test_run ();
}
