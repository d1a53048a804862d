/* headroom-bar-text.h: text drawn on the memory and step-time bars
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Black or white text, whichever reads better on `background`. */
static inline GdkRGBA
headroom_bar_text_color_on (const GdkRGBA *background)
{
  double luminance = 0.2126 * background->red + 0.7152 * background->green + 0.0722 * background->blue;
  GdkRGBA color = { 0, 0, 0, 0.8f };

  if (luminance < 0.5)
    color = (GdkRGBA) { 1, 1, 1, 1 };
  return color;
}

/* Draws `layout` centred vertically at (x, y) when it fits in `max_width`;
 * a negative `max_width` means no limit. */
static inline void
headroom_bar_append_text (GtkSnapshot   *snapshot,
                          PangoLayout   *layout,
                          double         x,
                          double         y,
                          double         max_width,
                          const GdkRGBA *color)
{
  int width, height;

  pango_layout_get_pixel_size (layout, &width, &height);
  if (max_width >= 0 && width > max_width)
    return;

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, y - height / 2.0));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
}

G_END_DECLS
