/* hr-training-states.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parameters per pipeline rank and their model states (weights, gradients,
 * optimizer states), sharded as ZeRO and FSDP shard them (docs/training.md).
 *
 * Sources, cited where used:
 * [ZeRO]  Rajbhandari et al. 2019, "ZeRO: Memory Optimizations Toward Training
 *         Trillion Parameter Models", arXiv 1910.02054.
 * [MLM]   Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
 *         on GPU Clusters Using Megatron-LM", arXiv 2104.04473.
 */
#include "hr-training.h"
#include "hr-internal.h"

#include <string.h>

/* bitsandbytes 8-bit optimizers quantise each state in blocks of 256 values
 * with one fp32 absmax per block (bitsandbytes/optim/optimizer.py,
 * Optimizer8bit.init_state: blocks = n // 256, absmax1 and absmax2 float32;
 * Dettmers et al. 2021, "8-bit Optimizers via Block-wise Quantization", §2). */
#define ADAM_8BIT_BLOCK 256.0

/* Parameters per rank */

typedef struct
{
  int64_t attention;       /* one layer, before TP */
  int64_t kv;              /* its k and v projections (replicated when tp > kv heads) */
  int64_t norms;           /* one layer's norms, replicated over TP */
  int64_t dense_mlp;       /* one dense layer's MLP */
  int64_t shared_mlp;      /* one MoE layer's shared experts */
  int64_t router;          /* one MoE layer's router */
  int64_t routed;          /* one MoE layer's routed experts */
  int64_t final_norm;
} LayerParams;

static int64_t
norm_params (const HrModel *model)
{
  bool bias = model->norm_kind == HR_NORM_LAYERNORM && model->norm_bias;

  return model->hidden_size * (bias ? 2 : 1);
}

static void
split_layer_params (const HrModel  *model,
                    const HrParams *params,
                    LayerParams    *lp)
{
  int64_t d = hr_model_head_dim (model);

  memset (lp, 0, sizeof *lp);
  lp->attention = params->attention / model->n_layers;
  lp->kv = hr_model_uses_mla (model) ? 0
           : 2 * model->n_kv_heads * d * (model->hidden_size + (model->qkv_bias ? 1 : 0));
  lp->final_norm = model->final_norm ? norm_params (model) : 0;
  lp->norms = (params->norm - lp->final_norm) / model->n_layers;
  if (params->n_dense_layers > 0)
    lp->dense_mlp = params->dense_layer - lp->attention - lp->norms;
  if (params->n_moe_layers > 0)
    {
      lp->routed = params->routed_experts / params->n_moe_layers;
      lp->router = params->router / params->n_moe_layers;
      lp->shared_mlp = params->moe_layer - lp->attention - lp->norms - lp->routed - lp->router;
    }
}

static int64_t
ceil_div (int64_t a,
          int64_t b)
{
  return (a + b - 1) / b;
}

/* MoE layers of pipeline stage `stage`. */
static int64_t
stage_moe_layers (const HrModel    *model,
                  const HrTraining *t,
                  int64_t           stage)
{
  int64_t n = 0;

  if (model->n_experts <= 0)
    return 0;
  /* Chunk by chunk (virtual_stages of them), not layer by layer. */
  for (int64_t j = 0; j < t->virtual_stages; j++)
    {
      HrLayerCounts c;
      int64_t first, chunk = hr_training_stage_chunk (t, model->n_layers, stage, j, &first);

      hr_model_count_layers (model, first, first + chunk, &c);
      n += c.n[1][0] + c.n[1][1];
    }
  return n;
}

/* Adafactor second moments of a rows × cols matrix: a row and a column vector
 * (Shazeer & Stern 2018, "Adafactor", §3). */
static int64_t
factored (int64_t rows,
          int64_t cols)
{
  return rows + cols;
}

static int64_t
mlp_factored (const HrModel *model,
              int64_t        ffn,
              int64_t        tp)
{
  int64_t h = model->hidden_size, f = ffn / tp;
  int64_t matrices = model->ffn_kind == HR_FFN_GATED ? 3 : 2;
  int64_t biases = model->mlp_bias ? f * (matrices - 1) + h : 0;

  return matrices * factored (h, f) + biases;
}

static int64_t
attention_factored (const HrModel *model,
                    int64_t        tp)
{
  int64_t h = model->hidden_size;
  int64_t q = model->n_heads / tp * hr_training_head_dim_qk (model);
  int64_t o = model->n_heads / tp * hr_training_head_dim_v (model);
  int64_t kv = hr_training_kv_heads (model) >= tp ? hr_training_kv_heads (model) / tp : 1;
  int64_t k = kv * hr_training_head_dim_qk (model), v = kv * hr_training_head_dim_v (model);

  return factored (h, q) + factored (h, k) + factored (h, v) + factored (o, h)
         + (model->qkv_bias ? q + k + v : 0) + (model->out_bias ? h : 0);
}

/* [MLM] §2.3: q, o and MLP matrices split over TP; k and v split while
 * tp ≤ kv heads, then one head per rank; norms replicated. Routed experts
 * split over EP and over TP inside each expert (Megatron-Core's default
 * expert tensor parallelism). */
void
hr_training_rank_layer_params (const HrModel     *model,
                               const HrTraining  *training,
                               const HrParams    *params,
                               HrRankLayerParams *r)
{
  int64_t tp = training->tensor_parallel, ep = training->expert_parallel;
  int64_t kv = hr_training_kv_heads (model), attention;
  LayerParams lp;

  split_layer_params (model, params, &lp);
  attention = (lp.attention - lp.kv) / tp + (kv >= tp ? lp.kv / tp : (kv > 0 ? lp.kv / kv : 0));
  r->dense = attention + lp.norms + lp.dense_mlp / tp;
  r->moe = attention + lp.norms + lp.router + lp.shared_mlp / tp;
  r->moe_experts = lp.routed / (ep * hr_training_expert_tp (training));
}

/* hr_training_rank() for a validated setting, its stage in range and the
 * model's parameters already counted. */
void
hr_training_stage_rank (const HrModel    *model,
                        const HrTraining *training,
                        const HrParams   *params,
                        int64_t           stage,
                        HrTrainingRank   *rank)
{
  int64_t tp = training->tensor_parallel, ep = training->expert_parallel;
  int64_t pp = training->pipeline_parallel;
  LayerParams lp;
  HrRankLayerParams r;
  int64_t dense, moe, moe_experts;
  int64_t shared_factored, dense_factored, moe_factored, dense_layers;

  memset (rank, 0, sizeof *rank);
  split_layer_params (model, params, &lp);
  hr_training_rank_layer_params (model, training, params, &r);
  dense = r.dense;
  moe = r.moe;
  moe_experts = r.moe_experts;

  shared_factored = attention_factored (model, tp) + model->norms_per_layer * norm_params (model);
  dense_factored = shared_factored + mlp_factored (model, model->ffn_size, tp);
  moe_factored = shared_factored
                 + factored (model->hidden_size, model->n_experts)
                 + model->n_experts / ep * mlp_factored (model, model->expert_ffn_size, tp)
                 + model->n_shared_experts * mlp_factored (model,
                                                           model->shared_expert_ffn_size, tp);

  /* Every layer of a kind holds the same parameters. */
  rank->layers = 0;
  for (int64_t j = 0; j < training->virtual_stages; j++)
    {
      int64_t first;

      rank->layers += hr_training_stage_chunk (training, model->n_layers, stage, j, &first);
    }
  rank->moe_layers = stage_moe_layers (model, training, stage);
  dense_layers = rank->layers - rank->moe_layers;
  rank->params = dense_layers * dense + rank->moe_layers * moe;
  rank->expert_params = rank->moe_layers * moe_experts;
  rank->factored_elements = dense_layers * dense_factored + rank->moe_layers * moe_factored;
  if (dense_layers > 0 && dense > rank->largest_layer)
    rank->largest_layer = dense;
  if (rank->moe_layers > 0 && moe + moe_experts > rank->largest_layer)
    rank->largest_layer = moe + moe_experts;

  /* Megatron splits the vocabulary over TP (VocabParallelEmbedding); the
   * position table is replicated. A tied LM head keeps a copy of the
   * embedding on the last stage when pp > 1 ([MLM] §2.2). */
  if (stage == 0)
    {
      int64_t rows = ceil_div (model->vocab_size, tp);

      rank->params += ceil_div (params->embedding, tp) + params->position_embedding;
      rank->factored_elements += factored (rows, model->hidden_size)
                                 + (params->position_embedding > 0
                                    ? factored (model->max_positions + model->position_offset,
                                                model->hidden_size) : 0);
    }
  if (stage == pp - 1)
    {
      int64_t head = params->lm_head;

      if (model->tied_embeddings && pp > 1)
        head = params->embedding;
      rank->params += ceil_div (head, tp) + lp.final_norm;
      if (head > 0)
        rank->factored_elements += factored (ceil_div (model->vocab_size, tp), model->hidden_size);
      rank->factored_elements += lp.final_norm;
    }
  rank->outside_layers = rank->params - (dense_layers * dense + rank->moe_layers * moe);
  /* torchtune's custom_sharded_layers wrap the embedding and the output
   * layer apart (a tied head is refused: hr_training_validate_layout). */
  if (training->fsdp_embedding_units && training->fsdp != HR_FSDP_NONE)
    {
      if (stage == 0)
        rank->embedding_unit = ceil_div (params->embedding, tp);
      if (stage == pp - 1)
        rank->head_unit = ceil_div (params->lm_head, tp);
    }
}

HrStatus
hr_training_rank (const HrModel    *model,
                  const HrTraining *training,
                  int64_t           stage,
                  HrTrainingRank   *rank,
                  HrError          *err)
{
  int64_t pp = training->pipeline_parallel;
  HrParams params;
  HrStatus status;

  memset (rank, 0, sizeof *rank);
  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if (stage < 0 || stage >= pp)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "pipeline_parallel", stage, pp - 1,
                         "pipeline stage");
  if ((status = hr_model_count_params (model, &params, err)) != HR_OK)
    return status;
  hr_training_stage_rank (model, training, &params, stage, rank);
  return HR_OK;
}

/* Model states */

void
hr_training_state_bytes (const HrTraining *t,
                         HrStateBytes     *b)
{
  switch (t->precision)
    {
    case HR_PRECISION_FP32:
      /* The parameters are the master copy. */
      *b = (HrStateBytes) { 4, 0, 4, 4 };
      break;
    case HR_PRECISION_BF16:
      /* Pure bf16: weights, gradients and optimizer states in bf16, no master copy. */
      *b = (HrStateBytes) { 2, 0, 2, 2 };
      break;
    case HR_PRECISION_FP8_MIXED:
      /* Transformer Engine keeps bf16 weights plus their fp8 cast for the
       * forward and its fp8 transpose for the backward's dgrad (_Linear
       * saves weight_t_fp8; the module caches both across micro-batches):
       * 2 + 1 + 1 bytes. Per-tensor scales and amax histories are a few KiB
       * a module. With fp8 parameters (Megatron's --fp8-param-gather, TE's
       * fp8_model_init) the parameter is the Float8Tensor itself, its data
       * and its transpose (MXFP8: row-wise and column-wise copies): 1 + 1;
       * the distributed optimizer's fp32 master is the only other copy. */
      *b = (HrStateBytes) { t->fp8_params ? 2 : 4, 4, 2, 4 };
      /* torchao's Float8Linear keeps the 16-bit weight only: its fp8 casts
       * live within one product (matmul_with_hp_or_float8_args). */
      if (hr_training_torchao_fp8 (t))
        b->weights = 2;
      break;
    case HR_PRECISION_BF16_MIXED:
    case HR_PRECISION_FP16_MIXED:
    default:
      /* [ZeRO] §3.1: 2 (16-bit weights) + 2 (16-bit gradients) + 4 (fp32 master). */
      *b = (HrStateBytes) { 2, 4, 2, 4 };
      break;
    }
  /* Autocast trains the fp32 parameters themselves: their gradients are fp32. */
  if (hr_training_is_mixed (t) && (t->fp32_gradients || hr_training_autocast (t)))
    b->gradients = 4;
}

/* Optimizer bytes per parameter, excluding the master copy. */
static double
optimizer_bytes (const HrTraining     *t,
                 const HrTrainingRank *rank,
                 double                state)
{
  double params = (double) rank->params + (double) rank->expert_params;

  switch (t->optimizer)
    {
    case HR_OPTIMIZER_ADAMW:
      /* m and v (Loshchilov & Hutter 2019) */
      return 2 * state;
    case HR_OPTIMIZER_ADAMW_8BIT:
      /* m and v in 8 bits, one fp32 absmax per block each */
      return 2 * (1 + 4 / ADAM_8BIT_BLOCK);
    case HR_OPTIMIZER_SGD:
      return 0;
    case HR_OPTIMIZER_SGD_MOMENTUM:
    case HR_OPTIMIZER_LION:
      /* one momentum buffer (Lion: Chen et al. 2023, Alg. 2) */
      return state;
    case HR_OPTIMIZER_ADAFACTOR:
      /* factored second moments; no first moment (beta1 = None, the default) */
      return params > 0 ? state * (double) rank->factored_elements / params : 0;
    default:
      return 0;
    }
}

/* [ZeRO] shards over the data-parallel group, which Megatron makes dp · cp
 * wide; experts are replicated over dp · cp / ep ranks only. FSDP's hybrid
 * shard keeps the shards within a node. */
void
hr_training_shard_groups (const HrTraining *t,
                          HrShardGroups    *g)
{
  int64_t dp_cp = hr_training_dp (t) * t->context_parallel;
  int64_t expert;

  /* Unvalidated settings shard over nothing rather than divide by zero. */
  if (dp_cp < 1)
    dp_cp = 1;
  expert = t->expert_parallel > 0 ? hr_training_expert_ranks (t) / t->expert_parallel : dp_cp;
  g->dense = (double) dp_cp;
  g->expert = (double) (expert > 0 ? expert : 1);
  if (t->fsdp == HR_FSDP_HYBRID)
    {
      int64_t per_node = t->gpus_per_node / (t->tensor_parallel * t->pipeline_parallel);

      if (per_node < 1)
        per_node = 1;
      if (g->dense > (double) per_node)
        g->dense = (double) per_node;
      if (g->expert > g->dense)
        g->expert = g->dense;
    }
}

static HrShard
shard_of (const HrShardGroups *g,
          bool                 sharded)
{
  return sharded ? (HrShard) { g->dense, g->expert } : (HrShard) { 1, 1 };
}

static double
bytes_for (const HrTrainingRank *rank,
           const HrShardGroups  *g,
           double                bytes_per_param,
           bool                  sharded)
{
  if (!sharded)
    return bytes_per_param * ((double) rank->params + (double) rank->expert_params);
  return bytes_per_param * ((double) rank->params / g->dense
                            + (double) rank->expert_params / g->expert);
}

/* ZeRO-2 and up shard the gradients, but for FSDP under a pipeline and
 * FSDP's unsharded accumulation. */
static bool
gradients_sharded (const HrTraining *training)
{
  return hr_training_effective_zero_stage (training) >= 2
         && !hr_training_fsdp_pipeline (training)
         && !hr_training_unsharded_accumulation (training);
}

double
hr_training_gradient_bytes (const HrTraining     *training,
                            const HrTrainingRank *rank)
{
  HrStateBytes b;
  HrShardGroups g;

  hr_training_state_bytes (training, &b);
  hr_training_shard_groups (training, &g);
  return bytes_for (rank, &g, b.gradients, gradients_sharded (training));
}

void
hr_training_model_states (const HrTraining     *training,
                          const HrTrainingRank *rank,
                          HrTrainingMemory     *memory)
{
  int64_t zero = hr_training_effective_zero_stage (training);
  double optimizer_per_param;
  HrStateBytes b;
  HrShardGroups g;

  hr_training_state_bytes (training, &b);
  hr_training_shard_groups (training, &g);
  optimizer_per_param = optimizer_bytes (training, rank, b.state);

  /* [ZeRO] §5: stage 1 shards optimizer states (with the master copy),
   * stage 2 adds gradients, stage 3 adds the weights. */
  memory->weights = bytes_for (rank, &g, b.weights, zero >= 3);
  /* FSDP with a 16-bit param_dtype keeps only the fp32 shard: each
   * all-gather casts it on the fly (FSDP2 FSDPParam.all_gather_inputs,
   * sharded_param.to(param_dtype); FSDP1 allocates its _mp_shard for the
   * gather and frees it after), so no 16-bit shard persists; the gathered
   * copies are the temporary buffers (stage_states). */
  if (training->fsdp != HR_FSDP_NONE && zero >= 3 && b.master > 0
      && (training->precision == HR_PRECISION_BF16_MIXED
          || training->precision == HR_PRECISION_FP16_MIXED
          || hr_training_torchao_fp8 (training))
      && !hr_training_autocast (training))
    memory->weights = 0;
  memory->master_weights = bytes_for (rank, &g, b.master, zero >= 1);
  memory->gradients = hr_training_gradient_bytes (training, rank);
  memory->optimizer = bytes_for (rank, &g, optimizer_per_param, zero >= 1);
  if (hr_training_fsdp_pipeline (training))
    memory->weights = bytes_for (rank, &g, b.weights, false);
  memory->weights_shard = shard_of (&g, zero >= 3 && !hr_training_fsdp_pipeline (training));
  memory->master_shard = shard_of (&g, zero >= 1);
  memory->gradients_shard = shard_of (&g, gradients_sharded (training));
  memory->accumulation_shard = shard_of (&g, zero >= 2);
  memory->optimizer_shard = memory->master_shard;

  /* 16-bit gradients accumulated over several micro-batches go into an fp32
   * buffer (DeepSpeed's bf16 optimizer, fp32 accumulation); Megatron adds
   * them into its main_grad buffer, of the gradients' dtype
   * (distributed/param_and_grad_buffer.py: grad_dtype fp32 only with
   * accumulate_allreduce_grads_in_fp32), and keeps no other. */
  memory->grad_accumulation_buffer = 0;
  if (training->fp32_accumulation_buffer && hr_training_is_mixed (training) && b.gradients < 4
      && hr_training_grad_accumulation (training) > 1)
    memory->grad_accumulation_buffer = bytes_for (rank, &g, 4, zero >= 2);

  /* ZeRO-Offload (Ren et al. 2021, §4): fp32 master weights, optimizer
   * states and an fp32 gradient copy live in CPU memory. */
  memory->cpu_bytes = 0;
  if (training->offload_optimizer)
    {
      memory->cpu_bytes = memory->master_weights + memory->optimizer
                          + (b.master > 0 ? bytes_for (rank, &g, 4, zero >= 1) : 0);
      memory->master_weights = 0;
      memory->optimizer = 0;
    }
  /* Offloaded parameters (FSDP's CPUOffload(offload_params=True) and FSDP2's
   * CPUOffloadPolicy; DeepSpeed ZeRO-3 offload_param, Rajbhandari et al.
   * 2021, ZeRO-Infinity): every sharded state lives in host memory. A
   * layer's shard is copied to the GPU for its all-gather and each
   * reduce-scattered gradient shard copied back, so the GPU keeps only the
   * gathered layers and unsharded gradients of the temporary buffers. */
  if (training->offload_params)
    {
      memory->cpu_bytes = memory->weights + memory->master_weights + memory->gradients
                          + memory->grad_accumulation_buffer + memory->optimizer;
      memory->weights = 0;
      memory->master_weights = 0;
      memory->gradients = 0;
      memory->grad_accumulation_buffer = 0;
      memory->optimizer = 0;
    }
}
