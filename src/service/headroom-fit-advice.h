/* headroom-fit-advice.h: what would make a training run that does not fit, fit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For a project whose memory per GPU exceeds the GPU's, tries the usual
 * remedies one setting at a time, each at its smallest step that fits, on a
 * copy of the project: a smaller micro-batch, recomputation, a higher ZeRO
 * stage, tensor parallelism, more GPUs (whole nodes). Each change that fits
 * is one HeadroomFitAdvice, in that order (cheapest in step time first:
 * a smaller micro-batch only adds accumulation steps; more GPUs add cost).
 */
#pragma once

#include <gio/gio.h>

#include "headroom-project.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_FIT_ADVICE (headroom_fit_advice_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomFitAdvice, headroom_fit_advice, HEADROOM, FIT_ADVICE, GObject)

/* The changes that make `project` fit, as a GListModel of HeadroomFitAdvice;
 * empty when it fits already, is invalid or is not a training project, or
 * when no single change is enough. */
GListModel *headroom_fit_advice_search      (HeadroomProject   *project) G_GNUC_WARN_UNUSED_RESULT;

/* The key to change and its new value as a file writes it ("training.zero_stage", "3"). */
const char *headroom_fit_advice_get_key     (HeadroomFitAdvice *self);
const char *headroom_fit_advice_get_value   (HeadroomFitAdvice *self);
/* One line for people, translated: "Micro-batch 2 (from 8): 71.2 GiB per GPU". */
const char *headroom_fit_advice_get_text    (HeadroomFitAdvice *self);
/* Memory per GPU with the change, bytes. */
double      headroom_fit_advice_get_memory  (HeadroomFitAdvice *self);
/* Applies the change to `project` (whose values the search started from). */
gboolean    headroom_fit_advice_apply       (HeadroomFitAdvice *self,
                                             HeadroomProject   *project,
                                             GError           **error);

G_END_DECLS
