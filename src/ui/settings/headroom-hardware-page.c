/* headroom-hardware-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GPU (a catalog entry or custom figures), the cluster's size, price
 * and network, and the chosen GPU's figures, read-only.
 *
 * The rows are built when the page is first shown or asked for a row: the
 * window starts on the Model page (see ensure_built).
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-catalog.h"
#include "headroom-format.h"
#include "headroom-hardware-page.h"
#include "headroom-setting.h"
#include "headroom-spin-row.h"

typedef enum
{
  FIGURE_MEMORY,
  FIGURE_BANDWIDTH,
  FIGURE_FP32,
  FIGURE_TF32,
  FIGURE_BF16,
  FIGURE_FP16,
  FIGURE_FP8,
  FIGURE_INT8,
  FIGURE_LINK,
  FIGURE_POWER,
  N_FIGURES
} Figure;

struct _HeadroomHardwarePage
{
  AdwPreferencesPage   parent_instance;

  AdwPreferencesGroup *cluster_group;
  AdwComboRow         *gpu_row;
  GtkSwitch           *custom_gpu_switch;
  AdwPreferencesGroup *custom_group;
  AdwPreferencesGroup *figures_group;
  GtkWidget           *figures[N_FIGURES];

  GPtrArray           *settings;  /* NULL until the rows are built */
  HeadroomEstimator   *estimator;
  HeadroomProject     *project;
  gboolean             syncing;
  gboolean             gpu_list_changing_custom;
};

G_DEFINE_FINAL_TYPE (HeadroomHardwarePage, headroom_hardware_page, ADW_TYPE_PREFERENCES_PAGE)

/* Expressions take ownership of a returned string. */
static char *
gpu_display_name (HeadroomGpuInfo *gpu)
{
  return g_strdup (headroom_gpu_info_get_name (gpu));
}

static void
on_gpu_selected (HeadroomHardwarePage *self)
{
  HeadroomGpuInfo *gpu = adw_combo_row_get_selected_item (self->gpu_row);

  if (self->syncing || self->project == NULL || gpu == NULL)
    return;
  headroom_project_set_string (self->project, "hardware.gpu", headroom_gpu_info_get_id (gpu), NULL);
}

/* "custom" is the project's id for the figures under hardware.custom. */
static void
on_custom_gpu_toggled (HeadroomHardwarePage *self)
{
  g_autoptr(HeadroomGpuInfo) first = NULL;
  const char *id = "custom";

  if (self->syncing || self->project == NULL)
    return;
  if (!gtk_switch_get_active (self->custom_gpu_switch))
    {
      first = g_list_model_get_item (adw_combo_row_get_model (self->gpu_row), 0);
      if (first == NULL)
        return;
      id = headroom_gpu_info_get_id (first);
    }
  headroom_project_set_string (self->project, "hardware.gpu", id, NULL);
}

/* Selecting an item that was added while the combo row had no selection
 * (a custom GPU) crashes inside GTK 4.8 (a bare AdwComboRow does it too).
 * So while the catalog's list changes, the row holds the first GPU, without
 * telling the project, and goes back to no selection afterwards. */
static void
on_gpus_changing (HeadroomHardwarePage *self)
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
on_gpus_changed (HeadroomHardwarePage *self)
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

/* The list's names wrap: "NVIDIA B200 (HGX) 180 GB" is never cut. */
static void
setup_gpu_item (GtkSignalListItemFactory *factory,
                GtkListItem              *item)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 40);
  gtk_list_item_set_child (item, label);
}

static void
bind_gpu_item (GtkSignalListItemFactory *factory,
               GtkListItem              *item)
{
  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)),
                       headroom_gpu_info_get_name (gtk_list_item_get_item (item)));
}

static void
build_gpu_row (HeadroomHardwarePage *self)
{
  GListModel *gpus = headroom_catalog_get_gpus (headroom_catalog_get_default ());
  GtkExpression *name = gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL,
                                                     G_CALLBACK (gpu_display_name),
                                                     NULL, NULL);
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (setup_gpu_item), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_gpu_item), NULL);
  adw_combo_row_set_list_factory (self->gpu_row, factory);
  g_object_unref (factory);
  adw_combo_row_set_expression (self->gpu_row, name);
  gtk_expression_unref (name);
  /* Before and after the row's own handler (see on_gpus_changing). */
  g_signal_connect_object (gpus, "items-changed", G_CALLBACK (on_gpus_changing),
                           self, G_CONNECT_SWAPPED);
  adw_combo_row_set_model (self->gpu_row, gpus);
  g_signal_connect_object (gpus, "items-changed", G_CALLBACK (on_gpus_changed),
                           self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->gpu_row, "notify::selected", G_CALLBACK (on_gpu_selected),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->custom_gpu_switch, "notify::active",
                           G_CALLBACK (on_custom_gpu_toggled), self, G_CONNECT_SWAPPED);
}

static GtkWidget *
find_row (HeadroomHardwarePage *self,
          const char           *key)
{
  if (g_str_equal (key, "hardware.gpu"))
    return GTK_WIDGET (self->gpu_row);
  for (guint i = 0; self->settings != NULL && i < self->settings->len; i++)
    if (g_str_equal (headroom_setting_get_key (self->settings->pdata[i]), key))
      return headroom_setting_get_row (self->settings->pdata[i]);
  return NULL;
}

static void
set_figure (HeadroomHardwarePage *self,
            Figure                figure,
            const char           *text)
{
  gtk_label_set_label (GTK_LABEL (self->figures[figure]), text);
}

static void
refresh_figures (HeadroomHardwarePage *self)
{
  static const HrDtype dtypes[] = {
    [FIGURE_FP32] = HR_DTYPE_FP32, [FIGURE_TF32] = HR_DTYPE_TF32, [FIGURE_BF16] = HR_DTYPE_BF16,
    [FIGURE_FP16] = HR_DTYPE_FP16, [FIGURE_FP8] = HR_DTYPE_FP8, [FIGURE_INT8] = HR_DTYPE_INT8,
  };
  HrGpu gpu;
  g_autofree char *memory = NULL;
  g_autofree char *bandwidth = NULL;
  g_autofree char *link = NULL;
  g_autofree char *power = NULL;

  if (!headroom_project_get_gpu (self->project, &gpu, NULL))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->figures_group), FALSE);
      return;
    }
  gtk_widget_set_visible (GTK_WIDGET (self->figures_group), TRUE);
  memory = headroom_format_gib (gpu.memory_bytes);
  set_figure (self, FIGURE_MEMORY, memory);
  bandwidth = g_strdup_printf (_("%.0f GB/s"), gpu.memory_bandwidth / 1e9);
  set_figure (self, FIGURE_BANDWIDTH, bandwidth);
  link = g_strdup_printf (_("%.0f GB/s"), gpu.intra_node_bandwidth / 1e9);
  set_figure (self, FIGURE_LINK, link);
  power = gpu.power_watts > 0 ? g_strdup_printf (_("%.0f W"), gpu.power_watts)
                              : g_strdup (_("Not published"));
  set_figure (self, FIGURE_POWER, power);
  /* A zero inter-node setting means the GPU's figure: say which. */
  {
    GtkWidget *row = find_row (self, "hardware.inter_node_bandwidth");
    g_autofree char *text = NULL;

    /* TRANSLATORS: placeholder of a setting left at the catalog's figure */
    text = gpu.inter_node_bandwidth > 0
           ? g_strdup_printf (_("Default (%.0f GB/s)"), gpu.inter_node_bandwidth / 1e9)
           /* A custom GPU has no network figure: runs across nodes need one. */
           : g_strdup (_("Needed across nodes"));
    if (HEADROOM_IS_SPIN_ROW (row)
        && headroom_project_get_double (self->project, "hardware.inter_node_bandwidth") == 0)
      headroom_spin_row_set_zero_text (HEADROOM_SPIN_ROW (row), text);
    row = find_row (self, "hardware.inter_node_latency");
    g_free (text);
    text = g_strdup_printf (_("Default (%.3g µs)"), headroom_gpu_network_latency (&gpu) * 1e6);
    if (HEADROOM_IS_SPIN_ROW (row)
        && headroom_project_get_double (self->project, "hardware.inter_node_latency") == 0)
      headroom_spin_row_set_zero_text (HEADROOM_SPIN_ROW (row), text);
    row = find_row (self, "hardware.host_bandwidth");
    g_free (text);
    text = gpu.host_bandwidth > 0 ? g_strdup_printf (_("Default (%.0f GB/s)"), gpu.host_bandwidth / 1e9)
                                  : g_strdup (_("Not published"));
    if (HEADROOM_IS_SPIN_ROW (row)
        && headroom_project_get_double (self->project, "hardware.host_bandwidth") == 0)
      headroom_spin_row_set_zero_text (HEADROOM_SPIN_ROW (row), text);
  }
  for (Figure f = FIGURE_FP32; f <= FIGURE_INT8; f++)
    {
      g_autofree char *text = NULL;

      if (gpu.peak_flops[dtypes[f]] > 0)
        /* TRANSLATORS: dense peak rate, e.g. "989 TFLOP/s" */
        text = g_strdup_printf (_("%.0f TFLOP/s"), gpu.peak_flops[dtypes[f]] / 1e12);
      else
        text = g_strdup (_("Not supported"));
      set_figure (self, f, text);
    }
}

static void
build_figures (HeadroomHardwarePage *self)
{
  const char *titles[N_FIGURES] = {
    [FIGURE_MEMORY] = _("Memory"),
    [FIGURE_BANDWIDTH] = _("Memory bandwidth"),
    [FIGURE_FP32] = _("FP32 peak"),
    [FIGURE_TF32] = _("TF32 peak"),
    [FIGURE_BF16] = _("BF16 peak"),
    [FIGURE_FP16] = _("FP16 peak"),
    [FIGURE_FP8] = _("FP8 peak"),
    [FIGURE_INT8] = _("INT8 peak"),
    [FIGURE_LINK] = _("Intra-node bandwidth per GPU"),
    [FIGURE_POWER] = _("Board power"),
  };

  for (Figure f = 0; f < N_FIGURES; f++)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), titles[f]);
      self->figures[f] = gtk_label_new (NULL);
      gtk_label_set_selectable (GTK_LABEL (self->figures[f]), TRUE);
      gtk_widget_add_css_class (self->figures[f], "numeric");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), self->figures[f]);
      adw_preferences_group_add (self->figures_group, row);
    }
}

static void
refresh_gpu (HeadroomHardwarePage *self)
{
  GListModel *gpus = adw_combo_row_get_model (self->gpu_row);
  const char *id = headroom_project_get_string (self->project, "hardware.gpu");
  guint n = g_list_model_get_n_items (gpus);
  gboolean custom = TRUE;

  self->syncing = TRUE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomGpuInfo) gpu = g_list_model_get_item (gpus, i);

      if (g_strcmp0 (headroom_gpu_info_get_id (gpu), id) == 0)
        {
          adw_combo_row_set_use_subtitle (self->gpu_row, TRUE);
          adw_combo_row_set_selected (self->gpu_row, i);
          custom = FALSE;
          break;
        }
    }
  /* Not in the catalog: the custom figures below describe it. */
  if (custom)
    {
      adw_combo_row_set_use_subtitle (self->gpu_row, FALSE);
      adw_combo_row_set_selected (self->gpu_row, GTK_INVALID_LIST_POSITION);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->gpu_row), _("Custom"));
    }
  else
    adw_combo_row_set_use_subtitle (self->gpu_row, TRUE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->gpu_row), !custom);
  gtk_switch_set_active (self->custom_gpu_switch, custom);
  gtk_widget_set_visible (GTK_WIDGET (self->custom_group), custom);
  self->syncing = FALSE;
  refresh_figures (self);
}

static void
on_project_changed (HeadroomHardwarePage *self,
                    const char           *key)
{
  if (self->settings == NULL)
    return;
  if (g_str_equal (key, "hardware.gpu"))
    refresh_gpu (self);
  else if (g_str_has_prefix (key, "hardware."))
    refresh_figures (self);
}

static void
set_project (HeadroomHardwarePage *self,
             HeadroomProject      *project)
{
  if (self->project == project)
    return;
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_set_object (&self->project, project);
  for (guint i = 0; self->settings != NULL && i < self->settings->len; i++)
    headroom_setting_set_project (self->settings->pdata[i], project);
  if (project == NULL)
    return;
  g_signal_connect_object (project, "changed", G_CALLBACK (on_project_changed),
                           self, G_CONNECT_SWAPPED);
  if (self->settings != NULL)
    refresh_gpu (self);
}

/* The rows, bound to the project, once: the GPU list, the figures and the
 * key table's hardware settings took 45 M of the 414 M instructions that
 * built the window (callgrind, bench-window --start), while the window
 * starts on the Model page. */
static void
ensure_built (HeadroomHardwarePage *self)
{
  if (self->settings != NULL)
    return;
  build_gpu_row (self);
  build_figures (self);
  self->settings = headroom_setting_list_page ("hardware");
  for (guint i = 0; i < self->settings->len; i++)
    {
      HeadroomSetting *setting = self->settings->pdata[i];
      gboolean custom = g_str_equal (headroom_setting_get_group (setting), "hardware/custom");

      adw_preferences_group_add (custom ? self->custom_group : self->cluster_group,
                                 headroom_setting_get_row (setting));
      if (self->project != NULL)
        headroom_setting_set_project (setting, self->project);
    }
  if (self->project != NULL)
    refresh_gpu (self);
}

static void
on_estimator_project (HeadroomHardwarePage *self)
{
  set_project (self, headroom_estimator_get_project (self->estimator));
}

void
headroom_hardware_page_set_estimator (HeadroomHardwarePage *self,
                                      HeadroomEstimator    *estimator)
{
  g_return_if_fail (HEADROOM_IS_HARDWARE_PAGE (self));
  g_return_if_fail (HEADROOM_IS_ESTIMATOR (estimator));
  g_return_if_fail (self->estimator == NULL);

  self->estimator = g_object_ref (estimator);
  g_signal_connect_object (estimator, "notify::project", G_CALLBACK (on_estimator_project),
                           self, G_CONNECT_SWAPPED);
  on_estimator_project (self);
}

GtkWidget *
headroom_hardware_page_get_row (HeadroomHardwarePage *self,
                                const char           *key)
{
  g_return_val_if_fail (HEADROOM_IS_HARDWARE_PAGE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (!headroom_setting_is_on_page (key, "hardware"))
    return NULL;
  ensure_built (self);
  return find_row (self, key);
}

static void
headroom_hardware_page_map (GtkWidget *widget)
{
  ensure_built (HEADROOM_HARDWARE_PAGE (widget));

  GTK_WIDGET_CLASS (headroom_hardware_page_parent_class)->map (widget);
}

static void
headroom_hardware_page_dispose (GObject *object)
{
  HeadroomHardwarePage *self = HEADROOM_HARDWARE_PAGE (object);

  set_project (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), HEADROOM_TYPE_HARDWARE_PAGE);
  g_clear_object (&self->estimator);
  g_clear_pointer (&self->settings, g_ptr_array_unref);

  G_OBJECT_CLASS (headroom_hardware_page_parent_class)->dispose (object);
}

static void
headroom_hardware_page_class_init (HeadroomHardwarePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_hardware_page_dispose;
  widget_class->map = headroom_hardware_page_map;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-hardware-page.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomHardwarePage, cluster_group);
  gtk_widget_class_bind_template_child (widget_class, HeadroomHardwarePage, gpu_row);
  gtk_widget_class_bind_template_child (widget_class, HeadroomHardwarePage, custom_gpu_switch);
  gtk_widget_class_bind_template_child (widget_class, HeadroomHardwarePage, custom_group);
  gtk_widget_class_bind_template_child (widget_class, HeadroomHardwarePage, figures_group);
}

static void
headroom_hardware_page_init (HeadroomHardwarePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
