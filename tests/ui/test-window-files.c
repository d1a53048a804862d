/* test-window-files.c: the window opens, saves and imports documents, GPUs and presets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under Xvfb with GTK_A11Y=none; gtk_test_init makes warnings and
 * criticals fatal. The window starts on the example project: Llama-3.1-8B
 * (32 layers, hidden 4096, 32 heads, 8 KV heads, SwiGLU MLP 14336,
 * vocabulary 128256, untied embeddings).
 */
#include "config.h"

#include "test-window.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "headroom-catalog.h"

static void
test_window_save_and_reopen (void)
{
  HeadroomWindow *window = window_new ();
  g_autofree char *path = g_build_filename (tmp_dir, "reopen.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  HeadroomProject *project;

  set_spin (window, "training.micro_batch", 4);
  g_assert_true (headroom_window_save_to_file (window, file, &error));
  g_assert_no_error (error);
  g_assert_false (headroom_project_get_modified (headroom_window_get_project (window)));

  set_spin (window, "training.micro_batch", 2);
  g_assert_true (headroom_project_get_modified (headroom_window_get_project (window)));

  g_assert_true (headroom_window_load_file (window, file, &error));
  g_assert_no_error (error);
  project = headroom_window_get_project (window);
  g_assert_cmpint (headroom_project_get_int (project, "training.micro_batch"), ==, 4);
  g_assert_false (headroom_project_get_modified (project));
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "training.micro_batch"))),
                     ==, 4);
  g_assert_true (g_file_equal (headroom_project_get_file (project), file));
  window_destroy (window);
  g_unlink (path);
}

static void
test_window_unsaved_changes (void)
{
  HeadroomWindow *window = window_new ();
  g_autofree char *path = g_build_filename (tmp_dir, "unsaved.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  AdwMessageDialog *dialog;
  HeadroomProject *project;

  /* Unmodified: New runs at once, without asking. */
  g_assert_null (headroom_window_new_project (window));

  set_spin (window, "training.seq_len", 4096);
  project = headroom_window_get_project (window);

  /* Cancel keeps the document and its changes. */
  dialog = headroom_window_new_project (window);
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "cancel");
  drain_main_loop ();
  g_assert_true (headroom_window_get_project (window) == project);
  g_assert_true (headroom_project_get_modified (project));

  /* Discard starts the example project again. */
  dialog = headroom_window_new_project (window);
  adw_message_dialog_response (dialog, "discard");
  drain_main_loop ();
  project = headroom_window_get_project (window);
  g_assert_cmpint (headroom_project_get_int (project, "training.seq_len"), ==, 8192);
  g_assert_false (headroom_project_get_modified (project));

  /* Save writes the file it has, then goes on. */
  set_spin (window, "training.seq_len", 2048);
  g_assert_true (headroom_window_save_to_file (window, file, &error));
  g_assert_no_error (error);
  set_spin (window, "training.seq_len", 1024);
  dialog = headroom_window_new_project (window);
  adw_message_dialog_response (dialog, "save");
  drain_main_loop ();
  g_assert_cmpint (headroom_project_get_int (headroom_window_get_project (window), "training.seq_len"),
                   ==, 8192);
  {
    g_autoptr(HeadroomProject) saved = headroom_project_new_from_file (file, &error);

    g_assert_no_error (error);
    g_assert_cmpint (headroom_project_get_int (saved, "training.seq_len"), ==, 1024);
  }

  /* Closing with changes asks too; the window stays until answered. */
  set_spin (window, "training.seq_len", 512);
  dialog = headroom_window_close_project (window);
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "cancel");
  drain_main_loop ();
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  window_destroy (window);
  g_unlink (path);
}

/* A Hugging Face config.json, as dropped on the window or imported, becomes
 * the open project's model, unsaved. GPT-2 (124M) has 124,439,808 parameters
 * (known-models.json): embeddings 50257·768 + 1024·768, twelve layers of
 * 7,087,872, final LayerNorm 1,536, LM head tied. */
static void
test_window_load_config (void)
{
  HeadroomWindow *window = window_new ();
  g_autofree char *path = g_build_filename (tmp_dir, "config.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *config =
    "{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 12, "
    "\"n_inner\": null, \"vocab_size\": 50257, \"n_positions\": 1024, \"n_ctx\": 1024, "
    "\"activation_function\": \"gelu_new\", \"layer_norm_epsilon\": 1e-05, "
    "\"tie_word_embeddings\": true}";

  g_assert_true (g_file_set_contents (path, config, -1, &error));
  g_assert_true (headroom_window_load_file (window, file, &error));
  g_assert_no_error (error);
  drain_main_loop ();
  g_assert_cmpfloat (headroom_estimator_get_total_params (headroom_window_get_estimator (window)),
                     ==, 124439808.0);
  g_assert_true (headroom_project_get_modified (headroom_window_get_project (window)));
  g_assert_null (headroom_project_get_file (headroom_window_get_project (window)));
  /* The rows follow the new document. */
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "model.num_hidden_layers"))),
                     ==, 12);
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "model.hidden_size"))),
                     ==, 768);
  /* Edited under the table's name, the layers reach GPT-2's n_layer: 12
   * more layers of 7,087,872 parameters (test-project.c) add 85,054,464. */
  set_spin (window, "model.num_hidden_layers", 24);
  g_assert_cmpfloat (headroom_estimator_get_total_params (headroom_window_get_estimator (window)),
                     ==, 124439808.0 + 85054464.0);
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "model.num_hidden_layers"))),
                     ==, 24);

  /* Not JSON at all: an error, and the document stays. */
  g_assert_true (g_file_set_contents (path, "{\"n_layer\": ", -1, &error));
  g_assert_false (headroom_window_load_file (window, file, &error));
  g_assert_nonnull (error);
  g_assert_cmpfloat (headroom_estimator_get_total_params (headroom_window_get_estimator (window)),
                     ==, 124439808.0 + 85054464.0);
  window_destroy (window);
  g_unlink (path);
}

/* A config of an unknown model_type opens to an error state that names it,
 * with no figure in view; the generic decoder (the page's button, or the
 * model key's combo row) reads it as Llama-style, and a banner says so.
 * The config is tiny-llama.json's shape (tests/data/cli): embedding and
 * untied head 100·64 each, final norm 64, two layers of 4·64² + 3·64·128
 * + 2·64 = 41,088: 95,040 parameters. */
static void
test_window_unknown_model (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomEstimator *estimator = headroom_window_get_estimator (window);
  GtkWidget *bar = GTK_WIDGET (headroom_window_get_memory_bar (window));
  g_autofree char *path = g_build_filename (tmp_dir, "config.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) empty = json_object_new ();
  GtkWidget *row;
  const char *config =
    "{\"model_type\": \"mystery\", \"hidden_size\": 64, \"intermediate_size\": 128, "
    "\"num_attention_heads\": 4, \"num_key_value_heads\": 4, \"num_hidden_layers\": 2, "
    "\"vocab_size\": 100, \"max_position_embeddings\": 64, \"tie_word_embeddings\": false}";

  g_assert_true (bar != NULL && gtk_widget_is_drawable (bar));
  g_assert_null (headroom_window_get_unknown_model_text (window));
  g_assert_true (g_file_set_contents (path, config, -1, &error));
  g_assert_true (headroom_window_load_file (window, file, &error));
  g_assert_no_error (error);
  drain_main_loop ();

  /* The error state: the model_type named, no figure drawn, no banner. */
  g_assert_nonnull (headroom_window_get_unknown_model_text (window));
  g_assert_nonnull (strstr (headroom_window_get_unknown_model_text (window), "“mystery”"));
  g_assert_nonnull (headroom_estimator_get_error (estimator));
  g_assert_false (gtk_widget_is_drawable (bar));
  g_assert_null (headroom_window_get_error_text (window));
  g_assert_null (headroom_window_get_assumed_text (window));
  row = headroom_window_get_row (window, "model.assume_architecture");
  g_assert_true (ADW_IS_COMBO_ROW (row));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row)), ==, 0);

  /* The generic decoder: figures again, and the banner says they are assumed. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.assume-generic", NULL));
  drain_main_loop ();
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, 95040.0);
  g_assert_cmpstr (headroom_estimator_get_assumed_architecture (estimator), ==, "llama");
  g_assert_null (headroom_window_get_unknown_model_text (window));
  g_assert_true (gtk_widget_is_drawable (bar));
  g_assert_nonnull (headroom_window_get_assumed_text (window));
  g_assert_true (g_str_has_prefix (headroom_window_get_assumed_text (window),
                                   "Architecture assumed: Generic decoder (Llama-style)"));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row)), ==, 1);

  /* Refused again from the combo row: the error state, no figure. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (row), 0);
  drain_main_loop ();
  g_assert_nonnull (strstr (headroom_window_get_unknown_model_text (window), "“mystery”"));
  g_assert_false (gtk_widget_is_drawable (bar));
  g_assert_null (headroom_window_get_assumed_text (window));

  /* Saved so and opened again: the same error state, no figure. */
  {
    g_autofree char *saved_path = g_build_filename (tmp_dir, "unknown.headroom", NULL);
    g_autoptr(GFile) saved = g_file_new_for_path (saved_path);

    g_assert_true (headroom_window_save_to_file (window, saved, &error));
    g_assert_no_error (error);
    g_assert_true (headroom_window_load_file (window, saved, &error));
    g_assert_no_error (error);
    drain_main_loop ();
    estimator = headroom_window_get_estimator (window);
    row = headroom_window_get_row (window, "model.assume_architecture");
    g_assert_nonnull (strstr (headroom_window_get_unknown_model_text (window), "“mystery”"));
    g_assert_false (gtk_widget_is_drawable (bar));
    g_unlink (saved_path);
  }

  /* A preset clears it all. */
  g_assert_true (headroom_project_set_string (headroom_window_get_project (window), "model.preset",
                                              "llama-3.1-8b", NULL));
  headroom_project_set_config (headroom_window_get_project (window), empty);
  drain_main_loop ();
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, LLAMA_8B_PARAMS);
  g_assert_null (headroom_window_get_unknown_model_text (window));
  g_assert_null (headroom_window_get_assumed_text (window));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row)), ==, 0);
  window_destroy (window);
  g_unlink (path);
}

/* The description of the Model page's Parameters group, under `widget`. */
static const char *
params_description (GtkWidget *widget)
{
  if (ADW_IS_PREFERENCES_GROUP (widget)
      && g_strcmp0 (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (widget)), "Parameters") == 0)
    return adw_preferences_group_get_description (ADW_PREFERENCES_GROUP (widget));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *found = params_description (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A vision-language config is counted for its language model, and the
 * banner over the figures and the Model page's Parameters group say the
 * vision tower is not: LLaVA around
 * tiny-llama.json's language model, 95,040 parameters (as above). */
static void
test_window_text_only (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomEstimator *estimator = headroom_window_get_estimator (window);
  g_autofree char *path = g_build_filename (tmp_dir, "config.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) empty = json_object_new ();
  const char *config =
    "{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llama\", "
    "\"hidden_size\": 64, \"intermediate_size\": 128, \"num_attention_heads\": 4, "
    "\"num_key_value_heads\": 4, \"num_hidden_layers\": 2, \"vocab_size\": 100, "
    "\"max_position_embeddings\": 64, \"tie_word_embeddings\": false}, "
    "\"vision_config\": {\"model_type\": \"clip_vision_model\"}}";

  g_assert_null (headroom_window_get_assumed_text (window));
  g_assert_true (g_file_set_contents (path, config, -1, &error));
  g_assert_true (headroom_window_load_file (window, file, &error));
  g_assert_no_error (error);
  drain_main_loop ();
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, 95040.0);
  g_assert_true (headroom_estimator_get_text_only (estimator));
  g_assert_cmpstr (headroom_window_get_assumed_text (window), ==,
                   "Language model only: the vision tower and its projector are not counted");
  g_assert_nonnull (strstr (params_description (GTK_WIDGET (window)),
                            "for the language model only: the vision tower"));

  /* A preset of a text model clears it. */
  g_assert_true (headroom_project_set_string (headroom_window_get_project (window), "model.preset",
                                              "llama-3.1-8b", NULL));
  headroom_project_set_config (headroom_window_get_project (window), empty);
  drain_main_loop ();
  g_assert_false (headroom_estimator_get_text_only (estimator));
  g_assert_null (headroom_window_get_assumed_text (window));
  g_assert_null (strstr (params_description (GTK_WIDGET (window)), "vision"));
  window_destroy (window);
  g_unlink (path);
}

/* A project file naming a key no setting has (a typo) opens, and the banner
 * says which key was not read; a file without one clears it. */
static void
test_window_unknown_key (void)
{
  HeadroomWindow *window = window_new ();
  g_autofree char *typo_path = g_build_filename (TEST_DATA_DIR, "cli", "typo-key.headroom.json", NULL);
  g_autofree char *clean_path = g_build_filename (TEST_DATA_DIR, "cli", "tiny-train.headroom.json", NULL);
  g_autoptr(GFile) typo = g_file_new_for_path (typo_path);
  g_autoptr(GFile) clean = g_file_new_for_path (clean_path);
  g_autoptr(GError) error = NULL;

  g_assert_true (headroom_window_load_file (window, typo, &error));
  g_assert_no_error (error);
  drain_main_loop ();
  g_assert_cmpstr (headroom_window_get_assumed_text (window), ==,
                   "Not read, no such setting: training.tensor_paralel");
  g_assert_true (headroom_window_load_file (window, clean, &error));
  g_assert_no_error (error);
  drain_main_loop ();
  g_assert_null (headroom_window_get_assumed_text (window));
  window_destroy (window);
}

/* Serves tests/data/hub/ORG/NAME/config.json at /ORG/NAME/resolve/main/config.json. */
static void
serve_hub (SoupServer        *server,
           SoupServerMessage *message,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);
  g_autofree char *file = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (g_strv_length (parts) == 6 && g_str_equal (parts[3], "resolve"))
    file = g_build_filename (TEST_DATA_DIR, "hub", parts[1], parts[2], "config.json", NULL);
  if (file == NULL || !g_file_get_contents (file, &contents, &length, NULL))
    {
      soup_server_message_set_status (message, 404, NULL);
      return;
    }
  soup_server_message_set_status (message, 200, NULL);
  soup_server_message_set_response (message, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&contents), length);
}

/* tiny-llama: hidden 256, 4 layers, 4 heads of 64, 2 KV heads, SwiGLU 688,
 * vocabulary 1000, untied. Embedding and LM head 256,000 each; a layer has
 * q and o 65,536 each, k and v 32,768 each, MLP 3·256·688 = 528,384 and two
 * RMSNorms of 256: 725,504; four layers 2,902,016; final norm 256.
 * Total 3,414,272. */
static void
test_window_import_hub (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *endpoint = NULL;
  GSList *uris;
  HeadroomWindow *window;
  HeadroomProject *before;
  gint64 deadline;

  soup_server_add_handler (server, NULL, serve_hub, NULL, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  endpoint = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  /* Drop the trailing '/' of the listening URI. */
  endpoint[strlen (endpoint) - 1] = '\0';
  g_setenv ("HF_ENDPOINT", endpoint, TRUE);

  /* Import replaces the model of the open project only (issue 13): the
   * hardware set before stays. */
  window = window_new ();
  before = headroom_window_get_project (window);
  g_assert_true (headroom_project_set_int (before, "hardware.nodes", 2, NULL));
  headroom_window_import_hub (window, "hf:tiny-org/tiny-llama");
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (headroom_estimator_get_total_params (headroom_window_get_estimator (window)) != 3414272.0
         && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  drain_main_loop ();
  g_assert_true (headroom_window_get_project (window) == before);
  g_assert_cmpfloat (headroom_estimator_get_total_params (headroom_window_get_estimator (window)),
                     ==, 3414272.0);
  g_assert_cmpint (headroom_project_get_int (before, "hardware.nodes"), ==, 2);
  g_assert_null (headroom_project_get_preset (before));
  g_assert_true (headroom_project_get_modified (before));

  /* A model the Hub does not have: an error, and the model stays. */
  headroom_window_import_hub (window, "tiny-org/missing");
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (headroom_window_get_error_dialog (window) == NULL && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  g_assert_nonnull (headroom_window_get_error_dialog (window));
  g_assert_true (headroom_window_get_project (window) == before);
  g_assert_cmpfloat (headroom_estimator_get_total_params (headroom_window_get_estimator (window)),
                     ==, 3414272.0);

  g_unsetenv ("HF_ENDPOINT");
  window_destroy (window);
}

static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

/* The user's catalog as the next start of the application reads it. */
static HeadroomCatalog *
catalog_after_restart (void)
{
  g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "headroom", NULL);

  return headroom_catalog_new_for_user_dir (dir);
}

/* A custom GPU of 48 GiB, 864 GB/s, 362 TFLOP/s BF16 saved to the catalog
 * becomes the project's GPU, with the same estimate, and is there after a
 * restart. XDG_DATA_HOME is a temporary directory (see main). */
static void
test_window_save_gpu (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomWindow *other;
  HeadroomProject *project = headroom_window_get_project (window);
  HeadroomEstimator *estimator = headroom_window_get_estimator (window);
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  AdwComboRow *gpu_row = ADW_COMBO_ROW (headroom_window_get_row (window, "hardware.gpu"));
  GtkWidget *custom_group = gtk_widget_get_ancestor (headroom_window_get_row (window, "hardware.custom.memory"),
                                                     ADW_TYPE_PREFERENCES_GROUP);
  guint n_gpus = g_list_model_get_n_items (headroom_catalog_get_gpus (catalog));
  g_autoptr(HeadroomCatalog) restarted = NULL;
  g_autoptr(GError) error = NULL;
  AdwMessageDialog *dialog;
  GtkEditable *entry;
  HeadroomGpuInfo *info;
  double step_seconds;

  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "custom", &error));
  g_assert_no_error (error);
  set_spin (window, "hardware.custom.memory", 48);
  set_spin (window, "hardware.custom.memory_bandwidth", 864);
  set_spin (window, "hardware.custom.bf16", 362);
  g_assert_true (gtk_widget_get_visible (custom_group));
  g_assert_cmpfloat (headroom_estimator_get_memory_capacity (estimator), ==, 48.0 * 1073741824.0);
  step_seconds = headroom_estimator_get_step_seconds (estimator);
  g_assert_cmpfloat (step_seconds, >, 0);

  /* Names that give no id or a built-in one are refused; so are figures
   * the estimate would refuse. Nothing changes then. */
  g_assert_false (headroom_window_save_custom_gpu (window, "!?", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (headroom_window_save_custom_gpu (window, "H100 SXM", &error));
  g_assert_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_EXISTS);
  g_clear_error (&error);
  set_spin (window, "hardware.custom.memory", 0);
  g_assert_false (headroom_window_save_custom_gpu (window, "Empty", &error));
  g_assert_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "Memory: "));
  g_assert_cmpstr (headroom_project_error_get_key (error), ==, "hardware.custom.memory");
  g_clear_error (&error);
  set_spin (window, "hardware.custom.memory", 48);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_gpus (catalog)), ==, n_gpus);
  g_assert_cmpstr (headroom_project_get_string (project, "hardware.gpu"), ==, "custom");

  /* A second window on a custom GPU sees the new GPU arrive too. */
  other = window_new ();
  g_assert_true (headroom_project_set_string (headroom_window_get_project (other), "hardware.gpu",
                                              "custom", &error));
  g_assert_no_error (error);
  drain_main_loop ();

  /* Through the dialog the button opens: a built-in id disables Save. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.save-gpu", NULL);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "save"));
  gtk_editable_set_text (entry, "H100 SXM");
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "save"));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "error"));
  gtk_editable_set_text (entry, "  My Test GPU (48 GB) ");
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "save"));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "my-test-gpu-48-gb"));
  adw_message_dialog_response (dialog, "save");
  drain_main_loop ();

  info = headroom_catalog_find_gpu (catalog, "my-test-gpu-48-gb");
  g_assert_nonnull (info);
  g_assert_true (headroom_gpu_info_get_user_defined (info));
  g_assert_cmpstr (headroom_gpu_info_get_name (info), ==, "My Test GPU (48 GB)");
  g_assert_cmpfloat (headroom_gpu_info_get_gpu (info)->memory_bytes, ==, 48.0 * 1073741824.0);
  g_assert_cmpfloat (headroom_gpu_info_get_gpu (info)->memory_bandwidth, ==, 864e9);
  g_assert_cmpfloat (headroom_gpu_info_get_gpu (info)->peak_flops[HR_DTYPE_BF16], ==, 362e12);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_gpus (catalog)), ==, n_gpus + 1);

  /* The project and the chooser now name it; custom is off; same estimate. */
  g_assert_cmpstr (headroom_project_get_string (project, "hardware.gpu"), ==, "my-test-gpu-48-gb");
  g_assert_true (adw_combo_row_get_selected_item (gpu_row) == (gpointer) info);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (gpu_row)));
  g_assert_false (gtk_widget_get_visible (custom_group));
  g_assert_cmpfloat (headroom_estimator_get_memory_capacity (estimator), ==, 48.0 * 1073741824.0);
  g_assert_cmpfloat (headroom_estimator_get_step_seconds (estimator), ==, step_seconds);

  g_assert_true (headroom_project_set_string (headroom_window_get_project (other), "hardware.gpu",
                                              "my-test-gpu-48-gb", &error));
  g_assert_no_error (error);
  drain_main_loop ();
  g_assert_true (adw_combo_row_get_selected_item (ADW_COMBO_ROW (headroom_window_get_row (other, "hardware.gpu")))
                 == (gpointer) info);
  window_destroy (other);

  restarted = catalog_after_restart ();
  g_assert_null (headroom_catalog_get_load_error (restarted));
  info = headroom_catalog_find_gpu (restarted, "my-test-gpu-48-gb");
  g_assert_nonnull (info);
  g_assert_cmpfloat (headroom_gpu_info_get_gpu (info)->peak_flops[HR_DTYPE_BF16], ==, 362e12);

  window_destroy (window);
}

/* Llama-3.1-8B cut to 16 layers, saved as a preset: 8,030,261,248 − 16 ·
 * 218,112,000 = 4,540,469,248 parameters, with the edits now in the preset. */
static void
test_window_save_preset (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomProject *project = headroom_window_get_project (window);
  HeadroomEstimator *estimator = headroom_window_get_estimator (window);
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  const double params = LLAMA_8B_PARAMS - 16 * LLAMA_8B_PER_LAYER;
  g_autoptr(HeadroomCatalog) restarted = NULL;
  g_autoptr(GError) error = NULL;
  HeadroomModelPreset *preset;
  HrModel model;
  HrParams counted;

  set_spin (window, "model.num_hidden_layers", 16);
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, params);

  g_assert_false (headroom_window_save_model_preset (window, "GPT2", &error));
  g_assert_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_EXISTS);
  g_clear_error (&error);

  g_assert_true (headroom_window_save_model_preset (window, "Llama 3.1 8B, 16 layers", &error));
  g_assert_no_error (error);
  drain_main_loop ();

  preset = headroom_catalog_find_model (catalog, "llama-3-1-8b-16-layers");
  g_assert_nonnull (preset);
  g_assert_true (headroom_model_preset_get_user_defined (preset));
  g_assert_cmpstr (headroom_project_get_preset (project), ==, "llama-3-1-8b-16-layers");
  g_assert_cmpuint (json_object_get_size (headroom_project_get_config (project)), ==, 0);
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, params);
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "model.num_hidden_layers"))),
                     ==, 16);

  restarted = catalog_after_restart ();
  g_assert_null (headroom_catalog_get_load_error (restarted));
  g_assert_true (headroom_catalog_lookup_model (restarted, "llama-3-1-8b-16-layers", &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (hr_model_params (&model, &counted, NULL), ==, HR_OK);
  g_assert_cmpfloat ((double) counted.total, ==, params);

  window_destroy (window);
}

static void
open_via_action (HeadroomWindow *window,
                 GFile          *file)
{
  g_autofree char *uri = g_file_get_uri (file);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-recent", "s", uri));
  drain_main_loop ();
}

/* Errors go to a dialog, whole and as plain text, naming the file and the
 * setting by its label; the document stays (issue 16). */
static void
test_window_open_errors (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomProject *before = headroom_window_get_project (window);
  g_autofree char *path = g_build_filename (tmp_dir, "a <b> & c.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  AdwMessageDialog *dialog;
  const char *truncated = "{\"format\": \"headroom-project\", \"version\": 1, \"training\": {";
  const char *invalid = "{\"format\": \"headroom-project\", \"version\": 1, "
                        "\"training\": {\"zero_stage\": 7}}\n";

  g_assert_true (g_file_set_contents (path, truncated, -1, NULL));
  open_via_action (window, file);
  dialog = headroom_window_get_error_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_nonnull (strstr (adw_message_dialog_get_heading (dialog), "a <b> & c.json"));
  g_assert_false (adw_message_dialog_get_heading_use_markup (dialog));
  g_assert_false (adw_message_dialog_get_body_use_markup (dialog));
  g_assert_cmpuint (strlen (adw_message_dialog_get_body (dialog)), >, 0);
  g_assert_true (headroom_window_get_project (window) == before);
  gtk_window_destroy (GTK_WINDOW (dialog));
  drain_main_loop ();

  g_assert_true (g_file_set_contents (path, invalid, -1, NULL));
  open_via_action (window, file);
  dialog = headroom_window_get_error_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_null (strstr (adw_message_dialog_get_body (dialog), "training.zero_stage"));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "ZeRO stage"));
  gtk_window_destroy (GTK_WINDOW (dialog));
  window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  window_tests_init (&argc, &argv, "io.github.headroom.Headroom.TestWindowFiles");

  g_test_add_func ("/window/save-and-reopen", test_window_save_and_reopen);
  g_test_add_func ("/window/unsaved-changes", test_window_unsaved_changes);
  g_test_add_func ("/window/load-config", test_window_load_config);
  g_test_add_func ("/window/unknown-model", test_window_unknown_model);
  g_test_add_func ("/window/text-only", test_window_text_only);
  g_test_add_func ("/window/unknown-key", test_window_unknown_key);
  g_test_add_func ("/window/import-hub", test_window_import_hub);
  g_test_add_func ("/window/save-gpu", test_window_save_gpu);
  g_test_add_func ("/window/save-preset", test_window_save_preset);
  g_test_add_func ("/window/open-errors", test_window_open_errors);

  status = g_test_run ();
  window_tests_finish ();
  return status;
}
