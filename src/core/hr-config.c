/* hr-config.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads a Hugging Face config.json the way transformers builds the model:
 * each family's defaults come from its configuration_<family>.py, and the
 * rules (which keys shape which tensors, which keys are ignored) from its
 * modeling_<family>.py. docs/model.md lists them family by family.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hr-config.h"

/* Python's None, for keys whose default is None or whose value is null. */
#define NONE INT64_MIN

enum
{
  REQUIRED = 1 << 0,  /* absent is an error (no default to fall back on) */
  NULLABLE = 1 << 1,  /* null reads as NONE; otherwise null is the wrong type */
  POSITIVE = 1 << 2,  /* must be > 0 when given */
  NON_NEG  = 1 << 3,  /* must be >= 0 when given */
};

typedef struct
{
  const HrConfigSource *source;
  HrError              *err;
  const char           *prefix;  /* "text_config." while reading a nested text model */
} Reader;

static void
lookup (Reader     *r,
        const char *key,
        HrValue    *value)
{
  char nested[256];

  memset (value, 0, sizeof *value);
  value->type = HR_VALUE_ABSENT;
  if (r->prefix != NULL)
    {
      if ((size_t) snprintf (nested, sizeof nested, "%s%s", r->prefix, key) >= sizeof nested)
        return;
      key = nested;
    }
  r->source->lookup (r->source->user_data, key, value);
}

/* Keys of an attribute_map: the alias, when the config has it, overrides the
 * attribute (PretrainedConfig sets the alias after the named argument). */
static const char *
pick (Reader     *r,
      const char *key,
      const char *alias)
{
  HrValue v;

  if (alias == NULL)
    return key;
  lookup (r, alias, &v);
  return v.type == HR_VALUE_ABSENT ? key : alias;
}

static HrStatus
read_int (Reader     *r,
          const char *key,
          int64_t     fallback,
          unsigned    flags,
          int64_t    *out)
{
  HrValue v;

  *out = fallback;
  lookup (r, key, &v);
  switch (v.type)
    {
    case HR_VALUE_ABSENT:
      if (flags & REQUIRED)
        return hr_error_set (r->err, HR_ERROR_MISSING, key, 0, 0, NULL);
      *out = fallback;
      return HR_OK;
    case HR_VALUE_NULL:
      if (!(flags & NULLABLE))
        return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, key, 0, 0, "an integer");
      *out = NONE;
      return HR_OK;
    case HR_VALUE_INT:
      if ((flags & POSITIVE) && v.i <= 0)
        return hr_error_set (r->err, HR_ERROR_NOT_POSITIVE, key, v.i, 0, NULL);
      if ((flags & NON_NEG) && v.i < 0)
        return hr_error_set (r->err, HR_ERROR_NOT_POSITIVE, key, v.i, 0, "may be 0");
      *out = v.i;
      return HR_OK;
    case HR_VALUE_BOOL:
    case HR_VALUE_DOUBLE:
    case HR_VALUE_STRING:
    case HR_VALUE_OTHER:
    default:
      return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, key, 0, 0,
                           (flags & NULLABLE) ? "an integer or null" : "an integer");
    }
}

static HrStatus
read_bool (Reader     *r,
           const char *key,
           bool        fallback,
           bool       *out)
{
  HrValue v;

  *out = fallback;
  lookup (r, key, &v);
  if (v.type == HR_VALUE_ABSENT)
    return HR_OK;
  if (v.type != HR_VALUE_BOOL)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, key, 0, 0, "true or false");
  *out = v.b;
  return HR_OK;
}

static HrStatus
read_fraction (Reader     *r,
               const char *key,
               double      fallback,
               double     *out)
{
  HrValue v;

  lookup (r, key, &v);
  if (v.type == HR_VALUE_ABSENT)
    {
      *out = fallback;
      return HR_OK;
    }
  if (v.type != HR_VALUE_INT && v.type != HR_VALUE_DOUBLE)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, key, 0, 0, "a number");
  if (!(v.d > 0.0 && v.d <= 1.0))
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, key,
                         isfinite (v.d) && fabs (v.d) < 1e15 ? llround (v.d * 100) : -1, 100,
                         "in percent, must lie in (0, 100]");
  *out = v.d;
  return HR_OK;
}

#define TRY(expr) do { HrStatus try_status_ = (expr); if (try_status_ != HR_OK) return try_status_; } while (0)

/* head_dim = hidden_size / num_attention_heads, as the attention modules
 * compute it; they refuse sizes that do not divide. */
static HrStatus
derive_head_dim (Reader     *r,
                 int64_t     hidden,
                 int64_t     heads,
                 const char *heads_key,
                 int64_t    *head_dim)
{
  if (hidden % heads != 0)
    return hr_error_set (r->err, HR_ERROR_NOT_DIVISIBLE, heads_key, heads, hidden,
                         "hidden_size");
  *head_dim = hidden / heads;
  return HR_OK;
}

static HrStatus
check_kv_heads (Reader     *r,
                int64_t     heads,
                int64_t     kv_heads,
                const char *kv_key)
{
  if (heads % kv_heads != 0)
    return hr_error_set (r->err, HR_ERROR_NOT_DIVISIBLE, kv_key, kv_heads, heads,
                         "num_attention_heads");
  return HR_OK;
}

/* GPT2Config / modeling_gpt2.py: Conv1D c_attn, c_proj, c_fc, mlp c_proj, all
 * with biases; ln_1, ln_2, ln_f LayerNorms; wpe of n_positions rows; n_inner
 * None means 4·n_embd; the head is tied unless tie_word_embeddings is false.
 * n_ctx is not read by the model: n_positions sizes wpe. */
static HrStatus
read_gpt2 (Reader  *r,
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
static HrStatus
read_gpt_neox (Reader  *r,
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
static HrStatus
read_opt (Reader  *r,
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
static HrStatus
read_phi (Reader  *r,
          HrModel *m)
{
  int64_t kv;

  TRY (read_int (r, "hidden_size", 2048, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 24, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "num_key_value_heads", NONE, NULLABLE | POSITIVE, &kv));
  TRY (read_int (r, "intermediate_size", 8192, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 51200, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_fraction (r, "partial_rotary_factor", 0.5, &m->rotary_fraction));
  TRY (read_bool (r, "qk_layernorm", false, &m->qk_norm));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  m->n_kv_heads = kv == NONE ? m->n_heads : kv;
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, "num_key_value_heads"));
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
static HrStatus
read_falcon (Reader  *r,
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

/* The Llama-style families: q/k/v/o_proj, gate/up/down_proj, RMSNorm
 * input_layernorm and post_attention_layernorm, a final norm, rotary
 * positions, biases where attention_bias/mlp_bias say. */
typedef enum
{
  FAMILY_LLAMA,
  FAMILY_MISTRAL,
  FAMILY_MIXTRAL,
  FAMILY_QWEN2,
  FAMILY_GEMMA,
  FAMILY_GEMMA2,
  FAMILY_PHI3,
  FAMILY_QWEN3,
  FAMILY_QWEN3_MOE,
  FAMILY_QWEN2_MOE,
  FAMILY_GEMMA3,
  FAMILY_GPT_OSS,
  FAMILY_OLMO2,
  FAMILY_STARCODER2,
  FAMILY_COHERE,
  FAMILY_STABLELM,
  FAMILY_GRANITE,
  FAMILY_GRANITEMOE,
  FAMILY_OLMOE,
  FAMILY_SMOLLM3,
  FAMILY_PHIMOE,
  FAMILY_LLAMA4,
  FAMILY_UNKNOWN,   /* read as Llama, but with no defaults for the shape */
} Family;

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
  [FAMILY_UNKNOWN] = { 0, 0, 0, 0, 0, NONE, NONE, 2048, false },
};


/* layer_types (transformers >= 4.53): "sliding_attention" or "full_attention"
 * for each layer. HrModel holds three patterns: no sliding layer; the first
 * f layers global and the rest sliding (Qwen2/Qwen3 max_window_layers); or
 * layer i global when i % p == p - 1 and the others sliding (Gemma 2/3,
 * GPT-OSS). Anything else, chunked or linear attention included, is refused
 * naming the key. *given tells whether the config has the list. */
static HrStatus
read_layer_types (Reader  *r,
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
static HrStatus
require_empty_list (Reader     *r,
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

/* Qwen2MoeSparseMoeBlock / Qwen3MoeSparseMoeBlock: a bias-free gate Linear(hidden,
 * num_experts) and num_experts MLPs of moe_intermediate_size; the decoder layer
 * is MoE when (layer_idx + 1) % decoder_sparse_step == 0 and it is not in
 * mlp_only_layers. */
static HrStatus
read_qwen_moe (Reader  *r,
               bool     v3,
               HrModel *m)
{
  int64_t step;

  TRY (read_int (r, "num_experts", v3 ? 128 : 60, POSITIVE, &m->n_experts));
  TRY (read_int (r, "num_experts_per_tok", v3 ? 8 : 4, POSITIVE, &m->experts_per_token));
  TRY (read_int (r, "moe_intermediate_size", v3 ? 768 : 1408, POSITIVE, &m->expert_ffn_size));
  TRY (read_int (r, "decoder_sparse_step", 1, POSITIVE, &step));
  TRY (require_empty_list (r, "mlp_only_layers"));
  if (m->experts_per_token > m->n_experts)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok",
                         m->experts_per_token, m->n_experts, "more than num_experts");
  m->moe_layer_freq = step;
  m->moe_layer_phase = step - 1;
  return HR_OK;
}

static HrStatus
read_llama_style (Reader  *r,
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

  m->ffn_kind = HR_FFN_GATED;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_kind = HR_NORM_RMSNORM;
  m->norm_bias = false;
  m->qkv_bias = m->out_bias = m->mlp_bias = false;

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
      {
        /* Qwen2Attention: q, k, v with bias, o_proj without. Sliding windows
         * only with use_sliding_window, on layers from max_window_layers on. */
        bool use_window;
        int64_t max_window_layers;

        m->qkv_bias = true;
        TRY (read_bool (r, "use_sliding_window", false, &use_window));
        TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
        TRY (read_int (r, "max_window_layers", 28, NON_NEG, &max_window_layers));
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
      {
        /* Qwen3Attention: q, k, v, o with attention_bias; q_norm and k_norm,
         * RMSNorm(head_dim). Sliding windows as in Qwen2 (use_sliding_window,
         * from max_window_layers on), or as layer_types says. */
        bool use_window;
        int64_t max_window_layers;

        TRY (read_bool (r, "attention_bias", false, &attention_bias));
        m->qkv_bias = m->out_bias = attention_bias;
        m->qk_norm = true;
        TRY (read_bool (r, "use_sliding_window", false, &use_window));
        TRY (read_int (r, "sliding_window", 4096, NULLABLE | POSITIVE, &window));
        TRY (read_int (r, "max_window_layers", 28, NON_NEG, &max_window_layers));
        TRY (read_layer_types (r, window, m, &given));
        if (!given && use_window && window != NONE && max_window_layers < m->n_layers)
          {
            m->sliding_window = window;
            m->first_sliding_layer = max_window_layers;
          }
        if (family == FAMILY_QWEN3_MOE)
          TRY (read_qwen_moe (r, true, m));
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
        TRY (read_qwen_moe (r, false, m));
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
        TRY (read_layer_types (r, window, m, &given));
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
      TRY (read_layer_types (r, window, m, &given));
      if (!given && window != NONE)
        {
          m->sliding_window = window;
          m->sliding_window_period = 2;
        }
      break;
    case FAMILY_OLMO2:
      /* Olmo2Attention: q, k, v, o with attention_bias; q_norm RMSNorm over
       * num_heads·head_dim, k_norm over num_kv_heads·head_dim. Olmo2DecoderLayer
       * has no input norm: post_attention_layernorm and post_feedforward_layernorm
       * after each sub-block. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      m->qk_norm = true;
      m->qk_norm_full = true;
      m->norm_placement = HR_NORM_POST;
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
      /* GraniteMoeMoE: router Linear(hidden, num_local_experts, bias=False);
       * ParallelExperts input_linear (E, 2·intermediate, hidden) and
       * output_linear (E, hidden, intermediate), no biases; every layer. */
      TRY (read_bool (r, "attention_bias", false, &attention_bias));
      m->qkv_bias = m->out_bias = attention_bias;
      TRY (read_int (r, "num_local_experts", 8, POSITIVE, &m->n_experts));
      TRY (read_int (r, "num_experts_per_tok", 2, POSITIVE, &m->experts_per_token));
      m->expert_ffn_size = m->ffn_size;
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
    default:
      break;
    }
  return HR_OK;
}

/* GPTJConfig / modeling_gptj.py: q_proj, k_proj, v_proj, out_proj without
 * biases; GPTJMLP fc_in and fc_out with biases (n_inner None: 4·n_embd); one
 * ln_1 (LayerNorm with bias) shared by the parallel attention and MLP; ln_f;
 * an untied lm_head with a bias; rotary_dim of the head dim rotated (None:
 * all of it). */
static HrStatus
read_gptj (Reader  *r,
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
static HrStatus
read_deepseek_moe (Reader  *r,
                   HrModel *m)
{
  int64_t kv, routed, shared;

  TRY (read_int (r, "hidden_size", 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 30, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "num_key_value_heads", NONE, NULLABLE | POSITIVE, &kv));
  TRY (read_int (r, "intermediate_size", 11008, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 102400, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "attention_bias", false, &m->qkv_bias));
  m->out_bias = m->qkv_bias;
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  m->n_kv_heads = kv == NONE ? m->n_heads : kv;
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, "num_key_value_heads"));
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
  m->ffn_kind = HR_FFN_GATED;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_kind = HR_NORM_RMSNORM;
  m->norm_bias = false;
  m->mlp_bias = false;
  return HR_OK;
}

/* MptConfig / modeling_mpt.py: Wqkv and out_proj, up_proj and down_proj (a
 * plain MLP of expansion_ratio·d_model), all without bias; norm_1, norm_2 and
 * norm_f LayerNorms whose bias is removed; ALiBi; tied. attn_config is
 * nested; transformers builds multi-head attention only. */
static HrStatus
read_mpt (Reader  *r,
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
static HrStatus
read_bloom (Reader  *r,
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
static HrStatus
read_dbrx (Reader  *r,
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
static HrStatus
read_internlm2 (Reader  *r,
                HrModel *m)
{
  int64_t kv;
  bool bias;

  TRY (read_int (r, "hidden_size", 4096, POSITIVE, &m->hidden_size));
  TRY (read_int (r, "num_hidden_layers", 32, POSITIVE, &m->n_layers));
  TRY (read_int (r, "num_attention_heads", 32, POSITIVE, &m->n_heads));
  TRY (read_int (r, "num_key_value_heads", NONE, NULLABLE | POSITIVE, &kv));
  TRY (read_int (r, "intermediate_size", 11008, POSITIVE, &m->ffn_size));
  TRY (read_int (r, "vocab_size", 103168, POSITIVE, &m->vocab_size));
  TRY (read_int (r, "max_position_embeddings", 2048, POSITIVE, &m->max_positions));
  TRY (read_bool (r, "tie_word_embeddings", false, &m->tied_embeddings));
  TRY (read_bool (r, "bias", true, &bias));
  TRY (derive_head_dim (r, m->hidden_size, m->n_heads, "num_attention_heads", &m->head_dim));
  m->n_kv_heads = kv == NONE ? m->n_heads : kv;
  TRY (check_kv_heads (r, m->n_heads, m->n_kv_heads, "num_key_value_heads"));
  m->qkv_bias = m->out_bias = bias;
  m->mlp_bias = false;
  m->ffn_kind = HR_FFN_GATED;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_kind = HR_NORM_RMSNORM;
  m->norm_bias = false;
  return HR_OK;
}

/* ChatGLMConfig / modeling_chatglm.py (remote code): query_key_value of
 * heads·kv_channels + 2·multi_query_group_num·kv_channels (with
 * multi_query_attention) with add_qkv_bias; dense, dense_h_to_4h (2 ×
 * ffn_hidden_size, SwiGLU) and dense_4h_to_h with add_bias_linear;
 * input_layernorm, post_attention_layernorm and final_layernorm (RMSNorm
 * with rmsnorm, else LayerNorm with bias; final one with post_layer_norm);
 * rotary on half of each head; untied output_layer of padded_vocab_size. */
static HrStatus
read_chatglm (Reader  *r,
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
static HrStatus
read_deepseek (Reader  *r,
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
      if (m->experts_per_token > m->n_experts)
        return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok",
                             m->experts_per_token, m->n_experts, "more than n_routed_experts");
      m->n_shared_experts = shared == NONE ? 0 : shared;
      m->shared_expert_ffn_size = m->expert_ffn_size;
    }

  m->ffn_kind = HR_FFN_GATED;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_kind = HR_NORM_RMSNORM;
  m->norm_bias = false;
  m->mlp_bias = false;
  return HR_OK;
}

typedef enum
{
  TYPE_GPT2,
  TYPE_GPT_NEOX,
  TYPE_OPT,
  TYPE_PHI,
  TYPE_FALCON,
  TYPE_DEEPSEEK_V2,
  TYPE_DEEPSEEK_V3,
  TYPE_GPTJ,
  TYPE_DEEPSEEK_MOE,
  TYPE_MPT,
  TYPE_BLOOM,
  TYPE_DBRX,
  TYPE_INTERNLM2,
  TYPE_CHATGLM,
  TYPE_LLAMA_STYLE,
} ModelType;

static const struct
{
  const char *name;
  ModelType   type;
  Family      family;
} model_types[] = {
  { "gpt2",        TYPE_GPT2,        FAMILY_UNKNOWN },
  { "gpt_neox",    TYPE_GPT_NEOX,    FAMILY_UNKNOWN },
  { "opt",         TYPE_OPT,         FAMILY_UNKNOWN },
  { "phi",         TYPE_PHI,         FAMILY_UNKNOWN },
  { "falcon",      TYPE_FALCON,      FAMILY_UNKNOWN },
  { "deepseek_v2", TYPE_DEEPSEEK_V2, FAMILY_UNKNOWN },
  { "deepseek_v3", TYPE_DEEPSEEK_V3, FAMILY_UNKNOWN },
  { "llama",       TYPE_LLAMA_STYLE, FAMILY_LLAMA },
  { "mistral",     TYPE_LLAMA_STYLE, FAMILY_MISTRAL },
  { "mixtral",     TYPE_LLAMA_STYLE, FAMILY_MIXTRAL },
  { "qwen2",       TYPE_LLAMA_STYLE, FAMILY_QWEN2 },
  { "gemma",       TYPE_LLAMA_STYLE, FAMILY_GEMMA },
  { "gemma2",      TYPE_LLAMA_STYLE, FAMILY_GEMMA2 },
  { "phi3",        TYPE_LLAMA_STYLE, FAMILY_PHI3 },
  { "gptj",        TYPE_GPTJ,        FAMILY_UNKNOWN },
  { "deepseek",    TYPE_DEEPSEEK_MOE, FAMILY_UNKNOWN },
  { "mpt",         TYPE_MPT,         FAMILY_UNKNOWN },
  { "bloom",       TYPE_BLOOM,       FAMILY_UNKNOWN },
  { "dbrx",        TYPE_DBRX,        FAMILY_UNKNOWN },
  { "internlm2",   TYPE_INTERNLM2,   FAMILY_UNKNOWN },
  { "chatglm",     TYPE_CHATGLM,     FAMILY_UNKNOWN },
  { "qwen3",       TYPE_LLAMA_STYLE, FAMILY_QWEN3 },
  { "qwen3_moe",   TYPE_LLAMA_STYLE, FAMILY_QWEN3_MOE },
  { "qwen2_moe",   TYPE_LLAMA_STYLE, FAMILY_QWEN2_MOE },
  { "gemma3_text", TYPE_LLAMA_STYLE, FAMILY_GEMMA3 },
  { "gemma3",      TYPE_LLAMA_STYLE, FAMILY_GEMMA3 },   /* its text_config */
  { "gpt_oss",     TYPE_LLAMA_STYLE, FAMILY_GPT_OSS },
  { "olmo2",       TYPE_LLAMA_STYLE, FAMILY_OLMO2 },
  { "starcoder2",  TYPE_LLAMA_STYLE, FAMILY_STARCODER2 },
  { "cohere",      TYPE_LLAMA_STYLE, FAMILY_COHERE },
  { "stablelm",    TYPE_LLAMA_STYLE, FAMILY_STABLELM },
  { "granite",     TYPE_LLAMA_STYLE, FAMILY_GRANITE },
  { "granitemoe",  TYPE_LLAMA_STYLE, FAMILY_GRANITEMOE },
  { "olmoe",       TYPE_LLAMA_STYLE, FAMILY_OLMOE },
  { "smollm3",     TYPE_LLAMA_STYLE, FAMILY_SMOLLM3 },
  { "phimoe",      TYPE_LLAMA_STYLE, FAMILY_PHIMOE },
  { "llama4_text", TYPE_LLAMA_STYLE, FAMILY_LLAMA4 },
  { "llama4",      TYPE_LLAMA_STYLE, FAMILY_LLAMA4 },     /* its text_config */
};

/* Families whose layers are not (only) attention and MLP: refused by name,
 * never read as a transformer. */
static const char * const state_space_types[] = {
  "mamba", "mamba2", "falcon_mamba", "jamba", "zamba", "zamba2", "bamba", "falcon_h1",
  "nemotron_h", "granitemoehybrid", "rwkv", "rwkv5", "rwkv6", "recurrent_gemma", "xlstm",
  "lfm2", "qwen3_next", "minimax",
};

bool
hr_config_knows_model_type (const char *model_type)
{
  if (model_type == NULL)
    return false;
  for (size_t i = 0; i < sizeof model_types / sizeof model_types[0]; i++)
    if (strcmp (model_type, model_types[i].name) == 0)
      return true;
  return false;
}

int
hr_assume_from_name (const char *name)
{
  if (name == NULL || *name == '\0' || strcmp (name, "none") == 0)
    return HR_ASSUME_NONE;
  if (strcmp (name, "llama") == 0)
    return HR_ASSUME_LLAMA;
  return -1;
}

HrStatus
hr_model_from_config (const HrConfigSource *source,
                      HrModel              *model,
                      unsigned             *warnings,
                      HrError              *err)
{
  return hr_model_from_config_assuming (source, HR_ASSUME_NONE, model, warnings, err);
}

HrStatus
hr_model_from_config_assuming (const HrConfigSource *source,
                               HrAssume              assume,
                               HrModel              *model,
                               unsigned             *warnings,
                               HrError              *err)
{
  Reader r = { source, err, NULL };
  HrModel m;
  HrValue v;
  ModelType type = TYPE_LLAMA_STYLE;
  Family family = FAMILY_UNKNOWN;
  unsigned warn = HR_CONFIG_WARN_NONE;
  HrStatus status;

  hr_error_set (err, HR_OK, NULL, 0, 0, NULL);
  if (warnings != NULL)
    *warnings = HR_CONFIG_WARN_NONE;
  if (source == NULL || source->lookup == NULL)
    return hr_error_set (err, HR_ERROR_MISSING, "config", 0, 0, "no configuration to read");
  hr_model_init (&m);

  if (assume != HR_ASSUME_NONE && assume != HR_ASSUME_LLAMA)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "assume_architecture", assume, 0,
                         "unknown architecture");

  lookup (&r, "model_type", &v);
  if (v.type == HR_VALUE_ABSENT || v.type == HR_VALUE_NULL)
    {
      /* Never a silent guess: only when the caller assumed an architecture. */
      if (assume == HR_ASSUME_NONE)
        return hr_error_set (err, HR_ERROR_MISSING, "model_type", 0, 0,
                             "pick a preset, or assume a Llama-style decoder");
      warn |= HR_CONFIG_WARN_NO_MODEL_TYPE;
    }
  else if (v.type != HR_VALUE_STRING || v.s == NULL)
    return hr_error_set (err, HR_ERROR_WRONG_TYPE, "model_type", 0, 0, "a string");
  else
    {
      size_t i;

      for (i = 0; i < sizeof state_space_types / sizeof state_space_types[0]; i++)
        if (strcmp (v.s, state_space_types[i]) == 0)
          return hr_error_set (err, HR_ERROR_UNSUPPORTED, "model_type", 0, 0,
                               "a state-space or hybrid model; Headroom estimates transformers");
      for (i = 0; i < sizeof model_types / sizeof model_types[0]; i++)
        if (strcmp (v.s, model_types[i].name) == 0)
          break;
      if (i < sizeof model_types / sizeof model_types[0])
        {
          type = model_types[i].type;
          family = model_types[i].family;
          /* Gemma3ForConditionalGeneration, Llama4ForConditionalGeneration:
           * the language model is text_config; the vision tower and the
           * projector are not counted. */
          if (strcmp (v.s, "gemma3") == 0 || strcmp (v.s, "llama4") == 0)
            {
              r.prefix = "text_config.";
              warn |= HR_CONFIG_WARN_TEXT_ONLY;
            }
        }
      else if (assume == HR_ASSUME_NONE)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "model_type", 0, 0,
                             "unknown family; pick a preset, or assume a Llama-style decoder");
      else
        warn |= HR_CONFIG_WARN_UNKNOWN_MODEL_TYPE;
    }

  switch (type)
    {
    case TYPE_GPT2:
      status = read_gpt2 (&r, &m);
      break;
    case TYPE_GPT_NEOX:
      status = read_gpt_neox (&r, &m);
      break;
    case TYPE_OPT:
      status = read_opt (&r, &m);
      break;
    case TYPE_PHI:
      status = read_phi (&r, &m);
      break;
    case TYPE_FALCON:
      status = read_falcon (&r, &m);
      break;
    case TYPE_DEEPSEEK_V2:
    case TYPE_DEEPSEEK_V3:
      status = read_deepseek (&r, type == TYPE_DEEPSEEK_V3, &m);
      break;
    case TYPE_GPTJ:
      status = read_gptj (&r, &m);
      break;
    case TYPE_DEEPSEEK_MOE:
      status = read_deepseek_moe (&r, &m);
      break;
    case TYPE_MPT:
      status = read_mpt (&r, &m);
      break;
    case TYPE_BLOOM:
      status = read_bloom (&r, &m);
      break;
    case TYPE_DBRX:
      status = read_dbrx (&r, &m);
      break;
    case TYPE_INTERNLM2:
      status = read_internlm2 (&r, &m);
      break;
    case TYPE_CHATGLM:
      status = read_chatglm (&r, &m);
      break;
    case TYPE_LLAMA_STYLE:
    default:
      status = read_llama_style (&r, family, &m);
      break;
    }
  if (status != HR_OK)
    return status;

  TRY (hr_model_validate (&m, err));
  *model = m;
  if (warnings != NULL)
    *warnings = warn;
  return HR_OK;
}
