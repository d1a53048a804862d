/* headroom-results-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Estimate view. Every figure comes from the estimator's last valid
 * result; while the project is invalid the view keeps showing it.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-fits-plot.h"
#include "headroom-flops-row.h"
#include "headroom-format.h"
#include "headroom-quantity.h"
#include "headroom-results-view.h"

struct _HeadroomResultsView
{
  AdwBin             parent_instance;

  HeadroomMemoryBar *memory_bar;
  HeadroomMemoryBar *cpu_bar;
  GtkColumnView     *flops_view;
  GtkLabel          *flops_caption;
  GtkLabel          *flops_totals;
  GtkLabel          *time_heading;
  GtkLabel          *time_caption;
  GtkFlowBox        *summary_box;
  GtkFlowBox        *limits_box;
  GtkLabel          *plot_caption;
  HeadroomFitsPlot  *fits_plot;

  GListStore        *flops_store;
  GListStore        *summary_store;
  GListStore        *limits_store;
  guint              sweep_source;

  HeadroomEstimator *estimator;
};

G_DEFINE_FINAL_TYPE (HeadroomResultsView, headroom_results_view, ADW_TYPE_BIN)

/* Chart colours: libadwaita 1.2 palette names, distinct in light and dark. */
static const char *
segment_color (HeadroomQuantity *quantity)
{
  static const struct { const char *name; const char *color; } colors[] = {
    { "weights", "blue_3" },
    { "master_weights", "blue_5" },
    { "frozen_weights", "blue_1" },
    { "adapters", "red_3" },
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
build_flops_view (HeadroomResultsView *self)
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
refresh_memory (HeadroomResultsView *self)
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
refresh_flops (HeadroomResultsView *self)
{
  GListModel *rows = headroom_estimator_get_flops_rows (self->estimator);
  const HrFlops *flops = headroom_estimator_get_flops (self->estimator);
  guint n = g_list_model_get_n_items (rows);
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, g_list_model_get_item (rows, i));
  g_list_store_splice (self->flops_store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->flops_store)),
                       items->pdata, items->len);

  if (training && headroom_project_get_boolean (headroom_estimator_get_project (self->estimator), "training.causal"))
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
      double batch = (double) headroom_project_get_int (headroom_estimator_get_project (self->estimator), "inference.batch");
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
refresh_summary (HeadroomResultsView *self)
{
  GListModel *summary = headroom_estimator_get_summary (self->estimator);
  guint n = g_list_model_get_n_items (summary);
  g_autofree char *caption = NULL;
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;

  gtk_label_set_label (self->time_heading, training ? _("Time and Cost") : _("Latency and Cost"));
  /* The utilisation is an assumption the user sets; every time scales with it. */
  if (headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING)
    caption = g_strdup_printf (_("Assumes every FLOP executed, recomputation included, runs at "
                                 "%.0f %% of peak (Training ▸ Throughput); times scale inversely "
                                 "with it"),
                               100.0 * headroom_project_get_double (headroom_estimator_get_project (self->estimator), "training.mfu"));
  else
    caption = g_strdup_printf (_("Assumes %.0f %% of peak compute and %.0f %% of memory bandwidth "
                                 "(Inference ▸ Serving)"),
                               100.0 * headroom_project_get_double (headroom_estimator_get_project (self->estimator), "inference.compute_efficiency"),
                               100.0 * headroom_project_get_double (headroom_estimator_get_project (self->estimator), "inference.memory_efficiency"));
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
  HeadroomResultsView *self = data;
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;
  const char *key = training ? "training.micro_batch" : "inference.batch";
  g_autoptr(GBytes) bytes = headroom_project_to_bytes (headroom_estimator_get_project (self->estimator));
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
      gint64 seq_len = headroom_project_get_int (headroom_estimator_get_project (self->estimator), "training.seq_len");
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
refresh (HeadroomResultsView *self)
{
  if (!headroom_estimator_get_has_result (self->estimator))
    return;
  refresh_memory (self);
  refresh_flops (self);
  refresh_summary (self);
  if (self->sweep_source == 0 && headroom_estimator_get_error (self->estimator) == NULL)
    self->sweep_source = g_idle_add_full (G_PRIORITY_LOW, sweep, self, NULL);
}

void
headroom_results_view_set_estimator (HeadroomResultsView *self,
                                     HeadroomEstimator   *estimator)
{
  g_return_if_fail (HEADROOM_IS_RESULTS_VIEW (self));
  g_return_if_fail (HEADROOM_IS_ESTIMATOR (estimator));
  g_return_if_fail (self->estimator == NULL);

  self->estimator = g_object_ref (estimator);
  g_signal_connect_object (estimator, "updated", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
  refresh (self);
}

HeadroomMemoryBar *
headroom_results_view_get_memory_bar (HeadroomResultsView *self)
{
  g_return_val_if_fail (HEADROOM_IS_RESULTS_VIEW (self), NULL);

  return self->memory_bar;
}

HeadroomMemoryBar *
headroom_results_view_get_cpu_bar (HeadroomResultsView *self)
{
  g_return_val_if_fail (HEADROOM_IS_RESULTS_VIEW (self), NULL);

  return self->cpu_bar;
}

static void
headroom_results_view_dispose (GObject *object)
{
  HeadroomResultsView *self = HEADROOM_RESULTS_VIEW (object);

  g_clear_handle_id (&self->sweep_source, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), HEADROOM_TYPE_RESULTS_VIEW);
  g_clear_object (&self->flops_store);
  g_clear_object (&self->summary_store);
  g_clear_object (&self->limits_store);
  g_clear_object (&self->estimator);

  G_OBJECT_CLASS (headroom_results_view_parent_class)->dispose (object);
}

static void
headroom_results_view_class_init (HeadroomResultsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_results_view_dispose;

  g_type_ensure (HEADROOM_TYPE_FITS_PLOT);
  g_type_ensure (HEADROOM_TYPE_MEMORY_BAR);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-results-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, memory_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, cpu_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, flops_view);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, flops_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, flops_totals);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, time_heading);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, time_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, summary_box);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, limits_box);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, plot_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, fits_plot);
}

static void
headroom_results_view_init (HeadroomResultsView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->summary_store = g_list_store_new (HEADROOM_TYPE_QUANTITY);
  self->limits_store = g_list_store_new (HEADROOM_TYPE_QUANTITY);
  gtk_flow_box_bind_model (self->summary_box, G_LIST_MODEL (self->summary_store), create_tile, NULL, NULL);
  gtk_flow_box_bind_model (self->limits_box, G_LIST_MODEL (self->limits_store), create_tile, NULL, NULL);
  build_flops_view (self);
}
