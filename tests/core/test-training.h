/* test-training.h: models, GPUs and checks shared by the training tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <math.h>
#include <string.h>

#include "hr-training.h"

#include "test-models.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

static inline void
assert_near (double expected,
             double actual,
             double relative)
{
  if (fabs (actual - expected) > relative * fabs (expected))
    g_error ("expected %.6g, got %.6g (%.2f%% off, allowed %.2f%%)", expected, actual,
             100 * (actual - expected) / expected, 100 * relative);
}

static inline void
gpt_like (HrModel *m,
          int64_t  layers,
          int64_t  hidden,
          int64_t  heads,
          int64_t  ffn,
          int64_t  vocab)
{
  hr_model_init (m);
  m->n_layers = layers;
  m->hidden_size = hidden;
  m->n_heads = heads;
  m->n_kv_heads = heads;
  m->head_dim = hidden / heads;
  m->ffn_size = ffn;
  m->vocab_size = vocab;
}

/* A GPU with round figures, so that times are easy to derive. */
static inline void
round_gpu (HrGpu *gpu)
{
  memset (gpu, 0, sizeof *gpu);
  gpu->memory_bytes = 80 * GIB;
  gpu->memory_bandwidth = 2e12;
  for (int i = 0; i < HR_DTYPE_N; i++)
    gpu->peak_flops[i] = 1e12;
  gpu->intra_node_bandwidth = 100e9;
  gpu->inter_node_bandwidth = 25e9;
  gpu->power_watts = 500;
}

static inline void
one_gpu (HrTraining *t)
{
  hr_training_init (t);
  t->nodes = 1;
  t->gpus_per_node = 1;
  /* The derivations count a Hugging Face-style SwiGLU, run eagerly: gate,
   * silu(gate), up and their product saved (4·T·ffn). */
  t->glu_kernel = HR_GLU_KERNEL_EAGER;
}

static inline double
states (const HrTrainingMemory *m)
{
  return m->weights + m->master_weights + m->gradients + m->optimizer;
}

static inline void
memory_ok (const HrModel    *model,
           const HrTraining *t,
           const HrGpu      *gpu,
           HrTrainingMemory *memory)
{
  HrError err = { 0 };

  g_assert_cmpint (hr_training_memory (model, t, gpu, memory, &err), ==, HR_OK);
}

static inline void
activations_ok (const HrModel         *model,
                const HrTraining      *t,
                HrTrainingActivations *act)
{
  HrError err = { 0 };

  g_assert_cmpint (hr_training_validate (t, model, &err), ==, HR_OK);
  g_assert_cmpint (hr_training_activations (model, t, 0, act, &err), ==, HR_OK);
}

/* Llama-2-7B: h 4096, 32 layers, 32 heads, ffn 11008, vocab 32000. */
static inline void
llama2_7b (HrModel *m)
{
  llama_like (m, 32, 4096, 32, 32, 11008, 32000);
}

static inline void
moe_model (HrModel *m)
{
  /* 2 MoE layers, h 64, 8 experts of ffn 32, top-2 */
  llama_like (m, 2, 64, 4, 4, 128, 256);
  m->n_experts = 8;
  m->experts_per_token = 2;
  m->expert_ffn_size = 32;
  m->moe_layer_freq = 1;
}

/* The measured GPT-2-style model of measured-small.json: h 256, 2 layers,
 * 4 heads, ffn 1024, vocab 2048, b 2, s 128; its measured matrix FLOPs (full
 * s×s attention, so causal = false here) are 1,140,850,688 forward and
 * 2,281,701,376 backward: 3,422,552,064 per step of 256 tokens. */
static inline void
measured_gpt2 (HrModel    *model,
               HrTraining *t)
{
  gpt_like (model, 2, 256, 4, 1024, 2048);
  model->max_positions = 512;
  one_gpu (t);
  t->micro_batch = 2;
  t->seq_len = 128;
  t->causal = false;
  t->attention = HR_ATTENTION_EAGER;
}
