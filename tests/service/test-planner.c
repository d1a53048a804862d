/* test-planner.c: the planner service searches, coalesces, applies and undoes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The default project is Llama-3.1-8B pretraining on one node of 8 H100 SXM
 * (80 GiB), bf16 mixed precision, AdamW, ZeRO-1, TP 2 with sequence
 * parallelism, selective recomputation, sequences of 8192, global batch 512.
 */
#include <math.h>

#include "headroom-estimator.h"
#include "headroom-planner.h"

#define GIB 1073741824.0

static void
count_cb (HeadroomPlanner *planner,
          guint           *count)
{
  (*count)++;
}

static void
notify_cb (GObject    *object,
           GParamSpec *pspec,
           guint      *count)
{
  (*count)++;
}

/* Runs the default main context until nothing is pending. */
static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static HeadroomPlanRow *
row_at (GListModel *model,
        guint       position)
{
  g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (model, position);

  /* The planner's list keeps the row alive. */
  return row;
}

static void
test_default_project (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
  GListModel *layouts = headroom_planner_get_layouts (planner);
  guint n;

  /* Nothing is searched before the main loop runs. */
  g_assert_cmpuint (g_list_model_get_n_items (layouts), ==, 0);
  drain ();

  n = g_list_model_get_n_items (layouts);
  g_assert_cmpint (headroom_planner_get_status (planner), ==, HEADROOM_PLANNER_STATUS_LAYOUTS);
  g_assert_null (headroom_planner_get_message (planner));
  g_assert_cmpuint (n, >, 0);
  /* At most the 100 fastest are kept, all of them when fewer fit. */
  g_assert_cmpuint (n, ==, MIN (headroom_planner_get_fitting (planner), 100));
  g_assert_cmpint (headroom_planner_get_searched (planner), >=, headroom_planner_get_fitting (planner));

  for (guint i = 0; i < n; i++)
    {
      HeadroomPlanRow *row = row_at (layouts, i);
      double step = headroom_plan_row_get_step_seconds (row);

      g_assert_cmpuint (headroom_plan_row_get_rank (row), ==, i + 1);
      /* Every layout uses all 8 GPUs: tp · pp · cp · dp = 1 node × 8. */
      g_assert_cmpint (headroom_plan_row_get_tensor_parallel (row)
                       * headroom_plan_row_get_pipeline_parallel (row)
                       * headroom_plan_row_get_context_parallel (row)
                       * headroom_plan_row_get_data_parallel (row), ==, 8);
      /* It fits in the H100's 80 GiB, and says so. */
      g_assert_cmpfloat (headroom_plan_row_get_memory (row), >, 0);
      g_assert_cmpfloat (headroom_plan_row_get_memory (row), <=, 80.0 * GIB);
      g_assert_cmpfloat (headroom_plan_row_get_memory_capacity (row), ==, 80.0 * GIB);
      /* Fastest first. */
      g_assert_true (isfinite (step) && step > 0);
      if (i > 0)
        g_assert_cmpfloat (headroom_plan_row_get_step_seconds (row_at (layouts, i - 1)), <=, step);
      /* Tokens per step are fixed (512 × 8192 = 4,194,304), so throughput
       * is that over the step time. */
      g_assert_cmpfloat_with_epsilon (headroom_plan_row_get_tokens_per_second (row),
                                      4194304.0 / step, 1e-9 * 4194304.0 / step);
      g_assert_cmpfloat (headroom_plan_row_get_mfu (row), >, 0);
      g_assert_cmpfloat (headroom_plan_row_get_mfu (row), <, 1);
    }
}

/* One step-time model: the estimate of a layout the planner shows is the
 * planner's figure to the last digit, step time, MFU and throughput; the
 * launch project's own layout included. */
static void
test_estimate_agrees (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  GListModel *layouts = headroom_planner_get_layouts (planner);
  gboolean seen_own = FALSE;
  guint n;

  drain ();
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_false (headroom_estimator_get_mfu_override (estimator));
  {
    g_autofree char *basis = headroom_estimator_dup_time_basis (estimator);

    g_assert_cmpstr (basis, ==, "Predicted from the hardware: published runs of PyTorch "
                                "frameworks (torchtitan, torchtune, llm-foundry, fms-fsdp) "
                                "reached between 52 and 126 % of such predictions");
  }
  g_test_message ("launch project: step %.4f s, MFU %.2f %%",
                  headroom_estimator_get_step_seconds (estimator),
                  100 * headroom_estimator_get_training_time (estimator)->mfu);
  n = g_list_model_get_n_items (layouts);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    {
      HeadroomPlanRow *row = row_at (layouts, i);
      g_autoptr(GError) error = NULL;
      const HrTrainingTime *t;

      /* The project's own layout is among them; it is what Estimate shows. */
      if (headroom_plan_row_get_tensor_parallel (row) == 2
          && headroom_plan_row_get_pipeline_parallel (row) == 1
          && headroom_plan_row_get_context_parallel (row) == 1
          && headroom_plan_row_get_micro_batch (row)
             == headroom_project_get_int (project, "training.micro_batch")
          && headroom_plan_row_get_zero_stage (row) == 1
          && g_str_equal (headroom_plan_row_get_fsdp (row), "none")
          && headroom_plan_row_get_sequence_parallel (row)
          && g_str_equal (headroom_plan_row_get_recompute (row), "selective"))
        {
          headroom_estimator_recompute_now (estimator);
          g_assert_cmpfloat (headroom_estimator_get_step_seconds (estimator), ==,
                             headroom_plan_row_get_step_seconds (row));
          seen_own = TRUE;
        }
      if (i >= 10)
        continue;
      g_assert_true (headroom_planner_apply (planner, row, &error));
      g_assert_no_error (error);
      headroom_estimator_recompute_now (estimator);
      g_assert_null (headroom_estimator_get_error (estimator));
      t = headroom_estimator_get_training_time (estimator);
      g_assert_true (t->predicted);
      g_assert_cmpfloat (t->step_seconds, ==, headroom_plan_row_get_step_seconds (row));
      g_assert_cmpfloat (t->mfu, ==, headroom_plan_row_get_mfu (row));
      g_assert_cmpfloat (t->tokens_per_second, ==, headroom_plan_row_get_tokens_per_second (row));
      while (headroom_planner_get_can_undo (planner))
        g_assert_true (headroom_planner_undo (planner, NULL));
    }
  g_assert_true (seen_own);

  /* A measured utilisation overrides the prediction, and says so. */
  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.4, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_true (headroom_estimator_get_mfu_override (estimator));
  {
    g_autofree char *basis = headroom_estimator_dup_time_basis (estimator);

    g_assert_cmpstr (basis, ==, "From the utilisation set (40 %)");
  }
}

/* The settings' layout pinned: the planner's only row is that layout. */
static const char * const pinned_layout[] = {
  "training.tensor_parallel", "training.pipeline_parallel", "training.virtual_stages",
  "training.context_parallel", "training.expert_parallel", "training.zero_stage",
  "training.fsdp", "training.micro_batch", "training.recompute",
  "training.sequence_parallel", NULL
};

static HeadroomPlanner *
pinned_planner (HeadroomProject    *project,
                const char * const  settings[][2],
                gsize               n_settings)
{
  HeadroomPlanner *planner;

  for (gsize i = 0; i < n_settings; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (headroom_project_set_from_string (project, settings[i][0], settings[i][1],
                                                       &error));
      g_assert_no_error (error);
    }
  planner = headroom_planner_new (project);
  headroom_planner_set_search (planner, 100, 64, pinned_layout);
  return planner;
}

/* An interleaved pipeline whose stages do not divide the layers: Llama 3.1
 * 405B's 126 layers on 8 ranks × 2 stages under torchtitan (FSDP, its
 * stages run by torch.distributed.pipelining), the layout pinned. The
 * planner's row and the estimate of the layout applied agree to the last
 * digit, memory and step. */
static void
test_estimate_agrees_uneven_interleaved (void)
{
  static const char * const settings[][2] = {
    { "model.preset", "llama-3.1-405b" }, { "hardware.gpu", "h100-sxm" },
    { "hardware.nodes", "64" }, { "hardware.gpus_per_node", "8" },
    { "training.framework", "torchtitan" }, { "training.tensor_parallel", "8" },
    { "training.sequence_parallel", "true" }, { "training.pipeline_parallel", "8" },
    { "training.pipeline_schedule", "interleaved" }, { "training.virtual_stages", "2" },
    { "training.micro_batch", "4" }, { "training.global_batch", "256" },
    { "training.seq_len", "8192" }, { "training.recompute", "full" },
  };
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  g_autoptr(GError) error = NULL;
  GListModel *layouts;
  HeadroomPlanRow *row;
  const HrTrainingTime *t;

  planner = pinned_planner (project, settings, G_N_ELEMENTS (settings));
  estimator = headroom_estimator_new (project);
  layouts = headroom_planner_get_layouts (planner);
  headroom_planner_refresh (planner);
  g_assert_cmpuint (g_list_model_get_n_items (layouts), ==, 1);
  row = row_at (layouts, 0);
  g_assert_cmpint (headroom_plan_row_get_virtual_stages (row), ==, 2);
  g_assert_true (headroom_planner_apply (planner, row, &error));
  g_assert_no_error (error);
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  t = headroom_estimator_get_training_time (estimator);
  g_assert_cmpfloat (headroom_estimator_get_training_memory (estimator)->total, ==,
                     headroom_plan_row_get_memory (row));
  g_assert_cmpfloat (t->step_seconds, ==, headroom_plan_row_get_step_seconds (row));
  g_assert_cmpfloat (t->tokens_per_second, ==, headroom_plan_row_get_tokens_per_second (row));
}

/* Async TP is honoured by the search as by the estimate: Llama 3.1 70B
 * under torchtitan with TP 8, sequence parallel and torch.compile on 32
 * nodes, the layout pinned. The planner's row and the estimate agree to the
 * last digit, and async TP shortens the step of both (docs/planner.md,
 * "Async tensor parallel"). */
static void
test_estimate_agrees_async_tp (void)
{
  static const char * const settings[][2] = {
    { "model.preset", "llama-3.1-70b" }, { "hardware.gpu", "h100-sxm" },
    { "hardware.nodes", "32" }, { "hardware.gpus_per_node", "8" },
    { "training.framework", "torchtitan" }, { "training.tensor_parallel", "8" },
    { "training.sequence_parallel", "true" }, { "training.micro_batch", "16" },
    { "training.global_batch", "512" }, { "training.seq_len", "8192" },
    { "training.recompute", "full" }, { "training.compile", "true" },
  };
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  GListModel *layouts;
  double step[2];

  planner = pinned_planner (project, settings, G_N_ELEMENTS (settings));
  estimator = headroom_estimator_new (project);
  layouts = headroom_planner_get_layouts (planner);
  for (guint async = 0; async < 2; async++)
    {
      HeadroomPlanRow *row;

      g_assert_true (headroom_project_set_boolean (project, "training.async_tp", async, NULL));
      headroom_planner_refresh (planner);
      g_assert_cmpuint (g_list_model_get_n_items (layouts), ==, 1);
      row = row_at (layouts, 0);
      headroom_estimator_recompute_now (estimator);
      g_assert_null (headroom_estimator_get_error (estimator));
      step[async] = headroom_estimator_get_step_seconds (estimator);
      g_assert_cmpfloat (step[async], ==, headroom_plan_row_get_step_seconds (row));
    }
  g_assert_cmpfloat (step[1], <, step[0]);
}

/* The search offers only the sharding a project's framework has
 * (docs/planner.md, "Search"): Llama 3.1 8B on 2 nodes of 8 A100s, nothing
 * pinned. torchtitan shards with FSDP2 (ZeRO stage 0 in every row, FSDP
 * full among them), Megatron with its distributed optimizer (ZeRO 0 or 1,
 * no FSDP), DeepSpeed with ZeRO (no FSDP, ZeRO 3 among them). */
static void
test_framework_sharding (void)
{
  static const char * const frameworks[] = { "torchtitan", "megatron", "deepspeed" };

  for (gsize f = 0; f < G_N_ELEMENTS (frameworks); f++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new_default ();
      g_autoptr(HeadroomPlanner) planner = NULL;
      GListModel *layouts;
      gboolean fsdp_full = FALSE, zero3 = FALSE;

      g_assert_true (headroom_project_set_from_string (project, "hardware.gpu", "a100-80gb-sxm",
                                                       NULL));
      g_assert_true (headroom_project_set_from_string (project, "hardware.nodes", "2", NULL));
      g_assert_true (headroom_project_set_from_string (project, "training.global_batch", "64",
                                                       NULL));
      g_assert_true (headroom_project_set_from_string (project, "training.seq_len", "4096",
                                                       NULL));
      g_assert_true (headroom_project_set_from_string (project, "training.framework",
                                                       frameworks[f], NULL));
      planner = headroom_planner_new (project);
      headroom_planner_set_search (planner, 100, 64, NULL);
      headroom_planner_refresh (planner);
      layouts = headroom_planner_get_layouts (planner);
      g_assert_cmpuint (g_list_model_get_n_items (layouts), >, 0);
      for (guint i = 0; i < g_list_model_get_n_items (layouts); i++)
        {
          g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (layouts, i);
          int zero = headroom_plan_row_get_zero_stage (row);
          const char *fsdp = headroom_plan_row_get_fsdp (row);

          if (f == 0)
            g_assert_cmpint (zero, ==, 0);
          else
            g_assert_cmpstr (fsdp, ==, "none");
          if (f == 1)
            g_assert_cmpint (zero, <=, 1);
          fsdp_full = fsdp_full || g_str_equal (fsdp, "full");
          zero3 = zero3 || zero == 3;
        }
      g_assert_true (f != 0 || fsdp_full);
      g_assert_true (f != 2 || zero3);
    }
}

/* The search offers only the layouts a project's framework can run
 * (headroom-framework.c): Llama 3.1 70B on 8 nodes of 8 H100s, 128 × 8,192
 * tokens. With no framework the fastest layout splits the sequence (CP 2)
 * and interleaved pipelines are searched; DeepSpeed's rows have neither
 * (its pipeline engine runs 1F1B over one chunk per stage, and it has no
 * ring attention), torchtune's no pipeline (but context parallel), and
 * neither Megatron's selective recomputation. A pinned context parallel
 * DeepSpeed cannot run is refused, naming it, as the estimate refuses it. */
static void
test_framework_layouts (void)
{
  static const char * const frameworks[] = { "none", "deepspeed", "torchtune" };
  static const char * const pinned[] = { "training.context_parallel", NULL };

  for (gsize f = 0; f < G_N_ELEMENTS (frameworks); f++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new_default ();
      g_autoptr(HeadroomPlanner) planner = NULL;
      GListModel *lists[2];
      gint64 most_cp = 1, most_pp = 1, most_vs = 1;
      gint64 searched;

      g_assert_true (headroom_project_set_from_string (project, "model.preset", "llama-3.1-70b",
                                                       NULL));
      g_assert_true (headroom_project_set_from_string (project, "hardware.gpu", "h100-sxm", NULL));
      g_assert_true (headroom_project_set_from_string (project, "hardware.nodes", "8", NULL));
      g_assert_true (headroom_project_set_from_string (project, "training.global_batch", "128",
                                                       NULL));
      g_assert_true (headroom_project_set_from_string (project, "training.seq_len", "8192",
                                                       NULL));
      g_assert_true (headroom_project_set_string (project, "training.framework", frameworks[f],
                                                  NULL));
      planner = headroom_planner_new (project);
      headroom_planner_set_search (planner, 100, 64, NULL);
      headroom_planner_refresh (planner);
      g_assert_cmpint (headroom_planner_get_status (planner), ==,
                       HEADROOM_PLANNER_STATUS_LAYOUTS);
      searched = headroom_planner_get_searched (planner);
      {
        g_autofree char *scope = headroom_planner_dup_scope (planner);

        if (f == 0)
          g_assert_null (scope);
        else
          g_assert_cmpstr (scope, ==, f == 1 ? "Only layouts DeepSpeed runs are searched"
                                             : "Only layouts torchtune runs are searched");
      }
      lists[0] = headroom_planner_get_layouts (planner);
      lists[1] = headroom_planner_get_pareto (planner);
      for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
        for (guint i = 0; i < g_list_model_get_n_items (lists[l]); i++)
          {
            g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (lists[l], i);

            const char *recompute = headroom_plan_row_get_recompute (row);

            /* Megatron's selective recomputation is none of theirs. */
            if (f > 0)
              g_assert_cmpstr (recompute, !=, "selective");
            most_cp = MAX (most_cp, headroom_plan_row_get_context_parallel (row));
            most_pp = MAX (most_pp, headroom_plan_row_get_pipeline_parallel (row));
            most_vs = MAX (most_vs, headroom_plan_row_get_virtual_stages (row));
          }
      if (f == 0)
        {
          g_autoptr(HeadroomPlanRow) first = g_list_model_get_item (lists[0], 0);

          g_assert_cmpint (headroom_plan_row_get_context_parallel (first), >, 1);
          g_assert_cmpint (most_pp, >, 1);
          g_assert_cmpint (most_vs, >, 1);
        }
      else if (f == 1)
        {
          g_assert_cmpint (most_cp, ==, 1);
          g_assert_cmpint (most_vs, ==, 1);
          g_assert_cmpint (most_pp, >, 1);
        }
      else
        {
          g_assert_cmpint (most_pp, ==, 1);
          g_assert_cmpint (most_cp, >, 1);
        }

      /* Pinned at 2: DeepSpeed refuses it; the others search it. */
      g_assert_true (headroom_project_set_from_string (project, "training.context_parallel", "2",
                                                       NULL));
      headroom_planner_set_search (planner, 100, 64, pinned);
      headroom_planner_refresh (planner);
      if (f == 1)
        {
          g_assert_cmpint (headroom_planner_get_status (planner), ==,
                           HEADROOM_PLANNER_STATUS_INVALID);
          g_assert_cmpstr (headroom_project_error_get_key (headroom_planner_get_error (planner)),
                           ==, "training.context_parallel");
        }
      else
        {
          g_assert_cmpint (headroom_planner_get_status (planner), ==,
                           HEADROOM_PLANNER_STATUS_LAYOUTS);
          g_assert_cmpint (headroom_planner_get_searched (planner), <, searched);
        }
    }
}

/* Llama 3.1 8B on 2 nodes of 8 H100s, 64 × 4,096 tokens, under
 * `framework`, fine-tuned by `method`. */
static HeadroomProject *
framework_project (const char *framework,
                   const char *method)
{
  HeadroomProject *project = headroom_project_new_default ();

  g_assert_true (headroom_project_set_from_string (project, "hardware.nodes", "2", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.global_batch", "64", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.seq_len", "4096", NULL));
  g_assert_true (headroom_project_set_string (project, "training.framework", framework, NULL));
  g_assert_true (headroom_project_set_string (project, "training.method", method, NULL));
  return project;
}

/* What the Plan view proposes, each framework can run and the estimate
 * agrees with: full fine-tuning and LoRA under every framework. Each row
 * of the fastest and of the front, written into a fresh copy of the
 * project as "Use This Layout" writes it, passes the framework's check and
 * estimates the row's step to the last digit. */
static void
test_framework_rows_run (void)
{
  static const char * const frameworks[] = {
    "none", "megatron", "deepspeed", "fsdp", "torchtitan", "hf", "torchtune",
  };
  static const char * const methods[] = { "full", "lora" };

  for (gsize f = 0; f < G_N_ELEMENTS (frameworks); f++)
    for (gsize m = 0; m < G_N_ELEMENTS (methods); m++)
      {
        g_autoptr(HeadroomProject) project = framework_project (frameworks[f], methods[m]);
        g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
        GListModel *lists[2];
        guint rows = 0;

        headroom_planner_set_search (planner, 100, 64, NULL);
        headroom_planner_refresh (planner);
        g_assert_cmpint (headroom_planner_get_status (planner), ==,
                         HEADROOM_PLANNER_STATUS_LAYOUTS);
        lists[0] = headroom_planner_get_layouts (planner);
        lists[1] = headroom_planner_get_pareto (planner);
        for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
          for (guint i = 0; i < g_list_model_get_n_items (lists[l]); i++)
            {
              g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (lists[l], i);
              g_autoptr(HeadroomProject) copy = framework_project (frameworks[f], methods[m]);
              g_autoptr(HeadroomEstimator) estimator = NULL;
              const char * const *keys = headroom_plan_row_get_keys ();

              for (guint k = 0; keys[k] != NULL; k++)
                {
                  g_autofree char *value = headroom_plan_row_dup_value (row, keys[k]);

                  g_assert_true (headroom_project_set_from_string (copy, keys[k], value, NULL));
                }
              estimator = headroom_estimator_new (copy);
              headroom_estimator_recompute_now (estimator);
              g_assert_null (headroom_estimator_get_error (estimator));
              g_assert_cmpfloat (headroom_estimator_get_step_seconds (estimator), ==,
                                 headroom_plan_row_get_step_seconds (row));
              rows++;
            }
        g_assert_cmpuint (rows, >, 0);
      }
}

/* The search keeps the project's one-stage schedule: Llama 3.1 70B on 8
 * nodes, TP 8 × PP 4, the layout pinned, under 1F1B, GPipe and ZB-H1. The
 * planner's row and the estimate agree to the last digit under each (the
 * search took 1F1B for every one-stage layout before), and ZB-H1's step is
 * the shortest, GPipe's memory the largest (all micro-batches in flight). */
static void
test_estimate_agrees_schedules (void)
{
  static const char * const settings[][2] = {
    { "model.preset", "llama-3.1-70b" }, { "hardware.gpu", "h100-sxm" },
    { "hardware.nodes", "8" }, { "hardware.gpus_per_node", "8" },
    { "training.tensor_parallel", "8" }, { "training.sequence_parallel", "true" },
    { "training.pipeline_parallel", "4" }, { "training.micro_batch", "1" },
    { "training.global_batch", "32" }, { "training.seq_len", "4096" },
    { "training.recompute", "full" },
  };
  static const char * const schedules[] = { "1f1b", "gpipe", "zb-h1" };
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  GListModel *layouts;
  double step[3], memory[3];

  planner = pinned_planner (project, settings, G_N_ELEMENTS (settings));
  estimator = headroom_estimator_new (project);
  layouts = headroom_planner_get_layouts (planner);
  for (guint i = 0; i < G_N_ELEMENTS (schedules); i++)
    {
      HeadroomPlanRow *row;

      g_assert_true (headroom_project_set_string (project, "training.pipeline_schedule",
                                                  schedules[i], NULL));
      headroom_planner_refresh (planner);
      g_assert_cmpuint (g_list_model_get_n_items (layouts), ==, 1);
      row = row_at (layouts, 0);
      headroom_estimator_recompute_now (estimator);
      g_assert_null (headroom_estimator_get_error (estimator));
      step[i] = headroom_estimator_get_step_seconds (estimator);
      memory[i] = headroom_estimator_get_training_memory (estimator)->total;
      g_assert_cmpfloat (step[i], ==, headroom_plan_row_get_step_seconds (row));
      g_assert_cmpfloat (memory[i], ==, headroom_plan_row_get_memory (row));
    }
  g_assert_cmpfloat (step[2], <, step[0]);
  g_assert_cmpfloat (memory[2], ==, memory[0]);
  g_assert_cmpfloat (memory[1], >, memory[0]);
}

static void
test_row_getters (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
  HeadroomPlanRow *row;
  const HrPlanLayout *layout;
  double parts = 0;
  guint n_comms = 0;
  const char *name;
  double seconds, exposed;

  headroom_planner_refresh (planner);
  row = row_at (headroom_planner_get_layouts (planner), 0);
  layout = headroom_plan_row_get_layout (row);

  /* The parts add up to the step time (hr-planner.h: "they add up"). */
  for (HeadroomPlanPart p = 0; p < HEADROOM_PLAN_N_PARTS; p++)
    {
      g_assert_cmpfloat (headroom_plan_row_get_part_seconds (row, p), >=, 0);
      parts += headroom_plan_row_get_part_seconds (row, p);
    }
  g_assert_cmpfloat_with_epsilon (parts, headroom_plan_row_get_step_seconds (row),
                                  1e-9 * parts);
  g_assert_cmpfloat (headroom_plan_row_get_part_seconds (row, HEADROOM_PLAN_PART_COMPUTE), ==,
                     layout->step.split.compute);

  /* Five kinds of communication, named as the planner names them; none is
   * exposed beyond its link time. */
  while (headroom_plan_row_get_comm (row, n_comms, &name, &seconds, &exposed))
    {
      static const char * const names[] = { "tp", "pp", "dp", "cp", "ep" };

      g_assert_cmpstr (name, ==, names[n_comms]);
      g_assert_cmpfloat (exposed, <=, seconds);
      n_comms++;
    }
  g_assert_cmpuint (n_comms, ==, 5);

  g_assert_true (g_strv_contains ((const char * const[]) { "compute", "memory", "communication",
                                                           "bubble", NULL },
                                  headroom_plan_row_get_bound (row)));
  g_assert_true (g_strv_contains ((const char * const[]) { "none", "selective", "full", NULL },
                                  headroom_plan_row_get_recompute (row)));
  g_assert_true (g_strv_contains ((const char * const[]) { "none", "full", "grad-op", "hybrid",
                                                           NULL },
                                  headroom_plan_row_get_fsdp (row)));
  g_assert_cmpuint (g_strv_length ((GStrv) headroom_plan_row_get_keys ()), ==, 11);
}

static void
test_pareto (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
  GListModel *layouts = headroom_planner_get_layouts (planner);
  GListModel *pareto = headroom_planner_get_pareto (planner);
  guint n;

  headroom_planner_refresh (planner);
  n = g_list_model_get_n_items (pareto);
  g_assert_cmpuint (n, >, 0);

  /* Least memory first; along the front each point buys throughput with
   * memory, or an earlier point would beat it in both. */
  for (guint i = 1; i < n; i++)
    {
      g_assert_cmpfloat (headroom_plan_row_get_memory (row_at (pareto, i - 1)), <,
                         headroom_plan_row_get_memory (row_at (pareto, i)));
      g_assert_cmpfloat (headroom_plan_row_get_tokens_per_second (row_at (pareto, i - 1)), <,
                         headroom_plan_row_get_tokens_per_second (row_at (pareto, i)));
    }
  /* Its last point is the fastest layout's throughput, and its first uses
   * no more memory than any listed layout. */
  g_assert_cmpfloat (headroom_plan_row_get_tokens_per_second (row_at (pareto, n - 1)), ==,
                     headroom_plan_row_get_tokens_per_second (row_at (layouts, 0)));
  for (guint i = 0; i < g_list_model_get_n_items (layouts); i++)
    g_assert_cmpfloat (headroom_plan_row_get_memory (row_at (pareto, 0)), <=,
                       headroom_plan_row_get_memory (row_at (layouts, i)));
}

/* The value of `key` as a project file writes it for the layout of `row`. */
static char *
expected_value (HeadroomPlanRow *row,
                const char      *key)
{
  if (g_str_equal (key, "training.tensor_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_tensor_parallel (row));
  if (g_str_equal (key, "training.pipeline_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_pipeline_parallel (row));
  if (g_str_equal (key, "training.pipeline_schedule"))
    return g_strdup (headroom_plan_row_get_virtual_stages (row) > 1 ? "interleaved" : "1f1b");
  if (g_str_equal (key, "training.virtual_stages"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_virtual_stages (row));
  if (g_str_equal (key, "training.context_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_context_parallel (row));
  if (g_str_equal (key, "training.expert_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_expert_parallel (row));
  if (g_str_equal (key, "training.zero_stage"))
    return g_strdup_printf ("%d", headroom_plan_row_get_zero_stage (row));
  if (g_str_equal (key, "training.fsdp"))
    return g_strdup (headroom_plan_row_get_fsdp (row));
  if (g_str_equal (key, "training.sequence_parallel"))
    return g_strdup (headroom_plan_row_get_sequence_parallel (row) ? "true" : "false");
  if (g_str_equal (key, "training.micro_batch"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_micro_batch (row));
  if (g_str_equal (key, "training.recompute"))
    return g_strdup (headroom_plan_row_get_recompute (row));
  g_assert_not_reached ();
}

static void
test_apply_and_undo (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
  g_autoptr(GError) error = NULL;
  const char * const *keys = headroom_plan_row_get_keys ();
  g_auto(GStrv) before = g_new0 (char *, g_strv_length ((GStrv) keys) + 1);
  HeadroomPlanRow *row;
  guint updates = 0, undo_notifies = 0, changed = 0;

  drain ();
  row = row_at (headroom_planner_get_layouts (planner), 0);
  for (guint i = 0; keys[i] != NULL; i++)
    before[i] = headroom_project_dup_value_string (project, keys[i]);
  g_signal_connect (planner, "updated", G_CALLBACK (count_cb), &updates);
  g_signal_connect (planner, "notify::can-undo", G_CALLBACK (notify_cb), &undo_notifies);
  g_assert_false (headroom_planner_get_can_undo (planner));

  /* The fastest layout replaces the project's; the default's ZeRO-1, TP 2
   * and micro-batch 1 is not it, so at least one key changes. */
  g_assert_true (headroom_planner_apply (planner, row, &error));
  g_assert_no_error (error);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *expected = expected_value (row, keys[i]);
      g_autofree char *value = headroom_project_dup_value_string (project, keys[i]);

      g_assert_cmpstr (value, ==, expected);
      if (g_strcmp0 (value, before[i]) != 0)
        changed++;
    }
  g_assert_cmpuint (changed, >, 0);
  g_assert_true (headroom_planner_get_can_undo (planner));
  g_assert_cmpuint (headroom_planner_get_n_undo (planner), ==, 1);
  g_assert_cmpuint (undo_notifies, ==, 1);
  /* The written layout is consistent with the hardware and batch. */
  g_assert_true (headroom_project_validate (project, &error));
  g_assert_no_error (error);
  /* Layout keys do not change the search. */
  drain ();
  g_assert_cmpuint (updates, ==, 0);

  /* Applying it again changes nothing and records nothing. */
  g_assert_true (headroom_planner_apply (planner, row, &error));
  g_assert_cmpuint (headroom_planner_get_n_undo (planner), ==, 1);

  /* Undo restores every key and empties the history. */
  g_assert_true (headroom_planner_undo (planner, &error));
  g_assert_no_error (error);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *value = headroom_project_dup_value_string (project, keys[i]);

      g_assert_cmpstr (value, ==, before[i]);
    }
  g_assert_false (headroom_planner_get_can_undo (planner));
  g_assert_cmpuint (undo_notifies, ==, 2);

  /* Another project starts with no history. */
  g_assert_true (headroom_planner_apply (planner, row, &error));
  g_assert_true (headroom_planner_get_can_undo (planner));
  {
    g_autoptr(HeadroomProject) other = headroom_project_new_default ();

    headroom_planner_set_project (planner, other);
  }
  g_assert_false (headroom_planner_get_can_undo (planner));
}

static void
test_nothing_fits (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
  const char *message;

  /* One 80 GiB GPU cannot hold Llama-3.1-8B's mixed-precision AdamW states
   * alone: 16 bytes × 8,030,261,248 parameters = 119.7 GiB, and one GPU has
   * nothing to shard them over. */
  headroom_project_set_int (project, "hardware.gpus_per_node", 1, NULL);
  drain ();
  g_assert_cmpint (headroom_planner_get_status (planner), ==, HEADROOM_PLANNER_STATUS_NOTHING_FITS);
  message = headroom_planner_get_message (planner);
  g_assert_nonnull (message);
  g_assert_true (g_str_has_prefix (message, "No layout of 1 GPU fits a model of 8.03 B parameters "
                                            "in 80.0 GiB per GPU ("));
  g_assert_cmpint (headroom_planner_get_fitting (planner), ==, 0);
  g_assert_cmpint (headroom_planner_get_searched (planner), >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_planner_get_layouts (planner)), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_planner_get_pareto (planner)), ==, 0);

  /* A framework's bounds may be why: the message says whose layouts were
   * searched (torchtune's, here, for 70B, whose 140 GB of bf16 weights
   * alone overflow the GPU; without a framework it names none, above). */
  g_assert_null (strstr (message, "Only layouts"));
  headroom_project_set_string (project, "training.framework", "torchtune", NULL);
  headroom_project_set_string (project, "model.preset", "llama-3.1-70b", NULL);
  drain ();
  g_assert_cmpint (headroom_planner_get_status (planner), ==, HEADROOM_PLANNER_STATUS_NOTHING_FITS);
  g_assert_true (g_str_has_suffix (headroom_planner_get_message (planner),
                                   " Only layouts torchtune runs are searched."));
  headroom_project_set_string (project, "training.framework", "none", NULL);
  headroom_project_set_string (project, "model.preset", "llama-3.1-8b", NULL);

  /* Back to 8 GPUs: layouts again. */
  headroom_project_set_int (project, "hardware.gpus_per_node", 8, NULL);
  drain ();
  g_assert_cmpint (headroom_planner_get_status (planner), ==, HEADROOM_PLANNER_STATUS_LAYOUTS);
  g_assert_null (headroom_planner_get_message (planner));
  g_assert_cmpuint (g_list_model_get_n_items (headroom_planner_get_layouts (planner)), >, 0);
}

static void
test_cannot_plan (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (NULL);

  g_assert_cmpint (headroom_planner_get_status (planner), ==, HEADROOM_PLANNER_STATUS_NO_PROJECT);
  g_assert_nonnull (headroom_planner_get_message (planner));

  /* A global batch of 0 is one micro-batch per GPU: 8 on the default
   * project's 8 GPUs. */
  headroom_project_set_int (project, "training.global_batch", 0, NULL);
  headroom_planner_set_project (planner, project);
  headroom_planner_refresh (planner);
  g_assert_cmpint (headroom_planner_get_status (planner), ==, HEADROOM_PLANNER_STATUS_LAYOUTS);
  g_assert_cmpint (headroom_planner_get_global_batch (planner), ==, 8);

  /* An inference project has no training layout to plan. */
  headroom_project_set_int (project, "training.global_batch", 512, NULL);
  headroom_project_set_string (project, "workload", "inference", NULL);
  headroom_planner_refresh (planner);
  g_assert_cmpint (headroom_planner_get_status (planner), ==, HEADROOM_PLANNER_STATUS_NOT_TRAINING);
  g_assert_cmpstr (headroom_planner_get_message (planner), ==,
                   "The planner searches the parallel layouts of a training run. "
                   "Switch the workload to training to plan it.");
}

static void
test_coalescing (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomPlanner) planner = headroom_planner_new (project);
  guint updates = 0, searched_notifies = 0;

  g_signal_connect (planner, "updated", G_CALLBACK (count_cb), &updates);
  g_signal_connect (planner, "notify::searched", G_CALLBACK (notify_cb), &searched_notifies);
  drain ();
  g_assert_cmpuint (updates, ==, 1);
  g_assert_cmpuint (searched_notifies, ==, 1);

  /* Three changes, one search. */
  headroom_project_set_int (project, "hardware.gpus_per_node", 4, NULL);
  headroom_project_set_int (project, "training.seq_len", 4096, NULL);
  headroom_project_set_int (project, "training.global_batch", 256, NULL);
  drain ();
  g_assert_cmpuint (updates, ==, 2);

  /* Keys the search does not read cost nothing. */
  headroom_project_set_int (project, "training.tensor_parallel", 4, NULL);
  headroom_project_set_double (project, "hardware.price_per_gpu_hour", 3.0, NULL);
  headroom_project_set_int (project, "inference.batch", 8, NULL);
  drain ();
  g_assert_cmpuint (updates, ==, 2);

  /* Inactive, changes wait; becoming active searches at once, once. */
  headroom_planner_set_active (planner, FALSE);
  headroom_project_set_int (project, "hardware.gpus_per_node", 8, NULL);
  headroom_project_set_int (project, "training.seq_len", 8192, NULL);
  drain ();
  g_assert_cmpuint (updates, ==, 2);
  headroom_planner_set_active (planner, TRUE);
  g_assert_cmpuint (updates, ==, 3);
  drain ();
  g_assert_cmpuint (updates, ==, 3);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/planner/default-project", test_default_project);
  g_test_add_func ("/planner/row-getters", test_row_getters);
  g_test_add_func ("/planner/estimate-agrees", test_estimate_agrees);
  g_test_add_func ("/planner/estimate-agrees-uneven-interleaved",
                   test_estimate_agrees_uneven_interleaved);
  g_test_add_func ("/planner/estimate-agrees-async-tp", test_estimate_agrees_async_tp);
  g_test_add_func ("/planner/estimate-agrees-schedules", test_estimate_agrees_schedules);
  g_test_add_func ("/planner/pareto", test_pareto);
  g_test_add_func ("/planner/framework-sharding", test_framework_sharding);
  g_test_add_func ("/planner/framework-layouts", test_framework_layouts);
  g_test_add_func ("/planner/framework-rows-run", test_framework_rows_run);
  g_test_add_func ("/planner/apply-and-undo", test_apply_and_undo);
  g_test_add_func ("/planner/nothing-fits", test_nothing_fits);
  g_test_add_func ("/planner/cannot-plan", test_cannot_plan);
  g_test_add_func ("/planner/coalescing", test_coalescing);

  return g_test_run ();
}
