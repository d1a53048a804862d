/* test-config-recent.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading the families of late 2025: Granite
 * 4.0's all-attention models (granitemoehybrid), MiniMax-M2 (minimax_m2)
 * (hr-config-llama-families.c), LongCat-Flash (longcat_flash,
 * hr-config-mla.c), BitNet b1.58 (bitnet), Arcee Trinity (afmoe) and
 * DeepSeek-V3.2 (deepseek_v32, hr-config-mla.c), each against a real
 * model's config.json where one was found, with the derivation of its
 * count.
 */
#include "test-config.h"
#include "test-inference.h"

/* A JSON list of n copies of "kind": layer_types. */
static char *
layer_list (int         n,
            const char *kind)
{
  GString *s = g_string_new ("[");

  for (int i = 0; i < n; i++)
    g_string_append_printf (s, "%s\"%s\"", i > 0 ? ", " : "", kind);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* GraniteMoeHybrid (granitemoehybrid) with every layer "attention". */
static void
test_granitemoehybrid (void)
{
  g_autofree char *micro_types = layer_list (40, "attention");
  g_autofree char *micro = NULL;
  g_autofree char *moe = NULL;
  g_autofree char *json = NULL;
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;

  /* ibm-granite/granite-4.0-micro: the shapes as another project's
   * Granite 4 tests copy its config.json (40 layers of attention, rope,
   * num_local_experts 0, hidden 2560, 40 heads of 64 over 8 kv heads,
   * shared_intermediate_size 8192, vocabulary 100,352); tied, as IBM's
   * Granite 4 cards say ("shared input/output embeddings"). Per layer: q
   * and o 2·2560² = 13,107,200, k and v 2·2560·512 = 2,621,440;
   * shared_mlp 3·2560·8192 = 62,914,560; two norms 2·2560: 78,648,320 × 40
   * = 3,145,932,800; + 2560 + 100,352·2560 = 256,901,120: 3,402,836,480
   * (IBM: "3B"; the Hub's safetensors figure rounds to 3.4 B). */
  micro = g_strdup_printf ("{\"model_type\": \"granitemoehybrid\","
                           " \"architectures\": [\"GraniteMoeHybridForCausalLM\"],"
                           " \"hidden_size\": 2560, \"num_hidden_layers\": 40,"
                           " \"num_attention_heads\": 40, \"num_key_value_heads\": 8,"
                           " \"intermediate_size\": 8192, \"shared_intermediate_size\": 8192,"
                           " \"num_local_experts\": 0, \"num_experts_per_tok\": 0,"
                           " \"layer_types\": %s, \"position_embedding_type\": \"rope\","
                           " \"vocab_size\": 100352, \"max_position_embeddings\": 131072,"
                           " \"hidden_act\": \"silu\", \"attention_bias\": false,"
                           " \"mlp_bias\": false, \"embedding_multiplier\": 12.0,"
                           " \"residual_multiplier\": 0.22, \"attention_multiplier\": 0.015625,"
                           " \"logits_scaling\": 10.0, \"mamba_d_state\": 256,"
                           " \"mamba_n_heads\": 128, \"tie_word_embeddings\": true}",
                           micro_types);
  p = count (micro, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 78648320);
  g_assert_cmpint (p.total, ==, 3402836480);
  g_assert_cmpint (p.active, ==, p.total);
  g_assert_cmpint (p.lm_head, ==, 0);
  m = model_of (micro);
  g_assert_cmpint (m.n_experts, ==, 0);
  g_assert_cmpint (m.ffn_size, ==, 8192);
  g_assert_cmpint (m.head_dim, ==, 64);
  g_assert_cmpint (m.positions, ==, HR_POSITIONS_ROTARY);
  /* Its cache: 2 (k, v) · 8 kv heads · 64 · 2 B = 2048 B per layer and
   * token, × 40 = 81,920 B per token; 4096 tokens: 335,544,320 B. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 81920.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 335544320.0);

  /* GraniteMoeHybridConfig's defaults but every layer attention (written
   * from the configuration class; no published all-attention MoE config
   * was found): 32 layers of 4096, 32 heads (kv heads default to them),
   * 8 experts of 11008, top 2, shared_intermediate_size 1024. Per layer:
   * attention 4·4096² = 67,108,864; experts 8·3·4096·11008 =
   * 1,082,130,432; router 4096·8 = 32,768; shared_mlp 3·4096·1024 =
   * 12,582,912; norms 2·4096: 1,161,863,168 × 32 = 37,179,621,376; + 4096
   * + 2·32,000·4096 = 37,441,769,472 (GraniteMoeShared's layers, as
   * test-config-llama's granitemoeshared check). Active less
   * 32·6·3·4096·11008 = 25,971,130,368: 11,470,639,104. No position
   * embedding type: NoPE, no rotary. */
  g_free (micro_types);
  micro_types = layer_list (32, "attention");
  moe = g_strdup_printf ("{\"model_type\": \"granitemoehybrid\", \"layer_types\": %s}",
                         micro_types);
  p = count (moe, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 37441769472);
  g_assert_cmpint (p.active, ==, 11470639104);
  m = model_of (moe);
  g_assert_cmpint (m.positions, ==, HR_POSITIONS_NONE);
  g_assert_cmpint (m.n_shared_experts, ==, 1);
  g_assert_cmpint (m.shared_expert_ffn_size, ==, 1024);
  /* layers_block_type is the attribute_map alias of layer_types. */
  json = g_strdup_printf ("{\"model_type\": \"granitemoehybrid\", \"num_local_experts\": 0,"
                          " \"layers_block_type\": %s, \"position_embedding_type\": \"nope\"}",
                          micro_types);
  m = model_of (json);
  g_assert_cmpint (m.ffn_size, ==, 1024);
  g_assert_cmpint (m.n_experts, ==, 0);

  /* Any Mamba layer, or none listed (every layer Mamba), is refused by the
   * key; so are unknown kinds and position types, and a dense model
   * without a shared MLP. */
  expect_error ("{\"model_type\": \"granitemoehybrid\"}", HR_ERROR_UNSUPPORTED, "layer_types");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 2,"
                " \"layer_types\": [\"attention\", \"mamba\"]}",
                HR_ERROR_UNSUPPORTED, "layer_types");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 2,"
                " \"layers_block_type\": [\"mamba\", \"attention\"]}",
                HR_ERROR_UNSUPPORTED, "layers_block_type");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 2,"
                " \"layer_types\": [\"attention\", \"conv\"]}",
                HR_ERROR_UNSUPPORTED, "layer_types");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 2,"
                " \"layer_types\": [\"attention\"]}", HR_ERROR_OUT_OF_RANGE, "layer_types");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 1,"
                " \"layer_types\": [\"attention\"], \"position_embedding_type\": \"alibi\"}",
                HR_ERROR_UNSUPPORTED, "position_embedding_type");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 1,"
                " \"layer_types\": [\"attention\"], \"num_local_experts\": 0,"
                " \"shared_intermediate_size\": 0}",
                HR_ERROR_NOT_POSITIVE, "shared_intermediate_size");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 1,"
                " \"layer_types\": [\"attention\"], \"num_experts_per_tok\": 9}",
                HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok");
  /* GraniteMoeHybridConfig refuses Mamba sizes that do not divide, even
   * where no layer is Mamba. */
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 1,"
                " \"layer_types\": [\"attention\"], \"mamba_n_heads\": 100}",
                HR_ERROR_NOT_DIVISIBLE, "mamba_n_heads");
  expect_error ("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 1,"
                " \"layer_types\": [\"attention\"], \"mamba_d_head\": 32}",
                HR_ERROR_OUT_OF_RANGE, "mamba_d_head");
  g_assert_null (hr_config_refusal ("granitemoehybrid"));
}

/* MiniMax-M2 (minimax_m2): q/k norms over all heads, 256 experts, top 8. */
static void
test_minimax_m2 (void)
{
  g_autofree char *ones = NULL;
  g_autofree char *json = NULL;
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;
  GString *list = g_string_new ("[");

  for (int i = 0; i < 62; i++)
    g_string_append (list, i > 0 ? ", 1" : "1");
  g_string_append_c (list, ']');
  ones = g_string_free (list, FALSE);

  /* MiniMaxAI/MiniMax-M2.5's config.json as a quantisation guide copies it
   * (MiniMax-M2's shapes: its card's 230 B total, 10 B active). Per layer:
   * q and o 2·3072·6144 = 37,748,736, k and v 2·3072·1024 = 6,291,456,
   * q_norm 6144 and k_norm 1024 (per_layer: over every head at once):
   * 44,047,360; 256 experts of 3·3072·1536 = 14,155,776: 3,623,878,656;
   * router 256·3072 = 786,432 (e_score_correction_bias is a buffer); two
   * norms 2·3072: 3,668,718,592 × 62 = 227,460,552,704; + 3072 +
   * 2·200,064·3072 = 1,229,193,216 (untied): 228,689,748,992. Active: 8 of
   * 256 experts, less 62·248·14,155,776 = 217,659,211,776:
   * 11,030,537,216 (9,801,344,000 without the embedding and head, MiniMax's
   * "10B activated"). The three MTP modules (use_mtp) are not built by
   * MiniMaxM2ForCausalLM and not counted. */
  json = g_strdup_printf ("{\"architectures\": [\"MiniMaxM2ForCausalLM\"],"
                          " \"attn_type_list\": %s, \"head_dim\": 128, \"hidden_act\": \"silu\","
                          " \"hidden_size\": 3072, \"intermediate_size\": 1536,"
                          " \"max_position_embeddings\": 196608, \"model_type\": \"minimax_m2\","
                          " \"mtp_transformer_layers\": 1, \"num_attention_heads\": 48,"
                          " \"num_experts_per_tok\": 8, \"num_hidden_layers\": 62,"
                          " \"num_key_value_heads\": 8, \"num_local_experts\": 256,"
                          " \"num_mtp_modules\": 3, \"qk_norm_type\": \"per_layer\","
                          " \"rms_norm_eps\": 1e-06, \"rope_theta\": 5000000, \"rotary_dim\": 64,"
                          " \"scoring_func\": \"sigmoid\", \"shared_intermediate_size\": 0,"
                          " \"tie_word_embeddings\": false, \"transformers_version\": \"4.46.1\","
                          " \"use_cache\": true, \"use_mtp\": true, \"use_qk_norm\": true,"
                          " \"use_routing_bias\": true, \"vocab_size\": 200064}", ones);
  p = count (json, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.moe_layer, ==, 3668718592);
  g_assert_cmpint (p.total, ==, 228689748992);
  g_assert_cmpint (p.active, ==, 11030537216);
  g_assert_cmpint (p.active_non_embedding, ==, 9801344000);
  m = model_of (json);
  g_assert_true (m.qk_norm && m.qk_norm_full);
  g_assert_false (m.qkv_bias || m.out_bias || m.router_bias);
  g_assert_cmpfloat (m.rotary_fraction, ==, 0.5);
  g_assert_cmpint (m.sliding_window, ==, 0);
  /* Its cache: 2 · 8 kv heads · 128 · 2 B = 4096 B per layer and token,
   * × 62 = 253,952 B; 4096 tokens: 1,040,187,392 B. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 253952.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 1040187392.0);

  /* MiniMaxM2Config() is the same model: the defaults give the same count. */
  p = count ("{\"model_type\": \"minimax_m2\"}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 228689748992);
  /* num_experts is the attribute_map alias of num_local_experts. */
  m = model_of ("{\"model_type\": \"minimax_m2\", \"num_experts\": 16,"
                " \"num_local_experts\": 8, \"partial_rotary_factor\": 0.25}");
  g_assert_cmpint (m.n_experts, ==, 16);
  g_assert_cmpfloat (m.rotary_fraction, ==, 0.25);

  /* What transformers does not build is refused by the key that asks for it. */
  expect_error ("{\"model_type\": \"minimax_m2\", \"use_qk_norm\": false}",
                HR_ERROR_UNSUPPORTED, "use_qk_norm");
  expect_error ("{\"model_type\": \"minimax_m2\", \"qk_norm_type\": \"per_head\"}",
                HR_ERROR_UNSUPPORTED, "qk_norm_type");
  expect_error ("{\"model_type\": \"minimax_m2\", \"shared_intermediate_size\": 1536}",
                HR_ERROR_UNSUPPORTED, "shared_intermediate_size");
  expect_error ("{\"model_type\": \"minimax_m2\", \"num_hidden_layers\": 2,"
                " \"attn_type_list\": [1, 0]}", HR_ERROR_UNSUPPORTED, "attn_type_list");
  expect_error ("{\"model_type\": \"minimax_m2\", \"num_hidden_layers\": 2,"
                " \"attn_type_list\": [1]}", HR_ERROR_OUT_OF_RANGE, "attn_type_list");
  expect_error ("{\"model_type\": \"minimax_m2\", \"rotary_dim\": 256}",
                HR_ERROR_OUT_OF_RANGE, "rotary_dim");
  expect_error ("{\"model_type\": \"minimax_m2\", \"num_experts_per_tok\": 300}",
                HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok");
  /* MiniMax-01 (minimax: lightning attention) stays refused by name. */
  g_assert_nonnull (hr_config_refusal ("minimax"));
}

/* LongCat-Flash (longcat_flash): two MLA sub-layers per layer, a shortcut
 * MoE with zero-computation experts. */
static void
test_longcat_flash (void)
{
  const char *flash = "{\"architectures\": [\"LongcatFlashForCausalLM\"],"
                      " \"model_type\": \"longcat_flash\", \"hidden_size\": 6144,"
                      " \"num_layers\": 28, \"num_attention_heads\": 64,"
                      " \"ffn_hidden_size\": 12288, \"expert_ffn_hidden_size\": 2048,"
                      " \"n_routed_experts\": 512, \"zero_expert_num\": 256,"
                      " \"zero_expert_type\": \"identity\", \"moe_topk\": 12,"
                      " \"q_lora_rank\": 1536, \"kv_lora_rank\": 512,"
                      " \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64,"
                      " \"v_head_dim\": 128, \"vocab_size\": 131072,"
                      " \"max_position_embeddings\": 131072, \"routed_scaling_factor\": 6.0,"
                      " \"attention_bias\": false, \"tie_word_embeddings\": false}";
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;
  char line[512];

  /* LongCat-Flash-Chat's shapes: LongcatFlashConfig's defaults (its
   * docstring checkpoint), with the MoE keys as a published copy of the
   * model's config.json gives them (512 routed and 256 identity experts,
   * top 12, 28 layers of 6144, experts of 2048); written from those, not
   * copied whole. One MLA sub-layer: q_a 6144·1536 = 9,437,184, its norm
   * 1536, q_b 1536·64·192 = 18,874,368, kv_a 6144·576 = 3,538,944, its
   * norm 512, kv_b 512·64·256 = 8,388,608, o 64·128·6144 = 50,331,648:
   * 90,572,800; its dense MLP 3·6144·12288 = 226,492,416 and two norms
   * 2·6144: 317,077,504. One layer: two sub-layers, 512 experts of
   * 3·6144·2048 = 37,748,736 (19,327,352,832) and the router
   * 6144·(512 + 256) = 4,718,592: 19,966,226,432 × 28 = 559,054,340,096;
   * + 6144 + 2·131,072·6144 = 1,610,612,736: 560,664,958,976 (Meituan:
   * 560 B). Active with all 12 picks real experts (the most a token runs;
   * identity picks run less): less 28·500·37,748,736 = 528,482,304,000:
   * 32,182,654,976, 31,377,348,608 without the head (the card's range tops
   * at 31.3 B). */
  p = count (flash, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.n_moe_layers, ==, 28);
  g_assert_cmpint (p.n_dense_layers, ==, 28);
  g_assert_cmpint (p.dense_layer, ==, 317077504);
  g_assert_cmpint (p.moe_layer, ==, INT64_C (317077504) + 19327352832 + 4718592);
  g_assert_cmpint (p.router, ==, INT64_C (28) * 4718592);
  g_assert_cmpint (p.total, ==, 560664958976);
  g_assert_cmpint (p.active, ==, 32182654976);
  m = model_of (flash);
  g_assert_cmpint (m.n_layers, ==, 56);
  g_assert_cmpint (m.zero_experts, ==, 256);
  g_assert_true (hr_model_uses_mla (&m));
  g_assert_true (hr_model_layer_is_moe (&m, 0));
  g_assert_false (hr_model_layer_is_moe (&m, 1));
  hr_model_describe (&m, line, sizeof line);
  g_assert_nonnull (strstr (line, "256 zero-computation experts"));
  /* Its cache: each of the 56 attention sub-layers keeps the latent of
   * 512 and the rope key of 64: 576 · 2 B · 56 = 64,512 B per token;
   * 4096 tokens: 264,241,152 B. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 64512.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 264241152.0);
  /* The router scores the zero experts too: a prefill of 1000 tokens spends
   * 2·1000·6144·768 = 9,437,184,000 FLOPs in each of the 28 routers,
   * 264,241,152,000 in all. */
  {
    double parts[HR_FLOPS_N_COMPONENTS];

    hr_flops_prefill_components (&m, 1, 1000, true, parts);
    g_assert_cmpfloat (parts[HR_FLOPS_ROUTER], ==, 264241152000.0);
  }
  /* LongcatFlashConfig() is the same model. */
  p = count ("{\"model_type\": \"longcat_flash\"}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 560664958976);

  /* The attribute_map aliases win; router_bias adds one per routed and
   * zero expert; zero_expert_num null builds none. */
  m = model_of ("{\"model_type\": \"longcat_flash\", \"num_local_experts\": 64,"
                " \"num_experts_per_tok\": 4, \"intermediate_size\": 1024,"
                " \"zero_expert_num\": null, \"router_bias\": true}");
  g_assert_cmpint (m.n_experts, ==, 64);
  g_assert_cmpint (m.experts_per_token, ==, 4);
  g_assert_cmpint (m.ffn_size, ==, 1024);
  g_assert_cmpint (m.zero_experts, ==, 0);
  g_assert_true (m.router_bias);
  m = model_of ("{\"model_type\": \"longcat_flash\", \"num_layers\": 2, \"router_bias\": true}");
  {
    HrError err = { 0 };

    g_assert_cmpint (hr_model_params (&m, &p, &err), ==, HR_OK);
    g_assert_cmpint (p.router, ==, INT64_C (2) * (6144 + 1) * 768);
  }

  expect_error ("{\"model_type\": \"longcat_flash\", \"num_hidden_layers\": 28}",
                HR_ERROR_OUT_OF_RANGE, "num_hidden_layers");
  expect_error ("{\"model_type\": \"longcat_flash\", \"q_lora_rank\": null}",
                HR_ERROR_UNSUPPORTED, "q_lora_rank");
  expect_error ("{\"model_type\": \"longcat_flash\", \"qk_head_dim\": 128}",
                HR_ERROR_OUT_OF_RANGE, "qk_head_dim");
  expect_error ("{\"model_type\": \"longcat_flash\", \"zero_expert_type\": \"const\"}",
                HR_ERROR_UNSUPPORTED, "zero_expert_type");
  expect_error ("{\"model_type\": \"longcat_flash\", \"moe_topk\": 600}",
                HR_ERROR_OUT_OF_RANGE, "moe_topk");
}

/* BitNet (bitnet): Llama's attention and Gemma's MLP with two sub-norms. */
static void
test_bitnet (void)
{
  HrParams p;
  HrModel m;
  char line[512];

  /* microsoft/bitnet-b1.58-2B-4T: its config.json written from memory of
   * the Hub's file (BitNetConfig's defaults, which the class says are
   * 2B4T's, with max_position_embeddings 4096 and tied embeddings; the
   * packed quantization_config is left out: it changes no module's
   * shape). Per layer: q and o 2·2560² = 13,107,200, k and v 2·2560·640 =
   * 3,276,800, attn_sub_norm 2560; gate, up, down 3·2560·6912 = 53,084,160,
   * ffn_sub_norm 6912; two norms 2·2560: 69,482,752 × 30 = 2,084,482,560;
   * + 2560 + 128,256·2560 = 328,335,360 (tied): 2,412,820,480 (the Hub
   * lists the bf16 master weights at 2.41 B; untied would be 2.74 B). */
  p = count ("{\"architectures\": [\"BitNetForCausalLM\"], \"attention_bias\": false,"
             " \"bos_token_id\": 128000, \"eos_token_id\": 128001, \"hidden_act\": \"relu2\","
             " \"hidden_size\": 2560, \"initializer_range\": 0.02, \"intermediate_size\": 6912,"
             " \"max_position_embeddings\": 4096, \"model_type\": \"bitnet\","
             " \"num_attention_heads\": 20, \"num_hidden_layers\": 30,"
             " \"num_key_value_heads\": 5, \"rms_norm_eps\": 1e-05, \"rope_theta\": 500000.0,"
             " \"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\","
             " \"vocab_size\": 128256}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 69482752);
  g_assert_cmpint (p.norm, ==, INT64_C (30) * (2 * 2560 + 2560 + 6912) + 2560);
  g_assert_cmpint (p.total, ==, 2412820480);
  /* BitNetConfig(): untied, so the head adds 328,335,360. */
  p = count ("{\"model_type\": \"bitnet\"}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, INT64_C (2412820480) + 328335360);
  m = model_of ("{\"model_type\": \"bitnet\", \"attention_bias\": true}");
  g_assert_true (m.sub_norms && m.qkv_bias && m.out_bias && !m.mlp_bias);
  g_assert_cmpint (m.ffn_kind, ==, HR_FFN_GATED);
  hr_model_describe (&m, line, sizeof line);
  g_assert_nonnull (strstr (line, "sub-norms before o_proj and down_proj"));
  /* attn_sub_norm is RMSNorm(hidden_size) over heads × head_dim. */
  expect_error ("{\"model_type\": \"bitnet\", \"head_dim\": 64}", HR_ERROR_UNSUPPORTED,
                "head_dim");
}

/* AFMoE (afmoe): gated attention, q/k norms, four norms a layer, MoE with
 * a shared expert and a stored expert bias. */
static void
test_afmoe (void)
{
  g_autofree char *json = NULL;
  HrParams p;
  HrModel m;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;
  char line[512];

  /* arcee-ai/Trinity-Mini's config.json as another project's test copies
   * it (Arcee: 26 B total, 3 B active). Attention: q and gate
   * 2·2048·4096 = 16,777,216, k and v 2·2048·512 = 2,097,152, o 4096·2048
   * = 8,388,608, q/k norms 2·128: 27,263,232; four norms 4·2048 = 8192.
   * Dense layers (2): + 3·2048·6144 = 37,748,736: 65,020,160. MoE layers
   * (30): 128 experts of 3·2048·1024 = 6,291,456 (805,306,368), one shared
   * 6,291,456, router 2048·128 = 262,144 and expert_bias 128:
   * 839,131,520. 2·65,020,160 + 30·839,131,520 = 25,303,985,920; + 2048 +
   * 2·200,192·2048 = 819,986,432: 26,123,974,400. Active less
   * 30·120·6,291,456 = 22,649,241,600: 3,474,732,800. */
  json = g_strdup_printf ("{\"architectures\": [\"AfmoeForCausalLM\"], \"attention_dropout\": 0.0,"
                          " \"global_attn_every_n_layers\": 4, \"head_dim\": 128,"
                          " \"hidden_act\": \"silu\", \"hidden_size\": 2048,"
                          " \"intermediate_size\": 6144, \"layer_types\": [%s],"
                          " \"max_position_embeddings\": 131072, \"model_type\": \"afmoe\","
                          " \"moe_intermediate_size\": 1024, \"mup_enabled\": true,"
                          " \"n_group\": 1, \"num_attention_heads\": 32, \"num_dense_layers\": 2,"
                          " \"num_expert_groups\": 1, \"num_experts\": 128,"
                          " \"num_experts_per_tok\": 8, \"num_hidden_layers\": 32,"
                          " \"num_key_value_heads\": 4, \"num_limited_groups\": 1,"
                          " \"num_shared_experts\": 1, \"rms_norm_eps\": 1e-5, \"rope_theta\": 10000,"
                          " \"route_norm\": true, \"route_scale\": 2.826,"
                          " \"score_func\": \"sigmoid\", \"sliding_window\": 2048,"
                          " \"tie_word_embeddings\": false, \"topk_group\": 1,"
                          " \"use_grouped_mm\": true, \"vocab_size\": 200192}",
                          "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", "
                          "\"full_attention\", \"sliding_attention\", \"sliding_attention\", "
                          "\"sliding_attention\", \"full_attention\", \"sliding_attention\", "
                          "\"sliding_attention\", \"sliding_attention\", \"full_attention\", "
                          "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", "
                          "\"full_attention\", \"sliding_attention\", \"sliding_attention\", "
                          "\"sliding_attention\", \"full_attention\", \"sliding_attention\", "
                          "\"sliding_attention\", \"sliding_attention\", \"full_attention\", "
                          "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", "
                          "\"full_attention\", \"sliding_attention\", \"sliding_attention\", "
                          "\"sliding_attention\", \"full_attention\"");
  p = count (json, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.dense_layer, ==, 65020160);
  g_assert_cmpint (p.moe_layer, ==, 839131520);
  g_assert_cmpint (p.total, ==, 26123974400);
  g_assert_cmpint (p.active, ==, 3474732800);
  m = model_of (json);
  g_assert_true (m.attention_gate && m.qk_norm && !m.qk_norm_full && m.router_bias);
  g_assert_cmpint (m.norms_per_layer, ==, 4);
  g_assert_cmpint (m.sliding_window, ==, 2048);
  g_assert_cmpint (m.sliding_window_period, ==, 4);
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 3));
  hr_model_describe (&m, line, sizeof line);
  g_assert_nonnull (strstr (line, "gated attention output"));
  /* Its cache at 4096 tokens: 2 · 4 kv heads · 128 · 2 B = 2048 B per layer
   * and token; 8 global layers keep 4096, 24 windowed 2048:
   * 2048·(8·4096 + 24·2048) = 167,772,160 B; 65,536 B per token uncapped. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 65536.0);
  g_assert_cmpfloat (mem.kv_cache, ==, 167772160.0);
  /* The gate runs beside q, k and v: a prefill of 1000 tokens spends
   * 2·1000·2048·(4096 + 2·512 + 4096) = 37,748,736,000 FLOPs per layer
   * there, 1,207,959,552,000 in the 32. */
  {
    double parts[HR_FLOPS_N_COMPONENTS];

    hr_flops_prefill_components (&m, 1, 1000, true, parts);
    g_assert_cmpfloat (parts[HR_FLOPS_ATTN_PROJ], ==, 1207959552000.0);
  }

  /* AfmoeConfig(): without layer_types, every 4th layer global; 16 heads
   * of 128 (kv heads default to them), 64 experts of 1408, top 6, two
   * shared, one dense layer. */
  m = model_of ("{\"model_type\": \"afmoe\"}");
  g_assert_cmpint (m.n_kv_heads, ==, 16);
  g_assert_cmpint (m.first_dense_layers, ==, 1);
  g_assert_cmpint (m.n_shared_experts, ==, 2);
  g_assert_cmpint (m.sliding_window, ==, 1024);
  g_assert_false (hr_model_layer_is_sliding (&m, 31));
  g_assert_true (hr_model_layer_is_sliding (&m, 30));
  m = model_of ("{\"model_type\": \"afmoe\", \"global_attn_every_n_layers\": 1}");
  g_assert_cmpint (m.sliding_window, ==, 0);
  m = model_of ("{\"model_type\": \"afmoe\", \"num_dense_layers\": 32}");
  g_assert_cmpint (m.n_experts, ==, 0);
  expect_error ("{\"model_type\": \"afmoe\", \"sliding_window\": null}", HR_ERROR_MISSING,
                "sliding_window");
  expect_error ("{\"model_type\": \"afmoe\", \"num_experts_per_tok\": 65}",
                HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok");
}

/* DeepSeek-V3.2 (deepseek_v32): DeepSeek-V3 plus the lightning indexer. */
static void
test_deepseek_v32 (void)
{
  /* deepseek-ai/DeepSeek-V3.2-Exp's config.json, as transformers' own
   * deepseek_v32/deepseek_files/config.json copies it (quantization_config
   * and rope_scaling left out: no shape). */
  static const char common[] =
    "\"attention_bias\": false, \"first_k_dense_replace\": 3, \"hidden_act\": \"silu\","
    " \"hidden_size\": 7168, \"intermediate_size\": 18432, \"kv_lora_rank\": 512,"
    " \"max_position_embeddings\": 163840, \"moe_intermediate_size\": 2048,"
    " \"moe_layer_freq\": 1, \"n_group\": 8, \"n_routed_experts\": 256,"
    " \"n_shared_experts\": 1, \"norm_topk_prob\": true, \"num_attention_heads\": 128,"
    " \"num_experts_per_tok\": 8, \"num_hidden_layers\": 61, \"num_key_value_heads\": 128,"
    " \"num_nextn_predict_layers\": 1, \"q_lora_rank\": 1536, \"qk_nope_head_dim\": 128,"
    " \"qk_rope_head_dim\": 64, \"rms_norm_eps\": 1e-06, \"rope_theta\": 10000,"
    " \"routed_scaling_factor\": 2.5, \"scoring_func\": \"sigmoid\","
    " \"tie_word_embeddings\": false, \"topk_group\": 4, \"topk_method\": \"noaux_tc\","
    " \"torch_dtype\": \"bfloat16\", \"use_cache\": true, \"v_head_dim\": 128,"
    " \"vocab_size\": 129280";
  g_autofree char *v32 = g_strdup_printf ("{\"architectures\": [\"DeepseekV32ForCausalLM\"],"
                                          " \"model_type\": \"deepseek_v32\", \"index_head_dim\": 128,"
                                          " \"index_n_heads\": 64, \"index_topk\": 2048, %s}",
                                          common);
  g_autofree char *v3 = g_strdup_printf ("{\"model_type\": \"deepseek_v3\", %s}", common);
  HrParams p;
  HrModel m, m3;
  HrInference inf = settings (1, 4096, 0);
  HrInferenceMemory mem;
  double parts[HR_FLOPS_N_COMPONENTS], parts3[HR_FLOPS_N_COMPONENTS];

  /* DeepSeek-V3's 671,026,404,352 (test-config's derivation) plus, in each
   * of the 61 layers, the indexer: wq_b 1536·64·128 = 12,582,912, wk
   * 7168·128 = 917,504, k_norm's weight and bias 2·128, weights_proj
   * 7168·64 = 458,752: 13,959,424, 851,524,864 in all: 671,877,929,216
   * (DeepSeek's 685 B adds the MTP layer, which transformers does not
   * build). Active less 58·248·3·7168·2048: 38,403,807,488. */
  p = count (v32, HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 671877929216);
  g_assert_cmpint (p.attention - count (v3, HR_CONFIG_WARN_NONE).attention, ==,
                   INT64_C (61) * 13959424);
  g_assert_cmpint (p.active, ==, 38403807488);
  m = model_of (v32);
  m3 = model_of (v3);
  g_assert_cmpint (m.index_heads, ==, 64);
  g_assert_cmpint (m.index_topk, ==, 2048);
  /* Its cache: the latent 512 and rope key 64 of MLA and the indexer's key
   * of 128, 704 · 2 B · 61 = 85,888 B per token. */
  mem = memory_of (&m, &inf);
  g_assert_cmpfloat (mem.kv_cache_per_token, ==, 85888.0);
  /* The indexer's projections: 2·1000·61·(1536·8192 + 7168·(128 + 64)) =
   * 1,703,018,496,000 FLOPs more in a prefill of 1000 tokens than V3. */
  hr_flops_prefill_components (&m, 1, 1000, true, parts);
  hr_flops_prefill_components (&m3, 1, 1000, true, parts3);
  g_assert_cmpfloat (parts[HR_FLOPS_ATTN_PROJ] - parts3[HR_FLOPS_ATTN_PROJ], ==, 1703018496000.0);
  g_assert_cmpfloat (parts[HR_FLOPS_ATTN_SCORES], >, parts3[HR_FLOPS_ATTN_SCORES]);

  /* DeepseekV32Config(): the same model. */
  p = count ("{\"model_type\": \"deepseek_v32\"}", HR_CONFIG_WARN_NONE);
  g_assert_cmpint (p.total, ==, 671877929216);
  m = model_of ("{\"model_type\": \"deepseek_v32\", \"num_local_experts\": 64}");
  g_assert_cmpint (m.n_experts, ==, 64);
  m = model_of ("{\"model_type\": \"deepseek_v32\", \"num_hidden_layers\": 4,"
                " \"mlp_layer_types\": [\"dense\", \"dense\", \"dense\", \"sparse\"]}");
  g_assert_cmpint (m.first_dense_layers, ==, 3);
  expect_error ("{\"model_type\": \"deepseek_v32\", \"num_hidden_layers\": 4,"
                " \"mlp_layer_types\": [\"dense\", \"sparse\", \"dense\", \"sparse\"]}",
                HR_ERROR_UNSUPPORTED, "mlp_layer_types");
  expect_error ("{\"model_type\": \"deepseek_v32\", \"q_lora_rank\": null}",
                HR_ERROR_UNSUPPORTED, "q_lora_rank");
  expect_error ("{\"model_type\": \"deepseek_v32\", \"index_head_dim\": 32}",
                HR_ERROR_OUT_OF_RANGE, "index_head_dim");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/granitemoehybrid", test_granitemoehybrid);
  g_test_add_func ("/config/minimax-m2", test_minimax_m2);
  g_test_add_func ("/config/longcat-flash", test_longcat_flash);
  g_test_add_func ("/config/bitnet", test_bitnet);
  g_test_add_func ("/config/afmoe", test_afmoe);
  g_test_add_func ("/config/deepseek-v32", test_deepseek_v32);

  return g_test_run ();
}
