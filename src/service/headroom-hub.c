/* headroom-hub.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-hub"

#include "config.h"

#include <glib/gi18n.h>
#include <libsoup/soup.h>
#include <string.h>
#if HAVE_LIBSECRET
#include <libsecret/secret.h>
#endif

#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-hub.h"

#define READ_CHUNK 16384

struct _HeadroomHub
{
  GObject parent_instance;

  char *endpoint;
  char *token;
  guint timeout;
  guint deadline;
  gsize max_bytes;
};

G_DEFINE_FINAL_TYPE (HeadroomHub, headroom_hub, G_TYPE_OBJECT)

G_DEFINE_QUARK (headroom-hub-error-quark, headroom_hub_error)

/* What one request needs, copied so that a worker thread owns it. */
typedef struct
{
  char *url;
  char *display_url;  /* for messages: no user name or password */
  char *model_id;
  char *token;
  guint timeout;
  guint deadline;
  gsize max_bytes;
} Request;

static void
request_free (Request *request)
{
  g_free (request->url);
  g_free (request->display_url);
  g_free (request->model_id);
  g_free (request->token);
  g_free (request);
}

static void
headroom_hub_finalize (GObject *object)
{
  HeadroomHub *self = (HeadroomHub *)object;

  g_clear_pointer (&self->endpoint, g_free);
  g_clear_pointer (&self->token, g_free);

  G_OBJECT_CLASS (headroom_hub_parent_class)->finalize (object);
}

static void
headroom_hub_class_init (HeadroomHubClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = headroom_hub_finalize;
}

static void
headroom_hub_init (HeadroomHub *self)
{
  self->timeout = HEADROOM_HUB_DEFAULT_TIMEOUT;
  self->deadline = HEADROOM_HUB_DEFAULT_DEADLINE;
  self->max_bytes = HEADROOM_HUB_DEFAULT_MAX_BYTES;
}

HeadroomHub *
headroom_hub_new (void)
{
  HeadroomHub *self = g_object_new (HEADROOM_TYPE_HUB, NULL);
  const char *endpoint = g_getenv ("HF_ENDPOINT");

  headroom_hub_set_endpoint (self, endpoint != NULL && *endpoint != '\0'
                                   ? endpoint : HEADROOM_HUB_DEFAULT_ENDPOINT);
  headroom_hub_set_token (self, g_getenv ("HF_TOKEN"));
  return self;
}

const char *
headroom_hub_get_endpoint (HeadroomHub *self)
{
  g_return_val_if_fail (HEADROOM_IS_HUB (self), NULL);
  return self->endpoint;
}

void
headroom_hub_set_endpoint (HeadroomHub *self,
                           const char  *endpoint)
{
  gsize len;

  g_return_if_fail (HEADROOM_IS_HUB (self));
  g_return_if_fail (endpoint != NULL);

  g_free (self->endpoint);
  len = strlen (endpoint);
  while (len > 0 && endpoint[len - 1] == '/')
    len--;
  self->endpoint = g_strndup (endpoint, len);
}

void
headroom_hub_set_token (HeadroomHub *self,
                        const char  *token)
{
  g_return_if_fail (HEADROOM_IS_HUB (self));

  g_free (self->token);
  self->token = token != NULL && *token != '\0' ? g_strstrip (g_strdup (token)) : NULL;
}

void
headroom_hub_set_timeout (HeadroomHub *self,
                          guint        seconds)
{
  g_return_if_fail (HEADROOM_IS_HUB (self));
  g_return_if_fail (seconds > 0);

  self->timeout = seconds;
}

void
headroom_hub_set_deadline (HeadroomHub *self,
                           guint        seconds)
{
  g_return_if_fail (HEADROOM_IS_HUB (self));
  g_return_if_fail (seconds > 0);

  self->deadline = seconds;
}

void
headroom_hub_set_max_bytes (HeadroomHub *self,
                            gsize        max_bytes)
{
  g_return_if_fail (HEADROOM_IS_HUB (self));
  g_return_if_fail (max_bytes > 0);

  self->max_bytes = max_bytes;
}

/* Hub repository names: letters, digits, '-', '_', '.', not starting with '.'
 * or '-' (and so never ".."). */
static gboolean
valid_name_part (const char *part)
{
  if (*part == '\0' || *part == '.' || *part == '-' || strlen (part) > 96)
    return FALSE;
  for (const char *p = part; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
      return FALSE;
  return TRUE;
}

char *
headroom_hub_parse_model_id (const char  *text,
                             GError     **error)
{
  g_auto(GStrv) parts = NULL;
  guint n;

  g_return_val_if_fail (text != NULL, NULL);

  if (g_str_has_prefix (text, "hf:"))
    text += strlen ("hf:");
  parts = g_strsplit (text, "/", -1);
  n = g_strv_length (parts);
  /* Old unnamespaced repositories ("gpt2") exist beside "org/name". */
  if (n < 1 || n > 2 || !valid_name_part (parts[0]) || (n == 2 && !valid_name_part (parts[1])))
    {
      g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_INVALID_ID,
                   _("“%s” is not a Hugging Face model id (expected hf:ORG/NAME)"), text);
      return NULL;
    }
  return g_strdup (text);
}

char *
headroom_hub_dup_config_url (HeadroomHub  *self,
                             const char   *model_id,
                             GError      **error)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (HEADROOM_IS_HUB (self), NULL);
  g_return_val_if_fail (model_id != NULL, NULL);

  id = headroom_hub_parse_model_id (model_id, error);
  if (id == NULL)
    return NULL;
  return g_strdup_printf ("%s/%s/resolve/main/config.json", self->endpoint, id);
}

static void
set_status_error (GError     **error,
                  SoupMessage *message,
                  const char  *model_id)
{
  guint status = soup_message_get_status (message);

  switch (status)
    {
    case SOUP_STATUS_UNAUTHORIZED:
    case SOUP_STATUS_FORBIDDEN:
      g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED,
                   _("hf:%s: access denied (HTTP %u): the model is gated or private; accept "
                     "its terms on the Hub, then set the HF_TOKEN environment variable to an "
                     "access token (https://huggingface.co/settings/tokens)"),
                   model_id, status);
      break;
    case SOUP_STATUS_NOT_FOUND:
      g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NOT_FOUND,
                   _("hf:%s: not found (HTTP 404): no such model, or it has no config.json"),
                   model_id);
      break;
    default:
      {
        /* The server chooses the reason phrase: escape it (issue 15). */
        g_autofree char *reason = headroom_format_one_line (soup_message_get_reason_phrase (message));

        g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_HTTP,
                     _("hf:%s: the Hub answered HTTP %u %s"), model_id, status, reason);
      }
      break;
    }
}

static void
set_too_large (GError        **error,
               const Request  *request)
{
  g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_TOO_LARGE,
               _("hf:%s: config.json is larger than %" G_GSIZE_FORMAT " bytes"),
               request->model_id, request->max_bytes);
}

/* The overall deadline: a thread that cancels the request's cancellable when
 * the time is up, whether the server is silent (the per-read timeout catches
 * that) or sends a byte now and then (it does not). */
typedef struct
{
  GMutex        lock;
  GCond         cond;
  gboolean      finished;
  gboolean      expired;
  gint64        end_time;
  GCancellable *cancellable;
} Deadline;

static gpointer
deadline_thread (gpointer data)
{
  Deadline *deadline = data;

  g_mutex_lock (&deadline->lock);
  while (!deadline->finished)
    if (!g_cond_wait_until (&deadline->cond, &deadline->lock, deadline->end_time))
      {
        if (!deadline->finished)
          {
            deadline->expired = TRUE;
            g_cancellable_cancel (deadline->cancellable);
          }
        break;
      }
  g_mutex_unlock (&deadline->lock);
  return NULL;
}

static void
cancel_request (GCancellable *caller,
                GCancellable *request)
{
  g_cancellable_cancel (request);
}

/* Sets `error` for a failed read or send: the caller's cancellation as it is,
 * the deadline as a network error, others with the library's message escaped. */
static void
set_transfer_error (GError        **error,
                    GError         *local_error,
                    const Request  *request,
                    GCancellable   *caller,
                    Deadline       *deadline,
                    gboolean        reading)
{
  g_autofree char *message = headroom_format_one_line (local_error->message);
  gboolean expired;

  g_mutex_lock (&deadline->lock);
  expired = deadline->expired;
  g_mutex_unlock (&deadline->lock);

  if (expired && !g_cancellable_is_cancelled (caller))
    g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NETWORK,
                 _("hf:%s: %s did not answer in full within %u s"), request->model_id,
                 request->display_url, request->deadline);
  else if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, message);
  else if (reading)
    g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NETWORK,
                 _("hf:%s: reading %s failed: %s"), request->model_id, request->display_url,
                 message);
  else
    g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NETWORK,
                 _("hf:%s: could not reach %s: %s"), request->model_id, request->display_url,
                 message);
}

/* Blocking; runs in the caller's thread or a worker's, with its own session. */
static JsonObject *
fetch_within (const Request  *request,
              GCancellable   *caller,
              GCancellable   *cancellable,
              Deadline       *deadline,
              GError        **error)
{
  g_autoptr(SoupSession) session = NULL;
  g_autoptr(SoupMessage) message = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GByteArray) body = g_byte_array_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local_error = NULL;
  SoupMessageHeaders *headers;
  JsonObject *config;

  session = soup_session_new_with_options ("timeout", request->timeout,
                                           "user-agent", "headroom/" PACKAGE_VERSION,
                                           NULL);
  message = soup_message_new ("GET", request->url);
  if (message == NULL)
    {
      g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_INVALID_ID,
                   _("hf:%s: “%s” is not a valid URL; check HF_ENDPOINT"),
                   request->model_id, request->display_url);
      return NULL;
    }
  headers = soup_message_get_request_headers (message);
  if (request->token != NULL)
    {
      g_autofree char *authorization = g_strdup_printf ("Bearer %s", request->token);

      soup_message_headers_replace (headers, "Authorization", authorization);
    }

  stream = soup_session_send (session, message, cancellable, &local_error);
  if (stream == NULL)
    {
      set_transfer_error (error, local_error, request, caller, deadline, FALSE);
      return NULL;
    }

  if (!SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (message)))
    {
      set_status_error (error, message, request->model_id);
      return NULL;
    }

  headers = soup_message_get_response_headers (message);
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH
      && soup_message_headers_get_content_length (headers) > (goffset) request->max_bytes)
    {
      set_too_large (error, request);
      return NULL;
    }

  for (;;)
    {
      g_autoptr(GBytes) chunk = g_input_stream_read_bytes (stream, READ_CHUNK, cancellable,
                                                           &local_error);

      if (chunk == NULL)
        {
          set_transfer_error (error, local_error, request, caller, deadline, TRUE);
          return NULL;
        }
      if (g_bytes_get_size (chunk) == 0)
        break;
      if (body->len + g_bytes_get_size (chunk) > request->max_bytes)
        {
          set_too_large (error, request);
          return NULL;
        }
      g_byte_array_append (body, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
    }

  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&body));
  config = headroom_hf_config_parse_bytes (bytes, &local_error);
  if (config == NULL)
    {
      /* The parser's messages are one line, control characters escaped. */
      g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_INVALID_CONFIG,
                   _("hf:%s: config.json is not a JSON object: %s"), request->model_id,
                   local_error->message);
      return NULL;
    }
  return config;
}

static JsonObject *
fetch (const Request  *request,
       GCancellable   *caller,
       GError        **error)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Deadline deadline = { 0 };
  GThread *timer;
  gulong handler = 0;
  JsonObject *config;

  g_mutex_init (&deadline.lock);
  g_cond_init (&deadline.cond);
  deadline.end_time = g_get_monotonic_time () + (gint64) request->deadline * G_USEC_PER_SEC;
  deadline.cancellable = cancellable;
  if (caller != NULL)
    handler = g_cancellable_connect (caller, G_CALLBACK (cancel_request),
                                     g_object_ref (cancellable), g_object_unref);
  timer = g_thread_new ("headroom-hub-deadline", deadline_thread, &deadline);

  config = fetch_within (request, caller, cancellable, &deadline, error);

  g_mutex_lock (&deadline.lock);
  deadline.finished = TRUE;
  g_cond_signal (&deadline.cond);
  g_mutex_unlock (&deadline.lock);
  g_thread_join (timer);
  if (caller != NULL)
    g_cancellable_disconnect (caller, handler);
  g_mutex_clear (&deadline.lock);
  g_cond_clear (&deadline.cond);
  return config;
}

/* `url` without its user name and password (HF_ENDPOINT may carry them),
 * control characters escaped. */
static char *
display_url (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  g_autofree char *shown = NULL;

  if (uri == NULL)
    return g_strdup (_("(an invalid URL)"));
  shown = g_uri_to_string_partial (uri, G_URI_HIDE_USERINFO);
  return headroom_format_one_line (shown);
}

static gboolean
is_loopback (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;

  if (host == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

/* The token goes out only over https, or plain http to this machine; a
 * token with a line break would be refused by libsoup, which then sends
 * the request without it. */
static gboolean
check_credentials (const Request  *request,
                   GError        **error)
{
  g_autoptr(GUri) uri = NULL;

  if (request->token == NULL)
    return TRUE;
  for (const char *p = request->token; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      {
        g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED,
                     _("hf:%s: the access token (HF_TOKEN) holds a line break or a control "
                       "character; nothing was sent"),
                     request->model_id);
        return FALSE;
      }
  uri = g_uri_parse (request->url, G_URI_FLAGS_NONE, NULL);
  if (uri != NULL && g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") != 0
      && !is_loopback (g_uri_get_host (uri)))
    {
      g_autofree char *host = headroom_format_one_line (g_uri_get_host (uri));

      g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED,
                   _("hf:%s: not sending the access token (HF_TOKEN) unencrypted to %s; "
                     "use an https HF_ENDPOINT, or unset HF_TOKEN"),
                   request->model_id, host);
      return FALSE;
    }
  return TRUE;
}

static Request *
request_new (HeadroomHub  *self,
             const char   *model_id,
             GError      **error)
{
  g_autofree char *id = headroom_hub_parse_model_id (model_id, error);
  Request *request;

  if (id == NULL)
    return NULL;
  request = g_new0 (Request, 1);
  request->url = g_strdup_printf ("%s/%s/resolve/main/config.json", self->endpoint, id);
  request->display_url = display_url (request->url);
  request->model_id = g_steal_pointer (&id);
  request->token = g_strdup (self->token);
  request->timeout = self->timeout;
  request->deadline = self->deadline;
  request->max_bytes = self->max_bytes;
  if (!check_credentials (request, error))
    {
      request_free (request);
      return NULL;
    }
  return request;
}

JsonObject *
headroom_hub_fetch_config (HeadroomHub   *self,
                           const char    *model_id,
                           GCancellable  *cancellable,
                           GError       **error)
{
  Request *request;
  JsonObject *config;

  g_return_val_if_fail (HEADROOM_IS_HUB (self), NULL);
  g_return_val_if_fail (model_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  request = request_new (self, model_id, error);
  if (request == NULL)
    return NULL;
  config = fetch (request, cancellable, error);
  request_free (request);
  return config;
}

static void
fetch_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  GError *error = NULL;
  JsonObject *config = fetch (task_data, cancellable, &error);

  if (config == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, config, (GDestroyNotify) json_object_unref);
}

void
headroom_hub_fetch_config_async (HeadroomHub         *self,
                                 const char          *model_id,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  Request *request;

  g_return_if_fail (HEADROOM_IS_HUB (self));
  g_return_if_fail (model_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, headroom_hub_fetch_config_async);
  request = request_new (self, model_id, &error);
  if (request == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);
  g_task_run_in_thread (task, fetch_thread);
}

JsonObject *
headroom_hub_fetch_config_finish (HeadroomHub   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (HEADROOM_IS_HUB (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

HeadroomProject *
headroom_hub_import (HeadroomHub   *self,
                     const char    *model_id,
                     const char    *assume,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autofree char *id = NULL;
  g_autofree char *notes = NULL;

  g_return_val_if_fail (HEADROOM_IS_HUB (self), NULL);
  g_return_val_if_fail (model_id != NULL, NULL);

  id = headroom_hub_parse_model_id (model_id, error);
  if (id == NULL)
    return NULL;
  config = headroom_hub_fetch_config (self, id, cancellable, error);
  if (config == NULL)
    return NULL;
  if (assume != NULL)
    json_object_set_string_member (config, "assume_architecture", assume);
  project = headroom_project_new_from_config (config, error);
  if (project == NULL)
    {
      g_prefix_error (error, "hf:%s: ", id);
      return NULL;
    }
  notes = g_strdup_printf (_("Model imported from hf:%s"), id);
  headroom_project_set_string (project, "notes", notes, NULL);
  headroom_project_set_modified (project, FALSE);
  return g_steal_pointer (&project);
}

/* ---- The token in the keyring ---------------------------------------------- */

#if HAVE_LIBSECRET
static const SecretSchema *
token_schema (void)
{
  static const SecretSchema schema = {
    "io.github.headroom.Headroom.HubToken", SECRET_SCHEMA_NONE,
    {
      { "endpoint", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  };

  return &schema;
}

static void
set_keyring_error (GError      **error,
                   GError       *local_error)
{
  g_autofree char *message = headroom_format_one_line (local_error->message);

  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, message);
  else
    g_set_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_KEYRING,
                 _("The keyring could not be used: %s"), message);
}
#endif

gboolean
headroom_hub_store_token (const char    *endpoint,
                          const char    *token,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_return_val_if_fail (endpoint != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (const char *p = token != NULL ? token : ""; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      {
        g_set_error_literal (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED,
                             _("The access token holds a line break or a control character"));
        return FALSE;
      }
#if HAVE_LIBSECRET
  {
    g_autoptr(GError) local_error = NULL;
    gboolean ok;

    if (token == NULL || *token == '\0')
      {
        secret_password_clear_sync (token_schema (), cancellable, &local_error,
                                    "endpoint", endpoint, NULL);
        ok = local_error == NULL;
      }
    else
      ok = secret_password_store_sync (token_schema (), SECRET_COLLECTION_DEFAULT,
                                       _("Hugging Face access token for Headroom"), token,
                                       cancellable, &local_error, "endpoint", endpoint, NULL);
    if (!ok)
      set_keyring_error (error, local_error);
    return ok;
  }
#else
  g_set_error_literal (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_KEYRING,
                       _("This build of Headroom cannot use the keyring (no libsecret)"));
  return FALSE;
#endif
}

char *
headroom_hub_lookup_token (const char    *endpoint,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_return_val_if_fail (endpoint != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

#if HAVE_LIBSECRET
  {
    g_autoptr(GError) local_error = NULL;
    char *secret = secret_password_lookup_sync (token_schema (), cancellable, &local_error,
                                                "endpoint", endpoint, NULL);
    char *token;

    if (local_error != NULL)
      {
        set_keyring_error (error, local_error);
        return NULL;
      }
    /* Not left in freed memory: libsecret's own string is wiped. */
    token = g_strdup (secret);
    secret_password_free (secret);
    return token;
  }
#else
  g_set_error_literal (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_KEYRING,
                       _("This build of Headroom cannot use the keyring (no libsecret)"));
  return NULL;
#endif
}
