/* headroom-application.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_APPLICATION (headroom_application_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomApplication, headroom_application, HEADROOM, APPLICATION, AdwApplication)

HeadroomApplication *headroom_application_new (const char        *application_id,
                                               GApplicationFlags  flags) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
