/* hr-training.h: memory per GPU, step time, MFU and cost of a training run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fill an HrTraining with hr_training_init(), set the fields, check it with
 * hr_training_validate() against a model, then ask for the memory of the most
 * loaded GPU, the time and cost of the run, or the limits that still fit.
 * Bytes and FLOPs are doubles (exact below 2^53); counts are int64.
 * docs/training.md gives every formula with its source.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hr-error.h"
#include "hr-finetune.h"
#include "hr-flops.h"
#include "hr-gpu.h"
#include "hr-model.h"

typedef enum
{
  HR_PIPELINE_1F1B,         /* one forward, one backward (PipeDream-Flush) */
  HR_PIPELINE_INTERLEAVED,  /* 1F1B over virtual_stages model chunks per rank */
  HR_PIPELINE_GPIPE,        /* all forwards, then all backwards */
  HR_PIPELINE_ZB_H1,        /* 1F1B with weight gradients deferred into the bubble (Qi et al.
                             * 2024, Zero Bubble Pipeline Parallelism, ZB-H1) */
} HrPipelineSchedule;

typedef enum
{
  HR_FSDP_NONE,
  HR_FSDP_FULL,     /* FULL_SHARD: as ZeRO-3 */
  HR_FSDP_GRAD_OP,  /* SHARD_GRAD_OP: as ZeRO-2 */
  HR_FSDP_HYBRID,   /* HYBRID_SHARD: ZeRO-3 within a node, replicated across nodes */
} HrFsdp;

typedef enum
{
  HR_PRECISION_FP32,        /* everything fp32 (tf32 matrix products where the GPU has them) */
  HR_PRECISION_BF16_MIXED,  /* fp32 master weights, bf16 working copy and compute */
  HR_PRECISION_FP16_MIXED,  /* as bf16-mixed, fp16 (with loss scaling) */
  HR_PRECISION_BF16,        /* pure bf16: weights, gradients and optimizer states in bf16 */
  HR_PRECISION_FP8_MIXED,   /* fp8 matrix products, bf16 elsewhere (HrFp8Recipe says whose) */
} HrPrecision;

/* Whose fp8 linear layers fp8-mixed runs (docs/training.md, "Precision
 * recipes"): Transformer Engine's delayed scaling, which saves fp8 casts
 * and caches the fp8 weight and its transpose, or torchao's dynamic
 * tensorwise float8 (torchtitan), which saves the 16-bit operands and
 * casts each again in the backward. */
typedef enum
{
  HR_FP8_RECIPE_TRANSFORMER_ENGINE,
  HR_FP8_RECIPE_TORCHAO,
} HrFp8Recipe;

typedef enum
{
  HR_OPTIMIZER_ADAMW,
  HR_OPTIMIZER_ADAMW_8BIT,    /* bitsandbytes blockwise 8-bit m and v */
  HR_OPTIMIZER_SGD,           /* no state */
  HR_OPTIMIZER_SGD_MOMENTUM,  /* one momentum buffer */
  HR_OPTIMIZER_LION,          /* one momentum buffer */
  HR_OPTIMIZER_ADAFACTOR,     /* factored second moments, no momentum (beta1 = None) */
} HrOptimizer;

/* How the norms run: one fused kernel that saves its input and statistics
 * (Transformer Engine, Apex, Liger, torch.compile), eager PyTorch ops
 * (Hugging Face LlamaRMSNorm, torchtune RMSNorm) that also save an fp32 copy
 * of the input, or, under autocast, a kernel on a 16-bit copy of its input
 * whose 16-bit output the projections take uncast (MPT's LPLayerNorm,
 * llm-foundry's low_precision_layernorm; the fused kernel otherwise). */
typedef enum
{
  HR_NORM_KERNEL_FUSED,
  HR_NORM_KERNEL_EAGER,
  HR_NORM_KERNEL_LOW_PRECISION,
} HrNormKernel;

/* How the rotary embedding runs (docs/planner.md, "Memory-bound kernels"):
 * one fused kernel (Transformer Engine, Apex, Liger, torch.compile), or
 * the eager PyTorch ops of a code base. */
typedef enum
{
  HR_ROPE_KERNEL_FUSED,
  HR_ROPE_KERNEL_ROTATE_HALF,  /* transformers' apply_rotary_pos_emb */
  HR_ROPE_KERNEL_COMPLEX,      /* torchtitan's apply_rotary_emb: complex multiply in fp32 */
  HR_ROPE_KERNEL_INTERLEAVED,  /* torchtune's RotaryPositionalEmbeddings: fp32 pairs, stack */
} HrRopeKernel;

/* How q, k and v (and a gated MLP's gate and up) are multiplied, which sets
 * what the uncompiled backward adds (docs/planner.md, "Memory-bound
 * kernels"): one product whose outputs the attention reads in place
 * (Megatron with Transformer Engine), one product split into views, whose
 * backward concatenates the gradients (llm-foundry's MPT Wqkv, transformers'
 * GPT-2), or separate linears, whose input gradients are summed (torchtune,
 * torchtitan, transformers' Llama family). */
typedef enum
{
  HR_PROJECTIONS_FUSED,
  HR_PROJECTIONS_SPLIT,
  HR_PROJECTIONS_SEPARATE,
} HrProjections;

/* How a gated MLP's activation and product run: one fused kernel
 * (Megatron's bias_swiglu, Liger, torch.compile), or the eager silu and
 * multiply. */
typedef enum
{
  HR_GLU_KERNEL_FUSED,
  HR_GLU_KERNEL_EAGER,
} HrGluKernel;

/* How the cross-entropy loss meets the logits. */
typedef enum
{
  HR_LOSS_FULL,     /* all logits, upcast to fp32 (PyTorch cross_entropy) */
  HR_LOSS_CHUNKED,  /* torchtune CEWithChunkedOutputLoss: upcast one chunk at a time */
  HR_LOSS_FUSED,    /* fused linear cross-entropy (Liger, Cut Cross-Entropy): no logits kept */
  HR_LOSS_KERNEL,   /* a cross-entropy kernel on the 16-bit logits (flash-attn's CrossEntropyLoss):
                     * no fp32 copy */
  HR_LOSS_VOCAB_PARALLEL, /* Megatron's vocab_parallel_cross_entropy: an fp32 copy turned into
                           * the softmax and then the gradient in place */
  HR_LOSS_TE,       /* Transformer Engine's parallel_cross_entropy: the gradient written over
                     * the 16-bit logits */
  HR_LOSS_CHUNKED_HEAD, /* torchtitan's ChunkedLossWrapper: the LM head, the loss and their
                         * backward per chunk of tokens, in the forward */
} HrLoss;

typedef struct
{
  /* Hardware and layout: GPUs = nodes × gpus_per_node = tp · pp · cp · dp */
  int64_t nodes;
  int64_t gpus_per_node;
  int64_t tensor_parallel;
  bool    sequence_parallel;      /* shards norms, dropout and residuals over the TP group */
  int64_t pipeline_parallel;
  HrPipelineSchedule pipeline_schedule;
  int64_t virtual_stages;         /* model chunks per pipeline rank (interleaved); 1 otherwise */
  int64_t pp_first_stage_layers;  /* layers of the first and last stages (Megatron */
  int64_t pp_last_stage_layers;   /* --decoder-first/last-pipeline-num-layers); 0 = split */
  int64_t context_parallel;
  int64_t expert_parallel;        /* EP: with etp = tp, divides dp · cp; expert data-parallel
                                   * = tp · dp · cp / (etp · ep) */
  int64_t expert_tensor_parallel; /* etp: TP inside each routed expert (Megatron-Core
                                   * expert_tensor_parallel_size), dividing tp; 0 = tp. Below
                                   * tp, the EP group spreads over the TP ranks too */
  int     zero_stage;             /* 0-3 (DeepSpeed); must stay 0 when fsdp is set */
  HrFsdp  fsdp;

  /* Batch and budget */
  int64_t micro_batch;            /* sequences per GPU per forward */
  int64_t global_batch;           /* sequences per optimizer step; 0 = micro_batch × dp */
  int64_t seq_len;
  double  tokens;                 /* training budget in tokens; 0 = none */

  /* Recipe */
  HrPrecision precision;
  HrFp8Recipe fp8_recipe;         /* fp8-mixed: Transformer Engine's or torchao's */
  bool    fp8_params;             /* fp8-mixed: the parameters are Transformer Engine fp8
                                   * tensors (Megatron's --fp8-param-gather): no 16-bit
                                   * copy, gathered in fp8; no effect in other precisions */
  bool    fp32_gradients;         /* mixed precision: gradients reduced and kept in fp32
                                   * (Megatron main_grad) instead of the working dtype */
  bool    fp32_accumulation_buffer; /* 16-bit gradients of several micro-batches summed in
                                     * a separate fp32 buffer (DeepSpeed's bf16 optimizer);
                                     * Megatron sums them in main_grad itself */
  HrOptimizer optimizer;
  bool    offload_optimizer;      /* ZeRO-Offload: optimizer states and master weights on CPU */
  bool    offload_params;         /* FSDP CPU offload, ZeRO-3 offload_param: sharded parameters,
                                   * gradients and the optimizer step on the CPU */
  HrAttentionImpl attention;
  HrFlashKernel flash_kernel;     /* under flash: which kernel, for its rates (hr-gpu.h) */
  HrRecompute recompute;
  unsigned    recompute_modules;  /* under selective: HR_RECOMPUTE_* bits (hr-flops.h) */
  bool    dropout;
  int64_t dropout_mask_bytes;     /* bytes per mask element: 1 (CUDA bool), 4 (PyTorch CPU) */
  bool    causal;

  /* Costs and rates */
  double  overhead_bytes;         /* CUDA context, NCCL and allocator reserve per GPU */
  double  mfu;                    /* 0 (the default): the step time is predicted from the
                                   * hardware by the planner's step model (hr_plan_step());
                                   * (0, 1]: a measured utilisation of the GPUs' peak that
                                   * overrides it, applied to every FLOP executed
                                   * (recomputation included) */
  double  price_per_gpu_hour;     /* currency units; 0 = no cost */

  /* Mixed precision as PyTorch autocast runs it (HF Trainer --bf16): fp32
   * weights and residual stream, norms in fp32, each projection casting its
   * input to 16 bits. false: a 16-bit model with fp32 master weights in the
   * optimizer (Megatron, DeepSpeed, FSDP MixedPrecision). */
  bool    fp32_residual;
  /* The framework holds 16-bit parameters whenever it shards them, autocast
   * or not (the Hugging Face Trainer: accelerate's FSDP plugin sets
   * MixedPrecision(param_dtype=bf16), DeepSpeed runs bf16): fp32_residual
   * then applies to replicated data parallelism only (hr_training_autocast). */
  bool    sharding_16bit_params;

  /* Fine-tuning: what is trained, frozen or quantised (hr-finetune.h) */
  HrFinetune finetune;

  /* Kernels, loss, optimizer placement, as frameworks ship them
   * (docs/training.md, "Recipes as frameworks run them") */
  HrNormKernel norm_kernel;
  HrRopeKernel rope_kernel;
  HrGluKernel glu_kernel;
  bool    fused_bias_grad;        /* bias gradients computed in the weight-gradient GEMM
                                   * (Transformer Engine); off: nn.Linear sums the output
                                   * gradient over the tokens in a pass of its own */
  bool    compile;                /* torch.compile of each layer (and of the loss, below) */
  bool    compile_loss;           /* with compile, the loss is compiled too (torchtune;
                                   * torchtitan at the checked commit leaves it eager) */
  HrLoss  loss;
  bool    expand_kv;              /* grouped K and V copied to every query head before a
                                   * fused attention kernel (torchtitan's repeat_kv,
                                   * torchtune's expand and flatten); eager attention
                                   * always expands them */
  HrProjections projections;
  bool    model_upcasts_logits;   /* the model returns fp32 logits (torchtune's
                                   * TransformerDecoder: output(h).float()), so a
                                   * compiled full loss gets them already upcast */
  int64_t loss_chunks;            /* chunks of HR_LOSS_CHUNKED and HR_LOSS_CHUNKED_HEAD
                                   * (torchtune, torchtitan: 8) */
  bool    loss_parallel;          /* under TP, the full loss through DTensor's
                                   * loss_parallel() (torchtitan) */
  bool    dtensor_tp;             /* TP through DTensor's parallelize_module (torchtitan):
                                   * under SP the column-parallel projections save their
                                   * all-gathered input */
  bool    async_tp;               /* torchtitan's async TP: under TP with SP and
                                   * torch.compile, each all-gather and reduce-scatter
                                   * decomposed into per-rank chunks overlapped with the
                                   * projection it feeds or follows (docs/planner.md) */
  bool    fsdp_embedding_units;   /* an untied embedding and LM head wrapped as FSDP
                                   * units of their own, resharded after their forward
                                   * (torchtune's custom_sharded_layers), not in the root */
  bool    fsdp2;                  /* FSDP by PyTorch's fully_shard (torchtitan, torchtune):
                                   * each all-gather copied out to the parameters and each
                                   * reduce-scatter's input a copy of the gradients, on the
                                   * compute stream (docs/planner.md) */
  bool    megatron_fsdp;          /* FSDP by Megatron-Core's own implementation: parameters
                                   * and gradients in its contiguous buffers, so neither
                                   * FSDP1's flat-parameter passes nor FSDP2's copies */
  bool    torch_pipelining;       /* pipeline stages run by torch.distributed.pipelining
                                   * (torchtitan): each micro-batch's stage output kept to
                                   * its backward, a receive buffer per micro-batch */
  bool    torch_context_parallel; /* CP by PyTorch's context_parallel() ring attention
                                   * (torchtitan): K and V expanded to every query head,
                                   * all-gathered; partial outputs merged and K/V
                                   * gradients accumulated in fp32 by eager ops */
  int64_t recompute_layers;       /* full recompute on the first N layers of each
                                   * stage (Megatron --recompute-num-layers); 0 = all */
  int64_t recompute_every;        /* only every k-th layer (torchtitan's layer SAC,
                                   * selective_ac_option = k); 0 or 1 = every layer */
  bool    offload_activations;    /* saved layer activations kept on the CPU */
  int64_t offload_layers;         /* of a stage's layers, those whose activations go (Megatron
                                   * cpu_offloading_num_layers); 0 = all but the last */
  bool    optimizer_in_backward;  /* step fused into the backward: no full gradient buffer */
  bool    optimizer_foreach;      /* torch.optim's foreach step: a state-sized temporary */
  bool    optimizer_loop;         /* AdamW one tensor at a time in unfused ops (Composer's
                                   * DecoupledAdamW): the foreach step's passes, one
                                   * tensor's temporaries */
  bool    paged_optimizer;        /* bitsandbytes paged optimizer: states in CUDA unified
                                   * memory, evicted to the host under memory pressure */
  bool    overlap;                /* data-parallel communication overlapped with compute
                                   * (Megatron --overlap-grad-reduce/--overlap-param-gather,
                                   * DeepSpeed overlap_comm, FSDP prefetch); false: after
                                   * the backward pass, as the 2021 Megatron-LM runs did */
  bool    no_sync;                /* gradient accumulation under FSDP's no_sync() (FSDP2
                                   * set_requires_gradient_sync(False); the Hugging Face
                                   * Trainer's default): each micro-batch's gradients are
                                   * kept unsharded and reduce-scattered once per step */
} HrTraining;

/* Parameters that one rank owns, before ZeRO/FSDP sharding. */
typedef struct
{
  int64_t params;             /* everything but routed experts (after TP and PP) */
  int64_t expert_params;      /* routed experts (after EP, expert TP and PP) */
  int64_t factored_elements;  /* Adafactor second-moment elements: rows + cols per
                               * matrix, every element of a vector */
  int64_t largest_layer;      /* the rank's largest layer (ZeRO-3 gathers) */
  int64_t outside_layers;     /* of params: embedding, position table, final norm and
                               * head on the rank (FSDP's root group) */
  int64_t embedding_unit;     /* of outside_layers: the embedding and the head where */
  int64_t head_unit;          /* FSDP wraps them apart (fsdp_embedding_units) */
  int64_t layers;             /* transformer layers on the rank */
  int64_t moe_layers;         /* of which MoE layers */
} HrTrainingRank;

/* Activations of one micro-batch on the reported rank, in bytes, tensor by
 * tensor as Korthikanti et al. (2022) §4 count them, after TP/SP/CP sharding. */
typedef struct
{
  double  embedding;        /* embedding output and its dropout mask (first stage) */
  double  per_layer;        /* one transformer layer as saved under the recompute mode */
  double  per_layer_full;   /* one layer with nothing recomputed (live during a recompute) */
  int64_t layers;           /* layers on the rank (all its virtual chunks) */
  double  layers_total;     /* what all of them save */
  double  final_norm;       /* last stage: final norm input and statistics */
  double  lm_head;          /* last stage: LM head input */
  double  loss;             /* last stage: what the loss saves for its backward */
  double  loss_transient;   /* last stage: the loss backward's buffers beyond that */
  double  stage_output;     /* torch.distributed.pipelining: the stage's output, kept
                             * for its backward (the 16-bit logits on the last stage) */
  double  micro_batch;      /* everything above for one micro-batch on this rank */
  double  held_inputs;      /* of it, the inputs that quantised matmuls keep on their
                             * autograd contexts, which the backward does not free
                             * (hr_finetune_layer_held_inputs; 0 for most runs) */
  double  held_per_layer;   /* the same for one layer */
} HrTrainingActivations;

typedef struct
{
  double dense;   /* ranks a dense parameter's state is split over; 1 when whole */
  double expert;  /* the same for a routed expert's */
} HrShard;

typedef struct
{
  /* The rank reported: of the first pipeline stage (embedding, most
   * micro-batches in flight) and the last (LM head, fp32 logits and loss),
   * the one with the larger total; with pp = 1 they are the same rank. */
  int64_t params_on_gpu;          /* parameters the rank owns before ZeRO sharding */
  int64_t data_parallel;          /* dp = GPUs / (tp · pp · cp) */
  int64_t grad_accumulation;      /* global_batch / (micro_batch × dp) */
  double  micro_batches_in_flight;/* activations held at once on this rank */
  HrTrainingActivations activation;

  double weights;                 /* working copy in the compute dtype (of the trained
                                   * parameters when fine-tuning) */
  double frozen_weights;          /* fine-tuning: the frozen base, 16-bit or quantised */
  double adapters;                /* fine-tuning: the adapters' weights, gradients and
                                   * optimizer states (already inside the fields above) */
  int64_t trainable_params;       /* of the whole model */
  int64_t frozen_params;
  double master_weights;          /* fp32 copy of mixed precision */
  double gradients;
  double frozen_gradients;        /* fine-tuning with finetune.frozen_gradients: the frozen
                                   * layer weights' gradients (already inside gradients) */
  double  gradient_share;         /* of the rank's parameters, the share with a gradient
                                   * (1 for full training) */
  double grad_accumulation_buffer;/* separate fp32 accumulation buffer, where kept */
  double optimizer;               /* optimizer states on the GPU */
  /* What each of the five states above is split over: the ranks a dense
   * parameter's share and a routed expert's divide by, 1 each where the
   * state is whole (FSDP under a pipeline keeps weights and gradients
   * gathered, HYBRID_SHARD shards within a node). */
  HrShard weights_shard, master_shard, gradients_shard, accumulation_shard, optimizer_shard;
  double activations;             /* per_layer × layers × in flight, + outside-layer tensors */
  double activations_per_layer;   /* one layer of one micro-batch */
  double temporary;               /* gathered layers, comm buckets, fp32 logits and loss */
  double cached_free;            /* blocks the caching allocator holds free that a phase
                                   * cannot use (FSDP's stream pools, the 16-bit logits'
                                   * block): reserved_peak less allocated_peak and rounding */
  double overhead;                /* CUDA context, cuBLAS workspace, NCCL buffers */
  double recompute;               /* a recomputed layer's transient during its backward */
  double allocated_peak;          /* live tensors at the step's peak phase
                                   * (torch.cuda.max_memory_allocated; paged
                                   * states are not PyTorch's, not in it) */
  double reserved_peak;           /* plus the caching allocator's rounding
                                   * (torch.cuda.max_memory_reserved) */
  double allocator_cache;         /* the step's reserved less its allocated peak:
                                   * rounding and the blocks it cannot use */
  double load_allocated_peak;     /* torchtune 0.1's QLoRA model load
                                   * (finetune.quant_load_whole): its peak of live
                                   * tensors, */
  double load_reserved;           /* and what it leaves reserved; 0 otherwise. Both
                                   * count in the two peaks above */
  double load_excess;             /* what the load's reservation adds to the step's */
  double peak_forward;            /* the phases: end of the forward (loss included), */
  double peak_loss_backward;      /* the loss's backward, */
  double peak_layer_backward;     /* the last layer's backward (all gradients held), */
  double peak_optimizer;          /* the optimizer step */
  double growing[3];              /* what of the first three phases grows with the
                                   * micro-batch and the sequence (activations, the
                                   * loss's buffers): the limits' first guess */
  double peak_gradients;          /* what of gradients, activations and buffers is */
  double peak_activations;        /* live in the peak phase: with the states they sum */
  double peak_temporary;          /* to the step's allocated peak (allocated_peak
                                   * unless the model's load peaks higher) */
  double peak_held_inputs;        /* of peak_activations, quantised matmuls' inputs kept
                                   * on autograd contexts beyond what the backward
                                   * needs: the previous micro-batch's, or the finished
                                   * layers' (HrTrainingActivations.held_inputs) */
  double total;                   /* reserved_peak + overhead + pageable: what the GPU
                                   * must hold */
  double capacity;                /* the GPU's memory */
  double headroom;                /* capacity − total when it fits, else 0 */
  double overflow;                /* total − pageable − capacity when it does not fit, else 0 */
  bool   fits;
  double cpu_bytes;               /* optimizer states and master weights offloaded to CPU */
  double pageable;                /* paged optimizer: states in unified memory, inside total
                                   * (not in the allocated and reserved peaks) but not
                                   * needed on the GPU for the run to fit */
  double paged_out;               /* of these, what the GPU has no room for: evicted to the
                                   * host during the forward and backward, paged back for
                                   * the update (twice this over the host link per step) */
  double offloaded_activations;   /* activation offloading: the saved tensors of one
                                   * micro-batch sent to the host in the forward and
                                   * fetched back in the backward */
  int64_t pipeline_stage;         /* the rank reported: of the stages examined, the largest total */
  HrTrainingRank rank;
} HrTrainingMemory;

typedef struct
{
  double  tokens_per_step;        /* global_batch × seq_len */
  double  model_flops_per_step;   /* forward + backward of the whole model (what MFU counts) */
  double  hardware_flops_per_step;/* model FLOPs + recomputation (what HFU counts) */
  double  peak_flops;             /* one GPU, compute dtype, dense */
  double  step_seconds;           /* hr_plan_step()'s prediction; with a set mfu:
                                   * hardware FLOPs / (GPUs × peak × mfu) + dequantisation */
  bool    predicted;              /* step_seconds is the hardware prediction (mfu 0), not the
                                   * utilisation set */
  bool    attention_as_gemm;      /* predicted with the attention core at the GEMM rate:
                                   * the GPU has no rate for the kernel (HrPlanStep) */
  bool    needs_utilization;      /* mfu 0 with the optimizer step on the CPU (offloaded
                                   * optimizer or parameters), which the prediction does
                                   * not time: step_seconds and every figure made from it
                                   * are 0, not results, until a utilisation is set */
  double  tokens_per_second;
  double  tokens_per_second_per_gpu; /* ÷ every GPU of the run: what frameworks log per rank */
  double  steps;                  /* ceil (tokens budget / tokens_per_step); 0 without budget */
  double  total_seconds;
  double  gpu_hours;
  double  cost;
  double  energy_kwh;             /* GPUs × board power × time */
  double  mfu;                    /* achieved: model FLOPs / (GPUs × peak × step) */
  double  hfu;                    /* hardware FLOPs / (GPUs × peak × step): the setting */
  double  dequant_seconds;        /* QLoRA: memory-bound dequantisation, inside step_seconds
                                   * (with a set mfu; the prediction has it in its split) */
  double  host_bytes;             /* over the host link per GPU per step: paged-out optimizer
                                   * states out and back, offloaded activations (predicted) */
  double  host_seconds;           /* of it, the time on the critical path, inside step_seconds */
  bool    host_after_sync;        /* the offloaded activations come back exposed, after
                                   * bitsandbytes' synchronisations (HrPlanStep) */

  /* Information, already inside the utilisation (not added to step_seconds) */
  double  bubble_fraction;        /* (p − 1)/m, or /(v·m) interleaved: idle over ideal time */
  double  bubble_seconds;         /* its share of step_seconds: b / (1 + b) */
  double  tp_comm_bytes;          /* per GPU per step */
  double  tp_comm_seconds;
  double  dp_comm_bytes;          /* per GPU per step: gradient reduce (+ ZeRO-3 gathers) */
  double  dp_comm_seconds;
  double  pp_comm_bytes;          /* per GPU per step: activations sent between stages */
  double  pp_comm_seconds;
} HrTrainingTime;

/* Utilisation from a measured throughput (the nanoGPT sizing notebook path). */
typedef struct
{
  double tokens_per_second;
  double step_seconds;
  double mfu;                     /* model FLOPs / (GPUs × peak × time) */
  double hfu;                     /* with recomputation */
} HrTrainingUtilization;

typedef struct
{
  int64_t max_micro_batch;        /* 0 = even a micro-batch of 1 does not fit */
  int64_t max_seq_len;            /* 0 = not even 1 token; capped at hr_training_limits' bound */
  int64_t min_gpus;               /* 0 = none up to the search bound */
  int64_t min_gpus_tensor_parallel;   /* layout found for min_gpus */
  int64_t min_gpus_pipeline_parallel;
  int64_t min_gpus_data_parallel;
} HrTrainingLimits;

void     hr_training_init     (HrTraining       *training);
HrStatus hr_training_validate (const HrTraining *training,
                               const HrModel    *model,
                               HrError          *err);

int64_t  hr_training_gpus          (const HrTraining *training);
int64_t  hr_training_data_parallel (const HrTraining *training);
HrDtype  hr_training_compute_dtype (const HrTraining *training);

/* Layers of pipeline rank `stage` (0 … pp − 1), all its virtual stages:
 * L / pp, or the uneven splits of docs/training.md ("Pipelines"). */
int64_t  hr_training_stage_layers (const HrTraining *training,
                                   const HrModel    *model,
                                   int64_t           stage);

/* The share of the model's layers the recompute mode leaves out: those past
 * the first recompute_layers of each model chunk (Megatron
 * --recompute-num-layers), or all but every k-th (torchtitan's layer SAC,
 * recompute_every); 0 when the mode covers every layer, or there is none. */
double   hr_training_recompute_skipped (const HrTraining *training,
                                        const HrModel    *model);

/* Parameters held by pipeline stage `stage` (0 … pp − 1); validates first. */
HrStatus hr_training_rank        (const HrModel    *model,
                                  const HrTraining *training,
                                  int64_t           stage,
                                  HrTrainingRank   *rank,
                                  HrError          *err);
/* Model states (weights, master weights, gradients, accumulation buffer,
 * optimizer, cpu_bytes) of a rank; the other fields of *memory are left alone. */
void     hr_training_model_states (const HrTraining     *training,
                                   const HrTrainingRank *rank,
                                   HrTrainingMemory     *memory);
/* Activations of one micro-batch on pipeline stage `stage`: the embedding
 * on stage 0, the final norm, LM head and loss on stage pp − 1. */
HrStatus hr_training_activations (const HrModel         *model,
                                  const HrTraining      *training,
                                  int64_t                stage,
                                  HrTrainingActivations *activations,
                                  HrError               *err);
HrStatus hr_training_memory      (const HrModel    *model,
                                  const HrTraining *training,
                                  const HrGpu      *gpu,
                                  HrTrainingMemory *memory,
                                  HrError          *err);
HrStatus hr_training_time        (const HrModel    *model,
                                  const HrTraining *training,
                                  const HrGpu      *gpu,
                                  HrTrainingTime   *time,
                                  HrError          *err);

/* Measured throughput, either in tokens per second or in seconds per step
 * (global_batch × seq_len tokens). */
HrStatus hr_training_utilization_from_tokens_per_second (const HrModel         *model,
                                                         const HrTraining      *training,
                                                         const HrGpu           *gpu,
                                                         double                 tokens_per_second,
                                                         HrTrainingUtilization *out,
                                                         HrError               *err);
HrStatus hr_training_utilization_from_step_seconds      (const HrModel         *model,
                                                         const HrTraining      *training,
                                                         const HrGpu           *gpu,
                                                         double                 step_seconds,
                                                         HrTrainingUtilization *out,
                                                         HrError               *err);

HrStatus hr_training_limits (const HrModel    *model,
                             const HrTraining *training,
                             const HrGpu      *gpu,
                             HrTrainingLimits *limits,
                             HrError          *err);

/* hr_training_memory(), hr_training_time() and hr_training_limits() of one
 * setting in one call, which checks it once and shares its memory among
 * them: the same figures, and the first error the three would give.
 * `limits` may be NULL. */
HrStatus hr_training_estimate (const HrModel    *model,
                               const HrTraining *training,
                               const HrGpu      *gpu,
                               HrTrainingMemory *memory,
                               HrTrainingTime   *time,
                               HrTrainingLimits *limits,
                               HrError          *err);

/* Names as the project file and the CLI spell them ("bf16-mixed", "adamw-8bit",
 * "1f1b", "grad-op", "eager", "selective"); *_from_name returns false when unknown. */
const char *hr_precision_name               (HrPrecision         precision);
bool        hr_precision_from_name          (const char         *name,
                                             HrPrecision        *precision);
const char *hr_optimizer_name               (HrOptimizer         optimizer);
bool        hr_optimizer_from_name          (const char         *name,
                                             HrOptimizer        *optimizer);
const char *hr_pipeline_schedule_name       (HrPipelineSchedule  schedule);
bool        hr_pipeline_schedule_from_name  (const char         *name,
                                             HrPipelineSchedule *schedule);
const char *hr_fsdp_name                    (HrFsdp              fsdp);
bool        hr_fsdp_from_name               (const char         *name,
                                             HrFsdp             *fsdp);
const char *hr_training_attention_name      (HrAttentionImpl     attention);
bool        hr_training_attention_from_name (const char         *name,
                                             HrAttentionImpl    *attention);
const char *hr_fp8_recipe_name              (HrFp8Recipe         recipe);
bool        hr_fp8_recipe_from_name         (const char         *name,
                                             HrFp8Recipe        *recipe);
const char *hr_norm_kernel_name             (HrNormKernel        kernel);
bool        hr_norm_kernel_from_name        (const char         *name,
                                             HrNormKernel       *kernel);
const char *hr_flash_kernel_name            (HrFlashKernel       kernel);
bool        hr_flash_kernel_from_name       (const char         *name,
                                             HrFlashKernel      *kernel);
const char *hr_rope_kernel_name             (HrRopeKernel        kernel);
bool        hr_rope_kernel_from_name        (const char         *name,
                                             HrRopeKernel       *kernel);
const char *hr_projections_name             (HrProjections       projections);
bool        hr_projections_from_name        (const char         *name,
                                             HrProjections      *projections);
const char *hr_glu_kernel_name              (HrGluKernel         kernel);
bool        hr_glu_kernel_from_name         (const char         *name,
                                             HrGluKernel        *kernel);
const char *hr_loss_name                    (HrLoss              loss);
bool        hr_loss_from_name               (const char         *name,
                                             HrLoss             *loss);
/* "core_attn,layernorm,moe_act,mlp,moe,shared_experts,mla_up_proj" (any of
 * them, "" for none); false on an unknown name. */
bool        hr_recompute_modules_from_string (const char *text,
                                              unsigned   *modules);
const char *hr_training_recompute_name      (HrRecompute         recompute);
bool        hr_training_recompute_from_name (const char         *name,
                                             HrRecompute        *recompute);
