/* headroom-plan-row.h: one layout found by the planner (a list-model item)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The getters give the window everything it shows of a layout in GLib
 * types: counts, seconds, bytes, and the enumerations by the names the
 * project file writes ("selective", "grad-op") or the planner gives them
 * ("communication", "tp").
 */
#pragma once

#include <glib-object.h>

#include "hr-planner.h"

G_BEGIN_DECLS

/* The parts of a step's time, in the order they add up. */
typedef enum
{
  HEADROOM_PLAN_PART_COMPUTE,        /* matrix products */
  HEADROOM_PLAN_PART_MEMORY_BOUND,   /* norms, activations, softmax, residual adds */
  HEADROOM_PLAN_PART_RECOMPUTE,      /* forward work repeated in the backward pass */
  HEADROOM_PLAN_PART_COMMUNICATION,  /* communication left exposed after overlap */
  HEADROOM_PLAN_PART_BUBBLE,         /* pipeline fill and drain */
  HEADROOM_PLAN_PART_OPTIMIZER,      /* optimizer update */
  HEADROOM_PLAN_PART_HOST_TRANSFER,  /* host link: paged-out optimizer states, offloaded activations */
  HEADROOM_PLAN_N_PARTS
} HeadroomPlanPart;

#define HEADROOM_TYPE_PLAN_ROW (headroom_plan_row_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomPlanRow, headroom_plan_row, HEADROOM, PLAN_ROW, GObject)

/* `rank` is the layout's place in its list, 1 for the first. */
HeadroomPlanRow    *headroom_plan_row_new                   (const HrPlanLayout *layout,
                                                             guint               rank) G_GNUC_WARN_UNUSED_RESULT;

/* The whole result, for the service and tests; the window uses the getters. */
const HrPlanLayout *headroom_plan_row_get_layout            (HeadroomPlanRow    *self);
guint               headroom_plan_row_get_rank              (HeadroomPlanRow    *self);

gint64              headroom_plan_row_get_tensor_parallel   (HeadroomPlanRow    *self);
gint64              headroom_plan_row_get_pipeline_parallel (HeadroomPlanRow    *self);
/* Model chunks per pipeline stage: 1 for plain 1F1B, > 1 interleaved. */
gint64              headroom_plan_row_get_virtual_stages    (HeadroomPlanRow    *self);
gint64              headroom_plan_row_get_data_parallel     (HeadroomPlanRow    *self);
gint64              headroom_plan_row_get_context_parallel  (HeadroomPlanRow    *self);
gint64              headroom_plan_row_get_expert_parallel   (HeadroomPlanRow    *self);
gint64              headroom_plan_row_get_micro_batch       (HeadroomPlanRow    *self);
int                 headroom_plan_row_get_zero_stage        (HeadroomPlanRow    *self);
/* The training.fsdp value: "none", "full", "grad-op" or "hybrid". */
const char         *headroom_plan_row_get_fsdp              (HeadroomPlanRow    *self);
gboolean            headroom_plan_row_get_sequence_parallel (HeadroomPlanRow    *self);
/* The training.recompute value: "none", "selective", "op-selective" or "full". */
const char         *headroom_plan_row_get_recompute         (HeadroomPlanRow    *self);

/* Bytes on the most loaded GPU, and one GPU's memory. */
double              headroom_plan_row_get_memory            (HeadroomPlanRow    *self);
double              headroom_plan_row_get_memory_capacity   (HeadroomPlanRow    *self);
double              headroom_plan_row_get_step_seconds      (HeadroomPlanRow    *self);
/* Model FLOPs utilisation, a fraction. */
double              headroom_plan_row_get_mfu               (HeadroomPlanRow    *self);
double              headroom_plan_row_get_tokens_per_second (HeadroomPlanRow    *self);
/* What limits the layout: "compute", "memory", "communication" or "bubble". */
const char         *headroom_plan_row_get_bound             (HeadroomPlanRow    *self);

/* The part's name as the window's legend and the CLI show it ("Compute"). */
const char         *headroom_plan_part_get_label            (HeadroomPlanPart    part);
/* Its name in JSON ("compute", "memory_bound", … "host_transfer"). */
const char         *headroom_plan_part_get_name             (HeadroomPlanPart    part);

/* Seconds of one part of the step; the parts add up to the step time. */
double              headroom_plan_row_get_part_seconds      (HeadroomPlanRow    *self,
                                                             HeadroomPlanPart    part);
/* The communication of kind `index` (0, 1, … in the order "tp", "pp", "dp",
 * "cp", "ep"): its name, link seconds per step and the part left exposed.
 * Returns FALSE past the last kind. */
gboolean            headroom_plan_row_get_comm              (HeadroomPlanRow    *self,
                                                             guint               index,
                                                             const char        **name,
                                                             double             *seconds,
                                                             double             *exposed);

/* A part's derivation with this layout's values, its assumption and
 * source, one per line: the Plan view's "show why". */
char               *headroom_plan_row_dup_explanation       (HeadroomPlanRow    *self,
                                                             HeadroomPlanPart    part) G_GNUC_WARN_UNUSED_RESULT;

/* The project keys a layout sets, NULL-terminated. */
const char * const *headroom_plan_row_get_keys              (void);
/* The value of one of those keys in this layout, as a project file writes
 * it ("4", "interleaved", "true"). */
char               *headroom_plan_row_dup_value             (HeadroomPlanRow    *self,
                                                             const char         *key) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
