/* headroom-planner.h: the ranked parallel layouts of a project's training run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The planner searches every parallel layout of the project's model, GPUs
 * and recipe (hr_plan_search()) and keeps the fastest that fit, and the
 * memory/throughput Pareto front, as list models of HeadroomPlanRow. It
 * searches again once per burst of changes (from an idle source) while
 * :active, ignoring the keys a layout sets and those the search does not
 * read; then it emits ::updated. headroom_planner_apply() writes a layout
 * into the project as one undoable step.
 *
 * Properties (read-only unless noted; all notify): project (read-write),
 * active (read-write, default TRUE), status (HeadroomPlannerStatus),
 * message (string), searched, fitting (gint64), can-undo (boolean).
 */
#pragma once

#include <gio/gio.h>

#include "headroom-plan-row.h"
#include "headroom-project.h"

G_BEGIN_DECLS

typedef enum
{
  HEADROOM_PLANNER_STATUS_NO_PROJECT,    /* nothing to plan */
  HEADROOM_PLANNER_STATUS_LAYOUTS,       /* the layouts list holds what fits */
  HEADROOM_PLANNER_STATUS_NOT_TRAINING,  /* an inference project */
  HEADROOM_PLANNER_STATUS_INVALID,       /* the message names the key at fault */
  HEADROOM_PLANNER_STATUS_NOTHING_FITS,  /* the message says why and what to change */
} HeadroomPlannerStatus;

#define HEADROOM_TYPE_PLANNER_STATUS (headroom_planner_status_get_type ())
GType headroom_planner_status_get_type (void) G_GNUC_CONST;

#define HEADROOM_TYPE_PLANNER (headroom_planner_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomPlanner, headroom_planner, HEADROOM, PLANNER, GObject)

HeadroomPlanner      *headroom_planner_new          (HeadroomProject *project) G_GNUC_WARN_UNUSED_RESULT;

HeadroomProject      *headroom_planner_get_project  (HeadroomPlanner *self);
/* A new project empties the undo history. */
void                  headroom_planner_set_project  (HeadroomPlanner *self,
                                                     HeadroomProject *project);
gboolean              headroom_planner_get_active   (HeadroomPlanner *self);
/* While inactive, changes are only noted; becoming active searches at
 * once if one is pending. */
void                  headroom_planner_set_active   (HeadroomPlanner *self,
                                                     gboolean         active);

/* Searches now (and cancels a pending search). Emits ::updated. */
void                  headroom_planner_refresh      (HeadroomPlanner *self);

HeadroomPlannerStatus headroom_planner_get_status   (HeadroomPlanner *self);
/* Why there are no layouts, translated; NULL with status LAYOUTS. */
const char           *headroom_planner_get_message  (HeadroomPlanner *self);
/* With status INVALID, the refusal (headroom_project_error_get_key() names
 * the setting); NULL otherwise. */
const GError         *headroom_planner_get_error    (HeadroomPlanner *self);
/* Valid layouts evaluated and those that fit, by the last search. */
gint64                headroom_planner_get_searched (HeadroomPlanner *self);
gint64                headroom_planner_get_fitting  (HeadroomPlanner *self);

/* GListModel of HeadroomPlanRow: the fastest layouts that fit, fastest
 * first, ranked 1, 2, … */
GListModel           *headroom_planner_get_layouts  (HeadroomPlanner *self);
/* GListModel of HeadroomPlanRow: the layouts no other fitting layout beats
 * in both memory per GPU and throughput, least memory first. */
GListModel           *headroom_planner_get_pareto   (HeadroomPlanner *self);

/* Writes the keys of `row`'s layout (headroom_plan_row_get_keys()) into the
 * project and records the values they replace as one undo step. Writing
 * the layout the project already has changes nothing and records nothing.
 * On error the project is left as it was. */
gboolean              headroom_planner_apply        (HeadroomPlanner *self,
                                                     HeadroomPlanRow *row,
                                                     GError         **error);
gboolean              headroom_planner_get_can_undo (HeadroomPlanner *self);
/* Undo steps recorded, most recent last. */
guint                 headroom_planner_get_n_undo   (HeadroomPlanner *self);
/* Restores the values the last applied layout replaced. */
gboolean              headroom_planner_undo         (HeadroomPlanner *self,
                                                     GError         **error);

/* The search itself (the CLI's plan): keep `max_layouts` layouts and
 * `max_pareto` front points (the window's: 100 and 64), and hold the layout
 * keys in `pinned` ("training.tensor_parallel", …; NULL: none) at the
 * project's value instead of searching them. A pinned ZeRO stage alone also
 * pins FSDP off. */
void                  headroom_planner_set_search   (HeadroomPlanner    *self,
                                                     guint               max_layouts,
                                                     guint               max_pareto,
                                                     const char * const *pinned);
/* Whether the front had more points than were kept. */
gboolean              headroom_planner_get_pareto_truncated (HeadroomPlanner *self);
/* The global batch searched for: the project's, or for 0 the micro-batch
 * times the GPUs (one micro-batch per GPU, no accumulation). */
gint64                headroom_planner_get_global_batch     (HeadroomPlanner *self);
/* "Only layouts DeepSpeed runs are searched" for a project with a
 * framework (headroom-framework.h); NULL without one. */
char                 *headroom_planner_dup_scope            (HeadroomPlanner *self) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
