/* headroom-fit-advice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-estimator.h"
#include "headroom-fit-advice.h"
#include "headroom-format.h"

struct _HeadroomFitAdvice
{
  GObject  parent_instance;

  char    *key;
  char    *value;
  char    *text;
  double   memory;
};

G_DEFINE_FINAL_TYPE (HeadroomFitAdvice, headroom_fit_advice, G_TYPE_OBJECT)

static void
headroom_fit_advice_finalize (GObject *object)
{
  HeadroomFitAdvice *self = HEADROOM_FIT_ADVICE (object);

  g_free (self->key);
  g_free (self->value);
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

/* Sets `key` to `value` on the copy and says whether the estimate fits;
 * the copy is put back afterwards. */
static gboolean
fits_with (HeadroomProject   *copy,
           HeadroomEstimator *estimator,
           const char        *key,
           const char        *value,
           double            *memory)
{
  g_autofree char *before = headroom_project_dup_value_string (copy, key);
  gboolean fits;

  if (!headroom_project_set_from_string (copy, key, value, NULL))
    return FALSE;
  headroom_estimator_recompute_now (estimator);
  fits = headroom_estimator_get_error (estimator) == NULL && headroom_estimator_get_fits (estimator);
  *memory = headroom_estimator_get_memory_bytes (estimator);
  if (before != NULL)
    headroom_project_set_from_string (copy, key, before, NULL);
  else
    headroom_project_unset (copy, key);
  return fits;
}

static void
add (GListStore *store,
     const char *key,
     const char *value,
     const char *from,
     double      memory)
{
  HeadroomFitAdvice *advice = g_object_new (HEADROOM_TYPE_FIT_ADVICE, NULL);
  const HeadroomKeyInfo *info = headroom_project_find_key (key);
  g_autofree char *gib = headroom_format_gib (memory);

  advice->key = g_strdup (key);
  advice->value = g_strdup (value);
  advice->memory = memory;
  /* TRANSLATORS: a change that makes the run fit, e.g. "Micro-batch 2 (now 8): 71.2 GiB per GPU" */
  advice->text = g_strdup_printf (_("%s %s (now %s): %s per GPU"), _(info->label), value, from, gib);
  g_list_store_append (store, advice);
  g_object_unref (advice);
}

GListModel *
headroom_fit_advice_search (HeadroomProject *project)
{
  GListStore *store = g_list_store_new (HEADROOM_TYPE_FIT_ADVICE);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(HeadroomProject) copy = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  static const char * const recompute[] = { "selective", "full" };
  double memory;
  gint64 micro_batch, zero, tp, gpus_per_node, nodes;
  g_autofree char *recompute_now = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), G_LIST_MODEL (store));

  if (headroom_project_get_workload (project) != HEADROOM_WORKLOAD_TRAINING)
    return G_LIST_MODEL (store);
  bytes = headroom_project_to_bytes (project);
  copy = headroom_project_new_from_bytes (bytes, NULL);
  if (copy == NULL)
    return G_LIST_MODEL (store);
  estimator = headroom_estimator_new (copy);
  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error (estimator) != NULL || headroom_estimator_get_fits (estimator))
    return G_LIST_MODEL (store);

  /* A smaller micro-batch: the largest that fits, halving. */
  micro_batch = headroom_project_get_int (copy, "training.micro_batch");
  for (gint64 mb = micro_batch / 2; mb >= 1; mb /= 2)
    {
      g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, mb);
      g_autofree char *from = g_strdup_printf ("%" G_GINT64_FORMAT, micro_batch);

      if (fits_with (copy, estimator, "training.micro_batch", value, &memory))
        {
          add (store, "training.micro_batch", value, from, memory);
          break;
        }
    }

  /* Recomputation, selective before full. */
  recompute_now = headroom_project_dup_value_string (copy, "training.recompute");
  for (guint i = 0; i < G_N_ELEMENTS (recompute); i++)
    {
      if (g_strcmp0 (recompute_now, recompute[i]) == 0
          || (i == 0 && g_strcmp0 (recompute_now, "full") == 0))
        continue;
      if (fits_with (copy, estimator, "training.recompute", recompute[i], &memory))
        {
          add (store, "training.recompute", recompute[i], recompute_now ? recompute_now : "none", memory);
          break;
        }
    }

  /* A higher ZeRO stage (Rajbhandari et al. 2020): 2 shards gradients, 3 weights too. */
  zero = headroom_project_get_int (copy, "training.zero_stage");
  for (gint64 z = zero + 1; z <= 3; z++)
    {
      g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, z);
      g_autofree char *from = g_strdup_printf ("%" G_GINT64_FORMAT, zero);

      if (fits_with (copy, estimator, "training.zero_stage", value, &memory))
        {
          add (store, "training.zero_stage", value, from, memory);
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

      if (fits_with (copy, estimator, "training.tensor_parallel", value, &memory))
        {
          add (store, "training.tensor_parallel", value, from, memory);
          break;
        }
    }

  /* More nodes: sharded states (ZeRO, FSDP) shrink with the data-parallel size. */
  nodes = headroom_project_get_int (copy, "hardware.nodes");
  for (gint64 n = nodes * 2; n <= nodes * 64; n *= 2)
    {
      g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, n);
      g_autofree char *from = g_strdup_printf ("%" G_GINT64_FORMAT, nodes);

      if (fits_with (copy, estimator, "hardware.nodes", value, &memory))
        {
          add (store, "hardware.nodes", value, from, memory);
          break;
        }
    }
  return G_LIST_MODEL (store);
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
headroom_fit_advice_get_text (HeadroomFitAdvice *self)
{
  g_return_val_if_fail (HEADROOM_IS_FIT_ADVICE (self), NULL);
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
