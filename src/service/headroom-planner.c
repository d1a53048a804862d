/* headroom-planner.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-format.h"
#include "headroom-framework.h"
#include "headroom-planner.h"
#include "hr-planner.h"

/* Rows kept: the fastest layouts that fit, and points of the Pareto front. */
#define MAX_LAYOUTS 100
#define MAX_PARETO  64

struct _HeadroomPlanner
{
  GObject                parent_instance;

  HeadroomProject       *project;
  gulong                 changed_id;
  gboolean               active;
  guint                  idle_id;
  gboolean               dirty;

  HeadroomPlannerStatus  status;
  char                  *message;
  /* The refusal behind an INVALID status, with the key it names. */
  GError                *error;
  gint64                 searched;
  gint64                 fitting;
  GListStore            *layouts;
  GListStore            *pareto;

  /* Of GStrv: key, value it replaced, key, value, … for each applied layout. */
  GPtrArray             *undo_stack;

  /* The CLI's plan: how many layouts and front points to keep, and the
   * layout keys held at the project's value instead of searched. */
  guint                  max_layouts;
  guint                  max_pareto;
  char                 **pinned;
  gboolean               pareto_truncated;
  gint64                 global_batch;   /* the global batch searched for (resolved) */
};

G_DEFINE_FINAL_TYPE (HeadroomPlanner, headroom_planner, G_TYPE_OBJECT)

G_DEFINE_ENUM_TYPE (HeadroomPlannerStatus, headroom_planner_status,
                    G_DEFINE_ENUM_VALUE (HEADROOM_PLANNER_STATUS_NO_PROJECT, "no-project"),
                    G_DEFINE_ENUM_VALUE (HEADROOM_PLANNER_STATUS_LAYOUTS, "layouts"),
                    G_DEFINE_ENUM_VALUE (HEADROOM_PLANNER_STATUS_NOT_TRAINING, "not-training"),
                    G_DEFINE_ENUM_VALUE (HEADROOM_PLANNER_STATUS_INVALID, "invalid"),
                    G_DEFINE_ENUM_VALUE (HEADROOM_PLANNER_STATUS_NOTHING_FITS, "nothing-fits"))

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_ACTIVE,
  PROP_STATUS,
  PROP_MESSAGE,
  PROP_SEARCHED,
  PROP_FITTING,
  PROP_CAN_UNDO,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_UPDATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Why nothing fits: no valid layout at all, or none within the memory. */
static char *
nothing_fits_message (const HrModel *model,
                      const HrGpu   *gpu,
                      gint64         n_gpus,
                      gint64         searched)
{
  g_autofree char *size = NULL;
  g_autofree char *capacity = headroom_format_gib (gpu->memory_bytes);
  g_autofree char *gpus = headroom_format_integer ((double) n_gpus);
  g_autofree char *layouts = headroom_format_integer ((double) searched);
  HrParams params;

  if (searched == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "No parallel layout of %s GPU suits this model: tensor "
                                         "parallelism must divide the attention heads and the GPUs "
                                         "per node, pipeline parallelism be at most the layers "
                                         "plus two, and data parallelism divide the global batch.",
                                         "No parallel layout of %s GPUs suits this model: tensor "
                                         "parallelism must divide the attention heads and the GPUs "
                                         "per node, pipeline parallelism be at most the layers "
                                         "plus two, and data parallelism divide the global batch.",
                                         (gulong) n_gpus),
                            gpus);

  if (hr_model_params (model, &params, NULL) == HR_OK)
    size = headroom_format_count ((double) params.total);
  else
    size = g_strdup ("?");
  /* TRANSLATORS: e.g. "No layout of 8 GPUs fits a model of 70.6 B parameters
   * in 80.0 GiB per GPU (1,234 layouts searched). …" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "No layout of %s GPU fits a model of %s parameters in %s "
                                       "per GPU (%s layouts searched). Add GPUs, shorten the "
                                       "sequences or choose a GPU with more memory.",
                                       "No layout of %s GPUs fits a model of %s parameters in %s "
                                       "per GPU (%s layouts searched). Add GPUs, shorten the "
                                       "sequences or choose a GPU with more memory.",
                                       (gulong) n_gpus),
                          gpus, size, capacity, layouts);
}

static void
fill (GListStore         *store,
      const HrPlanLayout *layouts,
      size_t              n_layouts)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

  for (size_t i = 0; i < n_layouts; i++)
    g_ptr_array_add (rows, headroom_plan_row_new (&layouts[i], (guint) i + 1));
  g_list_store_splice (store, 0, g_list_model_get_n_items (G_LIST_MODEL (store)),
                       rows->pdata, rows->len);
}

static gboolean
is_pinned (HeadroomPlanner *self,
           const char      *key)
{
  return self->pinned != NULL && g_strv_contains ((const char * const *) self->pinned, key);
}

/* Pinned layout keys take the project's value; the others are searched.
 * A pinned ZeRO stage alone also pins FSDP off. A global batch of 0 is the
 * smallest multiple of the GPU count that is at least 512 (the CLI's plan;
 * the window's search keeps the project's 0). */
static void
pin (HeadroomPlanner *self,
     HrPlanRequest   *request)
{
  HrTraining *t = &request->training;
  gint64 gpus = t->nodes * t->gpus_per_node;

  if (is_pinned (self, "training.tensor_parallel"))
    request->tensor_parallel = t->tensor_parallel;
  if (is_pinned (self, "training.pipeline_parallel"))
    request->pipeline_parallel = t->pipeline_parallel;
  if (is_pinned (self, "training.virtual_stages"))
    request->virtual_stages = t->virtual_stages;
  if (is_pinned (self, "training.context_parallel"))
    request->context_parallel = t->context_parallel;
  if (is_pinned (self, "training.expert_parallel"))
    request->expert_parallel = t->expert_parallel;
  if (is_pinned (self, "training.micro_batch"))
    request->micro_batch = t->micro_batch;
  if (is_pinned (self, "training.zero_stage"))
    request->zero_stage = t->zero_stage;
  if (is_pinned (self, "training.fsdp"))
    request->fsdp = t->fsdp;
  else if (is_pinned (self, "training.zero_stage"))
    request->fsdp = HR_FSDP_NONE;
  if (is_pinned (self, "training.recompute"))
    request->recompute = t->recompute;
  if (is_pinned (self, "training.sequence_parallel"))
    request->sequence_parallel = t->sequence_parallel ? 1 : 0;
  /* 0 is one micro-batch per GPU, no accumulation: as the estimate reads it
   * for a data-parallel run (and all the optimizer stepped in the backward
   * allows). */
  if (t->global_batch == 0 && gpus > 0)
    t->global_batch = t->micro_batch * gpus;
}

/* Runs the search and sets the status, message, counts and lists (not yet
 * notified). */
static void
search (HeadroomPlanner *self)
{
  g_autofree HrPlanLayout *best = NULL;
  g_autofree HrPlanLayout *pareto = NULL;
  g_autoptr(GError) error = NULL;
  HrPlanRequest request;
  HrPlanResult result;
  HrError err = { 0 };
  HrModel model;
  HrGpu gpu;

  self->searched = 0;
  self->fitting = 0;
  self->pareto_truncated = FALSE;
  self->global_batch = 0;
  g_clear_pointer (&self->message, g_free);
  g_clear_error (&self->error);
  g_list_store_remove_all (self->layouts);
  g_list_store_remove_all (self->pareto);

  if (self->project == NULL)
    {
      self->status = HEADROOM_PLANNER_STATUS_NO_PROJECT;
      self->message = g_strdup (_("Open or create a project to plan it."));
      return;
    }
  if (headroom_project_get_workload (self->project) != HEADROOM_WORKLOAD_TRAINING)
    {
      self->status = HEADROOM_PLANNER_STATUS_NOT_TRAINING;
      self->message = g_strdup (_("The planner searches the parallel layouts of a training run. "
                                  "Switch the workload to training to plan it."));
      return;
    }
  if (!headroom_project_get_model (self->project, &model, &error)
      || !headroom_project_get_gpu (self->project, &gpu, &error))
    {
      self->status = HEADROOM_PLANNER_STATUS_INVALID;
      self->message = g_strdup (error->message);
      self->error = g_steal_pointer (&error);
      return;
    }

  hr_plan_request_init (&request);
  headroom_project_get_training (self->project, &request.training);
  pin (self, &request);
  if (!headroom_framework_restrict (headroom_project_get_string (self->project,
                                                                 "training.framework"),
                                    &request, &error))
    {
      self->status = HEADROOM_PLANNER_STATUS_INVALID;
      self->message = g_strdup (error->message);
      self->error = g_steal_pointer (&error);
      return;
    }
  self->global_batch = request.training.global_batch;
  best = g_new0 (HrPlanLayout, self->max_layouts);
  pareto = g_new0 (HrPlanLayout, self->max_pareto);
  if (hr_plan_search (&model, &gpu, &request, best, self->max_layouts, pareto, self->max_pareto,
                      &result, &err) != HR_OK)
    {
      /* Named by project key, "training.global_batch: …", to say where to fix it. */
      headroom_project_set_core_error (&error, "training", &err);
      self->status = HEADROOM_PLANNER_STATUS_INVALID;
      self->message = g_strdup (error->message);
      self->error = g_steal_pointer (&error);
      return;
    }

  self->searched = result.searched;
  self->fitting = result.fitting;
  self->pareto_truncated = result.pareto_truncated;
  if (result.n_best == 0)
    {
      g_autofree char *why = nothing_fits_message (&model, &gpu,
                                                   headroom_project_get_n_gpus (self->project),
                                                   result.searched);
      g_autofree char *scope = headroom_planner_dup_scope (self);

      self->status = HEADROOM_PLANNER_STATUS_NOTHING_FITS;
      /* The framework's bounds may be why (headroom-framework.h). */
      self->message = scope != NULL ? g_strdup_printf ("%s %s.", why, scope)
                                    : g_steal_pointer (&why);
      return;
    }

  self->status = HEADROOM_PLANNER_STATUS_LAYOUTS;
  fill (self->layouts, best, result.n_best);
  fill (self->pareto, pareto, result.n_pareto);
}

static gboolean
search_idle_cb (gpointer user_data)
{
  HeadroomPlanner *self = user_data;

  self->idle_id = 0;
  headroom_planner_refresh (self);
  return G_SOURCE_REMOVE;
}

static void
queue_search (HeadroomPlanner *self)
{
  self->dirty = TRUE;
  if (self->idle_id == 0 && self->active)
    self->idle_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, search_idle_cb, self, NULL);
}

/* The search ignores the layout keys (it tries every value), the MFU
 * assumption (it predicts its own), the token budget and the price. */
static gboolean
changes_search (const char *key)
{
  static const char * const ignored[] = {
    "training.mfu", "training.tokens", "hardware.price_per_gpu_hour",
  };

  if (g_str_has_prefix (key, "inference."))
    return FALSE;
  if (g_strv_contains (headroom_plan_row_get_keys (), key))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ignored); i++)
    if (g_str_equal (key, ignored[i]))
      return FALSE;
  return TRUE;
}

static void
project_changed_cb (HeadroomPlanner *self,
                    const char      *key,
                    HeadroomProject *project)
{
  if (key == NULL || changes_search (key))
    queue_search (self);
}

static void
headroom_planner_dispose (GObject *object)
{
  HeadroomPlanner *self = HEADROOM_PLANNER (object);

  g_clear_handle_id (&self->idle_id, g_source_remove);
  if (self->project != NULL)
    g_clear_signal_handler (&self->changed_id, self->project);
  g_clear_object (&self->project);
  g_clear_object (&self->layouts);
  g_clear_object (&self->pareto);

  G_OBJECT_CLASS (headroom_planner_parent_class)->dispose (object);
}

static void
headroom_planner_finalize (GObject *object)
{
  HeadroomPlanner *self = HEADROOM_PLANNER (object);

  g_ptr_array_unref (self->undo_stack);
  g_free (self->message);
  g_clear_error (&self->error);
  g_strfreev (self->pinned);

  G_OBJECT_CLASS (headroom_planner_parent_class)->finalize (object);
}

static void
headroom_planner_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  HeadroomPlanner *self = HEADROOM_PLANNER (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    case PROP_ACTIVE:
      g_value_set_boolean (value, self->active);
      break;
    case PROP_STATUS:
      g_value_set_enum (value, self->status);
      break;
    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;
    case PROP_SEARCHED:
      g_value_set_int64 (value, self->searched);
      break;
    case PROP_FITTING:
      g_value_set_int64 (value, self->fitting);
      break;
    case PROP_CAN_UNDO:
      g_value_set_boolean (value, headroom_planner_get_can_undo (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_planner_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  HeadroomPlanner *self = HEADROOM_PLANNER (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      headroom_planner_set_project (self, g_value_get_object (value));
      break;
    case PROP_ACTIVE:
      headroom_planner_set_active (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_planner_class_init (HeadroomPlannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = headroom_planner_dispose;
  object_class->finalize = headroom_planner_finalize;
  object_class->get_property = headroom_planner_get_property;
  object_class->set_property = headroom_planner_set_property;

  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, HEADROOM_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ACTIVE] =
    g_param_spec_boolean ("active", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATUS] =
    g_param_spec_enum ("status", NULL, NULL, HEADROOM_TYPE_PLANNER_STATUS,
                       HEADROOM_PLANNER_STATUS_NO_PROJECT,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SEARCHED] =
    g_param_spec_int64 ("searched", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FITTING] =
    g_param_spec_int64 ("fitting", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CAN_UNDO] =
    g_param_spec_boolean ("can-undo", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* After every search, once the lists and properties hold its result. */
  signals[SIGNAL_UPDATED] =
    g_signal_new ("updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
headroom_planner_init (HeadroomPlanner *self)
{
  self->active = TRUE;
  self->status = HEADROOM_PLANNER_STATUS_NO_PROJECT;
  self->message = g_strdup (_("Open or create a project to plan it."));
  self->layouts = g_list_store_new (HEADROOM_TYPE_PLAN_ROW);
  self->pareto = g_list_store_new (HEADROOM_TYPE_PLAN_ROW);
  self->undo_stack = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  self->max_layouts = MAX_LAYOUTS;
  self->max_pareto = MAX_PARETO;
}

HeadroomPlanner *
headroom_planner_new (HeadroomProject *project)
{
  g_return_val_if_fail (project == NULL || HEADROOM_IS_PROJECT (project), NULL);

  return g_object_new (HEADROOM_TYPE_PLANNER, "project", project, NULL);
}

HeadroomProject *
headroom_planner_get_project (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), NULL);

  return self->project;
}

static void
clear_undo (HeadroomPlanner *self)
{
  if (self->undo_stack->len == 0)
    return;
  g_ptr_array_set_size (self->undo_stack, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
}

void
headroom_planner_set_project (HeadroomPlanner *self,
                              HeadroomProject *project)
{
  g_return_if_fail (HEADROOM_IS_PLANNER (self));
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
  /* Undoing into another document would write stale values. */
  clear_undo (self);
  queue_search (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

gboolean
headroom_planner_get_active (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), FALSE);

  return self->active;
}

void
headroom_planner_set_active (HeadroomPlanner *self,
                             gboolean         active)
{
  g_return_if_fail (HEADROOM_IS_PLANNER (self));

  active = !!active;
  if (self->active == active)
    return;

  self->active = active;
  if (!active)
    g_clear_handle_id (&self->idle_id, g_source_remove);
  else if (self->dirty)
    headroom_planner_refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

void
headroom_planner_refresh (HeadroomPlanner *self)
{
  HeadroomPlannerStatus old_status;
  g_autofree char *old_message = NULL;
  gint64 old_searched, old_fitting;

  g_return_if_fail (HEADROOM_IS_PLANNER (self));

  g_clear_handle_id (&self->idle_id, g_source_remove);
  self->dirty = FALSE;

  old_status = self->status;
  old_message = g_strdup (self->message);
  old_searched = self->searched;
  old_fitting = self->fitting;

  search (self);

  g_object_freeze_notify (G_OBJECT (self));
  if (self->status != old_status)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
  if (g_strcmp0 (self->message, old_message) != 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
  if (self->searched != old_searched)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCHED]);
  if (self->fitting != old_fitting)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FITTING]);
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
}

HeadroomPlannerStatus
headroom_planner_get_status (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), HEADROOM_PLANNER_STATUS_NO_PROJECT);

  return self->status;
}

const char *
headroom_planner_get_message (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), NULL);

  return self->message;
}

const GError *
headroom_planner_get_error (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), NULL);

  return self->error;
}

gint64
headroom_planner_get_searched (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), 0);

  return self->searched;
}

gint64
headroom_planner_get_fitting (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), 0);

  return self->fitting;
}

GListModel *
headroom_planner_get_layouts (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), NULL);

  return G_LIST_MODEL (self->layouts);
}

GListModel *
headroom_planner_get_pareto (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), NULL);

  return G_LIST_MODEL (self->pareto);
}

/* Writes key/value pairs from `pairs` backwards: the way to undo them. */
static gboolean
restore (HeadroomProject  *project,
         char            **pairs,
         GError          **error)
{
  gboolean ok = TRUE;
  guint n = g_strv_length (pairs);

  for (guint i = n; i >= 2; i -= 2)
    {
      g_autoptr(GError) local_error = NULL;

      /* Keep restoring the others; report the first failure. */
      if (!headroom_project_set_from_string (project, pairs[i - 2], pairs[i - 1], &local_error)
          && ok)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          ok = FALSE;
        }
    }
  return ok;
}

gboolean
headroom_planner_apply (HeadroomPlanner  *self,
                        HeadroomPlanRow  *row,
                        GError          **error)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  const char * const *keys;
  g_auto(GStrv) previous = NULL;

  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), FALSE);
  g_return_val_if_fail (HEADROOM_IS_PLAN_ROW (row), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (self->project != NULL, FALSE);

  builder = g_strv_builder_new ();
  keys = headroom_plan_row_get_keys ();
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *value = headroom_plan_row_dup_value (row, keys[i]);
      g_autofree char *old = headroom_project_dup_value_string (self->project, keys[i]);

      if (g_strcmp0 (value, old) == 0)
        continue;
      if (!headroom_project_set_from_string (self->project, keys[i], value, error))
        {
          g_auto(GStrv) written = g_strv_builder_end (builder);

          restore (self->project, written, NULL);
          return FALSE;
        }
      g_strv_builder_add_many (builder, keys[i], old, NULL);
    }

  previous = g_strv_builder_end (builder);
  if (previous[0] == NULL)
    return TRUE;
  g_ptr_array_add (self->undo_stack, g_steal_pointer (&previous));
  if (self->undo_stack->len == 1)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
  return TRUE;
}

gboolean
headroom_planner_get_can_undo (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), FALSE);

  return self->undo_stack->len > 0;
}

guint
headroom_planner_get_n_undo (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), 0);

  return self->undo_stack->len;
}

gboolean
headroom_planner_undo (HeadroomPlanner  *self,
                       GError          **error)
{
  g_auto(GStrv) previous = NULL;

  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (self->project != NULL, FALSE);
  g_return_val_if_fail (self->undo_stack->len > 0, FALSE);

  previous = g_ptr_array_steal_index (self->undo_stack, self->undo_stack->len - 1);
  if (self->undo_stack->len == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
  return restore (self->project, previous, error);
}

void
headroom_planner_set_search (HeadroomPlanner    *self,
                             guint               max_layouts,
                             guint               max_pareto,
                             const char * const *pinned)
{
  g_return_if_fail (HEADROOM_IS_PLANNER (self));
  g_return_if_fail (max_layouts > 0 && max_pareto > 0);

  self->max_layouts = max_layouts;
  self->max_pareto = max_pareto;
  g_strfreev (self->pinned);
  self->pinned = g_strdupv ((char **) pinned);
  queue_search (self);
}

gboolean
headroom_planner_get_pareto_truncated (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), FALSE);
  return self->pareto_truncated;
}

gint64
headroom_planner_get_global_batch (HeadroomPlanner *self)
{
  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), 0);
  return self->global_batch;
}

char *
headroom_planner_dup_scope (HeadroomPlanner *self)
{
  const char *framework;

  g_return_val_if_fail (HEADROOM_IS_PLANNER (self), NULL);

  framework = self->project != NULL ? headroom_project_get_framework_label (self->project) : NULL;
  if (framework == NULL)
    return NULL;
  /* TRANSLATORS: %s is a framework's name, e.g. "DeepSpeed" */
  return g_strdup_printf (_("Only layouts %s runs are searched"), framework);
}
