/* test-explain.c: each figure's derivation with the project's values
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The default project: Llama-3.1-8B (8,030,261,248 parameters) on 8 H100,
 * TP 2 (so 4 data-parallel ranks), ZeRO-1, bf16 mixed precision, AdamW.
 * By hand: a TP rank holds about half the parameters, 4.02 B; AdamW's m and
 * v in fp32 are 8 B a parameter, sharded over the 4 ranks by ZeRO-1:
 * 8 × 4.02e9 ÷ 4 = 8.03e9 B = 7.48 GiB; the fp32 master copy 4 B: 3.74 GiB;
 * the bf16 working weights 2 B, not sharded at stage 1: 7.48 GiB
 * (Rajbhandari et al. 2020, §3.1 and §5).
 */
#include "config.h"

#include <locale.h>
#include <stdarg.h>
#include <string.h>

#include "headroom-estimator.h"

static void
assert_contains (const char *text,
                 const char *part)
{
  if (text == NULL || strstr (text, part) == NULL)
    g_error ("“%s” does not contain “%s”", text ? text : "(null)", part);
}

/* Sets integer keys, NULL-terminated pairs of key and value,
 * and recomputes: the settings must be valid. */
static void
set_ints (HeadroomEstimator *estimator,
          const char        *key,
          ...)
{
  HeadroomProject *project = headroom_estimator_get_project (estimator);
  va_list args;

  va_start (args, key);
  for (; key != NULL; key = va_arg (args, const char *))
    g_assert_true (headroom_project_set_int (project, key, va_arg (args, gint64), NULL));
  va_end (args);
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
}

static void
test_memory (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autofree char *optimizer = NULL;
  g_autofree char *master = NULL;
  g_autofree char *weights = NULL;

  headroom_estimator_recompute_now (estimator);
  optimizer = headroom_estimator_dup_explanation (estimator, "memory.optimizer");
  assert_contains (optimizer, "Optimizer states = 8 B × 4.02 B parameters on this GPU ÷ 4 "
                              "(ZeRO-1 over 4 data-parallel ranks) = 7.48 GiB");
  assert_contains (optimizer, "AdamW");
  assert_contains (optimizer, "Rajbhandari et al. 2020");
  master = headroom_estimator_dup_explanation (estimator, "memory.master_weights");
  assert_contains (master, "= 4 B × 4.02 B parameters on this GPU ÷ 4");
  assert_contains (master, "3.74 GiB");
  weights = headroom_estimator_dup_explanation (estimator, "memory.weights");
  assert_contains (weights, "Weights = 2 B × 4.02 B parameters on this GPU = 7.48 GiB");
  g_assert_null (headroom_estimator_dup_explanation (estimator, "memory.no_such_segment"));
  /* The buffers are the peak phase's, named; the allocator's share splits
   * into the large blocks' rounding and the freed blocks kept. */
  {
    const HrTrainingMemory *m = headroom_estimator_get_training_memory (estimator);
    g_autofree char *temporary = headroom_estimator_dup_explanation (estimator, "memory.temporary");
    g_autofree char *allocator = headroom_estimator_dup_explanation (estimator, "memory.allocator");
    g_autofree char *cached = g_strdup_printf ("+ freed blocks the peak cannot use %.2f GiB",
                                               m->cached_free / (1024.0 * 1024 * 1024));

    /* The default project peaks in the loss's backward (the fp32 logits'
     * buffers beside every layer's saved tensors). */
    g_assert_cmpfloat (m->peak_loss_backward, ==, m->allocated_peak);
    assert_contains (temporary, "live in the step’s peak phase, the loss’s backward");
    assert_contains (allocator, "Allocator rounding and cache = rounding of the large blocks ");
    assert_contains (allocator, cached);
  }
  /* The overhead says whether it is the default allowance or the setting:
   * 2e9 B = 1.86 GiB. */
  {
    g_autofree char *overhead = headroom_estimator_dup_explanation (estimator, "memory.overhead");

    assert_contains (overhead, "Overhead = 1.00 GiB, the default allowance");
    g_assert_true (headroom_project_set_double (project, "hardware.overhead", 2e9, NULL));
    headroom_estimator_recompute_now (estimator);
    g_clear_pointer (&overhead, g_free);
    overhead = headroom_estimator_dup_explanation (estimator, "memory.overhead");
    assert_contains (overhead, "Overhead = 1.86 GiB, as set");
    g_assert_true (headroom_project_set_double (project, "hardware.overhead", -1, NULL));
    headroom_estimator_recompute_now (estimator);
  }

  /* Offloaded parameters (ZeRO-3, a measured utilisation for the time):
   * the states are 0 on the GPU because they are in host memory, not
   * because a rank holds 0 B a parameter. */
  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 3, NULL));
  g_assert_true (headroom_project_set_boolean (project, "training.offload_params", TRUE, NULL));
  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.4, NULL));
  headroom_estimator_recompute_now (estimator);
  g_clear_pointer (&weights, g_free);
  weights = headroom_estimator_dup_explanation (estimator, "memory.weights");
  assert_contains (weights, "Weights = 0.00 GiB on this GPU: offloaded to host memory");

  /* FSDP with bf16 mixed precision keeps no 16-bit shard (FSDP2
   * all_gather_inputs casts the fp32 shard as it gathers): 0 B, said so,
   * not "0 B × 4.02 B parameters". Without the fp32 accumulation buffer
   * set, none is kept, and the line says when one would be. */
  g_assert_true (headroom_project_set_boolean (project, "training.offload_params", FALSE, NULL));
  g_assert_true (headroom_project_set_string (project, "training.fsdp", "full", NULL));
  headroom_estimator_recompute_now (estimator);
  /* ZeRO-3 and FSDP together are refused: the figures in view are of the
   * last valid settings, and no derivation mixes them with these. */
  g_assert_nonnull (headroom_estimator_get_error (estimator));
  g_assert_true (headroom_estimator_get_has_result (estimator));
  g_assert_null (headroom_estimator_dup_explanation (estimator, "memory.weights"));
  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 0, NULL));
  headroom_estimator_recompute_now (estimator);
  g_clear_pointer (&weights, g_free);
  weights = headroom_estimator_dup_explanation (estimator, "memory.weights");
  assert_contains (weights, "Weights = 0.00 GiB kept between layers: FSDP casts each layer’s "
                            "fp32 shard to 16 bits");
  g_assert_true (headroom_project_set_boolean (project, "training.fp32_accumulation_buffer", FALSE,
                                               NULL));
  headroom_estimator_recompute_now (estimator);
  g_clear_pointer (&weights, g_free);
  weights = headroom_estimator_dup_explanation (estimator, "memory.grad_accumulation_buffer");
  assert_contains (weights, "Gradient accumulation = 0.00 GiB: no separate buffer");

  /* Pure bf16 keeps no fp32 copy: said so, not "0 B × 4.02 B parameters". */
  g_assert_true (headroom_project_set_string (project, "training.precision", "bf16", NULL));
  headroom_estimator_recompute_now (estimator);
  g_clear_pointer (&weights, g_free);
  weights = headroom_estimator_dup_explanation (estimator, "memory.master_weights");
  assert_contains (weights, "Master weights = 0.00 GiB: none; pure bf16 training updates the "
                            "16-bit weights in place");
}

/* What each state is split over comes from the core, not from dp × cp:
 * - FSDP under PP 2 (TP 2 on 8 GPUs, DP 2) keeps the stage's parameters
 *   gathered and its gradients whole: 8.03e9 ÷ 4 = 2.01e9 parameters a rank,
 *   2 B each = 3.74 GiB, "whole"; the fp32 master still ÷ 2.
 * - HYBRID_SHARD on 2 nodes of 8 with TP 2 (DP 8) shards within the node
 *   only, over 8 ÷ 2 = 4 ranks: 4 B × 4.02e9 ÷ 4 = 3.74 GiB.
 * - Qwen3-30B-A3B with EP 8 on 16 GPUs and ZeRO-1: dense parameters shard
 *   over the 16 data-parallel ranks, routed experts over 16 ÷ 8 = 2. */
static void
test_shards (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autofree char *weights = NULL;
  g_autofree char *master = NULL;
  g_autofree char *optimizer = NULL;

  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 0, NULL));
  g_assert_true (headroom_project_set_string (project, "training.fsdp", "full", NULL));
  g_assert_true (headroom_project_set_int (project, "training.pipeline_parallel", 2, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  weights = headroom_estimator_dup_explanation (estimator, "memory.weights");
  assert_contains (weights, "Weights = 2 B × 2.01 B parameters on this GPU = 3.74 GiB, whole: "
                            "FSDP keeps a pipeline stage’s parameters gathered");
  master = headroom_estimator_dup_explanation (estimator, "memory.master_weights");
  assert_contains (master, "4 B × 2.01 B parameters on this GPU ÷ 2 (ZeRO-3 over 2 "
                           "data-parallel ranks) = 3.74 GiB");

  g_assert_true (headroom_project_set_int (project, "training.pipeline_parallel", 1, NULL));
  g_assert_true (headroom_project_set_string (project, "training.fsdp", "hybrid", NULL));
  g_assert_true (headroom_project_set_int (project, "hardware.nodes", 2, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_clear_pointer (&master, g_free);
  master = headroom_estimator_dup_explanation (estimator, "memory.master_weights");
  assert_contains (master, "4 B × 4.02 B parameters on this GPU ÷ 4 (ZeRO-3 over 4 "
                           "data-parallel ranks) = 3.74 GiB");

  g_assert_true (headroom_project_set_string (project, "model.preset", "qwen3-30b-a3b", NULL));
  g_assert_true (headroom_project_set_string (project, "training.fsdp", "none", NULL));
  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 1, NULL));
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 1, NULL));
  g_assert_true (headroom_project_set_int (project, "training.expert_parallel", 8, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  optimizer = headroom_estimator_dup_explanation (estimator, "memory.optimizer");
  assert_contains (optimizer, "dense parameters ÷ 16 + ");
  assert_contains (optimizer, "expert parameters ÷ 2) on this GPU");
}

static void
test_time_and_cost (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autofree char *cost = NULL;
  g_autofree char *flops = NULL;

  headroom_estimator_recompute_now (estimator);
  /* $2.50 per GPU-hour in the default project. */
  cost = headroom_estimator_dup_explanation (estimator, "summary.cost");
  assert_contains (cost, "GPU-hours × $2.50 per GPU-hour = $");
  flops = headroom_estimator_dup_explanation (estimator, "flops.mlp");
  assert_contains (flops, "MLP = ");
  assert_contains (flops, "backward");
  assert_contains (flops, "Chowdhery et al. 2022");

  /* Without training tokens the cost names the setting, and derives no $0. */
  g_assert_true (headroom_project_set_double (project, "training.tokens", 0, NULL));
  headroom_estimator_recompute_now (estimator);
  g_clear_pointer (&cost, g_free);
  cost = headroom_estimator_dup_explanation (estimator, "summary.cost");
  assert_contains (cost, "Cost: needs Training tokens, which is not set");
  g_assert_null (strstr (cost, "$"));

  /* TP 2 × PP 2 on 8 GPUs leaves DP 2: 64 sequences a step of one each are
   * 32 micro-batches a rank, and 1F1B idles (2 − 1) ÷ 32 = 3.1 % of the
   * ideal step (Narayanan et al. 2021, §2.2); ZB-H1 a third of it. */
  {
    g_autofree char *bubble = NULL;

    set_ints (estimator, "training.pipeline_parallel", (gint64) 2, "training.micro_batch",
              (gint64) 1, "training.global_batch", (gint64) 64, NULL);
    bubble = headroom_estimator_dup_explanation (estimator, "summary.bubble_fraction");
    assert_contains (bubble, "Pipeline bubble = (2 − 1) ÷ (1 × 32 micro-batches) = 3.1 % of the "
                             "ideal step");
    {
      g_autofree char *dp = headroom_estimator_dup_explanation (estimator, "summary.data_parallel");
      g_autofree char *ga = headroom_estimator_dup_explanation (estimator,
                                                                "summary.grad_accumulation");

      assert_contains (dp, "Data parallel = 8 GPUs ÷ (2 × 2 × 1) = 2");
      assert_contains (ga, "Gradient accumulation = 64 sequences ÷ (1 × 2) = 32 micro-batches a rank");
    }
    g_assert_true (headroom_project_set_string (project, "training.pipeline_schedule", "zb-h1", NULL));
    headroom_estimator_recompute_now (estimator);
    g_clear_pointer (&bubble, g_free);
    bubble = headroom_estimator_dup_explanation (estimator, "summary.bubble_fraction");
    assert_contains (bubble, "Pipeline bubble = (2 − 1) ÷ (3 × 32 micro-batches) = 1.0 %");
  }

  /* One GPU is singular wherever a count of GPUs is shown. */
  {
    g_autofree char *dp = NULL;
    g_autofree char *per_gpu = NULL;

    set_ints (estimator, "training.pipeline_parallel", (gint64) 1, "training.tensor_parallel",
              (gint64) 1, "hardware.gpus_per_node", (gint64) 1, NULL);
    dp = headroom_estimator_dup_explanation (estimator, "summary.data_parallel");
    per_gpu = headroom_estimator_dup_explanation (estimator, "summary.tokens_per_second_per_gpu");
    assert_contains (dp, "Data parallel = 1 GPU ÷ (1 × 1 × 1) = 1");
    assert_contains (per_gpu, " ÷ 1 GPU = ");

    /* and a count in an explanation's arithmetic is exact, not "1.02 k". */
    set_ints (estimator, "hardware.nodes", (gint64) 128, "hardware.gpus_per_node", (gint64) 8,
              "training.global_batch", (gint64) 1024, NULL);
    g_clear_pointer (&dp, g_free);
    dp = headroom_estimator_dup_explanation (estimator, "summary.data_parallel");
    assert_contains (dp, "Data parallel = 1,024 GPUs ÷ (1 × 1 × 1) = 1024");
  }
}

/* Gemma 3 1B serving a 1,024-token prompt and 256 generated tokens (the
 * table's defaults) in bf16: a layer caches 2 × 1 KV head × 256 × 2 B =
 * 1,024 B a token. 26 layers, every sixth global: layers 6, 12, 18, 24,
 * 4 global × 1,280 tokens × 1,024 B = 5 MiB; 22 windowed × the 512-token
 * window × 1,024 B = 11 MiB; 16 MiB in all (the parts in the sum's unit). */
static void
test_kv_split (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autoptr(JsonObject) empty = json_object_new ();
  g_autofree char *kv = NULL;
  g_autofree char *llama = NULL;

  headroom_project_set_config (project, empty);
  g_assert_true (headroom_project_set_string (project, "model.preset", "gemma-3-1b", NULL));
  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  kv = headroom_estimator_dup_explanation (estimator, "memory.kv_cache");
  assert_contains (kv, "KV cache = 5 MiB in global layers + 11 MiB in sliding-window or chunked "
                       "layers = 16 MiB");
  assert_contains (kv, "Longformer");

  /* Llama 3.1 8B has no window: one line says so. */
  g_assert_true (headroom_project_set_string (project, "model.preset", "llama-3.1-8b", NULL));
  headroom_estimator_recompute_now (estimator);
  llama = headroom_estimator_dup_explanation (estimator, "memory.kv_cache");
  assert_contains (llama, "every layer global (the whole context)");
}

/* The KV cache's tokens as each engine's plan sizes its bytes: vLLM from
 * what gpu_memory_utilization leaves, SGLang from mem_fraction_static of
 * what it found free, TensorRT-LLM a fraction (0.90 by default) of what is
 * free once loaded, llama.cpp for its context. Llama 3.1 8B on one H100. */
static void
test_kv_capacity (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  static const struct
  {
    const char *engine, *part;
  } engines[] = {
    { "vllm", " usable − " },
    { "sglang", " usable (mem_fraction_static of " },
    { "trtllm", "free_gpu_memory_fraction 0.90 × (" },
    { "llamacpp", "the context llama.cpp sizes its cache for" },
  };

  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (engines); i++)
    {
      g_autofree char *capacity = NULL;

      g_assert_true (headroom_project_set_string (project, "inference.engine", engines[i].engine,
                                                  NULL));
      headroom_estimator_recompute_now (estimator);
      g_assert_null (headroom_estimator_get_error (estimator));
      capacity = headroom_estimator_dup_explanation (estimator, "summary.kv_capacity_tokens");
      assert_contains (capacity, "KV cache capacity = ");
      assert_contains (capacity, engines[i].part);
    }
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/explain/memory", test_memory);
  g_test_add_func ("/explain/shards", test_shards);
  g_test_add_func ("/explain/time-and-cost", test_time_and_cost);
  g_test_add_func ("/explain/kv-split", test_kv_split);
  g_test_add_func ("/explain/kv-capacity", test_kv_capacity);
  return g_test_run ();
}
