/* test-flops.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * FLOPs per component derived by hand, and one training step of small
 * models measured in PyTorch (tests/data/reference/measured-small.json).
 */
#include <json-glib/json-glib.h>
#include <math.h>

#include "hr-flops.h"

#include "test-models.h"

static HrFlops
train (const HrModel  *m,
       int64_t         seq,
       int64_t         batch,
       HrAttentionImpl attention,
       HrRecompute     recompute,
       bool            causal)
{
  HrFlopsOptions options = {
    .seq_len = seq, .micro_batch = batch, .attention = attention, .recompute = recompute,
    .recompute_modules = HR_RECOMPUTE_CORE_ATTN, .causal = causal,
  };
  HrFlops f;
  HrError err = { 0 };

  g_assert_cmpint (hr_flops_training (m, &options, &f, &err), ==, HR_OK);
  return f;
}

static void
test_gpt2_components (void)
{
  HrModel m;
  HrFlops f;
  /* GPT-2 small, one sequence of 1024 tokens (T = 1024, h = 768, L = 12):
   * c_attn 2·T·h·3h·L = 43,486,543,872; c_proj 2·T·h·h·L = 14,495,514,624;
   * QKᵀ 2·T·H·d·s·L = 2·1024·12·64·1024·12 = 19,327,352,832, attention over
   * V the same; MLP 2·T·2·h·4h·L = 115,964,116,992; LM head 2·T·h·V =
   * 2·1024·768·50257 = 79,047,426,048. */
  const double proj = 43486543872.0, out = 14495514624.0, core = 19327352832.0;
  const double mlp = 115964116992.0, head = 79047426048.0;
  const double forward = proj + out + 2 * core + mlp + head;

  hr_model_init (&m);
  f = train (&m, 1024, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpint (f.tokens, ==, 1024);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_PROJ].forward, ==, proj);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_OUT].forward, ==, out);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, core);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_OVER_V].forward, ==, core);
  g_assert_cmpfloat (f.component[HR_FLOPS_MLP].forward, ==, mlp);
  g_assert_cmpfloat (f.component[HR_FLOPS_ROUTER].forward, ==, 0);
  g_assert_cmpfloat (f.component[HR_FLOPS_LM_HEAD].forward, ==, head);
  g_assert_cmpfloat (f.forward, ==, forward);
  g_assert_cmpfloat (f.backward, ==, 2 * forward);
  g_assert_cmpfloat (f.recompute, ==, 0);
  g_assert_cmpfloat (f.total, ==, 3 * forward);
  g_assert_cmpfloat (f.model_flops, ==, 3 * forward);
  g_assert_cmpfloat (f.per_token, ==, 3 * forward / 1024);
  /* 6N with N = 85,056,000 non-embedding parameters = 510,336,000; PaLM adds
   * 12·L·H·Q·T = 12·12·12·64·1024 = 113,246,208. */
  g_assert_cmpfloat (f.six_n_per_token, ==, 510336000.0);
  g_assert_cmpfloat (f.palm_per_token, ==, 510336000.0 + 113246208.0);

  /* causal halves QKᵀ and attention over V only */
  f = train (&m, 1024, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, true);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, core / 2);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_OVER_V].forward, ==, core / 2);
  g_assert_cmpfloat (f.forward, ==, forward - core);

  /* flash: QKᵀ once more in the backward pass */
  f = train (&m, 1024, 1, HR_ATTENTION_FLASH, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.recompute, ==, core);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].recompute, ==, core);
  g_assert_cmpfloat (f.model_flops, ==, 3 * forward);

  /* selective: QKᵀ and attention over V again (flash's recomputation included) */
  f = train (&m, 1024, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_SELECTIVE, false);
  g_assert_cmpfloat (f.recompute, ==, 2 * core);
  f = train (&m, 1024, 1, HR_ATTENTION_FLASH, HR_RECOMPUTE_SELECTIVE, false);
  g_assert_cmpfloat (f.recompute, ==, 2 * core);

  /* full: the layers' forward again, not the head; flash adds its QKᵀ */
  f = train (&m, 1024, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_FULL, false);
  g_assert_cmpfloat (f.recompute, ==, forward - head);
  g_assert_cmpfloat (f.component[HR_FLOPS_LM_HEAD].recompute, ==, 0);
  f = train (&m, 1024, 1, HR_ATTENTION_FLASH, HR_RECOMPUTE_FULL, false);
  g_assert_cmpfloat (f.recompute, ==, forward - head + core);

  /* a micro batch of 4 is 4 times the work */
  f = train (&m, 1024, 4, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpint (f.tokens, ==, 4096);
  g_assert_cmpfloat (f.forward, ==, 4 * forward);

  /* budget: 1e9 tokens at 3·forward/1024 per token */
  g_assert_cmpfloat (hr_flops_for_tokens (&f, 1e9), ==, 1e9 * (3 * forward / 1024));
  g_assert_cmpfloat (hr_flops_for_tokens (&f, -1), ==, 0);

  /* Chinchilla: 20 tokens per parameter, 20·124,439,808 = 2,488,796,160 */
  {
    HrParams p;

    g_assert_cmpint (hr_model_params (&m, &p, NULL), ==, HR_OK);
    g_assert_cmpfloat (hr_flops_chinchilla_tokens (&p), ==, 2488796160.0);
  }
}

static void
test_moe_and_mla (void)
{
  HrModel m;
  HrFlops f;
  HrParams p;

  /* Mixtral 8x7B per token: 2 of 8 experts, 2·3·4096·14336·2·32 =
   * 22,548,578,304 in the MLP; router 2·4096·8·32 = 2,097,152. */
  llama_like (&m, 32, 4096, 32, 8, 14336, 32000);
  m.n_experts = 8;
  m.experts_per_token = 2;
  m.expert_ffn_size = 14336;
  f = train (&m, 1, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_MLP].forward, ==, 22548578304.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ROUTER].forward, ==, 2097152.0);
  /* 6N counts the active non-embedding parameters: 12,879,925,248 − 2·131,072,000 */
  g_assert_cmpfloat (f.six_n_per_token, ==, 6.0 * (12879925248.0 - 262144000.0));

  /* DeepSeek-V2-Lite per token: dense layer 0 2·3·2048·10944 = 134,479,872;
   * 26 MoE layers of 6 routed + 2 shared experts of 1408:
   * 2·3·2048·11264·26 = 3,598,712,832; router 2·2048·64·26 = 6,815,744.
   * MLA projections per layer: q_proj 2048·3072 = 6,291,456,
   * kv_a_proj_with_mqa 2048·576 = 1,179,648, kv_b_proj 512·4096 =
   * 2,097,152 → 2·9,568,256·27 = 516,685,824; o_proj 2·2048·2048·27 =
   * 226,492,416. With s = 1: QKᵀ 2·16·192·1·27 = 165,888, attention over
   * V 2·16·128·27 = 110,592. */
  deepseek_v2_lite (&m);
  g_assert_cmpint (hr_model_params (&m, &p, NULL), ==, HR_OK);
  f = train (&m, 1, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_MLP].forward, ==, 134479872.0 + 3598712832.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ROUTER].forward, ==, 6815744.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_PROJ].forward, ==, 516685824.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_OUT].forward, ==, 226492416.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, 165888.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_OVER_V].forward, ==, 110592.0);
  /* forward per token = 2 × (active parameters outside the embedding), plus
   * the attention core and less the norms, which do no products:
   * norms 27·2·2048 + 27·512 + 2048 = 126,464. */
  g_assert_cmpfloat (f.forward, ==,
                     2.0 * ((double) p.active - 209715200.0 - 126464.0) + 165888.0 + 110592.0);

  /* JetMoeConfig() per token: q and o of the 2 attention experts a token
   * runs (32 query heads of 128 over 16 kv heads): projections
   * 2·(2048·4096 + 2·2048·2048)·12 = 402,653,184, output 2·4096·2048·12 =
   * 201,326,592; both routers 2·2048·8·12 · 2 = 786,432. Forward = 2 ×
   * (active 1,198,491,648 less norms 12·2·2048 + 2048 and the two output
   * biases 12·2·2048: 1,198,391,296) + the attention core 2·2·32·128·12. */
  llama_like (&m, 12, 2048, 32, 16, 5632, 32000);
  m.head_dim = 128;
  m.tied_embeddings = true;
  m.attention_experts = 8;
  m.n_experts = 8;
  m.experts_per_token = 2;
  m.expert_ffn_size = 5632;
  m.moe_output_bias = true;
  g_assert_cmpint (hr_model_params (&m, &p, NULL), ==, HR_OK);
  g_assert_cmpint (p.active, ==, 1198491648);
  f = train (&m, 1, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_PROJ].forward, ==, 402653184.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_OUT].forward, ==, 201326592.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_ROUTER].forward, ==, 786432.0);
  g_assert_cmpfloat (f.forward, ==, 2.0 * 1198391296.0 + 2.0 * 2 * 32 * 128 * 12);
}

static void
test_windows (void)
{
  HrModel m;
  HrFlops f;
  double decode_4k, decode_8k, per_ctx;

  /* Two layers of 4 heads of 8 (hidden 32), window 4 on layer 0 only
   * (period 2), s = 8. Non-causal: layer 0 spans 4 keys, layer 1 8 → QKᵀ
   * 2·T·H·d·(4 + 8) = 2·8·4·8·12 = 6,144. Causal: the band 8·4 − 4²/2 = 24
   * keys over 8 queries (3 each) and 8²/2 = 32 (4 each) → 2·8·4·8·7 = 3,584. */
  llama_like (&m, 2, 32, 4, 4, 64, 100);
  m.sliding_window = 4;
  m.sliding_window_period = 2;
  f = train (&m, 8, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, 6144.0);
  f = train (&m, 8, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, true);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, 3584.0);

  /* Four such layers windowed from layer 1 on (Qwen2's max_window_layers):
   * spans 8 + 3·4 = 20 → 2·8·4·8·20 = 10,240; with period 2 as well only
   * layer 2 is windowed: 3·8 + 4 = 28 → 14,336. */
  llama_like (&m, 4, 32, 4, 4, 64, 100);
  m.sliding_window = 4;
  m.first_sliding_layer = 1;
  f = train (&m, 8, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, 10240.0);
  m.sliding_window_period = 2;
  f = train (&m, 8, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, 14336.0);
  /* Offset 1 (GPT-Neo's global layer first): layers 1 and 3 windowed,
   * 8 + 4 + 8 + 4 = 24 → 12,288. */
  m.sliding_window_offset = 1;
  f = train (&m, 8, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_ATTN_SCORES].forward, ==, 12288.0);

  /* Decoding with Llama-2-7B: weights 2·(32·202,375,168 + 32000·4096) =
   * 13,214,154,752 per token, plus QKᵀ and attention over V
   * 2·2·32·128·32 = 524,288 per cached token. */
  llama_like (&m, 32, 4096, 32, 32, 11008, 32000);
  per_ctx = 524288.0;
  g_assert_cmpfloat (hr_flops_decode_token (&m, 1, 1000), ==, 13214154752.0 + 1000 * per_ctx);
  g_assert_cmpfloat (hr_flops_decode_token (&m, 3, 1000), ==, 3 * (13214154752.0 + 1000 * per_ctx));
  /* Prefill of 100 tokens: 2·100·6,476,005,376 in the layers, the head for
   * the last position only 2·131,072,000, attention 2·2·100·32·128·100·32
   * (full) or half of it (causal). */
  g_assert_cmpfloat (hr_flops_prefill (&m, 1, 100, false), ==,
                     200.0 * 6476005376.0 + 262144000.0 + 5242880000.0);
  g_assert_cmpfloat (hr_flops_prefill (&m, 1, 100, true), ==,
                     200.0 * 6476005376.0 + 262144000.0 + 2621440000.0);

  /* Mistral: every layer windowed at 4096, so a context of 8192 costs what
   * 4096 does; without the window it costs 4096 more cached tokens. */
  llama_like (&m, 32, 4096, 32, 8, 14336, 32000);
  m.sliding_window = 4096;
  decode_4k = hr_flops_decode_token (&m, 1, 4096);
  decode_8k = hr_flops_decode_token (&m, 1, 8192);
  g_assert_cmpfloat (decode_4k, >, 0);
  g_assert_cmpfloat (decode_8k, ==, decode_4k);
  m.sliding_window = 0;
  g_assert_cmpfloat (hr_flops_decode_token (&m, 1, 8192), ==, decode_4k + 4096 * per_ctx);
}

static void
test_opt_projections (void)
{
  HrModel m;
  HrFlops f;

  /* OPT-350m, one sequence of 2048: the head is 512 wide, 2·2048·512·50272
   * = 105,428,025,344, and project_in and project_out add 2·2·2048·512·1024
   * = 4,294,967,296 (inputs and outputs of every token). */
  hr_model_init (&m);
  m.n_layers = 24;
  m.hidden_size = 1024;
  m.n_heads = m.n_kv_heads = 16;
  m.head_dim = 64;
  m.ffn_size = 4096;
  m.vocab_size = 50272;
  m.max_positions = 2048;
  m.position_offset = 2;
  m.embed_proj_dim = 512;
  m.norm_placement = HR_NORM_POST;
  m.final_norm = false;
  f = train (&m, 2048, 1, HR_ATTENTION_EAGER, HR_RECOMPUTE_FULL, false);
  g_assert_cmpfloat (f.component[HR_FLOPS_LM_HEAD].forward, ==, 105428025344.0 + 4294967296.0);
  g_assert_cmpfloat (f.component[HR_FLOPS_LM_HEAD].recompute, ==, 0);
}

static void
test_bad (void)
{
  HrModel m;
  HrFlops f;
  HrError err = { 0 };
  HrFlopsOptions options = {
    .seq_len = 1024, .micro_batch = 1, .attention = HR_ATTENTION_EAGER,
    .recompute = HR_RECOMPUTE_NONE,
  };

  hr_model_init (&m);
  options.seq_len = 0;
  g_assert_cmpint (hr_flops_training (&m, &options, &f, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "seq_len");
  options.seq_len = 1024;
  options.micro_batch = -1;
  g_assert_cmpint (hr_flops_training (&m, &options, &f, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "micro_batch");
  options.micro_batch = INT64_C (1) << 60;
  g_assert_cmpint (hr_flops_training (&m, &options, &f, &err), ==, HR_ERROR_OVERFLOW);
  g_assert_cmpstr (err.field, ==, "micro_batch");
  options.micro_batch = 1;
  options.recompute = (HrRecompute) 7;
  g_assert_cmpint (hr_flops_training (&m, &options, &f, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "recompute");
  options.recompute = HR_RECOMPUTE_NONE;
  options.attention = (HrAttentionImpl) -1;
  g_assert_cmpint (hr_flops_training (&m, &options, &f, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "attention");
  options.attention = HR_ATTENTION_EAGER;
  m.n_kv_heads = 5;
  g_assert_cmpint (hr_flops_training (&m, &options, &f, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  g_assert_cmpstr (err.field, ==, "num_key_value_heads");

  /* inference entry points answer 0, never NaN, for what they cannot count */
  g_assert_cmpfloat (hr_flops_prefill (&m, 1, 10, false), ==, 0);
  hr_model_init (&m);
  g_assert_cmpfloat (hr_flops_prefill (&m, 0, 10, false), ==, 0);
  g_assert_cmpfloat (hr_flops_decode_token (&m, 1, 0), ==, 0);
  g_assert_cmpfloat (hr_flops_decode_token (&m, -1, 10), ==, 0);

  g_assert_cmpstr (hr_flops_component_name (HR_FLOPS_ATTN_SCORES), ==, "attention_scores");
  g_assert_cmpstr (hr_flops_component_name (HR_FLOPS_LM_HEAD), ==, "lm_head");
}

static void
check_close (double      got,
             double      measured,
             const char *what)
{
  g_test_message ("%s: %.0f, measured %.0f", what, got, measured);
  g_assert_cmpfloat (measured, >, 0);
  g_assert_cmpfloat (got / measured - 1, <=, 1e-3);
  g_assert_cmpfloat (got / measured - 1, >=, -1e-3);
}

/* The measured configurations as HrModels: GPT-2 style (LayerNorm, learned
 * positions, biases, tanh-GELU MLP, tied) or Llama style (RMSNorm, RoPE,
 * GQA, SwiGLU, no biases, untied). */
static void
model_from_hyperparameters (JsonObject *hp,
                            HrModel    *m)
{
  const char *style = json_object_get_string_member (hp, "arch_style");

  hr_model_init (m);
  if (g_str_equal (style, "llama"))
    llama_like (m, 1, 1, 1, 1, 1, 1);
  else
    g_assert_cmpstr (style, ==, "gpt2");
  m->n_layers = json_object_get_int_member (hp, "num_hidden_layers");
  m->hidden_size = json_object_get_int_member (hp, "hidden_size");
  m->n_heads = json_object_get_int_member (hp, "num_attention_heads");
  m->n_kv_heads = json_object_get_int_member (hp, "num_key_value_heads");
  m->head_dim = json_object_get_int_member (hp, "head_dim");
  m->ffn_size = json_object_get_int_member (hp, "intermediate_size");
  m->vocab_size = json_object_get_int_member (hp, "vocab_size");
  m->tied_embeddings = json_object_get_boolean_member (hp, "tie_word_embeddings");
  if (json_object_has_member (hp, "max_position_embeddings"))
    m->max_positions = json_object_get_int_member (hp, "max_position_embeddings");
}

static void
test_measured (void)
{
  g_autofree char *path = g_build_filename (TEST_DATA_DIR, "reference", "measured-small.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *configs;
  static const struct
  {
    const char     *name;
    HrAttentionImpl attention;
    HrRecompute     recompute;
  } variants[] = {
    { "standard",   HR_ATTENTION_EAGER, HR_RECOMPUTE_NONE },
    { "flash",      HR_ATTENTION_FLASH, HR_RECOMPUTE_NONE },
    { "checkpoint", HR_ATTENTION_EAGER, HR_RECOMPUTE_FULL },
  };

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  configs = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                          "configs");
  g_assert_cmpuint (json_array_get_length (configs), >=, 4);

  for (guint i = 0; i < json_array_get_length (configs); i++)
    {
      JsonObject *config = json_array_get_object_element (configs, i);
      JsonObject *hp = json_object_get_object_member (config, "hyperparameters");
      JsonObject *measured = json_object_get_object_member (config, "variants");
      HrModel m;
      HrParams p;

      g_test_message ("%s", json_object_get_string_member (config, "name"));
      model_from_hyperparameters (hp, &m);
      /* the parameter count of the measured model, too */
      g_assert_cmpint (hr_model_params (&m, &p, NULL), ==, HR_OK);
      g_assert_cmpint (p.total, ==, json_object_get_int_member (hp, "n_params"));
      g_assert_cmpint (p.embedding + p.position_embedding + p.lm_head, ==,
                       json_object_get_int_member (hp, "n_params_embedding"));

      for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
        {
          JsonObject *got = json_object_get_object_member (measured, variants[v].name);
          JsonObject *scope = json_object_get_object_member (got, "matmul_flops_forward_by_scope");
          HrFlops f = train (&m, json_object_get_int_member (hp, "seq_len"),
                             json_object_get_int_member (hp, "batch_size"),
                             variants[v].attention, variants[v].recompute, false);

          g_test_message ("variant %s", variants[v].name);
          check_close (f.forward, json_object_get_double_member (got, "matmul_flops_forward"),
                       "forward");
          check_close (f.backward + f.recompute,
                       json_object_get_double_member (got, "matmul_flops_backward"), "backward");
          check_close (f.component[HR_FLOPS_ATTN_PROJ].forward + f.component[HR_FLOPS_ATTN_OUT].forward,
                       json_object_get_double_member (scope, "attn_proj"), "attn_proj");
          check_close (f.component[HR_FLOPS_ATTN_SCORES].forward
                       + f.component[HR_FLOPS_ATTN_OVER_V].forward,
                       json_object_get_double_member (scope, "attn_core"), "attn_core");
          check_close (f.component[HR_FLOPS_MLP].forward,
                       json_object_get_double_member (scope, "mlp"), "mlp");
          check_close (f.component[HR_FLOPS_LM_HEAD].forward,
                       json_object_get_double_member (scope, "lm_head"), "lm_head");
        }
    }
}

/* Megatron's recompute_modules under selective recomputation, on the
 * DeepSeek-V2-Lite shapes of /flops/moe-and-mla (one token, eager):
 *   mlp reruns the dense layer's MLP, 134,479,872;
 *   moe the MoE layers' experts, routed and shared, 3,598,712,832, and their
 *     routers, 6,815,744;
 *   shared_experts the 2 shared of the 8 experts a token runs:
 *     3,598,712,832 · 2/8 = 899,678,208;
 *   mla_up_proj kv_b 2·512·4096·27 = 113,246,208 (no q_lora_rank: q_proj
 *     is one matrix, not rerun);
 *   nothing: 0; core_attn alone: QKᵀ and attention over V, 276,480. */
static void
test_recompute_modules (void)
{
  const struct { unsigned modules; double recompute; } cases[] = {
    { HR_RECOMPUTE_MLP, 134479872.0 },
    { HR_RECOMPUTE_MOE, 3598712832.0 + 6815744.0 },
    { HR_RECOMPUTE_SHARED_EXPERTS, 899678208.0 },
    { HR_RECOMPUTE_MLA_UP_PROJ, 113246208.0 },
    { 0, 0 },
    { HR_RECOMPUTE_CORE_ATTN, 165888.0 + 110592.0 },
  };
  HrModel m;

  deepseek_v2_lite (&m);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      HrFlopsOptions options = {
        .seq_len = 1, .micro_batch = 1, .attention = HR_ATTENTION_EAGER,
        .recompute = HR_RECOMPUTE_SELECTIVE, .recompute_modules = cases[i].modules,
      };
      HrError err = { 0 };
      HrFlops f;

      g_assert_cmpint (hr_flops_training (&m, &options, &f, &err), ==, HR_OK);
      g_assert_cmpfloat (fabs (f.recompute - cases[i].recompute), <=, 1e-6 * cases[i].recompute);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/flops/gpt2-components", test_gpt2_components);
  g_test_add_func ("/flops/moe-and-mla", test_moe_and_mla);
  g_test_add_func ("/flops/recompute-modules", test_recompute_modules);
  g_test_add_func ("/flops/windows-and-inference", test_windows);
  g_test_add_func ("/flops/opt-projections", test_opt_projections);
  g_test_add_func ("/flops/bad", test_bad);
  g_test_add_func ("/flops/measured", test_measured);

  return g_test_run ();
}
