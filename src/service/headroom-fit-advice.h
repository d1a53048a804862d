/* headroom-fit-advice.h: what would make a training run that does not fit, fit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For a project whose memory per GPU exceeds the GPU's, tries the usual
 * remedies one setting at a time, each at its smallest step that fits, on a
 * copy of the project: a smaller micro-batch, recomputation, FSDP or a
 * higher ZeRO stage, tensor parallelism, more GPUs (whole nodes), each only
 * as the project's framework runs it (headroom-framework.h: torchtitan's
 * op-level SAC and FSDP, Megatron's ZeRO 1 at most). Each change that fits
 * is one HeadroomFitAdvice, in that order (cheapest in step time first:
 * a smaller micro-batch only adds accumulation steps; more GPUs add cost).
 *
 * The search takes a snapshot of the project (its bytes and its own copy of
 * the model and GPU catalog entries) on the calling thread and works on a
 * project parsed from it, as HeadroomSweeper does: in place with
 * headroom_fit_advice_search(), or in a worker thread with
 * headroom_fit_advice_search_async(), which touches nothing the caller's
 * thread owns and builds the HeadroomFitAdvice objects when it finishes,
 * on that thread. Both give the same changes.
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
/* The same in a worker thread. Cancelling `cancellable` stops the search
 * and makes _finish() fail with G_IO_ERROR_CANCELLED even when the worker
 * had finished: a caller that cancels the previous search before starting
 * the next never sees a stale result. */
void        headroom_fit_advice_search_async  (HeadroomProject     *project,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
GListModel *headroom_fit_advice_search_finish (GAsyncResult        *result,
                                               GError             **error) G_GNUC_WARN_UNUSED_RESULT;

/* What the search tries, translated, for a sentence that none is enough:
 * "a smaller micro-batch, recomputation, sharding, tensor parallelism or
 * more GPUs". */
const char *headroom_fit_advice_get_remedies (void);

/* The key to change and its new value as a file writes it ("training.zero_stage", "3"). */
const char *headroom_fit_advice_get_key     (HeadroomFitAdvice *self);
const char *headroom_fit_advice_get_value   (HeadroomFitAdvice *self);
/* One line for people, translated: "Micro-batch: 2 (now 8), 71.2 GiB per GPU". */
const char *headroom_fit_advice_get_text    (HeadroomFitAdvice *self);
/* The same line with the memory as the caller writes it ("71.2 GiB"). */
char       *headroom_fit_advice_dup_text_with (HeadroomFitAdvice *self,
                                               const char        *memory_text) G_GNUC_WARN_UNUSED_RESULT;
/* Memory per GPU with the change, bytes. */
double      headroom_fit_advice_get_memory  (HeadroomFitAdvice *self);
/* Applies the change to `project` (whose values the search started from). */
gboolean    headroom_fit_advice_apply       (HeadroomFitAdvice *self,
                                             HeadroomProject   *project,
                                             GError           **error);

G_END_DECLS
