/* headroom-sweeper.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-sweeper"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "headroom-estimator.h"
#include "headroom-quantity.h"
#include "headroom-sweeper.h"

/* What a computation produces; built in the worker, handed to the object on
 * the thread that finishes it. */
typedef struct
{
  GStrv       segment_names;
  GArray     *points;            /* HeadroomSweepPoint; error and segments owned below */
  GPtrArray  *owned;             /* the points' error strings and segment arrays */
} Points;

struct _HeadroomSweeper
{
  GObject parent_instance;

  GBytes       *snapshot;        /* the project as it was when the sweeper was made */
  /* Copies of the project's model and GPU entries, and their ids: each
   * computation gets its own copy, so that a worker thread reads nothing
   * another thread may touch (the default catalog is not thread-safe). */
  HeadroomCatalog *catalog;
  char         *model_id;
  char         *gpu_id;
  HeadroomSweep axis;
  gint64       *values;
  guint         n_values;
  gboolean      training;
  const char   *assumed;         /* the snapshot's assumed architecture, or NULL */
  gboolean      text_only;       /* the snapshot's model is a language model only */
  Points       *points;          /* NULL before a computation */
};

G_DEFINE_FINAL_TYPE (HeadroomSweeper, headroom_sweeper, G_TYPE_OBJECT)

static void
points_free (Points *p)
{
  if (p == NULL)
    return;
  g_strfreev (p->segment_names);
  g_array_unref (p->points);
  g_ptr_array_unref (p->owned);
  g_free (p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Points, points_free)

/* Sets the swept quantity on `project`. */
static gboolean
apply_value (HeadroomProject  *project,
             HeadroomSweep     axis,
             gint64            value,
             gint64            gpus_per_node,
             GError          **error)
{
  gboolean training = headroom_project_get_workload (project) == HEADROOM_WORKLOAD_TRAINING;

  switch (axis)
    {
    case HEADROOM_SWEEP_MICRO_BATCH:
      return headroom_project_set_int (project, training ? "training.micro_batch" : "inference.batch",
                                       value, error);
    case HEADROOM_SWEEP_SEQ_LEN:
      return headroom_project_set_int (project, training ? "training.seq_len" : "inference.prompt",
                                       value, error);
    case HEADROOM_SWEEP_GPUS:
      /* Fill one node first, then add whole nodes. */
      if (value <= gpus_per_node)
        return headroom_project_set_int (project, "hardware.nodes", 1, error)
               && headroom_project_set_int (project, "hardware.gpus_per_node", value, error);
      if (value % gpus_per_node != 0)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "hardware.nodes",
                                          _("%" G_GINT64_FORMAT " GPUs are not whole nodes of %"
                                            G_GINT64_FORMAT), value, gpus_per_node);
          return FALSE;
        }
      return headroom_project_set_int (project, "hardware.gpus_per_node", gpus_per_node, error)
             && headroom_project_set_int (project, "hardware.nodes", value / gpus_per_node, error);
    default:
      g_return_val_if_reached (FALSE);
    }
}

/* The whole computation; touches nothing of the sweeper, so that it can
 * run in any thread. The caller makes sure the estimator's idle source
 * cannot reach another thread's main loop (see compute_thread). */
static Points *
compute_points (GBytes          *snapshot,
                HeadroomCatalog *catalog,
                HeadroomSweep    axis,
                const gint64  *values,
                guint          n_values,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(HeadroomProject) copy = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  g_autoptr(Points) p = g_new0 (Points, 1);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  GListModel *segments;
  gint64 gpus_per_node;
  guint n_segments;

  p->points = g_array_new (FALSE, TRUE, sizeof (HeadroomSweepPoint));
  p->owned = g_ptr_array_new_with_free_func (g_free);

  copy = headroom_project_new_from_bytes_with_catalog (snapshot, catalog, error);
  if (copy == NULL)
    return NULL;
  estimator = headroom_estimator_new (copy);
  headroom_estimator_recompute_now (estimator);
  /* The base must be valid: it names the columns. */
  if (headroom_estimator_get_error (estimator) != NULL)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                           headroom_estimator_get_error (estimator));
      return NULL;
    }
  segments = headroom_estimator_get_memory_segments (estimator);
  n_segments = g_list_model_get_n_items (segments);
  for (guint i = 0; i < n_segments; i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);

      g_strv_builder_add (names, headroom_quantity_get_name (q));
    }
  p->segment_names = g_strv_builder_end (names);
  gpus_per_node = headroom_project_get_int (copy, "hardware.gpus_per_node");

  for (guint v = 0; v < n_values; v++)
    {
      g_autoptr(GError) local_error = NULL;
      HeadroomSweepPoint point = { .value = values[v] };
      const GError *problem = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (!apply_value (copy, axis, values[v], gpus_per_node, &local_error))
        problem = local_error;
      else
        {
          headroom_estimator_recompute_now (estimator);
          problem = headroom_estimator_get_error_detail (estimator);
        }

      if (problem != NULL)
        {
          char *message = g_strdup (problem->message);
          char *key = g_strdup (headroom_project_error_get_key (problem));

          g_ptr_array_add (p->owned, message);
          point.error = message;
          if (key != NULL)
            g_ptr_array_add (p->owned, key);
          point.error_key = key;
        }
      else
        {
          double *bytes = g_new0 (double, MAX (n_segments, 1));
          /* NaN where the time needs a measured utilisation: the CSV leaves it empty. */
          gboolean untimed = headroom_estimator_get_needs_utilization (estimator);

          /* Matched by name: the components are those of the base. */
          for (guint i = 0; i < g_list_model_get_n_items (segments); i++)
            {
              g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);

              for (guint k = 0; k < n_segments; k++)
                if (g_str_equal (p->segment_names[k], headroom_quantity_get_name (q)))
                  bytes[k] = headroom_quantity_get_value (q);
            }
          g_ptr_array_add (p->owned, bytes);
          point.segments = bytes;
          point.memory = headroom_estimator_get_memory_on_gpu (estimator);
          point.capacity = headroom_estimator_get_memory_capacity (estimator);
          point.fits = headroom_estimator_get_fits (estimator);
          point.step_seconds = untimed ? NAN : headroom_estimator_get_step_seconds (estimator);
          point.tokens_per_second = untimed ? NAN : headroom_estimator_get_tokens_per_second (estimator);
        }
      g_array_append_val (p->points, point);
    }
  return g_steal_pointer (&p);
}

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  HeadroomSweeper *self = source_object;
  g_autoptr(GMainContext) context = g_main_context_new ();
  GError *error = NULL;
  Points *p;

  /* The estimator queues its recomputation on the thread-default context:
   * this one, which nothing iterates; recompute_now() cancels it. */
  g_main_context_push_thread_default (context);
  p = compute_points (self->snapshot, task_data, self->axis, self->values, self->n_values,
                      cancellable, &error);
  g_main_context_pop_thread_default (context);
  if (p == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, p, (GDestroyNotify) points_free);
}

static void
headroom_sweeper_finalize (GObject *object)
{
  HeadroomSweeper *self = HEADROOM_SWEEPER (object);

  g_bytes_unref (self->snapshot);
  g_clear_object (&self->catalog);
  g_free (self->model_id);
  g_free (self->gpu_id);
  g_free (self->values);
  points_free (self->points);

  G_OBJECT_CLASS (headroom_sweeper_parent_class)->finalize (object);
}

static void
headroom_sweeper_class_init (HeadroomSweeperClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = headroom_sweeper_finalize;
}

static void
headroom_sweeper_init (HeadroomSweeper *self)
{
}

HeadroomSweeper *
headroom_sweeper_new (HeadroomProject *project,
                      HeadroomSweep    axis,
                      const gint64    *values,
                      guint            n_values)
{
  HeadroomSweeper *self;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (values != NULL || n_values == 0, NULL);

  self = g_object_new (HEADROOM_TYPE_SWEEPER, NULL);
  self->snapshot = headroom_project_to_bytes (project);
  self->model_id = g_strdup (headroom_project_get_preset (project));
  self->gpu_id = g_strdup (headroom_project_get_string (project, "hardware.gpu"));
  self->catalog = headroom_catalog_dup_entries (headroom_catalog_get_default (), self->model_id,
                                                self->gpu_id);
  self->axis = axis;
  self->values = g_memdup2 (values, sizeof *values * n_values);
  self->n_values = n_values;
  self->training = headroom_project_get_workload (project) == HEADROOM_WORKLOAD_TRAINING;
  self->assumed = headroom_project_get_assumed_architecture (project);
  self->text_only = headroom_project_get_text_only (project);
  return self;
}

gboolean
headroom_sweeper_get_text_only (HeadroomSweeper *self)
{
  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), FALSE);
  return self->text_only;
}

const char *
headroom_sweeper_get_assumed_architecture (HeadroomSweeper *self)
{
  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), NULL);
  return self->assumed;
}

HeadroomSweep
headroom_sweeper_get_axis (HeadroomSweeper *self)
{
  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), HEADROOM_SWEEP_MICRO_BATCH);
  return self->axis;
}

gboolean
headroom_sweeper_get_training (HeadroomSweeper *self)
{
  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), FALSE);
  return self->training;
}

gboolean
headroom_sweeper_compute (HeadroomSweeper  *self,
                          GCancellable     *cancellable,
                          GError          **error)
{
  Points *p;

  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  p = compute_points (self->snapshot, self->catalog, self->axis, self->values, self->n_values,
                      cancellable, error);
  if (p == NULL)
    return FALSE;
  points_free (self->points);
  self->points = p;
  return TRUE;
}

void
headroom_sweeper_compute_async (HeadroomSweeper     *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HEADROOM_IS_SWEEPER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, headroom_sweeper_compute_async);
  g_task_set_name (task, "[headroom] sweep");
  g_task_set_task_data (task, headroom_catalog_dup_entries (self->catalog, self->model_id, self->gpu_id),
                        g_object_unref);
  g_task_run_in_thread (task, compute_thread);
}

gboolean
headroom_sweeper_compute_finish (HeadroomSweeper  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  Points *p;

  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  p = g_task_propagate_pointer (G_TASK (result), error);
  if (p == NULL)
    return FALSE;
  points_free (self->points);
  self->points = p;
  return TRUE;
}

guint
headroom_sweeper_get_n_points (HeadroomSweeper *self)
{
  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), 0);
  return self->points != NULL ? self->points->points->len : 0;
}

const HeadroomSweepPoint *
headroom_sweeper_get_point (HeadroomSweeper *self,
                            guint            position)
{
  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), NULL);
  g_return_val_if_fail (position < headroom_sweeper_get_n_points (self), NULL);
  return &g_array_index (self->points->points, HeadroomSweepPoint, position);
}

const char * const *
headroom_sweeper_get_segment_names (HeadroomSweeper *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (HEADROOM_IS_SWEEPER (self), none);
  return self->points != NULL ? (const char * const *) self->points->segment_names : none;
}
