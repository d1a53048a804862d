/* headroom-hub-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The token is kept in the user's keyring by the service (libsecret),
 * never in a file or GSettings; without a keyring it is used for this
 * import only.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-hub.h"
#include "headroom-hub-dialog.h"

struct _HeadroomHubDialog
{
  AdwMessageDialog  parent_instance;

  GtkEntry         *model_id;
  GtkPasswordEntry *token;
  char             *endpoint;
};

G_DEFINE_FINAL_TYPE (HeadroomHubDialog, headroom_hub_dialog, ADW_TYPE_MESSAGE_DIALOG)

static void
headroom_hub_dialog_finalize (GObject *object)
{
  g_free (HEADROOM_HUB_DIALOG (object)->endpoint);

  G_OBJECT_CLASS (headroom_hub_dialog_parent_class)->finalize (object);
}

static void
headroom_hub_dialog_class_init (HeadroomHubDialogClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = headroom_hub_dialog_finalize;
}

static void
headroom_hub_dialog_init (HeadroomHubDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  g_autoptr(HeadroomHub) hub = headroom_hub_new ();
  g_autofree char *kept = NULL;

  self->endpoint = g_strdup (headroom_hub_get_endpoint (hub));
  self->model_id = GTK_ENTRY (gtk_entry_new ());
  gtk_entry_set_placeholder_text (self->model_id, "meta-llama/Llama-3.1-8B");
  gtk_entry_set_activates_default (self->model_id, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->model_id),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Model id"), -1);
  self->token = GTK_PASSWORD_ENTRY (gtk_password_entry_new ());
  gtk_password_entry_set_show_peek_icon (self->token, TRUE);
  g_object_set (self->token, "placeholder-text", _("Access token, for gated models"),
                "activates-default", TRUE, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->token),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Access token"), -1);
  /* The keyring's token for this endpoint, if one is kept (no error without a keyring). */
  kept = headroom_hub_lookup_token (self->endpoint, NULL, NULL);
  if (kept != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->token), kept);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->model_id));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->token));
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (self), box);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (self),
                                    "cancel", _("_Cancel"), "import", _("_Import"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (self), "import",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (self), "import");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (self), "cancel");
}

HeadroomHubDialog *
headroom_hub_dialog_new (GtkWindow *parent)
{
  return g_object_new (HEADROOM_TYPE_HUB_DIALOG,
                       "transient-for", parent,
                       "heading", _("Import Hugging Face Model"),
                       "body", _("Reads the model’s config.json from the Hub. Gated models need "
                                 "an access token; it is kept in your keyring."),
                       NULL);
}

const char *
headroom_hub_dialog_get_model_id (HeadroomHubDialog *self)
{
  g_return_val_if_fail (HEADROOM_IS_HUB_DIALOG (self), NULL);

  return gtk_editable_get_text (GTK_EDITABLE (self->model_id));
}

const char *
headroom_hub_dialog_get_token (HeadroomHubDialog *self)
{
  const char *token;

  g_return_val_if_fail (HEADROOM_IS_HUB_DIALOG (self), NULL);

  token = gtk_editable_get_text (GTK_EDITABLE (self->token));
  return token != NULL && *token != '\0' ? token : NULL;
}

gboolean
headroom_hub_dialog_remember_token (HeadroomHubDialog  *self,
                                    GError            **error)
{
  g_return_val_if_fail (HEADROOM_IS_HUB_DIALOG (self), FALSE);

  return headroom_hub_store_token (self->endpoint, headroom_hub_dialog_get_token (self), NULL, error);
}
