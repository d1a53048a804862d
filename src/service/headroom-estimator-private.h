/* headroom-estimator-private.h: what HeadroomEstimator's files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * headroom-estimator.c computes a result and keeps it; headroom-estimator-rows.c
 * turns it into the lists of rows the views bind to. Only those files include this.
 */
#pragma once

#include "headroom-estimator.h"

G_BEGIN_DECLS

/* Everything one computation produces; copied into the estimator only when valid. */
typedef struct
{
  HeadroomWorkload workload;
  HrModel model;
  HrParams params;
  HrFlops flops;
  HrTraining training;
  HrTrainingMemory training_memory;
  HrTrainingTime training_time;
  HrTrainingLimits training_limits;
  gboolean has_training_limits;
  HrGpu gpu;              /* the one the estimate used: the step row's (get_step_row ()) */
  HrInference inference;
  HrInferenceMemory inference_memory;
  HrInferenceLatency latency;
  HrInferenceLimits inference_limits;
  gboolean has_inference_limits;
  HrServingPlan serving_plan;   /* the engine's start-up plan (inference) */
  HrServingLatency serving_latency;
  gboolean has_serving_latency; /* FALSE when one request does not fit the KV cache */
  gboolean power_known;   /* the GPU's board power is published (TPUs: not) */
  const char *assumed;    /* "llama" when an unknown model_type was read as assumed */
  gboolean text_only;     /* a vision-language model: its language model only */
  char structure[512];    /* hr_model_describe() */
} HeadroomEstimatorResult;

/* A paged optimizer's states that leave the GPU's figure for host memory:
 * when the run fits, those it has no room for; when it does not fit even
 * with them out, all of them, so that the rest is the least the GPU must
 * hold and its excess is the estimate's overflow. */
static inline double
headroom_estimator_paged_bytes (const HrTrainingMemory *m)
{
  return m->fits ? m->paged_out : m->pageable;
}

/* Each list from `r`, into `store`: unchanged lists are left alone, and rows
 * whose figures alone changed take the new figures in place (replace_items ()). */
void headroom_estimator_fill_params_rows     (const HeadroomEstimatorResult *r,
                                             GListStore                    *store);
void headroom_estimator_fill_memory_segments (const HeadroomEstimatorResult *r,
                                             GListStore                    *store);
void headroom_estimator_fill_flops_rows      (const HeadroomEstimatorResult *r,
                                             GListStore                    *store);
void headroom_estimator_fill_summary         (const HeadroomEstimatorResult *r,
                                             GListStore                    *store);

G_END_DECLS
