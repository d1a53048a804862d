/* headroom-fit-advice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-estimator.h"
#include "headroom-fit-advice.h"
#include "headroom-format.h"
#include "headroom-framework.h"

struct _HeadroomFitAdvice
{
  GObject  parent_instance;

  char    *key;
  char    *value;
  char    *from;
  char    *text;    /* made when first asked for */
  double   memory;
};

G_DEFINE_FINAL_TYPE (HeadroomFitAdvice, headroom_fit_advice, G_TYPE_OBJECT)

static void
headroom_fit_advice_finalize (GObject *object)
{
  HeadroomFitAdvice *self = HEADROOM_FIT_ADVICE (object);

  g_free (self->key);
  g_free (self->value);
  g_free (self->from);
  g_free (self->text);

  G_OBJECT_CLASS (headroom_fit_advice_parent_class)->finalize (object);
}

static void
headroom_fit_advice_class_init (HeadroomFitAdviceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = headroom_fit_advice_finalize;
}

static void
headroom_fit_advice_init (HeadroomFitAdvice *self)
{
}

/* A change found by the search: plain data, so that a worker thread can
 * make it; the HeadroomFitAdvice objects are made from it afterwards. */
typedef struct
{
  char   *key;
  char   *value;
  char   *from;
  double  memory;
} Change;

static void
change_clear (Change *change)
{
  g_free (change->key);
  g_free (change->value);
  g_free (change->from);
}

/* What the search reads, taken on the calling thread and owned by the
 * search alone: the project's bytes, and copies of its model and GPU
 * entries (the default catalog is not thread-safe). */
typedef struct
{
  GBytes          *bytes;
  HeadroomCatalog *catalog;
} Snapshot;

static void
snapshot_free (Snapshot *snapshot)
{
  g_bytes_unref (snapshot->bytes);
  g_object_unref (snapshot->catalog);
  g_free (snapshot);
}

static Snapshot *
snapshot_new (HeadroomProject *project)
{
  Snapshot *snapshot = g_new0 (Snapshot, 1);

  snapshot->bytes = headroom_project_to_bytes (project);
  snapshot->catalog = headroom_catalog_dup_entries (headroom_catalog_get_default (),
                                                    headroom_project_get_preset (project),
                                                    headroom_project_get_string (project, "hardware.gpu"));
  return snapshot;
}

/* Sets `key` to `value` on the copy and says whether the estimate fits;
 * the copy is put back afterwards. Once `cancellable` is cancelled nothing
 * fits, so that the search ends at once. */
static gboolean
fits_with (HeadroomProject   *copy,
           HeadroomEstimator *estimator,
           GCancellable      *cancellable,
           const char        *key,
           const char        *value,
           double            *memory)
{
  g_autofree char *before = NULL;
  gboolean fits;

  if (g_cancellable_is_cancelled (cancellable))
    return FALSE;
  before = headroom_project_dup_value_string (copy, key);
  if (!headroom_project_set_from_string (copy, key, value, NULL))
    return FALSE;
  headroom_estimator_recompute_now (estimator);
  fits = headroom_estimator_get_error (estimator) == NULL && headroom_estimator_get_fits (estimator);
  *memory = headroom_estimator_get_memory_on_gpu (estimator);
  if (before != NULL)
    headroom_project_set_from_string (copy, key, before, NULL);
  else
    headroom_project_unset (copy, key);
  return fits;
}

/* A value as the window shows it: a choice by its label, a switch on or off. */
static const char *
value_text (const HeadroomKeyInfo *info,
            const char            *value)
{
  if (info->type == HEADROOM_KEY_CHOICE)
    return _(headroom_key_info_get_choice_label (info, value));
  if (info->type == HEADROOM_KEY_BOOLEAN)
    return g_str_equal (value, "true") ? _("on") : _("off");
  return value;
}

static void
add (GArray     *changes,
     const char *key,
     const char *value,
     const char *from,
     double      memory)
{
  Change change = {
    .key = g_strdup (key),
    .value = g_strdup (value),
    .from = g_strdup (from),
    .memory = memory,
  };

  g_array_append_val (changes, change);
}

/* The whole search, on a training project parsed from `snapshot`; touches
 * nothing else, so that it can run in any thread (the caller keeps the
 * estimator's idle source off another thread's main loop: see
 * search_thread). NULL when cancelled. */
static GArray *
search_changes (Snapshot      *snapshot,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (Change));
  g_autoptr(HeadroomProject) copy = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  /* By the memory they save: Megatron's selective, op-level SAC, full. */
  static const struct
  {
    const char *name;
    HrRecompute mode;
  } recompute[] = {
    { "selective", HR_RECOMPUTE_SELECTIVE },
    { "op-selective", HR_RECOMPUTE_OP_SELECTIVE },
    { "full", HR_RECOMPUTE_FULL },
  };
  static const char *const held_switches[] = {
    "training.loop_keeps_loss", "training.quant_saves_input",
  };
  const char *framework;
  unsigned recompute_modes;
  guint skip = 0;
  HrPlanSharding sharding;
  gint64 most_zero;
  double memory;
  gint64 micro_batch, zero, tp, gpus_per_node, nodes;
  g_autofree char *recompute_now = NULL;

  g_array_set_clear_func (changes, (GDestroyNotify) change_clear);
  copy = headroom_project_new_from_bytes_with_catalog (snapshot->bytes, snapshot->catalog, NULL);
  if (copy == NULL)
    return g_steal_pointer (&changes);
  estimator = headroom_estimator_new (copy);
  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error (estimator) != NULL || headroom_estimator_get_fits (estimator))
    return g_steal_pointer (&changes);

  /* A smaller micro-batch: the largest that fits, halving. */
  micro_batch = headroom_project_get_int (copy, "training.micro_batch");
  for (gint64 mb = micro_batch / 2; mb >= 1; mb /= 2)
    {
      g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, mb);
      g_autofree char *from = g_strdup_printf ("%" G_GINT64_FORMAT, micro_batch);

      if (fits_with (copy, estimator, cancellable, "training.micro_batch", value, &memory))
        {
          add (changes, "training.micro_batch", value, from, memory);
          break;
        }
    }

  /* Inputs that quantised layers keep on their autograd contexts
   * (docs/training.md, "Inputs kept on autograd contexts"): a loop that
   * lets the loss go before the next forward (`del loss`), then
   * bitsandbytes 0.43.2 or later, which no longer keeps them. */
  for (guint i = 0; i < G_N_ELEMENTS (held_switches); i++)
    if (headroom_project_get_boolean (copy, held_switches[i])
        && fits_with (copy, estimator, cancellable, held_switches[i], "false", &memory))
      add (changes, held_switches[i], "false", "true", memory);

  /* Recomputation the framework runs, saving more than the project's. */
  framework = headroom_project_get_string (copy, "training.framework");
  recompute_modes = headroom_framework_recompute_modes (framework);
  recompute_now = headroom_project_dup_value_string (copy, "training.recompute");
  for (guint i = 0; i < G_N_ELEMENTS (recompute); i++)
    if (g_strcmp0 (recompute_now, recompute[i].name) == 0)
      skip = i + 1;
  for (guint i = 0; i < G_N_ELEMENTS (recompute); i++)
    {
      if (i < skip || (recompute_modes & (1u << recompute[i].mode)) == 0)
        continue;
      if (fits_with (copy, estimator, cancellable, "training.recompute", recompute[i].name,
                     &memory))
        {
          add (changes, "training.recompute", recompute[i].name,
               recompute_now ? recompute_now : "none", memory);
          break;
        }
    }

  /* Sharding as the framework shards: FSDP where it has FSDP, else a higher
   * ZeRO stage (Rajbhandari et al. 2020: 2 shards gradients, 3 weights
   * too; Megatron's distributed optimizer is stage 1). */
  sharding = headroom_framework_sharding (framework);
  if (sharding == HR_PLAN_SHARDING_FSDP || sharding == HR_PLAN_SHARDING_FSDP_SHARDED)
    most_zero = 0;
  else
    most_zero = sharding == HR_PLAN_SHARDING_ZERO1 ? 1 : 3;
  if (most_zero == 0 && g_strcmp0 (headroom_project_get_string (copy, "training.fsdp"), "none") == 0
      && fits_with (copy, estimator, cancellable, "training.fsdp", "full", &memory))
    add (changes, "training.fsdp", "full", "none", memory);
  zero = headroom_project_get_int (copy, "training.zero_stage");
  for (gint64 z = zero + 1; z <= most_zero; z++)
    {
      g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, z);
      g_autofree char *from = g_strdup_printf ("%" G_GINT64_FORMAT, zero);

      if (fits_with (copy, estimator, cancellable, "training.zero_stage", value, &memory))
        {
          add (changes, "training.zero_stage", value, from, memory);
          break;
        }
    }

  /* Tensor parallelism within a node. */
  tp = headroom_project_get_int (copy, "training.tensor_parallel");
  gpus_per_node = headroom_project_get_int (copy, "hardware.gpus_per_node");
  for (gint64 t = tp * 2; t <= gpus_per_node; t *= 2)
    {
      g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, t);
      g_autofree char *from = g_strdup_printf ("%" G_GINT64_FORMAT, tp);

      if (fits_with (copy, estimator, cancellable, "training.tensor_parallel", value, &memory))
        {
          add (changes, "training.tensor_parallel", value, from, memory);
          break;
        }
    }

  /* More nodes: sharded states (ZeRO, FSDP) shrink with the data-parallel size. */
  nodes = headroom_project_get_int (copy, "hardware.nodes");
  for (gint64 n = nodes * 2; n <= nodes * 64; n *= 2)
    {
      g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, n);
      g_autofree char *from = g_strdup_printf ("%" G_GINT64_FORMAT, nodes);

      if (fits_with (copy, estimator, cancellable, "hardware.nodes", value, &memory))
        {
          add (changes, "hardware.nodes", value, from, memory);
          break;
        }
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  return g_steal_pointer (&changes);
}

/* The GListModel of HeadroomFitAdvice, on the thread that reads it. */
static GListModel *
store_new (GArray *changes)
{
  GListStore *store = g_list_store_new (HEADROOM_TYPE_FIT_ADVICE);

  for (guint i = 0; changes != NULL && i < changes->len; i++)
    {
      Change *change = &g_array_index (changes, Change, i);
      HeadroomFitAdvice *advice = g_object_new (HEADROOM_TYPE_FIT_ADVICE, NULL);

      advice->key = g_steal_pointer (&change->key);
      advice->value = g_steal_pointer (&change->value);
      advice->from = g_steal_pointer (&change->from);
      advice->memory = change->memory;
      g_list_store_append (store, advice);
      g_object_unref (advice);
    }
  return G_LIST_MODEL (store);
}

GListModel *
headroom_fit_advice_search (HeadroomProject *project)
{
  Snapshot *snapshot;
  g_autoptr(GArray) changes = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), store_new (NULL));

  if (headroom_project_get_workload (project) != HEADROOM_WORKLOAD_TRAINING)
    return store_new (NULL);
  snapshot = snapshot_new (project);
  changes = search_changes (snapshot, NULL, NULL);
  snapshot_free (snapshot);
  return store_new (changes);
}

static void
search_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  GError *error = NULL;
  GArray *changes;

  /* The estimator queues its recomputation on the thread-default context:
   * this one, which nothing iterates; recompute_now() cancels it. */
  g_main_context_push_thread_default (context);
  changes = search_changes (task_data, cancellable, &error);
  g_main_context_pop_thread_default (context);
  if (changes == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, changes, (GDestroyNotify) g_array_unref);
}

void
headroom_fit_advice_search_async (HeadroomProject     *project,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HEADROOM_IS_PROJECT (project));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, headroom_fit_advice_search_async);
  g_task_set_name (task, "[headroom] fit advice");
  if (headroom_project_get_workload (project) != HEADROOM_WORKLOAD_TRAINING)
    {
      g_task_return_pointer (task, g_array_new (FALSE, FALSE, sizeof (Change)),
                             (GDestroyNotify) g_array_unref);
      return;
    }
  g_task_set_task_data (task, snapshot_new (project), (GDestroyNotify) snapshot_free);
  g_task_run_in_thread (task, search_thread);
}

GListModel *
headroom_fit_advice_search_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_autoptr(GArray) changes = NULL;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == headroom_fit_advice_search_async, NULL);

  changes = g_task_propagate_pointer (G_TASK (result), error);
  if (changes == NULL)
    return NULL;
  return store_new (changes);
}

const char *
headroom_fit_advice_get_key (HeadroomFitAdvice *self)
{
  g_return_val_if_fail (HEADROOM_IS_FIT_ADVICE (self), NULL);
  return self->key;
}

const char *
headroom_fit_advice_get_value (HeadroomFitAdvice *self)
{
  g_return_val_if_fail (HEADROOM_IS_FIT_ADVICE (self), NULL);
  return self->value;
}

const char *
headroom_fit_advice_get_remedies (void)
{
  /* The changes search_changes() tries, in its order. */
  return _("a smaller micro-batch, recomputation, sharding, tensor parallelism or more GPUs");
}

char *
headroom_fit_advice_dup_text_with (HeadroomFitAdvice *self,
                                   const char        *memory_text)
{
  const HeadroomKeyInfo *info;

  g_return_val_if_fail (HEADROOM_IS_FIT_ADVICE (self), NULL);
  info = headroom_project_find_key (self->key);
  /* TRANSLATORS: a change that makes the run fit, e.g. "Micro-batch: 2 (now 8), 71.2 GiB per GPU" */
  return g_strdup_printf (_("%s: %s (now %s), %s per GPU"), _(info->label),
                          value_text (info, self->value), value_text (info, self->from), memory_text);
}

const char *
headroom_fit_advice_get_text (HeadroomFitAdvice *self)
{
  g_return_val_if_fail (HEADROOM_IS_FIT_ADVICE (self), NULL);
  if (self->text == NULL)
    {
      g_autofree char *gib = headroom_format_gib (self->memory);

      self->text = headroom_fit_advice_dup_text_with (self, gib);
    }
  return self->text;
}

double
headroom_fit_advice_get_memory (HeadroomFitAdvice *self)
{
  g_return_val_if_fail (HEADROOM_IS_FIT_ADVICE (self), 0);
  return self->memory;
}

gboolean
headroom_fit_advice_apply (HeadroomFitAdvice  *self,
                           HeadroomProject    *project,
                           GError            **error)
{
  g_return_val_if_fail (HEADROOM_IS_FIT_ADVICE (self), FALSE);
  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), FALSE);

  return headroom_project_set_from_string (project, self->key, self->value, error);
}
