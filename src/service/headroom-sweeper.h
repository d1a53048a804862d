/* headroom-sweeper.h: one setting swept over values, off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one implementation of a sweep: the window's memory plot, the window's
 * "Export Sweep" and `headroom-cli report --sweep` (through
 * headroom_report_sweep_to_csv() and headroom_report_sweeper_to_csv()) all
 * read it. A sweeper takes a snapshot of
 * the project when it is created (later edits do not change it) and
 * estimates each value on a copy with its own estimator, either at once
 * (headroom_sweeper_compute()) or in a worker thread
 * (headroom_sweeper_compute_async(): a GTask; the estimator's idle sources
 * go to the worker's own main context, never to the main loop). The worker
 * touches only what it owns: the snapshot (immutable bytes, parsed there)
 * and its own copy of the model and GPU catalog entries, made on the
 * calling thread; never the default catalog, which that thread may edit.
 */
#pragma once

#include <gio/gio.h>

#include "headroom-project.h"
#include "headroom-report.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_SWEEPER (headroom_sweeper_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomSweeper, headroom_sweeper, HEADROOM, SWEEPER, GObject)

/* One value of the sweep. When the project refuses the value or the
 * estimate fails, `error` says why (naming the key) and the figures are 0. */
typedef struct
{
  gint64      value;
  const char *error;              /* NULL when the figures are valid */
  const char *error_key;          /* the key whose setting refuses the value; NULL when
                                   * the message names none */
  double      memory;             /* bytes on the most loaded GPU (what the GPU must hold:
                                   * a paged optimizer's evicted states left out) */
  double      capacity;           /* bytes of one GPU */
  gboolean    fits;
  double      step_seconds;       /* training: optimizer step; inference: per output token;
                                   * NaN when the time needs a measured utilisation */
  double      tokens_per_second;  /* NaN likewise */
  const double *segments;         /* bytes per memory component, as get_segment_names() */
} HeadroomSweepPoint;

HeadroomSweeper          *headroom_sweeper_new               (HeadroomProject     *project,
                                                              HeadroomSweep        axis,
                                                              const gint64        *values,
                                                              guint                n_values) G_GNUC_WARN_UNUSED_RESULT;
HeadroomSweep             headroom_sweeper_get_axis          (HeadroomSweeper     *self);
/* The snapshot's workload is training (else inference). */
gboolean                  headroom_sweeper_get_training      (HeadroomSweeper     *self);
/* "llama" when the snapshot's model is read as an assumed architecture, else NULL. */
const char               *headroom_sweeper_get_assumed_architecture (HeadroomSweeper *self);
/* TRUE when the snapshot's model is a vision-language model's language model only. */
gboolean                  headroom_sweeper_get_text_only (HeadroomSweeper *self);

/* Estimates every value now. Fails (naming the key) only when the project
 * itself is invalid; a value it refuses is a point with an error. */
gboolean                  headroom_sweeper_compute           (HeadroomSweeper     *self,
                                                              GCancellable        *cancellable,
                                                              GError             **error);
/* The same in a worker thread; the points are set when it finishes. */
void                      headroom_sweeper_compute_async     (HeadroomSweeper     *self,
                                                              GCancellable        *cancellable,
                                                              GAsyncReadyCallback  callback,
                                                              gpointer             user_data);
gboolean                  headroom_sweeper_compute_finish    (HeadroomSweeper     *self,
                                                              GAsyncResult        *result,
                                                              GError             **error);

/* After a computation: one point per value, in the order given. */
guint                     headroom_sweeper_get_n_points      (HeadroomSweeper     *self);
const HeadroomSweepPoint *headroom_sweeper_get_point         (HeadroomSweeper     *self,
                                                              guint                position);
/* The memory components' names ("weights", "activations", …), NULL-terminated. */
const char * const       *headroom_sweeper_get_segment_names (HeadroomSweeper     *self);

G_END_DECLS
