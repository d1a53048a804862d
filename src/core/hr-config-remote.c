/* hr-config-remote.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The families whose modeling code lives in each model's Hub repository
 * (trust_remote_code) rather than in transformers. Their configuration
 * classes ship with each repository and their defaults differ from one
 * release to the next (MiniCPMConfig ties the embeddings in MiniCPM-2B's
 * repository and not in MiniCPM4's), so the keys that shape a tensor are
 * required. tie_word_embeddings is the exception: PretrainedConfig's
 * to_diff_dict() leaves it out of a saved config.json only when it equals
 * both PretrainedConfig's default and the class's, true, so a config
 * without it is read with its class's default (true, or false for
 * BaichuanConfig and QWenConfig, which no saved config leaves out).
 */
#include "hr-config-reader.h"

/* An optional head_dim that must be the one the attention computes
 * (hidden_size / num_attention_heads). */
static HrStatus
check_head_dim (Reader  *r,
                HrModel *m)
{
  int64_t head_dim;

  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  TRY (read_int (r, "head_dim", NONE, NULLABLE | POSITIVE, &head_dim));
  if (head_dim != NONE && head_dim != m->head_dim)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "head_dim", head_dim, m->head_dim,
                         "a head size other than hidden_size / num_attention_heads, "
                         "which the model's attention computes");
  return HR_OK;
}

/* What these families share: hidden_size, the layers, the heads,
 * vocab_size, kv heads (null or absent: one per query head), a SwiGLU MLP,
 * RMSNorm before each sub-block and a final one, rotary positions; the
 * context is max_position_embeddings, else the class's default. */
static HrStatus
read_shape (Reader     *r,
            const char *layers_key,
            int64_t     max_positions,
            bool        tied,
            HrModel    *m)
{
  TRY (read_int (r, "hidden_size", 0, REQUIRED | POSITIVE, &m->hidden_size));
  TRY (read_int (r, layers_key, 0, REQUIRED | POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 0, REQUIRED | POSITIVE, &m->n_heads));
  TRY (read_int (r, "vocab_size", 0, REQUIRED | POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", max_positions, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", tied, &m->tied_embeddings));
  TRY (read_kv_heads (r, m));
  llama_layout (m);
  m->qkv_bias = m->out_bias = false;
  return HR_OK;
}

/* ExaoneConfig / modeling_exaone.py (EXAONE 3.0 and 3.5, LGAI-EXAONE):
 * transformer.wte; each block h.i is ln_1 (RMSNorm), attn.attention with
 * q_proj, k_proj, v_proj and out_proj, none with a bias, ln_2 and mlp with
 * c_fc_0 (gate), c_fc_1 (up) and c_proj (down), no biases; ln_f; lm_head
 * without bias, tied as tie_word_embeddings says. num_hidden_layers is the
 * attribute_map alias of num_layers; a null or 0 intermediate_size is
 * 4·hidden_size (ExaoneConfig); head_dim is hidden_size / heads. The names
 * are LG's checkpoint keys, as vLLM's and mlx-lm's ports of the model load
 * them. EXAONE 4.0 is transformers' exaone4. */
HrStatus
hr_config_read_exaone (Reader  *r,
                       HrModel *m)
{
  int64_t ffn;

  TRY (read_shape (r, pick (r, "num_layers", "num_hidden_layers"), 2048, true, m));
  TRY (check_head_dim (r, m));
  TRY (read_int (r, "intermediate_size", NONE, NULLABLE | NON_NEG, &ffn));
  if (ffn == NONE || ffn == 0)
    {
      if (m->hidden_size > INT64_MAX / 4)
        return hr_error_set (r->err, HR_ERROR_OVERFLOW, "hidden_size", m->hidden_size, 0, NULL);
      ffn = 4 * m->hidden_size;
    }
  m->ffn_size = ffn;
  return HR_OK;
}

/* InternLM3Config / modeling_internlm3.py (internlm3-8b-instruct): Llama's
 * layout, q_proj, k_proj and v_proj with qkv_bias, o_proj with bias,
 * gate_proj, up_proj and down_proj with bias, input_layernorm and
 * post_attention_layernorm RMSNorms, a final norm, lm_head without bias;
 * head_dim, else hidden_size / heads; the context defaults to 32768 (as
 * TensorRT-LLM's copy of InternLM3Config has it). */
HrStatus
hr_config_read_internlm3 (Reader  *r,
                          HrModel *m)
{
  int64_t head_dim;
  bool bias;

  TRY (read_shape (r, "num_hidden_layers", 32768, true, m));
  TRY (read_int (r, "intermediate_size", 0, REQUIRED | POSITIVE, &m->ffn_size));
  TRY (read_int (r, "head_dim", NONE, NULLABLE | POSITIVE, &head_dim));
  TRY (read_bool (r, "qkv_bias", false, &m->qkv_bias));
  TRY (read_bool (r, "bias", false, &bias));
  if (head_dim == NONE)
    TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &head_dim));
  m->head_dim = head_dim;
  m->out_bias = m->mlp_bias = bias;
  return HR_OK;
}

/* MiniCPMConfig / modeling_minicpm.py (MiniCPM 1 and 2, MiniCPM4): Llama's
 * layout, q_proj, k_proj, v_proj and o_proj with attention_bias, the MLP
 * without biases, head_dim hidden_size / heads (MiniCPMAttention refuses
 * others). scale_emb, dim_model_base and scale_depth scale activations and
 * hold no parameters. MiniCPM4's sparse_config turns on InfLLM v2 sparse
 * attention (MiniCPMInfLLMv2Attention): no parameters of its own
 * (CompressK mean-pools keys), but its cache keeps compressed keys beside
 * the dense ones, which Headroom does not model: refused, as are
 * use_output_gate and use_output_norm (an o_gate and a norm around o_proj
 * in later releases) and MiniCPM-MoE's num_experts. The context defaults
 * to MiniCPMConfig's 2048. */
HrStatus
hr_config_read_minicpm (Reader  *r,
                        HrModel *m)
{
  HrValue v;
  int64_t experts;
  bool attention_bias, gate, output_norm;

  TRY (read_shape (r, "num_hidden_layers", 2048, true, m));
  TRY (check_head_dim (r, m));
  TRY (read_int (r, "intermediate_size", 0, REQUIRED | POSITIVE, &m->ffn_size));
  TRY (read_bool (r, "attention_bias", false, &attention_bias));
  TRY (read_bool (r, "use_output_gate", false, &gate));
  TRY (read_bool (r, "use_output_norm", false, &output_norm));
  m->qkv_bias = m->out_bias = attention_bias;
  lookup (r, "sparse_config", &v);
  if (v.type != HR_VALUE_ABSENT && v.type != HR_VALUE_NULL)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "sparse_config", 0, 0,
                         "InfLLM v2 sparse attention, whose compressed-key cache "
                         "Headroom does not model");
  if (gate)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "use_output_gate", 1, 0,
                         "MiniCPM's o_gate before o_proj, which Headroom does not model");
  if (output_norm)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "use_output_norm", 1, 0,
                         "MiniCPM's norm of the attention output, which Headroom does not model");
  TRY (read_int (r, "num_experts", 0, NULLABLE | NON_NEG, &experts));
  if (experts != NONE && experts > 0)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "num_experts", experts, 0,
                         "MiniCPM-MoE's experts, whose modules Headroom has not read");
  return HR_OK;
}

/* BaichuanConfig / modeling_baichuan.py (Baichuan 7B and 13B, Baichuan2 7B
 * and 13B: one model_type for two modeling files): self_attn.W_pack,
 * Linear(hidden, 3·hidden, bias=False), the fused q, k and v of
 * num_attention_heads heads each (no grouped kv heads: a
 * num_key_value_heads other than the heads is refused), o_proj, and
 * gate/up/down_proj, none with a bias; input_layernorm and
 * post_attention_layernorm RMSNorms, a final norm; lm_head a Linear
 * (Baichuan 1) or NormHead (Baichuan 2: a vocab × hidden weight normalized
 * in the forward), no bias, untied unless tie_word_embeddings
 * (BaichuanConfig's default false). The 7B
 * files rotate and the 13B ones add ALiBi biases, and the config does not
 * say which file it goes with: as vLLM's BaichuanForCausalLM, a
 * hidden_size of 4096 is read as rotary, any other as ALiBi (neither holds
 * parameters). The context is max_position_embeddings (the 7B files), else
 * model_max_length (the 13B ones, 4096 by default). */
HrStatus
hr_config_read_baichuan (Reader  *r,
                         HrModel *m)
{
  const char *context_key = pick (r, "model_max_length", "max_position_embeddings");

  TRY (read_shape (r, "num_hidden_layers", 4096, false, m));
  TRY (read_int (r, context_key, 4096, POSITIVE, &m->max_positions));
  if (m->n_kv_heads != m->n_heads)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "num_key_value_heads", m->n_kv_heads,
                         m->n_heads, "grouped kv heads, which Baichuan's W_pack does not build");
  TRY (check_head_dim (r, m));
  TRY (read_int (r, "intermediate_size", 0, REQUIRED | POSITIVE, &m->ffn_size));
  m->positions = m->hidden_size == 4096 ? HR_POSITIONS_ROTARY : HR_POSITIONS_ALIBI;
  return HR_OK;
}

/* QWenConfig / modeling_qwen.py (Qwen-1: Qwen-1.8B, 7B, 14B, 72B):
 * transformer.wte; each block h.i is ln_1 (RMSNorm), attn with c_attn,
 * Linear(hidden, 3·kv_channels·heads) with bias, and c_proj with a bias
 * unless no_bias, ln_2 and mlp with w1 and w2, Linear(hidden,
 * intermediate_size / 2), and c_proj back, with biases unless no_bias (the
 * gated MLP's width is half intermediate_size); ln_f; lm_head without bias,
 * untied unless tie_word_embeddings (QWenConfig's default false). The
 * attention splits c_attn's output at hidden_size, so kv_channels · heads
 * other than hidden_size is refused; rotary over rotary_pct of each head.
 * The context is max_position_embeddings (QWenConfig: 8192). Qwen-VL's
 * configs add visual, a vision tower inside the same model: refused. Qwen
 * 1.5 and later are transformers' qwen2. */
HrStatus
hr_config_read_qwen (Reader  *r,
                     HrModel *m)
{
  HrValue v;
  int64_t kv_channels, ffn;
  bool no_bias;

  lookup (r, "visual", &v);
  if (v.type != HR_VALUE_ABSENT && v.type != HR_VALUE_NULL)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "visual", 0, 0,
                         "Qwen-VL's vision tower, built inside the model, which Headroom "
                         "does not count");
  TRY (read_shape (r, "num_hidden_layers", 8192, false, m));
  if (m->n_kv_heads != m->n_heads)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "num_key_value_heads", m->n_kv_heads,
                         m->n_heads, "grouped kv heads, which Qwen-1's c_attn does not build");
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  TRY (read_int (r, "kv_channels", 128, POSITIVE, &kv_channels));
  if (kv_channels != m->head_dim)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "kv_channels", kv_channels, m->head_dim,
                         "kv_channels · num_attention_heads other than hidden_size, "
                         "which Qwen-1's attention cannot split");
  TRY (read_int (r, "intermediate_size", 0, REQUIRED | POSITIVE, &ffn));
  if (ffn < 2)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "intermediate_size", ffn, 2,
                         "at least 2 (w1 and w2 are half of it)");
  m->ffn_size = ffn / 2;
  TRY (read_bool (r, "no_bias", true, &no_bias));
  TRY (read_fraction (r, "rotary_pct", 1.0, &m->rotary_fraction));
  m->qkv_bias = true;
  m->out_bias = m->mlp_bias = !no_bias;
  return HR_OK;
}
