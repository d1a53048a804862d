/* headroom-plan-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A HeadroomPlanner searches; its list of layouts is sorted by a
 * GtkSortListModel that follows the column view's sorter, under a
 * GtkSingleSelection. The planner is active only while the view is mapped.
 * The columns are built from one table: each has a text, a sort key and,
 * where the figure needs it, a tooltip explaining it.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-caption-text.h"
#include "headroom-estimator.h"
#include "headroom-format.h"
#include "headroom-plan-view.h"
#include "headroom-planner.h"
#include "headroom-split-bar.h"

struct _HeadroomPlanView
{
  AdwBin              parent_instance;

  AdwToastOverlay    *toast_overlay;
  GtkStack           *stack;
  GtkLabel           *summary_label;
  GtkLabel           *bound_label;
  GtkColumnView      *column_view;
  GtkLabel           *selection_label;
  HeadroomSplitBar   *split_bar;
  AdwStatusPage      *status_page;

  HeadroomPlanner    *planner;
  GtkSingleSelection *selection;
};

G_DEFINE_FINAL_TYPE (HeadroomPlanView, headroom_plan_view, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_PROJECT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* In the order shown: the predictions first, so that they stay in view
 * when the table is narrower than its columns. */
typedef enum
{
  COLUMN_RANK,
  COLUMN_STEP,
  COLUMN_MFU,
  COLUMN_TOKENS,
  COLUMN_MEMORY,
  COLUMN_BOUND,
  COLUMN_TP,
  COLUMN_PP,
  COLUMN_VPP,
  COLUMN_DP,
  COLUMN_CP,
  COLUMN_EP,
  COLUMN_SHARDING,
  COLUMN_SP,
  COLUMN_MICRO_BATCH,
  COLUMN_RECOMPUTE,
  N_COLUMNS
} Column;

typedef struct
{
  const char *title;
  gboolean    numeric;   /* right-aligned figures */
} ColumnInfo;

static const ColumnInfo columns[N_COLUMNS] = {
  [COLUMN_RANK] = { N_("#"), TRUE },
  /* TRANSLATORS: column titles: tensor, pipeline, virtual pipeline, data,
   * context and expert parallel sizes */
  [COLUMN_TP] = { N_("TP"), TRUE },
  [COLUMN_PP] = { N_("PP"), TRUE },
  [COLUMN_VPP] = { N_("VPP"), TRUE },
  [COLUMN_DP] = { N_("DP"), TRUE },
  [COLUMN_CP] = { N_("CP"), TRUE },
  [COLUMN_EP] = { N_("EP"), TRUE },
  [COLUMN_SHARDING] = { N_("ZeRO/FSDP"), FALSE },
  /* TRANSLATORS: column title: sequence parallel */
  [COLUMN_SP] = { N_("SP"), FALSE },
  [COLUMN_MICRO_BATCH] = { N_("Micro-batch"), TRUE },
  [COLUMN_RECOMPUTE] = { N_("Recompute"), FALSE },
  [COLUMN_MEMORY] = { N_("Memory/GPU"), TRUE },
  [COLUMN_STEP] = { N_("Step"), TRUE },
  [COLUMN_MFU] = { N_("MFU"), TRUE },
  [COLUMN_TOKENS] = { N_("Tokens/s"), TRUE },
  [COLUMN_BOUND] = { N_("Bound"), FALSE },
};

/* Bounds, recomputation modes and FSDP modes by their names in
 * headroom-plan-row.h, in the order their columns sort. */
static const char * const bound_names[] = { "compute", "memory", "communication", "bubble", NULL };
static const char * const recompute_names[] = { "none", "selective", "op-selective", "full", NULL };
static const char * const fsdp_names[] = { "none", "full", "grad-op", "hybrid", NULL };

static guint
name_index (const char * const *names,
            const char         *name)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (g_strcmp0 (names[i], name) == 0)
      return i;
  g_return_val_if_reached (0);
}

static const char *
bound_label (const char *bound)
{
  const char * const labels[] = { _("Compute"), _("Memory"), _("Communication"), _("Bubble") };

  return labels[name_index (bound_names, bound)];
}

static const char *
bound_tooltip (const char *bound)
{
  const char * const tooltips[] = {
    _("Bound by compute: the largest loss against peak FLOP/s is matrix products "
      "running below peak because of their shapes"),
    _("Bound by memory bandwidth: the largest loss against peak FLOP/s is "
      "memory-bound kernels, recomputation and the optimizer step"),
    _("Bound by communication: the largest loss against peak FLOP/s is "
      "communication not hidden behind compute"),
    _("Bound by the pipeline bubble: the largest loss against peak FLOP/s is "
      "stages idle while the pipeline fills and drains"),
  };

  return tooltips[name_index (bound_names, bound)];
}

/* As the Recomputation setting names it. */
static const char *
recompute_label (const char *recompute)
{
  return _(headroom_key_info_get_choice_label (headroom_project_find_key ("training.recompute"),
                                               recompute));
}

static char *
sharding_label (HeadroomPlanRow *row)
{
  const char * const fsdp_labels[] = { NULL, _("FSDP full"), _("FSDP grad-op"), _("FSDP hybrid") };
  guint fsdp = name_index (fsdp_names, headroom_plan_row_get_fsdp (row));
  int zero_stage = headroom_plan_row_get_zero_stage (row);

  if (fsdp > 0)
    return g_strdup (fsdp_labels[fsdp]);
  if (zero_stage == 0)
    return g_strdup (C_("sharding", "None"));
  /* TRANSLATORS: a ZeRO stage, e.g. "ZeRO-1" */
  return g_strdup_printf (_("ZeRO-%d"), zero_stage);
}

/* The figure a column sorts by; sharding sorts ZeRO 0-3 before FSDP modes. */
static double
column_key (Column           column,
            HeadroomPlanRow *row)
{
  switch (column)
    {
    case COLUMN_RANK:
      return headroom_plan_row_get_rank (row);
    case COLUMN_TP:
      return headroom_plan_row_get_tensor_parallel (row);
    case COLUMN_PP:
      return headroom_plan_row_get_pipeline_parallel (row);
    case COLUMN_VPP:
      return headroom_plan_row_get_virtual_stages (row);
    case COLUMN_DP:
      return headroom_plan_row_get_data_parallel (row);
    case COLUMN_CP:
      return headroom_plan_row_get_context_parallel (row);
    case COLUMN_EP:
      return headroom_plan_row_get_expert_parallel (row);
    case COLUMN_SHARDING:
      {
        guint fsdp = name_index (fsdp_names, headroom_plan_row_get_fsdp (row));

        return fsdp == 0 ? headroom_plan_row_get_zero_stage (row) : 10.0 + fsdp;
      }
    case COLUMN_SP:
      return headroom_plan_row_get_sequence_parallel (row);
    case COLUMN_MICRO_BATCH:
      return headroom_plan_row_get_micro_batch (row);
    case COLUMN_RECOMPUTE:
      return name_index (recompute_names, headroom_plan_row_get_recompute (row));
    case COLUMN_MEMORY:
      return headroom_plan_row_get_memory (row);
    case COLUMN_STEP:
      return headroom_plan_row_get_step_seconds (row);
    case COLUMN_MFU:
      return headroom_plan_row_get_mfu (row);
    case COLUMN_TOKENS:
      return headroom_plan_row_get_tokens_per_second (row);
    case COLUMN_BOUND:
      return name_index (bound_names, headroom_plan_row_get_bound (row));
    case N_COLUMNS:
    default:
      g_return_val_if_reached (0);
    }
}

static char *
column_text (Column           column,
             HeadroomPlanRow *row)
{
  switch (column)
    {
    case COLUMN_SHARDING:
      return sharding_label (row);
    case COLUMN_SP:
      return g_strdup (headroom_plan_row_get_sequence_parallel (row) ? _("On") : _("Off"));
    case COLUMN_RECOMPUTE:
      return g_strdup (recompute_label (headroom_plan_row_get_recompute (row)));
    case COLUMN_MEMORY:
      return headroom_format_gib (headroom_plan_row_get_memory (row));
    case COLUMN_STEP:
      return headroom_format_duration (headroom_plan_row_get_step_seconds (row));
    case COLUMN_MFU:
      /* TRANSLATORS: a percentage, e.g. "45.3%" */
      return g_strdup_printf (_("%.1f%%"), 100.0 * headroom_plan_row_get_mfu (row));
    case COLUMN_TOKENS:
      return headroom_format_count (headroom_plan_row_get_tokens_per_second (row));
    case COLUMN_BOUND:
      return g_strdup (bound_label (headroom_plan_row_get_bound (row)));
    case COLUMN_RANK:
    case COLUMN_TP:
    case COLUMN_PP:
    case COLUMN_VPP:
    case COLUMN_DP:
    case COLUMN_CP:
    case COLUMN_EP:
    case COLUMN_MICRO_BATCH:
      return g_strdup_printf ("%.0f", column_key (column, row));
    case N_COLUMNS:
    default:
      g_return_val_if_reached (NULL);
    }
}

static char *
column_tooltip (Column           column,
                HeadroomPlanRow *row)
{
  switch (column)
    {
    case COLUMN_MEMORY:
      {
        g_autofree char *used = headroom_format_gib (headroom_plan_row_get_memory (row));
        g_autofree char *capacity = headroom_format_gib (headroom_plan_row_get_memory_capacity (row));

        /* TRANSLATORS: e.g. "71.2 GiB of 80.0 GiB on the most loaded GPU" */
        return g_strdup_printf (_("%s of %s on the most loaded GPU"), used, capacity);
      }
    case COLUMN_MFU:
      return g_strdup (_("Model FLOPs utilisation: the model's forward and backward FLOPs per "
                         "step divided by GPUs × peak FLOP/s × the predicted step time; "
                         "recomputation does not count"));
    case COLUMN_TOKENS:
      return g_strdup (_("Tokens trained per second by the whole cluster"));
    case COLUMN_BOUND:
      return g_strdup (bound_tooltip (headroom_plan_row_get_bound (row)));
    case COLUMN_STEP:
      return g_strdup (_("Predicted time of one optimizer step"));
    case COLUMN_RANK:
    case COLUMN_TP:
    case COLUMN_PP:
    case COLUMN_VPP:
    case COLUMN_DP:
    case COLUMN_CP:
    case COLUMN_EP:
    case COLUMN_SHARDING:
    case COLUMN_SP:
    case COLUMN_MICRO_BATCH:
    case COLUMN_RECOMPUTE:
    case N_COLUMNS:
    default:
      return NULL;
    }
}

static void
setup_cell_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  user_data)
{
  Column column = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  if (columns[column].numeric)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
    }
  else
    gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

static void
bind_cell_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  Column column = GPOINTER_TO_INT (user_data);
  HeadroomPlanRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = column_text (column, row);
  g_autofree char *tooltip = column_tooltip (column, row);

  gtk_label_set_label (GTK_LABEL (label), text);
  /* Setting a tooltip asks the display where the pointer is: only on change. */
  if (g_strcmp0 (gtk_widget_get_tooltip_text (label), tooltip) != 0)
    gtk_widget_set_tooltip_text (label, tooltip);
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  Column column = GPOINTER_TO_INT (user_data);
  HeadroomPlanRow *row_a = HEADROOM_PLAN_ROW ((gpointer) a);
  HeadroomPlanRow *row_b = HEADROOM_PLAN_ROW ((gpointer) b);
  double key_a = column_key (column, row_a);
  double key_b = column_key (column, row_b);

  /* Ties keep the order of predicted step time. */
  if (key_a == key_b)
    {
      key_a = headroom_plan_row_get_rank (row_a);
      key_b = headroom_plan_row_get_rank (row_b);
    }
  return gtk_ordering_from_cmpfunc ((key_a > key_b) - (key_a < key_b));
}

static void
add_columns (HeadroomPlanView *self)
{
  GtkColumnViewColumn *step_column = NULL;

  for (Column c = 0; c < N_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkSorter *sorter = GTK_SORTER (gtk_custom_sorter_new (compare_rows, GINT_TO_POINTER (c), NULL));
      g_autoptr(GtkColumnViewColumn) column = NULL;

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell_cb), GINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell_cb), GINT_TO_POINTER (c));
      column = gtk_column_view_column_new (_(columns[c].title), factory);
      gtk_column_view_column_set_sorter (column, sorter);
      g_object_unref (sorter);
      gtk_column_view_append_column (self->column_view, column);
      if (c == COLUMN_STEP)
        step_column = column;
    }
  gtk_column_view_sort_by_column (self->column_view, step_column, GTK_SORT_ASCENDING);
}

static HeadroomPlanRow *
selected_row (HeadroomPlanView *self)
{
  return gtk_single_selection_get_selected_item (self->selection);
}

static void
update_actions (HeadroomPlanView *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plan.apply",
                                 headroom_planner_get_project (self->planner) != NULL
                                 && selected_row (self) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plan.undo",
                                 headroom_planner_get_can_undo (self->planner));
}

/* The planner's times are the hardware prediction; while a measured
 * utilisation overrides it, the Estimate view's times differ, and this says
 * so (issue 13). */
static char *
dup_time_note (HeadroomPlanView *self)
{
  HeadroomProject *project = headroom_planner_get_project (self->planner);
  g_autofree char *percent = NULL;
  double mfu = project != NULL ? headroom_project_get_double (project, "training.mfu") : 0;

  if (!(mfu > 0))
    return NULL;
  percent = headroom_format_count (100 * mfu);
  /* TRANSLATORS: %s %% is the utilisation set, e.g. "40 %" */
  return g_strdup_printf (_("Times here are predicted from the hardware; the Estimate view "
                            "uses the utilisation set (%s %%) instead"), percent);
}

static void
selection_changed_cb (HeadroomPlanView *self)
{
  HeadroomPlanRow *row = selected_row (self);
  g_autofree char *caption = NULL;
  g_autofree char *note = dup_time_note (self);

  if (row != NULL)
    {
      g_autofree char *memory = headroom_format_gib (headroom_plan_row_get_memory (row));

      /* TRANSLATORS: e.g. "Layout 3: 71.2 GiB per GPU, MFU 45.3%, bound by Communication" */
      caption = g_strdup_printf (_("Layout %u: %s per GPU, MFU %.1f%%, bound by %s"),
                                 headroom_plan_row_get_rank (row), memory,
                                 100.0 * headroom_plan_row_get_mfu (row),
                                 bound_label (headroom_plan_row_get_bound (row)));
    }
  if (note != NULL)
    {
      char *joined = caption != NULL ? g_strconcat (caption, ". ", note, NULL) : g_strdup (note);

      g_free (caption);
      caption = joined;
    }
  headroom_split_bar_set_row (self->split_bar, row);
  gtk_label_set_label (self->selection_label, caption);
  gtk_widget_set_visible (GTK_WIDGET (self->selection_label), caption != NULL);
  update_actions (self);
}

static void
set_summary (HeadroomPlanView *self)
{
  gint64 n_searched = headroom_planner_get_searched (self->planner);
  gint64 n_fitting = headroom_planner_get_fitting (self->planner);
  guint shown = g_list_model_get_n_items (headroom_planner_get_layouts (self->planner));
  g_autofree char *searched = headroom_format_integer ((double) n_searched);
  g_autofree char *fitting = headroom_format_integer ((double) n_fitting);
  g_autofree char *summary = NULL;

  if (n_fitting > shown)
    /* TRANSLATORS: e.g. "12,345 layouts searched, 1,234 fit; the fastest 100 are shown" */
    summary = g_strdup_printf (_("%s layouts searched, %s fit; the fastest %u are shown"),
                               searched, fitting, shown);
  else
    /* TRANSLATORS: e.g. "12,345 layouts searched, 12 fit" */
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s layout searched, %s fit",
                                            "%s layouts searched, %s fit", (gulong) n_searched),
                               searched, fitting);
  gtk_label_set_label (self->summary_label, summary);
  /* What published runs of this kind reached of such predictions. */
  {
    g_autofree char *band = headroom_dup_prediction_band (headroom_planner_get_project (self->planner));
    g_autofree char *scope = headroom_planner_dup_scope (self->planner);
    /* TRANSLATORS: %s is "published runs of … reached between 52 and 126 % of such predictions" */
    g_autofree char *bound = g_strdup_printf (_("Step times are predicted from the hardware: %s."),
                                              band);
    g_autofree char *label = NULL;

    if (scope != NULL)
      {
        char *joined = g_strconcat (scope, ". ", bound, NULL);

        g_free (bound);
        bound = joined;
      }
    label = headroom_caption_join_hyphens (bound);
    gtk_label_set_label (self->bound_label, label);
  }
}

static void
planner_updated_cb (HeadroomPlanView *self)
{
  const char *icon_name = "dialog-information-symbolic";
  const char *title = NULL;

  switch (headroom_planner_get_status (self->planner))
    {
    case HEADROOM_PLANNER_STATUS_LAYOUTS:
      selection_changed_cb (self);
      set_summary (self);
      gtk_stack_set_visible_child_name (self->stack, "layouts");
      return;
    case HEADROOM_PLANNER_STATUS_NO_PROJECT:
      title = _("No Project");
      break;
    case HEADROOM_PLANNER_STATUS_NOT_TRAINING:
      title = _("Plans Are for Training");
      break;
    case HEADROOM_PLANNER_STATUS_INVALID:
      icon_name = "dialog-error-symbolic";
      title = _("Cannot Plan");
      break;
    case HEADROOM_PLANNER_STATUS_NOTHING_FITS:
      icon_name = "dialog-warning-symbolic";
      title = _("No Layout Fits");
      break;
    default:
      g_return_if_reached ();
    }
  adw_status_page_set_icon_name (self->status_page, icon_name);
  adw_status_page_set_title (self->status_page, title);
  adw_status_page_set_description (self->status_page, headroom_planner_get_message (self->planner));
  gtk_stack_set_visible_child_name (self->stack, "status");
}

static void
show_error (HeadroomPlanView *self,
            const GError     *error)
{
  /* An error to read whole goes to a dialog, as plain text. */
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                              _("Could Not Apply the Layout"), NULL);

  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog), error->message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
apply_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (widget);
  HeadroomPlanRow *row = selected_row (self);
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  guint n_undo;
  AdwToast *toast;

  if (row == NULL || headroom_planner_get_project (self->planner) == NULL)
    return;

  n_undo = headroom_planner_get_n_undo (self->planner);
  if (!headroom_planner_apply (self->planner, row, &error))
    {
      show_error (self, error);
      return;
    }
  /* The project had this layout already. */
  if (headroom_planner_get_n_undo (self->planner) == n_undo)
    return;

  /* TRANSLATORS: a toast, e.g. "Layout 3 applied" */
  title = g_strdup_printf (_("Layout %u applied"), headroom_plan_row_get_rank (row));
  toast = adw_toast_new (title);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "plan.undo");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
undo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (widget);
  g_autoptr(GError) error = NULL;

  if (!headroom_planner_get_can_undo (self->planner))
    return;
  if (!headroom_planner_undo (self->planner, &error))
    show_error (self, error);
}

static void
headroom_plan_view_map (GtkWidget *widget)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (widget);

  GTK_WIDGET_CLASS (headroom_plan_view_parent_class)->map (widget);

  headroom_planner_set_active (self->planner, TRUE);
}

static void
headroom_plan_view_unmap (GtkWidget *widget)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (widget);

  headroom_planner_set_active (self->planner, FALSE);

  GTK_WIDGET_CLASS (headroom_plan_view_parent_class)->unmap (widget);
}

static void
headroom_plan_view_dispose (GObject *object)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (object);

  /* The column view keeps the selection, and another window the project:
   * neither may call back into a disposed view. */
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  if (self->planner != NULL)
    {
      HeadroomProject *project = headroom_planner_get_project (self->planner);

      if (project != NULL)
        g_signal_handlers_disconnect_by_data (project, self);
      g_signal_handlers_disconnect_by_data (self->planner, self);
    }
  g_clear_object (&self->selection);
  g_clear_object (&self->planner);

  /* AdwBin unparents the template's child, and with it every template widget. */
  G_OBJECT_CLASS (headroom_plan_view_parent_class)->dispose (object);
}

static void
headroom_plan_view_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, headroom_plan_view_get_project (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_plan_view_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      headroom_plan_view_set_project (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_plan_view_class_init (HeadroomPlanViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_plan_view_dispose;
  object_class->get_property = headroom_plan_view_get_property;
  object_class->set_property = headroom_plan_view_set_property;

  widget_class->map = headroom_plan_view_map;
  widget_class->unmap = headroom_plan_view_unmap;

  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, HEADROOM_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (HEADROOM_TYPE_SPLIT_BAR);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/headroom/Headroom/headroom-plan-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, stack);
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, summary_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, bound_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, column_view);
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, selection_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, split_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomPlanView, status_page);

  gtk_widget_class_install_action (widget_class, "plan.apply", NULL, apply_action);
  gtk_widget_class_install_action (widget_class, "plan.undo", NULL, undo_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "plan.undo", NULL);
}

static void
headroom_plan_view_init (HeadroomPlanView *self)
{
  GtkSortListModel *sorted;

  gtk_widget_init_template (GTK_WIDGET (self));
  /* Searching waits until the view is shown. */
  self->planner = g_object_new (HEADROOM_TYPE_PLANNER, "active", FALSE, NULL);
  g_signal_connect_object (self->planner, "updated",
                           G_CALLBACK (planner_updated_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->planner, "notify::can-undo",
                           G_CALLBACK (update_actions), self, G_CONNECT_SWAPPED);

  add_columns (self);
  sorted = gtk_sort_list_model_new (g_object_ref (headroom_planner_get_layouts (self->planner)),
                                    g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);

  planner_updated_cb (self);
  selection_changed_cb (self);
}

GtkWidget *
headroom_plan_view_new (HeadroomProject *project)
{
  g_return_val_if_fail (project == NULL || HEADROOM_IS_PROJECT (project), NULL);

  return g_object_new (HEADROOM_TYPE_PLAN_VIEW, "project", project, NULL);
}

HeadroomProject *
headroom_plan_view_get_project (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), NULL);

  return headroom_planner_get_project (self->planner);
}

void
headroom_plan_view_set_project (HeadroomPlanView *self,
                                HeadroomProject  *project)
{
  g_return_if_fail (HEADROOM_IS_PLAN_VIEW (self));
  g_return_if_fail (project == NULL || HEADROOM_IS_PROJECT (project));

  if (headroom_planner_get_project (self->planner) == project)
    return;

  headroom_planner_set_project (self->planner, project);
  /* The utilisation set changes no layout, only the note under the table. */
  if (project != NULL)
    g_signal_connect_object (project, "changed::training.mfu",
                             G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  selection_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

HeadroomPlanner *
headroom_plan_view_get_planner (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), NULL);

  return self->planner;
}

void
headroom_plan_view_refresh (HeadroomPlanView *self)
{
  g_return_if_fail (HEADROOM_IS_PLAN_VIEW (self));

  headroom_planner_refresh (self->planner);
}

GtkSelectionModel *
headroom_plan_view_get_layouts (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), NULL);

  return GTK_SELECTION_MODEL (self->selection);
}

gint64
headroom_plan_view_get_searched (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), 0);

  return headroom_planner_get_searched (self->planner);
}

gint64
headroom_plan_view_get_fitting (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), 0);

  return headroom_planner_get_fitting (self->planner);
}

const char *
headroom_plan_view_get_caption (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->selection_label)))
    return NULL;
  return gtk_label_get_label (self->selection_label);
}

const char *
headroom_plan_view_get_message (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), NULL);

  if (headroom_planner_get_status (self->planner) == HEADROOM_PLANNER_STATUS_LAYOUTS)
    return NULL;
  return headroom_planner_get_message (self->planner);
}
