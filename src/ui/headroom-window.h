/* headroom-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "headroom-application.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_WINDOW (headroom_window_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomWindow, headroom_window, HEADROOM, WINDOW, AdwApplicationWindow)

HeadroomWindow *headroom_window_new (HeadroomApplication *application) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
