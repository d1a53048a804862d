/* headroom-explain.c: each figure's derivation, with the project's values
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * headroom_estimator_dup_explanation() writes three lines: the formula
 * with the project's values substituted and the result, the assumption it
 * rests on, and the source. The window's "show why" popovers and the CLI's
 * --explain print the same text. Every number comes from the estimator's
 * last result; per-parameter bytes are the figure divided back by the
 * parameters it covers, so the line always multiplies out to the figure.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-estimator.h"
#include "headroom-flops-row.h"
#include "headroom-format.h"
#include "headroom-quantity.h"

/* The ZeRO stage in effect: FSDP full and hybrid shard like stage 3,
 * SHARD_GRAD_OP like stage 2 (Zhao et al. 2023, §3). */
static int
effective_zero (HeadroomProject *project)
{
  const char *fsdp = headroom_project_get_string (project, "training.fsdp");

  if (g_strcmp0 (fsdp, "full") == 0 || g_strcmp0 (fsdp, "hybrid") == 0)
    return 3;
  if (g_strcmp0 (fsdp, "grad-op") == 0)
    return 2;
  return (int) headroom_project_get_int (project, "training.zero_stage");
}

static HeadroomQuantity *
find_quantity (GListModel *model,
               const char *name)
{
  guint n = g_list_model_get_n_items (model);

  for (guint i = 0; i < n; i++)
    {
      HeadroomQuantity *q = g_list_model_get_item (model, i);

      if (g_strcmp0 (headroom_quantity_get_name (q), name) == 0)
        return q;
      g_object_unref (q);
    }
  return NULL;
}

/* "8 B × 4.02 B parameters on this GPU ÷ 4 (ZeRO-1 over 4 data-parallel ranks) = 7.48 GiB",
 * with what the core split the state over (HrTrainingMemory's shards). */
static char *
state_line (HeadroomEstimator *self,
            const char        *label,
            double             value,
            const HrShard     *shard,
            int                from_stage)
{
  HeadroomProject *project = headroom_estimator_get_project (self);
  const HrTrainingMemory *m = headroom_estimator_get_training_memory (self);
  double dense = (double) m->rank.params;
  double experts = (double) m->rank.expert_params;
  int zero = effective_zero (project);
  g_autofree char *count = headroom_format_count (dense + experts);
  g_autofree char *result = headroom_format_gib (value);
  double held = shard->dense >= 1 && shard->expert >= 1
                ? dense / shard->dense + experts / shard->expert : 0;
  double per_param;

  if (held <= 0)
    return g_strdup_printf ("%s = %s", label, result);
  /* Offloaded parameters take every state off the GPU, ZeRO-Offload the
   * ZeRO-1 ones (master copy and optimizer states). */
  if (value == 0
      && (headroom_project_get_boolean (project, "training.offload_params")
          || (from_stage == 1 && headroom_project_get_boolean (project, "training.offload_optimizer"))))
    /* TRANSLATORS: e.g. "Weights = 0.00 GiB on this GPU: offloaded to host memory" */
    return g_strdup_printf (_("%s = %s on this GPU: offloaded to host memory"), label, result);
  per_param = value / held;
  if (experts > 0 && shard->expert != shard->dense)
    {
      g_autofree char *dense_count = headroom_format_count (dense);
      g_autofree char *expert_count = headroom_format_count (experts);

      /* TRANSLATORS: e.g. "Optimizer states = 8 B × (1.2 B dense parameters ÷ 64 + 30 B expert
       * parameters ÷ 8) on this GPU = 30.1 GiB" */
      return g_strdup_printf (_("%s = %.3g B × (%s dense parameters ÷ %.0f + %s expert parameters "
                                "÷ %.0f) on this GPU = %s"),
                              label, per_param, dense_count, shard->dense, expert_count,
                              shard->expert, result);
    }
  if (shard->dense > 1)
    /* TRANSLATORS: e.g. "Optimizer states = 8 B × 4.02 B parameters on this GPU ÷ 4 (ZeRO-1 over
     * 4 data-parallel ranks) = 7.48 GiB" */
    return g_strdup_printf (_("%s = %.3g B × %s parameters on this GPU ÷ %.0f (ZeRO-%d over %.0f "
                              "data-parallel ranks) = %s"),
                            label, per_param, count, shard->dense, zero, shard->dense, result);
  if (zero >= from_stage && m->data_parallel > 1
      && headroom_project_get_int (project, "training.pipeline_parallel") > 1
      && g_strcmp0 (headroom_project_get_string (project, "training.fsdp"), "none") != 0)
    /* TRANSLATORS: e.g. "Weights = 2 B × 6.38 B parameters on this GPU = 11.9 GiB, whole: …" */
    return g_strdup_printf (_("%s = %.3g B × %s parameters on this GPU = %s, whole: FSDP keeps a "
                              "pipeline stage’s parameters gathered, and its gradients unsharded, "
                              "through the step"),
                            label, per_param, count, result);
  if (zero >= from_stage && from_stage == 2 && m->data_parallel > 1 && m->grad_accumulation > 1
      && headroom_project_get_boolean (project, "training.no_sync"))
    /* TRANSLATORS: e.g. "Gradients = 2 B × 8.03 B parameters on this GPU = 15.0 GiB, whole: …" */
    return g_strdup_printf (_("%s = %.3g B × %s parameters on this GPU = %s, whole: no_sync() "
                              "sums them unsharded over the micro-batches, reduce-scattered "
                              "after the last"),
                            label, per_param, count, result);
  /* TRANSLATORS: e.g. "Weights = 2 B × 4.02 B parameters on this GPU = 7.48 GiB" */
  return g_strdup_printf (_("%s = %.3g B × %s parameters on this GPU = %s"),
                          label, per_param, count, result);
}

/* Why a precision keeps no fp32 copy of the weights beside them; NULL for
 * those that keep one. */
static const char *
no_master_copy (const char *precision)
{
  if (g_strcmp0 (precision, "fp32") == 0)
    return _("the fp32 weights are updated directly, with no second copy");
  if (g_strcmp0 (precision, "bf16") == 0)
    return _("pure bf16 training updates the 16-bit weights in place, with no fp32 copy");
  return NULL;
}

/* The global batch, "64 sequences", exact: the explanations' arithmetic
 * shows whole numbers. */
static char *
global_batch_text (HeadroomProject      *project,
                   const HrTrainingTime *t)
{
  gint64 seq = headroom_project_get_int (project, "training.seq_len");

  return headroom_format_integer_unit (seq > 0 ? round (t->tokens_per_step / (double) seq) : 0,
                                       "sequences");
}

/* The phase of the step whose live tensors peak (hr-training-memory.c, phases()). */
static const char *
peak_phase (const HrTrainingMemory *m)
{
  double peak = fmax (fmax (m->peak_forward, m->peak_loss_backward),
                      fmax (m->peak_layer_backward, m->peak_optimizer));

  /* The first of the largest, in the order phases() takes them. */
  if (peak == m->peak_forward)
    return _("the end of the forward");
  if (peak == m->peak_loss_backward)
    return _("the loss’s backward");
  if (peak == m->peak_layer_backward)
    return _("a layer’s backward");
  return _("the optimizer step");
}

/* The parts of a sum in the sum's unit: MiB below a GiB, so that they add up on screen. */
static char *
kv_size (double bytes,
         double sum)
{
  if (sum < 1073741824.0)
    return g_strdup_printf (_("%.3g MiB"), bytes / 1048576.0 + 0.0);
  return headroom_format_gib (bytes);
}

static char *
explain_memory (HeadroomEstimator *self,
                const char        *name,
                HeadroomQuantity  *q)
{
  HeadroomProject *project = headroom_estimator_get_project (self);
  const HrTrainingMemory *m = headroom_estimator_get_training_memory (self);
  const char *label = headroom_quantity_get_label (q);
  double value = headroom_quantity_get_value (q);
  const char *optimizer = headroom_project_get_string (project, "training.optimizer");
  const char *precision = headroom_project_get_string (project, "training.precision");
  g_autofree char *line = NULL;
  const char *assumption = NULL;
  const char *source = NULL;
  gboolean training = headroom_estimator_get_workload (self) == HEADROOM_WORKLOAD_TRAINING;

  if (training && g_str_equal (name, "weights") && value == 0 && m->master_weights > 0
      && g_strcmp0 (headroom_project_get_string (project, "training.fsdp"), "none") != 0
      && effective_zero (project) == 3 && !headroom_project_get_boolean (project, "training.offload_params"))
    {
      g_autofree char *result = headroom_format_gib (value);

      /* TRANSLATORS: e.g. "Weights = 0.00 GiB kept between layers: …" */
      line = g_strdup_printf (_("%s = %s kept between layers: FSDP casts each layer’s fp32 "
                                "shard to 16 bits as it gathers it, and frees the copy after "
                                "the layer runs (in Temporary buffers)"), label, result);
      assumption = _("FSDP’s mixed precision keeps only the sharded fp32 parameters, counted "
                     "as master weights.");
      source = _("PyTorch FSDP2 FSDPParam.all_gather_inputs; FSDP1 FlatParamHandle’s "
                 "_mp_shard");
    }
  else if (training && g_str_equal (name, "weights"))
    {
      line = state_line (self, label, value, &m->weights_shard, 3);
      assumption = _("The working copy in the compute precision; TP and PP split the "
                     "parameters, ZeRO-3 and FSDP shard them over data parallelism.");
      source = _("Rajbhandari et al. 2020 (ZeRO), §3.1 and §5");
    }
  else if (training && g_str_equal (name, "master_weights") && value == 0
           && !headroom_project_get_boolean (project, "training.offload_params")
           && !headroom_project_get_boolean (project, "training.offload_optimizer")
           && no_master_copy (precision) != NULL)
    {
      g_autofree char *result = headroom_format_gib (value);

      /* TRANSLATORS: e.g. "Master weights = 0.00 GiB: none; pure bf16 training updates the
       * 16-bit weights in place" */
      line = g_strdup_printf (_("%s = %s: none; %s"), label, result, no_master_copy (precision));
      source = _("Micikevicius et al. 2018 (mixed precision); Rajbhandari et al. 2020, §3.1");
    }
  else if (training && g_str_equal (name, "master_weights"))
    {
      line = state_line (self, label, value, &m->master_shard, 1);
      assumption = g_strcmp0 (precision, "bf16-mixed") == 0 || g_strcmp0 (precision, "fp16-mixed") == 0
                   ? _("Mixed precision keeps an fp32 copy of the weights for the update, "
                       "4 bytes a parameter.")
                   : _("The precision set decides whether an fp32 copy is kept.");
      source = _("Micikevicius et al. 2018 (mixed precision); Rajbhandari et al. 2020, §3.1");
    }
  else if (training && g_str_equal (name, "gradients"))
    {
      g_autofree char *held = headroom_format_gib (value);

      line = state_line (self, label, m->gradients, &m->gradients_shard, 2);
      if (fabs (m->gradients - value) > 0.5)
        {
          g_autofree char *joined = g_strdup_printf (_("%s; %s held at the step’s peak"), line, held);

          g_free (line);
          line = g_steal_pointer (&joined);
        }
      assumption = _("One gradient per trained parameter in the precision’s gradient type; "
                     "ZeRO-2 and above shard them over data parallelism.");
      source = _("Rajbhandari et al. 2020 (ZeRO), §3.1 and §5");
    }
  else if (training && g_str_equal (name, "frozen_gradients"))
    {
      double layer_params = (double) (m->rank.params - m->rank.outside_layers + m->rank.expert_params);
      g_autofree char *count = headroom_format_count (layer_params);
      g_autofree char *result = headroom_format_gib (value);

      /* TRANSLATORS: e.g. "Gradients of frozen weights = 1.51 GiB, for the 6.48 B parameters of
       * the layers on this GPU" */
      line = g_strdup_printf (_("%s = %s, for the %s parameters of the layers on this GPU"),
                              label, result, count);
      assumption = _("FSDP1 with use_orig_params flattens each wrapped layer’s frozen and "
                     "trained weights into one parameter that requires grad: the frozen ones "
                     "get gradients in the gradients’ type, sharded like any other unless "
                     "no_sync keeps them whole. The root unit (embeddings, head) stays frozen.");
      source = _("PyTorch FullyShardedDataParallel documentation (“equivalent to not freezing "
                 "those parameters”); Lightning Fabric FSDPStrategy (use_orig_params=True)");
    }
  else if (training && g_str_equal (name, "grad_accumulation_buffer") && value == 0)
    {
      g_autofree char *result = headroom_format_gib (value);

      /* TRANSLATORS: e.g. "Gradient accumulation = 0.00 GiB: no separate buffer …" */
      line = g_strdup_printf (_("%s = %s: no separate buffer; one is kept only when 16-bit "
                                "gradients are summed over several micro-batches with the "
                                "fp32 accumulation buffer set"), label, result);
      source = _("DeepSpeed bf16 optimizer (fp32 gradient accumulation)");
    }
  else if (training && g_str_equal (name, "grad_accumulation_buffer"))
    {
      line = state_line (self, label, value, &m->accumulation_shard, 2);
      assumption = _("16-bit gradients summed over several micro-batches go into an fp32 "
                     "buffer, 4 bytes a parameter.");
      source = _("DeepSpeed bf16 optimizer (fp32 gradient accumulation)");
    }
  else if (training && g_str_equal (name, "optimizer"))
    {
      line = state_line (self, label, value, &m->optimizer_shard, 1);
      if (g_strcmp0 (optimizer, "adamw") == 0)
        assumption = _("AdamW keeps two moments (m and v) a parameter in the state type "
                       "(fp32 in mixed precision: 8 bytes); the master copy is counted apart.");
      else if (g_strcmp0 (optimizer, "adamw-8bit") == 0)
        assumption = _("8-bit AdamW keeps m and v in 8 bits with one fp32 scale per block.");
      else
        assumption = _("The optimizer’s per-parameter states in the state type.");
      source = _("Loshchilov & Hutter 2019 (AdamW); Rajbhandari et al. 2020 (ZeRO), §5");
    }
  else if (training && g_str_equal (name, "activations"))
    {
      g_autofree char *per_layer = headroom_format_gib (m->activations_per_layer);
      g_autofree char *result = headroom_format_gib (value);
      g_autofree char *stored = headroom_format_gib (m->activations);

      /* TRANSLATORS: e.g. "Activations = 0.71 GiB a layer × 16 layers on this GPU × 1 (micro-batches
       * in flight), plus the tensors outside the layers = 22.6 GiB (22.6 GiB at the step's peak)" */
      line = g_strdup_printf (_("%s = %s a layer × %" G_GINT64_FORMAT " layers on this GPU × %.3g "
                                "(micro-batches in flight), plus the tensors outside the layers = %s "
                                "(%s at the step’s peak)"),
                              label, per_layer, m->rank.layers, m->micro_batches_in_flight, stored,
                              result);
      assumption = _("What the backward needs kept from the forward, with the attention kernel, "
                     "recomputation, sequence and context parallelism set.");
      source = _("Korthikanti et al. 2022 (reducing activation recomputation), §4 and Table 2");
      if (m->peak_held_inputs > 0.5)
        {
          g_autofree char *held = headroom_format_gib (m->peak_held_inputs);
          /* TRANSLATORS: appended to the activations line, e.g. "…; at the peak, 0.71 GiB of
           * it are inputs that quantised layers keep on their autograd contexts" */
          g_autofree char *joined = g_strdup_printf (_("%s; at the peak, %s of it are inputs "
                                                       "that quantised layers keep on their "
                                                       "autograd contexts"), line, held);

          g_free (line);
          line = g_steal_pointer (&joined);
          assumption = _("What the backward needs kept from the forward, and what bitsandbytes’ "
                         "matmuls keep on their autograd contexts: the backward does not free "
                         "it, the graph’s end does (with the loop keeping the loss, after the "
                         "next micro-batch’s forward).");
          source = _("bitsandbytes autograd/_functions.py (MatMul8bitLt; MatMul4Bit before "
                     "0.43.2, pull request 1270); Korthikanti et al. 2022, §4");
        }
    }
  else if (training && g_str_equal (name, "overhead"))
    {
      g_autofree char *result = headroom_format_gib (value);
      gboolean set = headroom_project_get_double (project, "hardware.overhead") >= 0;

      /* TRANSLATORS: e.g. "Overhead = 1.00 GiB, the default allowance" */
      line = g_strdup_printf (set ? _("%s = %s, as set (Framework memory per GPU)")
                                  : _("%s = %s, the default allowance"), label, result);
      assumption = _("The CUDA context (287 MB measured with lazy module loading, 667 MB "
                     "without), cuBLAS workspaces and NCCL buffers: a round allowance above the "
                     "context alone, not a measurement; set it from nvidia-smi on your stack.");
      source = _("pytorch/pytorch pull request 86509 (CUDA lazy module loading)");
    }
  else if (training && g_str_equal (name, "temporary"))
    {
      g_autofree char *result = headroom_format_gib (value);

      /* TRANSLATORS: e.g. "Temporary buffers = 3.96 GiB live in the step's peak phase, the loss's
       * backward" */
      line = g_strdup_printf (_("%s = %s live in the step’s peak phase, %s"), label, result,
                              peak_phase (m));
      assumption = _("Gathered layers (ZeRO-3, FSDP), communication buckets, the loss’s buffers "
                     "and a dequantised weight, as the phase holds them; the step’s peak is the "
                     "largest phase, not the sum of each part’s largest.");
      source = _("docs/training.md, “What users measure”");
    }
  else if (training && g_str_equal (name, "allocator"))
    {
      g_autofree char *result = headroom_format_gib (value);
      g_autofree char *rounding = headroom_format_gib (fmax (value - m->cached_free, 0));
      g_autofree char *cached = headroom_format_gib (m->cached_free);

      /* TRANSLATORS: e.g. "Allocator rounding and cache = rounding of the large blocks 0.30 GiB
       * + freed blocks the peak cannot use 0.12 GiB = 0.42 GiB: what PyTorch reserves beyond
       * its live tensors" */
      line = g_strdup_printf (_("%s = rounding of the large blocks %s + freed blocks the peak "
                                "cannot use %s = %s: what PyTorch reserves beyond its live "
                                "tensors"), label, rounding, cached, result);
      assumption = _("Blocks of 10 MiB or more are rounded up to 2 MiB, half a rounding lost on "
                     "average; a freed block is reused only by its own stream and only by a "
                     "tensor it can hold (FSDP’s stream pools, the 16-bit logits’ block, tensor "
                     "parallelism’s full-width blocks).");
      source = _("PyTorch c10/cuda/CUDACachingAllocator.cpp (kMinLargeAlloc, kRoundLarge)");
    }
  else if (!training && g_str_equal (name, "kv_cache"))
    {
      const HrInferenceMemory *im = headroom_estimator_get_inference_memory (self);
      g_autofree char *global = kv_size (im->kv_cache - im->kv_cache_windowed, value);
      g_autofree char *windowed = kv_size (im->kv_cache_windowed, value);
      g_autofree char *result = kv_size (value, value);

      /* TRANSLATORS: e.g. "KV cache = 5 MiB in global layers + 11 MiB in sliding-window or
       * chunked layers = 0.02 GiB" */
      if (im->kv_cache_windowed > 0)
        line = g_strdup_printf (_("%s = %s in global layers + %s in sliding-window or chunked "
                                  "layers = %s"), label, global, windowed, result);
      else
        line = g_strdup_printf (_("%s = %s, every layer global (the whole context)"), label, result);
      assumption = _("2 × KV heads × head_dim × dtype bytes per token and layer; a global layer "
                     "keeps every token of the context, a sliding-window or chunked layer at most "
                     "its window or chunk (when the engine frees the rest).");
      source = _("Beltagy et al. 2020 (Longformer), §3.1; Gemma Team 2025 (Gemma 3), §2.1; "
                 "Kwon et al. 2023 (vLLM)");
    }

  if (line == NULL)
    {
      g_autofree char *result = headroom_format_gib (value);

      line = g_strdup_printf ("%s = %s", label, result);
      assumption = headroom_quantity_get_formula (q);
    }
  return g_strdup_printf ("%s\n%s%s%s%s", line,
                          assumption ? _("Assumes: ") : "", assumption ? assumption : "",
                          source ? _("\nSource: ") : "", source ? source : "");
}

static char *
explain_summary (HeadroomEstimator *self,
                 const char        *name,
                 HeadroomQuantity  *q)
{
  HeadroomProject *project = headroom_estimator_get_project (self);
  const HrTrainingTime *t = headroom_estimator_get_training_time (self);
  const char *label = headroom_quantity_get_label (q);
  gint64 gpus = headroom_project_get_n_gpus (project);
  g_autofree char *gpu_count = headroom_format_integer_unit ((double) gpus, "GPUs");
  g_autofree char *line = NULL;
  const char *assumption = headroom_quantity_get_formula (q);
  const char *source = NULL;
  gboolean training = headroom_estimator_get_workload (self) == HEADROOM_WORKLOAD_TRAINING;

  /* A figure that needs a setting names it, rather than deriving a 0. */
  if (headroom_quantity_get_needs (q) != NULL)
    /* TRANSLATORS: e.g. "Cost: needs Training tokens, which is not set\nAssumes: GPU-hours × …" */
    return g_strdup_printf (_("%s: needs %s, which is not set\nAssumes: %s"), label,
                            headroom_quantity_get_needs (q), assumption);
  if (training && g_str_equal (name, "step_seconds"))
    {
      g_autofree char *flops = headroom_format_flops (t->hardware_flops_per_step);
      g_autofree char *peak = headroom_format_flops (t->peak_flops);
      g_autofree char *result = headroom_format_duration (t->step_seconds);

      double check = t->hardware_flops_per_step / ((double) gpus * t->peak_flops * t->hfu);

      if (t->predicted)
        {
          /* TRANSLATORS: e.g. "Step time = 27.6 s (2.09 PFLOP hardware FLOPs … : 58 % of peak)" */
          line = g_strdup_printf (_("%s = %s predicted from the hardware (%s hardware FLOPs per "
                                    "optimizer step on %s of %s/s: %.0f %% "
                                    "of peak)"),
                                  label, result, flops, gpu_count, peak, 100 * t->hfu);
          if (t->attention_as_gemm)
            assumption = _("The planner’s step model: matrix products at a shape-dependent share "
                           "of peak; no published rate times the Attention kernel set on this "
                           "GPU, so its core runs as matrix products at that share, faster than "
                           "such kernels run where they are measured (optimistic); memory-bound "
                           "kernels at memory bandwidth, exposed communication, the pipeline "
                           "bubble and the optimizer step (docs/planner.md). Set a measured "
                           "utilisation (Training ▸ Throughput) to override it.");
          else
            assumption = _("The planner’s step model: matrix products at a shape-dependent share of "
                           "peak, the attention core at the measured rates of the Attention kernel "
                           "set, memory-bound kernels at memory bandwidth, exposed communication, "
                           "the pipeline bubble and the optimizer step (docs/planner.md). Set a "
                           "measured utilisation (Training ▸ Throughput) to override it.");
        }
      /* TRANSLATORS: e.g. "Step time = 2.09 PFLOP ÷ (8 GPUs × 989 TFLOP/s × 40 %) = 660 ms" */
      else if (gpus > 0 && t->peak_flops > 0 && t->hfu > 0 && fabs (check - t->step_seconds) <= 1e-6 * t->step_seconds)
        line = g_strdup_printf (_("%s = %s hardware FLOPs per optimizer step ÷ (%s × %s/s × %.0f %%) = %s"),
                              label, flops, gpu_count, peak, 100 * t->hfu, result);
      else
        /* The set utilisation plus the QLoRA dequantisation the FLOPs alone do not give. */
        line = g_strdup_printf (_("%s = %s (%s hardware FLOPs per optimizer step on %s of %s/s: "
                                  "%.0f %% of peak)"),
                                label, result, flops, gpu_count, peak, 100 * t->hfu);
      if (!t->predicted)
        assumption = _("Every FLOP executed, recomputation included, runs at the measured "
                       "utilisation set (Training ▸ Throughput), not at the hardware prediction.");
      if (t->host_bytes > 0)
        {
          g_autofree char *bytes = headroom_format_gib (t->host_bytes);
          g_autofree char *host = headroom_format_duration (t->host_seconds);
          gboolean paged = headroom_estimator_get_training_memory (self)->paged_out > 0;
          gboolean offloaded = headroom_estimator_get_training_memory (self)->offloaded_activations > 0;
          const char *what = paged && offloaded
                             ? _("paged-out optimizer states out and back, offloaded activations")
                             : paged ? _("paged-out optimizer states out and back")
                             : t->host_after_sync
                             ? _("offloaded activations out on a side stream, back after "
                                 "bitsandbytes’ synchronisation of each update in the backward")
                             : _("offloaded activations out and back, on a side stream");
          char *with_host;

          /* TRANSLATORS: appended to the step time, e.g. ", of which 0.43 s on the host link
           * (12.7 GiB a step: paged-out optimizer states out and back)" */
          with_host = g_strdup_printf (_("%s, of which %s on the host link (%s a step: %s)"),
                                       line, host, bytes, what);
          g_free (line);
          line = with_host;
        }
      source = _("Chowdhery et al. 2022 (PaLM), App. B; Narayanan et al. 2021, §5");
    }
  else if (training && g_str_equal (name, "total_seconds"))
    {
      g_autofree char *steps = headroom_format_integer (t->steps);
      g_autofree char *step = headroom_format_duration (t->step_seconds);
      g_autofree char *result = headroom_format_duration (t->total_seconds);

      line = g_strdup_printf (_("%s = %s steps × %s = %s"), label, steps, step, result);
    }
  else if (training && g_str_equal (name, "gpu_hours"))
    {
      g_autofree char *hours = headroom_format_count (t->total_seconds / 3600);
      g_autofree char *result = headroom_format_count (t->gpu_hours);

      line = g_strdup_printf (_("%s = %s × %s hours = %s GPU-hours"),
                              label, gpu_count, hours, result);
    }
  else if (training && g_str_equal (name, "cost"))
    {
      g_autofree char *hours = headroom_format_count (t->gpu_hours);
      g_autofree char *price = headroom_format_money (headroom_project_get_double (project, "hardware.price_per_gpu_hour"));
      g_autofree char *result = headroom_format_money (t->cost);

      line = g_strdup_printf (_("%s = %s GPU-hours × %s per GPU-hour = %s"), label, hours, price, result);
      assumption = _("The price per GPU-hour set (Hardware ▸ Cluster); no storage, network or idle time.");
    }
  else if (!training && g_str_equal (name, "kv_capacity_tokens")
           && headroom_estimator_get_serving_plan (self) != NULL)
    {
      const HrServingPlan *plan = headroom_estimator_get_serving_plan (self);
      const char *engine = headroom_project_get_string (project, "inference.engine");
      g_autofree char *kv = headroom_format_gib (plan->kv_cache);
      g_autofree char *total = headroom_format_gib (plan->total);
      g_autofree char *usable = headroom_format_gib (plan->usable);
      g_autofree char *weights = headroom_format_gib (plan->weights);
      g_autofree char *activations = headroom_format_gib (plan->activations);
      g_autofree char *non_torch = headroom_format_gib (plan->non_torch);
      g_autofree char *bytes = NULL;
      g_autofree char *tokens = NULL;

      /* The cache's bytes as the engine's plan sizes them (hr-serving.c,
       * hr_serving_plan), then its blocks. */
      if (g_strcmp0 (engine, "llamacpp") == 0)
        /* TRANSLATORS: e.g. "the context llama.cpp sizes its cache for, 0.16 GiB" */
        bytes = g_strdup_printf (_("the context llama.cpp sizes its cache for, %s"), kv);
      else if (g_strcmp0 (engine, "sglang") == 0)
        /* TRANSLATORS: e.g. "69.5 GiB usable (mem_fraction_static of 79.2 GiB less 0.20 GiB the
         * engine holds) − 15.0 GiB of weights = 54.6 GiB" */
        bytes = g_strdup_printf (_("%s usable (mem_fraction_static of %s less %s the engine "
                                   "holds) − %s of weights = %s"),
                                 usable, total, non_torch, weights, kv);
      else if (g_strcmp0 (engine, "trtllm") == 0)
        {
          double free = plan->total - plan->weights - plan->activations - plan->non_torch;

          /* TRANSLATORS: e.g. "free_gpu_memory_fraction 0.90 × (79.2 GiB − 15.0 GiB of weights −
           * 0.20 GiB of activations − 0.20 GiB the engine holds) = 57.5 GiB" */
          bytes = g_strdup_printf (_("free_gpu_memory_fraction %.2f × (%s − %s of weights − %s of "
                                     "activations − %s the engine holds) = %s"),
                                   free > 0 ? plan->kv_cache / free : 0.0, total, weights,
                                   activations, non_torch, kv);
        }
      else if (g_strcmp0 (engine, "hf") == 0)
        /* TRANSLATORS: e.g. "79.2 GiB − 15.0 GiB of weights − 0.20 GiB profiled peak − 2.00 GiB
         * framework overhead = 62.1 GiB" */
        bytes = g_strdup_printf (_("%s − %s of weights − %s profiled peak − %s framework "
                                   "overhead = %s"),
                                 total, weights, activations, non_torch, kv);
      else
        /* TRANSLATORS: e.g. "71.3 GiB usable − 15.0 GiB of weights − 0.10 GiB profiled peak −
         * 0.90 GiB outside PyTorch = 55.3 GiB" */
        bytes = g_strdup_printf (_("%s usable − %s of weights − %s profiled peak − %s outside "
                                   "PyTorch = %s"),
                                 usable, weights, activations, non_torch, kv);
      if (plan->block_size > 1)
        tokens = g_strdup_printf (_("%" G_GINT64_FORMAT " blocks × %" G_GINT64_FORMAT " tokens = %"
                                    G_GINT64_FORMAT " tokens"),
                                  plan->kv_blocks, plan->block_size, plan->kv_capacity_tokens);
      else
        tokens = g_strdup_printf (_("%" G_GINT64_FORMAT " tokens"), plan->kv_capacity_tokens);
      /* TRANSLATORS: e.g. "KV cache capacity = 28336 blocks × 16 tokens = 453376 tokens in 71.3 GiB
       * usable − …" */
      line = g_strdup_printf (_("%s = %s in %s"), label, tokens, bytes);
    }
  else if (!training && g_str_equal (name, "max_concurrency")
           && headroom_estimator_get_serving_plan (self) != NULL
           && headroom_estimator_get_serving_plan (self)->max_model_len > 0)
    {
      const HrServingPlan *plan = headroom_estimator_get_serving_plan (self);

      /* TRANSLATORS: e.g. "Requests at once = 453,376 tokens ÷ 1,280 tokens (the longest request
       * the engine admits) = 354.2: 354 whole requests" */
      line = g_strdup_printf (_("%s = %" G_GINT64_FORMAT " tokens ÷ %" G_GINT64_FORMAT " tokens "
                                "(the longest request the engine admits) = %.1f: %.0f whole requests"),
                              label, plan->kv_capacity_tokens, plan->max_model_len,
                              plan->max_concurrency, floor (plan->max_concurrency));
    }
  else if (training && g_str_equal (name, "data_parallel"))
    {
      const HrTrainingMemory *m = headroom_estimator_get_training_memory (self);

      /* TRANSLATORS: e.g. "Data parallel = 8 GPUs ÷ (2 × 2 × 1) = 2 GPUs" */
      line = g_strdup_printf (_("%s = %s ÷ (%" G_GINT64_FORMAT " × %" G_GINT64_FORMAT " × %"
                                G_GINT64_FORMAT ") = %" G_GINT64_FORMAT),
                              label, gpu_count,
                              headroom_project_get_int (project, "training.tensor_parallel"),
                              headroom_project_get_int (project, "training.pipeline_parallel"),
                              headroom_project_get_int (project, "training.context_parallel"),
                              m->data_parallel);
    }
  else if (training && g_str_equal (name, "grad_accumulation"))
    {
      const HrTrainingMemory *m = headroom_estimator_get_training_memory (self);
      g_autofree char *result = headroom_format_integer_unit ((double) m->grad_accumulation,
                                                              "micro-batches");
      g_autofree char *batch = global_batch_text (project, t);

      /* TRANSLATORS: e.g. "Gradient accumulation = 64 sequences ÷ (1 × 2) = 32 micro-batches a
       * rank" */
      line = g_strdup_printf (_("%s = %s ÷ (%" G_GINT64_FORMAT " × %" G_GINT64_FORMAT
                                ") = %s a rank"),
                              label, batch,
                              headroom_project_get_int (project, "training.micro_batch"),
                              m->data_parallel, result);
    }
  else if (training && g_str_equal (name, "tokens_per_step"))
    {
      gint64 seq = headroom_project_get_int (project, "training.seq_len");
      g_autofree char *result = headroom_format_count_unit (t->tokens_per_step, "tokens");
      g_autofree char *batch = global_batch_text (project, t);

      /* TRANSLATORS: e.g. "Tokens per optimizer step = 64 sequences × 8192 tokens = 524 k tokens" */
      line = g_strdup_printf (_("%s = %s × %" G_GINT64_FORMAT " tokens = %s"), label, batch, seq,
                              result);
    }
  else if (training && g_str_equal (name, "tokens_per_second") && t->step_seconds > 0)
    {
      g_autofree char *tokens = headroom_format_count_unit (t->tokens_per_step, "tokens");
      g_autofree char *step = headroom_format_duration (t->step_seconds);
      g_autofree char *result = headroom_format_count_unit (t->tokens_per_second, "tokens/s");

      /* TRANSLATORS: e.g. "Throughput = 524 k tokens ÷ 1.23 s = 426 k tokens/s" */
      line = g_strdup_printf (_("%s = %s ÷ %s = %s"), label, tokens, step, result);
    }
  else if (training && g_str_equal (name, "tokens_per_second_per_gpu") && gpus > 0)
    {
      g_autofree char *total = headroom_format_count_unit (t->tokens_per_second, "tokens/s");
      g_autofree char *result = headroom_format_count_unit (t->tokens_per_second_per_gpu,
                                                            "tokens/s");

      /* TRANSLATORS: e.g. "Throughput per GPU = 426 k tokens/s ÷ 8 GPUs = 53.3 k tokens/s" */
      line = g_strdup_printf (_("%s = %s ÷ %s = %s"), label, total, gpu_count,
                              result);
    }
  else if (training && g_str_equal (name, "bubble_fraction"))
    {
      const HrTrainingMemory *m = headroom_estimator_get_training_memory (self);
      const char *schedule = headroom_project_get_string (project, "training.pipeline_schedule");
      gint64 pp = headroom_project_get_int (project, "training.pipeline_parallel");
      gint64 vpp = headroom_project_get_int (project, "training.virtual_stages");
      gint64 shrink = g_strcmp0 (schedule, "interleaved") == 0 ? vpp
                      : g_strcmp0 (schedule, "zb-h1") == 0 ? 3 : 1;

      /* TRANSLATORS: e.g. "Pipeline bubble = (4 − 1) ÷ (2 × 32 micro-batches) = 4.7 % of the
       * ideal step" */
      line = g_strdup_printf (_("%s = (%" G_GINT64_FORMAT " − 1) ÷ (%" G_GINT64_FORMAT " × %"
                                G_GINT64_FORMAT " micro-batches) = %.1f %% of the ideal step"),
                              label, pp, shrink, m->grad_accumulation, 100 * t->bubble_fraction);
      source = _("Narayanan et al. 2021, §2.2; Qi et al. 2024 (zero bubble), §2.1");
    }
  else if (training && g_str_equal (name, "hfu"))
    {
      g_autofree char *flops = headroom_format_flops (t->hardware_flops_per_step);
      g_autofree char *peak = headroom_format_flops (t->peak_flops);
      g_autofree char *step = headroom_format_duration (t->step_seconds);

      line = g_strdup_printf (_("%s = %s hardware FLOPs (model FLOPs and recomputation) ÷ (%s × "
                                "%s/s × %s) = %.1f %%"),
                              label, flops, gpu_count, peak, step, 100 * t->hfu);
      source = _("Chowdhery et al. 2022 (PaLM), App. B");
    }
  else if (training && g_str_equal (name, "mfu"))
    {
      g_autofree char *flops = headroom_format_flops (t->model_flops_per_step);
      g_autofree char *peak = headroom_format_flops (t->peak_flops);
      g_autofree char *step = headroom_format_duration (t->step_seconds);

      line = g_strdup_printf (_("%s = %s model FLOPs ÷ (%s × %s/s × %s) = %.1f %%"),
                              label, flops, gpu_count, peak, step, 100 * t->mfu);
      source = _("Chowdhery et al. 2022 (PaLM), App. B");
    }

  if (line == NULL)
    {
      g_autofree char *value = headroom_format_quantity (headroom_quantity_get_value (q),
                                                         headroom_quantity_get_unit (q));

      line = g_strdup_printf ("%s = %s", label, value);
    }
  return g_strdup_printf ("%s\n%s%s%s%s", line,
                          assumption ? _("Assumes: ") : "", assumption ? assumption : "",
                          source ? _("\nSource: ") : "", source ? source : "");
}

static char *
explain_flops (HeadroomEstimator *self,
               const char        *name)
{
  GListModel *rows = headroom_estimator_get_flops_rows (self);
  guint n = g_list_model_get_n_items (rows);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomFlopsRow) row = g_list_model_get_item (rows, i);
      g_autofree char *forward = NULL, *backward = NULL, *recompute = NULL, *total = NULL;

      if (g_strcmp0 (headroom_flops_row_get_name (row), name) != 0)
        continue;
      forward = headroom_format_flops (headroom_flops_row_get_forward (row));
      backward = headroom_format_flops (headroom_flops_row_get_backward (row));
      recompute = headroom_format_flops (headroom_flops_row_get_recompute (row));
      total = headroom_format_flops (headroom_flops_row_get_total (row));
      /* TRANSLATORS: e.g. "MLP = 92.4 TFLOP forward + 185 TFLOP backward + 0 FLOP recomputed = 277 TFLOP (54.4 % of the micro-batch)" */
      return g_strdup_printf (_("%s = %s forward + %s backward + %s recomputed = %s (%.1f %% of the "
                                "micro-batch)\nAssumes: 2·m·n·k FLOPs per matrix product; the "
                                "backward is twice the forward (gradients of inputs and weights).\n"
                                "Source: Chowdhery et al. 2022 (PaLM), App. B; Narayanan et al. "
                                "2021, §5.1"),
                              headroom_flops_row_get_label (row), forward, backward, recompute,
                              total, 100 * headroom_flops_row_get_share (row));
    }
  return NULL;
}

/**
 * headroom_estimator_dup_explanation:
 * @id: "memory.<segment>" (a memory segment's name), "flops.<component>"
 *   or "summary.<quantity>" (a time, cost or limit tile's name)
 *
 * Returns: (transfer full) (nullable): the derivation, the assumption and
 *   the source, one per line, translated; NULL for an unknown id, before
 *   any result, and while the settings are in error (the figures shown
 *   then are of earlier settings, which the text would mix with these).
 */
char *
headroom_estimator_dup_explanation (HeadroomEstimator *self,
                                    const char        *id)
{
  g_autoptr(HeadroomQuantity) q = NULL;

  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  if (!headroom_estimator_get_has_result (self) || headroom_estimator_get_error (self) != NULL)
    return NULL;
  if (g_str_has_prefix (id, "memory."))
    {
      q = find_quantity (headroom_estimator_get_memory_segments (self), id + strlen ("memory."));
      return q != NULL ? explain_memory (self, id + strlen ("memory."), q) : NULL;
    }
  if (g_str_has_prefix (id, "summary."))
    {
      q = find_quantity (headroom_estimator_get_summary (self), id + strlen ("summary."));
      return q != NULL ? explain_summary (self, id + strlen ("summary."), q) : NULL;
    }
  if (g_str_has_prefix (id, "flops."))
    return explain_flops (self, id + strlen ("flops."));
  return NULL;
}
