/* hr-internal.h: what the core's files call in one another
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The public calls past the checks their caller has already made: a
 * training estimate validates the model and the setting and counts the
 * parameters once, not in every call it makes. For src/core only.
 */
#pragma once

#include "hr-flops.h"
#include "hr-planner.h"

/* hr_model_params() of a model hr_model_validate() accepted. */
HrStatus hr_model_count_params (const HrModel *model,
                                HrParams      *params,
                                HrError       *err);

/* hr_flops_training() with the model's parameters counted (which validates it). */
HrStatus hr_flops_training_counted (const HrModel        *model,
                                    const HrParams       *params,
                                    const HrFlopsOptions *options,
                                    HrFlops              *flops,
                                    HrError              *err);

/* hr_plan_step() of a setting hr_training_validate() accepted, with its
 * model's parameters counted and its memory (hr_training_memory()). */
HrStatus hr_plan_step_counted (const HrModel           *model,
                               const HrTraining        *training,
                               const HrGpu             *gpu,
                               const HrPlanAssumptions *assumptions,
                               const HrParams          *params,
                               const HrTrainingMemory  *memory,
                               HrPlanStep              *step,
                               HrError                 *err);

/* Whether the interleaved schedule runs m micro-batches a step: at least
 * pp of them, in rounds of equal size (Megatron: a multiple of pp;
 * torch.distributed.pipelining's ScheduleInterleaved1F1B: m a multiple of
 * max(1, m / pp) rounds). */
bool     hr_training_interleaved_micro_batches (const HrTraining *training,
                                                int64_t           m);

/* Whether every pipeline rank holds the same layers in chunks of one size:
 * pp · v dividing the layers and no first or last stage sizes. */
bool     hr_training_even_stages (const HrTraining *training,
                                  int64_t           n_layers);
