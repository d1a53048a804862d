/* test-config-remote.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading the families whose modeling code lives in each model's Hub
 * repository (trust_remote_code; hr-config-remote.c): EXAONE 3.0/3.5
 * (exaone), InternLM3 (internlm3), MiniCPM (minicpm), Baichuan (baichuan)
 * and Qwen-1 (qwen), and refusing MiniCPM3 (minicpm3), NVIDIA's
 * Nemotron-NAS (nemotron-nas) and DeciLM (deci) by name. No network here: each config
 * says where its keys come from, a copy of the published config.json found
 * in a public repository or, where none was found, memory of the Hub's;
 * the counts are derived by hand from the modules each modeling file
 * builds, and compared with the size each model's card or Hub page gives
 * (as remembered).
 */
#include "test-config.h"
#include "test-inference.h"

/* EXAONE 3.0 and 3.5 (exaone): Llama's tensors under LG's names. */
static void
test_exaone (void)
{
  /* LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct's config.json, as AutoConfig
   * prints it in a public repository's notes (auto_map and
   * transformers_version left out): num_layers 32, hidden 4096, 32 heads over 8 kv heads, intermediate
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
  /* internlm/internlm3-8b-instruct's config.json: its shape, bias and
   * tie keys as two public repositories copy it (one verbatim from
   * mlx-community's conversion), the others as remembered: 48
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
  /* No max_position_embeddings: InternLM3Config's 32768. */
  m = model_of ("{\"model_type\": \"internlm3\", \"hidden_size\": 4096, \"intermediate_size\": 10240,"
                " \"num_attention_heads\": 32, \"num_hidden_layers\": 48, \"vocab_size\": 128512}");
  g_assert_cmpint (m.max_positions, ==, 32768);
  g_assert_cmpint (m.n_kv_heads, ==, 32);
}

/* MiniCPM (minicpm): Llama's tensors with attention_bias, usually tied. */
static void
test_minicpm (void)
{
  /* openbmb/MiniCPM-2B-sft-bf16's config.json: the shape as a public
   * repository's test copies the checkpoint's (no tie_word_embeddings key),
   * vocabulary 122,753 from another's MLC build script; the other keys as
   * remembered. 40 layers,
   * hidden 2304, 36 heads of 64 (kv 36), intermediate 5760, vocabulary
   * 122,753, scale_emb 12, dim_model_base 256, scale_depth 1.4 (which hold
   * no parameters), no tie_word_embeddings (so tied). Per layer: 4·2304² =
   * 21,233,664, 3·2304·5760 = 39,813,120, 2·2304: 61,051,392 × 40 =
   * 2,442,055,680; + 2304 + 122,753·2304 = 282,822,912: 2,724,880,896
   * (OpenBMB: 2.4B without embeddings, 2.7B in all; the loaded model's
   * count as a public repository's demo prints it, and MTEB's n_parameters
   * for embedders built on it). */
  static const char minicpm2[] =
    "{\"model_type\": \"minicpm\", \"architectures\": [\"MiniCPMForCausalLM\"],"
    " \"bos_token_id\": 1, \"eos_token_id\": 2, \"hidden_act\": \"silu\","
    " \"hidden_size\": 2304, \"initializer_range\": 0.1, \"intermediate_size\": 5760,"
    " \"max_position_embeddings\": 4096, \"num_attention_heads\": 36,"
    " \"num_hidden_layers\": 40, \"num_key_value_heads\": 36, \"rms_norm_eps\": 1e-05,"
    " \"rope_scaling\": null, \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
    " \"vocab_size\": 122753, \"scale_emb\": 12, \"dim_model_base\": 256,"
    " \"scale_depth\": 1.4}";
  /* openbmb/MiniCPM4-8B's shape (as remembered): 32 layers, hidden 4096,
   * 32 heads of 128 over 2 kv heads, intermediate 16384, vocabulary 73,448,
   * untied; its sparse_config (InfLLM v2) is refused below, so read here
   * with it null, as a dense MiniCPM4. Per layer: 2·4096² = 33,554,432,
   * 2·4096·256 = 2,097,152, 3·4096·16384 = 201,326,592, 2·4096: 236,986,368
   * × 32 = 7,583,563,776; + 4096 + 2·73,448·4096 = 601,686,016:
   * 8,185,253,888 (the Hub page: 8.19B). */
  static const char minicpm4_shape[] =
    "\"model_type\": \"minicpm\", \"hidden_size\": 4096, \"intermediate_size\": 16384,"
    " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 2,"
    " \"vocab_size\": 73448, \"tie_word_embeddings\": false, \"scale_emb\": 12,"
    " \"dim_model_base\": 256, \"scale_depth\": 1.4";
  g_autofree char *dense4 = g_strdup_printf ("{%s, \"sparse_config\": null}", minicpm4_shape);
  g_autofree char *sparse4 =
    g_strdup_printf ("{%s, \"sparse_config\": {\"kernel_size\": 32, \"kernel_stride\": 16,"
                     " \"init_blocks\": 1, \"block_size\": 64, \"window_size\": 2048,"
                     " \"topk\": 64, \"use_nope\": false, \"dense_len\": 8192}}",
                     minicpm4_shape);
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;

  p = count (minicpm2, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 61051392);
  g_assert_cmpint (p.total, ==, 2724880896);
  g_assert_cmpint (p.non_embedding, ==, 2724880896 - 282822912);
  g_assert_cmpint (p.lm_head, ==, 0);
  m = model_of (minicpm2);
  /* Its cache: 2 · 36 · 64 · 2 B · 40 = 368,640 B per token. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 368640.0);

  p = count (dense4, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 8185253888);
  expect_error (sparse4, HR_ERROR_UNSUPPORTED, "sparse_config");

  /* attention_bias: q, k, v and o biases, 4·2304 a layer: + 368,640. */
  p = count ("{\"model_type\": \"minicpm\", \"hidden_size\": 2304, \"intermediate_size\": 5760,"
             " \"num_attention_heads\": 36, \"num_hidden_layers\": 40, \"vocab_size\": 122753,"
             " \"attention_bias\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 2724880896 + 368640);
  expect_error ("{\"model_type\": \"minicpm\", \"hidden_size\": 2304, \"intermediate_size\": 5760,"
                " \"num_attention_heads\": 36, \"num_hidden_layers\": 40, \"vocab_size\": 122753,"
                " \"num_experts\": 8, \"num_experts_per_tok\": 2}",
                HR_ERROR_UNSUPPORTED, "num_experts");
  expect_error ("{\"model_type\": \"minicpm\", \"hidden_size\": 2304, \"intermediate_size\": 5760,"
                " \"num_attention_heads\": 36, \"num_hidden_layers\": 40, \"vocab_size\": 122753,"
                " \"use_output_gate\": true}", HR_ERROR_UNSUPPORTED, "use_output_gate");
  expect_error ("{\"model_type\": \"minicpm\", \"hidden_size\": 2304, \"intermediate_size\": 5760,"
                " \"num_attention_heads\": 36, \"num_hidden_layers\": 40, \"vocab_size\": 122753,"
                " \"use_output_norm\": true}", HR_ERROR_UNSUPPORTED, "use_output_norm");
  /* MiniCPMConfig's context, 2048, when the config gives none. */
  g_assert_cmpint (model_of ("{\"model_type\": \"minicpm\", \"hidden_size\": 2304,"
                             " \"intermediate_size\": 5760, \"num_attention_heads\": 36,"
                             " \"num_hidden_layers\": 40, \"vocab_size\": 122753}").max_positions,
                   ==, 2048);
  expect_error ("{\"model_type\": \"minicpm\", \"hidden_size\": 2304, \"intermediate_size\": 5760,"
                " \"num_attention_heads\": 36, \"num_hidden_layers\": 40}",
                HR_ERROR_MISSING, "vocab_size");

  /* MiniCPM3's latent attention caches expanded keys and values: refused
   * on model_type (openbmb/MiniCPM3-4B's shape keys as remembered). */
  g_assert_nonnull (hr_config_refusal ("minicpm3"));
  expect_error ("{\"model_type\": \"minicpm3\", \"hidden_size\": 2560,"
                " \"num_hidden_layers\": 62, \"num_attention_heads\": 40,"
                " \"q_lora_rank\": 768, \"kv_lora_rank\": 256, \"qk_nope_head_dim\": 64,"
                " \"qk_rope_head_dim\": 32, \"v_head_dim\": 64, \"vocab_size\": 73448}",
                HR_ERROR_UNSUPPORTED, "model_type");
  g_assert_null (hr_config_refusal ("minicpm"));
  /* MiniCPM-SALA's mixer_types put lightning (linear) attention in most
   * layers: a hybrid, refused by name. */
  g_assert_nonnull (hr_config_refusal ("minicpm_sala"));
}

/* Baichuan and Baichuan 2 (baichuan): Llama's tensors with q, k and v
 * fused in W_pack, rotary at hidden 4096 and ALiBi otherwise. */
static void
test_baichuan (void)
{
  /* baichuan-inc/Baichuan2-7B-Base's config.json, as BaichuanConfig
   * prints it in a public repository's training log (auto_map left out):
   * 32
   * layers, hidden 4096, 32 heads, intermediate 11008, vocabulary 125,696,
   * untied (NormHead). Per layer: W_pack 3·4096² = 50,331,648, o_proj
   * 4096² = 16,777,216, the MLP 3·4096·11008 = 135,266,304, two norms
   * 2·4096: 202,383,360 × 32 = 6,476,267,520; + 4096 + 2·125,696·4096 =
   * 1,029,701,632: 7,505,973,248 (Baichuan: 7B; the Hub: 7.51B). */
  static const char baichuan2_7b[] =
    "{\"model_type\": \"baichuan\", \"architectures\": [\"BaichuanForCausalLM\"],"
    " \"bos_token_id\": 1, \"eos_token_id\": 2, \"hidden_act\": \"silu\","
    " \"hidden_size\": 4096, \"initializer_range\": 0.02, \"intermediate_size\": 11008,"
    " \"max_position_embeddings\": 4096, \"model_max_length\": 4096,"
    " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"pad_token_id\": 0,"
    " \"rms_norm_eps\": 1e-06, \"tie_word_embeddings\": false,"
    " \"torch_dtype\": \"float16\", \"use_cache\": false, \"vocab_size\": 125696,"
    " \"z_loss_weight\": 0}";
  /* Baichuan2-13B-Base's (as remembered; a public repository's table of
   * Hub shapes agrees, without max_position_embeddings): 40 layers, hidden 5120, 40
   * heads, intermediate 13696, model_max_length 4096 (no
   * max_position_embeddings), ALiBi. Per layer: 4·5120² = 104,857,600,
   * 3·5120·13696 = 210,370,560, 2·5120: 315,238,400 × 40 = 12,609,536,000;
   * + 5120 + 2·125,696·5120 = 1,287,127,040: 13,896,668,160 (the Hub:
   * 13.9B). */
  static const char baichuan2_13b[] =
    "{\"model_type\": \"baichuan\", \"architectures\": [\"BaichuanForCausalLM\"],"
    " \"hidden_size\": 5120, \"intermediate_size\": 13696, \"model_max_length\": 4096,"
    " \"num_attention_heads\": 40, \"num_hidden_layers\": 40, \"rms_norm_eps\": 1e-06,"
    " \"tie_word_embeddings\": false, \"vocab_size\": 125696}";
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;

  p = count (baichuan2_7b, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 202383360);
  g_assert_cmpint (p.total, ==, 7505973248);
  m = model_of (baichuan2_7b);
  g_assert_cmpint (m.positions, ==, HR_POSITIONS_ROTARY);
  g_assert_cmpint (m.max_positions, ==, 4096);
  /* Its cache: 2 · 32 heads · 128 · 2 B = 16,384 B per layer and token,
   * × 32 = 524,288 B per token. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 524288.0);

  p = count (baichuan2_13b, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 315238400);
  g_assert_cmpint (p.total, ==, 13896668160);
  m = model_of (baichuan2_13b);
  g_assert_cmpint (m.positions, ==, HR_POSITIONS_ALIBI);
  g_assert_cmpint (m.max_positions, ==, 4096);

  /* Baichuan-7B (Baichuan 1, BaiChuanForCausalLM): Baichuan2-7B's shape
   * with a vocabulary of 64,000: 6,476,267,520 + 4096 + 2·64,000·4096 =
   * 524,288,000: 7,000,559,616 (n_parameters in Baichuan-7B's README
   * table, as public repositories copy it). */
  p = count ("{\"model_type\": \"baichuan\", \"architectures\": [\"BaiChuanForCausalLM\"],"
             " \"hidden_size\": 4096, \"intermediate_size\": 11008,"
             " \"max_position_embeddings\": 4096, \"num_attention_heads\": 32,"
             " \"num_hidden_layers\": 32, \"tie_word_embeddings\": false,"
             " \"vocab_size\": 64000}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 7000559616);
  /* No tie_word_embeddings: BaichuanConfig's false (a saved config always
   * writes a false that differs from PretrainedConfig's true). */
  g_assert_false (model_of ("{\"model_type\": \"baichuan\", \"hidden_size\": 4096,"
                            " \"intermediate_size\": 11008, \"num_attention_heads\": 32,"
                            " \"num_hidden_layers\": 32, \"vocab_size\": 64000}").tied_embeddings);
  /* W_pack holds one kv head per query head. */
  expect_error ("{\"model_type\": \"baichuan\", \"hidden_size\": 5120, \"intermediate_size\": 13696,"
                " \"num_attention_heads\": 40, \"num_key_value_heads\": 8,"
                " \"num_hidden_layers\": 40, \"vocab_size\": 125696}",
                HR_ERROR_UNSUPPORTED, "num_key_value_heads");
}

/* Qwen-1 (qwen): c_attn fuses q, k and v with a bias; the MLP's w1 and
 * w2 are half of intermediate_size each. */
static void
test_qwen (void)
{
  /* Qwen/Qwen-7B's config.json (as remembered): 32 layers, hidden 4096,
   * 32 heads, kv_channels 128, intermediate_size 22016, vocabulary
   * 151,936, no_bias, untied. Per layer: c_attn 4096·12288 + 12288 =
   * 50,343,936, c_proj 4096² = 16,777,216, w1, w2 and c_proj 3·4096·11008
   * = 135,266,304, ln_1 and ln_2 2·4096: 202,395,648 × 32 = 6,476,660,736;
   * + ln_f 4096 + wte and lm_head 2·151,936·4096 = 1,244,659,712:
   * 7,721,324,544 (Alibaba: 7.7B; the same figure a public repository's
   * demo prints from the loaded model, "7721324544 (7.7B) parameters", and
   * others' FLOPs tables list). */
  static const char qwen7b[] =
    "{\"model_type\": \"qwen\", \"architectures\": [\"QWenLMHeadModel\"],"
    " \"attn_dropout_prob\": 0.0, \"bf16\": false, \"emb_dropout_prob\": 0.0,"
    " \"fp16\": false, \"fp32\": false, \"hidden_size\": 4096, \"initializer_range\": 0.02,"
    " \"intermediate_size\": 22016, \"kv_channels\": 128, \"layer_norm_epsilon\": 1e-06,"
    " \"max_position_embeddings\": 32768, \"no_bias\": true, \"num_attention_heads\": 32,"
    " \"num_hidden_layers\": 32, \"onnx_safe\": null, \"rotary_emb_base\": 10000,"
    " \"rotary_pct\": 1.0, \"scale_attn_weights\": true, \"seq_length\": 8192,"
    " \"tie_word_embeddings\": false, \"tokenizer_class\": \"QWenTokenizer\","
    " \"use_cache\": true, \"use_dynamic_ntk\": true, \"use_flash_attn\": \"auto\","
    " \"use_logn_attn\": true, \"vocab_size\": 151936}";
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;

  p = count (qwen7b, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 202395648);
  g_assert_cmpint (p.total, ==, 7721324544);
  m = model_of (qwen7b);
  g_assert_cmpint (m.ffn_size, ==, 11008);
  g_assert_true (m.qkv_bias);
  g_assert_false (m.out_bias || m.mlp_bias);
  g_assert_cmpint (m.max_positions, ==, 32768);
  /* Its cache: 2 · 32 heads · 128 · 2 B · 32 = 524,288 B per token. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 524288.0);

  /* Qwen-1.8B's shape (as remembered): 24 layers, hidden 2048, 16 heads,
   * intermediate_size 11008, the same vocabulary. Per layer: 2048·6144 +
   * 6144 = 12,589,056, 2048² = 4,194,304, 3·2048·5504 = 33,816,576,
   * 2·2048: 50,604,032 × 24 = 1,214,496,768; + 2048 + 2·151,936·2048 =
   * 622,329,856: 1,836,828,672 (Alibaba: 1.8B). Qwen-14B (40 layers,
   * hidden 5120, 40 heads, intermediate_size 27392, vocabulary 152,064):
   * 315,253,760 × 40 + 5120 + 2·152,064·5120 = 14,167,290,880 (llama.cpp's
   * n_params for GGUFs of Qwen1.5-14B, whose tensors are the same shapes,
   * as a public repository lists them); Qwen-72B (80
   * layers, hidden 8192, 64 heads, intermediate_size 49152):
   * 872,456,192 × 80 + 8192 + 2·152,064·8192 = 72,287,920,128. */
  p = count ("{\"model_type\": \"qwen\", \"hidden_size\": 2048, \"intermediate_size\": 11008,"
             " \"kv_channels\": 128, \"num_attention_heads\": 16, \"num_hidden_layers\": 24,"
             " \"no_bias\": true, \"vocab_size\": 151936}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1836828672);
  p = count ("{\"model_type\": \"qwen\", \"hidden_size\": 5120, \"intermediate_size\": 27392,"
             " \"kv_channels\": 128, \"num_attention_heads\": 40, \"num_hidden_layers\": 40,"
             " \"no_bias\": true, \"vocab_size\": 152064}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 14167290880);
  p = count ("{\"model_type\": \"qwen\", \"hidden_size\": 8192, \"intermediate_size\": 49152,"
             " \"kv_channels\": 128, \"num_attention_heads\": 64, \"num_hidden_layers\": 80,"
             " \"no_bias\": true, \"vocab_size\": 152064}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 72287920128);

  /* no_bias false adds c_proj's 4096 and the MLP's 2·11008 + 4096: 30,208
   * a layer, 966,656 in all. */
  p = count ("{\"model_type\": \"qwen\", \"hidden_size\": 4096, \"intermediate_size\": 22016,"
             " \"kv_channels\": 128, \"num_attention_heads\": 32, \"num_hidden_layers\": 32,"
             " \"no_bias\": false, \"vocab_size\": 151936}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total - 7721324544, ==, 966656);
  expect_error ("{\"model_type\": \"qwen\", \"hidden_size\": 4096, \"intermediate_size\": 22016,"
                " \"kv_channels\": 64, \"num_attention_heads\": 32, \"num_hidden_layers\": 32,"
                " \"vocab_size\": 151936}", HR_ERROR_UNSUPPORTED, "kv_channels");
  /* Qwen-VL builds its vision tower inside the model. */
  expect_error ("{\"model_type\": \"qwen\", \"hidden_size\": 4096, \"intermediate_size\": 22016,"
                " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"vocab_size\": 151936,"
                " \"visual\": {\"width\": 1664, \"layers\": 48}}", HR_ERROR_UNSUPPORTED, "visual");
}

/* Nemotron-NAS and DeciLM: layers that differ one from another, refused by
 * name whatever the rest of the config says. */
static void
test_nas_refused (void)
{
  g_assert_nonnull (hr_config_refusal ("nemotron-nas"));
  g_assert_nonnull (strstr (hr_config_refusal ("nemotron-nas"), "block_configs"));
  g_assert_nonnull (hr_config_refusal ("deci"));
  g_assert_nonnull (strstr (hr_config_refusal ("deci"), "num_key_value_heads_per_layer"));
  /* nvidia/Llama-3_3-Nemotron-Super-49B-v1's top-level keys (as
   * remembered), block_configs left out: refused on model_type. */
  expect_error ("{\"model_type\": \"nemotron-nas\", \"architectures\": [\"DeciLMForCausalLM\"],"
                " \"hidden_size\": 8192, \"num_hidden_layers\": 80,"
                " \"num_attention_heads\": 64, \"vocab_size\": 128256,"
                " \"intermediate_size\": null, \"num_key_value_heads\": null}",
                HR_ERROR_UNSUPPORTED, "model_type");
  expect_error ("{\"model_type\": \"deci\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
                " \"num_attention_heads\": 32, \"vocab_size\": 32000}",
                HR_ERROR_UNSUPPORTED, "model_type");
  g_assert_null (hr_config_refusal ("exaone"));
  g_assert_null (hr_config_refusal ("minicpm"));
  /* MiniCPM-SALA's mixer_types put lightning (linear) attention in most
   * layers: a hybrid, refused by name. */
  g_assert_nonnull (hr_config_refusal ("minicpm_sala"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/exaone", test_exaone);
  g_test_add_func ("/config/internlm3", test_internlm3);
  g_test_add_func ("/config/minicpm", test_minicpm);
  g_test_add_func ("/config/baichuan", test_baichuan);
  g_test_add_func ("/config/qwen", test_qwen);
  g_test_add_func ("/config/nas-refused", test_nas_refused);

  return g_test_run ();
}
