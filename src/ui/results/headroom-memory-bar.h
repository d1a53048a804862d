/* headroom-memory-bar.h: one stacked bar of memory components against a capacity
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_MEMORY_BAR (headroom_memory_bar_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomMemoryBar, headroom_memory_bar, HEADROOM, MEMORY_BAR, GtkWidget)

GtkWidget  *headroom_memory_bar_new             (void);

/* Hold the bar's and its legend's update until the matching thaw, so that
 * clearing and refilling it keeps its legend entries and updates once. */
void        headroom_memory_bar_freeze          (HeadroomMemoryBar *self);
void        headroom_memory_bar_thaw            (HeadroomMemoryBar *self);

/* Removes every segment; the capacity stays. */
void        headroom_memory_bar_clear           (HeadroomMemoryBar *self);

/* Appends a segment. `color` names a libadwaita colour ("blue_3");
 * `tooltip` (may be NULL) says how the size was derived. Segments of
 * 0 bytes are left out of the bar and the legend. */
void        headroom_memory_bar_add_segment     (HeadroomMemoryBar *self,
                                                 const char        *label,
                                                 const char        *color,
                                                 double             bytes,
                                                 const char        *tooltip);

/* Appends a segment the device can leave in host memory when it has no room
 * (a paged optimizer's evicted states): drawn striped past the others,
 * not counted against the capacity. Add it after the other segments. */
void        headroom_memory_bar_add_paged_segment (HeadroomMemoryBar *self,
                                                   const char        *label,
                                                   const char        *color,
                                                   double             bytes,
                                                   const char        *tooltip);

/* Bytes the device holds; 0 hides the marker. */
void        headroom_memory_bar_set_capacity    (HeadroomMemoryBar *self,
                                                 double             bytes);
double      headroom_memory_bar_get_capacity    (HeadroomMemoryBar *self);
double      headroom_memory_bar_get_total       (HeadroomMemoryBar *self);

/* What the bar reads as, e.g. "Memory per GPU: 71.2 GiB of 80.0 GiB; …".
 * The same text is the widget's accessible description. */
const char *headroom_memory_bar_get_description (HeadroomMemoryBar *self);

const char *headroom_memory_bar_get_title       (HeadroomMemoryBar *self);
void        headroom_memory_bar_set_title       (HeadroomMemoryBar *self,
                                                 const char        *title);

G_END_DECLS
