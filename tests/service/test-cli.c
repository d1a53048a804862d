/* test-cli.c: headroom-cli as a user runs it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spawns the built binary with $XDG_DATA_HOME pointing at tests/data/cli/user
 * (one user GPU, "test-gpu") and checks its JSON against hand-derived figures,
 * its exit status and its single error line on bad input.
 */
#include <locale.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#define CLI_DATA TEST_DATA_DIR "/cli"

typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static void
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

static void run_cli_argv (Run                *run,
                          const char * const *argv);

/* Runs headroom-cli with the NULL-terminated arguments, under run_locale. */
static void
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
static void
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

static JsonObject *
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
static JsonNode *
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

static gint64
member_int (JsonObject *object,
            const char *path)
{
  JsonNode *node = member (object, path);

  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_INT64);
  return json_node_get_int (node);
}

static double
member_double (JsonObject *object,
               const char *path)
{
  return json_node_get_double (member (object, path));
}

/* Bad input: status 2, nothing on stdout, one line on stderr containing `needle`. */
static void
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

static void
test_version (void)
{
  g_auto(Run) run = { 0 };

  run_cli (&run, "--version", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, "headroom-cli 0.1.0\n");
}

static void
test_help (void)
{
  static const char * const commands[] = {
    "params", "flops", "train", "infer", "plan", "report", "import", "models", "gpus", NULL
  };
  g_auto(Run) run = { 0 };

  run_cli (&run, "--help", NULL);
  g_assert_cmpint (run.status, ==, 0);
  for (guint i = 0; commands[i] != NULL; i++)
    g_assert_nonnull (strstr (run.out, commands[i]));

  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_auto(Run) command = { 0 };

      run_cli (&command, commands[i], "--help", NULL);
      g_assert_cmpint (command.status, ==, 0);
      g_assert_nonnull (strstr (command.out, commands[i]));
      g_assert_nonnull (strstr (command.out, "--help"));
    }
}

/* Llama-2-7B (meta-llama/Llama-2-7b-hf config.json), counted by hand:
 *   embedding   32000 × 4096                           =   131,072,000
 *   attention   32 × 4 × 4096²  (q, k, v, o; no bias)  = 2,147,483,648
 *   mlp         32 × 3 × 4096 × 11008 (gate, up, down) = 4,328,521,728
 *   norm        (32 × 2 + 1) × 4096 (RMSNorm weights)  =       266,240
 *   lm_head     4096 × 32000 (untied)                  =   131,072,000
 *   total                                                6,738,415,616
 * (the parameter count of the published checkpoint). */
static void
check_llama_2_7b (JsonObject *params)
{
  g_assert_cmpint (member_int (params, "total"), ==, 6738415616);
  g_assert_cmpint (member_int (params, "active"), ==, 6738415616);
  g_assert_cmpint (member_int (params, "breakdown.embedding"), ==, 131072000);
  g_assert_cmpint (member_int (params, "breakdown.position_embedding"), ==, 0);
  g_assert_cmpint (member_int (params, "breakdown.attention"), ==, 2147483648);
  g_assert_cmpint (member_int (params, "breakdown.mlp"), ==, 4328521728);
  g_assert_cmpint (member_int (params, "breakdown.router"), ==, 0);
  g_assert_cmpint (member_int (params, "breakdown.norm"), ==, 266240);
  g_assert_cmpint (member_int (params, "breakdown.lm_head"), ==, 131072000);
}

static void
test_params_config (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "params", "--model", CLI_DATA "/llama-2-7b-config.json", "--json", NULL);
  out = parse_output (&run);
  check_llama_2_7b (out);
}

static void
test_params_preset (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "params", "--model", "llama-2-7b", "--json", NULL);
  out = parse_output (&run);
  check_llama_2_7b (out);
}

static void
test_params_table (void)
{
  g_auto(Run) run = { 0 };

  run_cli (&run, "params", "--model", CLI_DATA "/llama-2-7b-config.json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_nonnull (strstr (run.out, "6,738,415,616"));
  g_assert_nonnull (strstr (run.out, "4,328,521,728"));
  /* 131,072,000 / 6,738,415,616 = 1.945% */
  g_assert_nonnull (strstr (run.out, "1.95%"));
}

/* tiny-llama.json: L = 2 layers, h = 64, 4 heads of 64/4 = 16, MHA, gated
 * FFN of 128, vocab 100, untied. One step of s = 8 tokens, b = 1; a matrix
 * product of m×k by k×n costs 2mkn.
 *   q, k, v projections  2 · 8 · 64 · (64 + 2 · 64) = 196,608 per layer
 *   QKᵀ                  2 · 8 · 8 · 64 (all heads)  =   8,192 per layer
 *   probabilities × V    2 · 8 · 8 · 64              =   8,192 per layer
 *   output projection    2 · 8 · 64 · 64             =  65,536 per layer
 *   MLP (3 matrices)     3 · 2 · 8 · 64 · 128        = 393,216 per layer
 *   LM head              2 · 8 · 64 · 100            = 102,400 once
 * forward = 2 · 671,744 + 102,400 = 1,445,888; backward = 2 × forward. */
/* An unknown model_type is refused: exit status 2, nothing on stdout, one
 * stderr line naming it and what to do. Assumed (the config's Headroom key
 * assume_architecture), it is read as Llama-style, and the JSON says so. */
static void
test_params_warning (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) assumed = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *out;

  run_cli (&run, "params", "--model", CLI_DATA "/unknown-type.json", "--json", NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_nonnull (strstr (run.err, "mystery"));
  g_assert_nonnull (strstr (run.err, "--assume-architecture llama"));
  g_assert_true (strchr (run.err, '\n')[1] == '\0');

  run_cli (&assumed, "params", "--model", CLI_DATA "/assumed-type.json", "--json", NULL);
  g_assert_cmpint (assumed.status, ==, 0);
  g_assert_true (g_str_has_prefix (assumed.err, "headroom-cli: warning: "));
  g_assert_nonnull (strstr (assumed.err, "mystery"));
  g_assert_true (strchr (assumed.err, '\n')[1] == '\0');
  g_assert_true (json_parser_load_from_data (parser, assumed.out, -1, NULL));
  out = json_node_get_object (json_parser_get_root (parser));
  /* the tiny-llama.json count: 95,040 */
  g_assert_cmpint (json_object_get_int_member (out, "total"), ==, 95040);
  g_assert_cmpstr (json_object_get_string_member (out, "assumed_architecture"), ==, "llama");
}

/* --assume-architecture llama (the key model.assume_architecture) reads the
 * unknown model_type on every command that reads a config: exit status 0,
 * "assumed_architecture": "llama" in every JSON and a line under every
 * table; without it, exit status 2 and one stderr line. unknown-type.json is
 * tiny-llama.json with model_type "mystery", so its count is tiny-llama's:
 *   embedding 100·64 = 6,400, LM head (untied) 6,400, final norm 64,
 *   per layer q,k,v,o 4·64·64 + gated MLP 3·64·128 + 2 norms 2·64 = 41,088,
 *   2 layers: 6,400 + 6,400 + 64 + 2 · 41,088 = 95,040. */
static void
test_assume_architecture_option (void)
{
  static const char * const commands[][4] = {
    { "params" }, { "flops" }, { "train" }, { "infer" }, { "plan", "--gpus", "1" },
  };
  g_autofree char *dir = g_dir_make_tmp ("headroom-cli-XXXXXX", NULL);
  g_autofree char *project = g_build_filename (dir, "assumed.headroom", NULL);
  g_auto(Run) bad = { 0 };
  g_auto(Run) imported = { 0 };
  g_auto(Run) csv = { 0 };
  g_auto(Run) report = { 0 };

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      const char *refused_argv[] = { commands[i][0], "--model", CLI_DATA "/unknown-type.json", "--json",
                                     commands[i][1], commands[i][2], NULL };
      const char *json_argv[] = { commands[i][0], "--model", CLI_DATA "/unknown-type.json", "--json",
                                  "--assume-architecture", "llama", commands[i][1], commands[i][2], NULL };
      const char *table_argv[] = { commands[i][0], "--model", CLI_DATA "/unknown-type.json",
                                   "--assume-architecture", "llama", commands[i][1], commands[i][2], NULL };
      g_auto(Run) refused = { 0 };
      g_auto(Run) json = { 0 };
      g_auto(Run) table = { 0 };
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *out;

      g_test_message ("%s", commands[i][0]);
      run_cli_argv (&refused, refused_argv);
      g_assert_cmpint (refused.status, ==, 2);
      g_assert_cmpstr (refused.out, ==, "");
      g_assert_nonnull (strstr (refused.err, "“mystery”"));
      g_assert_nonnull (strstr (refused.err, "--assume-architecture llama"));
      g_assert_true (strchr (refused.err, '\n')[1] == '\0');

      run_cli_argv (&json, json_argv);
      g_assert_cmpint (json.status, ==, 0);
      g_assert_true (json_parser_load_from_data (parser, json.out, -1, NULL));
      out = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpstr (json_object_get_string_member (out, "assumed_architecture"), ==, "llama");
      if (strcmp (commands[i][0], "params") == 0)
        g_assert_cmpint (json_object_get_int_member (out, "total"), ==, 95040);
      if (strcmp (commands[i][0], "train") == 0 || strcmp (commands[i][0], "infer") == 0)
        g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (out, "params"),
                                                     "total"), ==, 95040);

      run_cli_argv (&table, table_argv);
      g_assert_cmpint (table.status, ==, 0);
      g_assert_nonnull (strstr (table.out, "Architecture assumed: Generic decoder (Llama-style)"));
    }

  /* compare reads each file so: only the unknown one says it was assumed. */
  {
    g_auto(Run) refused = { 0 };
    g_auto(Run) compared = { 0 };
    g_autoptr(JsonObject) out = NULL;
    JsonArray *columns;

    run_cli (&refused, "compare", CLI_DATA "/unknown-type.json", CLI_DATA "/tiny-llama.json", NULL);
    g_assert_cmpint (refused.status, ==, 2);
    g_assert_cmpstr (refused.out, ==, "");
    run_cli (&compared, "compare", CLI_DATA "/unknown-type.json", CLI_DATA "/tiny-llama.json",
             "--assume-architecture", "llama", "--json", NULL);
    g_assert_cmpint (compared.status, ==, 0);
    g_clear_pointer (&compared.err, g_free);
    compared.err = g_strdup ("");
    out = parse_output (&compared);
    columns = json_object_get_array_member (out, "scenarios");
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (columns, 0),
                                                    "assumed_architecture"), ==, "llama");
    g_assert_false (json_object_has_member (json_array_get_object_element (columns, 1),
                                            "assumed_architecture"));
  }

  /* A value outside the key's choices names the option. */
  run_cli (&bad, "params", "--model", CLI_DATA "/unknown-type.json", "--assume-architecture", "gpt", NULL);
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_cmpstr (bad.out, ==, "");
  g_assert_true (g_str_has_prefix (bad.err, "headroom-cli: --assume-architecture: "));

  /* import keeps it in the project; report and its CSV say so. */
  run_cli (&imported, "import", CLI_DATA "/unknown-type.json", "--assume-architecture", "llama",
           "-o", project, NULL);
  g_assert_cmpint (imported.status, ==, 0);
  run_cli (&report, "report", project, "--json", NULL);
  g_assert_cmpint (report.status, ==, 0);
  g_assert_nonnull (strstr (report.out, "\"assumed_architecture\" : \"llama\""));
  run_cli (&csv, "report", project, "--csv", "-", NULL);
  g_assert_cmpint (csv.status, ==, 0);
  g_assert_nonnull (strstr (csv.out, "\r\nmodel,assumed_architecture,\"Architecture assumed: "
                                     "Generic decoder (Llama-style); "));

  /* A sweep's CSV says so on every row, in a last column. */
  {
    g_auto(Run) sweep = { 0 };
    g_auto(GStrv) lines = NULL;

    run_cli (&sweep, "report", project, "--sweep", "micro-batch", "--from", "1", "--to", "2", NULL);
    g_assert_cmpint (sweep.status, ==, 0);
    lines = g_strsplit (sweep.out, "\r\n", -1);
    g_assert_true (g_str_has_suffix (lines[0], ",error,assumed_architecture"));
    g_assert_true (g_str_has_suffix (lines[1], ",llama"));
  }

  /* A project that refuses it ("none") still opens: report refuses, naming
   * the model_type; --assume-architecture reads it. */
  {
    g_autofree char *text = NULL;
    g_autoptr(GString) refusing = NULL;
    g_auto(Run) refused = { 0 };
    g_auto(Run) assumed = { 0 };

    g_assert_true (g_file_get_contents (project, &text, NULL, NULL));
    refusing = g_string_new (text);
    g_assert_cmpuint (g_string_replace (refusing, "\"llama\"", "\"none\"", 0), ==, 1);
    g_assert_true (g_file_set_contents (project, refusing->str, -1, NULL));
    run_cli (&refused, "report", project, NULL);
    assert_bad_input (&refused, "“mystery”");
    run_cli (&assumed, "train", "--model", project, "--assume-architecture", "llama", "--json", NULL);
    g_assert_cmpint (assumed.status, ==, 0);
    g_assert_nonnull (strstr (assumed.out, "\"assumed_architecture\" : \"llama\""));
  }
  g_unlink (project);
  g_rmdir (dir);
}

static void
test_flops_tiny (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "8",
           "--micro-batch", "1", "--attention", "eager", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpint (member_int (out, "tokens"), ==, 8);
  g_assert_cmpfloat (member_double (out, "forward"), ==, 1445888);
  g_assert_cmpfloat (member_double (out, "backward"), ==, 2891776);
  g_assert_cmpfloat (member_double (out, "recompute"), ==, 0);
  g_assert_cmpfloat (member_double (out, "total"), ==, 4337664);
  g_assert_cmpfloat (member_double (out, "per_token"), ==, 4337664 / 8);
  g_assert_cmpfloat (member_double (out, "breakdown.attention_scores.forward"), ==, 2 * 8192);
  g_assert_cmpfloat (member_double (out, "breakdown.mlp.forward"), ==, 2 * 393216);
  g_assert_cmpfloat (member_double (out, "breakdown.lm_head.backward"), ==, 2 * 102400);
}

/* The options move the counts by their mechanism (same model as above):
 * --causal halves QKᵀ and P×V: forward 1,445,888 − 2 · 8,192 = 1,429,504;
 * --attention flash recomputes QKᵀ in the backward pass: 2 · 8,192 = 16,384;
 * --recompute selective reruns QKᵀ and P×V: 2 · 16,384 = 32,768;
 * --recompute full reruns each layer's forward: 2 · 671,744 = 1,343,488;
 * --micro-batch 3 triples every product (attention is per sequence). */
static void
test_flops_options (void)
{
  struct { const char *option, *value; const char *path; double expected; } cases[] = {
    { "--causal", NULL, "forward", 1429504 },
    { "--attention", "flash", "recompute", 16384 },
    { "--recompute", "selective", "recompute", 32768 },
    { "--recompute", "full", "recompute", 1343488 },
    { "--micro-batch", "3", "forward", 3 * 1445888 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) out = NULL;

      run_cli (&run, "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "8",
               "--attention", cases[i].option[2] == 'a' ? "flash" : "eager", "--json",
               cases[i].option, cases[i].value, NULL);
      out = parse_output (&run);
      g_test_message ("%s %s", cases[i].option, cases[i].value);
      g_assert_cmpfloat (member_double (out, cases[i].path), ==, cases[i].expected);
    }
}

static void
test_flops_table (void)
{
  g_auto(Run) run = { 0 };

  run_cli (&run, "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "8", "--attention",
           "eager", NULL);
  g_assert_cmpint (run.status, ==, 0);
  /* forward 1,445,888 FLOP = 1.446 MFLOP; total 4.338 MFLOP */
  g_assert_nonnull (strstr (run.out, "1.446 MFLOP"));
  g_assert_nonnull (strstr (run.out, "4.338 MFLOP"));
  /* 20 tokens per parameter: 20 × 95,040 = 1,900,800 tokens, at 542,208 FLOP
   * per token (4,337,664 / 8) = 1.0306e12 FLOP = 1.031 TFLOP */
  g_assert_nonnull (strstr (run.out, "1,900,800"));
  g_assert_nonnull (strstr (run.out, "1.031 TFLOP"));
}

/* The model catalog lists the preset test_params_preset uses. */
static void
test_models (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  JsonArray *models;
  gboolean found = FALSE;

  run_cli (&run, "models", "--json", NULL);
  out = parse_output (&run);
  models = json_node_get_array (member (out, "models"));
  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      JsonObject *model = json_array_get_object_element (models, i);

      if (g_strcmp0 (json_object_get_string_member (model, "id"), "llama-2-7b") == 0)
        {
          found = TRUE;
          g_assert_cmpstr (json_object_get_string_member (model, "hf_id"), ==, "meta-llama/Llama-2-7b-hf");
        }
    }
  g_assert_true (found);
}

/* The user catalog (tests/data/cli/user/headroom/gpus.json) adds test-gpu. */
static void
test_gpus (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) table = { 0 };
  g_autoptr(JsonObject) out = NULL;
  JsonArray *gpus;
  gboolean found = FALSE;

  run_cli (&run, "gpus", "--json", NULL);
  out = parse_output (&run);
  gpus = json_node_get_array (member (out, "gpus"));
  for (guint i = 0; i < json_array_get_length (gpus); i++)
    {
      JsonObject *gpu = json_array_get_object_element (gpus, i);

      if (g_strcmp0 (json_object_get_string_member (gpu, "id"), "test-gpu") != 0)
        continue;
      found = TRUE;
      g_assert_cmpint (member_int (gpu, "memory_bytes"), ==, 25769803776);
      g_assert_cmpfloat (member_double (gpu, "peak_flops.bf16"), ==, 2e14);
      g_assert_true (json_object_get_boolean_member (gpu, "user_defined"));
    }
  g_assert_true (found);

  /* 25,769,803,776 bytes = 24 × 2^30: "24.00 GiB" */
  run_cli (&table, "gpus", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "test-gpu"));
  g_assert_nonnull (strstr (table.out, "24.00 GiB"));
  /* The V100 has no BF16 (its catalog entry gives 0): a dash, never "0 FLOP/s". */
  {
    const char *v100 = strstr (table.out, "v100-sxm2-32gb");
    g_autofree char *line = NULL;

    g_assert_nonnull (v100);
    line = g_strndup (v100, strcspn (v100, "\n"));
    g_assert_nonnull (strstr (line, "—"));
    g_assert_null (strstr (line, "0 FLOP/s"));
  }
}


#define LLAMA_CONFIG CLI_DATA "/llama-2-7b-config.json"
#define LLAMA_PARAMS 6738415616.0

static void
assert_close (double actual,
              double expected)
{
  if (G_APPROX_VALUE (actual, expected, 1e-9 * MAX (1.0, expected)))
    return;
  g_error ("%.17g is not %.17g", actual, expected);
}

/* measured-small.json's Llama-style bf16 configuration (h 256, 2 layers,
 * 8 heads, 2 KV heads of 32, SwiGLU 688, vocabulary 2048, b 2, s 256) was
 * measured under bf16 autocast: through the CLI with --precision
 * bf16-autocast, the activations saved at the end of the forward are within
 * 10 % of PyTorch's (each storage once): flash 17,270,772 B, eager
 * attention 30,083,064 B, every layer checkpointed 6,023,156 B. */
static void
test_train_measured_small (void)
{
  static const struct { const char *attention, *recompute; double measured; } variants[] = {
    { "flash", "none", 17270772 },
    { "eager", "none", 30083064 },
    { "eager", "full", 6023156 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) out = NULL;
      double saved;

      run_cli (&run, "train", "--model", CLI_DATA "/llamaish-measured.json", "--gpu", "test-gpu",
               "--gpus", "1", "--micro-batch", "2", "--global-batch", "0", "--seq", "256",
               "--precision", "bf16-autocast",
               "--attention", variants[i].attention, "--recompute", variants[i].recompute, "--json",
               NULL);
      out = parse_output (&run);
      saved = member_double (out, "memory.activations");
      g_test_message ("%s/%s: %.0f against %.0f", variants[i].attention, variants[i].recompute,
                      saved, variants[i].measured);
      g_assert_cmpfloat (ABS (saved / variants[i].measured - 1), <, 0.10);
    }
}

/* --framework torchtune is torchtune's 3B_full_single_device.yaml (pure
 * bf16, eager RMSNorm, chunked loss, full recomputation, the step in the
 * backward, 8-bit AdamW): the same figures as those options given one by
 * one; an explicit option still wins (no recomputation: more activations);
 * an unknown framework is refused. One micro-batch per step, as the step in
 * the backward needs. */
static void
test_train_framework (void)
{
  g_auto(Run) implied = { 0 };
  g_auto(Run) spelled = { 0 };
  g_auto(Run) overridden = { 0 };
  g_auto(Run) bad = { 0 };
  g_autoptr(JsonObject) a = NULL;
  g_autoptr(JsonObject) b = NULL;
  g_autoptr(JsonObject) c = NULL;

  run_cli (&implied, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--seq", "1024", "--global-batch", "0", "--zero", "0", "--framework", "torchtune",
           "--json", NULL);
  run_cli (&spelled, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--seq", "1024", "--global-batch", "0", "--zero", "0", "--precision", "bf16",
           "--norm-kernel", "eager", "--loss", "chunked", "--recompute", "full",
           "--optimizer-in-backward", "--optimizer", "adamw-8bit", "--json", NULL);
  run_cli (&overridden, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--seq", "1024", "--global-batch", "0", "--zero", "0", "--framework", "torchtune",
           "--recompute", "none", "--json", NULL);
  a = parse_output (&implied);
  b = parse_output (&spelled);
  c = parse_output (&overridden);
  g_assert_cmpint (member_int (a, "memory.allocated_peak"), ==,
                   member_int (b, "memory.allocated_peak"));
  g_assert_cmpint (member_int (a, "memory.activations"), <, member_int (c, "memory.activations"));
  g_assert_cmpint (member_int (a, "memory.gradients"), ==, member_int (c, "memory.gradients"));

  run_cli (&bad, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--framework", "jax", NULL);
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "--framework"));
}

/* Llama-2-7B on 8 test GPUs (24 GiB, bf16 2e14 FLOP/s, 350 W), ZeRO-3,
 * bf16 mixed precision and AdamW: model states of Ψ = 6,738,415,616
 * parameters split over N_d = 8 ranks as the ZeRO paper (Rajbhandari et al.
 * 2020, §5.3) counts them: 2Ψ/8 bf16 weights = 1,684,603,904; 4Ψ/8 fp32
 * master weights = 3,369,207,808; 2Ψ/8 bf16 gradients = 1,684,603,904; 8Ψ/8
 * fp32 Adam m and v = 6,738,415,616. Time at a measured utilisation of 0.4
 * (--mfu, which overrides the prediction from the hardware):
 * the global batch defaults to micro batch × DP = 8 sequences of 4096, so a
 * step runs 8 micro-steps of FLOPs (flash attention's recomputation included)
 * at 8 × 2e14 × 0.4 FLOP/s, and the achieved MFU counts only the model FLOPs
 * (forward + backward): 0.4 × model / executed FLOPs (PaLM App. B). 1e12
 * tokens take ceil (1e12 / 32768) = 30,517,579 steps. */
static void
test_train (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  double model_flops, hardware_flops, step, total;

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--tokens", "1e12", "--price", "2",
           "--mfu", "0.4",
           "--json", NULL);
  out = parse_output (&run);
  g_assert_false (json_node_get_boolean (member (out, "time.predicted")));

  g_assert_cmpint (member_int (out, "params.total"), ==, 6738415616);
  g_assert_cmpint (member_int (out, "flops.tokens"), ==, 4096);
  g_assert_cmpint (member_int (out, "memory.weights"), ==, 1684603904);
  g_assert_cmpint (member_int (out, "memory.master_weights"), ==, 3369207808);
  g_assert_cmpint (member_int (out, "memory.gradients"), ==, 1684603904);
  g_assert_cmpint (member_int (out, "memory.optimizer"), ==, 6738415616);
  g_assert_cmpint (member_int (out, "memory.capacity"), ==, 25769803776);
  /* The same run as test-training's /training/memory/llama2-7b-zero3: the
   * peak is the loss's backward, 36,534,099,968 B allocated; 301,989,888 B
   * of allocator rounding and the freed bf16 logits' block, 262,144,000 B;
   * total = reserved + 1 GiB overhead. */
  g_assert_cmpint (member_int (out, "memory.allocated_peak"), ==, 36534099968);
  g_assert_cmpint (member_int (out, "memory.reserved_peak"), ==, 37098233856);
  g_assert_cmpint (member_int (out, "memory.recompute"), ==, 0);
  g_assert_cmpint (member_int (out, "memory.total"), ==,
                   member_int (out, "memory.reserved_peak") + member_int (out, "memory.overhead"));
  /* 12 bytes per parameter of model states alone are 75.3 GiB / 8 = 9.4 GiB:
   * with activations this does not fit in 24 GiB */
  g_assert_false (json_node_get_boolean (member (out, "memory.fits")));
  g_assert_cmpint (member_int (out, "memory.overflow"), ==,
                   member_int (out, "memory.total") - 25769803776);

  model_flops = 8 * (member_double (out, "flops.forward") + member_double (out, "flops.backward"));
  hardware_flops = 8 * member_double (out, "flops.total");
  step = member_double (out, "time.step_seconds");
  assert_close (step, hardware_flops / (8 * 2e14 * 0.4));
  assert_close (member_double (out, "time.tokens_per_second"), 32768 / step);
  total = member_double (out, "time.total_seconds");
  assert_close (total, 30517579 * step);
  assert_close (member_double (out, "time.gpu_hours"), total * 8 / 3600);
  assert_close (member_double (out, "time.cost"), 2 * total * 8 / 3600);
  assert_close (member_double (out, "time.energy_kwh"), 8 * 350 * total / 3.6e6);
  assert_close (member_double (out, "time.mfu"), 0.4 * model_flops / hardware_flops);
  g_assert_cmpint (member_int (out, "limits.max_micro_batch"), ==, 0);
  g_assert_cmpint (member_int (out, "limits.min_gpus"), >, 8);
}

/* Fine-tuning options (docs/training.md, Fine-tuning): Llama 2 7B on one
 * GPU in bf16-mixed, one micro-batch per step (no accumulation buffer). LoRA r 8 on q and v: 4,194,304 trainable parameters
 * (8 · (4096 + 4096) · 2 · 32); the frozen base in bf16, 2 · 6,738,415,616 B;
 * the adapters 2 + 4 + 2 + 8 = 16 B each. QLoRA, NF4 with double
 * quantisation on every linear but the head (6,476,005,376 parameters at
 * 0.515869140625 B, the other 262,410,240 in bf16): 3,865,591,808 B; r 8 on
 * all linears: 19,988,480 adapters. */
static void
test_train_finetune (void)
{
  g_auto(Run) lora_run = { 0 };
  g_auto(Run) lora_table = { 0 };
  g_auto(Run) qlora_run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_autoptr(JsonObject) lora = NULL;
  g_autoptr(JsonObject) qlora = NULL;

  run_cli (&lora_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--global-batch", "0", "--method", "lora", "--lora-rank", "8", "--lora-targets", "attention", "--json", NULL);
  lora = parse_output (&lora_run);
  g_assert_cmpint (member_int (lora, "params.trainable"), ==, 4194304);
  g_assert_cmpint (member_int (lora, "params.frozen"), ==, 6738415616);
  g_assert_cmpint (member_int (lora, "memory.frozen_weights"), ==, 13476831232);
  g_assert_cmpint (member_int (lora, "memory.adapters"), ==, 16 * 4194304);
  /* The table says the share: 4,194,304 / (4,194,304 + 6,738,415,616) = 0.0622 %. */
  run_cli (&lora_table, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--global-batch", "0", "--method", "lora", "--lora-rank", "8", "--lora-targets", "attention", NULL);
  g_assert_nonnull (strstr (lora_table.out, "\nTrainable: 4,194,304 parameters (0.062 %)\n"));

  run_cli (&qlora_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--method", "qlora", "--quant", "nf4", "--double-quant", "--lora-targets",
           "q,k,v,o,gate,up,down", "--json", NULL);
  qlora = parse_output (&qlora_run);
  g_assert_cmpint (member_int (qlora, "params.trainable"), ==, 19988480);
  g_assert_cmpint (member_int (qlora, "memory.frozen_weights"), ==, 3865591808);

  run_cli (&bad_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--method", "lora", "--lora-targets", "qkv", NULL);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_nonnull (strstr (bad_run.err, "--lora-targets"));
  /* Only a paged optimizer reports its pageable states. */
  g_assert_false (json_object_has_member (json_object_get_object_member (qlora, "memory"),
                                          "pageable"));
}

/* --paged-optimizer (docs/training.md, "Paged optimizers"): QLoRA r 64 on
 * every linear of Llama 2 7B, 64 · (4 · 8192 + 2 · 15104 + 15104) · 32 =
 * 159,907,840 adapter parameters, every lora_A and lora_B of 1e5 elements
 * or more (64 · 4096 = 262,144 the smallest), so all their fp32 AdamW
 * states are paged: 8 B each, 1,279,262,720 B. The GPU has room for them:
 * none is evicted. AdamW's alternative, SGD, has no paged version. */
static void
test_train_paged_optimizer (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_auto(Run) host_run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) host = NULL;

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--method", "qlora", "--quant", "nf4", "--double-quant", "--lora-rank", "64",
           "--lora-targets", "all-linear", "--paged-optimizer", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpint (member_int (out, "params.trainable"), ==, 159907840);
  g_assert_cmpint (member_int (out, "memory.optimizer"), ==, 1279262720);
  g_assert_cmpint (member_int (out, "memory.pageable"), ==, 1279262720);
  g_assert_cmpint (member_int (out, "memory.paged_out"), ==, 0);
  g_assert_false (json_object_has_member (json_object_get_object_member (out, "time"),
                                          "host_bytes"));

  /* Full training with paged 8-bit AdamW (12.75 GiB of states) on 75 GiB:
   * 80.21 GiB in all (with the freed bf16 logits' block the loss's backward
   * cannot use, 8192 · 32000 · 2 = 524,288,000 B), 86,122,168,448 −
   * 80,530,636,800 = 5,591,531,648 B paged out, out and back in each step
   * over the 32 GB/s set: 11,183,063,296 B ÷ 32e9 B/s = 0.349470728 s inside
   * the step. */
  run_cli (&host_run, "train", "--model", LLAMA_CONFIG, "--gpu", "custom", "--custom-memory", "75",
           "--gpus", "1", "--precision", "bf16", "--optimizer", "adamw-8bit", "--paged-optimizer",
           "--global-batch", "1", "--host-bandwidth", "32", "--json", NULL);
  host = parse_output (&host_run);
  g_assert_cmpint (member_int (host, "memory.paged_out"), ==, 5591531648);
  g_assert_cmpint (member_int (host, "time.host_bytes"), ==, 11183063296);
  g_assert_cmpfloat_with_epsilon (member_double (host, "time.host_seconds"), 0.349470728, 1e-9);

  run_cli (&bad_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--optimizer", "sgd", "--paged-optimizer", NULL);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_nonnull (strstr (bad_run.err, "Paged optimizer (--paged-optimizer)"));
}

/* Options change the figures by their mechanism (same run as above). */
static void
test_train_options (void)
{
  g_auto(Run) base_run = { 0 };
  g_auto(Run) mfu_run = { 0 };
  g_auto(Run) zero_run = { 0 };
  g_auto(Run) overhead_run = { 0 };
  g_autoptr(JsonObject) base = NULL;
  g_autoptr(JsonObject) mfu = NULL;
  g_autoptr(JsonObject) zero = NULL;
  g_autoptr(JsonObject) overhead = NULL;

  run_cli (&base_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--mfu", "0.4", "--json", NULL);
  base = parse_output (&base_run);

  /* Half the MFU, twice the step. */
  run_cli (&mfu_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--mfu", "0.2", "--json", NULL);
  mfu = parse_output (&mfu_run);
  assert_close (member_double (mfu, "time.step_seconds"), 2 * member_double (base, "time.step_seconds"));

  /* ZeRO-1 partitions only the optimizer states, which for mixed precision
   * include the fp32 master copy (ZeRO paper §5.1, K = 12): bf16 weights and
   * gradients whole, 2Ψ = 13,476,831,232 each; master 4Ψ/8 = 3,369,207,808
   * and Adam 8Ψ/8 = 6,738,415,616 per rank. */
  run_cli (&zero_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "1", "--seq", "4096", "--global-batch", "0", "--json", NULL);
  zero = parse_output (&zero_run);
  g_assert_cmpint (member_int (zero, "memory.weights"), ==, 13476831232);
  g_assert_cmpint (member_int (zero, "memory.gradients"), ==, 13476831232);
  g_assert_cmpint (member_int (zero, "memory.master_weights"), ==, 3369207808);
  g_assert_cmpint (member_int (zero, "memory.optimizer"), ==, 6738415616);

  /* 2 nodes of 4 are 8 GPUs: the same ZeRO-3 shards, 2Ψ/8 bf16 weights. */
  {
    g_auto(Run) nodes_run = { 0 };
    g_autoptr(JsonObject) nodes = NULL;

    run_cli (&nodes_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--nodes", "2",
             "--gpus-per-node", "4", "--zero", "3", "--seq", "4096", "--global-batch", "0",
             "--inter-node-bandwidth", "50", "--json", NULL);
    nodes = parse_output (&nodes_run);
    g_assert_cmpint (member_int (nodes, "memory.weights"), ==, 1684603904);
    g_assert_cmpint (member_int (nodes, "memory.optimizer"), ==, 6738415616);
  }

  /* --causal halves QKᵀ and attention over V: Llama-2-7B at s = 4096, b = 1,
   * h = 4096 (32 heads × 128), L = 32 has 2·b·s²·h = 137,438,953,472 FLOPs for
   * each of the two per layer in full, so the forward pass loses
   * 32 × 137,438,953,472 = 4,398,046,511,104, and the step time shrinks with it. */
  {
    g_auto(Run) causal_run = { 0 };
    g_autoptr(JsonObject) causal = NULL;

    run_cli (&causal_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
             "--zero", "3", "--seq", "4096", "--global-batch", "0", "--causal", "--json", NULL);
    causal = parse_output (&causal_run);
    assert_close (member_double (base, "flops.forward") - member_double (causal, "flops.forward"),
                  4398046511104.0);
    g_assert_cmpfloat (member_double (causal, "time.step_seconds"), <,
                       member_double (base, "time.step_seconds"));
  }

  /* --overhead sets the framework reserve, byte for byte. */
  run_cli (&overhead_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--overhead", "123456789", "--json", NULL);
  overhead = parse_output (&overhead_run);
  g_assert_cmpint (member_int (overhead, "memory.overhead"), ==, 123456789);
  g_assert_cmpint (member_int (overhead, "memory.total") - member_int (base, "memory.total"), ==,
                   123456789 - member_int (base, "memory.overhead"));
}

static void
test_train_table (void)
{
  g_auto(Run) run = { 0 };

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", NULL);
  g_assert_cmpint (run.status, ==, 0);
  /* 1,684,603,904 bytes = 1.569 GiB; 24 GiB capacity */
  g_assert_nonnull (strstr (run.out, "1.57 GiB"));
  g_assert_nonnull (strstr (run.out, "24.00 GiB"));
  g_assert_nonnull (strstr (run.out, "does not fit"));
}

/* The table's memory rows are the window's segments and add up to its
 * total: Llama 3.1 8B on 8 H100, ZeRO 1, 64 sequences of 8,192 in 8
 * micro-batches keeps an fp32 accumulation buffer (8,030,261,248 × 4 B =
 * 29.92 GiB) as its own row beside the 16-bit gradients (14.96 GiB), and
 * the allocator's rounding is a row; each row is rounded to 0.01 GiB. */
static void
test_train_table_adds_up (void)
{
  const char *const layouts[][6] = {
    { "--global-batch", "64", "--micro-batch", "1", "--method", "full" },
    { "--global-batch", "8", "--micro-batch", "1", "--method", "qlora" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (layouts); i++)
    {
      g_auto(Run) run = { 0 };
      g_auto(GStrv) lines = NULL;
      double sum = 0, total = -1;
      guint rows = 0;
      gboolean in_memory = FALSE;

      run_cli (&run, "train", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8",
               layouts[i][0], layouts[i][1], layouts[i][2], layouts[i][3], layouts[i][4],
               layouts[i][5], NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (i == 0)
        {
          g_assert_nonnull (strstr (run.out, "\nGradients                      14.96 GiB\n"));
          g_assert_nonnull (strstr (run.out, "\nGradient accumulation          29.92 GiB\n"));
          g_assert_nonnull (strstr (run.out, "\nAllocator rounding and cache"));
        }
      lines = g_strsplit (run.out, "\n", -1);
      for (guint j = 0; lines[j] != NULL; j++)
        {
          const char *gib = strstr (lines[j], " GiB");
          const char *number = gib;

          if (g_str_has_prefix (lines[j], "Memory of the most loaded GPU"))
            {
              in_memory = TRUE;
              continue;
            }
          if (!in_memory || gib == NULL || g_str_has_prefix (lines[j], "  of which"))
            continue;
          while (number > lines[j] && number[-1] != ' ')
            number--;
          if (g_str_has_prefix (lines[j], "Total"))
            {
              total = g_ascii_strtod (number, NULL);
              break;
            }
          sum += g_ascii_strtod (number, NULL);
          rows++;
        }
      g_assert_cmpuint (rows, >=, 5);
      g_assert_cmpfloat (total, >, 0);
      g_assert_cmpfloat_with_epsilon (sum, total, 0.005 * (rows + 1));
    }
}

/* QLoRA of Llama 3.1 70B on one L40S with paged 8-bit AdamW does not fit
 * even with every paged state in host memory: the overflow is what is over
 * beyond them, total − pageable − capacity, and the table says so. */
static void
test_train_table_paged_overflow (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) json_run = { 0 };
  g_autoptr(JsonObject) json = NULL;

#define PAGED_OVERFLOW_ARGS "train", "--model", "llama-3.1-70b", "--gpu", "l40s", "--gpus", "1", \
    "--method", "qlora", "--lora-rank", "16", "--lora-targets", "all-linear", "--micro-batch", "1", \
    "--global-batch", "16", "--seq", "2048", "--recompute", "full", "--optimizer", "adamw-8bit", \
    "--paged-optimizer"
  run_cli (&run, PAGED_OVERFLOW_ARGS, NULL);
  run_cli (&json_run, PAGED_OVERFLOW_ARGS, "--json", NULL);
#undef PAGED_OVERFLOW_ARGS
  g_assert_cmpint (run.status, ==, 0);
  json = parse_output (&json_run);
  g_assert_false (json_node_get_boolean (member (json, "memory.fits")));
  g_assert_cmpint (member_int (json, "memory.pageable"), >, 0);
  g_assert_cmpint (member_int (json, "memory.overflow"), ==,
                   member_int (json, "memory.total") - member_int (json, "memory.pageable")
                   - member_int (json, "memory.capacity"));
  g_assert_nonnull (strstr (run.out, "\nOverflow with the paged states out (does not fit)"));
}

/* Under PP the memory is the most loaded stage's, named counted from 1:
 * Llama 3.1 405B's 126 layers on 8 ranks × 2 stages, torchtitan's split,
 * rank 1 of 0–7 holds 16 layers and all its 16 chunk forwards in flight. */
static void
test_train_table_stage (void)
{
  g_auto(Run) run = { 0 };

  run_cli (&run, "train", "--model", "llama-3.1-405b", "--gpu", "h100-sxm", "--nodes", "64",
           "--gpus-per-node", "8", "--tp", "8", "--pp", "8", "--pp-schedule", "interleaved",
           "--vpp", "2", "--micro-batch", "4", "--global-batch", "256", "--framework",
           "torchtitan", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "Memory of the most loaded GPU (pipeline stage 2 of 8)"));
}

/* The catalog's TPUs have no published board power (power_watts 0): the
 * energy is null in JSON and "unknown" in the table, never 0 kWh, while
 * time and GPU-hours are still given; "gpus" lists their power as unknown. */
static void
test_train_unknown_power (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) table = { 0 };
  g_auto(Run) gpus = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "tpu-v5e", "--gpus", "8",
           "--tokens", "1e9", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpfloat (member_double (out, "time.gpu_hours"), >, 0);
  g_assert_true (JSON_NODE_HOLDS_NULL (member (out, "time.energy_kwh")));

  run_cli (&table, "train", "--model", LLAMA_CONFIG, "--gpu", "tpu-v5e", "--gpus", "8",
           "--tokens", "1e9", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "unknown (board power not published)"));

  run_cli (&gpus, "gpus", NULL);
  g_assert_cmpint (gpus.status, ==, 0);
  g_assert_nonnull (strstr (gpus.out, "tpu-v5e"));
  g_assert_nonnull (strstr (gpus.out, "unknown"));
}

/* A measured throughput on the run of test_train (8 sequences of 4096 =
 * 32,768 tokens per step on 8 GPUs of 2e14 bf16 FLOP/s): a step of 10 s is
 * 3,276.8 tokens/s, and the other way round. MFU counts the model FLOPs of the
 * step, 8 × (forward + backward) of one sequence; HFU adds the recomputation
 * (flash attention's): 8 × total (PaLM, Chowdhery et al. 2022, App. B). Both
 * over 8 × 2e14 × 10 FLOP. The predicted MFU at the predicted step scales to
 * the measured one by predicted step / 10 s. */
static void
test_train_measured (void)
{
  g_auto(Run) step_run = { 0 };
  g_auto(Run) tokens_run = { 0 };
  g_auto(Run) base_run = { 0 };
  g_auto(Run) table = { 0 };
  g_autoptr(JsonObject) step = NULL;
  g_autoptr(JsonObject) tokens = NULL;
  g_autoptr(JsonObject) base = NULL;
  double model_flops, hardware_flops;

  run_cli (&step_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--measured-step-seconds", "10",
           "--json", NULL);
  step = parse_output (&step_run);
  model_flops = 8 * (member_double (step, "flops.forward") + member_double (step, "flops.backward"));
  hardware_flops = 8 * member_double (step, "flops.total");
  g_assert_cmpfloat (hardware_flops, >, model_flops);
  assert_close (member_double (step, "time.measured.step_seconds"), 10);
  assert_close (member_double (step, "time.measured.tokens_per_second"), 3276.8);
  assert_close (member_double (step, "time.measured.mfu"), model_flops / (8 * 2e14 * 10));
  assert_close (member_double (step, "time.measured.hfu"), hardware_flops / (8 * 2e14 * 10));
  assert_close (member_double (step, "time.measured.mfu"),
                member_double (step, "time.mfu") * member_double (step, "time.step_seconds") / 10);

  run_cli (&tokens_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--measured-tokens-per-second",
           "3276.8", "--json", NULL);
  tokens = parse_output (&tokens_run);
  assert_close (member_double (tokens, "time.measured.step_seconds"), 10);
  assert_close (member_double (tokens, "time.measured.mfu"), member_double (step, "time.measured.mfu"));
  assert_close (member_double (tokens, "time.measured.hfu"), member_double (step, "time.measured.hfu"));

  /* The prediction itself does not move; without the options there is no "measured". */
  run_cli (&base_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--json", NULL);
  base = parse_output (&base_run);
  g_assert_false (json_object_has_member (json_node_get_object (member (base, "time")), "measured"));
  g_assert_cmpfloat (member_double (base, "time.step_seconds"), ==,
                     member_double (step, "time.step_seconds"));
  g_assert_cmpfloat (member_double (base, "time.mfu"), ==, member_double (step, "time.mfu"));

  run_cli (&table, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--measured-step-seconds", "10", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "Measured MFU"));
  g_assert_nonnull (strstr (table.out, "Measured HFU"));
  {
    g_autofree char *percent = g_strdup_printf ("%.3g%%",
                                                100 * member_double (step, "time.measured.mfu"));

    g_assert_nonnull (strstr (table.out, percent));
  }
}

/* Llama-2-7B served in bf16 on one test GPU, batch 4, prompt 1000, 200
 * generated: weights 2 bytes × 6,738,415,616 = 13,476,831,232; KV cache per
 * token 2 (K and V) × 32 layers × 32 heads × 128 × 2 bytes = 524,288; 1200
 * tokens are 75 whole blocks of 16, so the cache is 4 × 1200 × 524,288 =
 * 2,516,582,400 bytes. */
static void
test_infer (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--batch", "4",
           "--prompt", "1000", "--generate", "200", "--price", "2", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpint (member_int (out, "params.total"), ==, 6738415616);
  g_assert_cmpint (member_int (out, "memory.weights"), ==, 13476831232);
  g_assert_cmpint (member_int (out, "memory.kv_cache_per_token"), ==, 524288);
  g_assert_cmpint (member_int (out, "memory.kv_cache"), ==, 2516582400);
  g_assert_cmpint (member_int (out, "memory.capacity"), ==, 25769803776);
  g_assert_cmpint (member_int (out, "memory.total"), ==,
                   member_int (out, "memory.weights") + member_int (out, "memory.kv_cache")
                   + member_int (out, "memory.activations") + member_int (out, "memory.overhead"));
  g_assert_true (json_node_get_boolean (member (out, "memory.fits")));
  /* 4 sequences decode in step: the total rate is 4 × the per-sequence rate */
  assert_close (member_double (out, "latency.tokens_per_second"),
                4 * member_double (out, "latency.tokens_per_second_per_sequence"));
  /* USD 2 per GPU-hour over 3600 s yields 3600 × tokens/s tokens */
  assert_close (member_double (out, "cost.per_million_tokens"),
                2 * 1e6 / (3600 * member_double (out, "latency.tokens_per_second")));
  g_assert_cmpint (member_int (out, "limits.max_batch"), >=, 4);
  g_assert_cmpint (member_int (out, "limits.min_gpus"), ==, 1);
}

/* KV cache mechanisms on the same model:
 * 1001 + 200 = 1201 tokens round up to 76 blocks of 16 = 1216 tokens:
 *   4 × 1216 × 524,288 = 2,550,136,832;
 * --paged-block 0 keeps 1201: 4 × 1201 × 524,288 = 2,518,679,552;
 * --kv-cache fp8 halves the bytes per element: 262,144 per token;
 * --tp 2 splits the 32 KV heads over 2 GPUs: 262,144 per token per GPU. */
static void
test_infer_kv_cache (void)
{
  struct { const char *option, *value; const char *path; gint64 expected; } cases[] = {
    { "--paged-block", "16", "memory.kv_cache", 2550136832 },
    { "--paged-block", "0", "memory.kv_cache", 2518679552 },
    { "--kv-cache", "fp8", "memory.kv_cache_per_token", 262144 },
    { "--tp", "2", "memory.kv_cache_per_token", 262144 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) out = NULL;

      g_test_message ("%s %s", cases[i].option, cases[i].value);
      run_cli (&run, "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--batch", "4",
               "--prompt", "1001", "--generate", "200", "--json",
               cases[i].option, cases[i].value, NULL);
      out = parse_output (&run);
      g_assert_cmpint (member_int (out, cases[i].path), ==, cases[i].expected);
    }

  /* Gemma 3 1B at 8,192 tokens, contiguous: 26 layers of 1 kv head × 256 ×
   * 2 (K, V) × 2 B = 1,024 B per token; layers 5, 11, 17, 23 global:
   * 4 × 8192 × 1024 = 33,554,432; the other 22 hold their 512-token window:
   * 22 × 512 × 1024 = 11,534,336; 45,088,768 in all, not the 218,103,808 of
   * a full cache on every layer. */
  {
    g_auto(Run) run = { 0 };
    g_autoptr(JsonObject) out = NULL;

    run_cli (&run, "infer", "--model", CLI_DATA "/gemma-3-1b.json", "--gpu", "test-gpu",
             "--batch", "1", "--prompt", "8191", "--generate", "1", "--paged-block", "0",
             "--json", NULL);
    out = parse_output (&run);
    g_assert_cmpint (member_int (out, "memory.kv_cache"), ==, 45088768);
    g_assert_cmpint (member_int (out, "memory.kv_cache_global"), ==, 33554432);
    g_assert_cmpint (member_int (out, "memory.kv_cache_windowed"), ==, 11534336);
    g_assert_cmpint (member_int (out, "memory.kv_cache_uncapped"), ==, 218103808);
  }
}

/* The serving engines' plans on the same model and the 24 GiB test GPU (no
 * driver figure, so 25,769,803,776 B), vLLM, max_model_len 4096:
 *   usable 0.9 × 25,769,803,776 = 23,192,823,398.4; weights 13,476,831,232;
 *   the profiling step of max(4096, 2048) tokens peaks at (2 × 4096 + 3 ×
 *   11008) × 2 B × 4096 + 32000 × 6 = 337,833,472 B (above the sampler's
 *   256 × 32000 × 26 = 212,992,000); non-torch 0.2 GiB;
 *   KV 23,192,823,398.4 − 13,476,831,232 − 337,833,472 − 214,748,364.8 =
 *   9,163,410,329.6 B = 1,092 blocks of 16 × 524,288 B → 17,472 tokens,
 *   4.265625 requests of 4096.
 * llama.cpp, q4_0, --gpu-layers 16: 2,003,156,992 B of weights stay in
 * host memory (tests/core/test-serving.c, /serving/llamacpp/offload). */
static void
test_infer_engines (void)
{
  g_auto(Run) vllm = { 0 };
  g_auto(Run) llamacpp = { 0 };
  g_auto(Run) bad = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) offload = NULL;

  run_cli (&vllm, "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--engine", "vllm",
           "--gpu-memory-utilization", "0.9", "--max-model-len", "4096", "--json", NULL);
  out = parse_output (&vllm);
  assert_close (member_double (out, "memory.usable"), 23192823398.4);
  g_assert_cmpint (member_int (out, "memory.kv_blocks"), ==, 1092);
  g_assert_cmpint (member_int (out, "memory.kv_capacity_tokens"), ==, 17472);
  assert_close (member_double (out, "limits.max_concurrency"), 4.265625);

  run_cli (&llamacpp, "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--engine", "llamacpp",
           "--weights", "q4_0", "--kv-cache", "fp16", "--gpu-layers", "16", "--max-model-len", "4096",
           "--json", NULL);
  offload = parse_output (&llamacpp);
  g_assert_cmpint (member_int (offload, "serving.cpu_weights"), ==, 2003156992);
  g_assert_cmpint (member_int (offload, "memory.weights"), ==, 3825065984);

  run_cli (&bad, "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--engine", "ollama", NULL);
  g_assert_cmpint (bad.status, !=, 0);
  g_assert_nonnull (strstr (bad.err, "--engine"));
}

/* Every layout of 8 GPUs multiplies out to 8, fits, and comes fastest first;
 * a pinned --tp holds in every layout. */
/* One step-time model: `train` of a layout `plan` found predicts the same
 * step, to the last digit (both print 17 significant digits). */
static void
test_plan_train_agree (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  JsonArray *layouts;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", "--json", NULL);
  out = parse_output (&run);
  layouts = json_node_get_array (member (out, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), >, 0);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    {
      JsonObject *l = json_array_get_object_element (layouts, i);
      g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      g_auto(Run) train = { 0 };
      g_autoptr(JsonObject) t = NULL;
      const char *fsdp = json_object_get_string_member (l, "fsdp");
      const char * const fixed[] = {
        "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
        "--global-batch", "64", "--seq", "2048", "--json",
      };

      for (guint k = 0; k < G_N_ELEMENTS (fixed); k++)
        g_ptr_array_add (argv, g_strdup (fixed[k]));
#define ADD_INT(option, member_name) \
      g_ptr_array_add (argv, g_strdup (option)); \
      g_ptr_array_add (argv, g_strdup_printf ("%" G_GINT64_FORMAT, member_int (l, member_name)))
      ADD_INT ("--tp", "tp");
      ADD_INT ("--pp", "pp");
      ADD_INT ("--cp", "cp");
      ADD_INT ("--ep", "ep");
      ADD_INT ("--micro-batch", "micro_batch");
      if (member_int (l, "vpp") > 1)
        {
          g_ptr_array_add (argv, g_strdup ("--pp-schedule"));
          g_ptr_array_add (argv, g_strdup ("interleaved"));
          ADD_INT ("--vpp", "vpp");
        }
      if (g_strcmp0 (fsdp, "none") != 0)
        g_ptr_array_add (argv, g_strdup_printf ("--fsdp=%s", fsdp));
      else
        {
          ADD_INT ("--zero", "zero");
        }
#undef ADD_INT
      if (json_object_get_boolean_member (l, "sequence_parallel"))
        g_ptr_array_add (argv, g_strdup ("--sequence-parallel"));
      g_ptr_array_add (argv, g_strdup_printf ("--recompute=%s",
                                              json_object_get_string_member (l, "recompute")));
      g_ptr_array_add (argv, NULL);

      run_cli_argv (&train, (const char * const *) argv->pdata);
      t = parse_output (&train);
      g_assert_true (json_node_get_boolean (member (t, "time.predicted")));
      g_assert_cmpfloat (member_double (t, "time.step_seconds"), ==, member_double (l, "step_seconds"));
      g_assert_cmpfloat (member_double (t, "time.mfu"), ==, member_double (l, "mfu"));
      g_assert_cmpfloat (member_double (t, "time.tokens_per_second"), ==,
                         member_double (l, "tokens_per_second"));
    }
}

/* --async-tp reaches the step model through `train` and `plan` alike: with
 * TP 8, sequence parallel and --compile, `plan`'s layout and `train` of it
 * predict the same step, shorter than without (tests/core/test-planner.c
 * derives the term); without --compile it is refused, naming the setting. */
static void
test_async_tp (void)
{
  g_auto(Run) plan = { 0 };
  g_auto(Run) train = { 0 };
  g_auto(Run) sync_run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_autoptr(JsonObject) p = NULL;
  g_autoptr(JsonObject) t = NULL;
  g_autoptr(JsonObject) sync = NULL;
  JsonObject *layout;
  g_autofree char *micro = NULL;
  g_autofree char *zero = NULL;

  run_cli (&plan, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "8", "--sequence-parallel",
           "--compile", "--async-tp", "--top", "1", "--json", NULL);
  p = parse_output (&plan);
  layout = json_array_get_object_element (json_node_get_array (member (p, "layouts")), 0);
  g_assert_cmpint (member_int (layout, "tp"), ==, 8);
  micro = g_strdup_printf ("%" G_GINT64_FORMAT, member_int (layout, "micro_batch"));
  zero = g_strdup_printf ("%" G_GINT64_FORMAT, member_int (layout, "zero"));
  run_cli (&train, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "8", "--sequence-parallel",
           "--compile", "--async-tp", "--micro-batch", micro,
           "--zero", zero, "--fsdp", json_object_get_string_member (layout, "fsdp"),
           "--recompute", json_object_get_string_member (layout, "recompute"), "--json", NULL);
  t = parse_output (&train);
  g_assert_cmpfloat (member_double (t, "time.step_seconds"), ==, member_double (layout, "step_seconds"));

  run_cli (&sync_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "8", "--sequence-parallel",
           "--compile", "--micro-batch", micro, "--zero", zero, "--fsdp", json_object_get_string_member (layout, "fsdp"),
           "--recompute", json_object_get_string_member (layout, "recompute"), "--json", NULL);
  sync = parse_output (&sync_run);
  g_assert_cmpfloat (member_double (t, "time.step_seconds"), <, member_double (sync, "time.step_seconds"));

  run_cli (&bad_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--tp", "8", "--sequence-parallel", "--async-tp", NULL);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_nonnull (strstr (bad_run.err, "Async tensor parallel (--async-tp)"));
}

static void
test_plan (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) pinned_run = { 0 };
  g_auto(Run) csv = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) pinned = NULL;
  JsonArray *layouts;
  double previous = 0;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpint (member_int (out, "searched"), >=, member_int (out, "fitting"));
  g_assert_cmpint (member_int (out, "fitting"), >, 0);
  layouts = json_node_get_array (member (out, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), ==, 5);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    {
      JsonObject *l = json_array_get_object_element (layouts, i);

      g_assert_cmpint (member_int (l, "tp") * member_int (l, "pp") * member_int (l, "cp")
                       * member_int (l, "dp"), ==, 8);
      g_assert_cmpint (member_int (l, "memory_total"), <=, 25769803776);
      g_assert_cmpfloat (member_double (l, "step_seconds"), >=, previous);
      previous = member_double (l, "step_seconds");
      /* tokens per second = 64 × 2048 / step */
      assert_close (member_double (l, "tokens_per_second"), 64 * 2048 / previous);
    }

  run_cli (&pinned_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "2", "--json", NULL);
  pinned = parse_output (&pinned_run);
  layouts = json_node_get_array (member (pinned, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), >, 0);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    g_assert_cmpint (member_int (json_array_get_object_element (layouts, i), "tp"), ==, 2);

  /* --zero alone pins ZeRO and leaves FSDP off. */
  {
    g_auto(Run) zero_run = { 0 };
    g_autoptr(JsonObject) zero = NULL;

    run_cli (&zero_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
             "--global-batch", "64", "--seq", "2048", "--zero", "3", "--json", NULL);
    zero = parse_output (&zero_run);
    layouts = json_node_get_array (member (zero, "layouts"));
    g_assert_cmpuint (json_array_get_length (layouts), >, 0);
    for (guint i = 0; i < json_array_get_length (layouts); i++)
      {
        JsonObject *l = json_array_get_object_element (layouts, i);

        g_assert_cmpint (member_int (l, "zero"), ==, 3);
        g_assert_cmpstr (json_node_get_string (member (l, "fsdp")), ==, "none");
      }
  }

  run_cli (&csv, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "3", "--csv", NULL);
  g_assert_cmpint (csv.status, ==, 0);
  g_assert_true (g_str_has_prefix (csv.out, "tp,pp,vpp,dp,cp,ep,zero,fsdp,sequence_parallel,"
                                   "micro_batch,recompute,memory_total,step_seconds,mfu,"
                                   "tokens_per_second,bound\r\n"));
}

/* Issue 8: the Pareto set of memory against throughput. Every point of it
 * is a fitting layout that no other point beats on both; least memory first,
 * so throughput rises along it; its last point is the fastest layout of all
 * and its first needs no more memory than any ranked layout. */
static void
test_plan_pareto (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) table = { 0 };
  g_auto(Run) single = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(GList) layout_keys = NULL;
  JsonArray *layouts, *pareto;
  JsonObject *first, *last;
  guint n;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", "--json", NULL);
  out = parse_output (&run);
  layouts = json_node_get_array (member (out, "layouts"));
  pareto = json_node_get_array (member (out, "pareto"));
  n = json_array_get_length (pareto);
  g_assert_cmpuint (n, >, 1);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *a = json_array_get_object_element (pareto, i);
      gint64 memory = member_int (a, "memory_total");
      double rate = member_double (a, "tokens_per_second");

      g_assert_cmpint (memory, <=, 25769803776);
      g_assert_cmpint (member_int (a, "tp") * member_int (a, "pp") * member_int (a, "cp")
                       * member_int (a, "dp"), ==, 8);
      for (guint j = 0; j < n; j++)
        {
          JsonObject *b = json_array_get_object_element (pareto, j);
          gint64 other_memory = member_int (b, "memory_total");
          double other_rate = member_double (b, "tokens_per_second");

          if (i != j && other_memory <= memory && other_rate >= rate)
            g_assert_true (other_memory == memory && other_rate == rate);
          if (i != j)
            g_assert_false (other_memory == memory && other_rate == rate);
        }
      if (i > 0)
        {
          JsonObject *previous = json_array_get_object_element (pareto, i - 1);

          g_assert_cmpint (memory, >, member_int (previous, "memory_total"));
          g_assert_cmpfloat (rate, >, member_double (previous, "tokens_per_second"));
        }
    }

  /* Same keys in the same order as "layouts". */
  first = json_array_get_object_element (pareto, 0);
  last = json_array_get_object_element (pareto, n - 1);
  layout_keys = json_object_get_members (json_array_get_object_element (layouts, 0));
  {
    g_autoptr(GList) pareto_keys = json_object_get_members (first);

    g_assert_cmpuint (g_list_length (pareto_keys), ==, g_list_length (layout_keys));
    for (GList *k = layout_keys, *l = pareto_keys; k != NULL; k = k->next, l = l->next)
      g_assert_cmpstr (k->data, ==, l->data);
  }

  g_assert_cmpfloat (member_double (last, "tokens_per_second"), ==,
                     member_double (json_array_get_object_element (layouts, 0), "tokens_per_second"));
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    g_assert_cmpint (member_int (first, "memory_total"), <=,
                     member_int (json_array_get_object_element (layouts, i), "memory_total"));

  run_cli (&table, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "Pareto front (memory vs throughput)"));

  /* Every dimension pinned on one GPU leaves one layout: the front is the
   * ranked table, which is not printed twice. */
  run_cli (&single, "plan", "--model", CLI_DATA "/tiny-llama.json", "--gpu", "test-gpu",
           "--gpus", "1", "--global-batch", "4", "--seq", "8", "--micro-batch", "1",
           "--recompute", "none", "--zero", "0", NULL);
  g_assert_cmpint (single.status, ==, 0);
  g_assert_nonnull (strstr (single.out, "1 layouts searched"));
  g_assert_null (strstr (single.out, "Pareto"));
}

/* tiny-train.headroom: tiny-llama.json (95,040 parameters: embedding and LM
 * head 100 × 64 each, attention 2 × 4 × 64², MLP 2 × 3 × 64 × 128, norms
 * (2 × 2 + 1) × 64) on 8 test GPUs, ZeRO-3, bf16 mixed, sequences of 8,
 * eager attention. Its settings apply; options override them. */
static void
test_project_model (void)
{
  g_auto(Run) flops_run = { 0 };
  g_auto(Run) seq_run = { 0 };
  g_auto(Run) train_run = { 0 };
  g_auto(Run) zero_run = { 0 };
  g_autoptr(JsonObject) flops = NULL;
  g_autoptr(JsonObject) seq = NULL;
  g_autoptr(JsonObject) train = NULL;
  g_autoptr(JsonObject) zero = NULL;

  /* The project's sequence of 8: the counts of test_flops_tiny. */
  run_cli (&flops_run, "flops", "--model", CLI_DATA "/tiny-train.headroom.json", "--json", NULL);
  flops = parse_output (&flops_run);
  g_assert_cmpint (member_int (flops, "tokens"), ==, 8);
  g_assert_cmpfloat (member_double (flops, "forward"), ==, 1445888);

  /* --seq 16 overrides it: 16 tokens. */
  run_cli (&seq_run, "flops", "--model", CLI_DATA "/tiny-train.headroom.json", "--seq", "16", "--json", NULL);
  seq = parse_output (&seq_run);
  g_assert_cmpint (member_int (seq, "tokens"), ==, 16);

  /* ZeRO-3 over 8: 2 bytes × 95,040 / 8 = 23,760 bytes of bf16 weights;
   * 4 × 95,040 / 8 = 47,520 of fp32 master weights. */
  run_cli (&train_run, "train", "--model", CLI_DATA "/tiny-train.headroom.json", "--json", NULL);
  train = parse_output (&train_run);
  g_assert_cmpint (member_int (train, "params.total"), ==, 95040);
  g_assert_cmpint (member_int (train, "memory.weights"), ==, 23760);
  g_assert_cmpint (member_int (train, "memory.master_weights"), ==, 47520);
  g_assert_cmpint (member_int (train, "memory.capacity"), ==, 25769803776);

  /* --zero 0 keeps the whole bf16 copy: 2 × 95,040 = 190,080. */
  run_cli (&zero_run, "train", "--model", CLI_DATA "/tiny-train.headroom.json", "--zero", "0", "--json", NULL);
  zero = parse_output (&zero_run);
  g_assert_cmpint (member_int (zero, "memory.weights"), ==, 190080);
}

/* report follows the project's workload: the training report is what train
 * prints for the project; the inference one (batch 2 × (8 + 8) tokens,
 * contiguous) holds 2 × 16 × 512 = 16,384 bytes of KV cache, 512 = 2 (K, V)
 * × 2 layers × 4 heads × 16 × 2 bytes per token. */
static void
test_report (void)
{
  g_auto(Run) report = { 0 };
  g_auto(Run) train = { 0 };
  g_auto(Run) infer = { 0 };
  g_auto(Run) csv = { 0 };
  g_auto(Run) csv_file = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autofree char *dir = g_dir_make_tmp ("headroom-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "report.csv", NULL);
  g_autofree char *written = NULL;

  run_cli (&report, "report", CLI_DATA "/tiny-train.headroom.json", "--json", NULL);
  run_cli (&train, "train", "--model", CLI_DATA "/tiny-train.headroom.json", "--json", NULL);
  g_assert_cmpint (report.status, ==, 0);
  g_assert_cmpstr (report.out, ==, train.out);

  run_cli (&infer, "report", CLI_DATA "/tiny-infer.headroom.json", "--json", NULL);
  out = parse_output (&infer);
  g_assert_cmpint (member_int (out, "memory.kv_cache_per_token"), ==, 512);
  g_assert_cmpint (member_int (out, "memory.kv_cache"), ==, 16384);

  /* RFC 4180: CRLF line ends; the first block's header starts with "section". */
  run_cli (&csv, "report", CLI_DATA "/tiny-infer.headroom.json", "--csv", "-", NULL);
  g_assert_cmpint (csv.status, ==, 0);
  g_assert_true (g_str_has_prefix (csv.out, "section,"));
  g_assert_true (g_str_has_suffix (csv.out, "\r\n"));

  run_cli (&csv_file, "report", CLI_DATA "/tiny-infer.headroom.json", "--csv", path, NULL);
  g_assert_cmpint (csv_file.status, ==, 0);
  g_assert_cmpstr (csv_file.out, ==, "");
  g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, csv.out);

  g_unlink (path);
  g_rmdir (dir);
}

/* Splits CSV text without quoted fields into rows of fields. */
static GPtrArray *
split_csv (const char *text)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_auto(GStrv) lines = g_strsplit (text, "\r\n", -1);

  g_assert_true (g_str_has_suffix (text, "\r\n"));
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    g_ptr_array_add (rows, g_strsplit (lines[i], ",", -1));
  return g_steal_pointer (&rows);
}

/* Issue 6: the sweep of tiny-train.headroom (8 GPUs, ZeRO-3, global batch
 * 16) over micro batches 1, 2, 4. At 2, 2 × 8 ranks make the global batch
 * in one micro-step, so no fp32 accumulation buffer is kept; the model
 * states are those of test_project_model: bf16 weights 2 × 95,040 / 8 =
 * 23,760, master 47,520, bf16 gradients 23,760, Adam 8 × 95,040 / 8 =
 * 95,040. At 4, 4 × 8 = 32 sequences overshoot the global batch of 16: an
 * error row naming it. Total, step and throughput are those of train. */
static void
test_report_sweep (void)
{
  g_auto(Run) sweep = { 0 };
  g_auto(Run) train = { 0 };
  g_auto(Run) to_file = { 0 };
  g_auto(Run) gpus = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) gpu_rows = NULL;
  g_autofree char *dir = g_dir_make_tmp ("headroom-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "sweep.csv", NULL);
  g_autofree char *written = NULL;
  char **row;

  run_cli (&sweep, "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "micro-batch",
           "--from", "1", "--to", "4", NULL);
  g_assert_cmpint (sweep.status, ==, 0);
  g_assert_cmpstr (sweep.err, ==, "");
  g_assert_true (g_str_has_prefix (sweep.out,
                                   "micro_batch (sequences),weights (B),master_weights (B),"
                                   "gradients (B),grad_accumulation_buffer (B),optimizer (B),"
                                   "activations (B),temporary (B),allocator (B),overhead (B),total (B),"
                                   "capacity (B),fits,step (s),throughput (tokens/s),error\r\n"));
  rows = split_csv (sweep.out);
  g_assert_cmpuint (rows->len, ==, 4);

  row = g_ptr_array_index (rows, 2);
  g_assert_cmpuint (g_strv_length (row), ==, 16);
  g_assert_cmpstr (row[0], ==, "2");
  g_assert_cmpstr (row[1], ==, "23760");
  g_assert_cmpstr (row[2], ==, "47520");
  g_assert_cmpstr (row[3], ==, "23760");
  g_assert_cmpstr (row[4], ==, "0");
  g_assert_cmpstr (row[5], ==, "95040");
  g_assert_cmpstr (row[11], ==, "25769803776");
  g_assert_cmpstr (row[12], ==, "true");
  g_assert_cmpstr (row[15], ==, "");

  run_cli (&train, "train", "--model", CLI_DATA "/tiny-train.headroom.json", "--micro-batch", "2",
           "--json", NULL);
  out = parse_output (&train);
  g_assert_cmpint (g_ascii_strtoll (row[10], NULL, 10), ==, member_int (out, "memory.total"));
  g_assert_cmpint (g_ascii_strtoll (row[6], NULL, 10), ==, member_int (out, "memory.activations"));
  assert_close (g_ascii_strtod (row[13], NULL), member_double (out, "time.step_seconds"));
  assert_close (g_ascii_strtod (row[14], NULL), member_double (out, "time.tokens_per_second"));

  row = g_ptr_array_index (rows, 3);
  g_assert_cmpstr (row[0], ==, "4");
  g_assert_cmpstr (row[9], ==, "");
  /* The report names the setting by its label, as the window does. */
  g_assert_true (g_str_has_prefix (row[15], "Global batch: "));

  /* --csv FILE takes the same text. */
  run_cli (&to_file, "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "micro-batch",
           "--from", "1", "--to", "4", "--csv", path, NULL);
  g_assert_cmpint (to_file.status, ==, 0);
  g_assert_cmpstr (to_file.out, ==, "");
  g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, sweep.out);

  /* GPUs 2, 4, 8, 16 (doubling up to --to 20): ZeRO-3 weights 2 × 95,040 / n
   * = 95,040, 47,520, 23,760 and 11,880 bytes. */
  run_cli (&gpus, "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "gpus",
           "--from", "2", "--to", "20", NULL);
  g_assert_cmpint (gpus.status, ==, 0);
  gpu_rows = split_csv (gpus.out);
  g_assert_cmpuint (gpu_rows->len, ==, 5);
  g_assert_cmpstr (((char **) g_ptr_array_index (gpu_rows, 0))[0], ==, "gpus");
  for (guint i = 1; i < gpu_rows->len; i++)
    {
      char **r = g_ptr_array_index (gpu_rows, i);
      gint64 n = (gint64) 1 << i;

      g_assert_cmpint (g_ascii_strtoll (r[0], NULL, 10), ==, n);
      g_assert_cmpint (g_ascii_strtoll (r[1], NULL, 10), ==, 2 * 95040 / n);
    }

  g_unlink (path);
  g_rmdir (dir);
}

/* import writes a project whose model is the config (95,040 parameters). */
static void
test_import (void)
{
  g_auto(Run) printed = { 0 };
  g_auto(Run) saved = { 0 };
  g_auto(Run) params = { 0 };
  g_autoptr(JsonObject) project = NULL;
  g_autoptr(JsonObject) out = NULL;
  g_autofree char *dir = g_dir_make_tmp ("headroom-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tiny.headroom.json", NULL);

  run_cli (&printed, "import", CLI_DATA "/tiny-llama.json", NULL);
  project = parse_output (&printed);
  g_assert_cmpstr (json_node_get_string (member (project, "format")), ==, "headroom-project");
  g_assert_cmpint (member_int (project, "model.config.hidden_size"), ==, 64);

  run_cli (&saved, "import", CLI_DATA "/tiny-llama.json", "-o", path, NULL);
  g_assert_cmpint (saved.status, ==, 0);
  g_assert_cmpstr (saved.out, ==, "");

  run_cli (&params, "params", "--model", path, "--json", NULL);
  out = parse_output (&params);
  g_assert_cmpint (member_int (out, "total"), ==, 95040);

  g_unlink (path);
  g_rmdir (dir);
}

/* A decimal-comma locale changes neither the JSON nor the tables. */
static void
test_locale (void)
{
  const char *commands[][12] = {
    { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8", "--zero", "3", "--mfu", "0.35", "--json" },
    { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8", "--zero", "3", "--mfu", "0.35" },
    { "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--price", "2.5", "--json" },
    { "report", CLI_DATA "/tiny-infer.headroom.json", "--csv", "-" },
  };

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("de_DE.UTF-8 is not installed");
      return;
    }
  setlocale (LC_NUMERIC, "C");

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_auto(Run) c = { 0 };
      g_auto(Run) de = { 0 };
      const char * const *a = commands[i];

      run_locale = "C.UTF-8";
      run_cli (&c, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], NULL);
      run_locale = "de_DE.UTF-8";
      run_cli (&de, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], NULL);
      run_locale = "C.UTF-8";
      g_assert_cmpint (c.status, ==, 0);
      g_assert_cmpint (de.status, ==, 0);
      g_assert_cmpstr (de.out, ==, c.out);
    }
}

/* A stand-in for the Hub on 127.0.0.1, served from its own thread while the
 * test blocks on the CLI: org/tiny is public, org/gated wants the token
 * "secret", anything else is 404. */
typedef struct
{
  GMainContext *context;
  GMainLoop    *loop;
  SoupServer   *server;
  GThread      *thread;
  char         *endpoint;
} FakeHub;

static void
fake_hub_cb (SoupServer        *server,
             SoupServerMessage *message,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (message);
  const char *authorization = soup_message_headers_get_one (headers, "Authorization");
  g_autofree char *config = NULL;
  gsize length;

  if (g_str_equal (path, "/org/gated/resolve/main/config.json")
      && g_strcmp0 (authorization, "Bearer secret") != 0)
    {
      soup_server_message_set_status (message, SOUP_STATUS_UNAUTHORIZED, NULL);
      return;
    }
  if (!g_str_equal (path, "/org/tiny/resolve/main/config.json")
      && !g_str_equal (path, "/org/gated/resolve/main/config.json")
      && !g_str_equal (path, "/org/mystery/resolve/main/config.json"))
    {
      soup_server_message_set_status (message, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }

  g_assert_true (g_file_get_contents (g_str_equal (path, "/org/mystery/resolve/main/config.json")
                                      ? CLI_DATA "/unknown-type.json" : CLI_DATA "/tiny-llama.json",
                                      &config, &length, NULL));
  soup_server_message_set_status (message, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (message, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&config), length);
}

static gpointer
fake_hub_thread (gpointer data)
{
  FakeHub *hub = data;

  g_main_context_push_thread_default (hub->context);
  g_main_loop_run (hub->loop);
  g_main_context_pop_thread_default (hub->context);
  return NULL;
}

static void
fake_hub_start (FakeHub *hub)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GInetAddress) address = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) socket_address = g_inet_socket_address_new (address, 0);
  GSList *uris;

  hub->context = g_main_context_new ();
  hub->loop = g_main_loop_new (hub->context, FALSE);
  g_main_context_push_thread_default (hub->context);
  hub->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (hub->server, NULL, fake_hub_cb, NULL, NULL);
  soup_server_listen (hub->server, socket_address, 0, &error);
  g_main_context_pop_thread_default (hub->context);
  g_assert_no_error (error);

  uris = soup_server_get_uris (hub->server);
  hub->endpoint = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  hub->thread = g_thread_new ("fake-hub", fake_hub_thread, hub);
}

static void
fake_hub_stop (FakeHub *hub)
{
  g_main_loop_quit (hub->loop);
  g_thread_join (hub->thread);
  g_clear_object (&hub->server);
  g_main_loop_unref (hub->loop);
  g_main_context_unref (hub->context);
  g_free (hub->endpoint);
}

static void
test_import_hub (void)
{
  FakeHub hub = { 0 };
  g_auto(Run) tiny = { 0 };
  g_auto(Run) gated = { 0 };
  g_auto(Run) token = { 0 };
  g_auto(Run) missing = { 0 };
  g_auto(Run) offline = { 0 };
  g_autoptr(JsonObject) project = NULL;
  g_autoptr(JsonObject) with_token = NULL;
  g_autofree char *endpoint = NULL;

  fake_hub_start (&hub);
  run_hf_endpoint = hub.endpoint;

  run_cli (&tiny, "import", "hf:org/tiny", NULL);
  project = parse_output (&tiny);
  g_assert_cmpint (member_int (project, "model.config.hidden_size"), ==, 64);

  /* Gated without a token: bad input whose line says how to pass one. */
  run_cli (&gated, "import", "hf:org/gated", NULL);
  assert_bad_input (&gated, "HF_TOKEN");

  run_hf_token = "secret";
  run_cli (&token, "import", "hf:org/gated", NULL);
  with_token = parse_output (&token);
  g_assert_cmpint (member_int (with_token, "model.config.num_hidden_layers"), ==, 2);
  run_hf_token = NULL;

  run_cli (&missing, "import", "hf:org/missing", NULL);
  assert_bad_input (&missing, "org/missing");

  /* An unknown model_type: refused, unless read as assumed. */
  {
    g_auto(Run) refused = { 0 };
    g_auto(Run) assumed = { 0 };
    g_autoptr(JsonObject) assumed_project = NULL;

    run_cli (&refused, "import", "hf:org/mystery", NULL);
    assert_bad_input (&refused, "--assume-architecture llama");
    run_cli (&assumed, "import", "hf:org/mystery", "--assume-architecture", "llama", NULL);
    assumed_project = parse_output (&assumed);
    g_assert_cmpstr (json_node_get_string (member (assumed_project, "model.config.assume_architecture")),
                     ==, "llama");
  }

  endpoint = g_strdup (hub.endpoint);
  run_hf_endpoint = endpoint;
  fake_hub_stop (&hub);

  /* Nothing listens any more: a failure outside the input, status 1. */
  run_cli (&offline, "import", "hf:org/tiny", NULL);
  run_hf_endpoint = NULL;
  g_assert_cmpint (offline.status, ==, 1);
  g_assert_cmpstr (offline.out, ==, "");
  g_assert_true (g_str_has_prefix (offline.err, "headroom-cli: "));
  g_assert_true (strchr (offline.err, '\n')[1] == '\0');
}

/* Issue 15: no figure prints as inf, nan or -0, whatever the input (the
 * smallest MFU the key table takes, 0.001, on the largest budget; a price
 * of -0). */
static void
test_no_inf_nan_negative_zero (void)
{
  static const char * const extra[][3] = {
    { "--mfu", "0.001", "--json" },
    { "--mfu", "0.001", NULL },
    { "--price", "-0", "--json" },
    { "--price", "-0", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (extra); i++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
               "--tokens", "1e12", extra[i][0], extra[i][1], extra[i][2], NULL);
      g_test_message ("%s %s %s", extra[i][0], extra[i][1], extra[i][2]);
      g_assert_cmpint (run.status, ==, 0);
      if (g_regex_match_simple ("\\b(inf|nan|infinity)\\b|(^|[^0-9.])-0([^0-9.]|$)|-0\\.0*([^0-9]|$)",
                                run.out, G_REGEX_CASELESS | G_REGEX_MULTILINE, 0))
        g_error ("inf, nan or -0 printed:\n%s", run.out);
    }
}

static void
test_bad_input (void)
{
  static const struct { const char *args[10]; const char *needle; } cases[] = {
    /* files */
    { { "params", "--model", CLI_DATA "/no-such-config.json" }, "no such file" },
    { { "params", "--model", CLI_DATA "/bad-truncated.json" }, "not valid JSON" },
    { { "params", "--model", CLI_DATA "/bad-root.json" }, "not an object" },
    /* model fields */
    { { "params", "--model", CLI_DATA "/bad-heads.json" }, "num_attention_heads" },
    { { "params", "--model", CLI_DATA "/bad-zero.json" }, "hidden_size" },
    { { "params", "--model", CLI_DATA "/bad-negative.json" }, "num_hidden_layers" },
    { { "params", "--model", CLI_DATA "/bad-type.json" }, "hidden_size" },
    { { "params", "--model", CLI_DATA "/bad-overflow.json" }, "Hidden size (hidden_size): 4294967296 is out of range; at most 10000000" },
    { { "params", "--model", CLI_DATA "/bad-huge.json" }, "vocab_size: 99999999999999999999 does not fit 64 bits" },
    { { "flops", "--model", CLI_DATA "/bad-heads.json" }, "num_attention_heads" },
    /* names */
    { { "params", "--model", "no-such-preset" }, "no-such-preset" },
    { { "params" }, "--model" },
    { { "frobnicate" }, "unknown command" },
    { { "params", "--model", "llama-2-7b", "--frobnicate" }, "--frobnicate" },
    { { "params", "--model", "llama-2-7b", "extra" }, "extra" },
    /* option values */
    { { "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "8x" }, "--seq" },
    { { "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "0" }, "--seq" },
    { { "flops", "--model", CLI_DATA "/tiny-llama.json", "--micro-batch", "-1" }, "--micro-batch" },
    { { "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "99999999999999999999" }, "64 bits" },
    { { "flops", "--model", CLI_DATA "/tiny-llama.json", "--attention", "fast" }, "--attention" },
    { { "flops", "--model", CLI_DATA "/tiny-llama.json", "--recompute", "some" }, "--recompute" },
    /* train */
    /* Issue 13: the setting's label, as the window says it, and the option. */
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8", "--tp", "3" },
      "headroom-cli: Tensor parallel (--tp): 3 does not divide 8 GPUs\n" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "no-such-gpu" }, "no-such-gpu" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--zero", "4" }, "--zero" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--mfu", "-0.1" }, "--mfu" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--mfu", "1.5" }, "--mfu" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8x" }, "--gpus" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8", "--nodes", "2" }, "--gpus" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "6", "--gpus-per-node", "4" }, "--gpus" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--precision", "fp64" }, "--precision" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--optimizer", "adam" }, "--optimizer" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--tokens", "-5" }, "--tokens" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--price", "nan" }, "--price" },
    { { "train", "--model", CLI_DATA "/bad-heads.json", "--gpu", "test-gpu" }, "num_attention_heads" },
    /* infer */
    { { "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--batch", "0" }, "--batch" },
    { { "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--weights", "int3" }, "--weights" },
    { { "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--kv-cache", "fp4" }, "--kv-cache" },
    { { "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--generate", "-1" }, "--generate" },
    { { "infer", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "4", "--tp", "3" }, "--gpus" },
    /* projects */
    { { "report", CLI_DATA "/bad-version.headroom.json" }, "version" },
    { { "report", CLI_DATA "/bad-layout.headroom.json" }, "Tensor parallel (training.tensor_parallel): " },
    { { "report", CLI_DATA "/bad-truncated.headroom.json" }, "not valid JSON" },
    /* Issue 15: a mistyped tag is named, not a missing hidden_size; a second object is refused. */
    { { "report", CLI_DATA "/bad-format.headroom.json" }, "Not a Headroom project (expected the format “headroom-project”)" },
    { { "train", "--model", CLI_DATA "/bad-format.headroom.json", "--gpu", "test-gpu" }, "Not a Headroom project" },
    { { "params", "--model", CLI_DATA "/bad-trailing.json" }, "line 2: unexpected content after the end of the JSON object" },
    { { "report", CLI_DATA "/no-such.headroom.json" }, "no such file" },
    { { "report", CLI_DATA "/tiny-llama.json" }, "not a Headroom project" },
    { { "report" }, "missing" },
    { { "train", "--model", CLI_DATA "/bad-layout.headroom.json" }, "Tensor parallel (training.tensor_parallel): " },
    { { "import", CLI_DATA "/no-such-config.json" }, "no-such-config.json" },
    { { "import", CLI_DATA "/bad-heads.json" }, "Attention heads (num_attention_heads): 3 does not divide" },
    { { "import", CLI_DATA "/bad-root.json" }, "not an object" },
    /* plan */
    { { "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu" }, "--gpus" },
    { { "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8", "--top", "0" }, "--top" },
    { { "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8", "--json", "--csv" }, "--csv" },
    /* measured throughput */
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--measured-step-seconds", "0" },
      "--measured-step-seconds" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--measured-step-seconds", "-3" },
      "--measured-step-seconds" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--measured-tokens-per-second", "8x" },
      "--measured-tokens-per-second" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--measured-tokens-per-second", "inf" },
      "--measured-tokens-per-second" },
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--measured-tokens-per-second", "100",
        "--measured-step-seconds", "2" }, "--measured-step-seconds" },
    /* sweeps */
    { { "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "batch" }, "--sweep" },
    { { "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "seq", "--from", "0" }, "--from" },
    { { "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "seq", "--to", "9x" }, "--to" },
    { { "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "seq", "--from", "8", "--to", "4" },
      "--to" },
    { { "report", CLI_DATA "/tiny-train.headroom.json", "--from", "2" }, "--from" },
    { { "report", CLI_DATA "/tiny-train.headroom.json", "--sweep", "gpus", "--json" }, "--sweep" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      const char * const *a = cases[i].args;

      g_test_message ("case %u: %s %s %s", i, a[0], a[1] ? a[1] : "", a[2] ? a[2] : "");
      run_cli (&run, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], NULL);
      assert_bad_input (&run, cases[i].needle);
    }
}

/* Issue 13, done when: the CLI and a project give one answer. train with
 * only a model, a GPU and a GPU count takes every other setting at the key
 * table's defaults, as a project saved with just those keys does; report of
 * that project prints the same figures, byte for byte (JSON and table, but
 * for the name in the table's first line). */
static void
test_train_equals_project (void)
{
  g_auto(Run) train_json = { 0 };
  g_auto(Run) report_json = { 0 };
  g_auto(Run) train_table = { 0 };
  g_auto(Run) report_table = { 0 };
  g_autoptr(JsonObject) out = NULL;
  const char *project = CLI_DATA "/launch-defaults.headroom.json";

  run_cli (&train_json, "train", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8",
           "--json", NULL);
  run_cli (&report_json, "report", project, "--json", NULL);
  out = parse_output (&train_json);
  g_assert_cmpstr (train_json.out, ==, report_json.out);
  g_assert_cmpstr (report_json.err, ==, "");

  /* The table's defaults: sequences of 8192, ZeRO-1 (master weights and
   * Adam states over 8 ranks), global batch 512. */
  g_assert_cmpint (member_int (out, "flops.tokens"), ==, 8192);
  g_assert_cmpint (member_int (out, "memory.master_weights"), ==, 4 * 8030261248 / 8);
  g_assert_cmpint (member_int (out, "memory.optimizer"), ==, 8 * 8030261248 / 8);

  run_cli (&train_table, "train", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", NULL);
  run_cli (&report_table, "report", project, NULL);
  g_assert_cmpint (train_table.status, ==, 0);
  g_assert_cmpint (report_table.status, ==, 0);
  g_assert_cmpstr (strchr (train_table.out, '\n'), ==, strchr (report_table.out, '\n'));
}

static JsonObject *
compare_column (JsonObject *out,
                guint       column)
{
  JsonArray *scenarios = json_node_get_array (member (out, "scenarios"));

  return json_array_get_object_element (scenarios, column);
}

/* A scenario's column holds the figures train gives for the same settings. */
static void
test_compare (void)
{
  g_auto(Run) compare = { 0 };
  g_auto(Run) train = { 0 };
  g_auto(Run) files = { 0 };
  g_auto(Run) bad = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) trained = NULL;
  const char *project = CLI_DATA "/compare-training.headroom.json";
  JsonObject *column;

  run_cli (&compare, "compare", project, "--json", NULL);
  out = parse_output (&compare);
  g_assert_cmpint (member_int (out, "baseline"), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (member (out, "scenarios"))), ==, 3);

  /* The second scenario as train options. */
  run_cli (&train, "train", "--model", "llama-3.1-8b", "--gpu", "a100-80gb-sxm", "--nodes", "2",
           "--tp", "2", "--sequence-parallel", "--recompute", "selective", "--tokens", "1e12",
           "--zero", "3", "--price", "1.8", "--json", NULL);
  trained = parse_output (&train);
  column = compare_column (out, 1);
  g_assert_cmpstr (json_node_get_string (member (column, "name")), ==, "16 × A100, ZeRO-3");
  g_assert_cmpint (member_int (column, "figures.memory_per_gpu"), ==,
                   member_int (trained, "memory.total"));
  g_assert_cmpfloat (member_double (column, "figures.step_seconds"), ==,
                     member_double (trained, "time.step_seconds"));
  g_assert_cmpfloat (member_double (column, "figures.tokens_per_second"), ==,
                     member_double (trained, "time.tokens_per_second"));
  g_assert_cmpfloat (member_double (column, "figures.mfu"), ==, member_double (trained, "time.mfu"));
  g_assert_cmpfloat (member_double (column, "figures.training_seconds"), ==,
                     member_double (trained, "time.total_seconds"));
  g_assert_cmpfloat (member_double (column, "figures.gpu_hours"), ==,
                     member_double (trained, "time.gpu_hours"));
  g_assert_cmpfloat (member_double (column, "figures.cost"), ==, member_double (trained, "time.cost"));
  g_assert_cmpfloat (member_double (column, "figures.energy"), ==,
                     member_double (trained, "time.energy_kwh"));
  /* ZeRO-3 over twice the GPUs: less memory per GPU than the baseline. */
  g_assert_cmpstr (json_node_get_string (member (column, "verdicts.memory_per_gpu")), ==, "better");
  g_assert_cmpfloat (member_double (column, "ratios.gpus"), ==, 2.0);

  /* Files with shared options: every column gets --nodes 2, 16 GPUs. */
  run_cli (&files, "compare", CLI_DATA "/llama-2-7b-config.json", CLI_DATA "/gemma-3-1b.json",
           "--nodes", "2", "--json", NULL);
  g_clear_pointer (&out, json_object_unref);
  out = parse_output (&files);
  g_assert_cmpint (member_int (compare_column (out, 0), "figures.gpus"), ==, 16);
  g_assert_cmpint (member_int (compare_column (out, 1), "figures.gpus"), ==, 16);
  g_assert_cmpstr (json_node_get_string (member (compare_column (out, 1), "name")), ==,
                   "gemma-3-1b.json");

  run_cli (&bad, "compare", CLI_DATA "/llama-2-7b-config.json", CLI_DATA "/gemma-3-1b.json",
           "--tp", "3", NULL);
  assert_bad_input (&bad, "llama-2-7b-config.json: Tensor parallel (--tp): 3 does not divide 8 GPUs");
  run_clear (&bad);
  run_cli (&bad, "compare", CLI_DATA "/launch-defaults.headroom.json", NULL);
  assert_bad_input (&bad, "no scenarios to compare");
  run_clear (&bad);
  run_cli (&bad, "compare", project, "--baseline", "4", NULL);
  assert_bad_input (&bad, "--baseline: 4 is past the last column (3)");
  run_clear (&bad);
  run_cli (&bad, "compare", project, "--json", "--csv", "-", NULL);
  assert_bad_input (&bad, "--csv");
}

/* Golden outputs (issue 13): tests/data/cli/golden/NAME.args holds one argument
 * per line ("@DATA@" stands for tests/data/cli), NAME.out the exact stdout of
 * today's headroom-cli for them. They guard the CLI's figures and layout while
 * its insides move; they are not derivations (the tests above are). Regenerate
 * deliberately with HEADROOM_UPDATE_GOLDEN=1 and say in the commit why a
 * figure changed. */
static void
test_golden (void)
{
  const char *dir_path = CLI_DATA "/golden";
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gboolean update = g_getenv ("HEADROOM_UPDATE_GOLDEN") != NULL;
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".args"))
      g_ptr_array_add (names, g_strndup (name, strlen (name) - strlen (".args")));
  g_ptr_array_sort (names, (GCompareFunc) g_ascii_strcasecmp);
  g_assert_cmpuint (names->len, >=, 12);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *args_path = g_strdup_printf ("%s/%s.args", dir_path, (char *) names->pdata[i]);
      g_autofree char *out_path = g_strdup_printf ("%s/%s.out", dir_path, (char *) names->pdata[i]);
      g_autofree char *args_text = NULL;
      g_autofree char *expected = NULL;
      g_autofree char *actual = NULL;
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) lines = NULL;
      g_auto(GStrv) parts = NULL;
      g_auto(Run) run = { 0 };
      const char *a[48] = { NULL };
      g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
      guint n = 0;

      g_file_get_contents (args_path, &args_text, NULL, &error);
      g_assert_no_error (error);
      lines = g_strsplit (g_strchomp (args_text), "\n", -1);
      for (guint j = 0; lines[j] != NULL; j++)
        {
          g_auto(GStrv) split = g_strsplit (lines[j], "@DATA@", -1);
          char *arg = g_strjoinv (CLI_DATA, split);

          g_assert_cmpuint (n, <, G_N_ELEMENTS (a) - 1);
          g_ptr_array_add (owned, arg);
          a[n++] = arg;
        }
      g_test_message ("golden %s", (char *) names->pdata[i]);
      run_cli_argv (&run, a);
      if (run.status != 0)
        g_error ("golden %s: status %d, stderr “%s”", (char *) names->pdata[i], run.status, run.err);
      parts = g_strsplit (run.out, CLI_DATA, -1);
      actual = g_strjoinv ("@DATA@", parts);
      /* The planner's own search time is not an estimate. */
      {
        g_autoptr(GRegex) json_time = g_regex_new ("\"seconds\" : [0-9.e+-]+", 0, 0, NULL);
        g_autoptr(GRegex) table_time = g_regex_new (", in [0-9.]+ [mµ]?s$", G_REGEX_MULTILINE, 0, NULL);
        char *masked = g_regex_replace_literal (json_time, actual, -1, 0, "\"seconds\" : TIME", 0, NULL);

        g_free (actual);
        actual = g_regex_replace_literal (table_time, masked, -1, 0, ", in TIME", 0, NULL);
        g_free (masked);
      }
      if (update)
        {
          g_file_set_contents (out_path, actual, -1, &error);
          g_assert_no_error (error);
          continue;
        }
      g_file_get_contents (out_path, &expected, NULL, &error);
      g_assert_no_error (error);
      if (strcmp (expected, actual) != 0)
        g_error ("golden %s: stdout differs from %s; it was:\n%s",
                 (char *) names->pdata[i], out_path, actual);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/train/measured-small", test_train_measured_small);
  g_test_add_func ("/cli/train/framework", test_train_framework);
  g_test_add_func ("/cli/help", test_help);
  g_test_add_func ("/cli/params/config", test_params_config);
  g_test_add_func ("/cli/assume-architecture", test_assume_architecture_option);
  g_test_add_func ("/cli/params/preset", test_params_preset);
  g_test_add_func ("/cli/params/table", test_params_table);
  g_test_add_func ("/cli/params/warning", test_params_warning);
  g_test_add_func ("/cli/flops/tiny", test_flops_tiny);
  g_test_add_func ("/cli/flops/options", test_flops_options);
  g_test_add_func ("/cli/flops/table", test_flops_table);
  g_test_add_func ("/cli/models", test_models);
  g_test_add_func ("/cli/gpus", test_gpus);
  g_test_add_func ("/cli/train", test_train);
  g_test_add_func ("/cli/train/options", test_train_options);
  g_test_add_func ("/cli/train/finetune", test_train_finetune);
  g_test_add_func ("/cli/train/paged-optimizer", test_train_paged_optimizer);
  g_test_add_func ("/cli/train/table", test_train_table);
  g_test_add_func ("/cli/train/table-stage", test_train_table_stage);
  g_test_add_func ("/cli/train/table-adds-up", test_train_table_adds_up);
  g_test_add_func ("/cli/train/table-paged-overflow", test_train_table_paged_overflow);
  g_test_add_func ("/cli/train/no-inf-nan-negative-zero", test_no_inf_nan_negative_zero);
  g_test_add_func ("/cli/train/measured", test_train_measured);
  g_test_add_func ("/cli/train/unknown-power", test_train_unknown_power);
  g_test_add_func ("/cli/infer", test_infer);
  g_test_add_func ("/cli/infer/kv-cache", test_infer_kv_cache);
  g_test_add_func ("/cli/infer/engines", test_infer_engines);
  g_test_add_func ("/cli/plan", test_plan);
  g_test_add_func ("/cli/plan/train-agree", test_plan_train_agree);
  g_test_add_func ("/cli/plan/async-tp", test_async_tp);
  g_test_add_func ("/cli/plan/pareto", test_plan_pareto);
  g_test_add_func ("/cli/project-model", test_project_model);
  g_test_add_func ("/cli/report", test_report);
  g_test_add_func ("/cli/report/sweep", test_report_sweep);
  g_test_add_func ("/cli/import", test_import);
  g_test_add_func ("/cli/import/hub", test_import_hub);
  g_test_add_func ("/cli/locale", test_locale);
  g_test_add_func ("/cli/bad-input", test_bad_input);
  g_test_add_func ("/cli/compare", test_compare);
  g_test_add_func ("/cli/golden", test_golden);
  g_test_add_func ("/cli/train-equals-project", test_train_equals_project);

  return g_test_run ();
}
