/* test-hub.c: Hugging Face Hub import against a local server (no network)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A SoupServer on 127.0.0.1, in its own thread so that the blocking API can
 * be tested too, serves tests/data/hub/ORG/NAME/config.json at
 * /ORG/NAME/resolve/main/config.json, plus a few special repositories:
 * gated-org/gated wants "Authorization: Bearer test-token" (401 without),
 * tiny-org/forbidden answers 403, tiny-org/huge sends 64 KiB, tiny-org/slow
 * never answers, tiny-org/drip sends one byte every 200 ms for ever,
 * tiny-org/teapot answers 599 with escape sequences in its reason phrase.
 */
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>

#include "headroom-hub.h"

#define TOKEN "test-token"

static struct
{
  GMutex lock;
  GCond ready;
  GThread *thread;
  GMainContext *context;
  GMainLoop *loop;
  SoupServer *server;
  char *url;
  char *last_authorization;
} server;

static gboolean
drip_cb (gpointer data)
{
  SoupServerMessage *message = data;

  soup_message_body_append (soup_server_message_get_response_body (message),
                            SOUP_MEMORY_STATIC, " ", 1);
  soup_server_message_unpause (message);
  return G_SOURCE_CONTINUE;
}

static void
drip_stop (SoupServerMessage *message,
           GSource           *source)
{
  if (!g_source_is_destroyed (source))
    g_source_destroy (source);
}

static void
start_drip (SoupServerMessage *message)
{
  GSource *source = g_timeout_source_new (200);

  soup_server_message_set_status (message, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_encoding (soup_server_message_get_response_headers (message),
                                     SOUP_ENCODING_CHUNKED);
  soup_message_body_append (soup_server_message_get_response_body (message),
                            SOUP_MEMORY_STATIC, "{", 1);
  g_source_set_callback (source, drip_cb, g_object_ref (message), g_object_unref);
  g_source_attach (source, server.context);
  g_signal_connect_data (message, "finished", G_CALLBACK (drip_stop), g_source_ref (source),
                         (GClosureNotify) (void (*) (void)) g_source_unref, 0);
  g_signal_connect_data (message, "disconnected", G_CALLBACK (drip_stop), g_source_ref (source),
                         (GClosureNotify) (void (*) (void)) g_source_unref, 0);
  g_source_unref (source);
}

static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *message,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (message);
  const char *authorization = soup_message_headers_get_one (headers, "Authorization");
  g_autofree char *file = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  g_mutex_lock (&server.lock);
  g_free (server.last_authorization);
  server.last_authorization = g_strdup (authorization);
  g_mutex_unlock (&server.lock);

  if (!g_str_has_suffix (path, "/resolve/main/config.json"))
    {
      soup_server_message_set_status (message, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }
  if (g_str_has_prefix (path, "/tiny-org/slow/"))
    {
      soup_server_message_pause (message);
      return;
    }
  if (g_str_has_prefix (path, "/tiny-org/drip/"))
    {
      start_drip (message);
      return;
    }
  if (g_str_has_prefix (path, "/tiny-org/teapot/"))
    {
      soup_server_message_set_status (message, 599, "Oops\033[2J\033]0;pwned\007");
      return;
    }
  if (g_str_has_prefix (path, "/tiny-org/forbidden/"))
    {
      soup_server_message_set_status (message, SOUP_STATUS_FORBIDDEN, NULL);
      return;
    }
  if (g_str_has_prefix (path, "/tiny-org/huge/"))
    {
      char *big = g_malloc (65536);

      memset (big, ' ', 65536);
      big[0] = '{';
      big[65535] = '}';
      soup_server_message_set_status (message, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (message, "application/json", SOUP_MEMORY_TAKE, big, 65536);
      return;
    }
  if (g_str_has_prefix (path, "/gated-org/") && g_strcmp0 (authorization, "Bearer " TOKEN) != 0)
    {
      soup_server_message_set_status (message, SOUP_STATUS_UNAUTHORIZED, NULL);
      return;
    }

  file = g_build_filename (TEST_DATA_DIR, "hub", path, NULL);
  /* …/resolve/main/config.json → …/config.json */
  {
    char *resolve = strstr (file, "/resolve/main/");

    memmove (resolve, resolve + strlen ("/resolve/main"), strlen (resolve + strlen ("/resolve/main")) + 1);
  }
  if (strstr (path, "..") != NULL || !g_file_get_contents (file, &contents, &length, NULL))
    {
      soup_server_message_set_status (message, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }
  soup_server_message_set_status (message, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (message, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&contents), length);
}

static gpointer
server_thread (gpointer data)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  g_main_context_push_thread_default (server.context);
  server.server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server.server, NULL, server_cb, NULL, NULL);
  soup_server_listen_local (server.server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server.server);
  g_mutex_lock (&server.lock);
  server.url = g_uri_to_string_partial (uris->data, G_URI_HIDE_PASSWORD);
  g_cond_signal (&server.ready);
  g_mutex_unlock (&server.lock);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  g_main_loop_run (server.loop);

  g_clear_object (&server.server);
  g_main_context_pop_thread_default (server.context);
  return NULL;
}

static void
start_server (void)
{
  server.context = g_main_context_new ();
  server.loop = g_main_loop_new (server.context, FALSE);
  g_mutex_lock (&server.lock);
  server.thread = g_thread_new ("hub-server", server_thread, NULL);
  while (server.url == NULL)
    g_cond_wait (&server.ready, &server.lock);
  g_mutex_unlock (&server.lock);
}

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (server.loop);
  return G_SOURCE_REMOVE;
}

static void
stop_server (void)
{
  g_main_context_invoke (server.context, quit_cb, NULL);
  g_thread_join (server.thread);
  g_main_loop_unref (server.loop);
  g_main_context_unref (server.context);
  g_free (server.url);
  g_free (server.last_authorization);
}

static HeadroomHub *
local_hub (void)
{
  HeadroomHub *hub;

  g_setenv ("HF_ENDPOINT", server.url, TRUE);
  g_unsetenv ("HF_TOKEN");
  hub = headroom_hub_new ();
  g_assert_true (g_str_has_prefix (headroom_hub_get_endpoint (hub), "http://127.0.0.1:"));
  return hub;
}

static void
test_model_id (void)
{
  g_autoptr(HeadroomHub) hub = NULL;
  const char *bad[] = { "", "hf:", "org/", "/name", "a/b/c", "org/na me", "../etc", "org/..",
                        "hf:org/name?x=1", "org/-name" };
  g_autofree char *url = NULL;
  g_autofree char *plain = NULL;

  g_unsetenv ("HF_ENDPOINT");
  hub = headroom_hub_new ();
  g_assert_cmpstr (headroom_hub_get_endpoint (hub), ==, "https://huggingface.co");
  url = headroom_hub_dup_config_url (hub, "hf:meta-llama/Llama-3.1-8B", NULL);
  g_assert_cmpstr (url, ==, "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json");
  plain = headroom_hub_parse_model_id ("gpt2", NULL);
  g_assert_cmpstr (plain, ==, "gpt2");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *id = headroom_hub_parse_model_id (bad[i], &error);

      g_assert_null (id);
      g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_INVALID_ID);
    }

  /* A trailing slash on the endpoint does not double. */
  headroom_hub_set_endpoint (hub, "http://mirror.example/");
  g_clear_pointer (&url, g_free);
  url = headroom_hub_dup_config_url (hub, "a/b", NULL);
  g_assert_cmpstr (url, ==, "http://mirror.example/a/b/resolve/main/config.json");
}

static void
test_import (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) project = headroom_hub_import (hub, "hf:tiny-org/tiny-llama", NULL, NULL, &error);
  HrModel model;
  HrParams params;

  g_assert_no_error (error);
  g_assert_nonnull (project);
  g_assert_null (server.last_authorization);
  g_assert_cmpint (headroom_project_get_int (project, "model.hidden_size"), ==, 256);
  g_assert_cmpstr (headroom_project_get_string (project, "notes"), ==,
                   "Model imported from hf:tiny-org/tiny-llama");
  g_assert_false (headroom_project_get_modified (project));
  g_assert_true (headroom_project_get_model (project, &model, &error));
  g_assert_cmpint (hr_model_params (&model, &params, NULL), ==, HR_OK);
  /* embedding and untied head 1000 × 256 = 256 000 each; one layer:
   * q, o 256² + k, v 256 × 128 (2 KV heads × 64) = 196 608, MLP 3 × 256 × 688
   * = 528 384, norms 512 → 725 504 × 4 layers = 2 902 016; final norm 256.
   * 512 000 + 2 902 016 + 256 = 3 414 272. */
  g_assert_cmpint (params.total, ==, 3414272);
}

static void
test_gated (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(HeadroomHub) with_token = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = headroom_hub_fetch_config (hub, "gated-org/gated", NULL, &error);

  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED);
  /* The message says what to do. */
  g_assert_nonnull (strstr (error->message, "HF_TOKEN"));
  g_assert_nonnull (strstr (error->message, "HTTP 401"));
  g_clear_error (&error);

  /* HF_TOKEN is sent as a bearer token. */
  g_setenv ("HF_TOKEN", TOKEN "\n", TRUE);
  with_token = headroom_hub_new ();
  config = headroom_hub_fetch_config (with_token, "gated-org/gated", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (config);
  g_assert_cmpstr (server.last_authorization, ==, "Bearer " TOKEN);
  g_assert_cmpint (json_object_get_int_member (config, "vocab_size"), ==, 1000);
  g_unsetenv ("HF_TOKEN");
}

typedef struct
{
  const char *id;
  int         code;
  const char *message;
} Failure;

static void
test_failures (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  const Failure failures[] = {
    { "tiny-org/forbidden", HEADROOM_HUB_ERROR_UNAUTHORIZED, "HTTP 403" },
    { "tiny-org/missing", HEADROOM_HUB_ERROR_NOT_FOUND, "hf:tiny-org/missing: not found (HTTP 404)" },
    { "tiny-org/huge", HEADROOM_HUB_ERROR_TOO_LARGE, "hf:tiny-org/huge: config.json is larger than 4096 bytes" },
    { "tiny-org/not-json", HEADROOM_HUB_ERROR_INVALID_CONFIG, "hf:tiny-org/not-json: config.json is not a JSON object" },
    /* A syntax error whose quoted text spans a line break (found by fuzz-config): escaped. */
    { "tiny-org/truncated", HEADROOM_HUB_ERROR_INVALID_CONFIG, "unexpected string constant \"s{\\n \"" },
  };

  headroom_hub_set_max_bytes (hub, 4096);
  for (guint i = 0; i < G_N_ELEMENTS (failures); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonObject) config = headroom_hub_fetch_config (hub, failures[i].id, NULL, &error);

      g_test_message ("%s", failures[i].id);
      g_assert_null (config);
      g_assert_error (error, HEADROOM_HUB_ERROR, failures[i].code);
      g_assert_nonnull (strstr (error->message, failures[i].message));
      g_assert_null (strchr (error->message, '\n'));
    }
}

static void
test_bad_model (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HeadroomProject) project = headroom_hub_import (hub, "tiny-org/bad-model", NULL, NULL, &error);

  /* 3 heads do not divide 256; the field is named. */
  g_assert_null (project);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "hf:tiny-org/bad-model: Attention heads: "));
}

static void
test_timeout (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = NULL;
  gint64 start = g_get_monotonic_time ();

  headroom_hub_set_timeout (hub, 1);
  config = headroom_hub_fetch_config (hub, "tiny-org/slow", NULL, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NETWORK);
  /* About one second, not the default thirty. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
}

static void
test_no_network (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = NULL;

  /* Port 1 on the loopback: nothing listens there, the connection is refused. */
  headroom_hub_set_endpoint (hub, "http://127.0.0.1:1");
  config = headroom_hub_fetch_config (hub, "tiny-org/tiny-llama", NULL, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NETWORK);
  g_assert_true (g_str_has_prefix (error->message, "hf:tiny-org/tiny-llama: could not reach "));
}

/* Issue 15: one byte every 200 ms kept a download going for minutes (the
 * timeout is per read); the deadline ends it. */
static void
test_deadline (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = NULL;
  gint64 start = g_get_monotonic_time ();

  headroom_hub_set_deadline (hub, 2);
  config = headroom_hub_fetch_config (hub, "tiny-org/drip", NULL, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NETWORK);
  g_assert_nonnull (strstr (error->message, "did not answer in full within 2 s"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 6 * G_USEC_PER_SEC);
}

/* Issue 15: what the server or the endpoint holds never reaches the
 * terminal raw, nor the endpoint's password. */
static void
test_hostile_text (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = NULL;

  config = headroom_hub_fetch_config (hub, "tiny-org/teapot", NULL, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_HTTP);
  g_assert_null (strchr (error->message, '\033'));
  g_assert_null (strchr (error->message, '\007'));
  g_assert_nonnull (strstr (error->message, "HTTP 599 Oops\\x1b[2J"));
  g_clear_error (&error);

  headroom_hub_set_endpoint (hub, "http://someone:s3cret@127.0.0.1:1");
  config = headroom_hub_fetch_config (hub, "tiny-org/tiny-llama", NULL, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_NETWORK);
  g_assert_null (strstr (error->message, "s3cret"));
  g_assert_null (strstr (error->message, "someone"));
  g_assert_nonnull (strstr (error->message, "http://127.0.0.1:1/"));
}

/* Issue 15: the token is not sent in clear to another machine, and a token
 * with a line break fails rather than going out without it. */
static void
test_token_checks (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = NULL;

  headroom_hub_set_token (hub, "abc\r\nX-Injected: 1");
  g_mutex_lock (&server.lock);
  g_clear_pointer (&server.last_authorization, g_free);
  server.last_authorization = g_strdup ("untouched");
  g_mutex_unlock (&server.lock);
  config = headroom_hub_fetch_config (hub, "gated-org/gated", NULL, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED);
  g_assert_nonnull (strstr (error->message, "line break"));
  g_mutex_lock (&server.lock);
  g_assert_cmpstr (server.last_authorization, ==, "untouched");
  g_mutex_unlock (&server.lock);
  g_clear_error (&error);

  /* .invalid never resolves (RFC 6761): refused before any lookup. */
  headroom_hub_set_token (hub, TOKEN);
  headroom_hub_set_endpoint (hub, "http://hub.example.invalid");
  config = headroom_hub_fetch_config (hub, "gated-org/gated", NULL, &error);
  g_assert_null (config);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED);
  g_assert_nonnull (strstr (error->message, "unencrypted to hub.example.invalid"));
}

/* Issue 15: the window's token goes to the keyring, never to a file. Here
 * the session bus is a socket nobody listens on, so there is no Secret
 * Service: both calls fail at once, saying so, and a token with a line
 * break is refused before any. (A private GTestDBus bus would do too, but
 * g_test_dbus_down() then waits for every reference libsecret's worker
 * still holds on the connection, and times out under load.) */
static void
test_keyring (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  g_autofree char *dir = g_dir_make_tmp ("headroom-bus-XXXXXX", NULL);
  g_autofree char *address = g_strdup_printf ("unix:path=%s/none", dir);
  gint64 start;

  g_assert_false (headroom_hub_store_token ("https://huggingface.co", "a\nb", NULL, &error));
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_UNAUTHORIZED);
  g_clear_error (&error);

  g_setenv ("DBUS_SESSION_BUS_ADDRESS", address, TRUE);
  start = g_get_monotonic_time ();
  g_assert_false (headroom_hub_store_token ("https://huggingface.co", TOKEN, NULL, &error));
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_KEYRING);
  g_assert_null (strchr (error->message, '\n'));
  g_clear_error (&error);
  token = headroom_hub_lookup_token ("https://huggingface.co", NULL, &error);
  g_assert_null (token);
  g_assert_error (error, HEADROOM_HUB_ERROR, HEADROOM_HUB_ERROR_KEYRING);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
  g_rmdir (dir);
}

static void
fetched_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  JsonObject **config = user_data;
  g_autoptr(GError) error = NULL;

  *config = headroom_hub_fetch_config_finish (HEADROOM_HUB (source), result, &error);
  g_assert_no_error (error);
}

static void
test_async (void)
{
  g_autoptr(HeadroomHub) hub = local_hub ();
  JsonObject *config = NULL;

  headroom_hub_fetch_config_async (hub, "hf:tiny-org/tiny-llama", NULL, fetched_cb, &config);
  while (config == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (json_object_get_int_member (config, "hidden_size"), ==, 256);
  json_object_unref (config);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  /* The isolated dirs hide the GSettings schemas that the desktop proxy
   * resolver reads; the local server needs no proxy anyway. */
  g_setenv ("GIO_USE_PROXY_RESOLVER", "dummy", TRUE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  start_server ();

  g_test_add_func ("/hub/model-id", test_model_id);
  g_test_add_func ("/hub/import", test_import);
  g_test_add_func ("/hub/gated", test_gated);
  g_test_add_func ("/hub/failures", test_failures);
  g_test_add_func ("/hub/bad-model", test_bad_model);
  g_test_add_func ("/hub/timeout", test_timeout);
  g_test_add_func ("/hub/no-network", test_no_network);
  g_test_add_func ("/hub/async", test_async);
  g_test_add_func ("/hub/deadline", test_deadline);
  g_test_add_func ("/hub/hostile-text", test_hostile_text);
  g_test_add_func ("/hub/token-checks", test_token_checks);
  g_test_add_func ("/hub/keyring", test_keyring);

  status = g_test_run ();
  stop_server ();
  return status;
}
