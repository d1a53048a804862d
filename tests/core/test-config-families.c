/* test-config-families.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading GPT-Neo, GPT-BigCode, CodeGen, OLMo 1, Persimmon and Nemotron
 * (hr-config.c), each against a real model's config.json, with the
 * derivation of its count and where an independent figure confirms it.
 */
#include "test-config.h"
#include "test-inference.h"

/* GPT-Neo (gpt_neo): q, k, v without bias, out_proj with one, c_fc/c_proj
 * with biases, 2 LayerNorms per layer + ln_f, wpe of 2048 rows, tied. The
 * causal masks `bias` (2048² per layer) and `masked_bias` are buffers, not
 * parameters, although pytorch_model.bin stores them. */
static void
test_gpt_neo (void)
{
  HrParams p;
  HrModel m;

  /* EleutherAI/gpt-neo-125M: per layer 4·768² + 768 + 2·768·3072 + 3072 +
   * 768 + 2·2·768 = 7,085,568 × 12 = 85,026,816; + 50,257·768 = 38,597,376
   * + 2048·768 = 1,572,864 + 2·768 = 125,198,592 (the card: 125M). */
  p = count ("{\"model_type\": \"gpt_neo\", \"hidden_size\": 768, \"num_layers\": 12,"
             " \"num_heads\": 12, \"intermediate_size\": null, \"vocab_size\": 50257,"
             " \"max_position_embeddings\": 2048, \"window_size\": 256,"
             " \"attention_types\": [[[\"global\", \"local\"], 6]],"
             " \"attention_layers\": [\"global\", \"local\", \"global\", \"local\", \"global\","
             " \"local\", \"global\", \"local\", \"global\", \"local\", \"global\", \"local\"]}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 125198592);
  g_assert_cmpint (p.lm_head, ==, 0);

  /* EleutherAI/gpt-neo-1.3B: per layer 4·2048² + 2048 + 2·2048·8192 + 8192 +
   * 2048 + 4·2048 = 50,352,128 × 24 = 1,208,451,072; + 50,257·2048 =
   * 102,926,336 + 2048·2048 = 4,194,304 + 4096 = 1,315,575,808, the "all
   * params" that HiQ's print_model() gives for GPTNeoForCausalLM loaded from
   * that checkpoint (50352128 per GPTNeoBlock, as here). */
  p = count ("{\"model_type\": \"gpt_neo\", \"hidden_size\": 2048, \"num_layers\": 24,"
             " \"num_heads\": 16, \"intermediate_size\": null, \"vocab_size\": 50257,"
             " \"max_position_embeddings\": 2048, \"window_size\": 256,"
             " \"attention_types\": [[[\"global\", \"local\"], 12]]}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1315575808);
  g_assert_cmpint (p.dense_layer, ==, 50352128);

  /* EleutherAI/gpt-neo-2.7B (hand-derived): per layer 4·2560² + 2560 +
   * 2·2560·10240 + 10240 + 2560 + 4·2560 = 78,668,800 × 32 = 2,517,401,600;
   * + 50,257·2560 = 128,657,920 + 2048·2560 = 5,242,880 + 5120 =
   * 2,651,307,520. Layers alternate global, local from layer 0. */
  m = model_of ("{\"model_type\": \"gpt_neo\", \"hidden_size\": 2560, \"num_layers\": 32,"
                " \"num_heads\": 20, \"intermediate_size\": null, \"vocab_size\": 50257,"
                " \"max_position_embeddings\": 2048, \"window_size\": 256,"
                " \"attention_types\": [[[\"global\", \"local\"], 16]]}");
  {
    HrError err = { 0 };

    g_assert_cmpint (hr_model_params (&m, &p, &err), ==, HR_OK);
  }
  g_assert_cmpint (p.total, ==, 2651307520);
  g_assert_cmpint (m.sliding_window, ==, 256);
  g_assert_false (hr_model_layer_is_sliding (&m, 0));
  g_assert_true (hr_model_layer_is_sliding (&m, 1));
  g_assert_false (hr_model_layer_is_sliding (&m, 30));
  g_assert_true (hr_model_layer_is_sliding (&m, 31));
  {
    HrLayerCounts counts;
    HrError err = { 0 };

    /* Stages see the pattern too: layers 3 to 9 hold 4 local and 3 global. */
    hr_model_count_layers (&m, 3, 10, &counts);
    g_assert_cmpint (counts.n[0][1], ==, 4);
    g_assert_cmpint (counts.n[0][0], ==, 3);
    /* The offset lies within the period. */
    m.sliding_window_offset = 2;
    g_assert_cmpint (hr_model_validate (&m, &err), ==, HR_ERROR_OUT_OF_RANGE);
    g_assert_cmpstr (err.field, ==, "attention_types");
  }

  /* Without attention_types, GPTNeoConfig's default gives 24 layers, even
   * ones global; local-first and all-global lists read too. */
  m = model_of ("{\"model_type\": \"gpt_neo\"}");
  g_assert_cmpint (m.n_layers, ==, 24);
  g_assert_false (hr_model_layer_is_sliding (&m, 0));
  g_assert_true (hr_model_layer_is_sliding (&m, 23));
  m = model_of ("{\"model_type\": \"gpt_neo\", \"num_layers\": 4,"
                " \"attention_types\": [[[\"local\", \"global\"], 2]]}");
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 3));
  m = model_of ("{\"model_type\": \"gpt_neo\", \"num_layers\": 4,"
                " \"attention_types\": [[[\"global\"], 4]]}");
  g_assert_cmpint (m.sliding_window, ==, 0);

  /* GPTNeoConfig refuses a list of another length, GPTNeoAttention another
   * kind; a pattern HrModel cannot hold is refused naming the key. */
  expect_error ("{\"model_type\": \"gpt_neo\", \"num_layers\": 12}",
                HR_ERROR_OUT_OF_RANGE, "attention_types");
  expect_error ("{\"model_type\": \"gpt_neo\", \"num_layers\": 4,"
                " \"attention_types\": [[[\"global\", \"local\"], 3]]}",
                HR_ERROR_OUT_OF_RANGE, "attention_types");
  expect_error ("{\"model_type\": \"gpt_neo\", \"num_layers\": 4,"
                " \"attention_types\": [[[\"global\", \"sparse\"], 2]]}",
                HR_ERROR_UNSUPPORTED, "attention_types");
  expect_error ("{\"model_type\": \"gpt_neo\", \"num_layers\": 4,"
                " \"attention_types\": [[[\"global\", \"global\", \"local\", \"local\"], 1]]}",
                HR_ERROR_UNSUPPORTED, "attention_types");
  expect_error ("{\"model_type\": \"gpt_neo\", \"num_layers\": 4,"
                " \"attention_types\": [[[\"global\", \"local\"], 2]],"
                " \"attention_layers\": [\"global\", \"local\"]}",
                HR_ERROR_OUT_OF_RANGE, "attention_layers");
}

/* GPT-Neo 1.3B's cache (16 heads of 128, 24 layers, 2 B): 2·16·128·2 =
 * 8192 B per token and layer, 196,608 per token. At 2048 tokens the 12
 * global layers keep 2048 and the 12 local ones their window of 256:
 * 8192·(12·2048 + 12·256) = 226,492,416 B; uncapped 24·8192·2048 =
 * 402,653,184 B. */
static void
test_gpt_neo_kv_cache (void)
{
  HrModel m = model_of ("{\"model_type\": \"gpt_neo\", \"hidden_size\": 2048,"
                        " \"num_layers\": 24, \"num_heads\": 16, \"window_size\": 256,"
                        " \"attention_types\": [[[\"global\", \"local\"], 12]]}");
  HrInference inf = settings (1, 2048, 0);
  HrInferenceMemory mem = memory_of (&m, &inf);

  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 196608.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 226492416.0);
  g_assert_cmpfloat (mem.kv_cache_uncapped, ==, 402653184.0);
}

/* GPT-BigCode (gpt_bigcode): c_attn of hidden + 2·head_dim rows under
 * multi_query, biases everywhere, learned positions, tied. */
static void
test_gpt_bigcode (void)
{
  HrParams p;
  HrModel m;

  /* bigcode/starcoder (StarCoder / StarCoderBase 15B): per layer
   * 6144·(6144 + 2·128) + 6400 = 39,328,000 (c_attn) + 6144² + 6144 (c_proj)
   * + 2·6144·24576 + 24576 + 6144 + 4·6144 = 379,128,064 × 40 =
   * 15,165,122,560; + 49,152·6144 = 301,989,888 + 8192·6144 = 50,331,648 +
   * 2·6144 = 15,517,456,384, the StarCoderBase-15B size another project's
   * FLOP tables use (training_attention.py: 15517456384). */
  p = count ("{\"model_type\": \"gpt_bigcode\", \"n_embd\": 6144, \"n_head\": 48,"
             " \"n_inner\": 24576, \"n_layer\": 40, \"n_positions\": 8192,"
             " \"vocab_size\": 49152, \"multi_query\": true,"
             " \"activation_function\": \"gelu_pytorch_tanh\"}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 15517456384);

  /* bigcode/starcoderbase-1b: per layer 2048·2304 + 2304 + 2048² + 2048 +
   * 2·2048·8192 + 8192 + 2048 + 4·2048 = 42,490,112 × 24 = 1,019,762,688; +
   * 49,152·2048 + 8192·2048 + 4096 = 1,137,207,296 (the same tables:
   * 1137207296). */
  p = count ("{\"model_type\": \"gpt_bigcode\", \"n_embd\": 2048, \"n_head\": 16,"
             " \"n_inner\": 8192, \"n_layer\": 24, \"n_positions\": 8192,"
             " \"vocab_size\": 49152, \"multi_query\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1137207296);

  /* bigcode/gpt_bigcode-santacoder (hand-derived): the same layers with
   * 49,280 tokens and 2048 positions: 1,019,762,688 + 49,280·2048 +
   * 2048·2048 + 4096 = 1,124,886,528. */
  p = count ("{\"model_type\": \"gpt_bigcode\", \"n_embd\": 2048, \"n_head\": 16,"
             " \"n_inner\": 8192, \"n_layer\": 24, \"n_positions\": 2048,"
             " \"vocab_size\": 49280, \"multi_query\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1124886528);

  /* multi_query false: as many kv heads as query heads (GPT-2's shapes). */
  m = model_of ("{\"model_type\": \"gpt_bigcode\", \"multi_query\": false}");
  g_assert_cmpint (m.n_kv_heads, ==, 12);
  m = model_of ("{\"model_type\": \"gpt_bigcode\"}");
  g_assert_cmpint (m.n_kv_heads, ==, 1);
  expect_error ("{\"model_type\": \"gpt_bigcode\", \"multi_query\": false,"
                " \"add_cross_attention\": true}", HR_ERROR_UNSUPPORTED, "add_cross_attention");
}

/* CodeGen (codegen): GPT-J's tensors, qkv_proj fused without bias. */
static void
test_codegen (void)
{
  HrParams p;

  /* Salesforce/codegen-350M-mono (hand-derived): per layer 3·1024² (qkv_proj)
   * + 1024² (out_proj) + 2·1024·4096 + 4096 + 1024 + 2·1024 (ln_1) =
   * 12,590,080 × 20 = 251,801,600; + 51,200·1024 (wte) + 2048 (ln_f) +
   * 51,200·1024 + 51,200 (lm_head with bias) = 356,712,448. */
  p = count ("{\"model_type\": \"codegen\", \"n_embd\": 1024, \"n_layer\": 20, \"n_head\": 16,"
             " \"n_ctx\": 2048, \"n_positions\": 2048, \"rotary_dim\": 32, \"vocab_size\": 51200,"
             " \"tie_word_embeddings\": false, \"activation_function\": \"gelu_new\"}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 356712448);
  g_assert_cmpint (p.lm_head, ==, 52480000);
}

/* OLMo 1 (olmo): Llama's projections without bias, no norm parameters. */
static void
test_olmo (void)
{
  HrParams p;

  /* allenai/OLMo-1B-hf (tied): per layer 4·2048² + 3·2048·8192 = 67,108,864
   * × 16 = 1,073,741,824; + 50,304·2048 = 1,176,764,416, the count that
   * other projects assert for OLMo-1B (sum(p.numel()) == 1176764416). */
  p = count ("{\"model_type\": \"olmo\", \"hidden_size\": 2048, \"intermediate_size\": 8192,"
             " \"num_hidden_layers\": 16, \"num_attention_heads\": 16, \"num_key_value_heads\": 16,"
             " \"max_position_embeddings\": 2048, \"vocab_size\": 50304, \"attention_bias\": false,"
             " \"clip_qkv\": null, \"tie_word_embeddings\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1176764416);
  g_assert_cmpint (p.norm, ==, 0);

  /* allenai/OLMo-7B-0424-hf (untied, clip_qkv 8): per layer 4·4096² +
   * 3·4096·11008 = 202,375,168 × 32 = 6,476,005,376; + 2·50,304·4096 =
   * 6,888,095,744, OLMo-7B's total_params in other projects' tables. */
  p = count ("{\"model_type\": \"olmo\", \"hidden_size\": 4096, \"intermediate_size\": 11008,"
             " \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 32,"
             " \"max_position_embeddings\": 4096, \"vocab_size\": 50304, \"attention_bias\": false,"
             " \"clip_qkv\": 8.0, \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 6888095744);
}

/* Persimmon (persimmon): fused query_key_value, q/k LayerNorms per head,
 * squared-ReLU MLP, biases everywhere but the head. */
static void
test_persimmon (void)
{
  HrParams p;

  /* adept/persimmon-8b-base (hand-derived; Adept calls it "8B", it counts
   * 9.4 B with both 262,144-token embeddings): per layer 4096·12288 + 12288
   * (query_key_value) + 4096² + 4096 (dense) + 2·2·64 (q/k_layernorm) +
   * 2·4096·16384 + 16384 + 4096 (MLP) + 2·2·4096 = 201,380,096 × 36 =
   * 7,249,683,456; + 2·262,144·4096 = 2,147,483,648 + 8192 =
   * 9,397,175,296. */
  p = count ("{\"model_type\": \"persimmon\", \"hidden_size\": 4096, \"intermediate_size\": 16384,"
             " \"num_hidden_layers\": 36, \"num_attention_heads\": 64,"
             " \"max_position_embeddings\": 16384, \"vocab_size\": 262144, \"qk_layernorm\": true,"
             " \"partial_rotary_factor\": 0.5, \"hidden_act\": \"relu2\", \"rope_theta\": 25000.0,"
             " \"layer_norm_eps\": 1e-05, \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 9397175296);
  g_assert_cmpint (p.dense_layer, ==, 201380096);
}

/* Nemotron (nemotron): Llama's q, k, v, o; up/down MLP; LayerNorm1P with
 * bias. */
static void
test_nemotron (void)
{
  HrModel m;
  HrParams p;

  /* Nemotron-4 4B / Minitron-4B (the config TensorRT-LLM tests with;
   * hand-derived): per layer 3072·3072 + 2·3072·1024 + 3072·3072 +
   * 2·3072·9216 + 2·2·3072 = 81,801,216 × 32 = 2,617,638,912; +
   * 2·256,000·3072 = 1,572,864,000 + 2·3072 = 4,190,509,056. kv_channels is
   * not NemotronConfig's: head_dim is 3072 / 24 = 128 anyway. */
  p = count ("{\"model_type\": \"nemotron\", \"hidden_act\": \"relu2\", \"hidden_size\": 3072,"
             " \"intermediate_size\": 9216, \"max_position_embeddings\": 4096,"
             " \"num_attention_heads\": 24, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8,"
             " \"norm_eps\": 1e-05, \"rope_theta\": 10000, \"partial_rotary_factor\": 0.5,"
             " \"tie_word_embeddings\": false, \"vocab_size\": 256000, \"kv_channels\": 128}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 4190509056);

  /* An explicit head_dim wider than hidden / heads (Minitron-8B keeps
   * Nemotron-4 15B's 48 heads of 128 over 4096): q 4096·6144, o 6144·4096. */
  m = model_of ("{\"model_type\": \"nemotron\", \"hidden_size\": 4096, \"num_attention_heads\": 48,"
                " \"head_dim\": 128, \"num_key_value_heads\": 8}");
  g_assert_cmpint (m.head_dim, ==, 128);
  g_assert_cmpfloat (m.rotary_fraction, ==, 0.5);
  expect_error ("{\"model_type\": \"nemotron\"}", HR_ERROR_MISSING, "num_key_value_heads");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/gpt-neo", test_gpt_neo);
  g_test_add_func ("/config/gpt-neo-kv-cache", test_gpt_neo_kv_cache);
  g_test_add_func ("/config/gpt-bigcode", test_gpt_bigcode);
  g_test_add_func ("/config/codegen", test_codegen);
  g_test_add_func ("/config/olmo", test_olmo);
  g_test_add_func ("/config/persimmon", test_persimmon);
  g_test_add_func ("/config/nemotron", test_nemotron);

  return g_test_run ();
}
