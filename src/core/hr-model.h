/* hr-model.h: a decoder-only transformer, described finely enough to count exactly
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Plain C11, no allocation. Every size is an element count; every flag says
 * whether the Hugging Face module has that tensor. Fill one with
 * hr_model_init() (GPT-style defaults), set the fields, then
 * hr_model_validate() before use. hr-config.h builds one from a Hugging Face
 * config.json.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hr-error.h"

typedef enum
{
  HR_FFN_MLP,    /* up, activation, down: 2 matrices (GELU/ReLU) */
  HR_FFN_GATED,  /* gate, up, activation·gate, down: 3 matrices (SwiGLU/GeGLU) */
} HrFfnKind;

typedef enum
{
  HR_ACT_PLAIN,  /* an activation without parameters (SiLU, GELU, ReLU²) */
  HR_ACT_XIELU,  /* xIELU (Apertus): two learned scalars in each MLP */
} HrFfnActivation;

typedef enum
{
  HR_POSITIONS_NONE,
  HR_POSITIONS_LEARNED,  /* table of max_positions + position_offset rows */
  HR_POSITIONS_ROTARY,   /* rotary_fraction of the head dim rotated; no parameters */
  HR_POSITIONS_ALIBI,    /* no parameters */
} HrPositions;

typedef enum
{
  HR_NORM_LAYERNORM,
  HR_NORM_RMSNORM,
} HrNormKind;

typedef enum
{
  HR_NORM_PRE,       /* norm before each sub-block (GPT-2, Llama) */
  HR_NORM_POST,      /* norm after the residual add (OPT-350m, BERT) */
  HR_NORM_SANDWICH,  /* norms before and after each sub-block (Gemma 2) */
} HrNormPlacement;

typedef struct
{
  /* Shape */
  int64_t n_layers;            /* num_hidden_layers */
  int64_t hidden_size;         /* hidden_size (d_model) */
  int64_t n_heads;             /* num_attention_heads (query heads) */
  int64_t n_kv_heads;          /* num_key_value_heads: = n_heads (MHA), 1 (MQA), else GQA */
  int64_t head_dim;            /* q/k/v head dimension; may differ from hidden/heads (Gemma) */
  int64_t ffn_size;            /* intermediate size of a dense MLP */
  HrFfnKind ffn_kind;
  int64_t vocab_size;

  /* Positions */
  HrPositions positions;
  int64_t max_positions;       /* rows of a learned table, before position_offset */
  int64_t position_offset;     /* extra learned rows (OPT: 2) */
  double  rotary_fraction;     /* share of head_dim rotated (NeoX 0.25, Phi-2 0.4); 1 = all */

  /* Norms */
  HrNormKind norm_kind;
  bool norm_bias;              /* LayerNorm with a bias (RMSNorm never has one) */
  HrNormPlacement norm_placement;
  int64_t norms_per_layer;     /* norm modules in one layer: 2 usually, 1 for blocks whose
                                * attention and MLP share one input norm, 4 for Gemma 2 */
  bool final_norm;             /* a norm after the last layer */

  /* Biases, per projection */
  bool qkv_bias;               /* q, k and v projections */
  bool out_bias;               /* attention output projection */
  bool mlp_bias;               /* every MLP / expert matrix */
  bool lm_head_bias;           /* output layer (Phi-2) */

  /* Embeddings and block layout */
  bool tied_embeddings;        /* the LM head reuses the token embedding */
  int64_t embed_proj_dim;      /* OPT word_embed_proj_dim; 0 or hidden_size = no projection */
  bool parallel_block;         /* attention and MLP read the same input (NeoX, Falcon, Phi) */

  /* Mixture of experts; n_experts 0 = dense */
  int64_t n_experts;           /* routed experts per MoE layer */
  int64_t experts_per_token;   /* routed experts a token uses */
  int64_t n_shared_experts;    /* experts every token uses (DeepSeek) */
  int64_t expert_ffn_size;     /* intermediate size of one routed expert */
  int64_t shared_expert_ffn_size; /* intermediate size of one shared expert */
  int64_t first_dense_layers;  /* layers before the first MoE layer (DeepSeek first_k_dense_replace) */
  int64_t moe_layer_freq;      /* after those, layer i is MoE when i % freq == 0; 1 = all */
  bool router_bias;            /* a per-expert bias in the router (GPT-OSS, ERNIE 4.5) */

  /* Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank 0 = off */
  int64_t q_lora_rank;         /* 0 = a plain q projection */
  int64_t kv_lora_rank;
  int64_t qk_rope_head_dim;
  int64_t qk_nope_head_dim;
  int64_t v_head_dim;

  /* Per-layer attention kinds (for the KV cache) */
  int64_t sliding_window;        /* tokens; 0 = every layer attends globally */
  int64_t sliding_window_period; /* <= 1: every layer windowed; p > 1: layer i is
                                  * global when i % p == p - 1 (Gemma 2: p = 2) */

  /* Added by core-model */
  bool qk_norm;                /* a norm of head_dim over each query and key head, shared
                                * across heads (Phi qk_layernorm); kind and bias as above */
  int64_t first_sliding_layer; /* layers below it attend globally whatever the window
                                * (Qwen2 max_window_layers); 0 = none */

  /* Added by models */
  bool qk_norm_full;           /* with qk_norm: q_norm over n_heads·head_dim and k_norm over
                                * n_kv_heads·head_dim (OLMo 2), not one head_dim each */
  bool attention_sinks;        /* one learned logit per query head and layer (GPT-OSS sinks) */
  bool shared_expert_gate;     /* a Linear(hidden, 1) gating the shared expert (Qwen2-MoE) */
  int64_t moe_layer_phase;     /* with moe_layer_freq f: layer i is MoE when i % f == phase
                                * (DeepSeek 0; Qwen decoder_sparse_step: f - 1) */
  bool qk_norm_unbiased;       /* q/k norms are LayerNorms without bias whatever norm_bias
                                * says (StableLM qk_layernorm) */
  bool embedding_norm;         /* a norm over hidden_size after the token embedding
                                * (BLOOM word_embeddings_layernorm) */
  bool chunked_attention;      /* the windowed layers attend within chunks of sliding_window
                                * tokens (Llama 4 attention_chunk_size), not a sliding window;
                                * either way their cache holds at most that many */
  int64_t sliding_window_offset; /* with sliding_window_period p > 1: layer i is global when
                                  * (i + offset) % p == p - 1 (GPT-Neo, global first: 1) */
  HrFfnActivation ffn_activation; /* the MLP's activation, where it holds parameters or
                                   * saves more than its input for the backward */
  int64_t attention_experts;   /* mixture of attention heads (JetMoE): this many experts
                                * each hold a q and an o projection of n_kv_heads·head_dim,
                                * a token runs n_heads / n_kv_heads of them; 0 = one q and
                                * o projection per layer */
  bool moe_output_bias;        /* one bias of hidden_size added to the routed experts'
                                * sum in each MoE layer (JetMoeMoE.bias) */
  int64_t zero_experts;        /* identity ("zero-computation") experts the router scores
                                * beside the n_experts routed ones (LongCat-Flash
                                * zero_expert_num): its weight has n_experts + zero_experts
                                * rows, they hold nothing. A token's experts_per_token may
                                * land on them; active counts every one as a routed expert,
                                * the most a token runs */
  bool sub_norms;              /* BitNet's subln: attn_sub_norm over the attention output
                                * (heads·head_dim = hidden_size) before o_proj and
                                * ffn_sub_norm over ffn_size before down_proj, each layer;
                                * dense models only */
  bool attention_gate;         /* gate_proj Linear(hidden, n_heads·head_dim, bias=False),
                                * whose sigmoid scales the attention output before o_proj
                                * (AFMoE); not with MLA or attention experts */
  int64_t index_heads;         /* DeepSeek Sparse Attention's lightning indexer in every
                                * layer (DeepSeek-V3.2 index_n_heads); 0 = none. With MLA
                                * and a q_lora_rank: wq_b Linear(q_lora_rank,
                                * heads·index_head_dim), wk Linear(hidden, index_head_dim),
                                * k_norm LayerNorm(index_head_dim) with bias, weights_proj
                                * Linear(hidden, heads), no biases; its key cache adds
                                * index_head_dim per token and layer */
  int64_t index_head_dim;
  int64_t index_topk;          /* keys the indexer keeps for each query */
} HrModel;

/* Parameter counts, exact to the parameter against the Hugging Face modules. */
typedef struct
{
  int64_t embedding;           /* token embedding (and OPT's project_in/out) */
  int64_t position_embedding;  /* learned position table */
  int64_t attention;           /* all layers: q, k, v, o (MLA: its low-rank chain and norms) */
  int64_t mlp;                 /* all layers: dense MLPs, shared and routed experts */
  int64_t routed_experts;      /* the part of mlp held by routed experts */
  int64_t router;              /* gates (and their biases) */
  int64_t norm;                /* per-layer and final norms */
  int64_t lm_head;             /* 0 when tied; its bias included */
  int64_t total;
  int64_t active;              /* per token: total less the routed experts a token skips */

  int64_t n_dense_layers;
  int64_t n_moe_layers;
  int64_t dense_layer;         /* parameters of one dense layer */
  int64_t moe_layer;           /* parameters of one MoE layer (0 when none) */

  /* Added by core-model */
  int64_t non_embedding;       /* total less embedding, position_embedding and lm_head */
  int64_t active_non_embedding; /* active less the same */
} HrParams;

void     hr_model_init        (HrModel       *model);
HrStatus hr_model_validate    (const HrModel *model,
                               HrError       *err);
HrStatus hr_model_params      (const HrModel *model,
                               HrParams      *params,
                               HrError       *err);

bool     hr_model_layer_is_moe     (const HrModel *model,
                                    int64_t        layer);
bool     hr_model_layer_is_sliding (const HrModel *model,
                                    int64_t        layer);
bool     hr_model_uses_mla         (const HrModel *model);

/* Layers of each kind, n[is_moe][is_sliding], in [first, last), counted
 * without visiting each layer (the cost is one period of the layer pattern:
 * moe_layer_freq × sliding_window_pattern at most). */
typedef struct
{
  int64_t n[2][2];
} HrLayerCounts;

void     hr_model_count_layers     (const HrModel *model,
                                    int64_t        first,
                                    int64_t        last,
                                    HrLayerCounts *counts);

/* Added by core-model */

/* head_dim, or hidden_size / n_heads when head_dim is 0 (0 if n_heads is not positive). */
int64_t  hr_model_head_dim         (const HrModel *model);

/* Added by models */

/* One English line naming the structure read from a config, for a user to
 * check against the model card: "128 experts, 8 active, no shared expert;
 * GQA, 32 query heads over 4 kv heads; q/k RMSNorm per head; pre-norm
 * RMSNorm; gated MLP; rotary; untied embeddings". Returns the length that
 * snprintf would have written. */
size_t   hr_model_describe         (const HrModel *model,
                                    char          *buf,
                                    size_t         size);
