/* test-robust.c: nothing lost, nothing crashes (issue 15)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Saves under a full disk (RLIMIT_FSIZE makes every write past a size fail
 * with EFBIG, as ENOSPC would, without root), through symbolic links and
 * onto private files; hostile JSON (deep nesting, huge numbers, trailing
 * content), oversized and special files.
 */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "headroom-catalog.h"
#include "headroom-estimator.h"
#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-json.h"
#include "headroom-planner.h"
#include "headroom-project.h"
#include "headroom-report.h"

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("headroom-robust-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

/* The names in `dir`, sorted, joined by spaces. */
static char *
list_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  g_assert_no_error (error);
  return contents;
}

static void
write_file (const char *path,
            const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  g_assert_no_error (error);
}

static struct rlimit saved_limit;

/* Writes past `bytes` into any file fail with EFBIG (SIGXFSZ is ignored). */
static void
limit_file_size (rlim_t bytes)
{
  struct rlimit limit;

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved_limit), ==, 0);
  limit = saved_limit;
  limit.rlim_cur = bytes;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
}

static void
unlimit_file_size (void)
{
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved_limit), ==, 0);
}

static HeadroomProject *
big_project (void)
{
  HeadroomProject *project = headroom_project_new_default ();
  g_autofree char *notes = g_strnfill (8192, 'n');

  g_assert_true (headroom_project_set_string (project, "notes", notes, NULL));
  return project;
}

/* Item 1: a project saved onto a full disk leaves the old file byte for
 * byte, and no temporary file behind. */
static void
test_full_disk_project (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "plan.headroom", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(HeadroomProject) project = big_project ();
  g_autoptr(GError) error = NULL;
  g_autofree char *original = NULL;
  g_autofree char *after = NULL;
  g_autofree char *names = NULL;

  /* A first save on a roomy disk. */
  g_assert_true (headroom_project_save (project, file, NULL, &error));
  g_assert_no_error (error);
  original = read_file (path);

  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 2, NULL));
  limit_file_size (4096);
  g_assert_false (headroom_project_save (project, file, NULL, &error));
  unlimit_file_size ();
  g_assert_nonnull (error);
  g_assert_true (headroom_project_get_modified (project));

  after = read_file (path);
  g_assert_true (g_strcmp0 (after, original) == 0);
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "plan.headroom");

  g_unlink (path);
  g_rmdir (dir);
}

/* Item 1: a new file that cannot be written completely is not left half written. */
static void
test_full_disk_new_file (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "new.headroom", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(HeadroomProject) project = big_project ();
  g_autoptr(GError) error = NULL;
  g_autofree char *names = NULL;

  limit_file_size (4096);
  g_assert_false (headroom_project_save (project, file, NULL, &error));
  unlimit_file_size ();
  g_assert_nonnull (error);
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "");

  g_rmdir (dir);
}

/* Item 1: CSV exports go through the same save. */
static void
test_full_disk_csv (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "report.csv", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *text = g_strnfill (16384, 'x');
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  g_autofree char *names = NULL;

  write_file (path, "section,value\r\nold,1\r\n");
  limit_file_size (4096);
  g_assert_false (headroom_report_save (text, file, &error));
  unlimit_file_size ();
  g_assert_nonnull (error);
  after = read_file (path);
  g_assert_cmpstr (after, ==, "section,value\r\nold,1\r\n");
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "report.csv");

  g_unlink (path);
  g_rmdir (dir);
}

static HrGpu
some_gpu (void)
{
  HrGpu gpu = { 0 };

  gpu.memory_bytes = 80e9;
  gpu.memory_bandwidth = 3.35e12;
  gpu.peak_flops[HR_DTYPE_BF16] = 989e12;
  return gpu;
}

/* Item 1: the user's gpus.json on a full disk. */
static void
test_full_disk_catalog (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "gpus.json", NULL);
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autofree char *long_name = g_strnfill (16384, 'g');
  g_autoptr(GError) error = NULL;
  g_autofree char *original = NULL;
  g_autofree char *after = NULL;
  g_autofree char *names = NULL;
  HrGpu gpu = some_gpu ();

  g_assert_true (headroom_catalog_add_user_gpu (catalog, "mine", "Mine", NULL, NULL, &gpu, &error));
  g_assert_no_error (error);
  original = read_file (path);

  limit_file_size (4096);
  g_assert_false (headroom_catalog_add_user_gpu (catalog, "big", long_name, NULL, NULL, &gpu,
                                                 &error));
  unlimit_file_size ();
  g_assert_nonnull (error);
  after = read_file (path);
  g_assert_true (g_strcmp0 (after, original) == 0);
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "gpus.json");

  g_unlink (path);
  g_rmdir (dir);
}

/* Item 5: saving through a symbolic link writes its target, the link stays,
 * and a private file stays private. */
static void
test_symlink_and_mode (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *real = g_build_filename (dir, "real.headroom", NULL);
  g_autofree char *link = g_build_filename (dir, "link.headroom", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (link);
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GBytes) bytes = headroom_project_to_bytes (project);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *names = NULL;
  GStatBuf st;

  write_file (real, "old");
  g_assert_cmpint (g_chmod (real, 0600), ==, 0);
  g_assert_cmpint (symlink ("real.headroom", link), ==, 0);

  g_assert_true (headroom_project_save (project, file, NULL, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  contents = read_file (real);
  g_assert_cmpmem (contents, strlen (contents), g_bytes_get_data (bytes, NULL),
                   g_bytes_get_size (bytes));
  g_assert_cmpint (g_stat (real, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "link.headroom real.headroom");

  /* And a plain 0640 file keeps 0640. */
  g_assert_cmpint (g_chmod (real, 0640), ==, 0);
  g_clear_object (&file);
  file = g_file_new_for_path (real);
  g_assert_true (headroom_project_save (project, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (real, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);

  g_unlink (link);
  g_unlink (real);
  g_rmdir (dir);
}

static HeadroomProject *
load_string (const char  *text,
             GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return headroom_project_new_from_bytes (bytes, error);
}

/* Item 4: 1e999 reads as infinity: refused, naming the key, wherever it is;
 * and never written. */
static void
test_non_finite (void)
{
  static const struct
  {
    const char *text;
    const char *message;
  } cases[] = {
    { "{\"format\":\"headroom-project\",\"version\":1,\"model\":{\"preset\":\"llama-2-7b\"},"
      "\"x\":1e999}", "x: not a finite number" },
    { "{\"format\":\"headroom-project\",\"version\":1,\"model\":{\"config\":{\"rope\":"
      "{\"factor\":-1e999}}}}", "model.config.rope.factor: not a finite number" },
    { "{\"format\":\"headroom-project\",\"version\":1,\"notes\":\"\",\"y\":[1,[2e400]]}",
      "y[1][0]: not a finite number" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HeadroomProject) project = load_string (cases[i].text, &error);

      g_assert_null (project);
      g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  {
    g_autofree char *inf = headroom_format_exact_double (INFINITY);
    g_autofree char *nan = headroom_format_exact_double (NAN);
    g_autofree char *zero = headroom_format_exact_double (-0.0);

    g_assert_cmpstr (inf, ==, "null");
    g_assert_cmpstr (nan, ==, "null");
    g_assert_cmpstr (zero, ==, "0");
  }

  /* A config.json too. */
  {
    g_autoptr(GBytes) bytes = g_bytes_new_static ("{\"hidden_size\": 1e999}", 22);
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonObject) config = headroom_hf_config_parse_bytes (bytes, &error);

    g_assert_null (config);
    g_assert_nonnull (error);
    g_assert_nonnull (strstr (error->message, "hidden_size: not a finite number"));
  }
}

static char *
nested (guint depth)
{
  GString *text = g_string_new ("{\"format\":\"headroom-project\",\"version\":1,"
                                 "\"model\":{\"preset\":\"llama-2-7b\"},\"x\":");

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, ']');
  g_string_append_c (text, '}');
  return g_string_free (text, FALSE);
}

/* Item 6: 75,000 nested arrays overflowed json-glib's recursion; refused
 * before parsing, in projects, configs and catalogs. The limit itself loads. */
static void
test_deep_nesting (void)
{
  g_autofree char *deep = nested (75000);
  g_autofree char *at_limit = nested (HEADROOM_JSON_MAX_DEPTH - 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(HeadroomProject) ok = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static (deep, strlen (deep));
  g_autoptr(JsonObject) config = NULL;

  project = load_string (deep, &error);
  g_assert_null (project);
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "nested deeper than 64 levels"));
  g_clear_error (&error);

  config = headroom_hf_config_parse_bytes (bytes, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "nested deeper"));
  g_clear_error (&error);

  ok = load_string (at_limit, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ok);

  /* In a user catalog. */
  {
    g_autofree char *dir = make_dir ();
    g_autofree char *path = g_build_filename (dir, "models.json", NULL);
    g_autoptr(HeadroomCatalog) catalog = NULL;
    const GError *load_error;

    write_file (path, deep);
    catalog = headroom_catalog_new_for_user_dir (dir);
    load_error = headroom_catalog_get_load_error (catalog);
    g_assert_nonnull (load_error);
    g_assert_nonnull (strstr (load_error->message, "nested deeper"));
    g_unlink (path);
    g_rmdir (dir);
  }
}

/* The project fuzzer's: json-glib reads "\\222" as the byte 0x92 and "\\ud800"
 * as half a character, so a kept unknown key was saved as text that is not
 * UTF-8 and the saved file did not load. Both are refused on reading, with
 * the line; the JSON escapes (RFC 8259 §7) still read. */
static void
test_escapes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(GBytes) saved = NULL;
  g_autoptr(HeadroomProject) reloaded = NULL;

  g_assert_null (load_string ("{\"format\": \"headroom-project\", \"version\": 1,\n"
                              " \"har\\222dware\": {}}", &error));
  g_assert_cmpstr (error->message, ==,
                   "Not a valid project file: line 2: “\\2” is not a JSON escape");
  g_clear_error (&error);
  g_assert_null (load_string ("{\"format\": \"headroom-project\", \"version\": 1,"
                               " \"a\\ud800b\": 1}", &error));
  g_assert_nonnull (strstr (error->message, "a member’s name is not UTF-8 text"));
  g_clear_error (&error);
  /* CI's fuzz crash of stop 24: json-glib read "\\udel" as U+DE00, bytes
   * ED B8 80, kept in an unknown key's string value and saved unloadable. */
  g_assert_null (load_string ("{\"format\": \"headroom-project\", \"version\": 1,"
                              " \"training\": {\"opt\": \"\\udel\"}}", &error));
  g_assert_cmpstr (error->message, ==,
                   "Not a valid project file: line 1: “\\u” needs four hex digits");
  g_clear_error (&error);
  g_assert_null (load_string ("{\"format\": \"headroom-project\", \"version\": 1,"
                              " \"training\": {\"opt\": \"a\\ud800b\"}}", &error));
  g_assert_nonnull (strstr (error->message, "training.opt: not UTF-8 text"));
  g_clear_error (&error);

  project = load_string ("{\"format\": \"headroom-project\", \"version\": 1,"
                         " \"model\": {\"preset\": \"llama-3.1-8b\"},"
                         " \"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\": 1}", &error);
  g_assert_no_error (error);
  saved = headroom_project_to_bytes (project);
  reloaded = headroom_project_new_from_bytes (saved, &error);
  g_assert_no_error (error);
  g_assert_nonnull (reloaded);
}

/* Item 13: content after the object is refused; version 1.0 is an integer. */
static void
test_trailing_and_version (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GBytes) bytes = headroom_project_to_bytes (project);
  g_autofree char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_autofree char *twice = g_strconcat (text, text, NULL);
  g_autofree char *comment = g_strconcat (text, "  /* a comment */\n", NULL);
  g_autoptr(GString) one_point_o = g_string_new (text);
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) loaded = NULL;

  loaded = load_string (twice, &error);
  g_assert_null (loaded);
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "unexpected content after the end"));
  g_clear_error (&error);

  loaded = load_string (comment, &error);
  g_assert_no_error (error);
  g_clear_object (&loaded);

  g_assert_cmpuint (g_string_replace (one_point_o, "\"version\": 1", "\"version\": 1.0", 1), ==, 1);
  loaded = load_string (one_point_o->str, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_clear_object (&loaded);

  g_string_replace (one_point_o, "\"version\": 1.0", "\"version\": 1.5", 1);
  loaded = load_string (one_point_o->str, &error);
  g_assert_null (loaded);
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE);
}

/* Item 8: a file over the cap, and a device, are refused before reading. */
static void
test_file_limits (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "huge.headroom", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) zero = g_file_new_for_path ("/dev/zero");
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *big = g_malloc0 (HEADROOM_FILE_MAX_SIZE + 2);
  HrModel model;

  memset (big, ' ', HEADROOM_FILE_MAX_SIZE + 1);
  write_file (path, big);
  project = headroom_project_new_from_file (file, &error);
  g_assert_null (project);
  g_assert_nonnull (error);
  if (strstr (error->message, "huge.headroom: the file is larger than 4096 KiB") == NULL)
    g_error ("%s", error->message);
  g_clear_error (&error);

  project = headroom_project_new_from_file (zero, &error);
  g_assert_null (project);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_cmpstr (error->message, ==, "/dev/zero: not a regular file");
  g_clear_error (&error);

  g_assert_false (headroom_hf_config_read_file (zero, &model, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);

  /* At the cap reads. */
  big[HEADROOM_FILE_MAX_SIZE] = '\0';
  write_file (path, big);
  bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, HEADROOM_FILE_MAX_SIZE);

  g_unlink (path);
  g_rmdir (dir);
}

/* Item 3: a user catalog with a stray comma does not load, says where, and
 * is never saved over. */
static void
test_catalog_not_loaded (void)
{
  static const char broken[] =
    "{\n"
    "  \"format\": \"headroom-gpus\",\n"
    "  \"version\": 1,\n"
    "  \"gpus\": [\n"
    "    { \"id\": \"mine\", \"memory_bytes\": 1, \"memory_bandwidth\": 1, \"peak_flops\": {} },\n"
    "  ]\n"
    "}\n";
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "gpus.json", NULL);
  g_autoptr(HeadroomCatalog) catalog = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  const GError *load_error;
  HrGpu gpu = some_gpu ();

  write_file (path, broken);
  catalog = headroom_catalog_new_for_user_dir (dir);
  load_error = headroom_catalog_get_load_error (catalog);
  g_assert_nonnull (load_error);
  g_assert_nonnull (strstr (load_error->message, path));
  g_assert_nonnull (strstr (load_error->message, "line 5, column"));

  g_assert_false (headroom_catalog_add_user_gpu (catalog, "new", "New", NULL, NULL, &gpu, &error));
  g_assert_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "nothing saved"));
  g_assert_nonnull (strstr (error->message, path));
  after = read_file (path);
  g_assert_cmpstr (after, ==, broken);

  g_unlink (path);
  g_rmdir (dir);
}

static HeadroomProject *
project_with_layers (const char  *layers,
                     GError     **error)
{
  g_autofree char *text = g_strdup_printf (
    "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
    " \"num_key_value_heads\": 4, \"intermediate_size\": 512, \"vocab_size\": 1000,"
    " \"max_position_embeddings\": 2048, \"num_hidden_layers\": %s}", layers);
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  g_autoptr(JsonObject) config = headroom_hf_config_parse_bytes (bytes, error);

  if (config == NULL)
    return NULL;
  return headroom_project_new_from_config (config, error);
}

static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Item 7: 10^5 layers took 8 s (a walk over the layers in every estimate,
 * 65,536 data-parallel degrees tried); 10^12 hung. Now each estimate holds
 * identical layers once, and 10^12 is above the documented limit. The bound
 * asserted is 10 × the goal of 100 ms, for loaded and sanitizer builds; the
 * times measured are printed. */
static void
test_huge_layer_counts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) huge = project_with_layers ("1000000000000", &error);
  g_autoptr(HeadroomProject) project = NULL;

  g_assert_null (huge);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "Layers: 1000000000000 is out of range"));
  g_clear_error (&error);

  project = project_with_layers ("100000", &error);
  g_assert_no_error (error);
  g_assert_true (headroom_project_set_int (project, "hardware.gpus_per_node", 8, NULL));

  for (guint w = 0; w < 2; w++)
    {
      g_autoptr(HeadroomEstimator) estimator = NULL;
      g_autoptr(HeadroomPlanner) planner = NULL;
      g_autofree char *csv = NULL;
      gint64 start;
      double ms;

      g_assert_true (headroom_project_set_string (project, "workload",
                                                  w == 0 ? "training" : "inference", NULL));
      start = g_get_monotonic_time ();
      estimator = headroom_estimator_new (project);
      headroom_estimator_recompute_now (estimator);
      csv = headroom_report_to_csv (estimator, NULL);
      ms = (g_get_monotonic_time () - start) / 1000.0;
      g_test_message ("%s, 10^5 layers: estimate and report in %.1f ms",
                      w == 0 ? "training" : "inference", ms);
      g_assert_cmpfloat (ms, <, 1000.0);

      start = g_get_monotonic_time ();
      planner = headroom_planner_new (project);
      headroom_planner_refresh (planner);
      drain ();
      ms = (g_get_monotonic_time () - start) / 1000.0;
      g_test_message ("%s, 10^5 layers: plan in %.1f ms",
                      w == 0 ? "training" : "inference", ms);
      g_assert_cmpfloat (ms, <, 1000.0);
    }
}

/* Item 7: the planner walked every micro-batch size up to a replica's share
 * of the batch: a global batch of 10^7 took 24 s (in the window's main
 * loop), 10^12 hung. Now it takes the share's divisors. */
static void
test_huge_global_batch (void)
{
  static const gint64 batches[] = { 10000000, G_GINT64_CONSTANT (1000000000000) };

  for (guint i = 0; i < G_N_ELEMENTS (batches); i++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new_default ();
      g_autoptr(HeadroomPlanner) planner = NULL;
      gint64 start;
      double ms;

      g_assert_true (headroom_project_set_int (project, "training.global_batch", batches[i], NULL));
      start = g_get_monotonic_time ();
      planner = headroom_planner_new (project);
      headroom_planner_refresh (planner);
      drain ();
      ms = (g_get_monotonic_time () - start) / 1000.0;
      g_test_message ("global batch %" G_GINT64_FORMAT ": plan in %.1f ms (%" G_GINT64_FORMAT
                      " layouts)", batches[i], ms, headroom_planner_get_searched (planner));
      g_assert_cmpint (headroom_planner_get_searched (planner), >, 0);
      g_assert_cmpfloat (ms, <, 3000.0);
    }
}

/* Item 13: the window's figures never read -0 (a price of -0). */
static void
test_no_negative_zero (void)
{
  g_autofree char *money = headroom_format_money (-0.0);
  g_autofree char *cents = headroom_format_money (-0.001);
  g_autofree char *gib = headroom_format_gib (-0.0);
  g_autofree char *count = headroom_format_count (-0.0);
  g_autofree char *integer = headroom_format_integer (-0.4);
  g_autofree char *flops = headroom_format_flops (-0.0);

  g_assert_null (strstr (money, "-"));
  g_assert_null (strstr (cents, "-"));
  g_assert_null (strstr (gib, "-"));
  g_assert_cmpstr (count, ==, "0");
  g_assert_cmpstr (integer, ==, "0");
  g_assert_null (strstr (flops, "-"));
}

/* Item 11: text cells that a spreadsheet would run as a formula are
 * neutralised (OWASP: a leading ', quoted); numbers stay numbers. */
static void
test_csv_injection (void)
{
  static const char * const hostile[] = {
    "=HYPERLINK(\"http://evil.example\",\"x\")", "+cmd|' /C calc'!A0", "-2+3+cmd", "@SUM(1)",
    "\t=1", "\r=1",
  };

  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autoptr(HeadroomProject) project = headroom_project_new_default ();
      g_autoptr(HeadroomEstimator) estimator = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *csv = NULL;
      g_autofree char *expected = NULL;
      g_autofree char *quoted = NULL;
      g_autoptr(GString) doubled = g_string_new (hostile[i]);

      g_string_replace (doubled, "\"", "\"\"", 0);
      g_assert_true (headroom_project_set_string (project, "notes", hostile[i], NULL));
      estimator = headroom_estimator_new (project);
      headroom_estimator_recompute_now (estimator);
      csv = headroom_report_to_csv (estimator, &error);
      g_assert_no_error (error);
      expected = g_strdup_printf (",notes,\"'%s\",", doubled->str);
      if (strstr (csv, expected) == NULL)
        g_error ("no %s in\n%s", expected, csv);
      /* Numbers keep their plain form. */
      g_assert_nonnull (strstr (csv, ",training.seq_len,8192,"));
    }
}

/* Item 10: a key or a model_type quoted from a config stays on one line,
 * escaped (the config fuzzer's `{"a` newline `b":- 1}`), and json-glib's
 * messages too. */
static void
test_messages_one_line (void)
{
  static const char * const inputs[] = {
    "{\"a\nb\":- 1}",
    "{\"a\": \"\033[31m\007\n\" x}",
    "{\"hidden_size\": 1, \"\033]0;x\007\": 99999999999999999999}",
    /* The config fuzzer's: an unknown model_type is named in the refusal. */
    "{\"model_type\":\"gemma\022\",\"num_hidden_layers\":99999,\"sliding_window\":4096}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static (inputs[i], strlen (inputs[i]));
      g_autoptr(GError) error = NULL;
      HrModel model;

      g_assert_false (headroom_hf_config_read_bytes (bytes, &model, NULL, NULL, &error));
      g_test_message ("%s", error->message);
      for (const char *p = error->message; *p != '\0'; p++)
        g_assert_cmpint ((guchar) *p, >=, 0x20);
      g_clear_error (&error);
      g_assert_null (load_string (inputs[i], &error));
      for (const char *p = error->message; *p != '\0'; p++)
        g_assert_cmpint ((guchar) *p, >=, 0x20);
    }
}

/* Item 4: models.json never receives an infinity (json-glib writes "inf"). */
static void
test_catalog_never_writes_inf (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "models.json", NULL);
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autoptr(JsonObject) config = json_object_new ();
  g_autoptr(GError) error = NULL;

  json_object_set_string_member (config, "model_type", "llama");
  json_object_set_int_member (config, "hidden_size", 256);
  json_object_set_int_member (config, "num_attention_heads", 4);
  json_object_set_int_member (config, "num_hidden_layers", 2);
  json_object_set_int_member (config, "intermediate_size", 512);
  json_object_set_int_member (config, "vocab_size", 1000);
  json_object_set_double_member (config, "rope_theta", INFINITY);
  g_assert_false (headroom_catalog_add_user_model (catalog, "mine", "Mine", NULL, NULL, config,
                                                   &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "rope_theta"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  /* Writes past RLIMIT_FSIZE fail with EFBIG instead of killing the test. */
  signal (SIGXFSZ, SIG_IGN);

  g_test_add_func ("/robust/full-disk/project", test_full_disk_project);
  g_test_add_func ("/robust/full-disk/new-file", test_full_disk_new_file);
  g_test_add_func ("/robust/full-disk/csv", test_full_disk_csv);
  g_test_add_func ("/robust/full-disk/catalog", test_full_disk_catalog);
  g_test_add_func ("/robust/save/symlink-and-mode", test_symlink_and_mode);
  g_test_add_func ("/robust/load/non-finite", test_non_finite);
  g_test_add_func ("/robust/load/deep-nesting", test_deep_nesting);
  g_test_add_func ("/robust/load/trailing-and-version", test_trailing_and_version);
  g_test_add_func ("/robust/load/file-limits", test_file_limits);
  g_test_add_func ("/robust/catalog/not-loaded", test_catalog_not_loaded);
  g_test_add_func ("/robust/limits/huge-layer-counts", test_huge_layer_counts);
  g_test_add_func ("/robust/limits/huge-global-batch", test_huge_global_batch);
  g_test_add_func ("/robust/format/no-negative-zero", test_no_negative_zero);
  g_test_add_func ("/robust/csv/formula-injection", test_csv_injection);
  g_test_add_func ("/robust/messages/one-line", test_messages_one_line);
  g_test_add_func ("/robust/load/escapes", test_escapes);
  g_test_add_func ("/robust/catalog/never-writes-inf", test_catalog_never_writes_inf);

  return g_test_run ();
}
