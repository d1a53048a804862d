/* headroom-estimator-rows.c: the estimator's lists of rows from its result
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-estimator"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "headroom-estimator-private.h"
#include "headroom-flops-row.h"
#include "headroom-quantity.h"

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

void
headroom_estimator_fill_params_rows (const HeadroomEstimatorResult *r,
                                     GListStore                    *store)
{
  const HrParams *p = &r->params;
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
  if (r->workload == HEADROOM_WORKLOAD_TRAINING
      && !hr_finetune_is_full (&r->training.finetune))
    {
      const HrTrainingMemory *m = &r->training_memory;
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
  replace_items (store, items);
}

/* Offloaded states in host memory, by component (the core reports their
 * sum, cpu_bytes): ZeRO-Offload (Ren et al. 2021, §4) moves the master
 * weights, the optimizer states and an fp32 gradient copy; offloaded
 * parameters move every sharded state. The same states without offload
 * split the sum; what is left of it is offloaded activations. The names
 * start with "cpu" so that the window draws them on the CPU bar. */
static void
add_cpu_segments (GPtrArray              *items,
                  const HrTraining       *training,
                  const HrTrainingMemory *memory)
{
  HrTraining on_gpu = *training;
  HrTrainingMemory states = *memory;
  HrTrainingMemory offloaded = *memory;
  double activations;

  on_gpu.offload_optimizer = false;
  on_gpu.offload_params = false;
  hr_training_model_states (&on_gpu, &memory->rank, &states);
  hr_training_model_states (training, &memory->rank, &offloaded);
  if (training->offload_params)
    add_quantity (items, "cpu_weights", _("Weights (CPU)"), states.weights, "bytes", "weights",
                  _("the working copy's shard of this GPU in host memory, copied in for each "
                    "all-gather (FSDP CPU offload, ZeRO-3 offload_param)"));
  if (training->offload_params || training->offload_optimizer)
    {
      add_quantity (items, "cpu_master_weights", _("Master weights (CPU)"), states.master_weights,
                    "bytes", "weights",
                    _("fp32 copy: 4 bytes × parameters of this GPU, ÷ DP from ZeRO-1, in host "
                      "memory"));
      add_quantity (items, "cpu_optimizer", _("Optimizer states (CPU)"), states.optimizer, "bytes",
                    "optimizer", _("optimizer states of this GPU's parameters, ÷ DP from ZeRO-1, "
                                   "in host memory (ZeRO-Offload)"));
    }
  if (training->offload_params)
    add_quantity (items, "cpu_gradients", _("Gradients (CPU)"),
                  states.gradients + states.grad_accumulation_buffer, "bytes", "gradients",
                  _("gradient shards copied out after each reduce-scatter, with their "
                    "accumulation, in host memory"));
  else if (training->offload_optimizer)
    add_quantity (items, "cpu_gradients", _("Gradients (CPU)"),
                  MAX (offloaded.cpu_bytes - states.master_weights - states.optimizer, 0), "bytes",
                  "gradients", _("fp32 gradient copy the CPU optimizer reads: 4 bytes × "
                                 "parameters, ÷ DP from ZeRO-1"));
  activations = memory->cpu_bytes - offloaded.cpu_bytes;
  if (activations > 0)
    add_quantity (items, "cpu_activations", _("Activations (CPU)"), activations, "bytes",
                  "activations", _("saved tensors of the offloaded layers in pinned host memory"));
}

void
headroom_estimator_fill_memory_segments (const HeadroomEstimatorResult *r,
                                         GListStore                    *store)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  if (r->workload == HEADROOM_WORKLOAD_TRAINING)
    {
      const HrTrainingMemory *m = &r->training_memory;
      const HrFinetune *f = &r->training.finetune;
      /* A paged optimizer's states: their own segment, last, out of the
       * optimizer's. */
      double paged = headroom_estimator_paged_bytes (m);

      if (!hr_finetune_is_full (f))
        add_quantity (items, "frozen_weights", _("Frozen weights"), m->frozen_weights, "bytes",
                      "weights", _("frozen parameters × bytes of their dtype (NF4 with double "
                                   "quantisation: 0.516), ÷ DP under ZeRO-3 and FSDP"));
      if (hr_finetune_is_adapter (f))
        {
          /* The adapters' weights, gradients (as live at the peak) and
           * optimizer states, as one; the frozen weights' gradients
           * (frozen_gradients) on their own. Gradients are live at the peak
           * all or none. */
          double live = m->gradients > 0 ? m->peak_gradients / m->gradients : 0;
          double adapter_grads = m->gradients - m->frozen_gradients;

          add_quantity (items, "adapters", _("Adapters"),
                        m->adapters - adapter_grads + adapter_grads * live - paged, "bytes",
                        "optimizer",
                        _("adapter parameters × (weights + gradients + optimizer states), "
                          "÷ DP as ZeRO shards them"));
          if (m->frozen_gradients > 0)
            add_quantity (items, "frozen_gradients", _("Gradients of frozen weights"),
                          m->frozen_gradients * live, "bytes", "gradients",
                          _("the layers' frozen parameters × gradient bytes: FSDP1 flattens "
                            "them with the adapters into one parameter that requires grad; "
                            "÷ DP unless no_sync keeps them whole"));
        }
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
                    m->allocator_cache, "bytes", "overhead",
                    _("the caching allocator's 2 MiB rounding of large blocks, and the freed "
                      "blocks it keeps that the peak cannot use (FSDP's stream pools, the "
                      "16-bit logits, tensor parallelism's full-width blocks)"));
      if (m->load_excess > 0)
        add_quantity (items, "load", _("Kept from the model load"), m->load_excess, "bytes",
                      "overhead",
                      _("segments the caching allocator reserved while the model loaded, beyond "
                        "what the step reserves: torchao 0.1 quantises each NF4 weight whole, "
                        "with 64 bytes of temporaries per element, and the NF4 tensors made "
                        "between them pin the freed blocks (a replay of the allocator, "
                        "docs/training.md, “Model load”)"));
      add_quantity (items, "overhead", _("Overhead"), m->overhead, "bytes", "overhead",
                    _("CUDA context, cuBLAS workspace, NCCL buffers"));
      /* The offloaded states of fine-tuning are the trained part's: shown in
       * the total CPU figure only. */
      if (m->cpu_bytes > 0 && hr_finetune_is_full (f))
        add_cpu_segments (items, &r->training, m);
      if (paged > 0 && m->fits)
        add_quantity (items, "paged_out", _("Paged out to host memory"), paged, "bytes", "paged",
                      _("paged optimizer states the GPU has no room for: the total less the "
                        "capacity, evicted during the forward and backward and paged back for "
                        "the update (bitsandbytes, CUDA unified memory)"));
      else if (paged > 0)
        add_quantity (items, "paged_out", _("Paged optimizer states"), paged, "bytes", "paged",
                      _("optimizer states in CUDA unified memory (bitsandbytes), which can leave "
                        "for host memory: the run does not fit even with all of them out"));
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
  replace_items (store, items);
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

void
headroom_estimator_fill_flops_rows (const HeadroomEstimatorResult *r,
                                    GListStore                    *store)
{
  const HrFlops *f = &r->flops;
  gboolean inference = r->workload == HEADROOM_WORKLOAD_INFERENCE;
  double total = inference ? f->forward : f->total;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    {
      const HrFlopsPart *part = &f->component[c];
      double backward = inference ? 0 : part->backward;
      double recompute = inference ? 0 : part->recompute;
      double sum = part->forward + backward + recompute;

      /* A dense model has no router: no row rather than a 0 FLOP one. */
      if (c == HR_FLOPS_ROUTER && r->params.router == 0)
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
  replace_items (store, items);
}

void
headroom_estimator_fill_summary (const HeadroomEstimatorResult *r,
                                 GListStore                    *store)
{
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
      /* The times need a measured utilisation where the step model cannot
       * time the step (an optimizer step on the CPU): each says so instead
       * of a 0. Steps need only the token budget. */
      {
        const char *utilization = t->needs_utilization
                                  ? headroom_project_get_key_label ("training.mfu") : NULL;
        const char *tokens = r->training.tokens > 0
                             ? NULL : headroom_project_get_key_label ("training.tokens");
        const char *run = tokens != NULL ? tokens : utilization;
        const struct
        {
          const char *name, *label, *unit, *formula;
          double      value;
          const char *needs;
          gboolean    shown;
        } figures[] = {
          { "step_seconds", _("Step time"), "s",
            t->predicted
            ? _("Predicted from the hardware: matrix products, memory-bound kernels, exposed "
                "communication, pipeline bubble and optimizer step (the planner’s step model)")
            : _("Utilisation set: (model FLOPs + recomputation) ÷ (GPUs × peak × FLOPs "
                "utilisation set)"),
            t->step_seconds, utilization, TRUE },
          { "tokens_per_second", _("Throughput"), "tokens/s", _("tokens per step ÷ step time"),
            t->tokens_per_second, utilization, TRUE },
          { "tokens_per_second_per_gpu", _("Throughput per GPU"), "tokens/s",
            _("throughput ÷ GPUs, the figure torchtitan, torchtune and llm-foundry log"),
            t->tokens_per_second_per_gpu, utilization, TRUE },
          { "mfu", _("Model FLOPs utilisation"), "ratio",
            _("Achieved MFU: model FLOPs ÷ (GPUs × peak × step time) (PaLM, Chowdhery et al. "
              "2022, App. B)"),
            t->mfu, utilization, TRUE },
          { "hfu", _("Hardware FLOPs utilisation"), "ratio",
            _("HFU: (model FLOPs + recomputation) ÷ (GPUs × peak × step time)"),
            t->hfu, utilization, TRUE },
          { "bubble_fraction", _("Pipeline bubble"), "ratio",
            _("idle time over the ideal: (pp − 1) ÷ micro-batches for 1F1B, ÷ (virtual stages × "
              "micro-batches) interleaved, ÷ (3 × micro-batches) ZB-H1 (Narayanan et al. 2021, "
              "§2.2; Qi et al. 2024, §2.1)"),
            t->bubble_fraction, NULL, TRUE },
          /* The run's length needs a token budget. No energy tile where the
           * board power is unpublished, rather than a false 0 kWh. */
          { "steps", _("Steps"), "steps", _("⌈training tokens ÷ tokens per step⌉"), t->steps,
            tokens, TRUE },
          { "total_seconds", _("Training time"), "s", _("steps × step time"), t->total_seconds,
            run, TRUE },
          { "gpu_hours", _("GPU-hours"), "GPU-h", _("GPUs × training time"), t->gpu_hours,
            run, TRUE },
          { "cost", _("Cost"), "USD", _("GPU-hours × price per GPU-hour"), t->cost,
            run, TRUE },
          { "energy", _("Energy"), "kWh", _("GPUs × board power × training time"), t->energy_kwh,
            run, r->power_known },
        };

        for (guint i = 0; i < G_N_ELEMENTS (figures); i++)
          if (figures[i].shown && figures[i].needs == NULL)
            add_quantity (items, figures[i].name, figures[i].label, figures[i].value,
                          figures[i].unit, NULL, figures[i].formula);
          else if (figures[i].shown)
            g_ptr_array_add (items, headroom_quantity_new_missing (figures[i].name,
                                                                   figures[i].label,
                                                                   figures[i].unit,
                                                                   figures[i].formula,
                                                                   figures[i].needs));
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
      /* Whole requests: vLLM logs the quotient ("93.35x"), of which 93
       * full-length requests fit at once. */
      add_quantity (items, "max_concurrency", _("Requests at once"),
                    floor (r->serving_plan.max_concurrency), "sequences", NULL,
                    _("KV cache capacity ÷ longest request, in whole requests"));
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
  replace_items (store, items);
}
