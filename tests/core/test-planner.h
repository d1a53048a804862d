/* test-planner.h: models, GPUs and checks shared by the planner tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <math.h>

#include "hr-planner.h"

#define GIB 1073741824.0

/* A toy GPT whose every product has dimensions in multiples of the 128×128×64
 * tile: L = 2, h = 1024, 8 heads of 128, ffn 4h, vocabulary 32768. */
static inline void
toy_model (HrModel *m)
{
  hr_model_init (m);
  m->n_layers = 2;
  m->hidden_size = 1024;
  m->n_heads = 8;
  m->n_kv_heads = 8;
  m->head_dim = 128;
  m->ffn_size = 4096;
  m->vocab_size = 32768;
  m->max_positions = 1024;
}

/* A GPU with round figures. Memory bandwidth 1e18 B/s makes every product
 * compute-bound so that compute terms are pure FLOPs / rate. */
static inline void
toy_gpu (HrGpu *g)
{
  *g = (HrGpu) { 0 };
  g->memory_bytes = 80 * GIB;
  g->memory_bandwidth = 1e18;
  g->peak_flops[HR_DTYPE_BF16] = 100e12;
  g->intra_node_bandwidth = 100e9;
  g->inter_node_bandwidth = 10e9;
  g->inter_node_latency = 1e-5;
}

/* One GPU, one sequence of 1024, eager non-causal attention, no dropout. */
static inline void
toy_training (HrTraining *t)
{
  hr_training_init (t);
  t->nodes = 1;
  t->gpus_per_node = 1;
  t->micro_batch = 1;
  t->global_batch = 1;
  t->seq_len = 1024;
  t->precision = HR_PRECISION_BF16_MIXED;
  t->fp32_gradients = false;
  t->optimizer = HR_OPTIMIZER_ADAMW;
  t->attention = HR_ATTENTION_EAGER;
  t->causal = false;
  t->dropout = false;
  t->recompute = HR_RECOMPUTE_NONE;
  t->overhead_bytes = 0;
}

static inline void
step_ok (const HrModel           *model,
         const HrTraining        *training,
         const HrGpu             *gpu,
         const HrPlanAssumptions *as,
         HrPlanStep              *step)
{
  HrError err = { 0 };
  HrStatus status = hr_plan_step (model, training, gpu, as, step, &err);

  if (status != HR_OK)
    {
      char message[256];

      hr_error_format (&err, message, sizeof message);
      g_error ("hr_plan_step: %s", message);
    }
  g_assert_true (isfinite (step->step_seconds) && step->step_seconds > 0);
}

static inline void
assert_close (double value,
              double expected,
              double relative)
{
  if (!(fabs (value - expected) <= relative * fabs (expected)))
    g_error ("%.9g is not within %g of %.9g", value, relative, expected);
}

/* Published end-to-end runs of Megatron-LM on A100 80 GB (Selene: 8 GPUs per
 * node on NVLink/NVSwitch, eight 200 Gb/s HDR InfiniBand ports per node), GPT
 * models with seq 2048 and vocabulary 51200, 16-bit mixed precision with
 * fp32 gradient reduction, dropout, attention computed in full (no causal
 * saving) and without FlashAttention, micro-batch sizes as published.
 *
 * A100 figures as resources/gpus.json has them (a100-80gb-sxm): 312 TFLOP/s
 * dense 16-bit (also Narayanan et al. 2021 §5), 2.039 TB/s, NVLink 3 at
 * 300 GB/s per direction; 8 × 200 Gb/s HDR per 8 GPUs = 25 GB/s per GPU
 * (Korthikanti et al. 2022 §6); 5 µs per network message (assumed). */
static inline void
a100 (HrGpu *g)
{
  *g = (HrGpu) { 0 };
  g->memory_bytes = 80 * GIB;
  g->memory_bandwidth = 2.039e12;
  g->peak_flops[HR_DTYPE_BF16] = 312e12;
  g->peak_flops[HR_DTYPE_FP16] = 312e12;
  g->intra_node_bandwidth = 300e9;
  g->inter_node_bandwidth = 25e9;
  g->inter_node_latency = 5e-6;
}

static inline void
gpt (HrModel *m,
     int64_t  heads,
     int64_t  hidden,
     int64_t  layers)
{
  hr_model_init (m);
  m->n_layers = layers;
  m->hidden_size = hidden;
  m->n_heads = m->n_kv_heads = heads;
  m->head_dim = hidden / heads;
  m->ffn_size = 4 * hidden;
  m->vocab_size = 51200;
  m->max_positions = 2048;
}
