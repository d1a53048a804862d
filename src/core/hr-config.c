/* hr-config.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads a Hugging Face config.json the way transformers builds the model:
 * each family's defaults come from its configuration_<family>.py, and the
 * rules (which keys shape which tensors, which keys are ignored) from its
 * modeling_<family>.py. docs/model.md lists them family by family.
 *
 * This file picks the family by model_type and reads the text model of a
 * vision-language wrapper; hr-config-families.c and hr-config-mla.c read
 * the families with readers of their own, hr-config-llama.c the Llama-style
 * ones, and
 * hr-config-reader.h holds the reader's vocabulary.
 */
#include <string.h>

#include "hr-config-reader.h"

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
  TYPE_GPT_NEO,
  TYPE_GPT_BIGCODE,
  TYPE_OLMO,
  TYPE_PERSIMMON,
  TYPE_NEMOTRON,
  TYPE_JETMOE,
  TYPE_LONGCAT_FLASH,
  TYPE_DEEPSEEK_V32,
  TYPE_EXAONE,
  TYPE_INTERNLM3,
  TYPE_MINICPM,
  TYPE_BAICHUAN,
  TYPE_QWEN,
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
  { "gemma3",      TYPE_LLAMA_STYLE, FAMILY_GEMMA3 },   /* vision_language_types */
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
  { "llama4",      TYPE_LLAMA_STYLE, FAMILY_LLAMA4 },     /* vision_language_types */
  { "glm4",        TYPE_LLAMA_STYLE, FAMILY_GLM4 },
  { "glm4_moe",    TYPE_LLAMA_STYLE, FAMILY_GLM4_MOE },
  { "cohere2",     TYPE_LLAMA_STYLE, FAMILY_COHERE2 },
  { "exaone4",     TYPE_LLAMA_STYLE, FAMILY_EXAONE4 },
  { "ernie4_5",         TYPE_LLAMA_STYLE, FAMILY_ERNIE4_5 },
  { "ernie4_5_moe",     TYPE_LLAMA_STYLE, FAMILY_ERNIE4_5_MOE },
  { "hunyuan_v1_dense", TYPE_LLAMA_STYLE, FAMILY_HUNYUAN_DENSE },
  { "hunyuan_v1_moe",   TYPE_LLAMA_STYLE, FAMILY_HUNYUAN_MOE },
  { "seed_oss",         TYPE_LLAMA_STYLE, FAMILY_SEED_OSS },
  { "olmo3",            TYPE_LLAMA_STYLE, FAMILY_OLMO3 },
  { "dots1",            TYPE_LLAMA_STYLE, FAMILY_DOTS1 },
  { "gpt_neo",          TYPE_GPT_NEO,     FAMILY_UNKNOWN },
  { "gpt_bigcode",      TYPE_GPT_BIGCODE, FAMILY_UNKNOWN },
  { "codegen",          TYPE_GPTJ,        FAMILY_UNKNOWN },  /* GPT-J's tensors and defaults */
  { "olmo",             TYPE_OLMO,        FAMILY_UNKNOWN },
  { "persimmon",        TYPE_PERSIMMON,   FAMILY_UNKNOWN },
  { "nemotron",         TYPE_NEMOTRON,    FAMILY_UNKNOWN },
  { "arcee",            TYPE_LLAMA_STYLE, FAMILY_ARCEE },
  { "apertus",          TYPE_LLAMA_STYLE, FAMILY_APERTUS },
  { "glm",              TYPE_LLAMA_STYLE, FAMILY_GLM },
  { "helium",           TYPE_LLAMA_STYLE, FAMILY_HELIUM },
  { "ministral",        TYPE_LLAMA_STYLE, FAMILY_MINISTRAL },
  { "flex_olmo",        TYPE_LLAMA_STYLE, FAMILY_FLEX_OLMO },
  { "jetmoe",           TYPE_JETMOE,      FAMILY_UNKNOWN },
  { "qwen2_vl_text",    TYPE_LLAMA_STYLE, FAMILY_QWEN2_VL },
  { "qwen2_5_vl_text",  TYPE_LLAMA_STYLE, FAMILY_QWEN2_VL },
  { "qwen3_vl_text",    TYPE_LLAMA_STYLE, FAMILY_QWEN3_VL },
  { "qwen3_vl_moe_text", TYPE_LLAMA_STYLE, FAMILY_QWEN3_VL_MOE },
  { "vaultgemma",       TYPE_LLAMA_STYLE, FAMILY_VAULTGEMMA },
  { "granitemoeshared", TYPE_LLAMA_STYLE, FAMILY_GRANITEMOESHARED },
  { "glm4v_text",       TYPE_LLAMA_STYLE, FAMILY_GLM4V },
  { "glm4v_moe_text",   TYPE_LLAMA_STYLE, FAMILY_GLM4V_MOE },
  { "granitemoehybrid", TYPE_LLAMA_STYLE, FAMILY_GRANITEMOEHYBRID },
  { "minimax_m2",       TYPE_LLAMA_STYLE, FAMILY_MINIMAX_M2 },
  { "longcat_flash",    TYPE_LONGCAT_FLASH, FAMILY_UNKNOWN },
  { "bitnet",           TYPE_LLAMA_STYLE, FAMILY_BITNET },
  { "afmoe",            TYPE_LLAMA_STYLE, FAMILY_AFMOE },
  { "deepseek_v32",     TYPE_DEEPSEEK_V32, FAMILY_UNKNOWN },
  { "exaone",           TYPE_EXAONE,      FAMILY_UNKNOWN },  /* remote code */
  { "internlm3",        TYPE_INTERNLM3,   FAMILY_UNKNOWN },  /* remote code */
  { "minicpm",          TYPE_MINICPM,     FAMILY_UNKNOWN },  /* remote code */
  { "baichuan",         TYPE_BAICHUAN,    FAMILY_UNKNOWN },  /* remote code */
  { "qwen",             TYPE_QWEN,        FAMILY_UNKNOWN },  /* remote code (Qwen-1) */
  /* vision_language_types: their language model */
  { "qwen2_vl",         TYPE_LLAMA_STYLE, FAMILY_QWEN2_VL },
  { "qwen2_5_vl",       TYPE_LLAMA_STYLE, FAMILY_QWEN2_VL },
  { "qwen3_vl",         TYPE_LLAMA_STYLE, FAMILY_QWEN3_VL },
  { "qwen3_vl_moe",     TYPE_LLAMA_STYLE, FAMILY_QWEN3_VL_MOE },
  { "mistral3",         TYPE_LLAMA_STYLE, FAMILY_MISTRAL },
  { "llava",            TYPE_LLAMA_STYLE, FAMILY_LLAMA },
  { "llava_next",       TYPE_LLAMA_STYLE, FAMILY_LLAMA },
  { "paligemma",        TYPE_LLAMA_STYLE, FAMILY_GEMMA },
  { "idefics3",         TYPE_LLAMA_STYLE, FAMILY_LLAMA },
  { "smolvlm",          TYPE_LLAMA_STYLE, FAMILY_LLAMA },
  { "internvl",         TYPE_LLAMA_STYLE, FAMILY_QWEN2 },
  { "glm4v",            TYPE_LLAMA_STYLE, FAMILY_GLM4V },
  { "glm4v_moe",        TYPE_LLAMA_STYLE, FAMILY_GLM4V_MOE },
  { "aya_vision",       TYPE_LLAMA_STYLE, FAMILY_COHERE2 },
  { "fuyu",             TYPE_PERSIMMON,   FAMILY_UNKNOWN },
};

enum
{
  TEXT_TYPED = 1 << 0,  /* text_config.model_type picks the family (AutoConfig),
                         * the entry's when it names none */
  TEXT_FLAT  = 1 << 1,  /* without text_config, the text keys are at the top level */
  TEXT_NEEDED = 1 << 2, /* without text_config, the wrapper builds one with defaults
                         * of its own: refused rather than guessed */
};

/* Vision-language wrappers (…ForConditionalGeneration): the language model is
 * text_config, read by its family's reader with that family's defaults, lm_head
 * and tie_word_embeddings included (get_text_config(decoder=True)); the vision
 * tower and the projector are not counted (HR_CONFIG_WARN_TEXT_ONLY). From each
 * configuration_<type>.py. */
static const struct
{
  const char *name;
  unsigned    flags;
} vision_language_types[] = {
  { "gemma3",     0 },
  { "llama4",     0 },
  { "qwen2_vl",   TEXT_FLAT },   /* Hub configs are flat (Qwen2VLConfig pops the keys) */
  { "qwen2_5_vl", TEXT_FLAT },
  { "qwen3_vl",   0 },
  { "qwen3_vl_moe", 0 },
  { "mistral3",   TEXT_TYPED | TEXT_NEEDED },
  { "llava",      TEXT_TYPED },  /* None: LlamaConfig() */
  { "llava_next", TEXT_TYPED },
  { "paligemma",  TEXT_TYPED | TEXT_NEEDED },
  { "idefics3",   TEXT_TYPED | TEXT_NEEDED },
  { "smolvlm",    TEXT_TYPED | TEXT_NEEDED },
  { "internvl",   TEXT_TYPED },  /* None: Qwen2Config() */
  { "glm4v",      TEXT_FLAT },   /* None: Glm4vTextConfig(**kwargs) */
  { "glm4v_moe",  TEXT_FLAT },   /* Glm4vMoeConfig is Glm4vConfig's */
  { "aya_vision", TEXT_TYPED | TEXT_NEEDED },
  /* None: a Persimmon text config of FuyuConfig's keys, whose defaults are
   * PersimmonConfig's. FuyuForCausalLM's vision_embed_tokens, Linear(
   * patch_size² · num_channels, hidden_size) with bias, embeds the image
   * patches: not counted. */
  { "fuyu",       TEXT_TYPED | TEXT_FLAT },
};

/* Gemma3nTextDecoderLayer */
static const char gemma3n_reason[] =
  "Gemma 3n's AltUp and Laurel blocks and per-layer embeddings, which Headroom does not model";

/* Transformers Headroom does not model, refused by name with the reason. */
static const struct
{
  const char *name;
  const char *reason;
} unmodelled_types[] = {
  { "gemma3n",      gemma3n_reason },
  { "gemma3n_text", gemma3n_reason },
  /* modeling_diffllama.py: DiffLlamaAttention adds lambda_q1, lambda_k1,
   * lambda_q2 and lambda_k2 (head_dim each) and takes the difference of two
   * attention maps over values of twice head_dim */
  { "diffllama", "DiffLlama's differential attention and its lambda vectors, "
                 "which Headroom does not model" },
  /* modeling_mllama.py: the layers of MllamaTextModel listed in
   * cross_attention_layers are MllamaCrossAttentionDecoderLayer, with q/k
   * norms and two tanh gates, attending to the vision tower's states */
  { "mllama", "Llama 3.2 Vision's cross-attention layers (cross_attention_layers), "
              "which Headroom does not model" },
  /* modeling_minicpm3.py (remote code): DeepSeek-V2's latent attention
   * (q_a_proj, kv_a_proj_with_mqa, their norms, q_b_proj, kv_b_proj,
   * o_proj), but its cache holds the expanded keys (heads · (nope + rope))
   * and values (heads · v_head_dim; vLLM pads them to the key's size), not
   * the latent that HrModel's latent attention caches */
  { "minicpm3", "MiniCPM3's latent attention, whose cache holds the expanded keys and "
                "values rather than the latent, which Headroom does not model" },
  /* modeling_decilm.py (remote code; Llama-3.3-Nemotron-Super-49B,
   * Llama-3.1-Nemotron-Ultra-253B, Llama-3.1-Nemotron-Nano-8B): each
   * DeciLMDecoderLayer builds what its entry of block_configs says: its
   * attention skipped (no_op, with its input_layernorm), one Linear
   * (replace_with_linear) or with num_attention_heads / n_heads_in_group kv
   * heads of its own; its MLP skipped, one Linear or of a width of its own
   * (ffn_mult). HrModel has one attention and one MLP shape for every
   * layer. */
  { "nemotron-nas", "NVIDIA's Nemotron-NAS layers, each of its own shape (block_configs: "
                    "attention or MLP skipped, linear, or with kv heads and widths of their "
                    "own), which Headroom does not model" },
  /* modeling_decilm.py of Deci's DeciLM-7B (remote code): each layer's
   * kv heads are num_key_value_heads_per_layer's entry */
  { "deci", "DeciLM's kv heads that vary from layer to layer "
            "(num_key_value_heads_per_layer), which Headroom does not model" },
};

/* Families whose layers are not (only) attention and MLP: refused by name,
 * never read as a transformer. (granitemoehybrid is read when its
 * layer_types are all "attention", and refused naming that key otherwise.) */
static const char * const state_space_types[] = {
  "mamba", "mamba2", "falcon_mamba", "jamba", "zamba", "zamba2", "bamba", "falcon_h1",
  "nemotron_h", "rwkv", "rwkv5", "rwkv6", "recurrent_gemma", "xlstm",
  "lfm2", "qwen3_next", "minimax",
  /* MiniCPM-SALA (remote code): its mixer_types put lightning (linear)
   * attention in most layers */
  "minicpm_sala",
};

static int
find_vision_language (const char *model_type)
{
  if (model_type == NULL)
    return -1;
  for (size_t i = 0; i < sizeof vision_language_types / sizeof vision_language_types[0]; i++)
    if (strcmp (model_type, vision_language_types[i].name) == 0)
      return (int) i;
  return -1;
}

bool
hr_config_is_vision_language (const char *model_type)
{
  return find_vision_language (model_type) >= 0;
}

/* Where a wrapper's language model lives and which family reads it: sets
 * r->prefix, *type and *family. */
static HrStatus
find_text_model (Reader    *r,
                 unsigned   flags,
                 ModelType *type,
                 Family    *family)
{
  HrValue v;
  size_t i;

  lookup (r, "text_config", &v);
  if (v.type == HR_VALUE_ABSENT || v.type == HR_VALUE_NULL)
    {
      if (flags & TEXT_NEEDED)
        return hr_error_set (r->err, HR_ERROR_MISSING, "text_config", 0, 0,
                             "the language model's settings");
      if (!(flags & TEXT_FLAT))
        r->prefix = "text_config.";
      return HR_OK;
    }
  if (v.type != HR_VALUE_OTHER || v.i != -1)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "text_config", 0, 0, "an object");
  r->prefix = "text_config.";
  if (!(flags & TEXT_TYPED))
    return HR_OK;
  lookup (r, "model_type", &v);
  if (v.type == HR_VALUE_ABSENT || v.type == HR_VALUE_NULL)
    return HR_OK;
  if (v.type != HR_VALUE_STRING || v.s == NULL)
    return hr_error_set (r->err, HR_ERROR_WRONG_TYPE, "text_config.model_type", 0, 0, "a string");
  for (i = 0; i < sizeof model_types / sizeof model_types[0]; i++)
    if (strcmp (v.s, model_types[i].name) == 0 && find_vision_language (v.s) < 0)
      {
        *type = model_types[i].type;
        *family = model_types[i].family;
        return HR_OK;
      }
  return hr_error_set (r->err, HR_ERROR_UNSUPPORTED, "text_config.model_type", 0, 0,
                       "a language model of a family Headroom does not read");
}

const char *
hr_config_refusal (const char *model_type)
{
  if (model_type == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof state_space_types / sizeof state_space_types[0]; i++)
    if (strcmp (model_type, state_space_types[i]) == 0)
      return "a state-space or hybrid model, not supported; Headroom estimates transformer decoders";
  for (size_t i = 0; i < sizeof unmodelled_types / sizeof unmodelled_types[0]; i++)
    if (strcmp (model_type, unmodelled_types[i].name) == 0)
      return unmodelled_types[i].reason;
  return NULL;
}

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

      const char *refusal = hr_config_refusal (v.s);

      if (refusal != NULL)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "model_type", 0, 0, refusal);
      for (i = 0; i < sizeof model_types / sizeof model_types[0]; i++)
        if (strcmp (v.s, model_types[i].name) == 0)
          break;
      if (i < sizeof model_types / sizeof model_types[0])
        {
          int vl = find_vision_language (v.s);

          type = model_types[i].type;
          family = model_types[i].family;
          if (vl >= 0)
            {
              TRY (find_text_model (&r, vision_language_types[vl].flags, &type, &family));
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
      status = hr_config_read_gpt2 (&r, &m);
      break;
    case TYPE_GPT_NEOX:
      status = hr_config_read_gpt_neox (&r, &m);
      break;
    case TYPE_OPT:
      status = hr_config_read_opt (&r, &m);
      break;
    case TYPE_PHI:
      status = hr_config_read_phi (&r, &m);
      break;
    case TYPE_FALCON:
      status = hr_config_read_falcon (&r, &m);
      break;
    case TYPE_DEEPSEEK_V2:
    case TYPE_DEEPSEEK_V3:
      status = hr_config_read_deepseek (&r, type == TYPE_DEEPSEEK_V3, &m);
      break;
    case TYPE_GPTJ:
      status = hr_config_read_gptj (&r, &m);
      break;
    case TYPE_DEEPSEEK_MOE:
      status = hr_config_read_deepseek_moe (&r, &m);
      break;
    case TYPE_MPT:
      status = hr_config_read_mpt (&r, &m);
      break;
    case TYPE_BLOOM:
      status = hr_config_read_bloom (&r, &m);
      break;
    case TYPE_DBRX:
      status = hr_config_read_dbrx (&r, &m);
      break;
    case TYPE_INTERNLM2:
      status = hr_config_read_internlm2 (&r, &m);
      break;
    case TYPE_CHATGLM:
      status = hr_config_read_chatglm (&r, &m);
      break;
    case TYPE_GPT_NEO:
      status = hr_config_read_gpt_neo (&r, &m);
      break;
    case TYPE_GPT_BIGCODE:
      status = hr_config_read_gpt_bigcode (&r, &m);
      break;
    case TYPE_OLMO:
      status = hr_config_read_olmo (&r, &m);
      break;
    case TYPE_PERSIMMON:
      status = hr_config_read_persimmon (&r, &m);
      break;
    case TYPE_NEMOTRON:
      status = hr_config_read_nemotron (&r, &m);
      break;
    case TYPE_JETMOE:
      status = hr_config_read_jetmoe (&r, &m);
      break;
    case TYPE_DEEPSEEK_V32:
      status = hr_config_read_deepseek_v32 (&r, &m);
      break;
    case TYPE_LONGCAT_FLASH:
      status = hr_config_read_longcat_flash (&r, &m);
      break;
    case TYPE_EXAONE:
      status = hr_config_read_exaone (&r, &m);
      break;
    case TYPE_INTERNLM3:
      status = hr_config_read_internlm3 (&r, &m);
      break;
    case TYPE_MINICPM:
      status = hr_config_read_minicpm (&r, &m);
      break;
    case TYPE_BAICHUAN:
      status = hr_config_read_baichuan (&r, &m);
      break;
    case TYPE_QWEN:
      status = hr_config_read_qwen (&r, &m);
      break;
    case TYPE_LLAMA_STYLE:
    default:
      status = hr_config_read_llama_style (&r, family, &m);
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
