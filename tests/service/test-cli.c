/* test-cli.c: headroom-cli as a user runs it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spawns the built binary as test-cli.h says and checks its JSON against
 * hand-derived figures, its exit status and its single error line on bad
 * input: the model commands (params, flops, models, gpus), locales, bad
 * input and the golden outputs of tests/data/cli/golden. The other commands
 * are test-cli-train.c, test-cli-plan.c, test-cli-infer.c and
 * test-cli-project.c.
 */
#include <locale.h>

#include "test-cli.h"

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

/* MODEL may be the one argument instead of --model: the same counts. */
static void
test_params_positional (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "params", "llama-2-7b", "--json", NULL);
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

/* A vision-language config (tiny-llava.json: LLaVA around tiny-llama.json's
 * language model, so its 95,040 parameters) is read for its language model,
 * and every output that shows a figure says the vision tower is not
 * counted: one stderr line, "text_only": true in the JSON, a line under the
 * table, a row of the report's CSV, a column of a sweep's and a row of a
 * comparison's. Gemma 3n is refused, naming what Headroom cannot model. */
static void
test_text_only (void)
{
  g_autofree char *dir = g_dir_make_tmp ("headroom-cli-XXXXXX", NULL);
  g_autofree char *project = g_build_filename (dir, "llava.headroom", NULL);
  g_auto(Run) json = { 0 };
  g_auto(Run) table = { 0 };
  g_auto(Run) imported = { 0 };
  g_auto(Run) csv = { 0 };
  g_auto(Run) sweep = { 0 };
  g_auto(Run) compared = { 0 };
  g_auto(Run) gemma3n = { 0 };
  g_auto(Run) mllama = { 0 };
  g_auto(Run) granite_h = { 0 };
  g_auto(Run) nemotron_nas = { 0 };
  g_autofree char *gemma3n_path = g_build_filename (dir, "gemma-3n.json", NULL);
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) columns = NULL;
  g_auto(GStrv) lines = NULL;
  JsonArray *scenarios;

  run_cli (&json, "params", "--model", CLI_DATA "/tiny-llava.json", "--json", NULL);
  g_assert_cmpint (json.status, ==, 0);
  g_assert_true (g_str_has_prefix (json.err, "headroom-cli: warning: "));
  g_assert_nonnull (strstr (json.err, "vision tower"));
  g_assert_true (strchr (json.err, '\n')[1] == '\0');
  g_clear_pointer (&json.err, g_free);
  json.err = g_strdup ("");
  out = parse_output (&json);
  g_assert_cmpint (json_object_get_int_member (out, "total"), ==, 95040);
  g_assert_true (json_object_get_boolean_member (out, "text_only"));

  run_cli (&table, "train", "--model", CLI_DATA "/tiny-llava.json", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "\nLanguage model only: the vision tower and its projector "
                                       "are not counted\n"));

  run_cli (&imported, "import", CLI_DATA "/tiny-llava.json", "-o", project, NULL);
  g_assert_cmpint (imported.status, ==, 0);
  run_cli (&csv, "report", project, "--csv", "-", NULL);
  g_assert_cmpint (csv.status, ==, 0);
  g_assert_nonnull (strstr (csv.out, "\r\nmodel,text_only,Language model only: the vision tower "
                                     "and its projector are not counted,true,"));
  run_cli (&sweep, "report", project, "--sweep", "micro-batch", "--from", "1", "--to", "2", NULL);
  g_assert_cmpint (sweep.status, ==, 0);
  lines = g_strsplit (sweep.out, "\r\n", -1);
  g_assert_true (g_str_has_suffix (lines[0], ",error,text_only"));
  g_assert_true (g_str_has_suffix (lines[1], ",true"));

  run_cli (&compared, "compare", CLI_DATA "/tiny-llava.json", CLI_DATA "/tiny-llama.json",
           "--json", NULL);
  g_assert_cmpint (compared.status, ==, 0);
  g_clear_pointer (&compared.err, g_free);
  compared.err = g_strdup ("");
  columns = parse_output (&compared);
  scenarios = json_object_get_array_member (columns, "scenarios");
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (scenarios, 0),
                                                 "text_only"));
  g_assert_false (json_object_has_member (json_array_get_object_element (scenarios, 1),
                                          "text_only"));

  /* Gemma 3n is refused by name: what it holds, no generic decoder offered. */
  g_assert_true (g_file_set_contents (gemma3n_path, "{\"model_type\": \"gemma3n\", \"text_config\":"
                                      " {\"hidden_size\": 2048}}", -1, NULL));
  run_cli (&gemma3n, "params", "--model", gemma3n_path, NULL);
  g_assert_cmpint (gemma3n.status, ==, 2);
  g_assert_nonnull (strstr (gemma3n.err, "AltUp and Laurel"));
  g_assert_null (strstr (gemma3n.err, "--assume-architecture"));
  /* So is every name the core refuses, with its own reason (mllama's). */
  g_assert_true (g_file_set_contents (gemma3n_path, "{\"model_type\": \"mllama\", \"text_config\": {}}",
                                      -1, NULL));
  run_cli (&mllama, "params", "--model", gemma3n_path, NULL);
  g_assert_cmpint (mllama.status, ==, 2);
  g_assert_nonnull (strstr (mllama.err, "cross-attention layers"));
  g_assert_null (strstr (mllama.err, "--assume-architecture"));
  /* A family read only in some shapes names the field that rules the rest
   * out: Granite 4.0's Mamba layers; Nemotron-NAS by name, its per-layer
   * shapes. */
  g_assert_true (g_file_set_contents (gemma3n_path, "{\"model_type\": \"granitemoehybrid\","
                                      " \"layer_types\": [\"mamba\", \"attention\"],"
                                      " \"num_hidden_layers\": 2}", -1, NULL));
  run_cli (&granite_h, "params", "--model", gemma3n_path, NULL);
  g_assert_cmpint (granite_h.status, ==, 2);
  g_assert_nonnull (strstr (granite_h.err, "layer_types"));
  g_assert_nonnull (strstr (granite_h.err, "Mamba"));
  g_assert_true (g_file_set_contents (gemma3n_path, "{\"model_type\": \"nemotron-nas\"}", -1, NULL));
  run_cli (&nemotron_nas, "params", "--model", gemma3n_path, NULL);
  g_assert_cmpint (nemotron_nas.status, ==, 2);
  g_assert_nonnull (strstr (nemotron_nas.err, "block_configs"));
  g_assert_null (strstr (nemotron_nas.err, "--assume-architecture"));
  g_unlink (gemma3n_path);
  g_unlink (project);
  g_rmdir (dir);
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

      /* The A100's 108 SMs and its 200 Gb/s card (resources/gpus.json). */
      if (g_strcmp0 (json_object_get_string_member (gpu, "id"), "a100-80gb-sxm") == 0)
        {
          g_assert_cmpint (member_int (gpu, "sm_count"), ==, 108);
          g_assert_cmpfloat (member_double (gpu, "inter_node_bandwidth"), ==, 25e9);
        }
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
  /* The GPUs added in 2026-11 (resources/gpus.json) each start a row: "\nl40 "
   * is not "l40s", nor "h20 " "h200". */
  for (const char *const *id = (const char *const[]) { "l40", "a40", "rtx-a6000", "h800-sxm",
                                                       "h20", "a800-80gb-sxm", "mi355x",
                                                       "h200-nvl", "b300", "gb200",
                                                       "rtx-6000-ada", "rtx-pro-6000-bse",
                                                       "tpu-v6e", NULL };
       *id != NULL; id++)
    {
      g_autofree char *row = g_strdup_printf ("\n%s ", *id);

      g_assert_nonnull (strstr (table.out, row));
    }
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
    /* A number past a double's range, named by its setting's label. */
    { { "params", "--model", CLI_DATA "/bad-infinite.json" }, "Hidden size (hidden_size): not a finite number\n" },
    { { "report", CLI_DATA "/bad-infinite.headroom.json" },
      "Loop keeps the last loss (training.loop_keeps_loss): not a finite number\n" },
    { { "flops", "--model", CLI_DATA "/bad-heads.json" }, "num_attention_heads" },
    /* names */
    { { "params", "--model", "no-such-preset" }, "no-such-preset" },
    { { "params" }, "--model" },
    { { "frobnicate" }, "unknown command" },
    { { "params", "--model", "llama-2-7b", "--frobnicate" }, "--frobnicate" },
    { { "params", "--model", "llama-2-7b", "extra" },
      "headroom-cli: MODEL given twice: “llama-2-7b” (--model) and “extra”\n" },
    { { "train", "llama-2-7b", "extra" }, "headroom-cli: unexpected argument “extra”\n" },
    /* An option the other settings leave out would change nothing: refused,
     * naming what it needs (the window hides its row). */
    { { "train", "llama-2-7b", "--lora-rank", "16" },
      "headroom-cli: LoRA rank (--lora-rank): applies only when Fine-tuning method (--method) is "
      "LoRA, QLoRA or DoRA\n" },
    { { "plan", "llama-2-7b", "--gpus", "8", "--loss-chunks", "4" },
      "headroom-cli: Loss chunks (--loss-chunks): applies only when Loss (--loss) is Chunked or "
      "Chunked with the head\n" },
    { { "infer", "llama-2-7b", "--host-bandwidth", "32" },
      "headroom-cli: Host link bandwidth per GPU (--host-bandwidth): applies only to training "
      "(train, plan)\n" },
    /* --gpus alone is the TP degree; one that the heads refuse says so. */
    { { "infer", "llama-2-7b", "--gpus", "3" },
      "headroom-cli: Tensor parallel (--tp): 3 does not divide 32 num_attention_heads (tensor "
      "parallel over --gpus 3; give --tp and --pp whose product is 3)\n" },
    { { "infer", "llama-2-7b", "--max-model-len", "1000" },
      "headroom-cli: Longest request (--max-model-len): 1000 is out of range; a request's prompt "
      "and generated tokens are longer\n" },
    /* A GPU count past the keys' ranges (at most 1e6 nodes of 1,024) is
     * refused, not left at the default. */
    { { "train", "llama-2-7b", "--gpus", "1000000000" },
      "headroom-cli: --gpus: 1000000000 is out of range: at most 1000000 nodes of 8 GPUs\n" },
    { { "train", "llama-2-7b", "--gpus", "1000001", "--gpus-per-node", "1" },
      "headroom-cli: --gpus: 1000001 is out of range: at most 1000000 nodes of 1 GPU\n" },
    { { "plan", "llama-2-7b", "--gpus", "99999999999" },
      "headroom-cli: --gpus: 99999999999 is not whole nodes of 8 GPUs, nor one node of at most 1024 "
      "(give --gpus-per-node)\n" },
    { { "infer", "llama-2-7b", "--gpus", "1000000000" },
      "headroom-cli: --gpus: Tensor parallel: 1000000000 is out of range (1 to 1000000)\n" },
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
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1", "--tp", "2" },
      "headroom-cli: Tensor parallel (--tp): 2 does not divide 1 GPU\n" },
    /* 8 GPUs at TP 2: data parallel 4, so a step takes a multiple of 3 × 4. */
    { { "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus=8", "--tp=2",
        "--micro-batch=3", "--global-batch=20" },
      "headroom-cli: Global batch (--global-batch): 20 sequences is not a multiple of the "
      "micro-batch × data parallel (3 × 4 = 12)\n" },
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
    /* The planner's refusal names the setting and its option, as train's do. */
    { { "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8", "--offload-optimizer" },
      "headroom-cli: Offload optimizer (--offload-optimizer): unsupported: the step-time model "
      "does not cover a CPU optimizer step\n" },
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
  g_test_add_func ("/cli/help", test_help);
  g_test_add_func ("/cli/params/config", test_params_config);
  g_test_add_func ("/cli/assume-architecture", test_assume_architecture_option);
  g_test_add_func ("/cli/text-only", test_text_only);
  g_test_add_func ("/cli/params/preset", test_params_preset);
  g_test_add_func ("/cli/params/positional", test_params_positional);
  g_test_add_func ("/cli/params/table", test_params_table);
  g_test_add_func ("/cli/params/warning", test_params_warning);
  g_test_add_func ("/cli/flops/tiny", test_flops_tiny);
  g_test_add_func ("/cli/flops/options", test_flops_options);
  g_test_add_func ("/cli/flops/table", test_flops_table);
  g_test_add_func ("/cli/models", test_models);
  g_test_add_func ("/cli/gpus", test_gpus);
  g_test_add_func ("/cli/locale", test_locale);
  g_test_add_func ("/cli/bad-input", test_bad_input);
  g_test_add_func ("/cli/golden", test_golden);

  return g_test_run ();
}
