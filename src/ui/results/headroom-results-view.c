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

#include "headroom-fit-advice.h"
#include "headroom-fits-plot.h"
#include "headroom-flops-row.h"
#include "headroom-caption-text.h"
#include "headroom-explanation.h"
#include "headroom-format.h"
#include "headroom-quantity.h"
#include "headroom-results-view.h"
#include "headroom-split-bar.h"
#include "headroom-sweeper.h"

struct _HeadroomResultsView
{
  AdwBin             parent_instance;

  GtkWidget         *results;
  HeadroomMemoryBar *memory_bar;
  HeadroomMemoryBar *cpu_bar;
  GtkGrid           *flops_grid;
  GPtrArray         *flops_cells;
  GtkLabel          *flops_caption;
  GtkLabel          *flops_totals;
  GtkLabel          *time_heading;
  GtkLabel          *time_caption;
  HeadroomSplitBar  *step_split;
  GtkLabel          *context_warning;
  GtkFlowBox        *summary_box;
  GtkFlowBox        *limits_box;
  GtkLabel          *plot_caption;
  GtkLabel          *plot_note;
  GtkWidget         *fit_box;
  GtkLabel          *fit_heading;
  GtkListBox        *fit_list;
  guint              fit_source;
  GCancellable      *fit_cancellable;
  HeadroomFitsPlot  *fits_plot;

  GPtrArray         *memory_names;   /* segment names in the order added to the bars */
  GPtrArray         *cpu_names;
  GPtrArray         *summary_tiles;  /* of the boxes in summary_box, in order */
  GPtrArray         *limits_tiles;
  guint              sweep_source;
  GCancellable      *sweep_cancellable;
  gboolean           sweep_stale;   /* the plot is not of the last estimate */
  gboolean           fit_stale;     /* nor is What Fits */
  GdkFrameClock     *paint_clock;   /* while waiting for the next frame to start them */
  gulong             paint_handler;
  double             sweep_x[10];
  double             sweep_memory[10];
  guint              sweep_n;

  HeadroomEstimator *estimator;
};

G_DEFINE_FINAL_TYPE (HeadroomResultsView, headroom_results_view, ADW_TYPE_BIN)

static void on_component_clicked (GtkButton           *cell,
                                  HeadroomResultsView *self);

/* Chart colours: libadwaita 1.2 palette names, distinct in light and dark. */
static const char *
segment_color (HeadroomQuantity *quantity)
{
  static const struct { const char *name; const char *color; } colors[] = {
    { "weights", "blue_3" },
    { "master_weights", "blue_5" },
    { "frozen_weights", "blue_1" },
    { "adapters", "purple_3" },
    { "gradients", "purple_2" },
    { "frozen_gradients", "purple_2" },
    { "grad_accumulation_buffer", "purple_4" },
    { "optimizer", "orange_3" },
    /* Paged-out states keep the optimizer's colour, striped. */
    { "paged_out", "orange_3" },
    { "activations", "green_4" },
    { "kv_cache", "yellow_5" },
    { "temporary", "brown_2" },
    { "overhead", "light_5" },
    /* The offloaded states keep the colours they have on the GPU. */
    { "cpu_weights", "blue_3" },
    { "cpu_master_weights", "blue_5" },
    { "cpu_optimizer", "orange_3" },
    { "cpu_gradients", "purple_4" },
    { "cpu_activations", "green_4" },
  };
  const char *name = headroom_quantity_get_name (quantity);

  for (guint i = 0; i < G_N_ELEMENTS (colors); i++)
    if (g_strcmp0 (name, colors[i].name) == 0)
      return colors[i].color;
  return "dark_1";
}

/* Setting a tooltip asks the display where the pointer is (a round trip
 * to the X server): only on change. */
static void
set_tooltip (GtkWidget  *widget,
             const char *text)
{
  if (g_strcmp0 (gtk_widget_get_tooltip_text (widget), text) != 0)
    gtk_widget_set_tooltip_text (widget, text);
}

static const struct { const char *title; const char *tooltip; } flops_columns[] = {
  { N_("Component"), NULL },
  { N_("Forward"), N_("2·m·n·k per matrix product; causal attention halves QKᵀ and ·V") },
  { N_("Backward"), N_("Twice the forward: gradients of the inputs and of the weights") },
  { N_("Recompute"), N_("Forward work run again: attention kernels and activation recomputation") },
  { N_("Total"), N_("Forward + backward + recompute") },
  { N_("Share"), N_("Share of the step's total") },
};

typedef enum
{
  COLUMN_COMPONENT,
  COLUMN_FORWARD,
  COLUMN_BACKWARD,
  COLUMN_RECOMPUTE,
  COLUMN_TOTAL,
  COLUMN_SHARE,
  N_COLUMNS
} Column;

static char *
cell_text (HeadroomFlopsRow *row,
           Column            column)
{
  switch (column)
    {
    case COLUMN_COMPONENT:
      return g_strdup (headroom_flops_row_get_label (row));
    case COLUMN_FORWARD:
      return headroom_format_flops (headroom_flops_row_get_forward (row));
    case COLUMN_BACKWARD:
      return headroom_format_flops (headroom_flops_row_get_backward (row));
    case COLUMN_RECOMPUTE:
      return headroom_format_flops (headroom_flops_row_get_recompute (row));
    case COLUMN_TOTAL:
      return headroom_format_flops (headroom_flops_row_get_total (row));
    case COLUMN_SHARE:
      /* A share that rounds to 0.0 % is not none (Mixtral's router, 0.007 %). */
      if (headroom_flops_row_get_share (row) > 0 && headroom_flops_row_get_share (row) < 0.0005)
        return g_strdup (_("< 0.1 %"));
      return g_strdup_printf ("%.1f %%", 100.0 * headroom_flops_row_get_share (row));
    case N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

static GtkWidget *
cell_new (Column column)
{
  GtkWidget *label = gtk_label_new (NULL);

  if (column == COLUMN_COMPONENT)
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_NONE);

  gtk_label_set_xalign (GTK_LABEL (label), column == COLUMN_COMPONENT ? 0 : 1);
  if (column != COLUMN_COMPONENT)
    gtk_widget_add_css_class (label, "numeric");
  else
    gtk_widget_set_hexpand (label, TRUE);
  return label;
}

/* A grid of labels made once and updated in place: an edit re-lays out
 * the figures that changed, and every column takes its natural width. */
static void
fill_flops_grid (HeadroomResultsView *self,
                 gboolean             training)
{
  GListModel *rows = headroom_estimator_get_flops_rows (self->estimator);
  guint n = g_list_model_get_n_items (rows);

  while (self->flops_cells->len < n * N_COLUMNS)
    {
      guint r = self->flops_cells->len / N_COLUMNS + 1;

      for (Column c = 0; c < N_COLUMNS; c++)
        {
          GtkWidget *cell = cell_new (c);
          GtkWidget *child = cell;

          /* The component's name opens the row's derivation. */
          if (c == COLUMN_COMPONENT)
            {
              child = gtk_button_new ();
              gtk_button_set_child (GTK_BUTTON (child), cell);
              gtk_widget_add_css_class (child, "flat");
              gtk_widget_add_css_class (child, "headroom-table-link");
              g_signal_connect_object (child, "clicked", G_CALLBACK (on_component_clicked), self, 0);
            }
          gtk_grid_attach (self->flops_grid, child, c, r, 1, 1);
          g_ptr_array_add (self->flops_cells, cell);
        }
    }
  for (guint i = 0; i < self->flops_cells->len; i++)
    {
      GtkWidget *cell = self->flops_cells->pdata[i];
      Column c = i % N_COLUMNS;
      guint r = i / N_COLUMNS;
      gboolean shown = r < n && (training || (c != COLUMN_BACKWARD && c != COLUMN_RECOMPUTE));

      gtk_widget_set_visible (c == COLUMN_COMPONENT ? gtk_widget_get_parent (cell) : cell, shown);
      if (r < n)
        {
          g_autoptr(HeadroomFlopsRow) row = g_list_model_get_item (rows, r);
          g_autofree char *text = cell_text (row, c);

          if (c == COLUMN_COMPONENT)
            g_object_set_data_full (G_OBJECT (gtk_widget_get_parent (cell)), "name",
                                    g_strdup (headroom_flops_row_get_name (row)), g_free);
          gtk_label_set_label (GTK_LABEL (cell), text);
          if (g_strcmp0 (headroom_flops_row_get_name (row), "total") == 0)
            gtk_widget_add_css_class (cell, "heading");
          else
            gtk_widget_remove_css_class (cell, "heading");
        }
    }
  for (Column c = COLUMN_BACKWARD; c <= COLUMN_RECOMPUTE; c++)
    gtk_widget_set_visible (gtk_grid_get_child_at (self->flops_grid, c, 0), training);
}

static void
build_flops_view (HeadroomResultsView *self)
{
  for (Column c = 0; c < N_COLUMNS; c++)
    {
      GtkWidget *header = cell_new (c);

      gtk_label_set_label (GTK_LABEL (header), _(flops_columns[c].title));
      gtk_widget_add_css_class (header, "dim-label");
      gtk_widget_add_css_class (header, "caption-heading");
      if (flops_columns[c].tooltip != NULL)
        gtk_widget_set_tooltip_text (header, _(flops_columns[c].tooltip));
      gtk_grid_attach (self->flops_grid, header, c, 0, 1, 1);
    }
  self->flops_cells = g_ptr_array_new ();
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

/* "Show why": the figure's derivation from the service, in a popover on
 * the figure. */
static void
show_explanation (HeadroomResultsView *self,
                  GtkWidget           *anchor,
                  const char          *id)
{
  g_autofree char *text = headroom_estimator_dup_explanation (self->estimator, id);

  if (text == NULL && headroom_estimator_get_error (self->estimator) != NULL)
    headroom_explanation_popup (anchor, _("This figure is of the last valid settings: its "
                                          "derivation shows again once the setting in error "
                                          "is changed."));
  else if (text != NULL)
    headroom_explanation_popup (anchor, text);
}

static void
on_segment_activated (HeadroomResultsView *self,
                      guint                index,
                      GtkWidget           *entry,
                      HeadroomMemoryBar   *bar)
{
  GPtrArray *names = bar == self->cpu_bar ? self->cpu_names : self->memory_names;
  g_autofree char *id = NULL;

  if (index >= names->len)
    return;
  id = g_strconcat ("memory.", (const char *) names->pdata[index], NULL);
  show_explanation (self, entry, id);
}

static void
on_tile_clicked (GtkButton           *tile,
                 HeadroomResultsView *self)
{
  g_autofree char *id = g_strconcat ("summary.", (const char *) g_object_get_data (G_OBJECT (tile), "name"),
                                     NULL);

  show_explanation (self, GTK_WIDGET (tile), id);
}

static void
on_component_clicked (GtkButton           *cell,
                      HeadroomResultsView *self)
{
  g_autofree char *id = g_strconcat ("flops.", (const char *) g_object_get_data (G_OBJECT (cell), "name"),
                                     NULL);

  show_explanation (self, GTK_WIDGET (cell), id);
}

/* A figure and its caption on a card. */
static GtkWidget *
tile_new (HeadroomResultsView *self)
{
  GtkWidget *button = gtk_button_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *number = gtk_label_new (NULL);
  GtkWidget *caption = gtk_label_new (NULL);

  /* An activatable card: it opens the figure's derivation. */
  gtk_button_set_child (GTK_BUTTON (button), box);
  gtk_widget_add_css_class (button, "card");
  gtk_widget_add_css_class (button, "headroom-tile");
  g_signal_connect_object (button, "clicked", G_CALLBACK (on_tile_clicked), self, 0);
  gtk_widget_add_css_class (number, "title-3");
  gtk_widget_add_css_class (number, "numeric");
  gtk_label_set_xalign (GTK_LABEL (number), 0);
  gtk_label_set_xalign (GTK_LABEL (caption), 0);
  gtk_label_set_wrap (GTK_LABEL (caption), TRUE);
  /* A long caption ("Cost: needs Training tokens") wraps in its tile rather
   * than widen every tile to one column. */
  gtk_label_set_max_width_chars (GTK_LABEL (caption), 24);
  gtk_widget_add_css_class (caption, "dim-label");
  gtk_box_append (GTK_BOX (box), number);
  gtk_box_append (GTK_BOX (box), caption);
  g_object_set_data (G_OBJECT (button), "number", number);
  g_object_set_data (G_OBJECT (button), "caption", caption);
  return button;
}

/* Labels set to the text they have do nothing: an edit re-lays out the
 * figures that changed only. */
static void
tile_update (GtkWidget        *tile,
             HeadroomQuantity *quantity)
{
  g_autofree char *value = headroom_format_quantity (headroom_quantity_get_value (quantity),
                                            headroom_quantity_get_unit (quantity));
  GtkLabel *number = g_object_get_data (G_OBJECT (tile), "number");

  const char *needs = headroom_quantity_get_needs (quantity);

  /* A figure that needs a setting says which, never 0. */
  if (needs != NULL)
    {
      /* TRANSLATORS: a tile's caption, e.g. "Cost: needs Training tokens" */
      g_autofree char *caption = g_strdup_printf (_("%s: needs %s"),
                                                  headroom_quantity_get_label (quantity), needs);

      gtk_label_set_label (number, "—");
      gtk_label_set_label (g_object_get_data (G_OBJECT (tile), "caption"), caption);
    }
  else
    {
      /* A limit of 0: not even the smallest setting fits. */
      if (is_limit (quantity) && headroom_quantity_get_value (quantity) == 0)
        gtk_label_set_label (number, _("None"));
      else
        gtk_label_set_label (number, value);
      gtk_label_set_label (g_object_get_data (G_OBJECT (tile), "caption"),
                           headroom_quantity_get_label (quantity));
    }
  set_tooltip (tile, headroom_quantity_get_formula (quantity));
  g_object_set_data_full (G_OBJECT (tile), "name", g_strdup (headroom_quantity_get_name (quantity)),
                          g_free);
}

/* Updates the tiles in place while the same quantities come back. */
static void
fill_tiles (HeadroomResultsView *self,
            GtkFlowBox          *box,
            GPtrArray           *tiles,
            GPtrArray           *quantities)
{
  gboolean same = tiles->len == quantities->len;

  for (guint i = 0; same && i < tiles->len; i++)
    same = g_strcmp0 (g_object_get_data (tiles->pdata[i], "name"),
                      headroom_quantity_get_name (quantities->pdata[i])) == 0;
  if (!same)
    {
      for (guint i = 0; i < tiles->len; i++)
        gtk_flow_box_remove (box, gtk_widget_get_parent (tiles->pdata[i]));
      g_ptr_array_set_size (tiles, 0);
      for (guint i = 0; i < quantities->len; i++)
        {
          GtkWidget *tile = tile_new (self);

          gtk_flow_box_append (box, tile);
          g_ptr_array_add (tiles, tile);
        }
    }
  for (guint i = 0; i < tiles->len; i++)
    {
      HeadroomQuantity *quantity = quantities->pdata[i];
      const char *name = headroom_quantity_get_name (quantity);
      gint64 context = headroom_project_get_int (headroom_estimator_get_project (self->estimator),
                                                 "model.max_position_embeddings");

      tile_update (tiles->pdata[i], quantity);
      /* A longest sequence past the model's context says so (issue 16). */
      if ((g_strcmp0 (name, "max_seq_len") == 0 || g_strcmp0 (name, "max_context") == 0)
          && context > 0 && headroom_quantity_get_value (quantity) > (double) context)
        {
          g_autofree char *c = headroom_format_integer ((double) context);
          /* TRANSLATORS: a tile's caption, e.g. "Longest sequence that fits, beyond the
           * model’s context of 8,192" */
          g_autofree char *caption = g_strdup_printf (_("%s, beyond the model’s context of %s"),
                                                      headroom_quantity_get_label (quantity), c);

          gtk_label_set_label (g_object_get_data (G_OBJECT (tiles->pdata[i]), "caption"), caption);
        }
    }
}

static void
refresh_memory (HeadroomResultsView *self)
{
  GListModel *segments = headroom_estimator_get_memory_segments (self->estimator);
  guint n = g_list_model_get_n_items (segments);
  gboolean offloaded = FALSE;

  /* One update of each bar, its legend entries kept. */
  headroom_memory_bar_freeze (self->memory_bar);
  headroom_memory_bar_freeze (self->cpu_bar);
  headroom_memory_bar_clear (self->memory_bar);
  headroom_memory_bar_clear (self->cpu_bar);
  g_ptr_array_set_size (self->memory_names, 0);
  g_ptr_array_set_size (self->cpu_names, 0);
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
          g_ptr_array_add (self->cpu_names, g_strdup (name));
          headroom_memory_bar_add_segment (self->cpu_bar, headroom_quantity_get_label (segment),
                                           segment_color (segment),
                                           headroom_quantity_get_value (segment),
                                           headroom_quantity_get_formula (segment));
          continue;
        }
      g_ptr_array_add (self->memory_names, g_strdup (name));
      if (g_strcmp0 (role, "paged") == 0)
        headroom_memory_bar_add_paged_segment (self->memory_bar, headroom_quantity_get_label (segment),
                                               segment_color (segment),
                                               headroom_quantity_get_value (segment),
                                               headroom_quantity_get_formula (segment));
      else
        headroom_memory_bar_add_segment (self->memory_bar, headroom_quantity_get_label (segment),
                                         segment_color (segment),
                                         headroom_quantity_get_value (segment),
                                         headroom_quantity_get_formula (segment));
    }
  headroom_memory_bar_set_capacity (self->memory_bar,
                                    headroom_estimator_get_memory_capacity (self->estimator));
  headroom_memory_bar_thaw (self->memory_bar);
  headroom_memory_bar_thaw (self->cpu_bar);
  gtk_widget_set_visible (GTK_WIDGET (self->cpu_bar), offloaded);
}

static void
refresh_flops (HeadroomResultsView *self)
{
  const HrFlops *flops = headroom_estimator_get_flops (self->estimator);
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;

  if (training && headroom_project_get_boolean (headroom_estimator_get_project (self->estimator), "training.causal"))
    gtk_label_set_label (self->flops_caption,
                         _("One micro-batch, forward and backward, on the whole model (all GPUs together); "
                           "causal attention: QKᵀ and ·V counted as half the s×s product"));
  else if (training)
    gtk_label_set_label (self->flops_caption,
                         _("One micro-batch, forward and backward, on the whole model (all GPUs together); "
                           "attention counted as the full s×s product"));
  else
    gtk_label_set_label (self->flops_caption, _("The prefill of one batch (forward only)"));

  /* Training only: the backward pass and recomputation are zero in a prefill. */
  fill_flops_grid (self, training);

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
      set_tooltip (GTK_WIDGET (self->flops_totals),
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
      text = g_strdup_printf (_("Hardware FLOPs: %s per micro-batch, %s per token · Model FLOPs: %s per micro-batch · "
                                "Rules of thumb: 6N = %s per token, PaLM 6N + 12·L·H·Q·T = %s per token"),
                              total, per_token, model, six_n, palm);
      gtk_label_set_label (self->flops_totals, text);
      set_tooltip (GTK_WIDGET (self->flops_totals),
                   _("Hardware FLOPs include recomputation; model FLOPs do not "
                     "(PaLM, Chowdhery et al. 2022, App. B)"));
    }
}

/* A sequence longer than the model's context: the estimate still runs (the
 * memory is what it would take), but the model was not trained for it. */
static void
refresh_context_warning (HeadroomResultsView *self)
{
  HeadroomProject *project = headroom_estimator_get_project (self->estimator);
  gint64 context = headroom_project_get_int (project, "model.max_position_embeddings");
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;
  gint64 tokens = training ? headroom_project_get_int (project, "training.seq_len")
                           : headroom_project_get_int (project, "inference.prompt")
                             + headroom_project_get_int (project, "inference.generate");
  g_autofree char *text = NULL;

  if (context > 0 && tokens > context)
    {
      g_autofree char *n = headroom_format_integer ((double) tokens);
      g_autofree char *c = headroom_format_integer ((double) context);

      text = training
        /* TRANSLATORS: %s are token counts */
        ? g_strdup_printf (_("Sequences of %s tokens are longer than the model’s context of %s "
                             "tokens (Context length): it was not trained for them, and the "
                             "limits below may exceed it."), n, c)
        : g_strdup_printf (_("Prompt and generated tokens (%s) are more than the model’s context "
                             "of %s tokens (Context length): it was not trained for them."), n, c);
    }
  gtk_label_set_label (self->context_warning, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->context_warning), text != NULL);
}

static void
refresh_summary (HeadroomResultsView *self)
{
  GListModel *summary = headroom_estimator_get_summary (self->estimator);
  guint n = g_list_model_get_n_items (summary);
  g_autofree char *caption = NULL;
  g_autoptr(GPtrArray) figures = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) limits = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;

  gtk_label_set_label (self->time_heading, training ? _("Time and Cost") : _("Latency and Cost"));
  /* Where the step time, MFU, time and cost come from, whichever it is; a
   * measured utilisation overrides the prediction and says so (issue 13). */
  if (training)
    {
      g_autofree char *basis = headroom_estimator_dup_time_basis (self->estimator);

      if (headroom_estimator_get_needs_utilization (self->estimator))
        /* TRANSLATORS: %s is "Not predicted: the step model does not time …", then the
         * setting's label, "Measured FLOPs utilisation" */
        caption = g_strdup_printf (_("%s. Set %s (Training ▸ Throughput) to get the times; the "
                                     "memory does not depend on it."),
                                   basis, headroom_project_get_key_label ("training.mfu"));
      else if (headroom_estimator_get_mfu_override (self->estimator))
        /* TRANSLATORS: %s is "From the utilisation set (40 %)" */
        caption = g_strdup_printf (_("%s, which overrides the prediction from the hardware "
                                     "(Training ▸ Throughput); times scale inversely with it"),
                                   basis);
      else
        /* TRANSLATORS: %s is "Predicted from the hardware: published runs of … reached …" */
        caption = g_strdup_printf (_("%s. The Plan view predicts the same."), basis);
    }
  else
    caption = g_strdup_printf (_("Assumes the GPU’s measured rates, else %.0f %% of peak compute "
                                 "and %.0f %% of memory bandwidth (Inference ▸ Serving)"),
                               100.0 * headroom_project_get_double (headroom_estimator_get_project (self->estimator), "inference.compute_efficiency"),
                               100.0 * headroom_project_get_double (headroom_estimator_get_project (self->estimator), "inference.memory_efficiency"));
  /* Figures of a run that cannot start are marked as such, with the reason. */
  if (!headroom_estimator_get_fits (self->estimator))
    {
      g_autofree char *needed = headroom_format_gib (headroom_estimator_get_memory_on_gpu (self->estimator));
      g_autofree char *capacity = headroom_format_gib (headroom_estimator_get_memory_capacity (self->estimator));
      g_autofree char *marked = NULL;

      /* TRANSLATORS: e.g. "Does not fit (92.1 GiB needed per GPU, 80.0 GiB available): these
       * are the figures of a run that cannot start. Assumes…" */
      marked = g_strdup_printf (_("Does not fit (%s needed per GPU, %s available): these are the "
                                  "figures of a run that cannot start. %s"),
                                needed, capacity, caption);
      g_free (caption);
      caption = g_steal_pointer (&marked);
      gtk_widget_add_css_class (GTK_WIDGET (self->time_caption), "warning");
      gtk_widget_add_css_class (GTK_WIDGET (self->summary_box), "headroom-not-fit");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->time_caption), "warning");
      gtk_widget_remove_css_class (GTK_WIDGET (self->summary_box), "headroom-not-fit");
    }
  if (headroom_estimator_get_mfu_override (self->estimator))
    gtk_widget_add_css_class (GTK_WIDGET (self->time_caption), "accent");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->time_caption), "accent");
  {
    g_autofree char *shown = headroom_caption_join_hyphens (caption);

    gtk_label_set_label (self->time_caption, shown);
  }
  refresh_context_warning (self);
  /* The predicted step's parts, as the Plan view shows a layout's. */
  {
    HeadroomPlanRow *step = training ? headroom_estimator_get_step_row (self->estimator) : NULL;

    headroom_split_bar_set_row (self->step_split, step);
    gtk_widget_set_visible (GTK_WIDGET (self->step_split), step != NULL);
  }

  for (guint i = 0; i < n; i++)
    {
      HeadroomQuantity *quantity = g_list_model_get_item (summary, i);

      g_ptr_array_add (is_limit (quantity) ? limits : figures, quantity);
    }
  fill_tiles (self, self->summary_box, self->summary_tiles, figures);
  fill_tiles (self, self->limits_box, self->limits_tiles, limits);
}

static void
sweep_finish (HeadroomResultsView *self,
              const char          *left_out)
{
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;
  g_autofree char *caption = NULL;

  if (training)
    {
      gint64 seq_len = headroom_project_get_int (headroom_estimator_get_project (self->estimator),
                                                 "training.seq_len");
      g_autofree char *tokens = headroom_format_integer ((double) seq_len);

      /* TRANSLATORS: caption of the plot; %s is a token count */
      caption = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                              "Memory per GPU against micro-batch, at sequences of %s token",
                                              "Memory per GPU against micro-batch, at sequences of %s tokens",
                                              (gulong) seq_len),
                                 tokens);
      headroom_fits_plot_set_points (self->fits_plot, _("Micro-batch"), self->sweep_x,
                                     self->sweep_memory, self->sweep_n);
    }
  else
    {
      caption = g_strdup (_("Memory per GPU against batch, at the prompt and generated lengths set"));
      headroom_fits_plot_set_points (self->fits_plot, _("Batch"), self->sweep_x,
                                     self->sweep_memory, self->sweep_n);
    }
  headroom_fits_plot_set_capacity (self->fits_plot,
                                   headroom_estimator_get_memory_capacity (self->estimator));
  gtk_label_set_label (self->plot_caption, caption);
  gtk_label_set_label (self->plot_note, left_out);
  gtk_widget_set_visible (GTK_WIDGET (self->plot_note), left_out != NULL);
}

/* Whether `b` is refused for the same reason as `a`: by the same setting
 * (the sweep point's key), else with the same message. */
static gboolean
same_refusal (const HeadroomSweepPoint *a,
              const HeadroomSweepPoint *b)
{
  return b->error != NULL
         && (a->error_key != NULL ? g_strcmp0 (a->error_key, b->error_key) == 0
                                  : b->error_key == NULL && g_str_equal (a->error, b->error));
}

/* "Not shown: 1 (REASON); 4, 8 (REASON)": the values the project refuses,
 * grouped by same_refusal(), each group with its first value's message.
 * NULL when none is refused. */
static char *
describe_left_out (HeadroomSweeper *sweeper,
                   guint            n_considered)
{
  g_autoptr(GString) text = NULL;

  for (guint i = 0; i < n_considered; i++)
    {
      const HeadroomSweepPoint *point = headroom_sweeper_get_point (sweeper, i);
      gboolean listed = FALSE;

      if (point->error == NULL)
        continue;
      /* Its group was listed with the first value of it. */
      for (guint j = 0; j < i && !listed; j++)
        listed = same_refusal (point, headroom_sweeper_get_point (sweeper, j));
      if (listed)
        continue;

      if (text == NULL)
        /* TRANSLATORS: starts the list of the plot's values that the project refuses */
        text = g_string_new (_("Not shown: "));
      else
        g_string_append (text, "; ");
      for (guint j = i; j < n_considered; j++)
        {
          const HeadroomSweepPoint *other = headroom_sweeper_get_point (sweeper, j);
          g_autofree char *number = NULL;

          if (!same_refusal (point, other))
            continue;
          number = headroom_format_integer ((double) other->value);
          if (j > i)
            g_string_append (text, ", ");
          g_string_append (text, number);
        }
      g_string_append_printf (text, " (%s)", point->error);
    }
  return text != NULL ? g_string_free (g_steal_pointer (&text), FALSE) : NULL;
}

/* The service's sweep (HeadroomSweeper) finished in its worker thread:
 * memory against micro-batch (training) or batch (inference). Values the
 * project refuses (a micro-batch that does not divide the global batch)
 * are left out of the plot; past twice the capacity the curve only
 * squashes the interesting part. */
static void
sweep_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(HeadroomResultsView) self = user_data;
  HeadroomSweeper *sweeper = HEADROOM_SWEEPER (source);
  g_autoptr(GError) error = NULL;
  g_autofree char *left_out = NULL;
  guint i;

  if (!headroom_sweeper_compute_finish (sweeper, result, &error) || self->estimator == NULL)
    return;
  self->sweep_n = 0;
  for (i = 0; i < headroom_sweeper_get_n_points (sweeper)
              && self->sweep_n < G_N_ELEMENTS (self->sweep_x); i++)
    {
      const HeadroomSweepPoint *point = headroom_sweeper_get_point (sweeper, i);

      if (point->error != NULL)
        continue;
      self->sweep_x[self->sweep_n] = (double) point->value;
      self->sweep_memory[self->sweep_n] = point->memory;
      self->sweep_n++;
      if (point->memory > 2 * point->capacity)
        {
          i++;
          break;
        }
    }
  left_out = describe_left_out (sweeper, i);
  sweep_finish (self, left_out);
}

/* Starts the sweep once a burst of changes is over, off the main thread. */
static gboolean
sweep_start (gpointer data)
{
  HeadroomResultsView *self = data;
  g_autoptr(HeadroomSweeper) sweeper = NULL;
  gint64 values[G_N_ELEMENTS (self->sweep_x)];

  self->sweep_source = 0;
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = G_GINT64_CONSTANT (1) << i;
  sweeper = headroom_sweeper_new (headroom_estimator_get_project (self->estimator),
                                  HEADROOM_SWEEP_MICRO_BATCH, values, G_N_ELEMENTS (values));
  g_clear_object (&self->sweep_cancellable);
  self->sweep_cancellable = g_cancellable_new ();
  headroom_sweeper_compute_async (sweeper, self->sweep_cancellable, sweep_done_cb,
                                  g_object_ref (self));
  return G_SOURCE_REMOVE;
}

static gboolean fit_advice_start (gpointer data);

static void
unwatch_paint (HeadroomResultsView *self)
{
  if (self->paint_clock == NULL)
    return;
  g_clear_signal_handler (&self->paint_handler, self->paint_clock);
  g_clear_object (&self->paint_clock);
}

static void
after_paint (GdkFrameClock       *clock,
             HeadroomResultsView *self)
{
  unwatch_paint (self);
  if (self->sweep_stale && self->sweep_source == 0)
    self->sweep_source = g_idle_add_full (G_PRIORITY_LOW, sweep_start, self, NULL);
  if (self->fit_stale && self->fit_source == 0)
    self->fit_source = g_idle_add_full (G_PRIORITY_LOW, fit_advice_start, self, NULL);
  self->sweep_stale = self->fit_stale = FALSE;
}

/* The sweep and the search for what fits (worker threads) start once the
 * new figures are painted, so that they take nothing from that frame, and
 * only while the view is shown: a hidden view catches up when shown. */
static void
schedule_after_paint (HeadroomResultsView *self)
{
  if (!(self->sweep_stale || self->fit_stale) || !gtk_widget_get_mapped (GTK_WIDGET (self))
      || self->paint_clock != NULL)
    return;
  self->paint_clock = g_object_ref (gtk_widget_get_frame_clock (GTK_WIDGET (self)));
  self->paint_handler = g_signal_connect (self->paint_clock, "after-paint",
                                          G_CALLBACK (after_paint), self);
  gdk_frame_clock_request_phase (self->paint_clock, GDK_FRAME_CLOCK_PHASE_AFTER_PAINT);
}

static void
sweep_restart (HeadroomResultsView *self)
{
  g_cancellable_cancel (self->sweep_cancellable);
  self->sweep_stale = TRUE;
  schedule_after_paint (self);
}

static void
on_apply_advice (GtkButton           *button,
                 HeadroomResultsView *self)
{
  HeadroomFitAdvice *advice = g_object_get_data (G_OBJECT (button), "advice");

  headroom_fit_advice_apply (advice, headroom_estimator_get_project (self->estimator), NULL);
}

static GtkWidget *
advice_row_new (HeadroomResultsView *self)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *apply = gtk_button_new_with_label (_("Apply"));

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_widget_set_valign (apply, GTK_ALIGN_CENTER);
  g_signal_connect_object (apply, "clicked", G_CALLBACK (on_apply_advice), self, 0);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), apply);
  g_object_set_data (G_OBJECT (row), "apply", apply);
  return row;
}

/* What would make it fit: searched by the service in a worker thread. The
 * rows are kept and retitled, as an edit changes their figures only. A
 * search that a newer one replaced was cancelled and ends here unseen. */
static void
fit_advice_done_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(HeadroomResultsView) self = user_data;
  g_autoptr(GListModel) advice = headroom_fit_advice_search_finish (result, NULL);
  GtkListBoxRow *extra;
  guint n;

  if (advice == NULL || self->estimator == NULL)
    return;
  n = g_list_model_get_n_items (advice);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomFitAdvice) item = g_list_model_get_item (advice, i);
      GtkWidget *row = GTK_WIDGET (gtk_list_box_get_row_at_index (self->fit_list, (int) i));

      if (row == NULL)
        {
          row = advice_row_new (self);
          gtk_list_box_append (self->fit_list, row);
        }
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), headroom_fit_advice_get_text (item));
      g_object_set_data_full (g_object_get_data (G_OBJECT (row), "apply"), "advice",
                              g_object_ref (item), g_object_unref);
    }
  while ((extra = gtk_list_box_get_row_at_index (self->fit_list, (int) n)) != NULL)
    gtk_list_box_remove (self->fit_list, GTK_WIDGET (extra));
  /* No single change is enough: say so, and point at the search that
   * combines them, rather than leave the run without a way forward. */
  if (n > 0)
    gtk_label_set_label (self->fit_heading, _("Any one of these changes makes the run fit:"));
  else
    {
      /* TRANSLATORS: %s lists the changes tried: "a smaller micro-batch, recomputation, …" */
      g_autofree char *none = g_strdup_printf (_("No single change makes the run fit: not %s "
                                                 "alone. The Plan view searches them together."),
                                               headroom_fit_advice_get_remedies ());

      gtk_label_set_label (self->fit_heading, none);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->fit_list), n > 0);
  gtk_widget_set_visible (self->fit_box, TRUE);
}

static gboolean
fit_advice_start (gpointer data)
{
  HeadroomResultsView *self = data;

  self->fit_source = 0;
  g_cancellable_cancel (self->fit_cancellable);
  g_clear_object (&self->fit_cancellable);
  self->fit_cancellable = g_cancellable_new ();
  headroom_fit_advice_search_async (headroom_estimator_get_project (self->estimator),
                                    self->fit_cancellable, fit_advice_done_cb, g_object_ref (self));
  return G_SOURCE_REMOVE;
}

static void
refresh_fit_advice (HeadroomResultsView *self)
{
  gboolean training = headroom_estimator_get_workload (self->estimator) == HEADROOM_WORKLOAD_TRAINING;

  /* A search under way is of the project before this change. */
  g_cancellable_cancel (self->fit_cancellable);
  if (headroom_estimator_get_fits (self->estimator) || !training
      || headroom_estimator_get_error (self->estimator) != NULL)
    {
      g_clear_handle_id (&self->fit_source, g_source_remove);
      self->fit_stale = FALSE;
      gtk_widget_set_visible (self->fit_box, FALSE);
      return;
    }
  self->fit_stale = TRUE;
  schedule_after_paint (self);
}

static void
refresh (HeadroomResultsView *self)
{
  /* A project opened with settings that do not go together has no valid
   * estimate yet: no figure of another project stays in view. */
  gtk_widget_set_visible (self->results, headroom_estimator_get_has_result (self->estimator));
  if (!headroom_estimator_get_has_result (self->estimator))
    return;
  refresh_memory (self);
  refresh_flops (self);
  refresh_summary (self);
  refresh_fit_advice (self);
  if (headroom_estimator_get_error (self->estimator) == NULL)
    sweep_restart (self);
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

const char *
headroom_results_view_get_time_caption (HeadroomResultsView *self)
{
  g_return_val_if_fail (HEADROOM_IS_RESULTS_VIEW (self), NULL);

  return gtk_label_get_label (self->time_caption);
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
headroom_results_view_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (headroom_results_view_parent_class)->map (widget);
  schedule_after_paint (HEADROOM_RESULTS_VIEW (widget));
}

static void
headroom_results_view_unmap (GtkWidget *widget)
{
  /* What waited for a frame waits for the view to be shown again. */
  unwatch_paint (HEADROOM_RESULTS_VIEW (widget));
  GTK_WIDGET_CLASS (headroom_results_view_parent_class)->unmap (widget);
}

static void
headroom_results_view_dispose (GObject *object)
{
  HeadroomResultsView *self = HEADROOM_RESULTS_VIEW (object);

  unwatch_paint (self);
  g_clear_handle_id (&self->sweep_source, g_source_remove);
  g_clear_handle_id (&self->fit_source, g_source_remove);
  g_cancellable_cancel (self->sweep_cancellable);
  g_clear_object (&self->sweep_cancellable);
  g_cancellable_cancel (self->fit_cancellable);
  g_clear_object (&self->fit_cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), HEADROOM_TYPE_RESULTS_VIEW);
  g_clear_pointer (&self->summary_tiles, g_ptr_array_unref);
  g_clear_pointer (&self->flops_cells, g_ptr_array_unref);
  g_clear_pointer (&self->memory_names, g_ptr_array_unref);
  g_clear_pointer (&self->cpu_names, g_ptr_array_unref);
  g_clear_pointer (&self->limits_tiles, g_ptr_array_unref);
  g_clear_object (&self->estimator);

  G_OBJECT_CLASS (headroom_results_view_parent_class)->dispose (object);
}

static void
headroom_results_view_class_init (HeadroomResultsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_results_view_dispose;
  widget_class->map = headroom_results_view_map;
  widget_class->unmap = headroom_results_view_unmap;

  g_type_ensure (HEADROOM_TYPE_FITS_PLOT);
  g_type_ensure (HEADROOM_TYPE_MEMORY_BAR);
  g_type_ensure (HEADROOM_TYPE_SPLIT_BAR);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-results-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, results);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, memory_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, cpu_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, flops_grid);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, flops_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, flops_totals);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, time_heading);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, time_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, step_split);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, context_warning);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, summary_box);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, limits_box);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, plot_caption);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, plot_note);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, fit_box);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, fit_heading);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, fit_list);
  gtk_widget_class_bind_template_child (widget_class, HeadroomResultsView, fits_plot);
}

static void
headroom_results_view_init (HeadroomResultsView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->summary_tiles = g_ptr_array_new ();
  self->memory_names = g_ptr_array_new_with_free_func (g_free);
  self->cpu_names = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect_object (self->memory_bar, "segment-activated", G_CALLBACK (on_segment_activated),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->cpu_bar, "segment-activated", G_CALLBACK (on_segment_activated),
                           self, G_CONNECT_SWAPPED);
  self->limits_tiles = g_ptr_array_new ();
  build_flops_view (self);
}
