/* headroom-report.h: CSV reports of an estimate and of a sweep
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RFC 4180 CSV: comma separated, CRLF line ends, fields holding a comma, a
 * quote or a line break are quoted with inner quotes doubled. UTF-8. Numbers
 * are written in the C locale whatever the user's (a '.' decimal point), bytes
 * and parameter counts as integers.
 */
#pragma once

#include <gio/gio.h>

#include "headroom-comparison.h"
#include "headroom-estimator.h"
#include "headroom-project.h"

G_BEGIN_DECLS

typedef enum
{
  HEADROOM_SWEEP_MICRO_BATCH,  /* training.micro_batch or inference.batch */
  HEADROOM_SWEEP_SEQ_LEN,      /* training.seq_len or inference.prompt */
  HEADROOM_SWEEP_GPUS,         /* hardware.nodes × hardware.gpus_per_node */
} HeadroomSweep;

/* The report of the estimator's current result: inputs, parameters, FLOPs,
 * memory, time and cost (or latency and cost). Every row has the same number
 * of fields; each block starts with a header row whose first field is
 * "section" and whose column names carry the units. Fails (naming the key at
 * fault) when the estimator's project is invalid. */
char    *headroom_report_to_csv      (HeadroomEstimator  *estimator,
                                      GError            **error) G_GNUC_WARN_UNUSED_RESULT;

/* One row per value of `axis` (a HeadroomSweeper computed at once): memory per GPU by component, whether it fits,
 * step time (time per output token for inference) and throughput. A value the
 * project cannot take gives a row with the error and empty figures. The
 * project itself is not changed. */
char    *headroom_report_sweep_to_csv (HeadroomProject   *project,
                                       HeadroomSweep      axis,
                                       const gint64      *values,
                                       guint              n_values,
                                       GError           **error) G_GNUC_WARN_UNUSED_RESULT;

typedef struct _HeadroomSweeper HeadroomSweeper;

/* The same CSV from a sweeper's points (headroom-sweeper.h), computed
 * beforehand, e.g. off the main thread. */
char    *headroom_report_sweeper_to_csv (HeadroomSweeper *sweeper) G_GNUC_WARN_UNUSED_RESULT;

/* Powers of two around the project's current value (micro-batch 1–64,
 * sequence 1024–131072 tokens, GPUs from one node up to 128 nodes); free with g_free. */
gint64  *headroom_report_sweep_default_values (HeadroomProject *project,
                                               HeadroomSweep    axis,
                                               guint           *n_values) G_GNUC_WARN_UNUSED_RESULT;

/* "micro_batch", "seq_len", "gpus"; from_name returns FALSE for others. */
const char *headroom_sweep_to_name   (HeadroomSweep  axis);
gboolean    headroom_sweep_from_name (const char    *name,
                                      HeadroomSweep *axis);

/* A comparison with one column per project after three of the figure's id,
 * label and unit: a row per figure (numbers as the report writes them, fits
 * as true or false, empty where a column has none), then "workload",
 * "baseline" (true for the baseline's column), "differs_from_baseline" (the
 * labels of the settings that differ, separated by "; ") and "error". */
char    *headroom_report_comparison_to_csv (HeadroomComparison *comparison) G_GNUC_WARN_UNUSED_RESULT;

/* Writes `text` to `file` atomically. */
gboolean headroom_report_save (const char    *text,
                               GFile         *file,
                               GError       **error);

G_END_DECLS
