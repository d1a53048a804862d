/* test-settings.c: the setting rows, the pages and the window's layout (issue 16)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under Xvfb with GTK_A11Y=none, in the C locale (grouping ","). The
 * window starts on the example project (Llama-3.1-8B on 8 H100 SXM).
 */
#include "config.h"

#include "test-ui.h"

#include <locale.h>
#include <string.h>

#include "headroom-application.h"
#include "headroom-hardware-page.h"
#include "headroom-hub-dialog.h"
#include "headroom-model-page.h"
#include "headroom-setting.h"
#include "headroom-spin-row.h"
#include "headroom-switch-row.h"
#include "headroom-sweep-dialog.h"
#include "headroom-workload-page.h"
#include "headroom-window-private.h"

static HeadroomApplication *app;

static HeadroomWindow *
window_new (int width)
{
  HeadroomWindow *window = headroom_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), width, 800);
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

/* The first descendant of `type` (depth first), optionally mapped only. */
static GtkWidget *
find_widget (GtkWidget *widget,
             GType      type,
             gboolean   mapped)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && (!mapped || gtk_widget_get_mapped (widget)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type, mapped);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char *
spin_text (HeadroomWindow *window,
           const char     *key)
{
  GtkWidget *row = headroom_window_get_row (window, key);

  g_assert_true (HEADROOM_IS_SPIN_ROW (row));
  return gtk_editable_get_text (GTK_EDITABLE (headroom_spin_row_get_spin_button (HEADROOM_SPIN_ROW (row))));
}

/* A row is built from its key alone and edits the project through it. */
static void
test_setting_binds_itself (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomSetting) setting = headroom_setting_new ("training.micro_batch");
  GtkWidget *row = g_object_ref_sink (headroom_setting_get_row (setting));

  g_assert_true (HEADROOM_IS_SPIN_ROW (row));
  g_assert_true (headroom_setting_from_row (row) == setting);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Micro-batch");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, "sequences");
  headroom_setting_set_project (setting, project);
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 1);

  /* Project → row, on changed::training.micro_batch. */
  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 4, NULL));
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 4);
  /* Row → project. */
  headroom_spin_row_set_value (HEADROOM_SPIN_ROW (row), 2);
  g_assert_cmpint (headroom_project_get_int (project, "training.micro_batch"), ==, 2);

  g_assert_null (headroom_setting_new ("training.no_such_key"));
  g_object_unref (row);
}

/* A row's subtitle, "" for none. */
static const char *
subtitle (GtkWidget *row)
{
  const char *text = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));

  return text != NULL ? text : "";
}

/* A framework fills the recipe settings the project leaves unset
 * (training.framework): their rows show its values as soon as it is
 * chosen, and say whose they are; a value set by hand shows as set. */
static void
test_framework_rows (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomSetting) precision = headroom_setting_new ("training.precision");
  g_autoptr(HeadroomSetting) foreach = headroom_setting_new ("training.optimizer_foreach");
  GtkWidget *combo = g_object_ref_sink (headroom_setting_get_row (precision));
  GtkWidget *toggle = g_object_ref_sink (headroom_setting_get_row (foreach));
  GListModel *choices = G_LIST_MODEL (adw_combo_row_get_model (ADW_COMBO_ROW (combo)));
  g_autoptr(GtkStringObject) shown = NULL;

  headroom_setting_set_project (precision, project);
  headroom_setting_set_project (foreach, project);
  g_assert_cmpstr (subtitle (combo), ==, "");
  g_assert_false (headroom_switch_row_get_active (HEADROOM_SWITCH_ROW (toggle)));

  g_assert_true (headroom_project_set_string (project, "training.framework", "torchtune", NULL));
  shown = g_list_model_get_item (choices, adw_combo_row_get_selected (ADW_COMBO_ROW (combo)));
  g_assert_cmpstr (gtk_string_object_get_string (shown), ==,
                   headroom_setting_choice_label ("training.precision", "bf16"));
  g_assert_cmpstr (subtitle (combo), ==, "torchtune’s default");
  g_assert_true (headroom_project_set_string (project, "training.framework", "hf", NULL));
  g_assert_true (headroom_switch_row_get_active (HEADROOM_SWITCH_ROW (toggle)));
  g_assert_cmpstr (subtitle (toggle), ==, "Hugging Face Trainer’s default");

  /* Set by hand: the project's own value, no subtitle. */
  g_assert_true (headroom_project_set_string (project, "training.precision", "fp32", NULL));
  g_assert_cmpstr (subtitle (combo), ==, "");
  g_object_unref (combo);
  g_object_unref (toggle);
}

/* Inputs read as results do: digits grouped, utilisation as a percentage,
 * sentinel zeros as a placeholder naming the default. */
static void
test_input_presentation (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  GtkWidget *row = headroom_window_get_row (window, "hardware.inter_node_bandwidth");
  GtkSpinButton *spin = headroom_spin_row_get_spin_button (HEADROOM_SPIN_ROW (row));
  GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (spin));
  double value;

  /* 1e12 training tokens. */
  g_assert_cmpfloat (headroom_project_get_double (project, "training.tokens"), ==, 1e12);
  g_assert_cmpstr (spin_text (window, "training.tokens"), ==, "1,000,000,000,000");
  g_assert_cmpstr (spin_text (window, "training.seq_len"), ==, "8,192");
  /* training.mfu is 0, predicted from the hardware: an empty field */
  g_assert_cmpstr (spin_text (window, "training.mfu"), ==, "");
  g_assert_true (headroom_spin_row_parse (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "training.mfu")),
                                          "45 %", &value));
  g_assert_cmpfloat_with_epsilon (value, 0.45, 1e-12);
  g_assert_true (headroom_spin_row_parse (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "training.tokens")),
                                          "2 T", &value));
  g_assert_cmpfloat (value, ==, 2e12);
  g_assert_true (headroom_spin_row_parse (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "training.tokens")),
                                          "1,500,000", &value));
  g_assert_cmpfloat (value, ==, 1.5e6);

  /* 0 means the catalog's figure: an empty field and the figure as placeholder.
   * The H100 SXM's inter-node bandwidth in the catalog is 50 GB/s (400 Gb/s NDR per GPU). */
  g_assert_cmpfloat (headroom_project_get_double (project, "hardware.inter_node_bandwidth"), ==, 0);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "");
  g_assert_true (GTK_IS_TEXT (text));
  g_assert_cmpstr (gtk_text_get_placeholder_text (GTK_TEXT (text)), ==, "Default (50 GB/s)");
  /* No "(0: …)" in a label: the placeholder says it. */
  {
    GtkWidget *longest = headroom_window_get_row (window, "inference.max_model_len");
    GtkEditable *field = gtk_editable_get_delegate (GTK_EDITABLE (headroom_spin_row_get_spin_button (HEADROOM_SPIN_ROW (longest))));

    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (longest)), ==, "Longest request");
    g_assert_cmpstr (gtk_text_get_placeholder_text (GTK_TEXT (field)), ==, "Prompt + generated");
  }
  /* A −1 sentinel too: llama.cpp's layers on the GPU default to −1, all of them. */
  {
    GtkWidget *layers = headroom_window_get_row (window, "inference.gpu_layers");
    HeadroomSpinRow *layers_row = HEADROOM_SPIN_ROW (layers);
    GtkEditable *field = gtk_editable_get_delegate (GTK_EDITABLE (headroom_spin_row_get_spin_button (layers_row)));

    g_assert_cmpint (headroom_project_get_int (project, "inference.gpu_layers"), ==, -1);
    g_assert_cmpstr (spin_text (window, "inference.gpu_layers"), ==, "");
    g_assert_cmpstr (gtk_text_get_placeholder_text (GTK_TEXT (field)), ==, "All layers");
    g_assert_true (headroom_spin_row_parse (layers_row, "", &value));
    g_assert_cmpfloat (value, ==, -1);
    g_assert_true (headroom_spin_row_parse (layers_row, "20", &value));
    g_assert_cmpfloat (value, ==, 20);
  }
  {
    guint n_keys;
    const HeadroomKeyInfo *keys = headroom_project_get_keys (&n_keys);

    for (guint i = 0; i < n_keys; i++)
      if (keys[i].group != NULL
          && (strstr (keys[i].label, "(0:") != NULL || strstr (keys[i].label, "−1:") != NULL))
        g_error ("%s: “%s” names its sentinel in the label; give it a placeholder", keys[i].key, keys[i].label);
  }
  window_destroy (window);
}

/* The wheel scrolls the page: no spin button in the window handles scroll
 * events, so they go on to the scrolled window. */
static gboolean
has_scroll_controller (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller))
        return TRUE;
    }
  return FALSE;
}

static guint
count_scrolling_spins (GtkWidget *widget)
{
  guint n = GTK_IS_SPIN_BUTTON (widget) && has_scroll_controller (widget) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_scrolling_spins (child);
  return n;
}

static void
test_wheel_scrolls_page (void)
{
  HeadroomWindow *window = window_new (1280);
  GtkWidget *row = headroom_window_get_row (window, "training.global_batch");

  g_assert_nonnull (row);
  /* The Hardware page's rows too (built on demand, see test_lazy_pages). */
  g_assert_nonnull (headroom_window_get_row (window, "hardware.nodes"));
  g_assert_false (has_scroll_controller (GTK_WIDGET (headroom_spin_row_get_spin_button (HEADROOM_SPIN_ROW (row)))));
  g_assert_cmpuint (count_scrolling_spins (GTK_WIDGET (window)), ==, 0);
  window_destroy (window);
}

/* The fine-tuning rows show only under the methods that use them (issue 14). */
static void
test_finetune_rows (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  const char *adapter_keys[] = { "training.lora_rank", "training.lora_alpha", "training.lora_dropout",
                                 "training.lora_targets", "training.fp32_adapters" };
  const char *quant_keys[] = { "training.quant", "training.double_quant", "training.quant_scope",
                               "training.quant_saves_input", "training.loop_keeps_loss",
                               "training.quant_load_whole" };
  /* frozen: the gradients of frozen weights, for LoRA and DoRA (FSDP1 refuses quantised ones) */
  const struct { const char *method; gboolean adapters, quant, freeze, frozen; } cases[] = {
    { "full", FALSE, FALSE, FALSE, FALSE },
    { "lora", TRUE, FALSE, FALSE, TRUE },
    { "qlora", TRUE, TRUE, FALSE, FALSE },
    { "dora", TRUE, FALSE, FALSE, TRUE },
    { "freeze", FALSE, FALSE, TRUE, FALSE },
  };

  g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, "training.method")));
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_assert_true (headroom_project_set_string (project, "training.method", cases[c].method, NULL));
      drain_main_loop ();
      for (guint i = 0; i < G_N_ELEMENTS (adapter_keys); i++)
        g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, adapter_keys[i]))
                       == cases[c].adapters);
      for (guint i = 0; i < G_N_ELEMENTS (quant_keys); i++)
        g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, quant_keys[i]))
                       == cases[c].quant);
      g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, "training.freeze_layers"))
                     == cases[c].freeze);
      g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, "training.frozen_gradients"))
                     == cases[c].frozen);
    }
  /* no_sync is FSDP's: its row shows under a sharding strategy only. */
  g_assert_false (gtk_widget_get_visible (headroom_window_get_row (window, "training.no_sync")));
  g_assert_true (headroom_project_set_string (project, "training.fsdp", "full", NULL));
  drain_main_loop ();
  g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, "training.no_sync")));
  /* fp8 parameters are Transformer Engine's: shown with fp8-mixed only. */
  g_assert_false (gtk_widget_get_visible (headroom_window_get_row (window, "training.fp8_params")));
  g_assert_true (headroom_project_set_string (project, "training.precision", "fp8-mixed", NULL));
  drain_main_loop ();
  g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, "training.fp8_params")));
  /* Megatron's recompute_modules choose what the selective mode reruns. */
  g_assert_true (headroom_project_set_string (project, "training.recompute", "full", NULL));
  drain_main_loop ();
  g_assert_false (gtk_widget_get_visible (headroom_window_get_row (window, "training.recompute_modules")));
  g_assert_true (headroom_project_set_string (project, "training.recompute", "selective", NULL));
  drain_main_loop ();
  g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, "training.recompute_modules")));
  window_destroy (window);
}

/* torch.distributed.pipelining changes every schedule's memory, the
 * interleaved one's rounds too: its row shows under each of them. */
static void
test_torch_pipelining_row (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  const char *schedules[] = { "1f1b", "interleaved", "gpipe" };

  for (guint i = 0; i < G_N_ELEMENTS (schedules); i++)
    {
      g_assert_true (headroom_project_set_string (project, "training.pipeline_schedule",
                                                  schedules[i], NULL));
      drain_main_loop ();
      g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window,
                                                                      "training.torch_pipelining")));
    }
  window_destroy (window);
}

static guint
count_spin_rows (GtkWidget *widget)
{
  guint n = HEADROOM_IS_SPIN_ROW (widget) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_spin_rows (child);
  return n;
}

/* The window starts on the Model page and builds only it: the Hardware and
 * Training pages build their rows when first shown or asked for a row, bound
 * to the project as it is then, and follow it afterwards. */
static void
test_lazy_pages (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  GtkWidget *hardware = find_widget (GTK_WIDGET (window), HEADROOM_TYPE_HARDWARE_PAGE, FALSE);
  GtkWidget *workload = find_widget (GTK_WIDGET (window), HEADROOM_TYPE_WORKLOAD_PAGE, FALSE);
  AdwViewStack *stack = ADW_VIEW_STACK (gtk_widget_get_ancestor (hardware, ADW_TYPE_VIEW_STACK));
  GtkWidget *row;
  GtkWidget *gpu_row;
  GtkEditable *field;

  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "model");
  g_assert_cmpuint (count_spin_rows (hardware), ==, 0);
  g_assert_cmpuint (count_spin_rows (workload), ==, 0);
  /* Edits made while they are not built show once they are. */
  g_assert_true (headroom_project_set_int (project, "hardware.nodes", 2, NULL));
  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 4, NULL));
  drain_main_loop ();

  /* Shown: every row, bound. 2 nodes as set above; the GPU chooser on the
   * example's H100 SXM; the inter-node bandwidth left at 0 shows the
   * catalog's figure for the H100 SXM, 50 GB/s (400 Gb/s NDR per GPU). */
  adw_view_stack_set_visible_child_name (stack, "hardware");
  drain_main_loop ();
  g_assert_true (gtk_widget_get_mapped (hardware));
  g_assert_cmpuint (count_spin_rows (hardware), >, 0);
  row = headroom_window_get_row (window, "hardware.nodes");
  g_assert_true (gtk_widget_is_ancestor (row, hardware));
  g_assert_true (gtk_widget_get_mapped (row));
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 2);
  gpu_row = headroom_window_get_row (window, "hardware.gpu");
  g_assert_true (gtk_widget_is_ancestor (gpu_row, hardware));
  g_assert_cmpstr (headroom_gpu_info_get_id (adw_combo_row_get_selected_item (ADW_COMBO_ROW (gpu_row))),
                   ==, "h100-sxm");
  field = gtk_editable_get_delegate (GTK_EDITABLE (headroom_spin_row_get_spin_button (
    HEADROOM_SPIN_ROW (headroom_window_get_row (window, "hardware.inter_node_bandwidth")))));
  g_assert_cmpstr (gtk_text_get_placeholder_text (GTK_TEXT (field)), ==, "Default (50 GB/s)");
  /* A custom GPU has no network figure: the field says one is needed, not
   * "Default (0 GB/s)". */
  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "custom", NULL));
  drain_main_loop ();
  g_assert_cmpstr (gtk_text_get_placeholder_text (GTK_TEXT (field)), ==, "Needed across nodes");
  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "h100-sxm", NULL));
  drain_main_loop ();
  g_assert_cmpstr (gtk_text_get_placeholder_text (GTK_TEXT (field)), ==, "Default (50 GB/s)");
  /* Tab reaches them: the first is the GPU chooser. */
  g_assert_true (gtk_widget_child_focus (hardware, GTK_DIR_TAB_FORWARD));
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

    g_assert_true (focus == gpu_row || gtk_widget_is_ancestor (focus, gpu_row));
  }
  /* Project → row and row → project. */
  g_assert_true (headroom_project_set_int (project, "hardware.nodes", 3, NULL));
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 3);
  headroom_spin_row_set_value (HEADROOM_SPIN_ROW (row), 1);
  g_assert_cmpint (headroom_project_get_int (project, "hardware.nodes"), ==, 1);

  /* Asked for a row, the Training page builds while hidden. */
  g_assert_cmpuint (count_spin_rows (workload), ==, 0);
  row = headroom_window_get_row (window, "training.micro_batch");
  g_assert_true (gtk_widget_is_ancestor (row, workload));
  g_assert_false (gtk_widget_get_mapped (row));
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 4);
  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 2, NULL));
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 2);
  /* Under inference its training rows hide, as when built at start. */
  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  g_assert_false (gtk_widget_get_visible (row));
  g_assert_true (gtk_widget_get_visible (headroom_window_get_row (window, "inference.batch")));
  /* A key of no page builds nothing. */
  g_assert_null (headroom_window_get_row (window, "no.such_key"));
  window_destroy (window);
}

/* The Model page's collapsed Mixture of Experts and Latent Attention
 * expanders build their rows when first expanded, or when one is asked for,
 * bound to the project as it is then. DeepSeek-V2-Lite (models.json):
 * 6 experts per token, 2 shared; a key/value rank of 512. */
static void
test_lazy_expanders (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  GtkWidget *model = find_widget (GTK_WIDGET (window), HEADROOM_TYPE_MODEL_PAGE, FALSE);
  /* The first in the .ui's order. */
  GtkWidget *moe = find_widget (model, ADW_TYPE_EXPANDER_ROW, FALSE);
  g_autoptr(JsonObject) empty = json_object_new ();
  GtkWidget *mla;
  GtkWidget *row;

  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (moe)), ==, "Mixture of Experts");
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (moe)), ==,
                   "Routed and shared experts (Mixtral, DeepSeek)");
  g_assert_true (gtk_widget_get_mapped (moe));
  g_assert_cmpuint (count_spin_rows (moe), ==, 0);
  headroom_project_set_config (project, empty);
  g_assert_true (headroom_project_set_string (project, "model.preset", "deepseek-v2-lite", NULL));
  drain_main_loop ();
  g_assert_cmpuint (count_spin_rows (moe), ==, 0);

  /* Expanded: its five rows, showing the preset's values. */
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (moe), TRUE);
  drain_main_loop ();
  g_assert_cmpuint (count_spin_rows (moe), ==, 5);
  row = headroom_window_get_row (window, "model.num_experts_per_tok");
  g_assert_true (gtk_widget_is_ancestor (row, moe));
  wait_until_mapped (row);
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 6);
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (headroom_window_get_row (window, "model.n_shared_experts"))),
                     ==, 2);

  /* Asked for while collapsed: the row shows the project's value and edits it. */
  row = headroom_window_get_row (window, "model.kv_lora_rank");
  mla = gtk_widget_get_ancestor (row, ADW_TYPE_EXPANDER_ROW);
  g_assert_nonnull (mla);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (mla)), ==, "Latent Attention");
  g_assert_false (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (mla)));
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 512);
  headroom_spin_row_set_value (HEADROOM_SPIN_ROW (row), 256);
  drain_main_loop ();
  g_assert_cmpint (headroom_project_get_int (project, "model.kv_lora_rank"), ==, 256);
  g_assert_true (headroom_project_set_int (project, "model.kv_lora_rank", 128, NULL));
  drain_main_loop ();
  g_assert_cmpfloat (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)), ==, 128);
  /* Expanding it later builds nothing twice. */
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (mla), TRUE);
  drain_main_loop ();
  g_assert_cmpuint (count_spin_rows (mla), ==, 5);
  wait_until_mapped (row);
  window_destroy (window);
}

/* Enter in the preset search picks the only match. */
static void
test_preset_search_enter (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  GtkWidget *search = find_widget (GTK_WIDGET (window), GTK_TYPE_SEARCH_ENTRY, FALSE);

  g_assert_nonnull (search);
  gtk_editable_set_text (GTK_EDITABLE (search), "Mixtral-8x7B");
  /* The search applies after a short delay. */
  {
    gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;

    while (g_get_monotonic_time () < deadline)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
  }
  g_signal_emit_by_name (search, "activate");
  drain_main_loop ();
  g_assert_nonnull (strstr (headroom_project_get_preset (project), "mixtral-8x7b"));
  window_destroy (window);
}

/* The settings column keeps its width as the content changes. */
static void
test_stable_split (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  GtkWidget *row = headroom_window_get_row (window, "model.num_hidden_layers");
  GtkWidget *sidebar = gtk_widget_get_ancestor (row, GTK_TYPE_SCROLLED_WINDOW);
  int width;

  /* The page's own scroller, then the column's. */
  sidebar = gtk_widget_get_ancestor (gtk_widget_get_parent (sidebar), GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull (sidebar);
  width = gtk_widget_get_width (sidebar);
  g_assert_cmpint (width, >=, 360);
  g_assert_true (headroom_project_set_string (project, "model.preset", "mixtral-8x7b", NULL));
  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  drain_main_loop ();
  g_assert_cmpint (gtk_widget_get_width (sidebar), ==, width);
  window_destroy (window);
}

/* Estimate/Plan/Compare: in the header bar when wide; Plan only for training. */
static void
test_switcher (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  AdwViewSwitcherTitle *title = NULL;
  AdwViewSwitcherBar *bar = NULL;

  /* The content's header bar holds the results' switcher title. */
  for (GtkWidget *w = find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_SWITCHER_TITLE, TRUE); w != NULL;
       w = NULL)
    title = ADW_VIEW_SWITCHER_TITLE (w);
  g_assert_nonnull (title);
  {
    /* The last switcher bar in the window is the results' one. */
    GtkWidget *content = gtk_widget_get_ancestor (GTK_WIDGET (headroom_window_get_memory_bar (window)),
                                                  GTK_TYPE_BOX);

    while (gtk_widget_get_parent (content) != NULL && !ADW_IS_LEAFLET (gtk_widget_get_parent (content)))
      content = gtk_widget_get_parent (content);
    bar = ADW_VIEW_SWITCHER_BAR (find_widget (content, ADW_TYPE_VIEW_SWITCHER_BAR, FALSE));
    title = ADW_VIEW_SWITCHER_TITLE (find_widget (content, ADW_TYPE_VIEW_SWITCHER_TITLE, FALSE));
  }
  g_assert_true (adw_view_switcher_title_get_view_switcher_enabled (title));
  /* Wide: the switcher shows in the title, the bottom bar is hidden. */
  g_assert_false (adw_view_switcher_title_get_title_visible (title));
  g_assert_false (adw_view_switcher_bar_get_reveal (bar));

  /* Inference has no Plan, but Estimate and Compare stay. */
  g_assert_true (headroom_project_set_string (project, "workload", "inference", NULL));
  drain_main_loop ();
  g_assert_true (adw_view_switcher_title_get_view_switcher_enabled (title));
  g_assert_false (adw_view_stack_page_get_visible (
    adw_view_stack_get_page (adw_view_switcher_title_get_stack (title),
                             adw_view_stack_get_child_by_name (adw_view_switcher_title_get_stack (title),
                                                               "plan"))));
  g_assert_false (adw_view_switcher_bar_get_reveal (bar));
  window_destroy (window);
}

/* At 360 px the window folds and the settings' header bar holds Open and
 * the main menu (with Save, Export, Import…). */
static void
test_narrow (void)
{
  HeadroomWindow *window;
  AdwLeaflet *leaflet;
  GtkWidget *menu;
  GMenuModel *model;
  gboolean has_save = FALSE;

  /* GNOME's title buttons (Xvfb has no desktop to say so). */
  g_object_set (gtk_settings_get_default (), "gtk-decoration-layout", ":close", NULL);
  window = window_new (360);
  leaflet = ADW_LEAFLET (find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET, FALSE));
  g_assert_true (adw_leaflet_get_folded (leaflet));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 360);
  /* The main menu in the mapped header bar (the settings' one). */
  menu = find_widget (find_widget (GTK_WIDGET (window), ADW_TYPE_HEADER_BAR, TRUE),
                      GTK_TYPE_MENU_BUTTON, TRUE);
  g_assert_nonnull (menu);
  model = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu));
  for (int s = 0; s < g_menu_model_get_n_items (model); s++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, s, G_MENU_LINK_SECTION);

      for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
        {
          g_autofree char *action = NULL;

          if (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action)
              && g_str_equal (action, "win.save"))
            has_save = TRUE;
        }
    }
  g_assert_true (has_save);
  window_destroy (window);
}

static GtkWidget *
find_with_class (GtkWidget  *widget,
                 const char *css_class)
{
  if (gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_with_class (child, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The Model page's "As Read from the Config" group names the structure the
 * estimate was read with, to check against the model card: Qwen3-30B-A3B
 * (config.json: num_experts 128, num_experts_per_tok 8, no shared expert,
 * 32 heads over 4 kv heads, q_norm/k_norm per head, untied). */
static void
test_structure_row (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  g_autoptr(JsonObject) empty = json_object_new ();

  headroom_project_set_config (project, empty);
  g_assert_true (headroom_project_set_string (project, "model.preset", "qwen3-30b-a3b", NULL));
  drain_main_loop ();
  g_assert_nonnull (find_label (GTK_WIDGET (window), "128 experts, 8 active, no shared expert; "
                                                     "GQA, 32 query heads over 4 kv heads; "
                                                     "q/k RMSNorm per head"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "untied embeddings"));
  window_destroy (window);
}

/* The first mapped label containing `part`, waiting up to 5 s for it: What
 * Fits is searched after the next frame, which the frame clock paints on its
 * own schedule, not within drain_main_loop(). */
static GtkLabel *
wait_for_label (HeadroomWindow *window,
                const char     *part)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  GtkLabel *label;

  while ((label = find_label (GTK_WIDGET (window), part)) == NULL
         && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  return label;
}

/* A run that does not fit still shows its time and cost, dimmed, with the
 * reason; "step" means one thing (issue 16). */
static void
test_not_fit_marked (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);

  g_assert_true (headroom_estimator_get_fits (headroom_window_get_estimator (window)));
  g_assert_null (find_with_class (GTK_WIDGET (window), "headroom-not-fit"));
  g_assert_null (find_label (GTK_WIDGET (window), "Does not fit ("));
  /* The Compute table counts one micro-batch; the tiles count optimizer steps. */
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Model FLOPs: "));
  g_assert_nonnull (strstr (gtk_label_get_label (find_label (GTK_WIDGET (window), "Model FLOPs: ")),
                            "per micro-batch"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Model FLOPs per optimizer step"));

  /* 32 sequences of 8,192 tokens per GPU overflow 80 GiB. */
  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 32, NULL));
  drain_main_loop ();
  g_assert_false (headroom_estimator_get_fits (headroom_window_get_estimator (window)));
  g_assert_nonnull (find_with_class (GTK_WIDGET (window), "headroom-not-fit"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Does not fit ("));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "a run that cannot start"));

  /* What Fits says what would make it fit, and applies it. */
  g_assert_nonnull (wait_for_label (window, "Any one of these changes makes the run fit"));
  {
    GtkLabel *first = find_label (GTK_WIDGET (window), "Micro-batch: ");
    GtkWidget *row, *apply;

    g_assert_nonnull (first);
    row = gtk_widget_get_ancestor (GTK_WIDGET (first), ADW_TYPE_ACTION_ROW);
    apply = find_widget (row, GTK_TYPE_BUTTON, TRUE);
    g_assert_nonnull (apply);
    g_signal_emit_by_name (apply, "clicked");
    drain_main_loop ();
    g_assert_cmpint (headroom_project_get_int (project, "training.micro_batch"), <, 32);
    g_assert_true (headroom_estimator_get_fits (headroom_window_get_estimator (window)));
    g_assert_null (find_label (GTK_WIDGET (window), "Any one of these changes makes the run fit"));
  }
  /* The button opens the Plan view. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-plan", NULL));
  drain_main_loop ();
  {
    GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (headroom_window_get_memory_bar (window)),
                                                ADW_TYPE_VIEW_STACK);

    g_assert_cmpstr (adw_view_stack_get_visible_child_name (ADW_VIEW_STACK (stack)), ==, "plan");
  }
  window_destroy (window);
}

/* A sequence longer than the model's context warns. */
static void
test_context_warning (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomProject *project = headroom_window_get_project (window);
  const char *warning = "longer than the model’s context";

  /* Llama 3.1 8B: 131,072 positions. */
  g_assert_null (find_label (GTK_WIDGET (window), warning));
  g_assert_true (headroom_project_set_int (project, "training.seq_len", 262144, NULL));
  drain_main_loop ();
  g_assert_nonnull (find_label (GTK_WIDGET (window), warning));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "131,072"));
  g_assert_true (headroom_project_set_int (project, "training.seq_len", 8192, NULL));
  drain_main_loop ();
  g_assert_null (find_label (GTK_WIDGET (window), warning));
  g_assert_null (find_label (GTK_WIDGET (window), "beyond the model’s context"));
  /* A model of 4,096 positions: 8,192 tokens exceed it, and so does the
   * longest sequence that fits (8,192 fits already). */
  g_assert_true (headroom_project_set_int (project, "model.max_position_embeddings", 4096, NULL));
  drain_main_loop ();
  g_assert_nonnull (find_label (GTK_WIDGET (window), warning));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "beyond the model’s context of 4,096"));
  window_destroy (window);
}

/* The button of class `css_class` holding a label with `part`. */
static GtkWidget *
find_button_with (GtkWidget  *widget,
                  const char *css_class,
                  const char *part)
{
  if (GTK_IS_BUTTON (widget) && gtk_widget_has_css_class (widget, css_class)
      && find_label (widget, part) != NULL)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button_with (child, css_class, part);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Iterates the main loop until `widget` lies wholly inside its window. */
static void
wait_until_inside_window (GtkWidget *widget)
{
  GtkWidget *native = GTK_WIDGET (gtk_widget_get_native (widget));
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  graphene_rect_t bounds;

  for (;;)
    {
      g_assert_true (gtk_widget_compute_bounds (widget, native, &bounds));
      if (bounds.origin.y >= 0 && bounds.origin.x >= 0
          && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (native)
          && bounds.origin.x + bounds.size.width <= gtk_widget_get_width (native))
        return;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
}

static void
assert_explains (GtkWidget  *button,
                 const char *part)
{
  GtkWidget *popover;

  g_assert_nonnull (button);
  /* Focused first, as a keyboard user would reach it: the viewport then
   * scrolls to it, not back to the figure explained before (focus returns
   * there when its popover closes). */
  gtk_widget_grab_focus (button);
  /* Scrolled into view: a popover needs its anchor on a monitor. */
  {
    GtkWidget *scroller = gtk_widget_get_ancestor (button, GTK_TYPE_SCROLLED_WINDOW);
    GtkWidget *content = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller));
    GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
    graphene_point_t p;

    g_assert_true (gtk_widget_compute_point (button, content, &GRAPHENE_POINT_INIT (0, 0), &p));
    gtk_adjustment_set_value (v, p.y - 100);
    /* Until a frame has laid the scrolled content out: a popover anchored
     * outside the window is placed off every monitor, and GDK's X11
     * backend then fails in gdk_monitor_get_geometry(). A loaded machine
     * may take a while to draw that frame. */
    wait_until_inside_window (button);
  }
  g_signal_emit_by_name (button, "clicked");
  drain_main_loop ();
  popover = find_widget (button, GTK_TYPE_POPOVER, TRUE);
  g_assert_nonnull (popover);
  g_assert_nonnull (find_label (popover, part));
  g_assert_nonnull (find_label (popover, "Source: ") != NULL || find_label (popover, "Assumes: ") != NULL
                    ? popover : NULL);
  gtk_popover_popdown (GTK_POPOVER (popover));
  /* Until the closed popover is gone, and with it any focus change it makes. */
  while (find_widget (button, GTK_TYPE_POPOVER, FALSE) != NULL)
    g_main_context_iteration (NULL, TRUE);
  drain_main_loop ();
}

/* "Show why": the memory legend, the Compute table and the time and cost
 * cards open their derivation with the project's values (issue 16). */
static void
test_show_why (void)
{
  /* Inside the 1280×800 screen, shadows included, so that popovers find their monitor. */
  HeadroomWindow *window = window_new (1100);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 700);
  /* Until the window has its new size: a resize moves every figure. */
  while (gdk_surface_get_height (gtk_native_get_surface (GTK_NATIVE (window))) != 700)
    g_main_context_iteration (NULL, TRUE);
  drain_main_loop ();

  /* Derived by hand in tests/service/test-explain.c. */
  assert_explains (find_button_with (GTK_WIDGET (window), "headroom-legend-entry", "Optimizer states"),
                   "Optimizer states = 8 B × 4.02 B parameters on this GPU ÷ 4");
  assert_explains (find_button_with (GTK_WIDGET (window), "headroom-table-link", "MLP"),
                   "MLP = 92.4 TFLOP forward + 185 TFLOP backward");
  assert_explains (find_button_with (GTK_WIDGET (window), "headroom-tile", "Cost"),
                   "per GPU-hour = $");
  window_destroy (window);
}

/* Export Sweep asks for the setting and its range, as the CLI takes them. */
static void
test_sweep_dialog (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomSweepDialog *dialog = NULL;
  g_autofree gint64 *values = NULL;
  guint n = 0;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export-sweep", NULL));
  drain_main_loop ();
  {
    GListModel *toplevels = gtk_window_get_toplevels ();

    for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
      {
        g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

        if (HEADROOM_IS_SWEEP_DIALOG (w))
          dialog = HEADROOM_SWEEP_DIALOG (w);
      }
  }
  g_assert_nonnull (dialog);
  /* The service's default range for the micro-batch: 1 to 64. */
  g_assert_cmpint (headroom_sweep_dialog_get_axis (dialog), ==, HEADROOM_SWEEP_MICRO_BATCH);
  values = headroom_sweep_dialog_dup_values (dialog, &n);
  g_assert_cmpuint (n, ==, 7);
  g_assert_cmpint (values[0], ==, 1);
  g_assert_cmpint (values[6], ==, 64);
  g_clear_pointer (&values, g_free);

  headroom_sweep_dialog_set_axis (dialog, HEADROOM_SWEEP_SEQ_LEN);
  headroom_sweep_dialog_set_range (dialog, 2048, 16384);
  values = headroom_sweep_dialog_dup_values (dialog, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpint (values[0], ==, 2048);
  g_assert_cmpint (values[3], ==, 16384);
  gtk_window_destroy (GTK_WINDOW (dialog));
  window_destroy (window);
}

static GtkWindow *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
        return GTK_WINDOW (w);
    }
  return NULL;
}

/* The Hub dialog has a token field (kept in the keyring by the service). */
static void
test_hub_dialog (void)
{
  HeadroomWindow *window = window_new (1280);
  HeadroomHubDialog *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.import-hub", NULL));
  drain_main_loop ();
  dialog = HEADROOM_HUB_DIALOG (find_toplevel (HEADROOM_TYPE_HUB_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_nonnull (find_widget (GTK_WIDGET (dialog), GTK_TYPE_PASSWORD_ENTRY, TRUE));
  gtk_editable_set_text (GTK_EDITABLE (find_widget (GTK_WIDGET (dialog), GTK_TYPE_PASSWORD_ENTRY, TRUE)),
                         "hf_example");
  g_assert_cmpstr (headroom_hub_dialog_get_token (dialog), ==, "hf_example");
  gtk_window_destroy (GTK_WINDOW (dialog));
  window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();
  setlocale (LC_ALL, "C.UTF-8");

  app = headroom_application_new ("io.github.headroom.Headroom.TestSettings", G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/setting/binds-itself", test_setting_binds_itself);
  g_test_add_func ("/setting/framework-rows", test_framework_rows);
  g_test_add_func ("/setting/input-presentation", test_input_presentation);
  g_test_add_func ("/setting/wheel-scrolls-page", test_wheel_scrolls_page);
  g_test_add_func ("/setting/preset-search-enter", test_preset_search_enter);
  g_test_add_func ("/setting/finetune-rows", test_finetune_rows);
  g_test_add_func ("/setting/torch-pipelining-row", test_torch_pipelining_row);
  g_test_add_func ("/setting/lazy-pages", test_lazy_pages);
  g_test_add_func ("/setting/lazy-expanders", test_lazy_expanders);
  g_test_add_func ("/layout/stable-split", test_stable_split);
  g_test_add_func ("/layout/switcher", test_switcher);
  g_test_add_func ("/layout/narrow", test_narrow);
  g_test_add_func ("/results/not-fit-marked", test_not_fit_marked);
  g_test_add_func ("/setting/structure-row", test_structure_row);
  g_test_add_func ("/results/context-warning", test_context_warning);
  g_test_add_func ("/results/show-why", test_show_why);
  g_test_add_func ("/window/sweep-dialog", test_sweep_dialog);
  g_test_add_func ("/window/hub-dialog", test_hub_dialog);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
