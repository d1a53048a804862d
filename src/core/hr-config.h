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
  HR_VALUE_OTHER,    /* object or array */
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
  /* Fills *value for `key`; nested keys are written with dots ("text_config.hidden_size"). */
  void (*lookup) (void       *user_data,
                  const char *key,
                  HrValue    *value);
} HrConfigSource;

typedef enum
{
  HR_CONFIG_WARN_NONE               = 0,
  HR_CONFIG_WARN_UNKNOWN_MODEL_TYPE = 1 << 0, /* read as Llama-style */
  HR_CONFIG_WARN_NO_MODEL_TYPE      = 1 << 1, /* absent model_type, read as Llama-style */
} HrConfigWarnings;

/* Fills *model from the config; on error names the key at fault in *err.
 * *warnings (may be NULL) receives HrConfigWarnings flags. */
HrStatus hr_model_from_config (const HrConfigSource *source,
                               HrModel              *model,
                               unsigned             *warnings,
                               HrError              *err);
