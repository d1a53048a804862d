/* headroom-cli-model.c: the params, flops and gpus commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-catalog.h"
#include "headroom-cli.h"
#include "headroom-estimator.h"


static GOptionContext *
command_context (const char *usage,
                 const char *summary)
{
  GOptionContext *context = g_option_context_new (usage);

  g_option_context_set_summary (context, summary);
  return context;
}

static char *
share (gint64 part,
       gint64 total)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (total <= 0)
    return NULL;
  if (part > 0 && 100.0 * part / total < 0.01)
    return g_strdup ("<0.01%");
  return g_strdup_printf ("%s%%", g_ascii_formatd (buf, sizeof buf, "%.2f", 100.0 * part / total));
}

static void
print_params_table (const char     *name,
                    const HrParams *params)
{
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (3);
  g_autofree char *billions = headroom_cli_format_number (params->total / 1e9, 4);
  const struct { const char *label; gint64 value; } rows[] = {
    { _("Token embedding"), params->embedding },
    { _("Position embedding"), params->position_embedding },
    { _("Attention"), params->attention },
    { _("MLP (dense and experts)"), params->mlp },
    { _("Router"), params->router },
    { _("Norms"), params->norm },
    { _("LM head"), params->lm_head },
  };

  headroom_cli_table_add (table, _("Model"), name, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    headroom_cli_table_take (table, g_strdup (rows[i].label),
                             headroom_cli_format_count (rows[i].value),
                             share (rows[i].value, params->total), NULL);
  headroom_cli_table_take (table, g_strdup (_("Total")),
                           headroom_cli_format_count (params->total),
                           g_strdup_printf ("%s B", billions), NULL);
  headroom_cli_table_take (table, g_strdup (_("Active per token")),
                           headroom_cli_format_count (params->active),
                           share (params->active, params->total), NULL);
  headroom_cli_table_print (table);
}

int
headroom_cli_params (int    argc,
                     char **argv)
{
  g_autofree char *model_text = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_text,
      N_("Preset id, Hugging Face config.json or project file"), N_("MODEL") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = command_context (_("[MODEL]"), _("Count the parameters of a model."));
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  g_autoptr(HeadroomCliKeyOptions) key_options = NULL;
  HrParams params;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  key_options = headroom_cli_key_options_new (context, NULL);
  if (!headroom_cli_parse_model_options (context, &argc, &argv, &model_text, &error)
      || !headroom_cli_resolve_model (model_text, key_options, &model, &error))
    return headroom_cli_report_error (error);

  /* The counts the window shows, by its estimator; a model's counts do
   * not depend on the workload, which is set to the one least likely to
   * refuse an odd model (one GPU, the table's other defaults). */
  project = headroom_cli_model_dup_project (&model);
  estimator = headroom_estimator_new (project);
  headroom_estimator_recompute_now (estimator);
  if (!headroom_estimator_get_has_result (estimator))
    {
      const GError *detail = headroom_estimator_get_error_detail (estimator);

      if (detail != NULL)
        headroom_cli_set_file_error (&error, model.name, detail);
      else
        g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, "%s: %s", model.name,
                     headroom_estimator_get_error (estimator));
      return headroom_cli_report_error (error);
    }
  params = *headroom_estimator_get_params (estimator);

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;
      char structure[512];

      /* total and active, their breakdown, the structure read from the
       * config in one line, and the architecture assumed, if any. */
      headroom_cli_json_params (builder, &params);
      root = json_builder_get_root (builder);
      hr_model_describe (&model.model, structure, sizeof structure);
      json_object_set_string_member (json_node_get_object (root), "structure", structure);
      headroom_cli_print_model_json (builder, project);
    }
  else
    {
      print_params_table (model.name, &params);
      headroom_cli_print_assumed (project);
    }

  return HEADROOM_CLI_EXIT_OK;
}

static void
print_flops_table (const char           *name,
                   HeadroomProject      *project,
                   const HrFlopsOptions *options,
                   const HrFlops        *flops,
                   const HrParams       *params)
{
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (4);
  g_autofree char *heading = g_strdup_printf (_("%s, micro batch %" G_GINT64_FORMAT
                                                " × sequence %" G_GINT64_FORMAT
                                                " = %" G_GINT64_FORMAT " tokens"),
                                              name, options->micro_batch,
                                              options->seq_len, flops->tokens);

  printf ("%s\n", heading);
  printf (_("Attention %s, recompute %s, %s attention FLOPs\n"),
          headroom_project_get_string (project, "training.attention"),
          headroom_project_get_string (project, "training.recompute"),
          options->causal ? _("causal (half)") : _("full s×s"));
  printf ("\n");

  headroom_cli_table_add (table, _("Component"), _("Forward"), _("Backward"), _("Recompute"), NULL);
  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    {
      /* A dense model has no router: no row rather than a 0 FLOP one (the JSON keeps it). */
      if (c == HR_FLOPS_ROUTER && params->router == 0)
        continue;
      headroom_cli_table_take (table, g_strdup (hr_flops_component_name (c)),
                               headroom_cli_format_flops (flops->component[c].forward),
                               headroom_cli_format_flops (flops->component[c].backward),
                               headroom_cli_format_flops (flops->component[c].recompute),
                               NULL);
    }
  headroom_cli_table_take (table, g_strdup (_("Total")),
                           headroom_cli_format_flops (flops->forward),
                           headroom_cli_format_flops (flops->backward),
                           headroom_cli_format_flops (flops->recompute),
                           NULL);
  headroom_cli_table_print (table);
  printf ("\n");

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  headroom_cli_table_take (table, g_strdup (_("Step total")),
                           headroom_cli_format_flops (flops->total), NULL);
  headroom_cli_table_take (table, g_strdup (_("Per token")),
                           headroom_cli_format_flops (flops->per_token), NULL);
  headroom_cli_table_take (table, g_strdup (_("6·N per token")),
                           headroom_cli_format_flops (flops->six_n_per_token), NULL);
  headroom_cli_table_take (table, g_strdup (_("PaLM 6N + 12·L·H·Q·T per token")),
                           headroom_cli_format_flops (flops->palm_per_token), NULL);
  /* Hoffmann et al. 2022 (Chinchilla), Table 3: about 20 tokens per parameter. */
  headroom_cli_table_take (table, g_strdup (_("Chinchilla-optimal tokens (20 per parameter)")),
                           headroom_cli_format_count (20.0 * params->total), NULL);
  headroom_cli_table_take (table, g_strdup (_("Training FLOPs for those tokens")),
                           headroom_cli_format_flops (20.0 * params->total * flops->per_token), NULL);
  headroom_cli_table_print (table);
}

int
headroom_cli_flops (int    argc,
                    char **argv)
{
  g_autofree char *model_text = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_text,
      N_("Preset id, Hugging Face config.json or project file"), N_("MODEL") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    command_context (_("[MODEL]"), _("Count the FLOPs of one training step."));
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  g_autoptr(HeadroomCliKeyOptions) key_options = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  HrFlopsOptions options = { 0 };
  HrTraining training;

  /* The step of train: every training.* option, the key table's defaults. */
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  key_options = headroom_cli_key_options_new (context, "training");
  if (!headroom_cli_parse_model_options (context, &argc, &argv, &model_text, &error)
      || !headroom_cli_resolve_model (model_text, key_options, &model, &error))
    return headroom_cli_report_error (error);

  project = headroom_cli_model_dup_project (&model);
  /* One micro-batch step: the global batch does not change its FLOPs, so
   * one that the layout cannot split is no reason to refuse them. */
  if (!headroom_project_set_string (project, "workload", "training", &error)
      || !headroom_project_set_int (project, "training.global_batch", 0, &error)
      || !headroom_cli_key_options_apply (key_options, project, &error))
    return headroom_cli_report_error (error);

  /* The estimator the window uses: its FLOPs are the same step's. */
  estimator = headroom_estimator_new (project);
  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error_detail (estimator) != NULL)
    {
      const GError *detail = headroom_estimator_get_error_detail (estimator);
      const char *key = headroom_project_error_get_key (detail);

      if (key != NULL && headroom_cli_key_options_get (key_options, key) != NULL)
        headroom_cli_set_key_error (&error, detail);
      else
        headroom_cli_set_file_error (&error, model.name, detail);
      return headroom_cli_report_error (error);
    }

  headroom_project_get_training (project, &training);
  options.seq_len = training.seq_len;
  options.micro_batch = training.micro_batch;
  options.recompute_modules = training.recompute_modules;
  options.attention = training.attention;
  options.recompute = training.recompute;
  options.causal = training.causal;

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      headroom_cli_json_flops (builder, headroom_estimator_get_flops (estimator));
      headroom_cli_print_model_json (builder, project);
    }
  else
    {
      print_flops_table (model.name, project, &options, headroom_estimator_get_flops (estimator),
                         headroom_estimator_get_params (estimator));
      headroom_cli_print_assumed (project);
    }

  return HEADROOM_CLI_EXIT_OK;
}

static const char * const dtype_names[HR_DTYPE_N] = { "fp32", "tf32", "bf16", "fp16", "fp8", "int8" };

int
headroom_cli_gpus (int    argc,
                   char **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = command_context ("", _("List the GPUs of the catalog."));
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomCliTable) table = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  HeadroomCatalog *catalog;
  GListModel *gpus;
  guint n;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!headroom_cli_parse_options (context, &argc, &argv, &error))
    return headroom_cli_report_error (error);

  catalog = headroom_catalog_get_default ();
  if (headroom_catalog_get_load_error (catalog) != NULL)
    return headroom_cli_report_error (headroom_catalog_get_load_error (catalog));

  gpus = headroom_catalog_get_gpus (catalog);
  n = g_list_model_get_n_items (gpus);

  if (json)
    {
      builder = json_builder_new ();
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "gpus");
      json_builder_begin_array (builder);
    }
  else
    {
      table = headroom_cli_table_new (6);
      headroom_cli_table_set_align (table, "llrrrr");
      headroom_cli_table_add (table, _("Id"), _("Name"), _("Memory"), _("Bandwidth"),
                              _("bf16 dense"), _("Power"), NULL);
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomGpuInfo) info = g_list_model_get_item (gpus, i);
      const HrGpu *gpu = headroom_gpu_info_get_gpu (info);

      if (json)
        {
          json_builder_begin_object (builder);
          headroom_cli_json_string (builder, "id", headroom_gpu_info_get_id (info));
          headroom_cli_json_string (builder, "name", headroom_gpu_info_get_name (info));
          if (headroom_gpu_info_get_vendor (info) != NULL)
            headroom_cli_json_string (builder, "vendor", headroom_gpu_info_get_vendor (info));
          headroom_cli_json_bytes (builder, "memory_bytes", gpu->memory_bytes);
          headroom_cli_json_double (builder, "memory_bandwidth", gpu->memory_bandwidth);
          json_builder_set_member_name (builder, "peak_flops");
          json_builder_begin_object (builder);
          for (int d = 0; d < HR_DTYPE_N; d++)
            headroom_cli_json_double (builder, dtype_names[d], gpu->peak_flops[d]);
          json_builder_end_object (builder);
          headroom_cli_json_double (builder, "intra_node_bandwidth", gpu->intra_node_bandwidth);
          headroom_cli_json_double (builder, "inter_node_bandwidth", gpu->inter_node_bandwidth);
          headroom_cli_json_double (builder, "host_bandwidth", gpu->host_bandwidth);
          headroom_cli_json_double (builder, "power_watts", gpu->power_watts);
          headroom_cli_json_int (builder, "sm_count", (gint64) gpu->sm_count);
          headroom_cli_json_int (builder, "nvlink_nccl_channels", (gint64) gpu->nvlink_nccl_channels);
          if (headroom_gpu_info_get_source (info) != NULL)
            headroom_cli_json_string (builder, "source", headroom_gpu_info_get_source (info));
          headroom_cli_json_bool (builder, "user_defined", headroom_gpu_info_get_user_defined (info));
          json_builder_end_object (builder);
        }
      else
        {
          g_autofree char *bandwidth = headroom_cli_format_number (gpu->memory_bandwidth / 1e9, 4);
          g_autofree char *peak = headroom_cli_format_flops (gpu->peak_flops[HR_DTYPE_BF16]);

          headroom_cli_table_take (table,
                                   g_strdup (headroom_gpu_info_get_id (info)),
                                   g_strdup (headroom_gpu_info_get_name (info)),
                                   headroom_cli_format_gib (gpu->memory_bytes),
                                   g_strdup_printf ("%s GB/s", bandwidth),
                                   /* No figure for the dtype: a dash, not "0 FLOP/s" (issue 16). */
                                   gpu->peak_flops[HR_DTYPE_BF16] > 0 ? g_strdup_printf ("%s/s", peak)
                                                                      : g_strdup ("—"),
                                   gpu->power_watts > 0 ? g_strdup_printf ("%.0f W", gpu->power_watts)
                                                        : g_strdup (_("unknown")),
                                   NULL);
        }
    }

  if (json)
    {
      json_builder_end_array (builder);
      json_builder_end_object (builder);
      headroom_cli_print_json (builder);
    }
  else
    headroom_cli_table_print (table);

  return HEADROOM_CLI_EXIT_OK;
}

int
headroom_cli_models (int    argc,
                     char **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = command_context ("", _("List the model presets of the catalog."));
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomCliTable) table = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  HeadroomCatalog *catalog;
  GListModel *models;
  guint n;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!headroom_cli_parse_options (context, &argc, &argv, &error))
    return headroom_cli_report_error (error);

  catalog = headroom_catalog_get_default ();
  if (headroom_catalog_get_load_error (catalog) != NULL)
    return headroom_cli_report_error (headroom_catalog_get_load_error (catalog));

  models = headroom_catalog_get_models (catalog);
  n = g_list_model_get_n_items (models);

  if (json)
    {
      builder = json_builder_new ();
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "models");
      json_builder_begin_array (builder);
    }
  else
    {
      table = headroom_cli_table_new (3);
      headroom_cli_table_set_align (table, "lll");
      headroom_cli_table_add (table, _("Id"), _("Name"), _("Hugging Face id"), NULL);
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomModelPreset) preset = g_list_model_get_item (models, i);
      const char *hf_id = headroom_model_preset_get_hf_id (preset);

      if (json)
        {
          json_builder_begin_object (builder);
          headroom_cli_json_string (builder, "id", headroom_model_preset_get_id (preset));
          headroom_cli_json_string (builder, "name", headroom_model_preset_get_name (preset));
          if (hf_id != NULL)
            headroom_cli_json_string (builder, "hf_id", hf_id);
          if (headroom_model_preset_get_source (preset) != NULL)
            headroom_cli_json_string (builder, "source", headroom_model_preset_get_source (preset));
          headroom_cli_json_bool (builder, "user_defined", headroom_model_preset_get_user_defined (preset));
          json_builder_end_object (builder);
        }
      else
        headroom_cli_table_add (table, headroom_model_preset_get_id (preset),
                                headroom_model_preset_get_name (preset),
                                hf_id != NULL ? hf_id : "", NULL);
    }

  if (json)
    {
      json_builder_end_array (builder);
      json_builder_end_object (builder);
      headroom_cli_print_json (builder);
    }
  else
    headroom_cli_table_print (table);

  return HEADROOM_CLI_EXIT_OK;
}
