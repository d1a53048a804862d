/* test-estimator.c: recomputation, coalescing and error states
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "headroom-estimator.h"
#include "headroom-flops-row.h"
#include "headroom-quantity.h"

static HeadroomProject *
custom_gpu_project (void)
{
  HeadroomProject *project = headroom_project_new_default ();

  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "custom", NULL));
  /* Plain data parallelism keeps the figures below easy to derive. */
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 1, NULL));
  g_assert_true (headroom_project_set_boolean (project, "training.sequence_parallel", FALSE, NULL));
  return project;
}

static void
count_cb (HeadroomEstimator *estimator,
          guint             *count)
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

static double
sum_values (GListModel *model)
{
  double sum = 0;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (model, i);

      g_assert_true (isfinite (headroom_quantity_get_value (q)));
      g_assert_cmpfloat (headroom_quantity_get_value (q), >=, 0);
      sum += headroom_quantity_get_value (q);
    }
  return sum;
}

static void
test_coalescing (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  guint updates = 0;
  guint memory_notifies = 0;

  g_signal_connect (estimator, "updated", G_CALLBACK (count_cb), &updates);
  /* What the window binds to is notified once per recomputation. */
  g_signal_connect (estimator, "notify::memory-bytes", G_CALLBACK (notify_cb), &memory_notifies);
  g_assert_false (headroom_estimator_get_has_result (estimator));
  drain ();
  g_assert_cmpuint (updates, ==, 1);
  g_assert_true (headroom_estimator_get_has_result (estimator));
  g_assert_null (headroom_estimator_get_error (estimator));

  /* A burst of five changes costs one recomputation. */
  headroom_project_set_int (project, "training.micro_batch", 2, NULL);
  headroom_project_set_int (project, "training.seq_len", 4096, NULL);
  headroom_project_set_int (project, "training.zero_stage", 3, NULL);
  headroom_project_set_string (project, "training.recompute", "full", NULL);
  headroom_project_set_double (project, "training.mfu", 0.5, NULL);
  g_assert_cmpuint (updates, ==, 1);
  drain ();
  g_assert_cmpuint (updates, ==, 2);
  g_assert_cmpuint (memory_notifies, ==, 2);

  /* recompute_now runs at once and cancels the pending one. */
  headroom_project_set_int (project, "training.micro_batch", 4, NULL);
  headroom_estimator_recompute_now (estimator);
  g_assert_cmpuint (updates, ==, 3);
  drain ();
  g_assert_cmpuint (updates, ==, 3);
  g_assert_cmpint (headroom_estimator_get_flops (estimator)->tokens, ==, 4 * 4096);
}

static void
count_items_changed (GListModel *model,
                     guint       position,
                     guint       removed,
                     guint       added,
                     guint      *count)
{
  (*count)++;
}

/* An edit that changes only figures keeps the parameter rows and updates
 * their values (a view bound to the list is not rebuilt). Llama 3.1 8B's
 * attention per layer: q and o 4096 × 4096, k and v 4096 × 1024 (8 key/value
 * heads of 128), no biases: 41 943 040; 32 layers: 1 342 177 280, 40 layers:
 * 1 677 721 600. */
static void
test_params_in_place (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autoptr(HeadroomQuantity) attention = NULL;
  g_autoptr(HeadroomQuantity) after = NULL;
  GListModel *rows;
  guint changes = 0;

  headroom_estimator_recompute_now (estimator);
  rows = headroom_estimator_get_params_rows (estimator);
  attention = g_list_model_get_item (rows, 2);
  g_assert_cmpstr (headroom_quantity_get_name (attention), ==, "attention");
  g_assert_cmpfloat (headroom_quantity_get_value (attention), ==, 1342177280.0);
  g_signal_connect (rows, "items-changed", G_CALLBACK (count_items_changed), &changes);

  g_assert_true (headroom_project_set_int (project, "model.num_hidden_layers", 40, NULL));
  headroom_estimator_recompute_now (estimator);
  after = g_list_model_get_item (rows, 2);
  g_assert_true (after == attention);
  g_assert_cmpfloat (headroom_quantity_get_value (attention), ==, 1677721600.0);
  g_assert_cmpuint (changes, ==, 0);
  g_signal_handlers_disconnect_by_func (rows, count_items_changed, &changes);
}

static void
test_training_result (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  GListModel *segments, *flops_rows, *params_rows;
  const HrTrainingMemory *memory;
  g_autoptr(HeadroomFlopsRow) total_row = NULL;
  g_autoptr(HeadroomQuantity) total_params = NULL;
  double flops_total = 0;

  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));

  /* 8 030 261 248 parameters (derivation in test-project.h). */
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, 8030261248.0);
  params_rows = headroom_estimator_get_params_rows (estimator);
  total_params = g_list_model_get_item (params_rows, 8);
  g_assert_cmpstr (headroom_quantity_get_name (total_params), ==, "total");
  g_assert_cmpfloat (headroom_quantity_get_value (total_params), ==, 8030261248.0);

  /* The segments add up to the total the bar shows. */
  memory = headroom_estimator_get_training_memory (estimator);
  segments = headroom_estimator_get_memory_segments (estimator);
  /* weights … temporary, the allocator's rounding, overhead */
  g_assert_cmpuint (g_list_model_get_n_items (segments), ==, 9);
  g_assert_cmpfloat_with_epsilon (sum_values (segments), memory->total, 1.0);
  g_assert_cmpfloat (headroom_estimator_get_memory_bytes (estimator), ==, memory->total);
  /* 80 GiB, the custom GPU's default. */
  g_assert_cmpfloat (headroom_estimator_get_memory_capacity (estimator), ==, 80.0 * 1073741824.0);

  /* 4 bytes of master weights per parameter, ZeRO-1 over 8 data-parallel ranks:
   * 8 030 261 248 × 4 / 8 = 4 015 130 624 bytes. */
  g_assert_cmpfloat (memory->master_weights, ==, 4015130624.0);

  /* The FLOPs rows add up to the total row, and the total to the core's;
   * the dense Llama has no router row, so the components less one. */
  flops_rows = headroom_estimator_get_flops_rows (estimator);
  g_assert_cmpuint (g_list_model_get_n_items (flops_rows), ==, HR_FLOPS_N_COMPONENTS);
  for (guint i = 0; i + 1 < HR_FLOPS_N_COMPONENTS; i++)
    {
      g_autoptr(HeadroomFlopsRow) row = g_list_model_get_item (flops_rows, i);

      g_assert_cmpstr (headroom_flops_row_get_name (row), !=, "router");
      flops_total += headroom_flops_row_get_total (row);
    }
  total_row = g_list_model_get_item (flops_rows, HR_FLOPS_N_COMPONENTS - 1);
  g_assert_cmpfloat_with_epsilon (flops_total / headroom_flops_row_get_total (total_row), 1.0, 1e-12);
  g_assert_cmpfloat (headroom_flops_row_get_total (total_row), ==,
                     headroom_estimator_get_flops (estimator)->total);
  g_assert_cmpfloat (headroom_flops_row_get_share (total_row), ==, 1.0);

  g_assert_cmpfloat (headroom_estimator_get_step_seconds (estimator), >, 0);
  g_assert_true (isfinite (headroom_estimator_get_cost (estimator)));
  g_assert_cmpuint (g_list_model_get_n_items (headroom_estimator_get_summary (estimator)), >, 10);
}

static double
segment_value (GListModel *segments,
               const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (segments); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);

      if (g_str_equal (headroom_quantity_get_name (q), name))
        return headroom_quantity_get_value (q);
    }
  g_assert_not_reached ();
  return 0;
}

static const char *
quantity_detail (GListModel *quantities,
                 const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (quantities); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (quantities, i);

      if (g_str_equal (headroom_quantity_get_name (q), name))
        return headroom_quantity_get_detail (q);
    }
  g_assert_not_reached ();
  return NULL;
}

static HeadroomQuantity *find_quantity (GListModel *model,
                                        const char *name);

/* Without training tokens the run has no length: steps, time, GPU-hours,
 * cost and energy say they need "Training tokens" instead of a 0; the step
 * time does not depend on them and stays a result. With 1e12 tokens the
 * steps are ⌈1e12 ÷ (512 × 8192)⌉ = ⌈238 418.6⌉ = 238 419 (default global
 * batch 512 sequences of 8 192 tokens). */
static void
test_training_needs_tokens (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  static const char * const run[] = { "steps", "total_seconds", "gpu_hours", "cost" };
  g_autoptr(HeadroomQuantity) step = NULL;
  GListModel *summary;

  g_assert_true (headroom_project_set_double (project, "training.tokens", 0, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  summary = headroom_estimator_get_summary (estimator);
  for (guint i = 0; i < G_N_ELEMENTS (run); i++)
    {
      g_autoptr(HeadroomQuantity) q = find_quantity (summary, run[i]);

      g_assert_cmpstr (headroom_quantity_get_needs (q), ==, "Training tokens");
    }
  step = find_quantity (summary, "step_seconds");
  g_assert_null (headroom_quantity_get_needs (step));
  g_assert_cmpfloat (headroom_quantity_get_value (step), >, 0);

  g_assert_true (headroom_project_set_double (project, "training.tokens", 1e12, NULL));
  headroom_estimator_recompute_now (estimator);
  summary = headroom_estimator_get_summary (estimator);
  for (guint i = 0; i < G_N_ELEMENTS (run); i++)
    {
      g_autoptr(HeadroomQuantity) q = find_quantity (summary, run[i]);

      g_assert_null (headroom_quantity_get_needs (q));
    }
  g_assert_cmpfloat (segment_value (summary, "steps"), ==, 238419.0);
}

/* The Compute table lists the router for a mixture of experts only: Mixtral
 * 8x7B has 8 experts, so its table has every component and the total. */
static void
test_flops_router_moe_only (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  GListModel *rows;
  gboolean router = FALSE;

  g_assert_true (headroom_project_set_string (project, "model.preset", "mixtral-8x7b", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  rows = headroom_estimator_get_flops_rows (estimator);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, HR_FLOPS_N_COMPONENTS + 1);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(HeadroomFlopsRow) row = g_list_model_get_item (rows, i);

      if (g_str_equal (headroom_flops_row_get_name (row), "router"))
        router = headroom_flops_row_get_total (row) > 0;
    }
  g_assert_true (router);
}

/* LoRA on the default Llama 3.1 8B (h 4096, 32 layers, 8 KV heads of 128,
 * MLP 14 336), r 16 on every linear of the layers: q and o 16 · 8192,
 * k and v 16 · 5120, gate, up and down 16 · 18 432: 1 310 720 per layer,
 * A = 41 943 040 trainable. The frozen base stays in bf16 (ZeRO-1 does not
 * shard it): 2 · 8 030 261 248 B. The adapters in bf16-mixed over 8 DP
 * ranks: 2 (weights) + 4/8 (master) + 2 (gradients) + 8/8 (AdamW) + 4
 * (fp32 accumulation, 64 micro-batches) = 9.5 B each: 398 458 880 B. The
 * bar shows frozen weights, adapters, activations, buffers and overhead. */
static void
test_lora_segments (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  const HrTrainingMemory *memory;
  GListModel *segments, *params;

  g_assert_true (headroom_project_set_string (project, "training.method", "lora", NULL));
  g_assert_true (headroom_project_set_int (project, "training.lora_rank", 16, NULL));
  g_assert_true (headroom_project_set_string (project, "training.lora_targets", "all-linear", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  memory = headroom_estimator_get_training_memory (estimator);
  segments = headroom_estimator_get_memory_segments (estimator);
  g_assert_cmpuint (g_list_model_get_n_items (segments), ==, 6);
  g_assert_cmpfloat (segment_value (segments, "frozen_weights"), ==, 2 * 8030261248.0);
  g_assert_cmpfloat (segment_value (segments, "adapters"), ==, 9.5 * 41943040.0);
  g_assert_cmpfloat_with_epsilon (sum_values (segments), memory->total, 1.0);
  params = headroom_estimator_get_params_rows (estimator);
  g_assert_cmpfloat (segment_value (params, "trainable"), ==, 41943040.0);
  g_assert_cmpfloat (segment_value (params, "frozen"), ==, 8030261248.0);
  /* The share of all: 41 943 040 / (41 943 040 + 8 030 261 248) = 0.5196 %. */
  g_assert_cmpstr (quantity_detail (params, "trainable"), ==, "0.52 %");
  /* Freeze trains all but the embedding (128 256 × 4 096 = 525 336 576):
   * 7 504 924 672 / 8 030 261 248 = 93.46 %, one decimal at 1 % and above. */
  g_assert_true (headroom_project_set_string (project, "training.method", "freeze", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_cmpfloat (segment_value (params, "trainable"), ==, 7504924672.0);
  g_assert_cmpstr (quantity_detail (params, "trainable"), ==, "93.5 %");
  g_assert_true (headroom_project_set_string (project, "training.method", "lora", NULL));

  /* Pythia's attention is one query_key_value linear (gpt_neox): adapting
   * q adapts all three, r·(h + 3h) = 16 · 8192 per layer of h 2048, × 16
   * layers = 2 097 152. */
  g_assert_true (headroom_project_set_string (project, "model.preset", "pythia-1b", NULL));
  g_assert_true (headroom_project_set_string (project, "training.lora_targets", "q", NULL));
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 1, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  params = headroom_estimator_get_params_rows (estimator);
  g_assert_cmpfloat (segment_value (params, "trainable"), ==, 2097152.0);

  /* An unknown target names its setting, and carries its key. */
  g_assert_true (headroom_project_set_string (project, "training.lora_targets", "q,x", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_nonnull (headroom_estimator_get_error (estimator));
  g_assert_true (g_str_has_prefix (headroom_estimator_get_error (estimator), "LoRA target modules: "));
  g_assert_cmpstr (headroom_project_error_get_key (headroom_estimator_get_error_detail (estimator)),
                   ==, "training.lora_targets");
}

/* A paged optimizer short of room (docs/training.md, "Paged optimizers"):
 * full training of Llama 2 7B in bf16 with paged 8-bit AdamW, 12.75 GiB of
 * states, on a 75 GiB GPU: the total less 75 GiB is evicted. The bar's
 * segments keep adding up to the total, the evicted part its own segment,
 * last, out of the optimizer's. */
static void
test_paged_segments (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  const HrTrainingMemory *memory;
  g_autoptr(HeadroomQuantity) last = NULL;
  GListModel *segments;

  g_assert_true (headroom_project_set_string (project, "model.preset", "llama-2-7b", NULL));
  g_assert_true (headroom_project_set_int (project, "hardware.gpus_per_node", 1, NULL));
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 1, NULL));
  g_assert_true (headroom_project_set_int (project, "training.global_batch", 1, NULL));
  g_assert_true (headroom_project_set_double (project, "hardware.custom.memory", 75, NULL));
  g_assert_true (headroom_project_set_string (project, "training.precision", "bf16", NULL));
  g_assert_true (headroom_project_set_string (project, "training.optimizer", "adamw-8bit", NULL));
  g_assert_true (headroom_project_set_boolean (project, "training.paged_optimizer", TRUE, NULL));
  /* Hugging Face's eager SwiGLU, so that the rest leaves less than the states' room. */
  g_assert_true (headroom_project_set_string (project, "training.glu_kernel", "eager", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  memory = headroom_estimator_get_training_memory (estimator);
  g_assert_true (memory->fits);
  g_assert_cmpfloat (memory->paged_out, >, 0);
  g_assert_cmpfloat (memory->paged_out, ==, memory->total - 75.0 * 1073741824.0);
  segments = headroom_estimator_get_memory_segments (estimator);
  last = g_list_model_get_item (segments, g_list_model_get_n_items (segments) - 1);
  g_assert_cmpstr (headroom_quantity_get_name (last), ==, "paged_out");
  g_assert_cmpstr (headroom_quantity_get_role (last), ==, "paged");
  g_assert_cmpfloat (headroom_quantity_get_value (last), ==, memory->paged_out);
  g_assert_cmpfloat (segment_value (segments, "optimizer"), ==,
                     memory->optimizer - memory->paged_out);
  g_assert_cmpfloat_with_epsilon (sum_values (segments), memory->total, 1.0);
  g_assert_cmpfloat (headroom_estimator_get_memory_on_gpu (estimator), ==, 75.0 * 1073741824.0);

  /* 20 GiB: too little even with every paged state out. Then all of them
   * are the paged segment, so what the bar counts as needed, the rest, is
   * over the capacity by the estimate's own overflow (the CLI's "Overflow
   * with the paged states out"), not by total − capacity. */
  g_clear_object (&last);
  g_assert_true (headroom_project_set_double (project, "hardware.custom.memory", 20, NULL));
  headroom_estimator_recompute_now (estimator);
  memory = headroom_estimator_get_training_memory (estimator);
  g_assert_false (memory->fits);
  g_assert_cmpfloat (memory->pageable, >, 0);
  segments = headroom_estimator_get_memory_segments (estimator);
  last = g_list_model_get_item (segments, g_list_model_get_n_items (segments) - 1);
  g_assert_cmpstr (headroom_quantity_get_name (last), ==, "paged_out");
  g_assert_cmpstr (headroom_quantity_get_role (last), ==, "paged");
  g_assert_cmpfloat (headroom_quantity_get_value (last), ==, memory->pageable);
  g_assert_cmpfloat (segment_value (segments, "optimizer"), ==, memory->optimizer - memory->pageable);
  g_assert_cmpfloat_with_epsilon (sum_values (segments), memory->total, 1.0);
  g_assert_cmpfloat_with_epsilon (sum_values (segments) - memory->pageable - 20.0 * 1073741824.0,
                                  memory->overflow, 1.0);
  g_assert_cmpfloat (headroom_estimator_get_memory_on_gpu (estimator), ==,
                     memory->total - memory->pageable);
}

/* ZeRO-Offload (docs/training.md, "Offload"): Llama-3.1-8B, P = 8 030 261 248
 * parameters, AdamW, ZeRO-1 over 8 data-parallel ranks (tp 1). Each rank's
 * host memory holds its shard of the fp32 master copy (4 B), m and v (8 B)
 * and an fp32 gradient copy (4 B): P / 8 = 1 003 782 656 parameters, so
 * 4 015 130 624 + 8 030 261 248 + 4 015 130 624 = 16 060 522 496 bytes
 * (14.96 GiB). The GPU keeps the 16-bit weights and gradients only. */
static void
test_offload_segments (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  const HrTrainingMemory *memory;
  GListModel *segments;
  double gpu_sum = 0, cpu_sum = 0;

  headroom_estimator_recompute_now (estimator);
  segments = headroom_estimator_get_memory_segments (estimator);
  for (guint i = 0; i < g_list_model_get_n_items (segments); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);

      g_assert_false (g_str_has_prefix (headroom_quantity_get_name (q), "cpu"));
    }

  g_assert_true (headroom_project_set_boolean (project, "training.offload_optimizer", TRUE, NULL));
  headroom_estimator_recompute_now (estimator);
  /* The prediction does not time a CPU optimizer step: the memory stands, and
   * every time says it needs a measured utilisation instead of a 0. */
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_true (headroom_estimator_get_needs_utilization (estimator));
  g_assert_false (headroom_estimator_get_mfu_override (estimator));
  g_assert_null (headroom_estimator_get_step_row (estimator));
  {
    g_autofree char *basis = headroom_estimator_dup_time_basis (estimator);
    GListModel *summary = headroom_estimator_get_summary (estimator);
    const char *timed[] = { "step_seconds", "tokens_per_second", "tokens_per_second_per_gpu",
                            "mfu", "hfu", "total_seconds", "gpu_hours", "cost", NULL };
    guint missing = 0;

    g_assert_true (g_str_has_prefix (basis, "Not predicted: the step model does not time an "
                                            "optimizer step on the CPU"));
    for (guint i = 0; i < g_list_model_get_n_items (summary); i++)
      {
        g_autoptr(HeadroomQuantity) q = g_list_model_get_item (summary, i);

        if (g_strv_contains (timed, headroom_quantity_get_name (q)))
          {
            g_assert_cmpstr (headroom_quantity_get_needs (q), ==, "Measured FLOPs utilisation");
            missing++;
          }
      }
    g_assert_cmpuint (missing, ==, G_N_ELEMENTS (timed) - 1);
  }
  g_assert_cmpfloat (headroom_estimator_get_training_memory (estimator)->cpu_bytes, ==,
                     16060522496.0);
  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.4, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_false (headroom_estimator_get_needs_utilization (estimator));
  g_assert_true (headroom_estimator_get_mfu_override (estimator));
  memory = headroom_estimator_get_training_memory (estimator);
  segments = headroom_estimator_get_memory_segments (estimator);
  g_assert_cmpuint (g_list_model_get_n_items (segments), ==, 9 + 3);

  g_assert_cmpfloat (segment_value (segments, "cpu_master_weights"), ==, 4015130624.0);
  g_assert_cmpfloat (segment_value (segments, "cpu_optimizer"), ==, 8030261248.0);
  g_assert_cmpfloat (segment_value (segments, "cpu_gradients"), ==, 4015130624.0);
  g_assert_cmpfloat (memory->cpu_bytes, ==, 16060522496.0);
  /* Off the GPU: its master weights and optimizer segments are empty. */
  g_assert_cmpfloat (segment_value (segments, "master_weights"), ==, 0);
  g_assert_cmpfloat (segment_value (segments, "optimizer"), ==, 0);
  /* bf16 weights stay whole on every rank under ZeRO-1: 2 × P. */
  g_assert_cmpfloat (segment_value (segments, "weights"), ==, 16060522496.0);

  for (guint i = 0; i < g_list_model_get_n_items (segments); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);

      if (g_str_has_prefix (headroom_quantity_get_name (q), "cpu"))
        cpu_sum += headroom_quantity_get_value (q);
      else
        gpu_sum += headroom_quantity_get_value (q);
    }
  g_assert_cmpfloat (cpu_sum, ==, memory->cpu_bytes);
  g_assert_cmpfloat_with_epsilon (gpu_sum, memory->total, 1.0);
  g_assert_cmpfloat (headroom_estimator_get_memory_bytes (estimator), ==, memory->total);
}

/* Offloaded parameters (docs/training.md, "Offload"): the same model and
 * ranks under ZeRO-3, so every state is sharded 8 ways, P / 8 =
 * 1 003 782 656 parameters a rank, all of them in host memory: bf16
 * weights 2 007 565 312, the fp32 master 4 015 130 624, m and v
 * 8 030 261 248, and bf16 gradients 2 007 565 312 with the fp32 buffer that
 * sums the default batch's 64 micro-batches, 4 015 130 624. None of them is
 * on the GPU; the time needs a measured utilisation (a CPU optimizer step). */
static void
test_offload_params_segments (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  const HrTrainingMemory *memory;
  GListModel *segments;

  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 3, NULL));
  g_assert_true (headroom_project_set_boolean (project, "training.offload_params", TRUE, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_true (headroom_estimator_get_needs_utilization (estimator));
  g_assert_cmpfloat (headroom_estimator_get_training_memory (estimator)->cpu_bytes, ==,
                     20075653120.0);
  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.4, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  memory = headroom_estimator_get_training_memory (estimator);
  segments = headroom_estimator_get_memory_segments (estimator);
  g_assert_cmpfloat (segment_value (segments, "cpu_weights"), ==, 2007565312.0);
  g_assert_cmpfloat (segment_value (segments, "cpu_master_weights"), ==, 4015130624.0);
  g_assert_cmpfloat (segment_value (segments, "cpu_optimizer"), ==, 8030261248.0);
  g_assert_cmpfloat (segment_value (segments, "cpu_gradients"), ==, 6022695936.0);
  g_assert_cmpfloat (memory->cpu_bytes, ==, 20075653120.0);
  g_assert_cmpfloat (segment_value (segments, "weights") + segment_value (segments, "master_weights")
                     + segment_value (segments, "gradients") + segment_value (segments, "optimizer")
                     + segment_value (segments, "grad_accumulation_buffer"), ==, 0);

  /* Offloaded activations take their own segment, beside the states: the
   * 32 layers' saved tensors but the last one and the one brought back
   * ahead of its backward (docs/training.md, activation offloading). */
  g_assert_true (headroom_project_set_boolean (project, "training.offload_activations", TRUE, NULL));
  headroom_estimator_recompute_now (estimator);
  memory = headroom_estimator_get_training_memory (estimator);
  segments = headroom_estimator_get_memory_segments (estimator);
  g_assert_cmpfloat (memory->offloaded_activations, >, 0);
  g_assert_cmpfloat (segment_value (segments, "cpu_activations"), ==,
                     memory->offloaded_activations);
  g_assert_cmpfloat (segment_value (segments, "cpu_activations"), ==,
                     memory->cpu_bytes - 20075653120.0);
  g_assert_cmpfloat (segment_value (segments, "cpu_gradients"), ==, 6022695936.0);
  g_assert_true (headroom_project_set_boolean (project, "training.offload_activations", FALSE, NULL));

  /* Only sharded parameters can be offloaded. */
  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 2, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_cmpstr (headroom_project_error_get_key (headroom_estimator_get_error_detail (estimator)), ==,
                   "training.offload_params");
}

/* Borrowed: the list keeps its items. */
static HeadroomQuantity *
find_quantity (GListModel *model,
               const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (model, i);

      if (g_str_equal (headroom_quantity_get_name (q), name))
        return g_steal_pointer (&q);
    }
  g_assert_not_reached ();
  return NULL;
}

/* A set training.mfu applies to every FLOP executed (docs/training.md, "Time, MFU
 * and cost"): it is the HFU. Full recomputation runs the forward pass again,
 * so hardware FLOPs = forward + backward + forward = 4/3 of the model FLOPs
 * (backward = 2 × forward), and the achieved MFU is 0.40 × 3/4 = 0.30, a
 * little less as flash attention also recomputes QKᵀ in the backward. */
static void
test_utilisation (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autoptr(HeadroomQuantity) mfu = NULL;
  g_autoptr(HeadroomQuantity) hfu = NULL;
  GListModel *summary;

  g_assert_true (headroom_project_set_string (project, "training.recompute", "full", NULL));
  /* Predicted by default; 0.4 is a measured utilisation set over it. */
  g_assert_cmpfloat (headroom_project_get_double (project, "training.mfu"), ==, 0);
  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.4, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));

  summary = headroom_estimator_get_summary (estimator);
  mfu = find_quantity (summary, "mfu");
  hfu = find_quantity (summary, "hfu");
  g_assert_cmpstr (headroom_quantity_get_label (mfu), ==, "Model FLOPs utilisation");
  g_assert_cmpstr (headroom_quantity_get_label (hfu), ==, "Hardware FLOPs utilisation");
  g_assert_cmpfloat_with_epsilon (headroom_quantity_get_value (hfu), 0.4, 1e-12);
  g_assert_cmpfloat (headroom_quantity_get_value (mfu), <=, 0.30);
  g_assert_cmpfloat (headroom_quantity_get_value (mfu), >, 0.29);
}

/* The Estimate view shows the predicted step split as the Plan view splits a
 * layout (issue 13: one step-time model): the row's step is the estimate's to
 * the last bit, its parts add up to it, and a utilisation set has no split. */
static void
test_step_row (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  HeadroomPlanRow *row;
  double sum = 0;

  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  row = headroom_estimator_get_step_row (estimator);
  g_assert_nonnull (row);
  g_assert_true (headroom_estimator_get_step_row (estimator) == row);
  g_assert_cmpfloat (headroom_plan_row_get_step_seconds (row), ==,
                     headroom_estimator_get_step_seconds (estimator));
  for (guint part = 0; part < HEADROOM_PLAN_N_PARTS; part++)
    sum += headroom_plan_row_get_part_seconds (row, part);
  g_assert_cmpfloat_with_epsilon (sum, headroom_estimator_get_step_seconds (estimator),
                                  1e-12 * sum);
  g_assert_cmpfloat (headroom_plan_row_get_part_seconds (row, HEADROOM_PLAN_PART_COMPUTE), >, 0);

  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.4, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_step_row (estimator));
}

/* What the window says of a predicted time follows the project's kind of
 * run, each band the least and most that kind's checked runs reached
 * (headroom-estimator.c, held by test-real-runs.c, test-published-runs.c
 * and test-megatron-bridge-runs.c): a dense model under PyTorch, under
 * Megatron, and an MoE model under either. */
static void
test_prediction_band (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autofree char *pytorch = NULL;
  g_autofree char *megatron = NULL;
  g_autofree char *moe = NULL;
  double low, high;

  g_assert_true (headroom_project_set_string (project, "training.framework", "torchtitan", NULL));
  pytorch = headroom_dup_prediction_band (project);
  g_assert_cmpstr (pytorch, ==, "published runs of PyTorch frameworks (torchtitan, torchtune, "
                                "llm-foundry, fms-fsdp) reached between 52 and 126 % of such predictions");
  headroom_prediction_band (project, &low, &high);
  g_assert_cmpfloat (low, ==, 0.52);
  g_assert_cmpfloat (high, ==, 1.26);

  g_assert_true (headroom_project_set_string (project, "training.framework", "megatron", NULL));
  megatron = headroom_dup_prediction_band (project);
  g_assert_cmpstr (megatron, ==, "Megatron-Bridge’s published runs of dense models reached "
                                 "between 65 and 107 % of such predictions");

  g_assert_true (headroom_project_set_string (project, "model.preset", "qwen3-30b-a3b", NULL));
  moe = headroom_dup_prediction_band (project);
  g_assert_cmpstr (moe, ==, "published runs of MoE models (Megatron-Bridge) reached between 22 "
                            "and 101 % of such predictions");
}

static void
test_error_keeps_last_result (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  double memory_before, params_before;
  guint segments_before;

  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  memory_before = headroom_estimator_get_memory_bytes (estimator);
  params_before = headroom_estimator_get_total_params (estimator);
  segments_before = g_list_model_get_n_items (headroom_estimator_get_memory_segments (estimator));

  /* 3 does not divide the 8 GPUs of one node. */
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 3, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_cmpstr (headroom_estimator_get_error (estimator), ==,
                   "Tensor parallel: 3 does not divide 8 GPUs");
  g_assert_true (headroom_estimator_get_has_result (estimator));
  g_assert_cmpfloat (headroom_estimator_get_memory_bytes (estimator), ==, memory_before);
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, params_before);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_estimator_get_memory_segments (estimator)),
                    ==, segments_before);

  /* The parameter rows are the project's model's even so, never the last
   * result's: 40 layers of 41,943,040 attention parameters (see
   * test_params_in_place) while tensor parallelism is still at fault. */
  g_assert_true (headroom_project_set_int (project, "model.num_hidden_layers", 40, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_nonnull (headroom_estimator_get_error (estimator));
  {
    g_autoptr(HeadroomQuantity) attention =
      g_list_model_get_item (headroom_estimator_get_params_rows (estimator), 2);

    g_assert_cmpstr (headroom_quantity_get_name (attention), ==, "attention");
    g_assert_cmpfloat (headroom_quantity_get_value (attention), ==, 1677721600.0);
  }
  headroom_project_unset (project, "model.num_hidden_layers");

  /* A model key at fault is named with its config key. */
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 1, NULL));
  /* 5 KV heads cannot share 32 query heads evenly. */
  g_assert_true (headroom_project_set_int (project, "model.num_key_value_heads", 5, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_nonnull (headroom_estimator_get_error (estimator));
  g_assert_true (g_str_has_prefix (headroom_estimator_get_error (estimator),
                                   "Key/value heads: 5"));
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, params_before);
  /* A model that does not read has no parameter rows. */
  g_assert_cmpuint (g_list_model_get_n_items (headroom_estimator_get_params_rows (estimator)), ==, 0);

  /* Fixed again: the error clears and a new result comes. */
  headroom_project_unset (project, "model.num_key_value_heads");
  g_assert_true (headroom_project_set_int (project, "model.num_hidden_layers", 16, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), <, params_before);
}

/* The shipped example must be a sensible start: valid, and it fits. */
static void
test_default_fits (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);

  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_true (headroom_estimator_get_fits (estimator));
  g_assert_cmpfloat (headroom_estimator_get_memory_bytes (estimator), <,
                     headroom_estimator_get_memory_capacity (estimator));
  /* 1T tokens at 2.50 USD per GPU-hour: some cost, finite. */
  g_assert_cmpfloat (headroom_estimator_get_cost (estimator), >, 0);
  g_assert_true (isfinite (headroom_estimator_get_cost (estimator)));
}


/* An unknown model_type: refused (the error names it), until
 * model.assume_architecture says "llama"; then the result says it was
 * assumed. The structure line names what was read. */
static void
test_assumed_architecture (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autoptr(JsonObject) config = json_object_new ();

  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_null (headroom_estimator_get_assumed_architecture (estimator));
  g_assert_nonnull (headroom_estimator_get_structure (estimator));
  g_assert_nonnull (strstr (headroom_estimator_get_structure (estimator), "embeddings"));

  json_object_set_string_member (config, "model_type", "mystery");
  json_object_set_int_member (config, "hidden_size", 64);
  json_object_set_int_member (config, "intermediate_size", 128);
  json_object_set_int_member (config, "num_attention_heads", 4);
  json_object_set_int_member (config, "num_hidden_layers", 2);
  json_object_set_int_member (config, "vocab_size", 100);
  headroom_project_unset (project, "model.preset");
  headroom_project_set_config (project, config);
  headroom_estimator_recompute_now (estimator);
  g_assert_nonnull (headroom_estimator_get_error (estimator));
  g_assert_nonnull (strstr (headroom_estimator_get_error (estimator), "mystery"));

  g_assert_true (headroom_project_set_string (project, "model.assume_architecture", "llama", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_cmpstr (headroom_estimator_get_assumed_architecture (estimator), ==, "llama");
  g_assert_nonnull (strstr (headroom_estimator_get_structure (estimator),
                            "multi-head attention, 4 heads"));
}

static void
test_no_model (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);

  headroom_estimator_recompute_now (estimator);
  g_assert_false (headroom_estimator_get_has_result (estimator));
  g_assert_true (g_str_has_prefix (headroom_estimator_get_error (estimator), "No model: choose"));
  g_assert_cmpuint (g_list_model_get_n_items (headroom_estimator_get_memory_segments (estimator)),
                    ==, 0);
  g_assert_cmpfloat (headroom_estimator_get_memory_bytes (estimator), ==, 0);
}

static void
test_inference_result (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  const HrInferenceMemory *memory;

  headroom_project_set_string (project, "workload", "inference", NULL);
  headroom_project_set_int (project, "inference.batch", 8, NULL);
  headroom_project_set_int (project, "inference.prompt", 2048, NULL);
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_cmpint (headroom_estimator_get_workload (estimator), ==, HEADROOM_WORKLOAD_INFERENCE);

  /* bf16 weights: 2 bytes × 8 030 261 248 = 16 060 522 496 bytes on one GPU (tp 1). */
  memory = headroom_estimator_get_inference_memory (estimator);
  g_assert_cmpfloat (memory->weights, ==, 16060522496.0);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_estimator_get_memory_segments (estimator)), ==, 4);
  g_assert_cmpfloat_with_epsilon (sum_values (headroom_estimator_get_memory_segments (estimator)),
                                  memory->total, 1.0);
  /* The prefill has no backward pass: its FLOPs are the forward pass alone,
   * the core's prefill count, with the LM head on the last position of each
   * of the 8 sequences only: 2 × 8 × 4096 × 128 256 = 8 405 385 216. */
  {
    const HrFlops *flops = headroom_estimator_get_flops (estimator);
    const HrInferenceLatency *latency = headroom_estimator_get_inference_latency (estimator);
    double context = 2048 + (double) headroom_project_get_int (project, "inference.generate");
    double decode = latency->decode_flops / 8;

    g_assert_cmpint (flops->tokens, ==, 8 * 2048);
    g_assert_cmpfloat (flops->backward, ==, 0);
    g_assert_cmpfloat (flops->recompute, ==, 0);
    g_assert_cmpfloat (flops->total, ==, flops->forward);
    g_assert_cmpfloat_with_epsilon (flops->total / latency->prefill_flops, 1.0, 1e-12);
    g_assert_cmpfloat (flops->component[HR_FLOPS_LM_HEAD].forward, ==, 8405385216.0);
    g_assert_cmpfloat (flops->per_token, ==, flops->total / (8 * 2048));
    g_assert_cmpfloat (flops->six_n_per_token, ==, 0);

    /* One decode step per sequence: 2 FLOPs per weight outside the token
     * embedding (8 030 261 248 − 525 336 576 = 7 504 924 672 weights), plus
     * attention over at most prompt + generated tokens: 2 (QKᵀ, ·V) × 2 ×
     * 32 heads × 128 × 32 layers = 524 288 FLOPs per cached token. */
    g_assert_cmpfloat (decode, >, 2 * 7504924672.0);
    g_assert_cmpfloat (decode, <=, 2 * 7504924672.0 + 524288 * context);
  }
  g_assert_cmpfloat (headroom_estimator_get_step_seconds (estimator), >, 0);

  /* TP 3 does not divide 8 GPUs. */
  headroom_project_set_int (project, "inference.tensor_parallel", 3, NULL);
  headroom_estimator_recompute_now (estimator);
  g_assert_true (g_str_has_prefix (headroom_estimator_get_error (estimator), "Tensor parallel: "));
  g_assert_cmpstr (headroom_project_error_get_key (headroom_estimator_get_error_detail (estimator)),
                   ==, "inference.tensor_parallel");
  g_assert_cmpfloat (headroom_estimator_get_inference_memory (estimator)->weights, ==, 16060522496.0);
}

static gboolean
summary_has (HeadroomEstimator *estimator,
             const char        *name,
             double            *value)
{
  GListModel *summary = headroom_estimator_get_summary (estimator);

  for (guint i = 0; i < g_list_model_get_n_items (summary); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (summary, i);

      if (g_strcmp0 (headroom_quantity_get_name (q), name) == 0)
        {
          *value = headroom_quantity_get_value (q);
          return TRUE;
        }
    }
  return FALSE;
}

/* The serving plan of the default model (Llama 3 8B) on the catalog's H100
 * SXM under vLLM, max_model_len 8192, 8192 batched tokens: 453,376 tokens of
 * KV and 55.34 requests at once, derived step by step in
 * tests/core/test-serving.c (/serving/vllm/llama3-h100); usable memory
 * 0.9 × 85,061,827,297 B (the driver's 79.22 GiB). Training has no plan. */
static void
test_serving_plan (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  double tokens = 0, concurrency = 0, usable = 0, value = 0;

  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "h100-sxm", NULL));
  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  g_assert_true (headroom_project_set_string (project, "inference.engine", "vllm", NULL));
  g_assert_true (headroom_project_set_int (project, "inference.max_model_len", 8192, NULL));
  g_assert_true (headroom_project_set_int (project, "inference.max_num_batched_tokens", 8192, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));

  g_object_get (estimator, "kv-capacity-tokens", &tokens, "max-concurrency", &concurrency,
                "usable-memory", &usable, NULL);
  g_assert_cmpfloat (tokens, ==, 453376.0);
  g_assert_cmpfloat_with_epsilon (concurrency, 55.34375, 1e-9);
  g_assert_cmpfloat_with_epsilon (usable, 0.9 * 85061827297.0, 1.0);
  g_assert_true (summary_has (estimator, "kv_capacity_tokens", &value));
  g_assert_cmpfloat (value, ==, 453376.0);
  /* The summary counts whole requests: 453,376 ÷ 8,192 = 55.34 → 55. */
  g_assert_true (summary_has (estimator, "max_concurrency", &value));
  g_assert_cmpfloat (value, ==, 55.0);
  /* One request (the default batch) is in flight at once. */
  g_assert_true (summary_has (estimator, "running_requests", &value));
  g_assert_cmpfloat (value, ==, 1.0);

  g_assert_true (headroom_project_set_string (project, "workload", "training", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_cmpfloat (headroom_estimator_get_kv_capacity_tokens (estimator), ==, 0);
  g_assert_false (summary_has (estimator, "kv_capacity_tokens", &value));
}

/* Energy is GPUs × board power × training time: 8 × 700 W × total seconds /
 * 3.6e6 kWh. Where the board power is unpublished (0, as for the TPUs in the
 * catalog) the summary has no energy line rather than a false 0 kWh. */
static void
test_energy_unknown_power (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  const HrTrainingTime *time;
  double energy = -1;

  g_assert_true (headroom_project_set_double (project, "training.tokens", 1e9, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  time = headroom_estimator_get_training_time (estimator);
  g_assert_cmpfloat (time->total_seconds, >, 0);
  g_assert_true (summary_has (estimator, "energy", &energy));
  g_assert_cmpfloat_with_epsilon (energy, 8 * 700 * time->total_seconds / 3.6e6, 1e-9 * energy);

  g_assert_true (headroom_project_set_double (project, "hardware.custom.power", 0, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_false (summary_has (estimator, "energy", &energy));
  g_assert_true (summary_has (estimator, "gpu_hours", &energy));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/estimator/coalescing", test_coalescing);
  g_test_add_func ("/estimator/training-result", test_training_result);
  g_test_add_func ("/estimator/params-in-place", test_params_in_place);
  g_test_add_func ("/estimator/offload-segments", test_offload_segments);
  g_test_add_func ("/estimator/offload-params-segments", test_offload_params_segments);
  g_test_add_func ("/estimator/lora-segments", test_lora_segments);
  g_test_add_func ("/estimator/training-needs-tokens", test_training_needs_tokens);
  g_test_add_func ("/estimator/flops-router-moe-only", test_flops_router_moe_only);
  g_test_add_func ("/estimator/paged-segments", test_paged_segments);
  g_test_add_func ("/estimator/utilisation", test_utilisation);
  g_test_add_func ("/estimator/step-row", test_step_row);
  g_test_add_func ("/estimator/prediction-band", test_prediction_band);
  g_test_add_func ("/estimator/error-keeps-last-result", test_error_keeps_last_result);
  g_test_add_func ("/estimator/assumed-architecture", test_assumed_architecture);
  g_test_add_func ("/estimator/default-fits", test_default_fits);
  g_test_add_func ("/estimator/no-model", test_no_model);
  g_test_add_func ("/estimator/inference-result", test_inference_result);
  g_test_add_func ("/estimator/energy-unknown-power", test_energy_unknown_power);
  g_test_add_func ("/estimator/serving-plan", test_serving_plan);

  return g_test_run ();
}
