/* test-config-llama.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading the Llama-style families' configs (hr-config-llama.c): their traps,
 * the counts of wild-models.json, layer kinds and the families added since.
 */
#include "test-config.h"

static void
test_llama_style_traps (void)
{
  HrModel m;

  /* Gemma's head_dim is read, not derived: 8 heads of 256 over hidden 3072. */
  m = model_of ("{\"model_type\": \"gemma\", \"num_attention_heads\": 8,"
                " \"num_key_value_heads\": 1, \"head_dim\": 256}");
  g_assert_cmpint (m.head_dim, ==, 256);
  g_assert_true (m.tied_embeddings);
  g_assert_cmpint (m.ffn_kind, ==, HR_FFN_GATED);

  /* Qwen2: q/k/v biases, no o_proj bias; windows only with
   * use_sliding_window, from max_window_layers on. */
  m = model_of ("{\"model_type\": \"qwen2\"}");
  g_assert_true (m.qkv_bias);
  g_assert_false (m.out_bias);
  g_assert_cmpint (m.sliding_window, ==, 0);
  m = model_of ("{\"model_type\": \"qwen2\", \"use_sliding_window\": true,"
                " \"sliding_window\": 4096, \"max_window_layers\": 28}");
  g_assert_false (hr_model_layer_is_sliding (&m, 27));
  g_assert_true (hr_model_layer_is_sliding (&m, 28));
  g_assert_true (hr_model_layer_is_sliding (&m, 31));
  m = model_of ("{\"model_type\": \"qwen2\", \"use_sliding_window\": true,"
                " \"max_window_layers\": 32}");
  g_assert_false (hr_model_layer_is_sliding (&m, 31));

  /* Llama attention_bias puts a bias on o_proj too; mlp_bias on the MLP. */
  m = model_of ("{\"model_type\": \"llama\", \"attention_bias\": true, \"mlp_bias\": true}");
  g_assert_true (m.qkv_bias && m.out_bias && m.mlp_bias);

  /* Mistral's default window applies to every layer; Mixtral has none. */
  m = model_of ("{\"model_type\": \"mistral\"}");
  g_assert_cmpint (m.sliding_window, ==, 4096);
  g_assert_true (hr_model_layer_is_sliding (&m, 31));
  m = model_of ("{\"model_type\": \"mixtral\"}");
  g_assert_cmpint (m.sliding_window, ==, 0);
  g_assert_cmpint (m.n_experts, ==, 8);
  g_assert_false (m.router_bias);

  /* Gemma 2: windows on even layers, four norms. */
  m = model_of ("{\"model_type\": \"gemma2\"}");
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 1));
  g_assert_cmpint (m.norms_per_layer, ==, 4);

  /* Phi-3: partial rotary read, sliding window on every layer. */
  m = model_of ("{\"model_type\": \"phi3\", \"sliding_window\": 2047, \"partial_rotary_factor\": 0.75}");
  g_assert_cmpint (m.sliding_window, ==, 2047);
  g_assert_cmpfloat (m.rotary_fraction, ==, 0.75);

  /* Phi: one shared norm, LayerNorm with bias, biased head, partial rotary. */
  m = model_of ("{\"model_type\": \"phi\", \"partial_rotary_factor\": 0.4}");
  g_assert_cmpint (m.norms_per_layer, ==, 1);
  g_assert_true (m.norm_bias && m.lm_head_bias && m.parallel_block);
  g_assert_cmpfloat (m.rotary_fraction, ==, 0.4);

  /* GPT-NeoX: two norms even with the parallel residual; untied; biases. */
  m = model_of ("{\"model_type\": \"gpt_neox\", \"rotary_pct\": 0.25}");
  g_assert_cmpint (m.norms_per_layer, ==, 2);
  g_assert_true (m.parallel_block && !m.tied_embeddings && m.qkv_bias && m.mlp_bias);
}

/* wild-models.json: families beyond known-models.json, each count derived by
 * hand from its modeling file (tensor shapes summed), and checked there:
 *
 * Qwen3-0.6B (Qwen3Attention q_norm/k_norm RMSNorm(head_dim), no biases, tied):
 *   embed 151,936·1024 = 155,582,464; per layer q 1024·2048 + k, v 2·1024·1024
 *   + o 2048·1024 = 6,291,456, q/k norms 2·128, MLP 3·1024·3072 = 9,437,184,
 *   norms 2·1024: 15,730,944 × 28 = 440,466,432; + final 1024 = 596,049,920.
 * Qwen3-30B-A3B (128 experts of 3·2048·768 = 4,718,592, top 8, gate 2048·128,
 *   untied): per layer attention 2048·4096·2 + 2048·512·2 = 18,874,368 + 256,
 *   experts 603,979,776, gate 262,144, norms 4096: 623,120,640 × 48 =
 *   29,909,790,720; + 2048 + 2 · 151,936·2048 = 30,532,122,624; active less
 *   48·120·4,718,592 = 3,353,032,704.
 * Gemma 3 1B (four norms per layer, q/k norms of 256, tied, 262,144 vocab):
 *   embed 301,989,888; per layer q 1152·1024 + k, v 2·1152·256 + o 1024·1152
 *   = 2,949,120, + 512, MLP 3·1152·6912 = 23,887,872, norms 4·1152:
 *   26,842,112 × 26 = 697,894,912; + 1152 + embed = 999,885,952.
 * OLMo 2 7B (q_norm/k_norm over 4096, no input norm, untied): per layer
 *   4·4096² + 8192 + 3·4096·11008 + 8192 = 202,391,552 × 32 = 6,476,529,664;
 *   + 4096 + 2·100,352·4096 = 7,298,617,344.
 * StarCoder2-7B (biases everywhere, plain GELU MLP, LayerNorm with bias,
 *   tied): per layer q, o 2·(4608² + 4608), k, v 2·(4608·512 + 512), MLP
 *   2·4608·18432 + 18432 + 4608, norms 2·2·4608: 217,106,944 × 32 =
 *   6,947,422,208; + 2·4608 + 49,152·4608 = 7,173,923,840.
 * GPT-J-6B (no attention biases, MLP with biases, one ln_1, lm_head with a
 *   bias, untied): per layer 4·4096² + 2·4096·16384 + 16384 + 4096 + 2·4096
 *   = 201,355,264 × 28 = 5,637,947,392; + 8192 + 2·50,400·4096 + 50,400
 *   = 6,050,882,784.
 * GPT-OSS-120B (q, k, v, o biases, 64 sinks; 128 experts of gate_up 2880·5760
 *   + 5760 and down 2880·2880 + 2880 = 24,891,840; router 2880·128 + 128;
 *   untied): per layer 26,550,144 + 3,186,155,520 + 368,768 + 5760 =
 *   3,213,080,192 × 36 = 115,670,886,912; + 2880 + 2·201,088·2880 =
 *   116,829,156,672; active less 36·124·24,891,840 = 5,711,982,912.
 * Mamba: refused by name.
 * KV bytes per token at bf16: 2 (K and V) · kv heads · head_dim · 2 bytes · layers. */
static void
test_wild_models (void)
{
  g_autofree char *path = g_build_filename (TEST_DATA_DIR, "reference", "wild-models.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *models;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  models = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "models");
  g_assert_cmpuint (json_array_get_length (models), >=, 8);

  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      JsonObject *entry = json_array_get_object_element (models, i);
      JsonObject *expected = json_object_get_object_member (entry, "expected");
      HrModel model;
      HrParams params;
      HrError err = { 0 };
      unsigned warnings;
      HrStatus status;

      g_test_message ("%s", json_object_get_string_member (entry, "name"));
      status = read_object (json_object_get_object_member (entry, "config"), &model, &warnings, &err);
      if (json_object_get_boolean_member (entry, "refuse"))
        {
          g_assert_cmpint (status, ==, HR_ERROR_UNSUPPORTED);
          g_assert_cmpstr (err.field, ==, "model_type");
          continue;
        }
      g_assert_cmpint (status, ==, HR_OK);
      g_assert_cmpuint (warnings, ==, HR_CONFIG_WARN_NONE);
      g_assert_cmpint (hr_model_params (&model, &params, &err), ==, HR_OK);
      g_assert_cmpint (params.total, ==, json_object_get_int_member (expected, "total"));
      g_assert_cmpint (params.active, ==, json_object_get_int_member (expected, "active"));
      g_assert_cmpint (2 * model.n_kv_heads * hr_model_head_dim (&model) * 2 * model.n_layers, ==,
                       json_object_get_int_member (expected, "kv_bytes_per_token_bf16"));
    }
}

/* Layer kinds: Gemma 3 1B (sliding_window_pattern 6) has layers 5, 11, 17, 23
 * global and 22 sliding within 512; GPT-OSS alternates from layer_types (even
 * sliding, odd full); the same list spelled out reads the same; a pattern
 * HrModel cannot hold is refused naming layer_types. */
static void
test_layer_types (void)
{
  HrModel m;
  int64_t sliding = 0;

  m = model_of ("{\"model_type\": \"gemma3_text\", \"hidden_size\": 1152, \"num_hidden_layers\": 26,"
                " \"num_attention_heads\": 4, \"num_key_value_heads\": 1, \"head_dim\": 256,"
                " \"intermediate_size\": 6912, \"vocab_size\": 262144, \"sliding_window\": 512,"
                " \"sliding_window_pattern\": 6}");
  for (int64_t i = 0; i < m.n_layers; i++)
    sliding += hr_model_layer_is_sliding (&m, i);
  g_assert_cmpint (sliding, ==, 22);
  g_assert_false (hr_model_layer_is_sliding (&m, 5));
  g_assert_true (hr_model_layer_is_sliding (&m, 6));
  g_assert_cmpint (m.sliding_window, ==, 512);

  m = model_of ("{\"model_type\": \"gpt_oss\", \"num_hidden_layers\": 4, \"layer_types\":"
                " [\"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\"]}");
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 1));
  g_assert_true (hr_model_layer_is_sliding (&m, 2));
  g_assert_cmpint (m.sliding_window, ==, 128);

  /* Qwen3 with max_window_layers spelled as layer_types: 2 global, then sliding. */
  m = model_of ("{\"model_type\": \"qwen3\", \"num_hidden_layers\": 4, \"sliding_window\": 1024,"
                " \"layer_types\": [\"full_attention\", \"full_attention\", \"sliding_attention\","
                " \"sliding_attention\"]}");
  g_assert_false (hr_model_layer_is_sliding (&m, 1));
  g_assert_true (hr_model_layer_is_sliding (&m, 2));

  expect_error ("{\"model_type\": \"gpt_oss\", \"num_hidden_layers\": 3, \"layer_types\":"
                " [\"full_attention\", \"sliding_attention\", \"full_attention\"]}",
                HR_ERROR_UNSUPPORTED, "layer_types");
  expect_error ("{\"model_type\": \"gpt_oss\", \"num_hidden_layers\": 2, \"layer_types\":"
                " [\"chunked_attention\", \"full_attention\"]}",
                HR_ERROR_UNSUPPORTED, "layer_types");
  expect_error ("{\"model_type\": \"gpt_oss\", \"num_hidden_layers\": 3, \"layer_types\":"
                " [\"full_attention\"]}",
                HR_ERROR_OUT_OF_RANGE, "layer_types");
}

/* More families, each derived by hand from its modeling file. */
static void
test_families (void)
{
  HrParams p;

  /* GPT-OSS-20B: as 120B above with 24 layers of 32 experts: per layer
   * 26,550,144 + 32·24,891,840 + (2880·32 + 32) + 5760 = 823,186,976 × 24 =
   * 19,756,487,424; + 2880 + 1,158,266,880 = 20,914,757,184 (OpenAI's model
   * card: 20.91 B); active less 24·28·24,891,840 = 4,187,440,704 (the card's
   * 3.61 B leaves out the 579,133,440 of the input embedding). */
  p = count ("{\"model_type\": \"gpt_oss\", \"num_hidden_layers\": 24, \"num_local_experts\": 32}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 20914757184);
  g_assert_cmpint (p.active, ==, 4187440704);

  /* Qwen1.5-MoE-A2.7B (qwen2_moe): q, k, v with biases 3·(2048² + 2048), o
   * 2048²: 16,783,360; 60 experts of 3·2048·1408 = 8,650,752: 519,045,120;
   * shared expert 3·2048·5632 = 34,603,008 and its gate 2048; router
   * 2048·60 = 122,880; norms 4096: 570,560,512 × 24 = 13,693,452,288; + 2048
   * + 2·151,936·2048 = 14,315,784,192 (Qwen: 14.3 B); active less
   * 24·56·8,650,752 = 2,689,173,504 (Qwen: 2.7 B). */
  p = count ("{\"model_type\": \"qwen2_moe\", \"hidden_size\": 2048, \"num_hidden_layers\": 24,"
             " \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"intermediate_size\": 5632,"
             " \"moe_intermediate_size\": 1408, \"shared_expert_intermediate_size\": 5632,"
             " \"num_experts\": 60, \"num_experts_per_tok\": 4, \"vocab_size\": 151936,"
             " \"tie_word_embeddings\": false, \"decoder_sparse_step\": 1, \"mlp_only_layers\": []}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 14315784192);
  g_assert_cmpint (p.active, ==, 2689173504);

  /* decoder_sparse_step 2: layers 1, 3, … are MoE ((i + 1) % 2 == 0), 12 of 24. */
  {
    HrModel m = model_of ("{\"model_type\": \"qwen3_moe\", \"decoder_sparse_step\": 2}");

    g_assert_false (hr_model_layer_is_moe (&m, 0));
    g_assert_true (hr_model_layer_is_moe (&m, 1));
    g_assert_cmpint (hr_model_params (&m, &p, NULL), ==, HR_OK);
    g_assert_cmpint (p.n_moe_layers, ==, 12);
  }
  /* mlp_only_layers is read by Qwen3MoeDecoderLayer: a non-empty list is refused. */
  expect_error ("{\"model_type\": \"qwen3_moe\", \"mlp_only_layers\": [0, 1]}",
                HR_ERROR_UNSUPPORTED, "mlp_only_layers");

  /* Gemma 3 4B, the multimodal config: text_config holds the text model,
   * defaults of Gemma3TextConfig elsewhere (8 heads, 4 kv heads, head_dim
   * 256, vocab 262,208, tied). Per layer q 2560·2048 + k, v 2·2560·1024 + o
   * 2048·2560 = 15,728,640, + 512, MLP 3·2560·10240 = 78,643,200, norms
   * 4·2560: 94,382,592 × 34 = 3,209,008,128; + 2560 + 262,208·2560 =
   * 3,880,263,168; the SigLIP tower is not counted (a warning says so). */
  p = count ("{\"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 2560,"
             " \"intermediate_size\": 10240, \"model_type\": \"gemma3_text\","
             " \"num_hidden_layers\": 34, \"sliding_window\": 1024},"
             " \"vision_config\": {\"hidden_size\": 1152}}",
             HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 3880263168);
}

/* More families, with the published sizes their cards give. */
static void
test_more_families (void)
{
  HrParams p;
  HrModel m;

  /* Aya 23 8B (cohere: tied by default, one weight-only LayerNorm per layer,
   * no biases): per layer q, o 2·4096² + k, v 2·4096·1024 = 41,943,040, MLP
   * 3·4096·14336 = 176,160,768, norm 4096: 218,107,904 × 32 = 6,979,452,928;
   * + 4096 + 256,000·4096 = 8,028,033,024 (Cohere: 8.0 B). */
  p = count ("{\"model_type\": \"cohere\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336,"
             " \"vocab_size\": 256000}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 8028033024);
  /* use_qk_norm adds (32 + 8)·128 weights per layer. */
  p = count ("{\"model_type\": \"cohere\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336,"
             " \"vocab_size\": 256000, \"use_qk_norm\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 8028033024 + 32 * 40 * 128);

  /* OLMoE-1B-7B (q_norm over 2048, k_norm over 2048; 64 experts of
   * 3·2048·1024 = 6,291,456, top 8; gate 2048·64; untied): per layer 4·2048²
   * + 4096 + 402,653,184 + 131,072 + 4096 = 419,569,664 × 16 = 6,713,114,624;
   * + 2048 + 2·50,304·2048 = 6,919,161,856 (AI2: 6.9 B); active less
   * 16·56·6,291,456 = 1,282,017,280 (AI2: 1.3 B). */
  p = count ("{\"model_type\": \"olmoe\", \"hidden_size\": 2048, \"num_hidden_layers\": 16,"
             " \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"intermediate_size\": 1024,"
             " \"num_experts\": 64, \"num_experts_per_tok\": 8, \"vocab_size\": 50304}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 6919161856);
  g_assert_cmpint (p.active, ==, 1282017280);

  /* SmolLM3-3B (tied, GQA 16/4): per layer 2·2048² + 2·2048·512 +
   * 3·2048·11008 + 2·2048 = 78,123,008 × 36 = 2,812,428,288; + 2048 +
   * 128,256·2048 = 3,075,098,624 (Hugging Face: 3.08 B). */
  p = count ("{\"model_type\": \"smollm3\", \"hidden_size\": 2048, \"num_hidden_layers\": 36,"
             " \"num_attention_heads\": 16, \"num_key_value_heads\": 4, \"intermediate_size\": 11008,"
             " \"vocab_size\": 128256, \"no_rope_layers\": [1, 1, 1, 0]}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 3075098624);

  /* Phi-3.5-MoE (biases on q, k, v, o; LayerNorms with bias; 16 experts of
   * 3·4096·6400 = 78,643,200, top 2; lm_head with a bias): per layer
   * 2·(4096² + 4096) + 2·(4096·1024 + 1024) + 1,258,291,200 + 4096·16 +
   * 2·2·4096 = 1,300,326,400 × 32 = 41,610,444,800; + 2·4096 + 2·32,064·4096
   * + 32,064 = 41,873,153,344 (Microsoft: 41.9 B); active less 32·14·78,643,200
   * = 6,640,999,744 (6.6 B). */
  p = count ("{\"model_type\": \"phimoe\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 6400,"
             " \"vocab_size\": 32064, \"num_local_experts\": 16, \"num_experts_per_tok\": 2,"
             " \"attention_bias\": true, \"lm_head_bias\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 41873153344);
  g_assert_cmpint (p.active, ==, 6640999744);

  /* Granite 3.0 1B-A400M (granitemoe, tied; 32 experts of 3·1024·512 =
   * 1,572,864, top 8): per layer 2·1024² + 2·1024·512 + 50,331,648 +
   * 1024·32 + 2·1024 = 53,512,192 × 24 = 1,284,292,608; + 1024 +
   * 49,155·1024 = 1,334,628,352 (IBM: 1.3 B); active less 24·24·1,572,864 =
   * 428,658,688 (IBM: 400 M). */
  p = count ("{\"model_type\": \"granitemoe\", \"hidden_size\": 1024, \"num_hidden_layers\": 24,"
             " \"num_attention_heads\": 16, \"num_key_value_heads\": 8, \"intermediate_size\": 512,"
             " \"vocab_size\": 49155, \"num_local_experts\": 32, \"num_experts_per_tok\": 8,"
             " \"tie_word_embeddings\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1334628352);
  g_assert_cmpint (p.active, ==, 428658688);

  /* StableLM 2 1.6B (q, k, v biases, LayerNorms with bias, untied): per layer
   * 3·(2048² + 2048) + 2048² + 3·2048·5632 + 2·2·2048 = 51,394,560 × 24 =
   * 1,233,469,440; + 2·2048 + 2·100,352·2048 = 1,644,515,328. qk_layernorm
   * adds (32 + 32)·64 bias-free weights per layer. */
  p = count ("{\"model_type\": \"stablelm\", \"hidden_size\": 2048, \"num_hidden_layers\": 24,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 32, \"intermediate_size\": 5632,"
             " \"vocab_size\": 100352, \"use_qkv_bias\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1644515328);
  p = count ("{\"model_type\": \"stablelm\", \"hidden_size\": 2048, \"num_hidden_layers\": 24,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 32, \"intermediate_size\": 5632,"
             " \"vocab_size\": 100352, \"use_qkv_bias\": true, \"qk_layernorm\": true}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 1644515328 + 24 * 64 * 64);

  /* Llama 4 Scout, the multimodal config's text_config (untied; every layer
   * MoE of 16 experts of 3·5120·8192 = 125,829,120, top 1, one shared expert
   * the same size; router 5120·16): per layer q, o 2·5120² + k, v
   * 2·5120·1024 = 62,914,560, + 2,013,265,920 + 125,829,120 + 81,920 +
   * 2·5120 = 2,202,101,760 × 48 = 105,700,884,480; + 5120 + 2·202,048·5120 =
   * 107,769,861,120 (Meta: 109 B with the vision encoder); active less
   * 48·15·125,829,120 = 17,172,894,720 (Meta: 17 B). Layers 3, 7, … attend
   * globally, the others within chunks of 8192. */
  p = count ("{\"model_type\": \"llama4\", \"text_config\": {\"model_type\": \"llama4_text\","
             " \"hidden_size\": 5120, \"num_hidden_layers\": 48, \"num_attention_heads\": 40,"
             " \"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 8192,"
             " \"intermediate_size_mlp\": 16384, \"num_local_experts\": 16,"
             " \"num_experts_per_tok\": 1, \"interleave_moe_layer_step\": 1,"
             " \"vocab_size\": 202048, \"attention_chunk_size\": 8192},"
             " \"vision_config\": {\"hidden_size\": 1408}}", HR_CONFIG_WARN_TEXT_ONLY);
  g_assert_cmpint (p.total, ==, 107769861120);
  g_assert_cmpint (p.active, ==, 17172894720);
  m = model_of ("{\"model_type\": \"llama4_text\"}");
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 3));
  g_assert_cmpint (m.sliding_window, ==, 8192);

  /* Llama 4 Maverick: MoE every 2nd layer (1, 3, …) of 128 experts, dense
   * layers of intermediate_size_mlp 16384: dense layer 62,914,560 +
   * 3·5120·16384 + 2·5120 = 314,583,040; MoE layer 62,914,560 +
   * 128·125,829,120 + 125,829,120 + 5120·128 + 2·5120 = 16,295,536,640;
   * 24 of each + 5120 + 2,068,971,520 = 400,711,848,960 (Meta: 400 B);
   * active less 24·127·125,829,120 = 17,184,691,200 (17 B). */
  p = count ("{\"model_type\": \"llama4_text\", \"num_local_experts\": 128,"
             " \"interleave_moe_layer_step\": 2, \"moe_layers\": [1, 3, 5, 7, 9, 11, 13, 15, 17,"
             " 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45, 47]}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 400711848960);
  g_assert_cmpint (p.active, ==, 17184691200);
  expect_error ("{\"model_type\": \"llama4_text\", \"interleave_moe_layer_step\": 2,"
                " \"moe_layers\": [0, 2]}", HR_ERROR_UNSUPPORTED, "moe_layers");
}

/* GLM-4.5 (glm4_moe), GLM-4 (glm4), Cohere2 and EXAONE 4 (exaone4). */
static void
test_glm_cohere2_exaone4 (void)
{
  HrParams p;
  HrModel m;

  /* GLM-4.5-Air, config.json as transformers 4.54.1 printed it (ms-swift's
   * conversion log): layer 0 dense, 45 MoE layers of 128 experts + 1 shared
   * of 1408, top 8, q/k/v biases, no q/k norms. Attention 4096·12288 + 12288
   * + 2·(4096·1024 + 1024) + 12288·4096 = 109,066,240; dense layer + 2·4096
   * + 3·4096·10944 = 243,554,304; MoE layer + 2·4096 + 129·3·4096·1408 +
   * 128·4096 = 2,341,492,736 × 45; + 4096 + 2·151,552·4096 = 106,852,245,504.
   * Independent: model.safetensors.index.json total_size 110,468,824,832,
   * which also holds what transformers does not build: the MTP layer 46 (a
   * MoE layer 2,341,492,736, eh_proj 8192·4096, enorm, hnorm and
   * shared_head.norm 3·4096, its own embed_tokens and shared_head.head
   * 2·151,552·4096) and the 46 e_score_correction_bias buffers of 128:
   * 106,852,245,504 + 2,341,492,736 + 33,554,432 + 12,288 + 1,241,513,984 +
   * 5,888 = 110,468,824,832. Active less 45·120·3·4096·1408; without the
   * embedding and head 12,182,609,920 (Z.ai: 12 B active). */
  p = count ("{\"model_type\": \"glm4_moe\", \"attention_bias\": true, \"first_k_dense_replace\": 1,"
             " \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 4096,"
             " \"intermediate_size\": 10944, \"max_position_embeddings\": 131072,"
             " \"moe_intermediate_size\": 1408, \"n_group\": 1, \"n_routed_experts\": 128,"
             " \"n_shared_experts\": 1, \"norm_topk_prob\": true, \"num_attention_heads\": 96,"
             " \"num_experts_per_tok\": 8, \"num_hidden_layers\": 46, \"num_key_value_heads\": 8,"
             " \"num_nextn_predict_layers\": 1, \"partial_rotary_factor\": 0.5,"
             " \"rms_norm_eps\": 1e-05, \"rope_theta\": 1000000, \"routed_scaling_factor\": 1.0,"
             " \"tie_word_embeddings\": false, \"topk_group\": 1, \"use_qk_norm\": false,"
             " \"vocab_size\": 151552}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 106852245504);
  g_assert_cmpint (p.active, ==, 106852245504 - INT64_C (45) * 120 * 17301504);
  g_assert_cmpint (p.active, ==, 13424123904);
  g_assert_cmpint (p.active_non_embedding, ==, 12182609920);
  g_assert_cmpint (p.n_dense_layers, ==, 1);

  /* GLM-4.5: the same with hidden 5120, 3 dense layers of 12288, 89 MoE
   * layers of 160 experts + 1 shared of 1536 (GLM-5 report, table 1) and
   * q/k norms (slime's GLM-4.5 script: --qk-layernorm, --add-qkv-bias).
   * Attention 5120·12288 + 12288 + 2·(5120·1024 + 1024) + 12288·5120 +
   * 2·128 = 136,329,472; dense layer + 2·5120 + 3·5120·12288 = 325,083,392
   * × 3; MoE layer + 2·5120 + 161·3·5120·1536 + 160·5120 = 3,935,625,472 ×
   * 89; + 5120 + 2·151,552·5120 = 352,797,814,784. Independent: total_size
   * 358,337,791,296 of zai-org/GLM-4.5 (and GLM-4.7, the same shapes), less
   * the MTP layer 3,935,625,472 + 10240·5120 + 3·5120 + 2·151,552·5120 and
   * 90·160 bias buffers = 352,797,814,784. Active less 89·152·3·5120·1536;
   * without the embedding and head 32,080,359,424 (Z.ai: 32 B active). */
  p = count ("{\"model_type\": \"glm4_moe\", \"attention_bias\": true, \"first_k_dense_replace\": 3,"
             " \"head_dim\": 128, \"hidden_size\": 5120, \"intermediate_size\": 12288,"
             " \"moe_intermediate_size\": 1536, \"n_routed_experts\": 160, \"n_shared_experts\": 1,"
             " \"num_attention_heads\": 96, \"num_experts_per_tok\": 8, \"num_hidden_layers\": 92,"
             " \"num_key_value_heads\": 8, \"num_nextn_predict_layers\": 1,"
             " \"partial_rotary_factor\": 0.5, \"tie_word_embeddings\": false,"
             " \"use_qk_norm\": true, \"vocab_size\": 151552}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 352797814784);
  g_assert_cmpint (p.active, ==, 33632251904);
  g_assert_cmpint (p.active_non_embedding, ==, 32080359424);
  /* num_local_experts is Glm4MoeConfig's alias of n_routed_experts and wins;
   * the router's e_score_correction_bias is a buffer. */
  m = model_of ("{\"model_type\": \"glm4_moe\", \"n_routed_experts\": 128,"
                " \"num_local_experts\": 64, \"head_dim\": 128}");
  g_assert_cmpint (m.n_experts, ==, 64);
  g_assert_false (m.router_bias);
  g_assert_false (m.out_bias);
  g_assert_cmpfloat (m.rotary_fraction, ==, 0.5);

  /* GLM-4-9B-0414 (glm4: q/k/v biases, no o_proj bias, fused gate_up_proj,
   * four RMSNorms per layer): attention 4096² + 4096 + 2·(4096·256 + 256) +
   * 4096² = 35,656,192; + 4·4096 + 3·4096·13696 = 203,969,024 × 40; + 4096 +
   * 2·151,552·4096 = 9,400,279,040. Independent: llama.cpp's n_params of
   * the BF16 GGUF of GLM-4.6V-Flash's language model, the same tensors
   * (9,400,279,040). */
  p = count ("{\"model_type\": \"glm4\", \"attention_bias\": true, \"head_dim\": 128,"
             " \"hidden_size\": 4096, \"intermediate_size\": 13696, \"num_attention_heads\": 32,"
             " \"num_hidden_layers\": 40, \"num_key_value_heads\": 2, \"partial_rotary_factor\": 0.5,"
             " \"tie_word_embeddings\": false, \"vocab_size\": 151552}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 9400279040);
  m = model_of ("{\"model_type\": \"glm4\"}");
  g_assert_true (m.qkv_bias);
  g_assert_false (m.out_bias);
  g_assert_cmpint (m.norms_per_layer, ==, 4);

  /* Command R7B (cohere2, shapes as the Cohere2ForCausalLM tree printed in
   * the card of a 4-bit copy: GQA 32/8, no biases, one bias-free LayerNorm
   * per layer for the parallel block, tied; three of four layers within
   * 4096, transformers' cohere2 docs):
   * per layer 2·4096² + 2·4096·1024 + 3·4096·14336 + 4096 = 218,107,904 ×
   * 32; + 4096 + 256,000·4096 = 8,028,033,024, Aya Expanse 8B's tensors
   * (8,028,033,024 in a published table of model sizes; Cohere: 8 B). The
   * config's use_qk_norm is not read by Cohere2Attention. */
  p = count ("{\"model_type\": \"cohere2\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
             " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8,"
             " \"sliding_window\": 4096, \"sliding_window_pattern\": 4, \"use_qk_norm\": true,"
             " \"vocab_size\": 256000}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 8028033024);
  m = model_of ("{\"model_type\": \"cohere2\", \"num_hidden_layers\": 32}");
  g_assert_true (hr_model_layer_is_sliding (&m, 2));
  g_assert_false (hr_model_layer_is_sliding (&m, 3));
  g_assert_cmpint (m.sliding_window, ==, 4096);
  g_assert_true (m.tied_embeddings && m.parallel_block);
  m = model_of ("{\"model_type\": \"cohere2\", \"num_hidden_layers\": 4, \"sliding_window\": 512,"
                " \"layer_types\": [\"sliding_attention\", \"full_attention\","
                " \"sliding_attention\", \"full_attention\"]}");
  g_assert_cmpint (m.sliding_window_period, ==, 2);
  m = model_of ("{\"model_type\": \"cohere2\", \"sliding_window\": null}");
  g_assert_cmpint (m.sliding_window, ==, 0);

  /* EXAONE-4.0-32B (exaone4, config of TensorRT-LLM's test with its 64
   * layers and 4096 window: no biases, q/k RMSNorm(128), post-norms only,
   * untied): attention 2·5120² + 2·5120·1024 + 2·128 = 62,914,816; + 2·5120 +
   * 3·5120·27392 = 483,666,176 × 64 = 30,954,635,264; + 5120 +
   * 2·102,400·5120 = 32,003,216,384 (LG: 32 B; no exact published figure
   * found). */
  p = count ("{\"model_type\": \"exaone4\", \"head_dim\": 128, \"hidden_size\": 5120,"
             " \"intermediate_size\": 27392, \"max_position_embeddings\": 131072,"
             " \"num_attention_heads\": 40, \"num_hidden_layers\": 64, \"num_key_value_heads\": 8,"
             " \"sliding_window\": 4096, \"sliding_window_pattern\": 4,"
             " \"tie_word_embeddings\": false, \"vocab_size\": 102400}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 32003216384);
  g_assert_cmpint (p.non_embedding, ==, 30954640384);
  m = model_of ("{\"model_type\": \"exaone4\", \"num_hidden_layers\": 8}");
  g_assert_true (m.qk_norm);
  g_assert_cmpint (m.norm_placement, ==, HR_NORM_POST);
  g_assert_true (hr_model_layer_is_sliding (&m, 6));
  g_assert_false (hr_model_layer_is_sliding (&m, 7));
  /* A null window leaves Exaone4Config no pattern to apply: layer_types is needed. */
  expect_error ("{\"model_type\": \"exaone4\", \"sliding_window\": null}", HR_ERROR_MISSING,
                "layer_types");
  m = model_of ("{\"model_type\": \"exaone4\", \"num_hidden_layers\": 2, \"sliding_window\": null,"
                " \"layer_types\": [\"full_attention\", \"full_attention\"]}");
  g_assert_cmpint (m.sliding_window, ==, 0);
}

/* ERNIE 4.5, Hunyuan, Seed-OSS, OLMo 3 and dots.llm1, with the sizes their
 * cards publish. */
static void
test_ernie_hunyuan_seed_olmo3_dots1 (void)
{
  HrParams p;
  HrModel m;

  /* ERNIE-4.5-0.3B-PT (ernie4_5, tied, no biases, head_dim 128): per layer
   * q, o 2·1024·2048 + k, v 2·1024·256 = 4,718,592, MLP 3·1024·3072 =
   * 9,437,184, norms 2048: 14,157,824 × 18 = 254,840,832; + 1024 +
   * 103,424·1024 = 360,748,032 (Baidu: 0.36 B; a published evaluation log
   * gives the same params=360748032 for this model, counted by torch). */
  p = count ("{\"model_type\": \"ernie4_5\", \"hidden_size\": 1024, \"intermediate_size\": 3072,"
             " \"max_position_embeddings\": 131072, \"num_attention_heads\": 16,"
             " \"num_key_value_heads\": 2, \"head_dim\": 128, \"num_hidden_layers\": 18,"
             " \"rms_norm_eps\": 1e-05, \"vocab_size\": 103424, \"rope_theta\": 500000,"
             " \"use_bias\": false, \"tie_word_embeddings\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 360748032);
  /* Ernie4_5Config() is that model. */
  g_assert_cmpint (count ("{\"model_type\": \"ernie4_5\"}", 0).total, ==, 360748032);
  /* use_bias puts a bias on q, k, v, o and the three MLP matrices, not the head:
   * 18·(2048 + 2·256 + 1024 + 2·3072 + 1024). */
  g_assert_cmpint (count ("{\"model_type\": \"ernie4_5\", \"use_bias\": true}", 0).total, ==,
                   360748032 + 18 * (2048 + 2 * 256 + 1024 + 2 * 3072 + 1024));

  /* ERNIE-4.5-21B-A3B-PT (ernie4_5_moe, tied; layer 0 dense, layers 1 to 27
   * MoE of 64 experts of 3·2560·1536 = 11,796,480, top 6, a shared MLP of
   * 2·1536; router 2560·64 and moe_statics 64): attention q, o 2·2560² +
   * k, v 2·2560·512 = 15,728,640; dense layer + 3·2560·12288 + 2·2560 =
   * 110,105,600; MoE layer + 754,974,720 + 23,592,960 + 163,840 + 64 + 5120
   * = 794,465,344 × 27; + 2560 + 103,424·2560 = 21,825,437,888 (Baidu: 21 B,
   * Hugging Face: 21.8 B); active less 27·58·11,796,480 = 3,352,150,208
   * (Baidu: 3 B). */
  p = count ("{\"model_type\": \"ernie4_5_moe\", \"hidden_size\": 2560,"
             " \"intermediate_size\": 12288, \"max_position_embeddings\": 131072,"
             " \"num_attention_heads\": 20, \"num_key_value_heads\": 4, \"num_hidden_layers\": 28,"
             " \"rms_norm_eps\": 1e-05, \"vocab_size\": 103424, \"rope_theta\": 500000,"
             " \"use_bias\": false, \"moe_num_experts\": 64, \"moe_num_shared_experts\": 2,"
             " \"moe_layer_start_index\": 1, \"moe_layer_end_index\": 27,"
             " \"moe_intermediate_size\": 1536, \"moe_k\": 6, \"moe_layer_interval\": 1,"
             " \"moe_use_aux_free\": true, \"num_nextn_predict_layers\": 1,"
             " \"tie_word_embeddings\": true}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 21825437888);
  g_assert_cmpint (p.active, ==, 3352150208);
  g_assert_cmpint (p.n_dense_layers, ==, 1);
  /* Ernie4_5_MoeConfig() is that model, end index -1 being the last layer. */
  g_assert_cmpint (count ("{\"model_type\": \"ernie4_5_moe\"}", 0).total, ==, 21825437888);

  /* ERNIE-4.5-300B-A47B-PT (untied, 64 experts of 3·8192·3584 = 88,080,384,
   * top 8, no shared expert, MoE from layer 3 of 54): attention 2·8192² +
   * 2·8192·1024 = 150,994,944; dense layer + 3·8192·28672 + 2·8192 =
   * 855,654,400 × 3; MoE layer + 5,637,144,576 + 8192·64 + 64 + 16,384 =
   * 5,788,680,256 × 51; + 8192 + 2·103,424·8192 = 299,484,163,264 (Baidu:
   * 300 B); active less 51·56·88,080,384 = 47,926,586,560 (Baidu: 47 B). */
  p = count ("{\"model_type\": \"ernie4_5_moe\", \"hidden_size\": 8192,"
             " \"intermediate_size\": 28672, \"num_attention_heads\": 64,"
             " \"num_key_value_heads\": 8, \"num_hidden_layers\": 54, \"vocab_size\": 103424,"
             " \"use_bias\": false, \"moe_num_experts\": 64, \"moe_layer_start_index\": 3,"
             " \"moe_layer_end_index\": 53, \"moe_intermediate_size\": 3584, \"moe_k\": 8,"
             " \"moe_layer_interval\": 1, \"moe_num_shared_experts\": 0,"
             " \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 299484163264);
  g_assert_cmpint (p.active, ==, 47926586560);
  /* Expert biases differ between transformers versions: use_bias is refused. */
  expect_error ("{\"model_type\": \"ernie4_5_moe\", \"use_bias\": true}",
                HR_ERROR_UNSUPPORTED, "use_bias");
  /* moe_layer_interval 2 from index 1: layers 1, 3, … 27 are MoE. */
  m = model_of ("{\"model_type\": \"ernie4_5_moe\", \"moe_layer_interval\": 2}");
  g_assert_false (hr_model_layer_is_moe (&m, 0));
  g_assert_true (hr_model_layer_is_moe (&m, 1));
  g_assert_false (hr_model_layer_is_moe (&m, 2));
  g_assert_true (hr_model_layer_is_moe (&m, 27));
  /* The alias spelling of attribute_map wins. */
  m = model_of ("{\"model_type\": \"ernie4_5_moe\", \"moe_num_experts\": 64, \"num_experts\": 32,"
                " \"num_experts_per_tok\": 4}");
  g_assert_cmpint (m.n_experts, ==, 32);
  g_assert_cmpint (m.experts_per_token, ==, 4);
  /* An end index before the last MoE layer is refused. */
  expect_error ("{\"model_type\": \"ernie4_5_moe\", \"moe_layer_end_index\": 20}",
                HR_ERROR_UNSUPPORTED, "moe_layer_end_index");

  /* Hunyuan-A13B-Instruct (hunyuan_v1_moe, tied; every layer 64 experts of
   * 3·4096·3072 = 37,748,736, top 8, plus a shared MLP the same size; per-layer
   * lists): attention q, o 2·4096² + k, v 2·4096·1024 + q/k norms 2·128 =
   * 41,943,296; per layer + 65·37,748,736 + 4096·64 + 2·4096 =
   * 2,495,881,472 × 32 = 79,868,207,104; + 4096 + 128,167·4096 =
   * 80,393,183,232 (Tencent: 80 B; a published parameter ledger sums the
   * checkpoint's safetensors headers to the same 80,393,183,232); active
   * less 32·56·37,748,736 = 12,747,448,320 (Tencent: 13 B). */
  {
    GString *json = g_string_new ("{\"model_type\": \"hunyuan_v1_moe\", \"hidden_size\": 4096,"
                                  " \"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
                                  " \"num_key_value_heads\": 8, \"head_dim\": 128,"
                                  " \"intermediate_size\": 3072, \"vocab_size\": 128167,"
                                  " \"num_experts\": 64, \"use_qk_norm\": true,"
                                  " \"use_cla\": false, \"tie_word_embeddings\": true");
    const char *lists[] = { "moe_intermediate_size", "moe_topk", "num_shared_expert" };
    const int values[] = { 3072, 8, 1 };

    for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
      {
        g_string_append_printf (json, ", \"%s\": [", lists[k]);
        for (int i = 0; i < 32; i++)
          g_string_append_printf (json, "%s%d", i > 0 ? ", " : "", values[k]);
        g_string_append (json, "]");
      }
    g_string_append (json, "}");
    p = count (json->str, HR_CONFIG_WARN_NONE);
    g_string_free (json, TRUE);
  }
  g_assert_cmpint (p.total, ==, 80393183232);
  g_assert_cmpint (p.active, ==, 12747448320);
  /* Lists that differ by layer, experts wider than intermediate_size and
   * cross-layer attention are not what Headroom or transformers build. */
  expect_error ("{\"model_type\": \"hunyuan_v1_moe\", \"num_hidden_layers\": 2,"
                " \"num_experts\": [8, 16], \"moe_topk\": 2}", HR_ERROR_UNSUPPORTED, "num_experts");
  expect_error ("{\"model_type\": \"hunyuan_v1_moe\", \"num_hidden_layers\": 2,"
                " \"num_experts\": [8]}", HR_ERROR_OUT_OF_RANGE, "num_experts");
  expect_error ("{\"model_type\": \"hunyuan_v1_moe\", \"moe_intermediate_size\": 1024}",
                HR_ERROR_UNSUPPORTED, "moe_intermediate_size");
  expect_error ("{\"model_type\": \"hunyuan_v1_dense\", \"use_cla\": true}",
                HR_ERROR_UNSUPPORTED, "use_cla");

  /* HunYuanDenseV1Config() (untied, MHA, head_dim from hidden / heads; q/k
   * norms of 128): per layer 4·4096² + 2·128 + 3·4096·11008 + 2·4096 =
   * 202,383,616 × 32 = 6,476,275,712; + 4096 + 2·290,943·4096 =
   * 8,859,684,864 (hand-derived; no published model has these defaults). */
  g_assert_cmpint (count ("{\"model_type\": \"hunyuan_v1_dense\"}", 0).total, ==, 8859684864);

  /* Seed-OSS-36B-Instruct (seed_oss, untied, biases on q, k, v only): per
   * layer q 5120·10240 + 10240, k, v 2·(5120·1024 + 1024), o 10240·5120 =
   * 115,355,648, MLP 3·5120·27648 = 424,673,280, norms 10,240: 540,039,168
   * × 64 = 34,562,506,752; + 5120 + 2·155,136·5120 = 36,151,104,512
   * (ByteDance: 36 B; model.safetensors.index.json's total_size / 2 bytes
   * of bf16 = 36,151,104,512, as a public snapshot of the Hub's files lists
   * for Instruct and Base). */
  p = count ("{\"model_type\": \"seed_oss\", \"hidden_size\": 5120, \"num_hidden_layers\": 64,"
             " \"intermediate_size\": 27648, \"num_attention_heads\": 80,"
             " \"num_key_value_heads\": 8, \"head_dim\": 128, \"rms_norm_eps\": 1e-06,"
             " \"vocab_size\": 155136, \"rope_theta\": 10000000.0,"
             " \"rope_scaling\": {\"rope_type\": \"default\"},"
             " \"max_position_embeddings\": 524288, \"attention_bias\": true,"
             " \"attention_out_bias\": false, \"mlp_bias\": false,"
             " \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 36151104512);
  m = model_of ("{\"model_type\": \"seed_oss\", \"attention_out_bias\": true}");
  g_assert_true (m.qkv_bias && m.out_bias && !m.mlp_bias);

  /* OLMo 3 7B's shape (olmo3: as OLMo 2, q/k norms over the whole 4096-wide
   * projections, post-norms, untied; vocab 100,278): per layer 4·4096² +
   * 2·4096 + 3·4096·11008 + 2·4096 = 202,391,552 × 32 = 6,476,529,664; +
   * 4096 + 2·100,278·4096 = 7,298,011,136 (AI2: 7 B; public training logs
   * give num_params=7298011136, and a public checker asserts the
   * checkpoint's safetensors tensors sum to it). Three layers in four attend
   * within 4096 tokens, the 4th globally. */
  p = count ("{\"model_type\": \"olmo3\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 32,"
             " \"intermediate_size\": 11008, \"vocab_size\": 100278,"
             " \"sliding_window\": 4096, \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 7298011136);
  /* OLMo 3 32B (GQA 40/8 of 128): per layer q, o 2·5120² + k, v 2·5120·1024
   * + norms 5120 + 1024 = 62,920,704, MLP 3·5120·27648 = 424,673,280, norms
   * 10,240: 487,604,224 × 64 = 31,206,670,336; + 5120 + 2·100,278·5120 =
   * 32,233,522,176 (the same public sources: 32233522176). */
  p = count ("{\"model_type\": \"olmo3\", \"hidden_size\": 5120, \"num_hidden_layers\": 64,"
             " \"num_attention_heads\": 40, \"num_key_value_heads\": 8,"
             " \"intermediate_size\": 27648, \"vocab_size\": 100278,"
             " \"sliding_window\": 4096, \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 32233522176);
  m = model_of ("{\"model_type\": \"olmo3\"}");
  g_assert_cmpint (m.sliding_window, ==, 4096);
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_true (hr_model_layer_is_sliding (&m, 2));
  g_assert_false (hr_model_layer_is_sliding (&m, 3));
  g_assert_false (hr_model_layer_is_sliding (&m, 31));
  g_assert_true (m.norm_placement == HR_NORM_POST && m.qk_norm && m.qk_norm_full);
  /* An explicit layer_types in that pattern reads the same. */
  m = model_of ("{\"model_type\": \"olmo3\", \"num_hidden_layers\": 8,"
                " \"layer_types\": [\"sliding_attention\", \"sliding_attention\","
                " \"sliding_attention\", \"full_attention\", \"sliding_attention\","
                " \"sliding_attention\", \"sliding_attention\", \"full_attention\"]}");
  g_assert_cmpint (m.sliding_window_period, ==, 4);

  /* dots.llm1 (dots1, untied; layer 0 dense, 61 MoE layers of 128 experts of
   * 3·4096·1408 = 17,301,504, top 6, shared MLP of 2·1408; q/k norms of 128):
   * attention 4·4096² + 256 = 67,109,120; dense layer + 3·4096·10944 +
   * 2·4096 = 201,597,184; MoE layer + 2,214,592,512 + 34,603,008 +
   * 4096·128 + 8192 = 2,316,837,120 × 61; + 4096 + 2·152,064·4096 =
   * 142,774,373,888 (rednote: 142 B); active less 61·122·17,301,504 =
   * 14,016,581,120 (rednote: 14 B). e_score_correction_bias is a buffer. */
  p = count ("{\"model_type\": \"dots1\", \"hidden_size\": 4096, \"num_hidden_layers\": 62,"
             " \"intermediate_size\": 10944, \"num_attention_heads\": 32,"
             " \"num_key_value_heads\": 32, \"rms_norm_eps\": 1e-05, \"vocab_size\": 152064,"
             " \"first_k_dense_replace\": 1, \"moe_intermediate_size\": 1408,"
             " \"n_routed_experts\": 128, \"n_shared_experts\": 2, \"num_experts_per_tok\": 6,"
             " \"norm_topk_prob\": true, \"routed_scaling_factor\": 2.5,"
             " \"max_position_embeddings\": 32768, \"rope_theta\": 10000000,"
             " \"scoring_func\": \"sigmoid\", \"attention_bias\": false,"
             " \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 142774373888);
  g_assert_cmpint (p.active, ==, 14016581120);
  /* Dots1Config(): max_window_layers 62 of 62 layers, so no window; fewer
   * full layers put the window on the rest. */
  expect_error ("{\"model_type\": \"dots1\"}", HR_ERROR_MISSING, "n_routed_experts");
  m = model_of ("{\"model_type\": \"dots1\", \"first_k_dense_replace\": 62}");
  g_assert_cmpint (m.n_experts, ==, 0);
  g_assert_cmpint (m.sliding_window, ==, 0);
  m = model_of ("{\"model_type\": \"dots1\", \"first_k_dense_replace\": 62,"
                " \"max_window_layers\": 60}");
  g_assert_false (hr_model_layer_is_sliding (&m, 59));
  g_assert_true (hr_model_layer_is_sliding (&m, 60));
}

static void
test_arcee_apertus_glm_helium_ministral_flex_olmo (void)
{
  HrParams p;
  HrModel m;

  /* AFM-4.5B (arcee: Llama attention, ArceeMLP up and down only, ReLU²;
   * the config.json values as AWS's NeuronArceeForCausalLM example copies
   * them): attention 2560·2560 + 2·2560·512 + 2560·2560 = 15,728,640; MLP
   * 2·2560·18432 = 94,371,840; + 2·2560 = 110,105,600 × 36; + 2560 +
   * 2·128,004·2560 = 4,619,184,640 (Arcee's card: 4.5 B, the Hub's page
   * 4.6 B, both rounded: no exact figure found). */
  p = count ("{\"model_type\": \"arcee\", \"architectures\": [\"ArceeForCausalLM\"],"
             " \"hidden_size\": 2560, \"num_attention_heads\": 20, \"num_key_value_heads\": 4,"
             " \"num_hidden_layers\": 36, \"intermediate_size\": 18432, \"vocab_size\": 128004,"
             " \"max_position_embeddings\": 65536, \"head_dim\": 128, \"rms_norm_eps\": 1e-5,"
             " \"rope_theta\": 10000.0, \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 20.0,"
             " \"original_max_position_embeddings\": 4096}, \"hidden_act\": \"relu2\","
             " \"attention_bias\": false, \"mlp_bias\": false, \"pad_token_id\": 0,"
             " \"tie_word_embeddings\": false}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 4619184640);
  m = model_of ("{\"model_type\": \"arcee\"}");
  g_assert_cmpint (m.ffn_kind, ==, HR_FFN_MLP);
  g_assert_cmpint (m.ffn_activation, ==, HR_ACT_PLAIN);
  m = model_of ("{\"model_type\": \"arcee\", \"attention_bias\": true, \"mlp_bias\": true}");
  g_assert_true (m.qkv_bias && m.out_bias && m.mlp_bias);

  /* Apertus-8B (apertus: q/k norms of head_dim, up and down only, each
   * MLP's XIELUActivation holding alpha_p and alpha_n; swiss-ai's
   * config.json as a Go port's test copies it): attention 4096² +
   * 2·4096·1024 + 4096² + 2·128 = 41,943,296; MLP 2·4096·21504 + 2 =
   * 176,160,770; + 2·4096 = 218,112,258 × 32; + 4096 + 2·131,072·4096 =
   * 8,053,338,176. Independent: "Loaded Apertus model with 8053338176
   * parameters" (chromathink's log of the real checkpoint), which the 64
   * xIELU scalars are part of. */
  p = count ("{\"architectures\": [\"ApertusForCausalLM\"], \"model_type\": \"apertus\","
             " \"dtype\": \"bfloat16\", \"hidden_size\": 4096, \"intermediate_size\": 21504,"
             " \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"
             " \"max_position_embeddings\": 65536, \"rope_theta\": 12000000,"
             " \"rope_scaling\": {\"factor\": 8, \"high_freq_factor\": 4, \"low_freq_factor\": 1,"
             " \"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\","
             " \"type\": \"llama3\"}, \"hidden_act\": \"xielu\", \"qk_norm\": true,"
             " \"post_norm\": false, \"attention_bias\": false, \"mlp_bias\": false,"
             " \"tie_word_embeddings\": false, \"rms_norm_eps\": 1e-5, \"vocab_size\": 131072}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 8053338176);
  g_assert_cmpint (p.dense_layer, ==, 218112258);
  /* Another activation builds none; mlp_bias is not read (ApertusMLP has no bias). */
  m = model_of ("{\"model_type\": \"apertus\", \"hidden_act\": \"relu2\", \"mlp_bias\": true}");
  g_assert_cmpint (m.ffn_activation, ==, HR_ACT_PLAIN);
  g_assert_false (m.mlp_bias);
  g_assert_true (m.qk_norm && !m.qk_norm_full && m.ffn_kind == HR_FFN_MLP);
  expect_error ("{\"model_type\": \"apertus\", \"hidden_act\": 1}", HR_ERROR_WRONG_TYPE,
                "hidden_act");

  /* glm-4-9b-chat-hf (glm: q/k/v biases, no o_proj bias, fused gate_up_proj,
   * two norms per layer): attention 4096² + 4096 + 2·(4096·256 + 256) +
   * 4096² = 35,656,192; + 3·4096·13696 + 2·4096 = 203,960,832 × 40; + 4096 +
   * 2·151,552·4096 = 9,399,951,360. Independent: THUDM's GLM-4 demo prints
   * "with 9399951360 (9.4B) parameters" for glm-4-9b-chat (the same
   * tensors in ChatGLM's layout). */
  p = count ("{\"architectures\": [\"GlmForCausalLM\"], \"model_type\": \"glm\","
             " \"attention_bias\": true, \"attention_dropout\": 0.0, \"head_dim\": 128,"
             " \"hidden_act\": \"silu\", \"hidden_size\": 4096, \"initializer_range\": 0.02,"
             " \"intermediate_size\": 13696, \"max_position_embeddings\": 131072,"
             " \"num_attention_heads\": 32, \"num_hidden_layers\": 40, \"num_key_value_heads\": 2,"
             " \"pad_token_id\": 151329, \"partial_rotary_factor\": 0.5,"
             " \"rms_norm_eps\": 1.5625e-07, \"rope_theta\": 10000.0,"
             " \"tie_word_embeddings\": false, \"vocab_size\": 151552}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 9399951360);
  m = model_of ("{\"model_type\": \"glm\"}");
  g_assert_true (m.qkv_bias && !m.out_bias);
  g_assert_cmpint (m.norms_per_layer, ==, 2);
  g_assert_cmpfloat (m.rotary_fraction, ==, 0.5);
  g_assert_cmpint (m.n_kv_heads, ==, 2);

  /* helium-1-preview-2b (helium, mlx-community's field-for-field copy of
   * kyutai's config.json): attention 4·2560² = 26,214,400; MLP
   * 3·2560·7040 = 54,067,200; + 2·2560 = 80,286,720 × 24; + 2560 +
   * 2·48,000·2560 = 2,172,643,840 (derived from the shapes; no exact
   * published figure found). */
  p = count ("{\"architectures\": [\"HeliumForCausalLM\"], \"attention_bias\": false,"
             " \"attention_dropout\": 0.0, \"bos_token_id\": 1, \"eos_token_id\": 2,"
             " \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 2560,"
             " \"initializer_range\": 0.02, \"intermediate_size\": 7040,"
             " \"max_position_embeddings\": 4096, \"mlp_bias\": false, \"model_type\": \"helium\","
             " \"num_attention_heads\": 20, \"num_hidden_layers\": 24, \"num_key_value_heads\": 20,"
             " \"pretraining_tp\": 1, \"rms_norm_eps\": 1e-08, \"rope_theta\": 100000.0,"
             " \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
             " \"transformers_version\": \"4.45.0.dev0\", \"use_cache\": true,"
             " \"vocab_size\": 48000}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 2172643840);
  /* HeliumAttention's o_proj is hidden × hidden: heads × head_dim must match. */
  expect_error ("{\"model_type\": \"helium\", \"head_dim\": 64}", HR_ERROR_UNSUPPORTED, "head_dim");

  /* Ministral-8B-Instruct-2410's shapes (ministral: Mistral's tensors):
   * attention 4096² + 2·4096·1024 + 4096² = 41,943,040; MLP 3·4096·12288 =
   * 150,994,944; + 2·4096 = 192,946,176 × 36; + 4096 + 2·131,072·4096 =
   * 8,019,808,256, the Hub's safetensors total for it. */
  p = count ("{\"architectures\": [\"MinistralForCausalLM\"], \"model_type\": \"ministral\","
             " \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 4096,"
             " \"intermediate_size\": 12288, \"max_position_embeddings\": 32768,"
             " \"num_attention_heads\": 32, \"num_hidden_layers\": 36, \"num_key_value_heads\": 8,"
             " \"rms_norm_eps\": 1e-05, \"rope_theta\": 100000000.0, \"sliding_window\": 32768,"
             " \"tie_word_embeddings\": false, \"vocab_size\": 131072}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 8019808256);
  /* MinistralConfig: without layer_types every layer is windowed when
   * sliding_window is set, none when it is null; layer_types picks. */
  m = model_of ("{\"model_type\": \"ministral\", \"num_hidden_layers\": 4}");
  g_assert_cmpint (m.sliding_window, ==, 4096);
  g_assert_true (hr_model_layer_is_sliding (&m, 0) && hr_model_layer_is_sliding (&m, 3));
  m = model_of ("{\"model_type\": \"ministral\", \"sliding_window\": null}");
  g_assert_cmpint (m.sliding_window, ==, 0);
  m = model_of ("{\"model_type\": \"ministral\", \"num_hidden_layers\": 4, \"sliding_window\": 32768,"
                " \"layer_types\": [\"sliding_attention\", \"full_attention\","
                " \"sliding_attention\", \"full_attention\"]}");
  g_assert_cmpint (m.sliding_window_period, ==, 2);
  g_assert_true (hr_model_layer_is_sliding (&m, 2));
  g_assert_false (hr_model_layer_is_sliding (&m, 3));

  /* FlexOlmoConfig() (flex_olmo, "similar to FlexOlmo-7x7B-1T": OLMo 2
   * attention and norms, 7 experts of 11008, top 5, every layer):
   * attention 4·4096² + 2·4096 = 67,117,056; expert 3·4096·11008 =
   * 135,266,304; layer + 7 experts + 7·4096 router + 2·4096 =
   * 1,014,018,048 × 32; + 4096 + 2·100,352·4096 = 33,270,665,216; active
   * less 32·2 experts = 24,613,621,760 (derived from the shapes: no
   * FlexOlmo config.json or exact published figure found). */
  p = count ("{\"model_type\": \"flex_olmo\"}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 33270665216);
  g_assert_cmpint (p.active, ==, 24613621760);
  m = model_of ("{\"model_type\": \"flex_olmo\", \"num_experts\": 4, \"num_local_experts\": 2,"
                " \"num_experts_per_tok\": 1}");
  g_assert_cmpint (m.n_experts, ==, 2);
  g_assert_true (m.qk_norm && m.qk_norm_full && m.norm_placement == HR_NORM_POST);
  g_assert_false (m.router_bias);
  expect_error ("{\"model_type\": \"flex_olmo\", \"num_experts\": 4, \"num_experts_per_tok\": 5}",
                HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok");
}

static void
test_jetmoe (void)
{
  HrParams p;
  HrModel m;
  char line[512];

  /* JetMoeConfig() (jetmoe, every layer a mixture of attention heads and
   * of MLP experts; 12 layers): MoA kv_proj 2048·2·2048 = 8,388,608, 8
   * experts' q and o 8·2·2048·2048 = 67,108,864, router 2048·8 and bias
   * 2048: 75,515,904; MoE 8·3·2048·5632 = 276,824,064 + router 16,384 +
   * bias 2048 = 276,842,496; + 2·2048 = 352,362,496 × 12; + 2048 +
   * 32,000·2048 (tied) = 4,293,888,000. Active: a token runs 2 of the 8
   * attention experts (12·6·2·2048·2048 = 603,979,776 fewer) and 2 of the 8
   * MLP experts (12·6·3·2048·5632 = 2,491,416,576 fewer): 1,198,491,648.
   * Derived from the shapes: JetMoE-8B's config.json was not found; 24
   * such layers would give 8.52 B and 2.27 B active without the embedding,
   * near its card's 8 B and 2.2 B. */
  p = count ("{\"model_type\": \"jetmoe\"}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.attention, ==, INT64_C (12) * 75515904);
  g_assert_cmpint (p.total, ==, 4293888000);
  g_assert_cmpint (p.active, ==, 1198491648);
  m = model_of ("{\"model_type\": \"jetmoe\", \"num_attention_heads\": 64}");
  /* num_attention_heads is JetMoeConfig's, 16 kv heads × top 2. */
  g_assert_cmpint (m.n_heads, ==, 32);
  g_assert_cmpint (m.n_kv_heads, ==, 16);
  g_assert_cmpint (m.head_dim, ==, 128);
  g_assert_true (m.tied_embeddings && m.moe_output_bias && m.ffn_kind == HR_FFN_GATED);
  g_assert_cmpint (m.attention_experts, ==, 8);
  hr_model_describe (&m, line, sizeof line);
  g_assert_nonnull (strstr (line, "q and o in 8 experts, 2 active"));
  /* head_dim is the attribute_map alias of kv_channels and wins. */
  m = model_of ("{\"model_type\": \"jetmoe\", \"kv_channels\": 64, \"head_dim\": 96}");
  g_assert_cmpint (m.head_dim, ==, 96);
  expect_error ("{\"model_type\": \"jetmoe\", \"num_experts_per_tok\": 9}", HR_ERROR_OUT_OF_RANGE,
                "num_experts_per_tok");
}

/* VaultGemma (vaultgemma) and GraniteMoeShared (granitemoeshared). */
static void
test_vaultgemma_granitemoeshared (void)
{
  HrParams p;
  HrModel m;

  /* google/vaultgemma-1b's shapes, as keras-hub's VaultGemma conversion test
   * copies its config.json (MQA-free 4/4 heads of 256, 26 layers, tied):
   * attention 4·1152·1024 = 4,718,592; MLP 3·1152·6912 = 23,887,872; two
   * norms 2·1152 (no post-attention or post-feedforward norm): 28,608,768
   * × 26 = 743,827,968; + 1152 + 256,000·1152 = 1,038,741,120 (Google:
   * "1B"; no published exact count found). */
  p = count ("{\"model_type\": \"vaultgemma\", \"vocab_size\": 256000, \"num_hidden_layers\": 26,"
             " \"num_attention_heads\": 4, \"num_key_value_heads\": 4, \"hidden_size\": 1152,"
             " \"intermediate_size\": 6912, \"head_dim\": 256, \"query_pre_attn_scalar\": 256,"
             " \"sliding_window\": 512}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 28608768);
  g_assert_cmpint (p.total, ==, 1038741120);
  /* VaultGemmaConfig: even layers slide by default, else as layer_types says. */
  m = model_of ("{\"model_type\": \"vaultgemma\"}");
  g_assert_cmpint (m.norms_per_layer, ==, 2);
  g_assert_true (m.tied_embeddings);
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 1));
  m = model_of ("{\"model_type\": \"vaultgemma\", \"num_hidden_layers\": 2,"
                " \"layer_types\": [\"full_attention\", \"full_attention\"]}");
  g_assert_cmpint (m.sliding_window, ==, 0);

  /* GraniteMoeSharedConfig's defaults with shared_intermediate_size 1024
   * (a value of ours: no published granitemoeshared config.json was found):
   * attention 4·4096² = 67,108,864; 8 experts of 3·4096·11008 = 135,266,304;
   * router 4096·8; shared_mlp 3·4096·1024 = 12,582,912; norms 2·4096:
   * 1,161,863,168 × 32 = 37,179,621,376; + 4096 + 2·32,000·4096 =
   * 37,441,769,472. Active less 32·6·135,266,304 = 11,470,639,104. */
  p = count ("{\"model_type\": \"granitemoeshared\", \"shared_intermediate_size\": 1024}",
             HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 37441769472);
  g_assert_cmpint (p.active, ==, 11470639104);
  /* shared_intermediate_size 0 (the default): no shared MLP, GraniteMoe's count. */
  m = model_of ("{\"model_type\": \"granitemoeshared\"}");
  g_assert_cmpint (m.n_shared_experts, ==, 0);
  expect_error ("{\"model_type\": \"granitemoeshared\", \"shared_intermediate_size\": -1}",
                HR_ERROR_NOT_POSITIVE, "shared_intermediate_size");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/llama-style", test_llama_style_traps);
  g_test_add_func ("/config/wild-models", test_wild_models);
  g_test_add_func ("/config/layer-types", test_layer_types);
  g_test_add_func ("/config/families", test_families);
  g_test_add_func ("/config/more-families", test_more_families);
  g_test_add_func ("/config/glm-cohere2-exaone4", test_glm_cohere2_exaone4);
  g_test_add_func ("/config/ernie-hunyuan-seed-olmo3-dots1", test_ernie_hunyuan_seed_olmo3_dots1);
  g_test_add_func ("/config/arcee-apertus-glm-helium-ministral-flex-olmo",
                   test_arcee_apertus_glm_helium_ministral_flex_olmo);
  g_test_add_func ("/config/jetmoe", test_jetmoe);
  g_test_add_func ("/config/vaultgemma-granitemoeshared", test_vaultgemma_granitemoeshared);

  return g_test_run ();
}
