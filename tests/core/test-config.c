/* test-config.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading Hugging Face configs: each family's defaults and traps, errors
 * naming the key, the reference counts of known-models.json and the presets.
 * The Llama-style families (hr-config-llama.c) are test-config-llama.c.
 */
#include "test-config.h"

static void
test_known_models (void)
{
  g_autofree char *path = g_build_filename (TEST_DATA_DIR, "reference", "known-models.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *models;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  models = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "models");
  g_assert_cmpuint (json_array_get_length (models), >=, 9);

  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      JsonObject *entry = json_array_get_object_element (models, i);
      HrModel model;
      HrParams params;
      HrError err = { 0 };
      unsigned warnings;

      g_test_message ("%s", json_object_get_string_member (entry, "name"));
      g_assert_cmpint (read_object (json_object_get_object_member (entry, "config"),
                                    &model, &warnings, &err), ==, HR_OK);
      g_assert_cmpuint (warnings, ==, HR_CONFIG_WARN_NONE);
      g_assert_cmpint (hr_model_params (&model, &params, &err), ==, HR_OK);
      g_assert_cmpint (params.total, ==, json_object_get_int_member (entry, "parameters"));
      g_assert_cmpint (params.non_embedding, ==,
                       json_object_get_int_member (entry, "non_embedding_parameters"));
      if (json_object_has_member (entry, "active_parameters_per_token"))
        g_assert_cmpint (params.active, ==,
                         json_object_get_int_member (entry, "active_parameters_per_token"));
      else
        g_assert_cmpint (params.active, ==, params.total);
    }
}

/* Absent keys take the defaults of each configuration_<family>.py. */
static void
test_defaults (void)
{
  /* GPT2Config(): GPT-2 small, 124,439,808 (see test-model.c). */
  g_assert_cmpint (count ("{\"model_type\": \"gpt2\"}", 0).total, ==, 124439808);
  /* LlamaConfig(): Llama-2-7B's shape, 6,738,415,616. */
  g_assert_cmpint (count ("{\"model_type\": \"llama\"}", 0).total, ==, 6738415616);
  /* MistralConfig(): Mistral-7B, 7,241,732,096 (known-models.json). */
  g_assert_cmpint (count ("{\"model_type\": \"mistral\"}", 0).total, ==, 7241732096);
  /* MixtralConfig(): Mixtral-8x7B, 46,702,792,704 (known-models.json). */
  g_assert_cmpint (count ("{\"model_type\": \"mixtral\"}", 0).total, ==, 46702792704);
  /* GemmaConfig(): Gemma-7B. 16 heads of 256 (q width 4096 ≠ hidden 3072):
   * 4·3072·4096 = 50,331,648; MLP 3·3072·24576 = 226,492,416; norms 6,144 →
   * 276,830,208 per layer; ×28 = 7,751,245,824; tied 256000·3072 =
   * 786,432,000; final 3,072. Total 8,537,680,896. */
  g_assert_cmpint (count ("{\"model_type\": \"gemma\"}", 0).total, ==, 8537680896);
  /* Gemma2Config(): Gemma 2 2B, 2,614,341,888 (test-model.c). */
  g_assert_cmpint (count ("{\"model_type\": \"gemma2\"}", 0).total, ==, 2614341888);
  /* Phi3Config(): Phi-3-mini, 3,821,079,552 (test-model.c). */
  g_assert_cmpint (count ("{\"model_type\": \"phi3\"}", 0).total, ==, 3821079552);
  /* PhiConfig(): Phi-1.5's shape. q, k, v, dense 4·(2048² + 2048) =
   * 16,785,408; fc1 + fc2 2·2048·8192 + 8192 + 2048 = 33,564,672; one
   * LayerNorm 4,096 → 50,354,176; ×24 = 1,208,500,224; embed 51200·2048 =
   * 104,857,600; head + bias 104,908,800; final 4,096. Total 1,418,270,720. */
  g_assert_cmpint (count ("{\"model_type\": \"phi\"}", 0).total, ==, 1418270720);
  /* FalconConfig(): Falcon-7B, 6,921,720,704 (test-model.c). */
  g_assert_cmpint (count ("{\"model_type\": \"falcon\"}", 0).total, ==, 6921720704);
  /* OPTConfig(): OPT-125m. embed 50272·768 = 38,608,896; positions
   * 2050·768 = 1,574,400; layers as GPT-2 small 12·7,087,872 = 85,054,464;
   * final norm 1,536; tied. Total 125,239,296. */
  g_assert_cmpint (count ("{\"model_type\": \"opt\"}", 0).total, ==, 125239296);
  /* GPTNeoXConfig(): GPT-NeoX-20B. attention 4·6144² + 4·6144 = 151,019,520;
   * MLP 2·6144·24576 + 24576 + 6144 = 302,020,608; norms 24,576 →
   * 453,064,704; ×44 = 19,934,846,976; embed_in + embed_out 2·50432·6144 =
   * 619,708,416; final 12,288. Total 20,554,567,680 (the published count). */
  g_assert_cmpint (count ("{\"model_type\": \"gpt_neox\"}", 0).total, ==, 20554567680);
  /* Qwen2Config(): 32 layers of 4096, MHA, q/k/v biases: 4·4096² + 3·4096 =
   * 67,121,152; MLP 3·4096·22016 = 270,532,608; norms 8,192 → 337,661,952;
   * ×32 = 10,805,182,464; untied 2·151936·4096 = 1,244,659,712; final 4,096.
   * Total 12,049,846,272. */
  g_assert_cmpint (count ("{\"model_type\": \"qwen2\"}", 0).total, ==, 12049846272);
  /* DeepseekV3Config(): DeepSeek-V3, derived in test_deepseek. */
  g_assert_cmpint (count ("{\"model_type\": \"deepseek_v3\"}", 0).total, ==, 671026404352);
  /* DeepseekV2Config() has num_experts_per_tok None: no MoE layer can route. */
  expect_error ("{\"model_type\": \"deepseek_v2\"}", HR_ERROR_MISSING, "num_experts_per_tok");
}

static void
test_gpt2_traps (void)
{
  HrModel m;

  /* n_inner null → 4·n_embd; a number → that width. */
  m = model_of ("{\"model_type\": \"gpt2\", \"n_inner\": null}");
  g_assert_cmpint (m.ffn_size, ==, 3072);
  m = model_of ("{\"model_type\": \"gpt2\", \"n_inner\": 1000}");
  g_assert_cmpint (m.ffn_size, ==, 1000);
  /* n_ctx does not size wpe: n_positions does (default 1024). */
  m = model_of ("{\"model_type\": \"gpt2\", \"n_ctx\": 2048}");
  g_assert_cmpint (m.max_positions, ==, 1024);
  /* attribute_map aliases: hidden_size names n_embd. */
  m = model_of ("{\"model_type\": \"gpt2\", \"hidden_size\": 1024, \"n_head\": 16}");
  g_assert_cmpint (m.hidden_size, ==, 1024);
  g_assert_cmpint (m.head_dim, ==, 64);
  /* untied head: 124,439,808 + 50257·768 = 163,037,184 */
  g_assert_cmpint (count ("{\"model_type\": \"gpt2\", \"tie_word_embeddings\": false}", 0).total,
                   ==, 124439808 + 38597376);
}

static void
test_falcon_traps (void)
{
  HrModel m;

  /* Falcon-7B's config: num_kv_heads is ignored under multi_query without
   * the new architecture → one kv head, 6,921,720,704 as without it. */
  m = model_of ("{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"n_head\": 71, \"n_layer\": 32,"
                " \"num_kv_heads\": 71, \"multi_query\": true, \"new_decoder_architecture\": false,"
                " \"parallel_attn\": true, \"bias\": false, \"alibi\": false, \"vocab_size\": 65024}");
  g_assert_cmpint (m.n_kv_heads, ==, 1);
  g_assert_cmpint (m.norms_per_layer, ==, 1);
  g_assert_true (m.parallel_block);
  g_assert_cmpint (count ("{\"model_type\": \"falcon\", \"num_kv_heads\": 71}", 0).total, ==, 6921720704);

  /* Neither multi_query nor the new architecture: as many kv heads as heads. */
  m = model_of ("{\"model_type\": \"falcon\", \"multi_query\": false, \"num_kv_heads\": 1}");
  g_assert_cmpint (m.n_kv_heads, ==, 71);

  /* Falcon-40B-like: new architecture, n_head_kv 8 used, two norms per layer
   * (ln_attn, ln_mlp). With hidden 8192, 128 heads of 64, 60 layers, vocab
   * 65024: query_key_value 8192·(128 + 16)·64 = 75,497,472; dense 8192² =
   * 67,108,864; MLP 2·8192·32768 = 536,870,912; norms 2·16384 = 32,768 →
   * 679,510,016; ×60 = 40,770,600,960; tied 65024·8192 = 532,676,608; ln_f
   * 16,384. Total 41,303,293,952. */
  m = model_of ("{\"model_type\": \"falcon\", \"hidden_size\": 8192, \"n_head\": 128,"
                " \"n_head_kv\": 8, \"n_layer\": 60, \"new_decoder_architecture\": true}");
  g_assert_cmpint (m.n_kv_heads, ==, 8);
  g_assert_cmpint (m.norms_per_layer, ==, 2);
  g_assert_cmpint (count ("{\"model_type\": \"falcon\", \"hidden_size\": 8192, \"n_head\": 128,"
                          " \"n_head_kv\": 8, \"n_layer\": 60, \"new_decoder_architecture\": true}",
                          0).total, ==, 41303293952);

  /* Sequential blocks keep two norms; alibi replaces rotary. */
  m = model_of ("{\"model_type\": \"falcon\", \"parallel_attn\": false, \"alibi\": true}");
  g_assert_cmpint (m.norms_per_layer, ==, 2);
  g_assert_cmpint (m.positions, ==, HR_POSITIONS_ALIBI);
}

static void
test_opt_traps (void)
{
  HrModel m;
  HrParams p;

  /* OPT-350m: 512-wide embeddings with project_in/out, post-LN, no final
   * norm: 331,196,416 (derived in test-model.c). */
  const char *opt_350m =
    "{\"model_type\": \"opt\", \"hidden_size\": 1024, \"num_hidden_layers\": 24,"
    " \"num_attention_heads\": 16, \"ffn_dim\": 4096, \"vocab_size\": 50272,"
    " \"max_position_embeddings\": 2048, \"word_embed_proj_dim\": 512,"
    " \"do_layer_norm_before\": false, \"_remove_final_layer_norm\": false,"
    " \"enable_bias\": true}";

  m = model_of (opt_350m);
  g_assert_cmpint (m.norm_placement, ==, HR_NORM_POST);
  g_assert_false (m.final_norm);
  g_assert_cmpint (m.position_offset, ==, 2);
  g_assert_cmpint (m.embed_proj_dim, ==, 512);
  p = count (opt_350m, 0);
  g_assert_cmpint (p.total, ==, 331196416);

  /* OPT-1.3b: word_embed_proj_dim = hidden_size → no projection. Layers
   * 2048: 4·(2048² + 2048) + 2·2048·8192 + 8192 + 2048 + 4·2048 =
   * 16,785,408 + 33,564,672 + 8,192 = 50,358,272; ×24 = 1,208,598,528; embed
   * 50272·2048 = 102,957,056; positions 2050·2048 = 4,198,400; final 4,096.
   * Total 1,315,758,080. */
  p = count ("{\"model_type\": \"opt\", \"hidden_size\": 2048, \"num_hidden_layers\": 24,"
             " \"num_attention_heads\": 32, \"ffn_dim\": 8192, \"word_embed_proj_dim\": 2048}", 0);
  g_assert_cmpint (p.total, ==, 1315758080);
}

static void
test_deepseek (void)
{
  HrParams p;
  HrModel m;

  /* DeepSeek-V2-Lite: 15,706,484,224, active 2,661,150,208 (test-model.c). */
  const char *lite =
    "{\"model_type\": \"deepseek_v2\", \"hidden_size\": 2048, \"num_hidden_layers\": 27,"
    " \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"intermediate_size\": 10944,"
    " \"moe_intermediate_size\": 1408, \"n_routed_experts\": 64, \"n_shared_experts\": 2,"
    " \"num_experts_per_tok\": 6, \"first_k_dense_replace\": 1, \"moe_layer_freq\": 1,"
    " \"q_lora_rank\": null, \"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64,"
    " \"qk_nope_head_dim\": 128, \"v_head_dim\": 128, \"vocab_size\": 102400,"
    " \"tie_word_embeddings\": false}";

  m = model_of (lite);
  g_assert_cmpint (m.q_lora_rank, ==, 0);
  g_assert_true (hr_model_uses_mla (&m));
  p = count (lite, 0);
  g_assert_cmpint (p.total, ==, 15706484224);
  g_assert_cmpint (p.active, ==, 2661150208);

  /* DeepSeek-V3 (the defaults are its config): per layer MLA q_a_proj
   * 7168·1536 + q_a_layernorm 1536 + q_b_proj 1536·128·192 +
   * kv_a_proj_with_mqa 7168·576 + kv_a_layernorm 512 + kv_b_proj 512·128·256
   * + o_proj 128·128·7168 = 187,107,328; norms 14,336. 3 dense layers with
   * MLP 3·7168·18432 = 396,361,728 → 583,483,392 each; 58 MoE layers with 256
   * experts of 3·7168·2048 = 44,040,192, one shared of the same size, gate
   * 256·7168 = 1,835,008 → 11,507,286,016 each; embed and head 2·129280·7168
   * = 1,853,358,080; final 7,168. Total 671,026,404,352. The router's
   * e_score_correction_bias is a buffer in transformers' DeepseekV3TopkRouter
   * (an nn.Parameter in DeepSeek's own code, which counts 58·256 = 14,848
   * more). Active: less 58·248 unused experts = 37,552,282,624. */
  p = count ("{\"model_type\": \"deepseek_v3\"}", 0);
  g_assert_cmpint (p.router, ==, 58 * 1835008LL);
  g_assert_cmpint (p.moe_layer, ==, 11507286016);
  g_assert_cmpint (p.dense_layer, ==, 583483392);
  g_assert_cmpint (p.total, ==, 671026404352);
  g_assert_cmpint (p.active, ==, 37552282624);
}

static void
test_unknown (void)
{
  HrParams p;

  /* Never a silent guess: an unknown or absent model_type is refused, a
   * state-space family by name. */
  expect_error ("{\"model_type\": \"my_llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
                " \"num_attention_heads\": 32, \"intermediate_size\": 11008, \"vocab_size\": 32000}",
                HR_ERROR_UNSUPPORTED, "model_type");
  expect_error ("{\"hidden_size\": 4096}", HR_ERROR_MISSING, "model_type");
  expect_error ("{\"model_type\": \"mamba\", \"hidden_size\": 2560}", HR_ERROR_UNSUPPORTED,
                "model_type");
  expect_error ("{\"model_type\": \"jamba\"}", HR_ERROR_UNSUPPORTED, "model_type");
  g_assert_cmpint (hr_assume_from_name ("llama"), ==, HR_ASSUME_LLAMA);
  g_assert_cmpint (hr_assume_from_name (NULL), ==, HR_ASSUME_NONE);
  g_assert_cmpint (hr_assume_from_name ("gpt"), ==, -1);

  /* Assumed: unknown model_type with Llama keys, read as Llama, with a warning. */
  assume = HR_ASSUME_LLAMA;
  p = count ("{\"model_type\": \"my_llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
             " \"num_attention_heads\": 32, \"intermediate_size\": 11008, \"vocab_size\": 32000}",
             HR_CONFIG_WARN_UNKNOWN_MODEL_TYPE);
  g_assert_cmpint (p.total, ==, 6738415616);
  p = count ("{\"hidden_size\": 4096, \"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
             " \"intermediate_size\": 11008, \"vocab_size\": 32000}",
             HR_CONFIG_WARN_NO_MODEL_TYPE);
  g_assert_cmpint (p.total, ==, 6738415616);

  /* Without a family's defaults, the shape keys are required. */
  expect_error ("{\"model_type\": \"my_llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
                " \"num_attention_heads\": 32, \"vocab_size\": 32000}",
                HR_ERROR_MISSING, "intermediate_size");
  expect_error ("{}", HR_ERROR_MISSING, "hidden_size");
  /* Assumed or not, a state-space model is never read as a transformer. */
  expect_error ("{\"model_type\": \"mamba\", \"hidden_size\": 2560}", HR_ERROR_UNSUPPORTED,
                "model_type");
  assume = HR_ASSUME_NONE;
}

/* Families outside transformers' Llama kin, each against its published size. */
static void
test_other_families (void)
{
  HrParams p;

  /* DeepSeek-MoE 16B (deepseek, remote code; untied): attention 4·2048²,
   * norms 2·2048; layer 0 dense: 3·2048·10944 = 67,239,936 → 84,021,248;
   * 27 MoE layers: 64 experts of 3·2048·1408 = 8,650,752, shared
   * 3·2048·2816 = 17,301,504, gate 2048·64 → 587,862,016; + 2048 +
   * 2·102,400·2048 = 16,375,728,128 (DeepSeek: 16.4 B); active less
   * 27·58·8,650,752 = 2,828,650,496 (2.8 B). */
  p = count ("{\"model_type\": \"deepseek\", \"hidden_size\": 2048, \"num_hidden_layers\": 28,"
             " \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"intermediate_size\": 10944,"
             " \"moe_intermediate_size\": 1408, \"n_routed_experts\": 64, \"n_shared_experts\": 2,"
             " \"num_experts_per_tok\": 6, \"first_k_dense_replace\": 1, \"moe_layer_freq\": 1,"
             " \"vocab_size\": 102400}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 16375728128);
  g_assert_cmpint (p.active, ==, 2828650496);

  /* MPT-7B (no biases anywhere, bias-free LayerNorms, tied, ALiBi): per layer
   * 4·4096² + 2·4096·16384 + 2·4096 = 201,334,784 × 32 = 6,442,713,088; +
   * 4096 + 50,432·4096 = 6,649,286,656 (MosaicML: 6.7 B). */
  p = count ("{\"model_type\": \"mpt\", \"d_model\": 4096, \"n_layers\": 32, \"n_heads\": 32,"
             " \"expansion_ratio\": 4, \"vocab_size\": 50432, \"max_seq_len\": 2048,"
             " \"attn_config\": {\"alibi\": true, \"attn_type\": \"multihead_attention\"}}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 6649286656);
  expect_error ("{\"model_type\": \"mpt\", \"attn_config\": {\"attn_type\": \"multiquery_attention\"}}",
                HR_ERROR_UNSUPPORTED, "attn_config.attn_type");

  /* BLOOM-560m (LayerNorm after the embedding; biases everywhere; tied):
   * per layer 4·1024² + 4·1024 + 2·1024·4096 + 4096 + 1024 + 2·2·1024 =
   * 12,596,224 × 24 = 302,309,376; + 2·2048 + 250,880·1024 = 559,214,592
   * (BigScience: 559 M). */
  p = count ("{\"model_type\": \"bloom\", \"hidden_size\": 1024, \"n_layer\": 24, \"n_head\": 16,"
             " \"vocab_size\": 250880}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 559214592);

  /* DBRX (nested attn_config/ffn_config; bias-free LayerNorms; 16 experts of
   * 3·6144·10752 = 198,180,864, top 4; untied): per layer 2·6144² +
   * 2·6144·1024 + 3,170,893,824 + 6144·16 + 2·6144 = 3,259,084,800 × 40 =
   * 130,363,392,000; + 6144 + 2·100,352·6144 = 131,596,523,520 (Databricks:
   * 132 B); active less 40·12·198,180,864 = 36,469,708,800 (36 B). */
  p = count ("{\"model_type\": \"dbrx\", \"d_model\": 6144, \"n_heads\": 48, \"n_layers\": 40,"
             " \"vocab_size\": 100352, \"max_seq_len\": 32768,"
             " \"attn_config\": {\"kv_n_heads\": 8, \"clip_qkv\": 8},"
             " \"ffn_config\": {\"ffn_hidden_size\": 10752, \"moe_num_experts\": 16, \"moe_top_k\": 4}}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 131596523520);
  g_assert_cmpint (p.active, ==, 36469708800);

  /* InternLM2-7B (bias false; untied): per layer 2·4096² + 2·4096·1024 +
   * 3·4096·14336 + 2·4096 = 218,112,000 × 32 = 6,979,584,000; + 4096 +
   * 2·92,544·4096 = 7,737,708,544 (Shanghai AI Lab: 7.74 B). */
  p = count ("{\"model_type\": \"internlm2\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336,"
             " \"vocab_size\": 92544, \"bias\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 7737708544);

  /* ChatGLM3-6B (2 query groups of 128, q, k, v biases only, SwiGLU of 13696,
   * RMSNorm, untied): per layer 4096·4608 + 4608 + 4096² + 4096·27392 +
   * 13696·4096 + 2·4096 = 203,960,832 × 28 = 5,710,903,296; + 4096 +
   * 2·65,024·4096 = 6,243,584,000 (Zhipu: 6.24 B). */
  p = count ("{\"model_type\": \"chatglm\", \"hidden_size\": 4096, \"num_layers\": 28,"
             " \"num_attention_heads\": 32, \"kv_channels\": 128, \"multi_query_attention\": true,"
             " \"multi_query_group_num\": 2, \"ffn_hidden_size\": 13696, \"padded_vocab_size\": 65024,"
             " \"add_bias_linear\": false, \"add_qkv_bias\": true, \"rmsnorm\": true,"
             " \"post_layer_norm\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 6243584000);
}

static void
test_errors (void)
{
  {
    HrModel model;
    HrError err = { 0 };
    HrConfigSource empty = { NULL, NULL };

    g_assert_cmpint (hr_model_from_config (&empty, &model, NULL, &err), ==, HR_ERROR_MISSING);
    g_assert_cmpstr (err.field, ==, "config");
  }
  expect_error ("{\"model_type\": 3}", HR_ERROR_WRONG_TYPE, "model_type");
  expect_error ("{\"model_type\": \"llama\", \"hidden_size\": \"4096\"}",
                HR_ERROR_WRONG_TYPE, "hidden_size");
  expect_error ("{\"model_type\": \"llama\", \"hidden_size\": 4096.5}",
                HR_ERROR_WRONG_TYPE, "hidden_size");
  expect_error ("{\"model_type\": \"llama\", \"hidden_size\": null}",
                HR_ERROR_WRONG_TYPE, "hidden_size");
  expect_error ("{\"model_type\": \"llama\", \"tie_word_embeddings\": 1}",
                HR_ERROR_WRONG_TYPE, "tie_word_embeddings");
  expect_error ("{\"model_type\": \"llama\", \"num_attention_heads\": 0}",
                HR_ERROR_NOT_POSITIVE, "num_attention_heads");
  expect_error ("{\"model_type\": \"llama\", \"num_hidden_layers\": -2}",
                HR_ERROR_NOT_POSITIVE, "num_hidden_layers");
  expect_error ("{\"model_type\": \"llama\", \"num_attention_heads\": 33}",
                HR_ERROR_NOT_DIVISIBLE, "num_attention_heads");
  expect_error ("{\"model_type\": \"llama\", \"num_key_value_heads\": 5}",
                HR_ERROR_NOT_DIVISIBLE, "num_key_value_heads");
  expect_error ("{\"model_type\": \"gpt2\", \"n_head\": 7}",
                HR_ERROR_NOT_DIVISIBLE, "n_head");
  expect_error ("{\"model_type\": \"falcon\", \"n_head\": 0}",
                HR_ERROR_NOT_POSITIVE, "n_head");
  expect_error ("{\"model_type\": \"opt\", \"ffn_dim\": 0}",
                HR_ERROR_NOT_POSITIVE, "ffn_dim");
  expect_error ("{\"model_type\": \"gpt_neox\", \"rotary_pct\": 1.5}",
                HR_ERROR_OUT_OF_RANGE, "rotary_pct");
  expect_error ("{\"model_type\": \"mixtral\", \"num_experts_per_tok\": 9}",
                HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok");
  expect_error ("{\"model_type\": \"deepseek_v3\", \"num_experts_per_tok\": 300}",
                HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok");
  /* 2^62 would overflow vocab × hidden: refused by its limit (hr-limits.c) first. */
  expect_error ("{\"model_type\": \"llama\", \"vocab_size\": 4611686018427387904}",
                HR_ERROR_OUT_OF_RANGE, "vocab_size");
  expect_error ("{\"model_type\": \"llama\", \"num_hidden_layers\": 1000000000000}",
                HR_ERROR_OUT_OF_RANGE, "num_hidden_layers");
}

/* Published exact counts (model cards, papers; Pythia: Biderman et al. 2023,
 * Table 1) and counts derived in this file or test-model.c. */
static const struct
{
  const char *id;
  int64_t     total;
} published[] = {
  { "gpt2", 124439808 },
  { "gpt2-medium", 354823168 },
  { "gpt2-large", 774030080 },
  { "gpt2-xl", 1557611200 },
  /* GPT-3 175B (h 12288, 96 layers): per layer 12h² + 13h = 1,812,099,072,
   * ×96 = 173,961,510,912; wte 50257·12288 = 617,558,016; wpe 2048·12288 =
   * 25,165,824; ln_f 24,576 → 174,604,259,328 (the paper rounds to 175.0B). */
  { "gpt-3-175b", 174604259328 },
  { "pythia-70m", 70426624 },
  { "pythia-160m", 162322944 },
  { "pythia-410m", 405334016 },
  { "pythia-1b", 1011781632 },
  { "pythia-1.4b", 1414647808 },
  { "pythia-2.8b", 2775208960 },
  { "pythia-6.9b", 6857302016 },
  { "pythia-12b", 11846072320 },
  { "opt-125m", 125239296 },
  { "opt-350m", 331196416 },
  { "opt-1.3b", 1315758080 },
  { "llama-2-7b", 6738415616 },
  { "llama-2-13b", 13015864320 },
  { "llama-2-70b", 68976648192 },
  { "llama-3-8b", 8030261248 },
  { "llama-3-70b", 70553706496 },
  { "llama-3.1-8b", 8030261248 },
  { "llama-3.1-405b", 405853388800 },
  { "llama-3.2-1b", 1235814400 },
  { "llama-3.2-3b", 3212749824 },
  { "mistral-7b-v0.1", 7241732096 },
  { "mixtral-8x7b", 46702792704 },
  { "qwen2.5-0.5b", 494032768 },
  { "qwen2.5-1.5b", 1543714304 },
  { "qwen2.5-7b", 7615616512 },
  { "qwen2.5-72b", 72706203648 },
  { "gemma-2b", 2506172416 },
  { "gemma-7b", 8537680896 },
  { "gemma-2-2b", 2614341888 },
  { "gemma-2-9b", 9241705984 },
  { "gemma-2-27b", 27227128320 },
  { "phi-2", 2779683840 },
  { "phi-3-mini", 3821079552 },
  { "falcon-7b", 6921720704 },
  { "deepseek-v2-lite", 15706484224 },
  { "deepseek-v3", 671026404352 },
  /* Qwen3 8B: per layer 2·4096² + 2·4096·1024 + 2·128 + 3·4096·12288 +
   * 2·4096 = 192,946,432 × 36 + 4096 + 2·151,936·4096 (Qwen: 8.2 B, 6.95 B
   * non-embedding). 32B: per layer 2·5120·8192 + 2·5120·1024 + 256 +
   * 3·5120·25600 + 2·5120 = 487,598,336 × 64 + 5120 + 2·151,936·5120 (32.8 B,
   * 31.2 B non-embedding). 235B-A22B: per layer 2·4096·8192 + 2·4096·512 +
   * 256 + 128·3·4096·1536 + 4096·128 + 2·4096 = 2,487,755,008 × 94 + 4096 +
   * 2·151,936·4096 (235 B). 30B-A3B: wild-models.json. */
  { "qwen3-8b", 8190735360 },
  { "qwen3-32b", 32762123264 },
  { "qwen3-30b-a3b", 30532122624 },
  { "qwen3-235b-a22b", 235093634560 },
  /* GPT-OSS: test_wild_models and test_families (OpenAI: 116.83 B, 20.91 B). */
  { "gpt-oss-120b", 116829156672 },
  { "gpt-oss-20b", 20914757184 },
  /* Gemma 3 text models: 1B in wild-models.json; 4B in test_families; 12B per
   * layer 3840·4096·2 + 3840·2048·2 + 512 + 3·3840·15360 + 4·3840 =
   * 224,148,992 × 48 + 3840 + 262,208·3840; 27B per layer 5376·4096·2 +
   * 5376·2048·2 + 256 + 3·5376·21504 + 4·5376 = 412,898,560 × 62 + 5376 +
   * 262,208·5376 (Google's 12.2 B and 27.4 B add the 0.42 B SigLIP tower).
   * Checked against keras-hub's gemma3_presets.py text-only counts, whose
   * vocabulary has 262,144 rows, 64 fewer than the config's 262,208:
   * 1B 999,885,952 (same vocabulary), 4B 3,880,099,328 + 64·2560,
   * 12B 11,765,788,416 + 64·3840, 27B 27,009,002,240 + 64·5376. */
  { "gemma-3-1b", 999885952 },
  { "gemma-3-4b", 3880263168 },
  { "gemma-3-12b", 11766034176 },
  { "gemma-3-27b", 27009346304 },
  /* Llama 4 text models: test_more_families (Meta: 109 B and 400 B with vision). */
  { "llama-4-scout", 107769861120 },
  { "llama-4-maverick", 400711848960 },
  /* OLMo 2: 7B in wild-models.json; 32B per layer 2·5120² + 2·5120·1024 +
   * 5120 + 1024 + 3·5120·27648 + 2·5120 = 487,604,224 × 64 + 5120 +
   * 2·100,352·5120 (AI2: 32.2 B). */
  { "olmo-2-7b", 7298617344 },
  { "olmo-2-32b", 32234279936 },
  /* Phi-4 (phi3, untied): per layer 2·5120² + 2·5120·1280 + 3·5120·17920 +
   * 2·5120 = 340,797,440 × 40 + 5120 + 2·100,352·5120 (Microsoft: 14.7 B). */
  { "phi-4", 14659507200 },
};

static gboolean
valid_id (const char *id)
{
  /* lowercase letters, digits, dashes and version dots, e.g. llama-3.1-8b */
  if (!g_ascii_islower (*id) && !g_ascii_isdigit (*id))
    return FALSE;
  for (const char *c = id; *c != '\0'; c++)
    if (!g_ascii_islower (*c) && !g_ascii_isdigit (*c) && *c != '-' && *c != '.')
      return FALSE;
  return TRUE;
}

static void
test_presets (void)
{
  g_autofree char *path = g_build_filename (TEST_DATA_DIR, "..", "..", "resources", "models.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) totals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  JsonObject *root;
  JsonArray *models;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "headroom-models");
  g_assert_cmpint (json_object_get_int_member (root, "version"), ==, 1);
  models = json_object_get_array_member (root, "models");

  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      JsonObject *entry = json_array_get_object_element (models, i);
      const char *id = json_object_get_string_member (entry, "id");
      HrModel model;
      HrParams params;
      HrError err = { 0 };
      unsigned warnings;

      g_test_message ("%s", id);
      g_assert_true (valid_id (id));
      g_assert_false (g_hash_table_contains (totals, id));
      g_assert_cmpstr (json_object_get_string_member (entry, "name"), !=, "");
      g_assert_true (g_str_has_prefix (json_object_get_string_member (entry, "source"), "https://"));
      g_assert_cmpint (read_object (json_object_get_object_member (entry, "config"),
                                    &model, &warnings, &err), ==, HR_OK);
      g_assert_cmpuint (warnings, ==, HR_CONFIG_WARN_NONE);
      g_assert_cmpint (hr_model_params (&model, &params, &err), ==, HR_OK);
      g_hash_table_insert (totals, g_strdup (id), g_memdup2 (&params.total, sizeof params.total));
    }

  for (guint i = 0; i < G_N_ELEMENTS (published); i++)
    {
      int64_t *total = g_hash_table_lookup (totals, published[i].id);

      g_test_message ("published %s", published[i].id);
      g_assert_nonnull (total);
      g_assert_cmpint (*total, ==, published[i].total);
    }
  g_assert_cmpuint (g_hash_table_size (totals), >=, 50);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/known-models", test_known_models);
  g_test_add_func ("/config/defaults", test_defaults);
  g_test_add_func ("/config/gpt2", test_gpt2_traps);
  g_test_add_func ("/config/falcon", test_falcon_traps);
  g_test_add_func ("/config/opt", test_opt_traps);
  g_test_add_func ("/config/deepseek", test_deepseek);
  g_test_add_func ("/config/unknown", test_unknown);
  g_test_add_func ("/config/other-families", test_other_families);
  g_test_add_func ("/config/errors", test_errors);
  g_test_add_func ("/config/presets", test_presets);

  return g_test_run ();
}
