/* headroom-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar's forms are built from the project's key table: every row
 * carries its key, writes through headroom_project_set_*() and is refreshed
 * from the project on ::changed. The results pane redraws on the estimator's
 * ::updated; while the project is invalid the banner names the key and the
 * last valid estimate stays.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-catalog.h"
#include "headroom-fits-plot.h"
#include "headroom-flops-row.h"
#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-hub.h"
#include "headroom-plan-view.h"
#include "headroom-report.h"
#include "headroom-quantity.h"
#include "headroom-spin-row.h"
#include "headroom-switch-row.h"
#include "headroom-window-private.h"

#define MAX_RECENT 8

typedef enum
{
  PENDING_NONE,
  PENDING_NEW,
  PENDING_OPEN,
  PENDING_IMPORT_CONFIG,
  PENDING_IMPORT_HUB,
  PENDING_LOAD,
  PENDING_CLOSE,
} Pending;

struct _HeadroomWindow
{
  AdwApplicationWindow  parent_instance;

  AdwToastOverlay      *toast_overlay;
  AdwLeaflet           *leaflet;
  GtkWidget            *sidebar;
  GtkWidget            *content;
  AdwViewStackPage     *workload_stack_page;
  AdwPreferencesPage   *model_page;
  AdwPreferencesPage   *hardware_page;
  AdwPreferencesPage   *workload_page;
  AdwWindowTitle       *window_title;
  GtkRevealer          *error_revealer;
  GtkLabel             *error_label;
  HeadroomMemoryBar    *memory_bar;
  HeadroomMemoryBar    *cpu_bar;
  GtkColumnView        *flops_view;
  GtkLabel             *flops_caption;
  GtkLabel             *flops_totals;
  GtkLabel             *time_heading;
  GtkLabel             *time_caption;
  GtkFlowBox           *summary_box;
  GtkFlowBox           *limits_box;
  GtkLabel             *plot_caption;
  HeadroomFitsPlot     *fits_plot;
  AdwViewStackPage     *plan_stack_page;
  HeadroomPlanView     *plan_view;
  GMenu                *recent_section;

  /* Built in code */
  GHashTable           *rows;           /* key → row widget */
  AdwActionRow         *preset_row;
  GtkFilterListModel   *preset_filter;
  GtkPopover           *preset_popover;
  AdwComboRow          *gpu_row;
  GtkSwitch            *custom_gpu_switch;
  GtkListBox           *params_list;
  AdwPreferencesGroup  *gpu_figures;
  AdwPreferencesGroup  *interpretation;
  GtkWidget            *custom_gpu_group;
  GtkWidget            *training_groups[4];
  GtkWidget            *inference_groups[2];
  GListStore           *flops_store;
  GListStore           *summary_store;
  GListStore           *limits_store;
  GtkWidget            *error_row;
  guint                 sweep_source;

  HeadroomProject      *project;
  HeadroomEstimator    *estimator;
  GSettings            *settings;

  Pending               pending;
  GFile                *pending_file;
  GCancellable         *hub_cancellable;
  gboolean              syncing;
  gboolean              gpu_list_changing_custom;
};

G_DEFINE_FINAL_TYPE (HeadroomWindow, headroom_window, ADW_TYPE_APPLICATION_WINDOW)

static void refresh_rows (HeadroomWindow *self);
static void refresh_results (HeadroomWindow *self);
static void run_pending (HeadroomWindow *self);
static void save_as (HeadroomWindow *self);
static void show_hub_dialog (HeadroomWindow *self);

/* Rows for the model's config keys that the project's table leaves out:
 * Hugging Face names, 0 meaning "as the preset has it". */
typedef struct
{
  const char *key;
  const char *label;
  const char *group;  /* "architecture", "moe" or "mla" */
  gboolean    boolean;
} ExtraModelKey;

static const ExtraModelKey extra_model_keys[] = {
  { "model.head_dim", N_("Head dimension"), "architecture", FALSE },
  { "model.attention_bias", N_("Attention biases"), "architecture", TRUE },
  { "model.mlp_bias", N_("MLP biases"), "architecture", TRUE },
  { "model.sliding_window", N_("Sliding window"), "architecture", FALSE },
  { "model.num_local_experts", N_("Routed experts"), "moe", FALSE },
  { "model.num_experts_per_tok", N_("Experts per token"), "moe", FALSE },
  { "model.n_shared_experts", N_("Shared experts"), "moe", FALSE },
  { "model.moe_intermediate_size", N_("Expert MLP size"), "moe", FALSE },
  { "model.first_k_dense_replace", N_("Leading dense layers"), "moe", FALSE },
  { "model.q_lora_rank", N_("Query rank"), "mla", FALSE },
  { "model.kv_lora_rank", N_("Key/value rank"), "mla", FALSE },
  { "model.qk_rope_head_dim", N_("Rotary head dimension"), "mla", FALSE },
  { "model.qk_nope_head_dim", N_("Non-rotary head dimension"), "mla", FALSE },
  { "model.v_head_dim", N_("Value head dimension"), "mla", FALSE },
};

/* Chart colours: libadwaita 1.2 palette names, distinct in light and dark. */
static const char *
segment_color (HeadroomQuantity *quantity)
{
  static const struct { const char *name; const char *color; } colors[] = {
    { "weights", "blue_3" },
    { "master_weights", "blue_5" },
    { "gradients", "purple_2" },
    { "grad_accumulation_buffer", "purple_4" },
    { "optimizer", "orange_3" },
    { "activations", "green_4" },
    { "kv_cache", "yellow_5" },
    { "temporary", "brown_2" },
    { "overhead", "light_5" },
    /* The offloaded states keep the colours they have on the GPU. */
    { "cpu_master_weights", "blue_5" },
    { "cpu_optimizer", "orange_3" },
    { "cpu_gradients", "purple_4" },
  };
  const char *name = headroom_quantity_get_name (quantity);

  for (guint i = 0; i < G_N_ELEMENTS (colors); i++)
    if (g_strcmp0 (name, colors[i].name) == 0)
      return colors[i].color;
  return "dark_1";
}

static char *
format_quantity (double      value,
                 const char *unit)
{
  if (unit == NULL)
    return g_strdup_printf ("%.4g", value);
  if (g_str_equal (unit, "bytes"))
    return headroom_format_gib (value);
  if (g_str_equal (unit, "FLOP"))
    return headroom_format_flops (value);
  if (g_str_equal (unit, "s"))
    return headroom_format_duration (value);
  if (g_str_equal (unit, "USD"))
    return headroom_format_money (value);
  if (g_str_equal (unit, "%"))
    return g_strdup_printf ("%.1f %%", value);
  if (g_str_equal (unit, "ratio"))
    return g_strdup_printf ("%.1f %%", 100.0 * value);
  if (g_str_equal (unit, "parameters"))
    return headroom_format_count (value);
  return headroom_format_count_unit (value, unit);
}

/* Sidebar rows */

static void
show_error (HeadroomWindow *self,
            const char     *message)
{
  gtk_label_set_label (self->error_label, message ? message : "");
  gtk_revealer_set_reveal_child (self->error_revealer, message != NULL);
}

static void
mark_row (HeadroomWindow *self,
          GtkWidget      *row)
{
  if (self->error_row == row)
    return;
  if (self->error_row != NULL)
    gtk_widget_remove_css_class (self->error_row, "error");
  self->error_row = row;
  if (row != NULL)
    gtk_widget_add_css_class (row, "error");
}

static void
report_set_result (HeadroomWindow *self,
                   GtkWidget      *row,
                   gboolean        ok,
                   GError         *error)
{
  if (ok)
    return;
  mark_row (self, row);
  show_error (self, error->message);
}

static void
on_spin_row_changed (HeadroomWindow  *self,
                     GParamSpec      *pspec,
                     HeadroomSpinRow *row)
{
  g_autoptr(GError) error = NULL;
  const HeadroomKeyInfo *info;
  const char *key = headroom_spin_row_get_key (row);
  double value = headroom_spin_row_get_value (row);
  gboolean ok;

  if (self->syncing)
    return;
  info = headroom_project_find_key (key);
  /* Extra model keys: 0 hands the value back to the preset. */
  if (info == NULL && value == 0)
    {
      headroom_project_unset (self->project, key);
      return;
    }
  if (info != NULL && info->type == HEADROOM_KEY_DOUBLE)
    ok = headroom_project_set_double (self->project, key, value, &error);
  else
    ok = headroom_project_set_int (self->project, key, (gint64) llround (value), &error);
  report_set_result (self, GTK_WIDGET (row), ok, error);
}

static void
on_switch_row_changed (HeadroomWindow    *self,
                       GParamSpec        *pspec,
                       HeadroomSwitchRow *row)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (self->syncing)
    return;
  ok = headroom_project_set_boolean (self->project, headroom_switch_row_get_key (row),
                                     headroom_switch_row_get_active (row), &error);
  report_set_result (self, GTK_WIDGET (row), ok, error);
}

static void
on_combo_row_changed (HeadroomWindow *self,
                      GParamSpec     *pspec,
                      AdwComboRow    *row)
{
  g_autoptr(GError) error = NULL;
  const HeadroomKeyInfo *info = g_object_get_data (G_OBJECT (row), "key-info");
  guint selected = adw_combo_row_get_selected (row);
  gboolean ok;

  if (self->syncing || selected == GTK_INVALID_LIST_POSITION)
    return;
  ok = headroom_project_set_string (self->project, info->key, info->choices[selected], &error);
  report_set_result (self, GTK_WIDGET (row), ok, error);
}

static void
on_entry_row_apply (HeadroomWindow *self,
                    AdwEntryRow    *row)
{
  g_autoptr(GError) error = NULL;
  const HeadroomKeyInfo *info = g_object_get_data (G_OBJECT (row), "key-info");
  gboolean ok;

  ok = headroom_project_set_string (self->project, info->key,
                                    gtk_editable_get_text (GTK_EDITABLE (row)), &error);
  report_set_result (self, GTK_WIDGET (row), ok, error);
}

static GtkWidget *
spin_row_new (HeadroomWindow *self,
              const char     *key,
              const char     *label,
              double          lower,
              double          upper,
              gboolean        fractional,
              const char     *unit)
{
  GtkWidget *row;
  double step = 1;
  guint digits = 0;

  /* Token budgets and the like are whole numbers, however large. */
  if (fractional && upper <= 1e6)
    {
      digits = upper <= 1 ? 3 : 2;
      step = upper <= 1 ? 0.01 : 0.1;
    }
  row = headroom_spin_row_new (_(label), key, lower, upper, step, digits);
  /* Room for a token budget of 10¹² and more. */
  if (upper > 1e10)
    gtk_editable_set_width_chars (GTK_EDITABLE (headroom_spin_row_get_spin_button (HEADROOM_SPIN_ROW (row))), 15);
  if (unit != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), unit);
  g_signal_connect_object (row, "notify::value", G_CALLBACK (on_spin_row_changed),
                           self, G_CONNECT_SWAPPED);
  return row;
}

/* How the project's choice values read in the window; unknown values show as they are. */
static const char *
choice_label (const char *value)
{
  static const struct { const char *value; const char *label; } labels[] = {
    { "training", N_("Training") },
    { "inference", N_("Inference") },
    { "fp32", N_("FP32") },
    { "bf16-mixed", N_("BF16 mixed precision") },
    { "fp16-mixed", N_("FP16 mixed precision") },
    { "bf16", N_("BF16") },
    { "fp16", N_("FP16") },
    { "fp8-mixed", N_("FP8 mixed precision") },
    { "fp8", N_("FP8") },
    { "int8", N_("INT8") },
    { "int4", N_("INT4") },
    { "adamw", N_("AdamW") },
    { "adamw-8bit", N_("AdamW, 8-bit states") },
    { "sgd", N_("SGD") },
    { "sgd-momentum", N_("SGD with momentum") },
    { "lion", N_("Lion") },
    { "adafactor", N_("Adafactor") },
    { "1f1b", N_("1F1B") },
    { "interleaved", N_("Interleaved 1F1B") },
    { "gpipe", N_("GPipe") },
    { "none", N_("None") },
    { "full", N_("Full") },
    { "grad-op", N_("Gradients and optimizer") },
    { "hybrid", N_("Hybrid") },
    { "eager", N_("Eager") },
    { "flash", N_("FlashAttention") },
    { "selective", N_("Selective") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_str_equal (labels[i].value, value))
      return _(labels[i].label);
  return value;
}

static GtkWidget *
row_new_for_key (HeadroomWindow        *self,
                 const HeadroomKeyInfo *info)
{
  GtkWidget *row = NULL;

  switch (info->type)
    {
    case HEADROOM_KEY_INT:
    case HEADROOM_KEY_DOUBLE:
      row = spin_row_new (self, info->key, info->label, info->minimum, info->maximum,
                          info->type == HEADROOM_KEY_DOUBLE, info->unit);
      break;
    case HEADROOM_KEY_BOOLEAN:
      row = headroom_switch_row_new (_(info->label), info->key);
      g_signal_connect_object (row, "notify::active", G_CALLBACK (on_switch_row_changed),
                               self, G_CONNECT_SWAPPED);
      break;
    case HEADROOM_KEY_CHOICE:
      {
        g_autoptr(GtkStringList) choices = gtk_string_list_new (NULL);

        /* Same order as info->choices: the selected index maps back to the value. */
        for (guint i = 0; info->choices[i] != NULL; i++)
          gtk_string_list_append (choices, choice_label (info->choices[i]));

        row = adw_combo_row_new ();
        adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(info->label));
        adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (choices));
      }
      g_signal_connect_object (row, "notify::selected", G_CALLBACK (on_combo_row_changed),
                               self, G_CONNECT_SWAPPED);
      break;
    case HEADROOM_KEY_STRING:
      row = adw_entry_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(info->label));
      adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
      g_signal_connect_object (row, "apply", G_CALLBACK (on_entry_row_apply),
                               self, G_CONNECT_SWAPPED);
      break;
    default:
      g_assert_not_reached ();
    }
  g_object_set_data (G_OBJECT (row), "key-info", (gpointer) info);
  return row;
}

static void
refresh_row (HeadroomWindow *self,
             const char     *key,
             GtkWidget      *row)
{
  if (HEADROOM_IS_SPIN_ROW (row))
    {
      const HeadroomKeyInfo *info = headroom_project_find_key (key);
      double value;

      if (info != NULL && info->type == HEADROOM_KEY_DOUBLE)
        value = headroom_project_get_double (self->project, key);
      else
        value = (double) headroom_project_get_int (self->project, key);
      /* Setting the same value would rewrite text the user is typing. */
      if (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (row)) != value)
        headroom_spin_row_set_value (HEADROOM_SPIN_ROW (row), value);
    }
  else if (HEADROOM_IS_SWITCH_ROW (row))
    {
      headroom_switch_row_set_active (HEADROOM_SWITCH_ROW (row),
                                      headroom_project_get_boolean (self->project, key));
    }
  else if (ADW_IS_COMBO_ROW (row))
    {
      const HeadroomKeyInfo *info = g_object_get_data (G_OBJECT (row), "key-info");
      const char *value = headroom_project_get_string (self->project, key);

      for (guint i = 0; info->choices[i] != NULL; i++)
        if (g_strcmp0 (info->choices[i], value) == 0)
          adw_combo_row_set_selected (ADW_COMBO_ROW (row), i);
    }
  else if (ADW_IS_ENTRY_ROW (row))
    {
      const char *value = headroom_project_get_string (self->project, key);

      gtk_editable_set_text (GTK_EDITABLE (row), value ? value : "");
    }
}

/* The preset chooser: a searchable list in a popover */

static void
on_preset_activated (HeadroomWindow *self,
                     guint           position)
{
  g_autoptr(HeadroomModelPreset) preset = g_list_model_get_item (G_LIST_MODEL (self->preset_filter),
                                                                 position);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) empty = json_object_new ();

  gtk_popover_popdown (self->preset_popover);
  if (preset == NULL)
    return;
  /* A preset replaces the whole model: drop the previous overrides first. */
  headroom_project_set_config (self->project, empty);
  if (!headroom_project_set_string (self->project, "model.preset",
                                    headroom_model_preset_get_id (preset), &error))
    report_set_result (self, GTK_WIDGET (self->preset_row), FALSE, error);
}

static void
setup_preset_item (GtkSignalListItemFactory *factory,
                   GtkListItem              *item)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *hf_id = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_xalign (GTK_LABEL (hf_id), 0);
  gtk_label_set_ellipsize (GTK_LABEL (hf_id), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (hf_id, "dim-label");
  gtk_widget_add_css_class (hf_id, "caption");
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), hf_id);
  gtk_list_item_set_child (item, box);
}

static void
bind_preset_item (GtkSignalListItemFactory *factory,
                  GtkListItem              *item)
{
  HeadroomModelPreset *preset = gtk_list_item_get_item (item);
  GtkWidget *name = gtk_widget_get_first_child (gtk_list_item_get_child (item));
  const char *hf_id = headroom_model_preset_get_hf_id (preset);

  gtk_label_set_label (GTK_LABEL (name), headroom_model_preset_get_name (preset));
  gtk_label_set_label (GTK_LABEL (gtk_widget_get_next_sibling (name)), hf_id ? hf_id : "");
  gtk_widget_set_visible (gtk_widget_get_next_sibling (name), hf_id != NULL && *hf_id != '\0');
}

static char *
preset_search_text (HeadroomModelPreset *preset)
{
  return g_strdup_printf ("%s %s", headroom_model_preset_get_name (preset),
                          headroom_model_preset_get_hf_id (preset)
                          ? headroom_model_preset_get_hf_id (preset) : "");
}

static void
on_preset_search_changed (GtkSearchEntry *entry,
                          GtkStringFilter *filter)
{
  gtk_string_filter_set_search (filter, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static GtkWidget *
preset_row_new (HeadroomWindow *self)
{
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  GtkStringFilter *filter;
  GtkListItemFactory *factory;
  GtkWidget *box, *search, *list, *scroller, *button;

  filter = gtk_string_filter_new (gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL,
                                                               G_CALLBACK (preset_search_text),
                                                               NULL, NULL));
  self->preset_filter = gtk_filter_list_model_new (g_object_ref (headroom_catalog_get_models (catalog)),
                                                   GTK_FILTER (filter));

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_preset_item), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_preset_item), NULL);
  list = gtk_list_view_new (GTK_SELECTION_MODEL (gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->preset_filter)))),
                            factory);
  gtk_list_view_set_single_click_activate (GTK_LIST_VIEW (list), TRUE);
  gtk_widget_add_css_class (list, "navigation-sidebar");
  g_signal_connect_object (list, "activate", G_CALLBACK (on_preset_activated),
                           self, G_CONNECT_SWAPPED);

  search = gtk_search_entry_new ();
  gtk_search_entry_set_key_capture_widget (GTK_SEARCH_ENTRY (search), list);
  g_signal_connect_object (search, "search-changed", G_CALLBACK (on_preset_search_changed),
                           filter, 0);

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 320);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), list);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_size_request (box, 320, -1);
  gtk_box_append (GTK_BOX (box), search);
  gtk_box_append (GTK_BOX (box), scroller);

  self->preset_popover = GTK_POPOVER (gtk_popover_new ());
  gtk_popover_set_child (self->preset_popover, box);
  gtk_popover_set_default_widget (self->preset_popover, search);

  button = gtk_menu_button_new ();
  gtk_menu_button_set_label (GTK_MENU_BUTTON (button), _("Choose…"));
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (button), GTK_WIDGET (self->preset_popover));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, _("Search the built-in and your own model presets"));

  self->preset_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->preset_row), _("Preset"));
  adw_action_row_add_suffix (self->preset_row, button);
  adw_action_row_set_activatable_widget (self->preset_row, button);
  return GTK_WIDGET (self->preset_row);
}

/* The GPU chooser */

/* Expressions take ownership of a returned string. */
static char *
gpu_display_name (HeadroomGpuInfo *gpu)
{
  return g_strdup (headroom_gpu_info_get_name (gpu));
}

static void
on_gpu_selected (HeadroomWindow *self)
{
  g_autoptr(GError) error = NULL;
  HeadroomGpuInfo *gpu = adw_combo_row_get_selected_item (self->gpu_row);
  const char *id = gpu != NULL ? headroom_gpu_info_get_id (gpu) : "custom";

  if (self->syncing)
    return;
  if (!headroom_project_set_string (self->project, "hardware.gpu", id, &error))
    report_set_result (self, GTK_WIDGET (self->gpu_row), FALSE, error);
}

/* "custom" is the project's id for the figures under hardware.custom. */
static void
on_custom_gpu_toggled (HeadroomWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomGpuInfo) first = NULL;
  const char *id = "custom";

  if (self->syncing)
    return;
  if (!gtk_switch_get_active (self->custom_gpu_switch))
    {
      first = g_list_model_get_item (adw_combo_row_get_model (self->gpu_row), 0);
      if (first == NULL)
        return;
      id = headroom_gpu_info_get_id (first);
    }
  if (!headroom_project_set_string (self->project, "hardware.gpu", id, &error))
    report_set_result (self, GTK_WIDGET (self->gpu_row), FALSE, error);
}

static GtkWidget *
custom_gpu_row_new (HeadroomWindow *self)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Custom GPU"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Enter the figures of a GPU not in the catalog"));
  self->custom_gpu_switch = GTK_SWITCH (gtk_switch_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->custom_gpu_switch), GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), GTK_WIDGET (self->custom_gpu_switch));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), GTK_WIDGET (self->custom_gpu_switch));
  g_signal_connect_object (self->custom_gpu_switch, "notify::active",
                           G_CALLBACK (on_custom_gpu_toggled), self, G_CONNECT_SWAPPED);
  return row;
}

/* Selecting an item that was added while the combo row had no selection
 * (a custom GPU) crashes inside GTK 4.8 (a bare AdwComboRow does it too).
 * So while the catalog's list changes, the row holds the first GPU, without
 * telling the project, and goes back to no selection afterwards. */
static void
on_gpus_changing (HeadroomWindow *self)
{
  gboolean syncing;

  if (adw_combo_row_get_selected (self->gpu_row) != GTK_INVALID_LIST_POSITION)
    return;
  self->gpu_list_changing_custom = TRUE;
  syncing = self->syncing;
  self->syncing = TRUE;
  adw_combo_row_set_selected (self->gpu_row, 0);
  self->syncing = syncing;
}

static void
on_gpus_changed (HeadroomWindow *self)
{
  gboolean syncing;

  if (!self->gpu_list_changing_custom)
    return;
  self->gpu_list_changing_custom = FALSE;
  syncing = self->syncing;
  self->syncing = TRUE;
  adw_combo_row_set_selected (self->gpu_row, GTK_INVALID_LIST_POSITION);
  self->syncing = syncing;
}

static GtkWidget *
gpu_row_new (HeadroomWindow *self)
{
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  GListModel *gpus = headroom_catalog_get_gpus (catalog);
  GtkExpression *name = gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL,
                                                     G_CALLBACK (gpu_display_name),
                                                     NULL, NULL);

  self->gpu_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->gpu_row), _("GPU"));
  adw_combo_row_set_expression (self->gpu_row, name);
  /* Before and after the row's own handler (see on_gpus_changing). */
  g_signal_connect_object (gpus, "items-changed", G_CALLBACK (on_gpus_changing),
                           self, G_CONNECT_SWAPPED);
  adw_combo_row_set_model (self->gpu_row, gpus);
  g_signal_connect_object (gpus, "items-changed", G_CALLBACK (on_gpus_changed),
                           self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  gtk_expression_unref (name);
  g_signal_connect_object (self->gpu_row, "notify::selected", G_CALLBACK (on_gpu_selected),
                           self, G_CONNECT_SWAPPED);
  return GTK_WIDGET (self->gpu_row);
}

static void
refresh_gpu_row (HeadroomWindow *self)
{
  GListModel *gpus = adw_combo_row_get_model (self->gpu_row);
  const char *id = headroom_project_get_string (self->project, "hardware.gpu");
  guint n = g_list_model_get_n_items (gpus);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomGpuInfo) gpu = g_list_model_get_item (gpus, i);

      if (g_strcmp0 (headroom_gpu_info_get_id (gpu), id) == 0)
        {
          adw_combo_row_set_selected (self->gpu_row, i);
          adw_action_row_set_subtitle (ADW_ACTION_ROW (self->gpu_row), NULL);
          gtk_widget_set_sensitive (GTK_WIDGET (self->gpu_row), TRUE);
          gtk_switch_set_active (self->custom_gpu_switch, FALSE);
          gtk_widget_set_visible (self->custom_gpu_group, FALSE);
          return;
        }
    }
  /* Not in the catalog: the custom figures below describe it. */
  adw_combo_row_set_selected (self->gpu_row, GTK_INVALID_LIST_POSITION);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->gpu_row), _("Custom"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->gpu_row), FALSE);
  gtk_switch_set_active (self->custom_gpu_switch, TRUE);
  gtk_widget_set_visible (self->custom_gpu_group, TRUE);
}

static GtkWidget *
figure_row_new (const char *title)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *value = gtk_label_new (NULL);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_label_set_selectable (GTK_LABEL (value), TRUE);
  gtk_widget_add_css_class (value, "numeric");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), value);
  g_object_set_data (G_OBJECT (row), "value", value);
  return row;
}

static void
set_figure (GtkWidget  *row,
            const char *text)
{
  gtk_label_set_label (g_object_get_data (G_OBJECT (row), "value"), text);
}

static void
refresh_gpu_figures (HeadroomWindow *self)
{
  static const struct { HrDtype dtype; const char *name; } peaks[] = {
    { HR_DTYPE_FP32, "FP32" }, { HR_DTYPE_TF32, "TF32" }, { HR_DTYPE_BF16, "BF16" },
    { HR_DTYPE_FP16, "FP16" }, { HR_DTYPE_FP8, "FP8" }, { HR_DTYPE_INT8, "INT8" },
  };
  GObject *figures = G_OBJECT (self->gpu_figures);
  HrGpu gpu;
  g_autofree char *memory = NULL;
  g_autofree char *bandwidth = NULL;
  g_autofree char *link = NULL;
  g_autofree char *power = NULL;

  if (!headroom_project_get_gpu (self->project, &gpu, NULL))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->gpu_figures), FALSE);
      return;
    }
  gtk_widget_set_visible (GTK_WIDGET (self->gpu_figures), TRUE);
  memory = headroom_format_gib (gpu.memory_bytes);
  set_figure (g_object_get_data (figures, "memory"), memory);
  bandwidth = g_strdup_printf (_("%.0f GB/s"), gpu.memory_bandwidth / 1e9);
  set_figure (g_object_get_data (figures, "bandwidth"), bandwidth);
  link = g_strdup_printf (_("%.0f GB/s"), gpu.intra_node_bandwidth / 1e9);
  set_figure (g_object_get_data (figures, "link"), link);
  power = gpu.power_watts > 0 ? g_strdup_printf (_("%.0f W"), gpu.power_watts)
                              : g_strdup (_("Not published"));
  set_figure (g_object_get_data (figures, "power"), power);
  for (guint i = 0; i < G_N_ELEMENTS (peaks); i++)
    {
      GtkWidget *peak = g_object_get_data (figures, peaks[i].name);
      g_autofree char *text = NULL;

      if (gpu.peak_flops[peaks[i].dtype] > 0)
        /* TRANSLATORS: dense peak rate, e.g. "989 TFLOP/s" */
        text = g_strdup_printf (_("%.0f TFLOP/s"), gpu.peak_flops[peaks[i].dtype] / 1e12);
      else
        text = g_strdup (_("Not supported"));
      set_figure (peak, text);
    }
}

static void
build_gpu_figures (HeadroomWindow *self)
{
  static const char *const peaks[] = { "FP32", "TF32", "BF16", "FP16", "FP8", "INT8" };
  GtkWidget *row;

  self->gpu_figures = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->gpu_figures, _("GPU Figures"));
  adw_preferences_group_set_description (self->gpu_figures,
                                         _("Dense peaks from the vendor's data sheet; read-only"));
  row = figure_row_new (_("Memory"));
  g_object_set_data (G_OBJECT (self->gpu_figures), "memory", row);
  adw_preferences_group_add (self->gpu_figures, row);
  row = figure_row_new (_("Memory bandwidth"));
  g_object_set_data (G_OBJECT (self->gpu_figures), "bandwidth", row);
  adw_preferences_group_add (self->gpu_figures, row);
  for (guint i = 0; i < G_N_ELEMENTS (peaks); i++)
    {
      /* TRANSLATORS: a number type, e.g. "BF16 peak" */
      g_autofree char *title = g_strdup_printf (_("%s peak"), peaks[i]);

      row = figure_row_new (title);
      g_object_set_data (G_OBJECT (self->gpu_figures), peaks[i], row);
      adw_preferences_group_add (self->gpu_figures, row);
    }
  row = figure_row_new (_("Intra-node bandwidth per GPU"));
  g_object_set_data (G_OBJECT (self->gpu_figures), "link", row);
  adw_preferences_group_add (self->gpu_figures, row);
  row = figure_row_new (_("Board power"));
  g_object_set_data (G_OBJECT (self->gpu_figures), "power", row);
  adw_preferences_group_add (self->gpu_figures, row);
}

/* Parameter breakdown */

static GtkWidget *
create_params_row (gpointer item,
                   gpointer user_data)
{
  HeadroomQuantity *quantity = item;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *value;
  g_autofree char *text = headroom_format_count (headroom_quantity_get_value (quantity));
  double count = headroom_quantity_get_value (quantity);
  g_autofree char *digits = headroom_format_integer (count);
  g_autofree char *exact = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s parameter",
                                                         "%s parameters",
                                                         (gulong) MIN (count, (double) G_MAXULONG)),
                                            digits);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), headroom_quantity_get_label (quantity));
  value = gtk_label_new (text);
  gtk_widget_add_css_class (value, "numeric");
  if (g_strcmp0 (headroom_quantity_get_name (quantity), "total") == 0)
    gtk_widget_add_css_class (value, "heading");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), value);
  if (headroom_quantity_get_formula (quantity) != NULL)
    {
      g_autofree char *tooltip = g_strdup_printf ("%s\n%s", exact, headroom_quantity_get_formula (quantity));

      gtk_widget_set_tooltip_text (row, tooltip);
    }
  else
    gtk_widget_set_tooltip_text (row, exact);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  return row;
}

/* How the estimate read the config: the parts config.json only implies
 * through model_type and hidden_act (Hugging Face modeling_<family>.py). */
static void
build_interpretation (HeadroomWindow *self)
{
  static const struct { const char *id; const char *title; } rows[] = {
    { "mlp", N_("MLP kind") },
    { "norm", N_("Norms") },
    { "positions", N_("Positions") },
    { "biases", N_("Biases") },
    { "block", N_("Block layout") },
  };

  self->interpretation = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->interpretation, _("As Read from the Config"));
  adw_preferences_group_set_description (self->interpretation,
                                         _("What the model type implies, as the Hugging Face modules build it"));
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GtkWidget *row = adw_action_row_new ();

      /* The readings are long: they go in the subtitle, which wraps. */
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(rows[i].title));
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
      g_object_set_data (G_OBJECT (self->interpretation), rows[i].id, row);
      adw_preferences_group_add (self->interpretation, row);
    }
}

static void
set_reading (GtkWidget  *row,
             const char *text)
{
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text);
}

static void
refresh_interpretation (HeadroomWindow *self)
{
  GObject *group = G_OBJECT (self->interpretation);
  const HrModel *model = headroom_estimator_get_model (self->estimator);
  g_autoptr(GString) biases = g_string_new (NULL);
  g_autofree char *positions = NULL;
  const char *norm_kind, *placement;
  g_autofree char *norm = NULL;

  set_reading (g_object_get_data (group, "mlp"),
              model->ffn_kind == HR_FFN_GATED ? _("Gated, 3 matrices (SwiGLU, GeGLU)")
                                              : _("Plain, 2 matrices (GELU, ReLU)"));

  norm_kind = model->norm_kind == HR_NORM_RMSNORM ? _("RMSNorm")
              : model->norm_bias ? _("LayerNorm with bias") : _("LayerNorm without bias");
  switch (model->norm_placement)
    {
    case HR_NORM_PRE:
      placement = _("before each sub-block");
      break;
    case HR_NORM_POST:
      placement = _("after each residual add");
      break;
    case HR_NORM_SANDWICH:
      placement = _("before and after each sub-block");
      break;
    default:
      placement = "";
    }
  /* TRANSLATORS: e.g. "RMSNorm, before each sub-block" */
  norm = g_strdup_printf (_("%s, %s"), norm_kind, placement);
  set_reading (g_object_get_data (group, "norm"), norm);

  switch (model->positions)
    {
    case HR_POSITIONS_ROTARY:
      positions = model->rotary_fraction < 1
                  ? g_strdup_printf (_("Rotary on %.0f %% of each head"), 100 * model->rotary_fraction)
                  : g_strdup (_("Rotary"));
      break;
    case HR_POSITIONS_LEARNED:
      {
        gint64 rows = model->max_positions + model->position_offset;

        positions = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                  "Learned table of %" G_GINT64_FORMAT " row",
                                                  "Learned table of %" G_GINT64_FORMAT " rows",
                                                  (gulong) rows),
                                     rows);
      }
      break;
    case HR_POSITIONS_ALIBI:
      positions = g_strdup (_("ALiBi"));
      break;
    case HR_POSITIONS_NONE:
    default:
      positions = g_strdup (_("None"));
    }
  set_reading (g_object_get_data (group, "positions"), positions);

  if (model->qkv_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("q, k, v"));
  if (model->out_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("attention output"));
  if (model->mlp_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("MLP"));
  if (model->lm_head_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("LM head"));
  set_reading (g_object_get_data (group, "biases"), biases->len ? biases->str : _("None"));

  set_reading (g_object_get_data (group, "block"),
              model->parallel_block ? _("Parallel: attention and MLP read the same input")
                                    : _("Sequential: attention, then MLP"));
}

/* Parts the model does not have (no learned positions, no experts) stay hidden. */
static gboolean
quantity_is_nonzero (gpointer item,
                     gpointer user_data)
{
  return headroom_quantity_get_value (item) != 0;
}

static void
build_forms (HeadroomWindow *self)
{
  AdwPreferencesGroup *preset_group, *architecture, *cluster, *custom_gpu, *workload_group;
  AdwPreferencesGroup *params_group;
  AdwExpanderRow *moe, *mla;
  GtkWidget *training[4], *inference[2];
  const HeadroomKeyInfo *keys;
  guint n_keys;

  self->rows = g_hash_table_new (g_str_hash, g_str_equal);

  preset_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (preset_group, _("Model"));
  adw_preferences_group_set_description (preset_group,
                                         _("Start from a preset or an imported config.json, then edit any field"));
  adw_preferences_group_add (preset_group, preset_row_new (self));
  {
    g_autoptr(GMenu) menu = g_menu_new ();
    g_autoptr(GMenu) saving = g_menu_new ();
    GtkWidget *import = gtk_menu_button_new ();

    g_menu_append (saving, _("Save as Preset…"), "win.save-preset");

    g_menu_append (menu, _("From a config.json File…"), "win.import-config");
    g_menu_append (menu, _("From the Hugging Face Hub…"), "win.import-hub");
    g_menu_append_section (menu, NULL, G_MENU_MODEL (saving));
    gtk_menu_button_set_label (GTK_MENU_BUTTON (import), _("Import"));
    gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (import), G_MENU_MODEL (menu));
    gtk_widget_add_css_class (import, "flat");
    gtk_widget_set_valign (import, GTK_ALIGN_CENTER);
    adw_preferences_group_set_header_suffix (preset_group, import);
  }

  architecture = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (architecture, _("Architecture"));
  adw_preferences_group_set_description (architecture,
                                         _("Hugging Face config.json fields; 0 keeps the preset's value"));
  moe = ADW_EXPANDER_ROW (adw_expander_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (moe), _("Mixture of Experts"));
  adw_expander_row_set_subtitle (moe, _("Routed and shared experts (Mixtral, DeepSeek)"));
  mla = ADW_EXPANDER_ROW (adw_expander_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (mla), _("Latent Attention"));
  adw_expander_row_set_subtitle (mla, _("Low-rank key/value compression (DeepSeek-V2/V3)"));

  params_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (params_group, _("Parameters"));
  adw_preferences_group_set_description (params_group,
                                         _("Counted exactly from the tensors the Hugging Face modules create"));
  self->params_list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->params_list, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->params_list), "boxed-list");
  {
    g_autoptr(GtkFilterListModel) nonzero =
      gtk_filter_list_model_new (g_object_ref (headroom_estimator_get_params_rows (self->estimator)),
                                 GTK_FILTER (gtk_custom_filter_new (quantity_is_nonzero, NULL, NULL)));

    gtk_list_box_bind_model (self->params_list, G_LIST_MODEL (nonzero), create_params_row, NULL, NULL);
  }
  adw_preferences_group_add (params_group, GTK_WIDGET (self->params_list));

  cluster = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (cluster, _("Cluster"));
  adw_preferences_group_add (cluster, gpu_row_new (self));
  adw_preferences_group_add (cluster, custom_gpu_row_new (self));
  custom_gpu = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (custom_gpu, _("Custom GPU"));
  self->custom_gpu_group = GTK_WIDGET (custom_gpu);
  {
    GtkWidget *save = gtk_button_new_with_mnemonic (_("Save to _Catalog…"));

    gtk_actionable_set_action_name (GTK_ACTIONABLE (save), "win.save-gpu");
    gtk_widget_set_tooltip_text (save, _("Add these figures to your GPUs, kept across sessions"));
    gtk_widget_add_css_class (save, "flat");
    gtk_widget_set_valign (save, GTK_ALIGN_CENTER);
    adw_preferences_group_set_header_suffix (custom_gpu, save);
  }
  build_gpu_figures (self);

  workload_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  for (guint i = 0; i < G_N_ELEMENTS (training); i++)
    training[i] = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (training[0]), _("Batch"));
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (training[1]), _("Numerics"));
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (training[2]), _("Parallelism"));
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (training[3]), _("Throughput"));
  for (guint i = 0; i < G_N_ELEMENTS (inference); i++)
    inference[i] = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (inference[0]), _("Requests"));
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (inference[1]), _("Serving"));

  keys = headroom_project_get_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      const HeadroomKeyInfo *info = &keys[i];
      const char *key = info->key;
      GtkWidget *row;
      AdwPreferencesGroup *group;

      if (g_str_equal (key, "model.preset") || g_str_equal (key, "notes"))
        continue;
      if (g_str_equal (key, "hardware.gpu"))
        {
          g_hash_table_insert (self->rows, (gpointer) key, self->gpu_row);
          continue;
        }
      row = row_new_for_key (self, info);
      g_hash_table_insert (self->rows, (gpointer) key, row);

      if (g_str_has_prefix (key, "model."))
        group = architecture;
      else if (g_str_has_prefix (key, "hardware.custom."))
        group = custom_gpu;
      else if (g_str_has_prefix (key, "hardware."))
        group = cluster;
      else if (g_str_has_prefix (key, "training."))
        {
          const char *name = key + strlen ("training.");

          if (g_str_equal (name, "micro_batch") || g_str_equal (name, "global_batch")
              || g_str_equal (name, "seq_len") || g_str_equal (name, "tokens"))
            group = ADW_PREFERENCES_GROUP (training[0]);
          else if (g_str_equal (name, "mfu"))
            {
              group = ADW_PREFERENCES_GROUP (training[3]);
              /* docs/training.md, "Time, MFU and cost" */
              gtk_widget_set_tooltip_text (row, _("The share of the GPUs' peak at which every "
                                                  "FLOP executed runs, recomputation included: "
                                                  "step time = (model FLOPs + recomputation) ÷ "
                                                  "(GPUs × peak × this). It is the hardware FLOPs "
                                                  "utilisation; the model FLOPs utilisation "
                                                  "achieved is lower when work is recomputed "
                                                  "(about 30 % at 40 % with full recomputation)."));
            }
          else if (g_str_equal (name, "causal"))
            {
              group = ADW_PREFERENCES_GROUP (training[3]);
              /* docs/conventions.md, "Causal attention" */
              gtk_widget_set_tooltip_text (row, _("Off: QKᵀ and attention over V count as the "
                                                  "full s×s product, as eager attention computes "
                                                  "them and PaLM's model FLOPs count them. On: "
                                                  "both are halved, as causal FlashAttention "
                                                  "kernels execute them; FLOPs and step time "
                                                  "drop accordingly."));
            }
          else if (strstr (name, "parallel") != NULL || g_str_has_prefix (name, "pipeline")
                   || g_str_equal (name, "virtual_stages") || g_str_equal (name, "zero_stage")
                   || g_str_equal (name, "fsdp"))
            group = ADW_PREFERENCES_GROUP (training[2]);
          else
            group = ADW_PREFERENCES_GROUP (training[1]);
        }
      else if (g_str_has_prefix (key, "inference."))
        {
          const char *name = key + strlen ("inference.");

          if (g_str_equal (name, "batch") || g_str_equal (name, "prompt")
              || g_str_equal (name, "generate"))
            group = ADW_PREFERENCES_GROUP (inference[0]);
          else
            group = ADW_PREFERENCES_GROUP (inference[1]);
        }
      else
        group = workload_group;
      adw_preferences_group_add (group, row);
    }

  for (guint i = 0; i < G_N_ELEMENTS (extra_model_keys); i++)
    {
      const ExtraModelKey *extra = &extra_model_keys[i];
      GtkWidget *row;

      if (extra->boolean)
        {
          row = headroom_switch_row_new (_(extra->label), extra->key);
          g_signal_connect_object (row, "notify::active", G_CALLBACK (on_switch_row_changed),
                                   self, G_CONNECT_SWAPPED);
        }
      else
        row = spin_row_new (self, extra->key, extra->label, 0, 1e8, FALSE, NULL);
      g_hash_table_insert (self->rows, (gpointer) extra->key, row);
      if (g_str_equal (extra->group, "moe"))
        adw_expander_row_add_row (moe, row);
      else if (g_str_equal (extra->group, "mla"))
        adw_expander_row_add_row (mla, row);
      else
        adw_preferences_group_add (architecture, row);
    }
  adw_preferences_group_add (architecture, GTK_WIDGET (moe));
  adw_preferences_group_add (architecture, GTK_WIDGET (mla));

  adw_preferences_page_add (self->model_page, preset_group);
  adw_preferences_page_add (self->model_page, params_group);
  adw_preferences_page_add (self->model_page, architecture);
  build_interpretation (self);
  adw_preferences_page_add (self->model_page, self->interpretation);
  adw_preferences_page_add (self->hardware_page, cluster);
  adw_preferences_page_add (self->hardware_page, custom_gpu);
  adw_preferences_page_add (self->hardware_page, self->gpu_figures);
  adw_preferences_page_add (self->workload_page, workload_group);
  for (guint i = 0; i < G_N_ELEMENTS (training); i++)
    {
      self->training_groups[i] = training[i];
      adw_preferences_page_add (self->workload_page, ADW_PREFERENCES_GROUP (training[i]));
    }
  for (guint i = 0; i < G_N_ELEMENTS (inference); i++)
    {
      self->inference_groups[i] = inference[i];
      adw_preferences_page_add (self->workload_page, ADW_PREFERENCES_GROUP (inference[i]));
    }
}

static void
refresh_title (HeadroomWindow *self)
{
  g_autofree char *name = headroom_project_dup_title (self->project);
  g_autofree char *title = NULL;
  GFile *file = headroom_project_get_file (self->project);
  g_autofree char *subtitle = NULL;

  if (headroom_project_get_modified (self->project))
    title = g_strdup_printf ("• %s", name);
  else
    title = g_strdup (name);
  if (file != NULL)
    {
      g_autoptr(GFile) parent = g_file_get_parent (file);

      subtitle = parent ? g_file_get_parse_name (parent) : NULL;
    }
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, subtitle ? subtitle : _("Not saved"));
  gtk_window_set_title (GTK_WINDOW (self), name);
}

static void
refresh_rows (HeadroomWindow *self)
{
  GHashTableIter iter;
  gpointer key, row;
  const char *preset = headroom_project_get_preset (self->project);
  HeadroomModelPreset *info = preset ? headroom_catalog_find_model (headroom_catalog_get_default (), preset) : NULL;
  gboolean training = headroom_project_get_workload (self->project) == HEADROOM_WORKLOAD_TRAINING;

  self->syncing = TRUE;
  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, &key, &row))
    if (row != self->gpu_row)
      refresh_row (self, key, row);
  refresh_gpu_row (self);
  self->syncing = FALSE;

  if (info != NULL)
    adw_action_row_set_subtitle (self->preset_row, headroom_model_preset_get_name (info));
  else
    adw_action_row_set_subtitle (self->preset_row, preset ? preset : _("Custom configuration"));

  for (guint i = 0; i < G_N_ELEMENTS (self->training_groups); i++)
    gtk_widget_set_visible (self->training_groups[i], training);
  for (guint i = 0; i < G_N_ELEMENTS (self->inference_groups); i++)
    gtk_widget_set_visible (self->inference_groups[i], !training);
  adw_view_stack_page_set_title (self->workload_stack_page, training ? _("Training") : _("Inference"));
  /* The planner searches training layouts only. */
  adw_view_stack_page_set_visible (self->plan_stack_page, training);
  gtk_label_set_label (self->time_heading, training ? _("Time and Cost") : _("Latency and Cost"));

  refresh_gpu_figures (self);
  refresh_title (self);
}

static void
on_project_changed (HeadroomWindow *self,
                    const char     *key)
{
  refresh_rows (self);
  /* A value the project accepted clears the mark of a refused one. */
  if (self->error_row != NULL && headroom_estimator_get_error (self->estimator) == NULL)
    {
      mark_row (self, NULL);
      show_error (self, NULL);
    }
}

/* Results */

static const struct { const char *title; const char *tooltip; } flops_columns[] = {
  { N_("Component"), NULL },
  { N_("Forward"), N_("2·m·n·k per matrix product; causal attention halves QKᵀ and ·V") },
  { N_("Backward"), N_("Twice the forward: gradients of the inputs and of the weights") },
  { N_("Recompute"), N_("Forward work run again: attention kernels and activation recomputation") },
  { N_("Total"), N_("Forward + backward + recompute") },
  { N_("Share"), N_("Share of the step's total") },
};

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  column)
{
  GtkWidget *label = gtk_label_new (NULL);
  guint i = GPOINTER_TO_UINT (column);

  if (flops_columns[i].tooltip != NULL)
    gtk_widget_set_tooltip_text (label, _(flops_columns[i].tooltip));
  if (i > 0)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
    }
  else
    gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

typedef enum
{
  COLUMN_COMPONENT,
  COLUMN_FORWARD,
  COLUMN_BACKWARD,
  COLUMN_RECOMPUTE,
  COLUMN_TOTAL,
  COLUMN_SHARE,
} Column;

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  column)
{
  HeadroomFlopsRow *row = gtk_list_item_get_item (item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  g_autofree char *text = NULL;
  gboolean total = g_strcmp0 (headroom_flops_row_get_name (row), "total") == 0;

  switch ((Column) GPOINTER_TO_INT (column))
    {
    case COLUMN_COMPONENT:
      text = g_strdup (headroom_flops_row_get_label (row));
      break;
    case COLUMN_FORWARD:
      text = headroom_format_flops (headroom_flops_row_get_forward (row));
      break;
    case COLUMN_BACKWARD:
      text = headroom_format_flops (headroom_flops_row_get_backward (row));
      break;
    case COLUMN_RECOMPUTE:
      text = headroom_format_flops (headroom_flops_row_get_recompute (row));
      break;
    case COLUMN_TOTAL:
      text = headroom_format_flops (headroom_flops_row_get_total (row));
      break;
    case COLUMN_SHARE:
      text = g_strdup_printf ("%.1f %%", 100.0 * headroom_flops_row_get_share (row));
      break;
    default:
      g_assert_not_reached ();
    }
  gtk_label_set_label (label, text);
  if (total)
    gtk_widget_add_css_class (GTK_WIDGET (label), "heading");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (label), "heading");
}

static void
build_flops_view (HeadroomWindow *self)
{

  self->flops_store = g_list_store_new (HEADROOM_TYPE_FLOPS_ROW);
  gtk_column_view_set_model (self->flops_view,
                             GTK_SELECTION_MODEL (gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->flops_store)))));
  for (guint i = 0; i < G_N_ELEMENTS (flops_columns); i++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GUINT_TO_POINTER (i));
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GINT_TO_POINTER (i));
      column = gtk_column_view_column_new (_(flops_columns[i].title), factory);
      gtk_column_view_column_set_expand (column, i == 0);
      gtk_column_view_append_column (self->flops_view, column);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->flops_caption),
                               _("Matrix products only (2·m·n·k each), as in the PaLM paper's "
                                 "model-FLOPs count (Chowdhery et al. 2022, App. B)"));
}

static gboolean
is_limit (HeadroomQuantity *quantity)
{
  const char *name = headroom_quantity_get_name (quantity);

  return name != NULL && (g_str_has_prefix (name, "max_") || g_str_has_prefix (name, "min_"));
}

static GtkWidget *
create_tile (gpointer item,
             gpointer user_data)
{
  HeadroomQuantity *quantity = item;
  g_autofree char *value = format_quantity (headroom_quantity_get_value (quantity),
                                            headroom_quantity_get_unit (quantity));
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *number = gtk_label_new (value);
  GtkWidget *caption = gtk_label_new (headroom_quantity_get_label (quantity));

  /* A limit of 0: not even the smallest setting fits. */
  if (is_limit (quantity) && headroom_quantity_get_value (quantity) == 0)
    gtk_label_set_label (GTK_LABEL (number), _("None"));

  gtk_widget_add_css_class (box, "card");
  gtk_widget_add_css_class (box, "headroom-tile");
  gtk_widget_add_css_class (number, "title-3");
  gtk_widget_add_css_class (number, "numeric");
  gtk_label_set_xalign (GTK_LABEL (number), 0);
  gtk_label_set_selectable (GTK_LABEL (number), TRUE);
  gtk_label_set_xalign (GTK_LABEL (caption), 0);
  gtk_label_set_wrap (GTK_LABEL (caption), TRUE);
  gtk_widget_add_css_class (caption, "dim-label");
  gtk_box_append (GTK_BOX (box), number);
  gtk_box_append (GTK_BOX (box), caption);
  if (headroom_quantity_get_formula (quantity) != NULL)
    gtk_widget_set_tooltip_text (box, headroom_quantity_get_formula (quantity));
  return box;
}


static void
refresh_memory (HeadroomWindow *self)
{
  GListModel *segments = headroom_estimator_get_memory_segments (self->estimator);
  guint n = g_list_model_get_n_items (segments);
  gboolean offloaded = FALSE;

  headroom_memory_bar_clear (self->memory_bar);
  headroom_memory_bar_clear (self->cpu_bar);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomQuantity) segment = g_list_model_get_item (segments, i);
      const char *name = headroom_quantity_get_name (segment);
      const char *role = headroom_quantity_get_role (segment);

      if (g_strcmp0 (role, "free") == 0)
        continue;
      if (name != NULL && g_str_has_prefix (name, "cpu"))
        {
          offloaded = TRUE;
          headroom_memory_bar_add_segment (self->cpu_bar, headroom_quantity_get_label (segment),
                                           segment_color (segment),
                                           headroom_quantity_get_value (segment),
                                           headroom_quantity_get_formula (segment));
          continue;
        }
      headroom_memory_bar_add_segment (self->memory_bar, headroom_quantity_get_label (segment),
                                       segment_color (segment),
                                       headroom_quantity_get_value (segment),
                                       headroom_quantity_get_formula (segment));
    }
  headroom_memory_bar_set_capacity (self->memory_bar,
                                    headroom_estimator_get_memory_capacity (self->estimator));
  gtk_widget_set_visible (GTK_WIDGET (self->cpu_bar), offloaded);
}

static void
refresh_flops (HeadroomWindow *self)
{
  GListModel *rows = headroom_estimator_get_flops_rows (self->estimator);
  const HrFlops *flops = headroom_estimator_get_flops (self->estimator);
  guint n = g_list_model_get_n_items (rows);
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean training = headroom_project_get_workload (self->project) == HEADROOM_WORKLOAD_TRAINING;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, g_list_model_get_item (rows, i));
  g_list_store_splice (self->flops_store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->flops_store)),
                       items->pdata, items->len);

  if (training && headroom_project_get_boolean (self->project, "training.causal"))
    gtk_label_set_label (self->flops_caption,
                         _("One micro-batch step on the whole model (all GPUs together); "
                           "causal attention: QKᵀ and ·V counted as half the s×s product"));
  else if (training)
    gtk_label_set_label (self->flops_caption,
                         _("One micro-batch step on the whole model (all GPUs together); "
                           "attention counted as the full s×s product"));
  else
    gtk_label_set_label (self->flops_caption, _("The prefill of one batch (forward only)"));

  /* Training only: the backward pass and recomputation are zero in a prefill. */
  for (guint i = COLUMN_BACKWARD; i <= COLUMN_RECOMPUTE; i++)
    {
      g_autoptr(GtkColumnViewColumn) column =
        g_list_model_get_item (gtk_column_view_get_columns (self->flops_view), i);

      gtk_column_view_column_set_visible (column, training);
    }

  if (!training && flops != NULL && flops->tokens > 0)
    {
      const HrInferenceLatency *latency = headroom_estimator_get_inference_latency (self->estimator);
      double batch = (double) headroom_project_get_int (self->project, "inference.batch");
      g_autofree char *total = headroom_format_flops (flops->total);
      g_autofree char *per_token = headroom_format_flops (flops->per_token);
      g_autofree char *decode = headroom_format_flops (batch > 0 ? latency->decode_flops / batch : 0);
      g_autofree char *text = NULL;

      /* TRANSLATORS: e.g. "Prefill: 250 TFLOP, 15.2 GFLOP per prompt token · Decode: 16.4 GFLOP per generated token" */
      text = g_strdup_printf (_("Prefill: %s, %s per prompt token · Decode: %s per generated token"),
                              total, per_token, decode);
      gtk_label_set_label (self->flops_totals, text);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->flops_totals),
                                   _("About 2 × active parameters per token, plus attention over "
                                     "the prompt or the cache; the LM head runs on the last "
                                     "position of the prompt only. Decode: the mean step over the "
                                     "generated tokens, divided by the batch"));
    }
  else if (flops != NULL && flops->tokens > 0)
    {
      g_autofree char *total = headroom_format_flops (flops->total);
      g_autofree char *per_token = headroom_format_flops (flops->per_token);
      g_autofree char *model = headroom_format_flops (flops->model_flops);
      g_autofree char *six_n = headroom_format_flops (flops->six_n_per_token);
      g_autofree char *palm = headroom_format_flops (flops->palm_per_token);
      g_autofree char *text = NULL;

      /* TRANSLATORS: FLOPs totals; model FLOPs leave out recomputation (what MFU counts) */
      text = g_strdup_printf (_("Hardware FLOPs: %s per step, %s per token · Model FLOPs: %s per step · "
                                "Rules of thumb: 6N = %s per token, PaLM 6N + 12·L·H·Q·T = %s per token"),
                              total, per_token, model, six_n, palm);
      gtk_label_set_label (self->flops_totals, text);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->flops_totals),
                                   _("Hardware FLOPs include recomputation; model FLOPs do not "
                                     "(PaLM, Chowdhery et al. 2022, App. B)"));
    }
}

static void
refresh_summary (HeadroomWindow *self)
{
  GListModel *summary = headroom_estimator_get_summary (self->estimator);
  guint n = g_list_model_get_n_items (summary);
  g_autofree char *caption = NULL;

  /* The utilisation is an assumption the user sets; every time scales with it. */
  if (headroom_project_get_workload (self->project) == HEADROOM_WORKLOAD_TRAINING)
    caption = g_strdup_printf (_("Assumes every FLOP executed, recomputation included, runs at "
                                 "%.0f %% of peak (Training ▸ Throughput); times scale inversely "
                                 "with it"),
                               100.0 * headroom_project_get_double (self->project, "training.mfu"));
  else
    caption = g_strdup_printf (_("Assumes %.0f %% of peak compute and %.0f %% of memory bandwidth "
                                 "(Inference ▸ Serving)"),
                               100.0 * headroom_project_get_double (self->project, "inference.compute_efficiency"),
                               100.0 * headroom_project_get_double (self->project, "inference.memory_efficiency"));
  gtk_label_set_label (self->time_caption, caption);

  g_list_store_remove_all (self->summary_store);
  g_list_store_remove_all (self->limits_store);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomQuantity) quantity = g_list_model_get_item (summary, i);

      g_list_store_append (is_limit (quantity) ? self->limits_store : self->summary_store, quantity);
    }
}

/* Memory against micro-batch (training) or batch (inference), at powers of
 * two, computed on a copy of the project so the document stays untouched.
 * Settings the project refuses (a micro-batch that does not divide the
 * global batch) are left out of the plot. */
static gboolean
sweep (gpointer data)
{
  HeadroomWindow *self = data;
  gboolean training = headroom_project_get_workload (self->project) == HEADROOM_WORKLOAD_TRAINING;
  const char *key = training ? "training.micro_batch" : "inference.batch";
  g_autoptr(GBytes) bytes = headroom_project_to_bytes (self->project);
  g_autoptr(HeadroomProject) copy = headroom_project_new_from_bytes (bytes, NULL);
  g_autoptr(HeadroomEstimator) estimator = NULL;
  g_autofree char *caption = NULL;
  double x[10], memory[10];
  guint n = 0;

  self->sweep_source = 0;
  if (copy == NULL)
    return G_SOURCE_REMOVE;
  estimator = headroom_estimator_new (copy);
  for (gint64 value = 1; n < G_N_ELEMENTS (x); value *= 2)
    {
      if (!headroom_project_set_int (copy, key, value, NULL))
        break;
      headroom_estimator_recompute_now (estimator);
      if (headroom_estimator_get_error (estimator) != NULL)
        continue;
      x[n] = value;
      memory[n] = headroom_estimator_get_memory_bytes (estimator);
      n++;
      /* Past twice the capacity the curve only squashes the interesting part. */
      if (memory[n - 1] > 2 * headroom_estimator_get_memory_capacity (self->estimator))
        break;
    }
  if (training)
    {
      gint64 seq_len = headroom_project_get_int (self->project, "training.seq_len");
      g_autofree char *tokens = headroom_format_integer ((double) seq_len);

      /* TRANSLATORS: caption of the plot; %s is a token count */
      caption = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                              "Memory per GPU against micro-batch, at sequences of %s token",
                                              "Memory per GPU against micro-batch, at sequences of %s tokens",
                                              (gulong) seq_len),
                                 tokens);
      headroom_fits_plot_set_points (self->fits_plot, _("Micro-batch"), x, memory, n);
    }
  else
    {
      caption = g_strdup (_("Memory per GPU against batch, at the prompt and generated lengths set"));
      headroom_fits_plot_set_points (self->fits_plot, _("Batch"), x, memory, n);
    }
  headroom_fits_plot_set_capacity (self->fits_plot,
                                   headroom_estimator_get_memory_capacity (self->estimator));
  gtk_label_set_label (self->plot_caption, caption);
  return G_SOURCE_REMOVE;
}

static void
refresh_results (HeadroomWindow *self)
{
  const char *error = headroom_estimator_get_error (self->estimator);

  if (error != NULL)
    {
      g_autofree char *key = NULL;
      const char *colon = strchr (error, ':');

      if (colon != NULL)
        key = g_strndup (error, colon - error);
      show_error (self, error);
      mark_row (self, key != NULL ? g_hash_table_lookup (self->rows, key) : NULL);
    }
  else
    {
      show_error (self, NULL);
      mark_row (self, NULL);
    }

  if (!headroom_estimator_get_has_result (self->estimator))
    return;
  refresh_rows (self);
  refresh_interpretation (self);
  refresh_memory (self);
  refresh_flops (self);
  refresh_summary (self);
  if (self->sweep_source == 0 && error == NULL)
    self->sweep_source = g_idle_add_full (G_PRIORITY_LOW, sweep, self, NULL);
}

/* Documents */

static void
add_recent (HeadroomWindow *self,
            GFile          *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_auto(GStrv) recent = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) updated = NULL;
  guint n = 1;

  if (self->settings == NULL)
    return;
  recent = g_settings_get_strv (self->settings, "recent-projects");
  g_strv_builder_add (builder, uri);
  for (guint i = 0; recent[i] != NULL && n < MAX_RECENT; i++)
    if (!g_str_equal (recent[i], uri))
      {
        g_strv_builder_add (builder, recent[i]);
        n++;
      }
  updated = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "recent-projects", (const char * const *) updated);
}

static void
refresh_recent_menu (HeadroomWindow *self)
{
  g_auto(GStrv) recent = NULL;

  g_menu_remove_all (self->recent_section);
  if (self->settings == NULL)
    return;
  recent = g_settings_get_strv (self->settings, "recent-projects");
  for (guint i = 0; recent[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_uri (recent[i]);
      g_autofree char *name = g_file_get_basename (file);
      g_autoptr(GMenuItem) item = g_menu_item_new (name, NULL);

      g_menu_item_set_action_and_target (item, "win.open-recent", "s", recent[i]);
      g_menu_append_item (self->recent_section, item);
    }
}

static void
set_project (HeadroomWindow  *self,
             HeadroomProject *project)
{
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_set_object (&self->project, project);
  g_signal_connect_object (project, "changed", G_CALLBACK (on_project_changed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::modified", G_CALLBACK (refresh_title),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::file", G_CALLBACK (refresh_title),
                           self, G_CONNECT_SWAPPED);
  mark_row (self, NULL);
  show_error (self, NULL);
  refresh_rows (self);
  headroom_plan_view_set_project (self->plan_view, project);
  headroom_estimator_set_project (self->estimator, project);
  headroom_estimator_recompute_now (self->estimator);
}

/* A Hugging Face config.json has no "format" tag; a project has one. */
gboolean
headroom_window_load_file (HeadroomWindow  *self,
                           GFile           *file,
                           GError         **error)
{
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  project = headroom_project_new_from_file (file, &local_error);
  if (project == NULL && g_error_matches (local_error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_FORMAT))
    {
      /* Size cap, nesting depth and finite numbers checked by the service. */
      g_autoptr(GBytes) bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, error);
      g_autoptr(JsonObject) config = NULL;

      if (bytes == NULL)
        return FALSE;
      config = headroom_hf_config_parse_bytes (bytes, NULL);
      if (config == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      project = headroom_project_new_from_config (config, error);
      if (project == NULL)
        return FALSE;
      /* An imported config is a new, unsaved document. */
      headroom_project_set_modified (project, TRUE);
    }
  else if (project == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  else
    add_recent (self, file);

  set_project (self, project);
  return TRUE;
}

gboolean
headroom_window_save_to_file (HeadroomWindow  *self,
                              GFile           *file,
                              GError         **error)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (!headroom_project_save (self->project, file, NULL, error))
    return FALSE;
  add_recent (self, file);
  refresh_title (self);
  return TRUE;
}

static void
toast_error (HeadroomWindow *self,
             const char     *what,
             const GError   *error)
{
  g_autofree char *text = g_strdup_printf ("%s: %s", what, error->message);
  AdwToast *toast = adw_toast_new (text);

  adw_toast_set_timeout (toast, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
load_with_toast (HeadroomWindow *self,
                 GFile          *file)
{
  g_autoptr(GError) error = NULL;

  if (!headroom_window_load_file (self, file, &error))
    toast_error (self, _("Could not open the file"), error);
}

static GtkFileFilter *
json_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Projects and config.json files"));
  gtk_file_filter_add_mime_type (filter, "application/json");
  gtk_file_filter_add_suffix (filter, "json");
  return filter;
}

static void
on_open_response (HeadroomWindow       *self,
                  int                   response,
                  GtkFileChooserNative *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      load_with_toast (self, file);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_object_unref (chooser);
}

static void
show_open_dialog (HeadroomWindow *self,
                  const char     *title)
{
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = json_filter ();

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Open"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_open_response), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
on_save_response (HeadroomWindow       *self,
                  int                   response,
                  GtkFileChooserNative *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr(GError) error = NULL;

      if (headroom_window_save_to_file (self, file, &error))
        run_pending (self);
      else
        toast_error (self, _("Could not save the project"), error);
    }
  else
    self->pending = PENDING_NONE;
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_object_unref (chooser);
}

static void
save_as (HeadroomWindow *self)
{
  GtkFileChooserNative *chooser;
  g_autofree char *title = headroom_project_dup_title (self->project);
  g_autofree char *name = g_str_has_suffix (title, ".json") ? g_strdup (title)
                                                             : g_strdup_printf ("%s.json", title);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  chooser = gtk_file_chooser_native_new (_("Save Project"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_save_response), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* Saves in place when the project has a file; else asks where. Runs the
 * pending action once saved. */
static void
save (HeadroomWindow *self)
{
  GFile *file = headroom_project_get_file (self->project);
  g_autoptr(GError) error = NULL;

  if (file == NULL)
    {
      save_as (self);
      return;
    }
  if (headroom_window_save_to_file (self, file, &error))
    run_pending (self);
  else
    {
      self->pending = PENDING_NONE;
      toast_error (self, _("Could not save the project"), error);
    }
}

/* Hugging Face Hub import: asks for "org/name", fetches config.json
 * asynchronously and opens it as a new, unsaved project. */
static void
on_hub_fetched (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(HeadroomWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = headroom_hub_fetch_config_finish (HEADROOM_HUB (source), result, &error);
  g_autoptr(HeadroomProject) project = NULL;

  g_clear_object (&self->hub_cancellable);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (config != NULL)
    project = headroom_project_new_from_config (config, &error);
  if (project == NULL)
    {
      toast_error (self, _("Could not import the model"), error);
      return;
    }
  headroom_project_set_modified (project, TRUE);
  set_project (self, project);
}

void
headroom_window_import_hub (HeadroomWindow *self,
                            const char     *text)
{
  g_autoptr(HeadroomHub) hub = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *model_id = NULL;

  g_return_if_fail (HEADROOM_IS_WINDOW (self));
  g_return_if_fail (text != NULL);

  model_id = headroom_hub_parse_model_id (text, &error);
  if (model_id == NULL)
    {
      toast_error (self, _("Could not import the model"), error);
      return;
    }
  hub = headroom_hub_new ();
  g_cancellable_cancel (self->hub_cancellable);
  g_set_object (&self->hub_cancellable, g_cancellable_new ());
  headroom_hub_fetch_config_async (hub, model_id, self->hub_cancellable, on_hub_fetched,
                                   g_object_ref (self));
  adw_toast_overlay_add_toast (self->toast_overlay,
                               adw_toast_new_format (_("Fetching %s…"), model_id));
}

static void
on_hub_response (HeadroomWindow   *self,
                 const char       *response,
                 AdwMessageDialog *dialog)
{
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));

  if (g_str_equal (response, "import"))
    headroom_window_import_hub (self, gtk_editable_get_text (entry));
}

static void
show_hub_dialog (HeadroomWindow *self)
{
  AdwMessageDialog *dialog;
  GtkWidget *entry = gtk_entry_new ();

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Import Hugging Face Model"),
                                                       _("Reads the model’s config.json from the Hub. "
                                                         "Gated models need a token in the HF_TOKEN variable.")));
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "meta-llama/Llama-3.1-8B");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Model id"),
                                  -1);
  adw_message_dialog_set_extra_child (dialog, entry);
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "import", _("_Import"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "import", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "import");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_hub_response), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
run_pending (HeadroomWindow *self)
{
  Pending pending = self->pending;
  g_autoptr(GFile) file = g_steal_pointer (&self->pending_file);

  self->pending = PENDING_NONE;
  switch (pending)
    {
    case PENDING_NONE:
      break;
    case PENDING_NEW:
      {
        g_autoptr(HeadroomProject) project = headroom_project_new_default ();

        set_project (self, project);
      }
      break;
    case PENDING_OPEN:
      show_open_dialog (self, _("Open Project"));
      break;
    case PENDING_IMPORT_CONFIG:
      show_open_dialog (self, _("Import a Hugging Face config.json"));
      break;
    case PENDING_IMPORT_HUB:
      show_hub_dialog (self);
      break;
    case PENDING_LOAD:
      load_with_toast (self, file);
      break;
    case PENDING_CLOSE:
      /* The project is saved or discarded now: closing will not ask again. */
      headroom_project_set_modified (self->project, FALSE);
      gtk_window_close (GTK_WINDOW (self));
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
on_unsaved_response (HeadroomWindow   *self,
                     const char       *response,
                     AdwMessageDialog *dialog)
{
  if (g_str_equal (response, "discard"))
    run_pending (self);
  else if (g_str_equal (response, "save"))
    save (self);
  else
    {
      self->pending = PENDING_NONE;
      g_clear_object (&self->pending_file);
  if (self->hub_cancellable != NULL)
    g_cancellable_cancel (self->hub_cancellable);
  g_clear_object (&self->hub_cancellable);
    }
}

static AdwMessageDialog *
run_guarded (HeadroomWindow *self,
             Pending         pending,
             GFile          *file)
{
  g_autofree char *title = NULL;
  GtkWidget *dialog;

  self->pending = pending;
  g_set_object (&self->pending_file, file);
  if (!headroom_project_get_modified (self->project))
    {
      run_pending (self);
      return NULL;
    }

  title = headroom_project_dup_title (self->project);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("“%s” has unsaved changes. Changes which are not saved will be permanently lost."),
                                  title);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_unsaved_response),
                           self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
  return ADW_MESSAGE_DIALOG (dialog);
}

AdwMessageDialog *
headroom_window_new_project (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return run_guarded (self, PENDING_NEW, NULL);
}

AdwMessageDialog *
headroom_window_close_project (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return run_guarded (self, PENDING_CLOSE, NULL);
}

static gboolean
headroom_window_close_request (GtkWindow *window)
{
  HeadroomWindow *self = HEADROOM_WINDOW (window);

  if (self->project != NULL && headroom_project_get_modified (self->project))
    {
      run_guarded (self, PENDING_CLOSE, NULL);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (headroom_window_parent_class)->close_request (window);
}

static gboolean
on_drop (HeadroomWindow *self,
         const GValue   *value,
         double          x,
         double          y)
{
  GFile *file = g_value_get_object (value);

  if (file == NULL)
    return FALSE;
  run_guarded (self, PENDING_LOAD, file);
  return TRUE;
}

/* Actions */

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  headroom_window_new_project (HEADROOM_WINDOW (widget));
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  run_guarded (HEADROOM_WINDOW (widget), PENDING_OPEN, NULL);
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  run_guarded (HEADROOM_WINDOW (widget), PENDING_LOAD, file);
}

/* Saving the custom GPU or the current model to the user's catalog */

typedef enum
{
  CATALOG_ENTRY_GPU,
  CATALOG_ENTRY_MODEL,
} CatalogEntry;

/* Lower-case ASCII letters and digits, every other run of characters one
 * dash: "My GPU (2)" → "my-gpu-2"; NULL when nothing is left. */
static char *
catalog_id_from_name (const char *name)
{
  GString *id = g_string_new (NULL);

  for (const char *c = name; *c != '\0'; c++)
    {
      if (g_ascii_isalnum (*c))
        g_string_append_c (id, g_ascii_tolower (*c));
      else if (id->len > 0 && id->str[id->len - 1] != '-')
        g_string_append_c (id, '-');
    }
  if (id->len > 0 && id->str[id->len - 1] == '-')
    g_string_truncate (id, id->len - 1);

  if (id->len == 0)
    {
      g_string_free (id, TRUE);
      return NULL;
    }
  return g_string_free (id, FALSE);
}

static char *
catalog_id_checked (const char  *name,
                    GError     **error)
{
  char *id = catalog_id_from_name (name);

  if (id == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("The name needs at least one letter or digit"));
  return id;
}

gboolean
headroom_window_save_custom_gpu (HeadroomWindow  *self,
                                 const char      *name,
                                 GError         **error)
{
  g_autofree char *id = NULL;
  g_autofree char *title = g_strstrip (g_strdup (name));
  HrGpu gpu;

  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (g_strcmp0 (headroom_project_get_string (self->project, "hardware.gpu"), "custom") != 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Turn on Custom GPU to save its figures"));
      return FALSE;
    }
  id = catalog_id_checked (name, error);
  /* The figures the estimate uses, inter-node overrides included. */
  if (id == NULL
      || !headroom_project_get_gpu (self->project, &gpu, error)
      || !headroom_catalog_add_user_gpu (headroom_catalog_get_default (), id, title,
                                         NULL, NULL, &gpu, error))
    return FALSE;

  return headroom_project_set_string (self->project, "hardware.gpu", id, error);
}

gboolean
headroom_window_save_model_preset (HeadroomWindow  *self,
                                   const char      *name,
                                   GError         **error)
{
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(JsonObject) empty = json_object_new ();
  g_autofree char *id = NULL;
  g_autofree char *title = g_strstrip (g_strdup (name));

  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  id = catalog_id_checked (name, error);
  if (id == NULL)
    return FALSE;
  config = headroom_project_dup_effective_config (self->project);
  if (!headroom_catalog_add_user_model (headroom_catalog_get_default (), id, title,
                                        NULL, NULL, config, error))
    return FALSE;

  /* The new preset holds the edits: the project now names it alone. */
  headroom_project_set_config (self->project, empty);
  return headroom_project_set_string (self->project, "model.preset", id, error);
}

/* Says where the entry goes, or why it cannot, as the name is typed. */
static void
on_catalog_name_changed (GtkEditable      *entry,
                         AdwMessageDialog *dialog)
{
  CatalogEntry kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "catalog-entry"));
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  g_autofree char *id = catalog_id_from_name (gtk_editable_get_text (entry));
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), "headroom",
                                            kind == CATALOG_ENTRY_GPU ? "gpus.json" : "models.json",
                                            NULL);
  gboolean builtin = FALSE, replaces = FALSE;

  if (id != NULL && kind == CATALOG_ENTRY_GPU)
    {
      HeadroomGpuInfo *gpu = headroom_catalog_find_gpu (catalog, id);

      builtin = gpu != NULL && !headroom_gpu_info_get_user_defined (gpu);
      replaces = gpu != NULL && !builtin;
    }
  else if (id != NULL)
    {
      HeadroomModelPreset *preset = headroom_catalog_find_model (catalog, id);

      builtin = preset != NULL && !headroom_model_preset_get_user_defined (preset);
      replaces = preset != NULL && !builtin;
    }

  if (id == NULL)
    adw_message_dialog_format_body (dialog, _("Saved in %s"), path);
  else if (builtin)
    adw_message_dialog_format_body (dialog, kind == CATALOG_ENTRY_GPU
                                    ? _("A built-in GPU has the id “%s”: choose another name.")
                                    : _("A built-in model has the id “%s”: choose another name."),
                                    id);
  else if (replaces)
    adw_message_dialog_format_body (dialog, _("Replaces your entry “%s” in %s"), id, path);
  else
    adw_message_dialog_format_body (dialog, _("Saved as “%s” in %s"), id, path);

  if (builtin)
    gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
  adw_message_dialog_set_response_enabled (dialog, "save", id != NULL && !builtin);
}

static void
on_catalog_name_response (HeadroomWindow   *self,
                          const char       *response,
                          AdwMessageDialog *dialog)
{
  CatalogEntry kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "catalog-entry"));
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  const char *name = gtk_editable_get_text (entry);
  g_autoptr(GError) error = NULL;

  if (!g_str_equal (response, "save"))
    return;

  if (kind == CATALOG_ENTRY_GPU)
    {
      if (!headroom_window_save_custom_gpu (self, name, &error))
        toast_error (self, _("Could not save the GPU"), error);
    }
  else if (!headroom_window_save_model_preset (self, name, &error))
    toast_error (self, _("Could not save the preset"), error);
}

static void
show_catalog_name_dialog (HeadroomWindow *self,
                          CatalogEntry    kind)
{
  AdwMessageDialog *dialog;
  GtkWidget *entry = gtk_entry_new ();

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                                                       kind == CATALOG_ENTRY_GPU
                                                       ? _("Save GPU to Catalog")
                                                       : _("Save Model as Preset"),
                                                       NULL));
  g_object_set_data (G_OBJECT (dialog), "catalog-entry", GINT_TO_POINTER (kind));
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Name"));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Name"),
                                  -1);
  adw_message_dialog_set_extra_child (dialog, entry);
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "save");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (entry, "changed", G_CALLBACK (on_catalog_name_changed), dialog, 0);
  on_catalog_name_changed (GTK_EDITABLE (entry), dialog);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_catalog_name_response),
                           self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_gpu_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  show_catalog_name_dialog (HEADROOM_WINDOW (widget), CATALOG_ENTRY_GPU);
}

static void
save_preset_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  show_catalog_name_dialog (HEADROOM_WINDOW (widget), CATALOG_ENTRY_MODEL);
}

static void
import_config_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  run_guarded (HEADROOM_WINDOW (widget), PENDING_IMPORT_CONFIG, NULL);
}

static void
import_hub_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  run_guarded (HEADROOM_WINDOW (widget), PENDING_IMPORT_HUB, NULL);
}

/* Saving reports: the file chooser keeps what to write as data. */
static void
on_export_response (HeadroomWindow       *self,
                    int                   response,
                    GtkFileChooserNative *chooser)
{
  const char *text = g_object_get_data (G_OBJECT (chooser), "text");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr(GError) error = NULL;

      if (headroom_report_save (text, file, &error))
        {
          g_autofree char *name = g_file_get_basename (file);

          adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new_format (_("Exported “%s”"), name));
        }
      else
        toast_error (self, _("Could not export"), error);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_object_unref (chooser);
}

static void
export_text (HeadroomWindow *self,
             char           *text,
             const char     *suggested_name)
{
  GtkFileChooserNative *chooser;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  chooser = gtk_file_chooser_native_new (_("Export CSV"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), suggested_name);
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_object_set_data_full (G_OBJECT (chooser), "text", text, g_free);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_export_response), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static char *
suggested_name (HeadroomWindow *self,
                const char     *suffix)
{
  g_autofree char *title = headroom_project_dup_title (self->project);

  if (g_str_has_suffix (title, ".json"))
    title[strlen (title) - strlen (".json")] = '\0';
  return g_strdup_printf ("%s%s.csv", title, suffix);
}

static void
export_csv_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = suggested_name (self, "");
  char *text = headroom_report_to_csv (self->estimator, &error);

  if (text == NULL)
    toast_error (self, _("Could not export"), error);
  else
    export_text (self, text, name);
}

static void
on_sweep_response (HeadroomWindow   *self,
                   const char       *response,
                   AdwMessageDialog *dialog)
{
  g_autoptr(GError) error = NULL;
  g_autofree gint64 *values = NULL;
  g_autofree char *name = NULL;
  HeadroomSweep axis;
  guint n_values;
  char *text;

  if (!headroom_sweep_from_name (response, &axis))
    return;
  values = headroom_report_sweep_default_values (self->project, axis, &n_values);
  text = headroom_report_sweep_to_csv (self->project, axis, values, n_values, &error);
  if (text == NULL)
    {
      toast_error (self, _("Could not export"), error);
      return;
    }
  name = g_strdup_printf ("-sweep-%s", headroom_sweep_to_name (axis));
  {
    g_autofree char *file_name = suggested_name (self, name);

    export_text (self, text, file_name);
  }
}

static void
export_sweep_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);
  AdwMessageDialog *dialog;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Export Sweep"),
                                                       _("Memory per GPU, step time and throughput "
                                                         "at powers of two of one setting, as CSV.")));
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    headroom_sweep_to_name (HEADROOM_SWEEP_GPUS), _("_GPUs"),
                                    headroom_sweep_to_name (HEADROOM_SWEEP_SEQ_LEN), _("_Sequence"),
                                    headroom_sweep_to_name (HEADROOM_SWEEP_MICRO_BATCH), _("_Batch"),
                                    NULL);
  adw_message_dialog_set_close_response (dialog, "cancel");
  adw_message_dialog_set_default_response (dialog, headroom_sweep_to_name (HEADROOM_SWEEP_MICRO_BATCH));
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_sweep_response), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  HEADROOM_WINDOW (widget)->pending = PENDING_NONE;
  save (HEADROOM_WINDOW (widget));
}

static void
save_as_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  HEADROOM_WINDOW (widget)->pending = PENDING_NONE;
  save_as (HEADROOM_WINDOW (widget));
}

static void
show_results_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

static void
show_settings_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->sidebar);
}

/* Life cycle */

static void
headroom_window_dispose (GObject *object)
{
  HeadroomWindow *self = HEADROOM_WINDOW (object);

  if (self->estimator != NULL)
    g_signal_handlers_disconnect_by_data (self->estimator, self);
  g_clear_handle_id (&self->sweep_source, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), HEADROOM_TYPE_WINDOW);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_object (&self->preset_filter);
  g_clear_object (&self->flops_store);
  g_clear_object (&self->summary_store);
  g_clear_object (&self->limits_store);
  g_clear_object (&self->estimator);
  g_clear_object (&self->project);
  g_clear_object (&self->settings);
  g_clear_object (&self->pending_file);
  if (self->hub_cancellable != NULL)
    g_cancellable_cancel (self->hub_cancellable);
  g_clear_object (&self->hub_cancellable);

  G_OBJECT_CLASS (headroom_window_parent_class)->dispose (object);
}

static void
headroom_window_class_init (HeadroomWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = headroom_window_dispose;
  window_class->close_request = headroom_window_close_request;

  g_type_ensure (HEADROOM_TYPE_FITS_PLOT);
  g_type_ensure (HEADROOM_TYPE_MEMORY_BAR);
  g_type_ensure (HEADROOM_TYPE_PLAN_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, content);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, workload_stack_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, model_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, hardware_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, workload_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, memory_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, cpu_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, flops_view);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, flops_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, flops_totals);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, time_heading);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, time_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, summary_box);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, limits_box);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, plot_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, fits_plot);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, plan_stack_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, plan_view);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, recent_section);

  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.import-config", NULL, import_config_action);
  gtk_widget_class_install_action (widget_class, "win.import-hub", NULL, import_hub_action);
  gtk_widget_class_install_action (widget_class, "win.save-gpu", NULL, save_gpu_action);
  gtk_widget_class_install_action (widget_class, "win.save-preset", NULL, save_preset_action);
  gtk_widget_class_install_action (widget_class, "win.export-csv", NULL, export_csv_action);
  gtk_widget_class_install_action (widget_class, "win.export-sweep", NULL, export_sweep_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.show-results", NULL, show_results_action);
  gtk_widget_class_install_action (widget_class, "win.show-settings", NULL, show_settings_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, GDK_CONTROL_MASK, "win.new", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "win.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.save-as", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.export-csv", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
headroom_window_init (HeadroomWindow *self)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* No row writes to the project until set_project() has filled them. */
  self->syncing = TRUE;
  self->estimator = headroom_estimator_new (project);
  self->summary_store = g_list_store_new (HEADROOM_TYPE_QUANTITY);
  self->limits_store = g_list_store_new (HEADROOM_TYPE_QUANTITY);
  gtk_flow_box_bind_model (self->summary_box, G_LIST_MODEL (self->summary_store), create_tile, NULL, NULL);
  gtk_flow_box_bind_model (self->limits_box, G_LIST_MODEL (self->limits_store), create_tile, NULL, NULL);
  build_flops_view (self);
  build_forms (self);
  g_signal_connect_object (self->estimator, "updated", G_CALLBACK (refresh_results),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->estimator, "notify::error", G_CALLBACK (refresh_results),
                           self, G_CONNECT_SWAPPED);

  drop = gtk_drop_target_new (G_TYPE_FILE, GDK_ACTION_COPY);
  g_signal_connect_object (drop, "drop", G_CALLBACK (on_drop), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  set_project (self, project);
}

HeadroomWindow *
headroom_window_new (HeadroomApplication *application)
{
  HeadroomWindow *self = g_object_new (HEADROOM_TYPE_WINDOW, "application", application, NULL);

  self->settings = g_object_ref (headroom_application_get_settings (application));
  g_settings_bind (self->settings, "window-width", self, "default-width", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-height", self, "default-height", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (self->settings, "changed::recent-projects",
                           G_CALLBACK (refresh_recent_menu), self, G_CONNECT_SWAPPED);
  refresh_recent_menu (self);
  return self;
}

HeadroomProject *
headroom_window_get_project (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return self->project;
}

HeadroomEstimator *
headroom_window_get_estimator (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return self->estimator;
}

HeadroomMemoryBar *
headroom_window_get_memory_bar (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return self->memory_bar;
}

HeadroomMemoryBar *
headroom_window_get_cpu_bar (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return self->cpu_bar;
}

GtkWidget *
headroom_window_get_row (HeadroomWindow *self,
                         const char     *key)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return g_hash_table_lookup (self->rows, key);
}

const char *
headroom_window_get_error_text (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  if (!gtk_revealer_get_reveal_child (self->error_revealer))
    return NULL;
  return gtk_label_get_label (self->error_label);
}
