/* test-real-runs.c: training estimates against measured runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/reference/real-runs.json holds runs of torchtitan, torchtune
 * and llm-foundry with their settings and measurements. Each row is set on
 * a project through the keys its command line would set (headroom-cli train
 * --framework … --precision … --causal …), estimated, and reported as
 * predicted / measured throughput (and memory where measured). The step
 * model's figures come from the catalog's sources (docs/planner.md); nothing
 * here is fitted. The target is 15 % on throughput; the rows within
 * it are held there, the others are reported with their ratio and held to
 * the bounds below (docs/planner.md, "Check against measured runs").
 */
#include <math.h>

#include <json-glib/json-glib.h>

#include "headroom-estimator.h"
#include "test-runs.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

typedef struct
{
  const char *id;
  double      low, high;  /* bounds on predicted / measured */
} Bounds;

/* The bounds `table` holds for the row `id`; NULL when it holds none. */
static const Bounds *
find_bounds (const Bounds *table,
             gsize         n,
             const char   *id)
{
  for (gsize i = 0; i < n; i++)
    if (g_str_equal (table[i].id, id))
      return &table[i];
  return NULL;
}

static const char *
member (JsonObject *row,
        const char *section,
        const char *key)
{
  JsonObject *object = json_object_get_object_member (row, section);
  JsonNode *node = json_object_get_member (object, key);

  return node != NULL && !JSON_NODE_HOLDS_NULL (node) ? json_node_get_string (node) : NULL;
}

static char *
integer (JsonObject *row,
         const char *section,
         const char *key)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT,
                          json_object_get_int_member (json_object_get_object_member (row, section),
                                                      key));
}

/* The options a user gives for the row (docs/cli.md): the layout, batch and
 * network as stated, causal attention (every run is a causal LM), and the
 * recipe by framework. */
static void
set_row (HeadroomProject *project,
         JsonObject      *row)
{
  JsonObject *model = json_object_get_object_member (row, "model");
  JsonObject *hardware = json_object_get_object_member (row, "hardware");
  JsonObject *recipe = json_object_get_object_member (row, "recipe");
  const char *id = json_object_get_string_member (row, "id");
  const char *preset = member (row, "model", "preset");
  const char *checkpointing = member (row, "recipe", "activation_checkpointing");
  const char *precision = member (row, "recipe", "precision");
  const char *optimizer = member (row, "recipe", "optimizer");
  JsonNode *network = json_object_get_member (hardware, "inter_node_GBps_per_gpu");
  g_autofree char *nodes = integer (row, "hardware", "nodes");
  g_autofree char *per_node = integer (row, "hardware", "gpus_per_node");
  g_autofree char *micro = integer (row, "batch", "micro_batch");
  g_autofree char *global = integer (row, "batch", "global_batch");
  g_autofree char *seq = integer (row, "batch", "seq_len");
  g_autofree char *others = NULL;
  JsonArray *other = json_object_get_array_member (recipe, "other");
  GString *joined = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (other); i++)
    g_string_append_printf (joined, "%s;", json_array_get_string_element (other, i));
  others = g_string_free (joined, FALSE);

  if (preset != NULL)
    set (project, "model.preset", preset);
  else
    headroom_project_set_config (project, json_object_get_object_member (model, "config"));
  set (project, "workload", "training");
  set (project, "hardware.gpu", strstr (member (row, "hardware", "gpu"), "H100") != NULL
                                ? "h100-sxm" : "a100-80gb-sxm");
  set (project, "hardware.nodes", nodes);
  set (project, "hardware.gpus_per_node", per_node);
  /* Not stated for the torchtitan rows: the file's assumption, 200 Gb/s. */
  set (project, "hardware.inter_node_bandwidth",
       network != NULL && !JSON_NODE_HOLDS_NULL (network)
       ? (json_node_get_double (network) == 50 ? "50" : "25") : "25");
  set (project, "training.micro_batch", micro);
  set (project, "training.global_batch", global);
  set (project, "training.seq_len", seq);
  set (project, "training.causal", "true");

  if (g_str_has_prefix (id, "torchtitan"))
    {
      set (project, "training.framework", "torchtitan");
      set (project, "training.recompute", g_str_has_prefix (checkpointing, "selective")
                                          ? "op-selective" : checkpointing);
    }
  else if (g_str_has_prefix (id, "torchtune"))
    {
      gboolean lora = strstr (id, "lora") != NULL;

      set (project, "training.framework", "torchtune");
      /* The LoRA row also has the techniques of the rows above it. */
      set (project, "training.recompute", lora ? "full" : checkpointing);
      set (project, "training.loss", lora || strstr (others, "Chunked") != NULL ? "chunked" : "full");
      if (lora || json_object_get_boolean_member (recipe, "compile"))
        set (project, "training.compile", "true");
      /* Not paged, although the config names PagedAdamW8bit: paged states
       * are outside PyTorch's statistics (9.94 GiB for this row), and the
       * measured 17.6 GiB counts the states (docs/training.md, "Checked
       * against real runs"). */
      if (strstr (optimizer, "8bit") != NULL)
        {
          set (project, "training.optimizer", "adamw-8bit");
          set (project, "training.optimizer_in_backward", "true");
        }
      else
        {
          set (project, "training.optimizer", "adamw");
          set (project, "training.optimizer_in_backward", "false");
        }
      if (lora || strstr (others, "offloading") != NULL)
        set (project, "training.offload_activations", "true");
      /* torchtune's recipes/configs/llama3_2/3B_lora_single_device.yaml:
       * lora_rank 64 on q_proj, v_proj, output_proj and the MLP
       * (apply_lora_to_mlp), dropout 0: the settings
       * tests/core/test-finetune.c takes for the same row. That test sets
       * the utilisation the README's full fine-tune reached (9,048
       * tokens/s predicted); this one predicts from the hardware (10,272). */
      if (lora)
        {
          set (project, "training.method", "lora");
          set (project, "training.lora_rank", "64");
          set (project, "training.lora_targets", "q,v,o,gate,up,down");
        }
    }
  else
    {
      /* llm-foundry: Composer's FSDP with MPT's LPLayerNorm
       * (submit_benchmarks.py: norm_type low_precision_layernorm). FSDP's
       * mixed precision gathers 16-bit parameters under DEFAULT and PURE
       * alike; DEFAULT reduces the gradients in fp32
       * (composer/trainer/mosaic_fsdp_utils.py get_mixed_precision at
       * v0.16.4 and v0.17.2, the releases llm-foundry pinned), so amp_bf16
       * runs no autocast casts over fp32 weights. */
      set (project, "training.fsdp", "full");
      set (project, "training.zero_stage", "0");
      set (project, "training.norm_kernel", "low-precision");
      set (project, "training.precision", "bf16-mixed");
      set (project, "training.fp32_gradients", strstr (precision, "PURE") != NULL ? "false" : "true");
      set (project, "training.recompute", g_str_has_prefix (checkpointing, "full") ? "full" : "none");
      /* ComposerMPTCausalLM's loss_fn default, 'fused_crossentropy':
       * flash-attn's CrossEntropyLoss on the 16-bit logits. */
      set (project, "training.loss", "kernel");
      /* submit_benchmarks.py's --attn_impl default, 'triton', at every
       * commit of these tables: flash-attn 1's Triton kernel. */
      set (project, "training.flash_kernel", "triton");
      /* The yamls' decoupled_adamw: Composer's DecoupledAdamW.adamw, a loop
       * over the parameters of unfused in-place ops (decoupled_weight_decay.py
       * at v0.16.4 and v0.17.2). */
      set (project, "training.optimizer_loop", "true");
    }
}

static void
test_rows (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *rows;
  double before_predicted = 0, before_tokens = 0;  /* the row before */

  json_parser_load_from_file (parser, TEST_DATA_DIR "/reference/real-runs.json", &error);
  g_assert_no_error (error);
  rows = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "rows");
  g_test_message ("%-42s %9s %9s %6s %7s %7s %6s", "run", "measured", "predicted", "ratio",
                  "mem GiB", "pred", "ratio");
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      JsonObject *measured = json_object_get_object_member (row, "measured");
      const char *id = json_object_get_string_member (row, "id");
      g_autoptr(HeadroomProject) project = headroom_project_new ();
      g_autoptr(HeadroomEstimator) estimator = NULL;
      JsonNode *memory_node = json_object_get_member (measured, "memory_gib");
      double tokens = json_object_get_double_member (measured, "tokens_per_s_per_gpu");
      double gpus = (double) json_object_get_int_member (json_object_get_object_member (row, "hardware"),
                                                         "gpus");
      double predicted, ratio, memory = 0, memory_ratio = 0;

      set_row (project, row);
      estimator = headroom_estimator_new (project);
      headroom_estimator_recompute_now (estimator);
      if (!headroom_estimator_get_has_result (estimator))
        g_error ("%s: %s", id, headroom_estimator_get_error (estimator));
      predicted = headroom_estimator_get_training_time (estimator)->tokens_per_second / gpus;
      ratio = predicted / tokens;
      if (memory_node != NULL && !JSON_NODE_HOLDS_NULL (memory_node))
        {
          memory = headroom_estimator_get_training_memory (estimator)->allocated_peak / GiB;
          memory_ratio = memory / json_node_get_double (memory_node);
        }
      g_test_message ("%-42s %9.0f %9.0f %6.3f %7.1f %7.1f %6.3f", id, tokens, predicted, ratio,
                      memory_ratio > 0 ? json_node_get_double (memory_node) : 0, memory, memory_ratio);
      /* The measured peak active memory, where the row has one, against
       * allocated_peak (torchtune's rows: docs/training.md, "Checked against
       * real runs"), to 10 %. */
      if (memory_ratio > 0)
        g_assert_cmpfloat (fabs (memory_ratio - 1), <=, 0.10);

      assert_within_stated_band (project, id, predicted, tokens);
      /* The compiled row adds torch.compile to the eager packed row: the
       * eager passes fused (eager RMSNorm 36 + 92 bytes an element against
       * 4 + 8, RoPE 48 + 100 against 4 + 8, SwiGLU 10 + 18 against 6 + 12,
       * the projections' gradient sums and the loss's passes gone), +27.2 %
       * measured, held to 2 %. */
      if (g_str_has_suffix (id, "-full-compile"))
        {
          g_test_message ("%-42s compile gain %.3f predicted, %.3f measured", id,
                          predicted / before_predicted, tokens / before_tokens);
          g_assert_cmpfloat (fabs ((predicted / before_predicted) / (tokens / before_tokens) - 1),
                             <=, 0.02);
        }
      /* torchtune's chunked cross-entropy row adds one technique to the
       * compiled row before it: only the loss's passes change (6 bytes a
       * logit on 16-bit chunks against 24 after the model's upcast,
       * docs/planner.md "Memory-bound kernels"). Its gain, +2.0 % measured,
       * is held to 1 %; the passes left uncounted gave none. */
      if (g_str_has_suffix (id, "-chunked-ce"))
        {
          g_test_message ("%-42s chunked gain %.3f predicted, %.3f measured", id,
                          predicted / before_predicted, tokens / before_tokens);
          g_assert_cmpfloat (fabs ((predicted / before_predicted) / (tokens / before_tokens) - 1),
                             <=, 0.01);
        }
      /* The next adds full activation checkpointing: the recomputed
       * forward and its passes, −21.4 % measured, held to 2 %. */
      if (g_str_has_suffix (id, "-full-ac"))
        {
          g_test_message ("%-42s checkpointing gain %.3f predicted, %.3f measured", id,
                          predicted / before_predicted, tokens / before_tokens);
          g_assert_cmpfloat (fabs ((predicted / before_predicted) / (tokens / before_tokens) - 1),
                             <=, 0.02);
        }
      before_predicted = predicted;
      before_tokens = tokens;
      g_assert_cmpfloat (fabs (ratio - 1), <=, 0.15);
    }
}

/* torchtitan's H100 tables (tests/data/torchtitan-h100.json, with their
 * origin): each row through the keys `headroom-cli train --framework
 * torchtitan --gpu h100-sxm-hbm2e` would set. Memory is torchtitan's
 * max_reserved, against reserved_peak; Float8 is torchao's float8 training,
 * fp8-mixed with the framework's fp8 recipe, which keeps bf16-mixed's
 * memory (docs/training.md, "Precision recipes"). The FSDP rows (tables
 * 1-3) are held to 10 %: the loss's backward is their peak (states, the 32
 * layers' saved tensors, three fp32 buffers of T·V; docs/training.md, "What
 * users measure") and the reserve adds FSDP's stream pools and the 16-bit
 * logits' block; table 4's 2D rows add the TP transients each layer's
 * forward leaves cached. The 3D-4D rows are reported with the bounds below,
 * as the model stands; throughput is printed, not held (docs/planner.md),
 * but for what Float8 gains over the compiled row before it. */
static const Bounds torchtitan_misses[] = {
  /* 405B on TP 8 × PP 8: the first stage's peak, in a layer's backward with
   * eight micro-batches in flight, is not yet derived (docs/training.md);
   * CP 2 is held to 10 % since the ring's gathered K/V and fp32 gradient
   * buffers are counted in that backward. */
  { "t5-405b-512gpu-1f1b", 0.80, 0.85 },
  { "t5-405b-512gpu-interleaved", 0.85, 0.95 },
  { "t6-405b-512gpu-cp4", 0.75, 0.90 },
  { "t6-405b-512gpu-cp8", 0.75, 0.90 },
};

static char *
count (JsonObject *row,
       const char *key)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT, json_object_get_int_member (row, key));
}

static void
set_torchtitan_row (HeadroomProject *project,
                    JsonObject      *row,
                    const char      *precision)
{
  g_autofree char *nodes = count (row, "nodes");
  g_autofree char *tp = count (row, "tp");
  g_autofree char *pp = count (row, "pp");
  g_autofree char *cp = count (row, "cp");
  g_autofree char *micro = count (row, "micro_batch");
  g_autofree char *global = count (row, "global_batch");
  g_autofree char *seq = count (row, "seq_len");
  g_autofree char *stages = count (row, "stages_per_rank");
  const char *schedule = json_object_get_string_member_with_default (row, "pp_schedule", NULL);

  set (project, "model.preset", json_object_get_string_member (row, "model"));
  set (project, "workload", "training");
  set (project, "hardware.gpu", "h100-sxm-hbm2e");
  set (project, "hardware.nodes", nodes);
  set (project, "hardware.gpus_per_node", "8");
  /* 400 Gb/s RDMA per GPU (the doc) */
  set (project, "hardware.inter_node_bandwidth", "50");
  set (project, "training.framework", "torchtitan");
  set (project, "training.tensor_parallel", tp);
  set (project, "training.sequence_parallel", json_object_get_int_member (row, "tp") > 1
                                              ? "true" : "false");
  set (project, "training.pipeline_parallel", pp);
  if (schedule != NULL)
    set (project, "training.pipeline_schedule", schedule);
  set (project, "training.virtual_stages", stages);
  set (project, "training.context_parallel", cp);
  set (project, "training.micro_batch", micro);
  set (project, "training.global_batch", global);
  set (project, "training.seq_len", seq);
  set (project, "training.causal", "true");
  set (project, "training.recompute",
       g_str_equal (json_object_get_string_member (row, "activation_checkpointing"), "full")
       ? "full" : "op-selective");
  set (project, "training.compile", json_object_get_boolean_member (row, "compile")
                                    ? "true" : "false");
  set (project, "training.async_tp", json_object_get_boolean_member_with_default (row, "async_tp", FALSE)
                                     ? "true" : "false");
  set (project, "training.precision", precision);
}

static const HrTrainingMemory *
estimate (HeadroomEstimator *estimator,
          const char        *id)
{
  headroom_estimator_recompute_now (estimator);
  if (!headroom_estimator_get_has_result (estimator))
    g_error ("%s: %s", id, headroom_estimator_get_error (estimator));
  return headroom_estimator_get_training_memory (estimator);
}

static void
test_torchtitan_h100 (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *rows;
  guint within = 0, checked = 0;
  double compiled_tps = 0, compiled_tokens = 0;  /* the row before, if a -compile one */

  json_parser_load_from_file (parser, TEST_DATA_DIR "/torchtitan-h100.json", &error);
  g_assert_no_error (error);
  rows = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "rows");
  g_test_message ("%-28s %8s %8s %6s %8s %8s %6s", "run", "mem GiB", "pred", "ratio",
                  "tok/s", "pred", "ratio");
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      JsonObject *measured = json_object_get_object_member (row, "measured");
      const char *id = json_object_get_string_member (row, "id");
      double memory = json_object_get_double_member (measured, "memory_gib");
      double tokens = json_object_get_double_member (measured, "tokens_per_s_per_gpu");
      double gpus = (double) json_object_get_int_member (row, "gpus");
      gboolean float8 = json_object_get_boolean_member (row, "float8");
      g_autoptr(HeadroomProject) project = headroom_project_new ();
      g_autoptr(HeadroomEstimator) estimator = NULL;
      const Bounds *miss;
      double predicted, ratio, tps;

      /* --framework torchtitan's fp8 is torchao's float8 (its default
       * training.fp8_recipe). */
      set_torchtitan_row (project, row, float8 ? "fp8-mixed" : "bf16-mixed");
      estimator = headroom_estimator_new (project);
      predicted = estimate (estimator, id)->reserved_peak / GiB;
      tps = headroom_estimator_get_training_time (estimator)->tokens_per_second / gpus;
      ratio = predicted / memory;
      g_test_message ("%-28s %8.1f %8.1f %6.3f %8.0f %8.0f %6.3f", id, memory, predicted, ratio,
                      tokens, tps, tps / tokens);
      assert_within_stated_band (project, id, tps, tokens);
      /* Tables 1 and 3 add Float8 to the compiled row before it: the gain
       * is the fp8 products less torchao's casts, whatever the rows' common
       * gap. It is held to 2 % of the measured gain (1.280 and 1.286):
       * Transformer Engine's casts gave 1.32, torchao's counted as eager ops
       * 1.21 (docs/planner.md, "FP8"). */
      if (float8 && compiled_tps > 0)
        {
          double gain = (tps / compiled_tps) / (tokens / compiled_tokens);

          g_test_message ("%-28s Float8 gain %.3f predicted, %.3f measured", id, tps / compiled_tps,
                          tokens / compiled_tokens);
          g_assert_cmpfloat (fabs (gain - 1), <=, 0.02);
        }
      compiled_tps = g_str_has_suffix (id, "-compile") ? tps : 0;
      compiled_tokens = tokens;

      miss = find_bounds (torchtitan_misses, G_N_ELEMENTS (torchtitan_misses), id);
      checked++;
      if (miss != NULL)
        {
          g_assert_cmpfloat (ratio, >=, miss->low);
          g_assert_cmpfloat (ratio, <=, miss->high);
        }
      else
        {
          g_assert_cmpfloat (fabs (ratio - 1), <=, 0.10);
          within++;
        }
    }
  g_test_message ("memory within 10 %%: %u of %u", within, checked);
  g_assert_cmpuint (within, ==, 14);
}

/* torchtitan as its 2025 benchmarks ran it: compiled with the loss, on
 * hosts of 8 GPUs with 400 Gb/s per GPU, 8,192 tokens of a causal LM. */
static void
set_torchtitan_2025 (HeadroomProject *project,
                     const char      *model,
                     const char      *gpu,
                     const char      *nodes)
{
  set (project, "model.preset", model);
  set (project, "workload", "training");
  set (project, "hardware.gpu", gpu);
  set (project, "hardware.nodes", nodes);
  set (project, "hardware.gpus_per_node", "8");
  set (project, "hardware.inter_node_bandwidth", "50");
  set (project, "training.framework", "torchtitan");
  set (project, "training.seq_len", "8192");
  set (project, "training.causal", "true");
  set (project, "training.compile", "true");
  set (project, "training.compile_loss", "true");
}

/* torchtitan's benchmarks/llama3_8b_h200_2025-06_torchtitan.md (Trainy,
 * June 2025; torch 2.8.0a0+5228986c39, torchao 0afa4c1, torchtitan
 * e7c0cae): Llama 3.1 8B on 4 and 8 nodes of 8 H200 (NVLink; 400 Gb/s per
 * GPU), train_configs/llama3_8b.toml (seq_len 8192, op-level SAC, FSDP2
 * over every GPU) with local batch 2, --training.compile and float8 with
 * fp8 all-gather. "TPS" per GPU and "Memory(GiB)" (torchtitan's
 * max_reserved) at step 100. That torchtitan compiles the loss with the
 * model (components/loss.py, build_cross_entropy_loss: torch.compile of
 * cross_entropy(pred.flatten(0, 1).float(), …)), so the loss keeps the
 * 16-bit logits (docs/training.md, "The loss"): with the fp32 logits it
 * was 57.1 GiB against 48.0. torchao's float8 (the framework's fp8
 * recipe) keeps bf16-mixed's memory; its fp8 all-gather, which gathers 1 B
 * a parameter instead of 2, is not modelled (--fp8-params is refused with
 * it), so the gathered layers are counted at 2 B. */
static void
test_torchtitan_h200 (void)
{
  static const struct
  {
    const char *nodes, *global;
    double      tokens, gib;
  } rows[] = {
    { "4", "64", 10938, 47.96 },
    { "8", "128", 10753, 46.97 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new ();
      g_autoptr(HeadroomEstimator) estimator = NULL;
      double predicted, tps;

      set_torchtitan_2025 (project, "llama-3.1-8b", "h200", rows[i].nodes);
      set (project, "training.micro_batch", "2");
      set (project, "training.global_batch", rows[i].global);
      set (project, "training.precision", "fp8-mixed");
      estimator = headroom_estimator_new (project);
      predicted = estimate (estimator, rows[i].nodes)->reserved_peak / GiB;
      tps = headroom_estimator_get_training_time (estimator)->tokens_per_second
            / (8 * g_ascii_strtod (rows[i].nodes, NULL));
      g_test_message ("%s nodes: memory %.2f GiB against %.2f (%+.1f %%), %.0f tokens/s per GPU "
                      "against %.0f (%.3f)", rows[i].nodes, predicted, rows[i].gib,
                      100 * (predicted / rows[i].gib - 1), tps, rows[i].tokens,
                      tps / rows[i].tokens);
      g_assert_cmpfloat (fabs (predicted / rows[i].gib - 1), <=, 0.10);
      assert_within_stated_band (project, rows[i].nodes, tps, rows[i].tokens);
    }
}

/* torchtitan's benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md
 * (pytorch/torchtitan, June 2025: torch 38410cf9, torchtitan 820504e; the
 * Grand Teton H100s of the December 2024 tables, 96 GB HBM2e at the 500 W
 * limit, 400 Gb/s per GPU): tokens/s per GPU with vanilla and async TP,
 * compiled (the loss with the model by then), bf16 and float8 tensorwise
 * (fp8-mixed's scaling; its rowwise rows are left out). Llama 3 70B on 256
 * GPUs, FSDP 32 × TP 8, full AC, local batch 16; Llama 3 8B on 64, FSDP 8
 * × TP 8, op-level SAC, local batch 12; 8,192 tokens (the configs'). No
 * memory is published. The ratios are printed and held near what the model
 * gives (a record, as test-published-runs.c holds its rows), and inside the
 * band the window states. */
static void
test_torchtitan_asynctp (void)
{
  static const struct
  {
    const char *model, *nodes, *micro, *global, *recompute, *precision, *async;
    double      tokens, held;
  } rows[] = {
    { "llama-3.1-70b", "32", "16", "512", "full", "bf16-mixed", "false", 597.3, 1.46 },
    { "llama-3.1-70b", "32", "16", "512", "full", "bf16-mixed", "true", 652.4, 1.52 },
    { "llama-3.1-70b", "32", "16", "512", "full", "fp8-mixed", "false", 809.8, 1.36 },
    { "llama-3.1-70b", "32", "16", "512", "full", "fp8-mixed", "true", 942.4, 1.28 },
    { "llama-3.1-8b", "8", "12", "96", "op-selective", "bf16-mixed", "false", 4378, 1.89 },
    { "llama-3.1-8b", "8", "12", "96", "op-selective", "bf16-mixed", "true", 4809.4, 1.78 },
    { "llama-3.1-8b", "8", "12", "96", "op-selective", "fp8-mixed", "false", 5078.1, 1.78 },
    { "llama-3.1-8b", "8", "12", "96", "op-selective", "fp8-mixed", "true", 5570.1, 1.61 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new ();
      g_autoptr(HeadroomEstimator) estimator = NULL;
      g_autofree char *id = g_strdup_printf ("%s, %s, async TP %s", rows[i].model,
                                             rows[i].precision, rows[i].async);
      double tps;

      set_torchtitan_2025 (project, rows[i].model, "h100-sxm-hbm2e", rows[i].nodes);
      set (project, "training.tensor_parallel", "8");
      set (project, "training.sequence_parallel", "true");
      set (project, "training.micro_batch", rows[i].micro);
      set (project, "training.global_batch", rows[i].global);
      set (project, "training.recompute", rows[i].recompute);
      set (project, "training.async_tp", rows[i].async);
      set (project, "training.precision", rows[i].precision);
      estimator = headroom_estimator_new (project);
      estimate (estimator, id);
      tps = headroom_estimator_get_training_time (estimator)->tokens_per_second
            / (8 * g_ascii_strtod (rows[i].nodes, NULL));
      g_test_message ("%-42s %7.1f tokens/s per GPU, predicted %7.1f (%.3f)", id, rows[i].tokens,
                      tps, tps / rows[i].tokens);
      assert_within_stated_band (project, id, tps, rows[i].tokens);
      g_assert_cmpfloat (fabs (tps / rows[i].tokens - rows[i].held), <=, 0.1);
    }
}

/* torchtune's README at 1814feb17a90, "Memory and training speed": Llama
 * 3.1 fine-tunes at batch 2 packed to 2,048 tokens, compiled, without
 * gradient accumulation (the table's note); the rest from each recipe's
 * config at that commit (recipes/configs/llama3_1/): adapters on q, v,
 * output_proj and the MLP, AC on, CEWithChunkedOutputLoss, torch AdamW, bf16;
 * 70B_lora.yaml r 16 with FSDP over 8 GPUs; 70B_full.yaml with fsdp_cpu_offload
 * (FSDP2's CPUOffloadPolicy: the shards and the fused AdamW step on the CPU),
 * which needs a measured utilisation for its time, not for its memory.
 * "Peak Memory per GPU" read as the recipe's peak active memory, against
 * allocated_peak.
 * Not held: the 8B LoRA row on an A6000 (30.3 GiB, the same settings as the
 * 4090's 16.2: 17.2 predicted with AC, 36.8 without), and 405B QLoRA (44.8
 * GB, whose config's batch of 1 conflicts with the note's 2: 39.2 GiB
 * predicted at 1, 49.1 at 2). */
static void
test_torchtune_readme (void)
{
  static const struct
  {
    const char *id, *model, *gpu, *gpus, *method, *rank, *micro, *global;
    gboolean    offload;
    double      gib;
  } rows[] = {
    { "8B LoRA, RTX 4090", "llama-3.1-8b", "rtx-4090", "1", "lora", "8", "2", "2", FALSE, 16.2 },
    { "8B QLoRA, RTX 4090", "llama-3.1-8b", "rtx-4090", "1", "qlora", "8", "2", "2", FALSE, 7.4 },
    { "70B LoRA, 8 A100", "llama-3.1-70b", "a100-80gb-sxm", "8", "lora", "16", "2", "16", FALSE,
      27.6 },
    { "70B full, 8 A100", "llama-3.1-70b", "a100-80gb-sxm", "8", "full", "8", "2", "16", TRUE,
      13.9 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new ();
      g_autoptr(HeadroomEstimator) estimator = NULL;
      double predicted;

      set (project, "model.preset", rows[i].model);
      set (project, "workload", "training");
      set (project, "hardware.gpu", rows[i].gpu);
      set (project, "hardware.nodes", "1");
      set (project, "hardware.gpus_per_node", rows[i].gpus);
      set (project, "training.framework", "torchtune");
      set (project, "training.fsdp", g_str_equal (rows[i].gpus, "1") ? "none" : "full");
      set (project, "training.micro_batch", rows[i].micro);
      set (project, "training.global_batch", rows[i].global);
      set (project, "training.seq_len", "2048");
      set (project, "training.causal", "true");
      set (project, "training.compile", "true");
      set (project, "training.recompute", "full");
      set (project, "training.loss", "chunked");
      set (project, "training.optimizer", "adamw");
      set (project, "training.optimizer_in_backward", "false");
      set (project, "training.method", rows[i].method);
      set (project, "training.lora_rank", rows[i].rank);
      set (project, "training.lora_targets", "q,v,o,gate,up,down");
      if (rows[i].offload)
        {
          set (project, "training.offload_params", "true");
          set (project, "training.mfu", "0.3");
          /* 70B_full.yaml: custom_sharded_layers ['tok_embeddings', 'output'] */
          set (project, "training.fsdp_embedding_units", "true");
        }
      estimator = headroom_estimator_new (project);
      predicted = estimate (estimator, rows[i].id)->allocated_peak / GiB;
      g_test_message ("%-20s measured %5.1f GiB, predicted %5.2f (%+.1f %%)", rows[i].id,
                      rows[i].gib, predicted, 100 * (predicted / rows[i].gib - 1));
      g_assert_cmpfloat (fabs (predicted / rows[i].gib - 1), <=, 0.10);
    }
}

/* torchtune's README "Optimization flags" table at 1814feb (Llama 3.2 3B,
 * batch 2 packed to 4,096, A100, compiled, full activation checkpointing,
 * chunked cross-entropy, torch AdamW) with the given method, optimizer step
 * in backward and activation offloading. */
static HeadroomProject *
torchtune_flags_project (const char *method,
                         gboolean    in_backward,
                         gboolean    offload)
{
  HeadroomProject *project = headroom_project_new ();

  set (project, "model.preset", "llama-3.2-3b");
  set (project, "workload", "training");
  set (project, "hardware.gpu", "a100-80gb-sxm");
  set (project, "hardware.nodes", "1");
  set (project, "hardware.gpus_per_node", "1");
  set (project, "training.framework", "torchtune");
  set (project, "training.micro_batch", "2");
  set (project, "training.global_batch", "2");
  set (project, "training.seq_len", "4096");
  set (project, "training.causal", "true");
  set (project, "training.compile", "true");
  set (project, "training.recompute", "full");
  set (project, "training.loss", "chunked");
  set (project, "training.optimizer", "adamw");
  set (project, "training.optimizer_in_backward", in_backward ? "true" : "false");
  set (project, "training.offload_activations", offload ? "true" : "false");
  set (project, "training.method", method);
  set (project, "training.lora_rank", "64");
  set (project, "training.lora_targets", "q,v,o,gate,up,down");
  return project;
}

/* The rows of torchtune's "Optimization flags" table (README at
 * 1814feb17a90) that real-runs.json leaves out: Llama 3.2 3B on one A100,
 * batch 2 packed to 4,096 tokens, compiled, chunked cross-entropy, full AC,
 * each row adding its technique to the one above: "+ Fuse optimizer step
 * into backward" (23.1 GiB peak active, 7,309 tokens/s) and "+ Activation
 * Offloading" (21.8, 7,301), both with torch AdamW in pure bf16; "QLoRA"
 * (4.6, 8,035), the LoRA row's settings with an NF4 base (the README: LoRA
 * and QLoRA use neither optimizer_in_bwd nor 8-bit AdamW). Memory is held
 * to 10 % and throughput to 15 %, the targets. */
static void
test_torchtune_flags (void)
{
  static const struct
  {
    const char *id, *method;
    gboolean    in_backward, offload;
    double      gib, tokens;
  } rows[] = {
    { "+ optimizer step in backward", "full", TRUE, FALSE, 23.1, 7309 },
    { "+ activation offloading", "full", TRUE, TRUE, 21.8, 7301 },
    { "QLoRA", "qlora", FALSE, TRUE, 4.6, 8035 },
  };
  double offloaded_tps = 0;

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(HeadroomProject) project = torchtune_flags_project (rows[i].method,
                                                                    rows[i].in_backward,
                                                                    rows[i].offload);
      g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
      double predicted, tps;

      predicted = estimate (estimator, rows[i].id)->allocated_peak / GiB;
      tps = headroom_estimator_get_training_time (estimator)->tokens_per_second;
      g_test_message ("%-30s measured %5.1f GiB, predicted %5.2f (%+.1f %%); %5.0f tokens/s, "
                      "predicted %5.0f (%.3f)", rows[i].id, rows[i].gib, predicted,
                      100 * (predicted / rows[i].gib - 1), rows[i].tokens, tps,
                      tps / rows[i].tokens);
      g_assert_cmpfloat (fabs (predicted / rows[i].gib - 1), <=, 0.10);
      g_assert_cmpfloat (fabs (tps / rows[i].tokens - 1), <=, 0.15);
      assert_within_stated_band (project, rows[i].id, tps, rows[i].tokens);
      if (rows[i].offload && rows[i].in_backward)
        offloaded_tps = tps;
    }

  /* The table's next row swaps AdamW for bitsandbytes' 8-bit AdamW
   * (real-runs.json, 6,960 tokens/s: −4.7 % measured). Its update ends in
   * torch.cuda.synchronize() after every parameter, so inside the backward
   * each copy back of an offloaded layer input starts on an idle GPU:
   * 26 layer inputs × 8,192 tokens × 3,072 × 2 B = 1,308,622,848 B ÷ 32
   * GB/s = 40.9 ms more a step, where the lighter update saves 7.8 ms.
   * Predicted −3.2 %, held to 2 % of the measured ratio; with the copies
   * hidden it was +0.8 %. */
  {
    g_autoptr(HeadroomProject) project = torchtune_flags_project ("full", TRUE, TRUE);
    g_autoptr(HeadroomEstimator) estimator = NULL;
    const HrTrainingTime *time;
    double gain;

    set (project, "training.optimizer", "adamw-8bit");
    estimator = headroom_estimator_new (project);
    estimate (estimator, "+ 8-bit AdamW");
    time = headroom_estimator_get_training_time (estimator);
    gain = time->tokens_per_second / offloaded_tps;
    g_test_message ("%-30s 8-bit AdamW gain %.3f predicted, %.3f measured", "+ 8-bit AdamW",
                    gain, 6960.0 / 7301.0);
    g_assert_cmpfloat (fabs (time->host_seconds / (26.0 * 8192 * 3072 * 2 / 32e9) - 1), <=, 1e-12);
    g_assert_cmpfloat (fabs (gain / (6960.0 / 7301.0) - 1), <=, 0.02);
  }
}

/* A project of LitGPT's finetune/lora.py at 8641822 for `model` (a preset,
 * or a config under tests/data/litgpt) on A100-SXM4-40GB: bf16-true, its
 * eager RMSNorm, SDPA (flash), LoRA r 8 on q and v with dropout 0.05,
 * batch 128, the given longest sample. */
static HeadroomProject *
litgpt_project (const char *model,
                const char *gpus,
                const char *micro,
                const char *seq)
{
  g_autofree char *path = g_strdup_printf (TEST_DATA_DIR "/litgpt/%s.config.json", model);
  HeadroomProject *project;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      project = headroom_project_new ();
      set (project, "model.preset", model);
    }
  else
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      g_assert_true (json_parser_load_from_file (parser, path, &error));
      project = headroom_project_new_from_config (json_node_get_object (json_parser_get_root (parser)),
                                                  &error);
      g_assert_no_error (error);
    }
  set (project, "workload", "training");
  set (project, "hardware.gpu", "a100-40gb-sxm");
  set (project, "hardware.nodes", "1");
  set (project, "hardware.gpus_per_node", gpus);
  set (project, "training.precision", "bf16");
  set (project, "training.norm_kernel", "eager");
  set (project, "training.attention", "flash");
  set (project, "training.causal", "true");
  set (project, "training.zero_stage", "0");
  set (project, "training.micro_batch", micro);
  set (project, "training.global_batch", "128");
  set (project, "training.seq_len", seq);
  set (project, "training.method", "lora");
  set (project, "training.lora_rank", "8");
  set (project, "training.lora_dropout", "0.05");
  set (project, "training.lora_targets", "q,v");
  return project;
}

/* LitGPT's QLoRA: Lightning's BitsandbytesPrecision quantises every linear
 * with the head to NF4 (bnb.nf4, or bnb.nf4-dq with double quantisation),
 * from an fp16 copy of each weight (_Linear4bit.quantize); the
 * bitsandbytes LitGPT ran (0.41, then 0.42) saves each 4-bit matmul's
 * input; finetune/lora.py steps bnb's paged AdamW. */
static void
litgpt_qlora (HeadroomProject *project,
              gboolean         double_quant)
{
  set (project, "training.method", "qlora");
  set (project, "training.quant", "nf4");
  set (project, "training.double_quant", double_quant ? "true" : "false");
  set (project, "training.quant_scope", "all");
  set (project, "training.quant_saves_input", "true");
  set (project, "training.quant_from_fp16", "true");
  set (project, "training.paged_optimizer", "true");
}

/* LitGPT's resource tables (Lightning-AI/litgpt tutorials/resource-tables.md,
 * run at lit-gpt 8641822 on A100-SXM4-40GB): LoRA r 8 on q and v, dropout
 * 0.05, bf16-true, the longest Alpaca sample first (phi-1.5 1,044 tokens,
 * StableLM Alpha 1,034, Llama 2 1,304), batch 128 in micro-batches. On
 * several GPUs finetune/lora.py runs Fabric's FSDPStrategy: full shard
 * wrapping each Block, activation checkpointing per Block, use_orig_params
 * (Fabric's default: frozen and LoRA weights in one flat parameter, hence
 * training.frozen_gradients) and fabric.no_backward_sync while
 * accumulating (FSDP1's no_sync(): training.no_sync). The head runs in
 * chunks of 128 tokens with cross-entropy per chunk (lm_head_chunk_size,
 * chunked_cross_entropy). Measured: torch.cuda.max_memory_allocated() / 1e9
 * (GB), against allocated_peak. Without the two settings the same rows are
 * predicted at 25–59 % of the measured (docs/training.md). */
static void
test_litgpt_fsdp (void)
{
  static const struct
  {
    const char *model;   /* a preset, or a config under tests/data/litgpt */
    const char *gpus, *micro, *seq, *chunks;
    double      gb;
  } rows[] = {
    { "phi-1_5", "2", "1", "1044", "9", 4.86 },
    { "phi-1_5", "2", "2", "1044", "9", 5.05 },
    { "phi-1_5", "2", "4", "1044", "9", 5.88 },
    { "stablelm-base-alpha-3b", "2", "1", "1034", "9", 12.75 },
    { "stablelm-base-alpha-3b", "2", "2", "1034", "9", 12.94 },
    { "stablelm-base-alpha-3b", "2", "4", "1034", "9", 13.45 },
    { "llama-2-7b", "2", "1", "1304", "11", 22.18 },
    { "llama-2-7b", "2", "2", "1304", "11", 22.47 },
    { "llama-2-7b", "2", "4", "1304", "11", 23.39 },
    { "llama-2-13b", "4", "1", "1304", "11", 35.57 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(HeadroomProject) project = litgpt_project (rows[i].model, rows[i].gpus,
                                                           rows[i].micro, rows[i].seq);
      g_autoptr(HeadroomEstimator) estimator = NULL;
      g_autofree char *id = g_strdup_printf ("%s, %s GPUs, micro-batch %s", rows[i].model,
                                             rows[i].gpus, rows[i].micro);
      double measured = rows[i].gb * 1e9, predicted, without;

      set (project, "training.fsdp", "full");
      set (project, "training.recompute", "full");
      set (project, "training.loss", "chunked");
      set (project, "training.loss_chunks", rows[i].chunks);
      estimator = headroom_estimator_new (project);
      without = estimate (estimator, id)->allocated_peak;
      set (project, "training.no_sync", "true");
      set (project, "training.frozen_gradients", "true");
      predicted = estimate (estimator, id)->allocated_peak;
      g_test_message ("%-48s measured %5.2f GB, predicted %5.2f (%+.1f %%); without %5.2f",
                      id, rows[i].gb, predicted / 1e9, 100 * (predicted / measured - 1),
                      without / 1e9);
      g_assert_cmpfloat (fabs (predicted / measured - 1), <=, 0.10);
      g_assert_cmpfloat (without / measured, <, 0.9);
    }
}

/* The same table's runs on one GPU (strategy "auto": no FSDP, no
 * activation checkpointing), quantised with bitsandbytes 0.41.1 where the
 * row says (Lightning's BitsandbytesPrecision: every linear with the head;
 * MatMul4Bit kept its input; bnb.optim.PagedAdamW). lit-gpt's loop keeps
 * the loss too, but its first micro-batch is the longest sample
 * (get_batch(…, longest_seq_ix if iter_num == 0)), with no graph before it,
 * and the later ones are shorter: the peak is the first step's, without
 * training.loop_keeps_loss. Set with the full-logit
 * loss, as /finetune/reference-runs sets the shared rows of this table; the
 * chunked description of the multi-GPU rows is printed beside it, 3–13 %
 * lower (docs/training.md, "Checked against published runs"). */
static void
test_litgpt_one_gpu (void)
{
  static const struct
  {
    const char *model, *micro, *seq, *chunks, *quant;
    double      gb;
  } rows[] = {
    { "phi-1_5", "1", "1044", "9", NULL, 4.82 },
    { "phi-1_5", "1", "1044", "9", "nf4", 3.78 },
    { "phi-1_5", "1", "1044", "9", "nf4-dq", 3.72 },
    { "phi-1_5", "2", "1044", "9", NULL, 6.76 },
    { "phi-1_5", "4", "1044", "9", NULL, 10.68 },
    { "stablelm-base-alpha-3b", "1", "1034", "9", NULL, 9.69 },
    { "stablelm-base-alpha-3b", "1", "1034", "9", "nf4", 6.35 },
    { "stablelm-base-alpha-3b", "1", "1034", "9", "nf4-dq", 6.19 },
    { "stablelm-base-alpha-3b", "2", "1034", "9", NULL, 12.10 },
    { "stablelm-base-alpha-3b", "4", "1034", "9", NULL, 16.92 },
    { "llama-2-7b", "1", "1304", "11", NULL, 21.30 },
    { "llama-2-7b", "1", "1304", "11", "nf4", 14.14 },
    { "llama-2-7b", "1", "1304", "11", "nf4-dq", 13.84 },
    { "llama-2-7b", "2", "1304", "11", NULL, 29.07 },
    { "llama-2-13b", "1", "1304", "11", NULL, 38.12 },
    { "llama-2-13b", "1", "1304", "11", "nf4", 23.14 },
    { "llama-2-13b", "1", "1304", "11", "nf4-dq", 22.55 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(HeadroomProject) project = litgpt_project (rows[i].model, "1", rows[i].micro,
                                                           rows[i].seq);
      g_autoptr(HeadroomEstimator) estimator = NULL;
      g_autofree char *id = g_strdup_printf ("%s, micro-batch %s, %s", rows[i].model,
                                             rows[i].micro, rows[i].quant ? rows[i].quant : "bf16");
      double measured = rows[i].gb * 1e9, predicted, chunked;

      if (rows[i].quant != NULL)
        litgpt_qlora (project, g_str_equal (rows[i].quant, "nf4-dq"));
      estimator = headroom_estimator_new (project);
      predicted = estimate (estimator, id)->allocated_peak;
      set (project, "training.loss", "chunked");
      set (project, "training.loss_chunks", rows[i].chunks);
      chunked = estimate (estimator, id)->allocated_peak;
      g_test_message ("%-46s measured %5.2f GB, predicted %5.2f (%+.1f %%); chunked %+.1f %%",
                      id, rows[i].gb, predicted / 1e9, 100 * (predicted / measured - 1),
                      100 * (chunked / measured - 1));
      g_assert_cmpfloat (fabs (predicted / measured - 1), <=, 0.10);
    }
}

/* LitGPT's config hub (config_hub/finetune/README.md, the table of
 * 2024-09-27, 00af8b0d: one A10G, bf16-true, Alpaca2k truncated to 512
 * tokens, each config's micro-batch, LoRA with dropout 0.05; "Peak memory"
 * is finetune/lora.py's max_memory_allocated() / 1e9). LitGPT's GPT has a
 * head of its own (litgpt/model.py: lm_head = nn.Linear), which
 * convert_hf_checkpoint.py fills with a copy of the embedding where the
 * checkpoint has none (Llama 3.2, Gemma): no model is tied. Set as
 * /real-runs/litgpt-one-gpu sets the 2023 table. The QLoRA rows: bnb.nf4 on
 * every linear with the head, quantised from fp16, paged AdamW, and
 * bitsandbytes 0.42 (pyproject.toml pins it), whose 4-bit matmuls keep
 * their input on the autograd context; fit() binds `logits` and `loss` at
 * the loop's level, so each micro-batch's graph, and those inputs, live
 * until the next one's loss is computed, and the batches come shuffled
 * (CycleIterator over the DataLoader), so two of 512 tokens can follow each
 * other: training.loop_keeps_loss. Without it Llama 2 7B and Mistral 7B
 * were 16.9 and 15.2 % under (docs/training.md). */

static void
test_litgpt_config_hub (void)
{
  static const struct
  {
    const char *model, *micro, *rank, *targets;
    gboolean    qlora;
    double      gb;
  } rows[] = {
    { "llama-2-7b", "2", "32", "q,v", FALSE, 19.77 },
    { "llama-3-8b", "1", "32", "q,v", FALSE, 19.73 },
    { "llama-3.1-8b", "1", "32", "q,v", FALSE, 19.73 },
    { "mistral-7b-v0.1", "2", "32", "q,v", FALSE, 20.66 },
    { "llama-3.2-1b", "1", "32", "q,v", FALSE, 4.49 },
    { "llama-3.2-3b", "1", "32", "q,v", FALSE, 9.67 },
    { "gemma-2b", "2", "8", "q,k,v,o,gate,up,down,lm_head", FALSE, 12.62 },
    { "llama-2-7b", "2", "32", "q,v", TRUE, 13.68 },
    { "llama-3-8b", "2", "32", "q,v", TRUE, 17.41 },
    { "mistral-7b-v0.1", "2", "32", "q,v", TRUE, 14.29 },
    { "llama-3.2-1b", "2", "32", "q,v", TRUE, 5.53 },
    { "llama-3.2-3b", "2", "32", "q,v", TRUE, 10.30 },
    { "gemma-2b", "2", "16", "q,k,v,o,gate,up,down,lm_head", TRUE, 11.58 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(HeadroomProject) project = litgpt_project (rows[i].model, "1", rows[i].micro, "512");
      g_autoptr(HeadroomEstimator) estimator = NULL;
      g_autofree char *id = g_strdup_printf ("%s, %s, micro-batch %s", rows[i].model,
                                             rows[i].qlora ? "QLoRA" : "LoRA", rows[i].micro);
      double measured = rows[i].gb * 1e9, predicted;

      set (project, "hardware.gpu", "a10g");
      set (project, "training.lora_rank", rows[i].rank);
      set (project, "training.lora_targets", rows[i].targets);
      set (project, "model.tie_word_embeddings", "false");
      if (rows[i].qlora)
        {
          litgpt_qlora (project, FALSE);
          set (project, "training.loop_keeps_loss", "true");
        }
      estimator = headroom_estimator_new (project);
      predicted = estimate (estimator, id)->allocated_peak;
      g_test_message ("%-46s measured %5.2f GB, predicted %5.2f (%+.1f %%)", id, rows[i].gb,
                      predicted / 1e9, 100 * (predicted / measured - 1));
      g_assert_cmpfloat (fabs (predicted / measured - 1), <=, 0.10);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/real-runs/rows", test_rows);
  g_test_add_func ("/real-runs/torchtitan-h100", test_torchtitan_h100);
  g_test_add_func ("/real-runs/torchtitan-h200", test_torchtitan_h200);
  g_test_add_func ("/real-runs/torchtitan-asynctp", test_torchtitan_asynctp);
  g_test_add_func ("/real-runs/torchtune-readme", test_torchtune_readme);
  g_test_add_func ("/real-runs/torchtune-flags", test_torchtune_flags);
  g_test_add_func ("/real-runs/litgpt-fsdp", test_litgpt_fsdp);
  g_test_add_func ("/real-runs/litgpt-one-gpu", test_litgpt_one_gpu);
  g_test_add_func ("/real-runs/litgpt-config-hub", test_litgpt_config_hub);
  return g_test_run ();
}
