/* test-scenario.c: scenarios of a project: keep, name, rename, duplicate,
 * apply, remove, and their place in the project file (format version 2)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "headroom-project.h"
#include "headroom-scenario.h"

static HeadroomProject *
load_string (const char  *text,
             GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return headroom_project_new_from_bytes (bytes, error);
}

static char *
to_string (HeadroomProject *project)
{
  g_autoptr(GBytes) bytes = headroom_project_to_bytes (project);

  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

static HeadroomScenario *
scenario_at (HeadroomProject *project,
             guint            position)
{
  g_autoptr(HeadroomScenario) scenario =
    g_list_model_get_item (headroom_project_get_scenarios (project), position);

  return scenario;  /* the project keeps it */
}

/* The launch project (8 H100 SXM, ZeRO-1), then 16 A100 with ZeRO-3. */
static HeadroomProject *
two_scenarios (void)
{
  HeadroomProject *project = headroom_project_new_default ();
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (headroom_project_keep_scenario (project, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "a100-80gb-sxm", NULL));
  g_assert_true (headroom_project_set_int (project, "hardware.nodes", 2, NULL));
  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 3, NULL));
  g_assert_nonnull (headroom_project_keep_scenario (project, NULL, &error));
  g_assert_no_error (error);
  return project;
}

static void
test_default_names (void)
{
  g_autoptr(HeadroomProject) project = two_scenarios ();
  g_auto(GStrv) differences = NULL;

  g_assert_cmpuint (g_list_model_get_n_items (headroom_project_get_scenarios (project)), ==, 2);
  /* The first has nothing to differ from: its GPUs (1 node × 8) and its model. */
  g_assert_cmpstr (headroom_scenario_get_name (scenario_at (project, 0)), ==,
                   "8 × NVIDIA H100 SXM5 80GB, Llama 3.1 8B");
  /* The second: what differs from the first, GPU and count as one change. */
  g_assert_cmpstr (headroom_scenario_get_name (scenario_at (project, 1)), ==,
                   "16 × NVIDIA A100 SXM4 80GB, ZeRO stage 3");

  differences = headroom_project_dup_differences (
    headroom_scenario_get_settings (scenario_at (project, 1)),
    headroom_scenario_get_settings (scenario_at (project, 0)));
  g_assert_cmpuint (g_strv_length (differences), ==, 3);
  g_assert_cmpstr (differences[0], ==, "hardware.gpu");
  g_assert_cmpstr (differences[1], ==, "hardware.nodes");
  g_assert_cmpstr (differences[2], ==, "training.zero_stage");

  /* Keeping the same settings again: the name is made unique. */
  g_assert_nonnull (headroom_project_keep_scenario (project, NULL, NULL));
  g_assert_cmpstr (headroom_scenario_get_name (scenario_at (project, 2)), ==,
                   "16 × NVIDIA A100 SXM4 80GB, ZeRO stage 3 (2)");
}

static void
test_inference_keys_ignored (void)
{
  g_autoptr(HeadroomProject) a = headroom_project_new_default ();
  g_autoptr(HeadroomProject) b = headroom_project_new_default ();
  g_auto(GStrv) differences = NULL;

  /* A training project: its inference settings are not what it estimates. */
  g_assert_true (headroom_project_set_int (b, "inference.batch", 32, NULL));
  g_assert_true (headroom_project_set_string (b, "notes", "other notes", NULL));
  differences = headroom_project_dup_differences (a, b);
  g_assert_cmpuint (g_strv_length (differences), ==, 0);
  g_assert_null (headroom_scenario_dup_default_name (b, a));
  g_clear_pointer (&differences, g_strfreev);

  /* Another model config key: named by its table label. */
  g_assert_true (headroom_project_set_int (b, "model.num_hidden_layers", 16, NULL));
  differences = headroom_project_dup_differences (b, a);
  g_assert_cmpuint (g_strv_length (differences), ==, 1);
  g_assert_cmpstr (differences[0], ==, "model.num_hidden_layers");
}

static void
test_save_load (void)
{
  g_autoptr(HeadroomProject) project = two_scenarios ();
  g_autoptr(HeadroomProject) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  HeadroomProject *settings;

  g_assert_true (headroom_project_rename_scenario (project, 0, "  Today\n", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (headroom_scenario_get_name (scenario_at (project, 0)), ==, "Today");

  text = to_string (project);
  g_assert_nonnull (strstr (text, "\"version\": 2,\n"));
  g_assert_nonnull (strstr (text, "  \"scenarios\": [\n    {\n      \"name\": \"Today\",\n"
                                  "      \"model\": {\n        \"preset\": \"llama-3.1-8b\","));

  loaded = load_string (text, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_project_get_scenarios (loaded)), ==, 2);
  g_assert_cmpstr (headroom_scenario_get_name (scenario_at (loaded, 1)), ==,
                   "16 × NVIDIA A100 SXM4 80GB, ZeRO stage 3");
  settings = headroom_scenario_get_settings (scenario_at (loaded, 1));
  g_assert_cmpint (headroom_project_get_int (settings, "hardware.nodes"), ==, 2);
  g_assert_cmpint (headroom_project_get_int (settings, "training.zero_stage"), ==, 3);
  g_assert_cmpstr (headroom_project_get_string (settings, "hardware.gpu"), ==, "a100-80gb-sxm");
  settings = headroom_scenario_get_settings (scenario_at (loaded, 0));
  g_assert_cmpint (headroom_project_get_int (settings, "hardware.nodes"), ==, 1);
  g_assert_cmpint (headroom_project_get_int (settings, "training.zero_stage"), ==, 1);
  g_assert_false (headroom_project_get_modified (loaded));

  /* Saved again: the same bytes. */
  again = to_string (loaded);
  g_assert_cmpstr (again, ==, text);
}

/* A version-1 file (what Headroom wrote before scenarios) opens, and is
 * written as version 1 again while it has none. */
static void
test_version_1 (void)
{
  const char *v1 =
    "{\n"
    "  \"format\": \"headroom-project\",\n"
    "  \"version\": 1,\n"
    "  \"model\": { \"preset\": \"llama-3.1-8b\" },\n"
    "  \"hardware\": { \"gpu\": \"h100-sxm\", \"nodes\": 2 },\n"
    "  \"training\": { \"zero_stage\": 2 }\n"
    "}\n";
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  project = load_string (v1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_project_get_scenarios (project)), ==, 0);
  g_assert_cmpint (headroom_project_get_int (project, "hardware.nodes"), ==, 2);
  text = to_string (project);
  g_assert_nonnull (strstr (text, "\"version\": 1,\n"));
  g_assert_null (strstr (text, "scenarios"));

  /* Keeping one makes it a version-2 file. */
  g_assert_nonnull (headroom_project_keep_scenario (project, "ZeRO-2", NULL));
  g_clear_pointer (&text, g_free);
  text = to_string (project);
  g_assert_nonnull (strstr (text, "\"version\": 2,\n"));
}

static const struct
{
  const char *scenarios;
  const char *message;
} bad_files[] = {
  { "{}", "scenarios: expected an array" },
  { "[1]", "scenarios: scenario 1: expected an object" },
  { "[{\"hardware\": {\"nodes\": 2}}]", "scenarios: scenario 1: expected a name (a string)" },
  { "[{\"name\": \" \"}]", "scenarios: scenario 1: expected a name (a string)" },
  { "[{\"name\": \"A\"}, {\"name\": \"B\", \"training\": {\"seq_len\": -1}}]",
    "scenarios: scenario 2 (“B”): Sequence length: -1 is out of range" },
  { "[{\"name\": \"1\"}, {\"name\": \"2\"}, {\"name\": \"3\"}, {\"name\": \"4\"}, "
    "{\"name\": \"5\"}, {\"name\": \"6\"}, {\"name\": \"7\"}]",
    "scenarios: 7 scenarios; a project keeps at most 6" },
};

static void
test_bad_scenarios (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_files); i++)
    {
      g_autofree char *text = g_strdup_printf ("{\"format\": \"headroom-project\", \"version\": 2, "
                                               "\"model\": {\"preset\": \"llama-3.1-8b\"}, "
                                               "\"scenarios\": %s}", bad_files[i].scenarios);
      g_autoptr(HeadroomProject) project = NULL;
      g_autoptr(GError) error = NULL;

      project = load_string (text, &error);
      g_assert_null (project);
      g_assert_error (error, HEADROOM_PROJECT_ERROR, error->code);
      g_assert_true (g_str_has_prefix (error->message, bad_files[i].message));
      g_assert_cmpstr (headroom_project_error_get_key (error), ==, "scenarios");
    }
}

static void
count_changed (HeadroomProject *project,
               const char      *key,
               GPtrArray       *keys)
{
  g_ptr_array_add (keys, g_strdup (key));
}

static void
test_apply_duplicate_remove (void)
{
  g_autoptr(HeadroomProject) project = two_scenarios ();
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  HeadroomScenario *copy;

  /* The editor holds the second scenario's settings; apply the first. */
  g_signal_connect (project, "changed", G_CALLBACK (count_changed), keys);
  headroom_project_apply_scenario (project, 0);
  g_assert_cmpstr (headroom_project_get_string (project, "hardware.gpu"), ==, "h100-sxm");
  g_assert_cmpint (headroom_project_get_int (project, "hardware.nodes"), ==, 1);
  g_assert_cmpint (headroom_project_get_int (project, "training.zero_stage"), ==, 1);
  /* One ::changed per key whose value changed, nothing else. */
  g_assert_cmpuint (keys->len, ==, 3);
  g_assert_cmpstr (keys->pdata[0], ==, "hardware.gpu");
  g_assert_cmpstr (keys->pdata[1], ==, "hardware.nodes");
  g_assert_cmpstr (keys->pdata[2], ==, "training.zero_stage");
  g_signal_handlers_disconnect_by_func (project, count_changed, keys);

  copy = headroom_project_duplicate_scenario (project, 0, &error);
  g_assert_no_error (error);
  g_assert_true (copy == scenario_at (project, 1));
  g_assert_cmpstr (headroom_scenario_get_name (copy), ==,
                   "8 × NVIDIA H100 SXM5 80GB, Llama 3.1 8B (2)");
  /* A copy, not the same settings. */
  g_assert_true (headroom_scenario_get_settings (copy)
                 != headroom_scenario_get_settings (scenario_at (project, 0)));

  g_assert_false (headroom_project_rename_scenario (project, 1, "\t", &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  g_clear_error (&error);

  headroom_project_set_modified (project, FALSE);
  headroom_project_remove_scenario (project, 1);
  g_assert_true (headroom_project_get_modified (project));
  g_assert_cmpuint (g_list_model_get_n_items (headroom_project_get_scenarios (project)), ==, 2);
  g_assert_cmpstr (headroom_scenario_get_name (scenario_at (project, 1)), ==,
                   "16 × NVIDIA A100 SXM4 80GB, ZeRO stage 3");
}

static void
test_at_most_six (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GError) error = NULL;

  for (int i = 0; i < HEADROOM_PROJECT_MAX_SCENARIOS; i++)
    g_assert_nonnull (headroom_project_keep_scenario (project, NULL, NULL));
  g_assert_null (headroom_project_keep_scenario (project, NULL, &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (headroom_project_duplicate_scenario (project, 0, &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scenario/default-names", test_default_names);
  g_test_add_func ("/scenario/inference-keys-ignored", test_inference_keys_ignored);
  g_test_add_func ("/scenario/save-load", test_save_load);
  g_test_add_func ("/scenario/version-1", test_version_1);
  g_test_add_func ("/scenario/bad-scenarios", test_bad_scenarios);
  g_test_add_func ("/scenario/apply-duplicate-remove", test_apply_duplicate_remove);
  g_test_add_func ("/scenario/at-most-six", test_at_most_six);

  return g_test_run ();
}
