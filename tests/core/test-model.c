/* test-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parameter counts of each family, derived by hand from the Hugging Face
 * modules (derivation beside each case), and the errors of bad models.
 */
#include <glib.h>
#include <math.h>

#include <string.h>

#include "hr-model.h"

#include "test-models.h"

static void
params_ok (const HrModel *m,
           HrParams      *p)
{
  HrError err = { 0 };

  g_assert_cmpint (hr_model_params (m, p, &err), ==, HR_OK);
  g_assert_cmpint (err.status, ==, HR_OK);
}

static void
test_gpt2 (void)
{
  HrModel m;
  HrParams p;

  /* GPT-2 small, the defaults. wte 50257·768 = 38,597,376; wpe 1024·768 = 786,432;
   * per layer: c_attn 768·2304 + 2304 = 1,771,776, c_proj 768·768 + 768 = 590,592,
   * c_fc 768·3072 + 3072 = 2,362,368, mlp c_proj 3072·768 + 768 = 2,360,064,
   * ln_1 + ln_2 4·768 = 3,072 → 7,087,872; ×12 = 85,054,464; ln_f 1,536; tied head.
   * Total 124,439,808 (the published count). */
  hr_model_init (&m);
  params_ok (&m, &p);
  g_assert_cmpint (p.embedding, ==, 38597376);
  g_assert_cmpint (p.position_embedding, ==, 786432);
  g_assert_cmpint (p.attention, ==, 12 * (1771776 + 590592));
  g_assert_cmpint (p.mlp, ==, 12 * (2362368 + 2360064));
  g_assert_cmpint (p.norm, ==, 12 * 3072 + 1536);
  g_assert_cmpint (p.lm_head, ==, 0);
  g_assert_cmpint (p.dense_layer, ==, 7087872);
  g_assert_cmpint (p.total, ==, 124439808);
  g_assert_cmpint (p.active, ==, p.total);
  g_assert_cmpint (p.non_embedding, ==, 85056000);
  g_assert_cmpint (p.n_dense_layers, ==, 12);
  g_assert_cmpint (p.n_moe_layers, ==, 0);
  g_assert_cmpint (p.moe_layer, ==, 0);
}

static void
test_pythia (void)
{
  HrModel m;
  HrParams p;

  /* Pythia-160m (GPT-NeoX): like GPT-2 small per layer (query_key_value and
   * dense with biases, LayerNorm with bias ×2, 4h MLP with biases: 7,087,872),
   * ×12 = 85,054,464; final_layer_norm 1,536; embed_in and untied embed_out
   * 50304·768 = 38,633,472 each; rotary, no position table.
   * Total 85,056,000 + 77,266,944 = 162,322,944. */
  hr_model_init (&m);
  m.vocab_size = 50304;
  m.positions = HR_POSITIONS_ROTARY;
  m.rotary_fraction = 0.25;
  m.tied_embeddings = false;
  m.parallel_block = true;
  params_ok (&m, &p);
  g_assert_cmpint (p.lm_head, ==, 38633472);
  g_assert_cmpint (p.position_embedding, ==, 0);
  g_assert_cmpint (p.total, ==, 162322944);
  g_assert_cmpint (p.non_embedding, ==, 85056000);
}

static void
test_llama2_7b (void)
{
  HrModel m;
  HrParams p;

  /* embed 32000·4096 + 32·(4·4096² + 3·4096·11008 + 2·4096) + 4096 + 32000·4096
   * = 131,072,000 + 32·(67,108,864 + 135,266,304 + 8,192) + 4,096 + 131,072,000
   * = 6,738,415,616. */
  llama_like (&m, 32, 4096, 32, 32, 11008, 32000);
  params_ok (&m, &p);
  g_assert_cmpint (p.dense_layer, ==, 67108864 + 135266304 + 8192);
  g_assert_cmpint (p.total, ==, 6738415616);
  g_assert_cmpint (p.non_embedding, ==, 6476271616);
}

static void
test_llama3_8b (void)
{
  HrModel m;
  HrParams p;

  /* GQA 32/8 heads of 128: q, o 4096² each; k, v 4096·1024 each →
   * 2·16,777,216 + 2·4,194,304 = 41,943,040; MLP 3·4096·14336 = 176,160,768;
   * norms 8,192 → 218,112,000 per layer; ×32 = 6,979,584,000; final norm 4,096;
   * embed and head 128256·4096 = 525,336,576 each. Total 8,030,261,248. */
  llama_like (&m, 32, 4096, 32, 8, 14336, 128256);
  params_ok (&m, &p);
  g_assert_cmpint (p.attention, ==, 32 * 41943040LL);
  g_assert_cmpint (p.total, ==, 8030261248);
}

static void
test_mixtral (void)
{
  HrModel m;
  HrParams p;

  /* Mixtral 8x7B: attention as Llama-3-8B (41,943,040); 8 experts of
   * 3·4096·14336 = 176,160,768; gate 4096·8 = 32,768; norms 8,192 →
   * 1,451,270,144 per layer; ×32 = 46,440,644,608; + final 4,096;
   * embed and head 32000·4096 = 131,072,000 each. Total 46,702,792,704.
   * Active: a token skips 6 experts per layer: 46,702,792,704 − 32·6·176,160,768
   * = 12,879,925,248. */
  llama_like (&m, 32, 4096, 32, 8, 14336, 32000);
  m.n_experts = 8;
  m.experts_per_token = 2;
  m.expert_ffn_size = 14336;
  params_ok (&m, &p);
  g_assert_cmpint (p.n_moe_layers, ==, 32);
  g_assert_cmpint (p.n_dense_layers, ==, 0);
  g_assert_cmpint (p.router, ==, 32 * 32768);
  g_assert_cmpint (p.routed_experts, ==, 32 * 8 * 176160768LL);
  g_assert_cmpint (p.moe_layer, ==, 1451270144);
  g_assert_cmpint (p.total, ==, 46702792704);
  g_assert_cmpint (p.active, ==, 12879925248);
  g_assert_cmpint (p.non_embedding, ==, 46440648704);
}

static void
test_qwen2 (void)
{
  HrModel m;
  HrParams p;

  /* Qwen2.5-0.5B: 14 heads of 64, 2 kv heads; q 896·896 + 896, k and v
   * 896·128 + 128 each, o 896·896 without bias → 803,712 + 229,632 + 802,816
   * = 1,836,160; MLP 3·896·4864 = 13,074,432; norms 1,792 → 14,912,384;
   * ×24 = 357,897,216; final 896; tied embed 151936·896 = 136,134,656.
   * Total 494,032,768. */
  llama_like (&m, 24, 896, 14, 2, 4864, 151936);
  m.qkv_bias = true;
  m.tied_embeddings = true;
  params_ok (&m, &p);
  g_assert_cmpint (p.attention, ==, 24 * 1836160);
  g_assert_cmpint (p.total, ==, 494032768);
}

static void
test_gemma (void)
{
  HrModel m;
  HrParams p;

  /* Gemma-2B: head_dim 256 given (2048/8 = 256 as well), 8 heads,
   * MQA: q 2048·2048, k and v 2048·256, o 2048·2048 → 9,437,184; GeGLU
   * 3·2048·16384 = 100,663,296; norms 4,096 → 110,104,576; ×18 =
   * 1,981,882,368; final 2,048; tied 256000·2048 = 524,288,000.
   * Total 2,506,172,416. */
  llama_like (&m, 18, 2048, 8, 1, 16384, 256000);
  m.head_dim = 256;
  m.tied_embeddings = true;
  params_ok (&m, &p);
  g_assert_cmpint (p.total, ==, 2506172416);

  /* Gemma 2 2B: 8 heads of 256 (q width 2048 ≠ hidden 2304), 4 kv heads:
   * q 2304·2048, k, v 2304·1024, o 2048·2304 → 14,155,776; MLP 3·2304·9216
   * = 63,700,992; four norms 9,216 → 77,865,984; ×26 = 2,024,515,584; final
   * 2,304; tied 256000·2304 = 589,824,000. Total 2,614,341,888. */
  llama_like (&m, 26, 2304, 8, 4, 9216, 256000);
  m.head_dim = 256;
  m.tied_embeddings = true;
  m.norm_placement = HR_NORM_SANDWICH;
  m.norms_per_layer = 4;
  m.sliding_window = 4096;
  m.sliding_window_period = 2;
  params_ok (&m, &p);
  g_assert_cmpint (p.total, ==, 2614341888);
  g_assert_true (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 1));
  g_assert_true (hr_model_layer_is_sliding (&m, 24));
  g_assert_false (hr_model_layer_is_sliding (&m, 25));
  g_assert_false (hr_model_layer_is_sliding (&m, 26));
  /* windows only from layer 3 on: of those, the even ones */
  m.first_sliding_layer = 3;
  g_assert_false (hr_model_layer_is_sliding (&m, 0));
  g_assert_false (hr_model_layer_is_sliding (&m, 3));
  g_assert_true (hr_model_layer_is_sliding (&m, 4));
}

static void
test_phi (void)
{
  HrModel m;
  HrParams p;

  /* Phi-2: q, k, v, dense 4·(2560² + 2560) = 26,224,640; fc1 2560·10240 +
   * 10240, fc2 10240·2560 + 2560 → 52,441,600; one LayerNorm 5,120 →
   * 78,671,360; ×32 = 2,517,483,520; final 5,120; embed 51200·2560 =
   * 131,072,000; untied head with bias 131,072,000 + 51,200.
   * Total 2,779,683,840; without embeddings and head 2,517,488,640. */
  hr_model_init (&m);
  m.n_layers = 32;
  m.hidden_size = 2560;
  m.n_heads = m.n_kv_heads = 32;
  m.head_dim = 80;
  m.ffn_size = 10240;
  m.vocab_size = 51200;
  m.positions = HR_POSITIONS_ROTARY;
  m.rotary_fraction = 0.4;
  m.norms_per_layer = 1;
  m.parallel_block = true;
  m.tied_embeddings = false;
  m.lm_head_bias = true;
  params_ok (&m, &p);
  g_assert_cmpint (p.lm_head, ==, 131072000 + 51200);
  g_assert_cmpint (p.total, ==, 2779683840);
  g_assert_cmpint (p.non_embedding, ==, 2517488640);

  /* qk_layernorm adds LayerNorm(80) with bias twice per layer: 32·2·160. */
  m.qk_norm = true;
  params_ok (&m, &p);
  g_assert_cmpint (p.total, ==, 2779683840 + 32 * 2 * 160);

  /* Phi-3-mini: fused qkv_proj 3072·9216 + o 3072² = 37,748,736; fused
   * gate_up_proj 3072·16384 + down 8192·3072 = 75,497,472; norms 6,144 →
   * 113,252,352; ×32 = 3,624,075,264; final 3,072; embed and head
   * 32064·3072 = 98,500,608 each. Total 3,821,079,552. */
  llama_like (&m, 32, 3072, 32, 32, 8192, 32064);
  params_ok (&m, &p);
  g_assert_cmpint (p.total, ==, 3821079552);
}

static void
test_opt (void)
{
  HrModel m;
  HrParams p;

  /* OPT-350m: embed_tokens 50272·512 = 25,739,264; project_in and project_out
   * 2·512·1024 = 1,048,576; positions (2048 + 2)·1024 = 2,099,200; per layer
   * q, k, v, out_proj 4·(1024² + 1024) = 4,198,400, fc1 + fc2 with biases
   * 8,393,728, two LayerNorms 4,096 → 12,596,224; ×24 = 302,309,376; no final
   * norm (post-LN); head tied to the 512-wide embedding. Total 331,196,416. */
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
  params_ok (&m, &p);
  g_assert_cmpint (p.embedding, ==, 25739264 + 1048576);
  g_assert_cmpint (p.position_embedding, ==, 2099200);
  g_assert_cmpint (p.total, ==, 331196416);
}

static void
test_falcon (void)
{
  HrModel m;
  HrParams p;

  /* Falcon-7B: multi-query, 71 heads of 64: query_key_value 4544·(4544 + 128)
   * = 21,229,568, dense 4544² = 20,647,936 (no biases); MLP 2·4544·18176 =
   * 165,183,488; one LayerNorm 9,088 → 207,070,080; ×32 = 6,626,242,560;
   * ln_f 9,088; tied 65024·4544 = 295,469,056. Total 6,921,720,704. */
  hr_model_init (&m);
  m.n_layers = 32;
  m.hidden_size = 4544;
  m.n_heads = 71;
  m.n_kv_heads = 1;
  m.head_dim = 64;
  m.ffn_size = 18176;
  m.vocab_size = 65024;
  m.positions = HR_POSITIONS_ROTARY;
  m.norms_per_layer = 1;
  m.parallel_block = true;
  m.qkv_bias = m.out_bias = m.mlp_bias = false;
  params_ok (&m, &p);
  g_assert_cmpint (p.total, ==, 6921720704);
}

static void
test_deepseek (void)
{
  HrModel m;
  HrParams p;

  /* DeepSeek-V2-Lite, MLA without q LoRA: q_proj 2048·16·192 = 6,291,456;
   * kv_a_proj_with_mqa 2048·(512 + 64) = 1,179,648; kv_a_layernorm 512;
   * kv_b_proj 512·16·(128 + 128) = 2,097,152; o_proj 16·128·2048 = 4,194,304
   * → 13,763,072 per layer. Layer 0 dense: MLP 3·2048·10944 = 67,239,936,
   * norms 4,096 → 81,007,104. Layers 1–26 MoE: 64 experts of 3·2048·1408 =
   * 8,650,752 (553,648,128), shared 3·2048·2816 = 17,301,504, gate 64·2048 =
   * 131,072 → 584,847,872; ×26 = 15,206,044,672. Embed and head
   * 102400·2048 = 209,715,200 each; final norm 2,048.
   * Total 15,706,484,224; active 15,706,484,224 − 26·58·8,650,752 = 2,661,150,208. */
  deepseek_v2_lite (&m);
  g_assert_true (hr_model_uses_mla (&m));
  g_assert_false (hr_model_layer_is_moe (&m, 0));
  g_assert_true (hr_model_layer_is_moe (&m, 1));
  g_assert_true (hr_model_layer_is_moe (&m, 26));
  g_assert_false (hr_model_layer_is_moe (&m, 27));
  params_ok (&m, &p);
  g_assert_cmpint (p.attention, ==, 27 * 13763072LL);
  g_assert_cmpint (p.dense_layer, ==, 81007104);
  g_assert_cmpint (p.moe_layer, ==, 584847872);
  g_assert_cmpint (p.n_dense_layers, ==, 1);
  g_assert_cmpint (p.n_moe_layers, ==, 26);
  g_assert_cmpint (p.total, ==, 15706484224);
  g_assert_cmpint (p.active, ==, 2661150208);

  /* With q LoRA of rank 1536: q_proj (6,291,456) becomes q_a_proj 2048·1536
   * + q_a_layernorm 1536 + q_b_proj 1536·16·192 = 3,145,728 + 1,536 +
   * 4,718,592 = 7,865,856, i.e. 1,574,400 more per layer. */
  m.q_lora_rank = 1536;
  params_ok (&m, &p);
  g_assert_cmpint (p.total, ==, 15706484224 + 27 * 1574400LL);

  /* moe_layer_freq 2 counts absolute indices: MoE layers 2, 4, …, 26 (13). */
  m.moe_layer_freq = 2;
  g_assert_false (hr_model_layer_is_moe (&m, 1));
  g_assert_true (hr_model_layer_is_moe (&m, 2));
  params_ok (&m, &p);
  g_assert_cmpint (p.n_moe_layers, ==, 13);

  /* A router bias adds one value per expert and MoE layer. */
  m.moe_layer_freq = 1;
  m.router_bias = true;
  params_ok (&m, &p);
  g_assert_cmpint (p.router, ==, 26 * (131072 + 64));
}

static void
expect_error (const HrModel *m,
              HrStatus       status,
              const char    *field)
{
  HrParams p;
  HrError err = { 0 };

  /* Overflow shows only when counting; validation checks each field alone. */
  if (status == HR_ERROR_OVERFLOW)
    g_assert_cmpint (hr_model_validate (m, &err), ==, HR_OK);
  else
    {
      g_assert_cmpint (hr_model_validate (m, &err), ==, status);
      g_assert_cmpstr (err.field, ==, field);
    }
  g_assert_cmpint (hr_model_params (m, &p, &err), ==, status);
  g_assert_cmpstr (err.field, ==, field);
  g_assert_cmpint (hr_model_params (m, &p, NULL), ==, status);
}

static void
test_bad (void)
{
  HrModel m;

  hr_model_init (&m);
  m.n_layers = 0;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "num_hidden_layers");

  hr_model_init (&m);
  m.hidden_size = -768;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "hidden_size");

  hr_model_init (&m);
  m.vocab_size = 0;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "vocab_size");

  hr_model_init (&m);
  m.ffn_size = 0;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "intermediate_size");

  /* 768 / 7 heads with head_dim derived */
  hr_model_init (&m);
  m.head_dim = 0;
  m.n_heads = m.n_kv_heads = 7;
  expect_error (&m, HR_ERROR_NOT_DIVISIBLE, "num_attention_heads");

  /* 12 query heads over 5 kv heads */
  hr_model_init (&m);
  m.n_kv_heads = 5;
  expect_error (&m, HR_ERROR_NOT_DIVISIBLE, "num_key_value_heads");

  hr_model_init (&m);
  m.max_positions = 0;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "max_position_embeddings");

  hr_model_init (&m);
  m.positions = HR_POSITIONS_ROTARY;
  m.rotary_fraction = 1.5;
  expect_error (&m, HR_ERROR_OUT_OF_RANGE, "partial_rotary_factor");
  {
    HrError err = { 0 };

    hr_model_validate (&m, &err);
    g_assert_cmpint (err.value, ==, 150);  /* reported in percent */
    m.rotary_fraction = NAN;
    g_assert_cmpint (hr_model_validate (&m, &err), ==, HR_ERROR_OUT_OF_RANGE);
  }

  deepseek_v2_lite (&m);
  m.experts_per_token = 65;
  expect_error (&m, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok");

  deepseek_v2_lite (&m);
  m.expert_ffn_size = 0;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "moe_intermediate_size");

  deepseek_v2_lite (&m);
  m.v_head_dim = 0;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "v_head_dim");

  hr_model_init (&m);
  m.sliding_window = -1;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "sliding_window");

  hr_model_init (&m);
  m.first_sliding_layer = -1;
  expect_error (&m, HR_ERROR_NOT_POSITIVE, "max_window_layers");

  /* vocab·hidden = 2^62·2 would overflow: above the documented limit
   * (hr-limits.c, at most 10^8) first. */
  hr_model_init (&m);
  m.vocab_size = INT64_C (1) << 62;
  m.hidden_size = 768;
  expect_error (&m, HR_ERROR_OUT_OF_RANGE, "vocab_size");

  /* 2^60 layers: above the limit of 10^6 layers (issue 15: 10^12 layers hung) */
  hr_model_init (&m);
  m.n_layers = INT64_C (1) << 60;
  expect_error (&m, HR_ERROR_OUT_OF_RANGE, "num_hidden_layers");
  m.n_layers = 1000001;
  expect_error (&m, HR_ERROR_OUT_OF_RANGE, "num_hidden_layers");

  /* hidden² overflows inside a layer */
  hr_model_init (&m);
  m.hidden_size = INT64_C (1) << 40;
  m.n_heads = m.n_kv_heads = 1;
  m.head_dim = INT64_C (1) << 40;
  m.vocab_size = 1;
  m.max_positions = 1;
  m.ffn_size = 1;
  expect_error (&m, HR_ERROR_OUT_OF_RANGE, "hidden_size");
}


/* The structure line: each feature read, in words. */
static void
test_describe (void)
{
  HrModel m;
  char line[512];
  char tiny[8];

  hr_model_init (&m);
  hr_model_describe (&m, line, sizeof line);
  /* GPT-2 small. */
  g_assert_cmpstr (line, ==, "multi-head attention, 12 heads; pre-norm LayerNorm; plain MLP; "
                   "biases on q/k/v, output, MLP; learned positions; tied embeddings");

  /* Qwen3-30B-A3B's structure. */
  m.n_heads = 32;
  m.n_kv_heads = 4;
  m.head_dim = 128;
  m.hidden_size = 2048;
  m.ffn_kind = HR_FFN_GATED;
  m.norm_kind = HR_NORM_RMSNORM;
  m.qkv_bias = m.out_bias = m.mlp_bias = false;
  m.positions = HR_POSITIONS_ROTARY;
  m.qk_norm = true;
  m.tied_embeddings = false;
  m.n_experts = 128;
  m.experts_per_token = 8;
  m.expert_ffn_size = 768;
  g_assert_cmpuint (hr_model_describe (&m, line, sizeof line), ==, strlen (line));
  g_assert_cmpstr (line, ==, "128 experts, 8 active, no shared expert; GQA, 32 query heads over "
                   "4 kv heads; q/k RMSNorm per head; pre-norm RMSNorm; gated MLP; no linear "
                   "biases; rotary; untied embeddings");
  /* Truncated, as snprintf does, with the full length returned. */
  g_assert_cmpuint (hr_model_describe (&m, tiny, sizeof tiny), ==, strlen (line));
  g_assert_cmpstr (tiny, ==, "128 exp");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/model/gpt2", test_gpt2);
  g_test_add_func ("/model/gpt-neox", test_pythia);
  g_test_add_func ("/model/llama2-7b", test_llama2_7b);
  g_test_add_func ("/model/llama3-8b", test_llama3_8b);
  g_test_add_func ("/model/mixtral", test_mixtral);
  g_test_add_func ("/model/qwen2", test_qwen2);
  g_test_add_func ("/model/gemma", test_gemma);
  g_test_add_func ("/model/phi", test_phi);
  g_test_add_func ("/model/opt", test_opt);
  g_test_add_func ("/model/falcon", test_falcon);
  g_test_add_func ("/model/deepseek", test_deepseek);
  g_test_add_func ("/model/bad", test_bad);
  g_test_add_func ("/model/describe", test_describe);

  return g_test_run ();
}
