/* test-window.c: the main window edits the project and shows the estimate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under Xvfb with GTK_A11Y=none; gtk_test_init makes warnings and
 * criticals fatal. The window starts on the example project: Llama-3.1-8B
 * (32 layers, hidden 4096, 32 heads, 8 KV heads, SwiGLU MLP 14336,
 * vocabulary 128256, untied embeddings).
 */
#include "config.h"

#include "test-ui.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <libsoup/soup.h>
#include <math.h>

#include "headroom-application.h"
#include "headroom-catalog.h"
#include "headroom-compare-view.h"
#include "headroom-format.h"
#include "headroom-plan-view.h"
#include "headroom-quantity.h"
#include "headroom-spin-row.h"
#include "headroom-switch-row.h"
#include "headroom-window-private.h"

/* Llama-3.1-8B has 8,030,261,248 parameters (known-models.json). One layer:
 * q and o 4096², k and v 4096·1024 each, MLP 3·4096·14336, two RMSNorms of
 * 4096: 33,554,432 + 8,388,608 + 176,160,768 + 8,192 = 218,112,000. */
#define LLAMA_8B_PARAMS   8030261248.0
#define LLAMA_8B_PER_LAYER 218112000.0

static HeadroomApplication *app;
static char *tmp_dir;

static HeadroomWindow *
window_new (void)
{
  HeadroomWindow *window = headroom_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  drain_main_loop ();
  return window;
}

static void
window_destroy (HeadroomWindow *window)
{
  headroom_project_set_modified (headroom_window_get_project (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

static void
set_spin (HeadroomWindow *window,
          const char     *key,
          double          value)
{
  GtkWidget *row = headroom_window_get_row (window, key);

  g_assert_true (HEADROOM_IS_SPIN_ROW (row));
  headroom_spin_row_set_value (HEADROOM_SPIN_ROW (row), value);
  drain_main_loop ();
}

static void
test_window_builds (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomEstimator *estimator = headroom_window_get_estimator (window);
  HeadroomMemoryBar *bar = headroom_window_get_memory_bar (window);

  g_assert_true (headroom_estimator_get_has_result (estimator));
  g_assert_null (headroom_estimator_get_error (estimator));
  g_assert_null (headroom_window_get_error_text (window));
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==, LLAMA_8B_PARAMS);
  /* The rows show the project's values. */
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "model.num_hidden_layers"))),
                     ==, 32);
  /* One H100 SXM holds 80 GiB = 85,899,345,920 bytes (gpus.json), the capacity marker. */
  g_assert_cmpfloat (headroom_memory_bar_get_capacity (bar), ==,
                     headroom_estimator_get_memory_capacity (estimator));
  g_assert_cmpfloat (headroom_memory_bar_get_total (bar), >, 0);
  g_assert_nonnull (strstr (headroom_memory_bar_get_description (bar), "GPU memory"));
  g_assert_false (headroom_project_get_modified (headroom_window_get_project (window)));
  /* A measured utilisation overrides the predicted step time (docs/training.md). */
  {
    GtkWidget *mfu = headroom_window_get_row (window, "training.mfu");

    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (mfu)), ==,
                     "Measured FLOPs utilisation");
    g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (mfu), "overrides the prediction"));
  }
  window_destroy (window);
}

static void
test_window_model_change (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomEstimator *estimator = headroom_window_get_estimator (window);
  HeadroomMemoryBar *bar = headroom_window_get_memory_bar (window);
  g_autofree char *before = g_strdup (headroom_memory_bar_get_description (bar));
  double total_before = headroom_memory_bar_get_total (bar);

  set_spin (window, "model.num_hidden_layers", 64);

  /* 32 more layers of 218,112,000 parameters each. */
  g_assert_cmpfloat (headroom_estimator_get_total_params (estimator), ==,
                     LLAMA_8B_PARAMS + 32 * LLAMA_8B_PER_LAYER);
  g_assert_cmpfloat (headroom_memory_bar_get_total (bar), >, total_before);
  g_assert_cmpstr (headroom_memory_bar_get_description (bar), !=, before);
  /* The description reads the estimator's new weights segment, first in the list. */
  {
    g_autoptr(HeadroomQuantity) weights =
      g_list_model_get_item (headroom_estimator_get_memory_segments (estimator), 0);
    g_autofree char *size = headroom_format_gib (headroom_quantity_get_value (weights));
    g_autofree char *expected = g_strdup_printf ("; Weights %s;", size);

    g_assert_cmpstr (headroom_quantity_get_name (weights), ==, "weights");
    g_assert_nonnull (strstr (headroom_memory_bar_get_description (bar), expected));
  }
  g_assert_true (headroom_project_get_modified (headroom_window_get_project (window)));
  window_destroy (window);
}

/* ZeRO-Offload moves Llama-3.1-8B's fp32 master weights (4 B), AdamW's m
 * and v (8 B) and an fp32 gradient copy (4 B) per parameter to host memory.
 * The example runs TP 2: a rank holds half of every matrix and all 65 norms
 * of 4096 (266,240 parameters), (8,030,261,248 + 266,240) / 2 =
 * 4,015,263,744 parameters, sharded by ZeRO-1 over 4 data-parallel ranks:
 * 16 × 4,015,263,744 / 4 = 16,061,054,976 bytes = 15.0 GiB per GPU, of
 * which master weights and gradients 3.74 GiB each, m and v 7.48 GiB. */
static void
test_window_offload (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomMemoryBar *cpu_bar = headroom_window_get_cpu_bar (window);
  GtkWidget *row = headroom_window_get_row (window, "training.offload_optimizer");
  g_autofree char *expected = NULL;
  const char *description;

  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (cpu_bar)));
  g_assert_true (HEADROOM_IS_SWITCH_ROW (row));
  /* The predicted step time does not cover a CPU optimizer step: ZeRO-Offload
   * is timed from a measured utilisation. */
  g_assert_true (g_str_has_prefix (headroom_window_get_time_caption (window),
                                   "Predicted from the hardware, as the Plan view predicts them"));
  g_assert_true (headroom_project_set_double (headroom_window_get_project (window),
                                              "training.mfu", 0.4, NULL));
  headroom_switch_row_set_active (HEADROOM_SWITCH_ROW (row), TRUE);
  drain_main_loop ();
  /* The override is said next to the times while it is on (issue 13). */
  g_assert_true (g_str_has_prefix (headroom_window_get_time_caption (window),
                                   "From the utilisation set (40 %), which overrides the prediction"));

  g_assert_true (headroom_project_get_boolean (headroom_window_get_project (window),
                                               "training.offload_optimizer"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (cpu_bar)));
  g_assert_cmpfloat (headroom_memory_bar_get_total (cpu_bar), ==, 16061054976.0);
  description = headroom_memory_bar_get_description (cpu_bar);
  g_assert_true (g_str_has_prefix (description, "CPU memory per GPU (offloaded states): "
                                                "15.0 GiB in total; "));
  g_assert_nonnull (strstr (description, "Optimizer states (CPU) 7.48 GiB"));
  g_assert_nonnull (strstr (description, "Master weights (CPU) 3.74 GiB"));
  g_assert_nonnull (strstr (description, "Gradients (CPU) 3.74 GiB"));
  /* Not counted against the GPU's capacity. */
  g_assert_null (strstr (headroom_memory_bar_get_description (headroom_window_get_memory_bar (window)),
                         "(CPU)"));

  headroom_switch_row_set_active (HEADROOM_SWITCH_ROW (row), FALSE);
  drain_main_loop ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (cpu_bar)));
  window_destroy (window);
}

static void
test_window_invalid_input (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomMemoryBar *bar = headroom_window_get_memory_bar (window);
  g_autofree char *before = g_strdup (headroom_memory_bar_get_description (bar));
  GtkWidget *row = headroom_window_get_row (window, "model.num_attention_heads");
  const char *error;

  /* 3 heads do not divide the hidden size 4096. */
  set_spin (window, "model.num_attention_heads", 3);
  error = headroom_window_get_error_text (window);
  g_assert_nonnull (error);
  /* Named by the label the user sees, never by the dotted key. */
  g_assert_true (g_str_has_prefix (error, "Attention heads: "));
  g_assert_null (strstr (error, "num_attention_heads"));
  g_assert_true (gtk_widget_has_css_class (row, "error"));
  /* The last valid estimate stays on screen. */
  g_assert_cmpstr (headroom_memory_bar_get_description (bar), ==, before);

  set_spin (window, "model.num_attention_heads", 32);
  g_assert_null (headroom_window_get_error_text (window));
  g_assert_false (gtk_widget_has_css_class (row, "error"));

  /* A cross-key check: the label, the problem, and the row marked. */
  set_spin (window, "training.tensor_parallel", 3);
  g_assert_cmpstr (headroom_window_get_error_text (window), ==,
                   "Tensor parallel: 3 does not divide 8 GPUs");
  g_assert_true (gtk_widget_has_css_class (headroom_window_get_row (window, "training.tensor_parallel"),
                                           "error"));
  set_spin (window, "training.tensor_parallel", 1);
  g_assert_null (headroom_window_get_error_text (window));
  window_destroy (window);
}

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

/* The workload switch turns the third section into Inference. */
static void
test_window_workload (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomProject *project = headroom_window_get_project (window);
  GtkWidget *training = gtk_widget_get_ancestor (headroom_window_get_row (window, "training.micro_batch"),
                                                 ADW_TYPE_PREFERENCES_GROUP);
  GtkWidget *inference = gtk_widget_get_ancestor (headroom_window_get_row (window, "inference.batch"),
                                                  ADW_TYPE_PREFERENCES_GROUP);
  GtkWidget *combo = headroom_window_get_row (window, "workload");
  GListModel *summary;
  gboolean has_ttft = FALSE;

  g_assert_true (gtk_widget_get_visible (training));
  g_assert_false (gtk_widget_get_visible (inference));

  /* Choice 1 of "training", "inference". */
  adw_combo_row_set_selected (ADW_COMBO_ROW (combo), 1);
  drain_main_loop ();
  g_assert_cmpint (headroom_project_get_workload (project), ==, HEADROOM_WORKLOAD_INFERENCE);
  g_assert_false (gtk_widget_get_visible (training));
  g_assert_true (gtk_widget_get_visible (inference));
  summary = headroom_estimator_get_summary (headroom_window_get_estimator (window));
  for (guint i = 0; i < g_list_model_get_n_items (summary); i++)
    {
      g_autoptr(HeadroomQuantity) quantity = g_list_model_get_item (summary, i);

      has_ttft |= g_strcmp0 (headroom_quantity_get_name (quantity), "time_to_first_token") == 0;
    }
  g_assert_true (has_ttft);
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

static void
test_memory_bar_over_capacity (void)
{
  GtkWidget *bar = g_object_ref_sink (headroom_memory_bar_new ());
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (bar);
  const char *description;

  /* 60 + 30 GiB against 80 GiB: 10 GiB over. */
  headroom_memory_bar_set_title (self, "GPU memory");
  headroom_memory_bar_set_capacity (self, 80.0 * 1073741824.0);
  headroom_memory_bar_add_segment (self, "Weights", "blue_3", 60.0 * 1073741824.0, NULL);
  headroom_memory_bar_add_segment (self, "Activations", "green_4", 30.0 * 1073741824.0, "b·s·h·34");
  /* Negative and NaN sizes are drawn as nothing and left out. */
  headroom_memory_bar_add_segment (self, "Broken", "red_3", -5, NULL);
  headroom_memory_bar_add_segment (self, "Unknown", "red_3", NAN, NULL);

  g_assert_cmpfloat (headroom_memory_bar_get_total (self), ==, 90.0 * 1073741824.0);
  description = headroom_memory_bar_get_description (self);
  g_assert_cmpstr (description, ==,
                   "GPU memory: Does not fit: 90.0 GiB needed, 80.0 GiB available (10.0 GiB over); "
                   "Weights 60.0 GiB; Activations 30.0 GiB.");

  headroom_memory_bar_clear (self);
  headroom_memory_bar_add_segment (self, "Weights", "blue_3", 8.5 * 1073741824.0, NULL);
  g_assert_cmpstr (headroom_memory_bar_get_description (self), ==,
                   "GPU memory: Fits: 8.50 GiB of 80.0 GiB (71.5 GiB free); Weights 8.50 GiB.");

  /* A paged optimizer's evicted states past the capacity fit: 80 GiB held,
   * 4.5 GiB in host memory, no overflow. */
  headroom_memory_bar_clear (self);
  headroom_memory_bar_add_segment (self, "Weights", "blue_3", 80.0 * 1073741824.0, NULL);
  headroom_memory_bar_add_paged_segment (self, "Paged out to host memory", "orange_3",
                                         4.5 * 1073741824.0, NULL);
  g_assert_cmpfloat (headroom_memory_bar_get_total (self), ==, 84.5 * 1073741824.0);
  g_assert_cmpstr (headroom_memory_bar_get_description (self), ==,
                   "GPU memory: Fits: 80.0 GiB of 80.0 GiB, 4.50 GiB paged out to host memory; "
                   "Weights 80.0 GiB; Paged out to host memory 4.50 GiB.");
  /* What must stay on the GPU past the capacity still overflows. */
  headroom_memory_bar_clear (self);
  headroom_memory_bar_add_segment (self, "Weights", "blue_3", 82.0 * 1073741824.0, NULL);
  headroom_memory_bar_add_paged_segment (self, "Paged out to host memory", "orange_3",
                                         1.0 * 1073741824.0, NULL);
  g_assert_nonnull (strstr (headroom_memory_bar_get_description (self),
                            "Does not fit: 82.0 GiB needed, 80.0 GiB available (2.00 GiB over)"));
  g_assert_finalize_object (bar);
}

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_descendant (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether a label that `widget` shows (itself or a visible descendant)
 * reads `text`, or contains it when `part` is set. */
static gboolean
shows_label (GtkWidget  *widget,
             const char *text,
             gboolean    part)
{
  if (!gtk_widget_get_visible (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget))
    {
      const char *label = gtk_label_get_label (GTK_LABEL (widget));

      if (part ? strstr (label, text) != NULL : g_str_equal (label, text))
        return TRUE;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_label (child, text, part))
      return TRUE;
  return FALSE;
}

/* Never a silently wrong number: without training tokens the time and cost
 * tiles say what they need, not "$0.00"; the dense Llama's Compute table has
 * no Router row; LoRA's trainable share shows next to its count:
 * 41 943 040 of 8 072 204 288 (r 16 on every linear, test-estimator.c) = 0.52 %. */
static void
test_window_missing_figures (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomProject *project = headroom_window_get_project (window);

  g_assert_false (shows_label (GTK_WIDGET (window), "Cost: needs Training tokens", FALSE));
  g_assert_true (shows_label (GTK_WIDGET (window), "Cost", FALSE));
  set_spin (window, "training.tokens", 0);
  g_assert_true (shows_label (GTK_WIDGET (window), "Cost: needs Training tokens", FALSE));
  g_assert_true (shows_label (GTK_WIDGET (window), "Training time: needs Training tokens", FALSE));
  g_assert_true (shows_label (GTK_WIDGET (window), "—", FALSE));
  g_assert_false (shows_label (GTK_WIDGET (window), "$0.00", FALSE));
  g_assert_false (shows_label (GTK_WIDGET (window), "Router", FALSE));
  set_spin (window, "training.tokens", 1e12);
  g_assert_false (shows_label (GTK_WIDGET (window), "Cost: needs Training tokens", FALSE));
  g_assert_true (shows_label (GTK_WIDGET (window), "Cost", FALSE));

  g_assert_false (shows_label (GTK_WIDGET (window), "%)", TRUE));
  g_assert_true (headroom_project_set_string (project, "training.method", "lora", NULL));
  g_assert_true (headroom_project_set_int (project, "training.lora_rank", 16, NULL));
  g_assert_true (headroom_project_set_string (project, "training.lora_targets", "all-linear", NULL));
  drain_main_loop ();
  g_assert_true (shows_label (GTK_WIDGET (window), "41.9 M (0.52 %)", FALSE));

  /* Mixtral 8x7B has a router: its row, and a share that is not 0.0 %: its
   * forward is 2 · 4096 · 8 experts · 32 layers = 2.1 MFLOP a token against
   * about 2 · 12.9 G active parameters = 25.8 GFLOP, some 0.008 %. */
  g_assert_true (headroom_project_set_string (project, "training.method", "full", NULL));
  g_assert_true (headroom_project_set_string (project, "model.preset", "mixtral-8x7b", NULL));
  drain_main_loop ();
  g_assert_true (shows_label (GTK_WIDGET (window), "Router", FALSE));
  g_assert_true (shows_label (GTK_WIDGET (window), "< 0.1 %", FALSE));
  window_destroy (window);
}

/* Frozen, clearing and refilling the bar changes nothing until the thaw,
 * which updates it once and keeps its legend entries (the results view
 * refills it after every edit). */
static void
test_memory_bar_freeze (void)
{
  GtkWidget *bar = g_object_ref_sink (headroom_memory_bar_new ());
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (bar);
  GtkWidget *entry;

  headroom_memory_bar_set_capacity (self, 80.0 * 1073741824.0);
  headroom_memory_bar_add_segment (self, "Weights", "blue_3", 60.0 * 1073741824.0, NULL);
  entry = find_descendant (bar, GTK_TYPE_BUTTON);
  g_assert_nonnull (entry);

  headroom_memory_bar_freeze (self);
  headroom_memory_bar_clear (self);
  headroom_memory_bar_add_segment (self, "Weights", "blue_3", 8.5 * 1073741824.0, NULL);
  g_assert_cmpstr (headroom_memory_bar_get_description (self), ==,
                   "Fits: 60.0 GiB of 80.0 GiB (20.0 GiB free); Weights 60.0 GiB.");
  headroom_memory_bar_thaw (self);
  g_assert_cmpstr (headroom_memory_bar_get_description (self), ==,
                   "Fits: 8.50 GiB of 80.0 GiB (71.5 GiB free); Weights 8.50 GiB.");
  g_assert_true (find_descendant (bar, GTK_TYPE_BUTTON) == entry);
  g_assert_finalize_object (bar);
}

/* Accelerators of the widget's class bindings to actions of the app
 * ("win.", "window.", "plan."), not GTK's own focus and inspector keys. */
static void
collect_bindings (GtkWidget *widget,
                  GPtrArray *accels)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);
          const char *name;

          if (!GTK_IS_NAMED_ACTION (action) || !GTK_IS_KEYVAL_TRIGGER (trigger))
            continue;
          name = gtk_named_action_get_action_name (GTK_NAMED_ACTION (action));
          if (g_str_has_prefix (name, "win.") || g_str_has_prefix (name, "window.")
              || g_str_has_prefix (name, "plan."))
            g_ptr_array_add (accels,
                             gtk_accelerator_name (gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)),
                                                   gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger))));
        }
    }
}

/* Every key the window and its Plan view bind is in the shortcuts window. */
static void
test_help_overlay (void)
{
  HeadroomWindow *window = window_new ();
  g_autoptr(GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/headroom/Headroom/gtk/help-overlay.ui");
  GtkWidget *overlay = GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay"));
  g_autoptr(GPtrArray) bound = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) listed = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *plan_view = find_descendant (GTK_WIDGET (window), HEADROOM_TYPE_PLAN_VIEW);
  GSList *objects = gtk_builder_get_objects (builder);

  g_assert_nonnull (overlay);
  g_assert_nonnull (plan_view);
  collect_bindings (GTK_WIDGET (window), bound);
  collect_bindings (plan_view, bound);
  /* Ctrl+N, O, S, Shift+Ctrl+S, E and W in the window, Ctrl+Z in the Plan view. */
  {
    static const char *const expected[] = {
      "<Control>n", "<Control>o", "<Control>s", "<Shift><Control>s", "<Control>e",
      "<Control>w", "<Control>z",
    };

    for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
      g_assert_true (g_ptr_array_find_with_equal_func (bound, expected[i], g_str_equal, NULL));
  }

  for (GSList *l = objects; l != NULL; l = l->next)
    {
      g_autofree char *accelerator = NULL;
      g_autofree char *action_name = NULL;
      guint keyval;
      GdkModifierType modifiers;

      if (!GTK_IS_SHORTCUTS_SHORTCUT (l->data))
        continue;

      g_object_get (l->data, "accelerator", &accelerator, "action-name", &action_name, NULL);
      if (accelerator != NULL && gtk_accelerator_parse (accelerator, &keyval, &modifiers))
        g_ptr_array_add (listed, gtk_accelerator_name (keyval, modifiers));
      /* An entry naming an action shows the application's accelerators for it. */
      if (action_name != NULL)
        {
          g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                        action_name);

          for (guint i = 0; accels[i] != NULL; i++)
            if (gtk_accelerator_parse (accels[i], &keyval, &modifiers))
              g_ptr_array_add (listed, gtk_accelerator_name (keyval, modifiers));
        }
    }
  g_slist_free (objects);

  for (guint i = 0; i < bound->len; i++)
    {
      gboolean found = FALSE;

      for (guint j = 0; j < listed->len && !found; j++)
        found = g_str_equal (bound->pdata[i], listed->pdata[j]);
      if (!found)
        g_error ("%s is bound but not in help-overlay.ui", (char *) bound->pdata[i]);
    }
  gtk_window_destroy (GTK_WINDOW (overlay));
  window_destroy (window);
}

/* GiB are 2^30 bytes: an H100's 80 GB (80·10⁹ bytes) is 74.5 GiB. */
static void
test_format (void)
{
  static const struct { double bytes; const char *text; } sizes[] = {
    { 80e9, "74.5 GiB" },
    { 1.5 * 1073741824.0, "1.50 GiB" },
    { 0, "0.00 GiB" },
    { 131072.0, "0.125 MiB" },     /* one Llama-3-8B KV token: 2·32·8·128·2 bytes */
  };
  char *text;

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      text = headroom_format_gib (sizes[i].bytes);
      g_assert_cmpstr (text, ==, sizes[i].text);
      g_free (text);
    }
  text = headroom_format_gib (NAN);
  g_assert_cmpstr (text, ==, "—");
  g_free (text);

  text = headroom_format_flops (4.39e14);
  g_assert_cmpstr (text, ==, "439 TFLOP");
  g_free (text);
  text = headroom_format_count (8030261248.0);
  g_assert_cmpstr (text, ==, "8.03 B");
  g_free (text);
  /* 192.1 days = 16,597,440 s */
  text = headroom_format_duration (16597440.0);
  g_assert_cmpstr (text, ==, "192.1 days");
  g_free (text);
  text = headroom_format_duration (0.0057);
  g_assert_cmpstr (text, ==, "5.7 ms");
  g_free (text);
  text = headroom_format_money (3.99);
  g_assert_cmpstr (text, ==, "$3.99");
  g_free (text);

  /* Thousands grouped; the C locale has no separator of its own, so ",". */
  {
    const char *sep = *localeconv ()->thousands_sep ? localeconv ()->thousands_sep : ",";
    g_autofree char *expected = g_strdup_printf ("$1%s234%s568", sep, sep);
    g_autofree char *params = g_strdup_printf ("8%s030%s261%s248", sep, sep, sep);

    text = headroom_format_money (1234567.8);
    g_assert_cmpstr (text, ==, expected);
    g_free (text);
    text = headroom_format_money (250.0);
    g_assert_cmpstr (text, ==, "$250");
    g_free (text);
    text = headroom_format_integer (8030261248.0);
    g_assert_cmpstr (text, ==, params);
    g_free (text);
  }

  /* Singular for one, plural otherwise (English rules). */
  {
    static const struct { double count; const char *unit; const char *text; } counts[] = {
      { 1, "GPUs", "1 GPU" },
      { 8, "GPUs", "8 GPUs" },
      { 0, "GPUs", "0 GPUs" },
      { 1, "micro-batches", "1 micro-batch" },
      { 16, "micro-batches", "16 micro-batches" },
      { 1, "sequences", "1 sequence" },
      { 1, "tokens", "1 token" },
      { 4194304, "tokens", "4.19 M tokens" },
      { 1, "steps", "1 step" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
      {
        text = headroom_format_count_unit (counts[i].count, counts[i].unit);
        g_assert_cmpstr (text, ==, counts[i].text);
        g_free (text);
      }
  }
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

/* Ctrl+K keeps the settings as a scenario and shows Compare; Alt+1…3
 * switch views, Alt+2 only where there is a Plan (training). */
static void
test_window_keep_scenario (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomProject *project = headroom_window_get_project (window);
  GtkWidget *compare = find_descendant (GTK_WIDGET (window), HEADROOM_TYPE_COMPARE_VIEW);
  AdwViewStack *stack = ADW_VIEW_STACK (gtk_widget_get_ancestor (compare, ADW_TYPE_VIEW_STACK));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.keep-scenario", NULL));
  drain_main_loop ();
  g_assert_cmpuint (g_list_model_get_n_items (headroom_project_get_scenarios (project)), ==, 1);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "compare");
  g_assert_cmpuint (headroom_comparison_get_n_columns (
                      headroom_compare_view_get_comparison (HEADROOM_COMPARE_VIEW (compare))), ==, 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "estimate"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "estimate");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "plan"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "plan");

  /* Inference has no Plan: Alt+2 leaves the view as it is. */
  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  drain_main_loop ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "compare"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "plan"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "compare");
  window_destroy (window);
}

/* A label under `widget` whose text starts with `prefix`, shown or not. */
static GtkLabel *
find_label_prefix (GtkWidget  *widget,
                   const char *prefix)
{
  if (GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), prefix))
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label_prefix (child, prefix);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Runs the main loop until a mapped label starts with `prefix`: What Fits
 * is searched after the frame that shows the figures, and frames wait for
 * the frame clock. */
static gboolean
wait_for_label (HeadroomWindow *window,
                const char     *prefix)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  GtkLabel *label;

  while (((label = find_label_prefix (GTK_WIDGET (window), prefix)) == NULL
          || !gtk_widget_get_mapped (GTK_WIDGET (label)))
         && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  return label != NULL && gtk_widget_get_mapped (GTK_WIDGET (label));
}

/* What Fits is searched after the frame with the new figures, and not while
 * the Estimate view is hidden: it catches up when the view is shown again. */
static void
test_window_fit_advice_while_hidden (void)
{
  HeadroomWindow *window = window_new ();

  /* Micro-batch 2 does not fit the default project; 1 does, at the 69.9 GiB
   * per GPU the Estimate view shows at start. */
  set_spin (window, "training.micro_batch", 2);
  g_assert_true (wait_for_label (window, "Micro-batch 1 (now 2): 69.9 GiB per GPU"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "plan"));
  set_spin (window, "training.micro_batch", 4);
  /* Hidden, the rows keep the last search. */
  g_assert_nonnull (find_label_prefix (GTK_WIDGET (window), "Micro-batch 1 (now 2)"));
  g_assert_null (find_label_prefix (GTK_WIDGET (window), "Micro-batch 1 (now 4)"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "estimate"));
  g_assert_true (wait_for_label (window, "Micro-batch 1 (now 4): 69.9 GiB per GPU"));
  g_assert_null (find_label_prefix (GTK_WIDGET (window), "Micro-batch 1 (now 2)"));
  window_destroy (window);
}

/* A phone or half a laptop screen is 360 px wide: with a project open
 * (scenarios to compare, a LoRA run's extra rows) the window narrows to it,
 * and no view asks for more. Xvfb has no settings daemon: the title bars
 * carry GTK's default minimize, maximize and close buttons, the widest. */
static void
test_window_narrow (void)
{
  HeadroomWindow *window = headroom_window_new (app);
  g_autofree char *path = g_build_filename (TEST_DATA_DIR, "cli", "compare-training.headroom.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  AdwLeaflet *leaflet = ADW_LEAFLET (find_descendant (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  GtkWidget *compare = find_descendant (GTK_WIDGET (window), HEADROOM_TYPE_COMPARE_VIEW);
  AdwViewStack *views = ADW_VIEW_STACK (gtk_widget_get_ancestor (compare, ADW_TYPE_VIEW_STACK));
  /* The window's own frame (a border without a compositor) is not the app's. */
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  static const char * const view_names[] = { "estimate", "plan", "compare" };
  int min_width, min_height;

  g_assert_true (headroom_window_load_file (window, file, &error));
  g_assert_no_error (error);
  g_assert_true (headroom_project_set_string (headroom_window_get_project (window), "training.method",
                                              "lora", NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 800);
  /* Before its first allocation the leaflet is unfolded: the size the
   * window first takes (and keeps on X11) is this minimum. */
  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  g_assert_cmpint (min_width, <=, 360);
  gtk_window_present (GTK_WINDOW (window));
  drain_main_loop ();
  g_assert_true (adw_leaflet_get_folded (leaflet));
  for (guint i = 0; i < G_N_ELEMENTS (view_names); i++)
    {
      adw_view_stack_set_visible_child_name (views, view_names[i]);
      drain_main_loop ();
      gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
      g_assert_cmpint (min_width, <=, 360);
      g_assert_cmpint (gtk_widget_get_width (content), ==, 360);
      /* Nor taller than the window's own minimum, 320 px (a phone on its
       * side): each view scrolls. */
      gtk_widget_measure (content, GTK_ORIENTATION_VERTICAL, 360, &min_height, NULL, NULL, NULL);
      g_assert_cmpint (min_height, <=, 320);
    }
  /* The size is saved: the next tests' windows open at the default again. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  /* The cairo renderer draws faster than GL under Xvfb's software rendering. */
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  tmp_dir = g_dir_make_tmp ("headroom-test-window-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* The user's catalog and recent files go there, not to the real home. */
  {
    g_autofree char *data_dir = g_build_filename (tmp_dir, "data", NULL);

    g_setenv ("XDG_DATA_HOME", data_dir, TRUE);
  }
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  app = headroom_application_new ("io.github.headroom.Headroom.TestWindow", G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/window/builds", test_window_builds);
  g_test_add_func ("/window/model-change", test_window_model_change);
  g_test_add_func ("/window/offload", test_window_offload);
  g_test_add_func ("/window/invalid-input", test_window_invalid_input);
  g_test_add_func ("/window/save-and-reopen", test_window_save_and_reopen);
  g_test_add_func ("/window/unsaved-changes", test_window_unsaved_changes);
  g_test_add_func ("/window/load-config", test_window_load_config);
  g_test_add_func ("/window/unknown-model", test_window_unknown_model);
  g_test_add_func ("/window/workload", test_window_workload);
  g_test_add_func ("/window/import-hub", test_window_import_hub);
  g_test_add_func ("/memory-bar/over-capacity", test_memory_bar_over_capacity);
  g_test_add_func ("/memory-bar/freeze", test_memory_bar_freeze);
  g_test_add_func ("/format/units", test_format);
  g_test_add_func ("/window/help-overlay", test_help_overlay);
  g_test_add_func ("/window/save-gpu", test_window_save_gpu);
  g_test_add_func ("/window/save-preset", test_window_save_preset);
  g_test_add_func ("/window/open-errors", test_window_open_errors);
  g_test_add_func ("/window/keep-scenario", test_window_keep_scenario);
  g_test_add_func ("/window/missing-figures", test_window_missing_figures);
  g_test_add_func ("/window/narrow", test_window_narrow);
  g_test_add_func ("/window/fit-advice-while-hidden", test_window_fit_advice_while_hidden);

  status = g_test_run ();
  g_clear_object (&app);
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
