/* test-serving-runs.c: the serving estimates against published measurements
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/reference/serving-runs.json holds engine start-up logs and
 * benchmark tables with their sources. Each row is estimated as a user
 * would (catalog model and GPU, the row's settings) and compared within the
 * issue's tolerances: weights 5 %, KV capacity and concurrency 10 %,
 * latencies and throughput 25 %. The derivations are in
 * tests/core/test-serving.c and docs/inference.md; nothing is fitted here.
 * The time to first token is compared at batch 1 only (LMDeploy's at a
 * larger batch includes the queueing of the other sessions' prefills).
 */
#include <math.h>

#include <json-glib/json-glib.h>

#include "headroom-catalog.h"
#include "hr-serving.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static JsonObject *
load_rows (JsonArray **rows)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;

  json_parser_load_from_file (parser, TEST_DATA_DIR "/reference/serving-runs.json", &error);
  g_assert_no_error (error);
  root = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
  *rows = json_object_get_array_member (root, "rows");
  return root;
}

static JsonObject *
find_row (JsonArray  *rows,
          const char *id)
{
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);

      if (g_str_equal (json_object_get_string_member (row, "id"), id))
        return row;
    }
  g_error ("no row %s", id);
  return NULL;
}

static double
number (JsonObject *row,
        const char *section,
        const char *key)
{
  return json_object_get_double_member (json_object_get_object_member (row, section), key);
}

static void
assert_within (const char *what,
               double      predicted,
               double      measured,
               double      tolerance)
{
  double ratio = predicted / measured;

  g_test_message ("%s: %.6g against %.6g (%.3f x)", what, predicted, measured, ratio);
  g_assert_cmpfloat (fabs (ratio - 1.0), <=, tolerance);
}

static void
setup (JsonObject *row,
       HrModel    *model,
       HrGpu      *gpu,
       HrInference *inf)
{
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  JsonObject *model_json = json_object_get_object_member (row, "model");
  JsonObject *hardware = json_object_get_object_member (row, "hardware");
  JsonObject *parallel = json_object_get_object_member (row, "parallel");
  JsonObject *precision = json_object_get_object_member (row, "precision");
  g_autoptr(GError) error = NULL;

  headroom_catalog_lookup_model (catalog, json_object_get_string_member (model_json, "preset"),
                                 model, &error);
  g_assert_no_error (error);
  headroom_catalog_lookup_gpu (catalog, json_object_get_string_member (hardware, "headroom_gpu"),
                               gpu, &error);
  g_assert_no_error (error);
  hr_inference_init (inf);
  inf->tensor_parallel = json_object_get_int_member (parallel, "tp");
  inf->pipeline_parallel = json_object_get_int_member (parallel, "pp");
  inf->gpus = inf->tensor_parallel * inf->pipeline_parallel;
  /* "fp16 (auto: …)", "GGUF F16", "bf16": the first word names it. */
  if (g_str_has_prefix (json_object_get_string_member (precision, "weights"), "bf16"))
    inf->weights = HR_WEIGHTS_BF16;
  else
    inf->weights = HR_WEIGHTS_FP16;
  inf->kv_dtype = g_str_has_prefix (json_object_get_string_member (precision, "kv_cache"), "bf16")
                  ? HR_KV_BF16 : HR_KV_FP16;
}

/* vLLM start-up logs: the KV cache, its tokens and the concurrency. */
static void
test_vllm_startup (void)
{
  JsonArray *rows;
  g_autoptr(JsonObject) root = load_rows (&rows);
  const char *ids[] = { "vllm-h100-llama3-8b-tp1-startup", "vllm-a100-llama2-7b-tp1-blocks" };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      JsonObject *row = find_row (rows, ids[i]);
      JsonObject *measured = json_object_get_object_member (row, "measured");
      HrModel model;
      HrGpu gpu;
      HrInference inf;
      HrServing serving;
      HrServingPlan plan;
      HrError err = { 0 };
      double tokens;

      setup (row, &model, &gpu, &inf);
      hr_serving_init (&serving);
      serving.engine = HR_ENGINE_VLLM;
      serving.gpu_memory_utilization = number (row, "settings", "gpu_memory_utilization");
      serving.max_model_len = (gint64) number (row, "settings", "max_model_len");
      serving.max_num_batched_tokens = (gint64) number (row, "settings", "profile_tokens");
      inf.paged_block = (gint64) number (row, "settings", "block_size");
      g_assert_cmpint (hr_serving_plan (&model, &inf, &serving, &gpu, &plan, &err), ==, HR_OK);

      tokens = json_object_has_member (measured, "kv_tokens")
               ? number (row, "measured", "kv_tokens") : number (row, "derived", "kv_tokens");
      g_test_message ("%s", ids[i]);
      if (json_object_has_member (measured, "weights_gib"))
        assert_within ("weights", plan.weights / GiB, number (row, "measured", "weights_gib"), 0.05);
      if (json_object_has_member (measured, "kv_cache_gib"))
        assert_within ("KV cache", plan.kv_cache / GiB, number (row, "measured", "kv_cache_gib"), 0.10);
      assert_within ("KV tokens", (double) plan.kv_capacity_tokens, tokens, 0.10);
      assert_within ("concurrency", plan.max_concurrency,
                     json_object_has_member (measured, "max_concurrency")
                     ? number (row, "measured", "max_concurrency")
                     : number (row, "derived", "max_concurrency"), 0.10);
    }
}

/* llama-bench's size column: a GGUF F16 file. */
static void
test_llamacpp_size (void)
{
  JsonArray *rows;
  g_autoptr(JsonObject) root = load_rows (&rows);
  JsonObject *row = find_row (rows, "llamacpp-a100pcie-llama7b-f16-size");
  HrModel model;
  HrGpu gpu;
  HrInference inf;
  HrInferenceMemory memory;
  HrError err = { 0 };

  setup (row, &model, &gpu, &inf);
  g_assert_cmpint (hr_inference_memory (&model, &inf, &gpu, &memory, &err), ==, HR_OK);
  assert_within ("weights", memory.weights / GiB, number (row, "measured", "weights_gib"), 0.05);
}

/* Benchmark tables: throughput, and the per-token latency where given. */
static void
test_benchmarks (void)
{
  JsonArray *rows;
  g_autoptr(JsonObject) root = load_rows (&rows);
  const char *ids[] = {
    "trtllm-a100-fp16-llama2-7b-bs384-128-128", "trtllm-a100-fp16-llama2-7b-bs60-128-2048",
    "lmdeploy-a100-llama2-7b-bs1-2048-128", "lmdeploy-a100-llama2-7b-bs64-128-2048",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      JsonObject *row = find_row (rows, ids[i]);
      JsonObject *measured = json_object_get_object_member (row, "measured");
      HrModel model;
      HrGpu gpu;
      HrInference inf;
      HrInferenceLatency lat;
      HrError err = { 0 };

      setup (row, &model, &gpu, &inf);
      inf.batch = (gint64) number (row, "workload", "batch");
      inf.prompt = (gint64) number (row, "workload", "prompt");
      inf.generate = (gint64) number (row, "workload", "generate");
      g_assert_cmpint (hr_inference_latency (&model, &inf, &gpu, &lat, &err), ==, HR_OK);
      g_test_message ("%s", ids[i]);
      assert_within ("tokens/s", lat.tokens_per_second, number (row, "measured", "tokens_per_s"), 0.25);
      /* LMDeploy's first token of a 2048-token prompt, 0.139 s: the
       * products of 2 × 6.74e9 × 2048 ≈ 27.4 TFLOP at the A100's measured
       * GEMM rate (271.2 TFLOP/s, the catalog's gemm_sustained_flops, as
       * training uses it) take 0.101 s, the causal FlashAttention core
       * 2 ms, the memory-bound kernels (2048 tokens × 32 layers × (2 × 4 ×
       * 4096 + 3 × 11008 + 2 × 8192) × 2 B = 10.7 GB at 2.039e12 × 0.7)
       * 7.5 ms: 0.110 s, 0.79×. Compared at batch 1 only.
       * TurboMind (LMDeploy v0.1's engine) prefills one token less and
       * produces the first token in its first decode step
       * (src/turbomind/models/llama/LlamaBatch.cc, contextDecode():
       * input and context lengths − 1, "skip last input token (will
       * process with decoder later)"): a prefill of 2047 tokens then one
       * step over 2048 cached tokens, 0.120 s, 0.86×. Headroom has no
       * LMDeploy engine to apply it to; it is shown, not asserted. */
      if (inf.batch == 1 && json_object_has_member (measured, "ttft_s"))
        {
          HrInference turbomind = inf;
          HrInferenceLatency tm;

          assert_within ("TTFT", lat.time_to_first_token, number (row, "measured", "ttft_s"), 0.25);
          turbomind.prompt = inf.prompt - 1;
          turbomind.generate = 2;
          g_assert_cmpint (hr_inference_latency (&model, &turbomind, &gpu, &tm, &err), ==, HR_OK);
          g_test_message ("TTFT as TurboMind steps it: %.6g (%.3f x)",
                          tm.time_to_first_token + tm.time_per_output_token,
                          (tm.time_to_first_token + tm.time_per_output_token)
                          / number (row, "measured", "ttft_s"));
        }
      if (json_object_has_member (measured, "tpot_s"))
        assert_within ("TPOT", lat.time_per_output_token, number (row, "measured", "tpot_s"), 0.25);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/serving-runs/vllm-startup", test_vllm_startup);
  g_test_add_func ("/serving-runs/llamacpp-size", test_llamacpp_size);
  g_test_add_func ("/serving-runs/benchmarks", test_benchmarks);

  return g_test_run ();
}
