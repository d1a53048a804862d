/* test-cli.c: headroom-cli as a user runs it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spawns the built binary with $XDG_DATA_HOME pointing at tests/data/cli/user
 * (one user GPU, "test-gpu") and checks its JSON against hand-derived figures,
 * its exit status and its single error line on bad input.
 */
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

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

/* Runs headroom-cli with the NULL-terminated arguments. */
static void
run_cli (Run        *run,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = g_get_environ ();
  int wait_status = 0;
  va_list ap;

  g_ptr_array_add (args, (char *) HEADROOM_CLI);
  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);

  env = g_environ_setenv (env, "XDG_DATA_HOME", CLI_DATA "/user", TRUE);
  env = g_environ_setenv (env, "LC_ALL", "C.UTF-8", TRUE);

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
  static const char * const commands[] = { "params", "flops", "gpus", NULL };
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
      g_assert_nonnull (strstr (command.out, "--json"));
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
static void
test_flops_tiny (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "8",
           "--micro-batch", "1", "--json", NULL);
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

      run_cli (&run, "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "8", "--json",
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

  run_cli (&run, "flops", "--model", CLI_DATA "/tiny-llama.json", "--seq", "8", NULL);
  g_assert_cmpint (run.status, ==, 0);
  /* forward 1,445,888 FLOP = 1.446 MFLOP; total 4.338 MFLOP */
  g_assert_nonnull (strstr (run.out, "1.446 MFLOP"));
  g_assert_nonnull (strstr (run.out, "4.338 MFLOP"));
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
}

static void
test_bad_input (void)
{
  static const struct { const char *args[8]; const char *needle; } cases[] = {
    /* files */
    { { "params", "--model", CLI_DATA "/no-such-config.json" }, "no such file" },
    { { "params", "--model", CLI_DATA "/bad-truncated.json" }, "not valid JSON" },
    { { "params", "--model", CLI_DATA "/bad-root.json" }, "not an object" },
    /* model fields */
    { { "params", "--model", CLI_DATA "/bad-heads.json" }, "num_attention_heads" },
    { { "params", "--model", CLI_DATA "/bad-zero.json" }, "hidden_size" },
    { { "params", "--model", CLI_DATA "/bad-negative.json" }, "num_hidden_layers" },
    { { "params", "--model", CLI_DATA "/bad-type.json" }, "hidden_size" },
    { { "params", "--model", CLI_DATA "/bad-overflow.json" }, "64 bits" },
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
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      const char * const *a = cases[i].args;

      g_test_message ("case %u: %s %s %s", i, a[0], a[1] ? a[1] : "", a[2] ? a[2] : "");
      run_cli (&run, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
      assert_bad_input (&run, cases[i].needle);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/help", test_help);
  g_test_add_func ("/cli/params/config", test_params_config);
  g_test_add_func ("/cli/params/preset", test_params_preset);
  g_test_add_func ("/cli/params/table", test_params_table);
  g_test_add_func ("/cli/flops/tiny", test_flops_tiny);
  g_test_add_func ("/cli/flops/options", test_flops_options);
  g_test_add_func ("/cli/flops/table", test_flops_table);
  g_test_add_func ("/cli/gpus", test_gpus);
  g_test_add_func ("/cli/bad-input", test_bad_input);

  return g_test_run ();
}
