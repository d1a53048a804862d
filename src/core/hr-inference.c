/* hr-inference.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Serving estimates, following how vLLM lays a model out on its GPUs
 * (vllm/model_executor/layers/{linear,vocab_parallel_embedding}.py,
 * vllm/attention): tensor parallelism after Megatron-LM (Shoeybi et al.
 * 2019, §3) and a paged KV cache (Kwon et al. 2023, "Efficient Memory
 * Management for Large Language Model Serving with PagedAttention", §4):
 * the settings, the memory and its limits. The latency is in
 * hr-inference-latency.c. docs/inference.md explains every rule.
 */
#include <math.h>
#include <string.h>

#include "hr-inference.h"
#include "hr-internal.h"
#include "hr-serving.h"

/* vLLM pads the vocabulary to a multiple of 64 before splitting it across
 * TP ranks (DEFAULT_VOCAB_PADDING_SIZE, vocab_parallel_embedding.py). */
#define VOCAB_PADDING 64

/* Tokens and batch beyond this are refused: far past any real context,
 * and it keeps every product below 2^53 where doubles are exact. */
#define MAX_TOKENS ((int64_t) 1 << 40)

/* The largest GPU count hr_inference_limits() tries for min_gpus. */
#define MAX_GPUS 4096

static const char *const weight_names[HR_WEIGHTS_N] = {
  "bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", "q4_0", "q4_k_m", "q5_k_m", "q6_k", "q8_0",
  "iq2_xxs", "iq2_xs", "iq3_xxs", "iq4_nl", "iq4_xs",
};
static const char *const kv_names[HR_KV_N] = {
  "fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q4_0",
};

void
hr_inference_init (HrInference *inference)
{
  *inference = (HrInference) {
    .gpus = 1,
    .tensor_parallel = 1,
    .pipeline_parallel = 1,
    .batch = 1,
    .prompt = 1024,
    .generate = 256,
    .weights = HR_WEIGHTS_BF16,
    .group_size = HR_INFERENCE_DEFAULT_GROUP_SIZE,
    .keep_embeddings_16bit = true,
    .kv_dtype = HR_KV_BF16,
    .paged_block = HR_INFERENCE_DEFAULT_PAGED_BLOCK,
    .prefill_chunk = 0,
    .overhead_bytes = HR_INFERENCE_DEFAULT_OVERHEAD_BYTES,
    .compute_efficiency = HR_INFERENCE_DEFAULT_COMPUTE_EFFICIENCY,
    .memory_efficiency = HR_INFERENCE_DEFAULT_MEMORY_EFFICIENCY,
    .price_per_gpu_hour = 0.0,
    .causal = true,
    .cap_sliding_window = true,
    .fp8_keep_attention = false,
  };
}

double
hr_weight_precision_bytes (HrWeightPrecision precision)
{
  switch (precision)
    {
    case HR_WEIGHTS_BF16:
    case HR_WEIGHTS_FP16:
      return 2.0;
    case HR_WEIGHTS_FP8:
    case HR_WEIGHTS_INT8:
      return 1.0;
    case HR_WEIGHTS_INT4:
    case HR_WEIGHTS_AWQ:
    case HR_WEIGHTS_GPTQ:
      return 0.5;
    case HR_WEIGHTS_Q4_0:
    case HR_WEIGHTS_Q4_K_M:
    case HR_WEIGHTS_Q5_K_M:
    case HR_WEIGHTS_Q6_K:
    case HR_WEIGHTS_Q8_0:
    case HR_WEIGHTS_IQ2_XXS:
    case HR_WEIGHTS_IQ2_XS:
    case HR_WEIGHTS_IQ3_XXS:
    case HR_WEIGHTS_IQ4_NL:
    case HR_WEIGHTS_IQ4_XS:
      return hr_gguf_bytes_per_weight (precision);
    case HR_WEIGHTS_N:
    default:
      return 0.0;
    }
}

double
hr_kv_dtype_bytes (HrKvDtype dtype)
{
  switch (dtype)
    {
    case HR_KV_FP32:
      return 4.0;
    case HR_KV_BF16:
    case HR_KV_FP16:
      return 2.0;
    case HR_KV_FP8:
    case HR_KV_INT8:
      return 1.0;
    case HR_KV_Q8_0:
      /* ggml block_q8_0: an f16 scale and 32 int8 (ggml-common.h). */
      return 34.0 / 32.0;
    case HR_KV_Q4_0:
      /* block_q4_0: an f16 scale and 32 nibbles. */
      return 18.0 / 32.0;
    case HR_KV_N:
    default:
      return 0.0;
    }
}

const char *
hr_weight_precision_name (HrWeightPrecision precision)
{
  return (unsigned) precision < HR_WEIGHTS_N ? weight_names[precision] : "";
}

bool
hr_weight_precision_from_name (const char        *name,
                               HrWeightPrecision *out)
{
  for (int i = 0; name != NULL && i < HR_WEIGHTS_N; i++)
    if (strcmp (name, weight_names[i]) == 0)
      {
        *out = (HrWeightPrecision) i;
        return true;
      }
  return false;
}

const char *
hr_kv_dtype_name (HrKvDtype dtype)
{
  return (unsigned) dtype < HR_KV_N ? kv_names[dtype] : "";
}

bool
hr_kv_dtype_from_name (const char *name,
                       HrKvDtype  *out)
{
  for (int i = 0; name != NULL && i < HR_KV_N; i++)
    if (strcmp (name, kv_names[i]) == 0)
      {
        *out = (HrKvDtype) i;
        return true;
      }
  return false;
}

const char *
hr_bound_name (HrBound bound)
{
  return bound == HR_BOUND_COMPUTE ? "compute" : "memory";
}

static bool
is_quantised_groupwise (HrWeightPrecision precision)
{
  return precision == HR_WEIGHTS_INT8 || precision == HR_WEIGHTS_INT4 ||
         precision == HR_WEIGHTS_AWQ || precision == HR_WEIGHTS_GPTQ;
}

static HrStatus
check_positive (int64_t     value,
                const char *field,
                HrError    *err)
{
  if (value <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, field, value, 0, NULL);
  if (value > MAX_TOKENS)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, field, value, MAX_TOKENS,
                         "at most 2^40");
  return HR_OK;
}

static HrStatus
check_fraction (double      value,
                const char *field,
                HrError    *err)
{
  if (!(value > 0.0 && value <= 1.0))
    /* In percent. */
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, field,
                         hr_error_value (value * 100.0),
                         1, "an efficiency must lie in (0, 1]");
  return HR_OK;
}

HrStatus
hr_inference_validate (const HrModel     *model,
                       const HrInference *inf,
                       HrError           *err)
{
  HrStatus status;
  int64_t tp = inf->tensor_parallel;
  int64_t pp = inf->pipeline_parallel;

  if ((status = hr_model_validate (model, err)) != HR_OK)
    return status;

  if ((status = check_positive (tp, "tensor_parallel", err)) != HR_OK ||
      (status = check_positive (pp, "pipeline_parallel", err)) != HR_OK ||
      (status = check_positive (inf->gpus, "gpus", err)) != HR_OK ||
      (status = check_positive (inf->batch, "batch", err)) != HR_OK ||
      (status = check_positive (inf->prompt, "prompt", err)) != HR_OK)
    return status;

  if (inf->gpus % tp != 0 || inf->gpus / tp != pp)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "gpus", inf->gpus,
                         tp <= MAX_TOKENS / pp ? tp * pp : 0,
                         "must equal tensor_parallel × pipeline_parallel");

  /* vLLM splits query heads evenly (ColumnParallelLinear in QKVParallelLinear). */
  if (model->n_heads % tp != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "tensor_parallel", tp,
                         model->n_heads, "num_attention_heads");
  /* KV heads are split when tp divides them and replicated when they divide
   * tp (QKVParallelLinear: num_kv_head_replicas = tp / kv); MLA caches one
   * latent per token, which every rank holds whole. */
  if (!hr_model_uses_mla (model) &&
      model->n_kv_heads % tp != 0 && tp % model->n_kv_heads != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "tensor_parallel", tp,
                         model->n_kv_heads,
                         "num_key_value_heads, nor is it a multiple of them");
  if (model->n_layers % pp != 0)
    return hr_error_set (err, HR_ERROR_NOT_DIVISIBLE, "pipeline_parallel", pp,
                         model->n_layers, "num_hidden_layers");

  if (inf->generate < 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "generate", inf->generate, 0,
                         "0 (prefill only) or more");
  if (inf->generate > MAX_TOKENS)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "generate", inf->generate, MAX_TOKENS,
                         "at most 2^40");
  if ((unsigned) inf->weights >= HR_WEIGHTS_N)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "weights", inf->weights, HR_WEIGHTS_N - 1,
                         "bf16, fp16, fp8, int8, int4, awq, gptq or a GGUF type");
  if (is_quantised_groupwise (inf->weights) &&
      (status = check_positive (inf->group_size, "group_size", err)) != HR_OK)
    return status;
  if ((unsigned) inf->kv_dtype >= HR_KV_N)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "kv_dtype", inf->kv_dtype,
                         HR_KV_N - 1, "fp32, bf16, fp16, fp8, int8, q8_0 or q4_0");
  if (inf->paged_block < 0 || inf->paged_block > MAX_TOKENS)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "paged_block", inf->paged_block,
                         MAX_TOKENS, "0 (contiguous) or a block size in tokens");
  if (inf->prefill_chunk < 0 || inf->prefill_chunk > MAX_TOKENS)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "prefill_chunk", inf->prefill_chunk,
                         MAX_TOKENS, "0 (whole prompt) or tokens per step");
  if (!(inf->overhead_bytes >= 0.0 && isfinite (inf->overhead_bytes)))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "overhead_bytes",
                         hr_error_value (inf->overhead_bytes), 0, "bytes, 0 or more");
  if ((status = check_fraction (inf->compute_efficiency, "compute_efficiency", err)) != HR_OK ||
      (status = check_fraction (inf->memory_efficiency, "memory_efficiency", err)) != HR_OK)
    return status;
  if (!(inf->price_per_gpu_hour >= 0.0 && isfinite (inf->price_per_gpu_hour)))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "price_per_gpu_hour",
                         hr_error_value (inf->price_per_gpu_hour), 0, "0 or more");
  return HR_OK;
}

HrStatus
hr_inference_validate_gpu (const HrGpu *gpu,
                           HrError     *err)
{
  if (!(gpu->memory_bytes > 0.0 && isfinite (gpu->memory_bytes)))
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "memory_bytes",
                         hr_error_value (gpu->memory_bytes), 0, NULL);
  return HR_OK;
}

/* ---- KV cache ------------------------------------------------------------ */

int64_t
hr_inference_kv_heads_per_gpu (const HrModel     *model,
                               const HrInference *inf)
{
  int64_t tp = inf->tensor_parallel;

  if (hr_model_uses_mla (model))
    return 1;
  return model->n_kv_heads >= tp ? model->n_kv_heads / tp : 1;
}

/* Bytes one token occupies in one layer's cache on one GPU. vLLM's
 * FullAttentionSpec page: 2 (K and V) × kv heads × head size × dtype bytes;
 * MLA (DeepSeek-V2 §2.1.2, eq. 9-10, vLLM MLAAttentionSpec): one vector of
 * kv_lora_rank + qk_rope_head_dim, the latent c_KV and the shared rope key. */
double
hr_inference_kv_bytes_per_token_layer (const HrModel     *model,
                                       const HrInference *inf)
{
  double bytes = hr_kv_dtype_bytes (inf->kv_dtype);

  /* DeepSeek-V3.2's indexer keeps one key of index_head_dim per token too. */
  if (hr_model_uses_mla (model))
    return (double) (model->kv_lora_rank + model->qk_rope_head_dim + model->index_head_dim) * bytes;
  return 2.0 * (double) hr_inference_kv_heads_per_gpu (model, inf) * (double) hr_model_head_dim (model)
         * bytes;
}

/* Tokens a layer (a windowed one when `sliding`) holds for one sequence of
 * `context` tokens. */
static int64_t
cached_tokens (const HrModel     *model,
               const HrInference *inf,
               bool               sliding,
               int64_t            context,
               bool               cap)
{
  int64_t tokens = context;
  int64_t block = inf->paged_block;

  if (cap && sliding && model->sliding_window < tokens)
    tokens = model->sliding_window;
  if (block > 0)
    tokens = (tokens + block - 1) / block * block;
  return tokens;
}

/* ---- Weights --------------------------------------------------------------- */

/* The parameters of one layer as vLLM shards them over TP: matrices that are
 * split or replicated, and small vectors (norms, biases) and the router that
 * stay at 16 bit. Counts are per rank, except `split` (the whole, to divide). */
typedef struct
{
  double split_matrices;       /* whole, divided by tp */
  double replicated_matrices;  /* per rank */
  double split_vectors;        /* whole, divided by tp */
  double replicated_vectors;   /* per rank; includes the router */
} LayerShards;

static double
norm_size (const HrModel *model,
           int64_t        width)
{
  return (double) width * (model->norm_kind == HR_NORM_LAYERNORM && model->norm_bias ? 2.0 : 1.0);
}

static double
final_norm_params (const HrModel *model)
{
  return model->final_norm ? norm_size (model, model->hidden_size) : 0.0;
}

/* Attention of one layer. Megatron §3: q/k/v column-parallel, o row-parallel;
 * a row-parallel bias is added once, so every rank holds it whole. */
static void
attention_shards (const HrModel     *model,
                  const HrInference *inf,
                  LayerShards       *s)
{
  double h = (double) model->hidden_size;
  double nh = (double) model->n_heads;
  double hd = (double) hr_model_head_dim (model);
  int64_t tp = inf->tensor_parallel;

  if (hr_model_uses_mla (model))
    {
      /* vLLM deepseek_v2.py: q_a_proj and kv_a_proj_with_mqa are
       * ReplicatedLinear; q_b_proj / q_proj and kv_b_proj column-parallel,
       * o_proj row-parallel; q_a_layernorm and kv_a_layernorm replicated. */
      double qk = (double) (model->qk_nope_head_dim + model->qk_rope_head_dim);
      double kv_a = (double) (model->kv_lora_rank + model->qk_rope_head_dim);

      if (model->q_lora_rank > 0)
        {
          s->replicated_matrices += h * (double) model->q_lora_rank;
          s->replicated_vectors += (double) model->q_lora_rank *
                                   (model->qkv_bias ? 2.0 : 1.0); /* norm, bias */
          s->split_matrices += (double) model->q_lora_rank * nh * qk;
        }
      else
        s->split_matrices += h * nh * qk;
      s->replicated_matrices += h * kv_a;
      s->replicated_vectors += (double) model->kv_lora_rank + (model->qkv_bias ? kv_a : 0.0);
      s->split_matrices += (double) model->kv_lora_rank * nh *
                           (double) (model->qk_nope_head_dim + model->v_head_dim);
      s->split_matrices += nh * (double) model->v_head_dim * h;
      if (model->out_bias)
        s->replicated_vectors += h;
      /* vLLM's DeepSeek-V3.2 Indexer: wq_b, wk and weights_proj replicated. */
      if (model->index_heads > 0)
        {
          s->replicated_matrices += (double) model->q_lora_rank
                                    * (double) (model->index_heads * model->index_head_dim)
                                    + h * (double) (model->index_head_dim + model->index_heads);
          s->replicated_vectors += 2.0 * (double) model->index_head_dim;
        }
      return;
    }

  s->split_matrices += 2.0 * h * nh * hd;            /* q and o */
  if (model->attention_gate)
    s->split_matrices += h * nh * hd;                /* gate_proj, column-parallel as q */
  if (model->qkv_bias)
    s->split_vectors += nh * hd;
  if (model->n_kv_heads >= tp)
    {
      s->split_matrices += 2.0 * h * (double) model->n_kv_heads * hd;
      if (model->qkv_bias)
        s->split_vectors += 2.0 * (double) model->n_kv_heads * hd;
    }
  else
    {
      /* Each rank holds one KV head (num_kv_head_replicas = tp / kv). */
      s->replicated_matrices += 2.0 * h * hd;
      if (model->qkv_bias)
        s->replicated_vectors += 2.0 * hd;
    }
  if (model->out_bias)
    s->replicated_vectors += h;
  if (model->qk_norm)
    s->replicated_vectors += 2.0 * norm_size (model, hr_model_head_dim (model));
}

/* Parameters of the attention as attention_shards counts them, counting
 * replicated KV heads once, as the model holds them. */
static double
attention_total (const HrModel     *model,
                 const HrInference *inf,
                 const LayerShards *s)
{
  double total = s->split_matrices + s->split_vectors + s->replicated_matrices + s->replicated_vectors;

  if (!hr_model_uses_mla (model) && model->n_kv_heads < inf->tensor_parallel)
    {
      double hd = (double) hr_model_head_dim (model);
      double one_head = 2.0 * (double) model->hidden_size * hd + (model->qkv_bias ? 2.0 * hd : 0.0);

      total += ((double) model->n_kv_heads - 1.0) * one_head;
    }
  return total;
}

/* Bias vectors of one MLP of intermediate size f: up (and gate) split, down
 * row-parallel so whole on every rank. */
static void
mlp_bias_shards (const HrModel *model,
                 double         f,
                 double         count,
                 LayerShards   *s)
{
  if (!model->mlp_bias || f <= 0.0)
    return;
  s->split_vectors += count * f * (model->ffn_kind == HR_FFN_GATED ? 2.0 : 1.0);
  s->replicated_vectors += count * (double) model->hidden_size;
}

/* One layer: its parameter count comes from hr_model_params (layer_params);
 * what is not attention, norm, router or bias is MLP matrices, split over TP
 * (vLLM MergedColumnParallelLinear / RowParallelLinear; FusedMoE splits each
 * expert's intermediate dimension). */
static void
layer_shards (const HrModel     *model,
              const HrInference *inf,
              const HrParams    *params,
              bool               moe,
              LayerShards       *s)
{
  double layer_params = (double) (moe ? params->moe_layer : params->dense_layer);
  double norms = (double) model->norms_per_layer * norm_size (model, model->hidden_size)
                 + (model->sub_norms ? norm_size (model, model->hidden_size)
                                       + norm_size (model, model->ffn_size) : 0.0);
  double router = moe && params->n_moe_layers > 0 ?
                  (double) params->router / (double) params->n_moe_layers : 0.0;
  double attention;
  double mlp;
  LayerShards biases = { 0 };

  *s = (LayerShards) { 0 };
  attention_shards (model, inf, s);
  attention = attention_total (model, inf, s);
  s->replicated_vectors += norms + router;

  if (moe)
    {
      mlp_bias_shards (model, (double) model->expert_ffn_size, (double) model->n_experts, &biases);
      /* The shared experts are one MLP of n_shared × their width. */
      mlp_bias_shards (model, (double) (model->n_shared_experts * model->shared_expert_ffn_size),
                       1.0, &biases);
    }
  else
    mlp_bias_shards (model, (double) model->ffn_size, 1.0, &biases);
  s->split_vectors += biases.split_vectors;
  s->replicated_vectors += biases.replicated_vectors;

  mlp = layer_params - attention - norms - router - biases.split_vectors - biases.replicated_vectors;
  s->split_matrices += fmax (mlp, 0.0);
}

/* Bytes of n matrix elements at the serving precision. Group-wise int8/int4
 * follow the AWQ layout (Lin et al. 2024; AutoAWQ WQLinear_GEMM and vLLM
 * AWQLinearMethod): per group of group_size input weights, one fp16 scale and
 * one zero point packed at the weight's width. fp8 keeps one fp32 scale per
 * tensor, a few bytes per matrix, left out. */
double
hr_inference_matrix_bytes (const HrInference *inf,
                           double             n)
{
  double bytes = hr_weight_precision_bytes (inf->weights);

  if (is_quantised_groupwise (inf->weights))
    return n * bytes + n / (double) inf->group_size * (BYTES_16BIT + bytes);
  return n * bytes;
}

static int64_t
padded_vocab (const HrModel *model)
{
  return (model->vocab_size + VOCAB_PADDING - 1) / VOCAB_PADDING * VOCAB_PADDING;
}

/* Width of the token embedding rows (OPT projects a smaller table). */
static int64_t
embedding_width (const HrModel *model)
{
  return model->embed_proj_dim > 0 ? model->embed_proj_dim : model->hidden_size;
}

/* VocabParallelEmbedding / ParallelLMHead: the padded vocabulary split over
 * TP. The token table and LM head are quantised only when
 * keep_embeddings_16bit is off. */
double
hr_inference_vocab_table_bytes (const HrModel     *model,
                                const HrInference *inf,
                                bool               head,
                                bool               bias)
{
  double rows = (double) padded_vocab (model) / (double) inf->tensor_parallel;
  double n = rows * (double) embedding_width (model);
  double vectors = bias ? rows : 0.0;

  /* GGUF files quantise both tables, whatever keep_embeddings_16bit says. */
  if (hr_weights_is_gguf (inf->weights))
    return hr_gguf_vocab_bytes (model, inf->weights, head, n) + vectors * 4.0;

  if (inf->keep_embeddings_16bit)
    return (n + vectors) * BYTES_16BIT;
  return hr_inference_matrix_bytes (inf, n) + vectors * BYTES_16BIT;
}

static double
layer_weight_bytes (const HrInference *inf,
                    const LayerShards *s)
{
  double tp = (double) inf->tensor_parallel;

  return hr_inference_matrix_bytes (inf, s->split_matrices / tp + s->replicated_matrices) +
         (s->split_vectors / tp + s->replicated_vectors) * BYTES_16BIT;
}

/* ---- Memory ---------------------------------------------------------------- */

/* Elements per token alive at the peak of one layer's forward on one rank:
 * the residual stream and the normed input (2h), plus the larger of the
 * attention outputs (q, k, v and the attention output; FlashAttention keeps
 * no s×s scores: Dao et al. 2022, §3.1) and the MLP intermediates (vLLM's
 * merged gate_up output 2f and the activated f; fused MoE keeps for each of
 * the k chosen experts 2f + f + h: fused_moe.py intermediate caches). */
static double
layer_peak_elements_per_token (const HrModel     *model,
                               const HrInference *inf)
{
  double tp = (double) inf->tensor_parallel;
  double h = (double) model->hidden_size;
  double nh = (double) model->n_heads / tp;
  double hd = (double) hr_model_head_dim (model);
  double gate = model->ffn_kind == HR_FFN_GATED ? 3.0 : 2.0;
  double attention;
  double mlp = 0.0;

  if (hr_model_uses_mla (model))
    attention = nh * (double) (model->qk_nope_head_dim + model->qk_rope_head_dim) +
                (double) (model->kv_lora_rank + model->qk_rope_head_dim) +
                nh * (double) (model->qk_nope_head_dim + model->v_head_dim) +
                nh * (double) model->v_head_dim;
  else
    attention = (2.0 * nh + 2.0 * (double) hr_inference_kv_heads_per_gpu (model, inf)) * hd;
  /* AFMoE's gate output; DeepSeek-V3.2's indexer q, k and head weights. */
  if (model->attention_gate)
    attention += nh * hd;
  if (model->index_heads > 0)
    attention += (double) (model->index_heads * model->index_head_dim + model->index_head_dim
                           + model->index_heads);

  if (model->n_experts > 0)
    mlp = (double) model->experts_per_token * (gate * (double) model->expert_ffn_size / tp + h) +
          gate * (double) (model->n_shared_experts * model->shared_expert_ffn_size) / tp;
  if (model->n_experts == 0 || model->first_dense_layers > 0 || model->moe_layer_freq > 1)
    mlp = fmax (mlp, gate * (double) model->ffn_size / tp);

  return 2.0 * h + fmax (attention, mlp);
}

int64_t
hr_inference_prefill_chunk_tokens (const HrInference *inf)
{
  if (inf->prefill_chunk > 0 && inf->prefill_chunk < inf->prompt)
    return inf->prefill_chunk;
  return inf->prompt;
}

/* Fills `memory` for one stage. */
void
hr_inference_stage_memory (const HrModel     *model,
                           const HrInference *inf,
                           const HrParams    *params,
                           const HrGpu       *gpu,
                           int64_t            stage,
                           HrInferenceMemory *m)
{
  int64_t pp = inf->pipeline_parallel;
  int64_t per_stage = model->n_layers / pp;
  int64_t first = stage * per_stage;
  int64_t context = inf->prompt + inf->generate;
  double kv_token_layer = hr_inference_kv_bytes_per_token_layer (model, inf);
  double batch = (double) inf->batch;
  double weights = 0.0;
  double kv = 0.0;
  double kv_uncapped = 0.0;
  double kv_windowed = 0.0;  /* the part of kv held by windowed or chunked layers */
  double activations;
  HrLayerCounts counts;

  /* Identical layers once, times their count (never a walk over the layers). */
  hr_model_count_layers (model, first, first + per_stage, &counts);
  for (int moe = 0; moe < 2; moe++)
    {
      LayerShards s;
      double n_kind = (double) (counts.n[moe][0] + counts.n[moe][1]);

      if (n_kind == 0)
        continue;
      layer_shards (model, inf, params, moe, &s);
      if (hr_weights_is_gguf (inf->weights))
        {
          /* llama.cpp types some tensors richer in some layers: those
           * layers' share of this kind (exact when the stage has one kind). */
          double rich = floor (n_kind * (double) hr_gguf_rich_layers (model, inf->weights, first, first + per_stage) /
                               (double) per_stage + 0.5);
          double tp = (double) inf->tensor_parallel;
          double matrices = s.split_matrices / tp + s.replicated_matrices;
          double vectors = s.split_vectors / tp + s.replicated_vectors;

          weights += rich * hr_gguf_layer_bytes (model, inf->weights, moe, true, inf->tensor_parallel,
                                                 matrices, vectors) +
                     (n_kind - rich) * hr_gguf_layer_bytes (model, inf->weights, moe, false,
                                                            inf->tensor_parallel, matrices, vectors);
        }
      else if (inf->weights == HR_WEIGHTS_FP8 && inf->fp8_keep_attention)
        {
          /* Llama 3 (Dubey et al. 2024, §6.2, "FP8 quantization"): only the
           * feed-forward layers are fp8; self-attention, and the first and
           * last layers whole, stay 16-bit. Row-wise fp32 scales (4 B per
           * output row) are left out, as per-tensor ones are. */
          LayerShards a = { 0 };
          double tp = (double) inf->tensor_parallel;
          double matrices = s.split_matrices / tp + s.replicated_matrices;
          double vectors = (s.split_vectors / tp + s.replicated_vectors) * BYTES_16BIT;
          double attention;
          double whole = 0.0;

          attention_shards (model, inf, &a);
          attention = a.split_matrices / tp + a.replicated_matrices;
          if (stage == 0 && hr_model_layer_is_moe (model, 0) == (moe != 0))
            whole += 1.0;
          if (stage == pp - 1 && model->n_layers > 1 &&
              hr_model_layer_is_moe (model, model->n_layers - 1) == (moe != 0))
            whole += 1.0;
          whole = fmin (whole, n_kind);
          weights += whole * (matrices * BYTES_16BIT + vectors) +
                     (n_kind - whole) * ((matrices - attention) + attention * BYTES_16BIT + vectors);
        }
      else
        weights += n_kind * layer_weight_bytes (inf, &s);
      for (int sliding = 0; sliding < 2; sliding++)
        {
          double n = (double) counts.n[moe][sliding];

          double layer_kv = n * batch * (double) cached_tokens (model, inf, sliding, context,
                                                                inf->cap_sliding_window) *
                            kv_token_layer;

          kv += layer_kv;
          if (sliding)
            kv_windowed += layer_kv;
          kv_uncapped += n * batch * (double) cached_tokens (model, inf, sliding, context, false) *
                         kv_token_layer;
        }
    }

  activations = BYTES_16BIT * batch * (double) hr_inference_prefill_chunk_tokens (inf) *
                layer_peak_elements_per_token (model, inf);

  if (stage == 0)
    {
      double position = (double) params->position_embedding;
      double projections = (double) params->embedding -
                           (double) model->vocab_size * (double) embedding_width (model);

      weights += hr_inference_vocab_table_bytes (model, inf, false, false)
                 + (position + fmax (projections, 0.0)) * BYTES_16BIT;
    }
  if (stage == pp - 1)
    {
      /* With pp > 1 the last stage holds its own LM head even when tied
       * (vLLM: the first stage owns embed_tokens, the last lm_head). */
      if (!model->tied_embeddings || pp > 1)
        weights += hr_inference_vocab_table_bytes (model, inf, true, model->lm_head_bias);
      /* GGUF keeps norms in F32. */
      weights += final_norm_params (model) * (hr_weights_is_gguf (inf->weights) ? 4.0 : BYTES_16BIT);
      /* Logits of the last position of each sequence: this rank's vocab
       * shard at 16 bit, then gathered whole and cast to fp32 to sample. */
      activations += batch * (double) padded_vocab (model) *
                     (BYTES_16BIT / (double) inf->tensor_parallel + 4.0);
    }

  *m = (HrInferenceMemory) {
    .weights = weights,
    .kv_cache = kv,
    .kv_cache_per_token = (double) per_stage * kv_token_layer,
    .kv_cache_uncapped = kv_uncapped,
    .kv_cache_windowed = kv_windowed,
    .activations = activations,
    .overhead = inf->overhead_bytes,
    .capacity = gpu->memory_bytes,
    .stage = stage,
    .stage_layers = per_stage,
    .kv_heads_per_gpu = hr_inference_kv_heads_per_gpu (model, inf),
  };
  m->total = m->weights + m->kv_cache + m->activations + m->overhead;
  m->fits = m->total <= m->capacity;
  m->headroom = m->fits ? m->capacity - m->total : 0.0;
  m->overflow = m->fits ? 0.0 : m->total - m->capacity;
}

/* The most loaded stage; settings and params already valid. */
static void
memory_unchecked (const HrModel     *model,
                  const HrInference *inf,
                  const HrParams    *params,
                  const HrGpu       *gpu,
                  HrInferenceMemory *memory)
{
  hr_inference_stage_memory (model, inf, params, gpu, 0, memory);
  for (int64_t stage = 1; stage < inf->pipeline_parallel; stage++)
    {
      HrInferenceMemory m;

      hr_inference_stage_memory (model, inf, params, gpu, stage, &m);
      if (m.total > memory->total)
        *memory = m;
    }
}

HrStatus
hr_inference_memory (const HrModel     *model,
                     const HrInference *inference,
                     const HrGpu       *gpu,
                     HrInferenceMemory *memory,
                     HrError           *err)
{
  HrParams params;
  HrStatus status;

  if ((status = hr_inference_validate (model, inference, err)) != HR_OK ||
      (status = hr_inference_validate_gpu (gpu, err)) != HR_OK ||
      (status = hr_model_params (model, &params, err)) != HR_OK)
    return status;
  memory_unchecked (model, inference, &params, gpu, memory);
  return HR_OK;
}

/* ---- Limits ---------------------------------------------------------------- */

/* The largest batch (vary_batch) or prompt in [1, MAX_TOKENS] that fits,
 * memory growing with both; 0 when even 1 does not fit. */
static int64_t
largest_fitting (const HrModel     *model,
                 const HrInference *base,
                 const HrParams    *params,
                 const HrGpu       *gpu,
                 bool               vary_batch)
{
  HrInference trial = *base;
  int64_t *value = vary_batch ? &trial.batch : &trial.prompt;
  int64_t lo = 0;
  int64_t hi = 1;
  HrInferenceMemory m;

  /* Double until it no longer fits, then bisect: lo fits, hi does not. */
  for (;;)
    {
      *value = hi;
      memory_unchecked (model, &trial, params, gpu, &m);
      if (!m.fits)
        break;
      lo = hi;
      if (hi >= MAX_TOKENS)
        return lo;
      hi *= 2;
    }
  while (hi - lo > 1)
    {
      int64_t mid = lo + (hi - lo) / 2;

      *value = mid;
      memory_unchecked (model, &trial, params, gpu, &m);
      if (m.fits)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

HrStatus
hr_inference_limits (const HrModel     *model,
                     const HrInference *inf,
                     const HrGpu       *gpu,
                     HrInferenceLimits *limits,
                     HrError           *err)
{
  HrParams params;
  HrStatus status;
  int64_t max_prompt;

  if ((status = hr_inference_validate (model, inf, err)) != HR_OK ||
      (status = hr_inference_validate_gpu (gpu, err)) != HR_OK ||
      (status = hr_model_params (model, &params, err)) != HR_OK)
    return status;

  *limits = (HrInferenceLimits) { 0 };
  limits->max_batch = largest_fitting (model, inf, &params, gpu, true);
  max_prompt = largest_fitting (model, inf, &params, gpu, false);
  limits->max_context = max_prompt > 0 ? max_prompt + inf->generate : 0;
  /* No longer than the model reads: past max_position_embeddings the
   * positions were never trained (issue 16). */
  if (limits->max_context > model->max_positions)
    limits->max_context = model->max_positions;

  /* Fewest GPUs, up to MAX_GPUS: for each count, every valid split, widest
   * TP first (TP must divide the heads and PP the layers). */
  for (int64_t gpus = 1; gpus <= MAX_GPUS; gpus++)
    {
      for (int64_t tp = gpus < model->n_heads ? gpus : model->n_heads; tp >= 1; tp--)
        {
          HrInference trial = *inf;
          HrInferenceMemory m;

          if (gpus % tp != 0)
            continue;
          trial.tensor_parallel = tp;
          trial.pipeline_parallel = gpus / tp;
          trial.gpus = gpus;
          if (hr_inference_validate (model, &trial, NULL) != HR_OK)
            continue;
          memory_unchecked (model, &trial, &params, gpu, &m);
          if (m.fits)
            {
              limits->min_gpus = gpus;
              limits->min_gpus_tensor_parallel = tp;
              limits->min_gpus_pipeline_parallel = gpus / tp;
              return HR_OK;
            }
        }
    }
  return HR_OK;
}
