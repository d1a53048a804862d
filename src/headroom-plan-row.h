/* headroom-plan-row.h: one layout found by the planner (a list-model item)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "hr-planner.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_PLAN_ROW (headroom_plan_row_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomPlanRow, headroom_plan_row, HEADROOM, PLAN_ROW, GObject)

/* `rank` is the layout's place by predicted step time, 1 for the fastest. */
HeadroomPlanRow    *headroom_plan_row_new        (const HrPlanLayout *layout,
                                                  guint               rank) G_GNUC_WARN_UNUSED_RESULT;

const HrPlanLayout *headroom_plan_row_get_layout (HeadroomPlanRow    *self);
guint               headroom_plan_row_get_rank   (HeadroomPlanRow    *self);

G_END_DECLS
