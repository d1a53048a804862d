/* headroom-cli-infer.c: the infer command
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"
#include "hr-inference.h"
#include "hr-serving.h"

/* Each list is in the order of its core enum. */
static const char * const weights_choices[] = {
  "bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", "q4_0", "q4_k_m", "q5_k_m", "q6_k", "q8_0", NULL };
static const char * const kv_choices[] = { "fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q4_0", NULL };
static const char * const engine_choices[] = { "hf", "vllm", "sglang", "trtllm", "llamacpp", NULL };

typedef struct
{
  char    *model;
  char    *gpu;
  char    *gpus;
  char    *tp;
  char    *pp;
  char    *batch;
  char    *prompt;
  char    *generate;
  char    *weights;
  char    *group_size;
  char    *kv_cache;
  char    *paged_block;
  char    *overhead;
  char    *price;
  char    *engine;
  char    *gpu_memory_utilization;
  char    *max_model_len;
  char    *max_num_batched_tokens;
  char    *gpu_layers;
  gboolean fp8_keep_attention;
  gboolean json;
} InferArgs;

static void
infer_args_clear (InferArgs *args)
{
  char **strings[] = {
    &args->model, &args->gpu, &args->gpus, &args->tp, &args->pp, &args->batch, &args->prompt,
    &args->generate, &args->weights, &args->group_size, &args->kv_cache, &args->paged_block,
    &args->overhead, &args->price, &args->engine, &args->gpu_memory_utilization,
    &args->max_model_len, &args->max_num_batched_tokens, &args->gpu_layers,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (InferArgs, infer_args_clear)

/* GPUs = TP × PP: --gpus alone means tensor parallelism over them all; with
 * --tp and --pp the core checks that they multiply to --gpus. */
static gboolean
apply_serving_args (HrServing  *serving,
                    InferArgs  *args,
                    GError    **error)
{
  if (!headroom_cli_parse_optional_choice ("--engine", args->engine, engine_choices,
                                           (int *) &serving->engine, error)
      || !headroom_cli_parse_optional_int ("--max-model-len", args->max_model_len,
                                           0, &serving->max_model_len, error)
      || !headroom_cli_parse_optional_int ("--max-num-batched-tokens", args->max_num_batched_tokens,
                                           0, &serving->max_num_batched_tokens, error)
      || !headroom_cli_parse_optional_int ("--gpu-layers", args->gpu_layers,
                                           -1, &serving->gpu_layers, error))
    return FALSE;
  if (args->gpu_memory_utilization != NULL
      && !headroom_cli_parse_double ("--gpu-memory-utilization", args->gpu_memory_utilization,
                                     0, 1, TRUE, &serving->gpu_memory_utilization, error))
    return FALSE;
  return TRUE;
}

static gboolean
apply_args (HrInference  *inference,
            InferArgs    *args,
            GError      **error)
{
  if (!headroom_cli_parse_optional_int ("--gpus", args->gpus, 1, &inference->gpus, error)
      || !headroom_cli_parse_optional_int ("--tp", args->tp, 1, &inference->tensor_parallel, error)
      || !headroom_cli_parse_optional_int ("--pp", args->pp,
                                           1, &inference->pipeline_parallel, error)
      || !headroom_cli_parse_optional_int ("--batch", args->batch, 1, &inference->batch, error)
      || !headroom_cli_parse_optional_int ("--prompt", args->prompt, 1, &inference->prompt, error)
      || !headroom_cli_parse_optional_int ("--generate", args->generate,
                                           0, &inference->generate, error)
      || !headroom_cli_parse_optional_choice ("--weights", args->weights,
                                              weights_choices, (int *) &inference->weights, error)
      || !headroom_cli_parse_optional_int ("--group-size", args->group_size,
                                           1, &inference->group_size, error)
      || !headroom_cli_parse_optional_choice ("--kv-cache", args->kv_cache,
                                              kv_choices, (int *) &inference->kv_dtype, error)
      || !headroom_cli_parse_optional_int ("--paged-block", args->paged_block,
                                           0, &inference->paged_block, error))
    return FALSE;

  if (args->overhead != NULL
      && !headroom_cli_parse_double ("--overhead", args->overhead, 0, G_MAXDOUBLE, FALSE,
                                     &inference->overhead_bytes, error))
    return FALSE;
  if (args->price != NULL
      && !headroom_cli_parse_double ("--price", args->price, 0, G_MAXDOUBLE, FALSE,
                                     &inference->price_per_gpu_hour, error))
    return FALSE;

  if (args->fp8_keep_attention)
    inference->fp8_keep_attention = TRUE;

  if (args->gpus != NULL && args->tp == NULL && args->pp == NULL)
    inference->tensor_parallel = inference->gpus;
  else if (args->gpus == NULL && (args->tp != NULL || args->pp != NULL))
    inference->gpus = inference->tensor_parallel * inference->pipeline_parallel;

  return TRUE;
}

typedef struct
{
  HrParams           params;
  HrInferenceMemory  memory;
  HrInferenceLatency latency;
  HrInferenceLimits  limits;
  HrServing          serving;
  HrServingPlan      plan;
  HrServingLatency   serving_latency;
  gboolean           has_serving_latency;
} InferResult;

static void
print_infer_json (const InferResult *r)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const HrInferenceMemory *m = &r->memory;
  const HrInferenceLatency *l = &r->latency;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "params");
  headroom_cli_json_params (builder, &r->params);

  json_builder_set_member_name (builder, "memory");
  json_builder_begin_object (builder);
  headroom_cli_json_bytes (builder, "weights", m->weights);
  headroom_cli_json_bytes (builder, "kv_cache", m->kv_cache);
  headroom_cli_json_bytes (builder, "kv_cache_per_token", m->kv_cache_per_token);
  headroom_cli_json_bytes (builder, "kv_cache_uncapped", m->kv_cache_uncapped);
  headroom_cli_json_bytes (builder, "activations", m->activations);
  headroom_cli_json_bytes (builder, "overhead", m->overhead);
  headroom_cli_json_bytes (builder, "total", m->total);
  headroom_cli_json_bytes (builder, "capacity", m->capacity);
  headroom_cli_json_bool (builder, "fits", m->fits);
  headroom_cli_json_bytes (builder, "headroom", m->headroom);
  headroom_cli_json_bytes (builder, "overflow", m->overflow);
  headroom_cli_json_bytes (builder, "usable", r->plan.usable);
  headroom_cli_json_bytes (builder, "kv_capacity", r->plan.kv_cache);
  headroom_cli_json_int (builder, "kv_capacity_tokens", r->plan.kv_capacity_tokens);
  headroom_cli_json_int (builder, "kv_blocks", r->plan.kv_blocks);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "serving");
  json_builder_begin_object (builder);
  headroom_cli_json_string (builder, "engine", hr_engine_name (r->serving.engine));
  headroom_cli_json_bytes (builder, "driver_memory", r->plan.total);
  headroom_cli_json_bytes (builder, "weights", r->plan.weights);
  headroom_cli_json_bytes (builder, "activations", r->plan.activations);
  headroom_cli_json_bytes (builder, "non_torch", r->plan.non_torch);
  headroom_cli_json_int (builder, "block_size", r->plan.block_size);
  headroom_cli_json_int (builder, "max_model_len", r->plan.max_model_len);
  headroom_cli_json_int (builder, "max_num_batched_tokens", r->plan.max_num_batched_tokens);
  headroom_cli_json_bool (builder, "fits", r->plan.fits);
  if (r->serving.engine == HR_ENGINE_LLAMACPP)
    {
      headroom_cli_json_int (builder, "gpu_layers", r->plan.gpu_layers);
      headroom_cli_json_bytes (builder, "cpu_weights", r->plan.cpu_weights);
      headroom_cli_json_bytes (builder, "cpu_kv_cache", r->plan.cpu_kv_cache);
      headroom_cli_json_double (builder, "decode_seconds_per_token",
                                r->plan.gpu_decode_time + r->plan.cpu_decode_time);
    }
  if (r->has_serving_latency)
    {
      headroom_cli_json_int (builder, "running", r->serving_latency.running);
      headroom_cli_json_int (builder, "waves", r->serving_latency.waves);
      headroom_cli_json_double (builder, "time_to_first_token", r->serving_latency.time_to_first_token);
      headroom_cli_json_double (builder, "time_per_output_token",
                                r->serving_latency.time_per_output_token);
      headroom_cli_json_double (builder, "tokens_per_second", r->serving_latency.tokens_per_second);
      headroom_cli_json_double (builder, "time_to_first_token_loaded",
                                r->serving_latency.time_to_first_token_loaded);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "latency");
  json_builder_begin_object (builder);
  headroom_cli_json_double (builder, "time_to_first_token", l->time_to_first_token);
  headroom_cli_json_double (builder, "time_per_output_token", l->time_per_output_token);
  headroom_cli_json_double (builder, "tokens_per_second", l->tokens_per_second);
  headroom_cli_json_double (builder, "tokens_per_second_per_sequence", l->tokens_per_second_per_sequence);
  headroom_cli_json_string (builder, "prefill_bound", hr_bound_name (l->prefill_bound));
  headroom_cli_json_string (builder, "decode_bound", hr_bound_name (l->decode_bound));
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "cost");
  json_builder_begin_object (builder);
  headroom_cli_json_double (builder, "per_million_tokens", l->cost_per_million_tokens);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "limits");
  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "max_batch", r->limits.max_batch);
  headroom_cli_json_int (builder, "max_context", r->limits.max_context);
  headroom_cli_json_int (builder, "min_gpus", r->limits.min_gpus);
  headroom_cli_json_double (builder, "max_concurrency", r->plan.max_concurrency);
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  headroom_cli_print_json (builder);
}

static void
print_infer_table (const char        *name,
                   const HrInference *inference,
                   const InferResult *r)
{
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (2);
  const HrInferenceMemory *m = &r->memory;
  const HrInferenceLatency *l = &r->latency;
  g_autofree char *per_token = headroom_cli_format_count (m->kv_cache_per_token);

  g_autofree char *gpus = headroom_cli_format_gpus (inference->gpus);

  printf (_("%s on %s (TP %" G_GINT64_FORMAT ", PP %" G_GINT64_FORMAT
            "): batch %" G_GINT64_FORMAT ", prompt %" G_GINT64_FORMAT ", generate %"
            G_GINT64_FORMAT ", weights %s, KV cache %s\n"),
          name, gpus, inference->tensor_parallel, inference->pipeline_parallel,
          inference->batch, inference->prompt, inference->generate,
          weights_choices[inference->weights], kv_choices[inference->kv_dtype]);

  printf ("\n%s\n", _("Memory of the most loaded GPU"));
  headroom_cli_table_add_gib (table, _("Weights"), m->weights);
  headroom_cli_table_add_gib (table, _("KV cache"), m->kv_cache);
  headroom_cli_table_take (table, g_strdup (_("  per token (bytes)")), g_strdup (per_token), NULL);
  if (m->kv_cache_uncapped != m->kv_cache)
    headroom_cli_table_add_gib (table, _("  without window capping"), m->kv_cache_uncapped);
  headroom_cli_table_add_gib (table, _("Activations"), m->activations);
  headroom_cli_table_add_gib (table, _("Framework overhead"), m->overhead);
  headroom_cli_table_add_gib (table, _("Total"), m->total);
  headroom_cli_table_add_gib (table, _("Capacity"), m->capacity);
  if (m->fits)
    headroom_cli_table_add_gib (table, _("Headroom"), m->headroom);
  else
    headroom_cli_table_add_gib (table, _("Overflow (does not fit)"), m->overflow);
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Latency"));
  headroom_cli_table_take (table, g_strdup (_("Time to first token")),
                           headroom_cli_format_duration (l->time_to_first_token), NULL);
  headroom_cli_table_take (table, g_strdup (_("Time per output token")),
                           headroom_cli_format_duration (l->time_per_output_token), NULL);
  headroom_cli_table_take (table, g_strdup (_("Tokens per second")),
                           headroom_cli_format_count (l->tokens_per_second), NULL);
  headroom_cli_table_take (table, g_strdup (_("  per sequence")),
                           headroom_cli_format_count (l->tokens_per_second_per_sequence), NULL);
  headroom_cli_table_take (table, g_strdup (_("Prefill / decode bound")),
                           g_strdup_printf ("%s / %s", hr_bound_name (l->prefill_bound),
                                            hr_bound_name (l->decode_bound)), NULL);
  if (l->cost_per_million_tokens > 0)
    headroom_cli_table_take (table, g_strdup (_("Cost per million tokens (USD)")),
                             headroom_cli_format_number (l->cost_per_million_tokens, 4), NULL);
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Limits"));
  headroom_cli_table_take (table, g_strdup (_("Largest batch")), headroom_cli_format_limit (r->limits.max_batch), NULL);
  headroom_cli_table_take (table, g_strdup (_("Longest context")), headroom_cli_format_limit (r->limits.max_context), NULL);
  headroom_cli_table_take (table, g_strdup (_("Fewest GPUs")), headroom_cli_format_limit (r->limits.min_gpus), NULL);
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Serving engine"));
  headroom_cli_table_take (table, g_strdup (_("Engine")), g_strdup (hr_engine_name (r->serving.engine)), NULL);
  headroom_cli_table_add_gib (table, _("Memory the driver reports"), r->plan.total);
  headroom_cli_table_add_gib (table, _("Usable by the engine"), r->plan.usable);
  headroom_cli_table_add_gib (table, _("KV cache"), r->plan.kv_cache);
  headroom_cli_table_take (table, g_strdup (_("KV cache capacity (tokens)")),
                           headroom_cli_format_count ((double) r->plan.kv_capacity_tokens), NULL);
  headroom_cli_table_take (table, g_strdup (_("Requests of the longest length at once")),
                           headroom_cli_format_number (r->plan.max_concurrency, 4), NULL);
  if (r->has_serving_latency)
    {
      headroom_cli_table_take (table, g_strdup (_("Requests in flight")),
                               headroom_cli_format_count ((double) r->serving_latency.running), NULL);
      headroom_cli_table_take (table, g_strdup (_("Throughput, continuous batching")),
                               headroom_cli_format_count (r->serving_latency.tokens_per_second), NULL);
    }
  if (r->serving.engine == HR_ENGINE_LLAMACPP)
    {
      headroom_cli_table_add_gib (table, _("In host memory"), r->plan.cpu_weights + r->plan.cpu_kv_cache);
      if (r->plan.gpu_decode_time + r->plan.cpu_decode_time > 0)
        headroom_cli_table_take (table, g_strdup (_("Tokens per second, one sequence")),
                                 headroom_cli_format_count (1.0 / (r->plan.gpu_decode_time +
                                                                   r->plan.cpu_decode_time)), NULL);
    }
  headroom_cli_table_print (table);
}

static int
run_infer (HeadroomCliModel *model,
           InferArgs        *args)
{
  g_autoptr(GError) error = NULL;
  HrInference inference;
  InferResult result;
  HrError err = { 0 };
  HrGpu gpu;

  hr_inference_init (&inference);
  hr_serving_init (&result.serving);
  if (model->project != NULL)
    {
      headroom_project_get_inference (model->project, &inference);
      headroom_project_get_serving (model->project, &result.serving);
    }

  if (!apply_args (&inference, args, &error)
      || !apply_serving_args (&result.serving, args, &error))
    return headroom_cli_report_error (error);

  if (args->gpu != NULL || model->project == NULL)
    {
      if (!headroom_cli_resolve_gpu ("--gpu", args->gpu, &gpu, &error))
        return headroom_cli_report_error (error);
    }
  else if (!headroom_project_get_gpu (model->project, &gpu, &error))
    {
      g_prefix_error (&error, "%s: ", model->name);
      return headroom_cli_report_error (error);
    }

  if (hr_inference_validate (&model->model, &inference, &err) != HR_OK
      || hr_model_params (&model->model, &result.params, &err) != HR_OK
      || hr_inference_memory (&model->model, &inference, &gpu, &result.memory, &err) != HR_OK
      || hr_inference_latency (&model->model, &inference, &gpu, &result.latency, &err) != HR_OK
      || hr_inference_limits (&model->model, &inference, &gpu, &result.limits, &err) != HR_OK
      || hr_serving_plan (&model->model, &inference, &result.serving, &gpu, &result.plan, &err) != HR_OK)
    {
      headroom_cli_set_core_error (&error, &err);
      return headroom_cli_report_error (error);
    }

  result.has_serving_latency =
    hr_serving_latency (&model->model, &inference, &result.serving, &gpu, &result.plan,
                        &result.serving_latency, NULL) == HR_OK;

  if (args->json)
    print_infer_json (&result);
  else
    print_infer_table (model->name, &inference, &result);

  return HEADROOM_CLI_EXIT_OK;
}

int
headroom_cli_infer (int    argc,
                    char **argv)
{
  g_auto(InferArgs) args = { 0 };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &args.model,
      N_("Preset id, Hugging Face config.json or project file"), N_("MODEL") },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &args.gpu, N_("GPU id (see “headroom-cli gpus”)"), N_("GPU") },
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &args.gpus, N_("Number of GPUs (= TP × PP)"), N_("N") },
    { "tp", 0, 0, G_OPTION_ARG_STRING, &args.tp, N_("Tensor-parallel degree"), N_("N") },
    { "pp", 0, 0, G_OPTION_ARG_STRING, &args.pp, N_("Pipeline-parallel degree"), N_("N") },
    { "batch", 0, 0, G_OPTION_ARG_STRING, &args.batch, N_("Concurrent sequences"), N_("B") },
    { "prompt", 0, 0, G_OPTION_ARG_STRING, &args.prompt, N_("Prompt tokens per sequence"), N_("N") },
    { "generate", 0, 0, G_OPTION_ARG_STRING, &args.generate,
      N_("Generated tokens per sequence (0: prefill only)"), N_("N") },
    { "weights", 0, 0, G_OPTION_ARG_STRING, &args.weights, N_("Weight precision or format"),
      N_("bf16|fp16|fp8|int8|int4|awq|gptq|q4_0|q4_k_m|q5_k_m|q6_k|q8_0") },
    { "group-size", 0, 0, G_OPTION_ARG_STRING, &args.group_size,
      N_("Weights per quantisation group (int8, int4; default 128)"), N_("G") },
    { "kv-cache", 0, 0, G_OPTION_ARG_STRING, &args.kv_cache, N_("KV cache type"),
      N_("fp32|bf16|fp16|fp8|int8|q8_0|q4_0") },
    { "paged-block", 0, 0, G_OPTION_ARG_STRING, &args.paged_block,
      N_("Tokens per KV block (default 16; 0: contiguous)"), N_("N") },
    { "overhead", 0, 0, G_OPTION_ARG_STRING, &args.overhead,
      N_("Framework memory per GPU in bytes"), N_("BYTES") },
    { "price", 0, 0, G_OPTION_ARG_STRING, &args.price, N_("Price of one GPU-hour"),
      N_("USD_PER_GPU_HOUR") },
    { "fp8-keep-attention", 0, 0, G_OPTION_ARG_NONE, &args.fp8_keep_attention,
      N_("With fp8 weights, keep attention and the first and last layers 16-bit (Llama 3 FP8)"), NULL },
    { "engine", 0, 0, G_OPTION_ARG_STRING, &args.engine,
      N_("Serving engine whose memory plan to follow (default vllm)"),
      N_("vllm|sglang|trtllm|llamacpp|hf") },
    { "gpu-memory-utilization", 0, 0, G_OPTION_ARG_STRING, &args.gpu_memory_utilization,
      N_("Fraction of the GPU’s memory the engine may use (vLLM; SGLang mem_fraction_static; default the engine’s, 0.9 for vLLM)"),
      N_("F") },
    { "max-model-len", 0, 0, G_OPTION_ARG_STRING, &args.max_model_len,
      N_("Longest request in tokens (default prompt + generate)"), N_("N") },
    { "max-num-batched-tokens", 0, 0, G_OPTION_ARG_STRING, &args.max_num_batched_tokens,
      N_("Tokens per engine step (default max(max-model-len, 2048))"), N_("N") },
    { "gpu-layers", 0, 0, G_OPTION_ARG_STRING, &args.gpu_layers,
      N_("llama.cpp layers on the GPU (-1: all)"), N_("N") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &args.json, N_("Print one JSON object"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("");
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };

  g_option_context_set_summary (context, _("Estimate the memory per GPU, latency and cost of serving a model."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!headroom_cli_parse_options (context, &argc, &argv, &error)
      || !headroom_cli_resolve_model (args.model, &model, &error))
    return headroom_cli_report_error (error);

  return run_infer (&model, &args);
}

int
headroom_cli_report_inference (HeadroomCliModel *model,
                               gboolean          json)
{
  InferArgs args = { .json = json };

  return run_infer (model, &args);
}
