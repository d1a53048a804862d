/* headroom-workload-page.h: the workload settings page of the sidebar
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "headroom-estimator.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_WORKLOAD_PAGE (headroom_workload_page_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomWorkloadPage, headroom_workload_page, HEADROOM, WORKLOAD_PAGE, AdwPreferencesPage)

/* The page edits the estimator's project and follows it when it is replaced. */
void       headroom_workload_page_set_estimator (HeadroomWorkloadPage  *self,
                                          HeadroomEstimator *estimator);
/* The row editing `key`, or NULL. */
GtkWidget *headroom_workload_page_get_row       (HeadroomWorkloadPage  *self,
                                          const char        *key);

G_END_DECLS
