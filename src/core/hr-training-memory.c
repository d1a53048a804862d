/* hr-training-memory.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A stage's memory at the peak of a step: the model states, the
 * activations in flight, the buffers and the allocator's rounding, phase
 * by phase (docs/training.md).
 */
#include "hr-training.h"
#include "hr-internal.h"

#include <math.h>
#include <string.h>

/* PyTorch DistributedDataParallel's bucket_cap_mb default (25 MiB); two
 * buckets are in flight while the backward pass fills the next one. */
#define DP_BUCKET_BYTES (25.0 * MIB)
#define DP_BUCKETS_IN_FLIGHT 2.0

/* PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp):
 * a request of kMinLargeAlloc (10 MiB) or more gets a segment of its own
 * rounded up to kRoundLarge (2 MiB); smaller ones share 2 MiB (kSmallBuffer)
 * or 20 MiB (kLargeBuffer) segments, rounded to 512 bytes (kMinBlockSize). */
#define ALLOCATOR_ROUND_LARGE (2.0 * MIB)
#define ALLOCATOR_MIN_LARGE (10.0 * MIB)

HrStatus
hr_training_check_gpu (const HrTraining *training,
                       const HrGpu      *gpu,
                       bool              need_peak,
                       HrError          *err)
{
  if (!isfinite (gpu->memory_bytes) || gpu->memory_bytes <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "memory_bytes",
                         hr_error_value (gpu->memory_bytes), 0, "the GPU's memory");
  if (need_peak)
    {
      double peak = gpu->peak_flops[hr_training_compute_dtype (training)];

      if (!isfinite (peak) || peak <= 0)
        return hr_error_set (err, HR_ERROR_UNSUPPORTED, "precision", training->precision, 0,
                             HR_NO_PEAK_DETAIL);
    }
  return HR_OK;
}

/* Fine-tuning's model states: the frozen base in its storage dtype (sharded
 * only by ZeRO-3/FSDP, which shard every parameter), and weights, gradients
 * and optimizer states for the trained parameters alone. A rank holds the
 * model's trained and frozen parameters in proportion to its share of all
 * parameters. Adapters kept in fp32 (PEFT's autocast_adapter_dtype) are
 * trained as fp32 parameters: no master copy, fp32 gradients and states. */
static void
finetune_states (const HrModel     *model,
                 const HrTraining  *training,
                 const HrParams    *params,
                 HrTrainingMemory  *memory)
{
  HrTrainingRank trained = memory->rank;
  HrTraining t = *training;
  HrFinetuneParams fp;
  double share = (double) memory->params_on_gpu / (double) params->total;
  HrShardGroups g;

  if (hr_finetune_params (model, &training->finetune, hr_training_compute_dtype (training)
                          == HR_DTYPE_FP32 ? 4 : 2, &fp, NULL) != HR_OK)
    return;
  if (training->finetune.fp32_adapters && hr_finetune_is_adapter (&training->finetune))
    t.precision = HR_PRECISION_FP32;
  trained.params = (int64_t) llround ((double) fp.trainable * share);
  trained.expert_params = 0;
  trained.factored_elements = (int64_t) llround ((double) trained.factored_elements
                                                 * (double) fp.trainable
                                                 / (double) params->total);
  hr_training_model_states (&t, &trained, memory);

  hr_training_shard_groups (training, &g);
  memory->frozen_weights = fp.frozen_bytes * share
                           / (hr_training_effective_zero_stage (training) >= 3 ? g.dense : 1);
  memory->trainable_params = fp.trainable;
  memory->frozen_params = fp.frozen;
  memory->gradient_share = (double) fp.trainable / (double) params->total;
  if (hr_finetune_is_adapter (&training->finetune))
    memory->adapters = memory->weights + memory->master_weights + memory->gradients
                       + memory->grad_accumulation_buffer + memory->optimizer;
  /* FSDP1 with use_orig_params flattens each wrapped layer's frozen and
   * trained weights into one FlatParameter that requires grad, and the
   * weights are its views: the frozen ones get gradients too ("the gradient
   * memory usage will be higher than expected (namely, equivalent to not
   * freezing those parameters)", FullyShardedDataParallel's docstring). The
   * root unit outside the layers (embedding, final norm, head) holds frozen
   * weights only. */
  if (training->finetune.frozen_gradients)
    {
      HrTrainingRank layers = memory->rank;

      layers.params -= layers.outside_layers;
      memory->frozen_gradients = hr_training_gradient_bytes (training, &layers);
      memory->gradients += memory->frozen_gradients;
      if (memory->params_on_gpu > 0)
        memory->gradient_share = fmin (1.0, memory->gradient_share
                                            + (double) (layers.params + layers.expert_params)
                                              / (double) memory->params_on_gpu);
    }
  /* Offloaded parameters include the frozen base's shards. */
  if (training->offload_params)
    {
      memory->cpu_bytes += memory->frozen_weights + memory->frozen_gradients;
      memory->gradients -= memory->frozen_gradients;
      memory->frozen_weights = 0;
      memory->frozen_gradients = 0;
    }
}

/* Share of the trained parameters whose optimizer states a paged optimizer
 * pages (HrFinetuneParams.paged: tensors of 1e5 elements or more). */
static double
paged_share (const HrModel    *model,
             const HrTraining *training)
{
  HrFinetuneParams fp;

  if (hr_finetune_params (model, &training->finetune, 2, &fp, NULL) != HR_OK
      || fp.trainable <= 0)
    return 0;
  return (double) fp.paged / (double) fp.trainable;
}

/* Mean bytes of a frozen parameter in its storage (16-bit or quantised). */
static double
frozen_bytes_per_param (const HrModel    *model,
                        const HrTraining *training)
{
  double compute = hr_training_compute_dtype (training) == HR_DTYPE_FP32 ? 4 : 2;
  HrFinetuneParams fp;

  if (hr_finetune_params (model, &training->finetune, compute, &fp, NULL) != HR_OK
      || fp.frozen <= 0)
    return compute;
  return fp.frozen_bytes / (double) fp.frozen;
}

/* Transient buffers of fine-tuning: QLoRA dequantises one frozen matrix at a
 * time to the compute dtype, in the forward and again in the backward
 * (bitsandbytes MatMul4Bit, torchao LinearNF4): a layer's inside the
 * layers, the head's (LitGPT; on the last stage) in the head's forward and
 * backward, neither otherwise (phases()). DoRA's weight norm
 * builds the 16-bit base matrix, B·A and their sum in the adapters' dtype
 * (PEFT DoraLinearLayer.forward) for one matrix at a time. */
static void
finetune_buffers (const HrModel    *model,
                  const HrTraining *training,
                  int64_t           stage,
                  HrStageBuffers   *buffers)
{
  const HrFinetune *f = &training->finetune;
  double compute = hr_training_compute_dtype (training) == HR_DTYPE_FP32 ? 4 : 2;
  double adapter = f->fp32_adapters ? 4 : compute;
  double tp = (double) training->tensor_parallel;
  /* Lightning's BitsandbytesPrecision quantises from
   * weight.to(dtype=torch.half) (fabric/plugins/precision/bitsandbytes.py,
   * _Linear4bit.quantize), so the quant state's dtype is fp16 and
   * bitsandbytes' MatMul4Bit runs dequantize_4bit(B, quant_state).to(A.dtype)
   * in the forward and again in the backward: under a bf16 or fp32 compute
   * the fp16 matrix and its cast live together. */
  double dequant = compute + (hr_finetune_dequant_casts (f, hr_training_compute_dtype (training))
                              ? 2 : 0);
  HrFinetuneParams fp;

  if (!hr_finetune_is_adapter (f)
      || hr_finetune_params (model, f, compute, &fp, NULL) != HR_OK)
    return;
  buffers->dequant_layer = (double) fp.largest_quantized * dequant / tp;
  /* torchao 0.1 (the whole-tensor load's version) dequantises through
   * get_original_weight: both nibbles as int64 (4 + 4 B per element), their
   * levels in bf16 (1 + 1 B), the two scaled halves (1 + 1 B) and their
   * stack (2 B) live at once: 14 B per element (hr-finetune-load.c,
   * dequantize()). */
  if (hr_finetune_whole_nf4_load (f))
    buffers->dequant_layer = (double) fp.largest_quantized * 14 / tp;
  if (stage == training->pipeline_parallel - 1)
    buffers->dequant_head = (double) fp.quantized_head * dequant / tp;
  buffers->finetune_buffers = fmax (buffers->dequant_layer, buffers->dequant_head);
  if (f->method == HR_FINETUNE_DORA)
    buffers->finetune_buffers += (double) fp.largest_adapted * 3 * adapter / tp;
}

/* Parameter tensors of one layer: 4 attention matrices, 2 or 3 MLP
 * matrices, the norms; biases as tensors of their own. Used only to count
 * the caching allocator's rounding. */
static double
layer_tensors (const HrModel *model)
{
  double n = 4 + (model->ffn_kind == HR_FFN_GATED ? 3 : 2) + model->norms_per_layer;

  if (model->qkv_bias)
    n += 3;
  if (model->out_bias)
    n += 1;
  if (model->mlp_bias)
    n += model->ffn_kind == HR_FFN_GATED ? 3 : 2;
  return n;
}

/* The largest matrix of the stage on one GPU, in elements: the embedding
 * or LM head where the stage holds one, else an MLP matrix. */
static double
largest_matrix (const HrModel          *model,
                const HrTraining       *training,
                const HrTrainingMemory *memory)
{
  double rows = ceil ((double) model->vocab_size / (double) training->tensor_parallel);
  double largest = (double) model->ffn_size / (double) training->tensor_parallel
                   * (double) model->hidden_size;

  if ((memory->pipeline_stage == 0 || memory->pipeline_stage == training->pipeline_parallel - 1)
      && rows * (double) model->hidden_size > largest)
    largest = rows * (double) model->hidden_size;
  return largest;
}

/* The peak of a step is the largest of its phases, not the sum of each
 * part's maximum (docs/training.md, "What users measure"):
 *  - end of the forward: the model states, the gradients where they persist
 *    between steps, every in-flight micro-batch's saved tensors;
 *  - the loss's backward (last stage): the same plus the loss's buffers;
 *  - the backward of the stage's first layer: the gradients complete, the
 *    other in-flight micro-batches' activations, that layer's tensors live
 *    (rebuilt when recomputed) — activations shrink and gradients grow
 *    linearly in between, so the ends bound the middle;
 *  - the optimizer step (fused or in place: no temporaries counted).
 * Communication buffers (ZeRO-3 gathers, DP buckets) are live throughout. */
static void
phases (const HrModel        *model,
        const HrTraining     *training,
        const HrActShape     *a,
        const HrStageBuffers *buffers,
        double                backward,
        double                step_outputs,
        HrTrainingMemory     *memory)
{
  const HrFsdpBuffers *fsdp = &buffers->fsdp;
  const HrTrainingActivations *act = &memory->activation;
  /* Paged states are outside PyTorch's allocator (stage_memory). */
  double states = memory->frozen_weights + memory->weights + memory->master_weights
                  + memory->optimizer - memory->pageable + memory->grad_accumulation_buffer;
  double grads = memory->gradients, grads_forward, head_grad = 0, step_temp = 0;
  double n_tensors;
  HrStateBytes b;

  hr_training_state_bytes (training, &b);
  /* torchtune's optimizer_in_bwd registers a step per parameter as its
   * gradient is accumulated (torchtune training/memory.py,
   * register_optim_in_bwd_hooks), then frees it: one parameter's gradient at
   * a time, the largest matrix — the embedding or LM head where the stage
   * holds one, else an MLP matrix. */
  if (training->optimizer_in_backward)
    {
      grads = largest_matrix (model, training, memory) * b.gradients;
      if (grads > memory->gradients)
        grads = memory->gradients;
      memory->gradients = grads;
    }
  /* zero_grad(set_to_none=True), PyTorch's default since 2.0, frees the
   * gradients after each step; they persist through the forward while
   * micro-batches accumulate (grad accumulation, pipelines) and in
   * DeepSpeed's and Megatron's ZeRO buffers. */
  grads_forward = (hr_training_grad_accumulation (training) > 1 || training->pipeline_parallel > 1
                   || training->zero_stage > 0) ? grads : 0;
  /* torch.optim.AdamW's foreach implementation (_multi_tensor_adamw) makes
   * exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs) for all the
   * parameters at once: one more state-sized buffer during the step. The
   * fused implementations (fused=True, Apex/Transformer Engine FusedAdam,
   * DeepSpeed) update in place. */
  if (training->optimizer_foreach && training->optimizer == HR_OPTIMIZER_ADAMW
      && !training->optimizer_in_backward)
    step_temp = memory->optimizer / 2;
  /* A loop over the tensors (Composer's DecoupledAdamW) makes
   * exp_avg_sq.sqrt() / √bc₂ one tensor at a time: two of the largest
   * matrix's state-sized tensors live at once, a shard of it where the
   * states are sharded. */
  if (training->optimizer_loop && training->optimizer == HR_OPTIMIZER_ADAMW
      && !training->optimizer_in_backward)
    {
      HrShardGroups groups;

      hr_training_shard_groups (training, &groups);
      step_temp = 2.0 * largest_matrix (model, training, memory) * b.state
                  / (hr_training_effective_zero_stage (training) >= 1 ? groups.dense : 1.0);
    }
  /* Chunked, the LM head's weight gradient is allocated at the first
   * chunk's backward and summed into over the others: it is live beside the
   * chunk's buffers (full: the fp32 buffers are gone by the time it is made;
   * fused: made in the forward, counted in the loss). Each later chunk's
   * product writes its own weight gradient before the autograd engine adds
   * it in (torch/csrc/autograd/input_buffer.cpp, InputBuffer::add): two of
   * them live at once, the new one in the compute dtype. */
  if ((training->loss == HR_LOSS_CHUNKED || training->loss == HR_LOSS_CHUNKED_HEAD)
      && act->lm_head > 0)
    {
      double head = ceil ((double) model->vocab_size / (double) training->tensor_parallel)
                    * (double) model->hidden_size;

      head_grad = head * a->compute + (grads_forward == 0 ? head * b.gradients : 0);
    }

  {
    /* What is live in each phase: gradients, activations, buffers. Of
     * QLoRA's dequantised matrix (in temporary, the larger of the two) the
     * forward's end and the loss hold the head's, the layers' backward a
     * layer's, the step neither. */
    double dequant = fmax (buffers->dequant_layer, buffers->dequant_head);
    double forward_temp = memory->temporary - fsdp->forward_less + fsdp->root
                          - (dequant - buffers->dequant_head);
    /* Inputs kept on autograd contexts (act->held_inputs) live as long as
     * the graph: through the whole backward, and, where the loop holds the
     * loss, through the optimizer step and the next micro-batch's forward,
     * until its loss replaces it (a plain loop's `loss = …`; LitGPT's fit). */
    double held = act->held_inputs;
    double held_loop = training->finetune.loop_keeps_loss ? held : 0;
    double held_live[4] = { held_loop, 0, held - act->held_per_layer, held_loop };
    double live[4][3] = {
      { grads_forward, memory->activations + held_live[0], forward_temp },
      { grads_forward + head_grad, memory->activations,
        forward_temp + act->loss_transient + fsdp->head_unit },
      { grads, backward + held_live[2], memory->temporary + fsdp->root + fsdp->embedding_unit
                                         - (dequant - buffers->dequant_layer) },
      { training->optimizer_in_backward ? 0 : grads, held_live[3],
        memory->temporary + fmax (step_temp, step_outputs) - dequant },
    };
    double *peak[4] = { &memory->peak_forward, &memory->peak_loss_backward,
                        &memory->peak_layer_backward, &memory->peak_optimizer };
    double cached[4] = { 0, 0, 0, 0 }, reserved = 0;
    /* the 16-bit logits of the rank's vocabulary rows */
    double logits_16 = a->tokens
                       * ceil ((double) model->vocab_size / (double) training->tensor_parallel) * 2;
    int at = 0;

    for (int i = 0; i < 4; i++)
      {
        *peak[i] = states + live[i][0] + live[i][1] + live[i][2];
        if (*peak[i] > *peak[at])
          at = i;
      }
    memory->allocated_peak = *peak[at];
    for (int i = 0; i < 3; i++)
      memory->growing[i] = live[i][1] + (i == 1 ? act->loss_transient : 0);
    /* Blocks the caching allocator holds free in a phase that the phase
     * cannot use count in what it reserves (reserved_peak, the largest over
     * the phases; below). The allocator keeps a pool of blocks per stream
     * (c10/cuda/CUDACachingAllocator.cpp: a freed block is reused only by
     * its own stream). FSDP reduce-scatters into gradient shards allocated
     * on its reduce-scatter stream (FSDP2 foreach_reduce; FSDP1 its
     * post-backward stream), so once zero_grad frees them their blocks stay
     * reserved there; and FSDP2 all-gathers into a flat buffer allocated on
     * its copy-in stream (foreach_all_gather), whose largest is the root
     * group's, or two layers' with the prefetch. */
    for (int i = 0; i < 4; i++)
      if (fsdp->gather_pool > 0)
        cached[i] = fsdp->gather_pool
                    + (hr_training_fsdp_pipeline (training) ? fsdp->grad_shards
                       : (fsdp->grad_shards > live[i][0] ? fsdp->grad_shards - live[i][0] : 0));
    /* The eager full loss upcasts the 16-bit logits (torchtitan's loss_fn:
     * cross_entropy(pred.float(), …)) and the logits are dropped before the
     * backward (train.py: del pred). Their block, of T·V 16-bit elements, is
     * its own segment (over kMinLargeAlloc) and half the size of each fp32
     * buffer the loss's backward allocates (the log-probabilities' and the
     * logits' gradients): it stays cached, unused, in that phase — in every
     * step, since the next forward's logits take it back. */
    if (training->loss == HR_LOSS_FULL && act->loss_transient > 0 && act->stage_output == 0
        && logits_16 >= ALLOCATOR_MIN_LARGE
        && !(training->compile && training->compile_loss)
        && hr_training_compute_dtype (training) != HR_DTYPE_FP32)
      cached[1] += logits_16;
    /* Under DTensor TP with sequence parallel and full recomputation (the
     * torchtitan layouts of its 2D-4D tables), each layer's forward saves
     * only its input; its full-width blocks go back to the allocator at the
     * layer's end and are reused by the next. X = T·h·a, F = T·ffn/t·a
     * (docs/training.md, "Checked against torchtitan's H100 runs").
     * Functional collectives on the sequence dimension copy: the all-gather
     * returns its output concatenated anew (raw X, copy X), the row-parallel
     * output (X) is chunked and concatenated (X) before its reduce-scatter.
     * Replayed through the allocator's rules (best fit, splitting), the
     * attention leaves three X segments; the MLP's gate, up and product fit
     * in their free parts, but the down projection's copy, with the
     * attention's output pinning the first segment, needs a fourth: 4X.
     * Async TP gathers and scatters in symmetric memory, outside the
     * allocator, and allocates one X each (ag_out, stacked_partials): ag_out
     * and the gate and up outputs, the product carved from ag_out's block,
     * then stacked_partials in a new segment: 2X + 2F (a GELU MLP 2X + F).
     * Neither the end of the forward nor the loss can use them: the loss's
     * blocks (the 16-bit logits upward) are larger. Counted only where that
     * holds and where the MLP's projections fit beside the pinned output
     * (F ≤ X·(1 − 1/t)), which the replay assumes. */
    if (training->dtensor_tp && training->sequence_parallel && training->tensor_parallel > 1
        && training->recompute == HR_RECOMPUTE_FULL && model->n_experts == 0)
      {
        double t = (double) training->tensor_parallel;
        double x = a->tokens * a->h * a->compute;
        double f = a->tokens * (double) model->ffn_size / t * a->compute;
        double transients = training->async_tp
                            ? 2 * x + (model->ffn_kind == HR_FFN_GATED ? 2 : 1) * f
                            : 4 * x;
        bool last = memory->pipeline_stage == training->pipeline_parallel - 1;

        if (f <= x * (1 - 1 / t) && (!last || logits_16 >= x))
          for (int i = 0; i < 2; i++)
            cached[i] += transients;
      }
    for (int i = 0; i < 4; i++)
      if (*peak[i] + cached[i] > reserved)
        reserved = *peak[i] + cached[i];
    memory->cached_free = reserved - memory->allocated_peak;
    memory->peak_gradients = live[at][0];
    memory->peak_activations = live[at][1];
    memory->peak_held_inputs = held_live[at];
    memory->peak_temporary = live[at][2];
  }
  memory->temporary += act->loss_transient;

  /* Rounding: a block of kMinLargeAlloc (10 MiB) or more is its own
   * segment, rounded up to kRoundLarge: on average half of it is wasted.
   * Smaller blocks are carved out of shared 2 MiB or 20 MiB segments with
   * 512-byte rounding (negligible). The blocks live at the peak: each
   * layer's saved tensors (about one per parameter tensor: each matrix saves
   * its input or output; the input alone under full recomputation) per
   * in-flight micro-batch and, unsharded, each
   * parameter tensor's copies (weights, master, gradients, optimizer
   * states); ZeRO and FSDP keep flat shards, a few blocks in all. A class
   * counts when its mean block is large. */
  {
    double per_layer = layer_tensors (model);
    double saved_per_layer = training->recompute == HR_RECOMPUTE_FULL ? 1 : per_layer;
    double layers = (double) memory->rank.layers;
    double saved = saved_per_layer * layers * memory->micro_batches_in_flight;
    /* the optimizer's copies less the paged ones, which are not PyTorch's blocks */
    double copies = (b.master > 0 ? 2 : 1) + 1
                    + (training->optimizer == HR_OPTIMIZER_ADAMW
                       || training->optimizer == HR_OPTIMIZER_ADAMW_8BIT ? 2 : 1)
                      * (memory->optimizer > 0 ? 1 - memory->pageable / memory->optimizer : 1);
    double param_block = per_layer * layers > 0
                         ? (double) memory->rank.params * b.weights / (per_layer * layers) : 0;

    /* ZeRO 1 and 2 flatten the trained parameters' groups, ZeRO 3 and FSDP
     * every parameter, into a few flat blocks. */
    bool flat = hr_training_effective_zero_stage (training) > 0;

    /* Adapters: the base's tensors are frozen, one copy each in their
     * storage; the adapters' own blocks are small. ZeRO 1 and 2 leave the
     * frozen tensors as they are (DeepSpeed flattens only the groups it
     * optimises: stage_1_and_2.py, bit16_groups_flat). */
    if (hr_finetune_is_adapter (&training->finetune))
      {
        copies = 1;
        param_block = per_layer * layers > 0 ? memory->frozen_weights / (per_layer * layers) : 0;
        flat = hr_training_effective_zero_stage (training) >= 3;
      }

    n_tensors = 0;
    if (memory->activation.per_layer / saved_per_layer >= ALLOCATOR_MIN_LARGE)
      n_tensors += saved;
    if (!flat && param_block >= ALLOCATOR_MIN_LARGE)
      n_tensors += per_layer * layers * copies;
  }
  memory->reserved_peak = memory->allocated_peak + n_tensors * ALLOCATOR_ROUND_LARGE / 2
                          + memory->cached_free;
  memory->allocator_cache = memory->reserved_peak - memory->allocated_peak;
  /* The model's load comes before the step (hr-finetune-load.c): its live
   * tensors peak on their own, and the segments it reserved stay. The
   * step's tensors are smaller than the blocks the load freed, so they fit
   * in those segments unless the step needs more. */
  if (memory->load_allocated_peak > memory->allocated_peak)
    memory->allocated_peak = memory->load_allocated_peak;
  if (memory->load_reserved > memory->reserved_peak)
    {
      memory->load_excess = memory->load_reserved - memory->reserved_peak;
      memory->reserved_peak = memory->load_reserved;
    }

  memory->overhead = training->overhead_bytes;
  memory->total = memory->reserved_peak + memory->overhead + memory->pageable;
}

static void
stage_states (const HrModel    *model,
              const HrTraining *training,
              const HrParams   *params,
              int64_t           stage,
              HrTrainingMemory *memory,
              HrStageBuffers   *buffers)
{
  int64_t zero = hr_training_effective_zero_stage (training);
  HrFsdpBuffers *fsdp = &buffers->fsdp;
  HrStateBytes b;

  memset (memory, 0, sizeof *memory);
  memset (buffers, 0, sizeof *buffers);
  memory->pipeline_stage = stage;
  memory->data_parallel = hr_training_dp (training);
  memory->grad_accumulation = hr_training_grad_accumulation (training);
  hr_training_stage_rank (model, training, params, stage, &memory->rank);
  memory->params_on_gpu = memory->rank.params + memory->rank.expert_params;
  memory->gradient_share = 1;
  if (hr_finetune_is_full (&training->finetune))
    hr_training_model_states (training, &memory->rank, memory);
  else
    finetune_states (model, training, params, memory);
  if (hr_finetune_whole_nf4_load (&training->finetune))
    hr_finetune_load_peaks (model, &training->finetune, &memory->load_allocated_peak,
                            &memory->load_reserved);
  memory->micro_batches_in_flight = hr_training_in_flight (training, stage);

  /* Temporary buffers */
  hr_training_state_bytes (training, &b);
  if (zero >= 3 && hr_training_dp (training) * training->context_parallel > 1
      && !hr_training_fsdp_pipeline (training))
    {
      bool adapter = hr_finetune_is_adapter (&training->finetune);
      /* a gathered parameter: the frozen base in its storage, else param_dtype */
      double gathered = adapter ? frozen_bytes_per_param (model, training) : b.weights;
      /* the layer's unsharded gradient, unless no_sync keeps all of them
       * (in gradients) or the layer's weights are frozen */
      double layer_grad = (adapter && !training->finetune.frozen_gradients)
                          || hr_training_unsharded_accumulation (training) ? 0 : b.gradients;

      /* ZeRO-3/FSDP gather the layer being computed and prefetch the next, and
       * hold the full gradient of a layer until it is reduce-scattered: the
       * backward's buffers. Under FSDP the end of the forward and the loss
       * hold one layer (torchtitan's apply_fsdp keeps the last block
       * unsharded after its forward; the backward prefetch starts in that
       * block's pre-backward hook). */
      memory->temporary += (double) memory->rank.largest_layer * (2 * gathered + layer_grad);
      if (training->fsdp != HR_FSDP_NONE)
        fsdp->forward_less = (double) memory->rank.largest_layer * (gathered + layer_grad);
      /* FSDP does not reshard the root module after its forward ("for the
       * root, do not reshard after forward since for training, the
       * parameters would be freed and all-gathered immediately":
       * FSDPState._lazy_init in FSDP2, _post_forward_reshard in FSDP1): the
       * parameters outside the wrapped blocks (embedding, final norm, head)
       * stay gathered from the forward to the end of the backward. */
      if (training->fsdp != HR_FSDP_NONE)
        {
          /* Wrapped apart (torchtune's custom_sharded_layers), the
           * embedding and the head reshard after their forward like a
           * layer and are gathered again for their backward: the head's
           * with the loss's, the embedding's at the end of the backward. */
          fsdp->root = (double) hr_training_rank_root (&memory->rank) * gathered;
          fsdp->head_unit = (double) memory->rank.head_unit * gathered;
          fsdp->embedding_unit = (double) memory->rank.embedding_unit * gathered;
        }
    }
  if (training->fsdp != HR_FSDP_NONE && zero >= 3
      && hr_training_dp (training) * training->context_parallel > 1)
    {
      double gathered = hr_finetune_is_adapter (&training->finetune)
                        ? frozen_bytes_per_param (model, training) : b.weights;
      double outside = fmax ((double) hr_training_rank_root (&memory->rank),
                             fmax ((double) memory->rank.embedding_unit,
                                   (double) memory->rank.head_unit));
      double layers2 = 2 * (double) memory->rank.largest_layer;
      HrShardGroups g;

      /* What FSDP's communication streams keep cached (phases()): the
       * largest all-gather buffer, the root group's or two layers', and the
       * gradient shards (under a pipeline the unsharded accumulators are
       * the gradients; the shards are made at the last micro-batch). */
      hr_training_shard_groups (training, &g);
      fsdp->gather_pool = (outside > layers2 ? outside : layers2) * gathered;
      fsdp->grad_shards = hr_training_fsdp_pipeline (training) ? memory->gradients / g.dense
                                                   : memory->gradients;
    }
  finetune_buffers (model, training, stage, buffers);
  if (training->paged_optimizer)
    buffers->paged_share = paged_share (model, training);
  /* The stages' gradient windows under FSDP (their shards are made by the
   * end of the step: the pool above keeps them all). */
  if (hr_training_fsdp_pipeline (training) && training->pipeline_schedule == HR_PIPELINE_INTERLEAVED
      && memory->grad_accumulation < 2 * training->pipeline_parallel
      && hr_finetune_is_full (&training->finetune))
    memory->gradients = hr_training_interleaved_fsdp_gradients (model, training, params, stage,
                                                                memory);
}

/* The rest of a stage's memory, `memory` holding stage_states()'s and the
 * stage's activations of one micro-batch (hr_training_stage_activations()). */
static void
stage_finish (const HrModel        *model,
              const HrTraining     *training,
              const HrActShape     *a,
              const HrLayerKinds   *kinds,
              const HrStageBuffers *buffers,
              HrTrainingMemory     *memory)
{
  int64_t stage = memory->pipeline_stage;
  HrInterleavedPeak peak;
  double backward;  /* activations live in the backward of the stage's first layer */
  double step_outputs = 0;  /* what the optimizer step holds beyond the temporaries */

  memory->activations_per_layer = memory->activation.per_layer;
  if (training->pipeline_schedule == HR_PIPELINE_INTERLEAVED)
    {
      hr_training_interleaved_peak (model, training, a, kinds, &memory->activation, stage, &peak);
      memory->activations = peak.activations;
      /* in micro-batches of all the rank's layers */
      memory->micro_batches_in_flight = peak.activations / memory->activation.micro_batch;
      backward = peak.activations - peak.freed
                 + (memory->activation.layers > 0 ? memory->activation.per_layer_full : 0);
    }
  else
    {
      memory->activations = memory->micro_batches_in_flight * memory->activation.micro_batch;
      /* the oldest micro-batch by its backward of the stage's first layer
       * holds its embedding's tensors and kept output */
      backward = (memory->micro_batches_in_flight - 1) * memory->activation.micro_batch
                 + (memory->activation.layers > 0 ? memory->activation.per_layer_full : 0)
                 + memory->activation.embedding + memory->activation.stage_output;
      peak.inputs = stage > 0 ? memory->micro_batches_in_flight : 0;
    }
  /* torch's context_parallel() with the all-gather rotation (torchtitan's):
   * a layer's backward gathers every rank's K and V block again, c blocks of
   * the rank's tokens × the K/V heads SDPA gets (every query head after
   * repeat_kv) × the head dims, and sums dq, dk and dv into fp32 buffers
   * (torch/distributed/tensor/experimental/_attention.py,
   * _templated_ring_attention_backward; docs/planner.md, "Context parallel
   * in PyTorch"). */
  if (training->torch_context_parallel && training->context_parallel > 1
      && training->attention == HR_ATTENTION_FLASH && memory->activation.layers > 0)
    {
      double kv = training->expand_kv ? a->heads : a->kv_heads;
      double block = a->tokens * kv * (a->d_qk + a->d_v) * a->compute;
      double grads = a->tokens * (a->heads * a->d_qk + kv * (a->d_qk + a->d_v)) * 4;

      backward += (double) training->context_parallel * block + grads;
    }
  /* The layer being recomputed holds the tensors its forward rebuilds during
   * its backward, beside what it saved. */
  if (training->recompute != HR_RECOMPUTE_NONE && memory->activation.layers > 0)
    memory->recompute = memory->activation.per_layer_full - memory->activation.per_layer;

  /* Activation offloading (torchtune training/_activation_offloading.py,
   * OffloadActivations): the layers' saved tensors go to pinned CPU memory
   * in the forward and come back one layer ahead in the backward: the last
   * layer and the one brought back stay on the GPU. Megatron's
   * cpu_offloading_num_layers N < the stage's layers (offload_layers) moves
   * N of them, one of which is back ahead of its backward: the others stay. */
  if (training->offload_activations && memory->activation.layers > 2)
    {
      int64_t layers = memory->activation.layers;
      int64_t offloaded = training->offload_layers > 0 && training->offload_layers < layers - 1
                          ? training->offload_layers : layers - 1;
      double resident = (double) (layers - offloaded + 1) * memory->activation.per_layer;
      double moved = memory->micro_batches_in_flight
                     * (memory->activation.layers_total - resident);

      if (moved > 0)
        {
          memory->activations -= moved;
          memory->cpu_bytes += moved;
          memory->offloaded_activations = memory->activation.layers_total - resident;
        }
    }

  /* torch.distributed.pipelining allocates its receive buffers once, one
   * per micro-batch (stage.py: _prepare_forward_infra makes
   * args_recv_info[chunk] for each chunk, _prepare_backward_infra
   * grad_recv_info[mb] for each): every stage but the last receives its
   * output's gradients, every stage but the first its input. An in-flight
   * micro-batch's input buffer is what its first layer saves (counted in
   * the activations); the others are held besides. */
  if (hr_training_torch_pipelining (training))
    {
      double m = (double) memory->grad_accumulation;
      double boundary = a->tokens * a->h_rep * a->residual;
      /* the rank's stages (interleaved: v of them, stage + j·pp) that send
       * an output, and that receive an input */
      double senders = (double) training->virtual_stages - (stage == training->pipeline_parallel - 1);
      double receivers = (double) training->virtual_stages - (stage == 0);

      memory->temporary += (senders * m + receivers * m - peak.inputs) * boundary;
    }
  /* torch.distributed.pipelining keeps every micro-batch's output for the
   * step (stage.py, forward_one_chunk: output_chunks.append(output), on every
   * stage until torch 2.8, pytorch#153383, then on the last), cleared only
   * at the next step's start (clear_runtime_states); step() then cats the
   * last stage's into one tensor for its return (_merge_outputs) even when
   * the caller drops it, until step(return_outputs=False) (torch 2.10,
   * pytorch#165822). The in-flight micro-batches' are in the activations;
   * by the end of 1F1B's steady state m − in-flight more are kept, with as
   * many in flight as ever; the optimizer step has all m and, before it,
   * their concatenation on the last stage. */
  if (hr_training_torch_pipelining (training))
    {
      double m = (double) memory->grad_accumulation;
      double in_flight = memory->micro_batches_in_flight;
      double output = memory->activation.stage_output;
      double kept = m > in_flight ? (m - in_flight) * output : 0;

      memory->temporary += kept;
      step_outputs = m * output - kept
                     + (stage == training->pipeline_parallel - 1 ? m * output : 0);
    }
  if (hr_training_dp (training) * training->context_parallel > 1)
    memory->temporary += DP_BUCKETS_IN_FLIGHT * DP_BUCKET_BYTES;
  memory->temporary += buffers->finetune_buffers;

  /* Paged optimizers (Dettmers et al. 2023, QLoRA §2 "Paged Optimizers";
   * bitsandbytes optim/optimizer.py get_state_buffer): the states of each
   * tensor of 1e5 elements or more are allocated with cudaMallocManaged
   * (functional.py get_paged) and prefetched to the GPU for the update
   * (prefetch_state). The driver evicts them to host memory when the GPU has
   * no room and pages them back on access: they count in the total where
   * there is room, but a run whose other bytes fit does not fail. get_paged
   * wraps the pointer with torch.frombuffer, a CPU tensor: PyTorch's CUDA
   * allocator never sees them, so phases() leaves them out of the allocated
   * and reserved peaks. */
  if (training->paged_optimizer)
    memory->pageable = memory->optimizer * buffers->paged_share;

  phases (model, training, a, buffers, backward, step_outputs, memory);
}

/* The stages whose memory is looked at: the first (most in flight, the
 * embedding) and the last (the loss), the most loaded of even stages, or
 * every stage when they are uneven. Returns how many; examined_stage() gives
 * the k-th. */
static int64_t
examined_stages (const HrTraining *training,
                 const HrModel    *model,
                 int64_t          *first_other)
{
  int64_t pp = training->pipeline_parallel;

  *first_other = hr_training_even_stages (training, model->n_layers) ? pp - 1 : 1;
  return pp > 1 ? 1 + pp - *first_other : 1;
}

static int64_t
examined_stage (int64_t first_other,
                int64_t k)
{
  return k == 0 ? 0 : first_other + k - 1;
}

/* The memory of a validated setting with the model's parameters counted. */
/* The finishing figures of a stage's memory against the GPU's. */
void
hr_training_memory_against (const HrGpu      *gpu,
                            HrTrainingMemory *memory)
{
  memory->capacity = gpu->memory_bytes;
  /* Paged states leave the GPU before a run fails (stage_finish). */
  memory->fits = memory->total - memory->pageable <= memory->capacity;
  memory->headroom = memory->total <= memory->capacity ? memory->capacity - memory->total : 0;
  memory->overflow = memory->fits ? 0 : memory->total - memory->pageable - memory->capacity;
  memory->paged_out = memory->fits && memory->total > memory->capacity
                      ? memory->total - memory->capacity : 0;
}

/* The memory of a validated setting with the model's parameters counted:
 * of the examined stages, the one with the largest total (the first of
 * equals). With a cache, `keep` says what of the setting's stages it holds
 * or, HR_KEEP_NOTHING, is to hold. The figures against the GPU are left out
 * (hr_training_memory_against()). */
void
hr_training_stages_memory (const HrModel    *model,
                           const HrTraining *training,
                           const HrParams   *params,
                           HrStageCache     *cache,
                           HrKeep            keep,
                           HrTrainingMemory *memory)
{
  HrActShape own_shape, *a = &own_shape;
  HrLayerKinds own_kinds, *kinds = &own_kinds;
  HrTrainingMemory other;
  int64_t first_other, n = examined_stages (training, model, &first_other);

  if (cache != NULL && keep != HR_KEEP_STATES)
    {
      a = &cache->shape;
      kinds = &cache->kinds;
    }
  if (cache == NULL || keep != HR_KEEP_ACTIVATIONS)
    {
      hr_training_act_shape (model, training, a);
      hr_training_layer_kinds (model, training, a, kinds);
    }
  for (int64_t k = 0; k < n; k++)
    {
      HrTrainingMemory *at = k == 0 ? memory : &other;
      int64_t stage = examined_stage (first_other, k);
      bool cached = cache != NULL && k < HR_STAGE_CACHE;
      HrStageBuffers own_buffers;
      HrStageBuffers *buffers = cached && keep != HR_KEEP_ACTIVATIONS ? &cache->buffers[k]
                                                                 : &own_buffers;

      if (cached && keep == HR_KEEP_STATES)
        *at = cache->states[k];
      else
        {
          stage_states (model, training, params, stage, at, buffers);
          if (cached && keep == HR_KEEP_NOTHING)
            cache->states[k] = *at;
        }
      if (cached && keep == HR_KEEP_ACTIVATIONS)
        at->activation = cache->activations[k];
      else
        {
          hr_training_stage_activations (model, training, a, kinds, stage, &at->activation);
          if (cached && keep == HR_KEEP_NOTHING)
            cache->activations[k] = at->activation;
        }
      stage_finish (model, training, a, kinds, buffers, at);
      if (k > 0 && other.total > memory->total)
        *memory = other;
    }
}

void
hr_training_memory_of (const HrModel    *model,
                       const HrTraining *training,
                       const HrGpu      *gpu,
                       const HrParams   *params,
                       HrTrainingMemory *memory)
{
  hr_training_stages_memory (model, training, params, NULL, HR_KEEP_NOTHING, memory);
  hr_training_memory_against (gpu, memory);
}

/* What a training estimate checks first: the setting, then the GPU (its
 * peak too for a time); then it counts the model's parameters. */
HrStatus
hr_training_check_setting (const HrModel    *model,
                           const HrTraining *training,
                           const HrGpu      *gpu,
                           bool              need_peak,
                           HrParams         *params,
                           HrError          *err)
{
  HrStatus status;

  if ((status = hr_training_validate (training, model, err)) != HR_OK)
    return status;
  if ((status = hr_training_check_gpu (training, gpu, need_peak, err)) != HR_OK)
    return status;
  return hr_model_count_params (model, params, err);
}

HrStatus
hr_training_memory (const HrModel    *model,
                    const HrTraining *training,
                    const HrGpu      *gpu,
                    HrTrainingMemory *memory,
                    HrError          *err)
{
  HrStatus status;
  HrParams params;

  if ((status = hr_training_check_setting (model, training, gpu, false, &params, err)) != HR_OK)
    return status;
  hr_training_memory_of (model, training, gpu, &params, memory);
  return HR_OK;
}
