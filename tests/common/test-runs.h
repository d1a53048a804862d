/* test-runs.h: what the tests of measured runs share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "headroom-estimator.h"

/* Sets `key` as its command-line option would, or stops the test. */
static inline void
set (HeadroomProject *project,
     const char      *key,
     const char      *value)
{
  g_autoptr(GError) error = NULL;

  if (!headroom_project_set_from_string (project, key, value, &error))
    g_error ("%s = %s: %s", key, value, error->message);
}

static inline void
set_int (HeadroomProject *project,
         const char      *key,
         gint64           value)
{
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, value);

  set (project, key, text);
}

/* headroom_dup_prediction_band() tells users what published runs of the
 * project's kind reached of the predicted throughput: every checked row is
 * held to it, so that the sentence changes when the model moves a row out. */
static inline void
assert_within_stated_band (HeadroomProject *project,
                           const char      *id,
                           double           predicted,
                           double           measured)
{
  double reached = measured / predicted, low, high;

  headroom_prediction_band (project, &low, &high);
  if (reached < low || reached > high)
    g_error ("%s reached %.3f of the prediction, outside the %.2f–%.2f the window states "
             "(headroom_prediction_band)", id, reached, low, high);
}
