/* test-project-file.c: project documents on disk: saving, loading, importing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "test-project.h"

static void
test_round_trip (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomProject) loaded = NULL;
  g_autoptr(HeadroomProject) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *on_disk = NULL;

  headroom_project_set_string (project, "notes", "Ablation, \"run 3\"\nüber-batch\t✓", NULL);
  headroom_project_set_double (project, "training.mfu", 0.1, NULL);
  headroom_project_set_double (project, "hardware.custom.memory", 141, NULL);
  first = to_string (project);
  /* Shortest round-trip decimals, not 0.10000000000000001. */
  g_assert_nonnull (strstr (first, "\"mfu\": 0.1\n"));
  g_assert_nonnull (strstr (first, "\"memory\": 141.0,"));
  g_assert_nonnull (strstr (first, "\"fp32\": 67.0,"));
  g_assert_nonnull (strstr (first, "\"memory_bandwidth\": 3350.0,"));
  g_assert_nonnull (strstr (first, "\"tokens\": 1000000000000.0,"));
  g_assert_true (g_str_has_prefix (first, "{\n  \"format\": \"headroom-project\",\n  \"version\": 1,\n"));

  g_assert_cmpint (g_mkdir_with_parents (g_get_user_data_dir (), 0700), ==, 0);
  path = g_build_filename (g_get_user_data_dir (), "round-trip.headroom.json", NULL);
  file = g_file_new_for_path (path);
  g_assert_true (headroom_project_save (project, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, first);

  loaded = headroom_project_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_assert_false (headroom_project_get_modified (loaded));
  g_assert_true (g_file_equal (headroom_project_get_file (loaded), file));
  second = to_string (loaded);
  g_assert_cmpstr (second, ==, first);
  g_assert_cmpstr (headroom_project_get_string (loaded, "notes"), ==,
                   "Ablation, \"run 3\"\nüber-batch\t✓");
  g_assert_cmpfloat (headroom_project_get_double (loaded, "training.mfu"), ==, 0.1);

  reloaded = load_string (second, &error);
  g_assert_no_error (error);
  third = to_string (reloaded);
  g_assert_cmpstr (third, ==, first);
}

static void
test_unknown_keys_kept (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autoptr(HeadroomProject) loaded = NULL;
  g_autoptr(HeadroomProject) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = to_string (project);
  g_autoptr(GString) edited = g_string_new (text);
  g_autofree char *saved = NULL;
  g_autofree char *saved_again = NULL;
  const char * const *unknown;

  /* A newer minor feature and a typo, in a section and at the top. */
  g_string_replace (edited, "\"training\": {\n", "\"training\": {\n    \"warmup\": {\"steps\": 2000},\n", 1);
  g_string_replace (edited, "\"version\": 1,\n", "\"version\": 1,\n  \"author\": \"me\",\n", 1);
  loaded = load_string (edited->str, &error);
  g_assert_no_error (error);
  unknown = headroom_project_get_unknown_keys (loaded);
  g_assert_cmpuint (g_strv_length ((char **) unknown), ==, 2);
  g_assert_cmpstr (unknown[0], ==, "author");
  g_assert_cmpstr (unknown[1], ==, "training.warmup");
  {
    g_autofree char *note = headroom_project_dup_unknown_keys_note (loaded);
    g_autofree char *none = headroom_project_dup_unknown_keys_note (project);

    g_assert_cmpstr (note, ==, "Not read, no such setting: author, training.warmup");
    g_assert_null (none);
  }

  saved = to_string (loaded);
  g_assert_nonnull (strstr (saved, "\"author\": \"me\""));
  g_assert_nonnull (strstr (saved, "\"warmup\": {\n      \"steps\": 2000\n    }"));
  reloaded = load_string (saved, &error);
  g_assert_no_error (error);
  saved_again = to_string (reloaded);
  g_assert_cmpstr (saved_again, ==, saved);
}

typedef struct
{
  const char *name;
  const char *find;      /* text of the default project to replace, NULL = whole file */
  const char *replace;
  int         code;
  const char *message;   /* expected prefix of the message */
} Malformed;

static const Malformed malformed[] = {
  { "empty", NULL, "", HEADROOM_PROJECT_ERROR_PARSE, "Not a valid project file" },
  { "truncated", NULL, "{\"format\": \"headroom-project\", \"version\": 1, \"hard",
    HEADROOM_PROJECT_ERROR_PARSE, "Not a valid project file" },
  { "array", NULL, "[1, 2]", HEADROOM_PROJECT_ERROR_PARSE, "Not a Headroom project" },
  { "binary", NULL, "{\"notes\": \"\xff\xfe\"}", HEADROOM_PROJECT_ERROR_PARSE, "Not a Headroom project" },
  { "no-format", "\"format\": \"headroom-project\",", "", HEADROOM_PROJECT_ERROR_FORMAT,
    "Not a Headroom project (expected the format “headroom-project”)" },
  { "other-format", "\"headroom-project\"", "\"headroom-gpus\"", HEADROOM_PROJECT_ERROR_FORMAT,
    "Not a Headroom project" },
  { "newer", "\"version\": 1", "\"version\": 3", HEADROOM_PROJECT_ERROR_VERSION,
    "This project was written by a newer Headroom" },
  { "version-string", "\"version\": 1", "\"version\": \"1\"", HEADROOM_PROJECT_ERROR_TYPE,
    "The format version is not an integer" },
  { "version-zero", "\"version\": 1", "\"version\": 0", HEADROOM_PROJECT_ERROR_INVALID,
    "0 is not a valid format version" },
  { "int-as-string", "\"nodes\": 1", "\"nodes\": \"1\"", HEADROOM_PROJECT_ERROR_TYPE,
    "Nodes: expected an integer" },
  { "fraction", "\"micro_batch\": 1", "\"micro_batch\": 1.5", HEADROOM_PROJECT_ERROR_TYPE,
    "Micro-batch: expected an integer" },
  { "negative", "\"seq_len\": 8192", "\"seq_len\": -8192", HEADROOM_PROJECT_ERROR_INVALID,
    "Sequence length: -8192 is out of range" },
  { "huge", "\"micro_batch\": 1", "\"micro_batch\": 1e300", HEADROOM_PROJECT_ERROR_INVALID,
    "Micro-batch: 1e+300 is out of range" },
  { "infinite", "\"mfu\": 0.0", "\"mfu\": 1e999", HEADROOM_PROJECT_ERROR_INVALID,
    "Measured FLOPs utilisation: not a finite number" },
  { "bool-as-int", "\"dropout\": false", "\"dropout\": 0", HEADROOM_PROJECT_ERROR_TYPE,
    "Dropout: expected true or false" },
  { "null", "\"optimizer\": \"adamw\"", "\"optimizer\": null", HEADROOM_PROJECT_ERROR_TYPE,
    "Optimizer: expected a string" },
  { "bad-choice", "\"optimizer\": \"adamw\"", "\"optimizer\": \"adam\"", HEADROOM_PROJECT_ERROR_INVALID,
    "Optimizer: “adam” is not one of" },
  { "section-not-object", "\"inference\": {", "\"inference\": 3, \"x\": {",
    HEADROOM_PROJECT_ERROR_TYPE, "inference: expected an object" },
  { "config-not-object", "\"config\": {}", "\"config\": []",
    HEADROOM_PROJECT_ERROR_TYPE, "model.config: expected an object" },
  { "non-dividing-tp", "\"tensor_parallel\": 2,\n    \"sequence", "\"tensor_parallel\": 3,\n    \"sequence",
    HEADROOM_PROJECT_ERROR_INVALID, "Tensor parallel: 3 does not divide 8 GPUs" },
  { "non-dividing-pp", "\"pipeline_parallel\": 1,\n    \"pipeline_schedule",
    "\"pipeline_parallel\": 3,\n    \"pipeline_schedule", HEADROOM_PROJECT_ERROR_INVALID,
    "Pipeline parallel: tensor × pipeline × context parallel (6) does not divide 8 GPUs" },
  { "bad-model", "\"config\": {}", "\"config\": {\"num_key_value_heads\": 5}", -1,
    "Key/value heads: 5" },
  { "no-model", "\"preset\": \"llama-3.1-8b\",", "", HEADROOM_PROJECT_ERROR_INVALID,
    "No model: choose a preset or import a config.json" },
  { "unknown-preset", "\"llama-3.1-8b\"", "\"no-such-model\"",
    HEADROOM_PROJECT_ERROR_NOT_FOUND, "Preset: no model “no-such-model”" },
  { "unknown-gpu", "\"gpu\": \"custom\"", "\"gpu\": \"h100-sxn\"", -1, "GPU: " },
};

static void
test_malformed (void)
{
  g_autoptr(HeadroomProject) project = custom_gpu_project ();
  g_autofree char *valid = to_string (project);

  for (guint i = 0; i < G_N_ELEMENTS (malformed); i++)
    {
      const Malformed *m = &malformed[i];
      g_autoptr(GString) text = g_string_new (m->find != NULL ? valid : m->replace);
      g_autoptr(HeadroomProject) loaded = NULL;
      g_autoptr(GError) error = NULL;

      g_test_message ("case %s", m->name);
      if (m->find != NULL)
        g_assert_cmpuint (g_string_replace (text, m->find, m->replace, 1), ==, 1);
      loaded = load_string (text->str, &error);
      g_assert_null (loaded);
      g_assert_nonnull (error);
      if (m->code >= 0)
        g_assert_error (error, HEADROOM_PROJECT_ERROR, m->code);
      if (!g_str_has_prefix (error->message, m->message))
        g_error ("case %s: “%s” does not start with “%s”", m->name, error->message, m->message);
      /* One line, for the CLI. */
      g_assert_null (strchr (error->message, '\n'));
    }
}

static void
test_missing_file (void)
{
  g_autoptr(GFile) file = g_file_new_build_filename (g_get_user_data_dir (), "absent.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) project = headroom_project_new_from_file (file, &error);

  g_assert_null (project);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* Inputs the fuzzer (tests/fuzz) found: each must load or fail with one line,
 * and load → save → load must give the same bytes. */
static void
test_fuzz_regressions (void)
{
  g_autofree char *dir_path = g_build_filename (TEST_DATA_DIR, "fuzz", NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autofree char *contents = NULL;
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(HeadroomProject) project = NULL;
      g_autoptr(GError) error = NULL;
      gsize length;

      if (!g_str_has_prefix (name, "project-"))
        continue;
      g_test_message ("%s", name);
      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      bytes = g_bytes_new (contents, length);
      project = headroom_project_new_from_bytes (bytes, &error);
      if (project == NULL)
        {
          g_assert_nonnull (error);
          g_assert_null (strchr (error->message, '\n'));
        }
      else
        {
          g_autofree char *saved = to_string (project);
          g_autoptr(HeadroomProject) reloaded = load_string (saved, &error);
          g_autofree char *resaved = NULL;

          g_assert_no_error (error);
          resaved = to_string (reloaded);
          g_assert_cmpstr (resaved, ==, saved);
        }
      n++;
    }
  g_assert_cmpuint (n, >, 0);
}

/* Issue 13: importing a config.json into an open project replaces the model
 * only; the hardware and the workload stay, and the title becomes the
 * model's name. A config that is not a model changes nothing. A new project
 * from a config keeps its own path, every other key at the table's default. */
static void
test_import_config (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomProject) fresh = NULL;
  g_autoptr(JsonObject) config = json_object_new ();
  g_autoptr(JsonObject) bad = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  g_autofree char *fresh_title = NULL;
  HrModel model;

  json_object_set_string_member (config, "model_type", "llama");
  json_object_set_string_member (config, "_name_or_path", "meta-llama/Llama-3.2-1B");
  json_object_set_int_member (config, "hidden_size", 2048);
  json_object_set_int_member (config, "intermediate_size", 8192);
  json_object_set_int_member (config, "num_attention_heads", 32);
  json_object_set_int_member (config, "num_key_value_heads", 8);
  json_object_set_int_member (config, "num_hidden_layers", 16);
  json_object_set_int_member (config, "vocab_size", 128256);
  json_object_set_int_member (config, "max_position_embeddings", 131072);

  g_assert_true (headroom_project_set_int (project, "hardware.nodes", 4, NULL));
  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "a100-80gb-sxm", NULL));
  g_assert_true (headroom_project_set_int (project, "training.seq_len", 4096, NULL));

  /* 3 heads do not divide a hidden size of 64 */
  json_object_set_string_member (bad, "model_type", "llama");
  json_object_set_int_member (bad, "hidden_size", 64);
  json_object_set_int_member (bad, "intermediate_size", 128);
  json_object_set_int_member (bad, "num_attention_heads", 3);
  json_object_set_int_member (bad, "num_hidden_layers", 2);
  json_object_set_int_member (bad, "vocab_size", 100);
  g_assert_false (headroom_project_import_config (project, bad, NULL, &error));
  g_assert_nonnull (error);
  g_assert_cmpstr (headroom_project_get_preset (project), ==, "llama-3.1-8b");
  g_clear_error (&error);

  g_assert_true (headroom_project_import_config (project, config, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (headroom_project_get_preset (project));
  g_assert_true (headroom_project_get_model (project, &model, NULL));
  g_assert_cmpint (model.hidden_size, ==, 2048);
  g_assert_cmpint (headroom_project_get_int (project, "hardware.nodes"), ==, 4);
  g_assert_cmpstr (headroom_project_get_string (project, "hardware.gpu"), ==, "a100-80gb-sxm");
  g_assert_cmpint (headroom_project_get_int (project, "training.seq_len"), ==, 4096);
  g_assert_cmpint (headroom_project_get_int (project, "training.tensor_parallel"), ==, 2);
  g_assert_cmpfloat (headroom_project_get_double (project, "training.tokens"), ==, 1e12);
  title = headroom_project_dup_title (project);
  g_assert_cmpstr (title, ==, "Llama-3.2-1B");

  /* A name given wins; choosing a preset again drops it. */
  g_assert_true (headroom_project_import_config (project, config, "My model", NULL));
  g_clear_pointer (&title, g_free);
  title = headroom_project_dup_title (project);
  g_assert_cmpstr (title, ==, "My model");
  g_assert_true (headroom_project_set_string (project, "model.preset", "llama-3.1-8b", NULL));
  g_clear_pointer (&title, g_free);
  title = headroom_project_dup_title (project);
  g_assert_cmpstr (title, ==, "llama-3.1-8b");

  fresh = headroom_project_new_from_config (config, &error);
  g_assert_no_error (error);
  g_assert_cmpint (headroom_project_get_int (fresh, "hardware.nodes"), ==, 1);
  g_assert_cmpint (headroom_project_get_int (fresh, "training.seq_len"), ==, 8192);
  g_assert_false (headroom_project_get_modified (fresh));
  fresh_title = headroom_project_dup_title (fresh);
  g_assert_cmpstr (fresh_title, ==, "Llama-3.2-1B");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/project/import-config", test_import_config);
  g_test_add_func ("/project/round-trip", test_round_trip);
  g_test_add_func ("/project/unknown-keys-kept", test_unknown_keys_kept);
  g_test_add_func ("/project/malformed", test_malformed);
  g_test_add_func ("/project/missing-file", test_missing_file);
  g_test_add_func ("/project/fuzz-regressions", test_fuzz_regressions);

  return g_test_run ();
}
