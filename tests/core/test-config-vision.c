/* test-config-vision.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Vision-language configs (hr-config.c): the language model is read by its
 * text family's reader and counted exactly, the vision tower is not, and
 * HR_CONFIG_WARN_TEXT_ONLY says so.
 */
#include "test-config.h"

/* Qwen2-VL, Qwen2.5-VL: Qwen2's tensors. The Hub's configs are flat
 * (Qwen2_5_VLConfig pops the text keys from the top level), newer ones nest
 * text_config; M-RoPE (rope_scaling.mrope_section) splits the same rotary
 * dimensions and holds no parameter. */
static void
test_qwen_vl (void)
{
  static const char *text =
    "\"hidden_size\": 3584, \"intermediate_size\": 18944, \"max_position_embeddings\": 128000,"
    " \"max_window_layers\": 28, \"num_attention_heads\": 28, \"num_hidden_layers\": 28,"
    " \"num_key_value_heads\": 4, \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0,"
    " \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]},"
    " \"sliding_window\": 32768, \"tie_word_embeddings\": false, \"use_sliding_window\": false,"
    " \"vocab_size\": 152064";
  g_autofree char *flat = NULL, *nested = NULL;
  HrParams p;
  HrModel m;

  /* Qwen/Qwen2.5-VL-7B-Instruct's shapes (flat keys, as its config.json keeps
   * them; the values from a fine-tune's copy of that file, the vocabulary
   * 152,064 as Qwen2.5-7B's). Per layer q 3584² +
   * 3584, k and v 2·(3584·512 + 512), o 3584², MLP 3·3584·18944 =
   * 203,685,888, norms 2·3584: 233,057,792 × 28 = 6,525,618,176; + 3584 +
   * 2·152,064·3584 (untied) = 1,089,994,752: 7,615,616,512. Independent:
   * Qwen2.5-7B-Instruct, the same language model, whose safetensors index
   * gives total_size 15,231,233,024 bytes of bf16 = 7,615,616,512. */
  flat = g_strdup_printf ("{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"],"
                          " \"model_type\": \"qwen2_5_vl\", %s, \"vision_config\":"
                          " {\"depth\": 32, \"hidden_size\": 1280, \"out_hidden_size\": 3584}}",
                          text);
  p = count (flat, HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 7615616512);
  g_assert_cmpint (p.dense_layer, ==, 233057792);
  /* The same, nested (transformers >= 4.57 saves text_config), and as Qwen2-VL. */
  nested = g_strdup_printf ("{\"model_type\": \"qwen2_5_vl\", \"text_config\": {\"model_type\":"
                            " \"qwen2_5_vl_text\", %s}, \"vision_config\": {\"depth\": 32}}", text);
  g_assert_cmpint (count (nested, HR_CONFIG_WARN_TEXT_ONLY).total, ==, 7615616512);
  g_free (flat);
  flat = g_strdup_printf ("{\"model_type\": \"qwen2_vl\", %s}", text);
  g_assert_cmpint (count (flat, HR_CONFIG_WARN_TEXT_ONLY).total, ==, 7615616512);

  /* Qwen2VLTextConfig's defaults, not Qwen2Config's: 8192 wide, 80 layers,
   * 64 heads, 8 kv heads, vocab 152,064, max_window_layers 80. */
  m = model_of ("{\"model_type\": \"qwen2_vl\", \"use_sliding_window\": true}");
  g_assert_cmpint (m.hidden_size, ==, 8192);
  g_assert_cmpint (m.n_layers, ==, 80);
  g_assert_cmpint (m.n_kv_heads, ==, 8);
  g_assert_cmpint (m.vocab_size, ==, 152064);
  g_assert_cmpint (m.sliding_window, ==, 0);
  g_assert_true (m.qkv_bias);

  /* A Qwen3-VL-8B-Instruct text_config with Qwen3-8B's shapes (its language
   * model; q_norm, k_norm, untied). Per layer 4096² + 2·4096·1024 + 4096² +
   * 3·4096·12288 + 2·4096 + 2·128 = 192,946,432 × 36 = 6,946,071,552; +
   * 4096 + 2·151,936·4096 = 1,244,659,712: 8,190,735,360, Qwen3-8B's count
   * (the Hub's safetensors metadata for Qwen/Qwen3-8B). */
  p = count ("{\"model_type\": \"qwen3_vl\", \"tie_word_embeddings\": false, \"text_config\":"
             " {\"model_type\": \"qwen3_vl_text\", \"head_dim\": 128, \"hidden_size\": 4096,"
             " \"intermediate_size\": 12288, \"max_position_embeddings\": 262144,"
             " \"num_attention_heads\": 32, \"num_hidden_layers\": 36, \"num_key_value_heads\": 8,"
             " \"rope_scaling\": {\"mrope_interleaved\": true, \"mrope_section\": [24, 20, 20],"
             " \"rope_type\": \"default\"}, \"tie_word_embeddings\": false, \"vocab_size\": 151936},"
             " \"vision_config\": {\"depth\": 27, \"deepstack_visual_indexes\": [8, 16, 24]}}",
             HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 8190735360);

  /* Qwen3-VL-MoE: Qwen3-MoE's blocks with Qwen3VLMoeTextConfig's defaults
   * (60 experts of 1408, 4 per token, 16 heads). */
  m = model_of ("{\"model_type\": \"qwen3_vl_moe\", \"text_config\": {\"num_hidden_layers\": 2}}");
  g_assert_cmpint (m.n_experts, ==, 60);
  g_assert_cmpint (m.expert_ffn_size, ==, 1408);
  g_assert_cmpint (m.experts_per_token, ==, 4);
  g_assert_cmpint (m.n_heads, ==, 16);
  g_assert_true (m.qk_norm);
}

/* Wrappers whose text_config names its family (AutoConfig): Mistral 3,
 * LLaVA, LLaVA-NeXT, PaliGemma, Idefics3, SmolVLM, InternVL. */
static void
test_typed_text_config (void)
{
  HrParams p;
  HrModel m;

  /* mistralai/Mistral-Small-3.1-24B-Instruct-2503's shapes (text_config
   * "mistral", untied, sliding_window null; the values from a copy of its
   * config.json in a text-encoder loader). Per layer q 5120·4096, k and
   * v 2·5120·1024, o 4096·5120, MLP 3·5120·32768 = 503,316,480, norms
   * 2·5120: 555,755,520 × 40 = 22,230,220,800; + 5120 + 2·131,072·5120 =
   * 1,342,177,280: 23,572,403,200. Independent: llama.cpp's n_params of
   * Mistral Small 3.x's GGUF (the vision tower in its mmproj) and keras-hub's
   * Magistral Small 2506 preset (the same language model) say
   * 23,572,403,200; the Pixtral tower makes the card's 24 B. */
  p = count ("{\"architectures\": [\"Mistral3ForConditionalGeneration\"],"
             " \"image_token_index\": 10, \"model_type\": \"mistral3\","
             " \"multimodal_projector_bias\": false, \"projector_hidden_act\": \"gelu\","
             " \"spatial_merge_size\": 2, \"text_config\": {\"attention_dropout\": 0.0,"
             " \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 5120,"
             " \"intermediate_size\": 32768, \"max_position_embeddings\": 131072,"
             " \"model_type\": \"mistral\", \"num_attention_heads\": 32, \"num_hidden_layers\": 40,"
             " \"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-05, \"rope_theta\": 1000000000.0,"
             " \"sliding_window\": null, \"use_cache\": true, \"vocab_size\": 131072},"
             " \"vision_config\": {\"head_dim\": 64, \"hidden_size\": 1024, \"image_size\": 1540,"
             " \"intermediate_size\": 4096, \"model_type\": \"pixtral\", \"num_attention_heads\": 16,"
             " \"num_hidden_layers\": 24, \"patch_size\": 14}, \"vision_feature_layer\": -1}",
             HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 23572403200);
  /* Mistral3Config builds a text model of its own defaults without
   * text_config: refused, not guessed. The same for PaliGemma, Idefics3 and
   * SmolVLM. */
  expect_error ("{\"model_type\": \"mistral3\"}", HR_ERROR_MISSING, "text_config");
  expect_error ("{\"model_type\": \"paligemma\"}", HR_ERROR_MISSING, "text_config");
  expect_error ("{\"model_type\": \"smolvlm\", \"text_config\": null}", HR_ERROR_MISSING,
                "text_config");

  /* llava-hf/llava-1.5-7b-hf: text_config "llama" with 32,064 rows,
   * Llama 2 7B's shape otherwise: its 6,738,415,616 + 2·64·4096 (the 64
   * extra rows, embeddings and lm_head) = 6,738,939,904. */
  p = count ("{\"model_type\": \"llava\", \"image_token_index\": 32000, \"text_config\":"
             " {\"model_type\": \"llama\", \"vocab_size\": 32064}, \"vision_config\":"
             " {\"model_type\": \"clip_vision_model\", \"hidden_size\": 1024}}",
             HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 6738939904);
  /* Without a model_type, text_config is LlamaConfig (LlavaConfig); an
   * absent text_config is LlamaConfig() (LLaVA) or Qwen2Config() (InternVL). */
  m = model_of ("{\"model_type\": \"llava_next\", \"text_config\": {\"num_hidden_layers\": 2}}");
  g_assert_cmpint (m.vocab_size, ==, 32000);
  g_assert_false (m.qkv_bias);
  m = model_of ("{\"model_type\": \"internvl\"}");
  g_assert_cmpint (m.vocab_size, ==, 151936);
  g_assert_true (m.qkv_bias);
  /* PaliGemma 2: text_config "gemma2" (four norms, tied). */
  m = model_of ("{\"model_type\": \"paligemma\", \"text_config\": {\"model_type\": \"gemma2\","
                " \"num_hidden_layers\": 26}}");
  g_assert_cmpint (m.norms_per_layer, ==, 4);
  g_assert_true (m.tied_embeddings);
  /* A language model of a family Headroom does not read is refused by its key. */
  expect_error ("{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"mamba\"}}",
                HR_ERROR_UNSUPPORTED, "text_config.model_type");
  expect_error ("{\"model_type\": \"idefics3\", \"text_config\": {\"model_type\": \"llava\"}}",
                HR_ERROR_UNSUPPORTED, "text_config.model_type");
  expect_error ("{\"model_type\": \"llava\", \"text_config\": 3}", HR_ERROR_WRONG_TYPE,
                "text_config");
}

/* GLM-4.1V (glm4v), GLM-4.5V (glm4v_moe), Aya Vision (aya_vision) and Fuyu
 * (fuyu): the language models of GLM-4, GLM-4.5, Cohere2 and Persimmon. */
static void
test_glm4v_aya_fuyu (void)
{
  HrParams p;
  HrModel m;

  /* zai-org/GLM-4.1V-9B-Thinking's text_config (values from memory: GLM-4-9B's
   * shapes; Glm4vTextAttention's q, k, v biases and head_dim 4096 / 32):
   * GLM-4-9B-0414's 9,400,279,040 (test-config-llama.c), which llama.cpp's
   * n_params of GLM-4.6V-Flash's language model (glm4v) confirms. */
  p = count ("{\"model_type\": \"glm4v\", \"text_config\": {\"model_type\": \"glm4v_text\","
             " \"hidden_size\": 4096, \"intermediate_size\": 13696, \"num_attention_heads\": 32,"
             " \"num_hidden_layers\": 40, \"num_key_value_heads\": 2, \"vocab_size\": 151552,"
             " \"tie_word_embeddings\": false, \"rope_scaling\": {\"type\": \"default\","
             " \"mrope_section\": [8, 12, 12]}}, \"vision_config\": {\"depth\": 24,"
             " \"hidden_size\": 1536}}", HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 9400279040);
  /* Glm4vConfig without text_config reads the top level; head_dim is not read. */
  m = model_of ("{\"model_type\": \"glm4v\", \"num_hidden_layers\": 2, \"head_dim\": 64}");
  g_assert_cmpint (m.head_dim, ==, 128);
  g_assert_cmpint (m.vocab_size, ==, 151552);
  g_assert_true (m.qkv_bias && !m.out_bias);
  g_assert_cmpint (m.norms_per_layer, ==, 4);

  /* zai-org/GLM-4.5V's text_config (values from memory: GLM-4.5-Air's
   * shapes, attention_bias true, no q/k norms): GLM-4.5-Air's
   * 106,852,245,504 (test-config-llama.c, checked against its safetensors). */
  p = count ("{\"model_type\": \"glm4v_moe\", \"text_config\": {\"model_type\": \"glm4v_moe_text\","
             " \"attention_bias\": true, \"first_k_dense_replace\": 1, \"head_dim\": 128,"
             " \"hidden_size\": 4096, \"intermediate_size\": 10944, \"moe_intermediate_size\": 1408,"
             " \"n_routed_experts\": 128, \"n_shared_experts\": 1, \"num_attention_heads\": 96,"
             " \"num_experts_per_tok\": 8, \"num_hidden_layers\": 46, \"num_key_value_heads\": 8,"
             " \"partial_rotary_factor\": 0.5, \"tie_word_embeddings\": false,"
             " \"vocab_size\": 151552}}", HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 106852245504);
  /* Glm4vMoeTextConfig: attention_bias true, vocab 151,424, no use_qk_norm. */
  m = model_of ("{\"model_type\": \"glm4v_moe_text\", \"head_dim\": 128, \"use_qk_norm\": true}");
  g_assert_true (m.qkv_bias);
  g_assert_false (m.qk_norm);
  g_assert_cmpint (m.vocab_size, ==, 151424);
  m = model_of ("{\"model_type\": \"glm4v_moe\", \"head_dim\": 128, \"num_hidden_layers\": 2}");
  g_assert_cmpint (m.n_layers, ==, 2);
  g_assert_cmpint (m.n_experts, ==, 128);

  /* CohereForAI/aya-vision-8b: text_config "cohere2" of Command R7B's shapes
   * (values from memory), Aya Expanse 8B's 8,028,033,024
   * (test-config-llama.c). */
  p = count ("{\"model_type\": \"aya_vision\", \"downsample_factor\": 2, \"text_config\":"
             " {\"model_type\": \"cohere2\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
             " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8,"
             " \"sliding_window\": 4096, \"vocab_size\": 256000}, \"vision_config\":"
             " {\"model_type\": \"siglip_vision_model\", \"hidden_size\": 1152}}",
             HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 8028033024);
  expect_error ("{\"model_type\": \"aya_vision\"}", HR_ERROR_MISSING, "text_config");

  /* adept/fuyu-8b (flat, values from memory; FuyuConfig hands its top-level
   * keys to a Persimmon text config): persimmon-8b-base's 9,397,175,296
   * (test-config-families.c). Not counted: vision_embed_tokens,
   * Linear(30·30·3, 4096) with bias = 11,063,296, which makes the whole
   * model 9,408,238,592 (the Hub shows 9.41 B). */
  p = count ("{\"model_type\": \"fuyu\", \"hidden_act\": \"relu2\", \"hidden_size\": 4096,"
             " \"image_size\": 300, \"intermediate_size\": 16384, \"layer_norm_eps\": 1e-05,"
             " \"max_position_embeddings\": 16384, \"num_attention_heads\": 64,"
             " \"num_channels\": 3, \"num_hidden_layers\": 36, \"partial_rotary_factor\": 0.5,"
             " \"patch_size\": 30, \"qk_layernorm\": true, \"rope_theta\": 25000.0,"
             " \"tie_word_embeddings\": false, \"vocab_size\": 262144}", HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 9397175296);
  /* A nested text_config names its family, Persimmon when it names none. */
  m = model_of ("{\"model_type\": \"fuyu\", \"text_config\": {\"num_hidden_layers\": 2}}");
  g_assert_cmpint (m.n_layers, ==, 2);
  g_assert_true (m.qk_norm);
}

/* Gemma 3n's AltUp, Laurel and per-layer embeddings: refused by name, even
 * when a Llama-style decoder is assumed for unknown types. */
static void
test_gemma3n (void)
{
  expect_error ("{\"model_type\": \"gemma3n\", \"text_config\": {\"hidden_size\": 2048}}",
                HR_ERROR_UNSUPPORTED, "model_type");
  assume = HR_ASSUME_LLAMA;
  expect_error ("{\"model_type\": \"gemma3n_text\", \"hidden_size\": 2048}",
                HR_ERROR_UNSUPPORTED, "model_type");
  assume = HR_ASSUME_NONE;
  g_assert_true (hr_config_is_vision_language ("qwen2_5_vl"));
  g_assert_false (hr_config_is_vision_language ("qwen2_5_vl_text"));
  g_assert_false (hr_config_is_vision_language ("gemma3n"));
  /* DiffLlama's lambda vectors and Llama 3.2 Vision's cross-attention
   * layers: refused by name too. */
  expect_error ("{\"model_type\": \"diffllama\"}", HR_ERROR_UNSUPPORTED, "model_type");
  expect_error ("{\"model_type\": \"mllama\", \"text_config\": {\"cross_attention_layers\":"
                " [3, 8]}}", HR_ERROR_UNSUPPORTED, "model_type");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/qwen-vl", test_qwen_vl);
  g_test_add_func ("/config/typed-text-config", test_typed_text_config);
  g_test_add_func ("/config/glm4v-aya-fuyu", test_glm4v_aya_fuyu);
  g_test_add_func ("/config/gemma3n", test_gemma3n);

  return g_test_run ();
}
