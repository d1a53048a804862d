/* headroom-cli-infer.c: the infer command
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"
#include "headroom-estimator.h"

/* Each list is in the order of its core enum. */
static const char * const weights_choices[] = {
  "bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", "q4_0", "q4_k_m", "q5_k_m", "q6_k", "q8_0",
  "iq2_xxs", "iq2_xs", "iq3_xxs", "iq4_nl", "iq4_xs", NULL };
static const char * const kv_choices[] = { "fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q4_0", NULL };

/* The options of infer that are not project keys; every key of inference.*
 * and hardware.* is an option too (headroom-cli-options.c). */
typedef struct
{
  char    *model;
  char    *gpus;
  gboolean json;
  gboolean explain;
} InferArgs;

static void
infer_args_clear (InferArgs *args)
{
  g_clear_pointer (&args->model, g_free);
  g_clear_pointer (&args->gpus, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (InferArgs, infer_args_clear)

/* GPUs = TP × PP: --gpus alone means tensor parallelism over them all; with
 * --tp or --pp they must multiply to --gpus. The hardware holds them (one
 * node, or nodes of the project's size when --gpus is a multiple of it). */
static gboolean
apply_gpu_count (HeadroomProject        *project,
                 HeadroomCliKeyOptions  *options,
                 InferArgs              *args,
                 GError                **error)
{
  gboolean tp_given = headroom_cli_key_options_get (options, "inference.tensor_parallel") != NULL;
  gboolean pp_given = headroom_cli_key_options_get (options, "inference.pipeline_parallel") != NULL;
  gint64 gpus = 0, model_parallel;

  if (args->gpus == NULL)
    return TRUE;
  if (!headroom_cli_parse_int ("--gpus", args->gpus, 1, &gpus, error))
    return FALSE;
  if (!tp_given && !pp_given
      && !headroom_project_set_int (project, "inference.tensor_parallel", gpus, error))
    {
      g_prefix_error (error, "--gpus: ");
      return FALSE;
    }
  model_parallel = headroom_project_get_int (project, "inference.tensor_parallel")
                   * headroom_project_get_int (project, "inference.pipeline_parallel");
  if (model_parallel != gpus)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--gpus: %" G_GINT64_FORMAT " is not --tp × --pp (%" G_GINT64_FORMAT ")"),
                   gpus, model_parallel);
      return FALSE;
    }
  return headroom_cli_set_gpu_count (project, gpus,
                                     headroom_cli_key_options_get (options, "hardware.gpus_per_node") != NULL,
                                     error);
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
  gint64             model_context;  /* the model's max_position_embeddings */
  GPtrArray         *explanations;   /* --explain: id, text pairs; else NULL */
} InferResult;

static void
print_infer_json (HeadroomProject   *project,
                  const InferResult *r)
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
  /* The split between layer kinds: global layers hold the whole context,
   * windowed (or chunked) ones at most their window. */
  headroom_cli_json_bytes (builder, "kv_cache_global", m->kv_cache - m->kv_cache_windowed);
  headroom_cli_json_bytes (builder, "kv_cache_windowed", m->kv_cache_windowed);
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
  headroom_cli_json_string (builder, "engine",
                            headroom_cli_choice_name ("inference.engine", r->serving.engine));
  headroom_cli_json_bytes (builder, "driver_memory", r->plan.total);
  json_builder_set_member_name (builder, "driver_memory_from_datasheet");
  json_builder_add_boolean_value (builder, r->plan.total_from_datasheet);
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
      headroom_cli_json_double (builder, "first_token_overhead",
                                r->serving_latency.first_token_overhead);
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
  headroom_cli_json_explanations (builder, r->explanations);
  json_builder_end_object (builder);

  headroom_cli_print_model_json (builder, project);
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
  if (m->kv_cache_windowed > 0)
    {
      headroom_cli_table_add_gib (table, _("  in global layers"), m->kv_cache - m->kv_cache_windowed);
      headroom_cli_table_add_gib (table, _("  in windowed layers"), m->kv_cache_windowed);
    }
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
  /* A batch that does not fit cannot be served: its figures say so (issue 16). */
  printf ("\n%s\n", m->fits ? _("Latency") : _("Latency (does not fit: the figures of a batch that cannot be served)"));
  headroom_cli_table_take (table, g_strdup (_("Time to first token")),
                           headroom_cli_mark_not_fit (headroom_cli_format_duration (l->time_to_first_token),
                                                      m->fits), NULL);
  headroom_cli_table_take (table, g_strdup (_("Time per output token")),
                           headroom_cli_mark_not_fit (headroom_cli_format_duration (l->time_per_output_token),
                                                      m->fits), NULL);
  headroom_cli_table_take (table, g_strdup (_("Tokens per second")),
                           headroom_cli_mark_not_fit (headroom_cli_format_count (l->tokens_per_second), m->fits),
                           NULL);
  headroom_cli_table_take (table, g_strdup (_("  per sequence")),
                           headroom_cli_mark_not_fit (headroom_cli_format_count (l->tokens_per_second_per_sequence),
                                                      m->fits), NULL);
  headroom_cli_table_take (table, g_strdup (_("Prefill / decode bound")),
                           g_strdup_printf ("%s / %s", hr_bound_name (l->prefill_bound),
                                            hr_bound_name (l->decode_bound)), NULL);
  if (l->cost_per_million_tokens > 0)
    headroom_cli_table_take (table, g_strdup (_("Cost per million tokens (USD)")),
                             headroom_cli_mark_not_fit (headroom_cli_format_number (l->cost_per_million_tokens, 4),
                                                        m->fits), NULL);
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Limits"));
  headroom_cli_table_take (table, g_strdup (_("Largest batch")), headroom_cli_format_limit (r->limits.max_batch), NULL);
  headroom_cli_table_take (table, g_strdup (_("Longest context")),
                           headroom_cli_format_length_limit (r->limits.max_context, r->model_context), NULL);
  headroom_cli_table_take (table, g_strdup (_("Fewest GPUs")), headroom_cli_format_limit (r->limits.min_gpus), NULL);
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Serving engine"));
  headroom_cli_table_take (table, g_strdup (_("Engine")),
                           g_strdup (headroom_cli_choice_name ("inference.engine", r->serving.engine)),
                           NULL);
  headroom_cli_table_add_gib (table, r->plan.total_from_datasheet
                                     ? _("Memory (datasheet; the driver’s figure is not published)")
                                     : _("Memory the driver reports"),
                              r->plan.total);
  headroom_cli_table_add_gib (table, _("Usable by the engine"), r->plan.usable);
  headroom_cli_table_add_gib (table, _("KV cache"), r->plan.kv_cache);
  headroom_cli_table_take (table, g_strdup (_("KV cache capacity (tokens)")),
                           headroom_cli_format_count ((double) r->plan.kv_capacity_tokens), NULL);
  {
    g_autofree char *quotient = headroom_cli_format_number (r->plan.max_concurrency, 4);

    /* Whole requests, as the window says it, then the engine's quotient. */
    headroom_cli_table_take (table, g_strdup (_("Requests of the longest length at once")),
                             /* TRANSLATORS: e.g. "93 (capacity ÷ longest request = 93.35)" */
                             g_strdup_printf (_("%.0f (capacity ÷ longest request = %s)"),
                                              floor (r->plan.max_concurrency), quotient),
                             NULL);
  }
  if (r->has_serving_latency)
    {
      headroom_cli_table_take (table, g_strdup (_("Requests in flight")),
                               headroom_cli_format_count ((double) r->serving_latency.running), NULL);
      headroom_cli_table_take (table, g_strdup (_("Time to first token, engine")),
                               headroom_cli_format_duration (r->serving_latency.time_to_first_token),
                               NULL);
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
  headroom_cli_print_explanations (r->explanations);
}

/* The options given pick the option's name for an error; the others (a
 * project file's) keep the key. */
static void
set_project_error (GError                **error,
                   HeadroomCliKeyOptions  *options,
                   HeadroomCliModel       *model,
                   const char             *gpus,
                   const GError           *project_error)
{
  const char *key = headroom_project_error_get_key (project_error);

  /* --gpus alone sets the TP degree: say so, and what to give instead. */
  if (g_strcmp0 (key, "inference.tensor_parallel") == 0 && gpus != NULL
      && headroom_cli_key_options_get (options, key) == NULL)
    {
      g_autoptr(GError) key_error = NULL;

      headroom_cli_set_key_error (&key_error, project_error);
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("%s (tensor parallel over --gpus %s; give --tp and --pp whose product is %s)"),
                   key_error->message, gpus, gpus);
    }
  else if (key != NULL && !g_str_has_prefix (key, "model.")
      && (model->project == NULL || headroom_cli_key_options_get (options, key) != NULL))
    headroom_cli_set_key_error (error, project_error);
  else if (model->project != NULL)
    headroom_cli_set_file_error (error, model->name, project_error);
  else
    g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                         project_error->message);
}

/* Runs infer on `project` (already holding the options), by the estimator
 * the window uses. */
static int
run_infer (HeadroomCliModel       *model,
           HeadroomCliKeyOptions  *options,
           HeadroomProject        *project,
           InferArgs              *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) project_error = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  const HrInferenceLimits *limits;
  HrInference inference;
  InferResult result = { 0 };

  if (!headroom_project_validate (project, &project_error))
    {
      set_project_error (&error, options, model, args->gpus, project_error);
      return headroom_cli_report_error (error);
    }
  estimator = headroom_estimator_new (project);
  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error_detail (estimator) != NULL)
    {
      set_project_error (&error, options, model, args->gpus,
                         headroom_estimator_get_error_detail (estimator));
      return headroom_cli_report_error (error);
    }

  headroom_project_get_inference (project, &inference);
  headroom_project_get_serving (project, &result.serving);
  result.params = *headroom_estimator_get_params (estimator);
  result.memory = *headroom_estimator_get_inference_memory (estimator);
  result.latency = *headroom_estimator_get_inference_latency (estimator);
  limits = headroom_estimator_get_inference_limits (estimator);
  if (limits != NULL)
    result.limits = *limits;
  result.plan = *headroom_estimator_get_serving_plan (estimator);
  result.model_context = headroom_project_get_int (project, "model.max_position_embeddings");
  if (args->explain)
    result.explanations = headroom_cli_dup_explanations (estimator);
  if (headroom_estimator_get_serving_latency (estimator) != NULL)
    {
      result.serving_latency = *headroom_estimator_get_serving_latency (estimator);
      result.has_serving_latency = TRUE;
    }

  if (args->json)
    print_infer_json (project, &result);
  else
    {
      print_infer_table (model->name, &inference, &result);
      headroom_cli_print_assumed (project);
    }
  g_clear_pointer (&result.explanations, g_ptr_array_unref);

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
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &args.gpus, N_("Number of GPUs (= TP × PP)"), N_("N") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &args.json, N_("Print one JSON object"), NULL },
    { "explain", 0, 0, G_OPTION_ARG_NONE, &args.explain,
      N_("Explain each figure: its formula with these values, assumption and source"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("[MODEL]"));
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  g_autoptr(HeadroomCliKeyOptions) options = NULL;
  g_autoptr(HeadroomProject) project = NULL;

  g_option_context_set_summary (context, _("Estimate the memory per GPU, latency and cost of serving a model."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  options = headroom_cli_key_options_new (context, "inference");
  if (!headroom_cli_parse_model_options (context, &argc, &argv, &args.model, &error)
      || !headroom_cli_resolve_model (args.model, options, &model, &error))
    return headroom_cli_report_error (error);

  project = headroom_cli_model_dup_project (&model);
  if (!headroom_project_set_string (project, "workload", "inference", &error)
      || !headroom_cli_key_options_apply (options, project, &error)
      || !apply_gpu_count (project, options, &args, &error))
    return headroom_cli_report_error (error);

  return run_infer (&model, options, project, &args);
}

int
headroom_cli_report_inference (HeadroomCliModel *model,
                               gboolean          json,
                               gboolean          explain)
{
  InferArgs args = { .json = json, .explain = explain };
  g_autoptr(GOptionContext) context = g_option_context_new ("");
  g_autoptr(HeadroomCliKeyOptions) options = headroom_cli_key_options_new (context, "inference");

  return run_infer (model, options, model->project, &args);
}
