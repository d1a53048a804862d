/* headroom-compare-view.h: the project's scenarios side by side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shows what a HeadroomComparison of the project's scenarios holds: memory
 * per GPU as bars on one scale with each GPU's capacity, then a table of
 * the figures that decide, each column's change against the baseline
 * coloured better or worse, and the settings that differ. Each column's
 * menu (its header; Delete removes the focused one) uses it as the baseline,
 * applies it to the editor, renames, duplicates or removes it. Actions:
 * compare.keep, compare.export, and compare.baseline, .apply, .rename,
 * .duplicate, .remove taking the column (u).
 */
#pragma once

#include <adwaita.h>

#include "headroom-comparison.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_COMPARE_VIEW (headroom_compare_view_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomCompareView, headroom_compare_view, HEADROOM, COMPARE_VIEW, AdwBin)

GtkWidget          *headroom_compare_view_new            (HeadroomProject     *project);

HeadroomProject    *headroom_compare_view_get_project    (HeadroomCompareView *self);
void                headroom_compare_view_set_project    (HeadroomCompareView *self,
                                                          HeadroomProject     *project);
/* The comparison shown; it follows the project's scenarios. */
HeadroomComparison *headroom_compare_view_get_comparison (HeadroomCompareView *self);

/* Keeps the editor's settings as a new scenario (its default name); a
 * failure (six kept already) shows as a toast. Returns whether one was kept. */
gboolean            headroom_compare_view_keep           (HeadroomCompareView *self);

G_END_DECLS
