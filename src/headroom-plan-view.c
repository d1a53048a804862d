/* headroom-plan-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rows live in a GListStore, sorted by a GtkSortListModel that follows
 * the column view's sorter, under a GtkSingleSelection. The columns are
 * built from one table: each has a text, a sort key and, where the figure
 * needs it, a tooltip explaining it.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "headroom-format.h"
#include "headroom-plan-row.h"
#include "headroom-plan-view.h"
#include "headroom-split-bar.h"
#include "hr-planner.h"

/* Rows the table shows: the fastest layouts that fit. */
#define MAX_LAYOUTS 100

/* The project keys "Use This Layout" writes, and plan.undo restores. */
static const char * const layout_keys[] = {
  "training.tensor_parallel",
  "training.pipeline_parallel",
  "training.pipeline_schedule",
  "training.virtual_stages",
  "training.context_parallel",
  "training.expert_parallel",
  "training.zero_stage",
  "training.fsdp",
  "training.sequence_parallel",
  "training.micro_batch",
  "training.recompute",
};

struct _HeadroomPlanView
{
  AdwBin             parent_instance;

  AdwToastOverlay   *toast_overlay;
  GtkStack          *stack;
  GtkLabel          *summary_label;
  GtkColumnView     *column_view;
  GtkLabel          *selection_label;
  HeadroomSplitBar  *split_bar;
  AdwStatusPage     *status_page;

  HeadroomProject   *project;
  gulong             changed_id;
  guint              idle_id;
  gboolean           dirty;

  GListStore        *rows;
  GtkSingleSelection *selection;
  gint64             searched;
  gint64             fitting;
  char              *message;

  /* Of GHashTable: key → the value it had before a layout was applied. */
  GPtrArray         *undo_stack;
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

static const char *
bound_label (HrPlanBound bound)
{
  switch (bound)
    {
    case HR_PLAN_BOUND_COMPUTE:
      return _("Compute");
    case HR_PLAN_BOUND_MEMORY:
      return _("Memory");
    case HR_PLAN_BOUND_COMMUNICATION:
      return _("Communication");
    case HR_PLAN_BOUND_BUBBLE:
      return _("Bubble");
    default:
      g_return_val_if_reached (NULL);
    }
}

static const char *
bound_tooltip (HrPlanBound bound)
{
  switch (bound)
    {
    case HR_PLAN_BOUND_COMPUTE:
      return _("Bound by compute: the largest loss against peak FLOP/s is matrix products "
               "running below peak because of their shapes");
    case HR_PLAN_BOUND_MEMORY:
      return _("Bound by memory bandwidth: the largest loss against peak FLOP/s is "
               "memory-bound kernels, recomputation and the optimizer step");
    case HR_PLAN_BOUND_COMMUNICATION:
      return _("Bound by communication: the largest loss against peak FLOP/s is "
               "communication not hidden behind compute");
    case HR_PLAN_BOUND_BUBBLE:
      return _("Bound by the pipeline bubble: the largest loss against peak FLOP/s is "
               "stages idle while the pipeline fills and drains");
    default:
      g_return_val_if_reached (NULL);
    }
}

static const char *
recompute_label (HrRecompute recompute)
{
  switch (recompute)
    {
    case HR_RECOMPUTE_NONE:
      return C_("recomputation", "None");
    case HR_RECOMPUTE_SELECTIVE:
      return C_("recomputation", "Selective");
    case HR_RECOMPUTE_FULL:
      return C_("recomputation", "Full");
    default:
      g_return_val_if_reached (NULL);
    }
}

static char *
sharding_label (const HrTraining *training)
{
  switch (training->fsdp)
    {
    case HR_FSDP_FULL:
      return g_strdup (_("FSDP full"));
    case HR_FSDP_GRAD_OP:
      return g_strdup (_("FSDP grad-op"));
    case HR_FSDP_HYBRID:
      return g_strdup (_("FSDP hybrid"));
    case HR_FSDP_NONE:
    default:
      break;
    }
  if (training->zero_stage == 0)
    return g_strdup (C_("sharding", "None"));
  /* TRANSLATORS: a ZeRO stage, e.g. "ZeRO-1" */
  return g_strdup_printf (_("ZeRO-%d"), training->zero_stage);
}

/* The figure a column sorts by; sharding sorts ZeRO 0-3 before FSDP modes. */
static double
column_key (Column           column,
            HeadroomPlanRow *row)
{
  const HrPlanLayout *layout = headroom_plan_row_get_layout (row);
  const HrTraining *tr = &layout->training;

  switch (column)
    {
    case COLUMN_RANK:
      return headroom_plan_row_get_rank (row);
    case COLUMN_TP:
      return tr->tensor_parallel;
    case COLUMN_PP:
      return tr->pipeline_parallel;
    case COLUMN_VPP:
      return tr->virtual_stages;
    case COLUMN_DP:
      return layout->data_parallel;
    case COLUMN_CP:
      return tr->context_parallel;
    case COLUMN_EP:
      return tr->expert_parallel;
    case COLUMN_SHARDING:
      return tr->fsdp == HR_FSDP_NONE ? tr->zero_stage : 10.0 + (int) tr->fsdp;
    case COLUMN_SP:
      return tr->sequence_parallel;
    case COLUMN_MICRO_BATCH:
      return tr->micro_batch;
    case COLUMN_RECOMPUTE:
      return tr->recompute;
    case COLUMN_MEMORY:
      return layout->memory_total;
    case COLUMN_STEP:
      return layout->step.step_seconds;
    case COLUMN_MFU:
      return layout->step.mfu;
    case COLUMN_TOKENS:
      return layout->step.tokens_per_second;
    case COLUMN_BOUND:
      return layout->step.bound;
    case N_COLUMNS:
    default:
      g_return_val_if_reached (0);
    }
}

static char *
column_text (Column           column,
             HeadroomPlanRow *row)
{
  const HrPlanLayout *layout = headroom_plan_row_get_layout (row);
  const HrTraining *tr = &layout->training;

  switch (column)
    {
    case COLUMN_SHARDING:
      return sharding_label (tr);
    case COLUMN_SP:
      return g_strdup (tr->sequence_parallel ? _("On") : _("Off"));
    case COLUMN_RECOMPUTE:
      return g_strdup (recompute_label (tr->recompute));
    case COLUMN_MEMORY:
      return headroom_format_gib (layout->memory_total);
    case COLUMN_STEP:
      return headroom_format_duration (layout->step.step_seconds);
    case COLUMN_MFU:
      /* TRANSLATORS: a percentage, e.g. "45.3%" */
      return g_strdup_printf (_("%.1f%%"), 100.0 * layout->step.mfu);
    case COLUMN_TOKENS:
      return headroom_format_count (layout->step.tokens_per_second);
    case COLUMN_BOUND:
      return g_strdup (bound_label (layout->step.bound));
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
  const HrPlanLayout *layout = headroom_plan_row_get_layout (row);

  switch (column)
    {
    case COLUMN_MEMORY:
      {
        g_autofree char *used = headroom_format_gib (layout->memory_total);
        g_autofree char *capacity = headroom_format_gib (layout->memory_capacity);

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
      return g_strdup (bound_tooltip (layout->step.bound));
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
                                 self->project != NULL && selected_row (self) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plan.undo", self->undo_stack->len > 0);
}

static void
selection_changed_cb (HeadroomPlanView *self)
{
  HeadroomPlanRow *row = selected_row (self);
  g_autofree char *caption = NULL;

  if (row != NULL)
    {
      const HrPlanLayout *layout = headroom_plan_row_get_layout (row);
      g_autofree char *memory = headroom_format_gib (layout->memory_total);

      /* TRANSLATORS: e.g. "Layout 3: 71.2 GiB per GPU, MFU 45.3%, bound by Communication" */
      caption = g_strdup_printf (_("Layout %u: %s per GPU, MFU %.1f%%, bound by %s"),
                                 headroom_plan_row_get_rank (row), memory,
                                 100.0 * layout->step.mfu, bound_label (layout->step.bound));
      headroom_split_bar_set_step (self->split_bar, &layout->step);
    }
  else
    headroom_split_bar_set_step (self->split_bar, NULL);
  gtk_label_set_label (self->selection_label, caption);
  gtk_widget_set_visible (GTK_WIDGET (self->selection_label), caption != NULL);
  update_actions (self);
}

static void
show_message (HeadroomPlanView *self,
              const char       *icon_name,
              const char       *title,
              const char       *description)
{
  g_free (self->message);
  self->message = g_strdup (description);
  adw_status_page_set_icon_name (self->status_page, icon_name);
  adw_status_page_set_title (self->status_page, title);
  adw_status_page_set_description (self->status_page, description);
  gtk_stack_set_visible_child_name (self->stack, "status");
}

/* Why nothing fits: no valid layout at all, or none within the memory. */
static void
show_nothing_fits (HeadroomPlanView *self,
                   const HrModel    *model,
                   const HrGpu      *gpu,
                   gint64            n_gpus)
{
  g_autofree char *size = NULL;
  g_autofree char *capacity = headroom_format_gib (gpu->memory_bytes);
  g_autofree char *gpus = NULL;
  g_autofree char *searched = NULL;
  g_autofree char *text = NULL;
  HrParams params;

  if (hr_model_params (model, &params, NULL) == HR_OK)
    size = headroom_format_count ((double) params.total);
  else
    size = g_strdup ("?");

  gpus = g_strdup_printf ("%'" G_GINT64_FORMAT, n_gpus);
  searched = g_strdup_printf ("%'" G_GINT64_FORMAT, self->searched);
  if (self->searched == 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "No parallel layout of %s GPU suits this model: tensor "
                                         "parallelism must divide the attention heads and the GPUs "
                                         "per node, pipeline parallelism the layers, and data "
                                         "parallelism the global batch.",
                                         "No parallel layout of %s GPUs suits this model: tensor "
                                         "parallelism must divide the attention heads and the GPUs "
                                         "per node, pipeline parallelism the layers, and data "
                                         "parallelism the global batch.",
                                         (gulong) n_gpus),
                            gpus);
  else
    /* TRANSLATORS: e.g. "No layout of 8 GPUs fits a model of 70.6 B parameters
     * in 80.0 GiB per GPU (1,234 layouts searched). …" */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "No layout of %s GPU fits a model of %s parameters in %s "
                                         "per GPU (%s layouts searched). Add GPUs, shorten the "
                                         "sequences or choose a GPU with more memory.",
                                         "No layout of %s GPUs fits a model of %s parameters in %s "
                                         "per GPU (%s layouts searched). Add GPUs, shorten the "
                                         "sequences or choose a GPU with more memory.",
                                         (gulong) n_gpus),
                            gpus, size, capacity, searched);
  show_message (self, "dialog-warning-symbolic", _("No Layout Fits"), text);
}

static void
set_summary (HeadroomPlanView *self,
             guint             shown)
{
  g_autofree char *searched = g_strdup_printf ("%'" G_GINT64_FORMAT, self->searched);
  g_autofree char *fitting = g_strdup_printf ("%'" G_GINT64_FORMAT, self->fitting);
  g_autofree char *summary = NULL;

  if (self->fitting > shown)
    /* TRANSLATORS: e.g. "12,345 layouts searched, 1,234 fit; the fastest 100 are shown" */
    summary = g_strdup_printf (_("%s layouts searched, %s fit; the fastest %u are shown"),
                               searched, fitting, shown);
  else
    /* TRANSLATORS: e.g. "12,345 layouts searched, 12 fit" */
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s layout searched, %s fit",
                                            "%s layouts searched, %s fit", (gulong) self->searched),
                               searched, fitting);
  gtk_label_set_label (self->summary_label, summary);
}

static void
plan (HeadroomPlanView *self)
{
  g_autofree HrPlanLayout *best = NULL;
  g_autoptr(GPtrArray) new_rows = NULL;
  g_autoptr(GError) error = NULL;
  HrPlanRequest request;
  HrPlanResult result;
  HrError err = { 0 };
  HrModel model;
  HrGpu gpu;

  g_clear_handle_id (&self->idle_id, g_source_remove);
  self->dirty = FALSE;
  self->searched = 0;
  self->fitting = 0;
  g_clear_pointer (&self->message, g_free);
  g_list_store_remove_all (self->rows);

  if (self->project == NULL)
    {
      show_message (self, "dialog-information-symbolic", _("No Project"), _("Open or create a project to plan it."));
      return;
    }
  if (headroom_project_get_workload (self->project) != HEADROOM_WORKLOAD_TRAINING)
    {
      show_message (self, "dialog-information-symbolic", _("Plans Are for Training"),
                    _("The planner searches the parallel layouts of a training run. "
                      "Switch the workload to training to plan it."));
      return;
    }
  if (!headroom_project_get_model (self->project, &model, &error)
      || !headroom_project_get_gpu (self->project, &gpu, &error))
    {
      show_message (self, "dialog-error-symbolic", _("Cannot Plan"), error->message);
      return;
    }

  hr_plan_request_init (&request);
  headroom_project_get_training (self->project, &request.training);
  best = g_new0 (HrPlanLayout, MAX_LAYOUTS);
  if (hr_plan_search (&model, &gpu, &request, best, MAX_LAYOUTS, NULL, 0, &result, &err) != HR_OK)
    {
      g_autofree char *text = NULL;
      char line[512];
      gsize field_length = err.field != NULL ? strlen (err.field) : 0;

      /* The core's line starts with "field: "; the project key instead
       * tells the user where to fix it. */
      hr_error_format (&err, line, sizeof line);
      if (field_length > 0 && strncmp (line, err.field, field_length) == 0
          && g_str_has_prefix (line + field_length, ": "))
        text = g_strdup_printf ("%s%s", headroom_project_key_for_field ("training", err.field),
                                line + field_length);
      else
        text = g_strdup (line);
      show_message (self, "dialog-error-symbolic", _("Cannot Plan"), text);
      return;
    }

  self->searched = result.searched;
  self->fitting = result.fitting;
  if (result.n_best == 0)
    {
      show_nothing_fits (self, &model, &gpu, headroom_project_get_n_gpus (self->project));
      return;
    }

  new_rows = g_ptr_array_new_with_free_func (g_object_unref);
  for (size_t i = 0; i < result.n_best; i++)
    g_ptr_array_add (new_rows, headroom_plan_row_new (&best[i], (guint) i + 1));
  g_list_store_splice (self->rows, 0, 0, new_rows->pdata, new_rows->len);
  set_summary (self, new_rows->len);
  gtk_stack_set_visible_child_name (self->stack, "layouts");
}

static gboolean
plan_idle_cb (gpointer user_data)
{
  HeadroomPlanView *self = user_data;

  self->idle_id = 0;
  plan (self);
  return G_SOURCE_REMOVE;
}

static void
queue_plan (HeadroomPlanView *self)
{
  self->dirty = TRUE;
  if (self->idle_id == 0 && gtk_widget_get_mapped (GTK_WIDGET (self)))
    self->idle_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, plan_idle_cb, self, NULL);
}

/* The search ignores the layout keys (it tries every value), the MFU
 * assumption (it predicts its own), the budget and the price. */
static gboolean
changes_plan (const char *key)
{
  static const char * const ignored[] = {
    "training.mfu", "training.tokens", "hardware.price_per_gpu_hour",
  };

  if (g_str_has_prefix (key, "inference."))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (layout_keys); i++)
    if (g_str_equal (key, layout_keys[i]))
      return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ignored); i++)
    if (g_str_equal (key, ignored[i]))
      return FALSE;
  return TRUE;
}

static void
project_changed_cb (HeadroomPlanView *self,
                    const char       *key,
                    HeadroomProject  *project)
{
  if (key == NULL || changes_plan (key))
    queue_plan (self);
}

/* The value of `key` in `layout`, as a project file writes it. */
static char *
layout_value (const HrPlanLayout *layout,
              const char         *key)
{
  const HrTraining *tr = &layout->training;

  if (g_str_equal (key, "training.tensor_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->tensor_parallel);
  if (g_str_equal (key, "training.pipeline_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->pipeline_parallel);
  if (g_str_equal (key, "training.pipeline_schedule"))
    return g_strdup (hr_pipeline_schedule_name (tr->pipeline_schedule));
  if (g_str_equal (key, "training.virtual_stages"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->virtual_stages);
  if (g_str_equal (key, "training.context_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->context_parallel);
  if (g_str_equal (key, "training.expert_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->expert_parallel);
  if (g_str_equal (key, "training.zero_stage"))
    return g_strdup_printf ("%d", tr->zero_stage);
  if (g_str_equal (key, "training.fsdp"))
    return g_strdup (hr_fsdp_name (tr->fsdp));
  if (g_str_equal (key, "training.sequence_parallel"))
    return g_strdup (tr->sequence_parallel ? "true" : "false");
  if (g_str_equal (key, "training.micro_batch"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, tr->micro_batch);
  if (g_str_equal (key, "training.recompute"))
    return g_strdup (hr_training_recompute_name (tr->recompute));
  g_return_val_if_reached (NULL);
}

static void
apply_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (widget);
  HeadroomPlanRow *row = selected_row (self);
  g_autoptr(GHashTable) previous = NULL;
  g_autofree char *title = NULL;
  AdwToast *toast;

  if (row == NULL || self->project == NULL)
    return;

  previous = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint i = 0; i < G_N_ELEMENTS (layout_keys); i++)
    {
      g_autofree char *value = layout_value (headroom_plan_row_get_layout (row), layout_keys[i]);
      g_autofree char *old = headroom_project_dup_value_string (self->project, layout_keys[i]);
      g_autoptr(GError) error = NULL;

      if (g_strcmp0 (value, old) == 0)
        continue;
      if (!headroom_project_set_from_string (self->project, layout_keys[i], value, &error))
        {
          /* The planner's values are within the keys' bounds; say so loudly if not. */
          g_critical ("Cannot apply %s = %s: %s", layout_keys[i], value, error->message);
          continue;
        }
      g_hash_table_insert (previous, (gpointer) layout_keys[i], g_steal_pointer (&old));
    }
  if (g_hash_table_size (previous) == 0)
    return;

  g_ptr_array_add (self->undo_stack, g_steal_pointer (&previous));
  update_actions (self);

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
  g_autoptr(GHashTable) previous = NULL;
  GHashTableIter iter;
  gpointer key, value;

  if (self->undo_stack->len == 0 || self->project == NULL)
    return;

  previous = g_ptr_array_steal_index (self->undo_stack, self->undo_stack->len - 1);
  g_hash_table_iter_init (&iter, previous);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autoptr(GError) error = NULL;

      /* The values came from the project itself, so they parse. */
      if (!headroom_project_set_from_string (self->project, key, value, &error))
        g_critical ("Cannot restore %s = %s: %s", (const char *) key, (const char *) value,
                    error->message);
    }
  update_actions (self);
}

static void
headroom_plan_view_map (GtkWidget *widget)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (widget);

  GTK_WIDGET_CLASS (headroom_plan_view_parent_class)->map (widget);

  if (self->dirty)
    plan (self);
}

static void
headroom_plan_view_dispose (GObject *object)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (object);

  g_clear_handle_id (&self->idle_id, g_source_remove);
  if (self->project != NULL)
    g_clear_signal_handler (&self->changed_id, self->project);
  g_clear_object (&self->project);
  g_clear_object (&self->selection);
  g_clear_object (&self->rows);

  /* AdwBin unparents the template's child, and with it every template widget. */
  G_OBJECT_CLASS (headroom_plan_view_parent_class)->dispose (object);
}

static void
headroom_plan_view_finalize (GObject *object)
{
  HeadroomPlanView *self = HEADROOM_PLAN_VIEW (object);

  g_ptr_array_unref (self->undo_stack);
  g_free (self->message);

  G_OBJECT_CLASS (headroom_plan_view_parent_class)->finalize (object);
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
      g_value_set_object (value, self->project);
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
  object_class->finalize = headroom_plan_view_finalize;
  object_class->get_property = headroom_plan_view_get_property;
  object_class->set_property = headroom_plan_view_set_property;

  widget_class->map = headroom_plan_view_map;

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

  self->undo_stack = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  self->rows = g_list_store_new (HEADROOM_TYPE_PLAN_ROW);
  add_columns (self);
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->rows)),
                                    g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);

  self->dirty = TRUE;
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

  return self->project;
}

void
headroom_plan_view_set_project (HeadroomPlanView *self,
                                HeadroomProject  *project)
{
  g_return_if_fail (HEADROOM_IS_PLAN_VIEW (self));
  g_return_if_fail (project == NULL || HEADROOM_IS_PROJECT (project));

  if (self->project == project)
    return;

  if (self->project != NULL)
    g_clear_signal_handler (&self->changed_id, self->project);
  g_set_object (&self->project, project);
  if (project != NULL)
    self->changed_id = g_signal_connect_object (project, "changed",
                                                G_CALLBACK (project_changed_cb), self,
                                                G_CONNECT_SWAPPED);
  /* Undoing into another document would write stale values. */
  g_ptr_array_set_size (self->undo_stack, 0);
  queue_plan (self);
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

void
headroom_plan_view_refresh (HeadroomPlanView *self)
{
  g_return_if_fail (HEADROOM_IS_PLAN_VIEW (self));

  plan (self);
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

  return self->searched;
}

gint64
headroom_plan_view_get_fitting (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), 0);

  return self->fitting;
}

const char *
headroom_plan_view_get_message (HeadroomPlanView *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_VIEW (self), NULL);

  return self->message;
}
