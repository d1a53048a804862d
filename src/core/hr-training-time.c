/* hr-training-time.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A training step's time, MFU, cost and communication, and the
 * utilisation of a measured throughput (docs/training.md).
 *
 * Sources, cited where used:
 * [ZeRO]  Rajbhandari et al. 2019, "ZeRO: Memory Optimizations Toward Training
 *         Trillion Parameter Models", arXiv 1910.02054.
 * [MLM]   Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
 *         on GPU Clusters Using Megatron-LM", arXiv 2104.04473.
 * [PaLM]  Chowdhery et al. 2022, "PaLM", arXiv 2204.02311, App. B (MFU).
 */
#include "hr-training.h"
#include "hr-internal.h"
#include "hr-rates.h"

#include <math.h>
#include <string.h>

/* Time */

/* The FLOPs of a validated setting's step, the model's parameters counted. */
static HrStatus
step_flops (const HrModel    *model,
            const HrTraining *training,
            const HrParams   *params,
            HrFlops          *flops,
            HrError          *err)
{
  HrFlopsOptions options = {
    .seq_len = training->seq_len,
    .micro_batch = hr_training_global_batch (training),
    .attention = training->attention,
    .recompute = training->recompute,
    .recompute_modules = training->recompute_modules,
    .causal = training->causal,
    .finetune = &training->finetune,
    .recompute_skipped = hr_training_recompute_skipped (training, model),
  };

  return hr_flops_training_counted (model, params, &options, flops, err);
}

/* Ring all-reduce sends 2(n − 1)/n of the buffer per rank; an all-gather or a
 * reduce-scatter half of that (Patarasuk & Yuan 2009). */
static double
ring_factor (double n)
{
  return n > 1 ? 2 * (n - 1) / n : 0;
}

static double
transfer_seconds (double bytes,
                  double bandwidth)
{
  return bandwidth > 0 ? bytes / bandwidth : 0;
}

/* `memory` (or NULL): the setting's, whose rank serves where it is the first stage's. */
static void
communication (const HrModel          *model,
               const HrTraining       *t,
               const HrGpu            *gpu,
               const HrParams         *params,
               const HrTrainingMemory *memory,
               HrTrainingTime         *time)
{
  double tp = (double) t->tensor_parallel;
  double m = (double) hr_training_grad_accumulation (t);
  double gpn = (double) t->gpus_per_node;
  double dp_cp = (double) (hr_training_dp (t) * t->context_parallel);
  double dp_expert = (double) hr_training_expert_ranks (t) / (double) t->expert_parallel;
  double dp_bw, pp_bw;
  HrTrainingRank rank;
  HrStateBytes b;
  HrActShape a;
  double activation;

  hr_training_act_shape (model, t, &a);
  hr_training_state_bytes (t, &b);
  if (memory != NULL && memory->pipeline_stage == 0)
    rank = memory->rank;
  else
    hr_training_stage_rank (model, t, params, 0, &rank);
  activation = a.tokens * a.h * a.compute;

  /* TP ([MLM] §2.3): two all-reduces of the layer's b·s·h activations in the
   * forward and two in the backward (all-gather + reduce-scatter under SP,
   * the same volume), two more when the forward is recomputed in full. */
  time->tp_comm_bytes = (double) rank.layers * m * ring_factor (tp) * activation
                        * (t->recompute == HR_RECOMPUTE_FULL ? 6 : 4);
  time->tp_comm_seconds = transfer_seconds (time->tp_comm_bytes,
                                            tp <= gpn ? gpu->intra_node_bandwidth
                                                      : gpu->inter_node_bandwidth);

  /* DP ([ZeRO] §7): gradients all-reduced once per step (ZeRO-1/2: reduce-
   * scatter + all-gather, the same volume); ZeRO-3 gathers the weights again
   * in the backward: 1.5× the volume. */
  time->dp_comm_bytes = (hr_training_effective_zero_stage (t) >= 3 ? 1.5 : 1.0) * b.gradients
                        * ((double) rank.params * ring_factor (dp_cp)
                           + (double) rank.expert_params * ring_factor (dp_expert));
  /* Fine-tuning reduces the trained parameters' gradients only. */
  if (!hr_finetune_is_full (&t->finetune))
    {
      HrFinetuneParams fp;

      if (hr_finetune_params (model, &t->finetune, 2, &fp, NULL) == HR_OK)
        time->dp_comm_bytes *= (double) fp.trainable / (double) params->total;
    }
  /* Megatron orders ranks tp, cp, dp, pp: the DP group stays in a node while
   * tp · cp · dp fits in one. */
  dp_bw = tp * dp_cp <= gpn ? gpu->intra_node_bandwidth : gpu->inter_node_bandwidth;
  time->dp_comm_seconds = transfer_seconds (time->dp_comm_bytes, dp_bw);

  /* PP: each micro-batch's activations go to the next stage and their
   * gradients come back, once per virtual chunk. */
  time->pp_comm_bytes = t->pipeline_parallel > 1
                        ? 2 * m * (double) t->virtual_stages * activation : 0;
  pp_bw = hr_training_gpus (t) <= t->gpus_per_node ? gpu->intra_node_bandwidth
                                                   : gpu->inter_node_bandwidth;
  time->pp_comm_seconds = transfer_seconds (time->pp_comm_bytes, pp_bw);
}

/* hr_training_time() of a validated setting on a GPU hr_training_check_gpu() passed
 * with its peak, the model's parameters counted; `memory` is the setting's,
 * or NULL to estimate it where needed. */
HrStatus
hr_training_time_of (const HrModel          *model,
                     const HrTraining       *training,
                     const HrGpu            *gpu,
                     const HrParams         *params,
                     const HrTrainingMemory *memory,
                     HrTrainingTime         *time,
                     HrError                *err)
{
  double gpus = (double) hr_training_gpus (training);
  double m = (double) hr_training_grad_accumulation (training);
  double pp = (double) training->pipeline_parallel;
  HrStatus status;
  HrFlops flops;
  HrPlanStep step;
  HrTrainingMemory own;

  if ((status = step_flops (model, training, params, &flops, err)) != HR_OK)
    return status;

  time->tokens_per_step = (double) hr_training_global_batch (training) * (double) training->seq_len;
  time->model_flops_per_step = flops.model_flops;
  time->hardware_flops_per_step = flops.total;
  time->peak_flops = gpu->peak_flops[hr_training_compute_dtype (training)];
  if (training->tokens > 0)
    time->steps = ceil (training->tokens / time->tokens_per_step);
  if (training->mfu == 0)
    {
      /* One step-time model: the planner's prediction from the hardware
       * (docs/planner.md), so that a layout's step is the same number in the
       * plan and in the estimate. QLoRA's dequantisation is in its split.
       * It does not time a CPU optimizer step: with ZeRO-Offload the memory
       * stands and the times wait for a measured utilisation. */
      if (hr_training_cpu_optimizer (training))
        {
          time->needs_utilization = true;
          return HR_OK;
        }
      if (memory == NULL)
        {
          hr_training_memory_of (model, training, gpu, params, &own);
          memory = &own;
        }
      if ((status = hr_plan_step_counted (model, training, gpu, NULL, params, memory, &step,
                                          err)) != HR_OK)
        return status;
      time->step_seconds = step.step_seconds;
      time->host_bytes = step.host.bytes;
      time->host_seconds = step.split.host_transfer;
      time->host_after_sync = step.host_after_sync;
      time->predicted = true;
      time->attention_as_gemm = step.attention_as_gemm;
    }
  else
    {
      /* A measured utilisation applies to every FLOP the GPUs execute, the
       * recomputation included, so that recomputing costs time:
       * step = (model + recompute FLOPs) / (GPUs · peak · utilisation). The
       * achieved MFU ([PaLM] App. B: model FLOPs per second over peak) is
       * then the setting × model / hardware FLOPs; the HFU is the setting. */
      time->step_seconds = time->hardware_flops_per_step
                           / (gpus * time->peak_flops * training->mfu);
      /* QLoRA: each micro-batch dequantises the rank's frozen weights in the
       * forward, again in the backward and in a recomputed forward;
       * memory-bound, at the bandwidth the planner's memory-bound kernels
       * run at (hr-rates.h), on top of the products. */
      if (gpu->memory_bandwidth > 0)
        {
          HrPlanAssumptions as;

          hr_plan_assumptions_init (&as);
          time->dequant_seconds = m * (training->recompute == HR_RECOMPUTE_FULL ? 3 : 2)
                                  * hr_finetune_dequant_bytes (model, &training->finetune,
                                                               hr_training_compute_dtype (training))
                                  / (double) (training->tensor_parallel
                                              * training->pipeline_parallel)
                                  / hr_rates_bandwidth (gpu, as.memory_efficiency);
        }
      time->step_seconds += time->dequant_seconds;
      /* Paged-out optimizer states cross the host link twice a step, on the
       * update's stream (hr-planner.c); the utilisation set does not see
       * them. Offloaded activations overlap the passes on a side stream:
       * the measured utilisation holds what of them is exposed. */
      if (training->paged_optimizer)
        {
          if (memory == NULL)
            {
              hr_training_memory_of (model, training, gpu, params, &own);
              memory = &own;
            }
          if (memory->paged_out > 0 && !(gpu->host_bandwidth > 0))
            return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "host_bandwidth", 0, 0,
                                 "needed to page optimizer states to the host");
          time->host_bytes = 2 * memory->paged_out;
          if (time->host_bytes > 0)
            time->host_seconds = time->host_bytes / gpu->host_bandwidth;
          time->step_seconds += time->host_seconds;
        }
    }
  time->mfu = time->model_flops_per_step / (gpus * time->peak_flops * time->step_seconds);
  time->hfu = time->hardware_flops_per_step / (gpus * time->peak_flops * time->step_seconds);
  time->tokens_per_second = time->tokens_per_step / time->step_seconds;
  time->tokens_per_second_per_gpu = time->tokens_per_second / gpus;

  time->total_seconds = time->steps * time->step_seconds;
  time->gpu_hours = gpus * time->total_seconds / 3600;
  time->cost = time->gpu_hours * training->price_per_gpu_hour;
  /* kWh = W · s / 3.6e6, at board power for the whole run */
  time->energy_kwh = gpus * gpu->power_watts * time->total_seconds / 3.6e6;

  /* Pipeline bubble over the ideal step ([MLM] §2.2): (p − 1)/m for GPipe and
   * 1F1B, (p − 1)/(v·m) interleaved; ZB-H1 (p − 1)/(3m), with forward, input
   * and weight gradients taking a third each as Qi et al. 2024 (§2.1) take
   * them (the prediction's bubble_seconds uses the step model's own). Its
   * share of the real step is bubble / (1 + bubble); the MFU already
   * contains it. */
  if (training->pipeline_parallel > 1)
    {
      /* micro-batch times the bubble lasts per pipeline stage: 1, 1/v, 1/3 */
      double shrink = training->pipeline_schedule == HR_PIPELINE_INTERLEAVED
                      ? (double) training->virtual_stages
                      : training->pipeline_schedule == HR_PIPELINE_ZB_H1 ? 3 : 1;

      time->bubble_fraction = (pp - 1) / (shrink * m);
      time->bubble_seconds = time->predicted
                             ? step.split.bubble
                             : time->step_seconds * time->bubble_fraction
                               / (1 + time->bubble_fraction);
    }
  communication (model, training, gpu, params, memory, time);
  return HR_OK;
}

HrStatus
hr_training_time (const HrModel    *model,
                  const HrTraining *training,
                  const HrGpu      *gpu,
                  HrTrainingTime   *time,
                  HrError          *err)
{
  HrStatus status;
  HrParams params;

  memset (time, 0, sizeof *time);
  if ((status = hr_training_check_setting (model, training, gpu, true, &params, err)) != HR_OK)
    return status;
  return hr_training_time_of (model, training, gpu, &params, NULL, time, err);
}

/* Utilization from a measured throughput */

HrStatus
hr_training_utilization_from_tokens_per_second (const HrModel         *model,
                                                const HrTraining      *training,
                                                const HrGpu           *gpu,
                                                double                 tokens_per_second,
                                                HrTrainingUtilization *out,
                                                HrError               *err)
{
  double gpus = (double) hr_training_gpus (training);
  double peak, tokens_per_step;
  HrStatus status;
  HrParams params;
  HrFlops flops;

  memset (out, 0, sizeof *out);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (!isfinite (tokens_per_second) || tokens_per_second <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "tokens_per_second",
                         (int64_t) (isfinite (tokens_per_second) ? tokens_per_second : 0), 0,
                         "a measured throughput");
  if ((status = hr_training_check_gpu (training, gpu, true, err)) != HR_OK)
    return status;
  if ((status = hr_model_count_params (model, &params, err)) != HR_OK
      || (status = step_flops (model, training, &params, &flops, err)) != HR_OK)
    return status;

  peak = gpu->peak_flops[hr_training_compute_dtype (training)];
  tokens_per_step = (double) hr_training_global_batch (training) * (double) training->seq_len;
  out->tokens_per_second = tokens_per_second;
  out->step_seconds = tokens_per_step / tokens_per_second;
  out->mfu = flops.model_flops / out->step_seconds / (gpus * peak);
  out->hfu = flops.total / out->step_seconds / (gpus * peak);
  return HR_OK;
}

HrStatus
hr_training_utilization_from_step_seconds (const HrModel         *model,
                                           const HrTraining      *training,
                                           const HrGpu           *gpu,
                                           double                 step_seconds,
                                           HrTrainingUtilization *out,
                                           HrError               *err)
{
  double tokens_per_step = (double) hr_training_global_batch (training)
                           * (double) training->seq_len;
  HrStatus status;

  memset (out, 0, sizeof *out);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (!isfinite (step_seconds) || step_seconds <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "step_seconds",
                         (int64_t) (isfinite (step_seconds) ? step_seconds : 0), 0,
                         "a measured step time");
  return hr_training_utilization_from_tokens_per_second (model, training, gpu,
                                                         tokens_per_step / step_seconds,
                                                         out, err);
}
