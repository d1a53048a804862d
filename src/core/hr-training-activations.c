/* hr-training-activations.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Activations: what a layer, the embedding and the loss save for the
 * backward pass, tensor by tensor (docs/training.md).
 *
 * Sources, cited where used:
 * [SP]    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 *         Transformer Models", arXiv 2205.05198.
 */
#include "hr-training.h"
#include "hr-internal.h"

#include <math.h>
#include <string.h>

void
hr_training_act_shape (const HrModel    *model,
                       const HrTraining *t,
                       HrActShape       *a)
{
  double tp = (double) t->tensor_parallel;
  double cp = (double) t->context_parallel;
  double kv = (double) hr_training_kv_heads (model);
  bool autocast = hr_training_autocast (t);

  a->batch = (double) t->micro_batch;
  a->s_k = (double) t->seq_len;
  a->s_q = a->s_k / cp;
  a->tokens = a->batch * a->s_q;
  a->h = (double) model->hidden_size;
  a->h_rep = t->sequence_parallel ? a->h / tp : a->h;
  a->tokens_rep = t->sequence_parallel ? a->tokens / tp : a->tokens;
  /* Megatron's sequence-parallel linears save their input split and gather
   * it again in the backward ([SP] §4.2.2; tensor_parallel/layers.py,
   * LinearWithGradAccumulationAndAsyncCommunication). Under DTensor
   * (torchtitan's parallelize_llama.py) PrepareModuleInput redistributes the
   * norm's output from Shard(1) to Replicate before wq, wk, wv and before w1,
   * w3, which then save the gathered tensor. */
  a->h_proj = t->dtensor_tp && t->sequence_parallel ? a->h : a->h_rep;
  a->heads = (double) model->n_heads / tp;
  a->kv_heads = kv >= tp ? kv / tp : 1;
  a->d_qk = (double) hr_training_head_dim_qk (model);
  a->d_v = (double) hr_training_head_dim_v (model);

  /* dtypes: fp32 everywhere in fp32; 16-bit otherwise, except that autocast
   * keeps the residual stream and norms in fp32 and casts each projection's
   * input; Transformer Engine saves fp8 casts of the projection inputs,
   * torchao the 16-bit inputs (matmul_with_hp_or_float8_args). */
  a->compute = t->precision == HR_PRECISION_FP32 ? 4 : 2;
  a->residual = (t->precision == HR_PRECISION_FP32 || autocast) ? 4 : 2;
  a->norm_input = a->residual;
  a->input = t->precision == HR_PRECISION_FP8_MIXED && !hr_training_torchao_fp8 (t)
             ? 1 : a->compute;
  a->mask = t->dropout ? (double) t->dropout_mask_bytes : 0;

  /* Under autocast q, k and v (separate modules, as in the HF Llama family)
   * each save their own 16-bit cast of the fp32 norm output; gate and up too. */
  a->attn_casts = autocast ? 3 : 1;
  a->mlp_casts = autocast ? (model->ffn_kind == HR_FFN_GATED ? 2 : 1) : 1;
  if (model->parallel_block && model->norms_per_layer == 1 && !autocast)
    a->mlp_casts = 0;
  /* MPT's LPLayerNorm (low_precision_layernorm) casts its input to 16 bits
   * and normalises with autocast off: it saves the 16-bit copy, and the
   * projections after it save its 16-bit output once, uncast
   * (llmfoundry/models/layers/norm.py, LPLayerNorm.forward). */
  if (autocast && t->norm_kernel == HR_NORM_KERNEL_LOW_PRECISION)
    {
      a->norm_input = a->compute;
      a->attn_casts = 1;
      a->mlp_casts = model->parallel_block && model->norms_per_layer == 1 ? 0 : 1;
    }

  /* An eager RMSNorm (transformers LlamaRMSNorm, torchtune RMSNorm) runs
   * x.float(), pow, mean, rsqrt and two muls: pow and mul save the fp32 copy
   * of the input, the weight's mul its normalised input cast back; a fused
   * kernel saves the input and the statistics. Both save one input-sized
   * tensor in the input dtype, so eager adds 4 bytes per element.
   * torch.compile of a layer fuses the pointwise chain: the partitioner
   * recomputes the fp32 copy (torch/_functorch/partitioners.py,
   * min_cut_rematerialization_partition), so the compiled layer's norms save
   * what a fused kernel saves. torchtune and torchtitan compile each
   * transformer block, not the final norm. */
  a->head_norm_fp32 = t->norm_kernel == HR_NORM_KERNEL_EAGER ? 4 : 0;
  a->norm_fp32 = t->compile ? 0 : a->head_norm_fp32;
  a->param = (t->precision == HR_PRECISION_FP32 || autocast) ? 4 : 2;
}

/* Norm statistics: LayerNorm saves mean and rstd, RMSNorm rstd, in fp32. */
static double
norm_stats (const HrModel    *model,
            const HrActShape *a)
{
  return a->tokens_rep * 4 * (model->norm_kind == HR_NORM_LAYERNORM ? 2 : 1);
}

/* One MLP of width `ffn` (before TP) run on `tokens` tokens:
 * plain: fc output (activation input) + activation output (ReLU², as
 * ReLUSquaredActivation runs it, saves the ReLU's output instead of its
 * input: the same size);
 * gated: gate output, its activation, up output, and their product ([SP] §4.1
 * counts 8sbh + 8sbh for the GPT 4h MLP in 16 bits). */
static double
mlp_bytes (const HrModel    *model,
           const HrTraining *t,
           const HrActShape *a,
           int64_t           ffn,
           double            tokens)
{
  double f = (double) ffn / (double) t->tensor_parallel;
  double act = 0;

  /* Eager xIELU (XIELUActivation._xielu_python, transformers activations.py)
   * saves alpha_p·x, expm1(min(x, eps)) and that less x besides its input,
   * and the x > 0 mask of torch.where (1 byte); compiled, the partitioner
   * recomputes them from x as it does a norm's chain. */
  if (model->ffn_activation == HR_ACT_XIELU && !t->compile)
    act = 3 * a->compute + 1;
  /* A fused SwiGLU (Megatron's bias_swiglu_impl, Transformer Engine's
   * LayerNormMLP, Liger's LigerSiLUMulFunction) saves its two inputs and
   * recomputes silu(gate) in the backward. Eager, silu's output is saved for
   * the product's backward too; torchtune's compiled runs measure as if
   * compile kept it (real-runs.json, "+ Compile": 51.0 GiB, 45.2 without it),
   * so compile alone does not drop it. */
  if (model->ffn_kind == HR_FFN_GATED)
    return tokens * f * ((t->glu_kernel == HR_GLU_KERNEL_EAGER ? 3 : 2) * a->compute + a->input
                         + act);
  return tokens * f * (a->compute + a->input + act);
}

/* Fine-tuning: what frozen linears no longer save and what adapters add
 * (hr_finetune_layer_activations). */
static HrFinetuneLayerShape
finetune_shape (const HrModel    *model,
                const HrTraining *t,
                const HrActShape *a,
                bool              is_moe)
{
  double tp = (double) t->tensor_parallel;

  return (HrFinetuneLayerShape) {
    .tokens = a->tokens,
    .h = a->h_rep,
    .h_full = a->h,
    .tp = tp,
    .o_in = a->heads * a->d_v,
    .ffn = (double) model->ffn_size / tp,
    .input = a->input,
    .compute = a->compute,
    .attn_casts = a->attn_casts,
    .mlp_casts = a->mlp_casts,
    .compute_dtype_bytes = a->compute,
    .kernel_saves_o = t->attention == HR_ATTENTION_FLASH,
    /* An eager norm's "residual" bytes are the normalised input its weight's
     * multiply saves (hr_training_act_shape); compiled or fused, the input itself. */
    .norm_weight_input = a->norm_fp32 > 0 ? (double) model->norms_per_layer * a->tokens
                                            * a->h_rep * a->residual : 0,
    .is_moe = is_moe,
    .routed_tokens = (double) model->experts_per_token * a->tokens,
    .expert_ffn = (double) model->expert_ffn_size / tp,
    .shared_ffn = (double) (model->n_shared_experts * model->shared_expert_ffn_size) / tp,
  };
}

static double
finetune_layer_bytes (const HrModel    *model,
                      const HrTraining *t,
                      const HrActShape *a,
                      bool              is_moe)
{
  HrFinetuneLayerShape shape;

  /* Only adapters add to what a layer saves. */
  if (!hr_finetune_is_adapter (&t->finetune))
    return 0;
  shape = finetune_shape (model, t, a, is_moe);
  return hr_finetune_layer_activations (model, &t->finetune, &shape);
}

/* One layer of one micro-batch as saved for the backward pass under
 * `recompute`, tensor by tensor after [SP] §4.1 (Eq. 1), for the real
 * architecture. */
static double
layer_bytes (const HrModel    *model,
             const HrTraining *t,
             const HrActShape *a,
             bool              is_moe,
             HrRecompute       recompute)
{
  double probs = a->batch * a->heads * a->s_q * a->s_k;
  double q = a->tokens * a->heads * a->d_qk * a->compute;
  double o = a->tokens * a->heads * a->d_v;
  double bytes = 0;
  /* Megatron's selective modules (hr-flops.h) */
  unsigned rerun = recompute == HR_RECOMPUTE_SELECTIVE ? t->recompute_modules : 0;
  bool up_proj = (rerun & HR_RECOMPUTE_MLA_UP_PROJ) && hr_model_uses_mla (model);

  /* Full recomputation keeps the layer input only ([SP] §5: 2sbh in 16 bits,
   * split over TP under SP). */
  if (recompute == HR_RECOMPUTE_FULL)
    return a->tokens_rep * a->h * a->residual;

  /* torchtitan's op-level SAC (torchtitan/distributed/activation_checkpoint.py,
   * _custom_policy): the layer input, the outputs of aten.mm except every
   * second one — in a Llama block wq, wk, wv, wo, w1, w3, w2 run in that
   * order, so wq, wv, w1 and w2 are kept (a plain MLP: fc1) — and the SDPA
   * outputs (output and log-sum-exp; eager attention runs bmm, not in the
   * save list). Routed experts run grouped GEMMs, not aten.mm: recomputed. */
  if (recompute == HR_RECOMPUTE_OP_SELECTIVE)
    {
      double f = (double) model->ffn_size / (double) t->tensor_parallel;

      bytes = a->tokens_rep * a->h * a->residual;
      bytes += q + a->tokens * a->kv_heads * a->d_v * a->compute;
      if (t->attention == HR_ATTENTION_FLASH)
        bytes += o * a->compute + a->batch * a->heads * a->s_q * 4;
      if (!is_moe)
        bytes += a->tokens * f * a->compute
                 + (model->ffn_kind == HR_FFN_GATED ? a->tokens * a->h * a->compute : 0);
      return bytes;
    }

  /* Norm inputs and statistics; projection inputs (the norm outputs). */
  bytes += (double) model->norms_per_layer
           * (a->tokens * a->h_rep * (a->norm_input + a->norm_fp32) + norm_stats (model, a));
  /* layernorm discards a norm's output, which its projections saved, and
   * rebuilds it for the backward; only a norm that is its own module: with
   * Transformer Engine's fused norms (LayerNormLinear) that is the MoE
   * layers' pre-MLP norm, whose output feeds the router and the dispatch
   * (megatron/core/transformer/transformer_layer.py: not for an IdentityOp
   * norm). */
  if (!(rerun & HR_RECOMPUTE_LAYERNORM))
    bytes += (a->attn_casts + a->mlp_casts) * a->tokens * a->h_proj * a->input;
  else if (t->norm_kernel == HR_NORM_KERNEL_FUSED)
    bytes += (a->attn_casts + (is_moe ? 0 : a->mlp_casts)) * a->tokens * a->h_proj * a->input;

  /* Attention core: q after the rotary embedding, k and v. mla_up_proj
   * discards them (the up projections' outputs and the rotary embedding)
   * and keeps the latents they are rebuilt from: q_a's and kv_a's outputs. */
  if (up_proj)
    {
      q = 0;
      bytes += a->tokens * (double) (model->q_lora_rank + model->kv_lora_rank
                                     + model->qk_rope_head_dim) * a->compute;
    }
  bytes += q;
  if (t->attention == HR_ATTENTION_FLASH)
    {
      /* FlashAttention (Dao et al. 2022, §3.1) saves q, k, v (k/v heads only),
       * the output and an fp32 log-sum-exp per head and row. A code base that
       * copies k and v to every query head first (training.expand_kv) has the
       * kernel save the copies; compiled, the partitioner saves the smaller
       * grouped tensors and copies them again in the backward
       * (torch/_functorch/partitioners.py, min_cut_rematerialization_partition). */
      if (!up_proj)
        bytes += a->tokens * (t->expand_kv && !t->compile ? a->heads : a->kv_heads)
                 * (a->d_qk + a->d_v) * a->compute;
      bytes += a->batch * a->heads * a->s_q * 4;
      bytes += o * a->compute;
      if (a->input != a->compute)
        bytes += o * a->input;
    }
  else
    {
      /* Eager attention: k and v repeated to every query head (HF repeat_kv),
       * the softmax output and, with dropout, its mask and the dropped
       * probabilities ([SP]: 2as²b + as²b + 2as²b in 16 bits). Autocast runs
       * the softmax in fp32 and saves its 16-bit cast for the product with V. */
      if (!up_proj)
        bytes += a->tokens * a->heads * (a->d_qk + a->d_v) * a->compute;
      if (!(rerun & HR_RECOMPUTE_CORE_ATTN))
        {
          bool autocast = hr_training_autocast (t);

          bytes += probs * (autocast ? 4 + a->compute : a->compute);
          if (t->dropout)
            bytes += probs * (a->mask + a->compute);
        }
      bytes += o * a->input;
    }

  /* BitNet's attn_sub_norm and ffn_sub_norm: each saves its input (what
   * o_proj and down_proj saved before) and its statistics, and the
   * projection now saves the norm's output: one more tensor of the
   * attention output's and of the gated product's size. */
  if (model->sub_norms)
    bytes += (o + a->tokens * (double) model->ffn_size / (double) t->tensor_parallel)
             * (a->input + a->norm_fp32)
             + 2 * norm_stats (model, a);

  /* AFMoE's gated attention output: the sigmoid's output (kept by it and
   * by the product's backward) and the product itself, o_proj's input now
   * that the attention output is the product's other operand. */
  if (model->attention_gate)
    bytes += o * (a->compute + a->input);

  /* JetMoeMoA, as the routed MLP experts below: its router's probabilities
   * in fp32 and each token's k copies dispatched to the experts' q
   * projections. */
  if (model->attention_experts > 0)
    bytes += a->tokens * (double) model->attention_experts * 4
             + (double) (model->n_heads / model->n_kv_heads) * a->tokens * a->h * a->input;

  /* Dropout after the attention output projection and after the MLP. */
  bytes += 2 * a->tokens * a->h_rep * a->mask;

  if (is_moe)
    {
      /* Router probabilities in fp32; each token's k copies dispatched to its
       * experts (dropless, balanced: k · tokens per rank under EP); shared
       * experts on every token. */
      double routed = (double) model->experts_per_token * a->tokens;
      /* With whole experts on fewer TP ranks (etp < tp, sequence parallel),
       * each rank dispatches its own share of the tokens; with experts split
       * over all of TP, every TP rank holds every routed copy. The expert
       * MLPs' bytes are the same either way: etp/tp of the copies at
       * ffn/etp wide. */
      double dispatched = (double) hr_training_expert_tp (t) / (double) t->tensor_parallel;

      /* moe reruns all of it from the layer's MLP input; shared_experts the
       * shared ones; moe_act discards the experts' activation output (fc2's
       * input: megatron/core/transformer/moe/experts.py) and rebuilds it. */
      if (!(rerun & HR_RECOMPUTE_MOE))
        {
          bytes += a->tokens * (double) model->n_experts * 4;
          bytes += routed * dispatched * a->h * a->input;
          bytes += mlp_bytes (model, t, a, model->expert_ffn_size, routed);
          if (rerun & HR_RECOMPUTE_MOE_ACT)
            bytes -= routed * (double) model->expert_ffn_size / (double) t->tensor_parallel
                     * a->input;
          if (!(rerun & HR_RECOMPUTE_SHARED_EXPERTS))
            bytes += mlp_bytes (model, t, a,
                                model->n_shared_experts * model->shared_expert_ffn_size, a->tokens);
        }
    }
  else if (!(rerun & HR_RECOMPUTE_MLP))
    bytes += mlp_bytes (model, t, a, model->ffn_size, a->tokens);
  return bytes + finetune_layer_bytes (model, t, a, is_moe);
}

void
hr_training_layer_kinds (const HrModel    *model,
                         const HrTraining *training,
                         const HrActShape *a,
                         HrLayerKinds     *kinds)
{
  int n_kinds = model->n_experts > 0 ? 2 : 1;

  memset (kinds, 0, sizeof *kinds);
  for (int is_moe = 0; is_moe < n_kinds; is_moe++)
    {
      kinds->saved[is_moe] = layer_bytes (model, training, a, is_moe, training->recompute);
      kinds->full[is_moe] = training->recompute == HR_RECOMPUTE_NONE
                            ? kinds->saved[is_moe]
                            : layer_bytes (model, training, a, is_moe, HR_RECOMPUTE_NONE);
      /* Full recomputation as reentrant checkpointing runs it (the Hugging
       * Face default): the forward without a graph keeps nothing, and the
       * rerun's graph goes with the layer's backward. */
      if (training->recompute != HR_RECOMPUTE_FULL)
        {
          HrFinetuneLayerShape shape = finetune_shape (model, training, a, is_moe);

          kinds->held[is_moe] = hr_finetune_layer_held_inputs (model, &training->finetune, &shape);
        }
    }
}

/* The first layer inside autograd's graph: the layers outside it
 * (hr_finetune_layer_outside_graph) are a prefix, found by bisection rather
 * than a walk over the layers. */
int64_t
hr_training_first_layer_in_graph (const HrTraining *training,
                                  int64_t           n_layers)
{
  int64_t lo = 0, hi = n_layers;

  /* Most often there is no such prefix. */
  if (!hr_finetune_layer_outside_graph (&training->finetune, 0))
    return 0;
  while (lo < hi)
    {
      int64_t mid = lo + (hi - lo) / 2;

      if (hr_finetune_layer_outside_graph (&training->finetune, mid))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* What chunk j of rank `stage` saves for one micro-batch in its layers
 * (count[] gets its layers of each kind). Megatron's --recompute-num-layers
 * N (block method): the first N layers of each model chunk run under the
 * recompute mode, the others keep everything
 * (megatron/core/transformer/transformer_block.py, _checkpointed_forward).
 * Identical layers once, times their count: never a walk over the layers. */
double
hr_training_chunk_layer_bytes (const HrModel      *model,
                               const HrTraining   *training,
                               const HrLayerKinds *kinds,
                               int64_t             graph_start,
                               int64_t             stage,
                               int64_t             j,
                               int64_t             count[2])
{
  HrLayerCounts all, recomputed, kept;
  int64_t first, chunk = hr_training_stage_chunk (training, model->n_layers, stage, j, &first);
  int64_t last = first + chunk;
  /* Layers outside autograd's graph (frozen) save nothing. */
  int64_t from = graph_start > first ? (graph_start < last ? graph_start : last) : first;
  int64_t split = training->recompute_layers > 0 && training->recompute_layers < chunk
                  ? first + training->recompute_layers : last;
  /* torchtitan's layer SAC (activation_checkpoint.py, ac_freq): every
   * k-th block of the model is checkpointed, counting from 1, so layers
   * i with (i + 1) mod k = 0: floor(last / k) − floor(from / k) of
   * [from, last), shared among the layer kinds in proportion. */
  double every = 1, bytes = 0;

  hr_model_count_layers (model, first, last, &all);
  /* Most often every layer of the chunk is in the graph and recomputed alike. */
  if (from == first && split == last)
    {
      recomputed = all;
      memset (&kept, 0, sizeof kept);
    }
  else
    {
      hr_model_count_layers (model, from, split, &recomputed);
      hr_model_count_layers (model, from > split ? from : split, last, &kept);
    }
  if (training->recompute_every > 1 && last > from)
    every = (double) (last / training->recompute_every - from / training->recompute_every)
            / (double) (last - from);
  for (int is_moe = 0; is_moe < 2; is_moe++)
    {
      double rec = (double) (recomputed.n[is_moe][0] + recomputed.n[is_moe][1]);
      double keep = (double) (kept.n[is_moe][0] + kept.n[is_moe][1]);

      count[is_moe] += all.n[is_moe][0] + all.n[is_moe][1];
      bytes += every * rec * kinds->saved[is_moe]
               + ((1 - every) * rec + keep) * kinds->full[is_moe];
    }
  return bytes;
}

/* hr_training_activations() for a validated setting and its stage in range. */
void
hr_training_stage_activations (const HrModel         *model,
                               const HrTraining      *training,
                               const HrActShape      *a,
                               const HrLayerKinds    *kinds,
                               int64_t                stage,
                               HrTrainingActivations *act)
{
  int64_t pp = training->pipeline_parallel;
  double tp = (double) training->tensor_parallel;
  int64_t count[2] = { 0, 0 };
  int64_t graph_start = hr_training_first_layer_in_graph (training, model->n_layers);
  double layers_total = 0;

  memset (act, 0, sizeof *act);
  for (int64_t j = 0; j < training->virtual_stages; j++)
    layers_total += hr_training_chunk_layer_bytes (model, training, kinds, graph_start, stage, j,
                                                   count);
  act->layers = count[0] + count[1];
  for (int is_moe = 0; is_moe < 2; is_moe++)
    if (count[is_moe] > 0)
      {
        if (kinds->saved[is_moe] > act->per_layer)
          act->per_layer = kinds->saved[is_moe];
        if (kinds->full[is_moe] > act->per_layer_full)
          act->per_layer_full = kinds->full[is_moe];
        if (kinds->held[is_moe] > act->held_per_layer)
          act->held_per_layer = kinds->held[is_moe];
        act->held_inputs += (double) count[is_moe] * kinds->held[is_moe];
      }

  /* Token ids (int64), learned position ids, the embedding dropout mask. The
   * embedding output itself is the first layer's input, counted there. */
  if (stage == 0)
    act->embedding = a->tokens * 8
                     + (model->positions == HR_POSITIONS_LEARNED ? a->s_q * 8 : 0)
                     + a->tokens * a->h_rep * a->mask;

  /* Final norm input and statistics, the LM head input (gathered to full
   * width), the fp32 log-probabilities of the cross-entropy loss (split over
   * the vocabulary by TP, Megatron's vocab-parallel loss) and int64 labels. */
  if (stage == pp - 1)
    {
      double vocab = ceil ((double) model->vocab_size / tp);
      double logits = a->tokens * vocab;
      double chunks = (double) training->loss_chunks;
      /* torchtune's compile: True compiles the loss too (compile_loss in
       * full_finetune_single_device.py); torchtitan at 9dec370 compiles the
       * blocks only (train.py: "compiling loss function causes CUDA errors,
       * turning off for now"). */
      bool loss_compiled = training->compile && training->compile_loss;

      if (model->final_norm)
        act->final_norm = a->tokens * a->h_rep
                          * ((hr_finetune_is_adapter (&training->finetune) && a->head_norm_fp32 > 0
                              ? 0 : a->norm_input) + a->head_norm_fp32)
                          + norm_stats (model, a);
      /* The output layer stays 16-bit under fp8 (Megatron's output layer is
       * not a Transformer Engine module): it saves its input in the compute
       * dtype. */
      act->lm_head = hr_finetune_head_activations (&training->finetune, model, a->tokens, a->h,
                                                   a->compute, a->compute);
      act->held_inputs += hr_finetune_head_held_input (&training->finetune, model, a->tokens, a->h,
                                                       a->compute);
      switch (training->loss)
        {
        case HR_LOSS_CHUNKED:
          /* torchtune CEWithChunkedOutputLoss: cross_entropy(chunk.float())
           * per chunk. Eager, log_softmax saves each chunk's fp32 output
           * (all of them by the end of the forward); compiled with the loss,
           * the upcast is recomputed and the 16-bit chunks are saved. The
           * backward of one chunk holds its gradient: fp32 of the
           * log-probabilities and of the logits eager, one 16-bit compiled. */
          act->loss = logits * (loss_compiled ? a->compute : 4);
          act->loss_transient = logits / chunks * (loss_compiled ? a->compute : 8);
          break;
        case HR_LOSS_FUSED:
          {
            /* Liger's fused linear cross-entropy (Liger-Kernel
             * src/liger_kernel/ops/fused_linear_cross_entropy.py) computes
             * the loss and both gradients in the forward, chunk by chunk:
             * it saves grad_input (tokens × h, input dtype) and grad_weight
             * (the weight's dtype) and holds one chunk of logits,
             * next_power_of_2(ceil(tokens / ceil(V / h))) rows. */
            double inc = ceil (vocab / a->h);
            double rows = exp2 (ceil (log2 (ceil (a->tokens / inc))));

            if (rows > a->tokens)
              rows = a->tokens;
            act->lm_head = 0;
            act->loss = a->tokens * a->h * a->compute + vocab * a->h * a->param
                        + a->tokens * 4;
            act->loss_transient = rows * vocab * a->compute;
          }
          break;
        case HR_LOSS_KERNEL:
          /* flash-attn's CrossEntropyLoss (flash_attn/ops/triton/
           * cross_entropy.py): one Triton kernel reads the 16-bit logits and
           * saves them with each row's fp32 log-sum-exp; the backward writes
           * the logits' gradient in their dtype (in place with
           * inplace_backward, off by default). */
          act->loss = logits * a->compute + a->tokens * 4;
          act->loss_transient = logits * a->compute;
          break;
        case HR_LOSS_VOCAB_PARALLEL:
          /* Megatron-Core's vocab_parallel_cross_entropy (tensor_parallel/
           * cross_entropy.py, and fusions/fused_cross_entropy.py alike):
           * calculate_logits_max upcasts the logits to fp32, which become
           * exp(x − max) and then the softmax in place and are saved; the
           * backward turns them into the gradient in place and returns it in
           * the logits' dtype: 4·T·V saved, 2·T·V beside them. */
          act->loss = logits * 4;
          act->loss_transient = logits * a->compute;
          break;
        case HR_LOSS_TE:
          /* Transformer Engine's parallel_cross_entropy (pytorch/triton/
           * cross_entropy.py; Megatron's --cross-entropy-fusion-impl te):
           * the forward saves the 16-bit logits and each row's max, sum
           * and target logit in fp32; the backward writes the gradient over
           * the logits in place. */
          act->loss = logits * a->compute + a->tokens * 12;
          act->loss_transient = 0;
          break;
        case HR_LOSS_CHUNKED_HEAD:
          {
            /* torchtitan's ChunkedLossWrapper (components/loss.py): the
             * decoder stops at the final norm, whose output (replicated over
             * TP) the head reads chunk by chunk; each chunk's head, loss and
             * backward run at once in the forward, the chunk's 16-bit logits
             * held by the loop, its loss's buffers as the full loss's (the
             * compiled loss keeps the logits and each row's max and
             * log-sum-exp, and writes a 16-bit gradient; eager, the fp32
             * log-probabilities and the backward's two fp32 buffers, three
             * under loss parallelism), and the chunk's input gradient. Each
             * is copied into an fp32 buffer of every token (GradAccumulator),
             * cast to 16 bits after the loop and saved for the decoder's
             * backward (_DecoderOutputGradientBackProp). The loop holds the
             * fp32 buffer and one chunk; the cast, the buffer and its copy. */
            double rows = a->tokens / chunks;
            double full_width = a->tokens * a->h;
            double chunk = hr_training_loss_on_16bit_logits (training)
                           ? logits / chunks * 2.0 * a->compute + rows * 8
                           : logits / chunks
                             * (a->compute + 4
                                + (training->loss_parallel && training->tensor_parallel > 1
                                   ? 12 : 8));

            chunk += rows * a->h * a->compute;
            act->loss = full_width * a->compute;
            act->loss_transient = full_width * 4 + fmax (chunk - act->loss, 0);
          }
          break;
        case HR_LOSS_FULL:
        default:
          /* PyTorch cross_entropy on fp32 logits: log_softmax saves its
           * fp32 output. Its backward holds the incoming gradient and the
           * logits' gradient, both fp32. Compiled, one fused kernel writes
           * the logits' gradient. When the model hands the loss fp32 logits
           * (torchtune), the compiled graph saves that fp32 input. When the
           * upcast is inside the compiled loss (torchtitan's
           * cross_entropy_loss: cross_entropy(pred.float(), …)), AOTAutograd's
           * min-cut partitioner (torch/_functorch/partitioners.py) saves the
           * smaller 16-bit input and each row's fp32 max and log-sum-exp
           * (reductions are not recomputed: ban_recompute_reductions), redoes
           * the upcast in the backward and returns the gradient in the
           * input's 16-bit dtype. */
          if (hr_training_loss_on_16bit_logits (training))
            {
              act->loss = logits * a->compute + a->tokens * 8;
              act->loss_transient = logits * a->compute;
            }
          else
            {
              act->loss = logits * 4;
              act->loss_transient = logits * (loss_compiled ? 4 : 8);
            }
          /* DTensor's loss_parallel() (torch/distributed/tensor/parallel/
           * loss.py, _nll_loss_and_log_softmax_backward) computes
           * (zeros_like(x) scattered + exp(x)) · grad: beside the saved
           * log-probabilities x it holds the scattered zeros, exp(x) and
           * their sum, three fp32 buffers of the rank's logits. */
          if (training->loss_parallel && training->tensor_parallel > 1 && !loss_compiled)
            act->loss_transient = logits * 12;
          break;
        }
      /* int64 labels */
      act->loss += a->tokens * 8;
    }

  /* torch.distributed.pipelining (stage.py, forward_one_chunk) keeps each
   * micro-batch's stage output in fwd_cache until its backward_one_chunk:
   * the residual stream leaving the stage, or on the last stage the 16-bit
   * logits (which the fp32 cast of the loss does not save). Interleaved,
   * each of the rank's stages keeps its own: the residual stream from all
   * but the model's last. */
  if (hr_training_torch_pipelining (training))
    act->stage_output = (double) (training->virtual_stages - 1) * a->tokens * a->h_rep * a->residual
                        + (stage == pp - 1
                           ? a->tokens * ceil ((double) model->vocab_size / tp) * a->compute
                           : a->tokens * a->h_rep * a->residual);

  act->layers_total = layers_total;
  act->micro_batch = act->embedding + layers_total + act->final_norm + act->lm_head + act->loss
                     + act->stage_output;
}

HrStatus
hr_training_activations (const HrModel         *model,
                         const HrTraining      *training,
                         int64_t                stage,
                         HrTrainingActivations *act,
                         HrError               *err)
{
  int64_t pp = training->pipeline_parallel;
  HrStatus status;
  HrLayerKinds kinds;
  HrActShape a;

  memset (act, 0, sizeof *act);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (stage < 0 || stage >= pp)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "pipeline_parallel", stage, pp - 1,
                         "pipeline stage");
  hr_training_act_shape (model, training, &a);
  hr_training_layer_kinds (model, training, &a, &kinds);
  hr_training_stage_activations (model, training, &a, &kinds, stage, act);
  return HR_OK;
}
