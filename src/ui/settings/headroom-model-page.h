/* headroom-model-page.h: the model settings page of the sidebar
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "headroom-estimator.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_MODEL_PAGE (headroom_model_page_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomModelPage, headroom_model_page, HEADROOM, MODEL_PAGE, AdwPreferencesPage)

/* The page edits the estimator's project and follows it when it is replaced. */
void       headroom_model_page_set_estimator (HeadroomModelPage  *self,
                                          HeadroomEstimator *estimator);
/* The row editing `key`, or NULL. */
GtkWidget *headroom_model_page_get_row       (HeadroomModelPage  *self,
                                          const char        *key);

G_END_DECLS
