/* headroom-fits-plot.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawn with cairo through gtk_snapshot_append_cairo (paths need GTK 4.14
 * otherwise). Colours come from the theme on every style change.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-fits-plot.h"
#include "headroom-format.h"

#define MARGIN_RIGHT  16.0
#define MARGIN_TOP    12.0
#define MARGIN_BOTTOM 40.0

struct _HeadroomFitsPlot
{
  GtkWidget  parent_instance;

  GArray    *x;
  GArray    *bytes;
  double     capacity;
  double     margin_left;  /* room for the widest y label, set when drawn */
  char      *x_label;
  char      *description;

  GdkRGBA    fg_color;
  GdkRGBA    line_color;
  GdkRGBA    error_color;
};

G_DEFINE_FINAL_TYPE (HeadroomFitsPlot, headroom_fits_plot, GTK_TYPE_WIDGET)

static double
max_bytes (HeadroomFitsPlot *self)
{
  double top = self->capacity;

  for (guint i = 0; i < self->bytes->len; i++)
    top = MAX (top, g_array_index (self->bytes, double, i));
  return top > 0 ? top * 1.08 : 1.0;
}

static void
update_description (HeadroomFitsPlot *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *capacity = headroom_format_gib (self->capacity);

  /* TRANSLATORS: start of the plot's description, e.g. "Memory per GPU against micro-batch (capacity 80.0 GiB):" */
  g_string_append_printf (text, _("Memory per GPU against %s (capacity %s):"),
                          self->x_label ? self->x_label : "", capacity);
  for (guint i = 0; i < self->x->len; i++)
    {
      g_autofree char *size = headroom_format_gib (g_array_index (self->bytes, double, i));

      g_string_append_printf (text, " %.0f → %s%s", g_array_index (self->x, double, i), size,
                              i + 1 < self->x->len ? ";" : ".");
    }
  g_free (self->description);
  self->description = g_string_free (g_steal_pointer (&text), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->description,
                                  -1);
}

static void
set_source (cairo_t       *cr,
            const GdkRGBA *color,
            double         alpha)
{
  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha * alpha);
}

static void
draw_text (HeadroomFitsPlot *self,
           cairo_t          *cr,
           const char       *text,
           double            x,
           double            y,
           double            xalign)
{
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  int width, height;

  pango_layout_get_pixel_size (layout, &width, &height);
  cairo_move_to (cr, x - xalign * width, y - height / 2.0);
  pango_cairo_show_layout (cr, layout);
}

static void
headroom_fits_plot_snapshot (GtkWidget   *widget,
                             GtkSnapshot *snapshot)
{
  HeadroomFitsPlot *self = HEADROOM_FITS_PLOT (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  double plot_w;
  double plot_h = height - MARGIN_TOP - MARGIN_BOTTOM;
  double top = max_bytes (self);
  double x0, x1;
  cairo_t *cr;
  guint n = self->x->len;

  if (n == 0 || plot_h <= 0)
    return;
  self->margin_left = 0;
  for (guint i = 0; i <= 4; i++)
    {
      g_autofree char *label = headroom_format_gib (top * i / 4.0);
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, label);
      int label_width;

      pango_layout_get_pixel_size (layout, &label_width, NULL);
      self->margin_left = MAX (self->margin_left, label_width + 10.0);
    }
  plot_w = width - self->margin_left - MARGIN_RIGHT;
  if (plot_w <= 0)
    return;
  x0 = log2 (g_array_index (self->x, double, 0));
  x1 = log2 (g_array_index (self->x, double, n - 1));
  /* A lone point stands in the middle, an octave from either end. */
  if (x1 <= x0)
    {
      x0 -= 1;
      x1 = x0 + 2;
    }

#define PX(v) (self->margin_left + plot_w * (log2 (v) - x0) / (x1 - x0))
#define PY(b) (MARGIN_TOP + plot_h * (1.0 - (b) / top))

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_set_line_width (cr, 1);

  /* Axes and a few horizontal grid lines labelled in GiB. */
  for (guint i = 0; i <= 4; i++)
    {
      double b = top * i / 4.0;
      g_autofree char *label = headroom_format_gib (b);

      set_source (cr, &self->fg_color, i == 0 ? 0.5 : 0.12);
      cairo_move_to (cr, self->margin_left, floor (PY (b)) + 0.5);
      cairo_line_to (cr, self->margin_left + plot_w, floor (PY (b)) + 0.5);
      cairo_stroke (cr);
      set_source (cr, &self->fg_color, 0.7);
      draw_text (self, cr, label, self->margin_left - 6, PY (b), 1.0);
    }
  for (guint i = 0; i < n; i++)
    {
      double v = g_array_index (self->x, double, i);
      g_autofree char *label = g_strdup_printf ("%.0f", v);

      set_source (cr, &self->fg_color, 0.7);
      draw_text (self, cr, label, PX (v), MARGIN_TOP + plot_h + 10, 0.5);
    }
  if (self->x_label != NULL)
    draw_text (self, cr, self->x_label, self->margin_left + plot_w / 2, height - 10, 0.5);

  /* The capacity line, dashed, in the error colour. */
  if (self->capacity > 0)
    {
      double dash[] = { 6, 4 };
      g_autofree char *size = headroom_format_gib (self->capacity);
      /* TRANSLATORS: label of the capacity line, e.g. "80.0 GiB capacity" */
      g_autofree char *label = g_strdup_printf (_("%s capacity"), size);

      set_source (cr, &self->error_color, 1);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_line_width (cr, 1.5);
      cairo_move_to (cr, self->margin_left, PY (self->capacity));
      cairo_line_to (cr, self->margin_left + plot_w, PY (self->capacity));
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      draw_text (self, cr, label, self->margin_left + 6, PY (self->capacity) - 9, 0);
    }

  /* The memory line and its points; points over capacity in the error colour. */
  set_source (cr, &self->line_color, 1);
  cairo_set_line_width (cr, 2);
  for (guint i = 0; i < n; i++)
    {
      double px = PX (g_array_index (self->x, double, i));
      double py = PY (g_array_index (self->bytes, double, i));

      if (i == 0)
        cairo_move_to (cr, px, py);
      else
        cairo_line_to (cr, px, py);
    }
  cairo_stroke (cr);
  for (guint i = 0; i < n; i++)
    {
      double b = g_array_index (self->bytes, double, i);

      set_source (cr, self->capacity > 0 && b > self->capacity ? &self->error_color : &self->line_color, 1);
      cairo_arc (cr, PX (g_array_index (self->x, double, i)), PY (b), 4, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  cairo_destroy (cr);

#undef PX
#undef PY
}

static void
headroom_fits_plot_measure (GtkWidget      *widget,
                            GtkOrientation  orientation,
                            int             for_size,
                            int            *minimum,
                            int            *natural,
                            int            *minimum_baseline,
                            int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 600;
    }
  else
    {
      *minimum = 180;
      *natural = 220;
    }
}

static void
lookup_color (GtkWidget  *widget,
              const char *name,
              GdkRGBA    *color)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  if (!gtk_style_context_lookup_color (gtk_widget_get_style_context (widget), name, color))
    gdk_rgba_parse (color, "#3584e4");
  G_GNUC_END_IGNORE_DEPRECATIONS
}

static void
headroom_fits_plot_css_changed (GtkWidget         *widget,
                                GtkCssStyleChange *change)
{
  HeadroomFitsPlot *self = HEADROOM_FITS_PLOT (widget);

  GTK_WIDGET_CLASS (headroom_fits_plot_parent_class)->css_changed (widget, change);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &self->fg_color);
  G_GNUC_END_IGNORE_DEPRECATIONS
  lookup_color (widget, "accent_color", &self->line_color);
  lookup_color (widget, "error_color", &self->error_color);
  gtk_widget_queue_draw (widget);
}

static gboolean
headroom_fits_plot_query_tooltip (GtkWidget  *widget,
                                  int         x,
                                  int         y,
                                  gboolean    keyboard,
                                  GtkTooltip *tooltip)
{
  HeadroomFitsPlot *self = HEADROOM_FITS_PLOT (widget);
  double plot_w = gtk_widget_get_width (widget) - self->margin_left - MARGIN_RIGHT;

  guint n = self->x->len;
  double x0, x1, best = G_MAXDOUBLE;
  guint nearest = 0;
  g_autofree char *size = NULL;
  g_autofree char *text = NULL;

  if (n == 0 || keyboard || plot_w <= 0)
    return FALSE;
  x0 = log2 (g_array_index (self->x, double, 0));
  x1 = MAX (log2 (g_array_index (self->x, double, n - 1)), x0 + 1);
  for (guint i = 0; i < n; i++)
    {
      double px = self->margin_left + plot_w * (log2 (g_array_index (self->x, double, i)) - x0) / (x1 - x0);

      if (fabs (px - x) < best)
        {
          best = fabs (px - x);
          nearest = i;
        }
    }
  size = headroom_format_gib (g_array_index (self->bytes, double, nearest));
  text = g_strdup_printf ("%s %.0f: %s", self->x_label ? self->x_label : "",
                          g_array_index (self->x, double, nearest), size);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
headroom_fits_plot_finalize (GObject *object)
{
  HeadroomFitsPlot *self = HEADROOM_FITS_PLOT (object);

  g_array_unref (self->x);
  g_array_unref (self->bytes);
  g_free (self->x_label);
  g_free (self->description);

  G_OBJECT_CLASS (headroom_fits_plot_parent_class)->finalize (object);
}

static void
headroom_fits_plot_class_init (HeadroomFitsPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = headroom_fits_plot_finalize;
  widget_class->snapshot = headroom_fits_plot_snapshot;
  widget_class->measure = headroom_fits_plot_measure;
  widget_class->css_changed = headroom_fits_plot_css_changed;
  widget_class->query_tooltip = headroom_fits_plot_query_tooltip;

  gtk_widget_class_set_css_name (widget_class, "fitsplot");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
headroom_fits_plot_init (HeadroomFitsPlot *self)
{
  self->x = g_array_new (FALSE, FALSE, sizeof (double));
  self->bytes = g_array_new (FALSE, FALSE, sizeof (double));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Memory per GPU plot"),
                                  -1);
  update_description (self);
}

GtkWidget *
headroom_fits_plot_new (void)
{
  return g_object_new (HEADROOM_TYPE_FITS_PLOT, NULL);
}

void
headroom_fits_plot_set_points (HeadroomFitsPlot *self,
                               const char       *x_label,
                               const double     *x,
                               const double     *bytes,
                               guint             n)
{
  g_return_if_fail (HEADROOM_IS_FITS_PLOT (self));

  g_array_set_size (self->x, 0);
  g_array_set_size (self->bytes, 0);
  for (guint i = 0; i < n; i++)
    {
      /* Only positive settings on a log axis, and finite sizes. */
      if (!(x[i] > 0) || !isfinite (bytes[i]) || bytes[i] < 0)
        continue;
      g_array_append_val (self->x, x[i]);
      g_array_append_val (self->bytes, bytes[i]);
    }
  g_free (self->x_label);
  self->x_label = g_strdup (x_label);
  update_description (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
headroom_fits_plot_set_capacity (HeadroomFitsPlot *self,
                                 double            bytes)
{
  g_return_if_fail (HEADROOM_IS_FITS_PLOT (self));

  self->capacity = isfinite (bytes) && bytes > 0 ? bytes : 0;
  update_description (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
headroom_fits_plot_get_n_points (HeadroomFitsPlot *self)
{
  g_return_val_if_fail (HEADROOM_IS_FITS_PLOT (self), 0);

  return self->x->len;
}

const char *
headroom_fits_plot_get_description (HeadroomFitsPlot *self)
{
  g_return_val_if_fail (HEADROOM_IS_FITS_PLOT (self), NULL);

  return self->description;
}
