/* headroom-catalog-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Saving the custom GPU or the current model to the user's catalog: the
 * name dialog and what saving does.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-catalog.h"
#include "headroom-catalog-dialog.h"

struct _HeadroomCatalogDialog
{
  AdwMessageDialog      parent_instance;

  HeadroomCatalogEntry  kind;
  GtkEntry             *entry;
};

G_DEFINE_FINAL_TYPE (HeadroomCatalogDialog, headroom_catalog_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* Lower-case ASCII letters and digits, every other run of characters one
 * dash: "My GPU (2)" → "my-gpu-2"; NULL when nothing is left. */
static char *
catalog_id_from_name (const char *name)
{
  GString *id = g_string_new (NULL);

  for (const char *c = name; *c != '\0'; c++)
    {
      if (g_ascii_isalnum (*c))
        g_string_append_c (id, g_ascii_tolower (*c));
      else if (id->len > 0 && id->str[id->len - 1] != '-')
        g_string_append_c (id, '-');
    }
  if (id->len > 0 && id->str[id->len - 1] == '-')
    g_string_truncate (id, id->len - 1);

  if (id->len == 0)
    {
      g_string_free (id, TRUE);
      return NULL;
    }
  return g_string_free (id, FALSE);
}

static char *
catalog_id_checked (const char  *name,
                    GError     **error)
{
  char *id = catalog_id_from_name (name);

  if (id == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("The name needs at least one letter or digit"));
  return id;
}

gboolean
headroom_catalog_dialog_save_gpu (HeadroomProject *project,
                                 const char      *name,
                                 GError         **error)
{
  g_autofree char *id = NULL;
  g_autofree char *title = g_strstrip (g_strdup (name));
  HrGpu gpu;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (g_strcmp0 (headroom_project_get_string (project, "hardware.gpu"), "custom") != 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Turn on Custom GPU to save its figures"));
      return FALSE;
    }
  id = catalog_id_checked (name, error);
  /* The figures the estimate uses, inter-node overrides included. */
  if (id == NULL
      || !headroom_project_get_gpu (project, &gpu, error)
      || !headroom_catalog_add_user_gpu (headroom_catalog_get_default (), id, title,
                                         NULL, NULL, &gpu, error))
    return FALSE;

  return headroom_project_set_string (project, "hardware.gpu", id, error);
}

gboolean
headroom_catalog_dialog_save_model (HeadroomProject *project,
                                   const char      *name,
                                   GError         **error)
{
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(JsonObject) empty = json_object_new ();
  g_autofree char *id = NULL;
  g_autofree char *title = g_strstrip (g_strdup (name));

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  id = catalog_id_checked (name, error);
  if (id == NULL)
    return FALSE;
  config = headroom_project_dup_effective_config (project);
  if (!headroom_catalog_add_user_model (headroom_catalog_get_default (), id, title,
                                        NULL, NULL, config, error))
    return FALSE;

  /* The new preset holds the edits: the project now names it alone. */
  headroom_project_set_config (project, empty);
  return headroom_project_set_string (project, "model.preset", id, error);
}

/* Says where the entry goes, or why it cannot, as the name is typed. */
static void
on_catalog_name_changed (GtkEditable           *entry,
                         HeadroomCatalogDialog *self)
{
  HeadroomCatalogEntry kind = self->kind;
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (self);
  HeadroomCatalog *catalog = headroom_catalog_get_default ();
  g_autofree char *id = catalog_id_from_name (gtk_editable_get_text (entry));
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), "headroom",
                                            kind == HEADROOM_CATALOG_ENTRY_GPU ? "gpus.json" : "models.json",
                                            NULL);
  gboolean builtin = FALSE, replaces = FALSE;

  if (id != NULL && kind == HEADROOM_CATALOG_ENTRY_GPU)
    {
      HeadroomGpuInfo *gpu = headroom_catalog_find_gpu (catalog, id);

      builtin = gpu != NULL && !headroom_gpu_info_get_user_defined (gpu);
      replaces = gpu != NULL && !builtin;
    }
  else if (id != NULL)
    {
      HeadroomModelPreset *preset = headroom_catalog_find_model (catalog, id);

      builtin = preset != NULL && !headroom_model_preset_get_user_defined (preset);
      replaces = preset != NULL && !builtin;
    }

  if (id == NULL)
    adw_message_dialog_format_body (dialog, _("Saved in %s"), path);
  else if (builtin)
    adw_message_dialog_format_body (dialog, kind == HEADROOM_CATALOG_ENTRY_GPU
                                    ? _("A built-in GPU has the id “%s”: choose another name.")
                                    : _("A built-in model has the id “%s”: choose another name."),
                                    id);
  else if (replaces)
    adw_message_dialog_format_body (dialog, _("Replaces your entry “%s” in %s"), id, path);
  else
    adw_message_dialog_format_body (dialog, _("Saved as “%s” in %s"), id, path);

  if (builtin)
    gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
  adw_message_dialog_set_response_enabled (dialog, "save", id != NULL && !builtin);
}

static void
headroom_catalog_dialog_class_init (HeadroomCatalogDialogClass *klass)
{
}

static void
headroom_catalog_dialog_init (HeadroomCatalogDialog *self)
{
  self->entry = GTK_ENTRY (gtk_entry_new ());
  gtk_entry_set_placeholder_text (self->entry, _("Name"));
  gtk_entry_set_activates_default (self->entry, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Name"), -1);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (self), GTK_WIDGET (self->entry));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (self), "cancel", _("_Cancel"), "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (self), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (self), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (self), "cancel");
  g_signal_connect_object (self->entry, "changed", G_CALLBACK (on_catalog_name_changed), self, 0);
}

HeadroomCatalogDialog *
headroom_catalog_dialog_new (GtkWindow            *parent,
                             HeadroomCatalogEntry  kind)
{
  HeadroomCatalogDialog *self = g_object_new (HEADROOM_TYPE_CATALOG_DIALOG,
                                              "transient-for", parent,
                                              "heading", kind == HEADROOM_CATALOG_ENTRY_GPU
                                                         ? _("Save GPU to Catalog")
                                                         : _("Save Model as Preset"),
                                              NULL);

  self->kind = kind;
  on_catalog_name_changed (GTK_EDITABLE (self->entry), self);
  return self;
}

HeadroomCatalogEntry
headroom_catalog_dialog_get_kind (HeadroomCatalogDialog *self)
{
  g_return_val_if_fail (HEADROOM_IS_CATALOG_DIALOG (self), HEADROOM_CATALOG_ENTRY_GPU);

  return self->kind;
}

const char *
headroom_catalog_dialog_get_name (HeadroomCatalogDialog *self)
{
  g_return_val_if_fail (HEADROOM_IS_CATALOG_DIALOG (self), NULL);

  return gtk_editable_get_text (GTK_EDITABLE (self->entry));
}
