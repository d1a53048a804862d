/* test-config-recent.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading the families of late 2025 (hr-config-llama-families.c): Granite
 * 4.0's all-attention models (granitemoehybrid), each against a real
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
  g_assert_null (hr_config_refusal ("granitemoehybrid"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/granitemoehybrid", test_granitemoehybrid);

  return g_test_run ();
}
