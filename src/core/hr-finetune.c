/* hr-finetune.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sources, cited where used:
 * [LoRA]   Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language
 *          Models", arXiv 2106.09685.
 * [QLoRA]  Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized
 *          LLMs", arXiv 2305.14314.
 * [DoRA]   Liu et al. 2024, "DoRA: Weight-Decomposed Low-Rank Adaptation",
 *          arXiv 2402.09353.
 * [Int8]   Dettmers et al. 2022, "LLM.int8()", arXiv 2208.07339.
 * [PEFT]   huggingface/peft src/peft/tuners/lora/layer.py (Linear.forward,
 *          LoraLayer.update_layer, ParamWrapper for 3-D expert parameters),
 *          lora/dora.py (DoraLinearLayer.forward), lora/variants.py.
 * docs/training.md (Fine-tuning) explains every formula.
 */
#include "hr-finetune.h"

#include <stdio.h>
#include <string.h>

#include "hr-flops.h"
#include "hr-internal.h"

/* [QLoRA] §2: 4-bit values in blocks of 64 with one absmax each (32 bits,
 * or 8 bits once double-quantised, with one 32-bit constant per 256 of
 * those 8-bit absmaxes). */
#define QUANT_BLOCK 64.0
#define QUANT_DQ_BLOCK 256.0

/* A CUDA dropout mask is a bool per element (at::native_dropout). */
#define MASK_BYTES 1.0

static const char * const method_names[] = {
  [HR_FINETUNE_FULL] = "full",
  [HR_FINETUNE_LORA] = "lora",
  [HR_FINETUNE_QLORA] = "qlora",
  [HR_FINETUNE_DORA] = "dora",
  [HR_FINETUNE_FREEZE] = "freeze",
};

static const char * const quant_names[] = {
  [HR_QUANT_NONE] = "none",
  [HR_QUANT_NF4] = "nf4",
  [HR_QUANT_FP4] = "fp4",
  [HR_QUANT_INT8] = "int8",
};

static const char * const scope_names[] = {
  [HR_QUANT_SCOPE_LINEAR] = "linear",
  [HR_QUANT_SCOPE_ADAPTED] = "adapted",
  [HR_QUANT_SCOPE_ALL] = "all",
};

static const char * const target_names[] = {
  "q", "k", "v", "o", "gate", "up", "down", "lm_head", "embed",
};

DEFINE_NAMES (hr_finetune_method, HrFinetuneMethod, method_names)
DEFINE_NAMES (hr_quant, HrQuant, quant_names)
DEFINE_NAMES (hr_quant_scope, HrQuantScope, scope_names)

bool
hr_finetune_targets_from_string (const char *text,
                                 unsigned   *targets)
{
  /* target_names with PEFT's "embeddings" spelling of embed after them */
  static const char * const spellings[] = {
    "q", "k", "v", "o", "gate", "up", "down", "lm_head", "embed", "embeddings",
  };
  unsigned set;

  if (text != NULL && strcmp (text, "attention") == 0)
    {
      *targets = HR_TARGETS_ATTENTION;
      return true;
    }
  if (text != NULL && strcmp (text, "all-linear") == 0)
    {
      *targets = HR_TARGETS_ALL_LINEAR;
      return true;
    }
  if (!hr_name_list_bits (text, spellings, N_ELEMENTS (spellings), &set))
    return false;
  if (set & (1u << 9))
    set = (set & ~(1u << 9)) | HR_TARGET_EMBEDDING;
  *targets = set;
  return true;
}

void
hr_finetune_targets_to_string (unsigned targets,
                               char    *buf,
                               size_t   size)
{
  size_t used = 0;

  if (size == 0)
    return;
  buf[0] = '\0';
  for (size_t i = 0; i < N_ELEMENTS (target_names); i++)
    if (targets & (1u << i))
      {
        int n = snprintf (buf + used, size - used, "%s%s", used > 0 ? "," : "", target_names[i]);

        if (n < 0 || (size_t) n >= size - used)
          return;
        used += (size_t) n;
      }
}

/* Hugging Face modules (transformers models/<type>/modeling_<type>.py, or
 * the model repository's own for remote code) that hold q, k and v, or gate
 * and up, in one nn.Linear (Conv1D for gpt2): PEFT wraps that one module.
 * Remote code: InternLM2's attention.wqkv, Baichuan's self_attn.W_pack,
 * Qwen-1's attn.c_attn. */
static const char * const fused_qkv_types[] = {
  "gpt2", "gpt_neox", "falcon", "bloom", "phi3", "gpt_bigcode", "mpt", "dbrx", "chatglm",
  "codegen", "persimmon", "internlm2", "baichuan", "qwen",
};
static const char * const fused_gate_up_types[] = { "phi3", "chatglm" };

void
hr_finetune_set_model_type (HrFinetune *f,
                            const char *model_type)
{
  int v;

  f->fused_qkv = hr_name_index (fused_qkv_types, N_ELEMENTS (fused_qkv_types), model_type, &v);
  f->fused_gate_up = hr_name_index (fused_gate_up_types, N_ELEMENTS (fused_gate_up_types),
                                    model_type, &v);
}

/* Settings */

void
hr_finetune_init (HrFinetune *finetune)
{
  memset (finetune, 0, sizeof *finetune);
  finetune->method = HR_FINETUNE_FULL;
  /* LitGPT finetune/lora.py and torchtune's Llama 2 recipes: r 8, alpha 16,
   * on q and v; PEFT's LoraConfig defaults to r 8 too. */
  finetune->rank = 8;
  finetune->alpha = 16;
  finetune->dropout = 0;
  finetune->targets = HR_TARGETS_ATTENTION;
  finetune->freeze_layers = 0;
  /* NF4 ([QLoRA] §3); double quantisation is opt-in, as in transformers'
   * BitsAndBytesConfig (bnb_4bit_use_double_quant=False). */
  finetune->quant = HR_QUANT_NF4;
  finetune->double_quant = false;
  finetune->quant_scope = HR_QUANT_SCOPE_LINEAR;
  finetune->fp32_adapters = false;
  finetune->dora_base_rerun = true;
  finetune->frozen_gradients = false;
}

bool
hr_finetune_is_adapter (const HrFinetune *finetune)
{
  return finetune->method == HR_FINETUNE_LORA || finetune->method == HR_FINETUNE_QLORA
         || finetune->method == HR_FINETUNE_DORA;
}

bool
hr_finetune_is_full (const HrFinetune *finetune)
{
  return finetune->method == HR_FINETUNE_FULL;
}

static bool
quantized (const HrFinetune *finetune)
{
  return finetune->method == HR_FINETUNE_QLORA && finetune->quant != HR_QUANT_NONE;
}

bool
hr_finetune_whole_nf4_load (const HrFinetune *finetune)
{
  return finetune->method == HR_FINETUNE_QLORA && finetune->quant == HR_QUANT_NF4
         && finetune->quant_load_whole;
}

HrStatus
hr_finetune_validate (const HrFinetune *f,
                      const HrModel    *model,
                      HrError          *err)
{
  if ((unsigned) f->method >= N_ELEMENTS (method_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "method", f->method, 0, NULL);
  if ((unsigned) f->quant >= N_ELEMENTS (quant_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "quant", f->quant, 0, NULL);
  if ((unsigned) f->quant_scope >= N_ELEMENTS (scope_names))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "quant_scope", f->quant_scope, 0, NULL);
  if (!hr_finetune_is_adapter (f))
    {
      if (f->method == HR_FINETUNE_FREEZE
          && (f->freeze_layers < 0 || f->freeze_layers > model->n_layers))
        return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "freeze_layers", f->freeze_layers,
                             model->n_layers, "0 to num_hidden_layers");
      return HR_OK;
    }
  if (f->rank <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "lora_rank", f->rank, 0, NULL);
  if (f->rank > model->hidden_size)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "lora_rank", f->rank, model->hidden_size,
                         "at most hidden_size");
  if (!(f->dropout >= 0 && f->dropout < 1))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "lora_dropout",
                         (int64_t) (f->dropout * 100), 100, "a probability in [0, 1), in percent");
  if ((f->targets & ~HR_TARGETS_MASK) != 0)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "lora_targets", 0, 0,
                         "an empty item or a name other than q, k, v, o, gate, up, down, lm_head, embed, "
                         "attention and all-linear");
  if ((f->targets & HR_TARGETS_MASK) == 0)
    return hr_error_set (err, HR_ERROR_MISSING, "lora_targets", 0, 0,
                         "at least one of q, k, v, o, gate, up, down, lm_head, embed");
  /* JetMoE's q and o are expert tensors (JetMoeParallelExperts) and k and v
   * one fused kv_proj: none is the Linear a q/k/v/o target adapts. */
  if ((f->targets & (HR_TARGET_Q | HR_TARGET_K | HR_TARGET_V | HR_TARGET_O))
      && model->attention_experts > 0)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "lora_targets",
                         f->targets & (HR_TARGET_Q | HR_TARGET_K | HR_TARGET_V | HR_TARGET_O), 0,
                         "the model's attention is a mixture of experts, not q/k/v/o projections");
  if ((f->targets & HR_TARGET_GATE) && model->ffn_kind != HR_FFN_GATED)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "lora_targets", HR_TARGET_GATE, 0,
                         "the model's MLP has no gate projection");
  if (f->method == HR_FINETUNE_QLORA && f->quant == HR_QUANT_NONE)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "quant", f->quant, 0,
                         "QLoRA needs nf4, fp4 or int8");
  /* torchao 0.1 quantised to NF4 only. */
  if (f->method == HR_FINETUNE_QLORA && f->quant_load_whole && f->quant != HR_QUANT_NF4)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "quant_load_whole", 1, 0,
                         "torchao 0.1 quantised to NF4 only: set the base weight quantisation "
                         "to nf4, or turn this off");
  /* hr-finetune-load.c replays torchtune 0.1's dense Llama builders, layer
   * by layer. */
  if (hr_finetune_whole_nf4_load (f) && model->n_experts > 0)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "quant_load_whole", 1, 0,
                         "torchtune 0.1, which quantised whole tensors, built no "
                         "mixture-of-experts model");
  if (hr_finetune_whole_nf4_load (f) && model->n_layers > HR_FINETUNE_LOAD_MAX_LAYERS)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "quant_load_whole", model->n_layers,
                         HR_FINETUNE_LOAD_MAX_LAYERS, "the load is replayed for up to this many layers");
  return HR_OK;
}

/* The linear matrices of the model */

typedef enum
{
  GROUP_ATTN,   /* reads the attention input (the norm output) */
  GROUP_MLP,    /* reads the MLP input */
  GROUP_ROUTED, /* routed experts' gate/up: read the dispatched token copies */
  GROUP_DOWN,   /* reads the MLP product */
  GROUP_EDOWN,  /* routed experts' down */
  GROUP_O,      /* reads the attention output */
  GROUP_INNER,  /* MLA's latent projections */
} Group;

typedef struct
{
  unsigned mask;     /* targets that adapt it */
  int64_t  in, out;
  int64_t  count;    /* copies per layer (routed experts: n_experts) */
  int64_t  active;   /* copies a token passes through */
  Group    group;
  int      component;/* HrFlopsComponent */
} Matrix;

#define MAX_MATRICES 12

static int
layer_matrices (const HrModel    *m,
                const HrFinetune *f,
                bool              is_moe,
                Matrix           *out)
{
  int64_t h = m->hidden_size, heads = m->n_heads;
  int n = 0;

#define ADD(mask_, in_, out_, count_, active_, group_, comp_) \
  out[n++] = (Matrix) { (mask_), (in_), (out_), (count_), (active_), (group_), (comp_) }

  if (hr_model_uses_mla (m))
    {
      /* transformers' DeepseekV2/V3Attention: q_proj or q_a_proj + q_b_proj,
       * kv_a_proj_with_mqa and kv_b_proj (targeted by k or v), o_proj. */
      int64_t qh = m->qk_nope_head_dim + m->qk_rope_head_dim;

      if (m->q_lora_rank > 0)
        {
          ADD (HR_TARGET_Q, h, m->q_lora_rank, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
          ADD (HR_TARGET_Q, m->q_lora_rank, heads * qh, 1, 1, GROUP_INNER, HR_FLOPS_ATTN_PROJ);
        }
      else
        ADD (HR_TARGET_Q, h, heads * qh, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
      ADD (HR_TARGET_K | HR_TARGET_V, h, m->kv_lora_rank + m->qk_rope_head_dim, 1, 1,
           GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
      ADD (HR_TARGET_K | HR_TARGET_V, m->kv_lora_rank,
           heads * (m->qk_nope_head_dim + m->v_head_dim), 1, 1, GROUP_INNER, HR_FLOPS_ATTN_PROJ);
      ADD (HR_TARGET_O, heads * m->v_head_dim, h, 1, 1, GROUP_O, HR_FLOPS_ATTN_OUT);
      /* DeepseekV32Indexer's wq_b (on q_a's normed output), wk and
       * weights_proj: no preset targets them. */
      if (m->index_heads > 0)
        {
          ADD (0, m->q_lora_rank, m->index_heads * m->index_head_dim, 1, 1, GROUP_INNER,
               HR_FLOPS_ATTN_PROJ);
          ADD (0, h, m->index_head_dim, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
          ADD (0, h, m->index_heads, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
        }
    }
  else
    {
      int64_t d = hr_model_head_dim (m);
      int64_t q = heads * d, kv = m->n_kv_heads * d;

      if (f->fused_qkv)
        ADD (HR_TARGET_Q | HR_TARGET_K | HR_TARGET_V, h, q + 2 * kv, 1, 1, GROUP_ATTN,
             HR_FLOPS_ATTN_PROJ);
      else
        {
          ADD (HR_TARGET_Q, h, q, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
          ADD (HR_TARGET_K, h, kv, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
          ADD (HR_TARGET_V, h, kv, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
        }
      ADD (HR_TARGET_O, q, h, 1, 1, GROUP_O, HR_FLOPS_ATTN_OUT);
      /* AfmoeAttention.gate_proj: PEFT's "gate_proj" matches it as well as the
       * MLP's, by the name's suffix. */
      if (m->attention_gate)
        ADD (HR_TARGET_GATE, h, q, 1, 1, GROUP_ATTN, HR_FLOPS_ATTN_PROJ);
    }

  /* One MLP of width `ffn`, `count` copies of which a token uses `active`. */
#define MLP(ffn_, count_, active_, in_group_, down_group_)                                   \
  do {                                                                                       \
    if (m->ffn_kind == HR_FFN_GATED && f->fused_gate_up)                                     \
      ADD (HR_TARGET_GATE | HR_TARGET_UP, h, 2 * (ffn_), count_, active_, in_group_,         \
           HR_FLOPS_MLP);                                                                    \
    else if (m->ffn_kind == HR_FFN_GATED)                                                    \
      {                                                                                      \
        ADD (HR_TARGET_GATE, h, ffn_, count_, active_, in_group_, HR_FLOPS_MLP);             \
        ADD (HR_TARGET_UP, h, ffn_, count_, active_, in_group_, HR_FLOPS_MLP);               \
      }                                                                                      \
    else                                                                                     \
      ADD (HR_TARGET_UP, h, ffn_, count_, active_, in_group_, HR_FLOPS_MLP);                 \
    ADD (HR_TARGET_DOWN, ffn_, h, count_, active_, down_group_, HR_FLOPS_MLP);               \
  } while (0)

  if (!is_moe)
    MLP (m->ffn_size, 1, 1, GROUP_MLP, GROUP_DOWN);
  else
    {
      /* The router is a linear no preset targets (0 mask). Shared experts:
       * one MLP of n_shared × width (DeepseekV3MLP, Qwen2-MoE shared_expert). */
      ADD (0, h, m->n_experts + m->zero_experts, 1, 1, GROUP_MLP, HR_FLOPS_ROUTER);
      MLP (m->expert_ffn_size, m->n_experts, m->experts_per_token, GROUP_ROUTED, GROUP_EDOWN);
      if (m->n_shared_experts > 0 && m->shared_expert_ffn_size > 0)
        MLP (m->n_shared_experts * m->shared_expert_ffn_size, 1, 1, GROUP_MLP, GROUP_DOWN);
    }
#undef MLP
#undef ADD
  return n;
}

static bool
adapted (const HrFinetune *f,
         const Matrix     *mat)
{
  return hr_finetune_is_adapter (f) && (f->targets & mat->mask) != 0;
}

static bool
quantized_matrix (const HrFinetune *f,
                  const Matrix     *mat)
{
  if (!quantized (f))
    return false;
  if (f->quant_scope == HR_QUANT_SCOPE_ADAPTED)
    return adapted (f, mat);
  return true;
}

int
hr_finetune_dense_linears (const HrModel    *model,
                           const HrFinetune *f,
                           HrFinetuneLinear *linears)
{
  Matrix mats[MAX_MATRICES];
  int n = layer_matrices (model, f, false, mats);

  for (int i = 0; i < n; i++)
    linears[i] = (HrFinetuneLinear) { mats[i].in, mats[i].out, quantized_matrix (f, &mats[i]),
                                      adapted (f, &mats[i]),
                                      mats[i].group == GROUP_MLP || mats[i].group == GROUP_DOWN };
  return n;
}

/* A quantised frozen linear saves its input for the backward: bitsandbytes'
 * MatMul8bitLt always (ctx.tensors = (CAt, subA, A) whenever the input needs
 * a gradient), its MatMul4Bit before 0.43.2 (ctx.tensors = (A, B)). */
static bool
quant_saves_input (const HrFinetune *f)
{
  return f->quant == HR_QUANT_INT8 || f->quant_saves_input;
}

double
hr_finetune_quant_bytes (const HrFinetune *f,
                         int64_t           in_features)
{
  switch (f->quant)
    {
    case HR_QUANT_NF4:
    case HR_QUANT_FP4:
      /* [QLoRA] §2: 4 bits + 32/64 bits of absmax per parameter; double
       * quantisation: 8/64 + 32/(64·256) bits. */
      if (f->double_quant)
        return 0.5 + 1 / QUANT_BLOCK + 4 / (QUANT_BLOCK * QUANT_DQ_BLOCK);
      return 0.5 + 4 / QUANT_BLOCK;
    case HR_QUANT_INT8:
      /* [Int8] §3: int8 weights, one fp32 absmax per row (output feature). */
      return in_features > 0 ? 1 + 4.0 / (double) in_features : 1;
    case HR_QUANT_NONE:
    default:
      return 0;
    }
}

/* Adapter parameters of one adapted matrix: [PEFT] update_layer,
 * lora_A = Linear(in, r), lora_B = Linear(r, out), no biases; the 3-D expert
 * parameter of ParamWrapper gets Linear(in, r·E) and Linear(r·E, out):
 * r·E·(in + out), the same as E separate adapters. */
static int64_t
adapter_params (const HrFinetune *f,
                const Matrix     *mat)
{
  return mat->count * f->rank * (mat->in + mat->out);
}

/* Elements of a tensor a paged optimizer pages: bitsandbytes
 * optim/optimizer.py get_state_buffer gives tensors of 1e5 elements or more
 * unified memory, smaller ones a plain GPU tensor. */
static int64_t
paged_elements (int64_t numel)
{
  return numel >= 100000 ? numel : 0;
}

/* The same for one adapted matrix's lora_A (r·E × in) and lora_B
 * (out × r·E), and DoRA's magnitude (out per copy). */
static int64_t
adapter_paged (const HrFinetune *f,
               const Matrix     *mat)
{
  int64_t paged = paged_elements (mat->count * f->rank * mat->in)
                  + paged_elements (mat->count * f->rank * mat->out);

  if (f->method == HR_FINETUNE_DORA)
    paged += paged_elements (mat->count * mat->out);
  return paged;
}

HrStatus
hr_finetune_params (const HrModel    *model,
                    const HrFinetune *f,
                    double            compute_bytes,
                    HrFinetuneParams *out,
                    HrError          *err)
{
  HrParams params;
  HrStatus status;
  int64_t n_kind[2];
  double quant_bytes = 0;

  memset (out, 0, sizeof *out);
  if ((status = hr_model_params (model, &params, err)) != HR_OK)
    return status;
  if ((status = hr_finetune_validate (f, model, err)) != HR_OK)
    return status;

  /* Full and freeze training: every matrix and embedding has 1e5 elements
   * or more; the norms' and biases' vectors (under 0.01 % of the
   * parameters) are counted paged too. */
  if (f->method == HR_FINETUNE_FULL)
    {
      out->trainable = params.total;
      out->paged = out->trainable;
      return HR_OK;
    }
  if (f->method == HR_FINETUNE_FREEZE)
    {
      /* The embeddings (and a tied head with them) and the first N layers. */
      HrLayerCounts frozen;

      /* Counted by kind, not layer by layer (issue 15). */
      hr_model_count_layers (model, 0, f->freeze_layers, &frozen);
      out->frozen = params.embedding + params.position_embedding
                    + (frozen.n[0][0] + frozen.n[0][1]) * params.dense_layer
                    + (frozen.n[1][0] + frozen.n[1][1]) * params.moe_layer;
      out->trainable = params.total - out->frozen;
      out->paged = out->trainable;
      out->frozen_bytes = (double) out->frozen * compute_bytes;
      return HR_OK;
    }

  n_kind[0] = params.n_dense_layers;
  n_kind[1] = params.n_moe_layers;
  for (int is_moe = 0; is_moe < 2; is_moe++)
    {
      Matrix mats[MAX_MATRICES];
      int n;

      if (n_kind[is_moe] == 0)
        continue;
      n = layer_matrices (model, f, is_moe, mats);
      for (int i = 0; i < n; i++)
        {
          int64_t size = mats[i].in * mats[i].out;

          if (adapted (f, &mats[i]))
            {
              out->adapters += n_kind[is_moe] * adapter_params (f, &mats[i]);
              out->paged += n_kind[is_moe] * adapter_paged (f, &mats[i]);
              if (f->method == HR_FINETUNE_DORA)
                /* [DoRA] Eq. 5, PEFT DoraLinearLayer: ||W + ΔW|| per output row. */
                out->magnitude += n_kind[is_moe] * mats[i].count * mats[i].out;
              out->adapted_matrices += n_kind[is_moe] * mats[i].count;
              if (size > out->largest_adapted)
                out->largest_adapted = size;
            }
          if (quantized_matrix (f, &mats[i]))
            {
              out->quantized += n_kind[is_moe] * mats[i].count * size;
              quant_bytes += (double) (n_kind[is_moe] * mats[i].count * size)
                             * hr_finetune_quant_bytes (f, mats[i].in);
              if (size > out->largest_quantized)
                out->largest_quantized = size;
            }
        }
    }

  /* The output layer: a Linear(h, vocab) that PEFT's lora.Linear wraps. */
  if (params.lm_head > 0 || model->tied_embeddings)
    {
      int64_t in = model->embed_proj_dim > 0 ? model->embed_proj_dim : model->hidden_size;
      Matrix head = { HR_TARGET_LM_HEAD, in, model->vocab_size, 1, 1, GROUP_INNER,
                      HR_FLOPS_LM_HEAD };

      if (adapted (f, &head))
        {
          out->adapters += adapter_params (f, &head);
          out->paged += adapter_paged (f, &head);
          if (f->method == HR_FINETUNE_DORA)
            out->magnitude += head.out;
          out->adapted_matrices++;
        }
      /* LitGPT quantises the head too; a tied head is the embedding table.
       * torchtune never does, adapted or not (its LoRA builders: "quantize_base
       * is not applied to final output_proj currently"). */
      if (quantized (f) && !model->tied_embeddings && f->quant_scope == HR_QUANT_SCOPE_ALL)
        {
          int64_t size = in * model->vocab_size;

          out->quantized += size;
          quant_bytes += (double) size * hr_finetune_quant_bytes (f, in);
          out->quantized_head = size;
        }
    }
  /* [PEFT] lora.Embedding: lora_embedding_A (r × vocab), lora_embedding_B
   * (hidden × r); DoRA's magnitude is the norm over the vocabulary of each of
   * the hidden columns (DoraEmbeddingLayer, fan_in_fan_out). */
  if (f->targets & HR_TARGET_EMBEDDING)
    {
      out->adapters += f->rank * (model->vocab_size + model->hidden_size);
      out->paged += paged_elements (f->rank * model->vocab_size)
                    + paged_elements (f->rank * model->hidden_size);
      if (f->method == HR_FINETUNE_DORA)
        out->paged += paged_elements (model->hidden_size);
      if (f->method == HR_FINETUNE_DORA)
        out->magnitude += model->hidden_size;
      out->adapted_matrices++;
    }

  out->trainable = out->adapters + out->magnitude;
  out->frozen = params.total;
  out->frozen_bytes = (double) (out->frozen - out->quantized) * compute_bytes + quant_bytes;
  return HR_OK;
}

/* Activations */

bool
hr_finetune_layer_outside_graph (const HrFinetune *f,
                                 int64_t           layer)
{
  /* The embeddings and every layer below `layer` are frozen: no input of
   * the layer requires a gradient, so autograd records nothing for it. */
  return f->method == HR_FINETUNE_FREEZE && layer < f->freeze_layers;
}

/* Bytes of an adapter's parameters and of the tensors it saves. */
static double
adapter_dtype_bytes (const HrFinetune *f,
                     double            compute_dtype_bytes)
{
  return f->fp32_adapters ? 4 : compute_dtype_bytes;
}

/* An adapted linear saves its own copy of its input (rather than the shared
 * input tensor) when the input is cast to the adapters' dtype or dropped out. */
static bool
own_input_copy (const HrFinetune *f,
                double            input_bytes,
                double            compute_dtype_bytes)
{
  return f->dropout > 0 || adapter_dtype_bytes (f, compute_dtype_bytes) != input_bytes;
}

/* What one adapted linear of input width `in` and output width `out` saves
 * per token ([PEFT] Linear.forward: result + lora_B(lora_A(dropout(x))) ·
 * scaling, x first cast to the adapters' dtype): the input of A (its own
 * copy when cast or dropped out, with the dropout mask), A's r-wide output
 * (saved by B); DoRA ([PEFT] DoraLinearLayer.forward) also saves the LoRA
 * result and the base result, both multiplied by the magnitude scale. */
static double
adapter_saved_per_token (const HrFinetune *f,
                         double            in,
                         double            out,
                         double            input_bytes,
                         double            compute_bytes,
                         double            compute_dtype_bytes)
{
  double ab = adapter_dtype_bytes (f, compute_dtype_bytes);
  double bytes = (double) f->rank * ab;

  if (own_input_copy (f, input_bytes, compute_dtype_bytes))
    bytes += in * (ab + (f->dropout > 0 ? MASK_BYTES : 0));
  if (f->method == HR_FINETUNE_DORA)
    bytes += out * (ab + (f->dropout > 0 ? ab : compute_bytes));
  return bytes;
}

double
hr_finetune_layer_activations (const HrModel              *model,
                               const HrFinetune           *f,
                               const HrFinetuneLayerShape *s)
{
  Matrix mats[MAX_MATRICES];
  int n_mats, consumers[GROUP_INNER + 1] = { 0 }, keeping[GROUP_INNER + 1] = { 0 };
  double group_bytes[GROUP_INNER + 1] = { 0 };
  bool own = own_input_copy (f, s->input, s->compute_dtype_bytes);
  double delta = 0;

  if (!hr_finetune_is_adapter (f))
    return 0;

  /* What a fully trained layer saves for each group's input, as
   * hr-training-activations.c counts it. A parallel block whose attention and MLP share
   * one norm (mlp_casts 0) has one input for both. */
  group_bytes[GROUP_ATTN] = s->attn_casts * s->tokens * s->h * s->input;
  group_bytes[GROUP_MLP] = s->mlp_casts * s->tokens * s->h * s->input;
  group_bytes[GROUP_ROUTED] = s->routed_tokens * s->h_full * s->input;
  group_bytes[GROUP_DOWN] = s->tokens * (s->is_moe ? s->shared_ffn : s->ffn) * s->input;
  group_bytes[GROUP_EDOWN] = s->routed_tokens * s->expert_ffn * s->input;
  group_bytes[GROUP_O] = s->kernel_saves_o ? 0 : s->tokens * s->o_in * s->input;

  n_mats = layer_matrices (model, f, s->is_moe, mats);
  for (int i = 0; i < n_mats; i++)
    {
      Group g = mats[i].group;
      double tokens = mats[i].count > 1 ? s->routed_tokens : s->tokens;
      double in, out;

      if (g == GROUP_MLP && s->mlp_casts == 0)
        g = GROUP_ATTN;
      consumers[g]++;
      if (!adapted (f, &mats[i]))
        {
          /* bitsandbytes before 0.43.2 kept the input of every 4-bit matmul */
          if (quant_saves_input (f) && quantized_matrix (f, &mats[i]))
            keeping[g]++;
          continue;
        }
      /* A frozen base linear saves nothing: its input gradient needs only W
       * (PyTorch saves the input of a matrix product only when the weight
       * requires a gradient; bitsandbytes MatMul4Bit and torchao's
       * LinearNF4 save no input either). The adapter's A needs the input. */
      if (!own || (quant_saves_input (f) && quantized_matrix (f, &mats[i])))
        keeping[g]++;
      /* Widths on the rank: q, k, v, gate and up read the h-wide input and
       * are split by output over TP; o and down are split by input. */
      in = (double) mats[i].in;
      out = (double) mats[i].out;
      if (g == GROUP_O || g == GROUP_DOWN || g == GROUP_EDOWN)
        in /= s->tp;
      else
        out /= s->tp;
      delta += tokens * adapter_saved_per_token (f, in, out, s->input, s->compute,
                                                 s->compute_dtype_bytes);
    }

  /* Frozen weights that get gradients anyway (FSDP1's flat parameters)
   * keep every input a trained layer saves. */
  if (f->frozen_gradients)
    return delta;

  /* The norms' weights are frozen too: an eager norm no longer saves the
   * normalised input its weight's multiply kept (weight · x̂ saves x̂ only
   * for the weight's gradient). */
  delta -= s->norm_weight_input;

  /* Inputs that only the weight gradients of now-frozen linears needed. */
  for (int g = GROUP_ATTN; g < GROUP_INNER; g++)
    {
      double casts = g == GROUP_ATTN ? s->attn_casts : g == GROUP_MLP ? s->mlp_casts : 1;

      if (consumers[g] == 0 || group_bytes[g] == 0)
        continue;
      if (casts > 1)
        /* autocast: each projection saved its own cast; the kept ones remain */
        delta -= group_bytes[g] * (double) (consumers[g] - keeping[g]) / (double) consumers[g];
      else if (keeping[g] == 0)
        delta -= group_bytes[g];
    }
  return delta;
}

/* LitGPT quantises the head too (quant_scope all, an untied head), and
 * bitsandbytes before 0.43.2 keeps its input (quant_saves_input). */
static bool
head_keeps_input (const HrFinetune *f,
                  const HrModel    *model)
{
  return quantized (f) && quant_saves_input (f) && f->quant_scope == HR_QUANT_SCOPE_ALL
         && !model->tied_embeddings;
}

double
hr_finetune_head_activations (const HrFinetune *f,
                              const HrModel    *model,
                              double            tokens,
                              double            h,
                              double            input_bytes,
                              double            compute_dtype_bytes)
{
  bool trained = f->method == HR_FINETUNE_FULL
                 || (f->method == HR_FINETUNE_FREEZE && !model->tied_embeddings);
  double bytes;

  if (trained)
    return tokens * h * input_bytes;
  if (head_keeps_input (f, model) && !(f->targets & HR_TARGET_LM_HEAD))
    return tokens * h * input_bytes;
  if (!hr_finetune_is_adapter (f) || !(f->targets & HR_TARGET_LM_HEAD))
    return 0;
  bytes = tokens * adapter_saved_per_token (f, h, (double) model->vocab_size, input_bytes,
                                            input_bytes, compute_dtype_bytes);
  if (!own_input_copy (f, input_bytes, compute_dtype_bytes))
    bytes += tokens * h * input_bytes;
  return bytes;
}

/* Tensors kept on an autograd context (ctx.tensors rather than
 * save_for_backward: bitsandbytes' MatMul8bitLt, and MatMul4Bit before
 * 0.43.2) are not freed by the backward but with the graph's nodes. A
 * quantised matmul keeps its input A that way: one tensor for the matrices
 * reading the same input, one per projection under autocast (which casts
 * for each), one for each inner (MLA latent) product. Column-parallel
 * matrices read the whole hidden width, row-parallel ones their TP share. */
double
hr_finetune_layer_held_inputs (const HrModel              *model,
                               const HrFinetune           *f,
                               const HrFinetuneLayerShape *s)
{
  Matrix mats[MAX_MATRICES];
  bool counted[GROUP_INNER + 1] = { false };
  double bytes = 0;
  int n_mats;

  if (!quantized (f) || !quant_saves_input (f))
    return 0;
  n_mats = layer_matrices (model, f, s->is_moe, mats);
  for (int i = 0; i < n_mats; i++)
    {
      Group g = mats[i].group;
      double in = (double) mats[i].in;
      bool per_projection;

      if (!quantized_matrix (f, &mats[i]))
        continue;
      if (g == GROUP_MLP && s->mlp_casts == 0)
        g = GROUP_ATTN;
      per_projection = g == GROUP_INNER || (g == GROUP_ATTN && s->attn_casts > 1)
                       || (g == GROUP_MLP && s->mlp_casts > 1);
      if (counted[g] && !per_projection)
        continue;
      counted[g] = true;
      if (g == GROUP_O || g == GROUP_DOWN || g == GROUP_EDOWN)
        in /= s->tp;
      bytes += (mats[i].count > 1 ? s->routed_tokens : s->tokens) * in * s->input;
    }
  return bytes;
}

double
hr_finetune_head_held_input (const HrFinetune *f,
                             const HrModel    *model,
                             double            tokens,
                             double            h,
                             double            input_bytes)
{
  return head_keeps_input (f, model) ? tokens * h * input_bytes : 0;
}

/* FLOPs */

/* The layers' adapted matrices by FLOPs component: Σ in, Σ out and how many,
 * each routed expert a token uses counted. False when the model does not
 * count. */
static bool
component_widths (const HrModel           *model,
                  const HrFinetune        *f,
                  HrFinetuneAdapterWidths *widths)
{
  HrParams params;
  int64_t n_kind[2];

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    widths[c] = (HrFinetuneAdapterWidths) { 0 };
  if (hr_model_params (model, &params, NULL) != HR_OK)
    return false;
  n_kind[0] = params.n_dense_layers;
  n_kind[1] = params.n_moe_layers;
  for (int is_moe = 0; is_moe < 2; is_moe++)
    {
      Matrix mats[MAX_MATRICES];
      int n;

      if (n_kind[is_moe] == 0)
        continue;
      n = layer_matrices (model, f, is_moe, mats);
      for (int i = 0; i < n; i++)
        if (adapted (f, &mats[i]))
          {
            HrFinetuneAdapterWidths *w = &widths[mats[i].component];
            double copies = (double) n_kind[is_moe] * (double) mats[i].active;

            w->in += copies * (double) mats[i].in;
            w->out += copies * (double) mats[i].out;
            w->area += copies * (double) mats[i].in * (double) mats[i].out;
            w->in_squared += copies * (double) mats[i].in * (double) mats[i].in;
            w->count += copies;
          }
    }
  return true;
}

void
hr_finetune_flops (const HrModel    *model,
                   const HrFinetune *f,
                   double            tokens,
                   int               n_components,
                   HrFinetuneGrad   *grad,
                   double           *adapter_forward)
{
  double layers = (double) model->n_layers;

  for (int c = 0; c < n_components; c++)
    {
      grad[c] = (HrFinetuneGrad) { 1, 1 };
      adapter_forward[c] = 0;
    }
  if (f->method == HR_FINETUNE_FULL || n_components < HR_FLOPS_N_COMPONENTS)
    return;

  if (f->method == HR_FINETUNE_FREEZE)
    {
      /* Frozen bottom layers are outside the graph: no backward at all.
       * The head trains unless tied to the frozen embedding. */
      double inside = (layers - (double) f->freeze_layers) / layers;

      for (int c = 0; c < n_components; c++)
        if (c != HR_FLOPS_LM_HEAD)
          grad[c] = (HrFinetuneGrad) { inside, inside };
      grad[HR_FLOPS_LM_HEAD].input_grad = inside > 0 ? 1 : 0;
      grad[HR_FLOPS_LM_HEAD].weight_grad = model->tied_embeddings ? 0 : 1;
      return;
    }

  /* Adapters: every base matrix computes its input gradient only
   * (grad_x = grad_y · W, one product where training does two); the
   * attention core keeps both (its operands are activations). With
   * frozen_gradients the layers' matrices compute their weight gradients
   * too; the head, in FSDP's root unit of frozen weights, does not. */
  for (int c = 0; c < n_components; c++)
    if (c != HR_FLOPS_ATTN_SCORES && c != HR_FLOPS_ATTN_OVER_V
        && !(f->frozen_gradients && c != HR_FLOPS_LM_HEAD))
      grad[c].weight_grad = 0;

  {
    HrFinetuneAdapterWidths widths[HR_FLOPS_N_COMPONENTS];

    if (!component_widths (model, f, widths))
      return;
    /* [LoRA] §4.1: x·A then ·B, 2·r·(in + out) per token per copy used */
    for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
      adapter_forward[c] += 2 * tokens * (double) f->rank * (widths[c].in + widths[c].out);
    if (f->targets & HR_TARGET_LM_HEAD)
      {
        double in = (double) (model->embed_proj_dim > 0 ? model->embed_proj_dim
                                                        : model->hidden_size);

        adapter_forward[HR_FLOPS_LM_HEAD] += 2 * tokens * (double) f->rank
                                             * (in + (double) model->vocab_size);
      }
    if (f->targets & HR_TARGET_EMBEDDING)
      /* a row lookup of A, then · B (r → hidden) */
      adapter_forward[HR_FLOPS_LM_HEAD] += 2 * tokens * (double) f->rank
                                           * (double) model->hidden_size;
  }
}

void
hr_finetune_adapter_widths (const HrModel           *model,
                            const HrFinetune        *f,
                            HrFinetuneAdapterWidths *widths)
{
  HrFinetuneAdapterWidths per_component[HR_FLOPS_N_COMPONENTS];

  *widths = (HrFinetuneAdapterWidths) { 0 };
  if (!hr_finetune_is_adapter (f) || !component_widths (model, f, per_component))
    return;
  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    {
      widths->in += per_component[c].in;
      widths->out += per_component[c].out;
      widths->area += per_component[c].area;
      widths->in_squared += per_component[c].in_squared;
      widths->count += per_component[c].count;
    }
}

bool
hr_finetune_dequant_casts (const HrFinetune *f,
                           HrDtype           compute)
{
  return f->quant_from_fp16 && compute != HR_DTYPE_FP16;
}

double
hr_finetune_dequant_bytes (const HrModel    *model,
                           const HrFinetune *f,
                           HrDtype           compute)
{
  double compute_bytes = compute == HR_DTYPE_FP32 ? 4 : 2;
  double written = compute_bytes;
  HrFinetuneParams p;

  if (!quantized (f) || hr_finetune_params (model, f, compute_bytes, &p, NULL) != HR_OK)
    return 0;
  /* Lightning's fp16 quant state: write fp16, read it, write the compute
   * dtype (MatMul4Bit: dequantize_4bit(...).to(A.dtype)). */
  if (hr_finetune_dequant_casts (f, compute))
    written = 2 + 2 + compute_bytes;
  /* Read the packed weights and their scales, write the 16-bit matrix:
   * bitsandbytes dequantize_4bit / torchao NF4Tensor.to(bf16). */
  return p.frozen_bytes - (double) (p.frozen - p.quantized) * compute_bytes
         + (double) p.quantized * written;
}
