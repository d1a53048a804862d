/* test-serving.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Serving engines' memory plans. Every expected figure is derived by hand in
 * the comment above its check, from the model's config.json, the engine's
 * code (docs/inference.md, "Serving engines") and the driver's figure of
 * resources/gpus.json. Where a published measurement exists, the comment
 * says how far the derivation lands from it; the check is the derivation.
 */
#include <math.h>

#include <glib.h>

#include "hr-serving.h"
#include "test-models.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* H100 SXM 80 GB: 80 GiB of HBM; the driver reports 79.22 GiB (vLLM PR
 * #10511 log), stored as round(79.22 × 2^30) = 85,061,827,297 B. */
static HrGpu
h100 (void)
{
  HrGpu gpu = { 0 };

  gpu.memory_bytes = 80.0 * GiB;
  gpu.driver_memory_bytes = 85061827297.0;
  gpu.memory_bandwidth = 3.35e12;
  gpu.peak_flops[HR_DTYPE_BF16] = 989.4e12;
  gpu.peak_flops[HR_DTYPE_FP16] = 989.4e12;
  gpu.intra_node_bandwidth = 450e9;
  return gpu;
}

/* A100 SXM 80 GB: the driver reports 79.15 GiB = 84,986,665,370 B. */
static HrGpu
a100 (void)
{
  HrGpu gpu = h100 ();

  gpu.driver_memory_bytes = 84986665370.0;
  return gpu;
}

/* meta-llama/Meta-Llama-3-8B: 32 layers, hidden 4096, 32 heads, 8 KV heads,
 * MLP 14336, vocabulary 128256. */
static void
llama3_8b (HrModel *m)
{
  llama_like (m, 32, 4096, 32, 8, 14336, 128256);
}

/* meta-llama/Llama-2-7b-hf: 32 layers, hidden 4096, 32 heads (MHA), MLP
 * 11008, vocabulary 32000. */
static void
llama2_7b (HrModel *m)
{
  llama_like (m, 32, 4096, 32, 32, 11008, 32000);
}

static void
plan (const HrModel     *model,
      const HrInference *inf,
      const HrServing   *serving,
      const HrGpu       *gpu,
      HrServingPlan     *p)
{
  HrError err = { 0 };

  g_assert_cmpint (hr_serving_plan (model, inf, serving, gpu, p, &err), ==, HR_OK);
}

/* The driver's figure wins over the catalog's when known. */
static void
test_driver_memory (void)
{
  HrGpu gpu = h100 ();

  g_assert_cmpfloat (hr_gpu_driver_memory (&gpu), ==, 85061827297.0);
  gpu.driver_memory_bytes = 0.0;
  g_assert_cmpfloat (hr_gpu_driver_memory (&gpu), ==, 80.0 * GiB);
}

/* vLLM, Llama 3 8B in bf16 on one H100, gpu_memory_utilization 0.9,
 * max_model_len 8192, profiling step of 8192 tokens, 256 sequences:
 *   usable   = 0.9 × 85,061,827,297 = 76,555,644,567.3 B (71.30 GiB; log 71.29)
 *   weights  = 8,030,261,248 params × 2 B = 16,060,522,496 B (14.96 GiB; log 14.96)
 *   layer peak at 8192 tokens = (2h + 3f) × 2 B × 8192 + one row of logits
 *            = (8192 + 43008) × 16384 + 128256 × 6 = 839,630,336 B
 *   sampler  = 256 rows × 128,256 × 26 B = 853,671,936 B, the larger: activations
 *   non-torch = 0.2 GiB = 214,748,364.8 B
 *   KV       = 76,555,644,567.3 − 16,060,522,496 − 853,671,936 − 214,748,364.8
 *            = 59,426,701,770.5 B (55.35 GiB; the log's 53.29: +3.9 %)
 *   per token = 32 layers × 2 × 8 heads × 128 × 2 B = 131,072 B; a block of 16 = 2 MiB
 *   blocks   = floor(59,426,701,770.5 / 2,097,152) = 28,336 → 453,376 tokens
 *   concurrency = 453,376 / 8192 = 55.34 (vLLM's 53.29: +3.9 %). */
static void
test_vllm_llama3_h100 (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  hr_serving_init (&serving);
  serving.engine = HR_ENGINE_VLLM;
  serving.gpu_memory_utilization = 0.9;
  serving.max_model_len = 8192;
  serving.max_num_batched_tokens = 8192;
  plan (&model, &inf, &serving, &gpu, &p);

  g_assert_cmpfloat_with_epsilon (p.usable, 76555644567.3, 1.0);
  g_assert_cmpfloat (p.weights, ==, 16060522496.0);
  g_assert_cmpfloat (p.activations, ==, 853671936.0);
  g_assert_cmpfloat_with_epsilon (p.kv_cache, 59426701770.5, 1.0);
  g_assert_cmpfloat (p.kv_per_token, ==, 131072.0);
  g_assert_cmpint (p.block_size, ==, 16);
  g_assert_cmpint (p.kv_blocks, ==, 28336);
  g_assert_cmpint (p.kv_capacity_tokens, ==, 453376);
  g_assert_cmpfloat_with_epsilon (p.max_concurrency, 55.34375, 1e-9);
  g_assert_true (p.fits);
  g_assert_false (p.total_from_datasheet);

  /* Without the driver's figure the plan says it took the datasheet's
   * 80 GiB: 0.9 × 85,899,345,920 = 77,309,411,328 B. */
  gpu.driver_memory_bytes = 0.0;
  plan (&model, &inf, &serving, &gpu, &p);
  g_assert_true (p.total_from_datasheet);
  g_assert_cmpfloat_with_epsilon (p.usable, 77309411328.0, 1.0);
}

/* vLLM, Llama 2 7B in fp16 on one A100 80 GB, max_model_len 4096 (vLLM PR
 * #2031: 7,351 blocks). The default profiling step is max(4096, 2048) = 4096
 * tokens:
 *   usable   = 0.9 × 84,986,665,370 = 76,487,998,833 B
 *   weights  = 6,738,415,616 × 2 = 13,476,831,232 B (12.55 GiB)
 *   layer peak = (8192 + 33024) × 2 × 4096 + 32000 × 6 = 337,833,472 B, above
 *   the sampler's 256 × 32000 × 26 = 212,992,000 B
 *   KV       = 76,487,998,833 − 13,476,831,232 − 337,833,472 − 214,748,364.8
 *            = 62,458,585,764 B
 *   per token = 32 × 2 × 32 × 128 × 2 = 524,288 B; a block = 8 MiB
 *   blocks   = floor(62,458,585,764 / 8,388,608) = 7,445 (PR #2031: 7,351, +1.3 %)
 *   concurrency = 7,445 × 16 / 4096 = 29.08 (28.71 measured). */
static void
test_vllm_llama2_a100 (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrGpu gpu = a100 ();

  llama2_7b (&model);
  hr_inference_init (&inf);
  inf.weights = HR_WEIGHTS_FP16;
  inf.kv_dtype = HR_KV_FP16;
  hr_serving_init (&serving);
  serving.max_model_len = 4096;
  plan (&model, &inf, &serving, &gpu, &p);

  g_assert_cmpint (p.max_num_batched_tokens, ==, 4096);
  g_assert_cmpfloat (p.weights, ==, 13476831232.0);
  g_assert_cmpfloat (p.activations, ==, 337833472.0);
  g_assert_cmpint (p.kv_blocks, ==, 7445);
  g_assert_cmpint (p.kv_capacity_tokens, ==, 119120);
  g_assert_cmpfloat_with_epsilon (p.max_concurrency, 29.08203125, 1e-9);
}

/* SGLang, Llama 3 8B on one H100, mem_fraction_static by default 0.88 at TP 1:
 *   free at start = 85,061,827,297 − 214,748,364.8 = 84,847,078,932.2 B
 *   usable   = 0.88 × that = 74,665,429,460.3 B
 *   KV       = 74,665,429,460.3 − 16,060,522,496 = 58,604,906,964.3 B
 *   tokens   = floor(58,604,906,964.3 / 131,072) = 447,119 (a token pool). */
static void
test_sglang_llama3_h100 (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  hr_serving_init (&serving);
  serving.engine = HR_ENGINE_SGLANG;
  serving.max_model_len = 8192;
  plan (&model, &inf, &serving, &gpu, &p);

  g_assert_cmpfloat_with_epsilon (p.usable, 74665429460.336, 1.0);
  g_assert_cmpint (p.block_size, ==, 1);
  g_assert_cmpint (p.kv_capacity_tokens, ==, 447119);
  g_assert_cmpfloat_with_epsilon (p.max_concurrency, 447119.0 / 8192.0, 1e-9);
}

/* TensorRT-LLM, Llama 3 8B on one H100, free_gpu_memory_fraction 0.9 of what
 * the engine leaves, activations at 8192 tokens (839,630,336 B, above):
 *   KV = 0.9 × (85,061,827,297 − 16,060,522,496 − 839,630,336 − 214,748,364.8)
 *      = 0.9 × 67,946,926,100.2 = 61,152,233,490.2 B
 *   blocks of TensorRT-LLM's 32 tokens (KvCacheConfig.tokens_per_block), 4,194,304 B:
 *   floor(61,152,233,490.2 / 4,194,304) = 14,579 → 466,528 tokens. */
static void
test_trtllm_llama3_h100 (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  hr_serving_init (&serving);
  serving.engine = HR_ENGINE_TRTLLM;
  serving.max_model_len = 8192;
  plan (&model, &inf, &serving, &gpu, &p);

  g_assert_cmpfloat (p.activations, ==, 839630336.0);
  g_assert_cmpint (p.block_size, ==, 32);
  g_assert_cmpint (p.kv_blocks, ==, 14579);
  g_assert_cmpint (p.kv_capacity_tokens, ==, 466528);
}

/* llama.cpp holds n_ctx = max_model_len cells: Llama 3 8B at 8192 keeps
 * 8192 × 131,072 B = 1 GiB of f16 KV, one sequence of that length. */
static void
test_llamacpp_context (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  inf.kv_dtype = HR_KV_FP16;
  hr_serving_init (&serving);
  serving.engine = HR_ENGINE_LLAMACPP;
  serving.max_model_len = 8192;
  plan (&model, &inf, &serving, &gpu, &p);

  g_assert_cmpfloat (p.kv_cache, ==, GiB);
  g_assert_cmpint (p.kv_capacity_tokens, ==, 8192);
  g_assert_cmpfloat (p.max_concurrency, ==, 1.0);
  g_assert_true (p.fits);

  /* --cache-type-k/-v q8_0: a token holds 32 × 2 × 8 × 128 = 65,536
   * elements, at 34 B per 32: 69,632 B; q4_0, 18 B per 32: 36,864 B. */
  inf.kv_dtype = HR_KV_Q8_0;
  plan (&model, &inf, &serving, &gpu, &p);
  g_assert_cmpfloat (p.kv_per_token, ==, 69632.0);
  inf.kv_dtype = HR_KV_Q4_0;
  plan (&model, &inf, &serving, &gpu, &p);
  g_assert_cmpfloat (p.kv_per_token, ==, 36864.0);
  g_assert_cmpstr (hr_kv_dtype_name (HR_KV_Q4_0), ==, "q4_0");
}

/* A model bigger than the usable memory leaves no KV cache: Llama 3 8B at
 * gpu_memory_utilization 0.2 of 79.22 GiB = 15.84 GiB, less 14.96 GiB of
 * weights, 0.80 GiB of sampler and 0.2 GiB: negative, so 0 blocks. */
static void
test_vllm_no_room (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  hr_serving_init (&serving);
  serving.gpu_memory_utilization = 0.2;
  serving.max_model_len = 8192;
  plan (&model, &inf, &serving, &gpu, &p);

  g_assert_cmpfloat (p.kv_cache, ==, 0.0);
  g_assert_cmpint (p.kv_capacity_tokens, ==, 0);
  g_assert_false (p.fits);
}

static double
weights_of (const HrModel    *model,
            HrWeightPrecision weights)
{
  HrInference inf;
  HrInferenceMemory m;
  HrError err = { 0 };
  HrGpu gpu = h100 ();

  hr_inference_init (&inf);
  inf.weights = weights;
  g_assert_cmpint (hr_inference_memory (model, &inf, &gpu, &m, &err), ==, HR_OK);
  return m.weights;
}

/* GGUF files of Llama 2 7B, tensor by tensor as llama-quant.cpp types them.
 * Per layer: q and o 2 × 4096² = 33,554,432; k and v 2 × 16,777,216; gate
 * and up 2 × 4096 × 11008 = 90,177,536; down 45,088,768: 202,375,168 × 32 =
 * 6,476,005,376 matrix weights; token_embd and output 32000 × 4096 =
 * 131,072,000 each; 65 norms of 4096 in F32 = 1,064,960 B.
 *   Q4_0 (18 B / 32): (6,476,005,376 + 131,072,000) × 0.5625 = 3,716,481,024,
 *     output Q6_K (210 / 256): 107,520,000; total 3,825,065,984 B = 3.56 GiB,
 *     llama-bench's "llama 7B Q4_0 3.56 GiB".
 *   Q4_K_M: use_more_bits(i, 32) holds for i < 4, i ≥ 28 and i = 6, 9, …, 27:
 *     16 layers keep attn_v and ffn_down (61,865,984 weights) at Q6_K:
 *     989,855,744 × 0.8203125 = 811,991,040; the rest and token_embd at Q4_K
 *     (144 / 256): 5,617,221,632 × 0.5625 = 3,159,687,168; output Q6_K
 *     107,520,000; total 4,080,263,168 B = 3.80 GiB (llama-bench: 3.80 GiB).
 *   Q5_K_M, Q6_K and Q8_0 alike: 4,782,415,872 (4.45 GiB), 5,528,453,120
 *     (5.15 GiB) and 7,160,348,672 B (6.67 GiB; Q8_0 keeps output at Q8_0). */
static void
test_gguf_llama2 (void)
{
  HrModel model;

  llama2_7b (&model);
  /* use_more_bits over 32 layers: 0–3, 6, 9, …, 27 and 28–31 = 16; of the
   * first 16: 0–3 and 6, 9, 12, 15 = 8. */
  g_assert_cmpint (hr_gguf_rich_layers (&model, HR_WEIGHTS_Q4_K_M, 0, 32), ==, 16);
  g_assert_cmpint (hr_gguf_rich_layers (&model, HR_WEIGHTS_Q4_K_M, 0, 16), ==, 8);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_Q4_0), ==, 3825065984.0);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_Q4_K_M), ==, 4080263168.0);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_Q5_K_M), ==, 4782415872.0);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_Q6_K), ==, 5528453120.0);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_Q8_0), ==, 7160348672.0);
}

/* Llama 3 8B Q4_K_M: the same 16 of 32 layers lifted; GQA makes v 4096 ×
 * 1024, down 14336 × 4096, vocabulary 128256: 4,912,898,048 B = 4.58 GiB
 * (llama-bench: "llama 8B Q4_K - Medium 4.58 GiB"). */
static void
test_gguf_llama3 (void)
{
  HrModel model;

  llama3_8b (&model);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_Q4_K_M), ==, 4912898048.0);
}

/* IQ files (imatrix-quantised, as published), block sizes from
 * ggml-common.h and types from llama_tensor_get_type_impl.
 * Llama 3 8B (GQA 4) per layer: q and o 16,777,216; k and v 4,194,304;
 * gate, up and down 176,160,768 (218,103,808 in all); 32 layers; tables
 * 128,256 × 4096 = 525,336,576 each; norms 65 × 4096 × 4 B = 1,064,960.
 *   IQ4_XS (136/256): attn_v Q5_K (176/256) for GQA ≥ 4:
 *     (213,909,504 × 0.53125 + 4,194,304 × 0.6875) × 32 = 3,728,736,256;
 *     token_embd IQ4_XS 279,085,056; output Q6_K 430,940,160;
 *     total 4,439,826,432 B (4.14 GiB).
 *   IQ3_XXS (98/256): attn_q and attn_k IQ2_S (82/256), attn_v Q4_K,
 *     attn_output IQ3_S (110/256): per layer 5,373,952 + 1,343,488 +
 *     2,359,296 + 7,208,960 + 176,160,768 × 0.3828125 (67,436,544) =
 *     83,722,240, × 32 = 2,679,111,680; token_embd IQ3_S 225,730,560,
 *     output Q5_K 361,168,896; total 3,267,076,096 B (3.04 GiB).
 * Llama 2 7B (no GQA) IQ2_XXS (66/256): attn_v Q2_K (84/256), ffn_down Q2_K
 *   in layers 0–3 (the first eighth): a layer 16,777,216 × 0.328125 +
 *   185,597,952 × 0.2578125 = 53,354,496, the first four 3,170,304 more;
 *   28 × 53,354,496 + 4 × 56,524,800 = 1,720,025,088; token_embd Q2_K
 *   43,008,000; output Q5_K 90,112,000; total 1,854,210,048 B (1.73 GiB). */
static void
test_gguf_iq (void)
{
  HrModel model;

  llama3_8b (&model);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_IQ4_XS), ==, 4439826432.0);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_IQ3_XXS), ==, 3267076096.0);
  llama2_7b (&model);
  g_assert_cmpint (hr_gguf_rich_layers (&model, HR_WEIGHTS_IQ2_XXS, 0, 32), ==, 4);
  g_assert_cmpint (hr_gguf_rich_layers (&model, HR_WEIGHTS_IQ2_XXS, 2, 32), ==, 2);
  g_assert_cmpint (hr_gguf_rich_layers (&model, HR_WEIGHTS_IQ4_XS, 0, 32), ==, 0);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_IQ2_XXS), ==, 1854210048.0);
  /* Bytes per weight of the main types: 2.0625, 2.3125, 3.0625, 4.5, 4.25 bits. */
  g_assert_cmpfloat (hr_weight_precision_bytes (HR_WEIGHTS_IQ2_XXS) * 8.0, ==, 2.0625);
  g_assert_cmpfloat (hr_weight_precision_bytes (HR_WEIGHTS_IQ2_XS) * 8.0, ==, 2.3125);
  g_assert_cmpfloat (hr_weight_precision_bytes (HR_WEIGHTS_IQ3_XXS) * 8.0, ==, 3.0625);
  g_assert_cmpfloat (hr_weight_precision_bytes (HR_WEIGHTS_IQ4_NL) * 8.0, ==, 4.5);
  g_assert_cmpfloat (hr_weight_precision_bytes (HR_WEIGHTS_IQ4_XS) * 8.0, ==, 4.25);
}

/* AWQ and GPTQ are int4 in groups of 128 with an fp16 scale and a 4-bit
 * zero per group: 0.5 + 2.5 / 128 B per weight, tables at 16 bit. */
static void
test_awq_gptq (void)
{
  HrModel model;

  llama2_7b (&model);
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_AWQ), ==, weights_of (&model, HR_WEIGHTS_INT4));
  g_assert_cmpfloat (weights_of (&model, HR_WEIGHTS_GPTQ), ==, weights_of (&model, HR_WEIGHTS_INT4));
  g_assert_cmpstr (hr_weight_precision_name (HR_WEIGHTS_Q4_K_M), ==, "q4_k_m");
}

/* llama.cpp, Llama 2 7B Q4_0, --gpu-layers 16 of 32, n_ctx 4096, f16 KV:
 *   weights 3,825,065,984 B (above) less token_embd 131,072,000 × 0.5625 =
 *   73,728,000 and output 131,072,000 × 210/256 = 107,520,000 leaves
 *   3,643,817,984 B of layers, 113,869,312 B each on average;
 *   GPU: the last 16 layers, 1,821,908,992 B, and their KV 16 × 4096 ×
 *   (2 × 4096 × 2 B) = 1 GiB; the output stays on the CPU (16 ≤ 32);
 *   CPU: 16 layers + both tables = 2,003,156,992 B and 1 GiB of KV.
 *   A token at full context reads on the CPU 1,821,908,992 + 107,520,000 +
 *   1,073,741,824 = 3,003,170,816 B at 89.6 GB/s = 33.52 ms, and on the GPU
 *   1,821,908,992 + 1,073,741,824 = 2,895,650,816 B at 3.35 TB/s × 0.7 =
 *   1.235 ms. */
static void
test_llamacpp_offload (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrGpu gpu = h100 ();

  llama2_7b (&model);
  hr_inference_init (&inf);
  inf.weights = HR_WEIGHTS_Q4_0;
  inf.kv_dtype = HR_KV_FP16;
  hr_serving_init (&serving);
  serving.engine = HR_ENGINE_LLAMACPP;
  serving.max_model_len = 4096;
  serving.gpu_layers = 16;
  plan (&model, &inf, &serving, &gpu, &p);

  g_assert_cmpint (p.gpu_layers, ==, 16);
  g_assert_cmpfloat (p.weights, ==, 1821908992.0);
  g_assert_cmpfloat (p.cpu_weights, ==, 2003156992.0);
  g_assert_cmpfloat (p.kv_cache, ==, GiB);
  g_assert_cmpfloat (p.cpu_kv_cache, ==, GiB);
  g_assert_cmpfloat_with_epsilon (p.cpu_decode_time, 3003170816.0 / 89.6e9, 1e-12);
  g_assert_cmpfloat_with_epsilon (p.gpu_decode_time, 2895650816.0 / (3.35e12 * 0.7), 1e-12);
  /* Continuous batching times its decode steps by that split. */
  {
    HrServingLatency lat;
    HrError err = { 0 };

    g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==, HR_OK);
    g_assert_cmpfloat (lat.time_per_output_token, ==, p.gpu_decode_time + p.cpu_decode_time);
  }

  /* All 33 (32 layers and the output): only the token embedding stays. */
  serving.gpu_layers = 33;
  plan (&model, &inf, &serving, &gpu, &p);
  g_assert_cmpfloat (p.cpu_weights, ==, 73728000.0);
  g_assert_cmpfloat (p.weights, ==, 3825065984.0 - 73728000.0);
  g_assert_cmpfloat (p.cpu_decode_time, ==, 0.0);
}

/* Continuous batching of 600 requests of 1024 + 256 tokens, Llama 3 8B on
 * one H100 under vLLM (max_model_len 8192: 28,336 blocks of 16, above).
 * A request holds ⌈1280 ÷ 16⌉ = 80 blocks, so the cache holds 28,336 ÷ 80 =
 * 354 at once; max_num_seqs 256 admits 256: 3 waves (256, 256, 88). The
 * 8192-token step budget gives each of the 256 prompts 32 tokens a step
 * (32 steps of prefill). Each wave is timed as hr_inference_latency() of 256
 * sequences with prefill_chunk 32; the batch takes three of them. With
 * max_num_seqs 1000 the KV cache is the limit: 354 in flight, 2 waves. */
static void
test_continuous_batching (void)
{
  HrModel model;
  HrInference inf;
  HrInference wave;
  HrServing serving;
  HrServingPlan p;
  HrServingLatency lat;
  HrInferenceLatency direct;
  HrError err = { 0 };
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  inf.batch = 600;
  hr_serving_init (&serving);
  serving.max_model_len = 8192;
  serving.max_num_batched_tokens = 8192;
  plan (&model, &inf, &serving, &gpu, &p);
  g_assert_cmpint (p.kv_blocks, ==, 28336);
  g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==, HR_OK);

  g_assert_cmpint (lat.running, ==, 256);
  g_assert_cmpint (lat.waves, ==, 3);
  g_assert_cmpint (lat.prefill_chunk, ==, 32);
  wave = inf;
  wave.batch = 256;
  wave.prefill_chunk = 32;
  g_assert_cmpint (hr_inference_latency (&model, &wave, &gpu, &direct, &err), ==, HR_OK);
  /* Each wave's first tokens wait 4 ms more for vLLM's step work. */
  g_assert_cmpfloat (lat.first_token_overhead, ==, 0.004);
  g_assert_cmpfloat (lat.time_to_first_token, ==, direct.time_to_first_token + 0.004);
  g_assert_cmpfloat (lat.time_per_output_token, ==, direct.time_per_output_token);
  g_assert_cmpfloat_with_epsilon (lat.end_to_end, 3.0 * (direct.end_to_end + 0.004), 1e-12);
  g_assert_cmpfloat_with_epsilon (lat.tokens_per_second,
                                  600.0 * 256.0 / (3.0 * (direct.end_to_end + 0.004)), 1e-9);

  /* A request arriving while the other 255 decode: each 8192-token step
   * carries their 255 decode tokens and 8192 − 255 = 7937 of its 1024-token
   * prompt, so the prompt takes one step: its FLOPs plus the 255 decode
   * steps' FLOPs against the larger of the two memory reads, then the
   * memory-bound kernels of both (the prompt's 1024 tokens and the others'
   * 255), which run between the products. */
  {
    HrInference alone = inf;
    HrInference others = inf;
    HrInferenceLatency a;
    HrInferenceLatency o;

    alone.batch = 1;
    alone.generate = 0;
    alone.prefill_chunk = 7937;
    others.batch = 255;
    g_assert_cmpint (hr_inference_latency (&model, &alone, &gpu, &a, &err), ==, HR_OK);
    g_assert_cmpint (hr_inference_latency (&model, &others, &gpu, &o, &err), ==, HR_OK);
    g_assert_cmpint (lat.loaded_prefill_chunk, ==, 1024);
    g_assert_cmpint (lat.loaded_prefill_steps, ==, 1);
    g_assert_cmpfloat_with_epsilon (lat.time_to_first_token_loaded,
                                    fmax (a.prefill_compute_time + o.decode_compute_time,
                                          fmax (a.prefill_memory_time, o.decode_memory_time)) +
                                    a.prefill_elementwise_time + o.decode_elementwise_time + 0.004,
                                    1e-12);
    /* Decoding others slow the first token down. */
    g_assert_cmpfloat (lat.time_to_first_token_loaded, >, a.time_to_first_token);
  }

  serving.max_num_seqs = 1000;
  g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==, HR_OK);
  g_assert_cmpint (lat.running, ==, 354);
  g_assert_cmpint (lat.waves, ==, 2);

  /* hf batches statically: every request at once, whole prompts. */
  serving.engine = HR_ENGINE_HF;
  g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==, HR_OK);
  g_assert_cmpint (lat.running, ==, 600);
  g_assert_cmpint (lat.prefill_chunk, ==, 1024);
}

/* The first token at a short prompt: Llama 3 8B, one request of 128 tokens
 * on the test H100 (3.35 TB/s × 0.7 = 2.345 TB/s; 989.4 TFLOP/s × 0.5).
 * The prefill reads the weights once less the embedding table:
 * 16,060,522,496 − 128,256 × 4096 × 2 = 15,009,849,344 B, plus 128 tokens'
 * K and V (128 × 131,072 B) = 15,026,626,560 B in 6.408 ms; its 2.1 TFLOP
 * take 4.2 ms, so it is memory-bound. Its memory-bound kernels move 128 ×
 * 5,505,024 B (docs/inference.md, "Rates") = 704,643,072 B, 0.300 ms more:
 * 6.708 ms. vLLM's step work adds 4 ms (RFC #6854): 10.71 ms, of which the
 * overhead is 37 %. SGLang has no published
 * figure (0); a set figure replaces the engine's. */
static void
test_first_token_overhead (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrServingLatency lat;
  HrInferenceLatency direct;
  HrError err = { 0 };
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  inf.prompt = 128;
  inf.generate = 128;
  hr_serving_init (&serving);
  plan (&model, &inf, &serving, &gpu, &p);
  g_assert_cmpint (hr_inference_latency (&model, &inf, &gpu, &direct, &err), ==, HR_OK);
  g_assert_cmpfloat_with_epsilon (direct.time_to_first_token, 15731269632.0 / 2.345e12, 1e-6);
  g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==, HR_OK);
  g_assert_cmpfloat_with_epsilon (lat.time_to_first_token, 15731269632.0 / 2.345e12 + 0.004, 1e-6);
  g_assert_cmpfloat (lat.time_per_output_token, ==, direct.time_per_output_token);

  serving.engine = HR_ENGINE_SGLANG;
  plan (&model, &inf, &serving, &gpu, &p);
  g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==, HR_OK);
  g_assert_cmpfloat (lat.first_token_overhead, ==, 0.0);
  g_assert_cmpfloat (lat.time_to_first_token, ==, direct.time_to_first_token);

  serving.first_token_overhead = 0.010;
  g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==, HR_OK);
  g_assert_cmpfloat (lat.time_to_first_token, ==, direct.time_to_first_token + 0.010);

  serving.first_token_overhead = 11.0;
  g_assert_cmpint (hr_serving_latency (&model, &inf, &serving, &gpu, &p, &lat, &err), ==,
                   HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "first_token_overhead");
}

/* An fp8 checkpoint after the Llama 3 recipe (§6.2): Llama 3 8B keeps its
 * attention (q, o 2 × 4096² + k, v 2 × 4096 × 1024 = 41,943,040 weights a
 * layer) at 16 bit and layers 0 and 31 whole; the MLP (3 × 4096 × 14336 =
 * 176,160,768) of the other 30 is fp8. With 2 norms of 4096 a layer at 2 B:
 *   30 × (176,160,768 + 2 × 41,943,040 + 16,384) = 7,801,896,960
 *   2 × (2 × 218,103,808 + 16,384)               =   872,448,000
 *   embedding and LM head 2 × 128256 × 4096 × 2  = 2,101,346,304
 *   final norm                                    =         8,192
 *   total 10,775,699,456 B, against 9,081,200,640 B all fp8 (+18.7 %). */
static void
test_fp8_keep_attention (void)
{
  HrModel model;
  HrInference inf;
  HrInferenceMemory m;
  HrError err = { 0 };
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  inf.weights = HR_WEIGHTS_FP8;
  g_assert_cmpint (hr_inference_memory (&model, &inf, &gpu, &m, &err), ==, HR_OK);
  g_assert_cmpfloat (m.weights, ==, 9081200640.0);
  inf.fp8_keep_attention = true;
  g_assert_cmpint (hr_inference_memory (&model, &inf, &gpu, &m, &err), ==, HR_OK);
  g_assert_cmpfloat (m.weights, ==, 10775699456.0);
  /* The flag means nothing to other precisions. */
  inf.weights = HR_WEIGHTS_BF16;
  g_assert_cmpint (hr_inference_memory (&model, &inf, &gpu, &m, &err), ==, HR_OK);
  g_assert_cmpfloat (m.weights, ==, 16060522496.0);
}

static void
test_names (void)
{
  HrEngine engine = HR_ENGINE_HF;

  for (int i = 0; i < HR_ENGINE_N; i++)
    {
      g_assert_true (hr_engine_from_name (hr_engine_name ((HrEngine) i), &engine));
      g_assert_cmpint (engine, ==, i);
    }
  g_assert_false (hr_engine_from_name ("ollama", &engine));
}

static void
test_invalid (void)
{
  HrModel model;
  HrInference inf;
  HrServing serving;
  HrServingPlan p;
  HrError err = { 0 };
  HrGpu gpu = h100 ();

  llama3_8b (&model);
  hr_inference_init (&inf);
  hr_serving_init (&serving);
  serving.gpu_memory_utilization = 1.5;
  g_assert_cmpint (hr_serving_plan (&model, &inf, &serving, &gpu, &p, &err), ==,
                   HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "gpu_memory_utilization");

  /* A max_model_len under one request's prompt + generated tokens (the
   * defaults' 1,024 + 256 = 1,280) is refused: the engine would reject
   * every request, not serve it in a smaller cache. 1,280 itself is fine. */
  serving.gpu_memory_utilization = 0.9;
  serving.max_model_len = 1279;
  g_assert_cmpint (hr_serving_plan (&model, &inf, &serving, &gpu, &p, &err), ==,
                   HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "max_model_len");
  g_assert_cmpint (err.value, ==, 1279);
  g_assert_cmpint (err.other, ==, 1280);
  serving.max_model_len = 1280;
  g_assert_cmpint (hr_serving_plan (&model, &inf, &serving, &gpu, &p, &err), ==, HR_OK);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/serving/driver-memory", test_driver_memory);
  g_test_add_func ("/serving/vllm/llama3-h100", test_vllm_llama3_h100);
  g_test_add_func ("/serving/vllm/llama2-a100", test_vllm_llama2_a100);
  g_test_add_func ("/serving/vllm/no-room", test_vllm_no_room);
  g_test_add_func ("/serving/sglang/llama3-h100", test_sglang_llama3_h100);
  g_test_add_func ("/serving/trtllm/llama3-h100", test_trtllm_llama3_h100);
  g_test_add_func ("/serving/llamacpp/context", test_llamacpp_context);
  g_test_add_func ("/serving/gguf/llama2", test_gguf_llama2);
  g_test_add_func ("/serving/gguf/llama3", test_gguf_llama3);
  g_test_add_func ("/serving/gguf/iq", test_gguf_iq);
  g_test_add_func ("/serving/awq-gptq", test_awq_gptq);
  g_test_add_func ("/serving/llamacpp/offload", test_llamacpp_offload);
  g_test_add_func ("/serving/continuous-batching", test_continuous_batching);
  g_test_add_func ("/serving/first-token-overhead", test_first_token_overhead);
  g_test_add_func ("/serving/fp8-keep-attention", test_fp8_keep_attention);
  g_test_add_func ("/serving/names", test_names);
  g_test_add_func ("/serving/invalid", test_invalid);

  return g_test_run ();
}
