/* test-cli-infer.c: headroom-cli infer as a user runs it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Its JSON against hand-derived figures (test-cli.h runs it).
 */
#include "test-cli.h"

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/infer", test_infer);
  g_test_add_func ("/cli/infer/kv-cache", test_infer_kv_cache);
  g_test_add_func ("/cli/infer/engines", test_infer_engines);

  return g_test_run ();
}
