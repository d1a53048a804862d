/* headroom-hardware-page.h: the hardware settings page of the sidebar
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "headroom-estimator.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_HARDWARE_PAGE (headroom_hardware_page_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomHardwarePage, headroom_hardware_page, HEADROOM, HARDWARE_PAGE, AdwPreferencesPage)

/* The page edits the estimator's project and follows it when it is replaced. */
void       headroom_hardware_page_set_estimator (HeadroomHardwarePage  *self,
                                          HeadroomEstimator *estimator);
/* The row editing `key`, or NULL. */
GtkWidget *headroom_hardware_page_get_row       (HeadroomHardwarePage  *self,
                                          const char        *key);

G_END_DECLS
