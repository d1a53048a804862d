/* headroom-cli-compare.c: the compare command
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "compare PROJECT" compares the project's scenarios; "compare A B …" the
 * projects or config.json files given, each a column. The options of the
 * workload's section and of hardware.* (the key table's, as train and infer
 * have them) are set on every column. The figures are HeadroomComparison's:
 * each column's own HeadroomEstimator, as in the window's Compare view.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"
#include "headroom-comparison.h"
#include "headroom-report.h"
#include "headroom-scenario.h"

/* Labels in a table's "Settings that differ" cell. */
#define TABLE_DIFFERENCES 4

typedef struct
{
  char     *workload;
  char     *baseline;
  char     *csv_target;
  gboolean  json;
} CompareArgs;

static void
compare_args_clear (CompareArgs *args)
{
  g_clear_pointer (&args->workload, g_free);
  g_clear_pointer (&args->baseline, g_free);
  g_clear_pointer (&args->csv_target, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CompareArgs, compare_args_clear)

/* The section whose options the command takes, before parsing them (train
 * and infer share option names: --tp): --workload's, else the workload of
 * the first project given (of its first scenario when it has some). */
static const char *
guess_section (int    argc,
               char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--workload") && i + 1 < argc)
        return g_str_equal (argv[i + 1], "inference") ? "inference" : "training";
      if (g_str_has_prefix (argv[i], "--workload="))
        return g_str_equal (argv[i] + strlen ("--workload="), "inference") ? "inference" : "training";
    }
  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GFile) file = NULL;
      g_autoptr(HeadroomProject) project = NULL;
      GListModel *scenarios;

      if (argv[i][0] == '-' || !g_file_test (argv[i], G_FILE_TEST_IS_REGULAR))
        continue;
      file = g_file_new_for_commandline_arg (argv[i]);
      project = headroom_project_new_from_file (file, NULL);
      if (project == NULL)
        continue;
      scenarios = headroom_project_get_scenarios (project);
      if (g_list_model_get_n_items (scenarios) > 0)
        {
          g_autoptr(HeadroomScenario) first = g_list_model_get_item (scenarios, 0);

          project = g_object_ref (headroom_scenario_get_settings (first));
        }
      return headroom_project_get_workload (project) == HEADROOM_WORKLOAD_INFERENCE
             ? "inference" : "training";
    }
  return "training";
}

/* The options and --workload set on a column's settings. */
static gboolean
apply_options (HeadroomProject        *project,
               HeadroomCliKeyOptions  *options,
               CompareArgs            *args,
               GError                **error)
{
  g_autoptr(GError) local_error = NULL;

  if (args->workload != NULL
      && !headroom_project_set_from_string (project, "workload", args->workload, &local_error))
    {
      headroom_cli_set_key_error (error, local_error);
      return FALSE;
    }
  return headroom_cli_key_options_set (options, project, error);
}

/* An option that no column uses would change nothing: refused, as the
 * other commands refuse it for their one project. */
static gboolean
check_options_apply (HeadroomComparison     *comparison,
                     HeadroomCliKeyOptions  *options,
                     GError                **error)
{
  guint n = headroom_comparison_get_n_columns (comparison);
  g_autofree HeadroomProject **projects = g_new (HeadroomProject *, MAX (n, 1));

  for (guint c = 0; c < n; c++)
    projects[c] = headroom_comparison_get_project (comparison, c);
  return headroom_cli_key_options_check_applies (options, projects, n, error);
}

/* The columns: PROJECT's scenarios, or one per file. */
static gboolean
fill (HeadroomComparison     *comparison,
      int                     argc,
      char                  **argv,
      HeadroomCliKeyOptions  *options,
      CompareArgs            *args,
      GError                **error)
{
  if (argc < 2)
    {
      g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("PROJECT: missing (a project with scenarios, or two files or more)"));
      return FALSE;
    }

  for (int i = 1; i < argc; i++)
    {
      g_auto(HeadroomCliModel) model = { 0 };
      g_autoptr(HeadroomProject) project = NULL;
      GListModel *scenarios;

      if (!g_file_test (argv[i], G_FILE_TEST_EXISTS))
        {
          g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                       _("%s: no such file"), argv[i]);
          return FALSE;
        }
      if (!headroom_cli_resolve_model (argv[i], options, &model, error))
        return FALSE;
      project = headroom_cli_model_dup_project (&model);
      scenarios = headroom_project_get_scenarios (project);

      if (argc == 2)
        {
          if (g_list_model_get_n_items (scenarios) == 0)
            {
              g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("%s: no scenarios to compare (keep some in the window, "
                             "or give two files or more)"), argv[i]);
              return FALSE;
            }
          for (guint s = 0; s < g_list_model_get_n_items (scenarios); s++)
            {
              g_autoptr(HeadroomScenario) scenario = g_list_model_get_item (scenarios, s);
              g_autoptr(HeadroomProject) settings = headroom_project_new ();

              headroom_project_copy_settings (settings, headroom_scenario_get_settings (scenario));
              if (!apply_options (settings, options, args, error))
                return FALSE;
              headroom_comparison_add (comparison, headroom_scenario_get_name (scenario), settings);
            }
          return TRUE;
        }

      if (!apply_options (project, options, args, error))
        return FALSE;
      headroom_comparison_add (comparison, model.name, project);
    }
  return TRUE;
}

/* A column the estimator refused: one line naming the column and the option. */
static gboolean
check_columns (HeadroomComparison  *comparison,
               GError             **error)
{
  for (guint c = 0; c < headroom_comparison_get_n_columns (comparison); c++)
    {
      g_autoptr(HeadroomEstimator) estimator = NULL;

      if (headroom_comparison_get_error (comparison, c) == NULL)
        continue;
      estimator = headroom_estimator_new (headroom_comparison_get_project (comparison, c));
      headroom_estimator_recompute_now (estimator);
      headroom_cli_set_key_error (error, headroom_estimator_get_error_detail (estimator));
      g_prefix_error (error, "%s: ", headroom_comparison_get_name (comparison, c));
      return FALSE;
    }
  return TRUE;
}

/* A figure as the other commands print it, in the C locale. */
static char *
format_value (HeadroomComparison *comparison,
              guint               figure,
              guint               column)
{
  const char *unit = headroom_comparison_get_figure_unit (comparison, figure);
  g_autofree char *number = NULL;
  double value;

  if (!headroom_comparison_get_value (comparison, figure, column, &value))
    return g_strdup ("-");
  if (g_str_equal (unit, "boolean"))
    return g_strdup (value > 0 ? _("yes") : _("no"));
  if (g_str_equal (unit, "bytes"))
    return headroom_cli_format_gib (value);
  if (g_str_equal (unit, "s"))
    return headroom_cli_format_duration (value);
  if (g_str_equal (unit, "ratio"))
    {
      number = headroom_cli_format_number (100 * value, 3);
      return g_strdup_printf ("%s%%", number);
    }
  if (g_str_equal (unit, "USD"))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      if (value < 100)
        return g_strdup_printf ("$%s", g_ascii_formatd (buf, sizeof buf, "%.2f", value));
      number = headroom_cli_format_count (value);
      return g_strdup_printf ("$%s", number);
    }
  number = headroom_cli_format_count (value);
  if (g_str_equal (unit, "parameters") || g_str_equal (unit, "GPUs"))
    return g_steal_pointer (&number);
  /* Small amounts (kWh per million tokens) keep three digits. */
  if (value < 100)
    {
      g_free (number);
      number = headroom_cli_format_number (value, 3);
    }
  return g_strdup_printf ("%s %s", number, unit);
}

/* "-27%", "+4.2%", "x3.1", "/2356" (ASCII, C locale); NULL for the
 * baseline and where there is no ratio. */
static char *
format_change (HeadroomComparison *comparison,
               guint               figure,
               guint               column)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double ratio, percent;

  if (column == headroom_comparison_get_baseline (comparison)
      || !headroom_comparison_get_ratio (comparison, figure, column, &ratio))
    return NULL;
  if (ratio >= 2)
    return g_strdup_printf ("x%s", g_ascii_formatd (buf, sizeof buf, "%.2g", ratio));
  if (ratio < 0.1)
    {
      g_autofree char *times = 1 / ratio >= 100 ? headroom_cli_format_count (1 / ratio)
                               : g_strdup (g_ascii_formatd (buf, sizeof buf, "%.2g", 1 / ratio));

      return g_strdup_printf ("/%s", times);
    }
  percent = 100 * (ratio - 1);
  if (fabs (percent) < 0.05)
    return headroom_comparison_get_figure_better (comparison, figure) == HEADROOM_BETTER_NEITHER
           ? NULL : g_strdup (_("same"));
  return g_strdup_printf ("%s%s%%", percent < 0 ? "-" : "+",
                          g_ascii_formatd (buf, sizeof buf, fabs (percent) < 10 ? "%.1f" : "%.0f",
                                           fabs (percent)));
}

static const char *
verdict_name (HeadroomVerdict verdict)
{
  switch (verdict)
    {
    case HEADROOM_VERDICT_SAME:
      return "same";
    case HEADROOM_VERDICT_BETTER:
      return "better";
    case HEADROOM_VERDICT_WORSE:
      return "worse";
    case HEADROOM_VERDICT_NONE:
    default:
      return NULL;
    }
}

static void
print_table (HeadroomComparison *comparison)
{
  guint n_columns = headroom_comparison_get_n_columns (comparison);
  guint baseline = headroom_comparison_get_baseline (comparison);
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (1 + n_columns);

  headroom_cli_table_take_cell (table, g_strdup (""));
  for (guint c = 0; c < n_columns; c++)
    headroom_cli_table_take_cell (table, c == baseline
                                  ? g_strdup_printf (_("%s (baseline)"),
                                                     headroom_comparison_get_name (comparison, c))
                                  : g_strdup (headroom_comparison_get_name (comparison, c)));

  for (guint f = 0; f < headroom_comparison_get_n_figures (comparison); f++)
    {
      headroom_cli_table_take_cell (table, g_strdup (headroom_comparison_get_figure_label (comparison, f)));
      for (guint c = 0; c < n_columns; c++)
        {
          g_autofree char *value = format_value (comparison, f, c);
          g_autofree char *change = format_change (comparison, f, c);
          const char *verdict = verdict_name (headroom_comparison_get_verdict (comparison, f, c));

          /* "30.10 GiB (-27%, better)" */
          if (change != NULL && verdict != NULL && !g_str_equal (verdict, "same"))
            headroom_cli_table_take_cell (table, g_strdup_printf ("%s (%s, %s)", value, change,
                                                                  _(verdict)));
          else if (change != NULL)
            headroom_cli_table_take_cell (table, g_strdup_printf ("%s (%s)", value, change));
          else
            headroom_cli_table_take_cell (table, g_steal_pointer (&value));
        }
    }

  /* At most TABLE_DIFFERENCES labels a cell, so that a model of its own
   * (eight config keys) does not widen the table; --json and --csv list all. */
  headroom_cli_table_take_cell (table, g_strdup (_("Settings that differ")));
  for (guint c = 0; c < n_columns; c++)
    {
      g_auto(GStrv) keys = headroom_comparison_dup_differences (comparison, c);
      GString *text = g_string_new (NULL);
      guint n = g_strv_length (keys);

      for (guint i = 0; i < MIN (n, TABLE_DIFFERENCES); i++)
        g_string_append_printf (text, "%s%s", i > 0 ? ", " : "",
                                headroom_comparison_difference_label (keys[i]));
      if (n > TABLE_DIFFERENCES)
        g_string_append (text, ", …");
      if (n == 0 && c != baseline)
        g_string_append (text, _("none"));
      headroom_cli_table_take_cell (table, g_string_free (text, FALSE));
    }
  headroom_cli_table_print (table);

  /* Columns whose model was read as an assumed architecture, one line each. */
  for (guint c = 0; c < n_columns; c++)
    {
      HeadroomProject *project = headroom_comparison_get_project (comparison, c);
      g_autofree char *note = headroom_project_dup_assumed_note (project);
      g_autofree char *text_only = headroom_project_dup_text_only_note (project);
      g_autofree char *unknown = headroom_project_dup_unknown_keys_note (project);

      if (note != NULL)
        printf ("\n%s: %s\n", headroom_comparison_get_name (comparison, c), note);
      if (text_only != NULL)
        printf ("\n%s: %s\n", headroom_comparison_get_name (comparison, c), text_only);
      if (unknown != NULL)
        printf ("\n%s: %s\n", headroom_comparison_get_name (comparison, c), unknown);
    }
}

static void
print_json (HeadroomComparison *comparison)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  guint n_columns = headroom_comparison_get_n_columns (comparison);
  guint n_figures = headroom_comparison_get_n_figures (comparison);

  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "baseline", headroom_comparison_get_baseline (comparison));
  json_builder_set_member_name (builder, "scenarios");
  json_builder_begin_array (builder);
  for (guint c = 0; c < n_columns; c++)
    {
      g_auto(GStrv) differences = headroom_comparison_dup_differences (comparison, c);

      const char *assumed = headroom_project_get_assumed_architecture (headroom_comparison_get_project (comparison, c));

      json_builder_begin_object (builder);
      headroom_cli_json_string (builder, "name", headroom_comparison_get_name (comparison, c));
      if (assumed != NULL)
        headroom_cli_json_string (builder, "assumed_architecture", assumed);
      if (headroom_project_get_text_only (headroom_comparison_get_project (comparison, c)))
        headroom_cli_json_bool (builder, "text_only", TRUE);
      {
        JsonNode *unknown = headroom_cli_unknown_keys_node (headroom_comparison_get_project (comparison, c));

        if (unknown != NULL)
          {
            json_builder_set_member_name (builder, "unknown_keys");
            json_builder_add_value (builder, unknown);
          }
      }
      headroom_cli_json_string (builder, "workload",
                                headroom_comparison_get_workload (comparison, c)
                                == HEADROOM_WORKLOAD_TRAINING ? "training" : "inference");

      json_builder_set_member_name (builder, "figures");
      json_builder_begin_object (builder);
      for (guint f = 0; f < n_figures; f++)
        {
          const char *name = headroom_comparison_get_figure_name (comparison, f);
          const char *unit = headroom_comparison_get_figure_unit (comparison, f);
          double value;

          if (!headroom_comparison_get_value (comparison, f, c, &value))
            continue;
          if (g_str_equal (unit, "boolean"))
            headroom_cli_json_bool (builder, name, value > 0);
          else if (g_str_equal (unit, "bytes") || g_str_equal (unit, "parameters")
                   || g_str_equal (unit, "GPUs") || g_str_equal (unit, "tokens"))
            headroom_cli_json_bytes (builder, name, value);
          else
            headroom_cli_json_double (builder, name, value);
        }
      json_builder_end_object (builder);

      /* column ÷ baseline, and which way that goes, per figure */
      json_builder_set_member_name (builder, "ratios");
      json_builder_begin_object (builder);
      for (guint f = 0; f < n_figures; f++)
        {
          double ratio;

          if (c != headroom_comparison_get_baseline (comparison)
              && headroom_comparison_get_ratio (comparison, f, c, &ratio))
            headroom_cli_json_double (builder, headroom_comparison_get_figure_name (comparison, f),
                                      ratio);
        }
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "verdicts");
      json_builder_begin_object (builder);
      for (guint f = 0; f < n_figures; f++)
        {
          const char *verdict = verdict_name (headroom_comparison_get_verdict (comparison, f, c));

          if (verdict != NULL)
            headroom_cli_json_string (builder, headroom_comparison_get_figure_name (comparison, f),
                                      verdict);
        }
      json_builder_end_object (builder);

      json_builder_set_member_name (builder, "differs");
      json_builder_begin_array (builder);
      for (guint i = 0; differences[i] != NULL; i++)
        json_builder_add_string_value (builder, differences[i]);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  headroom_cli_print_json (builder);
}

int
headroom_cli_compare (int    argc,
                      char **argv)
{
  g_auto(CompareArgs) args = { 0 };
  const GOptionEntry entries[] = {
    { "workload", 0, 0, G_OPTION_ARG_STRING, &args.workload,
      N_("Estimate every column as this workload"), "training|inference" },
    { "baseline", 0, 0, G_OPTION_ARG_STRING, &args.baseline,
      N_("The column the others are compared with (1 is the first)"), N_("N") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &args.json, N_("Print one JSON object"), NULL },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &args.csv_target,
      N_("Write the comparison as CSV to FILE (- for standard output)"), N_("FILE|-") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("PROJECT | FILE FILE…"));
  g_autoptr(HeadroomCliKeyOptions) options = NULL;
  g_autoptr(HeadroomComparison) comparison = headroom_comparison_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) save_error = NULL;
  g_autofree char *csv = NULL;
  const char *section = guess_section (argc, argv);
  gint64 baseline = 1;

  g_option_context_set_summary (context, _("Compare the figures of a project's scenarios, or of "
                                           "several projects or config.json files; the options "
                                           "are set on every one."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  options = headroom_cli_key_options_new (context, section);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_autoptr(GError) usage = g_error_new_literal (HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                                                      error->message);
      return headroom_cli_report_error (usage);
    }
  if (args.json && g_strcmp0 (args.csv_target, "-") == 0)
    {
      g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--csv: “-” and --json both want standard output"));
      return headroom_cli_report_error (error);
    }
  if (!headroom_cli_parse_optional_int ("--baseline", args.baseline, 1, &baseline, &error)
      || !fill (comparison, argc, argv, options, &args, &error)
      || !check_options_apply (comparison, options, &error)
      || !check_columns (comparison, &error))
    return headroom_cli_report_error (error);
  if (baseline > headroom_comparison_get_n_columns (comparison))
    {
      g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--baseline: %" G_GINT64_FORMAT " is past the last column (%u)"),
                   baseline, headroom_comparison_get_n_columns (comparison));
      return headroom_cli_report_error (error);
    }
  headroom_comparison_set_baseline (comparison, (guint) baseline - 1);

  if (args.csv_target != NULL)
    {
      csv = headroom_report_comparison_to_csv (comparison);
      if (g_str_equal (args.csv_target, "-"))
        {
          fputs (csv, stdout);
          return HEADROOM_CLI_EXIT_OK;
        }
      else
        {
          g_autoptr(GFile) file = g_file_new_for_commandline_arg (args.csv_target);

          if (!headroom_report_save (csv, file, &save_error))
            {
              g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_FAILED,
                           "--csv: %s", save_error->message);
              return headroom_cli_report_error (error);
            }
        }
    }
  if (args.json)
    print_json (comparison);
  else if (args.csv_target == NULL)
    print_table (comparison);
  return HEADROOM_CLI_EXIT_OK;
}
