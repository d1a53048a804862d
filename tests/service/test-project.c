/* test-project.c: project documents: keys, values, validation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "hr-config.h"
#include "test-project.h"

static void
test_default_model (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(GError) error = NULL;
  HrModel model;
  HrParams params;

  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (hr_model_params (&model, &params, NULL), ==, HR_OK);
  g_assert_cmpint (params.total, ==, LLAMA_31_8B_PARAMS);

  g_assert_cmpint (headroom_project_get_int (project, "model.hidden_size"), ==, 4096);
  g_assert_cmpint (headroom_project_get_int (project, "training.seq_len"), ==, 8192);
  g_assert_cmpint (headroom_project_get_int (project, "training.global_batch"), ==, 512);
  g_assert_cmpint (headroom_project_get_n_gpus (project), ==, 8);
  g_assert_cmpstr (headroom_project_get_string (project, "training.attention"), ==, "flash");
  g_assert_cmpint (headroom_project_get_workload (project), ==, HEADROOM_WORKLOAD_TRAINING);
  g_assert_false (headroom_project_get_modified (project));
  g_assert_true (headroom_project_validate (project, &error));
  g_assert_no_error (error);
}

/* The example as shipped: a catalog preset and a catalog GPU. */
static void
test_default_catalog (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GError) error = NULL;
  g_autofree char *title = headroom_project_dup_title (project);
  HrGpu gpu;

  g_assert_cmpstr (headroom_project_get_preset (project), ==, "llama-3.1-8b");
  g_assert_cmpstr (title, ==, "llama-3.1-8b");
  g_assert_cmpuint (json_object_get_size (headroom_project_get_config (project)), ==, 0);
  g_assert_cmpstr (headroom_project_get_string (project, "hardware.gpu"), ==, "h100-sxm");
  g_assert_true (headroom_project_get_gpu (project, &gpu, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (gpu.memory_bytes, >, 0);
  g_assert_true (headroom_project_validate (project, &error));
  g_assert_no_error (error);
}

/* The custom GPU from its keys in the file's units, and the cluster's
 * figures over it only where set: 80 GiB = 80 × 2^30 bytes, 3350 GB/s =
 * 3.35e12 B/s, 989 TFLOP/s = 9.89e14 FLOP/s, 1979 TOP/s = 1.979e15,
 * 700 W; an inter-node latency of 5 µs = 5e-6 s; a bandwidth of 0 leaves the
 * GPU's (0 for the custom one). A latency of 0 leaves the step model NCCL's
 * 14 µs a network step (tuning.cc, hwLat NET Ring Simple), what the window
 * shows as the default. */
static void
test_custom_gpu (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GError) error = NULL;
  HrGpu gpu;

  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "custom", NULL));
  g_assert_true (headroom_project_set_double (project, "hardware.inter_node_latency", 5, NULL));
  g_assert_true (headroom_project_get_gpu (project, &gpu, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (gpu.memory_bytes, ==, 80.0 * 1073741824.0);
  g_assert_cmpfloat (gpu.memory_bandwidth, ==, 3350 * 1e9);
  g_assert_cmpfloat (gpu.peak_flops[HR_DTYPE_BF16], ==, 989 * 1e12);
  g_assert_cmpfloat (gpu.peak_flops[HR_DTYPE_INT8], ==, 1979 * 1e12);
  g_assert_cmpfloat (gpu.power_watts, ==, 700);
  g_assert_cmpfloat (gpu.inter_node_latency, ==, 5 * 1e-6);
  g_assert_cmpfloat (headroom_gpu_network_latency (&gpu), ==, 5 * 1e-6);
  g_assert_cmpfloat (gpu.inter_node_bandwidth, ==, 0);

  g_assert_true (headroom_project_set_double (project, "hardware.inter_node_latency", 0, NULL));
  g_assert_true (headroom_project_get_gpu (project, &gpu, &error));
  g_assert_cmpfloat (gpu.inter_node_latency, ==, 0);
  g_assert_cmpfloat (headroom_gpu_network_latency (&gpu), ==, 14e-6);
}

/* Every table default must pass the table's own checks, and every choice
 * must be a name the core reads. */
/* The CLI prints a result's setting by the table's choice name: every name
 * of a choice key reads into an enum that prints back as that name. */
static void
test_choice_for_enum (void)
{
  const HeadroomKeyInfo *keys;
  guint n_keys;

  keys = headroom_project_get_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      if (keys[i].type != HEADROOM_KEY_CHOICE || keys[i].from_name == NULL)
        continue;
      for (guint c = 0; keys[i].choices[c] != NULL; c++)
        {
          int value = -1;

          g_assert_true (keys[i].from_name (keys[i].choices[c], &value));
          g_assert_cmpstr (headroom_key_info_get_choice_for_enum (&keys[i], value), ==,
                           keys[i].choices[c]);
        }
    }
  g_assert_cmpstr (headroom_key_info_get_choice_for_enum (headroom_project_find_key ("training.fsdp"),
                                                          HR_FSDP_GRAD_OP), ==, "grad-op");
  g_assert_null (headroom_key_info_get_choice_for_enum (headroom_project_find_key ("training.fsdp"), 99));
}

static void
test_key_table (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  const HeadroomKeyInfo *keys;
  guint n_keys;

  keys = headroom_project_get_keys (&n_keys);
  g_assert_cmpuint (n_keys, >, 40);
  /* The look-up by name finds every row (above) and nothing else: a
   * misspelling, a section, a model key outside the table, a prefix. */
  g_assert_null (headroom_project_find_key ("training.tensor_paralel"));
  g_assert_null (headroom_project_find_key ("training"));
  g_assert_null (headroom_project_find_key ("model.rope_theta"));
  g_assert_null (headroom_project_find_key ("training.tensor_parallel "));
  for (guint i = 0; i < n_keys; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (headroom_project_find_key (keys[i].key) == &keys[i]);
      if (keys[i].default_value != NULL)
        {
          headroom_project_set_from_string (project, keys[i].key, keys[i].default_value, &error);
          g_assert_no_error (error);
        }
      for (guint c = 0; keys[i].choices != NULL && keys[i].choices[c] != NULL; c++)
        {
          const char *name = keys[i].choices[c];
          HrPrecision precision;
          HrOptimizer optimizer;
          HrPipelineSchedule schedule;
          HrFsdp fsdp;
          HrAttentionImpl attention;
          HrRecompute recompute;
          HrWeightPrecision weights;
          HrKvDtype kv;
          HrFinetuneMethod method;
          HrQuant quant;
          HrQuantScope scope;
          HrEngine engine;
          HrNormKernel norm_kernel;
          HrRopeKernel rope_kernel;
          HrProjections projections;
          HrFlashKernel flash_kernel;
          HrGluKernel glu_kernel;
          HrLoss loss;
          HrFp8Recipe fp8_recipe;

          /* The autocast recipes are the mixed ones with the fp32 residual
           * stream (headroom_project_get_training). */
          if (strcmp (keys[i].key, "training.precision") == 0)
            g_assert_true (hr_precision_from_name (name, &precision)
                           || strcmp (name, "bf16-autocast") == 0
                           || strcmp (name, "fp16-autocast") == 0);
          else if (strcmp (keys[i].key, "training.norm_kernel") == 0)
            g_assert_true (hr_norm_kernel_from_name (name, &norm_kernel));
          else if (strcmp (keys[i].key, "training.rope_kernel") == 0)
            g_assert_true (hr_rope_kernel_from_name (name, &rope_kernel));
          else if (strcmp (keys[i].key, "training.projections") == 0)
            g_assert_true (hr_projections_from_name (name, &projections));
          else if (strcmp (keys[i].key, "training.flash_kernel") == 0)
            g_assert_true (hr_flash_kernel_from_name (name, &flash_kernel));
          else if (strcmp (keys[i].key, "training.glu_kernel") == 0)
            g_assert_true (hr_glu_kernel_from_name (name, &glu_kernel));
          else if (strcmp (keys[i].key, "training.loss") == 0)
            g_assert_true (hr_loss_from_name (name, &loss));
          else if (strcmp (keys[i].key, "training.fp8_recipe") == 0)
            g_assert_true (hr_fp8_recipe_from_name (name, &fp8_recipe));
          else if (strcmp (keys[i].key, "training.optimizer") == 0)
            g_assert_true (hr_optimizer_from_name (name, &optimizer));
          else if (strcmp (keys[i].key, "training.pipeline_schedule") == 0)
            g_assert_true (hr_pipeline_schedule_from_name (name, &schedule));
          else if (strcmp (keys[i].key, "training.fsdp") == 0)
            g_assert_true (hr_fsdp_from_name (name, &fsdp));
          else if (strcmp (keys[i].key, "training.attention") == 0)
            g_assert_true (hr_training_attention_from_name (name, &attention));
          else if (strcmp (keys[i].key, "training.recompute") == 0)
            g_assert_true (hr_training_recompute_from_name (name, &recompute));
          else if (strcmp (keys[i].key, "inference.weights") == 0)
            g_assert_true (hr_weight_precision_from_name (name, &weights));
          else if (strcmp (keys[i].key, "inference.kv_dtype") == 0)
            g_assert_true (hr_kv_dtype_from_name (name, &kv));
          else if (strcmp (keys[i].key, "training.method") == 0)
            g_assert_true (hr_finetune_method_from_name (name, &method));
          else if (strcmp (keys[i].key, "training.quant") == 0)
            g_assert_true (hr_quant_from_name (name, &quant));
          else if (strcmp (keys[i].key, "training.quant_scope") == 0)
            g_assert_true (hr_quant_scope_from_name (name, &scope));
          else if (strcmp (keys[i].key, "inference.engine") == 0)
            g_assert_true (hr_engine_from_name (name, &engine));
          else if (strcmp (keys[i].key, "model.assume_architecture") == 0)
            g_assert_cmpint (hr_assume_from_name (name), >=, 0);
          else if (strcmp (keys[i].key, "training.overlap") == 0)
            g_assert_true (strcmp (name, "on") == 0 || strcmp (name, "off") == 0);
          else if (strcmp (keys[i].key, "training.framework") != 0)
            g_assert_cmpstr (keys[i].key, ==, "workload");
        }
    }

  g_assert_cmpstr (headroom_project_key_for_field ("training", "tensor_parallel"), ==,
                   "training.tensor_parallel");
  g_assert_cmpstr (headroom_project_key_for_field ("inference", "tensor_parallel"), ==,
                   "inference.tensor_parallel");
  g_assert_cmpstr (headroom_project_key_for_field ("training", "nodes"), ==, "hardware.nodes");
  g_assert_cmpstr (headroom_project_key_for_field (NULL, "rope_theta"), ==, "model.rope_theta");
}

static void
changed_cb (HeadroomProject *project,
            const char      *key,
            GPtrArray       *seen)
{
  g_ptr_array_add (seen, g_strdup (key));
}

/* --framework fills the recipe keys the project leaves unset
 * (headroom-project-keys.c, framework_defaults; docs/training.md "Frameworks"):
 * torchtune's 3B_full_single_device.yaml is pure bf16, eager RMSNorm,
 * chunked cross-entropy, activation checkpointing, optimizer_in_bwd and
 * 8-bit AdamW; the Hugging Face Trainer's --bf16 is autocast over fp32
 * parameters. An explicit setting wins, and "none" restores the table. */
static void
test_framework_defaults (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  HrTraining t;

  /* The new-project default pins selective recomputation: leave it unset. */
  headroom_project_unset (project, "training.recompute");
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.precision, ==, HR_PRECISION_BF16_MIXED);
  g_assert_false (t.fp32_residual);
  g_assert_cmpint (t.norm_kernel, ==, HR_NORM_KERNEL_FUSED);
  g_assert_true (t.finetune.dora_base_rerun);   /* PEFT's DoRA */

  g_assert_true (headroom_project_set_string (project, "training.framework", "torchtune", NULL));
  g_assert_cmpstr (headroom_project_get_string (project, "training.precision"), ==, "bf16");
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.precision, ==, HR_PRECISION_BF16);
  g_assert_cmpint (t.norm_kernel, ==, HR_NORM_KERNEL_EAGER);
  g_assert_cmpint (t.loss, ==, HR_LOSS_CHUNKED);
  g_assert_cmpint (t.recompute, ==, HR_RECOMPUTE_FULL);
  g_assert_cmpint (t.optimizer, ==, HR_OPTIMIZER_ADAMW_8BIT);
  g_assert_true (t.optimizer_in_backward);
  g_assert_false (t.finetune.dora_base_rerun);  /* DoRALinear reuses the base output */
  /* enable_fp8_training: torchao's Float8Linear (training/quantization.py). */
  g_assert_cmpint (t.fp8_recipe, ==, HR_FP8_RECIPE_TORCHAO);
  /* The step in the backward needs one micro-batch per step. */
  g_assert_cmpint (t.global_batch, ==, 0);

  /* Explicit options override the framework's. */
  g_assert_true (headroom_project_set_string (project, "training.recompute", "none", NULL));
  g_assert_true (headroom_project_set_boolean (project, "training.optimizer_in_backward", FALSE,
                                               NULL));
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.recompute, ==, HR_RECOMPUTE_NONE);
  g_assert_false (t.optimizer_in_backward);
  g_assert_cmpint (t.loss, ==, HR_LOSS_CHUNKED);

  /* Its distributed recipes shard with FSDP: full wherever there are
   * data-parallel ranks (the default project's 8 GPUs at TP 2: 4), none
   * on one rank (TP 8) or one GPU. */
  g_assert_cmpint (t.fsdp, ==, HR_FSDP_FULL);
  g_assert_cmpint (t.zero_stage, ==, 0);
  g_assert_true (headroom_project_set_from_string (project, "training.tensor_parallel", "8",
                                                   NULL));
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.fsdp, ==, HR_FSDP_NONE);
  g_assert_true (headroom_project_set_from_string (project, "training.tensor_parallel", "1",
                                                   NULL));
  g_assert_true (headroom_project_set_from_string (project, "hardware.gpus_per_node", "1", NULL));
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.fsdp, ==, HR_FSDP_NONE);
  g_assert_true (headroom_project_set_from_string (project, "training.tensor_parallel", "2",
                                                   NULL));
  g_assert_true (headroom_project_set_from_string (project, "hardware.gpus_per_node", "8", NULL));

  g_assert_true (headroom_project_set_string (project, "training.framework", "hf", NULL));
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.precision, ==, HR_PRECISION_BF16_MIXED);
  g_assert_true (t.fp32_residual);
  /* accelerate's FSDP plugin and DeepSpeed hold 16-bit parameters. */
  g_assert_true (t.sharding_16bit_params);
  /* The Trainer runs DDP, DeepSpeed ZeRO 0 and Megatron-LM no distributed
   * optimizer unless told: the table's ZeRO 1 is none of theirs. */
  g_assert_cmpint (t.zero_stage, ==, 0);
  g_assert_true (headroom_project_set_string (project, "training.framework", "deepspeed", NULL));
  g_assert_cmpint (headroom_project_get_int (project, "training.zero_stage"), ==, 0);
  g_assert_true (headroom_project_set_string (project, "training.framework", "megatron", NULL));
  g_assert_cmpint (headroom_project_get_int (project, "training.zero_stage"), ==, 0);
  g_assert_true (headroom_project_set_string (project, "training.framework", "none", NULL));
  g_assert_cmpint (headroom_project_get_int (project, "training.zero_stage"), ==, 1);
  g_assert_true (headroom_project_set_string (project, "training.framework", "hf", NULL));
  g_assert_cmpint (t.loss, ==, HR_LOSS_FULL);
  g_assert_cmpint (t.optimizer, ==, HR_OPTIMIZER_ADAMW);

  g_assert_true (headroom_project_set_string (project, "training.framework", "torchtitan", NULL));
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.fsdp, ==, HR_FSDP_FULL);
  g_assert_cmpint (t.zero_stage, ==, 0);
  g_assert_true (t.fp32_gradients);
  g_assert_cmpint (t.recompute, ==, HR_RECOMPUTE_NONE);  /* set above */
  /* torchtitan's float8 is torchao's (float8.py, convert_to_float8_training). */
  g_assert_cmpint (t.fp8_recipe, ==, HR_FP8_RECIPE_TORCHAO);
  g_assert_false (t.fused_bias_grad);

  g_assert_true (t.overlap);

  /* Megatron-LM's --overlap-grad-reduce is opt-in; --overlap on restores it. */
  g_assert_true (headroom_project_set_string (project, "training.framework", "megatron", NULL));
  headroom_project_get_training (project, &t);
  g_assert_false (t.overlap);
  /* Megatron's own loss, tensor_parallel.vocab_parallel_cross_entropy;
   * its fp8 is Transformer Engine's. */
  g_assert_cmpint (t.loss, ==, HR_LOSS_VOCAB_PARALLEL);
  g_assert_cmpint (t.fp8_recipe, ==, HR_FP8_RECIPE_TRANSFORMER_ENGINE);
  /* Transformer Engine's linears compute the bias gradient in the GEMM;
   * the others run nn.Linear's separate sum. */
  g_assert_true (t.fused_bias_grad);
  g_assert_true (headroom_project_set_string (project, "training.overlap", "on", NULL));
  headroom_project_get_training (project, &t);
  g_assert_true (t.overlap);
  headroom_project_unset (project, "training.overlap");

  g_assert_true (headroom_project_set_string (project, "training.framework", "none", NULL));
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.norm_kernel, ==, HR_NORM_KERNEL_FUSED);
  g_assert_cmpint (t.fsdp, ==, HR_FSDP_NONE);
  g_assert_true (t.overlap);
  g_assert_true (headroom_project_set_string (project, "training.overlap", "off", NULL));
  headroom_project_get_training (project, &t);
  g_assert_false (t.overlap);

  /* An FSDP mode replaces the table's ZeRO 1 unless a stage is set. */
  g_assert_cmpint (t.zero_stage, ==, 1);
  g_assert_true (headroom_project_set_string (project, "training.fsdp", "full", NULL));
  headroom_project_get_training (project, &t);
  g_assert_cmpint (t.zero_stage, ==, 0);
  g_assert_cmpint (t.fsdp, ==, HR_FSDP_FULL);
}

static void
test_setters (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) seen_tp = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;

  g_signal_connect (project, "changed", G_CALLBACK (changed_cb), seen);
  g_signal_connect (project, "changed::training.tensor_parallel", G_CALLBACK (changed_cb), seen_tp);

  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 4, &error));
  g_assert_no_error (error);
  g_assert_true (headroom_project_get_modified (project));
  /* The same value again is no change. */
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 4, &error));
  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.5, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (seen, 0), ==, "training.tensor_parallel");
  g_assert_cmpstr (g_ptr_array_index (seen, 1), ==, "training.mfu");
  g_assert_cmpuint (seen_tp->len, ==, 1);

  /* Bounds, types and names are checked, and the value stays. */
  g_assert_false (headroom_project_set_int (project, "training.tensor_parallel", 0, &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "Tensor parallel: 0 is out of range"));
  g_clear_error (&error);
  g_assert_cmpint (headroom_project_get_int (project, "training.tensor_parallel"), ==, 4);

  g_assert_false (headroom_project_set_double (project, "training.mfu", NAN, &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (headroom_project_set_double (project, "training.micro_batch", 1.5, &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE);
  g_clear_error (&error);
  g_assert_false (headroom_project_set_string (project, "training.optimizer", "adam", &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "Optimizer: "));
  g_assert_cmpstr (headroom_project_error_get_key (error), ==, "training.optimizer");
  g_clear_error (&error);
  g_assert_false (headroom_project_set_int (project, "training.tensor_paralel", 2, &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_UNKNOWN_KEY);
  g_clear_error (&error);
  g_assert_cmpuint (seen->len, ==, 2);

  /* CLI-style KEY=VALUE text. */
  g_assert_true (headroom_project_set_from_string (project, "training.recompute", "full", &error));
  g_assert_true (headroom_project_set_from_string (project, "hardware.nodes", "2", &error));
  g_assert_true (headroom_project_set_from_string (project, "training.sequence_parallel", "true", &error));
  g_assert_true (headroom_project_set_from_string (project, "hardware.price_per_gpu_hour", "3", &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (headroom_project_get_double (project, "hardware.price_per_gpu_hour"), ==, 3.0);
  g_assert_cmpint (headroom_project_get_n_gpus (project), ==, 16);
  g_assert_false (headroom_project_set_from_string (project, "hardware.nodes", "two", &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE);
  g_clear_error (&error);

  /* Model keys override the config and can be unset again. */
  g_assert_true (headroom_project_set_int (project, "model.num_hidden_layers", 16, &error));
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 16);
  g_assert_true (headroom_project_set_from_string (project, "model.rope_theta", "10000.0", &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (headroom_project_get_double (project, "model.rope_theta"), ==, 10000.0);
}

/* GPT-2 small (openai-community/gpt2, known-models.json: 124,439,808
 * parameters) spells its sizes n_layer, n_embd, n_head, n_positions and
 * leaves n_inner null (4 × 768 = 3072); modeling_gpt2.py gives every Conv1D
 * a bias and ties the head. The model getters give what the model is read
 * with, not 0. */
static void
test_gpt2_spelling (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new ();
  g_autoptr(JsonObject) config =
    parse_object ("{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, "
                  "\"n_head\": 12, \"n_inner\": null, \"vocab_size\": 50257, "
                  "\"n_positions\": 1024, \"n_ctx\": 1024, \"tie_word_embeddings\": true}");
  g_autoptr(GError) error = NULL;
  HrModel model;
  HrParams params;

  headroom_project_set_config (project, config);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 12);
  g_assert_cmpint (headroom_project_get_int (project, "model.hidden_size"), ==, 768);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_attention_heads"), ==, 12);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_key_value_heads"), ==, 12);
  g_assert_cmpint (headroom_project_get_int (project, "model.head_dim"), ==, 64);
  g_assert_cmpint (headroom_project_get_int (project, "model.intermediate_size"), ==, 3072);
  g_assert_cmpint (headroom_project_get_int (project, "model.vocab_size"), ==, 50257);
  g_assert_cmpint (headroom_project_get_int (project, "model.max_position_embeddings"), ==, 1024);
  g_assert_true (headroom_project_get_boolean (project, "model.tie_word_embeddings"));
  g_assert_true (headroom_project_get_boolean (project, "model.attention_bias"));
  g_assert_true (headroom_project_get_boolean (project, "model.mlp_bias"));
  /* A field the model has no value for stays 0. */
  g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 0);

  /* Set under the table's name, the value reaches the model whatever the
   * spelling. One GPT-2 layer: c_attn 768·2304 + 2304, c_proj 768² + 768,
   * c_fc 768·3072 + 3072, mlp c_proj 3072·768 + 768, two LayerNorms 2·1536:
   * 7,087,872; 24 layers add 12 × 7,087,872 = 85,054,464 parameters. */
  g_assert_true (headroom_project_set_int (project, "model.num_hidden_layers", 24, &error));
  g_assert_no_error (error);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 24);
  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (model.n_layers, ==, 24);
  g_assert_true (hr_model_params (&model, &params, NULL) == HR_OK);
  g_assert_cmpint (params.total, ==, 124439808 + 85054464);

  /* n_inner null is the spelling of the MLP size: setting it sets n_inner. */
  g_assert_true (headroom_project_set_int (project, "model.intermediate_size", 1536, &error));
  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_cmpint (model.ffn_size, ==, 1536);

  /* Unset: the spellings go and GPT2Config's default, 12 layers, is back. */
  headroom_project_unset (project, "model.num_hidden_layers");
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 12);
}

/* LongCat Flash builds num_layers decoder layers of two attention
 * sub-layers each and counts the sub-layers as num_hidden_layers, which is
 * what the Layers field shows (2 · 2 = 4 here). A new count of 6 sets
 * num_layers to 3 and the model reads 6 layers; an odd count is refused,
 * naming the field, and nothing changes. */
static void
test_longcat_layers (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new ();
  g_autoptr(JsonObject) config =
    parse_object ("{\"model_type\": \"longcat_flash\", \"num_layers\": 2}");
  g_autoptr(GError) error = NULL;
  HrModel model;

  headroom_project_set_config (project, config);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 4);
  g_assert_true (headroom_project_set_int (project, "model.num_hidden_layers", 6, &error));
  g_assert_no_error (error);
  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (model.n_layers, ==, 6);

  g_assert_false (headroom_project_set_int (project, "model.num_hidden_layers", 5, &error));
  g_assert_nonnull (strstr (error->message, "Layers"));
  g_assert_nonnull (strstr (error->message, "even number"));
  g_clear_error (&error);
  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_cmpint (model.n_layers, ==, 6);
}

/* FalconConfig's attribute_map: n_layer and n_head, when present, win over
 * num_hidden_layers and num_attention_heads; a new value must reach both. */
static void
test_falcon_spelling (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new ();
  g_autoptr(JsonObject) config =
    parse_object ("{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"n_layer\": 32, "
                  "\"n_head\": 71, \"vocab_size\": 65024}");
  g_autoptr(GError) error = NULL;
  HrModel model;

  headroom_project_set_config (project, config);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 32);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_attention_heads"), ==, 71);
  g_assert_true (headroom_project_set_int (project, "model.num_hidden_layers", 16, &error));
  g_assert_no_error (error);
  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (model.n_layers, ==, 16);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 16);
}

/* The MoE rows read the routed experts under each family's spelling, as the
 * estimate does: DeepSeek-V2-Lite's config.json has "n_routed_experts": 64
 * and "num_experts_per_tok": 6, Qwen3-30B-A3B's "num_experts": 128 and 8,
 * Mixtral's "num_local_experts": 8 and 2 (the presets' configs, copies of the
 * Hub's); an edit goes under the family's spelling and reaches the model. */
static void
test_expert_spelling (void)
{
  const struct { const char *preset; gint64 experts, per_token; } cases[] = {
    { "deepseek-v2-lite", 64, 6 },
    { "qwen3-30b-a3b", 128, 8 },
    { "mixtral-8x7b", 8, 2 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new_default ();
      g_autoptr(GError) error = NULL;
      HrModel model;

      g_assert_true (headroom_project_set_string (project, "model.preset", cases[i].preset, &error));
      g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, cases[i].experts);
      g_assert_cmpint (headroom_project_get_int (project, "model.num_experts_per_tok"), ==,
                       cases[i].per_token);
      g_assert_true (headroom_project_set_int (project, "model.num_local_experts", 32, &error));
      g_assert_no_error (error);
      g_assert_true (headroom_project_get_model (project, &model, &error));
      g_assert_no_error (error);
      g_assert_cmpint (model.n_experts, ==, 32);
      headroom_project_unset (project, "model.num_local_experts");
      g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, cases[i].experts);
    }
  /* A dense model has none: the row shows its placeholder. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new_default ();

    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 0);
  }
  /* Qwen1.5-MoE-A2.7B's config.json: 60 experts ("num_experts"), and one
   * shared expert (Qwen2MoeSparseMoeBlock's shared_expert) that no key
   * counts, of shared_expert_intermediate_size 5632. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) config =
      parse_object ("{\"model_type\": \"qwen2_moe\", \"hidden_size\": 2048, "
                    "\"num_hidden_layers\": 24, \"num_attention_heads\": 16, "
                    "\"num_key_value_heads\": 16, \"intermediate_size\": 5632, "
                    "\"moe_intermediate_size\": 1408, \"shared_expert_intermediate_size\": 5632, "
                    "\"num_experts\": 60, \"num_experts_per_tok\": 4, \"vocab_size\": 151936}");

    headroom_project_set_config (project, config);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 60);
    g_assert_cmpint (headroom_project_get_int (project, "model.n_shared_experts"), ==, 1);
  }
  /* ERNIE-4.5-21B-A3B-PT's config.json spells them moe_num_experts (64),
   * moe_k (6) and moe_num_shared_experts (2); Hunyuan-A13B's num_experts (64)
   * and a per-layer list moe_topk (8 each), with one shared MLP no key counts.
   * An edit goes under the family's spelling and reaches the model. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) config =
      parse_object ("{\"model_type\": \"ernie4_5_moe\", \"hidden_size\": 2560, "
                    "\"intermediate_size\": 12288, \"num_attention_heads\": 20, "
                    "\"num_key_value_heads\": 4, \"num_hidden_layers\": 28, "
                    "\"vocab_size\": 103424, \"moe_num_experts\": 64, "
                    "\"moe_num_shared_experts\": 2, \"moe_layer_start_index\": 1, "
                    "\"moe_layer_end_index\": 27, \"moe_intermediate_size\": 1536, "
                    "\"moe_k\": 6, \"moe_layer_interval\": 1, \"tie_word_embeddings\": true}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, config);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 64);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_experts_per_tok"), ==, 6);
    g_assert_cmpint (headroom_project_get_int (project, "model.n_shared_experts"), ==, 2);
    g_assert_true (headroom_project_set_int (project, "model.num_local_experts", 32, &error));
    g_assert_true (headroom_project_set_int (project, "model.num_experts_per_tok", 4, &error));
    g_assert_true (headroom_project_set_int (project, "model.n_shared_experts", 1, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_no_error (error);
    g_assert_cmpint (model.n_experts, ==, 32);
    g_assert_cmpint (model.experts_per_token, ==, 4);
    g_assert_cmpint (model.n_shared_experts, ==, 1);
  }
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) config =
      parse_object ("{\"model_type\": \"hunyuan_v1_moe\", \"hidden_size\": 4096, "
                    "\"num_hidden_layers\": 2, \"num_attention_heads\": 32, "
                    "\"num_key_value_heads\": 8, \"head_dim\": 128, "
                    "\"intermediate_size\": 3072, \"vocab_size\": 128167, "
                    "\"num_experts\": 64, \"moe_topk\": [8, 8]}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, config);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 64);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_experts_per_tok"), ==, 8);
    g_assert_cmpint (headroom_project_get_int (project, "model.n_shared_experts"), ==, 1);
    g_assert_true (headroom_project_set_int (project, "model.num_experts_per_tok", 4, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_no_error (error);
    g_assert_cmpint (model.experts_per_token, ==, 4);
    g_assert_false (headroom_project_set_int (project, "model.n_shared_experts", 2, &error));
    g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  }
  /* FlexOlmo spells its experts num_experts (FlexOlmoConfig's defaults, 7
   * and 5): the row reads them and an edit reaches the model. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) config = parse_object ("{\"model_type\": \"flex_olmo\"}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, config);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 7);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_experts_per_tok"), ==, 5);
    g_assert_true (headroom_project_set_int (project, "model.num_local_experts", 4, &error));
    g_assert_true (headroom_project_set_int (project, "model.num_experts_per_tok", 2, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_no_error (error);
    g_assert_cmpint (model.n_experts, ==, 4);
    g_assert_cmpint (model.experts_per_token, ==, 2);
  }
  /* JetMoE: num_local_experts holds both its attention and MLP experts; its
   * query heads are JetMoeConfig's num_key_value_heads × num_experts_per_tok
   * (16 × 2), whatever num_attention_heads says, so that edit is refused;
   * head_dim is kv_channels' alias and reaches the model. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) config = parse_object ("{\"model_type\": \"jetmoe\"}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, config);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 8);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_attention_heads"), ==, 32);
    g_assert_false (headroom_project_set_int (project, "model.num_attention_heads", 64, &error));
    g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_true (headroom_project_set_int (project, "model.num_local_experts", 16, &error));
    g_assert_true (headroom_project_set_int (project, "model.head_dim", 64, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_no_error (error);
    g_assert_cmpint (model.n_experts, ==, 16);
    g_assert_cmpint (model.attention_experts, ==, 16);
    g_assert_cmpint (model.head_dim, ==, 64);
  }
  /* DBRX (databricks/dbrx-base config.json) keeps its experts in
   * ffn_config.moe_num_experts (16) and moe_top_k (4), where no key
   * reaches: the rows show them, and an edit is refused, not ignored. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) config =
      parse_object ("{\"model_type\": \"dbrx\", \"d_model\": 6144, \"n_heads\": 48, "
                    "\"n_layers\": 40, \"max_seq_len\": 32768, \"vocab_size\": 100352, "
                    "\"attn_config\": {\"kv_n_heads\": 8}, \"ffn_config\": "
                    "{\"ffn_hidden_size\": 10752, \"moe_num_experts\": 16, \"moe_top_k\": 4}}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, config);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 16);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_experts_per_tok"), ==, 4);
    g_assert_false (headroom_project_set_int (project, "model.num_local_experts", 8, &error));
    g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
    g_assert_cmpstr (headroom_project_error_get_key (error), ==, "model.num_local_experts");
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 16);
    g_clear_error (&error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_no_error (error);
    g_assert_cmpint (model.n_experts, ==, 16);
  }
  /* The bias switches likewise: GPT-2 (transformers' GPT2Attention: Conv1D
   * c_attn always has its bias) ignores attention_bias, so switching it off
   * is refused and the model keeps its biases; Llama reads it, so switching
   * it on gives q, k and v their biases. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) gpt2 =
      parse_object ("{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_head\": 12, "
                    "\"n_layer\": 12, \"n_positions\": 1024, \"vocab_size\": 50257}");
    g_autoptr(JsonObject) llama =
      parse_object ("{\"model_type\": \"llama\", \"hidden_size\": 2048, "
                    "\"num_hidden_layers\": 16, \"num_attention_heads\": 32, "
                    "\"num_key_value_heads\": 8, \"intermediate_size\": 8192, "
                    "\"vocab_size\": 128256, \"attention_bias\": false}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, gpt2);
    g_assert_false (headroom_project_set_boolean (project, "model.attention_bias", FALSE, &error));
    g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
    g_assert_cmpstr (headroom_project_error_get_key (error), ==, "model.attention_bias");
    g_clear_error (&error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_true (model.qkv_bias);

    headroom_project_set_config (project, llama);
    g_assert_true (headroom_project_set_boolean (project, "model.attention_bias", TRUE, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_true (model.qkv_bias);
  }
  /* ArceeMLP reads mlp_bias; ApertusMLP has no bias whatever it says. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) arcee = parse_object ("{\"model_type\": \"arcee\"}");
    g_autoptr(JsonObject) apertus = parse_object ("{\"model_type\": \"apertus\"}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, arcee);
    g_assert_true (headroom_project_set_boolean (project, "model.mlp_bias", TRUE, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_true (model.mlp_bias);

    headroom_project_set_config (project, apertus);
    g_assert_false (headroom_project_set_boolean (project, "model.mlp_bias", TRUE, &error));
    g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  }
  /* GLM-4.5-Air (glm4_moe) spells its experts n_routed_experts, which
   * num_local_experts aliases: an edit goes under both and is read; its one
   * shared expert is n_shared_experts. */
  {
    g_autoptr(HeadroomProject) project = headroom_project_new ();
    g_autoptr(JsonObject) config =
      parse_object ("{\"model_type\": \"glm4_moe\", \"hidden_size\": 4096, "
                    "\"num_hidden_layers\": 46, \"num_attention_heads\": 96, "
                    "\"num_key_value_heads\": 8, \"head_dim\": 128, "
                    "\"intermediate_size\": 10944, \"moe_intermediate_size\": 1408, "
                    "\"n_routed_experts\": 128, \"n_shared_experts\": 1, "
                    "\"num_experts_per_tok\": 8, \"first_k_dense_replace\": 1}");
    g_autoptr(GError) error = NULL;
    HrModel model;

    headroom_project_set_config (project, config);
    g_assert_cmpint (headroom_project_get_int (project, "model.num_local_experts"), ==, 128);
    g_assert_cmpint (headroom_project_get_int (project, "model.n_shared_experts"), ==, 1);
    g_assert_true (headroom_project_set_int (project, "model.num_local_experts", 64, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_project_get_model (project, &model, &error));
    g_assert_no_error (error);
    g_assert_cmpint (model.n_experts, ==, 64);
  }
}

/* Issue 13: the table is the single source. Every workload row reaches a core
 * struct field, choices carry a label each, options are unique where they are
 * parsed, and a row's field really is the one the core reads. */
static void
test_key_rows (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  const HeadroomKeyInfo *keys;
  HrTraining training;
  HrInference inference;
  HrServing serving;
  guint n_keys;

  keys = headroom_project_get_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      const HeadroomKeyInfo *info = &keys[i];
      const char *option = headroom_key_info_get_option (info);
      const char *section = g_str_has_prefix (info->key, "inference.") ? "inference" : "training";

      g_test_message ("%s", info->key);
      /* training.framework fills other keys in the estimator; it has no field. */
      if ((g_str_has_prefix (info->key, "training.") || g_str_has_prefix (info->key, "inference."))
          && strcmp (info->key, "training.framework") != 0)
        g_assert_true (info->field != HEADROOM_KEY_FIELD_NONE || info->apply != NULL);
      if (info->field != HEADROOM_KEY_FIELD_NONE && info->apply == NULL)
        {
          g_assert_cmpuint (info->field_size, >, 0);
          if (info->type == HEADROOM_KEY_CHOICE)
            g_assert_nonnull (info->from_name);
        }
      if (info->type == HEADROOM_KEY_CHOICE)
        {
          g_assert_nonnull (info->choice_labels);
          g_assert_cmpuint (g_strv_length ((char **) info->choices), ==,
                            g_strv_length ((char **) info->choice_labels));
        }
      g_assert_nonnull (option);
      g_assert_null (strchr (option, '_'));
      g_assert_null (strchr (option, '.'));
      if (!g_str_has_prefix (info->key, "model.") && strcmp (info->key, "workload") != 0
          && strcmp (info->key, "notes") != 0)
        g_assert_true (headroom_project_find_option (section, option) == info);
      if (info->group != NULL)
        g_assert_nonnull (strchr (info->group, '/'));
    }

  /* Today's CLI spellings. */
  g_assert_cmpstr (headroom_project_find_option ("training", "tp")->key, ==, "training.tensor_parallel");
  g_assert_cmpstr (headroom_project_find_option ("inference", "tp")->key, ==, "inference.tensor_parallel");
  g_assert_cmpstr (headroom_project_find_option ("training", "seq")->key, ==, "training.seq_len");
  g_assert_cmpstr (headroom_project_find_option ("training", "price")->key, ==, "hardware.price_per_gpu_hour");
  g_assert_cmpstr (headroom_project_find_option ("inference", "kv-cache")->key, ==, "inference.kv_dtype");
  g_assert_cmpstr (headroom_project_find_option ("training", "lora-rank")->key, ==, "training.lora_rank");
  g_assert_null (headroom_project_find_option ("training", "batch"));
  g_assert_cmpstr (headroom_key_info_get_choice_label (headroom_project_find_key ("training.fsdp"), "grad-op"),
                   ==, "Gradients and optimizer");

  /* Values set through keys come out in the fields (each differs from hr_*_init's). */
  g_assert_true (headroom_project_set_from_string (project, "training.zero_stage", "3", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.fsdp", "grad-op", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.precision", "fp16-autocast", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.method", "qlora", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.lora_rank", "64", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.lora_targets", "all-linear", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.tokens", "1e12", NULL));
  g_assert_true (headroom_project_set_from_string (project, "hardware.price_per_gpu_hour", "3.25", NULL));
  g_assert_true (headroom_project_set_from_string (project, "hardware.nodes", "2", NULL));
  g_assert_true (headroom_project_set_from_string (project, "inference.tensor_parallel", "4", NULL));
  g_assert_true (headroom_project_set_from_string (project, "inference.kv_dtype", "fp8", NULL));
  g_assert_true (headroom_project_set_from_string (project, "inference.engine", "sglang", NULL));
  g_assert_true (headroom_project_set_from_string (project, "hardware.cpu_memory_bandwidth", "100", NULL));
  headroom_project_get_training (project, &training);
  headroom_project_get_inference (project, &inference);
  headroom_project_get_serving (project, &serving);
  g_assert_cmpint (training.zero_stage, ==, 3);
  g_assert_cmpint (training.fsdp, ==, HR_FSDP_GRAD_OP);
  g_assert_cmpint (training.precision, ==, HR_PRECISION_FP16_MIXED);
  g_assert_true (training.fp32_residual);
  g_assert_cmpint (training.finetune.method, ==, HR_FINETUNE_QLORA);
  g_assert_cmpint (training.finetune.rank, ==, 64);
  g_assert_cmpuint (training.finetune.targets, !=, 0);
  g_assert_cmpfloat (training.tokens, ==, 1e12);
  g_assert_cmpfloat (training.price_per_gpu_hour, ==, 3.25);
  g_assert_cmpint (training.nodes, ==, 2);
  g_assert_cmpfloat (inference.price_per_gpu_hour, ==, 3.25);
  g_assert_cmpint (inference.tensor_parallel, ==, 4);
  g_assert_cmpint (inference.gpus, ==, 4);
  g_assert_cmpint (inference.kv_dtype, ==, HR_KV_FP8);
  g_assert_cmpint (serving.engine, ==, HR_ENGINE_SGLANG);
  g_assert_cmpfloat (serving.cpu_memory_bandwidth, ==, 100e9);
}

/* A mistyped key is an error, not a silent 0. */
static void
test_mistyped_key (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(HeadroomProject) project = headroom_project_new ();

      (void) headroom_project_get_int (project, "training.tensor_paralel");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*training.tensor_paralel*not a key*");
}

/* Issue 13: an error carries its key as data, and the problem without it. */
static void
test_error_key (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) copy = NULL;

  g_assert_false (headroom_project_set_int (project, "training.zero_stage", 4, &error));
  g_assert_cmpstr (headroom_project_error_get_key (error), ==, "training.zero_stage");
  g_assert_cmpstr (headroom_project_error_get_problem (error), ==, "4 is out of range (0 to 3)");
  g_clear_error (&error);

  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 3, NULL));
  g_assert_false (headroom_project_validate (project, &error));
  g_assert_cmpstr (error->message, ==, "Tensor parallel: 3 does not divide 8 GPUs");
  copy = g_error_copy (error);
  g_assert_cmpstr (headroom_project_error_get_key (copy), ==, "training.tensor_parallel");
  g_assert_cmpstr (headroom_project_error_get_problem (copy), ==, "3 does not divide 8 GPUs");
  g_clear_error (&error);
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 1, NULL));

  /* Every message names the setting by its label, the key stays data. */
  g_assert_false (headroom_project_set_int (project, "training.zero_stage", 4, &error));
  g_assert_cmpstr (error->message, ==, "ZeRO stage: 4 is out of range (0 to 3)");
  g_clear_error (&error);
  g_assert_false (headroom_project_set_from_string (project, "training.optimizer", "adam", &error));
  g_assert_true (g_str_has_prefix (error->message, "Optimizer: “adam” is not one of "));
  g_clear_error (&error);
  /* A model error from the config reader: 5 key/value heads do not divide 32 heads. */
  g_assert_true (headroom_project_set_int (project, "model.num_key_value_heads", 5, NULL));
  g_assert_false (headroom_project_validate (project, &error));
  g_assert_cmpstr (headroom_project_error_get_key (error), ==, "model.num_key_value_heads");
  g_assert_true (g_str_has_prefix (error->message, "Key/value heads: 5 "));
  g_assert_null (strstr (error->message, "num_key_value_heads:"));
  g_clear_error (&error);
  /* The extra model keys have labels too. */
  g_assert_cmpstr (headroom_project_get_key_label ("model.head_dim"), ==, "Head dimension");
  g_assert_cmpstr (headroom_project_get_key_label ("training.seq_len"), ==, "Sequence length");
  g_assert_null (headroom_project_get_key_label ("training.no_such_key"));

  g_assert_null (headroom_project_error_get_key (NULL));
}


/* A layout the project's framework cannot run is refused, naming the
 * setting (docs/training.md, "Frameworks"): DeepSpeed's pipeline engine
 * runs 1F1B over one chunk per stage and ZeRO 0 or 1 (runtime/pipe), and
 * it has no ring context parallelism and no FSDP; torchtune has no
 * pipeline, no TP in its LoRA recipe and no DDP, the Hugging Face Trainer
 * and FSDP on its models no pipeline; torchtitan and torchtune shard
 * with FSDP, not ZeRO stages. The same layouts under Megatron, or the
 * framework's own, pass. Llama 3.1 8B on 2 × 8 GPUs, 32 sequences. */
static void
test_framework_layout (void)
{
  static const struct
  {
    const char *framework;
    const char *settings[4][2];
    const char *refused;  /* the key named, or NULL for a valid layout */
  } cases[] = {
    { "deepspeed", { { "training.pipeline_parallel", "2" }, { "training.virtual_stages", "2" },
                    { "training.pipeline_schedule", "interleaved" } }, "training.virtual_stages" },
    { "deepspeed", { { "training.pipeline_parallel", "2" } }, NULL },
    { "deepspeed", { { "training.pipeline_parallel", "2" }, { "training.zero_stage", "2" } },
      "training.zero_stage" },
    { "deepspeed", { { "training.zero_stage", "3" } }, NULL },
    { "deepspeed", { { "training.pipeline_parallel", "2" }, { "training.pipeline_schedule", "gpipe" } },
      "training.pipeline_schedule" },
    { "deepspeed", { { "training.pipeline_schedule", "gpipe" } }, NULL },
    { "deepspeed", { { "training.context_parallel", "2" } }, "training.context_parallel" },
    { "deepspeed", { { "training.fsdp", "full" }, { "training.zero_stage", "0" } }, "training.fsdp" },
    { "megatron", { { "training.pipeline_parallel", "2" }, { "training.virtual_stages", "2" },
                   { "training.pipeline_schedule", "interleaved" }, { "training.context_parallel", "2" } },
      NULL },
    { "torchtune", { { "training.pipeline_parallel", "2" } }, "training.pipeline_parallel" },
    { "torchtune", { { "training.method", "lora" } }, "training.tensor_parallel" },
    /* One micro-batch per GPU: torchtune steps the optimizer in the backward. */
    { "torchtune", { { "training.fsdp", "full" }, { "training.global_batch", "8" } }, NULL },
    { "torchtune", { { "training.zero_stage", "1" } }, "training.zero_stage" },
    /* 8 data-parallel ranks replicated: torchtune always shards them. */
    { "torchtune", { { "training.fsdp", "none" }, { "training.global_batch", "8" } },
      "training.fsdp" },
    { "hf", { { "training.pipeline_parallel", "2" } }, "training.pipeline_parallel" },
    { "fsdp", { { "training.pipeline_parallel", "2" } }, "training.pipeline_parallel" },
    { "fsdp", { { "model.preset", "qwen3-30b-a3b" }, { "training.expert_parallel", "2" } },
      "training.expert_parallel" },
    { "torchtune", { { "model.preset", "qwen3-30b-a3b" }, { "training.expert_parallel", "2" },
                     { "training.fsdp", "full" }, { "training.global_batch", "8" } },
      "training.expert_parallel" },
    { "hf", { { "training.context_parallel", "2" }, { "training.zero_stage", "3" } }, NULL },
    { "torchtitan", { { "training.fsdp", "none" }, { "training.zero_stage", "1" } },
      "training.zero_stage" },
    { "torchtitan", { { "training.pipeline_parallel", "2" }, { "training.virtual_stages", "2" },
                     { "training.pipeline_schedule", "interleaved" }, { "training.context_parallel", "2" } },
      NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new_default ();
      g_autoptr(GError) error = NULL;

      /* 16 GPUs, TP 2 (the default project's), 32 sequences of 1. */
      g_assert_true (headroom_project_set_from_string (project, "hardware.nodes", "2", NULL));
      g_assert_true (headroom_project_set_from_string (project, "training.global_batch", "32",
                                                       NULL));
      g_assert_true (headroom_project_set_from_string (project, "training.micro_batch", "1",
                                                       NULL));
      g_assert_true (headroom_project_set_string (project, "training.framework",
                                                  cases[i].framework, NULL));
      for (gsize k = 0; k < G_N_ELEMENTS (cases[i].settings) && cases[i].settings[k][0]; k++)
        g_assert_true (headroom_project_set_from_string (project, cases[i].settings[k][0],
                                                         cases[i].settings[k][1], NULL));
      if (cases[i].refused == NULL)
        {
          g_assert_true (headroom_project_validate (project, &error));
          g_assert_no_error (error);
          continue;
        }
      g_assert_false (headroom_project_validate (project, &error));
      g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
      g_assert_cmpstr (headroom_project_error_get_key (error), ==, cases[i].refused);
      /* The layout itself is valid: the framework is what refuses it. */
      g_clear_error (&error);
      g_assert_true (headroom_project_set_string (project, "training.framework", "none", NULL));
      g_assert_true (headroom_project_validate (project, &error));
      g_assert_no_error (error);
    }
}

/* headroom_project_validate_and_get() hands back what the checks read, the
 * same as the getters: the default project is Llama-3.1-8B (32 layers,
 * models.json) on 8 H100 SXM (80 GiB = 85899345920 bytes, gpus.json),
 * tensor parallel 2 over sequences of 8192 (headroom_project_new_default()).
 * The other workload's struct is left alone, and an invalid project fails
 * with validate()'s error. */
static void
test_validate_and_get (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GError) error = NULL;
  HrModel model;
  HrGpu gpu;
  HrTraining training;
  HrInference inference = { .batch = -7 };

  g_assert_true (headroom_project_validate_and_get (project, &model, &gpu, &training, &inference,
                                                    &error));
  g_assert_no_error (error);
  g_assert_cmpint (model.n_layers, ==, 32);
  g_assert_cmpfloat (gpu.memory_bytes, ==, 85899345920.0);
  g_assert_cmpint (training.tensor_parallel, ==, 2);
  g_assert_cmpint (training.seq_len, ==, 8192);
  g_assert_cmpint (inference.batch, ==, -7);

  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  training.seq_len = -7;
  g_assert_true (headroom_project_validate_and_get (project, &model, &gpu, &training, &inference,
                                                    &error));
  g_assert_no_error (error);
  g_assert_cmpint (inference.batch, ==, headroom_project_get_int (project, "inference.batch"));
  g_assert_cmpint (training.seq_len, ==, -7);

  g_assert_true (headroom_project_set_int (project, "inference.tensor_parallel", 3, NULL));
  g_assert_false (headroom_project_validate_and_get (project, &model, &gpu, &training, &inference,
                                                     &error));
  g_assert_cmpstr (headroom_project_error_get_key (error), ==, "inference.tensor_parallel");
  g_assert_cmpstr (error->message, ==, "Tensor parallel: tensor × pipeline parallel (3) does not divide 8 GPUs");
}

/* The key table's visible_when: fine-tuning settings apply only under the
 * methods that read them; keys without a condition always apply. */
static void
test_key_applies (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autofree char *condition = headroom_key_info_dup_condition_key (headroom_project_find_key ("training.lora_rank"));

  g_assert_cmpstr (condition, ==, "training.method");
  g_assert_null (headroom_key_info_dup_condition_key (headroom_project_find_key ("training.micro_batch")));
  g_assert_true (headroom_project_key_applies (project, "training.micro_batch"));
  /* Full fine-tuning by default: no adapters, no quantised base. */
  g_assert_false (headroom_project_key_applies (project, "training.lora_rank"));
  g_assert_false (headroom_project_key_applies (project, "training.quant"));
  g_assert_true (headroom_project_set_string (project, "training.method", "dora", NULL));
  g_assert_true (headroom_project_key_applies (project, "training.lora_rank"));
  g_assert_false (headroom_project_key_applies (project, "training.quant"));
  g_assert_true (headroom_project_set_string (project, "training.method", "qlora", NULL));
  g_assert_true (headroom_project_key_applies (project, "training.quant"));
  g_assert_true (headroom_project_key_applies (project, "training.double_quant"));
  g_assert_false (headroom_project_key_applies (project, "training.freeze_layers"));
  g_assert_true (headroom_project_set_string (project, "training.method", "freeze", NULL));
  g_assert_true (headroom_project_key_applies (project, "training.freeze_layers"));
  /* Rows under a switch show while it is on: the loss's compile with
   * torch.compile (before, a switch never read as "true" and they never
   * showed). Offloaded layers with offloading only; loss chunks with the
   * chunked loss. */
  g_assert_false (headroom_project_key_applies (project, "training.compile_loss"));
  g_assert_true (headroom_project_set_boolean (project, "training.compile", TRUE, NULL));
  g_assert_true (headroom_project_key_applies (project, "training.compile_loss"));
  g_assert_false (headroom_project_key_applies (project, "training.offload_layers"));
  g_assert_true (headroom_project_set_boolean (project, "training.offload_activations", TRUE, NULL));
  g_assert_true (headroom_project_key_applies (project, "training.offload_layers"));
  g_assert_false (headroom_project_key_applies (project, "training.loss_chunks"));
  g_assert_true (headroom_project_set_string (project, "training.loss", "chunked", NULL));
  g_assert_true (headroom_project_key_applies (project, "training.loss_chunks"));
  /* A workload's keys apply under it only: serving's weight precision is
   * not a training setting, and the other way round. */
  g_assert_false (headroom_project_key_applies (project, "inference.weights"));
  /* The host link times training's paging; host memory's rate, llama.cpp's layers. */
  g_assert_true (headroom_project_key_applies (project, "hardware.host_bandwidth"));
  g_assert_false (headroom_project_key_applies (project, "hardware.cpu_memory_bandwidth"));
  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  g_assert_false (headroom_project_key_applies (project, "hardware.host_bandwidth"));
  g_assert_true (headroom_project_key_applies (project, "hardware.cpu_memory_bandwidth"));
  g_assert_true (headroom_project_key_applies (project, "inference.weights"));
  g_assert_false (headroom_project_key_applies (project, "training.freeze_layers"));
  g_assert_false (headroom_project_key_applies (project, "training.micro_batch"));
  g_assert_true (headroom_project_key_applies (project, "hardware.gpu"));
}

/* GPT-Neo 125M (gpt_neo) spells its layers and heads num_layers and
 * num_heads (GPTNeoConfig's attribute_map): the rows read them and an edit
 * goes under that spelling. Its q, k, v have no bias whatever the config
 * says, so an attention_bias edit is refused. 16 heads of 48 over 768:
 * the same q, k, v and out_proj shapes, 125,198,592 parameters. */
static void
test_gpt_neo_spelling (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new ();
  g_autoptr(JsonObject) config =
    parse_object ("{\"model_type\": \"gpt_neo\", \"hidden_size\": 768, \"num_layers\": 12, "
                  "\"num_heads\": 12, \"intermediate_size\": null, \"vocab_size\": 50257, "
                  "\"max_position_embeddings\": 2048, \"window_size\": 256, "
                  "\"attention_types\": [[[\"global\", \"local\"], 6]]}");
  g_autoptr(GError) error = NULL;
  HrModel model;
  HrParams params;

  headroom_project_set_config (project, config);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_hidden_layers"), ==, 12);
  g_assert_cmpint (headroom_project_get_int (project, "model.num_attention_heads"), ==, 12);
  g_assert_true (headroom_project_set_int (project, "model.num_attention_heads", 16, &error));
  g_assert_no_error (error);
  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (model.n_heads, ==, 16);
  g_assert_cmpint (model.head_dim, ==, 48);
  g_assert_true (hr_model_params (&model, &params, NULL) == HR_OK);
  g_assert_cmpint (params.total, ==, 125198592);
  g_assert_false (headroom_project_set_boolean (project, "model.attention_bias", TRUE, &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/project/default-model", test_default_model);
  g_test_add_func ("/project/default-catalog", test_default_catalog);
  g_test_add_func ("/project/custom-gpu", test_custom_gpu);
  g_test_add_func ("/project/key-table", test_key_table);
  g_test_add_func ("/project/choice-for-enum", test_choice_for_enum);
  g_test_add_func ("/project/key-rows", test_key_rows);
  g_test_add_func ("/project/mistyped-key", test_mistyped_key);
  g_test_add_func ("/project/error-key", test_error_key);
  g_test_add_func ("/project/validate-and-get", test_validate_and_get);
  g_test_add_func ("/project/setters", test_setters);
  g_test_add_func ("/project/framework-defaults", test_framework_defaults);
  g_test_add_func ("/project/framework-layout", test_framework_layout);
  g_test_add_func ("/project/gpt2-spelling", test_gpt2_spelling);
  g_test_add_func ("/project/longcat-layers", test_longcat_layers);
  g_test_add_func ("/project/falcon-spelling", test_falcon_spelling);
  g_test_add_func ("/project/expert-spelling", test_expert_spelling);
  g_test_add_func ("/project/key-applies", test_key_applies);
  g_test_add_func ("/project/gpt-neo-spelling", test_gpt_neo_spelling);

  return g_test_run ();
}
