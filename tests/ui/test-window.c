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

#include "test-window.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>

#include "headroom-compare-view.h"
#include "headroom-format.h"
#include "headroom-plan-view.h"
#include "headroom-quantity.h"
#include "headroom-switch-row.h"

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
  g_assert_true (HEADROOM_IS_SWITCH_ROW (headroom_window_get_row (window, "training.offload_params")));
  g_assert_true (g_str_has_prefix (headroom_window_get_time_caption (window),
                                   "Predicted from the hardware: published runs of "));
  /* Project names wrap whole: a word joiner (U+2060) follows their hyphens. */
  g_assert_nonnull (strstr (headroom_window_get_time_caption (window), "llm-\u2060foundry"));
  /* The predicted step time does not cover a CPU optimizer step: with
   * ZeRO-Offload the memory is shown and the caption asks for a measured
   * utilisation, which then times it. */
  headroom_switch_row_set_active (HEADROOM_SWITCH_ROW (row), TRUE);
  drain_main_loop ();
  g_assert_null (headroom_window_get_error_text (window));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (cpu_bar)));
  g_assert_true (g_str_has_prefix (headroom_window_get_time_caption (window),
                                   "Not predicted: the step model does not time an optimizer step "
                                   "on the CPU (offloaded optimizer or parameters). Set Measured "
                                   "FLOPs utilisation (Training ▸ Throughput) to get the times"));
  g_assert_true (headroom_project_set_double (headroom_window_get_project (window),
                                              "training.mfu", 0.4, NULL));
  drain_main_loop ();
  /* The override is said next to the times while it is on (issue 13). */
  g_assert_true (g_str_has_prefix (headroom_window_get_time_caption (window),
                                   "From the utilisation set (40 %), which overrides the prediction"));

  g_assert_true (headroom_project_get_boolean (headroom_window_get_project (window),
                                               "training.offload_optimizer"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (cpu_bar)));
  g_assert_cmpfloat (headroom_memory_bar_get_total (cpu_bar), ==, 16061054976.0);
  description = headroom_memory_bar_get_description (cpu_bar);
  g_assert_true (g_str_has_prefix (description, "CPU memory per GPU (offloaded): "
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

/* A project saved while its settings did not go together (the window lets
 * it be saved so) opens as it was left: the error names the setting, no
 * figure of the project open before stays in view, and changing the setting
 * brings the estimate. Nothing saved is lost. */
static void
test_window_open_invalid (void)
{
  HeadroomWindow *window = window_new ();
  HeadroomMemoryBar *bar = headroom_window_get_memory_bar (window);
  HeadroomProject *project = headroom_window_get_project (window);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("headroom-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "tp3.headroom.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_true (gtk_widget_is_visible (GTK_WIDGET (bar)));
  set_spin (window, "training.tensor_parallel", 3);
  g_assert_true (headroom_project_save (project, file, NULL, &error));
  g_assert_no_error (error);
  set_spin (window, "training.tensor_parallel", 1);

  g_assert_true (headroom_window_load_file (window, file, &error));
  g_assert_no_error (error);
  drain_main_loop ();
  g_assert_cmpint (headroom_project_get_int (headroom_window_get_project (window),
                                             "training.tensor_parallel"), ==, 3);
  g_assert_cmpstr (headroom_window_get_error_text (window), ==,
                   "Tensor parallel: 3 does not divide 8 GPUs");
  g_assert_false (gtk_widget_is_visible (GTK_WIDGET (bar)));

  set_spin (window, "training.tensor_parallel", 2);
  g_assert_null (headroom_window_get_error_text (window));
  g_assert_true (gtk_widget_is_visible (GTK_WIDGET (bar)));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  window_destroy (window);
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
  /* Serving's rows in the sections both workloads share (numerics,
   * parallelism, throughput) are shown, training's are not. */
  {
    static const char * const shared[] = {
      "inference.weights", "inference.tensor_parallel", "inference.compute_efficiency",
    };

    for (gsize i = 0; i < G_N_ELEMENTS (shared); i++)
      {
        GtkWidget *row = headroom_window_get_row (window, shared[i]);

        g_assert_true (gtk_widget_get_visible (row));
        g_assert_true (gtk_widget_get_visible (gtk_widget_get_ancestor (row, ADW_TYPE_PREFERENCES_GROUP)));
      }
    g_assert_false (gtk_widget_get_visible (headroom_window_get_row (window, "training.precision")));
  }
  summary = headroom_estimator_get_summary (headroom_window_get_estimator (window));
  for (guint i = 0; i < g_list_model_get_n_items (summary); i++)
    {
      g_autoptr(HeadroomQuantity) quantity = g_list_model_get_item (summary, i);

      has_ttft |= g_strcmp0 (headroom_quantity_get_name (quantity), "time_to_first_token") == 0;
    }
  g_assert_true (has_ttft);
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

  /* The trainable share's " %)"; the step split's legend writes "(80%)". */
  g_assert_false (shows_label (GTK_WIDGET (window), " %)", TRUE));
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
  /* Past 10,000 days, Julian years: 1e10 s ÷ 31,557,600 s = 316.9 years. */
  text = headroom_format_duration (1e10);
  g_assert_cmpstr (text, ==, "317 years");
  g_free (text);
  /* A count past 10^15 (an absurd utilisation's GPU-hours) in three digits. */
  text = headroom_format_integer (4.2159e304);
  g_assert_cmpstr (text, ==, "4.22e+304");
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
  g_assert_true (wait_for_label (window, "Micro-batch: 1 (now 2), 69.9 GiB per GPU"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "plan"));
  set_spin (window, "training.micro_batch", 4);
  /* Hidden, the rows keep the last search. */
  g_assert_nonnull (find_label_prefix (GTK_WIDGET (window), "Micro-batch: 1 (now 2)"));
  g_assert_null (find_label_prefix (GTK_WIDGET (window), "Micro-batch: 1 (now 4)"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "estimate"));
  g_assert_true (wait_for_label (window, "Micro-batch: 1 (now 4), 69.9 GiB per GPU"));
  g_assert_null (find_label_prefix (GTK_WIDGET (window), "Micro-batch: 1 (now 2)"));
  window_destroy (window);
}

/* The memory plot says which micro-batches it leaves out and why. The
 * default project runs data parallel 4; a global batch of 8 sequences takes
 * micro-batches 1 and 2 (8 = 1 × 4 × 2 = 2 × 4 × 1) and no larger power of
 * two, and the sweep runs 1 to 512. */
static void
test_window_plot_left_out (void)
{
  HeadroomWindow *window = window_new ();

  g_assert_null (find_label_prefix (GTK_WIDGET (window), "Not shown:"));
  set_spin (window, "training.global_batch", 8);
  g_assert_true (wait_for_label (window, "Not shown: 4, 8, 16, 32, 64, 128, 256, 512 (Global batch: "
                                 "8 sequences is not a multiple of the micro-batch × data parallel "
                                 "(4 × 4 = 16))"));
  /* Every value taken again: the note goes. */
  set_spin (window, "training.global_batch", 512);
  {
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    GtkLabel *note;

    while ((note = find_label_prefix (GTK_WIDGET (window), "Not shown:")) != NULL
           && g_get_monotonic_time () < deadline)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    g_assert_null (note);
  }
  window_destroy (window);
}

/* When no single change makes a run fit, What Fits says so and points at
 * the Plan view. Sequences of 1,048,576 tokens on the default 4 GPUs: the
 * 16-bit input of one layer alone is 2^20 × 4,096 × 2 B = 8 GiB, the fp32
 * logits 2^20 × 128,256 × 4 B = 501 GiB, so neither recomputation, sharding,
 * TP 4 nor more GPUs (the global batch of 4 sequences allows no more data
 * parallelism) brings it under 80 GiB. */
static void
test_window_no_single_change (void)
{
  HeadroomWindow *window = window_new ();

  set_spin (window, "training.global_batch", 4);
  set_spin (window, "training.seq_len", 1048576);
  g_assert_true (wait_for_label (window, "No single change makes the run fit"));
  g_assert_null (find_label_prefix (GTK_WIDGET (window), "Any one of these changes"));
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

  window_tests_init (&argc, &argv, "io.github.headroom.Headroom.TestWindow");

  g_test_add_func ("/window/builds", test_window_builds);
  g_test_add_func ("/window/model-change", test_window_model_change);
  g_test_add_func ("/window/offload", test_window_offload);
  g_test_add_func ("/window/invalid-input", test_window_invalid_input);
  g_test_add_func ("/window/open-invalid", test_window_open_invalid);
  g_test_add_func ("/window/workload", test_window_workload);
  g_test_add_func ("/memory-bar/over-capacity", test_memory_bar_over_capacity);
  g_test_add_func ("/memory-bar/freeze", test_memory_bar_freeze);
  g_test_add_func ("/format/units", test_format);
  g_test_add_func ("/window/help-overlay", test_help_overlay);
  g_test_add_func ("/window/keep-scenario", test_window_keep_scenario);
  g_test_add_func ("/window/missing-figures", test_window_missing_figures);
  g_test_add_func ("/window/narrow", test_window_narrow);
  g_test_add_func ("/window/fit-advice-while-hidden", test_window_fit_advice_while_hidden);
  g_test_add_func ("/window/plot-left-out", test_window_plot_left_out);
  g_test_add_func ("/window/no-single-change", test_window_no_single_change);

  status = g_test_run ();
  window_tests_finish ();
  return status;
}
