/* headroom-estimator.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-estimator"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-estimator-private.h"
#include "headroom-flops-row.h"
#include "headroom-format.h"
#include "headroom-quantity.h"
#include "hr-config.h"
#include "hr-inference.h"
#include "hr-planner.h"
#include "hr-training.h"

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
  HeadroomPlanRow *step_row;     /* made on demand from `result` (get_step_row ()) */
  HeadroomEstimatorResult result;
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
compute_training (const HrGpu              *gpu,
                  HeadroomEstimatorResult  *r,
                  GError                  **error)
{
  HrFlopsOptions options = { 0 };
  HrError err = { 0 };

  r->power_known = gpu->power_watts > 0;
  r->gpu = *gpu;
  options.seq_len = r->training.seq_len;
  options.micro_batch = r->training.micro_batch;
  options.attention = r->training.attention;
  options.recompute = r->training.recompute;
  options.recompute_modules = r->training.recompute_modules;
  options.causal = r->training.causal;
  options.finetune = &r->training.finetune;
  options.recompute_skipped = hr_training_recompute_skipped (&r->training, &r->model);

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
      r->training_memory.frozen_weights, r->training_memory.frozen_gradients,
    };
    const double times[] = {
      r->training_time.step_seconds, r->training_time.total_seconds,
      r->training_time.cost, r->training_time.tokens_per_second,
    };

    if (!all_sane (figures, G_N_ELEMENTS (figures)))
      {
        g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                             _("The training estimate is out of range; check the sizes"));
        return FALSE;
      }
    /* A utilisation is at least 0.1 %, so only a bandwidth near zero can
     * make a time overflow, against many tokens. */
    if (!all_sane (times, G_N_ELEMENTS (times)))
      {
        g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                             _("The training time is too long to compute; check the bandwidths "
                               "(inter-node, host link, a custom GPU’s) and Training tokens"));
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
compute_inference (HeadroomProject          *project,
                   const HrGpu              *gpu,
                   HeadroomEstimatorResult  *r,
                   GError                  **error)
{
  HrFlopsOptions options = { 0 };
  HrError err = { 0 };
  HrServing serving;

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
compute (HeadroomProject          *project,
         HeadroomEstimatorResult  *r,
         GError                  **error)
{
  HrError err = { 0 };
  HrGpu gpu;

  /* The settings the checks read are the ones estimated: read once. */
  if (!headroom_project_validate_and_get (project, &r->model, &gpu, &r->training, &r->inference,
                                          error))
    return FALSE;

  if (hr_model_params (&r->model, &r->params, &err) != HR_OK)
    {
      headroom_project_set_core_error (error, NULL, &err);
      return FALSE;
    }
  hr_model_describe (&r->model, r->structure, sizeof r->structure);
  r->assumed = headroom_project_get_assumed_architecture (project);
  r->text_only = headroom_project_get_text_only (project);

  r->workload = headroom_project_get_workload (project);
  if (r->workload == HEADROOM_WORKLOAD_TRAINING)
    return compute_training (&gpu, r, error);
  return compute_inference (project, &gpu, r, error);
}

/* Under an error the parameter counts are still the project's model's when
 * the model reads (they need no GPU or layout), never the last result's;
 * otherwise there are none. A zeroed result is a full fine-tune: the
 * counts alone. */
static void
fill_params_of_model (HeadroomEstimator *self)
{
  HeadroomEstimatorResult counts = { 0 };
  HrError err = { 0 };

  if (self->project != NULL && headroom_project_get_model (self->project, &counts.model, NULL)
      && hr_model_params (&counts.model, &counts.params, &err) == HR_OK)
    headroom_estimator_fill_params_rows (&counts, self->params_rows);
  else
    g_list_store_remove_all (self->params_rows);
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
  HeadroomEstimatorResult result = { 0 };

  g_return_if_fail (HEADROOM_IS_ESTIMATOR (self));

  cancel_idle (self);

  g_object_freeze_notify (G_OBJECT (self));
  if (self->project == NULL)
    {
      g_clear_error (&self->error_detail);
      fill_params_of_model (self);
      set_error (self, _("No project"));
    }
  else if (!compute (self->project, &result, &error))
    {
      g_clear_error (&self->error_detail);
      self->error_detail = g_error_copy (error);
      fill_params_of_model (self);
      set_error (self, error->message);
    }
  else
    {
      g_clear_error (&self->error_detail);
      self->result = result;
      self->has_result = TRUE;
      g_clear_object (&self->step_row);
      headroom_estimator_fill_params_rows (&self->result, self->params_rows);
      headroom_estimator_fill_memory_segments (&self->result, self->memory_segments);
      headroom_estimator_fill_flops_rows (&self->result, self->flops_rows);
      headroom_estimator_fill_summary (&self->result, self->summary);
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
  g_clear_object (&self->step_row);

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
  /* The last valid result, and the step made from it, were another project's. */
  g_clear_object (&self->step_row);
  if (self->has_result)
    {
      self->has_result = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_RESULT]);
    }
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

/**
 * headroom_estimator_get_step_row:
 *
 * The predicted step of the last training result as the Plan view shows a
 * layout: the same step time, split into its parts with their explanations.
 * Made on the first call after each result, so that sweeps pay nothing for it.
 *
 * Returns: (transfer none) (nullable): the row; NULL unless the step time is
 * predicted from the hardware (a training estimate without a utilisation set)
 */
HeadroomPlanRow *
headroom_estimator_get_step_row (HeadroomEstimator *self)
{
  const HeadroomEstimatorResult *r;
  HrPlanLayout layout = { 0 };

  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);

  r = &self->result;
  if (self->step_row != NULL || !self->has_result || r->workload != HEADROOM_WORKLOAD_TRAINING
      || !r->training_time.predicted)
    return self->step_row;
  layout.training = r->training;
  layout.data_parallel = r->training_memory.data_parallel;
  layout.memory_total = r->training_memory.total;
  layout.memory_capacity = r->training_memory.capacity;
  if (hr_plan_step (&r->model, &r->training, &r->gpu, NULL, &layout.step, NULL) != HR_OK)
    return NULL;
  layout.grad_accumulation = layout.step.micro_batches;
  self->step_row = headroom_plan_row_new (&layout, 1);
  return self->step_row;
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

/* What the GPU holds, as the memory bar shows it: the total less the paged
 * optimizer states that leave for host memory. */
double
headroom_estimator_get_memory_on_gpu (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), 0);
  if (self->result.workload != HEADROOM_WORKLOAD_TRAINING)
    return self->result.inference_memory.total;
  return self->result.training_memory.total
         - headroom_estimator_paged_bytes (&self->result.training_memory);
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
         && !self->result.training_time.predicted
         && !self->result.training_time.needs_utilization;
}

/**
 * headroom_estimator_get_needs_utilization:
 * @self: a #HeadroomEstimator
 *
 * Returns: %TRUE when the last training result has no times because the
 * step model cannot time its step (an optimizer step on the CPU) and no
 * measured utilisation (training.mfu) is set; its memory stands
 */
gboolean
headroom_estimator_get_needs_utilization (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), FALSE);
  return self->has_result && self->result.workload == HEADROOM_WORKLOAD_TRAINING
         && self->result.training_time.needs_utilization;
}

/* The kinds of run the step model is checked against, and what each
 * reached of its predictions: the least and most of measured / predicted
 * throughput over every row, rounded outwards to a percent. */
typedef enum
{
  RUNS_PYTORCH,   /* test-real-runs.c, test-published-runs.c: torchtitan, torchtune,
                   * llm-foundry, fms-fsdp; 0.528 (torchtitan's June 2025 async TP
                   * benchmark on 500 W H100s, Llama 3.1 8B, bf16, plain TP 8) to 1.255
                   * (llm-foundry H100, MPT-1B at 65,536 tokens, at the Triton kernel's
                   * rate of 16,384) */
  RUNS_MEGATRON,  /* test-megatron-bridge-runs.c, dense Llama rows: 0.660 (GB200, 405B,
                   * 25.09) to 1.067 (H100, Llama 3 70B, 26.04.01) */
  RUNS_MOE,       /* test-megatron-bridge-runs.c, MoE rows (Megatron-Bridge's are the only
                   * ones): 0.2289 (B200, Qwen3 30B-A3B, 25.11) to 1.004 (GB200, Qwen3 235B, 26.06) */
} RunKind;

static const struct
{
  double low, high;
} bands[] = {
  [RUNS_PYTORCH] = { 0.52, 1.26 },
  [RUNS_MEGATRON] = { 0.65, 1.07 },
  [RUNS_MOE] = { 0.22, 1.01 },
};

/* `model` may be NULL when the project's does not read. */
static RunKind
run_kind (HeadroomProject *project,
          const HrModel   *model)
{
  if (model != NULL && model->n_experts > 0)
    return RUNS_MOE;
  if (g_strcmp0 (headroom_project_get_string (project, "training.framework"), "megatron") == 0)
    return RUNS_MEGATRON;
  return RUNS_PYTORCH;
}

static RunKind
project_run_kind (HeadroomProject *project)
{
  HrModel model;

  return run_kind (project, headroom_project_get_model (project, &model, NULL) ? &model : NULL);
}

void
headroom_prediction_band (HeadroomProject *project,
                          double          *low,
                          double          *high)
{
  RunKind kind;

  g_return_if_fail (HEADROOM_IS_PROJECT (project));

  kind = project_run_kind (project);
  *low = bands[kind].low;
  *high = bands[kind].high;
}

static char *
dup_band (RunKind kind)
{
  g_autofree char *low = NULL;
  g_autofree char *high = NULL;

  low = headroom_format_count (100 * bands[kind].low);
  high = headroom_format_count (100 * bands[kind].high);
  switch (kind)
    {
    case RUNS_MOE:
      /* TRANSLATORS: e.g. "published runs of MoE models (Megatron-Bridge) reached between 23
       * and 101 % of such predictions" */
      return g_strdup_printf (_("published runs of MoE models (Megatron-Bridge) reached between %s "
                                "and %s %% of such predictions"), low, high);
    case RUNS_MEGATRON:
      return g_strdup_printf (_("Megatron-Bridge’s published runs of dense models reached between "
                                "%s and %s %% of such predictions"), low, high);
    case RUNS_PYTORCH:
    default:
      return g_strdup_printf (_("published runs of PyTorch frameworks (torchtitan, torchtune, "
                                "llm-foundry, fms-fsdp) reached between %s and %s %% of such "
                                "predictions"),
                              low, high);
    }
}

char *
headroom_dup_prediction_band (HeadroomProject *project)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), NULL);

  return dup_band (project_run_kind (project));
}

char *
headroom_estimator_dup_time_basis (HeadroomEstimator *self)
{
  g_autofree char *percent = NULL;

  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), NULL);
  if (!self->has_result || self->result.workload != HEADROOM_WORKLOAD_TRAINING)
    return NULL;
  if (self->result.training_time.predicted)
    {
      /* The result's model, read already: no config reading on a redraw. */
      g_autofree char *band = dup_band (run_kind (self->project, &self->result.model));

      /* TRANSLATORS: %s is "published runs of … reached between 52 and 126 % of such predictions" */
      return g_strdup_printf (_("Predicted from the hardware: %s"), band);
    }
  if (self->result.training_time.needs_utilization)
    return g_strdup (_("Not predicted: the step model does not time an optimizer step on the "
                       "CPU (offloaded optimizer or parameters)"));
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

/**
 * headroom_estimator_get_text_only:
 *
 * Returns: TRUE when the figures are a vision-language model's language model
 * only, its vision tower and projector not counted.
 */
gboolean
headroom_estimator_get_text_only (HeadroomEstimator *self)
{
  g_return_val_if_fail (HEADROOM_IS_ESTIMATOR (self), FALSE);

  return self->has_result && self->result.text_only;
}
