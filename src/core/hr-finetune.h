/* hr-finetune.h: fine-tuning methods (LoRA, QLoRA, DoRA, frozen layers)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What is trained and what is frozen, and what that changes: exact adapter
 * parameter counts (PEFT's src/peft/tuners/lora/layer.py), the bytes of the
 * frozen base weights (16-bit, NF4/FP4 with block-wise absmax and double
 * quantisation, LLM.int8), the tensors autograd saves through frozen and
 * adapted linears, and the FLOPs of a backward pass that computes weight
 * gradients for the trained matrices only. hr-training*.c call these hooks;
 * docs/training.md (Fine-tuning) gives every formula with its source.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hr-error.h"
#include "hr-gpu.h"
#include "hr-model.h"

typedef enum
{
  HR_FINETUNE_FULL,    /* every parameter trained */
  HR_FINETUNE_LORA,    /* frozen base, low-rank adapters A (r × in), B (out × r) */
  HR_FINETUNE_QLORA,   /* LoRA over a quantised frozen base (Dettmers et al. 2023) */
  HR_FINETUNE_DORA,    /* LoRA plus a trained magnitude per output feature (Liu et al. 2024) */
  HR_FINETUNE_FREEZE,  /* full training with the embeddings and the first N layers frozen */
} HrFinetuneMethod;

typedef enum
{
  HR_QUANT_NONE,  /* frozen weights in the compute dtype */
  HR_QUANT_NF4,   /* 4-bit NormalFloat, absmax per block of 64 */
  HR_QUANT_FP4,   /* 4-bit float, same layout */
  HR_QUANT_INT8,  /* LLM.int8(): int8 with an fp32 absmax per output row */
} HrQuant;

/* Which frozen linears a quantised method stores quantised; the rest stay in
 * the compute dtype (embeddings and norms always do). */
typedef enum
{
  HR_QUANT_SCOPE_LINEAR,   /* every linear but the LM head: transformers + bitsandbytes
                            * (PEFT), torchtune since July 2024 (FrozenNF4Linear) */
  HR_QUANT_SCOPE_ADAPTED,  /* torchtune before July 2024: only the layers' linears that
                            * carry an adapter */
  HR_QUANT_SCOPE_ALL,      /* LitGPT: every linear, the LM head included (unless tied) */
} HrQuantScope;

/* Target modules, as a bit set. */
enum
{
  HR_TARGET_Q = 1 << 0,
  HR_TARGET_K = 1 << 1,
  HR_TARGET_V = 1 << 2,
  HR_TARGET_O = 1 << 3,
  HR_TARGET_GATE = 1 << 4,
  HR_TARGET_UP = 1 << 5,
  HR_TARGET_DOWN = 1 << 6,
  HR_TARGET_LM_HEAD = 1 << 7,
  HR_TARGET_EMBEDDING = 1 << 8,
};

/* torchtune's lora_attn_modules default in its LoRA recipes and LitGPT's
 * finetune/lora.py defaults: q and v. */
#define HR_TARGETS_ATTENTION (HR_TARGET_Q | HR_TARGET_V)
/* PEFT target_modules="all-linear": every linear of the layers, not the
 * output layer (peft/tuners/tuners_utils.py, _maybe_include_all_linear_layers). */
#define HR_TARGETS_ALL_LINEAR (HR_TARGET_Q | HR_TARGET_K | HR_TARGET_V | HR_TARGET_O \
                               | HR_TARGET_GATE | HR_TARGET_UP | HR_TARGET_DOWN)
#define HR_TARGETS_MASK ((1u << 9) - 1)

typedef struct
{
  HrFinetuneMethod method;
  int64_t  rank;              /* r */
  double   alpha;             /* scaling alpha / r: changes no size or time */
  double   dropout;           /* lora_dropout; > 0 saves a mask and a copy per adapted input */
  unsigned targets;           /* HR_TARGET_* bits */
  int64_t  freeze_layers;     /* freeze: the first N layers (and the embeddings) frozen */
  HrQuant  quant;             /* qlora: nf4, fp4 or int8 */
  bool     double_quant;      /* 4-bit: absmax quantised to 8 bits per 256 blocks */
  HrQuantScope quant_scope;
  bool     fp32_adapters;     /* adapters kept in fp32 over a 16-bit base (PEFT's
                               * autocast_adapter_dtype); false: the precision's dtype */
  bool     fused_qkv;         /* the model has one qkv linear (NeoX, Phi-3, Falcon) */
  bool     fused_gate_up;     /* one gate_up linear (Phi-3; 3-D MoE expert parameters) */
  bool     dora_base_rerun;   /* DoRA with lora_dropout > 0 runs the frozen product again
                               * on the dropped input (PEFT DoraLinearVariant.forward);
                               * torchtune's DoRALinear reuses the base output */
  bool     quant_saves_input; /* each 4-bit linear keeps its input on its autograd
                               * context (bitsandbytes MatMul4Bit before 0.43.2:
                               * ctx.tensors = (A, B)), freed with the graph */
  bool     loop_keeps_loss;   /* the training loop holds the last micro-batch's loss until
                               * the next one's is computed (a plain loop, LitGPT's fit):
                               * its graph, and what its functions keep on their
                               * contexts, lives through the next forward */
  bool     quant_from_fp16;   /* 4-bit weights quantised from an fp16 copy (Lightning's
                               * BitsandbytesPrecision): each dequantises to fp16, then
                               * is cast to the compute dtype, both copies live at once */
  bool     quant_load_whole;  /* NF4 weights quantised whole as the model is built and
                               * loaded (torchtune 0.1 with torchao 0.1); false: in
                               * chunks, whose transients stay under the step's peak */
  bool     frozen_gradients;  /* the layers' frozen weights get gradients as if trained:
                               * FSDP1 with use_orig_params flattens a wrapped layer's frozen
                               * and trained weights into one FlatParameter that requires
                               * grad (LoRA and DoRA under FSDP only) */
} HrFinetune;

/* Parameters of the whole model (before any parallel split). */
typedef struct
{
  int64_t adapters;           /* LoRA A and B: r · (in + out) per adapted matrix */
  int64_t magnitude;          /* DoRA: out features per adapted matrix */
  int64_t trainable;          /* adapters + magnitude; or the unfrozen parameters */
  int64_t paged;              /* trainable parameters in tensors a paged optimizer pages */
  int64_t frozen;             /* base parameters that get no gradient */
  int64_t quantized;          /* frozen parameters stored quantised */
  int64_t largest_quantized;  /* the layers' largest quantised matrix (dequantised one at a
                               * time, inside a layer's forward and backward) */
  int64_t quantized_head;     /* the LM head's parameters when stored quantised, else 0
                               * (dequantised in the head's forward and backward) */
  int64_t adapted_matrices;   /* matrices carrying an adapter (experts counted one by one) */
  int64_t largest_adapted;    /* the largest adapted matrix (DoRA's weight-norm buffers) */
  double  frozen_bytes;       /* frozen weights: 16-bit and quantised with their scales */
} HrFinetuneParams;

/* One layer's tensor shapes on a rank, as hr-training-activations.c sees them, for
 * hr_finetune_layer_activations(). Widths are after tensor parallelism. */
typedef struct
{
  double tokens;          /* tokens of one micro-batch on the rank */
  double h;               /* width of a saved layer-input copy (h, or h / tp under SP) */
  double h_full;          /* hidden size (the adapters' input width) */
  double tp;              /* tensor-parallel ranks splitting the matrices */
  double o_in;            /* attention output width (input of o) */
  double ffn;             /* dense MLP width */
  double input;           /* bytes of a saved projection input */
  double compute;         /* bytes of a projection output */
  double attn_casts;      /* saved copies of the attention input (autocast: one per projection) */
  double mlp_casts;       /* the same for the MLP input */
  double compute_dtype_bytes; /* bytes of the precision's 16/32-bit dtype (adapters' default) */
  bool   kernel_saves_o;  /* the attention kernel saves its output itself (flash) */
  double norm_weight_input; /* bytes the layer's norms save only for their weights'
                             * gradients (an eager norm's normalised input) */
  bool   is_moe;
  double routed_tokens;   /* MoE: token copies sent to experts on this rank */
  double expert_ffn;      /* MoE: one routed expert's width */
  double shared_ffn;      /* MoE: all shared experts' width */
} HrFinetuneLayerShape;

/* Share of each FLOPs component's forward that the backward pass repeats. */
typedef struct
{
  double input_grad;      /* share whose input gradient is computed (inside the graph) */
  double weight_grad;     /* share whose weights get a gradient */
} HrFinetuneGrad;

void     hr_finetune_init     (HrFinetune       *finetune);
HrStatus hr_finetune_validate (const HrFinetune *finetune,
                               const HrModel    *model,
                               HrError          *err);

bool     hr_finetune_is_adapter (const HrFinetune *finetune);  /* lora, qlora, dora */
bool     hr_finetune_is_full    (const HrFinetune *finetune);
/* QLoRA with NF4 weights quantised whole as the model loads (quant_load_whole) */
bool     hr_finetune_whole_nf4_load (const HrFinetune *finetune);

HrStatus hr_finetune_params (const HrModel    *model,
                             const HrFinetune *finetune,
                             double            compute_bytes,
                             HrFinetuneParams *out,
                             HrError          *err);

/* Bytes per parameter of a quantised frozen matrix with `in` input features,
 * its scales included (Dettmers et al. 2023 §2; Dettmers et al. 2022). */
double   hr_finetune_quant_bytes (const HrFinetune *finetune,
                                  int64_t           in_features);

/* Bytes one layer saves beyond (or, negative, short of) what a fully
 * trained layer saves: inputs that only a weight gradient needed, and the
 * adapters' own tensors. 0 for full training. */
double   hr_finetune_layer_activations (const HrModel              *model,
                                        const HrFinetune           *finetune,
                                        const HrFinetuneLayerShape *shape);

/* Layer `layer` is outside the autograd graph: it and everything below it
 * are frozen, so nothing is saved and nothing flows back through it. */
bool     hr_finetune_layer_outside_graph (const HrFinetune *finetune,
                                          int64_t           layer);

/* Bytes the LM head saves for one micro-batch of `tokens` tokens of width
 * `h`: its input when its weight is trained, an adapter's tensors when it
 * carries one, nothing when it is frozen (its input gradient needs only W). */
double   hr_finetune_head_activations (const HrFinetune *finetune,
                                       const HrModel    *model,
                                       double            tokens,
                                       double            h,
                                       double            input_bytes,
                                       double            compute_dtype_bytes);

/* Bytes of the inputs that one layer's (the LM head's) quantised matmuls
 * keep on their autograd context, which the backward does not free: with
 * int8, and with quant_saves_input. 0 otherwise. */
double   hr_finetune_layer_held_inputs (const HrModel              *model,
                                        const HrFinetune           *finetune,
                                        const HrFinetuneLayerShape *shape);
double   hr_finetune_head_held_input   (const HrFinetune *finetune,
                                        const HrModel    *model,
                                        double            tokens,
                                        double            h,
                                        double            input_bytes);

/* Per FLOPs component (HrFlopsComponent order): the backward shares and the
 * adapters' forward FLOPs for `tokens` tokens. */
void     hr_finetune_flops (const HrModel    *model,
                            const HrFinetune *finetune,
                            double            tokens,
                            int               n_components,
                            HrFinetuneGrad   *grad,
                            double           *adapter_forward);

/* The adapted matrices of the layers a token passes through, all layers
 * summed: Σ in, Σ out, Σ in·out, Σ in² and how many (each routed expert a
 * token uses counted; the head's and the embedding's adapters are not layer
 * matrices). */
typedef struct
{
  double in;
  double out;
  double area;
  double in_squared;
  double count;
} HrFinetuneAdapterWidths;

void     hr_finetune_adapter_widths (const HrModel           *model,
                                     const HrFinetune        *finetune,
                                     HrFinetuneAdapterWidths *widths);

/* Whether a 4-bit product dequantises to fp16 and then casts to `compute`
 * (quant_from_fp16 under a compute dtype other than fp16): both copies of
 * the matrix live at once. */
bool     hr_finetune_dequant_casts (const HrFinetune *finetune,
                                    HrDtype           compute);

/* Bytes a dequantisation pass moves per step-independent forward: read the
 * packed weights and scales, write them in the compute dtype (memory-bound);
 * with hr_finetune_dequant_casts(), write fp16 and cast it. */
double   hr_finetune_dequant_bytes (const HrModel    *model,
                                    const HrFinetune *finetune,
                                    HrDtype           compute);

/* One linear of a dense layer, in the order the model builds them. */
typedef struct
{
  int64_t in, out;
  bool    quantized;   /* stored quantised */
  bool    adapted;     /* carries an adapter */
  bool    mlp;         /* of the MLP (else of the attention) */
} HrFinetuneLinear;

#define HR_FINETUNE_MAX_LINEARS 12

/* A dense layer's linears; returns how many (at most HR_FINETUNE_MAX_LINEARS). */
int      hr_finetune_dense_linears (const HrModel    *model,
                                    const HrFinetune *finetune,
                                    HrFinetuneLinear *linears);

/* The most layers the model-load replay (hr-finetune-load.c) takes. */
#define HR_FINETUNE_LOAD_MAX_LAYERS 256

/* What the caching allocator holds once torchtune 0.1 has built and loaded
 * a QLoRA model whose NF4 weights torchao 0.1 quantises whole
 * (finetune.quant_load_whole): the peak of live tensors during the load and
 * the bytes reserved at its end (docs/training.md, "Model load"). */
void     hr_finetune_load_peaks (const HrModel    *model,
                                 const HrFinetune *finetune,
                                 double           *allocated_peak,
                                 double           *reserved);

/* Sets fused_qkv and fused_gate_up from a Hugging Face model_type: the
 * architectures whose attention (gpt2 c_attn, gpt_neox/falcon/bloom
 * query_key_value, phi3 qkv_proj, …) or gated MLP (phi3 gate_up_proj, chatglm
 * dense_h_to_4h) is one linear. */
void        hr_finetune_set_model_type (HrFinetune *finetune,
                                        const char *model_type);

/* Names as the project file and the CLI spell them. */
const char *hr_finetune_method_name      (HrFinetuneMethod method);
bool        hr_finetune_method_from_name (const char *name, HrFinetuneMethod *method);
const char *hr_quant_name                (HrQuant quant);
bool        hr_quant_from_name           (const char *name, HrQuant *quant);
const char *hr_quant_scope_name          (HrQuantScope scope);
bool        hr_quant_scope_from_name     (const char *name, HrQuantScope *scope);
/* "q,k,v,o,gate,up,down,lm_head,embed", or a preset ("attention", "all-linear");
 * false on an unknown name. Writes the canonical list to buf. */
bool        hr_finetune_targets_from_string (const char *text, unsigned *targets);
void        hr_finetune_targets_to_string   (unsigned targets, char *buf, size_t size);
