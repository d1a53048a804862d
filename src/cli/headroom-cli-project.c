/* headroom-cli-project.c: the report and import commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"
#include "headroom-estimator.h"
#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-hub.h"
#include "headroom-report.h"

/* Exactly one positional argument, after the options. */
static gboolean
take_argument (int          argc,
               char       **argv,
               const char  *name,
               const char **out,
               GError     **error)
{
  if (argc < 2)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, _("%s: missing"), name);
      return FALSE;
    }
  if (argc > 2)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("unexpected argument “%s”"), argv[2]);
      return FALSE;
    }

  *out = argv[1];
  return TRUE;
}

/* The project's estimate as CSV, or the project's error with its key. */
static char *
project_csv (HeadroomProject  *project,
             GError          **error)
{
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);

  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error_detail (estimator) != NULL)
    {
      g_propagate_error (error, g_error_copy (headroom_estimator_get_error_detail (estimator)));
      return NULL;
    }
  return headroom_report_to_csv (estimator, error);
}

/* In the order of HeadroomSweep. */
static const char * const sweep_choices[] = { "micro-batch", "seq", "gpus", NULL };

/* The sweep's values: powers of two times --from up to --to, both by default
 * the ends of the service's default range (moved to the other when given
 * beyond it). */
static gint64 *
sweep_values (HeadroomProject  *project,
              HeadroomSweep     axis,
              const char       *from_text,
              const char       *to_text,
              guint            *n_values,
              GError          **error)
{
  g_autofree gint64 *defaults = NULL;
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint n_defaults;
  gint64 from, to;

  defaults = headroom_report_sweep_default_values (project, axis, &n_defaults);
  from = defaults[0];
  to = defaults[n_defaults - 1];
  if (!headroom_cli_parse_optional_int ("--from", from_text, 1, &from, error)
      || !headroom_cli_parse_optional_int ("--to", to_text, 1, &to, error))
    return NULL;
  if (from_text == NULL)
    from = MIN (from, to);
  if (to_text == NULL)
    to = MAX (to, from);
  if (to < from)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--to: %" G_GINT64_FORMAT " is below --from %" G_GINT64_FORMAT), to, from);
      return NULL;
    }

  for (gint64 value = from;; value *= 2)
    {
      g_array_append_val (values, value);
      if (value > to / 2)
        break;
    }

  *n_values = values->len;
  return (gint64 *) g_array_free (g_steal_pointer (&values), FALSE);
}

/* The sweep CSV of `axis` over the project, or an error naming the key. */
int
headroom_cli_report (int    argc,
                     char **argv)
{
  g_autofree char *csv_target = NULL;
  g_autofree char *sweep = NULL;
  g_autofree char *from = NULL;
  g_autofree char *to = NULL;
  gboolean json = FALSE;
  gboolean explain = FALSE;
  int axis = -1;
  const GOptionEntry entries[] = {
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_target,
      N_("Write the CSV report to FILE (- for standard output)"), N_("FILE|-") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { "explain", 0, 0, G_OPTION_ARG_NONE, &explain,
      N_("Explain each figure: its formula with these values, assumption and source"), NULL },
    { "sweep", 0, 0, G_OPTION_ARG_STRING, &sweep,
      N_("Instead, memory and step time against one setting, as CSV"), N_("micro-batch|seq|gpus") },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from, N_("First value of the sweep"), N_("N") },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to,
      N_("Last value of the sweep (the values double from --from)"), N_("N") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("PROJECT"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) project_error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  g_autofree char *csv = NULL;
  g_autofree gint64 *values = NULL;
  guint n_values = 0;
  const char *path;

  g_option_context_set_summary (context, _("Print the estimate of a project file, "
                                           "or a sweep of one of its settings."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!headroom_cli_parse_context (context, &argc, &argv, &error)
      || !take_argument (argc, argv, _("PROJECT"), &path, &error))
    return headroom_cli_report_error (error);

  if (!headroom_cli_parse_optional_choice ("--sweep", sweep, sweep_choices, &axis, &error))
    return headroom_cli_report_error (error);
  if (sweep == NULL && (from != NULL || to != NULL))
    {
      g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("%s: only with --sweep"), from != NULL ? "--from" : "--to");
      return headroom_cli_report_error (error);
    }
  if (sweep != NULL && json)
    {
      g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--sweep: writes CSV; leave out --json"));
      return headroom_cli_report_error (error);
    }

  if (json && g_strcmp0 (csv_target, "-") == 0)
    {
      g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--csv: “-” and --json both want standard output"));
      return headroom_cli_report_error (error);
    }

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("%s: no such file"), path);
      return headroom_cli_report_error (error);
    }
  if (!headroom_cli_resolve_model (path, NULL, &model, &error))
    return headroom_cli_report_error (error);
  if (model.project == NULL)
    {
      g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("%s: not a Headroom project (use “headroom-cli import” for a config.json)"),
                   path);
      return headroom_cli_report_error (error);
    }
  if (!headroom_project_validate (model.project, &project_error))
    {
      headroom_cli_set_file_error (&error, path, project_error);
      return headroom_cli_report_error (error);
    }

  if (sweep != NULL)
    {
      values = sweep_values (model.project, (HeadroomSweep) axis, from, to, &n_values, &error);
      if (values == NULL)
        return headroom_cli_report_error (error);
      csv = headroom_report_sweep_to_csv (model.project, (HeadroomSweep) axis, values, n_values,
                                          &project_error);
      if (csv == NULL)
        {
          headroom_cli_set_file_error (&error, path, project_error);
          return headroom_cli_report_error (error);
        }
      if (csv_target == NULL)
        csv_target = g_strdup ("-");
    }
  else if (csv_target != NULL)
    {
      csv = project_csv (model.project, &project_error);
      if (csv == NULL)
        {
          headroom_cli_set_file_error (&error, path, project_error);
          return headroom_cli_report_error (error);
        }
    }

  if (csv_target != NULL && g_strcmp0 (csv_target, "-") == 0)
    {
      fputs (csv, stdout);
      return HEADROOM_CLI_EXIT_OK;
    }

  if (csv_target != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (csv_target);
      g_autoptr(GError) save_error = NULL;

      if (!headroom_report_save (csv, file, &save_error))
        {
          g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_FAILED,
                       "--csv: %s", save_error->message);
          return headroom_cli_report_error (error);
        }
      if (!json)
        return HEADROOM_CLI_EXIT_OK;
    }

  if (headroom_project_get_workload (model.project) == HEADROOM_WORKLOAD_INFERENCE)
    return headroom_cli_report_inference (&model, json, explain);
  return headroom_cli_report_training (&model, json, explain);
}

/* The Hub's failures that come from the request itself are bad input; the
 * network's are not. */
static int
hub_error_code (const GError *error)
{
  if (error->domain == HEADROOM_HUB_ERROR
      && (error->code == HEADROOM_HUB_ERROR_NETWORK || error->code == HEADROOM_HUB_ERROR_HTTP
          || error->code == HEADROOM_HUB_ERROR_TOO_LARGE))
    return HEADROOM_CLI_ERROR_FAILED;
  return HEADROOM_CLI_ERROR_USAGE;
}

/* To `output`, atomically, or to standard output when it is NULL. */
static int
write_project (HeadroomProject *project,
               const char      *output)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GError) error = NULL;

  if (output == NULL)
    {
      g_autoptr(GBytes) saved = headroom_project_to_bytes (project);

      fwrite (g_bytes_get_data (saved, NULL), 1, g_bytes_get_size (saved), stdout);
      return HEADROOM_CLI_EXIT_OK;
    }

  file = g_file_new_for_commandline_arg (output);
  if (!headroom_project_save (project, file, NULL, &local_error))
    {
      g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_FAILED,
                   "-o: %s", local_error->message);
      return headroom_cli_report_error (error);
    }

  return HEADROOM_CLI_EXIT_OK;
}

int
headroom_cli_import (int    argc,
                     char **argv)
{
  g_autofree char *output = NULL;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("Write the project to PROJECT instead of standard output"), N_("PROJECT") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("hf:ORG/NAME|CONFIG.json"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(HeadroomCliKeyOptions) key_options = NULL;
  const char *source, *assume;

  g_option_context_set_summary (context, _("Create a project from a Hugging Face config.json, "
                                           "local or from the Hub ($HF_ENDPOINT, $HF_TOKEN)."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  key_options = headroom_cli_key_options_new (context, NULL);
  if (!headroom_cli_parse_context (context, &argc, &argv, &error)
      || !take_argument (argc, argv, _("CONFIG"), &source, &error)
      || !headroom_cli_key_options_check (key_options, "model.assume_architecture", &error))
    return headroom_cli_report_error (error);
  assume = headroom_cli_key_options_get (key_options, "model.assume_architecture");

  if (g_str_has_prefix (source, "hf:"))
    {
      g_autoptr(HeadroomHub) hub = headroom_hub_new ();

      project = headroom_hub_import (hub, source, assume, NULL, &local_error);
      if (project == NULL)
        {
          /* The Hub's messages name the model already. */
          if (g_error_matches (local_error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE))
            g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                         _("%s with --assume-architecture llama"), local_error->message);
          else
            g_set_error_literal (&error, HEADROOM_CLI_ERROR, hub_error_code (local_error),
                                 local_error->message);
          return headroom_cli_report_error (error);
        }
      return write_project (project, output);
    }

  file = g_file_new_for_commandline_arg (source);
  bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, &local_error);
  if (bytes == NULL)
    {
      g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   "%s: %s", source, local_error->message);
      return headroom_cli_report_error (error);
    }

  config = headroom_hf_config_parse_bytes (bytes, &local_error);
  /* The project keeps how it was read (model.assume_architecture). */
  if (config != NULL && assume != NULL)
    json_object_set_string_member (config, "assume_architecture", assume);
  if (config != NULL)
    project = headroom_project_new_from_config (config, &local_error);
  if (project == NULL)
    {
      headroom_cli_set_model_error (&error, source, local_error);
      return headroom_cli_report_error (error);
    }

  return write_project (project, output);
}
