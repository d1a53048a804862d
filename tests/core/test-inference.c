/* test-inference.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The serving memory (hr-inference.c): KV cache, weights, totals, limits and
 * validation; the latency is test-inference-latency.c. Every expected figure
 * is derived by hand in the comment above its check, from the model's
 * published shape (its Hugging Face config.json).
 */
#include <json-glib/json-glib.h>

#include "test-inference.h"

/* ---- KV cache ------------------------------------------------------------ */

/* measured-small.json: the K and V tensors of every layer after a prefill of
 * batch_size × seq_len, in the run's dtype, measured in PyTorch. */
static void
test_kv_measured_small (void)
{
  g_autofree char *path = g_build_filename (TEST_DATA_DIR, "reference", "measured-small.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *configs;
  guint checked = 0;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  configs = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                          "configs");
  for (guint i = 0; i < json_array_get_length (configs); i++)
    {
      JsonObject *config = json_array_get_object_element (configs, i);
      JsonObject *hp = json_object_get_object_member (config, "hyperparameters");
      JsonObject *kv = json_object_get_object_member (config, "kv_cache_prefill");
      const char *dtype = json_object_get_string_member (kv, "dtype");
      HrModel m;
      HrInference inf;
      HrInferenceMemory mem;

      hr_model_init (&m);
      m.n_layers = json_object_get_int_member (hp, "num_hidden_layers");
      m.hidden_size = json_object_get_int_member (hp, "hidden_size");
      m.n_heads = json_object_get_int_member (hp, "num_attention_heads");
      m.n_kv_heads = json_object_get_int_member (hp, "num_key_value_heads");
      m.head_dim = json_object_get_int_member (hp, "head_dim");
      m.ffn_size = json_object_get_int_member (hp, "intermediate_size");
      m.vocab_size = json_object_get_int_member (hp, "vocab_size");
      m.max_positions = 512;

      inf = settings (json_object_get_int_member (hp, "batch_size"),
                      json_object_get_int_member (hp, "seq_len"), 0);
      inf.paged_block = 0;
      g_assert_true (hr_kv_dtype_from_name (g_str_equal (dtype, "float32") ? "fp32" : "bf16",
                                            &inf.kv_dtype));
      g_assert_true (g_str_equal (dtype, "float32") || g_str_equal (dtype, "bfloat16"));
      mem = memory_of (&m, &inf);
      g_assert_cmpfloat (mem.kv_cache, ==, (double) json_object_get_int_member (kv, "bytes"));
      checked++;
    }
  /* gpt2ish: 2 layers × 2 (K, V) × batch 2 × 4 heads × 128 × 64 × 4 B
   * = 1048576; llamaish GQA: 2 × 2 × 2 × 2 KV heads × 128 × 32 × 4 B
   * = 262144 (the 8 query heads do not count). */
  g_assert_cmpuint (checked, >=, 4);
}

/* Falcon-7B caches one KV head: 2 × 1 × 64 × 32 layers × 2 B = 8192 B per
 * token in bf16 (reading num_kv_heads = 71 would give 71× that). With TP
 * only 1 or 71 ranks split its 71 query heads; at 71 each rank keeps a
 * replica of the one KV head, so 8192 B per token on every rank. */
static void
test_kv_falcon_mqa (void)
{
  HrModel m = falcon_7b ();
  HrInference inf = settings (1, 2048, 0);
  HrInferenceMemory mem = memory_of (&m, &inf);
  HrError err = { 0 };

  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 8192.0);
  /* 2048 tokens × 8192 B = 16777216 B. */
  g_assert_cmpfloat (mem.kv_cache, ==, 16777216.0);
  g_assert_cmpint (mem.kv_heads_per_gpu, ==, 1);

  inf.tensor_parallel = inf.gpus = 71;
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 8192.0);

  inf.tensor_parallel = inf.gpus = 2;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  g_assert_cmpstr (err.field, ==, "tensor_parallel");
  g_assert_cmpint (err.other, ==, 71);
}

/* Llama-3-8B, GQA: 2 × 8 KV heads × 128 × 32 layers × 2 B = 131072 B per
 * token. TP 2 and 8 split the 8 KV heads: 65536 and 16384 B per rank. TP 16
 * has more ranks than KV heads: each rank replicates one head, so 16384 B
 * per rank, not 131072 / 16 = 8192. */
static void
test_kv_gqa_and_tp (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 1024, 0);
  HrInferenceMemory mem = memory_of (&m, &inf);

  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 131072.0);
  g_assert_cmpint (mem.kv_heads_per_gpu, ==, 8);
  /* 1024 tokens × 131072 B = 134217728 B = 128 MiB. */
  g_assert_cmpfloat (mem.kv_cache, ==, 134217728.0);

  inf.tensor_parallel = inf.gpus = 2;
  g_assert_cmpfloat (memory_of (&m, &inf).kv_cache_per_token, ==, 65536.0);
  inf.tensor_parallel = inf.gpus = 8;
  g_assert_cmpfloat (memory_of (&m, &inf).kv_cache_per_token, ==, 16384.0);
  inf.tensor_parallel = inf.gpus = 16;
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 16384.0);
  g_assert_cmpint (mem.kv_heads_per_gpu, ==, 1);
}

/* Mistral-7B v0.1 windows every layer at 4096. Per token 131072 B (as
 * Llama-3-8B); 8192 tokens keep 4096 per layer: 4096 × 131072 = 536870912 B
 * (512 MiB) against 8192 × 131072 = 1073741824 B (1 GiB) uncapped. Below
 * the window nothing is capped: 1000 tokens (1008 in blocks of 16). */
static void
test_kv_mistral_window (void)
{
  HrModel m = mistral_7b ();
  HrInference inf = settings (1, 8000, 192);
  HrInferenceMemory mem = memory_of (&m, &inf);

  g_assert_cmpfloat (mem.kv_cache, ==, 536870912.0);
  g_assert_cmpfloat (mem.kv_cache_uncapped, ==, 1073741824.0);

  inf.cap_sliding_window = false;
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache, ==, 1073741824.0);

  inf = settings (1, 1000, 0);
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache, ==, 1008.0 * 131072.0);
  g_assert_cmpfloat (mem.kv_cache_uncapped, ==, mem.kv_cache);
}

/* Gemma 2 9B: 2 × 8 × 256 × 2 B = 8192 B per token and layer, 42 layers:
 * 344064 B per token. At 8192 tokens the 21 windowed layers keep 4096 and
 * the 21 global ones 8192: 21 × 8192 B × (4096 + 8192) = 2113929216 B;
 * uncapped 42 × 8192 × 8192 B = 2818572288 B. */
static void
test_kv_gemma2_alternating (void)
{
  HrModel m = gemma2_9b ();
  HrInference inf = settings (1, 8192, 0);
  HrInferenceMemory mem = memory_of (&m, &inf);

  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 344064.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 2113929216.0);
  g_assert_cmpfloat (mem.kv_cache_uncapped, ==, 2818572288.0);
}

/* OLMo 3 7B (olmo3: 32 layers, 32 kv heads of 128; three layers in four
 * within 4096 tokens): 2 × 32 × 128 × 2 B = 16384 B per token and layer,
 * 524288 B per token. At 8192 tokens the 24 windowed layers keep 4096 and
 * the 8 global ones 8192: 16384 × (24 × 4096 + 8 × 8192) = 2684354560 B;
 * uncapped 32 × 16384 × 8192 = 4294967296 B. */
static void
test_kv_olmo3_three_in_four (void)
{
  HrModel m;
  HrInference inf = settings (1, 8192, 0);
  HrInferenceMemory mem;

  hr_model_init (&m);
  m.n_layers = 32;
  m.hidden_size = 4096;
  m.n_heads = m.n_kv_heads = 32;
  m.head_dim = 128;
  m.ffn_size = 11008;
  m.ffn_kind = HR_FFN_GATED;
  m.vocab_size = 100278;
  m.positions = HR_POSITIONS_ROTARY;
  m.norm_kind = HR_NORM_RMSNORM;
  m.norm_bias = false;
  m.norm_placement = HR_NORM_POST;
  m.qk_norm = m.qk_norm_full = true;
  m.qkv_bias = m.out_bias = m.mlp_bias = m.tied_embeddings = false;
  m.sliding_window = 4096;
  m.sliding_window_period = 4;
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 524288.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 2684354560.0);
  g_assert_cmpfloat (mem.kv_cache_uncapped, ==, 4294967296.0);
}

/* DeepSeek-V2-Lite caches the latent and the rope key per layer, one
 * "head": (512 + 64) × 2 B = 1152 B, × 27 layers = 31104 B per token
 * (its 16 heads would need 2 × 16 × 192 × 2 B = 12288 B per layer without
 * MLA). TP does not split the latent: 31104 B per token on each of 2 ranks.
 * Batch 4 × 1000 tokens, paged to 1008: 4 × 1008 × 31104 = 125411328 B. */
static void
test_kv_mla (void)
{
  HrModel m = deepseek_v2_lite ();
  HrInference inf = settings (4, 900, 100);
  HrInferenceMemory mem = memory_of (&m, &inf);

  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 31104.0);
  g_assert_cmpint (mem.kv_heads_per_gpu, ==, 1);
  g_assert_cmpfloat (mem.kv_cache, ==, 125411328.0);

  inf.tensor_parallel = inf.gpus = 2;
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 31104.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 125411328.0);
}

/* Llama-3-8B per token: 131072 B in bf16, so 262144 in fp32 and 65536 in
 * fp8 or int8. */
static void
test_kv_dtype (void)
{
  static const struct { const char *name; double per_token; } cases[] = {
    { "fp32", 262144.0 }, { "bf16", 131072.0 }, { "fp16", 131072.0 },
    { "fp8", 65536.0 }, { "int8", 65536.0 },
  };
  HrModel m = llama3_8b ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      HrInference inf = settings (1, 16, 0);

      g_assert_true (hr_kv_dtype_from_name (cases[i].name, &inf.kv_dtype));
      g_assert_cmpstr (hr_kv_dtype_name (inf.kv_dtype), ==, cases[i].name);
      g_assert_cmpfloat (memory_of (&m, &inf).kv_cache_per_token, ==, cases[i].per_token);
    }
}

/* Paged allocation rounds each sequence up to whole blocks: 3 sequences of
 * 1000 tokens take 1008 with blocks of 16, 1024 with blocks of 256, 1000
 * when contiguous; Llama-3-8B, 131072 B per token. */
static void
test_kv_paged (void)
{
  static const struct { int64_t block; double tokens; } cases[] = {
    { 0, 1000.0 }, { 1, 1000.0 }, { 16, 1008.0 }, { 256, 1024.0 }, { 1000, 1000.0 },
  };
  HrModel m = llama3_8b ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      HrInference inf = settings (3, 999, 1);

      inf.paged_block = cases[i].block;
      g_assert_cmpfloat (memory_of (&m, &inf).kv_cache, ==, 3.0 * cases[i].tokens * 131072.0);
    }
}

/* ---- Weights --------------------------------------------------------------- */

/* bf16 at TP 1: two bytes per parameter when the vocabulary is a multiple
 * of 64 (vLLM's padding): Llama-3-8B 8030261248 and Mistral-7B v0.1
 * 7241732096 parameters (known-models.json). GPT-2's 50257 pads to 50304:
 * 47 × 768 more rows, (124439808 + 36096) × 2 = 248951808 B. */
static void
test_weights_bf16 (void)
{
  HrModel llama = llama3_8b ();
  HrModel mistral = mistral_7b ();
  HrModel gpt2;
  HrInference inf = settings (1, 16, 0);

  hr_model_init (&gpt2);
  g_assert_cmpfloat (memory_of (&llama, &inf).weights, ==, 2.0 * 8030261248.0);
  g_assert_cmpfloat (memory_of (&mistral, &inf).weights, ==, 2.0 * 7241732096.0);
  g_assert_cmpfloat (memory_of (&gpt2, &inf).weights, ==, 248951808.0);
}

/* Llama-3-8B at TP 2: only the norms are whole on each rank, 32 × 2 × 4096
 * + 4096 = 266240; the rest is split: (8030261248 − 266240) / 2 + 266240 =
 * 4015263744 parameters, 8030527488 B.
 * At TP 16 the 8 KV heads are replicated: each rank has one, 2 × 4096 × 128
 * = 1048576 k/v weights per layer instead of 2 × 4096 × 1024 / 16 = 524288;
 * 32 × 524288 = 16777216 more parameters than an even split, 33554432 B. */
static void
test_weights_tp (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 16, 0);
  double even;

  inf.tensor_parallel = inf.gpus = 2;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==, 8030527488.0);

  inf.tensor_parallel = inf.gpus = 16;
  even = ((8030261248.0 - 266240.0) / 16.0 + 266240.0) * 2.0;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==, even + 33554432.0);
}

/* int4 with groups of 128 (AWQ): per group 64 B of weights, a 2 B fp16
 * scale and a 0.5 B packed zero point: 0.51953125 B per weight. Llama-3-8B
 * has 32 × (2·4096² + 2·4096·1024 + 3·4096·14336) = 6979321856 matrix
 * weights in its layers: 3625975808 B. The embedding and LM head stay at
 * 16 bit, 2 × 128256 × 4096 × 2 B = 2101346304 B, and the norms 266240 × 2
 * = 532480 B: 5727854592 B in all. Groups of 64 cost 2.5 / 64 B per weight
 * instead: 6979321856 × (0.5 + 2.5 / 64) = 3762290688 B for the layers. */
static void
test_weights_int4_groups (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 16, 0);

  g_assert_true (hr_weight_precision_from_name ("int4", &inf.weights));
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==, 5727854592.0);

  inf.group_size = 64;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==, 3762290688.0 + 2101346304.0 + 532480.0);

  /* int8, groups of 128: 1 + 3 / 128 B per weight (fp16 scale, 8-bit zero). */
  g_assert_true (hr_weight_precision_from_name ("int8", &inf.weights));
  inf.group_size = 128;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==,
                     6979321856.0 * (1.0 + 3.0 / 128.0) + 2101346304.0 + 532480.0);

  /* Quantising the embedding and LM head too: 2 × 525336576 weights at
   * 0.51953125 B = 545857536 B. */
  g_assert_true (hr_weight_precision_from_name ("int4", &inf.weights));
  inf.keep_embeddings_16bit = false;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==,
                     3625975808.0 + 545857536.0 + 532480.0);

  /* fp8: one byte per matrix weight, embeddings at 16 bit. */
  g_assert_true (hr_weight_precision_from_name ("fp8", &inf.weights));
  inf.keep_embeddings_16bit = true;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==, 6979321856.0 + 2101346304.0 + 532480.0);
}

/* Pipeline stages: Llama-3-8B at PP 2 has 16 layers per stage; the first
 * adds the embedding, the last the LM head and the final norm (4096 more
 * parameters), so the last is the most loaded: 16 layers of 218103808 + 8192
 * (matrices and two norms), + 525336576 + 4096 = 4015132672 parameters,
 * 8030265344 B. */
static void
test_weights_pp (void)
{
  HrModel m = llama3_8b ();
  HrModel gemma = gemma2_9b ();
  HrInference inf = settings (1, 16, 0);
  HrInferenceMemory mem;

  inf.pipeline_parallel = inf.gpus = 2;
  mem = memory_of (&m, &inf);
  g_assert_cmpint (mem.stage, ==, 1);
  g_assert_cmpint (mem.stage_layers, ==, 16);
  g_assert_cmpfloat (mem.weights, ==, 8030265344.0);
  /* Half the cache: 16 layers × 2 × 8 × 128 × 2 B = 65536 B per token. */
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 65536.0);

  /* Tied Gemma 2 at PP 2: the last stage holds its own copy of the table. */
  inf.pipeline_parallel = inf.gpus = 2;
  mem = memory_of (&gemma, &inf);
  g_assert_cmpint (mem.stage, ==, 1);
  /* 21 layers × (2·3584·4096 + 2·3584·2048 + 3·3584·14336 + 4·3584) +
   * 256000 × 3584 + 3584 = 21 × 198195200 + 917504000 + 3584 parameters. */
  g_assert_cmpfloat (mem.weights, ==, 2.0 * (21.0 * 198195200.0 + 917504000.0 + 3584.0));

  inf.pipeline_parallel = inf.gpus = 5;
  g_assert_cmpint (hr_inference_validate (&m, &inf, NULL), ==, HR_ERROR_NOT_DIVISIBLE);
}

/* DeepSeek-V2-Lite at TP 2: two ranks hold the split part once and the
 * replicated part twice, so 2 × w(TP 2) − w(TP 1) is the replicated part:
 * per layer kv_a_proj_with_mqa 2048 × 576 = 1179648, kv_a_layernorm 512 and
 * two norms 4096; the router of the 26 MoE layers, 64 × 2048 = 131072 each;
 * the final norm 2048: 27 × 1184256 + 26 × 131072 + 2048 = 35384832
 * parameters, 70769664 B (the 102400-row vocabulary needs no padding). */
static void
test_weights_mla_tp (void)
{
  HrModel m = deepseek_v2_lite ();
  HrInference inf = settings (1, 16, 0);
  double one = memory_of (&m, &inf).weights;
  double two;

  inf.tensor_parallel = inf.gpus = 2;
  two = memory_of (&m, &inf).weights;
  g_assert_cmpfloat (2.0 * two - one, ==, 70769664.0);
}

/* Mixtral-8x7B (46702792704 parameters, known-models.json) at TP 8: every
 * rank holds the norms, 32 × 2 × 4096 + 4096 = 266240, and the routers,
 * 32 × 8 × 4096 = 1048576, whole; each expert's matrices are split 8 ways
 * (vLLM FusedMoE): ((46702792704 − 1314816) / 8 + 1314816) × 2 B. */
static void
test_weights_moe_tp (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 16, 0);

  m.vocab_size = 32000;
  m.n_experts = 8;
  m.experts_per_token = 2;
  m.expert_ffn_size = 14336;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==, 2.0 * 46702792704.0);

  inf.tensor_parallel = inf.gpus = 8;
  g_assert_cmpfloat (memory_of (&m, &inf).weights, ==,
                     ((46702792704.0 - 1314816.0) / 8.0 + 1314816.0) * 2.0);
}

/* ---- Totals and fit -------------------------------------------------------- */

static void
test_memory_total (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (8, 4096, 512);
  HrInferenceMemory mem = memory_of (&m, &inf);

  g_assert_cmpfloat (mem.total, ==, mem.weights + mem.kv_cache + mem.activations + mem.overhead);
  g_assert_cmpfloat (mem.overhead, ==, 2.0 * GiB);
  g_assert_cmpfloat (mem.capacity, ==, 80.0 * GiB);
  g_assert_true (mem.fits);
  g_assert_cmpfloat (mem.headroom, ==, mem.capacity - mem.total);
  g_assert_cmpfloat (mem.overflow, ==, 0.0);
  /* 8 × 4608 tokens × 131072 B = 4831838208 B. */
  g_assert_cmpfloat (mem.kv_cache, ==, 4831838208.0);

  /* Activations, one layer at the 4096-token prefill of 8 sequences:
   * 32768 tokens × (2 × 4096 residual and normed input + max(attention
   * (2 × 32 + 2 × 8) × 128 = 10240, MLP 3 × 14336 = 43008)) × 2 B
   * = 32768 × 51200 × 2 = 3355443200 B, plus the logits of 8 sequences,
   * 128256 × 8 × (2 + 4) B = 6156288 B. */
  g_assert_cmpfloat (mem.activations, ==, 3355443200.0 + 6156288.0);

  /* A chunked prefill of 512 tokens per sequence shrinks it 8 times. */
  inf.prefill_chunk = 512;
  g_assert_cmpfloat (memory_of (&m, &inf).activations, ==, 3355443200.0 / 8.0 + 6156288.0);

  /* 64 sequences of 32768 tokens: 64 × 32768 × 131072 B = 256 GiB of cache. */
  inf = settings (64, 32000, 768);
  mem = memory_of (&m, &inf);
  g_assert_false (mem.fits);
  g_assert_cmpfloat (mem.headroom, ==, 0.0);
  g_assert_cmpfloat (mem.overflow, ==, mem.total - mem.capacity);
  g_assert_cmpfloat (mem.kv_cache, ==, 256.0 * GiB);
}

/* ---- Limits ---------------------------------------------------------------- */

static void
test_limits (void)
{
  HrModel m = llama3_8b ();
  HrInference inf = settings (1, 4096, 4096);
  HrGpu gpu = h100 ();
  HrInferenceLimits limits;
  HrError err = { 0 };

  /* A context long enough that memory bounds the longest one; capped below. */
  m.max_positions = 1048576;
  g_assert_cmpint (hr_inference_limits (&m, &inf, &gpu, &limits, &err), ==, HR_OK);

  /* Free for what grows with the batch: 80 GiB − 16060522496 B of weights
   * − 2 GiB of overhead = 67691339776 B. Each sequence of 8192 tokens needs
   * 8192 × 131072 = 1073741824 B of cache, 4096 × 51200 × 2 = 419430400 B
   * of prefill activations (see test_memory_total) and 128256 × 6 = 769536 B
   * of logits: 67691339776 / 1493941760 = 45.3, so 45. */
  g_assert_cmpint (limits.max_batch, ==, 45);
  inf.batch = limits.max_batch;
  g_assert_true (memory_of (&m, &inf).fits);
  inf.batch = limits.max_batch + 1;
  g_assert_false (memory_of (&m, &inf).fits);

  /* One sequence, 4096 generated: a prompt p costs 131072 B of cache and
   * 102400 B of activations per token, the generated tokens 4096 × 131072:
   * p = (67691339776 − 769536 − 536870912) / 233472 = 287630, so about
   * 291726 tokens in all (the paging moves it by less than a block). */
  inf.batch = 1;
  g_assert_cmpint (labs (limits.max_context - 291726), <=, 16);
  inf.prompt = limits.max_context - inf.generate;
  g_assert_true (memory_of (&m, &inf).fits);
  inf.prompt++;
  g_assert_false (memory_of (&m, &inf).fits);

  /* One GPU serves it. */
  g_assert_cmpint (limits.min_gpus, ==, 1);

  /* Meta-Llama-3-8B reads 8,192 positions: the 291,726 tokens that fit
   * are capped there. */
  m.max_positions = 8192;
  inf = settings (1, 4096, 4096);
  g_assert_cmpint (hr_inference_limits (&m, &inf, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.max_context, ==, 8192);
  m.max_positions = 1048576;

  /* 16 GiB GPUs: the 16.06e9 B of weights alone overflow one; two at TP 2
   * hold 8.03e9 B each plus 2 GiB of overhead. */
  gpu.memory_bytes = 16.0 * GiB;
  inf = settings (1, 4096, 4096);
  g_assert_cmpint (hr_inference_limits (&m, &inf, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.min_gpus, ==, 2);
  g_assert_cmpint (limits.min_gpus_tensor_parallel, ==, 2);
  g_assert_cmpint (limits.min_gpus_pipeline_parallel, ==, 1);
  g_assert_cmpint (limits.max_batch, ==, 0);
  g_assert_cmpint (limits.max_context, ==, 0);

  /* Falcon-7B's 71 heads allow TP 1 or 71 only: two GPUs means PP 2. */
  m = falcon_7b ();
  gpu.memory_bytes = 12.0 * GiB;
  g_assert_cmpint (hr_inference_limits (&m, &inf, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.min_gpus, ==, 2);
  g_assert_cmpint (limits.min_gpus_tensor_parallel, ==, 1);
  g_assert_cmpint (limits.min_gpus_pipeline_parallel, ==, 2);
}

/* Over a grid of models and settings, every figure is finite and not
 * negative, the total is the sum of its parts, and fits agrees with it. */
static void
test_results_well_formed (void)
{
  HrModel models[] = { llama3_8b (), mistral_7b (), falcon_7b (), gemma2_9b (), deepseek_v2_lite () };
  static const int64_t batches[] = { 1, 7, 256 };
  static const int64_t prompts[] = { 1, 100, 70000 };
  static const int64_t generates[] = { 0, 1, 33 };
  HrGpu gpu = h100 ();

  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    for (guint b = 0; b < G_N_ELEMENTS (batches); b++)
      for (guint p = 0; p < G_N_ELEMENTS (prompts); p++)
        for (guint g = 0; g < G_N_ELEMENTS (generates); g++)
          for (int w = 0; w < HR_WEIGHTS_N; w++)
            {
              HrInference inf = settings (batches[b], prompts[p], generates[g]);
              HrInferenceMemory mem;
              HrInferenceLatency lat;
              HrError err = { 0 };

              inf.weights = (HrWeightPrecision) w;
              inf.kv_dtype = (HrKvDtype) (w % HR_KV_N);
              g_assert_cmpint (hr_inference_memory (&models[i], &inf, &gpu, &mem, &err), ==, HR_OK);
              g_assert_cmpint (hr_inference_latency (&models[i], &inf, &gpu, &lat, &err), ==, HR_OK);
              {
                const double all[] = {
                  mem.weights, mem.kv_cache, mem.kv_cache_per_token, mem.kv_cache_uncapped,
                  mem.activations, mem.total, mem.headroom, mem.overflow,
                  lat.time_to_first_token, lat.time_per_output_token, lat.end_to_end,
                  lat.tokens_per_second, lat.tokens_per_second_per_sequence,
                  lat.prefill_compute_time, lat.prefill_memory_time, lat.decode_compute_time,
                  lat.decode_memory_time, lat.cost_per_million_tokens,
                };

                for (guint k = 0; k < G_N_ELEMENTS (all); k++)
                  g_assert_true (isfinite (all[k]) && all[k] >= 0.0);
              }
              g_assert_cmpfloat (mem.total, ==,
                                 mem.weights + mem.kv_cache + mem.activations + mem.overhead);
              g_assert_true (mem.fits == (mem.total <= mem.capacity));
              g_assert_cmpfloat (mem.kv_cache, <=, mem.kv_cache_uncapped);
              g_assert_cmpfloat (lat.time_to_first_token, >, 0.0);
              g_assert_true ((generates[g] > 1) == (lat.time_per_output_token > 0.0));
            }
}

/* ---- Validation ------------------------------------------------------------ */

static void
test_validation (void)
{
  HrModel m = llama3_8b ();
  HrModel odd = llama3_8b ();
  HrGpu gpu = h100 ();
  HrInference inf;
  HrInferenceMemory mem;
  HrError err = { 0 };

  inf = settings (0, 16, 0);
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "batch");

  inf = settings (1, 0, 0);
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "prompt");

  inf = settings (1, 16, -1);
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "generate");

  inf = settings (1, 16, 0);
  inf.tensor_parallel = 3;
  inf.gpus = 3;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  g_assert_cmpstr (err.field, ==, "tensor_parallel");

  /* 24 heads and 8 KV heads at TP 6: 6 divides the heads but neither
   * divides nor is a multiple of the KV heads. */
  odd.n_heads = 24;
  odd.head_dim = 128;
  inf.tensor_parallel = inf.gpus = 6;
  g_assert_cmpint (hr_inference_validate (&odd, &inf, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  g_assert_cmpstr (err.field, ==, "tensor_parallel");
  g_assert_cmpint (err.other, ==, 8);

  inf = settings (1, 16, 0);
  inf.tensor_parallel = 2;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "gpus");

  inf = settings (1, 16, 0);
  inf.pipeline_parallel = inf.gpus = 3;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  g_assert_cmpstr (err.field, ==, "pipeline_parallel");

  inf = settings (1, 16, 0);
  inf.weights = HR_WEIGHTS_INT4;
  inf.group_size = 0;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "group_size");
  inf.weights = HR_WEIGHTS_BF16;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_OK);

  inf = settings (1, 16, 0);
  inf.compute_efficiency = 0.0;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "compute_efficiency");
  inf.compute_efficiency = NAN;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_OUT_OF_RANGE);
  inf.compute_efficiency = 0.5;
  inf.memory_efficiency = 1.5;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "memory_efficiency");

  inf = settings (1, 16, 0);
  inf.overhead_bytes = -1.0;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "overhead_bytes");

  inf = settings (1, 16, 0);
  inf.paged_block = -16;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "paged_block");

  inf = settings (1, 16, 0);
  inf.price_per_gpu_hour = INFINITY;
  g_assert_cmpint (hr_inference_validate (&m, &inf, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "price_per_gpu_hour");

  /* A bad model is reported with its own field. */
  m.n_layers = 0;
  inf = settings (1, 16, 0);
  g_assert_cmpint (hr_inference_memory (&m, &inf, &gpu, &mem, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "num_hidden_layers");

  /* A GPU without memory or a precision it lacks. */
  m = llama3_8b ();
  gpu.memory_bytes = 0.0;
  g_assert_cmpint (hr_inference_memory (&m, &inf, &gpu, &mem, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "memory_bytes");

  /* Names round-trip; unknown names are refused. */
  g_assert_false (hr_weight_precision_from_name ("int3", &inf.weights));
  g_assert_false (hr_kv_dtype_from_name ("fp4", &inf.kv_dtype));
  g_assert_cmpstr (hr_weight_precision_name (HR_WEIGHTS_INT4), ==, "int4");
  g_assert_cmpstr (hr_bound_name (HR_BOUND_MEMORY), ==, "memory");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/inference/kv/measured-small", test_kv_measured_small);
  g_test_add_func ("/inference/kv/falcon-mqa", test_kv_falcon_mqa);
  g_test_add_func ("/inference/kv/gqa-and-tp", test_kv_gqa_and_tp);
  g_test_add_func ("/inference/kv/mistral-window", test_kv_mistral_window);
  g_test_add_func ("/inference/kv/gemma2-alternating", test_kv_gemma2_alternating);
  g_test_add_func ("/inference/kv/olmo3-three-in-four", test_kv_olmo3_three_in_four);
  g_test_add_func ("/inference/kv/mla", test_kv_mla);
  g_test_add_func ("/inference/kv/dtype", test_kv_dtype);
  g_test_add_func ("/inference/kv/paged", test_kv_paged);
  g_test_add_func ("/inference/weights/bf16", test_weights_bf16);
  g_test_add_func ("/inference/weights/tp", test_weights_tp);
  g_test_add_func ("/inference/weights/int4-groups", test_weights_int4_groups);
  g_test_add_func ("/inference/weights/pp", test_weights_pp);
  g_test_add_func ("/inference/weights/mla-tp", test_weights_mla_tp);
  g_test_add_func ("/inference/weights/moe-tp", test_weights_moe_tp);
  g_test_add_func ("/inference/memory/total", test_memory_total);
  g_test_add_func ("/inference/limits", test_limits);
  g_test_add_func ("/inference/well-formed", test_results_well_formed);
  g_test_add_func ("/inference/validate", test_validation);

  return g_test_run ();
}
