/* headroom-cli-model.c: the params, flops and gpus commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-catalog.h"
#include "headroom-cli.h"

static const char * const attention_choices[] = { "eager", "flash", NULL };
static const char * const recompute_choices[] = { "none", "selective", "full", NULL };

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
  g_autoptr(GOptionContext) context = command_context ("", _("Count the parameters of a model."));
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  HrParams params;
  HrError err = { 0 };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!headroom_cli_parse_options (context, &argc, &argv, &error)
      || !headroom_cli_resolve_model (model_text, &model, &error))
    return headroom_cli_report_error (error);

  if (hr_model_params (&model.model, &params, &err) != HR_OK)
    {
      headroom_cli_set_core_error (&error, &err);
      return headroom_cli_report_error (error);
    }

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;
      char structure[512];

      /* total and active, their breakdown, the structure read from the
       * config in one line, and the architecture assumed, if any. */
      headroom_cli_json_params (builder, &params);
      root = json_builder_get_root (builder);
      hr_model_describe (&model.model, structure, sizeof structure);
      json_object_set_string_member (json_node_get_object (root), "structure", structure);
      if (model.assumed != NULL)
        json_object_set_string_member (json_node_get_object (root), "assumed_architecture",
                                       model.assumed);
      json_generator_set_root (generator, root);
      json_generator_set_pretty (generator, TRUE);
      text = json_generator_to_data (generator, NULL);
      printf ("%s\n", text);
    }
  else
    {
      print_params_table (model.name, &params);
      if (model.assumed != NULL)
        printf (_("Architecture assumed: %s-style decoder (the model_type is unknown)\n"),
                model.assumed);
    }

  return HEADROOM_CLI_EXIT_OK;
}

static void
print_flops_table (const char           *name,
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
          attention_choices[options->attention], recompute_choices[options->recompute],
          options->causal ? _("causal (half)") : _("full s×s"));
  printf ("\n");

  headroom_cli_table_add (table, _("Component"), _("Forward"), _("Backward"), _("Recompute"), NULL);
  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    headroom_cli_table_take (table, g_strdup (hr_flops_component_name (c)),
                             headroom_cli_format_flops (flops->component[c].forward),
                             headroom_cli_format_flops (flops->component[c].backward),
                             headroom_cli_format_flops (flops->component[c].recompute),
                             NULL);
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
  g_autofree char *seq_text = NULL;
  g_autofree char *micro_batch_text = NULL;
  g_autofree char *attention_text = NULL;
  g_autofree char *recompute_text = NULL;
  gboolean causal = FALSE;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_text,
      N_("Preset id, Hugging Face config.json or project file"), N_("MODEL") },
    { "seq", 0, 0, G_OPTION_ARG_STRING, &seq_text, N_("Sequence length (default 2048)"), N_("N") },
    { "micro-batch", 0, 0, G_OPTION_ARG_STRING, &micro_batch_text,
      N_("Sequences per step (default 1)"), N_("B") },
    { "attention", 0, 0, G_OPTION_ARG_STRING, &attention_text,
      N_("Attention implementation: eager (default) or flash"), N_("eager|flash") },
    { "recompute", 0, 0, G_OPTION_ARG_STRING, &recompute_text,
      N_("Activation recomputation (default none)"), N_("none|selective|full") },
    { "causal", 0, 0, G_OPTION_ARG_NONE, &causal,
      N_("Count causal attention as half the s×s product"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    command_context ("", _("Count the FLOPs of one training step."));
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  HrFlopsOptions options = {
    .seq_len = 2048,
    .micro_batch = 1,
    .attention = HR_ATTENTION_EAGER,
    .recompute = HR_RECOMPUTE_NONE,
  };
  HrFlops flops;
  HrParams params;
  HrError err = { 0 };
  int choice;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!headroom_cli_parse_options (context, &argc, &argv, &error)
      || !headroom_cli_resolve_model (model_text, &model, &error))
    return headroom_cli_report_error (error);

  if (model.project != NULL)
    {
      options.seq_len = headroom_project_get_int (model.project, "training.seq_len");
      options.micro_batch = headroom_project_get_int (model.project, "training.micro_batch");
      headroom_cli_project_choice (model.project, "training.attention", attention_choices,
                                   (int *) &options.attention);
      headroom_cli_project_choice (model.project, "training.recompute", recompute_choices,
                                   (int *) &options.recompute);
    }

  if (seq_text != NULL
      && !headroom_cli_parse_int ("--seq", seq_text, 1, &options.seq_len, &error))
    return headroom_cli_report_error (error);
  if (micro_batch_text != NULL
      && !headroom_cli_parse_int ("--micro-batch", micro_batch_text, 1, &options.micro_batch, &error))
    return headroom_cli_report_error (error);
  if (attention_text != NULL)
    {
      if (!headroom_cli_parse_choice ("--attention", attention_text, attention_choices, &choice, &error))
        return headroom_cli_report_error (error);
      options.attention = choice;
    }
  if (recompute_text != NULL)
    {
      if (!headroom_cli_parse_choice ("--recompute", recompute_text, recompute_choices, &choice, &error))
        return headroom_cli_report_error (error);
      options.recompute = choice;
    }
  if (causal)
    options.causal = TRUE;

  if (hr_flops_training (&model.model, &options, &flops, &err) != HR_OK
      || hr_model_params (&model.model, &params, &err) != HR_OK)
    {
      headroom_cli_set_core_error (&error, &err);
      return headroom_cli_report_error (error);
    }

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      headroom_cli_json_flops (builder, &flops);
      headroom_cli_print_json (builder);
    }
  else
    print_flops_table (model.name, &options, &flops, &params);

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
          headroom_cli_json_double (builder, "power_watts", gpu->power_watts);
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
