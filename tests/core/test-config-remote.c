/* test-config-remote.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading the families whose modeling code lives in each model's Hub
 * repository (trust_remote_code; hr-config-remote.c): EXAONE 3.0/3.5
 * (exaone) and InternLM3 (internlm3). The
 * configs are the published config.json files' shape keys as remembered
 * from the Hub (not fetched here: no network); the counts are derived from
 * the modules each modeling file builds, and each total is checked against
 * the size the model's card or Hub page gives.
 */
#include "test-config.h"
#include "test-inference.h"

/* EXAONE 3.0 and 3.5 (exaone): Llama's tensors under LG's names. */
static void
test_exaone (void)
{
  /* LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct's config.json (as remembered):
   * num_layers 32, hidden 4096, 32 heads over 8 kv heads, intermediate
   * 14336, vocabulary 102,400, untied. Per layer: q_proj and out_proj
   * 2·4096² = 33,554,432, k_proj and v_proj 2·4096·1024 = 8,388,608,
   * c_fc_0, c_fc_1 and c_proj 3·4096·14336 = 176,160,768, ln_1 and ln_2
   * 2·4096: 218,112,000 × 32 = 6,979,584,000; + ln_f 4096 + wte and lm_head
   * 2·102,400·4096 = 838,860,800: 7,818,448,896 (LG: 7.8B). */
  static const char exaone3[] =
    "{\"model_type\": \"exaone\", \"architectures\": [\"ExaoneForCausalLM\"],"
    " \"activation_function\": \"silu\", \"attention_dropout\": 0.0, \"bos_token_id\": 1,"
    " \"embed_dropout\": 0.0, \"eos_token_id\": 361, \"hidden_size\": 4096,"
    " \"initializer_range\": 0.02, \"intermediate_size\": 14336,"
    " \"layer_norm_epsilon\": 1e-05, \"max_position_embeddings\": 4096,"
    " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"num_layers\": 32,"
    " \"pad_token_id\": 0, \"rope_scaling\": null, \"rope_theta\": 500000.0,"
    " \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
    " \"vocab_size\": 102400}";
  /* LGAI-EXAONE/EXAONE-3.5-2.4B-Instruct's (as remembered): num_layers 30,
   * hidden 2560, 32 heads of 80 over 8 kv heads, intermediate 7168, tied.
   * Per layer: 2·2560² = 13,107,200, 2·2560·640 = 3,276,800,
   * 3·2560·7168 = 55,050,240, 2·2560: 71,439,360 × 30 = 2,143,180,800;
   * + 2560 + 102,400·2560 = 262,144,000: 2,405,327,360 (LG: 2.4B; the Hub
   * page: 2.41B). */
  static const char exaone35_small[] =
    "{\"model_type\": \"exaone\", \"architectures\": [\"ExaoneForCausalLM\"],"
    " \"activation_function\": \"silu\", \"hidden_size\": 2560,"
    " \"intermediate_size\": 7168, \"layer_norm_epsilon\": 1e-05,"
    " \"max_position_embeddings\": 32768, \"num_attention_heads\": 32,"
    " \"num_key_value_heads\": 8, \"num_layers\": 30, \"rope_theta\": 1000000.0,"
    " \"tie_word_embeddings\": true, \"vocab_size\": 102400}";
  /* EXAONE-3.5-32B-Instruct's (as remembered): num_layers 64, hidden 5120,
   * 40 heads of 128 over 8 kv heads, intermediate 27392, untied. Per layer:
   * 2·5120² = 52,428,800, 2·5120·1024 = 10,485,760, 3·5120·27392 =
   * 420,741,120, 2·5120: 483,665,920 × 64 = 30,954,618,880; + 5120 +
   * 2·102,400·5120 = 1,048,576,000: 32,003,200,000 (LG: 32B). */
  static const char exaone35_large[] =
    "{\"model_type\": \"exaone\", \"hidden_size\": 5120, \"intermediate_size\": 27392,"
    " \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"num_layers\": 64,"
    " \"tie_word_embeddings\": false, \"vocab_size\": 102400}";
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;

  p = count (exaone3, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 218112000);
  g_assert_cmpint (p.total, ==, 7818448896);
  g_assert_cmpint (p.active, ==, p.total);
  g_assert_cmpint (p.lm_head, ==, INT64_C (102400) * 4096);
  m = model_of (exaone3);
  g_assert_cmpint (m.n_layers, ==, 32);
  g_assert_cmpint (m.head_dim, ==, 128);
  g_assert_false (m.qkv_bias || m.out_bias || m.mlp_bias);
  /* Its cache: 2 (k, v) · 8 kv heads · 128 · 2 B = 4096 B per layer and
   * token, × 32 = 131,072 B per token; 4096 tokens: 536,870,912 B. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 131072.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 536870912.0);

  p = count (exaone35_small, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 71439360);
  g_assert_cmpint (p.total, ==, 2405327360);
  g_assert_cmpint (p.lm_head, ==, 0);
  /* 2 · 8 · 80 · 2 B · 30 = 76,800 B per token. */
  m = model_of (exaone35_small);
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 76800.0);

  p = count (exaone35_large, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 32003200000);

  /* num_hidden_layers is the attribute_map alias of num_layers; a null
   * intermediate_size is 4·hidden (ExaoneConfig); no kv heads: one per
   * query head; no tie_word_embeddings: tied (a saved config leaves it out
   * only when true). hidden 1024, 4 layers, 8 heads, vocabulary 1000: per
   * layer 4·1024² + 3·1024·4096 + 2·1024 = 16,779,264 × 4 = 67,117,056;
   * + 1024 + 1,024,000: 68,142,080. */
  p = count ("{\"model_type\": \"exaone\", \"hidden_size\": 1024, \"num_hidden_layers\": 4,"
             " \"num_attention_heads\": 8, \"intermediate_size\": null,"
             " \"vocab_size\": 1000}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 16779264);
  g_assert_cmpint (p.total, ==, 68142080);
  /* The shape keys are required (the configuration class is each
   * repository's), and a head_dim other than hidden / heads is refused. */
  expect_error ("{\"model_type\": \"exaone\", \"num_layers\": 4, \"num_attention_heads\": 8,"
                " \"vocab_size\": 1000}", HR_ERROR_MISSING, "hidden_size");
  expect_error ("{\"model_type\": \"exaone\", \"hidden_size\": 1024, \"num_layers\": 4,"
                " \"num_attention_heads\": 8, \"vocab_size\": 1000, \"head_dim\": 64}",
                HR_ERROR_UNSUPPORTED, "head_dim");
}

/* InternLM3 (internlm3): Llama's tensors with qkv_bias and bias. */
static void
test_internlm3 (void)
{
  /* internlm/internlm3-8b-instruct's config.json (as remembered): 48
   * layers, hidden 4096, 32 heads of head_dim 128 over 2 kv heads,
   * intermediate 10240, vocabulary 128,512, qkv_bias and bias false,
   * untied. Per layer: q_proj and o_proj 2·4096² = 33,554,432, k_proj and
   * v_proj 2·4096·256 = 2,097,152, the MLP 3·4096·10240 = 125,829,120, two
   * norms 2·4096: 161,488,896 × 48 = 7,751,467,008; + 4096 + 2·128,512·4096
   * = 1,052,770,304: 8,804,241,408 (the Hub page: 8.8B). */
  static const char internlm3[] =
    "{\"model_type\": \"internlm3\", \"architectures\": [\"InternLM3ForCausalLM\"],"
    " \"attention_dropout\": 0.0, \"bias\": false, \"bos_token_id\": 1,"
    " \"eos_token_id\": 2, \"head_dim\": 128, \"hidden_act\": \"silu\","
    " \"hidden_size\": 4096, \"initializer_range\": 0.02, \"intermediate_size\": 10240,"
    " \"max_position_embeddings\": 32768, \"num_attention_heads\": 32,"
    " \"num_hidden_layers\": 48, \"num_key_value_heads\": 2, \"qkv_bias\": false,"
    " \"rms_norm_eps\": 1e-05, \"rope_scaling\": {\"factor\": 6.0, \"rope_type\": \"dynamic\"},"
    " \"rope_theta\": 50000000, \"tie_word_embeddings\": false,"
    " \"torch_dtype\": \"bfloat16\", \"use_cache\": true, \"vocab_size\": 128512}";
  g_autofree char *biased = NULL;
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;

  p = count (internlm3, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 161488896);
  g_assert_cmpint (p.total, ==, 8804241408);
  m = model_of (internlm3);
  g_assert_cmpint (m.head_dim, ==, 128);
  g_assert_cmpint (m.n_kv_heads, ==, 2);
  /* Its cache: 2 · 2 kv heads · 128 · 2 B = 1024 B per layer and token,
   * × 48 = 49,152 B per token. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 49152.0);

  /* qkv_bias puts biases on q, k and v (4096 + 2·256), bias on o_proj
   * (4096) and the MLP (2·10240 + 4096): 33,280 a layer, 1,597,440 in all. */
  biased = g_strdup (internlm3);
  g_assert_nonnull (strstr (biased, "\"bias\": false"));
  memcpy (strstr (biased, "\"bias\": false"), "\"bias\": true ", 13);
  memcpy (strstr (biased, "\"qkv_bias\": false"), "\"qkv_bias\": true ", 17);
  p = count (biased, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total - 8804241408, ==, 1597440);
  m = model_of (biased);
  g_assert_true (m.qkv_bias && m.out_bias && m.mlp_bias);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/exaone", test_exaone);
  g_test_add_func ("/config/internlm3", test_internlm3);

  return g_test_run ();
}
