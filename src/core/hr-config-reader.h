/* hr-config-reader.h: how the config.json reader reads a key
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's vocabulary (Reader, read_int(), TRY, NONE, POSITIVE…) and the
 * families' readers, shared by hr-config.c (the entry point and
 * vision-language wrappers), hr-config-families.c (the families with readers
 * of their own), hr-config-mla.c (those built on DeepSeek-V3's latent
 * attention), hr-config-remote.c (those whose modeling code is in their
 * Hub repository), hr-config-llama.c (the Llama-style families) and
 * hr-config-llama-families.c (what each of those adds). For those six
 * files only.
 */
#pragma once

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

static inline void
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

/* The layer of Llama and its descendants: gated MLP without bias, rotary
 * positions, RMSNorm without bias (LlamaMLP, LlamaRotaryEmbedding,
 * LlamaRMSNorm); the attention's biases, and an MLP bias after this call,
 * are each family's. */
static inline void
llama_layout (HrModel *m)
{
  m->ffn_kind = HR_FFN_GATED;
  m->mlp_bias = false;
  m->positions = HR_POSITIONS_ROTARY;
  m->norm_kind = HR_NORM_RMSNORM;
  m->norm_bias = false;
}

/* Keys of an attribute_map: the alias, when the config has it, overrides the
 * attribute (PretrainedConfig sets the alias after the named argument). */
static inline const char *
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

static inline HrStatus
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

static inline HrStatus
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

static inline HrStatus
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
static inline HrStatus
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

static inline HrStatus
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

/* Whether a looked-up value is the string `text`. */
static inline bool
value_is (const HrValue *v,
          const char    *text)
{
  return v->type == HR_VALUE_STRING && v->s != NULL && strcmp (v->s, text) == 0;
}

/* num_key_value_heads, read after num_attention_heads: null or absent is
 * one per query head (multi-head attention), and it must divide them. */
static inline HrStatus
read_kv_heads (Reader  *r,
               HrModel *m)
{
  int64_t kv;

  TRY (read_int (r, "num_key_value_heads", NONE, NULLABLE | POSITIVE, &kv));
  m->n_kv_heads = kv == NONE ? m->n_heads : kv;
  return check_kv_heads (r, m->n_heads, m->n_kv_heads, "num_key_value_heads");
}

/* A router may not pick more experts than there are: `top_k_key` names the
 * setting, `detail` the one it exceeds ("more than num_experts"). */
static inline HrStatus
check_top_k (Reader     *r,
             HrModel    *m,
             const char *top_k_key,
             const char *detail)
{
  if (m->experts_per_token > m->n_experts)
    return hr_error_set (r->err, HR_ERROR_OUT_OF_RANGE, top_k_key, m->experts_per_token,
                         m->n_experts, detail);
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
  FAMILY_GLM4,
  FAMILY_GLM4_MOE,
  FAMILY_COHERE2,
  FAMILY_EXAONE4,
  FAMILY_ERNIE4_5,
  FAMILY_ERNIE4_5_MOE,
  FAMILY_HUNYUAN_DENSE,
  FAMILY_HUNYUAN_MOE,
  FAMILY_SEED_OSS,
  FAMILY_OLMO3,
  FAMILY_DOTS1,
  FAMILY_ARCEE,
  FAMILY_APERTUS,
  FAMILY_GLM,
  FAMILY_HELIUM,
  FAMILY_MINISTRAL,
  FAMILY_FLEX_OLMO,
  FAMILY_QWEN2_VL,
  FAMILY_QWEN3_VL,
  FAMILY_QWEN3_VL_MOE,
  FAMILY_VAULTGEMMA,
  FAMILY_GRANITEMOESHARED,
  FAMILY_GLM4V,
  FAMILY_GLM4V_MOE,
  FAMILY_GRANITEMOEHYBRID,
  FAMILY_MINIMAX_M2,
  FAMILY_BITNET,
  FAMILY_AFMOE,
  FAMILY_UNKNOWN,   /* read as Llama, but with no defaults for the shape */
} Family;

/* Reads a Llama-style family's keys into m (hr-config-llama.c). */
/* hr-config-families.c: the families with readers of their own */
HrStatus hr_config_read_gpt2 (Reader  *r,
                              HrModel *m);
HrStatus hr_config_read_gpt_neox (Reader  *r,
                                  HrModel *m);
HrStatus hr_config_read_opt (Reader  *r,
                             HrModel *m);
HrStatus hr_config_read_phi (Reader  *r,
                             HrModel *m);
HrStatus hr_config_read_falcon (Reader  *r,
                                HrModel *m);
HrStatus hr_config_read_deepseek (Reader  *r,
                                  bool     v3,
                                  HrModel *m);
HrStatus hr_config_read_gptj (Reader  *r,
                              HrModel *m);
HrStatus hr_config_read_deepseek_moe (Reader  *r,
                                      HrModel *m);
HrStatus hr_config_read_mpt (Reader  *r,
                             HrModel *m);
HrStatus hr_config_read_bloom (Reader  *r,
                               HrModel *m);
HrStatus hr_config_read_dbrx (Reader  *r,
                              HrModel *m);
HrStatus hr_config_read_internlm2 (Reader  *r,
                                   HrModel *m);
HrStatus hr_config_read_chatglm (Reader  *r,
                                 HrModel *m);
HrStatus hr_config_read_gpt_neo (Reader  *r,
                                 HrModel *m);
HrStatus hr_config_read_gpt_bigcode (Reader  *r,
                                     HrModel *m);
HrStatus hr_config_read_olmo (Reader  *r,
                              HrModel *m);
HrStatus hr_config_read_persimmon (Reader  *r,
                                   HrModel *m);
HrStatus hr_config_read_nemotron (Reader  *r,
                                  HrModel *m);
HrStatus hr_config_read_jetmoe (Reader  *r,
                                HrModel *m);

/* hr-config-mla.c: the families built on DeepSeek-V3's latent attention */
HrStatus hr_config_read_longcat_flash (Reader  *r,
                                       HrModel *m);
HrStatus hr_config_read_deepseek_v32 (Reader  *r,
                                      HrModel *m);

/* hr-config-remote.c: the families whose modeling code is in their Hub
 * repository (trust_remote_code) */
HrStatus hr_config_read_exaone (Reader  *r,
                                HrModel *m);
HrStatus hr_config_read_internlm3 (Reader  *r,
                                   HrModel *m);
HrStatus hr_config_read_minicpm (Reader  *r,
                                 HrModel *m);
HrStatus hr_config_read_baichuan (Reader  *r,
                                  HrModel *m);
HrStatus hr_config_read_qwen (Reader  *r,
                              HrModel *m);

/* hr-config-llama.c: what the Llama reader and its families share */
HrStatus hr_config_read_layer_types (Reader  *r,
                                     int64_t  window,
                                     HrModel *m,
                                     bool    *given);
HrStatus hr_config_require_empty_list (Reader     *r,
                                       const char *key);

/* hr-config-llama-families.c: the Llama-style families' own keys */
HrStatus hr_config_llama_read_qwen_moe (Reader  *r,
                                        bool     v3,
                                        HrModel *m);
HrStatus hr_config_llama_read_glm4 (Reader  *r,
                                    HrModel *m);
HrStatus hr_config_llama_read_glm4_moe (Reader  *r,
                                        bool     vision,
                                        HrModel *m);
HrStatus hr_config_llama_read_cohere2 (Reader  *r,
                                       HrModel *m);
HrStatus hr_config_llama_read_exaone4 (Reader  *r,
                                       HrModel *m);
HrStatus hr_config_llama_read_ernie_moe (Reader  *r,
                                         HrModel *m);
HrStatus hr_config_llama_read_hunyuan_moe (Reader  *r,
                                           HrModel *m);
HrStatus hr_config_llama_read_dots1 (Reader  *r,
                                     HrModel *m);
HrStatus hr_config_llama_read_arcee (Reader  *r,
                                     HrModel *m);
HrStatus hr_config_llama_read_apertus (Reader  *r,
                                       HrModel *m);
HrStatus hr_config_llama_read_glm (Reader  *r,
                                   HrModel *m);
HrStatus hr_config_llama_read_helium (Reader  *r,
                                      HrModel *m);
HrStatus hr_config_llama_read_ministral (Reader  *r,
                                         HrModel *m);
HrStatus hr_config_llama_read_flex_olmo (Reader  *r,
                                         HrModel *m);
HrStatus hr_config_llama_read_vaultgemma (Reader  *r,
                                          HrModel *m);
HrStatus hr_config_llama_read_granitemoe_shared (Reader  *r,
                                                 HrModel *m);
HrStatus hr_config_llama_read_glm4v (Reader  *r,
                                     HrModel *m);
HrStatus hr_config_llama_read_granitemoe_hybrid (Reader  *r,
                                                 HrModel *m);
HrStatus hr_config_llama_read_minimax_m2 (Reader  *r,
                                          HrModel *m);
HrStatus hr_config_llama_read_afmoe (Reader  *r,
                                     HrModel *m);

HrStatus hr_config_read_llama_style (Reader  *r,
                                     Family   family,
                                     HrModel *m);
