/* headroom-catalog-dialog.h: names a custom GPU or a model to keep in the user's catalog
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "headroom-project.h"

G_BEGIN_DECLS

typedef enum
{
  HEADROOM_CATALOG_ENTRY_GPU,
  HEADROOM_CATALOG_ENTRY_MODEL,
} HeadroomCatalogEntry;

#define HEADROOM_TYPE_CATALOG_DIALOG (headroom_catalog_dialog_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomCatalogDialog, headroom_catalog_dialog, HEADROOM, CATALOG_DIALOG, AdwMessageDialog)

/* Responses "cancel" and "save"; the body says where the entry goes, or
 * why it cannot, as the name is typed. */
HeadroomCatalogDialog *headroom_catalog_dialog_new      (GtkWindow             *parent,
                                                         HeadroomCatalogEntry   kind);
HeadroomCatalogEntry   headroom_catalog_dialog_get_kind (HeadroomCatalogDialog *self);
const char            *headroom_catalog_dialog_get_name (HeadroomCatalogDialog *self);

/* Adds the custom GPU's figures (hardware.gpu must be "custom") or the
 * current model (the preset's config with the edits) to the user's catalog
 * under an id made from `name` ("My GPU" → "my-gpu"), then makes the
 * project use it. */
gboolean headroom_catalog_dialog_save_gpu   (HeadroomProject  *project,
                                             const char       *name,
                                             GError          **error);
gboolean headroom_catalog_dialog_save_model (HeadroomProject  *project,
                                             const char       *name,
                                             GError          **error);

G_END_DECLS
