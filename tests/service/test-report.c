/* test-report.c: CSV reports: RFC 4180 quoting, C-locale numbers, sweeps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <locale.h>
#include <math.h>
#include <string.h>

#include "headroom-catalog.h"
#include "headroom-estimator.h"
#include "headroom-report.h"
#include "headroom-sweeper.h"

static HeadroomProject *
custom_gpu_project (void)
{
  HeadroomProject *project = headroom_project_new_default ();

  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "custom", NULL));
  /* Plain data parallelism keeps the figures below easy to derive. */
  g_assert_true (headroom_project_set_int (project, "training.tensor_parallel", 1, NULL));
  g_assert_true (headroom_project_set_boolean (project, "training.sequence_parallel", FALSE, NULL));
  return project;
}

/* An independent RFC 4180 reader: rows of fields, CRLF line ends. */
static GPtrArray *
parse_csv (const char *text)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr(GPtrArray) fields = g_ptr_array_new ();
  g_autoptr(GString) field = g_string_new (NULL);
  const char *p = text;

  while (*p != '\0')
    {
      if (*p == '"')
        {
          for (p++; !(*p == '"' && p[1] != '"'); p++)
            {
              g_assert_cmpint (*p, !=, '\0');
              if (*p == '"')
                p++;
              g_string_append_c (field, *p);
            }
          p++;
        }
      else
        while (*p != ',' && *p != '\r' && *p != '\n' && *p != '\0')
          g_string_append_c (field, *p++);

      g_ptr_array_add (fields, g_strdup (field->str));
      g_string_truncate (field, 0);
      if (*p == ',')
        p++;
      else
        {
          /* Only CRLF ends a row. */
          g_assert_cmpint (p[0], ==, '\r');
          g_assert_cmpint (p[1], ==, '\n');
          p += 2;
          g_ptr_array_add (fields, NULL);
          g_ptr_array_add (rows, g_ptr_array_steal (fields, NULL));
        }
    }
  return rows;
}

static const char *
find_value (GPtrArray  *rows,
            const char *section,
            const char *name,
            guint       column)
{
  for (guint i = 0; i < rows->len; i++)
    {
      char **row = g_ptr_array_index (rows, i);

      if (strcmp (row[0], section) == 0 && strcmp (row[1], name) == 0)
        return row[column];
    }
  return NULL;
}

static gboolean
is_integer (const char *text)
{
  if (*text == '\0')
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

static char *
report (HeadroomProject *project)
{
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autoptr(GError) error = NULL;
  char *csv;

  headroom_estimator_recompute_now (estimator);
  csv = headroom_report_to_csv (estimator, &error);
  g_assert_no_error (error);
  g_assert_nonnull (csv);
  return csv;
}

static void
test_report (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  const char *notes = "8B, \"baseline\"\nsecond line";
  g_autofree char *csv = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  guint headers = 0;

  headroom_project_set_string (project, "notes", notes, NULL);
  csv = report (project);
  /* The quoted field as RFC 4180 §2.6–2.7 write it. */
  g_assert_nonnull (strstr (csv, "\"8B, \"\"baseline\"\"\nsecond line\""));

  rows = parse_csv (csv);
  for (guint i = 0; i < rows->len; i++)
    {
      char **row = g_ptr_array_index (rows, i);

      g_assert_cmpuint (g_strv_length (row), ==, 8);
      if (strcmp (row[0], "section") == 0)
        headers++;
    }
  /* inputs, parameters, FLOPs, memory, time and cost */
  g_assert_cmpuint (headers, ==, 5);

  g_assert_cmpstr (find_value (rows, "input", "notes", 2), ==, notes);
  g_assert_cmpstr (find_value (rows, "input", "model.hidden_size", 2), ==, "4096");
  g_assert_cmpstr (find_value (rows, "input", "training.mfu", 2), ==, "0.0");
  g_assert_cmpstr (find_value (rows, "input", "hardware.price_per_gpu_hour", 3), ==, "USD");
  /* 8 030 261 248 parameters (test-project.h); master weights 4 B each over 8
   * ZeRO-1 ranks = 4 015 130 624 B = 3.739… GiB. */
  g_assert_cmpstr (find_value (rows, "parameters", "total", 3), ==, "8030261248");
  g_assert_cmpstr (find_value (rows, "memory_per_gpu", "master_weights", 3), ==, "4015130624");
  g_assert_cmpstr (find_value (rows, "memory_per_gpu", "capacity", 3), ==, "85899345920");
  g_assert_cmpstr (find_value (rows, "memory_per_gpu", "capacity", 4), ==, "80");
  for (guint i = 0; i < rows->len; i++)
    {
      char **row = g_ptr_array_index (rows, i);

      if (strcmp (row[0], "memory_per_gpu") == 0 || strcmp (row[0], "parameters") == 0)
        g_assert_true (is_integer (row[3]));
    }
  g_assert_cmpstr (find_value (rows, "flops_per_micro_batch", "total", 7), ==, "1");
  g_assert_nonnull (find_value (rows, "time_and_cost", "step_seconds", 3));
  /* Where the times come from, as the window says it (training.mfu 0: predicted). */
  g_assert_true (g_str_has_prefix (find_value (rows, "time_and_cost", "time_basis", 2), "Predicted from the hardware: published runs of "));
  g_assert_cmpstr (find_value (rows, "time_and_cost", "time_basis", 3), ==, "0");

  /* Without training tokens the cost is no number: an empty value and the
   * setting it needs, never 0. */
  g_assert_true (headroom_project_set_double (project, "training.tokens", 0, NULL));
  g_clear_pointer (&csv, g_free);
  g_clear_pointer (&rows, g_ptr_array_unref);
  csv = report (project);
  rows = parse_csv (csv);
  g_assert_cmpstr (find_value (rows, "time_and_cost", "cost", 2), ==, "Cost: needs Training tokens");
  g_assert_cmpstr (find_value (rows, "time_and_cost", "cost", 3), ==, "");
  g_assert_cmpstr (find_value (rows, "time_and_cost", "steps", 3), ==, "");
}

/* German writes 0,4; the report must still write 0.4 and be byte-identical. */
static void
test_locale_independent (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autofree char *c_locale = report (project);
  g_autofree char *german = NULL;
  g_autofree char *saved_locale = g_strdup (setlocale (LC_ALL, NULL));
  g_autofree char *probe = NULL;

  if (setlocale (LC_ALL, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("de_DE.UTF-8 locale not installed");
      return;
    }
  probe = g_strdup_printf ("%.1f", 0.5);
  g_assert_cmpstr (probe, ==, "0,5");

  german = report (project);
  setlocale (LC_ALL, saved_locale);
  g_assert_cmpstr (german, ==, c_locale);
  g_assert_nonnull (strstr (german, "training.mfu,0.0,"));
}

static void
test_report_invalid (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;

  headroom_project_set_int (project, "training.tensor_parallel", 3, NULL);
  headroom_estimator_recompute_now (estimator);
  csv = headroom_report_to_csv (estimator, &error);
  g_assert_null (csv);
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, "Tensor parallel: 3 does not divide 8 GPUs");
}

static void
test_sweep (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  const gint64 micro_batches[] = { 1, 2, 4, 0 };
  const gint64 gpus[] = { 8, 12, 16 };
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *gpu_csv = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) gpu_rows = NULL;
  g_autoptr(GBytes) before_bytes = NULL;
  g_autoptr(GBytes) after_bytes = NULL;
  guint n_columns, total_column = 0;
  char **header;

  /* The predicted step time needs the custom GPU's network once it spans nodes. */
  g_assert_true (headroom_project_set_double (project, "hardware.inter_node_bandwidth", 50, NULL));
  before_bytes = headroom_project_to_bytes (project);
  csv = headroom_report_sweep_to_csv (project, HEADROOM_SWEEP_MICRO_BATCH, micro_batches,
                                      G_N_ELEMENTS (micro_batches), &error);
  g_assert_no_error (error);
  rows = parse_csv (csv);
  g_assert_cmpuint (rows->len, ==, G_N_ELEMENTS (micro_batches) + 1);
  header = g_ptr_array_index (rows, 0);
  g_assert_cmpstr (header[0], ==, "micro_batch (sequences)");
  n_columns = g_strv_length (header);
  for (guint i = 0; i < n_columns; i++)
    if (strcmp (header[i], "total (B)") == 0)
      total_column = i;
  g_assert_cmpuint (total_column, >, 0);
  for (guint i = 1; i < rows->len; i++)
    g_assert_cmpuint (g_strv_length (g_ptr_array_index (rows, i)), ==, n_columns);

  /* Activations grow with the micro-batch, everything else stays: memory rises. */
  {
    char **one = g_ptr_array_index (rows, 1);
    char **two = g_ptr_array_index (rows, 2);
    char **four = g_ptr_array_index (rows, 3);
    char **zero = g_ptr_array_index (rows, 4);

    g_assert_cmpstr (one[0], ==, "1");
    g_assert_true (is_integer (one[total_column]));
    g_assert_cmpfloat (g_ascii_strtod (one[total_column], NULL), <,
                       g_ascii_strtod (two[total_column], NULL));
    g_assert_cmpfloat (g_ascii_strtod (two[total_column], NULL), <,
                       g_ascii_strtod (four[total_column], NULL));
    g_assert_cmpstr (one[n_columns - 1], ==, "");
    /* 0 is refused with the key named, and no figures. */
    g_assert_cmpstr (zero[total_column], ==, "");
    g_assert_true (g_str_has_prefix (zero[n_columns - 1], "Micro-batch: 0 is out of range"));
  }

  gpu_csv = headroom_report_sweep_to_csv (project, HEADROOM_SWEEP_GPUS, gpus,
                                          G_N_ELEMENTS (gpus), &error);
  g_assert_no_error (error);
  gpu_rows = parse_csv (gpu_csv);
  g_assert_cmpstr (((char **) g_ptr_array_index (gpu_rows, 2))[n_columns - 1], ==,
                   "Nodes: 12 GPUs are not whole nodes of 8");
  g_assert_cmpstr (((char **) g_ptr_array_index (gpu_rows, 3))[n_columns - 1], ==, "");

  /* The project itself is untouched. */
  after_bytes = headroom_project_to_bytes (project);
  g_assert_true (g_bytes_equal (before_bytes, after_bytes));
}

static void
computed_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (headroom_sweeper_compute_finish (HEADROOM_SWEEPER (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

/* One sweep: computed in a worker thread it gives the points computed at
 * once, and the CSV of either is the report's; a point is the estimate of
 * the project set to that value. Edits after the sweeper was made do not
 * reach it (a snapshot). */
static void
test_sweeper (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  const gint64 micro_batches[] = { 1, 2, 4, 3 };
  g_autoptr(HeadroomSweeper) now = headroom_sweeper_new (project, HEADROOM_SWEEP_MICRO_BATCH,
                                                         micro_batches, G_N_ELEMENTS (micro_batches));
  g_autoptr(HeadroomSweeper) later = headroom_sweeper_new (project, HEADROOM_SWEEP_MICRO_BATCH,
                                                           micro_batches, G_N_ELEMENTS (micro_batches));
  g_autoptr(HeadroomEstimator) estimator = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv_now = NULL;
  g_autofree char *csv_later = NULL;
  g_autofree char *csv_report = NULL;
  const HeadroomSweepPoint *two;
  gboolean done = FALSE;

  g_assert_true (headroom_sweeper_compute (now, NULL, &error));
  g_assert_no_error (error);
  /* Changing the project now changes neither sweeper. */
  g_assert_true (headroom_project_set_int (project, "training.seq_len", 1024, NULL));
  headroom_sweeper_compute_async (later, NULL, computed_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpuint (headroom_sweeper_get_n_points (later), ==, 4);
  csv_now = headroom_report_sweeper_to_csv (now);
  csv_later = headroom_report_sweeper_to_csv (later);
  g_assert_cmpstr (csv_now, ==, csv_later);
  g_assert_true (headroom_project_set_int (project, "training.seq_len", 8192, NULL));
  csv_report = headroom_report_sweep_to_csv (project, HEADROOM_SWEEP_MICRO_BATCH, micro_batches,
                                             G_N_ELEMENTS (micro_batches), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (csv_now, ==, csv_report);

  /* With the optimizer step on the CPU the points keep their memory and have
   * no time (the step model does not time it): empty in the CSV, never 0. */
  {
    const gint64 one[] = { 1 };
    g_autoptr(HeadroomSweeper) offloaded = NULL;
    const HeadroomSweepPoint *point;

    g_assert_true (headroom_project_set_boolean (project, "training.offload_optimizer", TRUE, NULL));
    offloaded = headroom_sweeper_new (project, HEADROOM_SWEEP_MICRO_BATCH, one, 1);
    g_assert_true (headroom_project_set_boolean (project, "training.offload_optimizer", FALSE, NULL));
    g_assert_true (headroom_sweeper_compute (offloaded, NULL, &error));
    point = headroom_sweeper_get_point (offloaded, 0);
    g_assert_null (point->error);
    g_assert_cmpfloat (point->memory, >, 0);
    g_assert_true (isnan (point->step_seconds) && isnan (point->tokens_per_second));
  }

  /* 3 does not divide the global batch's share: a point with the setting named. */
  g_assert_nonnull (headroom_sweeper_get_point (later, 3)->error);
  g_test_message ("%s", headroom_sweeper_get_point (later, 3)->error);
  g_assert_true (g_str_has_prefix (headroom_sweeper_get_point (later, 3)->error, "Global batch: "));
  /* The point at 2 is the estimate at micro-batch 2, step time included. */
  two = headroom_sweeper_get_point (later, 1);
  g_assert_null (two->error);
  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 2, NULL));
  estimator = headroom_estimator_new (project);
  headroom_estimator_recompute_now (estimator);
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_cmpfloat (two->memory, ==, headroom_estimator_get_memory_bytes (estimator));
  g_assert_cmpfloat (two->step_seconds, ==, headroom_estimator_get_step_seconds (estimator));
  g_assert_cmpfloat (two->tokens_per_second, ==, headroom_estimator_get_tokens_per_second (estimator));
  g_assert_cmpstr (headroom_sweeper_get_segment_names (later)[0], !=, NULL);
}

static void
test_sweep_names (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autofree gint64 *values = NULL;
  HeadroomSweep axis;
  guint n;

  g_assert_true (headroom_sweep_from_name ("seq_len", &axis));
  g_assert_cmpint (axis, ==, HEADROOM_SWEEP_SEQ_LEN);
  g_assert_false (headroom_sweep_from_name ("batch", &axis));
  values = headroom_report_sweep_default_values (project, HEADROOM_SWEEP_GPUS, &n);
  g_assert_cmpuint (n, ==, 8);
  g_assert_cmpint (values[0], ==, 8);
  g_assert_cmpint (values[7], ==, 1024);
}

static void
count_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  guint *n_done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (headroom_sweeper_compute_finish (HEADROOM_SWEEPER (source), result, &error));
  g_assert_no_error (error);
  (*n_done)++;
}

/* Sweeps run in worker threads while this thread reads the same preset and
 * edits the catalog, as the window does: the workers must share nothing
 * with it (json-glib's reference counts are not atomic, nor is a
 * GListStore safe to read while another thread appends). A race shows as
 * a critical or a crash here, not always: run it in a loop to be sure. */
static void
test_sweeper_isolated (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  const gint64 micro_batches[] = { 1, 2, 4, 8, 16, 32, 64 };
  HrGpu gpu = { 0 };
  guint n_started = 0, n_done = 0;

  gpu.memory_bytes = 80.0 * 1073741824.0;
  gpu.memory_bandwidth = 3.35e12;
  gpu.peak_flops[HR_DTYPE_BF16] = 989e12;
  while (n_started < 40 || n_done < n_started)
    {
      if (n_started < 40)
        {
          g_autoptr(HeadroomSweeper) sweeper = headroom_sweeper_new (project, HEADROOM_SWEEP_MICRO_BATCH,
                                                                     micro_batches,
                                                                     G_N_ELEMENTS (micro_batches));
          g_autofree char *id = g_strdup_printf ("test-gpu-%u", n_started);

          headroom_sweeper_compute_async (sweeper, NULL, count_done_cb, &n_done);
          n_started++;
          g_assert_true (headroom_catalog_add_user_gpu (catalog, id, id, NULL, NULL, &gpu, NULL));
        }
      /* Reads every value of the preset's config, as each estimate does. */
      for (guint i = 0; i < 20; i++)
        {
          g_autoptr(JsonObject) config = headroom_project_dup_effective_config (project);
          g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);

          g_assert_cmpuint (json_object_get_size (config), >, 0);
          headroom_estimator_recompute_now (estimator);
          g_assert_null (headroom_estimator_get_error (estimator));
        }
      g_main_context_iteration (NULL, FALSE);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/report/csv", test_report);
  g_test_add_func ("/report/locale-independent", test_locale_independent);
  g_test_add_func ("/report/invalid", test_report_invalid);
  g_test_add_func ("/report/sweep", test_sweep);
  g_test_add_func ("/report/sweep-names", test_sweep_names);
  g_test_add_func ("/report/sweeper", test_sweeper);
  g_test_add_func ("/report/sweeper-isolated", test_sweeper_isolated);

  return g_test_run ();
}
