/* headroom-split-bar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Children, top to bottom: a summary label, a placeholder whose area the bar
 * is drawn into (with GtkSnapshot), and a legend. The colours are the named
 * colours headroom_split_* of style.css, looked up again whenever the style
 * changes.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-bar-text.h"
#include "headroom-explanation.h"
#include "headroom-format.h"
#include "headroom-split-bar.h"

#define BAR_HEIGHT 30.0

typedef struct
{
  const char *color;    /* named colour defined in style.css */
  const char *tooltip;
  HeadroomPlanPart part;
} Part;

/* In the order the bar draws them, the order of HeadroomPlanPart. */
static const Part parts[] = {
  { "headroom_split_compute",
    N_("Matrix products of the forward and backward passes, at the fraction of peak their shapes reach"),
    HEADROOM_PLAN_PART_COMPUTE },
  { "headroom_split_memory_bound",
    N_("Norms, activation functions, softmax and residual adds, at memory bandwidth"),
    HEADROOM_PLAN_PART_MEMORY_BOUND },
  { "headroom_split_recompute",
    N_("Forward work repeated in the backward pass to save activation memory: what the "
       "recomputation mode repeats, and the attention scores flash attention recomputes"),
    HEADROOM_PLAN_PART_RECOMPUTE },
  { "headroom_split_communication",
    N_("Communication left on the critical path after overlapping it with compute"),
    HEADROOM_PLAN_PART_COMMUNICATION },
  { "headroom_split_bubble",
    N_("Pipeline fill and drain, while some stages wait for work"),
    HEADROOM_PLAN_PART_BUBBLE },
  { "headroom_split_optimizer",
    N_("Optimizer update of the GPU's share of the parameters, at memory bandwidth"),
    HEADROOM_PLAN_PART_OPTIMIZER },
  { "headroom_split_host_transfer",
    N_("Paged-out optimizer states and offloaded activations crossing the link to host memory"),
    HEADROOM_PLAN_PART_HOST_TRANSFER },
};

#define N_PARTS G_N_ELEMENTS (parts)

struct _HeadroomSplitBar
{
  GtkWidget   parent_instance;

  GtkLabel   *summary;
  GtkWidget  *canvas;
  GtkFlowBox *legend;
  GtkWidget  *entries[N_PARTS];  /* one legend entry per part, made once, hidden at 0 s */
  PangoLayout *in_bar[N_PARTS];  /* each part's duration drawn inside the bar, set by update () */
  HeadroomPlanRow *row;  /* the layout shown, for its explanations; NULL when none */

  gboolean    has_step;
  double      seconds[N_PARTS];
  char       *description;

  GdkRGBA     colors[N_PARTS];
  GdkRGBA     trough_color;
};

G_DEFINE_FINAL_TYPE (HeadroomSplitBar, headroom_split_bar, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_DESCRIPTION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static double
total_seconds (HeadroomSplitBar *self)
{
  double total = 0;

  for (guint i = 0; i < N_PARTS; i++)
    total += self->seconds[i];
  return total;
}

static double
share_percent (HeadroomSplitBar *self,
               guint             part)
{
  double total = total_seconds (self);

  return total > 0 ? 100.0 * self->seconds[part] / total : 0;
}

/* "5.10 s (61%)" */
static char *
format_part (HeadroomSplitBar *self,
             guint             part)
{
  g_autofree char *duration = headroom_format_duration (self->seconds[part]);

  /* TRANSLATORS: a duration and its share of the step, e.g. "5.10 s (61%)" */
  return g_strdup_printf (_("%s (%.0f%%)"), duration, share_percent (self, part));
}

/* "TP: 0.40 s on the link, 0.10 s exposed", one line per link in use. */
static char *
communication_detail (HeadroomPlanRow *row)
{
  g_autoptr(GString) detail = g_string_new (NULL);
  const char *kind;
  double seconds, exposed;

  for (guint c = 0; headroom_plan_row_get_comm (row, c, &kind, &seconds, &exposed); c++)
    {
      g_autofree char *name = NULL;
      g_autofree char *link = NULL;
      g_autofree char *hidden = NULL;

      if (!(seconds > 0))
        continue;
      name = g_ascii_strup (kind, -1);
      link = headroom_format_duration (seconds);
      hidden = headroom_format_duration (exposed);
      if (detail->len > 0)
        g_string_append_c (detail, '\n');
      /* TRANSLATORS: e.g. "TP: 0.40 s on the link, 0.10 s exposed" */
      g_string_append_printf (detail, _("%s: %s on the link, %s exposed"), name, link, hidden);
    }
  return detail->len > 0 ? g_string_free (g_steal_pointer (&detail), FALSE) : NULL;
}

/* The tooltip of a part: what it is, and for communication each link's
 * share, made when the tooltip is asked for. */
static char *
part_tooltip (HeadroomSplitBar *self,
              guint             part)
{
  g_autofree char *figure = format_part (self, part);
  g_autofree char *detail = parts[part].part == HEADROOM_PLAN_PART_COMMUNICATION && self->row != NULL
                            ? communication_detail (self->row) : NULL;

  if (detail != NULL)
    return g_strdup_printf ("%s: %s\n%s\n%s", headroom_plan_part_get_label (part), figure,
                            _(parts[part].tooltip), detail);
  return g_strdup_printf ("%s: %s\n%s", headroom_plan_part_get_label (part), figure, _(parts[part].tooltip));
}

/* "Show why": the part's derivation from the service, in a popover on its
 * legend entry, as the Estimate view's figures do. */
static void
on_entry_clicked (GtkButton        *entry,
                  HeadroomSplitBar *self)
{
  guint part = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (entry), "part"));
  g_autofree char *text = NULL;

  if (self->row == NULL)
    return;
  text = headroom_plan_row_dup_explanation (self->row, parts[part].part);
  if (text != NULL)
    headroom_explanation_popup (GTK_WIDGET (entry), text);
}

/* The entry's tooltip, made when asked rather than on every change. */
static gboolean
on_entry_query_tooltip (GtkWidget        *entry,
                        int               x,
                        int               y,
                        gboolean          keyboard,
                        GtkTooltip       *tooltip,
                        HeadroomSplitBar *self)
{
  guint part = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (entry), "part"));
  g_autofree char *text = NULL;

  if (!self->has_step)
    return FALSE;
  text = part_tooltip (self, part);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* A flat button: activating it shows the part's derivation. Its text is
 * update ()'s. */
static GtkWidget *
legend_entry_new (HeadroomSplitBar *self,
                  guint             part)
{
  GtkWidget *entry = gtk_button_new ();
  GtkWidget *text = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (text), 0);
  gtk_button_set_child (GTK_BUTTON (entry), text);
  gtk_widget_add_css_class (entry, "flat");
  gtk_widget_add_css_class (entry, "headroom-legend-entry");
  g_object_set_data (G_OBJECT (entry), "part", GUINT_TO_POINTER (part));
  g_signal_connect_object (entry, "clicked", G_CALLBACK (on_entry_clicked), self, 0);
  gtk_widget_set_has_tooltip (entry, TRUE);
  g_signal_connect_object (entry, "query-tooltip", G_CALLBACK (on_entry_query_tooltip), self, 0);
  return entry;
}

/* Sets the entry's swatch, name and figure when they changed, so that a
 * change of layout relays out no more than it must. */
static void
update_entry (HeadroomSplitBar *self,
              guint             part)
{
  GtkWidget *entry = self->entries[part];
  GtkLabel *text = GTK_LABEL (gtk_button_get_child (GTK_BUTTON (entry)));
  const GdkRGBA *rgba = &self->colors[part];
  g_autofree char *figure = format_part (self, part);
  g_autofree char *label = g_markup_escape_text (headroom_plan_part_get_label (part), -1);
  g_autofree char *markup = NULL;

  /* The swatch is a coloured square character, so it scales with the font. */
  markup = g_strdup_printf ("<span foreground=\"#%02x%02x%02x\">■</span> %s <b>%s</b>",
                            (guint) (rgba->red * 255 + 0.5), (guint) (rgba->green * 255 + 0.5),
                            (guint) (rgba->blue * 255 + 0.5), label, figure);
  if (g_strcmp0 (gtk_label_get_label (text), markup) != 0)
    gtk_label_set_markup (text, markup);
}

static void
update (HeadroomSplitBar *self)
{
  g_autoptr(GString) description = g_string_new (NULL);
  g_autofree char *total = NULL;
  g_autofree char *summary = NULL;
  if (!self->has_step)
    summary = g_strdup (_("No layout selected"));
  else
    {
      total = headroom_format_duration (total_seconds (self));
      /* TRANSLATORS: e.g. "Step time 8.31 s" */
      summary = g_strdup_printf (_("Step time %s"), total);
    }
  gtk_label_set_label (self->summary, summary);

  g_string_append (description, summary);
  for (guint i = 0; i < N_PARTS; i++)
    {
      g_autofree char *figure = NULL;
      gboolean shown = self->has_step && self->seconds[i] > 0;

      /* The flow box's child holds the entry: hidden, it takes no cell. */
      gtk_widget_set_visible (gtk_widget_get_parent (self->entries[i]), shown);
      if (!shown)
        continue;
      update_entry (self, i);
      {
        g_autofree char *duration = headroom_format_duration (self->seconds[i]);

        pango_layout_set_text (self->in_bar[i], duration, -1);
      }
      figure = format_part (self, i);
      g_string_append_printf (description, "%s %s %s", i == 0 ? ":" : ";",
                              headroom_plan_part_get_label (parts[i].part), figure);
    }
  g_string_append (description, ".");

  g_free (self->description);
  self->description = g_string_free (g_steal_pointer (&description), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Step time split"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->description,
                                  -1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESCRIPTION]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The left edge and width of each part, in widget coordinates. */
static void
part_extents (HeadroomSplitBar      *self,
              const graphene_rect_t *bounds,
              double                 lefts[N_PARTS],
              double                 widths[N_PARTS])
{
  double total = total_seconds (self);
  double x = bounds->origin.x;

  for (guint i = 0; i < N_PARTS; i++)
    {
      lefts[i] = x;
      widths[i] = total > 0 ? bounds->size.width * self->seconds[i] / total : 0;
      x += widths[i];
    }
}

static void
headroom_split_bar_snapshot (GtkWidget   *widget,
                             GtkSnapshot *snapshot)
{
  HeadroomSplitBar *self = HEADROOM_SPLIT_BAR (widget);
  double lefts[N_PARTS], widths[N_PARTS];
  graphene_rect_t bounds, bar;
  GskRoundedRect outline;

  GTK_WIDGET_CLASS (headroom_split_bar_parent_class)->snapshot (widget, snapshot);

  if (!gtk_widget_compute_bounds (self->canvas, widget, &bounds) || bounds.size.width <= 0)
    return;
  graphene_rect_init (&bar, bounds.origin.x, bounds.origin.y, bounds.size.width, BAR_HEIGHT);

  gsk_rounded_rect_init_from_rect (&outline, &bar, 6);
  gtk_snapshot_push_rounded_clip (snapshot, &outline);
  gtk_snapshot_append_color (snapshot, &self->trough_color, &bar);

  part_extents (self, &bounds, lefts, widths);
  for (guint i = 0; i < N_PARTS && self->has_step; i++)
    {
      GdkRGBA text_color;

      if (self->seconds[i] <= 0)
        continue;
      gtk_snapshot_append_color (snapshot, &self->colors[i],
                                 &GRAPHENE_RECT_INIT (lefts[i], bar.origin.y, widths[i], BAR_HEIGHT));
      /* A hairline between neighbours keeps similar colours apart. */
      if (lefts[i] > bar.origin.x)
        gtk_snapshot_append_color (snapshot, &self->trough_color,
                                   &GRAPHENE_RECT_INIT (lefts[i], bar.origin.y, 1, BAR_HEIGHT));
      text_color = headroom_bar_text_color_on (&self->colors[i]);
      headroom_bar_append_text (snapshot, self->in_bar[i], lefts[i] + 6,
                                bar.origin.y + BAR_HEIGHT / 2, MAX (widths[i] - 12, 0), &text_color);
    }
  gtk_snapshot_pop (snapshot);
}

static void
headroom_split_bar_css_changed (GtkWidget         *widget,
                                GtkCssStyleChange *change)
{
  HeadroomSplitBar *self = HEADROOM_SPLIT_BAR (widget);
  GtkStyleContext *context;

  GTK_WIDGET_CLASS (headroom_split_bar_parent_class)->css_changed (widget, change);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  context = gtk_widget_get_style_context (widget);
  gtk_style_context_get_color (context, &self->trough_color);
  for (guint i = 0; i < N_PARTS; i++)
    if (!gtk_style_context_lookup_color (context, parts[i].color, &self->colors[i]))
      gdk_rgba_parse (&self->colors[i], "#9a9996");
  G_GNUC_END_IGNORE_DEPRECATIONS
  self->trough_color.alpha = 0.1f;
  /* The font may have changed with the style. */
  for (guint i = 0; i < N_PARTS; i++)
    if (self->in_bar[i] != NULL)
      pango_layout_context_changed (self->in_bar[i]);
  update (self);
}

static gboolean
headroom_split_bar_query_tooltip (GtkWidget  *widget,
                                  int         x,
                                  int         y,
                                  gboolean    keyboard,
                                  GtkTooltip *tooltip)
{
  HeadroomSplitBar *self = HEADROOM_SPLIT_BAR (widget);
  double lefts[N_PARTS], widths[N_PARTS];
  graphene_rect_t bounds;

  if (keyboard || !self->has_step || !gtk_widget_compute_bounds (self->canvas, widget, &bounds))
    return FALSE;
  if (y < bounds.origin.y || y > bounds.origin.y + BAR_HEIGHT)
    return FALSE;

  part_extents (self, &bounds, lefts, widths);
  for (guint i = 0; i < N_PARTS; i++)
    if (self->seconds[i] > 0 && x >= lefts[i] && x < lefts[i] + widths[i])
      {
        g_autofree char *text = part_tooltip (self, i);

        gtk_tooltip_set_text (tooltip, text);
        return TRUE;
      }
  return FALSE;
}

static void
headroom_split_bar_dispose (GObject *object)
{
  HeadroomSplitBar *self = HEADROOM_SPLIT_BAR (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (headroom_split_bar_parent_class)->dispose (object);
}

static void
headroom_split_bar_finalize (GObject *object)
{
  HeadroomSplitBar *self = HEADROOM_SPLIT_BAR (object);

  g_free (self->description);
  for (guint i = 0; i < N_PARTS; i++)
    g_clear_object (&self->in_bar[i]);
  g_clear_object (&self->row);

  G_OBJECT_CLASS (headroom_split_bar_parent_class)->finalize (object);
}

static void
headroom_split_bar_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  HeadroomSplitBar *self = HEADROOM_SPLIT_BAR (object);

  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_split_bar_class_init (HeadroomSplitBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_split_bar_dispose;
  object_class->finalize = headroom_split_bar_finalize;
  object_class->get_property = headroom_split_bar_get_property;

  widget_class->snapshot = headroom_split_bar_snapshot;
  widget_class->css_changed = headroom_split_bar_css_changed;
  widget_class->query_tooltip = headroom_split_bar_query_tooltip;

  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "splitbar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
headroom_split_bar_init (HeadroomSplitBar *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 6);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);

  self->summary = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->summary, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->summary), "heading");
  gtk_widget_set_parent (GTK_WIDGET (self->summary), GTK_WIDGET (self));

  /* An empty box that only reserves the bar's area. */
  self->canvas = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_size_request (self->canvas, 240, (int) BAR_HEIGHT);
  gtk_widget_set_parent (self->canvas, GTK_WIDGET (self));

  self->legend = GTK_FLOW_BOX (gtk_flow_box_new ());
  gtk_flow_box_set_selection_mode (self->legend, GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (self->legend, 3);
  gtk_flow_box_set_column_spacing (self->legend, 18);
  gtk_flow_box_set_row_spacing (self->legend, 4);
  gtk_widget_set_can_focus (GTK_WIDGET (self->legend), FALSE);
  gtk_widget_set_parent (GTK_WIDGET (self->legend), GTK_WIDGET (self));
  for (guint i = 0; i < N_PARTS; i++)
    {
      self->entries[i] = legend_entry_new (self, i);
      gtk_flow_box_append (self->legend, self->entries[i]);
      self->in_bar[i] = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
    }

  update (self);
}

GtkWidget *
headroom_split_bar_new (void)
{
  return g_object_new (HEADROOM_TYPE_SPLIT_BAR, NULL);
}

void
headroom_split_bar_set_row (HeadroomSplitBar *self,
                            HeadroomPlanRow  *row)
{
  g_return_if_fail (HEADROOM_IS_SPLIT_BAR (self));
  g_return_if_fail (row == NULL || HEADROOM_IS_PLAN_ROW (row));

  g_set_object (&self->row, row);
  self->has_step = row != NULL;
  for (guint i = 0; i < N_PARTS; i++)
    {
      double seconds = row != NULL ? headroom_plan_row_get_part_seconds (row, parts[i].part) : 0;

      /* Negative or non-finite parts would break the scale: draw them as empty. */
      self->seconds[i] = isfinite (seconds) && seconds > 0 ? seconds : 0;
    }
  update (self);
}

double
headroom_split_bar_get_total (HeadroomSplitBar *self)
{
  g_return_val_if_fail (HEADROOM_IS_SPLIT_BAR (self), 0);

  return total_seconds (self);
}

const char *
headroom_split_bar_get_description (HeadroomSplitBar *self)
{
  g_return_val_if_fail (HEADROOM_IS_SPLIT_BAR (self), NULL);

  return self->description;
}
