/* fuzz-config.c: libFuzzer target for the Hugging Face config importer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Any config.json either fails with one error line, or gives a model whose
 * parameter counts are non-negative and add up, and a project whose estimate
 * is an error or finite, non-negative figures.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "headroom-estimator.h"
#include "headroom-hf-config.h"
#include "headroom-quantity.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(HeadroomEstimator) estimator = headroom_estimator_new (project);

  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  headroom_estimator_recompute_now (estimator);
  return 0;
}

static gboolean
one_line (const GError *error)
{
  if (error == NULL)
    return FALSE;
  for (const char *p = error->message; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(HeadroomEstimator) estimator = NULL;
  g_autoptr(GError) error = NULL;
  HrModel model;
  HrParams params;
  HrError err = { 0 };

  if (!headroom_hf_config_read_bytes (bytes, &model, NULL, NULL, &error))
    {
      /* Every message is one line, control characters escaped (issue 15),
       * json-glib's syntax errors included. */
      if (!one_line (error))
        abort ();
      return 0;
    }
  if (hr_model_params (&model, &params, &err) != HR_OK)
    return 0;
  if (params.total < 0 || params.active < 0 || params.active > params.total
      || params.routed_experts > params.mlp
      || params.embedding + params.position_embedding + params.attention + params.mlp
         + params.router + params.norm + params.lm_head != params.total)
    abort ();

  config = headroom_hf_config_parse_bytes (bytes, &error);
  if (config == NULL)
    abort ();
  project = headroom_project_new_from_config (config, &error);
  if (project == NULL)
    abort ();
  headroom_project_set_string (project, "hardware.gpu", "custom", NULL);
  estimator = headroom_estimator_new (project);
  headroom_estimator_recompute_now (estimator);
  if (headroom_estimator_get_error (estimator) == NULL)
    {
      GListModel *segments = headroom_estimator_get_memory_segments (estimator);

      for (guint i = 0; i < g_list_model_get_n_items (segments); i++)
        {
          g_autoptr(HeadroomQuantity) q = g_list_model_get_item (segments, i);
          double value = headroom_quantity_get_value (q);

          if (!isfinite (value) || value < 0)
            abort ();
        }
    }
  return 0;
}
