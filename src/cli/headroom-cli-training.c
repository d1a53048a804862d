/* headroom-cli-training.c: the train and plan commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"
#include "headroom-estimator.h"
#include "headroom-fit-advice.h"
#include "headroom-plan-row.h"
#include "headroom-planner.h"
#include "headroom-quantity.h"

/* The options of train and plan that are not project keys, as typed; every
 * key of training.* and hardware.* is an option too (headroom-cli-options.c). */
typedef struct
{
  char    *model;
  char    *gpus;
  char    *measured_tokens_per_second;
  char    *measured_step_seconds;
  char    *top;
  gboolean json;
  gboolean csv;
  gboolean explain;
} TrainArgs;

static void
train_args_clear (TrainArgs *args)
{
  char **strings[] = {
    &args->model, &args->gpus, &args->measured_tokens_per_second, &args->measured_step_seconds,
    &args->top,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TrainArgs, train_args_clear)

#define STRING_OPTION(name, field, description, arg) \
  { name, 0, 0, G_OPTION_ARG_STRING, &args->field, description, arg }
#define FLAG_OPTION(name, field, description) \
  { name, 0, 0, G_OPTION_ARG_NONE, &args->field, description, NULL }

/* train and plan take the same options (issue 12), plan adds --top and --csv
 * and train the measured throughput. */
static HeadroomCliKeyOptions *
add_entries (GOptionContext *context,
             TrainArgs      *args,
             gboolean        plan)
{
  const GOptionEntry entries[] = {
    STRING_OPTION ("model", model, N_("Preset id, Hugging Face config.json or project file"), N_("MODEL")),
    STRING_OPTION ("gpus", gpus, N_("Number of GPUs"), N_("N")),
    FLAG_OPTION ("json", json, N_("Print one JSON object")),
    { NULL }
  };
  const GOptionEntry train_entries[] = {
    FLAG_OPTION ("explain", explain, N_("Explain each figure: its formula with these values, "
                                        "assumption and source")),
    STRING_OPTION ("measured-tokens-per-second", measured_tokens_per_second,
                   N_("Measured throughput of the whole run: report its MFU and HFU"), N_("X")),
    STRING_OPTION ("measured-step-seconds", measured_step_seconds,
                   N_("Measured time of one optimizer step: report its MFU and HFU"), N_("S")),
    { NULL }
  };
  const GOptionEntry plan_entries[] = {
    STRING_OPTION ("top", top, N_("Layouts to print (default 10)"), N_("K")),
    FLAG_OPTION ("csv", csv, N_("Print CSV instead of a table")),
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, plan ? plan_entries : train_entries, GETTEXT_PACKAGE);
  return headroom_cli_key_options_new (context, "training");
}

/* --gpus N splits into nodes of --gpus-per-node (else the project's node)
 * when N is a multiple of it, else makes one node of N GPUs. */
static gboolean
apply_gpu_count (HeadroomProject        *project,
                 HeadroomCliKeyOptions  *options,
                 TrainArgs              *args,
                 GError                **error)
{
  gint64 gpus = 0;

  if (args->gpus == NULL)
    return TRUE;
  if (!headroom_cli_parse_int ("--gpus", args->gpus, 1, &gpus, error))
    return FALSE;
  if (headroom_cli_key_options_get (options, "hardware.nodes") != NULL)
    {
      g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--gpus: give either --gpus or --nodes with --gpus-per-node"));
      return FALSE;
    }

  return headroom_cli_set_gpu_count (project, gpus,
                                     headroom_cli_key_options_get (options, "hardware.gpus_per_node") != NULL,
                                     error);
}

/* The project of a train or plan run: MODEL's, with the options over it. */
static HeadroomProject *
make_project (HeadroomCliModel       *model,
              HeadroomCliKeyOptions  *options,
              TrainArgs              *args,
              GError                **error)
{
  g_autoptr(HeadroomProject) project = headroom_cli_model_dup_project (model);
  const char *vpp = headroom_cli_key_options_get (options, "training.virtual_stages");

  if (!headroom_project_set_string (project, "workload", "training", error)
      || !headroom_cli_key_options_apply (options, project, error)
      || !apply_gpu_count (project, options, args, error))
    return NULL;

  /* A virtual stage count above 1 only means something when interleaved. */
  if (vpp != NULL && headroom_project_get_int (project, "training.virtual_stages") > 1
      && headroom_cli_key_options_get (options, "training.pipeline_schedule") == NULL)
    headroom_project_set_string (project, "training.pipeline_schedule", "interleaved", NULL);
  return g_steal_pointer (&project);
}

/* A project error names the option when one set the key, else the key (a
 * project file's fault). */
static void
set_project_error (GError                **error,
                   HeadroomCliKeyOptions  *options,
                   HeadroomCliModel       *model,
                   const GError           *project_error)
{
  const char *key = headroom_project_error_get_key (project_error);
  const HeadroomKeyInfo *info = key != NULL ? headroom_project_find_key (key) : NULL;

  if (info != NULL && !g_str_has_prefix (key, "model.")
      && (model->project == NULL || headroom_cli_key_options_get (options, key) != NULL
          || (g_str_has_prefix (key, "hardware.") && g_strcmp0 (key, "hardware.gpu") != 0)))
    headroom_cli_set_key_error (error, project_error);
  else if (model->project != NULL)
    headroom_cli_set_file_error (error, model->name, project_error);
  else
    g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                         project_error->message);
}

typedef struct
{
  HrParams         params;
  HrFlops          flops;
  HrTrainingMemory memory;
  HrTrainingTime   time;
  HrTrainingLimits limits;
  gboolean         has_measured;
  HrTrainingUtilization measured;
  gboolean         power_known;   /* the catalog gives the board power (0: unpublished) */
  gint64           model_context; /* the model's max_position_embeddings */
  const char      *step_needs;    /* the key the step time needs (training.mfu); else NULL */
  const char      *run_needs;     /* the key the run's length needs (training.tokens or
                                   * training.mfu); else NULL */
  GPtrArray       *explanations;  /* --explain: id, text pairs; else NULL */
  char            *trainable_share; /* fine-tuning: the share of all parameters trained; else NULL */
  char            *time_basis;    /* where the times come from, as the window says it */
  GListModel      *segments;      /* the estimator's memory segments, as the window's bar shows them */
  HeadroomPlanRow *step;          /* the predicted step's split; NULL with a utilisation set */
  GListModel      *fit_advice;    /* what makes a run that does not fit, fit (the window's
                                   * What Fits); NULL when it fits */
} TrainResult;

static void
train_result_clear (TrainResult *result)
{
  g_clear_pointer (&result->explanations, g_ptr_array_unref);
  g_clear_pointer (&result->trainable_share, g_free);
  g_clear_pointer (&result->time_basis, g_free);
  g_clear_object (&result->segments);
  g_clear_object (&result->step);
  g_clear_object (&result->fit_advice);
}

/* The estimator's share of the parameters a fine-tuning trains, "0.04 %";
 * NULL when every parameter is trained. */
static char *
dup_trainable_share (HeadroomEstimator *estimator)
{
  GListModel *rows = headroom_estimator_get_params_rows (estimator);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (rows, i);

      if (g_strcmp0 (headroom_quantity_get_name (q), "trainable") == 0)
        return g_strdup (headroom_quantity_get_detail (q));
    }
  return NULL;
}

/* "Measured FLOPs utilisation not set (give --mfu)" */
static char *
dup_not_set (const char *key)
{
  const HeadroomKeyInfo *info = headroom_project_find_key (key);

  /* TRANSLATORS: e.g. "Training tokens not set (give --tokens)" */
  return g_strdup_printf (_("%s not set (give --%s)"), headroom_project_get_key_label (key),
                          headroom_key_info_get_option (info));
}

/* The estimate of `project`, by the estimator the window uses. */
static gboolean
compute_training (HeadroomProject        *project,
                  HeadroomCliKeyOptions  *options,
                  HeadroomCliModel       *model,
                  TrainArgs              *args,
                  TrainResult            *result,
                  GError                **error)
{
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  const HrTrainingLimits *limits;
  double tokens_per_second = 0, step_seconds = 0;

  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error_detail (estimator) != NULL)
    {
      set_project_error (error, options, model, headroom_estimator_get_error_detail (estimator));
      return FALSE;
    }
  result->params = *headroom_estimator_get_params (estimator);
  result->flops = *headroom_estimator_get_flops (estimator);
  result->memory = *headroom_estimator_get_training_memory (estimator);
  result->time = *headroom_estimator_get_training_time (estimator);
  limits = headroom_estimator_get_training_limits (estimator);
  if (limits != NULL)
    result->limits = *limits;
  result->power_known = headroom_estimator_get_power_known (estimator);
  result->model_context = headroom_project_get_int (project, "model.max_position_embeddings");
  /* What the estimator's summary says its times need: the utilisation
   * where the step is not predicted, the token budget for the run's length. */
  result->step_needs = headroom_estimator_get_needs_utilization (estimator) ? "training.mfu" : NULL;
  result->run_needs = headroom_project_get_double (project, "training.tokens") > 0
                      ? result->step_needs : "training.tokens";
  result->trainable_share = dup_trainable_share (estimator);
  result->time_basis = headroom_estimator_dup_time_basis (estimator);
  result->segments = g_object_ref (headroom_estimator_get_memory_segments (estimator));
  if (headroom_estimator_get_step_row (estimator) != NULL)
    result->step = g_object_ref (headroom_estimator_get_step_row (estimator));
  if (args->explain)
    result->explanations = headroom_cli_dup_explanations (estimator);
  if (!result->memory.fits)
    result->fit_advice = headroom_fit_advice_search (project);

  /* MFU and HFU of a measured throughput, when one is given. */
  if (args->measured_tokens_per_second != NULL && args->measured_step_seconds != NULL)
    {
      g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--measured-step-seconds: give either --measured-tokens-per-second "
                             "or --measured-step-seconds"));
      return FALSE;
    }
  if (args->measured_tokens_per_second != NULL
      && !headroom_cli_parse_double ("--measured-tokens-per-second",
                                     args->measured_tokens_per_second,
                                     0, G_MAXDOUBLE, TRUE, &tokens_per_second, error))
    return FALSE;
  if (args->measured_step_seconds != NULL
      && !headroom_cli_parse_double ("--measured-step-seconds", args->measured_step_seconds,
                                     0, G_MAXDOUBLE, TRUE, &step_seconds, error))
    return FALSE;
  if (tokens_per_second > 0 || step_seconds > 0)
    {
      g_autoptr(GError) local_error = NULL;

      if (!headroom_estimator_measure_training (estimator, tokens_per_second, step_seconds,
                                                &result->measured, &local_error))
        {
          g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, "%s: %s",
                       tokens_per_second > 0 ? "--measured-tokens-per-second"
                                             : "--measured-step-seconds",
                       headroom_project_error_get_problem (local_error) != NULL
                       ? headroom_project_error_get_problem (local_error) : local_error->message);
          return FALSE;
        }
      result->has_measured = TRUE;
    }
  return TRUE;
}

static void
print_train_json (HeadroomProject   *project,
                  const TrainResult *r)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const HrTrainingMemory *m = &r->memory;
  const HrTrainingTime *t = &r->time;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "params");
  /* trainable = total for full training: every parameter gets a gradient */
  headroom_cli_json_params_trained (builder, &r->params,
                                    m->trainable_params > 0 || m->frozen_params > 0
                                    ? m->trainable_params : r->params.total,
                                    m->frozen_params);
  json_builder_set_member_name (builder, "flops");
  headroom_cli_json_flops (builder, &r->flops);

  json_builder_set_member_name (builder, "memory");
  json_builder_begin_object (builder);
  headroom_cli_json_bytes (builder, "frozen_weights", m->frozen_weights);
  headroom_cli_json_bytes (builder, "adapters", m->adapters);
  headroom_cli_json_bytes (builder, "weights", m->weights);
  headroom_cli_json_bytes (builder, "master_weights", m->master_weights);
  headroom_cli_json_bytes (builder, "gradients", m->gradients);
  /* Only with training.frozen_gradients, so that other outputs stay as they were. */
  if (m->frozen_gradients > 0)
    headroom_cli_json_bytes (builder, "frozen_gradients", m->frozen_gradients);
  headroom_cli_json_bytes (builder, "grad_accumulation_buffer", m->grad_accumulation_buffer);
  headroom_cli_json_bytes (builder, "optimizer", m->optimizer);
  headroom_cli_json_bytes (builder, "activations", m->activations);
  headroom_cli_json_bytes (builder, "activations_per_layer", m->activations_per_layer);
  headroom_cli_json_bytes (builder, "temporary", m->temporary);
  headroom_cli_json_bytes (builder, "overhead", m->overhead);
  headroom_cli_json_bytes (builder, "recompute", m->recompute);
  headroom_cli_json_bytes (builder, "allocated_peak", m->allocated_peak);
  headroom_cli_json_bytes (builder, "reserved_peak", m->reserved_peak);
  headroom_cli_json_bytes (builder, "total", m->total);
  headroom_cli_json_bytes (builder, "capacity", m->capacity);
  headroom_cli_json_bool (builder, "fits", m->fits);
  headroom_cli_json_bytes (builder, "headroom", m->headroom);
  headroom_cli_json_bytes (builder, "overflow", m->overflow);
  headroom_cli_json_bytes (builder, "cpu", m->cpu_bytes);
  /* Only with a paged optimizer, so that other outputs stay as they were. */
  if (m->pageable > 0)
    {
      headroom_cli_json_bytes (builder, "pageable", m->pageable);
      headroom_cli_json_bytes (builder, "paged_out", m->paged_out);
    }
  /* Only with training.quant_load_whole (hr-finetune-load.c). */
  if (m->load_reserved > 0)
    {
      headroom_cli_json_bytes (builder, "load_allocated_peak", m->load_allocated_peak);
      headroom_cli_json_bytes (builder, "load_reserved", m->load_reserved);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "time");
  json_builder_begin_object (builder);
  /* null, not 0, without the measured utilisation they need */
  headroom_cli_json_double (builder, "step_seconds", r->step_needs == NULL ? t->step_seconds : NAN);
  headroom_cli_json_double (builder, "tokens_per_second",
                            r->step_needs == NULL ? t->tokens_per_second : NAN);
  headroom_cli_json_double (builder, "tokens_per_second_per_gpu",
                            r->step_needs == NULL ? t->tokens_per_second_per_gpu : NAN);
  /* null, not 0, without the training tokens (or utilisation) they need */
  headroom_cli_json_double (builder, "total_seconds", r->run_needs == NULL ? t->total_seconds : NAN);
  headroom_cli_json_double (builder, "gpu_hours", r->run_needs == NULL ? t->gpu_hours : NAN);
  headroom_cli_json_double (builder, "cost", r->run_needs == NULL ? t->cost : NAN);
  /* and where the board power is unpublished (TPUs) */
  headroom_cli_json_double (builder, "energy_kwh",
                            r->power_known && r->run_needs == NULL ? t->energy_kwh : NAN);
  headroom_cli_json_double (builder, "mfu", r->step_needs == NULL ? t->mfu : NAN);
  /* Only when bytes cross the host link, so that other outputs stay as they were. */
  if (t->host_bytes > 0)
    {
      headroom_cli_json_bytes (builder, "host_bytes", t->host_bytes);
      headroom_cli_json_double (builder, "host_seconds", t->host_seconds);
    }
  /* The predicted step's parts, which add up to step_seconds. */
  if (r->step != NULL)
    {
      json_builder_set_member_name (builder, "split");
      json_builder_begin_object (builder);
      for (guint part = 0; part < HEADROOM_PLAN_N_PARTS; part++)
        headroom_cli_json_double (builder, headroom_plan_part_get_name (part),
                                  headroom_plan_row_get_part_seconds (r->step, part));
      json_builder_end_object (builder);
    }
  /* false: the times come from the utilisation set (--mfu), not the prediction */
  json_builder_set_member_name (builder, "predicted");
  json_builder_add_boolean_value (builder, t->predicted);
  /* Only when the times need a setting, so that other outputs stay as they were. */
  if (r->step_needs != NULL)
    {
      json_builder_set_member_name (builder, "needs");
      json_builder_add_string_value (builder, headroom_key_info_get_option (headroom_project_find_key (r->step_needs)));
      json_builder_set_member_name (builder, "basis");
      json_builder_add_string_value (builder, r->time_basis);
    }
  if (r->has_measured)
    {
      json_builder_set_member_name (builder, "measured");
      json_builder_begin_object (builder);
      headroom_cli_json_double (builder, "mfu", r->measured.mfu);
      headroom_cli_json_double (builder, "hfu", r->measured.hfu);
      headroom_cli_json_double (builder, "tokens_per_second", r->measured.tokens_per_second);
      headroom_cli_json_double (builder, "step_seconds", r->measured.step_seconds);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "limits");
  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "max_micro_batch", r->limits.max_micro_batch);
  headroom_cli_json_int (builder, "max_seq", r->limits.max_seq_len);
  headroom_cli_json_int (builder, "min_gpus", r->limits.min_gpus);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "fit_advice");
  json_builder_begin_array (builder);
  for (guint i = 0; r->fit_advice != NULL && i < g_list_model_get_n_items (r->fit_advice); i++)
    {
      g_autoptr(HeadroomFitAdvice) advice = g_list_model_get_item (r->fit_advice, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, headroom_fit_advice_get_key (advice));
      json_builder_set_member_name (builder, "value");
      json_builder_add_string_value (builder, headroom_fit_advice_get_value (advice));
      headroom_cli_json_int (builder, "memory", (gint64) headroom_fit_advice_get_memory (advice));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  headroom_cli_json_explanations (builder, r->explanations);
  json_builder_end_object (builder);

  headroom_cli_print_model_json (builder, project);
}

static void
print_train_table (const char       *name,
                   const HrTraining *training,
                   const TrainResult *r)
{
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (2);
  const HrTrainingMemory *m = &r->memory;
  const HrTrainingTime *t = &r->time;
  g_autofree char *params = headroom_cli_format_count (r->params.total);
  g_autofree char *mfu = headroom_cli_format_number (100 * t->mfu, 3);

  g_autofree char *gpus = headroom_cli_format_gpus (training->nodes * training->gpus_per_node);

  printf (_("%s (%s parameters) on %s: TP %" G_GINT64_FORMAT
            ", PP %" G_GINT64_FORMAT ", CP %" G_GINT64_FORMAT ", DP %" G_GINT64_FORMAT
            ", micro batch %" G_GINT64_FORMAT ", sequence %" G_GINT64_FORMAT "\n"),
          name, params, gpus, training->tensor_parallel,
          training->pipeline_parallel, training->context_parallel, m->data_parallel,
          training->micro_batch, training->seq_len);
  if (r->trainable_share != NULL)
    {
      g_autofree char *trainable = headroom_cli_format_count (m->trainable_params);

      /* TRANSLATORS: e.g. "Trainable: 3,407,872 parameters (0.04 %)" */
      printf (_("Trainable: %s parameters (%s)\n"), trainable, r->trainable_share);
    }
  if (training->pipeline_parallel > 1)
    /* TRANSLATORS: e.g. "… (pipeline stage 2 of 8)", counted from 1 */
    printf (_("\nMemory of the most loaded GPU (pipeline stage %" G_GINT64_FORMAT " of %"
              G_GINT64_FORMAT ")\n"), m->pipeline_stage + 1, training->pipeline_parallel);
  else
    printf ("\n%s\n", _("Memory of the most loaded GPU (first pipeline stage)"));
  /* The window's memory segments, which add up to the total; the host
   * memory of an offloaded optimizer is listed after it. */
  for (guint i = 0; i < g_list_model_get_n_items (r->segments); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (r->segments, i);

      if (g_str_has_prefix (headroom_quantity_get_name (q), "cpu_"))
        continue;
      headroom_cli_table_add_gib (table, headroom_quantity_get_label (q), headroom_quantity_get_value (q));
      if (g_strcmp0 (headroom_quantity_get_name (q), "activations") == 0)
        headroom_cli_table_add_gib (table, _("  of which one layer"), m->activations_per_layer);
    }
  headroom_cli_table_add_gib (table, _("Total"), m->total);
  headroom_cli_table_add_gib (table, _("Capacity"), m->capacity);
  if (m->fits)
    headroom_cli_table_add_gib (table, _("Headroom"), m->headroom);
  else if (m->pageable > 0)
    /* Paged states could leave for the host: what is over beyond them. */
    headroom_cli_table_add_gib (table, _("Overflow with the paged states out (does not fit)"),
                                m->overflow);
  else
    headroom_cli_table_add_gib (table, _("Overflow (does not fit)"), m->overflow);
  if (m->cpu_bytes > 0)
    headroom_cli_table_add_gib (table, _("Offloaded to CPU"), m->cpu_bytes);
  if (m->pageable > 0 && m->fits)
    headroom_cli_table_add_gib (table, _("Paged optimizer states"), m->pageable);
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  /* A run that does not fit cannot start: its figures say so, every one (issue 16). */
  printf ("\n%s\n", m->fits ? _("Time") : _("Time (does not fit: the figures of a run that cannot start)"));
  /* where the times come from, under the heading as the window says it */
  printf ("%s\n", r->time_basis);
  if (r->step_needs != NULL)
    headroom_cli_table_take (table, g_strdup (_("Step, throughput and MFU")),
                             dup_not_set (r->step_needs), NULL);
  else
    headroom_cli_table_take (table, g_strdup (_("Step")),
                             headroom_cli_mark_not_fit (headroom_cli_format_duration (t->step_seconds),
                                                        m->fits),
                             NULL);
  /* The predicted step's parts, as the window's bar splits it. */
  for (guint part = 0; r->step != NULL && part < HEADROOM_PLAN_N_PARTS; part++)
    {
      double seconds = headroom_plan_row_get_part_seconds (r->step, part);

      if (part != HEADROOM_PLAN_PART_COMPUTE && seconds <= 0)
        continue;
      headroom_cli_table_take (table, g_strdup_printf ("  %s", headroom_plan_part_get_label (part)),
                               headroom_cli_format_duration (seconds), NULL);
    }
  if (r->step == NULL && t->host_bytes > 0)
    headroom_cli_table_take (table, g_strdup (_("  of which on the host link")),
                             t->host_seconds > 0 ? headroom_cli_format_duration (t->host_seconds)
                                                 : g_strdup (_("none (hidden behind the passes)")),
                             NULL);
  if (r->step_needs == NULL)
    {
      headroom_cli_table_take (table, g_strdup (_("Tokens per second")),
                               headroom_cli_mark_not_fit (headroom_cli_format_count (t->tokens_per_second),
                                                          m->fits),
                               NULL);
      headroom_cli_table_take (table, g_strdup (_("  per GPU")),
                               headroom_cli_mark_not_fit (headroom_cli_format_count (t->tokens_per_second_per_gpu),
                                                          m->fits),
                               NULL);
      headroom_cli_table_take (table, g_strdup (_("MFU")),
                               headroom_cli_mark_not_fit (g_strdup_printf ("%s%%", mfu), m->fits), NULL);
    }
  if (r->has_measured)
    {
      g_autofree char *measured_mfu = headroom_cli_format_number (100 * r->measured.mfu, 3);
      g_autofree char *measured_hfu = headroom_cli_format_number (100 * r->measured.hfu, 3);

      headroom_cli_table_take (table, g_strdup (_("Measured MFU")),
                               g_strdup_printf ("%s%%", measured_mfu), NULL);
      headroom_cli_table_take (table, g_strdup (_("Measured HFU")),
                               g_strdup_printf ("%s%%", measured_hfu), NULL);
    }
  if (r->run_needs != NULL)
    headroom_cli_table_take (table, g_strdup (_("Time and cost")), dup_not_set (r->run_needs), NULL);
  else
    {
      headroom_cli_table_take (table, g_strdup (_("Training time")),
                               headroom_cli_mark_not_fit (headroom_cli_format_duration (t->total_seconds), m->fits),
                               NULL);
      headroom_cli_table_take (table, g_strdup (_("GPU-hours")),
                               headroom_cli_mark_not_fit (headroom_cli_format_count (t->gpu_hours), m->fits), NULL);
      headroom_cli_table_take (table, g_strdup (_("Cost (USD)")),
                               headroom_cli_mark_not_fit (headroom_cli_format_count (t->cost), m->fits), NULL);
      headroom_cli_table_take (table, g_strdup (_("Energy (kWh)")),
                               r->power_known ? headroom_cli_mark_not_fit (headroom_cli_format_count (t->energy_kwh),
                                                                           m->fits)
                                              : g_strdup (_("unknown (board power not published)")),
                               NULL);
    }
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Limits"));
  headroom_cli_table_take (table, g_strdup (_("Largest micro batch")),
                           headroom_cli_format_limit (r->limits.max_micro_batch), NULL);
  headroom_cli_table_take (table, g_strdup (_("Longest sequence")),
                           headroom_cli_format_length_limit (r->limits.max_seq_len, r->model_context), NULL);
  headroom_cli_table_take (table, g_strdup (_("Fewest GPUs at this layout")),
                           headroom_cli_format_limit (r->limits.min_gpus), NULL);
  headroom_cli_table_print (table);
  if (r->fit_advice != NULL)
    {
      guint n = g_list_model_get_n_items (r->fit_advice);

      if (n > 0)
        printf ("\n%s\n", _("To fit, any one of"));
      else
        /* TRANSLATORS: %s lists the changes tried: "a smaller micro-batch, recomputation, …" */
        printf (_("\nTo fit: no single change makes the run fit (%s alone); “headroom-cli plan” "
                  "searches layouts that combine them\n"), headroom_fit_advice_get_remedies ());
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(HeadroomFitAdvice) advice = g_list_model_get_item (r->fit_advice, i);
          g_autofree char *gib = headroom_cli_format_gib (headroom_fit_advice_get_memory (advice));
          g_autofree char *line = headroom_fit_advice_dup_text_with (advice, gib);

          printf ("  %s\n", line);
        }
    }
  headroom_cli_print_explanations (r->explanations);
}

/* Runs train on `project` (already holding the options). */
static int
run_train (HeadroomCliModel       *model,
           HeadroomCliKeyOptions  *options,
           HeadroomProject        *project,
           TrainArgs              *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) project_error = NULL;
  HrTraining training;
  TrainResult result = { 0 };

  if (!headroom_project_validate (project, &project_error))
    {
      set_project_error (&error, options, model, project_error);
      return headroom_cli_report_error (error);
    }
  if (!compute_training (project, options, model, args, &result, &error))
    {
      train_result_clear (&result);
      return headroom_cli_report_error (error);
    }

  headroom_project_get_training (project, &training);
  if (args->json)
    print_train_json (project, &result);
  else
    {
      print_train_table (model->name, &training, &result);
      headroom_cli_print_assumed (project);
    }
  train_result_clear (&result);

  return HEADROOM_CLI_EXIT_OK;
}

int
headroom_cli_train (int    argc,
                    char **argv)
{
  g_auto(TrainArgs) args = { 0 };
  g_autoptr(GOptionContext) context = g_option_context_new (_("[MODEL]"));
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  g_autoptr(HeadroomCliKeyOptions) options = NULL;
  g_autoptr(HeadroomProject) project = NULL;

  g_option_context_set_summary (context, _("Estimate the memory per GPU, time and cost of a training run."));
  options = add_entries (context, &args, FALSE);
  if (!headroom_cli_parse_model_options (context, &argc, &argv, &args.model, &error)
      || !headroom_cli_resolve_model (args.model, options, &model, &error)
      || (project = make_project (&model, options, &args, &error)) == NULL)
    return headroom_cli_report_error (error);

  return run_train (&model, options, project, &args);
}

int
headroom_cli_report_training (HeadroomCliModel *model,
                              gboolean          json,
                              gboolean          explain)
{
  TrainArgs args = { .json = json, .explain = explain };
  g_autoptr(GOptionContext) context = g_option_context_new ("");
  g_autoptr(HeadroomCliKeyOptions) options = headroom_cli_key_options_new (context, "training");

  return run_train (model, options, model->project, &args);
}

/* The layout fields of plan's output, in order. */
static const char * const layout_keys[] = {
  "tp", "pp", "vpp", "dp", "cp", "ep", "zero", "fsdp", "sequence_parallel", "micro_batch",
  "recompute", "memory_total", "step_seconds", "mfu", "tokens_per_second", "tokens_per_second_per_gpu",
  "bound", NULL
};

static void
json_layout (JsonBuilder        *builder,
             const HrPlanLayout *layout)
{
  const HrTraining *t = &layout->training;

  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "tp", t->tensor_parallel);
  headroom_cli_json_int (builder, "pp", t->pipeline_parallel);
  headroom_cli_json_int (builder, "vpp", t->virtual_stages);
  headroom_cli_json_int (builder, "dp", layout->data_parallel);
  headroom_cli_json_int (builder, "cp", t->context_parallel);
  headroom_cli_json_int (builder, "ep", t->expert_parallel);
  headroom_cli_json_int (builder, "zero", t->fsdp == HR_FSDP_NONE ? t->zero_stage : 0);
  headroom_cli_json_string (builder, "fsdp", headroom_cli_choice_name ("training.fsdp", t->fsdp));
  headroom_cli_json_bool (builder, "sequence_parallel", t->sequence_parallel);
  headroom_cli_json_int (builder, "micro_batch", t->micro_batch);
  headroom_cli_json_string (builder, "recompute",
                            headroom_cli_choice_name ("training.recompute", t->recompute));
  headroom_cli_json_bytes (builder, "memory_total", layout->memory_total);
  headroom_cli_json_double (builder, "step_seconds", layout->step.step_seconds);
  headroom_cli_json_double (builder, "mfu", layout->step.mfu);
  headroom_cli_json_double (builder, "tokens_per_second", layout->step.tokens_per_second);
  headroom_cli_json_double (builder, "tokens_per_second_per_gpu", layout->step.tokens_per_second_per_gpu);
  headroom_cli_json_string (builder, "bound", hr_plan_bound_name (layout->step.bound));
  json_builder_end_object (builder);
}

static char *
csv_number (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_dtostr (buf, sizeof buf, value));
}

/* One CSV row; no field needs quoting (numbers and fixed words). */
static void
print_layout_csv (const HrPlanLayout *layout)
{
  const HrTraining *t = &layout->training;
  g_autofree char *step = csv_number (layout->step.step_seconds);
  g_autofree char *mfu = csv_number (layout->step.mfu);
  g_autofree char *tokens = csv_number (layout->step.tokens_per_second);
  g_autofree char *per_gpu = csv_number (layout->step.tokens_per_second_per_gpu);

  printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
          ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%d,%s,%s,%" G_GINT64_FORMAT ",%s,%.0f,%s,%s,%s,%s,%s\r\n",
          t->tensor_parallel, t->pipeline_parallel, t->virtual_stages, layout->data_parallel,
          t->context_parallel, t->expert_parallel,
          t->fsdp == HR_FSDP_NONE ? t->zero_stage : 0,
          headroom_cli_choice_name ("training.fsdp", t->fsdp),
          t->sequence_parallel ? "true" : "false", t->micro_batch,
          headroom_cli_choice_name ("training.recompute", t->recompute), layout->memory_total,
          step, mfu, tokens, per_gpu,
          hr_plan_bound_name (layout->step.bound));
}

/* The rows of plan's table; `throughput` adds a tokens per second column. */
static void
print_layouts_table (const HrPlanLayout *layouts,
                     size_t              n_layouts,
                     gboolean            throughput)
{
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (throughput ? 17 : 16);

  headroom_cli_table_add (table, "#", "TP", "PP", "VPP", "DP", "CP", "EP", "ZeRO", "FSDP", "SP",
                          _("Micro"), _("Recompute"), _("Memory"), _("Step"), "MFU",
                          _("Bound"), throughput ? _("Tokens/s") : NULL, NULL);
  for (size_t i = 0; i < n_layouts; i++)
    {
      const HrPlanLayout *l = &layouts[i];
      const HrTraining *t = &l->training;
      g_autofree char *mfu = headroom_cli_format_number (100 * l->step.mfu, 3);

      headroom_cli_table_take (table,
                               g_strdup_printf ("%zu", i + 1),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->tensor_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->pipeline_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->virtual_stages),
                               g_strdup_printf ("%" G_GINT64_FORMAT, l->data_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->context_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->expert_parallel),
                               g_strdup_printf ("%d", t->fsdp == HR_FSDP_NONE ? t->zero_stage : 0),
                               g_strdup (headroom_cli_choice_name ("training.fsdp", t->fsdp)),
                               g_strdup (t->sequence_parallel ? _("yes") : _("no")),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->micro_batch),
                               g_strdup (headroom_cli_choice_name ("training.recompute", t->recompute)),
                               headroom_cli_format_gib (l->memory_total),
                               headroom_cli_format_duration (l->step.step_seconds),
                               g_strdup_printf ("%s%%", mfu),
                               g_strdup (hr_plan_bound_name (l->step.bound)),
                               throughput ? headroom_cli_format_count (l->step.tokens_per_second)
                                          : NULL,
                               NULL);
    }
  headroom_cli_table_print (table);
}

static gboolean
same_layout (const HrPlanLayout *a,
             const HrPlanLayout *b)
{
  const HrTraining *s = &a->training;
  const HrTraining *t = &b->training;

  return s->tensor_parallel == t->tensor_parallel && s->pipeline_parallel == t->pipeline_parallel
         && s->virtual_stages == t->virtual_stages && a->data_parallel == b->data_parallel
         && s->context_parallel == t->context_parallel && s->expert_parallel == t->expert_parallel
         && s->zero_stage == t->zero_stage && s->fsdp == t->fsdp
         && s->sequence_parallel == t->sequence_parallel && s->micro_batch == t->micro_batch
         && s->recompute == t->recompute;
}

/* Whether every Pareto layout is already among the ranked ones. */
static gboolean
pareto_in_best (const HrPlanLayout *best,
                const HrPlanLayout *pareto,
                const HrPlanResult *result)
{
  for (size_t i = 0; i < result->n_pareto; i++)
    {
      gboolean found = FALSE;

      for (size_t j = 0; j < result->n_best && !found; j++)
        found = same_layout (&pareto[i], &best[j]);
      if (!found)
        return FALSE;
    }

  return result->n_pareto == result->n_best;
}

static void
print_plan_table (HeadroomProject     *project,
                  const char          *name,
                  const HrPlanRequest *request,
                  const HrPlanLayout  *layouts,
                  const HrPlanLayout  *pareto,
                  const HrPlanResult  *result,
                  double               seconds,
                  const char          *scope,
                  const char          *nothing_fits)
{
  g_autofree char *ms = headroom_cli_format_number (seconds * 1e3, 3);
  g_autofree char *gpus = headroom_cli_format_gpus (hr_training_gpus (&request->training));
  g_autofree char *band = headroom_dup_prediction_band (project);

  printf (_("%s on %s (%" G_GINT64_FORMAT " per node), global batch %"
            G_GINT64_FORMAT ", sequence %" G_GINT64_FORMAT "\n"),
          name, gpus, request->training.gpus_per_node,
          request->training.global_batch, request->training.seq_len);
  printf (_("%" G_GINT64_FORMAT " layouts searched, %" G_GINT64_FORMAT " fit, in %s ms\n"),
          result->searched, result->fitting, ms);
  /* Where nothing fits, the planner's reason says it. */
  if (scope != NULL && result->n_best > 0)
    printf ("%s (--framework)\n", scope);
  /* TRANSLATORS: %s is "published runs of … reached between 52 and 126 % of such predictions" */
  printf (_("Step times predicted from the hardware: %s\n\n"), band);

  if (result->n_best == 0)
    {
      printf ("%s\n", nothing_fits);
      return;
    }

  print_layouts_table (layouts, result->n_best, FALSE);

  if (pareto_in_best (layouts, pareto, result))
    return;
  printf ("\n%s\n", _("Pareto front (memory vs throughput)"));
  print_layouts_table (pareto, result->n_pareto, TRUE);
  if (result->pareto_truncated)
    printf (_("(the first %zu points of a longer front)\n"), result->n_pareto);
}

/* Points of the memory/throughput front plan keeps (more are noted as cut). */
#define PARETO_SIZE 256


/* An option given pins the planner's dimension to the project's value. */
/* The keys plan searches unless an option pins them. */
static const char * const layout_keys_pinnable[] = {
  "training.tensor_parallel", "training.pipeline_parallel", "training.virtual_stages",
  "training.context_parallel", "training.expert_parallel", "training.micro_batch",
  "training.zero_stage", "training.fsdp", "training.recompute", "training.sequence_parallel",
  NULL
};

static gboolean
pinned (HeadroomCliKeyOptions *options,
        const char            *key)
{
  return headroom_cli_key_options_get (options, key) != NULL;
}

int
headroom_cli_plan (int    argc,
                   char **argv)
{
  g_auto(TrainArgs) args = { 0 };
  g_autoptr(GOptionContext) context = g_option_context_new (_("[MODEL]"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) project_error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  g_autoptr(HeadroomCliKeyOptions) options = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autofree HrPlanLayout *layouts = NULL;
  g_autofree char *nothing_fits = NULL;
  g_autofree char *scope = NULL;
  g_autofree HrPlanLayout *pareto = g_new0 (HrPlanLayout, PARETO_SIZE);
  HrPlanRequest request;
  HrPlanResult result = { 0 };
  HrGpu gpu;
  HrModel hr_model;
  gint64 top = 10;
  gint64 started;
  double seconds;

  g_option_context_set_summary (context, _("Search the parallel layouts of a training run and rank those that fit."));
  options = add_entries (context, &args, TRUE);
  headroom_cli_key_options_set_searched (options, layout_keys_pinnable);
  if (!headroom_cli_parse_model_options (context, &argc, &argv, &args.model, &error)
      || !headroom_cli_resolve_model (args.model, options, &model, &error))
    return headroom_cli_report_error (error);

  if (args.gpus == NULL && model.project == NULL && !pinned (options, "hardware.nodes"))
    {
      g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--gpus: missing (the number of GPUs to plan for)"));
      return headroom_cli_report_error (error);
    }
  if (args.json && args.csv)
    {
      g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--csv: give either --json or --csv"));
      return headroom_cli_report_error (error);
    }
  if (!headroom_cli_parse_optional_int ("--top", args.top, 1, &top, &error)
      || (project = make_project (&model, options, &args, &error)) == NULL)
    return headroom_cli_report_error (error);
  if (!headroom_project_get_model (project, &hr_model, &project_error)
      || !headroom_project_get_gpu (project, &gpu, &project_error))
    {
      set_project_error (&error, options, &model, project_error);
      return headroom_cli_report_error (error);
    }

  /* The window's planner, with the layout options given pinned. */
  {
    g_autoptr(GPtrArray) pins = g_ptr_array_new ();
    g_autoptr(HeadroomPlanner) planner = NULL;
    GListModel *best_rows, *pareto_rows;

    for (gsize i = 0; layout_keys_pinnable[i] != NULL; i++)
      if (pinned (options, layout_keys_pinnable[i]))
        g_ptr_array_add (pins, (gpointer) layout_keys_pinnable[i]);
    g_ptr_array_add (pins, NULL);

    if (top > 1000)
      top = 1000;
    planner = headroom_planner_new (project);
    headroom_planner_set_search (planner, (guint) top, PARETO_SIZE,
                                 (const char * const *) pins->pdata);
    started = g_get_monotonic_time ();
    headroom_planner_refresh (planner);
    seconds = (g_get_monotonic_time () - started) / 1e6;
    if (headroom_planner_get_status (planner) != HEADROOM_PLANNER_STATUS_LAYOUTS
        && headroom_planner_get_status (planner) != HEADROOM_PLANNER_STATUS_NOTHING_FITS)
      {
        const GError *refusal = headroom_planner_get_error (planner);

        if (refusal != NULL)
          headroom_cli_set_key_error (&error, refusal);
        else
          g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                               headroom_planner_get_message (planner));
        return headroom_cli_report_error (error);
      }

    /* Why nothing fits, in the window's words. */
    if (headroom_planner_get_status (planner) == HEADROOM_PLANNER_STATUS_NOTHING_FITS)
      nothing_fits = g_strdup (headroom_planner_get_message (planner));
    scope = headroom_planner_dup_scope (planner);
    best_rows = headroom_planner_get_layouts (planner);
    pareto_rows = headroom_planner_get_pareto (planner);
    result.n_best = g_list_model_get_n_items (best_rows);
    result.n_pareto = g_list_model_get_n_items (pareto_rows);
    result.searched = headroom_planner_get_searched (planner);
    result.fitting = headroom_planner_get_fitting (planner);
    result.pareto_truncated = headroom_planner_get_pareto_truncated (planner);
    layouts = g_new0 (HrPlanLayout, MAX (result.n_best, 1));
    for (guint i = 0; i < result.n_best; i++)
      {
        g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (best_rows, i);

        layouts[i] = *headroom_plan_row_get_layout (row);
      }
    for (guint i = 0; i < result.n_pareto && i < PARETO_SIZE; i++)
      {
        g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (pareto_rows, i);

        pareto[i] = *headroom_plan_row_get_layout (row);
      }
    memset (&request, 0, sizeof request);
    headroom_project_get_training (project, &request.training);
    request.training.global_batch = headroom_planner_get_global_batch (planner);
  }

  if (args.json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "layouts");
      json_builder_begin_array (builder);
      for (size_t i = 0; i < result.n_best; i++)
        json_layout (builder, &layouts[i]);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "pareto");
      json_builder_begin_array (builder);
      for (size_t i = 0; i < result.n_pareto; i++)
        json_layout (builder, &pareto[i]);
      json_builder_end_array (builder);
      headroom_cli_json_int (builder, "searched", result.searched);
      headroom_cli_json_int (builder, "fitting", result.fitting);
      headroom_cli_json_double (builder, "seconds", seconds);
      json_builder_end_object (builder);
      headroom_cli_print_model_json (builder, project);
    }
  else if (args.csv)
    {
      g_autofree char *header = g_strjoinv (",", (char **) layout_keys);

      printf ("%s\r\n", header);
      for (size_t i = 0; i < result.n_best; i++)
        print_layout_csv (&layouts[i]);
    }
  else
    {
      print_plan_table (project, model.name, &request, layouts, pareto, &result, seconds,
                        scope, nothing_fits);
      headroom_cli_print_assumed (project);
    }

  return HEADROOM_CLI_EXIT_OK;
}
