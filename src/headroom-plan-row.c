/* headroom-plan-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "headroom-plan-row.h"

struct _HeadroomPlanRow
{
  GObject      parent_instance;

  HrPlanLayout layout;
  guint        rank;
};

G_DEFINE_FINAL_TYPE (HeadroomPlanRow, headroom_plan_row, G_TYPE_OBJECT)

static void
headroom_plan_row_class_init (HeadroomPlanRowClass *klass)
{
}

static void
headroom_plan_row_init (HeadroomPlanRow *self)
{
}

HeadroomPlanRow *
headroom_plan_row_new (const HrPlanLayout *layout,
                       guint               rank)
{
  HeadroomPlanRow *self;

  g_return_val_if_fail (layout != NULL, NULL);

  self = g_object_new (HEADROOM_TYPE_PLAN_ROW, NULL);
  self->layout = *layout;
  self->rank = rank;
  return self;
}

const HrPlanLayout *
headroom_plan_row_get_layout (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), NULL);

  return &self->layout;
}

guint
headroom_plan_row_get_rank (HeadroomPlanRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (self), 0);

  return self->rank;
}
