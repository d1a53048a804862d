/* headroom-model-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The preset chooser, the parameter count, the architecture's config keys
 * (rows from the key table) and how the estimate read the config.
 *
 * The rows of the collapsed Mixture of Experts and Latent Attention
 * expanders are built when the expander is first expanded or one of them is
 * asked for (see ensure_expander_built), as the Hardware page builds its own.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-catalog.h"
#include "headroom-format.h"
#include "headroom-model-page.h"
#include "headroom-quantity.h"
#include "headroom-setting.h"

typedef enum
{
  EXPANDER_MOE,
  EXPANDER_MLA,
  N_EXPANDERS
} Expander;

/* The key table's groups of the expanders' rows. */
static const char * const expander_groups[N_EXPANDERS] = { "model/moe", "model/mla" };

struct _HeadroomModelPage
{
  AdwPreferencesPage  parent_instance;

  AdwActionRow       *preset_row;
  GtkPopover         *preset_popover;
  GtkSearchEntry     *preset_search;
  GtkListView        *preset_list;
  AdwPreferencesGroup *params_group;
  GtkListBox         *params_list;
  AdwPreferencesGroup *architecture_group;
  AdwExpanderRow     *expanders[N_EXPANDERS];
  AdwActionRow       *structure_row;
  AdwActionRow       *mlp_row;
  AdwActionRow       *norm_row;
  AdwActionRow       *positions_row;
  AdwActionRow       *biases_row;
  AdwActionRow       *block_row;

  GtkFilterListModel *preset_filter;
  GPtrArray          *settings;  /* the expanders' once built, too */
  gboolean            expander_built[N_EXPANDERS];
  HeadroomEstimator  *estimator;
  HeadroomProject    *project;
};

G_DEFINE_FINAL_TYPE (HeadroomModelPage, headroom_model_page, ADW_TYPE_PREFERENCES_PAGE)

/* The preset chooser: a searchable list in a popover */

static void
on_preset_activated (HeadroomModelPage *self,
                     guint              position)
{
  g_autoptr(HeadroomModelPreset) preset = g_list_model_get_item (G_LIST_MODEL (self->preset_filter),
                                                                 position);
  g_autoptr(JsonObject) empty = json_object_new ();

  gtk_popover_popdown (self->preset_popover);
  if (preset == NULL || self->project == NULL)
    return;
  /* A preset replaces the whole model: drop the previous overrides first. */
  headroom_project_set_config (self->project, empty);
  headroom_project_set_string (self->project, "model.preset",
                               headroom_model_preset_get_id (preset), NULL);
}

/* Enter picks the only match (or the first of several, as a search does). */
static void
on_preset_search_activate (HeadroomModelPage *self)
{
  if (g_list_model_get_n_items (G_LIST_MODEL (self->preset_filter)) > 0)
    on_preset_activated (self, 0);
}

static void
setup_preset_item (GtkSignalListItemFactory *factory,
                   GtkListItem              *item)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *hf_id = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_wrap (GTK_LABEL (name), TRUE);
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

/* Expressions take ownership of a returned string. */
static char *
preset_search_text (HeadroomModelPreset *preset)
{
  return g_strdup_printf ("%s %s", headroom_model_preset_get_name (preset),
                          headroom_model_preset_get_hf_id (preset)
                          ? headroom_model_preset_get_hf_id (preset) : "");
}

static void
on_preset_search_changed (GtkSearchEntry  *entry,
                          GtkStringFilter *filter)
{
  gtk_string_filter_set_search (filter, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
build_preset_chooser (HeadroomModelPage *self)
{
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  GtkStringFilter *filter;
  GtkListItemFactory *factory;

  filter = gtk_string_filter_new (gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL,
                                                               G_CALLBACK (preset_search_text),
                                                               NULL, NULL));
  self->preset_filter = gtk_filter_list_model_new (g_object_ref (headroom_catalog_get_models (catalog)),
                                                   GTK_FILTER (filter));
  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_preset_item), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_preset_item), NULL);
  gtk_list_view_set_factory (self->preset_list, factory);
  g_object_unref (factory);
  {
    g_autoptr(GtkNoSelection) selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->preset_filter)));

    gtk_list_view_set_model (self->preset_list, GTK_SELECTION_MODEL (selection));
  }
  g_signal_connect_object (self->preset_list, "activate", G_CALLBACK (on_preset_activated),
                           self, G_CONNECT_SWAPPED);
  gtk_search_entry_set_key_capture_widget (self->preset_search, GTK_WIDGET (self->preset_list));
  g_signal_connect_object (self->preset_search, "search-changed",
                           G_CALLBACK (on_preset_search_changed), filter, 0);
  g_signal_connect_object (self->preset_search, "activate",
                           G_CALLBACK (on_preset_search_activate), self, G_CONNECT_SWAPPED);
}

static void
refresh_preset (HeadroomModelPage *self)
{
  const char *preset = headroom_project_get_preset (self->project);
  HeadroomModelPreset *info = preset ? headroom_catalog_find_model (headroom_catalog_get_default (), preset) : NULL;

  if (info != NULL)
    adw_action_row_set_subtitle (self->preset_row, headroom_model_preset_get_name (info));
  else
    adw_action_row_set_subtitle (self->preset_row, preset ? preset : _("Custom configuration"));
}

/* Parameter breakdown */

/* A row's figure. */
static void
params_row_update (HeadroomQuantity *quantity,
                   GParamSpec       *pspec,
                   GtkWidget        *row)
{
  g_autofree char *text = headroom_format_count (headroom_quantity_get_value (quantity));

  /* The service's note: the trainable share, "311 M (0.44 %)" */
  if (headroom_quantity_get_detail (quantity) != NULL)
    {
      g_autofree char *with_detail = g_strdup_printf ("%s (%s)", text,
                                                      headroom_quantity_get_detail (quantity));

      gtk_label_set_label (g_object_get_data (G_OBJECT (row), "value"), with_detail);
    }
  else
    gtk_label_set_label (g_object_get_data (G_OBJECT (row), "value"), text);
}

/* Its exact count and derivation, made when the tooltip is shown: setting a
 * tooltip's text asks the display where the pointer is, a round trip to the
 * X server that every edit of the model made once per row (2.4 ms). */
static gboolean
params_row_query_tooltip (GtkWidget  *row,
                          int         x,
                          int         y,
                          gboolean    keyboard,
                          GtkTooltip *tooltip,
                          gpointer    user_data)
{
  HeadroomQuantity *quantity = g_object_get_data (G_OBJECT (row), "quantity");
  double count = headroom_quantity_get_value (quantity);
  g_autofree char *digits = headroom_format_integer (count);
  g_autofree char *exact = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s parameter",
                                                         "%s parameters",
                                                         (gulong) MIN (count, (double) G_MAXULONG)),
                                            digits);

  if (headroom_quantity_get_formula (quantity) != NULL)
    {
      g_autofree char *text = g_strdup_printf ("%s\n%s", exact, headroom_quantity_get_formula (quantity));

      gtk_tooltip_set_text (tooltip, text);
    }
  else
    gtk_tooltip_set_text (tooltip, exact);
  return TRUE;
}

/* The row follows its quantity's value: the estimator updates the list's
 * items in place when only their figures change. */
static GtkWidget *
create_params_row (gpointer item,
                   gpointer user_data)
{
  HeadroomQuantity *quantity = item;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *value = gtk_label_new (NULL);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), headroom_quantity_get_label (quantity));
  gtk_widget_add_css_class (value, "numeric");
  if (g_strcmp0 (headroom_quantity_get_name (quantity), "total") == 0)
    gtk_widget_add_css_class (value, "heading");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), value);
  g_object_set_data (G_OBJECT (row), "value", value);
  g_object_set_data_full (G_OBJECT (row), "quantity", g_object_ref (quantity), g_object_unref);
  gtk_widget_set_has_tooltip (row, TRUE);
  g_signal_connect (row, "query-tooltip", G_CALLBACK (params_row_query_tooltip), NULL);
  params_row_update (quantity, NULL, row);
  g_signal_connect_object (quantity, "notify::value", G_CALLBACK (params_row_update), row, 0);
  g_signal_connect_object (quantity, "notify::detail", G_CALLBACK (params_row_update), row, 0);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  return row;
}

/* Parts the model does not have (no learned positions, no experts) stay hidden. */
static gboolean
quantity_is_nonzero (gpointer item,
                     gpointer user_data)
{
  return headroom_quantity_get_value (item) != 0;
}

/* Values change in place: a part can appear or vanish with an update. */
static void
refilter (GtkFilter *filter)
{
  gtk_filter_changed (filter, GTK_FILTER_CHANGE_DIFFERENT);
}

/* A model that does not read has no counts: no empty list then. */
static void
on_params_changed (GListModel *rows,
                   guint       position,
                   guint       removed,
                   guint       added,
                   GtkWidget  *list)
{
  gtk_widget_set_visible (list, g_list_model_get_n_items (rows) > 0);
}

/* How the estimate read the config: the parts config.json only implies
 * through model_type and hidden_act (Hugging Face modeling_<family>.py). */
static void
refresh_interpretation (HeadroomModelPage *self)
{
  const HrModel *model;
  g_autoptr(GString) biases = g_string_new (NULL);
  g_autofree char *positions = NULL;
  const char *norm_kind, *placement;
  g_autofree char *norm = NULL;

  if (!headroom_estimator_get_has_result (self->estimator))
    return;
  model = headroom_estimator_get_model (self->estimator);
  /* A vision-language model's count is its language model's alone; the
   * window's banner says so over the results. */
  adw_preferences_group_set_description (self->params_group,
                                         headroom_estimator_get_text_only (self->estimator)
                                         ? _("Counted exactly from the tensors the Hugging Face "
                                             "modules create, for the language model only: the "
                                             "vision tower and its projector are not counted")
                                         : _("Counted exactly from the tensors the Hugging Face "
                                             "modules create"));
  /* The whole structure in one line (experts, attention, norms, embeddings). */
  adw_action_row_set_subtitle (self->structure_row, headroom_estimator_get_structure (self->estimator));
  adw_action_row_set_subtitle (self->mlp_row,
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
  adw_action_row_set_subtitle (self->norm_row, norm);

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
  adw_action_row_set_subtitle (self->positions_row, positions);

  if (model->qkv_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("q, k, v"));
  if (model->out_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("attention output"));
  if (model->mlp_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("MLP"));
  if (model->lm_head_bias)
    g_string_append_printf (biases, "%s%s", biases->len ? ", " : "", _("LM head"));
  adw_action_row_set_subtitle (self->biases_row, biases->len ? biases->str : _("None"));

  adw_action_row_set_subtitle (self->block_row,
                               model->parallel_block ? _("Parallel: attention and MLP read the same input")
                                                     : _("Sequential: attention, then MLP"));
}

static void
set_project (HeadroomModelPage *self,
             HeadroomProject   *project)
{
  if (self->project == project)
    return;
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_set_object (&self->project, project);
  for (guint i = 0; i < self->settings->len; i++)
    headroom_setting_set_project (self->settings->pdata[i], project);
  if (project == NULL)
    return;
  g_signal_connect_object (project, "changed::model.preset", G_CALLBACK (refresh_preset),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "changed::model", G_CALLBACK (refresh_preset),
                           self, G_CONNECT_SWAPPED);
  refresh_preset (self);
}

static void
on_estimator_project (HeadroomModelPage *self)
{
  set_project (self, headroom_estimator_get_project (self->estimator));
}

void
headroom_model_page_set_estimator (HeadroomModelPage *self,
                                   HeadroomEstimator *estimator)
{
  g_autoptr(GtkFilterListModel) nonzero = NULL;
  GtkFilter *filter;

  g_return_if_fail (HEADROOM_IS_MODEL_PAGE (self));
  g_return_if_fail (HEADROOM_IS_ESTIMATOR (estimator));
  g_return_if_fail (self->estimator == NULL);

  self->estimator = g_object_ref (estimator);
  filter = GTK_FILTER (gtk_custom_filter_new (quantity_is_nonzero, NULL, NULL));
  nonzero = gtk_filter_list_model_new (g_object_ref (headroom_estimator_get_params_rows (estimator)),
                                       filter);
  gtk_list_box_bind_model (self->params_list, G_LIST_MODEL (nonzero), create_params_row, NULL, NULL);
  g_signal_connect_object (nonzero, "items-changed", G_CALLBACK (on_params_changed),
                           self->params_list, 0);
  g_signal_connect_object (estimator, "updated", G_CALLBACK (refilter), filter, G_CONNECT_SWAPPED);
  g_signal_connect_object (estimator, "updated", G_CALLBACK (refresh_interpretation),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (estimator, "notify::project", G_CALLBACK (on_estimator_project),
                           self, G_CONNECT_SWAPPED);
  on_estimator_project (self);
  refresh_interpretation (self);
}

/* An expander's rows, bound to the project, once: collapsed, they were
 * still built and measured at the start (GtkRevealer measures its child),
 * 114 M of its 2.94 G instructions (callgrind, bench-window --start). */
static void
ensure_expander_built (HeadroomModelPage *self,
                       Expander           expander)
{
  g_autoptr(GPtrArray) settings = NULL;

  if (self->expander_built[expander])
    return;
  self->expander_built[expander] = TRUE;
  settings = headroom_setting_list_page (expander_groups[expander]);
  for (guint i = 0; i < settings->len; i++)
    {
      HeadroomSetting *setting = settings->pdata[i];

      adw_expander_row_add_row (self->expanders[expander], headroom_setting_get_row (setting));
      if (self->project != NULL)
        headroom_setting_set_project (setting, self->project);
      g_ptr_array_add (self->settings, g_object_ref (setting));
    }
}

static void
on_expander_expanded (AdwExpanderRow    *row,
                      GParamSpec        *pspec,
                      HeadroomModelPage *self)
{
  for (Expander e = 0; e < N_EXPANDERS; e++)
    if (self->expanders[e] == row && adw_expander_row_get_expanded (row))
      ensure_expander_built (self, e);
}

GtkWidget *
headroom_model_page_get_row (HeadroomModelPage *self,
                             const char        *key)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PAGE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (g_str_equal (key, "model.preset"))
    return GTK_WIDGET (self->preset_row);
  for (Expander e = 0; e < N_EXPANDERS; e++)
    if (headroom_setting_is_on_page (key, expander_groups[e]))
      ensure_expander_built (self, e);
  for (guint i = 0; i < self->settings->len; i++)
    if (g_str_equal (headroom_setting_get_key (self->settings->pdata[i]), key))
      return headroom_setting_get_row (self->settings->pdata[i]);
  return NULL;
}

static void
headroom_model_page_dispose (GObject *object)
{
  HeadroomModelPage *self = HEADROOM_MODEL_PAGE (object);

  set_project (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), HEADROOM_TYPE_MODEL_PAGE);
  g_clear_object (&self->preset_filter);
  g_clear_object (&self->estimator);
  g_clear_pointer (&self->settings, g_ptr_array_unref);

  G_OBJECT_CLASS (headroom_model_page_parent_class)->dispose (object);
}

static void
headroom_model_page_class_init (HeadroomModelPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_model_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-model-page.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, preset_row);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, preset_popover);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, preset_search);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, preset_list);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, params_group);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, params_list);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, architecture_group);
  gtk_widget_class_bind_template_child_full (widget_class, "moe_row", FALSE,
                                             G_STRUCT_OFFSET (HeadroomModelPage, expanders[EXPANDER_MOE]));
  gtk_widget_class_bind_template_child_full (widget_class, "mla_row", FALSE,
                                             G_STRUCT_OFFSET (HeadroomModelPage, expanders[EXPANDER_MLA]));
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, mlp_row);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, norm_row);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, structure_row);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, positions_row);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, biases_row);
  gtk_widget_class_bind_template_child (widget_class, HeadroomModelPage, block_row);
}

static void
headroom_model_page_init (HeadroomModelPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  build_preset_chooser (self);

  /* The architecture's rows in the key table's order; the expanders' wait. */
  self->settings = headroom_setting_list_page ("model/architecture");
  for (guint i = 0; i < self->settings->len; i++)
    adw_preferences_group_add (self->architecture_group,
                               headroom_setting_get_row (self->settings->pdata[i]));
  for (Expander e = 0; e < N_EXPANDERS; e++)
    {
      g_signal_connect_object (self->expanders[e], "notify::expanded",
                               G_CALLBACK (on_expander_expanded), self, 0);
      /* One the .ui opens builds at once. */
      on_expander_expanded (self->expanders[e], NULL, self);
    }
}
