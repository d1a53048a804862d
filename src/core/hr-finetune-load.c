/* hr-finetune-load.c: the model load of torchtune 0.1's QLoRA
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torchtune 0.1 (April 2024, torchao 0.1) built a QLoRA model on the GPU and
 * quantised each NF4 weight whole. Its transients are tens of times the
 * weight: torchao 0.1's NF4Tensor.quantize_tensor_nearest compares every
 * element with the 16 NF4 levels at once ((value - nf4).abs(): two bf16
 * tensors of 16 elements per weight element). The caching allocator keeps
 * those blocks, and the long-lived NF4 tensors carved out of them pin them,
 * so the bytes reserved when the load ends exceed what the training step
 * needs (pytorch/torchtune docs/source/tutorials/qlora_finetune.rst at
 * 0914d5c: 9.13 GB reserved after model init, 9.29 GB over training, for
 * Llama 2 7B). torchao 0.2 quantises in chunks of 1M elements
 * (pytorch/ao#196, "perform in chunks"), which leaves nothing of the kind.
 *
 * The sequence replayed, with the sources:
 * - torchtune/models/llama2/_component_builders.py lora_llama2: one layer is
 *   built (its linears in order, each LoRALinear making a bf16 nn.Linear on
 *   the GPU and quantising its weight with to_nf4; the attention's
 *   RotaryPositionalEmbeddings after its projections; the two RMSNorms after
 *   the MLP), then the embedding, the output layer and the final norm, then
 *   TransformerDecoder deep-copies the layer num_layers times
 *   (modules/transformer.py _get_clones); the prototype goes when the
 *   builder returns.
 * - Deep-copying an NF4 parameter clones it (nn.Parameter.__deepcopy__),
 *   which torchtune's utils/_register_nf4_dispatch_ops.py runs as
 *   to_nf4(get_original_weight()): a full dequantisation, then a
 *   quantisation.
 * - recipes/lora_finetune_single_device.py then load_state_dict()s the CPU
 *   checkpoint: each NF4 weight's copy_ moves the bf16 tensor to the GPU and
 *   quantises it (the same registered op), then replaces the old NF4
 *   tensors one by one; 16-bit weights are copied in place.
 * - torchao/dtypes/nf4tensor.py at v0.1: NF4Tensor.from_tensor,
 *   double_quantize_scalers, convert_to_norm_float_weight and
 *   get_original_weight, each temporary below in the order the Python code
 *   makes and drops it.
 */
#include "hr-finetune.h"

#include <stdlib.h>

#include "hr-allocator.h"

#define BF16 2          /* torchao 0.1 quantises bf16 only (from_tensor asserts it) */
#define BLOCK 64        /* to_nf4 block_size */
#define SCALER_BLOCK 256 /* to_nf4 scaler_block_size */
#define FP32 4
#define INT64 8
#define NF4_LEVELS 16

typedef struct
{
  int64_t nf4, mean, factor, scalers, data;
} Nf4Tensor;

#define M(bytes) hr_allocator_malloc (a, (int64_t) (bytes))
#define F(handle) hr_allocator_free (a, (handle))

static int64_t
ceil_div (int64_t n,
          int64_t d)
{
  return (n + d - 1) / d;
}

/* to_nf4() of n bf16 elements already on the GPU. */
static Nf4Tensor
to_nf4 (HrAllocator *a,
        int64_t      n)
{
  int64_t blocks = ceil_div (n, BLOCK), scaler_blocks = ceil_div (blocks, SCALER_BLOCK);
  int64_t abs_, max, indices, shifted, or_, t, r;
  int64_t scalers1, absmax2, factor2, quantized2, scalers, scaled, diff, abs_diff, values, nearest;
  Nf4Tensor out;

  out.nf4 = M (NF4_LEVELS * BF16);
  /* double_quantize_scalers: get_block_absmax (blocks.abs().max(dim=1)) */
  abs_ = M (BF16 * n);
  max = M (BF16 * blocks);
  indices = M (INT64 * blocks);
  F (abs_);
  F (indices);
  out.mean = M (BF16);
  scalers1 = M (BF16 * blocks);               /* scalers_1 - scalers_1_mean */
  F (max);
  abs_ = M (BF16 * blocks);                   /* their absmax per 256 */
  absmax2 = M (BF16 * scaler_blocks);
  indices = M (INT64 * scaler_blocks);
  F (abs_);
  F (indices);
  t = M (BF16 * blocks);                      /* 2 * the expanded absmax */
  factor2 = M (BF16 * blocks);                /* 256 / that: kept whole, viewed [:, 0] */
  F (t);
  quantized2 = M (BF16 * blocks);             /* scaler_blocks * factor */
  r = M (BF16 * blocks);                      /* .round() */
  F (quantized2);
  t = M (BF16 * blocks);                      /* .clamp(-128, 127) */
  F (r);
  out.scalers = M (blocks);                   /* .to(torch.int8) */
  F (t);
  F (absmax2);
  F (scalers1);
  out.factor = factor2;
  /* convert_to_norm_float_weight */
  abs_ = M (BF16 * n);
  scalers = M (BF16 * blocks);
  indices = M (INT64 * blocks);
  F (abs_);
  F (indices);
  scaled = M (BF16 * n);                      /* blocks / scales */
  diff = M (NF4_LEVELS * BF16 * n);           /* value.unsqueeze(-1) - nf4 */
  abs_diff = M (NF4_LEVELS * BF16 * n);       /* .abs() */
  F (diff);
  values = M (BF16 * n);                      /* .min(dim=-1) */
  nearest = M (INT64 * n);                    /* its .indices */
  F (values);
  F (abs_diff);
  shifted = M (INT64 * ceil_div (n, 2));      /* quantized_blocks[::2] << 4 */
  or_ = M (INT64 * ceil_div (n, 2));          /* | quantized_blocks[1::2] */
  F (shifted);
  out.data = M (ceil_div (n, 2));             /* .to(torch.uint8) */
  F (or_);
  F (nearest);
  F (scaled);
  F (scalers);
  return out;
}

static void
free_nf4 (HrAllocator *a,
          Nf4Tensor   *t)
{
  /* inplace_copy's order: quantized_scalers, quantization_factor,
   * scaler_mean, quantized_data, nf4 */
  F (t->scalers);
  F (t->factor);
  F (t->mean);
  F (t->data);
  F (t->nf4);
}

/* get_original_weight() of an NF4 tensor of n elements: returns its bf16 copy. */
static int64_t
dequantize (HrAllocator *a,
            int64_t      n)
{
  int64_t half = ceil_div (n, 2), blocks = ceil_div (n, BLOCK);
  int64_t t, first, second, first_values, second_values, scalers, repeated, scaled1, scaled2, out;

  t = M (half);                               /* quantized_data >> 4 */
  first = M (INT64 * half);                   /* .to(torch.long) */
  F (t);
  t = M (half);                               /* quantized_data & 0b1111 */
  second = M (INT64 * half);
  F (t);
  first_values = M (BF16 * half);             /* nf4[first] */
  second_values = M (BF16 * half);
  t = M (BF16 * blocks);                      /* dequantize_scalers: / factor */
  scalers = M (BF16 * blocks);                /* + scaler_mean */
  F (t);
  repeated = M (BF16 * half);                 /* repeated.flatten() */
  scaled1 = M (BF16 * half);
  F (repeated);
  repeated = M (BF16 * half);
  scaled2 = M (BF16 * half);
  F (repeated);
  out = M (BF16 * n);                         /* torch.stack(...).reshape() */
  F (first);
  F (second);
  F (first_values);
  F (second_values);
  F (scalers);
  F (scaled1);
  F (scaled2);
  return out;
}

/* RotaryPositionalEmbeddings._rope_init: fp32 theta, positions, angles,
 * their cos and sin, stacked into the cache it keeps. */
static void
rope_cache (HrAllocator *a,
            int64_t      positions,
            int64_t      dim,
            int64_t     *theta,
            int64_t     *cache)
{
  int64_t seq, angles, cos_, sin_;

  *theta = M (FP32 * (dim / 2));
  seq = M (FP32 * positions);
  angles = M (FP32 * positions * (dim / 2));
  cos_ = M (FP32 * positions * (dim / 2));
  sin_ = M (FP32 * positions * (dim / 2));
  *cache = M (2 * FP32 * positions * (dim / 2));
  F (cos_);
  F (sin_);
  F (angles);
  F (seq);
}

typedef struct
{
  Nf4Tensor quantized[HR_FINETUNE_MAX_LINEARS];
  int64_t   weight[HR_FINETUNE_MAX_LINEARS];   /* 16-bit linears */
  int64_t   lora[HR_FINETUNE_MAX_LINEARS][2];
  int64_t   norms[2], theta, cache;
} Layer;

static void
free_layer (HrAllocator      *a,
            Layer            *layer,
            const HrFinetuneLinear *linears,
            int               n)
{
  for (int i = 0; i < n; i++)
    {
      if (linears[i].quantized)
        free_nf4 (a, &layer->quantized[i]);
      else
        F (layer->weight[i]);
      F (layer->lora[i][0]);
      F (layer->lora[i][1]);
    }
  F (layer->norms[0]);
  F (layer->norms[1]);
  F (layer->theta);
  F (layer->cache);
}

void
hr_finetune_load_peaks (const HrModel    *model,
                        const HrFinetune *f,
                        double           *allocated_peak,
                        double           *reserved)
{
  HrFinetuneLinear linears[HR_FINETUNE_MAX_LINEARS];
  int n = hr_finetune_dense_linears (model, f, linears);
  int64_t h = model->hidden_size, layers = model->n_layers;
  int64_t head_in = model->embed_proj_dim > 0 ? model->embed_proj_dim : h;
  int64_t positions = model->max_positions > 0 ? model->max_positions : 4096;
  int64_t dim = hr_model_head_dim (model);
  bool rotary = model->positions == HR_POSITIONS_ROTARY;
  int attention = 0;
  HrAllocator alloc, *a = &alloc;
  Layer prototype;
  Layer *all;

  *allocated_peak = 0;
  *reserved = 0;
  if (layers <= 0 || layers > HR_FINETUNE_LOAD_MAX_LAYERS)
    return;
  all = calloc ((size_t) layers, sizeof *all);
  if (all == NULL)
    return;
  while (attention < n && !linears[attention].mlp)
    attention++;
  hr_allocator_init (a);

  /* The prototype layer. */
  prototype.theta = prototype.cache = -1;
  for (int i = 0; i < n; i++)
    {
      int64_t size = linears[i].in * linears[i].out;

      prototype.weight[i] = M (BF16 * size);
      if (linears[i].quantized)
        {
          prototype.quantized[i] = to_nf4 (a, size);
          F (prototype.weight[i]);
        }
      prototype.lora[i][0] = linears[i].adapted ? M (BF16 * f->rank * linears[i].in) : -1;
      prototype.lora[i][1] = linears[i].adapted ? M (BF16 * f->rank * linears[i].out) : -1;
      if (i == attention - 1 && rotary)
        rope_cache (a, positions, dim, &prototype.theta, &prototype.cache);
    }
  prototype.norms[0] = M (BF16 * h);
  prototype.norms[1] = M (BF16 * h);
  /* The embedding, the output layer (16-bit: "quantize_base is not applied
   * to final output_proj currently"), the final norm. */
  M (BF16 * model->vocab_size * h);
  if (!model->tied_embeddings)
    M (BF16 * model->vocab_size * head_in);
  M (BF16 * h);
  /* The deep copies, module by module: sa_norm, the attention's linears and
   * its rotary cache, mlp_norm, the MLP's linears. */
  for (int64_t l = 0; l < layers; l++)
    {
      Layer *copy = &all[l];

      copy->norms[0] = M (BF16 * h);
      copy->theta = copy->cache = -1;
      for (int i = 0; i < n; i++)
        {
          int64_t size = linears[i].in * linears[i].out;

          if (i == attention && rotary)
            {
              copy->theta = M (FP32 * (dim / 2));
              copy->cache = M (2 * FP32 * positions * (dim / 2));
            }
          if (i == attention)
            copy->norms[1] = M (BF16 * h);
          if (linears[i].quantized)
            {
              int64_t dense = dequantize (a, size);

              copy->quantized[i] = to_nf4 (a, size);
              F (dense);
            }
          else
            copy->weight[i] = M (BF16 * size);
          copy->lora[i][0] = linears[i].adapted ? M (BF16 * f->rank * linears[i].in) : -1;
          copy->lora[i][1] = linears[i].adapted ? M (BF16 * f->rank * linears[i].out) : -1;
        }
      if (attention >= n)
        copy->norms[1] = M (BF16 * h);
    }
  free_layer (a, &prototype, linears, n);
  /* load_state_dict: each NF4 weight quantised again from the GPU copy of
   * the checkpoint's, the old tensors replaced. */
  for (int64_t l = 0; l < layers; l++)
    for (int i = 0; i < n; i++)
      if (linears[i].quantized)
        {
          int64_t size = linears[i].in * linears[i].out;
          int64_t incoming = M (BF16 * size);
          Nf4Tensor fresh = to_nf4 (a, size);

          free_nf4 (a, &all[l].quantized[i]);
          all[l].quantized[i] = fresh;
          F (incoming);
        }
  if (!a->failed)
    {
      *allocated_peak = a->allocated_peak;
      *reserved = a->reserved;
    }
  hr_allocator_clear (a);
  free (all);
}
