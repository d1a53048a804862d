/* headroom-application.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* The GSettings schema is the same for every profile, so a .Devel build shares the settings. */
#define HEADROOM_SETTINGS_SCHEMA_ID "io.github.headroom.Headroom"

#define HEADROOM_TYPE_APPLICATION (headroom_application_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomApplication, headroom_application, HEADROOM, APPLICATION, AdwApplication)

HeadroomApplication *headroom_application_new          (const char          *application_id,
                                                        GApplicationFlags    flags) G_GNUC_WARN_UNUSED_RESULT;
GSettings           *headroom_application_get_settings (HeadroomApplication *self);
gboolean             headroom_application_is_devel     (HeadroomApplication *self);

G_END_DECLS
