/* headroom-plan-view.h: the ranked parallel layouts of a training run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The view shows what its HeadroomPlanner finds: the fastest parallel
 * layouts of the project's training run that fit, in a sortable table, and
 * the split of the selected layout's step time. The planner searches while
 * the view is mapped. "Use This Layout" (action plan.apply) writes the
 * layout into the project; plan.undo (Ctrl+Z) restores the values it
 * replaced.
 */
#pragma once

#include <adwaita.h>

#include "headroom-planner.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_PLAN_VIEW (headroom_plan_view_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomPlanView, headroom_plan_view, HEADROOM, PLAN_VIEW, AdwBin)

GtkWidget          *headroom_plan_view_new         (HeadroomProject  *project);

HeadroomProject    *headroom_plan_view_get_project (HeadroomPlanView *self);
void                headroom_plan_view_set_project (HeadroomPlanView *self,
                                                    HeadroomProject  *project);

/* The planner the view shows; it follows the view's project. */
HeadroomPlanner    *headroom_plan_view_get_planner (HeadroomPlanView *self);
/* Searches now (and cancels a pending search); for tests. */
void                headroom_plan_view_refresh     (HeadroomPlanView *self);

/* The table's rows (HeadroomPlanRow) in the order shown, with its selection. */
GtkSelectionModel  *headroom_plan_view_get_layouts (HeadroomPlanView *self);
/* Valid layouts evaluated and those that fit, by the last search. */
gint64              headroom_plan_view_get_searched (HeadroomPlanView *self);
gint64              headroom_plan_view_get_fitting  (HeadroomPlanView *self);
/* Why no table is shown (nothing fits, or the project cannot be planned);
 * NULL while the table shows. */
const char         *headroom_plan_view_get_message (HeadroomPlanView *self);
/* The line under the table: the selected layout, and whether the Estimate
 * view's times differ (a measured utilisation set); NULL when hidden. */
const char         *headroom_plan_view_get_caption (HeadroomPlanView *self);

G_END_DECLS
