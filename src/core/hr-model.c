/* hr-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exact parameter counts. Each term below names the Hugging Face module
 * (transformers, models/<family>/modeling_<family>.py) whose tensors it
 * counts; every product and sum is checked against 64-bit overflow.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hr-internal.h"
#include "hr-limits.h"
#include "hr-model.h"

void
hr_model_init (HrModel *model)
{
  /* GPT-2 small (Radford et al. 2019; HF openai-community/gpt2). */
  *model = (HrModel) {
    .n_layers = 12,
    .hidden_size = 768,
    .n_heads = 12,
    .n_kv_heads = 12,
    .head_dim = 64,
    .ffn_size = 3072,
    .ffn_kind = HR_FFN_MLP,
    .vocab_size = 50257,
    .positions = HR_POSITIONS_LEARNED,
    .max_positions = 1024,
    .position_offset = 0,
    .rotary_fraction = 1.0,
    .norm_kind = HR_NORM_LAYERNORM,
    .norm_bias = true,
    .norm_placement = HR_NORM_PRE,
    .norms_per_layer = 2,
    .final_norm = true,
    .qkv_bias = true,
    .out_bias = true,
    .mlp_bias = true,
    .lm_head_bias = false,
    .tied_embeddings = true,
    .embed_proj_dim = 0,
    .parallel_block = false,
    .n_experts = 0,
    .experts_per_token = 0,
    .n_shared_experts = 0,
    .expert_ffn_size = 0,
    .shared_expert_ffn_size = 0,
    .first_dense_layers = 0,
    .moe_layer_freq = 1,
    .router_bias = false,
    .q_lora_rank = 0,
    .kv_lora_rank = 0,
    .qk_rope_head_dim = 0,
    .qk_nope_head_dim = 0,
    .v_head_dim = 0,
    .sliding_window = 0,
    .sliding_window_period = 0,
    .qk_norm = false,
    .first_sliding_layer = 0,
    .qk_norm_full = false,
    .attention_sinks = false,
    .shared_expert_gate = false,
    .moe_layer_phase = 0,
    .qk_norm_unbiased = false,
    .chunked_attention = false,
    .embedding_norm = false,
    .sliding_window_offset = 0,
    .ffn_activation = HR_ACT_PLAIN,
    .attention_experts = 0,
    .moe_output_bias = false,
    .zero_experts = 0,
    .sub_norms = false,
    .attention_gate = false,
    .index_heads = 0,
    .index_head_dim = 0,
    .index_topk = 0,
  };
}

int64_t
hr_model_head_dim (const HrModel *model)
{
  if (model->head_dim > 0)
    return model->head_dim;
  if (model->n_heads <= 0)
    return 0;
  return model->hidden_size / model->n_heads;
}

bool
hr_model_uses_mla (const HrModel *model)
{
  return model->kv_lora_rank > 0;
}

bool
hr_model_layer_is_moe (const HrModel *model,
                       int64_t        layer)
{
  /* DeepSeek-V2/V3 DecoderLayer: MoE when layer_idx >= first_k_dense_replace
   * and layer_idx % moe_layer_freq == 0 (the absolute index, not the offset);
   * Qwen2-MoE/Qwen3-MoE: when (layer_idx + 1) % decoder_sparse_step == 0. */
  if (model->n_experts <= 0 || layer < 0 || layer >= model->n_layers)
    return false;
  if (layer < model->first_dense_layers)
    return false;
  if (model->moe_layer_freq <= 1)
    return true;
  return layer % model->moe_layer_freq == model->moe_layer_phase;
}

bool
hr_model_layer_is_sliding (const HrModel *model,
                           int64_t        layer)
{
  /* Gemma2Attention: sliding_window only when layer_idx is even (period 2);
   * Qwen2: only from max_window_layers on; GPT-Neo's attention_types
   * ["global", "local"]: odd layers local (offset 1). */
  if (model->sliding_window <= 0 || layer < 0 || layer >= model->n_layers)
    return false;
  if (layer < model->first_sliding_layer)
    return false;
  if (model->sliding_window_period <= 1)
    return true;
  return (layer + model->sliding_window_offset) % model->sliding_window_period
         != model->sliding_window_period - 1;
}

static int64_t
gcd64 (int64_t a,
       int64_t b)
{
  while (b != 0)
    {
      int64_t t = a % b;

      a = b;
      b = t;
    }
  return a;
}

/* Layers of each kind in [first, last), without visiting each layer: past
 * first_k_dense_replace and max_window_layers both kinds repeat with the
 * lcm of their periods, so one period is walked and multiplied. Estimates
 * hold identical layers once, times their count (issue 15). */
void
hr_model_count_layers (const HrModel *model,
                       int64_t        first,
                       int64_t        last,
                       HrLayerCounts *counts)
{
  int64_t f = model->n_experts > 0 && model->moe_layer_freq > 1 ? model->moe_layer_freq : 1;
  int64_t p = model->sliding_window > 0 && model->sliding_window_period > 1
              ? model->sliding_window_period : 1;
  int64_t period = f / gcd64 (f, p) * p;
  int64_t cuts[4];
  int n_cuts = 0;

  memset (counts, 0, sizeof *counts);
  if (first < 0)
    first = 0;
  if (last > model->n_layers)
    last = model->n_layers;
  if (first >= last)
    return;

  /* Segments between the two starts, in each of which both kinds are periodic. */
  cuts[n_cuts++] = first;
  for (int k = 0; k < 2; k++)
    {
      int64_t cut = k == 0 ? model->first_dense_layers : model->first_sliding_layer;

      if (cut > cuts[n_cuts - 1] && cut < last)
        cuts[n_cuts++] = cut;
      else if (cut > first && cut < cuts[n_cuts - 1])
        {
          /* Before the one already cut: insert it in order. */
          cuts[n_cuts] = cuts[n_cuts - 1];
          cuts[n_cuts - 1] = cut;
          n_cuts++;
        }
    }
  cuts[n_cuts] = last;

  for (int c = 0; c < n_cuts; c++)
    {
      int64_t start = cuts[c], length = cuts[c + 1] - cuts[c];
      int64_t repeats = length / period;
      int64_t walked = repeats > 0 ? period : 0;

      /* One period, counted `repeats` times, then the remainder once. */
      for (int64_t i = start; i < start + walked; i++)
        counts->n[hr_model_layer_is_moe (model, i)][hr_model_layer_is_sliding (model, i)] += repeats;
      for (int64_t i = start + repeats * period; i < start + length; i++)
        counts->n[hr_model_layer_is_moe (model, i)][hr_model_layer_is_sliding (model, i)]++;
    }
}

/* Integers i in [0, n) with i % freq == phase (0 <= phase < freq). */
static int64_t
multiples_below (int64_t n,
                 int64_t freq,
                 int64_t phase)
{
  return n <= phase ? 0 : (n - 1 - phase) / freq + 1;
}

/* Layers for which hr_model_layer_is_moe() holds, without visiting each. */
static int64_t
count_moe_layers (const HrModel *model)
{
  int64_t start = model->first_dense_layers > 0 ? model->first_dense_layers : 0;
  int64_t freq = model->moe_layer_freq > 1 ? model->moe_layer_freq : 1;
  int64_t phase = freq > 1 ? model->moe_layer_phase : 0;

  if (model->n_experts <= 0 || start >= model->n_layers)
    return 0;
  return multiples_below (model->n_layers, freq, phase) - multiples_below (start, freq, phase);
}

static HrStatus
require_positive (int64_t     value,
                  const char *field,
                  HrError    *err)
{
  if (value <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, field, value, 0, NULL);
  return HR_OK;
}

static HrStatus
require_non_negative (int64_t     value,
                      const char *field,
                      HrError    *err)
{
  if (value < 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, field, value, 0, "may be 0");
  return HR_OK;
}

#define CHECK(expr) do { HrStatus check_status_ = (expr); if (check_status_ != HR_OK) return check_status_; } while (0)

HrStatus
hr_model_validate (const HrModel *model,
                   HrError       *err)
{
  hr_error_set (err, HR_OK, NULL, 0, 0, NULL);

  CHECK (require_positive (model->n_layers, "num_hidden_layers", err));
  CHECK (require_positive (model->hidden_size, "hidden_size", err));
  CHECK (require_positive (model->n_heads, "num_attention_heads", err));
  CHECK (require_positive (model->n_kv_heads, "num_key_value_heads", err));
  CHECK (require_positive (model->vocab_size, "vocab_size", err));
  CHECK (require_non_negative (model->head_dim, "head_dim", err));
  if (model->head_dim == 0 && !hr_model_uses_mla (model)
      && model->hidden_size % model->n_heads != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "num_attention_heads",
                         model->n_heads, model->hidden_size,
                         "hidden_size (head_dim is derived from them)");
  if (model->n_heads % model->n_kv_heads != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "num_key_value_heads",
                         model->n_kv_heads, model->n_heads, "num_attention_heads");
  if (model->ffn_kind != HR_FFN_MLP && model->ffn_kind != HR_FFN_GATED)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "hidden_act", model->ffn_kind, 0,
                         "unknown feed-forward kind");
  if (model->ffn_activation != HR_ACT_PLAIN && model->ffn_activation != HR_ACT_XIELU)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "hidden_act", model->ffn_activation, 0,
                         "unknown activation");

  switch (model->positions)
    {
    case HR_POSITIONS_LEARNED:
      CHECK (require_positive (model->max_positions, "max_position_embeddings", err));
      CHECK (require_non_negative (model->position_offset, "position_offset", err));
      break;
    case HR_POSITIONS_ROTARY:
      if (!(model->rotary_fraction > 0.0 && model->rotary_fraction <= 1.0))
        return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "partial_rotary_factor",
                             isfinite (model->rotary_fraction)
                             && fabs (model->rotary_fraction) < 1e15
                             ? llround (model->rotary_fraction * 100) : -1, 100,
                             "in percent, must lie in (0, 100]");
      break;
    case HR_POSITIONS_NONE:
    case HR_POSITIONS_ALIBI:
      break;
    default:
      return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "position_embedding_type",
                           model->positions, 0, "unknown position kind");
    }

  if (model->norm_kind != HR_NORM_LAYERNORM && model->norm_kind != HR_NORM_RMSNORM)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "norm_kind", model->norm_kind, 0,
                         "unknown norm kind");
  if (model->norm_placement != HR_NORM_PRE && model->norm_placement != HR_NORM_POST
      && model->norm_placement != HR_NORM_SANDWICH)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "norm_placement",
                         model->norm_placement, 0, "unknown norm placement");
  CHECK (require_non_negative (model->norms_per_layer, "norms_per_layer", err));
  CHECK (require_non_negative (model->embed_proj_dim, "word_embed_proj_dim", err));

  if (model->n_experts < 0)
    return require_non_negative (model->n_experts, "num_local_experts", err);
  if (model->n_experts > 0)
    {
      CHECK (require_positive (model->experts_per_token, "num_experts_per_tok", err));
      if (model->experts_per_token > model->n_experts)
        return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok",
                             model->experts_per_token, model->n_experts,
                             "more than the routed experts");
      CHECK (require_positive (model->expert_ffn_size, "moe_intermediate_size", err));
      CHECK (require_non_negative (model->zero_experts, "zero_expert_num", err));
      CHECK (require_non_negative (model->n_shared_experts, "n_shared_experts", err));
      if (model->n_shared_experts > 0)
        CHECK (require_positive (model->shared_expert_ffn_size,
                                 "shared_expert_intermediate_size", err));
      CHECK (require_non_negative (model->first_dense_layers, "first_k_dense_replace", err));
      CHECK (require_positive (model->moe_layer_freq, "moe_layer_freq", err));
      if (model->moe_layer_phase < 0
          || (model->moe_layer_freq > 1 && model->moe_layer_phase >= model->moe_layer_freq))
        return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "decoder_sparse_step",
                             model->moe_layer_phase, model->moe_layer_freq,
                             "MoE layer phase outside the period");
    }
  /* A dense MLP is needed by every layer that is not MoE. */
  if (count_moe_layers (model) < model->n_layers)
    CHECK (require_positive (model->ffn_size, "intermediate_size", err));

  /* BitNetAttention's attn_sub_norm is RMSNorm(hidden_size) over the
   * attention output; BitNetMLP's ffn_sub_norm is the dense MLP's. */
  if (model->sub_norms && model->n_experts > 0)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "num_local_experts", model->n_experts, 0,
                         "experts with BitNet's sub-norms");
  if (model->sub_norms && !hr_model_uses_mla (model)
      && model->n_heads * hr_model_head_dim (model) != model->hidden_size)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "head_dim", hr_model_head_dim (model), 0,
                         "heads × head_dim other than hidden_size, which attn_sub_norm cannot take");

  CHECK (require_non_negative (model->index_heads, "index_n_heads", err));
  if (model->index_heads > 0)
    {
      if (!hr_model_uses_mla (model) || model->q_lora_rank <= 0)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "index_n_heads", model->index_heads, 0,
                             "a sparse-attention indexer without latent attention's q_lora_rank");
      CHECK (require_positive (model->index_head_dim, "index_head_dim", err));
      CHECK (require_positive (model->index_topk, "index_topk", err));
    }
  if (model->attention_gate && (hr_model_uses_mla (model) || model->attention_experts > 0))
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "attention_gate", 1, 0,
                         "an attention output gate with latent attention or attention experts");

  if (model->attention_experts < 0)
    return require_non_negative (model->attention_experts, "num_local_experts", err);
  if (model->attention_experts > 0
      && (hr_model_uses_mla (model) || model->n_heads / model->n_kv_heads > model->attention_experts))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "num_experts_per_tok",
                         model->n_heads / model->n_kv_heads, model->attention_experts,
                         "more attention experts per token than attention experts");

  if (hr_model_uses_mla (model))
    {
      CHECK (require_non_negative (model->q_lora_rank, "q_lora_rank", err));
      CHECK (require_positive (model->qk_rope_head_dim, "qk_rope_head_dim", err));
      CHECK (require_non_negative (model->qk_nope_head_dim, "qk_nope_head_dim", err));
      CHECK (require_positive (model->v_head_dim, "v_head_dim", err));
    }
  else if (model->kv_lora_rank < 0)
    return require_non_negative (model->kv_lora_rank, "kv_lora_rank", err);

  CHECK (require_non_negative (model->sliding_window, "sliding_window", err));
  CHECK (require_non_negative (model->sliding_window_period, "sliding_window_pattern", err));
  CHECK (require_non_negative (model->first_sliding_layer, "max_window_layers", err));
  if (model->sliding_window_offset < 0
      || model->sliding_window_offset >= (model->sliding_window_period > 1
                                          ? model->sliding_window_period : 1))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "attention_types",
                         model->sliding_window_offset, model->sliding_window_period,
                         "global-layer offset outside the period");
  /* Upper bounds, docs/project-format.md (Limits). */
  CHECK (hr_model_check_limits (model, err));
  return HR_OK;
}

/* Checked arithmetic: the first overflow is kept with the field it concerns,
 * and later results are meaningless until the caller looks at `field`. */
typedef struct
{
  const char *field;
} Checked;

static int64_t
mul (Checked    *c,
     int64_t     a,
     int64_t     b,
     const char *field)
{
  int64_t r;

  if (__builtin_mul_overflow (a, b, &r))
    {
      if (c->field == NULL)
        c->field = field;
      return 0;
    }
  return r;
}

static int64_t
add (Checked    *c,
     int64_t     a,
     int64_t     b,
     const char *field)
{
  int64_t r;

  if (__builtin_add_overflow (a, b, &r))
    {
      if (c->field == NULL)
        c->field = field;
      return 0;
    }
  return r;
}

/* A Linear(in, out) with an optional bias: in·out (+ out). */
static int64_t
linear (Checked    *c,
        int64_t     in,
        int64_t     out,
        bool        bias,
        const char *field)
{
  return add (c, mul (c, in, out, field), bias ? out : 0, field);
}

/* One LayerNorm (weight and optional bias) or RMSNorm (weight) over `size`. */
static int64_t
norm (const HrModel *model,
      Checked       *c,
      int64_t        size,
      const char    *field)
{
  bool bias = model->norm_kind == HR_NORM_LAYERNORM && model->norm_bias;

  return mul (c, size, bias ? 2 : 1, field);
}

/* A q or k norm: as the block's norms, or without bias (StableLM's per-head LayerNorms). */
static int64_t
qk_norm (const HrModel *model,
         Checked       *c,
         int64_t        size,
         const char    *field)
{
  return model->qk_norm_unbiased ? size : norm (model, c, size, field);
}

/* One feed-forward block of width `width`. HR_FFN_MLP: c_fc/c_proj (GPT-2),
 * dense_h_to_4h/dense_4h_to_h (NeoX, Falcon), fc1/fc2 (OPT, Phi).
 * HR_FFN_GATED: gate_proj, up_proj, down_proj (LlamaMLP and its kin;
 * Phi-3's fused gate_up_proj holds the same 2·hidden·width weights;
 * MixtralBlockSparseTop2MLP's w1, w3, w2). */
static int64_t
ffn (const HrModel *model,
     Checked       *c,
     int64_t        width,
     const char    *field)
{
  int64_t h = model->hidden_size;
  int64_t in_mats = model->ffn_kind == HR_FFN_GATED ? 2 : 1;
  int64_t n;

  n = mul (c, in_mats, linear (c, h, width, model->mlp_bias, field), field);
  /* XIELUActivation (transformers activations.py): alpha_p and alpha_n, one
   * nn.Parameter of one element each, in every MLP that builds one. */
  if (model->ffn_activation == HR_ACT_XIELU)
    n = add (c, n, 2, field);
  return add (c, n, linear (c, width, h, model->mlp_bias, field), field);
}

/* Attention of one layer, its norms included for MLA and qk_norm. */
static int64_t
attention_layer (const HrModel *model,
                 Checked       *c)
{
  int64_t h = model->hidden_size;
  int64_t hd = hr_model_head_dim (model);
  int64_t n = 0;
  int64_t q_out, kv_out;

  if (hr_model_uses_mla (model))
    {
      /* DeepseekV2Attention / DeepseekV3Attention (multi-head latent attention). */
      int64_t q_head = add (c, model->qk_nope_head_dim, model->qk_rope_head_dim, "qk_rope_head_dim");

      q_out = mul (c, model->n_heads, q_head, "num_attention_heads");
      kv_out = mul (c, model->n_heads,
                    add (c, model->qk_nope_head_dim, model->v_head_dim, "v_head_dim"),
                    "num_attention_heads");

      if (model->q_lora_rank > 0)
        {
          /* q_a_proj (bias = attention_bias), q_a_layernorm (RMSNorm), q_b_proj. */
          n = add (c, n, linear (c, h, model->q_lora_rank, model->qkv_bias, "q_lora_rank"), "q_lora_rank");
          n = add (c, n, model->q_lora_rank, "q_lora_rank");
          n = add (c, n, linear (c, model->q_lora_rank, q_out, false, "q_lora_rank"), "q_lora_rank");
        }
      else
        {
          /* q_proj (no bias) when q_lora_rank is null (DeepSeek-V2-Lite). */
          n = add (c, n, linear (c, h, q_out, false, "num_attention_heads"), "num_attention_heads");
        }
      /* kv_a_proj_with_mqa (bias = attention_bias), kv_a_layernorm (RMSNorm), kv_b_proj. */
      n = add (c, n, linear (c, h, add (c, model->kv_lora_rank, model->qk_rope_head_dim, "kv_lora_rank"),
                             model->qkv_bias, "kv_lora_rank"), "kv_lora_rank");
      n = add (c, n, model->kv_lora_rank, "kv_lora_rank");
      n = add (c, n, linear (c, model->kv_lora_rank, kv_out, false, "kv_lora_rank"), "kv_lora_rank");
      /* o_proj (bias = attention_bias). */
      n = add (c, n, linear (c, mul (c, model->n_heads, model->v_head_dim, "v_head_dim"), h,
                             model->out_bias, "v_head_dim"), "v_head_dim");
      /* DeepseekV32Indexer: wq_b, wk, k_norm (LayerNorm with bias), weights_proj. */
      if (model->index_heads > 0)
        {
          n = add (c, n, linear (c, model->q_lora_rank,
                                 mul (c, model->index_heads, model->index_head_dim, "index_head_dim"),
                                 false, "index_n_heads"), "index_n_heads");
          n = add (c, n, linear (c, h, model->index_head_dim, false, "index_head_dim"),
                   "index_head_dim");
          n = add (c, n, mul (c, 2, model->index_head_dim, "index_head_dim"), "index_head_dim");
          n = add (c, n, linear (c, h, model->index_heads, false, "index_n_heads"), "index_n_heads");
        }
      return n;
    }

  if (model->attention_experts > 0)
    {
      /* JetMoeAttention: kv_proj Linear(hidden, 2·kv heads·head_dim, bias=False);
       * JetMoeMoA: input_linear (E, kv heads·head_dim, hidden) and output_linear
       * (E, hidden, kv heads·head_dim) without bias, its router
       * Linear(hidden, E, bias=False) and a bias of hidden_size. */
      kv_out = mul (c, model->n_kv_heads, hd, "head_dim");
      n = mul (c, 2, mul (c, h, kv_out, "head_dim"), "head_dim");
      n = add (c, n, mul (c, model->attention_experts, mul (c, 2, mul (c, h, kv_out, "head_dim"),
                                                          "head_dim"),
                          "num_local_experts"), "num_local_experts");
      n = add (c, n, mul (c, h, model->attention_experts, "num_local_experts"), "num_local_experts");
      return add (c, n, h, "hidden_size");
    }

  /* q_proj, k_proj, v_proj, o_proj (Llama and kin); the fused c_attn (GPT-2),
   * query_key_value (NeoX, Falcon) and qkv_proj (Phi-3) hold the same rows. */
  q_out = mul (c, model->n_heads, hd, "head_dim");
  kv_out = mul (c, model->n_kv_heads, hd, "head_dim");
  n = linear (c, h, q_out, model->qkv_bias, "hidden_size");
  n = add (c, n, mul (c, 2, linear (c, h, kv_out, model->qkv_bias, "hidden_size"), "hidden_size"),
           "hidden_size");
  n = add (c, n, linear (c, q_out, h, model->out_bias, "hidden_size"), "hidden_size");
  /* AfmoeAttention.gate_proj: Linear(hidden, heads·head_dim, bias=False). */
  if (model->attention_gate)
    n = add (c, n, linear (c, h, q_out, false, "hidden_size"), "hidden_size");
  if (model->qk_norm && model->qk_norm_full)
    {
      /* Olmo2Attention q_norm over num_heads·head_dim, k_norm over num_kv_heads·head_dim. */
      n = add (c, n, qk_norm (model, c, q_out, "head_dim"), "head_dim");
      n = add (c, n, qk_norm (model, c, kv_out, "head_dim"), "head_dim");
    }
  else if (model->qk_norm)
    {
      /* PhiAttention q_layernorm and k_layernorm, Qwen3/Gemma 3 q_norm and k_norm:
       * one norm of head_dim each, shared by the heads. */
      n = add (c, n, mul (c, 2, qk_norm (model, c, hd, "head_dim"), "head_dim"), "head_dim");
    }
  /* GptOssAttention.sinks: one learned logit per query head. */
  if (model->attention_sinks)
    n = add (c, n, model->n_heads, "num_attention_heads");
  return n;
}

HrStatus
hr_model_params (const HrModel *model,
                 HrParams      *params,
                 HrError       *err)
{
  CHECK (hr_model_validate (model, err));
  return hr_model_count_params (model, params, err);
}

HrStatus
hr_model_count_params (const HrModel *model,
                       HrParams      *params,
                       HrError       *err)
{
  Checked c = { NULL };
  HrParams p = { 0 };
  int64_t h = model->hidden_size;
  int64_t embed_dim;
  int64_t attn, layer_norms, dense_mlp, expert, experts, shared, router;

  p.n_moe_layers = count_moe_layers (model);
  p.n_dense_layers = model->n_layers - p.n_moe_layers;

  /* Token embedding: wte (GPT-2), embed_in (NeoX), embed_tokens (Llama, OPT),
   * word_embeddings (Falcon). OPT with word_embed_proj_dim != hidden_size
   * (opt-350m) embeds in that width and adds project_in and project_out,
   * both Linear without bias (OPTDecoder). */
  embed_dim = model->embed_proj_dim > 0 ? model->embed_proj_dim : h;
  p.embedding = mul (&c, model->vocab_size, embed_dim, "vocab_size");
  if (embed_dim != h)
    p.embedding = add (&c, p.embedding, mul (&c, 2, mul (&c, embed_dim, h, "word_embed_proj_dim"),
                                             "word_embed_proj_dim"),
                       "word_embed_proj_dim");

  /* Learned positions: wpe (GPT-2); OPTLearnedPositionalEmbedding holds
   * max_position_embeddings + 2 rows of hidden_size. */
  if (model->positions == HR_POSITIONS_LEARNED)
    p.position_embedding = mul (&c, add (&c, model->max_positions, model->position_offset,
                                         "max_position_embeddings"),
                                h, "max_position_embeddings");

  attn = attention_layer (model, &c);
  /* Per-layer norms: ln_1/ln_2 (GPT-2), input_layernorm/post_attention_layernorm
   * (Llama, NeoX), one shared input_layernorm (Phi, Falcon-7B parallel_attn),
   * four in Gemma2DecoderLayer (pre/post attention and feed-forward). */
  layer_norms = mul (&c, model->norms_per_layer, norm (model, &c, h, "hidden_size"), "norms_per_layer");
  /* BitNet: attn_sub_norm (hidden_size) and ffn_sub_norm (intermediate_size). */
  if (model->sub_norms)
    layer_norms = add (&c, layer_norms, add (&c, norm (model, &c, h, "hidden_size"),
                                             norm (model, &c, model->ffn_size, "intermediate_size"),
                                             "intermediate_size"),
                       "intermediate_size");
  dense_mlp = p.n_dense_layers > 0 ? ffn (model, &c, model->ffn_size, "intermediate_size") : 0;

  expert = experts = shared = router = 0;
  if (p.n_moe_layers > 0)
    {
      /* Routed experts (MixtralBlockSparseTop2MLP, DeepseekV2MLP), all alike. */
      expert = ffn (model, &c, model->expert_ffn_size, "moe_intermediate_size");
      experts = mul (&c, model->n_experts, expert, "num_local_experts");
      /* Shared experts: one MLP of n_shared_experts × their width (DeepseekV2MoE
       * builds shared_experts that way), so its biases, if any, are counted once. */
      if (model->n_shared_experts > 0)
        shared = ffn (model, &c, mul (&c, model->n_shared_experts, model->shared_expert_ffn_size,
                                      "n_shared_experts"),
                      "shared_expert_intermediate_size");
      /* Router: Mixtral's gate is Linear(hidden, experts, bias=False); DeepSeek's
       * MoEGate weight is experts × hidden; router_bias adds one per expert
       * (GptOssTopKRouter.bias, Ernie4_5_MoeStatics.e_score_correction_bias).
       * LongcatFlashTopkRouter.classifier also scores the zero experts. */
      router = linear (&c, h, add (&c, model->n_experts, model->zero_experts, "zero_expert_num"),
                       model->router_bias, "num_local_experts");
      /* Qwen2MoeSparseMoeBlock.shared_expert_gate: Linear(hidden, 1, bias=False). */
      if (model->shared_expert_gate)
        router = add (&c, router, h, "hidden_size");
      /* JetMoeMoE.bias, added to the experts' sum: counted with what every token runs. */
      if (model->moe_output_bias)
        shared = add (&c, shared, h, "hidden_size");
    }

  p.attention = mul (&c, model->n_layers, attn, "num_hidden_layers");
  p.norm = mul (&c, model->n_layers, layer_norms, "num_hidden_layers");
  /* Final norm: ln_f (GPT-2, Falcon), final_layer_norm (NeoX, OPT, Phi), norm (Llama). */
  if (model->final_norm)
    p.norm = add (&c, p.norm, norm (model, &c, h, "hidden_size"), "hidden_size");
  /* BloomModel.word_embeddings_layernorm. */
  if (model->embedding_norm)
    p.norm = add (&c, p.norm, norm (model, &c, h, "hidden_size"), "hidden_size");
  p.routed_experts = mul (&c, p.n_moe_layers, experts, "num_hidden_layers");
  p.mlp = add (&c, mul (&c, p.n_dense_layers, dense_mlp, "num_hidden_layers"),
               add (&c, p.routed_experts, mul (&c, p.n_moe_layers, shared, "num_hidden_layers"),
                    "num_hidden_layers"),
               "num_hidden_layers");
  p.router = mul (&c, p.n_moe_layers, router, "num_hidden_layers");

  /* Output layer: lm_head (embed_out in NeoX), vocab × embedding width, with a
   * bias in Phi-2; the weight is absent when tied to the token embedding. */
  p.lm_head = model->tied_embeddings ? 0 : mul (&c, model->vocab_size, embed_dim, "vocab_size");
  if (model->lm_head_bias)
    p.lm_head = add (&c, p.lm_head, model->vocab_size, "vocab_size");

  p.dense_layer = add (&c, add (&c, attn, layer_norms, "hidden_size"), dense_mlp, "intermediate_size");
  if (p.n_moe_layers > 0)
    p.moe_layer = add (&c, add (&c, attn, layer_norms, "hidden_size"),
                       add (&c, add (&c, experts, shared, "num_local_experts"), router,
                            "num_local_experts"),
                       "num_local_experts");

  p.total = p.embedding;
  p.total = add (&c, p.total, p.position_embedding, "max_position_embeddings");
  p.total = add (&c, p.total, p.attention, "num_hidden_layers");
  p.total = add (&c, p.total, p.mlp, "num_hidden_layers");
  p.total = add (&c, p.total, p.router, "num_hidden_layers");
  p.total = add (&c, p.total, p.norm, "num_hidden_layers");
  p.total = add (&c, p.total, p.lm_head, "vocab_size");

  /* A token uses experts_per_token of the n_experts routed experts of each MoE layer. */
  p.active = p.total - mul (&c, mul (&c, p.n_moe_layers, model->n_experts - model->experts_per_token,
                                     "num_local_experts"),
                            expert, "num_local_experts");
  /* JetMoeMoA: a token runs n_heads / n_kv_heads of the attention experts'
   * q and o projections. */
  if (model->attention_experts > 0)
    p.active -= mul (&c, mul (&c, model->n_layers,
                              model->attention_experts - model->n_heads / model->n_kv_heads,
                              "num_local_experts"),
                     mul (&c, 2, mul (&c, h, mul (&c, model->n_kv_heads, hr_model_head_dim (model),
                                                  "head_dim"), "head_dim"), "head_dim"),
                     "num_local_experts");
  p.non_embedding = p.total - p.embedding - p.position_embedding - p.lm_head;
  p.active_non_embedding = p.active - p.embedding - p.position_embedding - p.lm_head;

  if (c.field != NULL)
    return hr_error_set (err, HR_ERROR_OVERFLOW, c.field, 0, 0, NULL);

  *params = p;
  return HR_OK;
}

/* Appends to buf as snprintf would, keeping the would-be length in *len. */
static void append (char *buf, size_t size, size_t *len, const char *format, ...)
  __attribute__ ((format (printf, 4, 5)));

static void
append (char       *buf,
        size_t      size,
        size_t     *len,
        const char *format,
        ...)
{
  va_list args;
  int n;

  va_start (args, format);
  n = vsnprintf (*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, format, args);
  va_end (args);
  if (n > 0)
    *len += (size_t) n;
}

size_t
hr_model_describe (const HrModel *model,
                   char          *buf,
                   size_t         size)
{
  size_t len = 0;
  const char *norm_name = model->norm_kind == HR_NORM_RMSNORM ? "RMSNorm"
                          : model->norm_bias ? "LayerNorm" : "LayerNorm without bias";
  int64_t n_sliding = 0;

  if (buf != NULL && size > 0)
    buf[0] = '\0';
  else
    size = 0;

  if (model->n_experts > 0)
    {
      append (buf, size, &len, "%lld experts, %lld active, ", (long long) model->n_experts,
              (long long) model->experts_per_token);
      if (model->zero_experts > 0)
        append (buf, size, &len, "%lld zero-computation experts, ", (long long) model->zero_experts);
      if (model->n_shared_experts > 0)
        append (buf, size, &len, "%lld shared expert%s%s", (long long) model->n_shared_experts,
                model->n_shared_experts > 1 ? "s" : "",
                model->shared_expert_gate ? " with a gate" : "");
      else
        append (buf, size, &len, "no shared expert");
      if (model->first_dense_layers > 0)
        append (buf, size, &len, ", first %lld layers dense", (long long) model->first_dense_layers);
      if (model->moe_layer_freq > 1)
        append (buf, size, &len, ", MoE every %lld layers", (long long) model->moe_layer_freq);
      if (model->router_bias)
        append (buf, size, &len, ", router bias");
      append (buf, size, &len, "; ");
    }

  if (hr_model_uses_mla (model))
    append (buf, size, &len, "multi-head latent attention, kv rank %lld",
            (long long) model->kv_lora_rank);
  if (model->index_heads > 0)
    append (buf, size, &len, ", sparse-attention indexer of %lld heads, top %lld keys",
            (long long) model->index_heads, (long long) model->index_topk);
  else if (model->n_kv_heads == model->n_heads)
    append (buf, size, &len, "multi-head attention, %lld heads", (long long) model->n_heads);
  else if (model->n_kv_heads == 1)
    append (buf, size, &len, "multi-query attention, %lld heads", (long long) model->n_heads);
  else
    append (buf, size, &len, "GQA, %lld query heads over %lld kv heads",
            (long long) model->n_heads, (long long) model->n_kv_heads);
  if (model->attention_sinks)
    append (buf, size, &len, ", attention sinks");
  if (model->attention_experts > 0)
    append (buf, size, &len, ", q and o in %lld experts, %lld active",
            (long long) model->attention_experts,
            (long long) (model->n_heads / model->n_kv_heads));
  if (model->sliding_window > 0)
    {
      const char *kind = model->chunked_attention ? "chunks" : "sliding window";

      for (int64_t i = 0; i < model->n_layers; i++)
        n_sliding += hr_model_layer_is_sliding (model, i);

      if (n_sliding == model->n_layers)
        append (buf, size, &len, ", %s of %lld on every layer", kind,
                (long long) model->sliding_window);
      else
        append (buf, size, &len, ", %s of %lld on %lld of %lld layers", kind,
                (long long) model->sliding_window, (long long) n_sliding,
                (long long) model->n_layers);
    }
  if (model->qk_norm)
    append (buf, size, &len, "; q/k %s %s",
            model->qk_norm_unbiased && model->norm_kind == HR_NORM_LAYERNORM
            ? "LayerNorm without bias" : norm_name,
            model->qk_norm_full ? "over the whole width" : "per head");

  append (buf, size, &len, "; %s %s",
          model->norm_placement == HR_NORM_POST ? "post-norm"
          : model->norm_placement == HR_NORM_SANDWICH ? "sandwich" : "pre-norm", norm_name);
  if (model->parallel_block)
    append (buf, size, &len, ", attention and MLP in parallel");
  if (model->sub_norms)
    append (buf, size, &len, ", sub-norms before o_proj and down_proj");
  if (model->attention_gate)
    append (buf, size, &len, ", gated attention output");
  append (buf, size, &len, "; %s MLP%s", model->ffn_kind == HR_FFN_GATED ? "gated" : "plain",
          model->ffn_activation == HR_ACT_XIELU ? " (xIELU)" : "");
  if (model->qkv_bias || model->out_bias || model->mlp_bias)
    append (buf, size, &len, "; biases on%s%s%s", model->qkv_bias ? " q/k/v" : "",
            model->out_bias ? (model->qkv_bias ? ", output" : " output") : "",
            model->mlp_bias ? (model->qkv_bias || model->out_bias ? ", MLP" : " MLP") : "");
  else
    append (buf, size, &len, "; no linear biases");

  switch (model->positions)
    {
    case HR_POSITIONS_ROTARY:
      if (model->rotary_fraction < 1.0)
        append (buf, size, &len, "; rotary on %.0f%% of each head",
                model->rotary_fraction * 100.0);
      else
        append (buf, size, &len, "; rotary");
      break;
    case HR_POSITIONS_ALIBI:
      append (buf, size, &len, "; ALiBi");
      break;
    case HR_POSITIONS_LEARNED:
      append (buf, size, &len, "; learned positions");
      break;
    case HR_POSITIONS_NONE:
    default:
      append (buf, size, &len, "; no positions");
      break;
    }
  append (buf, size, &len, "; %s embeddings%s", model->tied_embeddings ? "tied" : "untied",
          model->embedding_norm ? ", normed" : "");
  return len;
}

