/* headroom-switch-row.h: a preferences row holding a boolean (AdwSwitchRow is libadwaita 1.4)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_SWITCH_ROW (headroom_switch_row_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomSwitchRow, headroom_switch_row, HEADROOM, SWITCH_ROW, AdwActionRow)

GtkWidget  *headroom_switch_row_new        (const char        *title,
                                            const char        *key);

/* The project key the row edits, e.g. "model.tie_word_embeddings". */
const char *headroom_switch_row_get_key    (HeadroomSwitchRow *self);
gboolean    headroom_switch_row_get_active (HeadroomSwitchRow *self);
void        headroom_switch_row_set_active (HeadroomSwitchRow *self,
                                            gboolean           active);

G_END_DECLS
