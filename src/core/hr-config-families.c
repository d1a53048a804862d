/* hr-config-families.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The families with readers of their own, each as transformers builds it
 * (configuration_<family>.py for the defaults, modeling_<family>.py for the
 * tensors): GPT-2, GPT-NeoX, OPT, Phi, Falcon, GPT-J and CodeGen, DeepSeek
 * (MoE v1, V2, V3), MPT, BLOOM, DBRX, InternLM2, ChatGLM, GPT-Neo,
 * GPT-BigCode, OLMo, Persimmon, Nemotron and JetMoE. hr-config.c picks the
 * family by model_type and calls these; hr-config-llama.c reads the
 * Llama-style ones.
 */
#include "hr-config-reader.h"

/* GPT2Config / modeling_gpt2.py: Conv1D c_attn, c_proj, c_fc, mlp c_proj, all
 * with biases; ln_1, ln_2, ln_f LayerNorms; wpe of n_positions rows; n_inner
 * None means 4·n_embd; the head is tied unless tie_word_embeddings is false.
 * n_ctx is not read by the model: n_positions sizes wpe. */
HrStatus
hr_config_read_gpt2 (Reader  *r,
                     HrModel *m)
{
  const char *hidden_key = pick (r, "n_embd", "hidden_size");
  const char *layers_key = pick (r, "n_layer", "num_hidden_layers");
  const char *heads_key = pick (r, "n_head", "num_attention_heads");
  const char *pos_key = pick (r, "n_positions", "max_position_embeddings");
  int64_t inner;

  TRY (read_int (r, hidden_key, 768, POSITIVE, &m->hidden_size));
  TRY (read_int (r, layers_key, 12, POSITIVE, &m->n_layers));
  TRY (read_int (r, heads_key, 12, POSITIVE, &m->n_heads));
  TRY (read_int (r, "n_inner", NONE, NULLABLE | POSITIVE, &inner));
  TRY (read_int (r, "vocab_size", 50257, POSITIVE, &m->vocab_size));
  TRY (read_int (r, pos_key, 1024, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", true, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, heads_key, &m->head_dim));
  m->n_kv_heads = m->n_heads;
  if (inner == NONE && m->hidden_size > INT64_MAX / 4)
    return hr_error_set (r->err, HR_ERROR_OVERFLOW, hidden_key, m->hidden_size, 0, NULL);
  m->ffn_size = inner == NONE ? 4 * m->hidden_size : inner;
  return HR_OK;
}

/* GPTNeoXConfig / modeling_gpt_neox.py: query_key_value and dense with
 * attention_bias, dense_h_to_4h and dense_4h_to_h always with biases;
 * input_layernorm and post_attention_layernorm (both kept with the parallel
 * residual), final_layer_norm; an untied embed_out by default; rotary_pct of
 * the head dim rotated. */
HrStatus
hr_config_read_gpt_neox (Reader  *r,
                         HrModel *m)
{
  bool attention_bias;
  const char *rotary_key = pick (r, "rotary_pct", "partial_rotary_factor");

  TRY (read_int (r, "hidden_size", 6144, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 44, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 64, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", 24576, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 50432, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_fraction (r, rotary_key, 0.25, &m->rotary_fraction));
  TRY (read_bool (r, "use_parallel_residual", true, &m->parallel_block));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "attention_bias", true, &attention_bias));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  m->n_kv_heads = m->n_heads;
  m->positions = HR_POSITIONS_ROTARY;
  m->qkv_bias = m->out_bias = attention_bias;
  return HR_OK;
}

/* OPTConfig / modeling_opt.py: q, k, v, out_proj, fc1, fc2 with enable_bias;
 * OPTLearnedPositionalEmbedding of max_position_embeddings + 2 rows;
 * project_in/project_out (no bias) when word_embed_proj_dim differs from
 * hidden_size, the head then being word_embed_proj_dim wide; post-LN when
 * do_layer_norm_before is false, and the final_layer_norm only when
 * do_layer_norm_before and not _remove_final_layer_norm. */
HrStatus
hr_config_read_opt (Reader  *r,
                    HrModel *m)
{
  bool pre_ln, remove_final, enable_bias, affine;
  int64_t proj;

  TRY (read_int (r, "hidden_size", 768, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 12, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 12, POSITIVE, &m->n_heads));
  TRY (read_int (r, "ffn_dim", 3072, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 50272, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_int (r, "word_embed_proj_dim", NONE, NULLABLE | POSITIVE, &proj));
  TRY (read_bool (r, "do_layer_norm_before", true, &pre_ln));
  TRY (read_bool (r, "_remove_final_layer_norm", false, &remove_final));
  TRY (read_bool (r, "enable_bias", true, &enable_bias));
  TRY (read_bool (r, "layer_norm_elementwise_affine", true, &affine));
  TRY (read_bool (r, "tie_word_embeddings", true, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  m->n_kv_heads = m->n_heads;
  m->position_offset = 2;
  m->embed_proj_dim = (proj == NONE || proj == m->hidden_size) ? 0 : proj;
  m->norm_placement = pre_ln ? HR_NORM_PRE : HR_NORM_POST;
  m->final_norm = pre_ln && !remove_final;
  /* LayerNorm(elementwise_affine=False) holds no parameters. */
  if (!affine)
    {
      m->norms_per_layer = 0;
      m->final_norm = false;
    }
  m->qkv_bias = m->out_bias = m->mlp_bias = enable_bias;
  return HR_OK;
}

/* PhiConfig / modeling_phi.py: q_proj, k_proj, v_proj, dense, fc1, fc2 all
 * with biases; one input_layernorm (LayerNorm with bias) shared by the
 * parallel attention and MLP; final_layernorm; lm_head with a bias;
 * partial_rotary_factor of the head dim rotated; q_layernorm/k_layernorm of
 * head_dim when qk_layernorm. */
HrStatus
hr_config_read_phi (Reader  *r,
                    HrModel *m)
{
  TRY (read_int (r, "hidden_size", 2048, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 24, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", 8192, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 51200, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_fraction (r, "partial_rotary_factor", 0.5, &m->rotary_fraction));
  TRY (read_bool (r, "qk_layernorm", false, &m->qk_norm));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  TRY (read_kv_heads (r, m));
  m->positions = HR_POSITIONS_ROTARY;
  m->norms_per_layer = 1;
  m->parallel_block = true;
  m->lm_head_bias = true;
  return HR_OK;
}

/* FalconConfig / modeling_falcon.py. FalconAttention uses num_kv_heads only
 * with new_decoder_architecture or without multi_query: multi_query alone
 * means one kv head whatever num_kv_heads says (Falcon-7B), and neither
 * means as many kv heads as query heads. query_key_value, dense and the MLP
 * carry `bias`. Norms: with parallel_attn, ln_attn + ln_mlp when
 * num_ln_in_parallel_attn is 2 (its default under the new architecture),
 * else one input_layernorm; without parallel_attn, input_layernorm and
 * post_attention_layernorm. ALiBi replaces rotary when alibi is set; the
 * head is tied by default. */
HrStatus
hr_config_read_falcon (Reader  *r,
                       HrModel *m)
{
  const char *layers_key = pick (r, "num_hidden_layers", "n_layer");
  const char *heads_key = pick (r, "num_attention_heads", "n_head");
  const char *kv_key = pick (r, "num_kv_heads", "n_head_kv");
  bool alibi, new_arch, multi_query, parallel, bias;
  int64_t kv, ffn, n_ln;

  TRY (read_int (r, "hidden_size", 4544, POSITIVE, &m->hidden_size));
  TRY (read_int (r, layers_key, 32, POSITIVE, &m->n_layers));
  TRY (read_int (r, heads_key, 71, POSITIVE, &m->n_heads));
  TRY (read_int (r, kv_key, NONE, NULLABLE | POSITIVE, &kv));
  TRY (read_int (r, "vocab_size", 65024, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_int (r, "ffn_hidden_size", NONE, NULLABLE | POSITIVE, &ffn));
  TRY (read_int (r, "num_ln_in_parallel_attn", NONE, NULLABLE | POSITIVE, &n_ln));
  TRY (read_bool (r, "alibi", false, &alibi));
  TRY (read_bool (r, "new_decoder_architecture", false, &new_arch));
  TRY (read_bool (r, "multi_query", true, &multi_query));
  TRY (read_bool (r, "parallel_attn", true, &parallel));
  TRY (read_bool (r, "bias", false, &bias));
  TRY (read_bool (r, "tie_word_embeddings", true, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, heads_key, &m->head_dim));

  if (new_arch)
    m->n_kv_heads = kv == NONE ? m->n_heads : kv;
  else if (multi_query)
    m->n_kv_heads = 1;
  else
    m->n_kv_heads = m->n_heads;  /* query_key_value is 3·hidden_size wide */
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, kv_key));

  if (ffn == NONE)
    {
      if (m->hidden_size > INT64_MAX / 4)
        return hr_error_set (r->err, HR_ERROR_OVERFLOW, "hidden_size", m->hidden_size, 0, NULL);
      ffn = 4 * m->hidden_size;
    }
  m->ffn_size = ffn;
  if (n_ln == NONE && new_arch)
    n_ln = 2;
  m->parallel_block = parallel;
  m->norms_per_layer = (!parallel || n_ln == 2) ? 2 : 1;
  m->positions = alibi ? HR_POSITIONS_ALIBI : HR_POSITIONS_ROTARY;
  m->qkv_bias = m->out_bias = m->mlp_bias = bias;
  return HR_OK;
}


/* GPTJConfig / modeling_gptj.py: q_proj, k_proj, v_proj, out_proj without
 * biases; GPTJMLP fc_in and fc_out with biases (n_inner None: 4·n_embd); one
 * ln_1 (LayerNorm with bias) shared by the parallel attention and MLP; ln_f;
 * an untied lm_head with a bias; rotary_dim of the head dim rotated (None:
 * all of it). CodeGenConfig / modeling_codegen.py has the same defaults and
 * tensors: its fused qkv_proj (hidden → 3·hidden, no bias) holds q, k and v,
 * CodeGenMLP is GPTJMLP, and embed_positions is a plain tensor, no parameter. */
HrStatus
hr_config_read_gptj (Reader  *r,
                     HrModel *m)
{
  const char *hidden_key = pick (r, "n_embd", "hidden_size");
  const char *layers_key = pick (r, "n_layer", "num_hidden_layers");
  const char *heads_key = pick (r, "n_head", "num_attention_heads");
  const char *pos_key = pick (r, "n_positions", "max_position_embeddings");
  int64_t inner, rotary_dim;

  TRY (read_int (r, hidden_key, 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, layers_key, 28, POSITIVE, &m->n_layers));
  TRY (read_int (r, heads_key, 16, POSITIVE, &m->n_heads));
  TRY (read_int (r, "n_inner", NONE, NULLABLE | POSITIVE, &inner));
  TRY (read_int (r, "rotary_dim", 64, NULLABLE | POSITIVE, &rotary_dim));
  TRY (read_int (r, "vocab_size", 50400, POSITIVE, &m->vocab_size));
  TRY (read_int (r, pos_key, 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, heads_key, &m->head_dim));
  m->n_kv_heads = m->n_heads;
  if (inner == NONE && m->hidden_size > INT64_MAX / 4)
    return hr_error_set (r->err, HR_ERROR_OVERFLOW, hidden_key, m->hidden_size, 0, NULL);
  m->ffn_size = inner == NONE ? 4 * m->hidden_size : inner;
  if (rotary_dim != NONE && rotary_dim > m->head_dim)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "rotary_dim", rotary_dim, m->head_dim,
                         "wider than a head");
  m->positions = HR_POSITIONS_ROTARY;
  m->rotary_fraction = rotary_dim == NONE ? 1.0 : (double) rotary_dim / (double) m->head_dim;
  m->qkv_bias = m->out_bias = false;
  m->mlp_bias = true;
  m->norms_per_layer = 1;
  m->parallel_block = true;
  m->lm_head_bias = true;
  return HR_OK;
}

/* DeepseekConfig / modeling_deepseek.py (DeepSeek-MoE v1, remote code): Llama
 * attention with attention_bias; dense LlamaMLP-like layers of
 * intermediate_size before first_k_dense_replace and off moe_layer_freq,
 * else n_routed_experts experts of moe_intermediate_size, one shared MLP of
 * n_shared_experts × moe_intermediate_size and a bias-free gate. */
HrStatus
hr_config_read_deepseek_moe (Reader  *r,
                             HrModel *m)
{
  int64_t routed, shared;

  TRY (read_int (r, "hidden_size", 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 30, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", 11008, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 102400, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "attention_bias", false, &m->qkv_bias));
  m->out_bias = m->qkv_bias;
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  TRY (read_kv_heads (r, m));
  TRY (read_int (r, "n_routed_experts", NONE, NULLABLE | POSITIVE, &routed));
  TRY (read_int (r, "n_shared_experts", NONE, NULLABLE | NON_NEG, &shared));
  TRY (read_int (r, "moe_intermediate_size", 1407, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "first_k_dense_replace", 0, NON_NEG, &m->first_dense_layers));
  TRY (read_int (r, "moe_layer_freq", 1, POSITIVE, &m->moe_layer_freq));
  if (routed != NONE)
    {
      m->n_experts = routed;
      TRY (read_int (r, "num_experts_per_tok", NONE, POSITIVE | NULLABLE, &m->experts_per_token));
      if (m->experts_per_token == NONE)
        return hr_error_set (r->err, HR_ERROR_MISSING, "num_experts_per_tok", 0, 0, NULL);
      m->n_shared_experts = shared == NONE ? 0 : shared;
      m->shared_expert_ffn_size = m->expert_ffn_size;
    }
  llama_layout (m);
  return HR_OK;
}

/* MptConfig / modeling_mpt.py: Wqkv and out_proj, up_proj and down_proj (a
 * plain MLP of expansion_ratio·d_model), all without bias; norm_1, norm_2 and
 * norm_f LayerNorms whose bias is removed; ALiBi; tied. attn_config is
 * nested; transformers builds multi-head attention only. */
HrStatus
hr_config_read_mpt (Reader  *r,
                    HrModel *m)
{
  int64_t expansion;
  HrValue v;

  TRY (read_int (r, "d_model", 2048, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "n_layers", 24, POSITIVE, &m->n_layers));
  TRY (read_int (r, "n_heads", 16, POSITIVE, &m->n_heads));
  TRY (read_int (r, "expansion_ratio", 4, POSITIVE, &expansion));
  TRY (read_int (r, "vocab_size", 50368, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_seq_len", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", true, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "n_heads", &m->head_dim));
  lookup (r, "attn_config.attn_type", &v);
  if (v.type == HR_VALUE_STRING && strcmp (v.s, "multihead_attention") != 0)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "attn_config.attn_type", 0, 0,
                         "MPT attention other than multihead_attention");
  if (m->hidden_size > INT64_MAX / expansion)
    return hr_error_set (r->err, HR_ERROR_OVERFLOW, "expansion_ratio", expansion, 0, NULL);
  m->ffn_size = expansion * m->hidden_size;
  m->n_kv_heads = m->n_heads;
  m->positions = HR_POSITIONS_ALIBI;
  m->norm_bias = false;
  m->qkv_bias = m->out_bias = m->mlp_bias = false;
  return HR_OK;
}

/* BloomConfig / modeling_bloom.py: word_embeddings_layernorm after the
 * embedding; query_key_value and dense with biases; dense_h_to_4h and
 * dense_4h_to_h (4·hidden) with biases; LayerNorms with bias; ALiBi; tied. */
HrStatus
hr_config_read_bloom (Reader  *r,
                      HrModel *m)
{
  const char *hidden_key = pick (r, "hidden_size", "n_embed");
  const char *layers_key = pick (r, "n_layer", "num_hidden_layers");
  const char *heads_key = pick (r, "n_head", "num_attention_heads");

  TRY (read_int (r, hidden_key, 64, POSITIVE, &m->hidden_size));
  TRY (read_int (r, layers_key, 2, POSITIVE, &m->n_layers));
  TRY (read_int (r, heads_key, 8, POSITIVE, &m->n_heads));
  TRY (read_int (r, "vocab_size", 250880, POSITIVE, &m->vocab_size));
  TRY (read_bool (r, "tie_word_embeddings", true, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, heads_key, &m->head_dim));
  if (m->hidden_size > INT64_MAX / 4)
    return hr_error_set (r->err, HR_ERROR_OVERFLOW, hidden_key, m->hidden_size, 0, NULL);
  m->ffn_size = 4 * m->hidden_size;
  m->n_kv_heads = m->n_heads;
  m->positions = HR_POSITIONS_ALIBI;
  m->embedding_norm = true;
  return HR_OK;
}

/* DbrxConfig / modeling_dbrx.py: d_model, n_heads, n_layers; attn_config
 * kv_n_heads; Wqkv and out_proj without bias; norm_1, norm_2, norm_f
 * LayerNorms without bias; ffn_config: moe_num_experts experts of w1, v1, w2
 * (gated, ffn_hidden_size), moe_top_k, router Linear(d_model, experts,
 * bias=False); untied. */
HrStatus
hr_config_read_dbrx (Reader  *r,
                     HrModel *m)
{
  TRY (read_int (r, "d_model", 2048, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "n_heads", 16, POSITIVE, &m->n_heads));
  TRY (read_int (r, "n_layers", 24, POSITIVE, &m->n_layers));
  TRY (read_int (r, "vocab_size", 32000, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_seq_len", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_int (r, "attn_config.kv_n_heads", 1, POSITIVE, &m->n_kv_heads));
  TRY (read_int (r, "ffn_config.ffn_hidden_size", 3584, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "ffn_config.moe_num_experts", 4, POSITIVE, &m->n_experts));
  TRY (read_int (r, "ffn_config.moe_top_k", 1, POSITIVE, &m->experts_per_token));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "n_heads", &m->head_dim));
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, "attn_config.kv_n_heads"));
  m->expert_ffn_size = m->ffn_size;
  m->ffn_kind = HR_FFN_GATED;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_bias = false;
  m->qkv_bias = m->out_bias = m->mlp_bias = false;
  return HR_OK;
}

/* InternLM2Config / modeling_internlm2.py (remote code): fused wqkv and wo
 * with `bias`; feed_forward w1, w3, w2 without bias; attention_norm and
 * ffn_norm RMSNorms; untied output. */
HrStatus
hr_config_read_internlm2 (Reader  *r,
                          HrModel *m)
{
  bool bias;

  TRY (read_int (r, "hidden_size", 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 32, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", 11008, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 103168, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "bias", true, &bias));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  TRY (read_kv_heads (r, m));
  m->qkv_bias = m->out_bias = bias;
  llama_layout (m);
  return HR_OK;
}

/* JetMoeConfig / modeling_jetmoe.py: every layer has JetMoeAttention, a
 * mixture of attention heads (num_local_experts experts of
 * num_key_value_heads heads of kv_channels, top num_experts_per_tok, and
 * one kv_proj), and JetMoeMoE, num_local_experts gated experts of
 * intermediate_size (input_linear 2·intermediate, output_linear) with a
 * router and one output bias; two RMSNorms per layer, a final one; tied by
 * default. num_attention_heads is not read: JetMoeConfig sets it to
 * num_key_value_heads · num_experts_per_tok, the query heads a token runs.
 * head_dim is its attribute_map alias of kv_channels. */
HrStatus
hr_config_read_jetmoe (Reader  *r,
                       HrModel *m)
{
  const char *head_key = pick (r, "kv_channels", "head_dim");
  int64_t experts;

  TRY (read_int (r, "vocab_size", 32000, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "hidden_size", 2048, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 12, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_key_value_heads", 16, POSITIVE, &m->n_kv_heads));
  TRY (read_int (r, head_key, 128, POSITIVE, &m->head_dim));
  TRY (read_int (r, "intermediate_size", 5632, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "max_position_embeddings", 4096, POSITIVE, &m->max_positions));
  TRY (read_int (r, "num_local_experts", 8, POSITIVE, &experts));
  TRY (read_int (r, "num_experts_per_tok", 2, POSITIVE, &m->experts_per_token));
  TRY (read_bool (r, "tie_word_embeddings", true, &m->tied_embeddings));
  if (m->experts_per_token > experts)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok",
                         m->experts_per_token, experts, "more than num_local_experts");
  if (m->n_kv_heads > INT64_MAX / m->experts_per_token)
    return hr_error_set (r->err, HR_ERROR_OVERFLOW, "num_key_value_heads", m->n_kv_heads, 0, NULL);
  m->n_heads = m->n_kv_heads * m->experts_per_token;
  m->attention_experts = experts;
  m->n_experts = experts;
  m->moe_output_bias = true;
  m->ffn_size = m->expert_ffn_size;
  llama_layout (m);
  m->qkv_bias = m->out_bias = false;
  return HR_OK;
}

/* ChatGLMConfig / modeling_chatglm.py (remote code): query_key_value of
 * heads·kv_channels + 2·multi_query_group_num·kv_channels (with
 * multi_query_attention) with add_qkv_bias; dense, dense_h_to_4h (2 ×
 * ffn_hidden_size, SwiGLU) and dense_4h_to_h with add_bias_linear;
 * input_layernorm, post_attention_layernorm and final_layernorm (RMSNorm
 * with rmsnorm, else LayerNorm with bias; final one with post_layer_norm);
 * rotary on half of each head; untied output_layer of padded_vocab_size. */
HrStatus
hr_config_read_chatglm (Reader  *r,
                        HrModel *m)
{
  const char *layers_key = pick (r, "num_layers", "num_hidden_layers");
  bool mqa, qkv_bias, linear_bias, rmsnorm, post_ln;
  int64_t groups;

  TRY (read_int (r, "hidden_size", 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, layers_key, 28, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "kv_channels", 128, POSITIVE, &m->head_dim));
  TRY (read_int (r, "ffn_hidden_size", 13696, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "padded_vocab_size", 65024, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "seq_length", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "multi_query_attention", false, &mqa));
  TRY (read_int (r, "multi_query_group_num", 1, POSITIVE, &groups));
  TRY (read_bool (r, "add_qkv_bias", false, &qkv_bias));
  TRY (read_bool (r, "add_bias_linear", false, &linear_bias));
  TRY (read_bool (r, "rmsnorm", true, &rmsnorm));
  TRY (read_bool (r, "post_layer_norm", true, &post_ln));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  m->n_kv_heads = mqa ? groups : m->n_heads;
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, "multi_query_group_num"));
  /* SelfAttention: query_key_value bias = add_bias_linear or add_qkv_bias. */
  m->qkv_bias = qkv_bias || linear_bias;
  m->out_bias = m->mlp_bias = linear_bias;
  m->ffn_kind = HR_FFN_GATED;
  m->positions = HR_POSITIONS_ROTARY;
  m->rotary_fraction = 0.5;
  m->norm_kind = rmsnorm ? HR_NORM_RMSNORM : HR_NORM_LAYERNORM;
  m->norm_bias = !rmsnorm;
  m->final_norm = post_ln;
  return HR_OK;
}

/* DeepseekV2Config / DeepseekV3Config and their modeling files: multi-head
 * latent attention (q_proj when q_lora_rank is null, else q_a_proj,
 * q_a_layernorm, q_b_proj; kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj;
 * o_proj), dense LlamaMLP-like layers before first_k_dense_replace, then MoE
 * layers of n_routed_experts experts of moe_intermediate_size plus one
 * shared MLP of moe_intermediate_size · n_shared_experts and a bias-free
 * gate. moe_layer_freq is honoured as DeepSeek's own modeling_deepseek.py
 * does (transformers' port assumes 1, the value of every published config).
 * V3's e_score_correction_bias is a registered buffer in
 * DeepseekV3TopkRouter, not an nn.Parameter, so it is not counted. */
HrStatus
hr_config_read_deepseek (Reader  *r,
                         bool     v3,
                         HrModel *m)
{
  int64_t q_lora, routed, shared;

  TRY (read_int (r, "hidden_size", v3 ? 7168 : 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", v3 ? 61 : 32, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", v3 ? 128 : 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", v3 ? 18432 : 11008, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", v3 ? 129280 : 32000, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", v3 ? 4096 : 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "attention_bias", false, &m->qkv_bias));
  m->out_bias = m->qkv_bias;

  TRY (read_int (r, "q_lora_rank", 1536, NULLABLE | POSITIVE, &q_lora));
  TRY (read_int (r, "kv_lora_rank", 512, POSITIVE, &m->kv_lora_rank));
  TRY (read_int (r, "qk_rope_head_dim", 64, POSITIVE, &m->qk_rope_head_dim));
  TRY (read_int (r, "qk_nope_head_dim", 128, NON_NEG, &m->qk_nope_head_dim));
  TRY (read_int (r, "v_head_dim", 128, POSITIVE, &m->v_head_dim));
  m->q_lora_rank = q_lora == NONE ? 0 : q_lora;
  m->n_kv_heads = m->n_heads;  /* MLA: every head has its own k and v */
  m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;

  TRY (read_int (r, "n_routed_experts", v3 ? 256 : 64, NULLABLE | POSITIVE, &routed));
  TRY (read_int (r, "n_shared_experts", v3 ? 1 : 2, NULLABLE | NON_NEG, &shared));
  TRY (read_int (r, "moe_intermediate_size", v3 ? 2048 : 1407, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "first_k_dense_replace", v3 ? 3 : 0, NON_NEG, &m->first_dense_layers));
  TRY (read_int (r, "moe_layer_freq", 1, POSITIVE, &m->moe_layer_freq));
  if (routed != NONE)
    {
      m->n_experts = routed;
      /* DeepseekV2Config's default is None, which no MoE layer can route with. */
      TRY (read_int (r, "num_experts_per_tok", v3 ? 8 : NONE, POSITIVE | NULLABLE,
                     &m->experts_per_token));
      if (m->experts_per_token == NONE)
        return hr_error_set (r->err, HR_ERROR_MISSING, "num_experts_per_tok", 0, 0, NULL);
      TRY (check_top_k (r, m, "num_experts_per_tok", "more than n_routed_experts"));
      m->n_shared_experts = shared == NONE ? 0 : shared;
      m->shared_expert_ffn_size = m->expert_ffn_size;
    }

  llama_layout (m);
  return HR_OK;
}

/* GPT-Neo's layer kinds, walked twice: first to count the global layers
 * and find the first two, then (check) to compare every layer with the
 * pattern they give. */
typedef struct
{
  bool check;
  int64_t n_global, first, second;  /* found by the first walk (-1: none) */
  int64_t period, offset;           /* compared with by the second */
} NeoWalk;

static HrStatus
visit_neo_layer (Reader     *r,
                 NeoWalk    *w,
                 int64_t     layer,
                 const char *kind,
                 const char *key)
{
  bool global;

  if (kind != NULL && strcmp (kind, "global") == 0)
    global = true;
  else if (kind != NULL && strcmp (kind, "local") == 0)
    global = false;
  else
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, key, layer, 0,
                         "a layer kind other than global and local");
  if (w->check)
    {
      if (global != ((layer + w->offset) % w->period == w->period - 1))
        return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, key, layer, 0,
                             "a mix of global and local layers Headroom cannot represent");
    }
  else if (global)
    {
      if (w->first < 0)
        w->first = layer;
      else if (w->second < 0)
        w->second = layer;
      w->n_global++;
    }
  return HR_OK;
}

/* GPTNeoConfig.expand_attention_types_params: attention_types is a list of
 * [kinds, count] pairs, each adding its kinds count times; GPTNeoConfig
 * refuses a list that does not give num_layers kinds. With w NULL only that
 * length is checked. */
static HrStatus
walk_attention_types (Reader  *r,
                      int64_t  n_layers,
                      NeoWalk *w)
{
  HrValue v;
  char key[96];
  int64_t items, layer = 0;

  lookup (r, "attention_types", &v);
  if (v.type != HR_VALUE_OTHER || v.i < 0)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "attention_types", 0, 0,
                         "a list of [kinds, count] pairs");
  items = v.i;
  for (int64_t i = 0; i < items; i++)
    {
      int64_t count, n_kinds;

      snprintf (key, sizeof key, "attention_types.%lld.1", (long long) i);
      lookup (r, key, &v);
      if (v.type != HR_VALUE_INT || v.i < 0)
        return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "attention_types", 0, 0,
                             "a list of [kinds, count] pairs");
      count = v.i;
      snprintf (key, sizeof key, "attention_types.%lld.0", (long long) i);
      lookup (r, key, &v);
      if (v.type != HR_VALUE_OTHER || v.i < 0)
        return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "attention_types", 0, 0,
                             "a list of [kinds, count] pairs");
      n_kinds = v.i;
      for (int64_t c = 0; c < count && n_kinds > 0; c++)
        for (int64_t k = 0; k < n_kinds; k++, layer++)
          {
            if (layer >= n_layers)
              return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "attention_types", layer + 1,
                                   n_layers, "one kind per layer (num_layers)");
            if (w == NULL)
              continue;
            snprintf (key, sizeof key, "attention_types.%lld.0.%lld", (long long) i, (long long) k);
            lookup (r, key, &v);
            TRY (visit_neo_layer (r, w, layer, v.type == HR_VALUE_STRING ? v.s : NULL,
                                  "attention_types"));
          }
    }
  if (layer != n_layers)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "attention_types", layer, n_layers,
                         "one kind per layer (num_layers)");
  return HR_OK;
}

/* attention_layers, the expanded list that saved configs also hold: as a
 * kwarg it replaces the expansion of attention_types (PretrainedConfig sets
 * it after GPTNeoConfig.__init__), and GPTNeoAttention reads it. */
static HrStatus
walk_attention_layers (Reader  *r,
                       int64_t  n_layers,
                       NeoWalk *w)
{
  HrValue v;
  char key[48];

  lookup (r, "attention_layers", &v);
  if (v.type != HR_VALUE_OTHER || v.i < 0)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "attention_layers", 0, 0,
                         "a list of \"global\" or \"local\"");
  if (v.i != n_layers)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "attention_layers", v.i, n_layers,
                         "one kind per layer (num_layers)");
  for (int64_t i = 0; i < n_layers; i++)
    {
      snprintf (key, sizeof key, "attention_layers.%lld", (long long) i);
      lookup (r, key, &v);
      TRY (visit_neo_layer (r, w, i, v.type == HR_VALUE_STRING ? v.s : NULL, "attention_layers"));
    }
  return HR_OK;
}

/* GPT-Neo's layers as HrModel's pattern: none local, all local, or one
 * global layer every p at a fixed phase (the default [[["global", "local"],
 * 12]]: even layers global). A local layer attends to the last window_size
 * tokens (GPTNeoSelfAttention masks bias ^ tril(bias, -window_size)), so its
 * cache holds at most that many. */
static HrStatus
read_gpt_neo_layers (Reader  *r,
                     int64_t  window,
                     HrModel *m)
{
  NeoWalk w = { false, 0, -1, -1, 0, 0 };
  HrValue types, layers;

  lookup (r, "attention_types", &types);
  lookup (r, "attention_layers", &layers);
  /* GPTNeoConfig's default, [[["global", "local"], 12]], lists 24 layers. */
  if (types.type == HR_VALUE_ABSENT && m->n_layers != 24)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "attention_types", 24, m->n_layers,
                         "one kind per layer (num_layers)");
  if (types.type != HR_VALUE_ABSENT)
    TRY (walk_attention_types (r, m->n_layers, NULL));

  if (layers.type != HR_VALUE_ABSENT)
    TRY (walk_attention_layers (r, m->n_layers, &w));
  else if (types.type != HR_VALUE_ABSENT)
    TRY (walk_attention_types (r, m->n_layers, &w));
  else
    {
      w.n_global = 12;
      w.first = 0;
      w.second = 2;
    }

  if (w.n_global == m->n_layers)
    return HR_OK;
  m->sliding_window = window;
  if (w.n_global == 0)
    return HR_OK;
  w.period = w.second >= 0 ? w.second - w.first : m->n_layers;
  w.offset = ((w.period - 1 - w.first) % w.period + w.period) % w.period;
  w.check = true;
  if (layers.type != HR_VALUE_ABSENT)
    TRY (walk_attention_layers (r, m->n_layers, &w));
  else if (types.type != HR_VALUE_ABSENT)
    TRY (walk_attention_types (r, m->n_layers, &w));
  m->sliding_window_period = w.period;
  m->sliding_window_offset = w.offset;
  return HR_OK;
}

/* GPTNeoConfig / modeling_gpt_neo.py: attribute_map num_hidden_layers →
 * num_layers, num_attention_heads → num_heads; GPTNeoSelfAttention q_proj,
 * k_proj, v_proj without bias and out_proj with one; GPTNeoMLP c_fc and
 * c_proj (nn.Linear) with biases, intermediate_size None → 4·hidden; ln_1,
 * ln_2, ln_f LayerNorms; wte, wpe of max_position_embeddings rows; lm_head
 * tied to wte. The causal-mask `bias` and `masked_bias` are buffers. */
HrStatus
hr_config_read_gpt_neo (Reader  *r,
                        HrModel *m)
{
  const char *layers_key = pick (r, "num_layers", "num_hidden_layers");
  const char *heads_key = pick (r, "num_heads", "num_attention_heads");
  int64_t inner, window;

  TRY (read_int (r, "hidden_size", 2048, POSITIVE, &m->hidden_size));
  TRY (read_int (r, layers_key, 24, POSITIVE, &m->n_layers));
  TRY (read_int (r, heads_key, 16, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", NONE, NULLABLE | POSITIVE, &inner));
  TRY (read_int (r, "vocab_size", 50257, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_int (r, "window_size", 256, POSITIVE, &window));
  TRY (read_bool (r, "tie_word_embeddings", true, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, heads_key, &m->head_dim));
  m->n_kv_heads = m->n_heads;
  if (inner == NONE && m->hidden_size > INT64_MAX / 4)
    return hr_error_set (r->err, HR_ERROR_OVERFLOW, "hidden_size", m->hidden_size, 0, NULL);
  m->ffn_size = inner == NONE ? 4 * m->hidden_size : inner;
  m->qkv_bias = false;
  return read_gpt_neo_layers (r, window, m);
}

/* GPTBigCodeConfig / modeling_gpt_bigcode.py: GPT-2's attribute_map and
 * defaults; GPTBigCodeAttention c_attn = Linear(hidden, hidden + 2·kv_heads
 * ·head_dim) with one kv head under multi_query (default true), else one per
 * query head; c_proj, c_fc, mlp c_proj with biases; ln_1, ln_2, ln_f; wpe of
 * n_positions rows; lm_head tied by default. add_cross_attention builds
 * cross-attention (refused with multi_query by transformers), which Headroom
 * does not count. */
HrStatus
hr_config_read_gpt_bigcode (Reader  *r,
                            HrModel *m)
{
  bool multi_query, cross;

  TRY (hr_config_read_gpt2 (r, m));
  TRY (read_bool (r, "multi_query", true, &multi_query));
  TRY (read_bool (r, "add_cross_attention", false, &cross));
  if (cross)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "add_cross_attention", 0, 0,
                         "cross-attention to an encoder; Headroom estimates decoders");
  m->n_kv_heads = multi_query ? 1 : m->n_heads;
  return HR_OK;
}

/* OlmoConfig / modeling_olmo.py (OLMo 1): LlamaAttention's q, k, v, o with
 * attention_bias (default false), head_dim hidden/heads; OlmoMLP gate, up,
 * down without bias; OlmoLayerNorm holds no weight or bias (F.layer_norm
 * with None), so its input, post-attention and final norms count nothing;
 * clip_qkv clamps activations and holds nothing; untied by default. */
HrStatus
hr_config_read_olmo (Reader  *r,
                     HrModel *m)
{
  bool bias;

  TRY (read_int (r, "hidden_size", 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 32, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", 11008, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 50304, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "attention_bias", false, &bias));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  TRY (read_kv_heads (r, m));
  m->qkv_bias = m->out_bias = bias;
  m->mlp_bias = false;
  m->ffn_kind = HR_FFN_GATED;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_bias = false;
  m->norms_per_layer = 0;
  m->final_norm = false;
  return HR_OK;
}

/* PersimmonConfig / modeling_persimmon.py: query_key_value (hidden → 3·hidden)
 * and dense with biases; q_layernorm and k_layernorm, LayerNorm(head_dim)
 * with weight and bias, when qk_layernorm (default true); PersimmonMLP
 * dense_h_to_4h and dense_4h_to_h with biases (relu2, not gated);
 * input_layernorm, post_attention_layernorm, final_layernorm LayerNorms;
 * partial_rotary_factor of each head rotated; lm_head without bias, untied
 * by default. */
HrStatus
hr_config_read_persimmon (Reader  *r,
                          HrModel *m)
{
  TRY (read_int (r, "hidden_size", 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 36, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 64, POSITIVE, &m->n_heads));
  TRY (read_int (r, "intermediate_size", 16384, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 262144, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 16384, POSITIVE, &m->max_positions));
  TRY (read_fraction (r, "partial_rotary_factor", 0.5, &m->rotary_fraction));
  TRY (read_bool (r, "qk_layernorm", true, &m->qk_norm));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  m->n_kv_heads = m->n_heads;
  m->positions = HR_POSITIONS_ROTARY;
  return HR_OK;
}

/* NemotronConfig / modeling_nemotron.py: q, k, v, o_proj with
 * attention_bias, head_dim (None → hidden // heads, refused here when the
 * heads do not divide hidden_size); num_key_value_heads
 * is used as given (None cannot build NemotronAttention); NemotronMLP
 * up_proj and down_proj with mlp_bias (relu2, not gated);
 * NemotronLayerNorm1P (an nn.LayerNorm with weight and bias, applied as
 * weight + 1) as input, post-attention and final norm;
 * partial_rotary_factor of each head rotated; untied by default. */
HrStatus
hr_config_read_nemotron (Reader  *r,
                         HrModel *m)
{
  int64_t kv, head_dim;
  bool bias;

  TRY (read_int (r, "hidden_size", 6144, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 32, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 48, POSITIVE, &m->n_heads));
  TRY (read_int (r, "head_dim", NONE, NULLABLE | POSITIVE, &head_dim));
  TRY (read_int (r, "num_key_value_heads", NONE, NULLABLE | POSITIVE, &kv));
  TRY (read_int (r, "intermediate_size", 24576, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 256000, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 4096, POSITIVE, &m->max_positions));
  TRY (read_fraction (r, "partial_rotary_factor", 0.5, &m->rotary_fraction));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "attention_bias", false, &bias));
  TRY (read_bool (r, "mlp_bias", false, &m->mlp_bias));
  if (kv == NONE)
    return hr_error_set (r->err, HR_ERROR_MISSING, "num_key_value_heads", 0, 0,
                         "NemotronAttention cannot be built without it");
  if (head_dim == NONE)
    TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &head_dim));
  m->head_dim = head_dim;
  m->n_kv_heads = kv;
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, "num_key_value_heads"));
  m->qkv_bias = m->out_bias = bias;
  m->positions = HR_POSITIONS_ROTARY;
  return HR_OK;
}
