/* test-cli.h: running headroom-cli and reading its output, shared by the CLI tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spawns the built binary with $XDG_DATA_HOME pointing at tests/data/cli/user
 * (one user GPU, "test-gpu").
 */
#pragma once

#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#define CLI_DATA TEST_DATA_DIR "/cli"

typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static inline void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static const char *run_locale = "C.UTF-8";
/* Extra NAME=VALUE pairs for the next runs (the Hub tests). */
static const char *run_hf_endpoint;
static const char *run_hf_token;

static inline void run_cli_argv (Run                *run,
                                 const char * const *argv);

/* Runs headroom-cli with the NULL-terminated arguments, under run_locale. */
static inline void
run_cli (Run        *run,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  va_list ap;

  g_ptr_array_add (args, (char *) HEADROOM_CLI);
  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  run_cli_argv (run, (const char * const *) args->pdata + 1);
}

/* As run_cli(), with a NULL-terminated argument vector. */
static inline void
run_cli_argv (Run                *run,
              const char * const *argv)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = g_get_environ ();
  int wait_status = 0;

  g_ptr_array_add (args, (char *) HEADROOM_CLI);
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (char *) argv[i]);
  g_ptr_array_add (args, NULL);

  env = g_environ_setenv (env, "XDG_DATA_HOME", CLI_DATA "/user", TRUE);
  env = g_environ_setenv (env, "LC_ALL", run_locale, TRUE);
  env = g_environ_unsetenv (env, "HF_TOKEN");
  if (run_hf_endpoint != NULL)
    env = g_environ_setenv (env, "HF_ENDPOINT", run_hf_endpoint, TRUE);
  if (run_hf_token != NULL)
    env = g_environ_setenv (env, "HF_TOKEN", run_hf_token, TRUE);

  g_spawn_sync (NULL, (char **) args->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                &run->out, &run->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run->status = WEXITSTATUS (wait_status);
}

static inline JsonObject *
parse_output (const Run *run)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  if (run->status != 0 || run->err[0] != '\0')
    g_error ("status %d, stderr “%s”", run->status, run->err);
  json_parser_load_from_data (parser, run->out, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_object_ref (json_node_get_object (root));
}

/* Reads a member by dotted path. */
static inline JsonNode *
member (JsonObject *object,
        const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", -1);
  JsonNode *node = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_assert_nonnull (object);
      if (!json_object_has_member (object, parts[i]))
        g_error ("no member %s in the output", path);
      node = json_object_get_member (object, parts[i]);
      object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
    }

  return node;
}

static inline gint64
member_int (JsonObject *object,
            const char *path)
{
  JsonNode *node = member (object, path);

  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_INT64);
  return json_node_get_int (node);
}

static inline double
member_double (JsonObject *object,
               const char *path)
{
  return json_node_get_double (member (object, path));
}

/* Bad input: status 2, nothing on stdout, one line on stderr containing `needle`. */
static inline void
assert_bad_input (const Run  *run,
                  const char *needle)
{
  const char *newline;

  if (run->status != 2 || !g_str_has_prefix (run->err, "headroom-cli: ")
      || strstr (run->err, needle) == NULL)
    g_error ("expected a one-line error naming “%s”, got status %d, stderr “%s”",
             needle, run->status, run->err);
  g_assert_cmpstr (run->out, ==, "");
  newline = strchr (run->err, '\n');
  g_assert_nonnull (newline);
  g_assert_cmpint (newline[1], ==, '\0');
}

#define LLAMA_CONFIG CLI_DATA "/llama-2-7b-config.json"
#define LLAMA_PARAMS 6738415616.0

static inline void
assert_close (double actual,
              double expected)
{
  if (G_APPROX_VALUE (actual, expected, 1e-9 * MAX (1.0, expected)))
    return;
  g_error ("%.17g is not %.17g", actual, expected);
}
