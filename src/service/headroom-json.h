/* headroom-json.h: JSON from users and servers, parsed within limits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * json-glib's parser recurses once per nesting level and accepts what JSON
 * does not: content after the value, numbers too large for a double (read as
 * infinity). headroom_json_parse() checks the nesting depth with a cheap scan
 * before json-glib sees the text, then refuses trailing content and any
 * non-finite number (naming its key), and keeps its messages on one line.
 * The limits are listed in docs/project-format.md.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Projects nest 4 levels, configs rarely more than 5 (text_config.rope_scaling). */
#define HEADROOM_JSON_MAX_DEPTH 64

#define HEADROOM_JSON_ERROR (headroom_json_error_quark ())

typedef enum
{
  HEADROOM_JSON_ERROR_SYNTAX,      /* json-glib's message, escaped */
  HEADROOM_JSON_ERROR_DEPTH,       /* nested deeper than HEADROOM_JSON_MAX_DEPTH */
  HEADROOM_JSON_ERROR_TRAILING,    /* content after the value */
  HEADROOM_JSON_ERROR_NOT_FINITE,  /* a number out of a double's range */
} HeadroomJsonError;

GQuark    headroom_json_error_quark (void) G_GNUC_CONST;
/* The dotted path of the number a NOT_FINITE error is about; NULL otherwise. */
const char *headroom_json_error_get_path (const GError *error);

/* The root node of `data` (`size` bytes), or NULL with `error` set. */
JsonNode *headroom_json_parse (const char  *data,
                               gsize        size,
                               GError     **error) G_GNUC_WARN_UNUSED_RESULT;

/* FALSE with an error naming the key ("model.config.x: ...") when a number
 * under `node` is infinite or NaN, or a name or string is not UTF-8.
 * `path` names `node` (may be NULL). */
gboolean  headroom_json_check_finite (JsonNode    *node,
                                      const char  *path,
                                      GError     **error);

G_END_DECLS
