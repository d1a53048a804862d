/* test-cli-project.c: headroom-cli on project files as a user runs it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Projects, reports and sweeps, config.json import (from a file and from a
 * fake Hub), and comparing scenarios (test-cli.h runs it).
 */
#include <libsoup/soup.h>

#include "test-cli.h"

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

  /* A typo (training.tensor_paralel) is not read, so the figures are the
   * project's without it, and both outputs say which key was left. */
  {
    g_auto(Run) typo_run = { 0 };
    g_auto(Run) typo_table = { 0 };
    g_autoptr(JsonObject) typo = NULL;
    JsonArray *unknown;

    run_cli (&typo_run, "train", "--model", CLI_DATA "/typo-key.headroom.json", "--json", NULL);
    typo = parse_output (&typo_run);
    g_assert_cmpint (member_int (typo, "memory.weights"), ==, 23760);
    unknown = json_object_get_array_member (typo, "unknown_keys");
    g_assert_cmpuint (json_array_get_length (unknown), ==, 1);
    g_assert_cmpstr (json_array_get_string_element (unknown, 0), ==, "training.tensor_paralel");
    g_assert_null (json_object_get_member (train, "unknown_keys"));
    run_cli (&typo_table, "train", "--model", CLI_DATA "/typo-key.headroom.json", NULL);
    g_assert_nonnull (strstr (typo_table.out, "\nNot read, no such setting: training.tensor_paralel\n"));
  }
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

  /* A column's file with a key no setting has says so, in that column only. */
  {
    g_auto(Run) typo = { 0 };
    g_autoptr(JsonObject) typo_out = NULL;
    JsonArray *unknown;

    run_cli (&typo, "compare", CLI_DATA "/typo-key.headroom.json",
             CLI_DATA "/tiny-train.headroom.json", "--json", NULL);
    typo_out = parse_output (&typo);
    unknown = json_object_get_array_member (compare_column (typo_out, 0), "unknown_keys");
    g_assert_cmpstr (json_array_get_string_element (unknown, 0), ==, "training.tensor_paralel");
    g_assert_false (json_object_has_member (compare_column (typo_out, 1), "unknown_keys"));
  }

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
  run_clear (&bad);
  /* An option that no column uses is refused; one that a column uses (the
   * LoRA scenario's rank) is set: r 16 on q and v of 32 layers, 16 ×
   * (4,096 + 4,096) + 16 × (4,096 + 1,024) = 212,992 a layer, 6,815,744. */
  run_cli (&bad, "compare", project, "--loss-chunks", "4", NULL);
  assert_bad_input (&bad, "Loss chunks (--loss-chunks): applies only when Loss (--loss) is Chunked");
  run_clear (&files);
  run_cli (&files, "compare", project, "--lora-rank", "16", "--json", NULL);
  g_clear_pointer (&out, json_object_unref);
  out = parse_output (&files);
  g_assert_cmpint (member_int (compare_column (out, 2), "figures.trainable_parameters"), ==, 6815744);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/project-model", test_project_model);
  g_test_add_func ("/cli/report", test_report);
  g_test_add_func ("/cli/report/sweep", test_report_sweep);
  g_test_add_func ("/cli/import", test_import);
  g_test_add_func ("/cli/import/hub", test_import_hub);
  g_test_add_func ("/cli/compare", test_compare);
  g_test_add_func ("/cli/train-equals-project", test_train_equals_project);

  return g_test_run ();
}
