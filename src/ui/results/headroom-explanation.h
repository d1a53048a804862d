/* headroom-explanation.h: the "show why" popover of a figure
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void headroom_explanation_popup (GtkWidget  *anchor,
                                 const char *text);

G_END_DECLS
