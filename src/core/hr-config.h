/* hr-config.h: read a Hugging Face config.json as the modeling code reads it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The core parses no JSON. The caller (the service, with json-glib; a test,
 * with a table) answers key look-ups through an HrConfigSource, and the core
 * applies each family's defaults and rules (which keys the modeling file
 * reads, which it ignores) to fill an HrModel.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hr-error.h"
#include "hr-model.h"

typedef enum
{
  HR_VALUE_ABSENT,   /* key not in the config */
  HR_VALUE_NULL,     /* JSON null */
  HR_VALUE_BOOL,
  HR_VALUE_INT,      /* a JSON number with no fraction */
  HR_VALUE_DOUBLE,   /* any other JSON number */
  HR_VALUE_STRING,
  HR_VALUE_OTHER,    /* object or array (i: an array's length, -1 for an object) */
} HrValueType;

typedef struct
{
  HrValueType type;
  bool        b;
  int64_t     i;
  double      d;     /* also set for HR_VALUE_INT */
  const char *s;     /* owned by the source, valid until the next look-up */
} HrValue;

typedef struct
{
  void *user_data;
  /* Fills *value for `key`; nested keys are written with dots ("text_config.hidden_size"),
   * array elements with their index ("layer_types.3"). */
  void (*lookup) (void       *user_data,
                  const char *key,
                  HrValue    *value);
} HrConfigSource;

typedef enum
{
  HR_CONFIG_WARN_NONE               = 0,
  HR_CONFIG_WARN_UNKNOWN_MODEL_TYPE = 1 << 0, /* unknown model_type, read as Llama-style
                                               * because the caller assumed it */
  HR_CONFIG_WARN_NO_MODEL_TYPE      = 1 << 1, /* absent model_type, the same */
  HR_CONFIG_WARN_TEXT_ONLY          = 1 << 2, /* a multimodal config: only its text model
                                               * (text_config) is counted, no vision tower */
} HrConfigWarnings;

/* The architecture to assume for a config whose model_type is unknown or absent. */
typedef enum
{
  HR_ASSUME_NONE,   /* refuse it: HR_ERROR_UNSUPPORTED on "model_type" */
  HR_ASSUME_LLAMA,  /* read it as a Llama-style decoder, with its keys required */
} HrAssume;

/* Fills *model from the config; on error names the key at fault in *err.
 * *warnings (may be NULL) receives HrConfigWarnings flags. An unknown or
 * absent model_type is refused (HR_ERROR_UNSUPPORTED, field "model_type");
 * so are the families hr_config_refusal() names, with its reason as the
 * detail. A vision-language model is read for its language model and warns
 * HR_CONFIG_WARN_TEXT_ONLY. */
HrStatus hr_model_from_config (const HrConfigSource *source,
                               HrModel              *model,
                               unsigned             *warnings,
                               HrError              *err);
/* The same, reading an unknown or absent model_type as `assume` says. */
HrStatus hr_model_from_config_assuming (const HrConfigSource *source,
                                        HrAssume              assume,
                                        HrModel              *model,
                                        unsigned             *warnings,
                                        HrError              *err);
/* "llama" -> HR_ASSUME_LLAMA; NULL or "" -> HR_ASSUME_NONE; -1 for any other name. */
int      hr_assume_from_name (const char *name);
/* Why model_type is refused by name (a state-space or hybrid model, a
 * transformer Headroom does not model); NULL for any other name. */
const char *hr_config_refusal (const char *model_type);
/* Whether model_type names a family hr_model_from_config() reads. */
bool     hr_config_knows_model_type (const char *model_type);
/* Whether it names a vision-language model of which only the language model
 * is counted (HR_CONFIG_WARN_TEXT_ONLY). */
bool     hr_config_is_vision_language (const char *model_type);
