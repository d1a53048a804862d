/* hr-config-llama.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Llama-style families of a config.json (hr-config-reader.h lists them):
 * their defaults, their layer_types and the reader of them all, which calls
 * hr-config-llama-families.c for what a family adds. hr-config.c picks the
 * family and reads the others.
 */
#include <stdio.h>
#include <string.h>

#include "hr-config-reader.h"

typedef struct
{
  int64_t vocab, hidden, ffn, layers, heads, kv_heads, head_dim, max_pos;
  bool tied;
} Defaults;

/* From each configuration_<family>.py; NONE: None (kv heads = heads,
 * head_dim = hidden / heads). */
static const Defaults llama_defaults[] = {
  [FAMILY_LLAMA]   = { 32000,  4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_MISTRAL] = { 32000,  4096, 14336, 32, 32, 8,    NONE, 4096 * 32, false },
  [FAMILY_MIXTRAL] = { 32000,  4096, 14336, 32, 32, 8,    NONE, 4096 * 32, false },
  [FAMILY_QWEN2]   = { 151936, 4096, 22016, 32, 32, 32,   NONE, 32768, false },
  [FAMILY_GEMMA]   = { 256000, 3072, 24576, 28, 16, 16,   256,  8192, true },
  [FAMILY_GEMMA2]  = { 256000, 2304, 9216,  26, 8,  4,    256,  8192, true },
  [FAMILY_PHI3]    = { 32064,  3072, 8192,  32, 32, NONE, NONE, 4096, false },
  [FAMILY_QWEN3]   = { 151936, 4096, 22016, 32, 32, 32,   128,  32768, false },
  [FAMILY_QWEN3_MOE] = { 151936, 2048, 6144, 24, 32, 4,   NONE, 32768, false },
  [FAMILY_QWEN2_MOE] = { 151936, 2048, 5632, 24, 16, 16,  NONE, 32768, false },
  [FAMILY_GEMMA3]  = { 262208, 2304, 9216,  26, 8,  4,    256,  131072, true },
  [FAMILY_GPT_OSS] = { 201088, 2880, 2880,  36, 64, 8,    64,   131072, false },
  [FAMILY_OLMO2]   = { 50304,  4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_STARCODER2] = { 49152, 3072, 12288, 30, 24, 2,  NONE, 4096, true },
  [FAMILY_COHERE]  = { 256000, 8192, 22528, 40, 64, NONE, NONE, 8192, true },
  [FAMILY_STABLELM] = { 50304, 2560, 6912,  32, 32, 32,   NONE, 4096, false },
  [FAMILY_GRANITE] = { 32000,  4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_GRANITEMOE] = { 32000, 4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_OLMOE]   = { 50304,  2048, 2048,  16, 16, NONE, NONE, 4096, false },
  [FAMILY_SMOLLM3] = { 128256, 2048, 11008, 36, 16, 4,    NONE, 32768, true },
  [FAMILY_PHIMOE]  = { 32064,  4096, 6400,  32, 32, 8,    NONE, 131072, false },
  [FAMILY_LLAMA4]  = { 202048, 5120, 8192,  48, 40, 8,    128,  131072, false },
  [FAMILY_GLM4]    = { 151552, 4096, 13696, 40, 32, 2,    128,  131072, false },
  [FAMILY_GLM4_MOE] = { 151552, 4096, 10944, 46, 96, 8,   NONE, 131072, false },
  [FAMILY_COHERE2] = { 256000, 8192, 22528, 40, 64, NONE, NONE, 8192, true },
  [FAMILY_EXAONE4] = { 102400, 4096, 16384, 32, 32, 32,   NONE, 2048, false },
  [FAMILY_ERNIE4_5] = { 103424, 1024, 3072, 18, 16, 2,  128,  131072, true },
  [FAMILY_ERNIE4_5_MOE] = { 103424, 2560, 12288, 28, 20, 4, NONE, 131072, true },
  [FAMILY_HUNYUAN_DENSE] = { 290943, 4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_HUNYUAN_MOE] = { 290943, 4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_SEED_OSS] = { 155136, 4096, 27648, 64, 80, 8,   128,  524288, false },
  [FAMILY_OLMO3]   = { 50304,  4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_DOTS1]   = { 152064, 4608, 10944, 62, 32, 32,   NONE, 2048, false },
  [FAMILY_ARCEE]   = { 32000,  2560, 18432, 32, 32, NONE, NONE, 4096, false },
  [FAMILY_APERTUS] = { 131072, 4096, 14336, 32, 32, NONE, NONE, 65536, false },
  [FAMILY_GLM]     = { 151552, 4096, 13696, 40, 32, 2,    128,  131072, false },
  [FAMILY_HELIUM]  = { 48000,  2560, 7040,  24, 20, 20,   128,  4096, false },
  [FAMILY_MINISTRAL] = { 32000, 4096, 14336, 32, 32, 8,   NONE, 4096 * 32, false },
  [FAMILY_FLEX_OLMO] = { 100352, 4096, 11008, 32, 32, NONE, NONE, 4096, false },
  /* Qwen2VLTextConfig and Qwen2_5_VLTextConfig share theirs. */
  [FAMILY_QWEN2_VL] = { 152064, 8192, 29568, 80, 64, 8,   NONE, 32768, false },
  [FAMILY_QWEN3_VL] = { 151936, 4096, 22016, 32, 32, 32,  128,  128000, false },
  [FAMILY_QWEN3_VL_MOE] = { 151936, 2048, 5632, 24, 16, 16, NONE, 128000, false },
  [FAMILY_VAULTGEMMA] = { 256000, 2304, 9216, 26, 8, 4,   256,  8192, true },
  [FAMILY_GRANITEMOESHARED] = { 32000, 4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_GLM4V]   = { 151552, 4096, 13696, 40, 32, 2,    NONE, 32768, false },
  [FAMILY_GLM4V_MOE] = { 151424, 4096, 10944, 46, 96, 8,  NONE, 65536, false },
  [FAMILY_GRANITEMOEHYBRID] = { 32000, 4096, 11008, 32, 32, NONE, NONE, 2048, false },
  [FAMILY_MINIMAX_M2] = { 200064, 3072, 1536, 62, 48, 8,  128,  196608, false },
  [FAMILY_BITNET]  = { 128256, 2560, 6912,  30, 20, 5,    NONE, 2048, false },
  [FAMILY_AFMOE]   = { 200192, 2048, 6144,  32, 16, NONE, 128,  16384, false },
  [FAMILY_UNKNOWN] = { 0, 0, 0, 0, 0, NONE, NONE, 2048, false },
};


/* layer_types (transformers >= 4.53): "sliding_attention" or "full_attention"
 * for each layer. HrModel holds three patterns: no sliding layer; the first
 * f layers global and the rest sliding (Qwen2/Qwen3 max_window_layers); or
 * layer i global when i % p == p - 1 and the others sliding (Gemma 2/3,
 * GPT-OSS). Anything else, chunked or linear attention included, is refused
 * naming the key. *given tells whether the config has the list. */
HrStatus
hr_config_read_layer_types (Reader  *r,
                            int64_t  window,
                            HrModel *m,
                            bool    *given)
{
  HrValue v;
  char key[48];
  int64_t first_sliding = -1, first_full_after = -1, n_sliding = 0, period;

  *given = false;
  lookup (r, "layer_types", &v);
  if (v.type == HR_VALUE_ABSENT || v.type == HR_VALUE_NULL)
    return HR_OK;
  if (v.type != HR_VALUE_OTHER || v.i < 0)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "layer_types", 0, 0, "a list of strings");
  if (v.i != m->n_layers)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "layer_types", v.i, m->n_layers,
                         "one entry per layer (num_hidden_layers)");
  *given = true;

  for (int64_t i = 0; i < m->n_layers; i++)
    {
      bool sliding;

      snprintf (key, sizeof key, "layer_types.%lld", (long long) i);
      lookup (r, key, &v);
      if (v.type != HR_VALUE_STRING || v.s == NULL)
        return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "layer_types", 0, 0, "a list of strings");
      if (strcmp (v.s, "sliding_attention") == 0)
        sliding = true;
      else if (strcmp (v.s, "full_attention") == 0)
        sliding = false;
      else
        return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "layer_types", i, 0,
                             "a layer kind other than sliding_attention and full_attention");
      if (sliding)
        {
          n_sliding++;
          if (first_sliding < 0)
            first_sliding = i;
        }
      else if (first_sliding >= 0 && first_full_after < 0)
        first_full_after = i;
    }

  m->sliding_window = 0;
  m->sliding_window_period = 0;
  m->first_sliding_layer = 0;
  if (n_sliding == 0)
    return HR_OK;
  if (window == NONE || window <= 0)
    return hr_error_set (r->err, HR_ERROR_MISSING, "sliding_window", 0, 0,
                         "layer_types has sliding_attention layers");
  m->sliding_window = window;
  if (first_full_after < 0)
    {
      /* Global layers first (maybe none), then sliding ones to the end. */
      m->first_sliding_layer = first_sliding;
      return HR_OK;
    }
  if (first_sliding != 0)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "layer_types", first_full_after, 0,
                         "a mix of sliding and full layers Headroom cannot represent");
  period = first_full_after + 1;
  for (int64_t i = 0; i < m->n_layers; i++)
    {
      snprintf (key, sizeof key, "layer_types.%lld", (long long) i);
      lookup (r, key, &v);
      if ((strcmp (v.s, "sliding_attention") == 0) != (i % period != period - 1))
        return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "layer_types", i, 0,
                             "a mix of sliding and full layers Headroom cannot represent");
    }
  m->sliding_window_period = period;
  return HR_OK;
}

/* A list key Headroom does not model unless it is empty (Qwen mlp_only_layers). */
HrStatus
hr_config_require_empty_list (Reader     *r,
                              const char *key)
{
  HrValue v;

  lookup (r, key, &v);
  if (v.type == HR_VALUE_ABSENT || v.type == HR_VALUE_NULL)
    return HR_OK;
  if (v.type != HR_VALUE_OTHER || v.i < 0)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, key, 0, 0, "a list");
  if (v.i > 0)
    return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, key, v.i, 0,
                         "a list of dense layers; Headroom models only an empty one");
  return HR_OK;
}

HrStatus
hr_config_read_llama_style (Reader  *r,
                            Family   family,
                            HrModel *m)
{
  const Defaults *d = &llama_defaults[family];
  unsigned shape = POSITIVE | (family == FAMILY_UNKNOWN ? REQUIRED : 0);
  int64_t kv, head_dim, window;
  bool attention_bias = false, mlp_bias = false, given;

  TRY (read_int (r, "hidden_size", d->hidden, shape, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", d->layers, shape, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", d->heads, shape, &m->n_heads));
  TRY (read_int (r, "num_key_value_heads", d->kv_heads, NULLABLE | POSITIVE, &kv));
  TRY (read_int (r, "head_dim", d->head_dim, NULLABLE | POSITIVE, &head_dim));
  TRY (read_int (r, "intermediate_size", d->ffn, shape, &m->ffn_size));
  TRY (read_int (r, "vocab_size", d->vocab, shape, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", d->max_pos, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", d->tied, &m->tied_embeddings));

  m->n_kv_heads = kv == NONE ? m->n_heads : kv;
  if (head_dim == NONE)
    TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &head_dim));
  m->head_dim = head_dim;
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, "num_key_value_heads"));

  llama_layout (m);
  m->qkv_bias = m->out_bias = false;

  switch (family)
    {
    case FAMILY_LLAMA:
    case FAMILY_UNKNOWN:
      /* LlamaAttention: attention_bias on q, k, v and o; LlamaMLP: mlp_bias. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      TRY (read_bool (r, "mlp_bias", false, &mlp_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->mlp_bias = mlp_bias;
      break;
    case FAMILY_MISTRAL:
    case FAMILY_MIXTRAL:
      /* Every layer attends within sliding_window when it is set. */
      TRY (read_int (r, "sliding_window", family == FAMILY_MISTRAL ? 4096 : NONE,
                     NULLABLE | POSITIVE, &window));
      m->sliding_window = window == NONE ? 0 : window;
      if (family == FAMILY_MIXTRAL)
        {
          /* MixtralSparseMoeBlock: gate Linear(hidden, experts, bias=False) and
           * num_local_experts experts of w1, w2, w3 (intermediate_size). */
          TRY (read_int (r, "num_local_experts", 8, POSITIVE, &m->n_experts));
          TRY (read_int (r, "num_experts_per_tok", 2, POSITIVE, &m->experts_per_token));
          m->expert_ffn_size = m->ffn_size;
        }
      break;
    case FAMILY_QWEN2:
    case FAMILY_QWEN2_VL:
      {
        /* Qwen2Attention (Qwen2VLAttention): q, k, v with bias, o_proj
         * without. Sliding windows only with use_sliding_window, on layers
         * from max_window_layers on (28; Qwen2VLTextConfig's 80). M-RoPE's
         * mrope_section splits the same rotary dimensions: no parameters. */
        bool use_window;
        int64_t max_window_layers;

        m->qkv_bias = true;
        TRY (read_bool (r, "use_sliding_window", false, &use_window));
        TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
        TRY (read_int (r, "max_window_layers", family == FAMILY_QWEN2_VL ? 80 : 28, NON_NEG,
                       &max_window_layers));
        if (use_window && window != NONE && max_window_layers < m->n_layers)
          {
            m->sliding_window = window;
            m->first_sliding_layer = max_window_layers;
          }
      }
      break;
    case FAMILY_GEMMA:
    case FAMILY_GEMMA2:
      /* GemmaAttention/Gemma2Attention: attention_bias on q, k, v and o. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      if (family == FAMILY_GEMMA2)
        {
          /* Gemma2DecoderLayer: input, post_attention, pre_feedforward and
           * post_feedforward layernorms; even layers use the sliding window. */
          TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
          m->norm_placement = HR_NORM_SANDWICH;
          m->norms_per_layer = 4;
          m->sliding_window = window == NONE ? 0 : window;
          m->sliding_window_period = 2;
        }
      break;
    case FAMILY_PHI3:
      /* Phi3Attention fuses q, k, v into qkv_proj and Phi3MLP gate and up into
       * gate_up_proj: the same weights, no biases. */
      TRY (read_fraction (r, "partial_rotary_factor", 1.0, &m->rotary_fraction));
      TRY (read_int (r, "sliding_window", NONE, NULLABLE | POSITIVE, &window));
      m->sliding_window = window == NONE ? 0 : window;
      break;
    case FAMILY_QWEN3:
    case FAMILY_QWEN3_MOE:
    case FAMILY_QWEN3_VL:
    case FAMILY_QWEN3_VL_MOE:
      {
        /* Qwen3Attention (Qwen3VLTextAttention the same): q, k, v, o with
         * attention_bias; q_norm and k_norm, RMSNorm(head_dim). Sliding windows as in Qwen2 (use_sliding_window,
         * from max_window_layers on), or as layer_types says. */
        bool use_window;
        int64_t max_window_layers;

        TRY (read_bool (r, "attention_bias", false, &attention_bias));
        m->qkv_bias = m->out_bias = attention_bias;
        m->qk_norm = true;
        TRY (read_bool (r, "use_sliding_window", false, &use_window));
        TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
        TRY (read_int (r, "max_window_layers", 28, NON_NEG, &max_window_layers));
        TRY (hr_config_read_layer_types (r, window, m, &given));
        if (!given && use_window && window != NONE && max_window_layers < m->n_layers)
          {
            m->sliding_window = window;
            m->first_sliding_layer = max_window_layers;
          }
        /* Qwen3VLMoeTextConfig's MoE defaults are Qwen2-MoE's (60 experts). */
        if (family == FAMILY_QWEN3_MOE || family == FAMILY_QWEN3_VL_MOE)
          TRY (hr_config_llama_read_qwen_moe (r, family == FAMILY_QWEN3_MOE, m));
      }
      break;
    case FAMILY_QWEN2_MOE:
      {
        /* Qwen2MoeAttention: q, k, v with bias (qkv_bias), o_proj without;
         * Qwen2MoeSparseMoeBlock adds one shared_expert MLP of
         * shared_expert_intermediate_size and its shared_expert_gate. */
        int64_t shared;

        TRY (read_bool (r, "qkv_bias", true, &m->qkv_bias));
        TRY (read_int (r, "shared_expert_intermediate_size", 5632, NON_NEG, &shared));
        TRY (hr_config_llama_read_qwen_moe (r, false, m));
        if (shared > 0)
          {
            m->n_shared_experts = 1;
            m->shared_expert_ffn_size = shared;
            m->shared_expert_gate = true;
          }
      }
      break;
    case FAMILY_GEMMA3:
      {
        /* Gemma3Attention: q, k, v, o with attention_bias; q_norm and k_norm,
         * Gemma3RMSNorm(head_dim). Gemma3DecoderLayer: four norms (input,
         * post_attention, pre_feedforward, post_feedforward). Layers alternate
         * by layer_types or, in older configs, sliding_window_pattern (layer i
         * global when (i + 1) % pattern == 0). */
        int64_t pattern;

        TRY (read_bool (r, "attention_bias", false, &attention_bias));
        m->qkv_bias = m->out_bias = attention_bias;
        m->qk_norm = true;
        m->norm_placement = HR_NORM_SANDWICH;
        m->norms_per_layer = 4;
        TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
        TRY (read_int (r, "sliding_window_pattern", 6, POSITIVE, &pattern));
        TRY (hr_config_read_layer_types (r, window, m, &given));
        if (!given && window != NONE)
          {
            m->sliding_window = window;
            m->sliding_window_period = pattern;
          }
      }
      break;
    case FAMILY_GPT_OSS:
      /* GptOssAttention: q, k, v, o with attention_bias (default true) and
       * sinks (one per head). GptOssMLP: GptOssTopKRouter, weight and bias of
       * num_local_experts × hidden; GptOssExperts: gate_up_proj (E, hidden,
       * 2·intermediate) and down_proj (E, intermediate, hidden), each with a
       * bias. Every layer is MoE; layers alternate sliding (even) and full. */
      TRY (read_bool (r, "attention_bias", true, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->attention_sinks = true;
      m->mlp_bias = true;
      m->router_bias = true;
      TRY (read_int (r, "num_local_experts", 128, POSITIVE, &m->n_experts));
      TRY (read_int (r, "num_experts_per_tok", 4, POSITIVE, &m->experts_per_token));
      m->expert_ffn_size = m->ffn_size;
      TRY (read_int (r, "sliding_window", 128, NULLABLE | POSITIVE, &window));
      TRY (hr_config_read_layer_types (r, window, m, &given));
      if (!given && window != NONE)
        {
          m->sliding_window = window;
          m->sliding_window_period = 2;
        }
      break;
    case FAMILY_OLMO2:
    case FAMILY_OLMO3:
      /* Olmo2Attention: q, k, v, o with attention_bias; q_norm RMSNorm over
       * num_heads·head_dim, k_norm over num_kv_heads·head_dim. Olmo2DecoderLayer
       * has no input norm: post_attention_layernorm and post_feedforward_layernorm
       * after each sub-block. Olmo3Attention/Olmo3DecoderLayer hold the same
       * tensors; layers attend within sliding_window as layer_types says,
       * by default all but every 4th (Olmo3Config). */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->qk_norm = true;
      m->qk_norm_full = true;
      m->norm_placement = HR_NORM_POST;
      if (family == FAMILY_OLMO3)
        {
          TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
          TRY (hr_config_read_layer_types (r, window, m, &given));
          if (!given && window != NONE)
            {
              m->sliding_window = window;
              m->sliding_window_period = 4;
            }
        }
      break;
    case FAMILY_STARCODER2:
      /* Starcoder2Attention: q, k, v, o with use_bias; Starcoder2MLP: c_fc and
       * c_proj (a plain GELU MLP) with use_bias; LayerNorm with bias for
       * input_layernorm, post_attention_layernorm and norm; every layer
       * within sliding_window when it is set. */
      TRY (read_bool (r, "use_bias", true, &attention_bias));
      m->qkv_bias = m->out_bias = m->mlp_bias = attention_bias;
      m->ffn_kind = HR_FFN_MLP;
      m->norm_kind = HR_NORM_LAYERNORM;
      m->norm_bias = true;
      TRY (read_int (r, "sliding_window", NONE, NULLABLE | POSITIVE, &window));
      m->sliding_window = window == NONE ? 0 : window;
      break;
    case FAMILY_COHERE:
      /* CohereAttention: q, k, v, o with attention_bias; with use_qk_norm,
       * q_norm and k_norm are CohereLayerNorms of (heads, head_dim), weight
       * only. CohereDecoderLayer: one input_layernorm for the parallel
       * attention and MLP; CohereLayerNorm has no bias. Tied by default. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      TRY (read_bool (r, "use_qk_norm", false, &m->qk_norm));
      m->qkv_bias = m->out_bias = attention_bias;
      m->qk_norm_full = true;
      m->norm_kind = HR_NORM_LAYERNORM;
      m->norm_bias = false;
      m->norms_per_layer = 1;
      m->parallel_block = true;
      break;
    case FAMILY_STABLELM:
      {
        /* StableLmAttention: q, k, v with use_qkv_bias, o_proj without;
         * qk_layernorm: one LayerNorm(head_dim, bias=False) per head for q and
         * for k. LayerNorm with bias elsewhere; one input_layernorm with
         * use_parallel_residual; partial_rotary_factor of each head rotated. */
        bool parallel;

        TRY (read_bool (r, "use_qkv_bias", false, &m->qkv_bias));
        TRY (read_bool (r, "qk_layernorm", false, &m->qk_norm));
        TRY (read_bool (r, "use_parallel_residual", false, &parallel));
        TRY (read_fraction (r, "partial_rotary_factor", 0.25, &m->rotary_fraction));
        m->qk_norm_full = true;
        m->qk_norm_unbiased = true;
        m->norm_kind = HR_NORM_LAYERNORM;
        m->norm_bias = true;
        m->parallel_block = parallel;
        m->norms_per_layer = parallel ? 1 : 2;
      }
      break;
    case FAMILY_GRANITE:
    case FAMILY_SMOLLM3:
      /* GraniteAttention/SmolLM3Attention: attention_bias on q, k, v, o;
       * the MLP with mlp_bias. Granite's multipliers and SmolLM3's
       * no_rope_layers hold no parameters. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      TRY (read_bool (r, "mlp_bias", false, &mlp_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->mlp_bias = mlp_bias;
      if (family == FAMILY_SMOLLM3)
        {
          bool use_window;

          TRY (read_bool (r, "use_sliding_window", false, &use_window));
          if (use_window)
            return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "use_sliding_window", 1, 0,
                                 "SmolLM3 sliding windows");
        }
      break;
    case FAMILY_GRANITEMOE:
    case FAMILY_GRANITEMOESHARED:
      /* GraniteMoeMoE: router Linear(hidden, num_local_experts, bias=False);
       * ParallelExperts input_linear (E, 2·intermediate, hidden) and
       * output_linear (E, hidden, intermediate), no biases; every layer. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      TRY (read_int (r, "num_local_experts", 8, POSITIVE, &m->n_experts));
      TRY (read_int (r, "num_experts_per_tok", 2, POSITIVE, &m->experts_per_token));
      m->expert_ffn_size = m->ffn_size;
      if (family == FAMILY_GRANITEMOESHARED)
        return hr_config_llama_read_granitemoe_shared (r, m);
      break;
    case FAMILY_OLMOE:
      /* OlmoeAttention: q, k, v, o with attention_bias; q_norm RMSNorm over
       * hidden_size, k_norm over num_kv_heads·head_dim. OlmoeSparseMoeBlock:
       * gate Linear(hidden, num_experts, bias=False), num_experts MLPs of
       * intermediate_size; every layer. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->qk_norm = true;
      m->qk_norm_full = true;
      TRY (read_int (r, "num_experts", 64, POSITIVE, &m->n_experts));
      TRY (read_int (r, "num_experts_per_tok", 8, POSITIVE, &m->experts_per_token));
      m->expert_ffn_size = m->ffn_size;
      break;
    case FAMILY_PHIMOE:
      {
        /* PhimoeAttention: q, k, v, o with attention_bias; LayerNorms with
         * bias (input, post_attention, final); PhimoeSparseMoeBlock as
         * Mixtral's (gate without bias, w1, w2, w3 of intermediate_size);
         * lm_head with lm_head_bias. */
        TRY (read_bool (r, "attention_bias", false, &attention_bias));
        TRY (read_bool (r, "lm_head_bias", false, &m->lm_head_bias));
        m->qkv_bias = m->out_bias = attention_bias;
        m->norm_kind = HR_NORM_LAYERNORM;
        m->norm_bias = true;
        TRY (read_int (r, "num_local_experts", 16, POSITIVE, &m->n_experts));
        TRY (read_int (r, "num_experts_per_tok", 2, POSITIVE, &m->experts_per_token));
        TRY (read_int (r, "sliding_window", NONE, NULLABLE | POSITIVE, &window));
        m->expert_ffn_size = m->ffn_size;
        m->sliding_window = window == NONE ? 0 : window;
      }
      break;
    case FAMILY_LLAMA4:
      {
        /* Llama4TextAttention: q, k, v, o with attention_bias; use_qk_norm is
         * an L2 norm without weights. Llama4TextDecoderLayer: MoE on
         * moe_layers (default every interleave_moe_layer_step-th layer,
         * from step - 1), else Llama4TextMLP of intermediate_size_mlp.
         * Llama4TextMoe: router Linear(hidden, E, bias=False), experts
         * gate_up_proj (E, hidden, 2·intermediate_size) and down_proj (E,
         * intermediate_size, hidden), one shared_expert MLP of
         * intermediate_size. Layers with rope (not every
         * no_rope_layer_interval-th) attend within attention_chunk_size. */
        int64_t step, dense, chunk, interval;
        HrValue list;

        TRY (read_bool (r, "attention_bias", false, &attention_bias));
        m->qkv_bias = m->out_bias = attention_bias;
        TRY (read_int (r, "num_local_experts", 16, POSITIVE, &m->n_experts));
        TRY (read_int (r, "num_experts_per_tok", 1, POSITIVE, &m->experts_per_token));
        TRY (read_int (r, "interleave_moe_layer_step", 1, POSITIVE, &step));
        TRY (read_int (r, "intermediate_size_mlp", 16384, POSITIVE, &dense));
        TRY (read_int (r, "attention_chunk_size", 8192, NULLABLE | POSITIVE, &chunk));
        TRY (read_int (r, "no_rope_layer_interval", 4, POSITIVE, &interval));
        m->expert_ffn_size = m->ffn_size;
        m->n_shared_experts = 1;
        m->shared_expert_ffn_size = m->ffn_size;
        m->ffn_size = dense;
        m->moe_layer_freq = step;
        m->moe_layer_phase = step - 1;
        /* An explicit moe_layers or no_rope_layers must be the default pattern. */
        lookup (r, "moe_layers", &list);
        if (list.type == HR_VALUE_OTHER && list.i >= 0)
          {
            int64_t n = m->n_layers <= step - 1 ? 0 : (m->n_layers - step) / step + 1;

            if (list.i != n)
              return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "moe_layers", list.i, n,
                                   "MoE layers other than every interleave_moe_layer_step-th");
            for (int64_t i = 0; i < list.i; i++)
              {
                char key[48];
                HrValue v;

                snprintf (key, sizeof key, "moe_layers.%lld", (long long) i);
                lookup (r, key, &v);
                if (v.type != HR_VALUE_INT || v.i != step - 1 + i * step)
                  return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "moe_layers", i, 0,
                                       "MoE layers other than every interleave_moe_layer_step-th");
              }
          }
        lookup (r, "no_rope_layers", &list);
        if (list.type == HR_VALUE_OTHER && list.i > 0)
          {
            if (list.i != m->n_layers)
              return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "no_rope_layers", list.i,
                                   m->n_layers, "one entry per layer (num_hidden_layers)");
            for (int64_t i = 0; i < list.i; i++)
              {
                char key[48];
                HrValue v;

                snprintf (key, sizeof key, "no_rope_layers.%lld", (long long) i);
                lookup (r, key, &v);
                if (v.type != HR_VALUE_INT || v.i != ((i + 1) % interval != 0))
                  return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "no_rope_layers", i, 0,
                                       "global layers other than every no_rope_layer_interval-th");
              }
          }
        if (chunk != NONE)
          {
            m->sliding_window = chunk;
            m->sliding_window_period = interval;
            m->chunked_attention = true;
          }
      }
      break;
    case FAMILY_GLM4:
      return hr_config_llama_read_glm4 (r, m);
    case FAMILY_GLM4_MOE:
    case FAMILY_GLM4V_MOE:
      return hr_config_llama_read_glm4_moe (r, family == FAMILY_GLM4V_MOE, m);
    case FAMILY_GLM4V:
      return hr_config_llama_read_glm4v (r, m);
    case FAMILY_GRANITEMOEHYBRID:
      return hr_config_llama_read_granitemoe_hybrid (r, m);
    case FAMILY_MINIMAX_M2:
      return hr_config_llama_read_minimax_m2 (r, m);
    case FAMILY_AFMOE:
      return hr_config_llama_read_afmoe (r, m);
    case FAMILY_BITNET:
      /* modeling_bitnet.py: BitNetAttention is LlamaAttention (q, k, v, o
       * with attention_bias) with attn_sub_norm, RMSNorm(hidden_size), on
       * its output before o_proj; BitNetMLP is GemmaMLP (gate, up, down
       * without bias; hidden_act relu2 by default) with ffn_sub_norm,
       * RMSNorm(intermediate_size), before down_proj. The parameters are
       * the modules' (the bf16 master weights'): a quantization_config's
       * packed checkpoint stores four ternary weights a byte. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->sub_norms = true;
      break;
    case FAMILY_VAULTGEMMA:
      return hr_config_llama_read_vaultgemma (r, m);
    case FAMILY_COHERE2:
      return hr_config_llama_read_cohere2 (r, m);
    case FAMILY_EXAONE4:
      return hr_config_llama_read_exaone4 (r, m);
    case FAMILY_ERNIE4_5:
    case FAMILY_ERNIE4_5_MOE:
      /* Ernie4_5Attention: q, k, v, o with use_bias; Ernie4_5MLP with
       * use_bias; the lm_head (LlamaForCausalLM's) without. With use_bias,
       * Ernie4_5_MoeForCausalLM's lm_head has a bias and its experts have
       * biases in some transformers versions (Ernie4_5_MoeMLP) but not in
       * others (Ernie4_5_MoeExperts, as MixtralExperts): refused, no
       * published model sets it. */
      TRY (read_bool (r, "use_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = m->mlp_bias = attention_bias;
      if (family == FAMILY_ERNIE4_5_MOE)
        {
          if (attention_bias)
            return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "use_bias", 1, 0,
                                 "expert biases, which transformers versions build differently");
          TRY (hr_config_llama_read_ernie_moe (r, m));
        }
      break;
    case FAMILY_HUNYUAN_DENSE:
    case FAMILY_HUNYUAN_MOE:
      {
        /* HunYuanDenseV1Attention/HunYuanMoEV1Attention: q, k, v, o with
         * attention_bias; query_layernorm and key_layernorm, RMSNorm(head_dim),
         * whatever use_qk_norm says. HunYuan*MLP: no biases. Cross-layer
         * attention (use_cla), which shares k and v between layers in
         * Tencent's own code, is not built by transformers: refused. */
        bool cla;

        TRY (read_bool (r, "attention_bias", false, &attention_bias));
        TRY (read_bool (r, "use_cla", false, &cla));
        if (cla)
          return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "use_cla", 1, 0,
                               "cross-layer attention, which transformers does not build");
        m->qkv_bias = m->out_bias = attention_bias;
        m->qk_norm = true;
        if (family == FAMILY_HUNYUAN_MOE)
          TRY (hr_config_llama_read_hunyuan_moe (r, m));
      }
      break;
    case FAMILY_SEED_OSS:
      /* SeedOssAttention: q, k, v with attention_bias (default true), o_proj
       * with attention_out_bias; SeedOssMLP with mlp_bias. */
      TRY (read_bool (r, "attention_bias", true, &m->qkv_bias));
      TRY (read_bool (r, "attention_out_bias", false, &m->out_bias));
      TRY (read_bool (r, "mlp_bias", false, &m->mlp_bias));
      break;
    case FAMILY_DOTS1:
      /* Dots1Attention (Qwen3Attention): q, k, v, o with attention_bias;
       * q_norm and k_norm, RMSNorm(head_dim). */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->qk_norm = true;
      TRY (hr_config_llama_read_dots1 (r, m));
      break;
    case FAMILY_ARCEE:
      return hr_config_llama_read_arcee (r, m);
    case FAMILY_APERTUS:
      return hr_config_llama_read_apertus (r, m);
    case FAMILY_GLM:
      return hr_config_llama_read_glm (r, m);
    case FAMILY_HELIUM:
      return hr_config_llama_read_helium (r, m);
    case FAMILY_MINISTRAL:
      return hr_config_llama_read_ministral (r, m);
    case FAMILY_FLEX_OLMO:
      return hr_config_llama_read_flex_olmo (r, m);
    default:
      break;
    }
  return HR_OK;
}
