/* test-models.h: model shapes shared by the core tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "hr-model.h"

/* A Llama-style decoder: SwiGLU MLP, RMSNorm without bias, rotary positions,
 * no biases, untied LM head, head_dim = hidden / heads. */
static inline void
llama_like (HrModel *m,
            int64_t  layers,
            int64_t  hidden,
            int64_t  heads,
            int64_t  kv_heads,
            int64_t  ffn,
            int64_t  vocab)
{
  hr_model_init (m);
  m->n_layers = layers;
  m->hidden_size = hidden;
  m->n_heads = heads;
  m->n_kv_heads = kv_heads;
  m->head_dim = hidden / heads;
  m->ffn_size = ffn;
  m->ffn_kind = HR_FFN_GATED;
  m->vocab_size = vocab;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_kind = HR_NORM_RMSNORM;
  m->norm_bias = false;
  m->qkv_bias = m->out_bias = m->mlp_bias = false;
  m->tied_embeddings = false;
}
