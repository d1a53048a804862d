/* headroom-estimator.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-estimator"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-estimator.h"
#include "headroom-flops-row.h"
#include "headroom-format.h"
#include "headroom-quantity.h"
#include "hr-config.h"
#include "hr-inference.h"
#include "hr-training.h"

/* Everything one computation produces; copied into the estimator only when valid. */
typedef struct
{
  HeadroomWorkload workload;
  HrModel model;
  HrParams params;
  HrFlops flops;
  HrTraining training;
  HrTrainingMemory training_memory;
  HrTrainingTime training_time;
  HrTrainingLimits training_limits;
  gboolean has_training_limits;
  HrInference inference;
  HrInferenceMemory inference_memory;
  HrInferenceLatency latency;
  HrInferenceLimits inference_limits;
  gboolean has_inference_limits;
  HrServingPlan serving_plan;   /* the engine's start-up plan (inference) */
  HrServingLatency serving_latency;
  gboolean has_serving_latency; /* FALSE when one request does not fit the KV cache */
  gboolean power_known;   /* the GPU's board power is published (TPUs: not) */
  const char *assumed;    /* "llama" when an unknown model_type was read as assumed */
  char structure[512];    /* hr_model_describe() */
} Result;

struct _HeadroomEstimator
{
  GObject parent_instance;

  HeadroomProject *project;
  GListStore *params_rows;
  GListStore *memory_segments;
  GListStore *flops_rows;
  GListStore *summary;
  char *error;
  GError *error_detail;  /* the error itself: its key (headroom_project_error_get_key()) */
  Result result;
  gulong changed_id;
  GSource *idle_source;          /* on the thread-default context of the estimator's thread */

  guint has_result : 1;
};

G_DEFINE_FINAL_TYPE (HeadroomEstimator, headroom_estimator, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_ERROR,
  PROP_HAS_RESULT,
  PROP_TOTAL_PARAMS,
  PROP_ACTIVE_PARAMS,
  PROP_MEMORY_BYTES,
  PROP_MEMORY_CAPACITY,
  PROP_FITS,
  PROP_STEP_SECONDS,
  PROP_TOTAL_SECONDS,
  PROP_COST,
  PROP_TOKENS_PER_SECOND,
  PROP_KV_CAPACITY_TOKENS,
  PROP_MAX_CONCURRENCY,
  PROP_USABLE_MEMORY,
  PROP_STRUCTURE,
  PROP_ASSUMED_ARCHITECTURE,
  PROP_MFU_OVERRIDE,
  N_PROPS
};

enum {
  SIGNAL_UPDATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The core promises finite, non-negative figures for valid input; a result
 * that breaks that promise is refused rather than shown. */
static gboolean
all_sane (const double *values,
          gsize         n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (values[i]) || values[i] < 0)
      return FALSE;
  return TRUE;
}

static gboolean
compute_training (HeadroomProject  *project,
                  const HrGpu      *gpu,
                  Result           *r,
                  GError          **error)
{
  HrFlopsOptions options = { 0 };
  HrError err = { 0 };

  headroom_project_get_training (project, &r->training);
  r->power_known = gpu->power_watts > 0;
  options.seq_len = r->training.seq_len;
  options.micro_batch = r->training.micro_batch;
  options.attention = r->training.attention;
  options.recompute = r->training.recompute;
  options.causal = r->training.causal;
  options.finetune = &r->training.finetune;

  if (hr_flops_training (&r->model, &options, &r->flops, &err) != HR_OK
      || hr_training_estimate (&r->model, &r->training, gpu, &r->training_memory,
                               &r->training_time, &r->training_limits, &err) != HR_OK)
    {
      headroom_project_set_core_error (error, "training", &err);
      return FALSE;
    }
  r->has_training_limits = TRUE;

  {
    const double figures[] = {
      r->flops.total, r->training_memory.total, r->training_memory.weights,
      r->training_memory.gradients, r->training_memory.optimizer,
      r->training_memory.activations, r->training_memory.temporary,
      r->training_memory.overhead, r->training_memory.master_weights,
      r->training_memory.grad_accumulation_buffer, r->training_memory.cpu_bytes,
      r->training_memory.frozen_weights,
      r->training_time.step_seconds, r->training_time.total_seconds,
      r->training_time.cost, r->training_time.tokens_per_second,
    };

    if (!all_sane (figures, G_N_ELEMENTS (figures)))
      {
        g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                             _("The training estimate is out of range; check the sizes"));
        return FALSE;
      }
  }
  return TRUE;
}

/* Makes a training-style forward pass over the prompt the prefill: no
 * backward pass or recomputation, and logits of the last position only, as
 * hr_flops_prefill() counts them (`prefill`); the LM head takes the
 * difference, so the components add up to it exactly. The 6N and PaLM
 * rules of thumb count training and are cleared. */
static void
set_prefill_flops (HrFlops *flops,
                   double   prefill)
{
  double others = 0;

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    {
      flops->component[c].backward = 0;
      flops->component[c].recompute = 0;
      if (c != HR_FLOPS_LM_HEAD)
        others += flops->component[c].forward;
    }
  flops->component[HR_FLOPS_LM_HEAD].forward = MAX (prefill - others, 0);
  flops->forward = prefill;
  flops->backward = 0;
  flops->recompute = 0;
  flops->total = prefill;
  flops->model_flops = prefill;
  flops->per_token = flops->tokens > 0 ? prefill / (double) flops->tokens : 0;
  flops->six_n_per_token = 0;
  flops->palm_per_token = 0;
}

static gboolean
compute_inference (HeadroomProject  *project,
                   const HrGpu      *gpu,
                   Result           *r,
                   GError          **error)
{
  HrFlopsOptions options = { 0 };
  HrError err = { 0 };
  HrServing serving;

  headroom_project_get_inference (project, &r->inference);
  headroom_project_get_serving (project, &serving);
  /* The prefill is the forward pass of a training step over the prompt. */
  options.seq_len = r->inference.prompt;
  options.micro_batch = r->inference.batch;
  options.attention = HR_ATTENTION_FLASH;
  options.recompute = HR_RECOMPUTE_NONE;
  options.causal = r->inference.causal;

  if (hr_flops_training (&r->model, &options, &r->flops, &err) != HR_OK
      || hr_inference_memory (&r->model, &r->inference, gpu, &r->inference_memory, &err) != HR_OK
      || hr_inference_latency (&r->model, &r->inference, gpu, &r->latency, &err) != HR_OK
      || hr_serving_plan (&r->model, &r->inference, &serving, gpu, &r->serving_plan, &err) != HR_OK)
    {
      headroom_project_set_core_error (error, "inference", &err);
      return FALSE;
    }
  r->has_serving_latency =
    hr_serving_latency (&r->model, &r->inference, &serving, gpu, &r->serving_plan,
                        &r->serving_latency, NULL) == HR_OK;
  set_prefill_flops (&r->flops, hr_flops_prefill (&r->model, r->inference.batch,
                                                  r->inference.prompt, r->inference.causal));
  r->has_inference_limits =
    hr_inference_limits (&r->model, &r->inference, gpu, &r->inference_limits, NULL) == HR_OK;

  {
    const double figures[] = {
      r->flops.forward, r->inference_memory.total, r->inference_memory.weights,
      r->inference_memory.kv_cache, r->inference_memory.activations,
      r->inference_memory.overhead, r->latency.time_to_first_token,
      r->latency.time_per_output_token, r->latency.end_to_end,
      r->latency.tokens_per_second, r->latency.cost_per_million_tokens,
      r->serving_plan.usable, r->serving_plan.kv_cache, r->serving_plan.max_concurrency,
    };

    if (!all_sane (figures, G_N_ELEMENTS (figures)))
      {
        g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                             _("The inference estimate is out of range; check the sizes"));
        return FALSE;
      }
  }
  return TRUE;
}

static gboolean
compute (HeadroomProject  *project,
         Result           *r,
         GError          **error)
{
  HrError err = { 0 };
  HrGpu gpu;

  if (!headroom_project_validate (project, error)
      || !headroom_project_get_model (project, &r->model, error)
      || !headroom_project_get_gpu (project, &gpu, error))
    return FALSE;

  if (hr_model_params (&r->model, &r->params, &err) != HR_OK)
    {
      headroom_project_set_core_error (error, NULL, &err);
      return FALSE;
    }
  hr_model_describe (&r->model, r->structure, sizeof r->structure);
  r->assumed = headroom_project_get_assumed_architecture (project);

  r->workload = headroom_project_get_workload (project);
  if (r->workload == HEADROOM_WORKLOAD_TRAINING)
    return compute_training (project, &gpu, r, error);
  return compute_inference (project, &gpu, r, error);
}

static void
add_quantity (GPtrArray  *items,
              const char *name,
              const char *label,
              double      value,
              const char *unit,
              const char *role,
              const char *formula)
{
  g_ptr_array_add (items, headroom_quantity_new (name, label, value, unit, role, formula));
}

/* The same quantity but for its value and detail. */
static gboolean
same_but_value (gpointer a,
                gpointer b)
{
  return HEADROOM_IS_QUANTITY (a) && HEADROOM_IS_QUANTITY (b)
         && g_strcmp0 (headroom_quantity_get_name (a), headroom_quantity_get_name (b)) == 0
         && g_strcmp0 (headroom_quantity_get_label (a), headroom_quantity_get_label (b)) == 0
         && g_strcmp0 (headroom_quantity_get_unit (a), headroom_quantity_get_unit (b)) == 0
         && g_strcmp0 (headroom_quantity_get_role (a), headroom_quantity_get_role (b)) == 0
         && g_strcmp0 (headroom_quantity_get_formula (a), headroom_quantity_get_formula (b)) == 0
         && g_strcmp0 (headroom_quantity_get_needs (a), headroom_quantity_get_needs (b)) == 0;
}

static gboolean
same_item (gpointer a,
           gpointer b)
{
  if (HEADROOM_IS_QUANTITY (a) && HEADROOM_IS_QUANTITY (b))
    return same_but_value (a, b)
           && headroom_quantity_get_value (a) == headroom_quantity_get_value (b)
           && g_strcmp0 (headroom_quantity_get_detail (a), headroom_quantity_get_detail (b)) == 0;
  if (HEADROOM_IS_FLOPS_ROW (a) && HEADROOM_IS_FLOPS_ROW (b))
    return g_strcmp0 (headroom_flops_row_get_name (a), headroom_flops_row_get_name (b)) == 0
           && g_strcmp0 (headroom_flops_row_get_label (a), headroom_flops_row_get_label (b)) == 0
           && headroom_flops_row_get_forward (a) == headroom_flops_row_get_forward (b)
           && headroom_flops_row_get_backward (a) == headroom_flops_row_get_backward (b)
           && headroom_flops_row_get_recompute (a) == headroom_flops_row_get_recompute (b)
           && headroom_flops_row_get_total (a) == headroom_flops_row_get_total (b)
           && headroom_flops_row_get_share (a) == headroom_flops_row_get_share (b);
  return FALSE;
}

/* Unchanged lists are left alone, and quantities whose values alone changed
 * take the new values in place (::notify::value): a view bound to a list
 * (the parameter breakdown) is not rebuilt by an edit that leaves its rows
 * as they are or changes only their figures. */
static void
replace_items (GListStore *store,
               GPtrArray  *items)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (store));
  gboolean same = n == items->len, values_only = same;

  for (guint i = 0; values_only && i < n; i++)
    {
      g_autoptr(GObject) old = g_list_model_get_item (G_LIST_MODEL (store), i);
      gboolean this_same = same_item (old, items->pdata[i]);

      same = same && this_same;
      values_only = this_same || same_but_value (old, items->pdata[i]);
    }
  if (same)
    return;
  if (values_only)
    {
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(GObject) old = g_list_model_get_item (G_LIST_MODEL (store), i);

          if (HEADROOM_IS_QUANTITY (old))
            {
              headroom_quantity_set_detail (HEADROOM_QUANTITY (old),
                                            headroom_quantity_get_detail (items->pdata[i]));
              headroom_quantity_set_value (HEADROOM_QUANTITY (old),
                                           headroom_quantity_get_value (items->pdata[i]));
            }
        }
      return;
    }
  g_list_store_splice (store, 0, g_list_model_get_n_items (G_LIST_MODEL (store)),
                       items->pdata, items->len);
}

static void
fill_params_rows (HeadroomEstimator *self)
{
  const HrParams *p = &self->result.params;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  add_quantity (items, "embedding", _("Token embedding"), p->embedding, "parameters", NULL,
                _("vocab_size × hidden_size"));
  add_quantity (items, "position_embedding", _("Position embedding"), p->position_embedding,
                "parameters", NULL, _("learned positions × hidden_size"));
  add_quantity (items, "attention", _("Attention"), p->attention, "parameters", NULL,
                _("all layers: q, k, v and output projections with their biases"));
  add_quantity (items, "mlp", _("MLP"), p->mlp, "parameters", NULL,
                _("all layers: dense MLPs and experts"));
  add_quantity (items, "routed_experts", _("of which routed experts"), p->routed_experts,
                "parameters", NULL, _("MoE layers × routed experts × one expert's MLP"));
  add_quantity (items, "router", _("Router"), p->router, "parameters", NULL,
                _("MoE layers × hidden_size × experts"));
  add_quantity (items, "norm", _("Norms"), p->norm, "parameters", NULL,
                _("per-layer and final norm weights and biases"));
  add_quantity (items, "lm_head", _("LM head"), p->lm_head, "parameters", NULL,
                _("hidden_size × vocab_size; 0 when tied to the embedding"));
  add_quantity (items, "total", _("Total"), p->total, "parameters", NULL, NULL);
  add_quantity (items, "active", _("Active per token"), p->active, "parameters", NULL,
                _("total less the routed experts a token skips"));
  if (self->result.workload == HEADROOM_WORKLOAD_TRAINING
      && !hr_finetune_is_full (&self->result.training.finetune))
    {
      const HrTrainingMemory *m = &self->result.training_memory;
      HeadroomQuantity *trainable;

      add_quantity (items, "trainable", _("Trainable"), m->trainable_params, "parameters", NULL,
                    _("LoRA: rank × (inputs + outputs) per adapted matrix, DoRA adds its "
                      "outputs; freeze: all but the embeddings and the frozen layers"));
      /* The share of all parameters, trainable + frozen (adapters included). */
      trainable = items->pdata[items->len - 1];
      if (m->trainable_params + m->frozen_params > 0)
        {
          double percent = 100.0 * (double) m->trainable_params
                           / (double) (m->trainable_params + m->frozen_params);
          /* Two significant digits below 1 % (LoRA's 0.042 %), never a 0 that is not */
          g_autofree char *share = percent >= 1 ? g_strdup_printf ("%.1f %%", percent)
                                   : percent >= 0.01 ? g_strdup_printf ("%.2g %%", percent)
                                   : g_strdup ("< 0.01 %");

          headroom_quantity_set_detail (trainable, share);
        }
      add_quantity (items, "frozen", _("Frozen"), m->frozen_params, "parameters", NULL,
                    _("parameters that get no gradient and no optimizer state"));
    }
  replace_items (self->params_rows, items);
}

/* ZeRO-Offload (Ren et al. 2021, §4) moves the master weights, the optimizer
 * states and an fp32 gradient copy to CPU memory; the core reports their sum
 * (cpu_bytes). The same states without offload split it by component. The
 * names start with "cpu" so that the window draws them on the CPU bar. */
static void
add_cpu_segments (GPtrArray              *items,
                  const HrTraining       *training,
                  const HrTrainingMemory *memory)
{
  HrTraining on_gpu = *training;
  HrTrainingMemory states = *memory;
  double gradients;

  on_gpu.offload_optimizer = false;
  hr_training_model_states (&on_gpu, &memory->rank, &states);
  gradients = MAX (memory->cpu_bytes - states.master_weights - states.optimizer, 0);

  add_quantity (items, "cpu_master_weights", _("Master weights (CPU)"), states.master_weights,
                "bytes", "weights",
                _("fp32 copy: 4 bytes × parameters of this GPU, ÷ DP from ZeRO-1, in host memory"));
  add_quantity (items, "cpu_optimizer", _("Optimizer states (CPU)"), states.optimizer, "bytes",
                "optimizer", _("optimizer states of this GPU's parameters, ÷ DP from ZeRO-1, "
                               "in host memory (ZeRO-Offload)"));
  add_quantity (items, "cpu_gradients", _("Gradients (CPU)"), gradients, "bytes", "gradients",
                _("fp32 gradient copy the CPU optimizer reads: 4 bytes × parameters, "
                  "÷ DP from ZeRO-1"));
}

static void
fill_memory_segments (HeadroomEstimator *self)
{
  const Result *r = &self->result;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  if (r->workload == HEADROOM_WORKLOAD_TRAINING)
    {
      const HrTrainingMemory *m = &r->training_memory;
      const HrFinetune *f = &r->training.finetune;
      /* A paged optimizer's states the GPU has no room for are in host
       * memory: their own segment, last, out of the optimizer's. */
      double paged = m->paged_out;

      if (!hr_finetune_is_full (f))
        add_quantity (items, "frozen_weights", _("Frozen weights"), m->frozen_weights, "bytes",
                      "weights", _("frozen parameters × bytes of their dtype (NF4 with double "
                                   "quantisation: 0.516), ÷ DP under ZeRO-3 and FSDP"));
      if (hr_finetune_is_adapter (f))
        /* The adapters' weights, gradients (as live at the peak) and
         * optimizer states, as one. */
        add_quantity (items, "adapters", _("Adapters"),
                      m->adapters - m->gradients + m->peak_gradients - paged, "bytes", "optimizer",
                      _("adapter parameters × (weights + gradients + optimizer states), "
                        "÷ DP as ZeRO shards them"));
      else
        {
          add_quantity (items, "weights", _("Weights"), m->weights, "bytes", "weights",
                        _("parameters on this GPU × bytes of the compute dtype, ÷ DP under ZeRO-3"));
          add_quantity (items, "master_weights", _("Master weights"), m->master_weights, "bytes",
                        "weights", _("fp32 copy of mixed precision: 4 bytes × parameters, ÷ DP from ZeRO-1"));
          add_quantity (items, "gradients", _("Gradients"), m->peak_gradients, "bytes",
                        "gradients", _("gradients live at the peak: parameters on this GPU × "
                                       "gradient bytes, ÷ DP from ZeRO-2"));
          add_quantity (items, "grad_accumulation_buffer", _("Gradient accumulation"),
                        m->grad_accumulation_buffer, "bytes", "gradients",
                        _("separate fp32 accumulation buffer, where kept"));
          add_quantity (items, "optimizer", _("Optimizer states"), m->optimizer - paged, "bytes",
                        "optimizer",
                        _("AdamW: 8 bytes × parameters (m and v in fp32), ÷ DP from ZeRO-1"));
        }
      add_quantity (items, "activations", _("Activations"), m->peak_activations, "bytes",
                    "activations",
                    _("saved for the backward and live at the peak (Korthikanti et al. 2022, §4)"));
      add_quantity (items, "temporary", _("Temporary buffers"), m->peak_temporary, "bytes",
                    "buffers", _("gathered layers, communication buckets, the loss's buffers at the peak"));
      add_quantity (items, "allocator", _("Allocator rounding and cache"),
                    m->reserved_peak - m->allocated_peak, "bytes", "overhead",
                    _("the caching allocator's 2 MiB rounding of large blocks, and the freed "
                      "blocks it keeps that the peak cannot use (FSDP's stream pools, the "
                      "16-bit logits)"));
      add_quantity (items, "overhead", _("Overhead"), m->overhead, "bytes", "overhead",
                    _("CUDA context, cuBLAS workspace, NCCL buffers"));
      /* The offloaded states of fine-tuning are the trained part's: shown in
       * the total CPU figure only. */
      if (r->training.offload_optimizer && hr_finetune_is_full (f))
        add_cpu_segments (items, &r->training, m);
      if (paged > 0)
        add_quantity (items, "paged_out", _("Paged out to host memory"), paged, "bytes", "paged",
                      _("paged optimizer states the GPU has no room for: the total less the "
                        "capacity, evicted during the forward and backward and paged back for "
                        "the update (bitsandbytes, CUDA unified memory)"));
    }
  else
    {
      const HrInferenceMemory *m = &r->inference_memory;

      add_quantity (items, "weights", _("Weights"), m->weights, "bytes", "weights",
                    _("parameters on this GPU × bytes of the serving precision (+ group scales)"));
      add_quantity (items, "kv_cache", _("KV cache"), m->kv_cache, "bytes", "kv-cache",
                    _("2 × layers × KV heads × head_dim × dtype bytes × batch × tokens"));
      add_quantity (items, "activations", _("Activations"), m->activations, "bytes", "activations",
                    _("peak of one layer at the prefill chunk, and the logits"));
      add_quantity (items, "overhead", _("Overhead"), m->overhead, "bytes", "overhead",
                    _("CUDA context, CUDA graphs and allocator reserve"));
    }
  replace_items (self->memory_segments, items);
}

static const char *
flops_component_label (HrFlopsComponent component)
{
  switch (component)
    {
    case HR_FLOPS_ATTN_PROJ:
      return _("Attention projections");
    case HR_FLOPS_ATTN_SCORES:
      return _("Attention scores (QKᵀ)");
    case HR_FLOPS_ATTN_OVER_V:
      return _("Attention over V");
    case HR_FLOPS_ATTN_OUT:
      return _("Attention output");
    case HR_FLOPS_MLP:
      return _("MLP");
    case HR_FLOPS_ROUTER:
      return _("Router");
    case HR_FLOPS_LM_HEAD:
      return _("LM head");
    case HR_FLOPS_N_COMPONENTS:
    default:
      return "";
    }
}

static void
fill_flops_rows (HeadroomEstimator *self)
{
  const HrFlops *f = &self->result.flops;
  gboolean inference = self->result.workload == HEADROOM_WORKLOAD_INFERENCE;
  double total = inference ? f->forward : f->total;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    {
      const HrFlopsPart *part = &f->component[c];
      double backward = inference ? 0 : part->backward;
      double recompute = inference ? 0 : part->recompute;
      double sum = part->forward + backward + recompute;

      /* A dense model has no router: no row rather than a 0 FLOP one. */
      if (c == HR_FLOPS_ROUTER && self->result.params.router == 0)
        continue;
      g_ptr_array_add (items, headroom_flops_row_new (hr_flops_component_name (c),
                                                      flops_component_label (c),
                                                      part->forward, backward, recompute,
                                                      total > 0 ? sum / total : 0));
    }
  g_ptr_array_add (items, headroom_flops_row_new ("total", _("Total"), f->forward,
                                                  inference ? 0 : f->backward,
                                                  inference ? 0 : f->recompute,
                                                  total > 0 ? 1 : 0));
  replace_items (self->flops_rows, items);
}

static void
fill_summary (HeadroomEstimator *self)
{
  const Result *r = &self->result;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  if (r->workload == HEADROOM_WORKLOAD_TRAINING)
    {
      const HrTrainingTime *t = &r->training_time;
      const HrTrainingMemory *m = &r->training_memory;

      add_quantity (items, "data_parallel", _("Data parallel"), m->data_parallel, "GPUs", NULL,
                    _("GPUs ÷ (tensor × pipeline × context parallel)"));
      add_quantity (items, "grad_accumulation", _("Gradient accumulation"), m->grad_accumulation,
                    "micro-batches", NULL, _("global batch ÷ (micro-batch × data parallel)"));
      add_quantity (items, "tokens_per_step", _("Tokens per optimizer step"), t->tokens_per_step,
                    "tokens", NULL, _("global batch × sequence length"));
      /* "Step" is the optimizer step everywhere; the Compute table is per micro-batch. */
      add_quantity (items, "model_flops_per_step", _("Model FLOPs per optimizer step"),
                    t->model_flops_per_step, "FLOP", NULL,
                    _("forward + backward of every micro-batch of the global batch, whole model"));
      add_quantity (items, "step_seconds", _("Step time"), t->step_seconds, "s", NULL,
                    t->predicted
                    ? _("Predicted from the hardware: matrix products, memory-bound kernels, "
                        "exposed communication, pipeline bubble and optimizer step (the planner’s "
                        "step model)")
                    : _("Utilisation set: (model FLOPs + recomputation) ÷ (GPUs × peak × "
                        "FLOPs utilisation set)"));
      add_quantity (items, "tokens_per_second", _("Throughput"), t->tokens_per_second,
                    "tokens/s", NULL, _("tokens per step ÷ step time"));
      add_quantity (items, "mfu", _("Model FLOPs utilisation"), t->mfu, "ratio", NULL,
                    _("Achieved MFU: model FLOPs ÷ (GPUs × peak × step time) (PaLM, "
                      "Chowdhery et al. 2022, App. B)"));
      add_quantity (items, "hfu", _("Hardware FLOPs utilisation"), t->hfu, "ratio", NULL,
                    _("HFU: (model FLOPs + recomputation) ÷ (GPUs × peak × step time)"));
      add_quantity (items, "bubble_fraction", _("Pipeline bubble"), t->bubble_fraction, "ratio",
                    NULL, _("idle time over the ideal: (pp − 1) ÷ micro-batches for 1F1B, "
                            "÷ (virtual stages × micro-batches) interleaved (Narayanan et al. "
                            "2021, §2.2)"));
      /* The run's length needs a token budget: without one each figure says
       * what it needs instead of a 0. No energy tile where the board power is
       * unpublished, rather than a false 0 kWh. */
      {
        const struct
        {
          const char *name, *label, *unit, *formula;
          double      value;
          gboolean    shown;
        } run[] = {
          { "steps", _("Steps"), "steps", _("⌈training tokens ÷ tokens per step⌉"), t->steps, TRUE },
          { "total_seconds", _("Training time"), "s", _("steps × step time"), t->total_seconds, TRUE },
          { "gpu_hours", _("GPU-hours"), "GPU-h", _("GPUs × training time"), t->gpu_hours, TRUE },
          { "cost", _("Cost"), "USD", _("GPU-hours × price per GPU-hour"), t->cost, TRUE },
          { "energy", _("Energy"), "kWh", _("GPUs × board power × training time"), t->energy_kwh,
            r->power_known },
        };
        const char *needs = headroom_project_get_key_label ("training.tokens");

        for (guint i = 0; i < G_N_ELEMENTS (run); i++)
          if (run[i].shown && r->training.tokens > 0)
            add_quantity (items, run[i].name, run[i].label, run[i].value, run[i].unit, NULL,
                          run[i].formula);
          else if (run[i].shown)
            g_ptr_array_add (items, headroom_quantity_new_missing (run[i].name, run[i].label,
                                                                   run[i].unit, run[i].formula,
                                                                   needs));
      }
      if (r->has_training_limits)
        {
          add_quantity (items, "max_micro_batch", _("Largest micro-batch that fits"),
                        r->training_limits.max_micro_batch, "sequences", NULL,
                        _("the largest micro-batch whose memory fits, the other settings and the "
                          "accumulation steps kept (0: none)"));
          add_quantity (items, "max_seq_len", _("Longest sequence that fits"),
                        r->training_limits.max_seq_len, "tokens", NULL,
                        _("the longest sequence whose memory fits, the other settings kept "
                          "(0: none)"));
          add_quantity (items, "min_gpus", _("Fewest GPUs that fit"),
                        r->training_limits.min_gpus, "GPUs", NULL,
                        _("this layout's tensor, pipeline, context and expert parallel sizes "
                          "with the fewest data-parallel GPUs that fit (0: none at this layout; "
                          "the Plan view searches the others)"));
        }
    }
  else
    {
      const HrInferenceLatency *l = &r->latency;

      add_quantity (items, "time_to_first_token", _("Time to first token"),
                    l->time_to_first_token, "s", NULL, _("the prefill: max(compute, memory) time"));
      add_quantity (items, "time_per_output_token", _("Time per output token"),
                    l->time_per_output_token, "s", NULL, _("mean decode step"));
      add_quantity (items, "end_to_end", _("End-to-end latency"), l->end_to_end, "s", NULL,
                    _("TTFT + (generated − 1) × TPOT"));
      add_quantity (items, "tokens_per_second", _("Throughput"), l->tokens_per_second,
                    "tokens/s", NULL, _("generated tokens per second, all sequences"));
      add_quantity (items, "cost_per_million_tokens", _("Cost per million tokens"),
                    l->cost_per_million_tokens, "USD", NULL,
                    _("price × GPUs × time to generate a million tokens"));
      add_quantity (items, "kv_cache_per_token", _("KV cache per token"),
                    r->inference_memory.kv_cache_per_token, "bytes", NULL,
                    _("one token of one sequence, all layers on this GPU"));
      add_quantity (items, "usable_memory", _("Memory the engine may use"),
                    r->serving_plan.usable, "bytes", NULL,
                    r->serving_plan.total_from_datasheet
                    ? _("per GPU: the engine’s fraction of the datasheet’s memory; what the "
                        "driver reports for this GPU is not published and is a little less, "
                        "so this is an upper bound")
                    : _("per GPU: the engine’s fraction of the memory the driver reports"));
      add_quantity (items, "kv_capacity_tokens", _("KV cache capacity"),
                    (double) r->serving_plan.kv_capacity_tokens, "tokens", NULL,
                    _("tokens the engine’s KV cache holds once weights, activations and its "
                      "reserve are paid"));
      add_quantity (items, "max_concurrency", _("Requests at once"),
                    r->serving_plan.max_concurrency, "sequences", NULL,
                    _("KV cache capacity ÷ longest request"));
      if (r->has_serving_latency)
        {
          add_quantity (items, "running_requests", _("Requests in flight"),
                        (double) r->serving_latency.running, "sequences", NULL,
                        _("the batch, capped by the engine’s sequence limit and its KV cache; "
                          "the rest wait"));
          add_quantity (items, "engine_time_to_first_token", _("Time to first token, engine"),
                        r->serving_latency.time_to_first_token, "s", NULL,
                        _("the first prefill steps plus the engine’s step work around them "
                          "(scheduling, inputs, outputs)"));
          if (r->serving_latency.time_to_first_token_loaded > 0)
            add_quantity (items, "time_to_first_token_loaded", _("Time to first token under load"),
                          r->serving_latency.time_to_first_token_loaded, "s", NULL,
                          _("a request arriving while the others in flight decode: its prompt in "
                            "the step budget they leave, a step at a time"));
          add_quantity (items, "engine_tokens_per_second", _("Throughput, continuous batching"),
                        r->serving_latency.tokens_per_second, "tokens/s", NULL,
                        _("the batch in waves of the requests in flight, prompts prefilled in "
                          "chunks of the engine’s step budget"));
        }
      if (r->serving_plan.cpu_weights > 0)
        {
          double step = r->serving_plan.gpu_decode_time + r->serving_plan.cpu_decode_time;

          add_quantity (items, "cpu_weights", _("Weights in host memory"),
                        r->serving_plan.cpu_weights + r->serving_plan.cpu_kv_cache, "bytes", NULL,
                        _("llama.cpp: the layers left on the CPU, the token embedding and their KV cache"));
          if (step > 0)
            add_quantity (items, "offload_tokens_per_second", _("Tokens per second, one sequence"),
                          1.0 / step, "tokens/s", NULL,
                          _("llama.cpp: GPU layers at the GPU’s bandwidth, then CPU layers at the host’s"));
        }
      if (r->has_inference_limits)
        {
          add_quantity (items, "max_batch", _("Largest batch that fits"),
                        r->inference_limits.max_batch, "sequences", NULL, NULL);
          add_quantity (items, "max_context", _("Longest context that fits"),
                        r->inference_limits.max_context, "tokens", NULL, NULL);
          add_quantity (items, "min_gpus", _("Fewest GPUs that fit"),
                        r->inference_limits.min_gpus, "GPUs", NULL, NULL);
        }
    }
  replace_items (self->summary, items);
}

static void
set_error (HeadroomEstimator *self,
           const char        *message)
{
  if (g_strcmp0 (self->error, message) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
cancel_idle (HeadroomEstimator *self)
{
  if (self->idle_source == NULL)
    return;
  g_source_destroy (self->idle_source);
  g_clear_pointer (&self->idle_source, g_source_unref);
}

void
headroom_estimator_recompute_now (HeadroomEstimator *self)
{
  g_autoptr(GError) error = NULL;
  Result result = { 0 };

  g_return_if_fail (HEADROOM_IS_ESTIMATOR (self));

  cancel_idle (self);

  g_object_freeze_notify (G_OBJECT (self));
  if (self->project == NULL)
    {
      g_clear_error (&self->error_detail);
      set_error (self, _("No project"));
    }
  else if (!compute (self->project, &result, &error))
    {
      g_clear_error (&self->error_detail);
      self->error_detail = g_error_copy (error);
      set_error (self, error->message);
    }
  else
    {
      g_clear_error (&self->error_detail);
      self->result = result;
      self->has_result = TRUE;
      fill_params_rows (self);
      fill_memory_segments (self);
      fill_flops_rows (self);
      fill_summary (self);
      set_error (self, NULL);
      for (guint i = PROP_HAS_RESULT; i < N_PROPS; i++)
        g_object_notify_by_pspec (G_OBJECT (self), properties[i]);
    }
  g_object_thaw_notify (G_OBJECT (self));

  g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
}

static gboolean
recompute_idle_cb (gpointer user_data)
{
  HeadroomEstimator *self = user_data;

  headroom_estimator_recompute_now (self);
  return G_SOURCE_REMOVE;
}

static void
queue_recompute (HeadroomEstimator *self)
{
  g_autoptr(GMainContext) context = NULL;

  if (self->idle_source != NULL)
    return;
  /* Before GTK's layout and redraw (G_PRIORITY_HIGH_IDLE + 10 and + 20), so
   * that an edit is drawn in the next frame, not the one after it. On the
   * thread-default context, so that an estimator a worker thread owns
   * (HeadroomSweeper) never runs on the main loop. */
  context = g_main_context_ref_thread_default ();
  self->idle_source = g_idle_source_new ();
  g_source_set_priority (self->idle_source, G_PRIORITY_HIGH_IDLE);
  g_source_set_callback (self->idle_source, recompute_idle_cb, self, NULL);
  g_source_set_static_name (self->idle_source, "[headroom] estimator recompute");
  g_source_attach (self->idle_source, context);
}

static void
project_changed_cb (HeadroomEstimator *self,
                    const char        *key,
                    HeadroomProject   *project)
{
  queue_recompute (self);
}

static void
headroom_estimator_dispose (GObject *object)
{
  HeadroomEstimator *self = (HeadroomEstimator *)object;

  cancel_idle (self);
  if (self->project != NULL)
    g_clear_signal_handler (&self->changed_id, self->project);
  g_clear_object (&self->project);
  g_clear_object (&self->params_rows);
  g_clear_object (&self->memory_segments);
  g_clear_object (&self->flops_rows);
  g_clear_object (&self->summary);

  G_OBJECT_CLASS (headroom_estimator_parent_class)->dispose (object);
}

static void
headroom_estimator_finalize (GObject *object)
{
  HeadroomEstimator *self = (HeadroomEstimator *)object;

  g_clear_pointer (&self->error, g_free);
  g_clear_error (&self->error_detail);

  G_OBJECT_CLASS (headroom_estimator_parent_class)->finalize (object);
}

static void
headroom_estimator_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  HeadroomEstimator *self = HEADROOM_ESTIMATOR (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    case PROP_HAS_RESULT:
      g_value_set_boolean (value, self->has_result);
      break;
    case PROP_TOTAL_PARAMS:
      g_value_set_double (value, headroom_estimator_get_total_params (self));
      break;
    case PROP_ACTIVE_PARAMS:
      g_value_set_double (value, headroom_estimator_get_active_params (self));
      break;
    case PROP_MEMORY_BYTES:
      g_value_set_double (value, headroom_estimator_get_memory_bytes (self));
      break;
    case PROP_MEMORY_CAPACITY:
      g_value_set_double (value, headroom_estimator_get_memory_capacity (self));
      break;
    case PROP_FITS:
      g_value_set_boolean (value, headroom_estimator_get_fits (self));
      break;
    case PROP_STEP_SECONDS:
      g_value_set_double (value, headroom_estimator_get_step_seconds (self));
      break;
    case PROP_TOTAL_SECONDS:
      g_value_set_double (value, headroom_estimator_get_total_seconds (self));
      break;
    case PROP_COST:
      g_value_set_double (value, headroom_estimator_get_cost (self));
      break;
    case PROP_TOKENS_PER_SECOND:
      g_value_set_double (value, headroom_estimator_get_tokens_per_second (self));
      break;
    case PROP_KV_CAPACITY_TOKENS:
      g_value_set_double (value, headroom_estimator_get_kv_capacity_tokens (self));
      break;
    case PROP_MAX_CONCURRENCY:
      g_value_set_double (value, headroom_estimator_get_max_concurrency (self));
      break;
    case PROP_STRUCTURE:
      g_value_set_string (value, headroom_estimator_get_structure (self));
      break;
    case PROP_ASSUMED_ARCHITECTURE:
      g_value_set_string (value, headroom_estimator_get_assumed_architecture (self));
      break;
    case PROP_USABLE_MEMORY:
      g_value_set_double (value, headroom_estimator_get_usable_memory (self));
      break;
    case PROP_MFU_OVERRIDE:
      g_value_set_boolean (value, headroom_estimator_get_mfu_override (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_estimator_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  HeadroomEstimator *self = HEADROOM_ESTIMATOR (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      headroom_estimator_set_project (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static GParamSpec *
result_param (const char *name)
{
  return g_param_spec_double (name, NULL, NULL, 0, G_MAXDOUBLE, 0,
                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}

static void
headroom_estimator_class_init (HeadroomEstimatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = headroom_estimator_dispose;
  object_class->finalize = headroom_estimator_finalize;
  object_class->get_property = headroom_estimator_get_property;
  object_class->set_property = headroom_estimator_set_property;

  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, HEADROOM_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ERROR] =
    g_param_spec_string ("error", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_HAS_RESULT] =
    g_param_spec_boolean ("has-result", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TOTAL_PARAMS] = result_param ("total-params");
  properties[PROP_ACTIVE_PARAMS] = result_param ("active-params");
  properties[PROP_MEMORY_BYTES] = result_param ("memory-bytes");
  properties[PROP_MEMORY_CAPACITY] = result_param ("memory-capacity");
  properties[PROP_FITS] =
    g_param_spec_boolean ("fits", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_STEP_SECONDS] = result_param ("step-seconds");
  properties[PROP_TOTAL_SECONDS] = result_param ("total-seconds");
  properties[PROP_COST] = result_param ("cost");
  properties[PROP_TOKENS_PER_SECOND] = result_param ("tokens-per-second");
  /* Inference only (0 for training): the serving engine's plan. */
  properties[PROP_KV_CAPACITY_TOKENS] = result_param ("kv-capacity-tokens");
  properties[PROP_MAX_CONCURRENCY] = result_param ("max-concurrency");
  properties[PROP_USABLE_MEMORY] = result_param ("usable-memory");
  /* The model's structure in one line, as read from its config (Architecture section). */
  properties[PROP_STRUCTURE] =
    g_param_spec_string ("structure", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* "llama" when an unknown model_type was read as assumed (a banner binds to it); else NULL. */
  properties[PROP_ASSUMED_ARCHITECTURE] =
    g_param_spec_string ("assumed-architecture", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_MFU_OVERRIDE] =
    g_param_spec_boolean ("mfu-override", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * HeadroomEstimator::updated:
   *
   * Emitted after each recomputation, valid or not.
   */
  signals[SIGNAL_UPDATED] =
    g_signal_new ("updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
headroom_estimator_init (HeadroomEstimator *self)
{
  self->params_rows = g_list_store_new (HEADROOM_TYPE_QUANTITY);
  self->memory_segments = g_list_store_new (HEADROOM_TYPE_QUANTITY);
  self->flops_rows = g_list_store_new (HEADROOM_TYPE_FLOPS_ROW);
  self->summary = g_list_store_new (HEADROOM_TYPE_QUANTITY);
}

HeadroomEstimator *
headroom_estimator_new (HeadroomProject *project)
{
  g_return_val_if_fail (project == NULL || HEADROOM_IS_PROJECT (project), NULL);

  return g_object_new (HEADROOM_TYPE_ESTIMATOR, "project", project, NULL);
}

HeadroomProject *
headroom_estimator_get_project (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return self->project;
}

void
headroom_estimator_set_project (HeadroomEstimator *self,
                                HeadroomProject   *project)
{
  g_return_if_fail (HEADROOM_IS_ESTIMATOR (self));
  g_return_if_fail (project == NULL || HEADROOM_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    g_clear_signal_handler (&self->changed_id, self->project);
  g_set_object (&self->project, project);
  if (project != NULL)
    self->changed_id = g_signal_connect_object (project, "changed",
                                                G_CALLBACK (project_changed_cb), self,
                                                G_CONNECT_SWAPPED);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
  queue_recompute (self);
}

const char *
headroom_estimator_get_error (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return self->error;
}

gboolean
headroom_estimator_get_has_result (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), FALSE);
  return self->has_result;
}

HeadroomWorkload
headroom_estimator_get_workload (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), HEADROOM_WORKLOAD_TRAINING);
  return self->result.workload;
}

const HrModel *
headroom_estimator_get_model (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.model;
}

const HrParams *
headroom_estimator_get_params (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.params;
}

const HrFlops *
headroom_estimator_get_flops (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.flops;
}

const HrTrainingMemory *
headroom_estimator_get_training_memory (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.training_memory;
}

const HrTrainingTime *
headroom_estimator_get_training_time (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.training_time;
}

const HrInferenceMemory *
headroom_estimator_get_inference_memory (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.inference_memory;
}

const HrInferenceLatency *
headroom_estimator_get_inference_latency (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.latency;
}

GListModel *
headroom_estimator_get_params_rows (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return G_LIST_MODEL (self->params_rows);
}

GListModel *
headroom_estimator_get_memory_segments (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return G_LIST_MODEL (self->memory_segments);
}

GListModel *
headroom_estimator_get_flops_rows (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return G_LIST_MODEL (self->flops_rows);
}

GListModel *
headroom_estimator_get_summary (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return G_LIST_MODEL (self->summary);
}

double
headroom_estimator_get_total_params (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return (double) self->result.params.total;
}

double
headroom_estimator_get_active_params (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return (double) self->result.params.active;
}

double
headroom_estimator_get_memory_bytes (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_TRAINING
         ? self->result.training_memory.total : self->result.inference_memory.total;
}

double
headroom_estimator_get_memory_capacity (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_TRAINING
         ? self->result.training_memory.capacity : self->result.inference_memory.capacity;
}

gboolean
headroom_estimator_get_mfu_override (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), FALSE);
  return self->has_result && self->result.workload == HEADROOM_WORKLOAD_TRAINING
         && !self->result.training_time.predicted;
}

char *
headroom_estimator_dup_time_basis (HeadroomEstimator *self)
{
  g_autofree char *percent = NULL;

  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  if (!self->has_result || self->result.workload != HEADROOM_WORKLOAD_TRAINING)
    return NULL;
  if (self->result.training_time.predicted)
    return g_strdup (_("Predicted from the hardware"));
  percent = headroom_format_count (100 * self->result.training.mfu);
  /* TRANSLATORS: the times shown come from a measured utilisation, e.g. "40 %" */
  return g_strdup_printf (_("From the utilisation set (%s %%)"), percent);
}

gboolean
headroom_estimator_get_fits (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), FALSE);
  return self->result.workload == HEADROOM_WORKLOAD_TRAINING
         ? self->result.training_memory.fits : self->result.inference_memory.fits;
}

double
headroom_estimator_get_step_seconds (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_TRAINING
         ? self->result.training_time.step_seconds : self->result.latency.time_per_output_token;
}

double
headroom_estimator_get_total_seconds (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_TRAINING
         ? self->result.training_time.total_seconds : self->result.latency.end_to_end;
}

double
headroom_estimator_get_cost (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_TRAINING
         ? self->result.training_time.cost : self->result.latency.cost_per_million_tokens;
}

double
headroom_estimator_get_tokens_per_second (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_TRAINING
         ? self->result.training_time.tokens_per_second : self->result.latency.tokens_per_second;
}

const HrServingPlan *
headroom_estimator_get_serving_plan (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return &self->result.serving_plan;
}

double
headroom_estimator_get_kv_capacity_tokens (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_INFERENCE
         ? (double) self->result.serving_plan.kv_capacity_tokens : 0;
}

double
headroom_estimator_get_max_concurrency (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_INFERENCE
         ? self->result.serving_plan.max_concurrency : 0;
}

double
headroom_estimator_get_usable_memory (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  return self->result.workload == HEADROOM_WORKLOAD_INFERENCE
         ? self->result.serving_plan.usable : 0;
}

const HrTrainingLimits *
headroom_estimator_get_training_limits (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return self->result.has_training_limits ? &self->result.training_limits : NULL;
}

const HrInferenceLimits *
headroom_estimator_get_inference_limits (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return self->result.has_inference_limits ? &self->result.inference_limits : NULL;
}

gboolean
headroom_estimator_get_power_known (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), FALSE);
  return self->result.power_known;
}

gboolean
headroom_estimator_measure_training (HeadroomEstimator      *self,
                                     double                  tokens_per_second,
                                     double                  step_seconds,
                                     HrTrainingUtilization  *out,
                                     GError                **error)
{
  HrError err = { 0 };
  HrStatus status;
  HrGpu gpu;

  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!self->has_result || self->result.workload != HEADROOM_WORKLOAD_TRAINING)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                           _("No training estimate to measure against"));
      return FALSE;
    }
  if (!headroom_project_get_gpu (self->project, &gpu, error))
    return FALSE;
  if (tokens_per_second > 0)
    status = hr_training_utilization_from_tokens_per_second (&self->result.model,
                                                             &self->result.training, &gpu,
                                                             tokens_per_second, out, &err);
  else
    status = hr_training_utilization_from_step_seconds (&self->result.model,
                                                        &self->result.training, &gpu,
                                                        step_seconds, out, &err);
  if (status != HR_OK)
    {
      headroom_project_set_core_error (error, "training", &err);
      return FALSE;
    }
  return TRUE;
}

const GError *
headroom_estimator_get_error_detail (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return self->error != NULL ? self->error_detail : NULL;
}

const HrServingLatency *
headroom_estimator_get_serving_latency (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  return self->result.has_serving_latency ? &self->result.serving_latency : NULL;
}

/**
 * headroom_estimator_get_structure:
 *
 * Returns: (nullable): the model's structure in one line ("128 experts, 8
 * active, no shared expert; …; tied embeddings"), NULL without a result.
 */
const char *
headroom_estimator_get_structure (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);

  return self->has_result ? self->result.structure : NULL;
}

/**
 * headroom_estimator_get_assumed_architecture:
 *
 * Returns: (nullable): "llama" when the config's model_type is unknown and was
 * read as a Llama-style decoder because model.assume_architecture said so.
 */
const char *
headroom_estimator_get_assumed_architecture (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);

  return self->has_result ? self->result.assumed : NULL;
}

