/* headroom-flops-row.h: one component of the FLOPs table (a list-model item)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_FLOPS_ROW (headroom_flops_row_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomFlopsRow, headroom_flops_row, HEADROOM, FLOPS_ROW, GObject)

HeadroomFlopsRow *headroom_flops_row_new (const char *name,
                                          const char *label,
                                          double      forward,
                                          double      backward,
                                          double      recompute,
                                          double      share) G_GNUC_WARN_UNUSED_RESULT;

/* hr_flops_component_name(), or "total" for the last row */
const char *headroom_flops_row_get_name      (HeadroomFlopsRow *self);
const char *headroom_flops_row_get_label     (HeadroomFlopsRow *self);
/* FLOPs of one step (training) or of the prefill (inference) */
double      headroom_flops_row_get_forward   (HeadroomFlopsRow *self);
double      headroom_flops_row_get_backward  (HeadroomFlopsRow *self);
double      headroom_flops_row_get_recompute (HeadroomFlopsRow *self);
/* forward + backward + recompute */
double      headroom_flops_row_get_total     (HeadroomFlopsRow *self);
/* total / the step's total, in [0, 1] */
double      headroom_flops_row_get_share     (HeadroomFlopsRow *self);

G_END_DECLS
