/* headroom-estimator.h: the estimates of a project, kept up to date
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The estimator watches its project and recomputes once per burst of
 * changes (from an idle source), then emits ::updated. When the project is
 * invalid, :error names the key at fault and the last valid result stays
 * in place, so the window never shows NaN or an empty chart.
 *
 * Properties (read-only unless noted; all notify): project (read-write),
 * error (string, NULL when valid), has-result (boolean), total-params,
 * active-params (double), memory-bytes (double, per GPU), memory-capacity
 * (double, bytes of one GPU), fits (boolean), step-seconds, total-seconds,
 * cost, tokens-per-second (double), mfu-override (boolean: a training time
 * comes from the utilisation set, training.mfu > 0, not from the hardware
 * prediction; every place that shows a time says so). For inference, step-seconds is the time
 * per output token, total-seconds the end-to-end latency and cost the cost
 * of one million generated tokens.
 */
#pragma once

#include <gio/gio.h>

#include "headroom-plan-row.h"
#include "headroom-project.h"
#include "hr-flops.h"
#include "hr-inference.h"
#include "hr-model.h"
#include "hr-serving.h"
#include "hr-training.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_ESTIMATOR (headroom_estimator_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomEstimator, headroom_estimator, HEADROOM, ESTIMATOR, GObject)

HeadroomEstimator *headroom_estimator_new (HeadroomProject *project) G_GNUC_WARN_UNUSED_RESULT;

HeadroomProject *headroom_estimator_get_project (HeadroomEstimator *self);
void             headroom_estimator_set_project (HeadroomEstimator *self,
                                                 HeadroomProject   *project);

/* Recomputes at once (and cancels a pending coalesced recompute); for the
 * CLI and tests. Emits ::updated. */
void             headroom_estimator_recompute_now (HeadroomEstimator *self);

/* One line naming the key at fault, translated; NULL when the project is valid. */
const char      *headroom_estimator_get_error      (HeadroomEstimator *self);
/* The same error as a GError, whose key headroom_project_error_get_key()
 * gives (NULL when it names none); NULL when the project is valid. */
const GError    *headroom_estimator_get_error_detail (HeadroomEstimator *self);
/* Whether any valid result has been computed (the getters below hold it). */
gboolean         headroom_estimator_get_has_result (HeadroomEstimator *self);

/* The last valid result. */
HeadroomWorkload headroom_estimator_get_workload  (HeadroomEstimator *self);
const HrModel   *headroom_estimator_get_model     (HeadroomEstimator *self);
const HrParams  *headroom_estimator_get_params    (HeadroomEstimator *self);
/* Training: one micro-batch step on the whole model. Inference: the prefill
 * of one batch: forward only (backward and recompute 0, total = forward =
 * hr_flops_prefill(), the LM head on the last position of each sequence),
 * per_token per prompt token, and no 6N / PaLM training rules (0). The
 * FLOPs of a decode step are get_inference_latency()->decode_flops. */
const HrFlops   *headroom_estimator_get_flops     (HeadroomEstimator *self);

/* Training results (zero for an inference project) and inference results. */
const HrTrainingMemory   *headroom_estimator_get_training_memory    (HeadroomEstimator *self);
const HrTrainingTime     *headroom_estimator_get_training_time      (HeadroomEstimator *self);
const HrInferenceMemory  *headroom_estimator_get_inference_memory   (HeadroomEstimator *self);
const HrInferenceLatency *headroom_estimator_get_inference_latency  (HeadroomEstimator *self);

/* GListModel of HeadroomQuantity (unit "parameters"): embedding, attention, … total */
GListModel      *headroom_estimator_get_params_rows     (HeadroomEstimator *self);
/* GListModel of HeadroomQuantity (unit "bytes"): the memory of one GPU by
 * component, in a fixed order (weights first), for the stacked bar; with
 * offloaded optimizer states, parameters or activations (full training),
 * then their host memory, in segments whose names start with "cpu_" */
GListModel      *headroom_estimator_get_memory_segments (HeadroomEstimator *self);
/* GListModel of HeadroomFlopsRow: one per HrFlopsComponent, then "total" */
GListModel      *headroom_estimator_get_flops_rows      (HeadroomEstimator *self);
/* GListModel of HeadroomQuantity: time, throughput, cost and limits */
GListModel      *headroom_estimator_get_summary         (HeadroomEstimator *self);

double           headroom_estimator_get_total_params     (HeadroomEstimator *self);
double           headroom_estimator_get_active_params    (HeadroomEstimator *self);
const char      *headroom_estimator_get_structure        (HeadroomEstimator *self);
const char      *headroom_estimator_get_assumed_architecture (HeadroomEstimator *self);
gboolean         headroom_estimator_get_text_only        (HeadroomEstimator *self);
double           headroom_estimator_get_memory_bytes     (HeadroomEstimator *self);
double           headroom_estimator_get_memory_on_gpu    (HeadroomEstimator *self);
double           headroom_estimator_get_memory_capacity  (HeadroomEstimator *self);
gboolean         headroom_estimator_get_fits             (HeadroomEstimator *self);
double           headroom_estimator_get_step_seconds     (HeadroomEstimator *self);
double           headroom_estimator_get_total_seconds    (HeadroomEstimator *self);
double           headroom_estimator_get_cost             (HeadroomEstimator *self);
double           headroom_estimator_get_tokens_per_second (HeadroomEstimator *self);
/* The serving engine's start-up plan (inference; zeros for training). */
const HrServingPlan *headroom_estimator_get_serving_plan (HeadroomEstimator *self);
double           headroom_estimator_get_kv_capacity_tokens (HeadroomEstimator *self);
double           headroom_estimator_get_max_concurrency    (HeadroomEstimator *self);
double           headroom_estimator_get_usable_memory      (HeadroomEstimator *self);
/* Training: TRUE when the step time (and MFU, training time, GPU-hours,
 * cost) comes from the utilisation set (training.mfu > 0) rather than the
 * hardware prediction, the planner's step model. */
gboolean         headroom_estimator_get_mfu_override       (HeadroomEstimator *self);
gboolean         headroom_estimator_get_needs_utilization  (HeadroomEstimator *self);
/* Training: where the times come from, for a label next to them:
 * "Predicted from the hardware: …" (headroom_dup_prediction_band()) or
 * "From the utilisation set (40 %)"; NULL for inference or without a result. */
char            *headroom_estimator_dup_time_basis         (HeadroomEstimator *self) G_GNUC_WARN_UNUSED_RESULT;
/* What published runs of the project's kind reached of the step model's
 * predicted throughput, as fractions (docs/planner.md, "Check against
 * measured runs"): runs of MoE models, Megatron runs of dense models, or
 * PyTorch runs of dense models. The tests of those runs hold every one in it. */
void             headroom_prediction_band                  (HeadroomProject   *project,
                                                            double            *low,
                                                            double            *high);
/* The same, said wherever a predicted time is shown: "published runs of
 * PyTorch frameworks (…) reached between 52 and 126 % of such predictions". */
char            *headroom_dup_prediction_band              (HeadroomProject   *project) G_GNUC_WARN_UNUSED_RESULT;

/* A figure's derivation with the project's values substituted, the
 * assumption it rests on and its source, one per line (headroom-explain.c):
 * id "memory.<segment>", "flops.<component>" or "summary.<quantity>";
 * NULL when unknown. The window's "show why" and the CLI's --explain. */
char            *headroom_estimator_dup_explanation (HeadroomEstimator *self,
                                                     const char        *id) G_GNUC_WARN_UNUSED_RESULT;

/* The limits of the last result (largest micro-batch or batch, longest
 * sequence, fewest GPUs); NULL when the core could not bound them. */
const HrTrainingLimits  *headroom_estimator_get_training_limits  (HeadroomEstimator *self);
const HrInferenceLimits *headroom_estimator_get_inference_limits (HeadroomEstimator *self);
/* Continuous batching of the inference batch; NULL when one request does not fit. */
const HrServingLatency  *headroom_estimator_get_serving_latency  (HeadroomEstimator *self);
/* The predicted step of a training result, split as the Plan view splits a
 * layout's; NULL when the step time is not predicted. */
HeadroomPlanRow *headroom_estimator_get_step_row (HeadroomEstimator *self);
/* Whether the GPU's board power is published (energy is unknown otherwise). */
gboolean         headroom_estimator_get_power_known (HeadroomEstimator *self);
/* The MFU and HFU of a measured run of the last training result: from its
 * tokens per second when above 0, else from its step time. */
gboolean         headroom_estimator_measure_training (HeadroomEstimator      *self,
                                                      double                  tokens_per_second,
                                                      double                  step_seconds,
                                                      HrTrainingUtilization  *out,
                                                      GError                **error);

G_END_DECLS
