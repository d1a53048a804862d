/* test-inference-latency.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The serving latency (hr-inference-latency.c). Every expected figure is
 * derived by hand in the comment above its check, from the model's published
 * shape (its Hugging Face config.json).
 */
#include "test-inference.h"

/* ---- Latency --------------------------------------------------------------- */

static HrInferenceLatency
latency_of (const HrModel     *model,
            const HrInference *inf)
{
  HrGpu gpu = h100 ();
  HrInferenceLatency lat;
  HrError err = { 0 };

  g_assert_cmpint (hr_inference_latency (model, inf, &gpu, &lat, &err), ==, HR_OK);
  g_assert_true (isfinite (lat.time_to_first_token) && lat.time_to_first_token > 0.0);
  g_assert_true (isfinite (lat.time_per_output_token) && lat.time_per_output_token >= 0.0);
  return lat;
}

/* Memory-bound kernels of one Llama-3-8B token (vLLM's fused_add_rms_norm,
 * silu_and_mul, rotary_embedding; docs/inference.md, "Rates"): 2 norms ×
 * 4 × 4096 + 3 × 14336 + 2 × (32 + 8) × 128 = 86016 elements a layer, × 32
 * layers × 2 B = 5505024 B. */
#define LLAMA3_8B_ELEMENTWISE 5505024.0

/* Decode of Llama-3-8B, batch 1, one decode step (generate 2) after a
 * 1023-token prompt: the step reads every weight but the embedding table,
 * 16060522496 − 1050673152 = 15009849344 B, and the K and V of 1024 tokens,
 * 1024 × 131072 = 134217728 B: 15144067072 B at 3.35e12 × 0.7 B/s =
 * 6.45800e-3 s. Its 2 × 7.5e9 FLOPs take about 3e-5 s at 989.4e12 × 0.5
 * (the test GPU has no measured rate; every product's n and k fill whole
 * tiles, and a decode step pads no rows): memory-bound. The step adds its
 * memory-bound kernels, 5505024 B: 2.35e-6 s. */
static void
test_latency_decode_memory_bound (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 1023, 2);
  HrInferenceLatency lat = latency_of (&m, &inf);
  double memory = 15144067072.0 / (3.35e12 * 0.7);
  double elementwise = LLAMA3_8B_ELEMENTWISE / (3.35e12 * 0.7);

  g_assert_cmpfloat_with_epsilon (lat.decode_memory_time, memory, memory * 1e-12);
  g_assert_cmpint (lat.decode_bound, ==, HR_BOUND_MEMORY);
  g_assert_cmpfloat_with_epsilon (lat.decode_elementwise_time, elementwise, elementwise * 1e-12);
  g_assert_cmpfloat_with_epsilon (lat.time_per_output_token, memory + elementwise, memory * 1e-12);
  g_assert_cmpfloat_with_epsilon (lat.decode_compute_time,
                                  hr_flops_decode_token (&m, 1, 1024) / (989.4e12 * 0.5), 1e-15);
  g_assert_cmpfloat (lat.decode_flops, ==, hr_flops_decode_token (&m, 1, 1024));

  /* End to end: TTFT + 1 step; 2 tokens per sequence in that time. */
  g_assert_cmpfloat_with_epsilon (lat.end_to_end, lat.time_to_first_token + memory + elementwise,
                                  1e-15);
  g_assert_cmpfloat_with_epsilon (lat.tokens_per_second_per_sequence, 2.0 / lat.end_to_end, 1e-9);
  g_assert_cmpfloat_with_epsilon (lat.tokens_per_second, 2.0 / lat.end_to_end, 1e-9);

  /* A GPU whose copy rate is measured (resources/gpus.json,
   * memory_sustained_bandwidth) moves the same bytes at that rate instead:
   * 15144067072 B at 3.0e12 B/s = 5.04802e-3 s. */
  {
    HrGpu gpu = h100 ();
    HrError err = { 0 };

    gpu.memory_sustained_bandwidth = 3.0e12;
    g_assert_cmpint (hr_inference_latency (&m, &inf, &gpu, &lat, &err), ==, HR_OK);
    g_assert_cmpfloat_with_epsilon (lat.decode_memory_time, 15144067072.0 / 3.0e12, 1e-15);
  }
}

/* MoE decode reads only the experts chosen: one token of DeepSeek-V2-Lite
 * uses 6 of 64 routed experts per layer, whose 26 × 64 × 3 × 2048 × 1408 =
 * 14394851328 parameters are otherwise 28789702656 B; 58/64 of them stay
 * unread, and so does the untied embedding table, 102400 × 2048 × 2 =
 * 419430400 B. The step also reads 1024 cached tokens × 31104 B. */
static void
test_latency_moe_decode (void)
{
  HrModel m = deepseek_v2_lite ();
  HrInference inf = settings (1, 1023, 2);
  double weights = memory_of (&m, &inf).weights;
  HrInferenceLatency lat = latency_of (&m, &inf);
  double memory = (weights - 419430400.0 - 28789702656.0 * 58.0 / 64.0 + 1024.0 * 31104.0) /
                  (3.35e12 * 0.7);

  g_assert_cmpfloat_with_epsilon (lat.decode_memory_time, memory, memory * 1e-12);

  /* A batch of 4 touches E·(1 − (1 − k/E)^4) = 64 × (1 − (58/64)^4) = 20.83
   * distinct experts a layer on average (each expert is missed by all four
   * tokens with probability (58/64)^4 = 0.6745): 0.6745 of the routed
   * weights stay unread; the four sequences read 4 × 1024 cached tokens. */
  inf = settings (4, 1023, 2);
  lat = latency_of (&m, &inf);
  memory = (weights - 419430400.0 - 28789702656.0 * pow (58.0 / 64.0, 4.0) +
            4.0 * 1024.0 * 31104.0) / (3.35e12 * 0.7);
  g_assert_cmpfloat_with_epsilon (64.0 * (1.0 - pow (58.0 / 64.0, 4.0)), 20.83, 0.005);
  g_assert_cmpfloat_with_epsilon (lat.decode_memory_time, memory, memory * 1e-12);
}

/* JetMoE's attention experts are read like routed ones: Llama-3-8B's
 * attention as 8 experts of q and o (8 heads of 128 each, a token running
 * 4) holds 32 × 8 × 2 × 4096 × 1024 × 2 B = 4294967296 B in them, of which
 * one token leaves 4/8 unread; the rest of the weights is read whole. */
static void
test_latency_moa_decode (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 1023, 2);
  double plain_weights = memory_of (&m, &inf).weights;
  HrInferenceLatency plain = latency_of (&m, &inf);
  double weights, memory;
  HrInferenceLatency lat;

  m.attention_experts = 8;
  weights = memory_of (&m, &inf).weights;
  lat = latency_of (&m, &inf);
  memory = plain.decode_memory_time
           + (weights - plain_weights - 4294967296.0 * 4.0 / 8.0) / (3.35e12 * 0.7);
  g_assert_cmpfloat_with_epsilon (lat.decode_memory_time, memory, memory * 1e-12);
}

/* A 4096-token prefill of Llama-3-8B needs about 2 × 7.5e9 × 4096 = 6e13
 * FLOPs, 0.12 s at 989.4e12 × 0.5, while its weights (15 GB) and the K and V
 * written (4096 × 131072 B) take 6.6e-3 s to move: compute-bound. Every
 * product fills whole 128 × 128 × 64 tiles but the LM head's, which runs the
 * last position only: one row of 128, so its 2 × 4096 × 128256 FLOPs count
 * 128 times. The memory-bound kernels add 4096 × 5505024 B at 3.35e12 × 0.7.
 * The same model decoding 4096 sequences of 16 tokens at once is
 * compute-bound too, and a 16-token prompt of one sequence is memory-bound. */
static void
test_latency_bound_switch (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 4096, 1);
  HrInferenceLatency lat = latency_of (&m, &inf);
  double prefill_memory = (15009849344.0 + 4096.0 * 131072.0) / (3.35e12 * 0.7);
  double lm = 2.0 * 4096.0 * 128256.0;
  double compute = (lat.prefill_flops - lm + 128.0 * lm) / (989.4e12 * 0.5);
  double elementwise = 4096.0 * LLAMA3_8B_ELEMENTWISE / (3.35e12 * 0.7);

  g_assert_cmpint (lat.prefill_bound, ==, HR_BOUND_COMPUTE);
  g_assert_cmpfloat_with_epsilon (lat.prefill_memory_time, prefill_memory, prefill_memory * 1e-12);
  g_assert_cmpfloat (lat.prefill_flops, ==, hr_flops_prefill (&m, 1, 4096, true));
  g_assert_cmpfloat_with_epsilon (lat.prefill_compute_time, compute, compute * 1e-12);
  g_assert_cmpfloat_with_epsilon (lat.prefill_elementwise_time, elementwise, elementwise * 1e-12);
  g_assert_cmpfloat_with_epsilon (lat.time_to_first_token, compute + elementwise, compute * 1e-12);
  /* generate 1: the prefill gives the only token; no decode step. */
  g_assert_cmpfloat (lat.time_per_output_token, ==, 0.0);
  g_assert_cmpfloat (lat.end_to_end, ==, lat.time_to_first_token);

  inf = settings (4096, 16, 2);
  g_assert_cmpint (latency_of (&m, &inf).decode_bound, ==, HR_BOUND_COMPUTE);

  inf = settings (1, 16, 2);
  lat = latency_of (&m, &inf);
  g_assert_cmpint (lat.prefill_bound, ==, HR_BOUND_MEMORY);
  g_assert_cmpint (lat.decode_bound, ==, HR_BOUND_MEMORY);
}

/* The decode steps attend over a growing cache: with a 1000-token prompt and
 * 1001 tokens generated, steps 1..1000 read K and V of 1001..2000 tokens,
 * 1500.5 on average, × 131072 B. The mean memory time is the time of the
 * mean step because the read grows linearly; each step adds the same
 * memory-bound kernels. */
static void
test_latency_tpot_average (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 1000, 1001);
  HrInferenceLatency lat = latency_of (&m, &inf);
  double memory = (15009849344.0 + 1500.5 * 131072.0) / (3.35e12 * 0.7);

  g_assert_cmpfloat_with_epsilon (lat.decode_memory_time, memory, memory * 1e-12);
  g_assert_cmpfloat_with_epsilon (lat.time_per_output_token,
                                  memory + LLAMA3_8B_ELEMENTWISE / (3.35e12 * 0.7), memory * 1e-12);

  /* Mistral's window stops the growth at 4096 tokens: steps past it read
   * the same as one at 4096. */
  m = mistral_7b ();
  inf = settings (1, 5000, 3);
  lat = latency_of (&m, &inf);
  memory = (2.0 * 7241732096.0 - 2.0 * 32000.0 * 4096.0 + 4096.0 * 131072.0) / (3.35e12 * 0.7);
  g_assert_cmpfloat_with_epsilon (lat.decode_memory_time, memory, memory * 1e-12);
}

/* A prefill in chunks of 512 reads the weights once per chunk: 8 times for
 * a 4096-token prompt, 8 × 15009849344 B, plus the K and V written once,
 * 4096 × 131072 B. The FLOPs do not change. */
static void
test_latency_chunked_prefill (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 4096, 0);
  double whole = latency_of (&m, &inf).prefill_compute_time;
  HrInferenceLatency lat;
  double memory = (8.0 * 15009849344.0 + 4096.0 * 131072.0) / (3.35e12 * 0.7);

  inf.prefill_chunk = 512;
  lat = latency_of (&m, &inf);
  g_assert_cmpfloat_with_epsilon (lat.prefill_memory_time, memory, memory * 1e-12);
  g_assert_cmpfloat (lat.prefill_compute_time, ==, whole);
}

/* The peak follows the precision: fp8 weights run the linear layers on the
 * fp8 tensor cores, 1978.9e12 against 989.4e12 FLOP/s, while attention's
 * core and the LM head (its one row counting 128 times, see above) stay
 * 16-bit; without fp8 support vLLM's W8A16 fallback runs at the bf16 peak;
 * weight-only int4 multiplies at 16 bit. */
static void
test_latency_peak_by_precision (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 4096, 0);
  HrGpu gpu = h100 ();
  HrInferenceLatency bf16, fp8;
  HrError err = { 0 };
  double parts[HR_FLOPS_N_COMPONENTS];
  double linear, sixteen;

  hr_flops_prefill_components (&m, 1, 4096, true, parts);
  linear = parts[HR_FLOPS_ATTN_PROJ] + parts[HR_FLOPS_ATTN_OUT] + parts[HR_FLOPS_MLP];
  sixteen = parts[HR_FLOPS_ATTN_SCORES] + parts[HR_FLOPS_ATTN_OVER_V] + 128.0 * parts[HR_FLOPS_LM_HEAD];
  g_assert_cmpint (hr_inference_latency (&m, &inf, &gpu, &bf16, &err), ==, HR_OK);
  inf.weights = HR_WEIGHTS_FP8;
  g_assert_cmpint (hr_inference_latency (&m, &inf, &gpu, &fp8, &err), ==, HR_OK);
  g_assert_cmpfloat_with_epsilon (fp8.prefill_compute_time,
                                  linear / (1978.9e12 * 0.5) + sixteen / (989.4e12 * 0.5), 1e-12);

  gpu.peak_flops[HR_DTYPE_FP8] = 0.0;
  g_assert_cmpint (hr_inference_latency (&m, &inf, &gpu, &fp8, &err), ==, HR_OK);
  g_assert_cmpfloat (fp8.prefill_compute_time, ==, bf16.prefill_compute_time);

  inf.weights = HR_WEIGHTS_INT4;
  g_assert_cmpint (hr_inference_latency (&m, &inf, &gpu, &fp8, &err), ==, HR_OK);
  g_assert_cmpfloat (fp8.prefill_compute_time, ==, bf16.prefill_compute_time);

  /* A GPU with no 16-bit peak cannot be timed. */
  gpu.peak_flops[HR_DTYPE_BF16] = gpu.peak_flops[HR_DTYPE_FP16] = 0.0;
  g_assert_cmpint (hr_inference_latency (&m, &inf, &gpu, &fp8, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "peak_flops");
}

/* TP 2 all-reduces: 2 per layer × 32 layers, each NCCL's latency 6.6 µs +
 * 2 × (2 − 1) × 0.6 µs = 7.8 µs (tuning.cc, Ring/LL over NVLink) plus 2 ×
 * (2 − 1) / 2 of a batch × 4096 × 2 B buffer over 450e9 B/s. One decode step
 * of batch 1: 64 × (7.8e-6 + 8192 / 450e9) = 500.4 µs; a 1000-token prefill
 * in one chunk: 64 × (7.8e-6 + 1000 × 8192 / 450e9), and in 4 chunks of 250
 * tokens, 4 calls' latency. TP 8: 6.6 + 14 × 0.6 = 15 µs a call. */
static void
test_latency_allreduce (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 1000, 2);
  HrInferenceLatency lat;

  inf.tensor_parallel = inf.gpus = 2;
  lat = latency_of (&m, &inf);
  g_assert_cmpfloat_with_epsilon (lat.decode_allreduce_time, 64.0 * (7.8e-6 + 8192.0 / 450e9), 1e-15);
  g_assert_cmpfloat_with_epsilon (lat.prefill_allreduce_time,
                                  64.0 * (7.8e-6 + 1000.0 * 8192.0 / 450e9), 1e-15);
  inf.prefill_chunk = 250;
  lat = latency_of (&m, &inf);
  g_assert_cmpfloat_with_epsilon (lat.prefill_allreduce_time,
                                  64.0 * (4.0 * 7.8e-6 + 1000.0 * 8192.0 / 450e9), 1e-15);
  inf.prefill_chunk = 0;
  inf.tensor_parallel = inf.gpus = 8;
  lat = latency_of (&m, &inf);
  g_assert_cmpfloat_with_epsilon (lat.decode_allreduce_time,
                                  64.0 * (15e-6 + 2.0 * 7.0 / 8.0 * 8192.0 / 450e9), 1e-15);

  inf.tensor_parallel = inf.gpus = 1;
  lat = latency_of (&m, &inf);
  g_assert_cmpfloat (lat.decode_allreduce_time, ==, 0.0);
}

/* Cost: price × GPUs × end-to-end hours per generated token, × 1e6. At
 * $2 per GPU-hour on 2 GPUs, 8 sequences of 100 tokens. */
static void
test_latency_cost (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (8, 512, 100);
  HrInferenceLatency lat;

  inf.tensor_parallel = inf.gpus = 2;
  inf.price_per_gpu_hour = 2.0;
  lat = latency_of (&m, &inf);
  g_assert_cmpfloat_with_epsilon (lat.cost_per_million_tokens,
                                  2.0 * 2.0 * lat.end_to_end / 3600.0 / 800.0 * 1e6, 1e-9);
  g_assert_cmpfloat_with_epsilon (lat.tokens_per_second, 800.0 / lat.end_to_end, 1e-6);

  /* Prefill only: nothing generated, no throughput and no cost. */
  inf.generate = 0;
  lat = latency_of (&m, &inf);
  g_assert_cmpfloat (lat.tokens_per_second, ==, 0.0);
  g_assert_cmpfloat (lat.cost_per_million_tokens, ==, 0.0);
  g_assert_cmpfloat (lat.end_to_end, ==, lat.time_to_first_token);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/inference/latency/decode-memory-bound", test_latency_decode_memory_bound);
  g_test_add_func ("/inference/latency/moe-decode", test_latency_moe_decode);
  g_test_add_func ("/inference/latency/moa-decode", test_latency_moa_decode);
  g_test_add_func ("/inference/latency/bound-switch", test_latency_bound_switch);
  g_test_add_func ("/inference/latency/tpot-average", test_latency_tpot_average);
  g_test_add_func ("/inference/latency/chunked-prefill", test_latency_chunked_prefill);
  g_test_add_func ("/inference/latency/peak-by-precision", test_latency_peak_by_precision);
  g_test_add_func ("/inference/latency/allreduce", test_latency_allreduce);
  g_test_add_func ("/inference/latency/cost", test_latency_cost);

  return g_test_run ();
}
