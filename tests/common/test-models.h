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

/* DeepSeek-V2-Lite's shapes: 27 layers of h 2048, MLA (kv_lora_rank 512,
 * no q_lora_rank), one dense layer of 10,944, then MoE layers of 64 routed
 * experts (6 a token) and 2 shared ones, all of 1408. */
static inline void
deepseek_v2_lite (HrModel *m)
{
  llama_like (m, 27, 2048, 16, 16, 10944, 102400);
  m->head_dim = 192;
  m->q_lora_rank = 0;
  m->kv_lora_rank = 512;
  m->qk_rope_head_dim = 64;
  m->qk_nope_head_dim = 128;
  m->v_head_dim = 128;
  m->n_experts = 64;
  m->experts_per_token = 6;
  m->n_shared_experts = 2;
  m->expert_ffn_size = 1408;
  m->shared_expert_ffn_size = 1408;
  m->first_dense_layers = 1;
  m->moe_layer_freq = 1;
}
