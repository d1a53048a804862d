/* headroom-memory-bar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Children, top to bottom: a summary label, a placeholder whose area the bar
 * is drawn into (with GtkSnapshot), and a legend. Colours are libadwaita's
 * named palette colours, looked up again whenever the style changes.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-bar-text.h"
#include "headroom-format.h"
#include "headroom-memory-bar.h"

#define BAR_TOP     18.0  /* room above the bar for the capacity label */
#define BAR_HEIGHT  30.0
#define MARKER_OVERHANG 4.0

typedef struct
{
  char    *label;
  char    *color_name;
  char    *tooltip;
  double   bytes;
  gboolean paged;  /* in host memory when the GPU has no room: not an overflow */
  GdkRGBA  color;
} Segment;

struct _HeadroomMemoryBar
{
  GtkWidget  parent_instance;

  GtkLabel  *summary;
  GtkWidget *canvas;
  GtkFlowBox *legend;

  GArray    *segments;
  GPtrArray *size_layouts;     /* PangoLayout of each segment's size, kept between frames */
  PangoLayout *capacity_layout;
  double     capacity;
  guint      frozen;   /* headroom_memory_bar_freeze() depth */
  gboolean   stale;    /* changed while frozen */
  char      *title;
  char      *description;

  GdkRGBA    fg_color;
  GdkRGBA    error_color;
  GdkRGBA    trough_color;
};

G_DEFINE_FINAL_TYPE (HeadroomMemoryBar, headroom_memory_bar, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TITLE,
  PROP_CAPACITY,
  PROP_DESCRIPTION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_SEGMENT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
segment_clear (gpointer data)
{
  Segment *segment = data;

  g_free (segment->label);
  g_free (segment->color_name);
  g_free (segment->tooltip);
}

static void
lookup_color (GtkWidget  *widget,
              const char *name,
              GdkRGBA    *color)
{
  GtkStyleContext *context;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  context = gtk_widget_get_style_context (widget);
  if (!gtk_style_context_lookup_color (context, name, color))
    gdk_rgba_parse (color, "#9a9996");
  G_GNUC_END_IGNORE_DEPRECATIONS
}

static double
total_bytes (HeadroomMemoryBar *self)
{
  double total = 0;

  for (guint i = 0; i < self->segments->len; i++)
    total += g_array_index (self->segments, Segment, i).bytes;
  return total;
}

/* Bytes the GPU must hold: the paged segments can leave it. */
static double
resident_bytes (HeadroomMemoryBar *self)
{
  double total = 0;

  for (guint i = 0; i < self->segments->len; i++)
    if (!g_array_index (self->segments, Segment, i).paged)
      total += g_array_index (self->segments, Segment, i).bytes;
  return total;
}

static gboolean
overflows (HeadroomMemoryBar *self)
{
  return self->capacity > 0 && resident_bytes (self) > self->capacity;
}

/* Bytes that the full width stands for: the larger of the total and the
 * capacity, so that an overflow shows past the marker. */
static double
scale_bytes (HeadroomMemoryBar *self)
{
  double scale = MAX (total_bytes (self), self->capacity);

  return scale > 0 ? scale : 1.0;
}

/* Entries are reused and their text and tooltip set only when they change:
 * setting a tooltip makes GTK ask the display where the pointer is (a round
 * trip to the X server), and an edit usually leaves most entries as they were. */
static void
legend_entry_update (GtkWidget     *entry,
                     const Segment *segment)
{
  g_autofree char *size = headroom_format_gib (segment->bytes);
  g_autofree char *color = g_strdup_printf ("#%02x%02x%02x",
                                            (guint) (segment->color.red * 255 + 0.5),
                                            (guint) (segment->color.green * 255 + 0.5),
                                            (guint) (segment->color.blue * 255 + 0.5));
  g_autofree char *label = g_markup_escape_text (segment->label, -1);
  g_autofree char *markup = NULL;
  const char *tooltip = gtk_widget_get_tooltip_text (entry);

  /* The swatch is a coloured square character, so it scales with the font. */
  markup = g_strdup_printf ("<span foreground=\"%s\">■</span> %s <b>%s</b>", color, label, size);
  if (g_strcmp0 (g_object_get_data (G_OBJECT (entry), "markup"), markup) != 0)
    {
      gtk_label_set_markup (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (entry))), markup);
      g_object_set_data_full (G_OBJECT (entry), "markup", g_steal_pointer (&markup), g_free);
    }
  if (g_strcmp0 (tooltip, segment->tooltip) != 0)
    gtk_widget_set_tooltip_text (entry, segment->tooltip);
}

static void
on_entry_clicked (GtkButton         *entry,
                  HeadroomMemoryBar *self)
{
  g_signal_emit (self, signals[SIGNAL_SEGMENT_ACTIVATED], 0,
                 GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (entry), "segment")), entry);
}

/* A flat button: activating it asks for the segment's derivation. */
static GtkWidget *
legend_entry_new (HeadroomMemoryBar *self)
{
  GtkWidget *entry = gtk_button_new ();
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_button_set_child (GTK_BUTTON (entry), label);
  gtk_widget_add_css_class (entry, "flat");
  gtk_widget_add_css_class (entry, "headroom-legend-entry");
  g_signal_connect_object (entry, "clicked", G_CALLBACK (on_entry_clicked), self, 0);
  return entry;
}

static void
update (HeadroomMemoryBar *self)
{
  g_autoptr(GString) description = NULL;
  g_autofree char *used = NULL;
  g_autofree char *capacity = NULL;
  g_autofree char *summary = NULL;
  double total = total_bytes (self);
  double resident = resident_bytes (self);
  GtkWidget *child;

  if (self->frozen > 0)
    {
      self->stale = TRUE;
      return;
    }
  self->stale = FALSE;
  description = g_string_new (NULL);
  child = gtk_widget_get_first_child (GTK_WIDGET (self->legend));
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *segment = &g_array_index (self->segments, Segment, i);

      if (segment->bytes <= 0)
        continue;
      if (child == NULL)
        {
          GtkWidget *entry = legend_entry_new (self);

          gtk_flow_box_append (self->legend, entry);
          child = gtk_widget_get_parent (entry);
        }
      legend_entry_update (gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child)), segment);
      g_object_set_data (G_OBJECT (gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child))),
                         "segment", GUINT_TO_POINTER (i));
      child = gtk_widget_get_next_sibling (child);
    }
  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_flow_box_remove (self->legend, child);
      child = next;
    }

  used = headroom_format_gib (resident);
  if (self->capacity > 0)
    {
      g_autofree char *margin = headroom_format_gib (fabs (self->capacity - resident));

      capacity = headroom_format_gib (self->capacity);
      if (resident < total && !overflows (self))
        {
          g_autofree char *paged = headroom_format_gib (total - resident);

          /* TRANSLATORS: e.g. "Fits: 80.0 GiB of 80.0 GiB, 4.72 GiB paged out to host memory" */
          summary = g_strdup_printf (_("Fits: %s of %s, %s paged out to host memory"),
                                     used, capacity, paged);
        }
      else if (resident > self->capacity)
        /* TRANSLATORS: e.g. "Does not fit: 92.1 GiB needed, 80.0 GiB available (12.1 GiB over)" */
        summary = g_strdup_printf (_("Does not fit: %s needed, %s available (%s over)"),
                                   used, capacity, margin);
      else
        /* TRANSLATORS: e.g. "Fits: 71.2 GiB of 80.0 GiB (8.8 GiB free)" */
        summary = g_strdup_printf (_("Fits: %s of %s (%s free)"), used, capacity, margin);
    }
  else if (self->title != NULL)
    /* TRANSLATORS: a bar without a capacity (host memory) names itself, e.g.
     * "CPU memory per GPU (offloaded): 15.0 GiB in total" */
    summary = g_strdup_printf (_("%s: %s in total"), self->title, used);
  else
    summary = g_strdup_printf (_("%s in total"), used);

  gtk_label_set_label (self->summary, summary);
  if (overflows (self))
    gtk_widget_add_css_class (GTK_WIDGET (self->summary), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->summary), "error");

  if (self->title != NULL && self->capacity > 0)
    g_string_append_printf (description, "%s: ", self->title);
  g_string_append (description, summary);
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *segment = &g_array_index (self->segments, Segment, i);
      g_autofree char *size = NULL;

      if (segment->bytes <= 0)
        continue;
      size = headroom_format_gib (segment->bytes);
      g_string_append_printf (description, "; %s %s", segment->label, size);
    }
  g_string_append (description, ".");

  g_free (self->description);
  self->description = g_string_free (g_steal_pointer (&description), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, self->title ? self->title : "",
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->description,
                                  -1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESCRIPTION]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The bar's layouts are kept between frames and given a text only when it
 * changes: an edit leaves most sizes as they were, and a layout whose text
 * is the same is not laid out again. */
static PangoLayout *
layout_with_text (PangoLayout *layout,
                  const char  *text)
{
  if (g_strcmp0 (pango_layout_get_text (layout), text) != 0)
    pango_layout_set_text (layout, text, -1);
  return layout;
}

static double
text_width (PangoLayout *layout)
{
  int width;

  pango_layout_get_pixel_size (layout, &width, NULL);
  return width;
}

static void
headroom_memory_bar_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (widget);
  graphene_rect_t bounds;
  GskRoundedRect outline;
  double scale, width, x, top;

  GTK_WIDGET_CLASS (headroom_memory_bar_parent_class)->snapshot (widget, snapshot);

  if (!gtk_widget_compute_bounds (self->canvas, widget, &bounds))
    return;
  width = bounds.size.width;
  if (width <= 0)
    return;
  scale = scale_bytes (self);
  top = bounds.origin.y + BAR_TOP;

  gsk_rounded_rect_init_from_rect (&outline,
                                   &GRAPHENE_RECT_INIT (bounds.origin.x, top, width, BAR_HEIGHT),
                                   6);
  gtk_snapshot_push_rounded_clip (snapshot, &outline);
  gtk_snapshot_append_color (snapshot, &self->trough_color,
                             &GRAPHENE_RECT_INIT (bounds.origin.x, top, width, BAR_HEIGHT));

  x = bounds.origin.x;
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *segment = &g_array_index (self->segments, Segment, i);
      double w = width * segment->bytes / scale;

      if (segment->bytes <= 0)
        continue;
      gtk_snapshot_append_color (snapshot, &segment->color,
                                 &GRAPHENE_RECT_INIT (x, top, w, BAR_HEIGHT));
      /* Paged out to host memory: striped in the text colour, not the
       * overflow's error colour. */
      if (segment->paged)
        {
          GdkRGBA stripe_color = self->fg_color;

          stripe_color.alpha = 0.3f;
          gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (x, top, w, BAR_HEIGHT));
          for (double stripe = x - BAR_HEIGHT; stripe < x + w; stripe += 8)
            for (double dy = 0; dy < BAR_HEIGHT; dy += 2)
              gtk_snapshot_append_color (snapshot, &stripe_color,
                                         &GRAPHENE_RECT_INIT (stripe + dy, top + dy, 2, 2));
          gtk_snapshot_pop (snapshot);
        }
      /* A hairline between neighbours keeps similar colours apart. */
      if (x > bounds.origin.x)
        gtk_snapshot_append_color (snapshot, &self->trough_color,
                                   &GRAPHENE_RECT_INIT (x, top, 1, BAR_HEIGHT));
      x += w;
    }

  /* Past the capacity, what the GPU must hold is hatched in the error colour. */
  if (overflows (self))
    {
      double cap_x = bounds.origin.x + width * self->capacity / scale;
      GdkRGBA hatch = self->error_color;

      x = bounds.origin.x + width * resident_bytes (self) / scale;
      hatch.alpha = 0.8f;
      gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (cap_x, top, x - cap_x, BAR_HEIGHT));
      for (double stripe = cap_x - BAR_HEIGHT; stripe < x; stripe += 10)
        for (double dy = 0; dy < BAR_HEIGHT; dy += 2)
          gtk_snapshot_append_color (snapshot, &hatch,
                                     &GRAPHENE_RECT_INIT (stripe + dy, top + dy, 3, 2));
      gtk_snapshot_pop (snapshot);
    }

  /* The sizes last, over the hatching, each on a pill of its segment's
   * colour: legible in every state and both styles. */
  x = bounds.origin.x;
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *segment = &g_array_index (self->segments, Segment, i);
      double w = width * segment->bytes / scale;
      g_autofree char *size = NULL;
      PangoLayout *layout;
      GdkRGBA text_color;
      double text_w;

      if (segment->bytes <= 0)
        continue;
      size = headroom_format_gib (segment->bytes);
      while (self->size_layouts->len <= i)
        g_ptr_array_add (self->size_layouts, gtk_widget_create_pango_layout (widget, NULL));
      layout = layout_with_text (self->size_layouts->pdata[i], size);
      text_w = text_width (layout);
      if (text_w <= w - 12)
        {
          GskRoundedRect pill;

          gsk_rounded_rect_init_from_rect (&pill, &GRAPHENE_RECT_INIT (x + 3, top + 3, text_w + 6,
                                                                       BAR_HEIGHT - 6), 4);
          gtk_snapshot_push_rounded_clip (snapshot, &pill);
          gtk_snapshot_append_color (snapshot, &segment->color, &pill.bounds);
          gtk_snapshot_pop (snapshot);
        }
      text_color = headroom_bar_text_color_on (&segment->color);
      headroom_bar_append_text (snapshot, layout, x + 6, top + BAR_HEIGHT / 2, MAX (w - 12, 0), &text_color);
      x += w;
    }
  gtk_snapshot_pop (snapshot);

  if (self->capacity > 0)
    {
      double cap_x = bounds.origin.x + width * self->capacity / scale;
      gboolean over = overflows (self);
      const GdkRGBA *marker = over ? &self->error_color : &self->fg_color;
      g_autofree char *size = headroom_format_gib (self->capacity);
      /* TRANSLATORS: label of the capacity marker, e.g. "80.0 GiB capacity" */
      g_autofree char *label = g_strdup_printf (_("%s capacity"), size);
      PangoLayout *layout = layout_with_text (self->capacity_layout, label);
      double label_width = text_width (layout);
      double label_x;

      gtk_snapshot_append_color (snapshot, marker,
                                 &GRAPHENE_RECT_INIT (cap_x - 1, top - MARKER_OVERHANG,
                                                      2, BAR_HEIGHT + 2 * MARKER_OVERHANG));
      /* The label sits above the bar, ending at the marker unless that would clip it. */
      label_x = cap_x - label_width - 4;
      if (label_x < bounds.origin.x)
        label_x = cap_x + 4;
      headroom_bar_append_text (snapshot, layout, label_x, bounds.origin.y + BAR_TOP / 2 - 2, -1, marker);
    }
}

static void
headroom_memory_bar_css_changed (GtkWidget         *widget,
                                 GtkCssStyleChange *change)
{
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (widget);

  GTK_WIDGET_CLASS (headroom_memory_bar_parent_class)->css_changed (widget, change);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &self->fg_color);
  G_GNUC_END_IGNORE_DEPRECATIONS
  lookup_color (widget, "error_color", &self->error_color);
  self->trough_color = self->fg_color;
  self->trough_color.alpha = 0.1f;
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *segment = &g_array_index (self->segments, Segment, i);

      lookup_color (widget, segment->color_name, &segment->color);
    }
  update (self);
}

static gboolean
headroom_memory_bar_query_tooltip (GtkWidget  *widget,
                                   int         x,
                                   int         y,
                                   gboolean    keyboard,
                                   GtkTooltip *tooltip)
{
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (widget);
  graphene_rect_t bounds;
  double scale, left;

  if (keyboard || !gtk_widget_compute_bounds (self->canvas, widget, &bounds))
    return FALSE;
  if (y < bounds.origin.y + BAR_TOP || y > bounds.origin.y + BAR_TOP + BAR_HEIGHT)
    return FALSE;

  scale = scale_bytes (self);
  left = bounds.origin.x;
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *segment = &g_array_index (self->segments, Segment, i);
      double right = left + bounds.size.width * segment->bytes / scale;

      if (segment->bytes > 0 && x >= left && x < right)
        {
          g_autofree char *size = headroom_format_gib (segment->bytes);
          g_autofree char *text = NULL;

          if (segment->tooltip != NULL)
            text = g_strdup_printf ("%s: %s\n%s", segment->label, size, segment->tooltip);
          else
            text = g_strdup_printf ("%s: %s", segment->label, size);
          gtk_tooltip_set_text (tooltip, text);
          return TRUE;
        }
      left = right;
    }
  return FALSE;
}

static void
headroom_memory_bar_dispose (GObject *object)
{
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (headroom_memory_bar_parent_class)->dispose (object);
}

static void
headroom_memory_bar_finalize (GObject *object)
{
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (object);

  g_array_unref (self->segments);
  g_ptr_array_unref (self->size_layouts);
  g_object_unref (self->capacity_layout);
  g_free (self->title);
  g_free (self->description);

  G_OBJECT_CLASS (headroom_memory_bar_parent_class)->finalize (object);
}

static void
headroom_memory_bar_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_CAPACITY:
      g_value_set_double (value, self->capacity);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_memory_bar_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  HeadroomMemoryBar *self = HEADROOM_MEMORY_BAR (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      headroom_memory_bar_set_title (self, g_value_get_string (value));
      break;
    case PROP_CAPACITY:
      headroom_memory_bar_set_capacity (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_memory_bar_class_init (HeadroomMemoryBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_memory_bar_dispose;
  object_class->finalize = headroom_memory_bar_finalize;
  object_class->get_property = headroom_memory_bar_get_property;
  object_class->set_property = headroom_memory_bar_set_property;

  widget_class->snapshot = headroom_memory_bar_snapshot;
  widget_class->css_changed = headroom_memory_bar_css_changed;
  widget_class->query_tooltip = headroom_memory_bar_query_tooltip;

  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CAPACITY] =
    g_param_spec_double ("capacity", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* A legend entry was activated: (segment index as added, the entry widget). */
  signals[SIGNAL_SEGMENT_ACTIVATED] =
    g_signal_new ("segment-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, GTK_TYPE_WIDGET);

  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "memorybar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
headroom_memory_bar_init (HeadroomMemoryBar *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  self->segments = g_array_new (FALSE, TRUE, sizeof (Segment));
  self->size_layouts = g_ptr_array_new_with_free_func (g_object_unref);
  self->capacity_layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  g_array_set_clear_func (self->segments, segment_clear);

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 6);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);

  self->summary = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->summary, 0);
  gtk_label_set_wrap (self->summary, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->summary), "heading");
  gtk_widget_set_parent (GTK_WIDGET (self->summary), GTK_WIDGET (self));

  self->canvas = gtk_label_new (NULL);
  gtk_widget_set_size_request (self->canvas, 240, (int) (BAR_TOP + BAR_HEIGHT + MARKER_OVERHANG));
  gtk_widget_set_parent (self->canvas, GTK_WIDGET (self));

  self->legend = GTK_FLOW_BOX (gtk_flow_box_new ());
  gtk_flow_box_set_selection_mode (self->legend, GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (self->legend, 4);
  gtk_flow_box_set_column_spacing (self->legend, 18);
  gtk_flow_box_set_row_spacing (self->legend, 4);
  gtk_widget_set_can_focus (GTK_WIDGET (self->legend), FALSE);
  gtk_widget_set_parent (GTK_WIDGET (self->legend), GTK_WIDGET (self));

  update (self);
}

GtkWidget *
headroom_memory_bar_new (void)
{
  return g_object_new (HEADROOM_TYPE_MEMORY_BAR, NULL);
}

void
headroom_memory_bar_freeze (HeadroomMemoryBar *self)
{
  g_return_if_fail (HEADROOM_IS_MEMORY_BAR (self));

  self->frozen++;
}

void
headroom_memory_bar_thaw (HeadroomMemoryBar *self)
{
  g_return_if_fail (HEADROOM_IS_MEMORY_BAR (self));
  g_return_if_fail (self->frozen > 0);

  if (--self->frozen == 0 && self->stale)
    update (self);
}

void
headroom_memory_bar_clear (HeadroomMemoryBar *self)
{
  g_return_if_fail (HEADROOM_IS_MEMORY_BAR (self));

  g_array_set_size (self->segments, 0);
  update (self);
}

void
headroom_memory_bar_add_segment (HeadroomMemoryBar *self,
                                 const char        *label,
                                 const char        *color,
                                 double             bytes,
                                 const char        *tooltip)
{
  Segment segment = { 0 };

  g_return_if_fail (HEADROOM_IS_MEMORY_BAR (self));
  g_return_if_fail (label != NULL && color != NULL);

  segment.label = g_strdup (label);
  segment.color_name = g_strdup (color);
  segment.tooltip = g_strdup (tooltip);
  /* Negative or non-finite sizes would break the scale: draw them as empty. */
  segment.bytes = isfinite (bytes) && bytes > 0 ? bytes : 0;
  lookup_color (GTK_WIDGET (self), color, &segment.color);
  g_array_append_val (self->segments, segment);
  update (self);
}

void
headroom_memory_bar_add_paged_segment (HeadroomMemoryBar *self,
                                       const char        *label,
                                       const char        *color,
                                       double             bytes,
                                       const char        *tooltip)
{
  g_return_if_fail (HEADROOM_IS_MEMORY_BAR (self));

  headroom_memory_bar_add_segment (self, label, color, bytes, tooltip);
  g_array_index (self->segments, Segment, self->segments->len - 1).paged = TRUE;
  update (self);
}

void
headroom_memory_bar_set_capacity (HeadroomMemoryBar *self,
                                  double             bytes)
{
  g_return_if_fail (HEADROOM_IS_MEMORY_BAR (self));

  if (!isfinite (bytes) || bytes < 0)
    bytes = 0;
  if (self->capacity == bytes)
    return;
  self->capacity = bytes;
  update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAPACITY]);
}

double
headroom_memory_bar_get_capacity (HeadroomMemoryBar *self)
{
  g_return_val_if_fail (HEADROOM_IS_MEMORY_BAR (self), 0);

  return self->capacity;
}

double
headroom_memory_bar_get_total (HeadroomMemoryBar *self)
{
  g_return_val_if_fail (HEADROOM_IS_MEMORY_BAR (self), 0);

  return total_bytes (self);
}

const char *
headroom_memory_bar_get_description (HeadroomMemoryBar *self)
{
  g_return_val_if_fail (HEADROOM_IS_MEMORY_BAR (self), NULL);

  return self->description;
}

const char *
headroom_memory_bar_get_title (HeadroomMemoryBar *self)
{
  g_return_val_if_fail (HEADROOM_IS_MEMORY_BAR (self), NULL);

  return self->title;
}

void
headroom_memory_bar_set_title (HeadroomMemoryBar *self,
                               const char        *title)
{
  g_return_if_fail (HEADROOM_IS_MEMORY_BAR (self));

  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}
