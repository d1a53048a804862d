/* hr-flops.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Matrix-product FLOPs, 2·m·n·k per product (docs/flops.md). Attention
 * counts the s×s product that eager attention computes, halved under
 * `causal`; sliding-window layers attend over at most their window.
 */
#include "hr-flops.h"
#include "hr-internal.h"

/* FLOPs of one forward pass, per component, for `tokens` tokens of which
 * each attends over `span_global` keys in global layers and `span_sliding`
 * keys in windowed ones (both are key counts summed over the queries,
 * divided by the number of queries). */
typedef struct
{
  double tokens;         /* query tokens */
  double span_global;    /* mean keys per query, global layers */
  double span_sliding;   /* mean keys per query, sliding-window layers */
  double lm_tokens;      /* tokens whose logits are computed */
} Pass;

/* Layers for which hr_model_layer_is_sliding() holds, without visiting each. */
static int64_t
sliding_layers (const HrModel *model)
{
  int64_t p = model->sliding_window_period;
  int64_t n = model->n_layers;
  int64_t first = model->first_sliding_layer < n ? model->first_sliding_layer : n;
  int64_t off = model->sliding_window_offset;

  if (model->sliding_window <= 0)
    return 0;
  if (p <= 1)
    return n - first;
  /* layer i is global when (i + offset) % p == p − 1: floor((n + offset) / p)
   * of those below n */
  return (n - first) - ((n + off) / p - (first + off) / p);
}

/* The share of a component's forward FLOPs that Megatron's selective
 * recompute_modules rerun (the attention core is handled apart): mlp the
 * dense MLPs, moe the MoE layers' experts (shared ones too) and routers,
 * shared_experts the shared experts alone, mla_up_proj MLA's q_b and kv_b
 * up projections. layernorm and moe_act rerun no product. */
static double
selective_share (const HrModel    *m,
                 const HrParams   *params,
                 unsigned          modules,
                 HrFlopsComponent  c)
{
  double n_moe = (double) params->n_moe_layers;
  double n_dense = (double) m->n_layers - n_moe;

  if (c == HR_FLOPS_MLP)
    {
      double dense = (double) m->ffn_size * n_dense;
      double routed = n_moe * (double) m->experts_per_token * (double) m->expert_ffn_size;
      double shared = n_moe * (double) m->n_shared_experts * (double) m->shared_expert_ffn_size;
      double rerun = ((modules & HR_RECOMPUTE_MLP) ? dense : 0)
                     + ((modules & HR_RECOMPUTE_MOE) ? routed : 0)
                     + ((modules & (HR_RECOMPUTE_MOE | HR_RECOMPUTE_SHARED_EXPERTS)) ? shared : 0);

      return dense + routed + shared > 0 ? rerun / (dense + routed + shared) : 0;
    }
  if (c == HR_FLOPS_ROUTER && (modules & HR_RECOMPUTE_MOE))
    {
      double moe = n_moe * (double) (m->n_experts + m->zero_experts);
      double all = moe + (double) m->attention_experts * (double) m->n_layers;

      return all > 0 ? moe / all : 0;
    }
  if (c == HR_FLOPS_ATTN_PROJ && (modules & HR_RECOMPUTE_MLA_UP_PROJ) && hr_model_uses_mla (m))
    {
      double h = (double) m->hidden_size, heads = (double) m->n_heads;
      double q_head = (double) (m->qk_nope_head_dim + m->qk_rope_head_dim);
      double ql = (double) m->q_lora_rank, kl = (double) m->kv_lora_rank;
      double up = (m->q_lora_rank > 0 ? ql * heads * q_head : 0)
                  + kl * heads * (double) (m->qk_nope_head_dim + m->v_head_dim);
      double all = (m->q_lora_rank > 0 ? h * ql + ql * heads * q_head : h * heads * q_head)
                   + h * (kl + (double) m->qk_rope_head_dim)
                   + kl * heads * (double) (m->qk_nope_head_dim + m->v_head_dim);

      if (m->index_heads > 0)
        all += ql * (double) (m->index_heads * m->index_head_dim)
               + h * (double) (m->index_head_dim + m->index_heads);
      return up / all;
    }
  return 0;
}

/* Share of a component's forward that torchtitan's op-level SAC recomputes:
 * the k projection of q, k, v (by output width), the output projection, one
 * of three gated MLP matrices (w3) or one of two plain ones (fc2). */
static double
op_sac_share (const HrModel    *model,
              HrFlopsComponent  c)
{
  double d = (double) hr_model_head_dim (model);
  double q = (double) model->n_heads * d, kv = (double) model->n_kv_heads * d;

  switch (c)
    {
    case HR_FLOPS_ATTN_PROJ:
      return hr_model_uses_mla (model) ? 0.5 : kv / (q + 2 * kv);
    case HR_FLOPS_ATTN_OUT:
      return 1;
    case HR_FLOPS_MLP:
      return model->ffn_kind == HR_FFN_GATED ? 1.0 / 3 : 0.5;
    case HR_FLOPS_ATTN_SCORES:
    case HR_FLOPS_ATTN_OVER_V:
    case HR_FLOPS_ROUTER:
    case HR_FLOPS_LM_HEAD:
    default:
      return 0;
    }
}

/* Mean keys per query over a sequence of s queries: s for the full s×s
 * product, s/2 when causal (Megatron's halving); a window w caps it at w
 * (full) or at the band s·w − w²/2 over s queries (causal). */
static double
mean_span (double s,
           bool   causal,
           double window)
{
  bool capped = window > 0 && window < s;

  if (!causal)
    return capped ? window : s;
  if (!capped)
    return s / 2;
  return (s * window - window * window / 2) / s;
}

static void
forward_pass (const HrModel  *m,
              const HrParams *params,
              const Pass     *pass,
              double          out[HR_FLOPS_N_COMPONENTS])
{
  double h = (double) m->hidden_size;
  double heads = (double) m->n_heads;
  double layers = (double) m->n_layers;
  double n_moe = (double) params->n_moe_layers;
  double n_dense = layers - n_moe;
  double n_sliding = (double) sliding_layers (m);
  double t = pass->tokens;
  double qk_dim, v_dim, proj, mats, span_sum, embed_dim;

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    out[c] = 0;

  if (hr_model_uses_mla (m))
    {
      /* DeepseekV2/V3Attention as written in transformers: q_proj or
       * q_a_proj + q_b_proj, kv_a_proj_with_mqa, kv_b_proj (no absorption). */
      double q_head = (double) (m->qk_nope_head_dim + m->qk_rope_head_dim);
      double ql = (double) m->q_lora_rank;
      double kl = (double) m->kv_lora_rank;

      proj = m->q_lora_rank > 0 ? h * ql + ql * heads * q_head : h * heads * q_head;
      proj += h * (kl + (double) m->qk_rope_head_dim);
      proj += kl * heads * (double) (m->qk_nope_head_dim + m->v_head_dim);
      /* DeepseekV32Indexer's wq_b, wk and weights_proj. */
      if (m->index_heads > 0)
        proj += ql * (double) (m->index_heads * m->index_head_dim)
                + h * (double) (m->index_head_dim + m->index_heads);
      qk_dim = q_head;
      v_dim = (double) m->v_head_dim;
    }
  else
    {
      double hd = (double) hr_model_head_dim (m);

      proj = h * heads * hd + 2 * h * (double) m->n_kv_heads * hd;
      /* AFMoE's gate_proj runs beside q, k and v. */
      if (m->attention_gate)
        proj += h * heads * hd;
      qk_dim = v_dim = hd;
    }

  out[HR_FLOPS_ATTN_PROJ] = 2 * t * proj * layers;
  out[HR_FLOPS_ATTN_OUT] = 2 * t * heads * v_dim * h * layers;
  /* QKᵀ: per head, queries × keys × qk_dim; attention over V likewise with v_dim. */
  span_sum = pass->span_global * (layers - n_sliding) + pass->span_sliding * n_sliding;
  out[HR_FLOPS_ATTN_SCORES] = 2 * t * heads * qk_dim * span_sum;
  /* The indexer scores every cached key with each of its heads (q·k) and
   * sums the heads by their weights; transformers' eager and SDPA paths
   * then run the attention over all keys, masked to its top-k. */
  if (m->index_heads > 0)
    out[HR_FLOPS_ATTN_SCORES] += 2 * t * (double) m->index_heads
                                 * ((double) m->index_head_dim + 1) * span_sum;
  out[HR_FLOPS_ATTN_OVER_V] = 2 * t * heads * v_dim * span_sum;

  mats = m->ffn_kind == HR_FFN_GATED ? 3 : 2;
  out[HR_FLOPS_MLP] = 2 * t * mats * h * (double) m->ffn_size * n_dense;
  if (n_moe > 0)
    {
      /* a token runs experts_per_token routed experts and every shared one */
      double width = (double) m->experts_per_token * (double) m->expert_ffn_size
                     + (double) m->n_shared_experts * (double) m->shared_expert_ffn_size;

      out[HR_FLOPS_MLP] += 2 * t * mats * h * width * n_moe;
      /* the router also scores the zero experts (LongCat-Flash) */
      out[HR_FLOPS_ROUTER] = 2 * t * h * (double) (m->n_experts + m->zero_experts) * n_moe;
    }
  /* JetMoeMoA's router, in every layer; its q and o above are the experts a
   * token runs (n_heads of them). */
  if (m->attention_experts > 0)
    out[HR_FLOPS_ROUTER] += 2 * t * h * (double) m->attention_experts * layers;

  /* The output layer, and OPT's project_in and project_out when present. */
  embed_dim = m->embed_proj_dim > 0 ? (double) m->embed_proj_dim : h;
  out[HR_FLOPS_LM_HEAD] = 2 * pass->lm_tokens * embed_dim * (double) m->vocab_size;
  if (m->embed_proj_dim > 0 && m->embed_proj_dim != m->hidden_size)
    out[HR_FLOPS_LM_HEAD] += 2 * (t + pass->lm_tokens) * embed_dim * h;
}

HrStatus
hr_flops_training (const HrModel        *model,
                   const HrFlopsOptions *options,
                   HrFlops              *flops,
                   HrError              *err)
{
  HrParams params;
  HrStatus status;

  status = hr_model_params (model, &params, err);
  if (status != HR_OK)
    return status;
  return hr_flops_training_counted (model, &params, options, flops, err);
}

HrStatus
hr_flops_training_counted (const HrModel        *model,
                           const HrParams       *params,
                           const HrFlopsOptions *options,
                           HrFlops              *flops,
                           HrError              *err)
{
  HrFlops f = { 0 };
  Pass pass;
  double fwd[HR_FLOPS_N_COMPONENTS], adapter[HR_FLOPS_N_COMPONENTS];
  HrFinetuneGrad grad[HR_FLOPS_N_COMPONENTS];
  HrFinetune full;
  double s, window, n, l, q, covered;
  int64_t tokens;

  if (options->seq_len <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "seq_len", options->seq_len, 0, NULL);
  if (options->micro_batch <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "micro_batch", options->micro_batch, 0, NULL);
  if (options->attention != HR_ATTENTION_EAGER && options->attention != HR_ATTENTION_FLASH)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "attention", options->attention, 0,
                         "eager or flash");
  if (options->recompute != HR_RECOMPUTE_NONE && options->recompute != HR_RECOMPUTE_SELECTIVE
      && options->recompute != HR_RECOMPUTE_FULL
      && options->recompute != HR_RECOMPUTE_OP_SELECTIVE)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute", options->recompute, 0,
                         "none, selective, full or op-selective");
  if (!(options->recompute_skipped >= 0 && options->recompute_skipped <= 1))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute_skipped", 0, 0,
                         "a share from 0 to 1");
  covered = 1 - options->recompute_skipped;
  if (__builtin_mul_overflow (options->seq_len, options->micro_batch, &tokens))
    return hr_error_set (err, HR_ERROR_OVERFLOW, "micro_batch", options->micro_batch, 0, NULL);

  hr_finetune_init (&full);
  s = (double) options->seq_len;
  window = (double) model->sliding_window;
  pass.tokens = (double) tokens;
  pass.span_global = mean_span (s, options->causal, 0);
  pass.span_sliding = mean_span (s, options->causal, window);
  pass.lm_tokens = (double) tokens;
  forward_pass (model, params, &pass, fwd);
  /* Fine-tuning: frozen matrices skip their weight gradient, frozen bottom
   * layers their whole backward, adapters add their own products. */
  if (options->finetune != NULL)
    hr_finetune_flops (model, options->finetune, pass.tokens, HR_FLOPS_N_COMPONENTS, grad,
                       adapter);
  else
    hr_finetune_flops (model, &full, pass.tokens, HR_FLOPS_N_COMPONENTS, grad, adapter);

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    {
      HrFlopsPart *part = &f.component[c];
      bool attention_core = c == HR_FLOPS_ATTN_SCORES || c == HR_FLOPS_ATTN_OVER_V;

      part->forward = fwd[c] + adapter[c];
      /* Each product's backward computes the gradient of both operands:
       * twice its forward (Kaplan et al. 2020, §2.1; Narayanan et al. 2021, §5.1);
       * a frozen weight's product only its input's (docs/training.md, Fine-tuning). */
      part->backward = fwd[c] * (grad[c].input_grad + grad[c].weight_grad) + 2 * adapter[c];
      /* Full recomputation runs each layer's forward again (not the head);
       * selective reruns QKᵀ and attention over V (Korthikanti et al. 2022,
       * §5); flash attention recomputes QKᵀ in its backward (Dao et al.
       * 2022, Alg. 4), also after a full recomputation. */
      /* Layers the mode leaves out (options->recompute_skipped) rerun
       * nothing of it. */
      if (options->recompute == HR_RECOMPUTE_FULL && c != HR_FLOPS_LM_HEAD)
        part->recompute += covered * part->forward * grad[c].input_grad;
      if (options->recompute == HR_RECOMPUTE_SELECTIVE && attention_core
          && (options->recompute_modules & HR_RECOMPUTE_CORE_ATTN))
        part->recompute += (covered + (options->attention == HR_ATTENTION_FLASH
                                       && c == HR_FLOPS_ATTN_SCORES ? 1 - covered : 0))
                           * fwd[c] * grad[c].input_grad;
      else if (options->attention == HR_ATTENTION_FLASH && c == HR_FLOPS_ATTN_SCORES)
        part->recompute += fwd[c] * grad[c].input_grad;
      /* Megatron's other selective modules rerun their share of the
       * component (selective_share()). */
      if (options->recompute == HR_RECOMPUTE_SELECTIVE && !attention_core)
        part->recompute += covered * fwd[c]
                           * selective_share (model, params, options->recompute_modules,
                                              (HrFlopsComponent) c)
                           * grad[c].input_grad;
      /* torchtitan's op-level SAC reruns every second aten.mm of a layer: of
       * wq, wk, wv, wo, w1, w3, w2 the products wk, wo and w3 (a plain MLP:
       * fc2), and no attention core (SDPA outputs are kept). */
      if (options->recompute == HR_RECOMPUTE_OP_SELECTIVE)
        part->recompute += covered * fwd[c] * op_sac_share (model, (HrFlopsComponent) c)
                           * grad[c].input_grad;

      f.forward += part->forward;
      f.backward += part->backward;
      f.recompute += part->recompute;
    }

  f.tokens = tokens;
  f.total = f.forward + f.backward + f.recompute;
  f.per_token = f.total / (double) tokens;
  f.model_flops = f.forward + f.backward;
  /* 6N per token (Kaplan et al. 2020, §2.1), N the active non-embedding
   * parameters; PaLM's model FLOPs add 12·L·H·Q·T for attention
   * (Chowdhery et al. 2022, App. B). */
  n = (double) params->active_non_embedding;
  l = (double) model->n_layers;
  q = hr_model_uses_mla (model) ? (double) (model->qk_nope_head_dim + model->qk_rope_head_dim)
                                : (double) hr_model_head_dim (model);
  f.six_n_per_token = 6 * n;
  f.palm_per_token = 6 * n + 12 * l * (double) model->n_heads * q * s;

  *flops = f;
  return HR_OK;
}

static double
sum (const double parts[HR_FLOPS_N_COMPONENTS])
{
  double total = 0;

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    total += parts[c];
  return total;
}

double
hr_flops_prefill_components (const HrModel *model,
                             int64_t        batch,
                             int64_t        prompt,
                             bool           causal,
                             double         parts[HR_FLOPS_N_COMPONENTS])
{
  HrParams params;
  Pass pass;

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    parts[c] = 0;
  if (hr_model_params (model, &params, NULL) != HR_OK || batch <= 0 || prompt <= 0)
    return 0;
  pass.tokens = (double) batch * (double) prompt;
  pass.span_global = mean_span ((double) prompt, causal, 0);
  pass.span_sliding = mean_span ((double) prompt, causal, (double) model->sliding_window);
  /* generation needs the logits of the last position only */
  pass.lm_tokens = (double) batch;
  forward_pass (model, &params, &pass, parts);
  return sum (parts);
}

double
hr_flops_prefill (const HrModel *model,
                  int64_t        batch,
                  int64_t        prompt,
                  bool           causal)
{
  double parts[HR_FLOPS_N_COMPONENTS];

  return hr_flops_prefill_components (model, batch, prompt, causal, parts);
}

double
hr_flops_decode_token_components (const HrModel *model,
                                  int64_t        batch,
                                  int64_t        context,
                                  double         parts[HR_FLOPS_N_COMPONENTS])
{
  double window = (double) model->sliding_window;
  HrParams params;
  Pass pass;

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    parts[c] = 0;
  if (hr_model_params (model, &params, NULL) != HR_OK || batch <= 0 || context <= 0)
    return 0;
  pass.tokens = (double) batch;
  pass.span_global = (double) context;
  pass.span_sliding = window > 0 && window < (double) context ? window : (double) context;
  pass.lm_tokens = (double) batch;
  forward_pass (model, &params, &pass, parts);
  return sum (parts);
}

double
hr_flops_decode_token (const HrModel *model,
                       int64_t        batch,
                       int64_t        context)
{
  double parts[HR_FLOPS_N_COMPONENTS];

  return hr_flops_decode_token_components (model, batch, context, parts);
}

const char *
hr_flops_component_name (HrFlopsComponent component)
{
  switch (component)
    {
    case HR_FLOPS_ATTN_PROJ:
      return "attention_projections";
    case HR_FLOPS_ATTN_SCORES:
      return "attention_scores";
    case HR_FLOPS_ATTN_OVER_V:
      return "attention_over_v";
    case HR_FLOPS_ATTN_OUT:
      return "attention_output";
    case HR_FLOPS_MLP:
      return "mlp";
    case HR_FLOPS_ROUTER:
      return "router";
    case HR_FLOPS_LM_HEAD:
      return "lm_head";
    case HR_FLOPS_N_COMPONENTS:
    default:
      return NULL;
    }
}

double
hr_flops_for_tokens (const HrFlops *step,
                     double         tokens)
{
  return tokens > 0 ? step->per_token * tokens : 0;
}

double
hr_flops_chinchilla_tokens (const HrParams *params)
{
  /* Hoffmann et al. 2022 (Chinchilla), Table 3: about 20 tokens per parameter. */
  return 20.0 * (double) params->total;
}
