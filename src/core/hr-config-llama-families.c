/* hr-config-llama-families.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the Llama-style families of 2024 and 2025 add to the Llama reader
 * (hr-config-llama.c), each as its configuration_<family>.py and
 * modeling_<family>.py build it: Qwen-MoE, GLM-4, GLM-4.5, GLM-4.1V, Cohere2,
 * EXAONE 4, ERNIE 4.5 MoE, Hunyuan MoE, dots.llm1, Arcee, Apertus, GLM,
 * Helium, Ministral, FlexOlmo, VaultGemma, GraniteMoeShared, Granite
 * 4.0's all-attention GraniteMoeHybrid, MiniMax-M2 and AFMoE (Arcee
 * Trinity).
 */
#include "hr-config-reader.h"

/* Qwen2MoeSparseMoeBlock / Qwen3MoeSparseMoeBlock: a bias-free gate Linear(hidden,
 * num_experts) and num_experts MLPs of moe_intermediate_size; the decoder layer
 * is MoE when (layer_idx + 1) % decoder_sparse_step == 0 and it is not in
 * mlp_only_layers. */
HrStatus
hr_config_llama_read_qwen_moe (Reader  *r,
                               bool     v3,
                               HrModel *m)
{
  int64_t step;

  TRY (read_int (r, "num_experts", v3 ? 128 : 60, POSITIVE, &m->n_experts));
  TRY (read_int (r, "num_experts_per_tok", v3 ? 8 : 4, POSITIVE, &m->experts_per_token));
  TRY (read_int (r, "moe_intermediate_size", v3 ? 768 : 1408, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "decoder_sparse_step", 1, POSITIVE, &step));
  TRY (hr_config_require_empty_list (r, "mlp_only_layers"));
  TRY (check_top_k (r, m, "num_experts_per_tok", "more than num_experts"));
  m->moe_layer_freq = step;
  m->moe_layer_phase = step - 1;
  return HR_OK;
}

/* Cohere2Config / Exaone4Config: without layer_types, layer i attends within
 * sliding_window unless (i + 1) % sliding_window_pattern == 0, which is
 * HrModel's period (a pattern of 1 leaves every layer global). */
static void
set_window_pattern (int64_t  window,
                    int64_t  pattern,
                    HrModel *m)
{
  if (window == NONE || pattern <= 1)
    return;
  m->sliding_window = window;
  m->sliding_window_period = pattern;
}

/* modeling_glm4.py: Glm4Attention q, k, v with attention_bias (default
 * true), o_proj without; Glm4MLP fuses gate and up into gate_up_proj (the
 * same 2·hidden·intermediate weights); Glm4DecoderLayer has four RMSNorms
 * (input, post_self_attn, post_attention, post_mlp). Glm4Config sets
 * partial_rotary_factor to 0.5 when absent. */
HrStatus
hr_config_llama_read_glm4 (Reader  *r,
                           HrModel *m)
{
  TRY (read_bool (r, "attention_bias", true, &m->qkv_bias));
  TRY (read_fraction (r, "partial_rotary_factor", 0.5, &m->rotary_fraction));
  m->norm_placement = HR_NORM_SANDWICH;
  m->norms_per_layer = 4;
  return HR_OK;
}

/* modeling_glm4_moe.py: Glm4MoeAttention q, k, v with attention_bias, o_proj
 * without; with use_qk_norm, q_norm and k_norm RMSNorm(head_dim). Layers
 * from first_k_dense_replace on are Glm4MoeMoE: Glm4MoeTopkRouter's weight
 * (n_routed_experts × hidden; its e_score_correction_bias is a buffer, not a
 * parameter), n_routed_experts experts of moe_intermediate_size, and one
 * shared_experts MLP of moe_intermediate_size × n_shared_experts; the
 * others a Glm4MoeMLP of intermediate_size. num_local_experts is
 * Glm4MoeConfig's alias of n_routed_experts. The MTP layer
 * (num_nextn_predict_layers) is not built: Glm4MoeModel ignores its weights
 * on load. GLM-4.5V's language model (vision, configuration_glm4v_moe.py's
 * Glm4vMoeTextConfig) is the same but for attention_bias, true by default,
 * and no use_qk_norm (Glm4vMoeTextAttention has no q/k norms). */
HrStatus
hr_config_llama_read_glm4_moe (Reader  *r,
                               bool     vision,
                               HrModel *m)
{
  int64_t shared;

  TRY (read_bool (r, "attention_bias", vision, &m->qkv_bias));
  if (!vision)
    TRY (read_bool (r, "use_qk_norm", false, &m->qk_norm));
  TRY (read_fraction (r, "partial_rotary_factor", 0.5, &m->rotary_fraction));
  TRY (read_int (r, pick (r, "n_routed_experts", "num_local_experts"), 128, POSITIVE,
                 &m->n_experts));
  TRY (read_int (r, "num_experts_per_tok", 8, POSITIVE, &m->experts_per_token));
  TRY (read_int (r, "moe_intermediate_size", 1408, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "n_shared_experts", 1, NON_NEG, &shared));
  TRY (read_int (r, "first_k_dense_replace", 1, NON_NEG, &m->first_dense_layers));
  TRY (check_top_k (r, m, "num_experts_per_tok", "more than n_routed_experts"));
  m->n_shared_experts = shared;
  m->shared_expert_ffn_size = m->expert_ffn_size;
  return HR_OK;
}

/* modeling_cohere2.py: Cohere2Attention q, k, v and o with attention_bias,
 * no q/k norms (the config's use_qk_norm is not read); one input_layernorm,
 * a Cohere2LayerNorm without bias, for the parallel attention and MLP; tied
 * by default. Layers alternate as layer_types says, else by
 * sliding_window_pattern (default 4). */
HrStatus
hr_config_llama_read_cohere2 (Reader  *r,
                              HrModel *m)
{
  int64_t window, pattern;
  bool given;

  TRY (read_bool (r, "attention_bias", false, &m->qkv_bias));
  m->out_bias = m->qkv_bias;
  m->norm_kind = HR_NORM_LAYERNORM;
  m->norm_bias = false;
  m->norms_per_layer = 1;
  m->parallel_block = true;
  TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
  TRY (hr_config_read_layer_types (r, window, m, &given));
  if (!given)
    {
      TRY (read_int (r, "sliding_window_pattern", 4, POSITIVE, &pattern));
      set_window_pattern (window, pattern, m);
    }
  return HR_OK;
}

/* modeling_exaone4.py: Exaone4Attention q, k, v, o without bias, q_norm and
 * k_norm RMSNorm(head_dim); Exaone4DecoderLayer has no input norm, only
 * post_attention_layernorm and post_feedforward_layernorm. Layers alternate
 * as layer_types says, else by sliding_window_pattern (default 4), which
 * Exaone4Config cannot apply when sliding_window is null. */
HrStatus
hr_config_llama_read_exaone4 (Reader  *r,
                              HrModel *m)
{
  int64_t window, pattern;
  bool given;

  m->qk_norm = true;
  m->norm_placement = HR_NORM_POST;
  TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
  TRY (hr_config_read_layer_types (r, window, m, &given));
  if (!given)
    {
      if (window == NONE)
        return hr_error_set (r->err, HR_ERROR_MISSING, "layer_types", 0, 0,
                             "sliding_window is null, so Exaone4Config needs layer_types");
      TRY (read_int (r, "sliding_window_pattern", 4, POSITIVE, &pattern));
      set_window_pattern (window, pattern, m);
    }
  return HR_OK;
}

/* A key that is a whole number or a list of one per layer (Hunyuan's
 * num_experts, moe_topk): HunYuanMoEV1Moe indexes the list by layer_idx, so
 * it needs num_hidden_layers entries; Headroom models only lists whose
 * entries agree. Absent or null reads as `fallback`. */
static HrStatus
read_per_layer_int (Reader     *r,
                    const char *key,
                    int64_t     n_layers,
                    int64_t     fallback,
                    int64_t    *out)
{
  HrValue v;
  char item[64];

  lookup (r, key, &v);
  if (v.type != HR_VALUE_OTHER)
    return read_int (r, key, fallback, NULLABLE | POSITIVE, out);
  if (v.i < 0)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, key, 0, 0,
                         "an integer or a list of integers");
  if (v.i < n_layers)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, key, v.i, n_layers,
                         "one entry per layer (num_hidden_layers)");
  for (int64_t i = 0; i < n_layers; i++)
    {
      int64_t value;

      snprintf (item, sizeof item, "%s.%lld", key, (long long) i);
      TRY (read_int (r, item, 0, REQUIRED | POSITIVE, &value));
      if (i > 0 && value != *out)
        return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, key, i, 0,
                             "a different value per layer; Headroom models one for all");
      *out = value;
    }
  return HR_OK;
}

/* Ernie4_5_MoeDecoderLayer: layer i is MoE when (i + 1) % moe_layer_interval
 * == 0 and moe_layer_start_index <= i <= moe_layer_end_index (-1: the last
 * layer), else Ernie4_5_MoeMLP of intermediate_size. Ernie4_5_MoeSparseMoeBlock:
 * gate Linear(hidden, moe_num_experts, bias=False); moe_statics holds
 * e_score_correction_bias, an nn.Parameter of (1, moe_num_experts) (counted
 * as the router's bias); moe_num_experts MLPs of moe_intermediate_size; one
 * shared_experts MLP of moe_intermediate_size · moe_num_shared_experts when
 * that is > 0. attribute_map: num_experts and num_experts_per_tok. */
HrStatus
hr_config_llama_read_ernie_moe (Reader  *r,
                                HrModel *m)
{
  const char *experts_key = pick (r, "moe_num_experts", "num_experts");
  const char *k_key = pick (r, "moe_k", "num_experts_per_tok");
  int64_t shared, start, end, interval;

  TRY (read_int (r, experts_key, 64, POSITIVE, &m->n_experts));
  TRY (read_int (r, k_key, 6, POSITIVE, &m->experts_per_token));
  TRY (read_int (r, "moe_intermediate_size", 1536, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "moe_num_shared_experts", 2, NON_NEG, &shared));
  TRY (read_int (r, "moe_layer_start_index", 1, NON_NEG, &start));
  TRY (read_int (r, "moe_layer_end_index", -1, 0, &end));
  TRY (read_int (r, "moe_layer_interval", 1, POSITIVE, &interval));
  TRY (check_top_k (r, m, k_key, "more than moe_num_experts"));
  if (end == -1)
    end = m->n_layers - 1;
  /* Headroom's MoE layers run to the last layer: refuse an end that drops one. */
  for (int64_t i = end + 1 > start ? end + 1 : start; i < m->n_layers; i++)
    if ((i + 1) % interval == 0)
      return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "moe_layer_end_index", end, 0,
                           "MoE layers ending before the last layer");
  m->first_dense_layers = start;
  m->moe_layer_freq = interval;
  m->moe_layer_phase = interval - 1;
  m->router_bias = true;
  if (shared > 0)
    {
      m->n_shared_experts = shared;
      m->shared_expert_ffn_size = m->expert_ffn_size;
    }
  return HR_OK;
}

/* HunYuanMoEV1DecoderLayer: every layer is HunYuanMoEV1Moe: gate.wg
 * Linear(hidden, num_experts, bias=False), num_experts MLPs and one
 * shared_mlp, all HunYuanMoEV1MLP of intermediate_size without biases.
 * num_experts and moe_topk may be lists, one per layer. transformers reads
 * neither moe_intermediate_size nor num_shared_expert: a config whose values
 * differ from what it builds (intermediate_size, 1) is refused. */
HrStatus
hr_config_llama_read_hunyuan_moe (Reader  *r,
                                  HrModel *m)
{
  int64_t moe_ffn, n_shared;

  TRY (read_per_layer_int (r, "num_experts", m->n_layers, 1, &m->n_experts));
  TRY (read_per_layer_int (r, "moe_topk", m->n_layers, 1, &m->experts_per_token));
  TRY (read_per_layer_int (r, "moe_intermediate_size", m->n_layers, NONE, &moe_ffn));
  TRY (read_per_layer_int (r, "num_shared_expert", m->n_layers, NONE, &n_shared));
  if (m->n_experts == NONE || m->experts_per_token == NONE)
    return hr_error_set (r->err, HR_ERROR_MISSING,
                         m->n_experts == NONE ? "num_experts" : "moe_topk", 0, 0, NULL);
  TRY (check_top_k (r, m, "moe_topk", "more than num_experts"));
  if (moe_ffn != NONE && moe_ffn != m->ffn_size)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "moe_intermediate_size", moe_ffn,
                         m->ffn_size, "experts of another width than intermediate_size, "
                         "which transformers builds");
  if (n_shared != NONE && n_shared != 1)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "num_shared_expert", n_shared, 1,
                         "other than the one shared MLP transformers builds");
  m->expert_ffn_size = m->ffn_size;
  m->n_shared_experts = 1;
  m->shared_expert_ffn_size = m->ffn_size;
  return HR_OK;
}

/* Dots1DecoderLayer (DeepseekV3DecoderLayer): Dots1MLP of intermediate_size
 * below first_k_dense_replace, then Dots1MoE: gate (Dots1TopkRouter) weight
 * n_routed_experts × hidden, its e_score_correction_bias a buffer (not
 * counted); n_routed_experts MLPs of moe_intermediate_size; shared_experts,
 * one MLP of moe_intermediate_size · n_shared_experts; no biases. The
 * defaults of n_routed_experts, num_experts_per_tok and n_shared_experts are
 * None, which no MoE layer can be built with. Layers attend within
 * sliding_window as layer_types says, by default from max_window_layers on
 * when sliding_window is set. */
HrStatus
hr_config_llama_read_dots1 (Reader  *r,
                            HrModel *m)
{
  int64_t routed, shared, window, max_window_layers;
  bool given;

  TRY (read_int (r, "n_routed_experts", NONE, NULLABLE | POSITIVE, &routed));
  TRY (read_int (r, "num_experts_per_tok", NONE, NULLABLE | POSITIVE, &m->experts_per_token));
  TRY (read_int (r, "n_shared_experts", NONE, NULLABLE | NON_NEG, &shared));
  TRY (read_int (r, "moe_intermediate_size", 1408, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "first_k_dense_replace", 0, NON_NEG, &m->first_dense_layers));
  if (m->first_dense_layers < m->n_layers)
    {
      const char *missing = routed == NONE ? "n_routed_experts"
                            : m->experts_per_token == NONE ? "num_experts_per_tok"
                            : shared == NONE ? "n_shared_experts" : NULL;

      if (missing != NULL)
        return hr_error_set (r->err, HR_ERROR_MISSING, missing, 0, 0,
                             "first_k_dense_replace leaves MoE layers");
      if (m->experts_per_token > routed)
        return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok",
                             m->experts_per_token, routed, "more than n_routed_experts");
      m->n_experts = routed;
      m->n_shared_experts = shared;
      m->shared_expert_ffn_size = m->expert_ffn_size;
    }
  else
    m->experts_per_token = 0;

  TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
  TRY (read_int (r, "max_window_layers", 62, NON_NEG, &max_window_layers));
  TRY (hr_config_read_layer_types (r, window, m, &given));
  if (!given && window != NONE && max_window_layers < m->n_layers)
    {
      m->sliding_window = window;
      m->first_sliding_layer = max_window_layers;
    }
  return HR_OK;
}

/* modeling_arcee.py: LlamaAttention (q, k, v, o with attention_bias);
 * ArceeMLP is NemotronMLP, up_proj and down_proj with mlp_bias and no gate
 * (hidden_act relu2 by default); LlamaRMSNorm input and post-attention. */
HrStatus
hr_config_llama_read_arcee (Reader  *r,
                            HrModel *m)
{
  bool attention_bias;

  TRY (read_bool (r, "attention_bias", false, &attention_bias));
  TRY (read_bool (r, "mlp_bias", false, &m->mlp_bias));
  m->qkv_bias = m->out_bias = attention_bias;
  m->ffn_kind = HR_FFN_MLP;
  return HR_OK;
}

/* modeling_apertus.py: ApertusAttention q, k, v, o with attention_bias,
 * q_norm and k_norm RMSNorm(head_dim); ApertusMLP up_proj and down_proj
 * without bias whatever mlp_bias says, and with hidden_act "xielu" (the
 * default) an XIELUActivation of its own; attention_layernorm and
 * feedforward_layernorm before each sub-block. */
HrStatus
hr_config_llama_read_apertus (Reader  *r,
                              HrModel *m)
{
  bool attention_bias;
  HrValue act;

  TRY (read_bool (r, "attention_bias", false, &attention_bias));
  m->qkv_bias = m->out_bias = attention_bias;
  m->qk_norm = true;
  m->ffn_kind = HR_FFN_MLP;
  lookup (r, "hidden_act", &act);
  if (act.type != HR_VALUE_ABSENT && (act.type != HR_VALUE_STRING || act.s == NULL))
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "hidden_act", 0, 0, "a string");
  if (act.type == HR_VALUE_ABSENT || strcmp (act.s, "xielu") == 0)
    m->ffn_activation = HR_ACT_XIELU;
  return HR_OK;
}

/* modeling_glm.py: GlmAttention q, k, v with attention_bias (default true),
 * o_proj without; GlmMLP fuses gate and up into gate_up_proj (the same
 * 2·hidden·intermediate weights); input and post-attention RMSNorms only
 * (GLM-4-0414, glm4, has four). GlmConfig sets partial_rotary_factor to 0.5
 * when absent. */
HrStatus
hr_config_llama_read_glm (Reader  *r,
                          HrModel *m)
{
  TRY (read_bool (r, "attention_bias", true, &m->qkv_bias));
  TRY (read_fraction (r, "partial_rotary_factor", 0.5, &m->rotary_fraction));
  return HR_OK;
}

/* modeling_helium.py: HeliumAttention q, k, v with attention_bias, o_proj
 * Linear(hidden_size, hidden_size) without bias, which only runs when
 * num_attention_heads·head_dim is hidden_size; HeliumMLP with mlp_bias. */
HrStatus
hr_config_llama_read_helium (Reader  *r,
                             HrModel *m)
{
  TRY (read_bool (r, "attention_bias", false, &m->qkv_bias));
  TRY (read_bool (r, "mlp_bias", false, &m->mlp_bias));
  if (m->n_heads * m->head_dim != m->hidden_size)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "head_dim", m->head_dim, 0,
                         "heads × head_dim other than hidden_size, which HeliumAttention's "
                         "o_proj cannot take");
  return HR_OK;
}

/* modeling_ministral.py: MinistralAttention q, k, v, o without biases;
 * layers attend within sliding_window as layer_types says, by default every
 * layer when sliding_window is set (MinistralConfig). */
HrStatus
hr_config_llama_read_ministral (Reader  *r,
                                HrModel *m)
{
  int64_t window;
  bool given;

  TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
  TRY (hr_config_read_layer_types (r, window, m, &given));
  if (!given && window != NONE)
    m->sliding_window = window;
  return HR_OK;
}

/* modeling_flex_olmo.py: FlexOlmoAttention q, k, v, o with attention_bias,
 * q_norm RMSNorm over num_heads·head_dim and k_norm over
 * num_kv_heads·head_dim; FlexOlmoDecoderLayer as Olmo2's, norms after each
 * sub-block; every layer FlexOlmoSparseMoeBlock: FlexOlmoTopKRouter weight
 * num_experts × hidden (no bias), FlexOlmoExperts gate_up_proj (E,
 * 2·intermediate, hidden) and down_proj (E, hidden, intermediate).
 * num_local_experts is FlexOlmoConfig's alias of num_experts. */
HrStatus
hr_config_llama_read_flex_olmo (Reader  *r,
                                HrModel *m)
{
  const char *experts_key = pick (r, "num_experts", "num_local_experts");
  bool attention_bias;

  TRY (read_bool (r, "attention_bias", false, &attention_bias));
  m->qkv_bias = m->out_bias = attention_bias;
  m->qk_norm = true;
  m->qk_norm_full = true;
  m->norm_placement = HR_NORM_POST;
  TRY (read_int (r, experts_key, 7, POSITIVE, &m->n_experts));
  TRY (read_int (r, "num_experts_per_tok", 5, POSITIVE, &m->experts_per_token));
  TRY (check_top_k (r, m, "num_experts_per_tok", "more than num_experts"));
  m->expert_ffn_size = m->ffn_size;
  return HR_OK;
}

/* modeling_vaultgemma.py: VaultGemmaAttention is Gemma2Attention (q, k, v,
 * o with attention_bias); VaultGemmaDecoderLayer deletes Gemma 2's
 * post_attention_layernorm and post_feedforward_layernorm, keeping
 * input_layernorm and pre_feedforward_layernorm. Layers attend within
 * sliding_window as layer_types says, by default the even ones
 * (VaultGemmaConfig). Tied by default. */
HrStatus
hr_config_llama_read_vaultgemma (Reader  *r,
                                 HrModel *m)
{
  int64_t window;
  bool attention_bias, given;

  TRY (read_bool (r, "attention_bias", false, &attention_bias));
  m->qkv_bias = m->out_bias = attention_bias;
  TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
  TRY (hr_config_read_layer_types (r, window, m, &given));
  if (!given && window != NONE)
    {
      m->sliding_window = window;
      m->sliding_window_period = 2;
    }
  return HR_OK;
}

/* modeling_granitemoeshared.py: GraniteMoe's layers plus, when
 * shared_intermediate_size is not 0 (the default), shared_mlp:
 * GraniteMoeSharedMLP input_linear Linear(hidden, 2·shared) and output_linear
 * Linear(shared, hidden), gated, no biases. */
HrStatus
hr_config_llama_read_granitemoe_shared (Reader  *r,
                                        HrModel *m)
{
  int64_t shared;

  TRY (read_int (r, "shared_intermediate_size", 0, NON_NEG, &shared));
  if (shared > 0)
    {
      m->n_shared_experts = 1;
      m->shared_expert_ffn_size = shared;
    }
  return HR_OK;
}

/* modeling_glm4v.py (GLM-4.1V's language model, Glm4vTextConfig):
 * Glm4vTextAttention q, k, v with bias always, o_proj without, head_dim
 * hidden_size / num_attention_heads whatever head_dim says; Glm4vTextMLP
 * gate_up_proj and down_proj; four RMSNorms a layer as Glm4DecoderLayer's.
 * M-RoPE's mrope_section covers half of each head. */
HrStatus
hr_config_llama_read_glm4v (Reader  *r,
                            HrModel *m)
{
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  m->qkv_bias = true;
  m->rotary_fraction = 0.5;
  m->norm_placement = HR_NORM_SANDWICH;
  m->norms_per_layer = 4;
  return HR_OK;
}

/* modeling_granitemoehybrid.py: layer i is a Mamba-2 mixer or a
 * GraniteMoeHybridAttention as layer_types (alias layers_block_type) says,
 * every layer "mamba" when it is absent; only all-attention models (Granite
 * 4.0 Micro) are transformers Headroom models, the rest are refused naming
 * the key. The attention is GraniteMoe's (q, k, v, o with attention_bias,
 * head_dim from the config or hidden/heads). Each layer has shared_mlp
 * (GraniteMoeSharedMLP: input_linear Linear(hidden, 2·shared_intermediate_size)
 * and output_linear back, gated, no biases) and, only when num_local_experts
 * > 0, block_sparse_moe (GraniteMoe's router and experts of
 * intermediate_size). Rotary positions only with position_embedding_type
 * "rope"; none otherwise. */
HrStatus
hr_config_llama_read_granitemoe_hybrid (Reader  *r,
                                        HrModel *m)
{
  const char *types_key = pick (r, "layer_types", "layers_block_type");
  int64_t experts, shared;
  bool attention_bias;
  HrValue v;
  char key[64];

  lookup (r, types_key, &v);
  if (v.type == HR_VALUE_ABSENT || v.type == HR_VALUE_NULL)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, types_key, 0, 0,
                         "absent, so every layer is Mamba-2: granitemoehybrid with Mamba "
                         "layers is a hybrid state-space model, which Headroom does not model");
  if (v.type != HR_VALUE_OTHER || v.i < 0)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, types_key, 0, 0, "a list of strings");
  if (v.i != m->n_layers)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, types_key, v.i, m->n_layers,
                         "one entry per layer (num_hidden_layers)");
  for (int64_t i = 0; i < m->n_layers; i++)
    {
      snprintf (key, sizeof key, "%s.%lld", types_key, (long long) i);
      lookup (r, key, &v);
      if (v.type != HR_VALUE_STRING || v.s == NULL)
        return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, types_key, 0, 0, "a list of strings");
      if (strcmp (v.s, "mamba") == 0)
        return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, types_key, i, 0,
                             "a Mamba-2 layer: granitemoehybrid with Mamba layers is a hybrid "
                             "state-space model, which Headroom does not model");
      if (strcmp (v.s, "attention") != 0)
        return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, types_key, i, 0,
                             "a layer kind other than attention and mamba");
    }

  /* GraniteMoeHybridConfig checks its Mamba sizes whatever the layers. */
  {
    int64_t expand, heads, width;

    TRY (read_int (r, "mamba_expand", 2, POSITIVE, &expand));
    TRY (read_int (r, "mamba_n_heads", 128, POSITIVE, &heads));
    width = expand * m->hidden_size;
    if (width % heads != 0)
      return hr_error_set (r->err, HR_ERROR_NOT_DIVISIBLE, "mamba_n_heads", heads, width,
                           "mamba_expand · hidden_size");
    lookup (r, "mamba_d_head", &v);
    if (v.type == HR_VALUE_INT && v.i * heads != width)
      return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "mamba_d_head", v.i, width / heads,
                           "other than mamba_expand · hidden_size / mamba_n_heads");
    if (v.type != HR_VALUE_ABSENT && v.type != HR_VALUE_INT && !value_is (&v, "auto"))
      return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "mamba_d_head", 0, 0,
                           "an integer or \"auto\"");
  }

  lookup (r, "position_embedding_type", &v);
  if (value_is (&v, "rope"))
    m->positions = HR_POSITIONS_ROTARY;
  else if (v.type == HR_VALUE_ABSENT || v.type == HR_VALUE_NULL
           || value_is (&v, "nope"))
    m->positions = HR_POSITIONS_NONE;
  else
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "position_embedding_type", 0, 0,
                         "other than \"rope\", \"nope\" or null");

  TRY (read_bool (r, "attention_bias", false, &attention_bias));
  m->qkv_bias = m->out_bias = attention_bias;
  TRY (read_int (r, "num_local_experts", 8, NON_NEG, &experts));
  TRY (read_int (r, "shared_intermediate_size", 1024, NON_NEG, &shared));
  if (experts == 0)
    {
      /* Dense: shared_mlp is the layer's only MLP. */
      if (shared == 0)
        return hr_error_set (r->err, HR_ERROR_NOT_POSITIVE, "shared_intermediate_size", 0, 0,
                             "num_local_experts is 0, so shared_mlp is the only MLP");
      m->ffn_size = shared;
      return HR_OK;
    }
  TRY (read_int (r, "num_experts_per_tok", 2, POSITIVE, &m->experts_per_token));
  if (m->experts_per_token > experts)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok",
                         m->experts_per_token, experts, "more than num_local_experts");
  m->n_experts = experts;
  m->expert_ffn_size = m->ffn_size;
  if (shared > 0)
    {
      m->n_shared_experts = 1;
      m->shared_expert_ffn_size = shared;
    }
  return HR_OK;
}

/* modeling_minimax_m2.py: MiniMaxM2Attention is FlexOlmoAttention's q/k
 * norms (RMSNorm over num_heads·head_dim and over num_kv_heads·head_dim)
 * with q, k, v, o always without bias; every layer MixtralSparseMoeBlock:
 * MiniMaxM2TopKRouter weight num_local_experts (alias num_experts) × hidden,
 * MixtralExperts gate_up_proj and down_proj of intermediate_size, no shared
 * expert; e_score_correction_bias is a buffer. Full attention in every
 * layer, no window. The Hub configs' own keys describe what transformers
 * builds anyway (use_qk_norm true, qk_norm_type "per_layer", attn_type_list
 * of 1s, shared_intermediate_size 0); any other value is refused naming the
 * key. Their MTP modules (use_mtp, num_mtp_modules) are not built. RoPE
 * covers rotary_dim of each head (partial_rotary_factor when given). */
HrStatus
hr_config_llama_read_minimax_m2 (Reader  *r,
                                 HrModel *m)
{
  const char *experts_key = pick (r, "num_local_experts", "num_experts");
  int64_t shared, rotary_dim;
  bool qk_norm;
  HrValue v;
  char key[48];

  m->qk_norm = true;
  m->qk_norm_full = true;
  TRY (read_bool (r, "use_qk_norm", true, &qk_norm));
  if (!qk_norm)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "use_qk_norm", 0, 0,
                         "false, but MiniMaxM2Attention always builds q_norm and k_norm");
  lookup (r, "qk_norm_type", &v);
  if (v.type != HR_VALUE_ABSENT && v.type != HR_VALUE_NULL
      && !value_is (&v, "per_layer"))
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "qk_norm_type", 0, 0,
                         "other than \"per_layer\", the q/k norms over all heads that "
                         "transformers builds");
  TRY (read_int (r, "shared_intermediate_size", 0, NON_NEG, &shared));
  if (shared > 0)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "shared_intermediate_size", shared, 0,
                         "a shared expert, which transformers does not build for MiniMax-M2");
  lookup (r, "attn_type_list", &v);
  if (v.type == HR_VALUE_OTHER && v.i >= 0)
    {
      if (v.i != m->n_layers)
        return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "attn_type_list", v.i, m->n_layers,
                             "one entry per layer (num_hidden_layers)");
      for (int64_t i = 0; i < v.i; i++)
        {
          HrValue item;

          snprintf (key, sizeof key, "attn_type_list.%lld", (long long) i);
          lookup (r, key, &item);
          if (item.type != HR_VALUE_INT || item.i != 1)
            return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "attn_type_list", i, 0,
                                 "a layer other than full attention (1), which transformers "
                                 "does not build for MiniMax-M2");
        }
    }
  else if (v.type != HR_VALUE_ABSENT && v.type != HR_VALUE_NULL)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "attn_type_list", 0, 0, "a list");

  lookup (r, "partial_rotary_factor", &v);
  if (v.type != HR_VALUE_ABSENT)
    TRY (read_fraction (r, "partial_rotary_factor", 1.0, &m->rotary_fraction));
  else
    {
      TRY (read_int (r, "rotary_dim", NONE, NULLABLE | POSITIVE, &rotary_dim));
      if (rotary_dim != NONE)
        {
          if (rotary_dim > m->head_dim)
            return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "rotary_dim", rotary_dim,
                                 m->head_dim, "more than head_dim");
          m->rotary_fraction = (double) rotary_dim / (double) m->head_dim;
        }
    }

  TRY (read_int (r, experts_key, 256, POSITIVE, &m->n_experts));
  TRY (read_int (r, "num_experts_per_tok", 8, POSITIVE, &m->experts_per_token));
  TRY (check_top_k (r, m, "num_experts_per_tok", "more than num_local_experts"));
  m->expert_ffn_size = m->ffn_size;
  return HR_OK;
}

/* modeling_afmoe.py: AfmoeAttention is LlamaAttention (q, k, v, o with
 * attention_bias, False unless the config sets it) with q_norm and k_norm,
 * RMSNorm(head_dim), and gate_proj Linear(hidden, heads·head_dim, no bias),
 * whose sigmoid scales the output before o_proj; four RMSNorms a layer
 * (input, post_attention, pre_mlp, post_mlp). Layers below
 * num_dense_layers hold AfmoeMLP of intermediate_size, the others AfmoeMoE:
 * a router gate Linear(hidden, num_experts, no bias), num_experts MLPs of
 * moe_intermediate_size, shared_experts one MLP of that width ×
 * num_shared_experts, and expert_bias, an nn.Parameter of num_experts
 * (requires_grad False, counted as stored: the router's bias). Layers
 * attend as layer_types says, by default within sliding_window all but
 * every global_attn_every_n_layers-th; rotary on the windowed ones only, no
 * parameters either way. */
HrStatus
hr_config_llama_read_afmoe (Reader  *r,
                            HrModel *m)
{
  int64_t window, every, shared;
  bool attention_bias, given;

  TRY (read_bool (r, "attention_bias", false, &attention_bias));
  m->qkv_bias = m->out_bias = attention_bias;
  m->qk_norm = true;
  m->attention_gate = true;
  m->norm_placement = HR_NORM_SANDWICH;
  m->norms_per_layer = 4;

  TRY (read_int (r, "num_experts", 64, POSITIVE, &m->n_experts));
  TRY (read_int (r, "num_experts_per_tok", 6, POSITIVE, &m->experts_per_token));
  TRY (read_int (r, "moe_intermediate_size", 1408, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "num_shared_experts", 2, NON_NEG, &shared));
  TRY (read_int (r, "num_dense_layers", 1, NON_NEG, &m->first_dense_layers));
  TRY (check_top_k (r, m, "num_experts_per_tok", "more than num_experts"));
  if (m->first_dense_layers >= m->n_layers)
    m->n_experts = m->experts_per_token = 0;
  else
    {
      m->n_shared_experts = shared;
      m->shared_expert_ffn_size = m->expert_ffn_size;
      m->router_bias = true;
    }

  TRY (read_int (r, "sliding_window", 1024, NULLABLE | POSITIVE, &window));
  TRY (read_int (r, "global_attn_every_n_layers", 4, POSITIVE, &every));
  TRY (hr_config_read_layer_types (r, window, m, &given));
  if (!given && every > 1)
    {
      if (window == NONE)
        return hr_error_set (r->err, HR_ERROR_MISSING, "sliding_window", 0, 0,
                             "global_attn_every_n_layers leaves sliding_attention layers");
      m->sliding_window = window;
      m->sliding_window_period = every;
    }
  return HR_OK;
}
