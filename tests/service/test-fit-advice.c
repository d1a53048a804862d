/* test-fit-advice.c: what would make a run that does not fit, fit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The default project (Llama-3.1-8B, 8 H100 SXM 80 GB, TP 2, ZeRO-1,
 * sequences of 8,192) fits at micro-batch 1; at 32 sequences its
 * activations alone pass 80 GiB. Every change offered must fit when applied,
 * as the estimator computes it (the same code path as the window's).
 */
#include "config.h"

#include <locale.h>
#include <string.h>

#include "headroom-estimator.h"
#include "headroom-fit-advice.h"

static void
test_fits_already (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GListModel) advice = headroom_fit_advice_search (project);

  g_assert_cmpuint (g_list_model_get_n_items (advice), ==, 0);
}

static void
test_does_not_fit (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  g_autoptr(GListModel) advice = NULL;
  double capacity;
  guint n;

  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 32, NULL));
  headroom_estimator_recompute_now (estimator);
  g_assert_false (headroom_estimator_get_fits (estimator));
  capacity = headroom_estimator_get_memory_capacity (estimator);

  advice = headroom_fit_advice_search (project);
  n = g_list_model_get_n_items (advice);
  g_assert_cmpuint (n, >, 0);
  /* The cheapest first: a smaller micro-batch does (micro-batch 1 fits). */
  {
    g_autoptr(HeadroomFitAdvice) first = g_list_model_get_item (advice, 0);

    g_assert_cmpstr (headroom_fit_advice_get_key (first), ==, "training.micro_batch");
    g_assert_cmpint (g_ascii_strtoll (headroom_fit_advice_get_value (first), NULL, 10), <, 32);
    g_assert_nonnull (strstr (headroom_fit_advice_get_text (first), "Micro-batch"));
  }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomFitAdvice) item = g_list_model_get_item (advice, i);
      g_autoptr(GBytes) bytes = headroom_project_to_bytes (project);
      g_autoptr(HeadroomProject) copy = headroom_project_new_from_bytes (bytes, NULL);
      g_autoptr(HeadroomEstimator) check = headroom_estimator_new (copy);

      g_assert_cmpfloat (headroom_fit_advice_get_memory (item), <=, capacity);
      g_assert_true (headroom_fit_advice_apply (item, copy, NULL));
      headroom_estimator_recompute_now (check);
      g_assert_null (headroom_estimator_get_error (check));
      g_assert_true (headroom_estimator_get_fits (check));
      g_assert_cmpfloat (headroom_estimator_get_memory_bytes (check), ==,
                         headroom_fit_advice_get_memory (item));
    }
  /* The search worked on a copy. */
  g_assert_cmpint (headroom_project_get_int (project, "training.micro_batch"), ==, 32);
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fit-advice/fits-already", test_fits_already);
  g_test_add_func ("/fit-advice/does-not-fit", test_does_not_fit);
  return g_test_run ();
}
