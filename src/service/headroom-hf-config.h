/* headroom-hf-config.h: a Hugging Face config.json read into an HrModel
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * json-glib answers the core's key look-ups (hr-config.h); nested keys are
 * written with dots ("text_config.hidden_size"). Errors name the key at fault.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "hr-config.h"
#include "hr-model.h"

G_BEGIN_DECLS

#define HEADROOM_HF_CONFIG_ERROR (headroom_hf_config_error_quark ())

typedef enum
{
  HEADROOM_HF_CONFIG_ERROR_PARSE,    /* not JSON, or the root is not an object */
  HEADROOM_HF_CONFIG_ERROR_INVALID,  /* a key has a bad value (message names it) */
  HEADROOM_HF_CONFIG_ERROR_TYPE,     /* a key has the wrong JSON type */
  HEADROOM_HF_CONFIG_ERROR_MISSING,  /* a required key is absent */
  HEADROOM_HF_CONFIG_ERROR_IO,       /* the file could not be read */
  HEADROOM_HF_CONFIG_ERROR_UNSUPPORTED, /* a model_type Headroom does not estimate */
  HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE, /* an unknown or absent model_type, nothing assumed */
} HeadroomHfConfigError;

GQuark   headroom_hf_config_error_quark (void);
/* The config key an error is about ("num_key_value_heads") and the problem
 * without it ("5 does not divide 32"); NULL when it names no one key. */
const char *headroom_hf_config_error_get_field   (const GError *error);
const char *headroom_hf_config_error_get_problem (const GError *error);

/* Makes `source` answer look-ups from `config`; valid while `config` lives
 * (strings handed to the core belong to its nodes). */
void     headroom_hf_config_source_init (HrConfigSource *source,
                                         JsonObject     *config);

/* Fills *model (validated) from `config`. An unknown or absent model_type is
 * refused (UNKNOWN_TYPE) unless the config holds Headroom's "assume_architecture":
 * "llama" (set from the project key model.assume_architecture). model_type (may be NULL) receives
 * the config's "model_type" or NULL when absent; warnings (may be NULL)
 * receives HrConfigWarnings flags. */
gboolean headroom_hf_config_read       (JsonObject  *config,
                                        HrModel     *model,
                                        char       **model_type,
                                        unsigned    *warnings,
                                        GError     **error);
gboolean headroom_hf_config_read_bytes (GBytes      *bytes,
                                        HrModel     *model,
                                        char       **model_type,
                                        unsigned    *warnings,
                                        GError     **error);
gboolean headroom_hf_config_read_file  (GFile       *file,
                                        HrModel     *model,
                                        char       **model_type,
                                        unsigned    *warnings,
                                        GError     **error);

/* Parses `bytes` into an object (PARSE error if not JSON or not an object). */
JsonObject *headroom_hf_config_parse_bytes (GBytes  *bytes,
                                            GError **error);

/* Sets `error` in HEADROOM_HF_CONFIG_ERROR from a core error (one line naming the field). */
void     headroom_hf_config_set_error (GError       **error,
                                       const HrError *err);

G_END_DECLS
