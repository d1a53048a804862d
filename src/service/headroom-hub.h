/* headroom-hub.h: a model's config.json from the Hugging Face Hub
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fetches {endpoint}/{org}/{name}/resolve/main/config.json with libsoup 3.
 * The endpoint comes from $HF_ENDPOINT (default https://huggingface.co) and
 * the access token for gated or private models from $HF_TOKEN, read when the
 * hub object is created. Responses are capped in size and time: a timeout per
 * read and a deadline for the whole. The token is sent over https only (or
 * plain http to this machine); messages never show HF_ENDPOINT's user name
 * or password, and quote what the server says with control characters
 * escaped.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "headroom-project.h"

G_BEGIN_DECLS

#define HEADROOM_HUB_DEFAULT_ENDPOINT  "https://huggingface.co"
#define HEADROOM_HUB_DEFAULT_TIMEOUT   30           /* seconds, per socket operation */
#define HEADROOM_HUB_DEFAULT_MAX_BYTES (1024 * 1024) /* configs are a few kB */
#define HEADROOM_HUB_DEFAULT_DEADLINE  60           /* seconds, the whole download */

#define HEADROOM_HUB_ERROR (headroom_hub_error_quark ())

typedef enum
{
  HEADROOM_HUB_ERROR_INVALID_ID,    /* not "org/name" (or "hf:org/name") */
  HEADROOM_HUB_ERROR_UNAUTHORIZED,  /* 401 or 403: gated or private; set HF_TOKEN */
  HEADROOM_HUB_ERROR_NOT_FOUND,     /* 404: no such model, or no config.json */
  HEADROOM_HUB_ERROR_TOO_LARGE,     /* the response exceeds the size cap */
  HEADROOM_HUB_ERROR_NETWORK,       /* no connection, or it timed out */
  HEADROOM_HUB_ERROR_HTTP,          /* any other HTTP failure */
  HEADROOM_HUB_ERROR_INVALID_CONFIG,/* not a JSON object */
  HEADROOM_HUB_ERROR_KEYRING,       /* the token could not be kept in or read from the keyring */
} HeadroomHubError;

GQuark headroom_hub_error_quark (void) G_GNUC_CONST;

#define HEADROOM_TYPE_HUB (headroom_hub_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomHub, headroom_hub, HEADROOM, HUB, GObject)

/* Endpoint from $HF_ENDPOINT, token from $HF_TOKEN (empty = none). */
HeadroomHub *headroom_hub_new              (void) G_GNUC_WARN_UNUSED_RESULT;

const char  *headroom_hub_get_endpoint     (HeadroomHub *self);
void         headroom_hub_set_endpoint     (HeadroomHub *self,
                                            const char  *endpoint);
void         headroom_hub_set_token        (HeadroomHub *self,
                                            const char  *token);
void         headroom_hub_set_timeout      (HeadroomHub *self,
                                            guint        seconds);
/* The whole download, however the server paces it. */
void         headroom_hub_set_deadline     (HeadroomHub *self,
                                            guint        seconds);
void         headroom_hub_set_max_bytes    (HeadroomHub *self,
                                            gsize        max_bytes);

/* The access token typed in the window, kept in the user's keyring through
 * libsecret (never in a file or GSettings), one per endpoint. store with
 * NULL or "" forgets it; lookup gives NULL when none is kept. Without a
 * keyring (no Secret Service, or built without libsecret) both fail with
 * an error saying so; the token is refused as headroom_hub_set_token()'s
 * requests would refuse it (a control character). */
gboolean     headroom_hub_store_token      (const char    *endpoint,
                                            const char    *token,
                                            GCancellable  *cancellable,
                                            GError       **error);
char        *headroom_hub_lookup_token     (const char    *endpoint,
                                            GCancellable  *cancellable,
                                            GError       **error) G_GNUC_WARN_UNUSED_RESULT;

/* "org/name" from "org/name" or "hf:org/name"; NULL (INVALID_ID) otherwise. */
char        *headroom_hub_parse_model_id   (const char  *text,
                                            GError     **error) G_GNUC_WARN_UNUSED_RESULT;
/* The URL fetched for a model id (as accepted by headroom_hub_parse_model_id()). */
char        *headroom_hub_dup_config_url   (HeadroomHub *self,
                                            const char  *model_id,
                                            GError     **error) G_GNUC_WARN_UNUSED_RESULT;

/* The config.json object. The async variant runs the request in a worker thread. */
JsonObject  *headroom_hub_fetch_config        (HeadroomHub          *self,
                                               const char           *model_id,
                                               GCancellable         *cancellable,
                                               GError              **error) G_GNUC_WARN_UNUSED_RESULT;
void         headroom_hub_fetch_config_async  (HeadroomHub          *self,
                                               const char           *model_id,
                                               GCancellable         *cancellable,
                                               GAsyncReadyCallback   callback,
                                               gpointer              user_data);
JsonObject  *headroom_hub_fetch_config_finish (HeadroomHub          *self,
                                               GAsyncResult         *result,
                                               GError              **error) G_GNUC_WARN_UNUSED_RESULT;

/* A new project whose model is the fetched config (other keys at their
 * defaults, notes naming the source); fails if the config is no model.
 * `assume` (NULL, "none" or "llama") is model.assume_architecture: how to
 * read an unknown model_type. */
HeadroomProject *headroom_hub_import       (HeadroomHub   *self,
                                            const char    *model_id,
                                            const char    *assume,
                                            GCancellable  *cancellable,
                                            GError       **error) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
