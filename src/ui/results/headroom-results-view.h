/* headroom-results-view.h: the Estimate view: memory, compute, time and cost, what fits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * It listens to the estimator only and redraws on ::updated.
 */
#pragma once

#include <adwaita.h>

#include "headroom-estimator.h"
#include "headroom-memory-bar.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_RESULTS_VIEW (headroom_results_view_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomResultsView, headroom_results_view, HEADROOM, RESULTS_VIEW, AdwBin)

void               headroom_results_view_set_estimator (HeadroomResultsView *self,
                                                        HeadroomEstimator   *estimator);
HeadroomMemoryBar *headroom_results_view_get_memory_bar (HeadroomResultsView *self);
/* The line under "Time and Cost": where the times come from. */
const char        *headroom_results_view_get_time_caption (HeadroomResultsView *self);
HeadroomMemoryBar *headroom_results_view_get_cpu_bar    (HeadroomResultsView *self);

G_END_DECLS
