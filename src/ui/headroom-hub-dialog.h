/* headroom-hub-dialog.h: asks for a Hugging Face model id and, for gated models, a token
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_HUB_DIALOG (headroom_hub_dialog_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomHubDialog, headroom_hub_dialog, HEADROOM, HUB_DIALOG, AdwMessageDialog)

/* Responses "cancel" and "import". The token field starts with the token
 * kept in the keyring for the endpoint, if any. */
HeadroomHubDialog *headroom_hub_dialog_new          (GtkWindow         *parent);
const char        *headroom_hub_dialog_get_model_id (HeadroomHubDialog *self);
/* The token typed (NULL when empty). */
const char        *headroom_hub_dialog_get_token    (HeadroomHubDialog *self);
/* Keeps the token typed in the keyring (or forgets it when the field is
 * empty); FALSE with `error` when there is no keyring. */
gboolean           headroom_hub_dialog_remember_token (HeadroomHubDialog *self,
                                                       GError           **error);

G_END_DECLS
