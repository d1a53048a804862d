/* headroom-sweep-dialog.h: asks which setting to sweep, and over which range
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "headroom-report.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_SWEEP_DIALOG (headroom_sweep_dialog_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomSweepDialog, headroom_sweep_dialog, HEADROOM, SWEEP_DIALOG, AdwMessageDialog)

/* Responses: "cancel" and "export". Starts on the micro-batch (the batch
 * for inference) over the service's default range. */
HeadroomSweepDialog *headroom_sweep_dialog_new       (GtkWindow           *parent,
                                                      HeadroomProject     *project);

HeadroomSweep        headroom_sweep_dialog_get_axis  (HeadroomSweepDialog *self);
void                 headroom_sweep_dialog_set_axis  (HeadroomSweepDialog *self,
                                                      HeadroomSweep        axis);
void                 headroom_sweep_dialog_set_range (HeadroomSweepDialog *self,
                                                      gint64               from,
                                                      gint64               to);
/* The values to sweep: `from`, then doubling while at most `to`; g_free them. */
gint64              *headroom_sweep_dialog_dup_values (HeadroomSweepDialog *self,
                                                       guint               *n_values) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
