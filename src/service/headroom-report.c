/* headroom-report.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-report"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "headroom-flops-row.h"
#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-quantity.h"
#include "headroom-report.h"
#include "headroom-sweeper.h"

/* Every row of the report has this many fields (RFC 4180 §2.4). */
#define REPORT_COLUMNS 8

typedef struct
{
  GString *out;
  guint    n_fields;
  guint    n_columns;  /* 0 = no padding */
} Csv;

/* A number as the report writes them ("-1", "2.5e+20"): left as it is. */
static gboolean
is_number (const char *text)
{
  char *end = NULL;

  if (*text == '\0' || g_ascii_isspace (*text))
    return FALSE;
  g_ascii_strtod (text, &end);
  return end != NULL && *end == '\0';
}

/* Text from configs, notes and names could be read as a formula by a
 * spreadsheet: a cell starting with = + - @, a tab or a carriage return
 * gets a leading ' and quotes (OWASP, "CSV Injection"); numbers stay
 * numbers. */
static void
csv_field (Csv        *csv,
           const char *text)
{
  gboolean formula;

  if (csv->n_fields++ > 0)
    g_string_append_c (csv->out, ',');
  if (text == NULL)
    return;
  formula = strchr ("=+-@\t\r", text[0]) != NULL && text[0] != '\0' && !is_number (text);
  if (!formula && strpbrk (text, ",\"\r\n") == NULL)
    {
      g_string_append (csv->out, text);
      return;
    }
  g_string_append_c (csv->out, '"');
  if (formula)
    g_string_append_c (csv->out, '\'');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (csv->out, '"');
      g_string_append_c (csv->out, *p);
    }
  g_string_append_c (csv->out, '"');
}

/* Shortest decimal that reads back as the same double, in the C locale. */
static void
csv_number (Csv    *csv,
            double  value)
{
  g_autofree char *text = NULL;

  if (!isfinite (value))
    {
      csv_field (csv, NULL);
      return;
    }
  text = headroom_format_exact_double (value);
  csv_field (csv, text);
}

/* Bytes and counts: whole numbers, no exponent. */
static void
csv_integer (Csv    *csv,
             double  value)
{
  char buf[64];

  if (!isfinite (value))
    {
      csv_field (csv, NULL);
      return;
    }
  g_ascii_formatd (buf, sizeof buf, "%.0f", round (value));
  csv_field (csv, buf);
}

static void
csv_end_row (Csv *csv)
{
  while (csv->n_fields < csv->n_columns)
    csv_field (csv, NULL);
  g_string_append (csv->out, "\r\n");
  csv->n_fields = 0;
}

static void
csv_header (Csv        *csv,
            const char *first,
            ...) G_GNUC_NULL_TERMINATED;

static void
csv_header (Csv        *csv,
            const char *first,
            ...)
{
  va_list args;

  va_start (args, first);
  for (const char *name = first; name != NULL; name = va_arg (args, const char *))
    csv_field (csv, name);
  va_end (args);
  csv_end_row (csv);
}

static void
write_inputs (Csv             *csv,
              HeadroomProject *project)
{
  g_autoptr(JsonObject) config = headroom_project_dup_effective_config (project);
  g_autoptr(GList) members = json_object_get_members (config);
  gboolean custom = g_strcmp0 (headroom_project_get_string (project, "hardware.gpu"), "custom") == 0;
  const HeadroomKeyInfo *keys;
  guint n_keys;

  csv_header (csv, "section", "key", "value", "unit", NULL);

  if (headroom_project_get_preset (project) != NULL)
    {
      csv_field (csv, "input");
      csv_field (csv, "model.preset");
      csv_field (csv, headroom_project_get_preset (project));
      csv_end_row (csv);
    }
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (config, l->data);
      g_autofree char *key = g_strconcat ("model.", (const char *) l->data, NULL);
      g_autofree char *value = NULL;

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        value = g_strdup (json_node_get_string (node));
      else
        value = json_to_string (node, FALSE);
      csv_field (csv, "input");
      csv_field (csv, key);
      csv_field (csv, value);
      csv_end_row (csv);
    }

  keys = headroom_project_get_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      g_autofree char *value = NULL;

      if (g_str_has_prefix (keys[i].key, "model."))
        continue;
      if (!custom && g_str_has_prefix (keys[i].key, "hardware.custom."))
        continue;
      value = headroom_project_dup_value_string (project, keys[i].key);
      csv_field (csv, "input");
      csv_field (csv, keys[i].key);
      csv_field (csv, value);
      csv_field (csv, keys[i].unit);
      csv_end_row (csv);
    }
}

/* A model read as an assumed architecture, or a vision-language model's
 * language model alone, says so before any figure. */
static void
write_assumed (Csv               *csv,
               HeadroomEstimator *estimator)
{
  const char *assumed = headroom_estimator_get_assumed_architecture (estimator);
  HeadroomProject *project = headroom_estimator_get_project (estimator);
  g_autofree char *label = NULL;

  if (assumed == NULL && !headroom_estimator_get_text_only (estimator))
    return;
  csv_header (csv, "section", "name", "label", "value", NULL);
  csv_field (csv, "model");
  if (assumed != NULL)
    {
      label = headroom_project_dup_assumed_note (project);
      csv_field (csv, "assumed_architecture");
      csv_field (csv, label);
      csv_field (csv, assumed);
    }
  else
    {
      label = headroom_project_dup_text_only_note (project);
      csv_field (csv, "text_only");
      csv_field (csv, label);
      csv_field (csv, "true");
    }
  csv_end_row (csv);
}

static void
write_params (Csv               *csv,
              HeadroomEstimator *estimator)
{
  GListModel *rows = headroom_estimator_get_params_rows (estimator);

  csv_header (csv, "section", "component", "label", "parameters", NULL);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (rows, i);

      csv_field (csv, "parameters");
      csv_field (csv, headroom_quantity_get_name (q));
      csv_field (csv, headroom_quantity_get_label (q));
      csv_integer (csv, headroom_quantity_get_value (q));
      csv_end_row (csv);
    }
}

static void
write_flops (Csv               *csv,
             HeadroomEstimator *estimator)
{
  GListModel *rows = headroom_estimator_get_flops_rows (estimator);
  const char *section = headroom_estimator_get_workload (estimator) == HEADROOM_WORKLOAD_TRAINING
                        ? "flops_per_micro_batch" : "flops_prefill";

  csv_header (csv, "section", "component", "label", "forward (FLOP)", "backward (FLOP)",
              "recompute (FLOP)", "total (FLOP)", "share (fraction)", NULL);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(HeadroomFlopsRow) row = g_list_model_get_item (rows, i);

      csv_field (csv, section);
      csv_field (csv, headroom_flops_row_get_name (row));
      csv_field (csv, headroom_flops_row_get_label (row));
      csv_number (csv, headroom_flops_row_get_forward (row));
      csv_number (csv, headroom_flops_row_get_backward (row));
      csv_number (csv, headroom_flops_row_get_recompute (row));
      csv_number (csv, headroom_flops_row_get_total (row));
      csv_number (csv, headroom_flops_row_get_share (row));
      csv_end_row (csv);
    }
}

static void
write_memory_row (Csv        *csv,
                  const char *name,
                  const char *label,
                  double      bytes)
{
  csv_field (csv, "memory_per_gpu");
  csv_field (csv, name);
  csv_field (csv, label);
  csv_integer (csv, bytes);
  csv_number (csv, bytes / 1073741824.0);
  csv_end_row (csv);
}

static void
write_memory (Csv               *csv,
              HeadroomEstimator *estimator)
{
  GListModel *segments = headroom_estimator_get_memory_segments (estimator);

  csv_header (csv, "section", "component", "label", "bytes (B)", "size (GiB)", NULL);
  for (guint i = 0; i < g_list_model_get_n_items (segments); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);

      write_memory_row (csv, headroom_quantity_get_name (q), headroom_quantity_get_label (q),
                        headroom_quantity_get_value (q));
    }
  write_memory_row (csv, "total", _("Total"), headroom_estimator_get_memory_bytes (estimator));
  write_memory_row (csv, "capacity", _("GPU memory"),
                    headroom_estimator_get_memory_capacity (estimator));
}

static void
write_summary (Csv               *csv,
               HeadroomEstimator *estimator)
{
  GListModel *rows = headroom_estimator_get_summary (estimator);
  const char *section = headroom_estimator_get_workload (estimator) == HEADROOM_WORKLOAD_TRAINING
                        ? "time_and_cost" : "latency_and_cost";
  g_autofree char *basis = headroom_estimator_dup_time_basis (estimator);

  csv_header (csv, "section", "name", "label", "value", "unit", NULL);
  csv_field (csv, section);
  csv_field (csv, "fits");
  csv_field (csv, _("Fits in GPU memory"));
  csv_field (csv, headroom_estimator_get_fits (estimator) ? "true" : "false");
  csv_end_row (csv);
  /* Where the times come from: the measured utilisation (0: predicted), said
   * as the window says it (issue 13). */
  if (basis != NULL)
    {
      csv_field (csv, section);
      csv_field (csv, "time_basis");
      csv_field (csv, basis);
      csv_number (csv, headroom_project_get_double (headroom_estimator_get_project (estimator),
                                                    "training.mfu"));
      csv_end_row (csv);
    }
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (rows, i);

      const char *needs = headroom_quantity_get_needs (q);

      csv_field (csv, section);
      csv_field (csv, headroom_quantity_get_name (q));
      /* A figure that needs a setting: an empty value and the setting named, never 0. */
      if (needs != NULL)
        {
          g_autofree char *label = g_strdup_printf (_("%s: needs %s"), headroom_quantity_get_label (q),
                                                    needs);

          csv_field (csv, label);
          csv_field (csv, NULL);
        }
      else
        {
          csv_field (csv, headroom_quantity_get_label (q));
          csv_number (csv, headroom_quantity_get_value (q));
        }
      csv_field (csv, headroom_quantity_get_unit (q));
      csv_end_row (csv);
    }
}

char *
headroom_report_to_csv (HeadroomEstimator  *estimator,
                        GError            **error)
{
  Csv csv = { g_string_new (NULL), 0, REPORT_COLUMNS };
  HeadroomProject *project;

  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (estimator), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  project = headroom_estimator_get_project (estimator);
  if (project == NULL || headroom_estimator_get_error (estimator) != NULL
      || !headroom_estimator_get_has_result (estimator))
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                           headroom_estimator_get_error (estimator) != NULL
                           ? headroom_estimator_get_error (estimator) : _("No estimate"));
      g_string_free (csv.out, TRUE);
      return NULL;
    }

  write_inputs (&csv, project);
  write_assumed (&csv, estimator);
  write_params (&csv, estimator);
  write_flops (&csv, estimator);
  write_memory (&csv, estimator);
  write_summary (&csv, estimator);

  return g_string_free (csv.out, FALSE);
}

const char *
headroom_sweep_to_name (HeadroomSweep axis)
{
  switch (axis)
    {
    case HEADROOM_SWEEP_MICRO_BATCH:
      return "micro_batch";
    case HEADROOM_SWEEP_SEQ_LEN:
      return "seq_len";
    case HEADROOM_SWEEP_GPUS:
      return "gpus";
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
headroom_sweep_from_name (const char    *name,
                          HeadroomSweep *axis)
{
  for (HeadroomSweep a = HEADROOM_SWEEP_MICRO_BATCH; a <= HEADROOM_SWEEP_GPUS; a++)
    if (g_strcmp0 (name, headroom_sweep_to_name (a)) == 0)
      {
        *axis = a;
        return TRUE;
      }
  return FALSE;
}

char *
headroom_report_sweeper_to_csv (HeadroomSweeper *sweeper)
{
  const char * const *names;
  const char *assumed;
  gboolean training, text_only;
  Csv csv = { NULL, 0, 0 };
  guint n_segments, n_notes;

  g_return_val_if_fail (HEADROOM_IS_SWEEPER (sweeper), NULL);

  assumed = headroom_sweeper_get_assumed_architecture (sweeper);
  text_only = headroom_sweeper_get_text_only (sweeper);
  n_notes = (assumed != NULL) + text_only;
  names = headroom_sweeper_get_segment_names (sweeper);
  n_segments = g_strv_length ((char **) names);
  training = headroom_sweeper_get_training (sweeper);
  csv.out = g_string_new (NULL);

  switch (headroom_sweeper_get_axis (sweeper))
    {
    case HEADROOM_SWEEP_MICRO_BATCH:
      csv_field (&csv, training ? "micro_batch (sequences)" : "batch (sequences)");
      break;
    case HEADROOM_SWEEP_SEQ_LEN:
      csv_field (&csv, training ? "seq_len (tokens)" : "prompt (tokens)");
      break;
    case HEADROOM_SWEEP_GPUS:
    default:
      csv_field (&csv, "gpus");
      break;
    }
  for (guint i = 0; i < n_segments; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s (B)", names[i]);

      csv_field (&csv, name);
    }
  csv_field (&csv, "total (B)");
  csv_field (&csv, "capacity (B)");
  csv_field (&csv, "fits");
  csv_field (&csv, training ? "step (s)" : "time per output token (s)");
  csv_field (&csv, training ? "throughput (tokens/s)" : "throughput (generated tokens/s)");
  csv_field (&csv, "error");
  /* Every row of a model read as an assumed architecture, or of a
   * vision-language model's language model alone, says so. */
  if (assumed != NULL)
    csv_field (&csv, "assumed_architecture");
  if (text_only)
    csv_field (&csv, "text_only");
  csv.n_columns = csv.n_fields;
  csv_end_row (&csv);

  for (guint v = 0; v < headroom_sweeper_get_n_points (sweeper); v++)
    {
      const HeadroomSweepPoint *point = headroom_sweeper_get_point (sweeper, v);

      csv_integer (&csv, (double) point->value);
      if (point->error != NULL)
        {
          while (csv.n_fields < csv.n_columns - n_notes - 1)
            csv_field (&csv, NULL);
          csv_field (&csv, point->error);
        }
      else
        {
          for (guint i = 0; i < n_segments; i++)
            csv_integer (&csv, point->segments[i]);
          csv_integer (&csv, point->memory);
          csv_integer (&csv, point->capacity);
          csv_field (&csv, point->fits ? "true" : "false");
          csv_number (&csv, point->step_seconds);
          csv_number (&csv, point->tokens_per_second);
          csv_field (&csv, NULL);
        }
      if (assumed != NULL)
        csv_field (&csv, assumed);
      if (text_only)
        csv_field (&csv, "true");
      csv_end_row (&csv);
    }

  return g_string_free (csv.out, FALSE);
}

char *
headroom_report_sweep_to_csv (HeadroomProject  *project,
                              HeadroomSweep     axis,
                              const gint64     *values,
                              guint             n_values,
                              GError          **error)
{
  g_autoptr(HeadroomSweeper) sweeper = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (values != NULL || n_values == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  sweeper = headroom_sweeper_new (project, axis, values, n_values);
  if (!headroom_sweeper_compute (sweeper, NULL, error))
    return NULL;
  return headroom_report_sweeper_to_csv (sweeper);
}

gint64 *
headroom_report_sweep_default_values (HeadroomProject *project,
                                      HeadroomSweep    axis,
                                      guint           *n_values)
{
  gint64 first = 1;
  guint n = 7;
  gint64 *values;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (n_values != NULL, NULL);

  if (axis == HEADROOM_SWEEP_SEQ_LEN)
    {
      first = 1024;
      n = 8;
    }
  else if (axis == HEADROOM_SWEEP_GPUS)
    {
      first = headroom_project_get_int (project, "hardware.gpus_per_node");
      n = 8;
    }

  values = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    values[i] = first << i;
  *n_values = n;
  return values;
}

char *
headroom_report_comparison_to_csv (HeadroomComparison *comparison)
{
  guint n_columns = headroom_comparison_get_n_columns (comparison);
  Csv csv = { g_string_new (NULL), 0, 3 + n_columns };

  csv_field (&csv, "figure");
  csv_field (&csv, "label");
  csv_field (&csv, "unit");
  for (guint c = 0; c < n_columns; c++)
    csv_field (&csv, headroom_comparison_get_name (comparison, c));
  csv_end_row (&csv);

  for (guint f = 0; f < headroom_comparison_get_n_figures (comparison); f++)
    {
      const char *unit = headroom_comparison_get_figure_unit (comparison, f);

      csv_field (&csv, headroom_comparison_get_figure_name (comparison, f));
      csv_field (&csv, headroom_comparison_get_figure_label (comparison, f));
      csv_field (&csv, unit);
      for (guint c = 0; c < n_columns; c++)
        {
          double value;

          if (!headroom_comparison_get_value (comparison, f, c, &value))
            csv_field (&csv, NULL);
          else if (g_str_equal (unit, "boolean"))
            csv_field (&csv, value > 0 ? "true" : "false");
          else if (g_str_equal (unit, "bytes") || g_str_equal (unit, "parameters")
                   || g_str_equal (unit, "GPUs") || g_str_equal (unit, "tokens"))
            csv_integer (&csv, value);
          else
            csv_number (&csv, value);
        }
      csv_end_row (&csv);
    }

  csv_field (&csv, "workload");
  csv_field (&csv, _("Workload"));
  csv_field (&csv, NULL);
  for (guint c = 0; c < n_columns; c++)
    csv_field (&csv, headroom_comparison_get_workload (comparison, c) == HEADROOM_WORKLOAD_TRAINING
                     ? "training" : "inference");
  csv_end_row (&csv);

  csv_field (&csv, "baseline");
  csv_field (&csv, _("Baseline"));
  csv_field (&csv, "boolean");
  for (guint c = 0; c < n_columns; c++)
    csv_field (&csv, c == headroom_comparison_get_baseline (comparison) ? "true" : "false");
  csv_end_row (&csv);

  csv_field (&csv, "differs_from_baseline");
  csv_field (&csv, _("Settings that differ"));
  csv_field (&csv, NULL);
  for (guint c = 0; c < n_columns; c++)
    {
      g_auto(GStrv) keys = headroom_comparison_dup_differences (comparison, c);
      g_autoptr(GString) text = g_string_new (NULL);

      for (guint i = 0; keys[i] != NULL; i++)
        g_string_append_printf (text, "%s%s", i > 0 ? "; " : "",
                                headroom_comparison_difference_label (keys[i]));
      csv_field (&csv, text->str);
    }
  csv_end_row (&csv);

  csv_field (&csv, "error");
  csv_field (&csv, _("Error"));
  csv_field (&csv, NULL);
  for (guint c = 0; c < n_columns; c++)
    csv_field (&csv, headroom_comparison_get_error (comparison, c));
  csv_end_row (&csv);

  /* A column whose model was read as an assumed architecture says so. */
  for (guint c = 0; c < n_columns; c++)
    if (headroom_project_get_assumed_architecture (headroom_comparison_get_project (comparison, c)) != NULL)
      {
        csv_field (&csv, "assumed_architecture");
        csv_field (&csv, _("Architecture assumed (the model_type is unknown)"));
        csv_field (&csv, NULL);
        for (guint k = 0; k < n_columns; k++)
          csv_field (&csv, headroom_project_get_assumed_architecture (headroom_comparison_get_project (comparison, k)));
        csv_end_row (&csv);
        break;
      }
  /* So does a column of a vision-language model's language model alone. */
  for (guint c = 0; c < n_columns; c++)
    if (headroom_project_get_text_only (headroom_comparison_get_project (comparison, c)))
      {
        csv_field (&csv, "text_only");
        csv_field (&csv, _("Language model only (the vision tower is not counted)"));
        csv_field (&csv, NULL);
        for (guint k = 0; k < n_columns; k++)
          csv_field (&csv, headroom_project_get_text_only (headroom_comparison_get_project (comparison, k))
                           ? "true" : "false");
        csv_end_row (&csv);
        break;
      }

  return g_string_free (csv.out, FALSE);
}

gboolean
headroom_report_save (const char  *text,
                      GFile       *file,
                      GError     **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  return headroom_file_save (file, text, strlen (text), NULL, error);
}
