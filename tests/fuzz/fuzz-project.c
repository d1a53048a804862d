/* fuzz-project.c: libFuzzer target for the project loader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Any input either fails to load with one error line, or loads; a loaded
 * project must save to bytes that load again and save identically, and its
 * estimate must be an error or finite, non-negative figures.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "headroom-catalog.h"
#include "headroom-estimator.h"
#include "headroom-quantity.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);

  /* A critical is a broken precondition: a bug to report. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  /* Load the catalog and register the types once, outside the measured runs. */
  headroom_estimator_recompute_now (estimator);
  return 0;
}

static void
check_estimate (HeadroomProject *project)
{
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);
  GListModel *segments;

  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error (estimator) != NULL)
    {
      if (strchr (headroom_estimator_get_error (estimator), '\n') != NULL)
        abort ();
      return;
    }
  segments = headroom_estimator_get_memory_segments (estimator);
  for (guint i = 0; i < g_list_model_get_n_items (segments); i++)
    {
      g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);
      double value = headroom_quantity_get_value (q);

      if (!isfinite (value) || value < 0)
        abort ();
    }
  if (!isfinite (headroom_estimator_get_step_seconds (estimator))
      || headroom_estimator_get_step_seconds (estimator) < 0)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GBytes) saved = NULL;
  g_autoptr(GBytes) resaved = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(HeadroomProject) reloaded = NULL;
  g_autoptr(GError) error = NULL;

  project = headroom_project_new_from_bytes (bytes, &error);
  if (project == NULL)
    {
      /* One line, control characters escaped (issue 15). */
      if (error == NULL)
        abort ();
      for (const char *p = error->message; *p != '\0'; p++)
        if ((guchar) *p < 0x20 || *p == 0x7f)
          abort ();
      return 0;
    }

  saved = headroom_project_to_bytes (project);
  reloaded = headroom_project_new_from_bytes (saved, &error);
  if (reloaded == NULL)
    {
      g_printerr ("saved project does not load: %s\n%.*s\n", error->message,
                  (int) g_bytes_get_size (saved), (const char *) g_bytes_get_data (saved, NULL));
      abort ();
    }
  resaved = headroom_project_to_bytes (reloaded);
  if (!g_bytes_equal (saved, resaved))
    abort ();

  check_estimate (project);
  return 0;
}
