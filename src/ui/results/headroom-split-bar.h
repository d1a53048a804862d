/* headroom-split-bar.h: the parts of one training step's time, as a stacked bar
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "headroom-plan-row.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_SPLIT_BAR (headroom_split_bar_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomSplitBar, headroom_split_bar, HEADROOM, SPLIT_BAR, GtkWidget)

GtkWidget  *headroom_split_bar_new             (void);

/* Shows the split of `row`'s step (compute, memory-bound kernels,
 * recomputation, exposed communication, bubble, optimizer); NULL empties
 * the bar. */
void        headroom_split_bar_set_row         (HeadroomSplitBar *self,
                                                HeadroomPlanRow  *row);
/* Seconds the bar stands for: the sum of the split. */
double      headroom_split_bar_get_total       (HeadroomSplitBar *self);

/* What the bar reads as, e.g. "Step time 8.31 s: compute 5.10 s (61%); …".
 * The same text is the widget's accessible description. */
const char *headroom_split_bar_get_description (HeadroomSplitBar *self);

G_END_DECLS
