/* hr-config-mla.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The families built on DeepSeek-V3's multi-head latent attention that add
 * to it (hr-config-families.c reads DeepSeek-V2/V3 themselves): LongCat-Flash,
 * two attention sub-layers and zero-computation experts in each layer, and
 * DeepSeek-V3.2, a sparse-attention indexer in each. Each as its
 * configuration_<family>.py and modeling_<family>.py build it.
 */
#include "hr-config-reader.h"

/* LongcatFlashConfig / modeling_longcat_flash.py. Each of the num_layers
 * LongcatFlashDecoderLayers holds two sub-layers, each an MLA attention
 * (DeepSeek-V3's: q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa,
 * kv_a_layernorm, kv_b_proj, o_proj, attention_bias on q_a, kv_a and o)
 * and a dense LongcatFlashMLP of ffn_hidden_size (alias intermediate_size)
 * with its two RMSNorms, and one shortcut LongcatFlashMoE fed from the first
 * sub-layer: n_routed_experts (alias num_local_experts) gated experts of
 * expert_ffn_hidden_size, zero_expert_num identity experts that hold
 * nothing, and a router classifier Linear(hidden, routed + zero) with a
 * bias when router_bias; e_score_correction_bias is a buffer. Read as
 * 2·num_layers layers (as the model sets num_hidden_layers for its cache),
 * every even one MoE with its dense MLP as a shared expert of
 * ffn_hidden_size. The MTP layer (model.mtp) is not built. transformers'
 * first port built the experts as a ModuleList of n_routed_experts MLPs
 * and zero_expert_num nn.Identity, as Meituan's own code and checkpoint
 * hold them; later versions pack
 * gate_up_proj over routed + zero experts, rows the checkpoint does not
 * have and the forward never reads: not counted. */
HrStatus
hr_config_read_longcat_flash (Reader  *r,
                              HrModel *m)
{
  const char *experts_key = pick (r, "n_routed_experts", "num_local_experts");
  const char *topk_key = pick (r, "moe_topk", "num_experts_per_tok");
  const char *ffn_key = pick (r, "ffn_hidden_size", "intermediate_size");
  int64_t layers, hidden_layers, q_lora, qk_head_dim, zero;
  HrValue v;

  TRY (read_int (r, "hidden_size", 6144, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_layers", 28, POSITIVE, &layers));
  TRY (read_int (r, "num_hidden_layers", NONE, NULLABLE | POSITIVE, &hidden_layers));
  if (hidden_layers != NONE && hidden_layers != 2 * layers)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "num_hidden_layers", hidden_layers,
                         2 * layers, "other than 2 · num_layers, the attention sub-layers "
                         "LongcatFlashModel builds");
  m->n_layers = 2 * layers;
  TRY (read_int (r, "num_attention_heads", 64, POSITIVE, &m->n_heads));
  TRY (read_int (r, ffn_key, 12288, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 131072, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 131072, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "attention_bias", false, &m->qkv_bias));
  m->out_bias = m->qkv_bias;

  /* LongcatFlashMLA always runs q through q_a_proj and q_b_proj. */
  TRY (read_int (r, "q_lora_rank", 1536, NULLABLE | POSITIVE, &q_lora));
  if (q_lora == NONE)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "q_lora_rank", 0, 0,
                         "null, but LongcatFlashMLA always projects q through q_a_proj");
  m->q_lora_rank = q_lora;
  TRY (read_int (r, "kv_lora_rank", 512, POSITIVE, &m->kv_lora_rank));
  TRY (read_int (r, "qk_rope_head_dim", 64, POSITIVE, &m->qk_rope_head_dim));
  TRY (read_int (r, "qk_nope_head_dim", 128, NON_NEG, &m->qk_nope_head_dim));
  TRY (read_int (r, "v_head_dim", 128, POSITIVE, &m->v_head_dim));
  TRY (read_int (r, "qk_head_dim", NONE, NULLABLE | POSITIVE, &qk_head_dim));
  if (qk_head_dim != NONE && qk_head_dim != m->qk_nope_head_dim + m->qk_rope_head_dim)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "qk_head_dim", qk_head_dim,
                         m->qk_nope_head_dim + m->qk_rope_head_dim,
                         "other than qk_nope_head_dim + qk_rope_head_dim, which the "
                         "attention splits q into");
  m->n_kv_heads = m->n_heads;  /* MLA: every head has its own k and v */
  m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;

  TRY (read_int (r, experts_key, 512, POSITIVE, &m->n_experts));
  TRY (read_int (r, topk_key, 12, POSITIVE, &m->experts_per_token));
  TRY (read_int (r, "expert_ffn_hidden_size", 2048, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "zero_expert_num", 256, NULLABLE | NON_NEG, &zero));
  TRY (read_bool (r, "router_bias", false, &m->router_bias));
  m->zero_experts = zero == NONE ? 0 : zero;
  TRY (check_top_k (r, m, topk_key, "more than n_routed_experts"));
  lookup (r, "zero_expert_type", &v);
  if (v.type != HR_VALUE_ABSENT && v.type != HR_VALUE_NULL
      && !value_is (&v, "identity"))
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "zero_expert_type", 0, 0,
                         "other than \"identity\", the zero experts transformers builds");
  m->moe_layer_freq = 2;
  m->moe_layer_phase = 0;
  m->n_shared_experts = 1;
  m->shared_expert_ffn_size = m->ffn_size;

  llama_layout (m);
  return HR_OK;
}

/* DeepseekV32Config / modeling_deepseek_v32.py: DeepSeek-V3 (read as
 * deepseek_v3, with max_position_embeddings 163,840 by default and
 * num_local_experts the attribute_map alias of n_routed_experts) plus, in
 * every layer's attention, DeepseekV32Indexer: wq_b Linear(q_lora_rank,
 * index_n_heads·index_head_dim), wk Linear(hidden, index_head_dim), k_norm
 * LayerNorm(index_head_dim) with bias, weights_proj Linear(hidden,
 * index_n_heads), no biases. Its forward runs under no_grad: the indexer
 * saves nothing for the backward. q_lora_rank is required (the attention
 * always runs q_a_proj); mlp_layer_types must be first_k_dense_replace
 * dense layers, then sparse ones. The MTP layer (model.layers.61) is not
 * built. */
HrStatus
hr_config_read_deepseek_v32 (Reader  *r,
                             HrModel *m)
{
  HrValue v;
  int64_t q_lora;

  TRY (read_int (r, "q_lora_rank", 1536, NULLABLE | POSITIVE, &q_lora));
  if (q_lora == NONE)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "q_lora_rank", 0, 0,
                         "null, but DeepseekV32Attention always projects q through q_a_proj");
  TRY (hr_config_read_deepseek (r, true, m));
  TRY (read_int (r, "max_position_embeddings", 163840, POSITIVE, &m->max_positions));
  lookup (r, "num_local_experts", &v);
  if (v.type != HR_VALUE_ABSENT)
    {
      TRY (read_int (r, "num_local_experts", 256, POSITIVE, &m->n_experts));
      TRY (check_top_k (r, m, "num_experts_per_tok", "more than n_routed_experts"));
    }
  TRY (read_int (r, "index_n_heads", 64, POSITIVE, &m->index_heads));
  TRY (read_int (r, "index_head_dim", 128, POSITIVE, &m->index_head_dim));
  TRY (read_int (r, "index_topk", 2048, POSITIVE, &m->index_topk));
  if (m->index_head_dim < m->qk_rope_head_dim)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "index_head_dim", m->index_head_dim,
                         m->qk_rope_head_dim, "less than qk_rope_head_dim, which its keys rotate");

  /* mlp_layer_types: only the default pattern. */
  lookup (r, "mlp_layer_types", &v);
  if (v.type == HR_VALUE_OTHER && v.i >= 0)
    {
      if (v.i != m->n_layers)
        return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "mlp_layer_types", v.i, m->n_layers,
                             "one entry per layer (num_hidden_layers)");
      for (int64_t i = 0; i < v.i; i++)
        {
          char key[48];
          HrValue item;
          const char *want = i < m->first_dense_layers ? "dense" : "sparse";

          snprintf (key, sizeof key, "mlp_layer_types.%lld", (long long) i);
          lookup (r, key, &item);
          if (item.type != HR_VALUE_STRING || item.s == NULL || strcmp (item.s, want) != 0)
            return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "mlp_layer_types", i, 0,
                                 "a pattern other than first_k_dense_replace dense layers, "
                                 "then sparse ones");
        }
    }
  else if (v.type != HR_VALUE_ABSENT && v.type != HR_VALUE_NULL)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "mlp_layer_types", 0, 0, "a list");
  return HR_OK;
}
