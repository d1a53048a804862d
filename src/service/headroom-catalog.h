/* headroom-catalog.h: the model and GPU catalogs, built in and user-defined
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built-in entries come from the resources catalog/models.json and
 * catalog/gpus.json; user entries from <user dir>/models.json and
 * <user dir>/gpus.json (same formats), where <user dir> is
 * $XDG_DATA_HOME/headroom for the default catalog.
 */
#pragma once

#include <gio/gio.h>

#include "headroom-gpu-info.h"
#include "headroom-model-preset.h"
#include "hr-gpu.h"
#include "hr-model.h"

G_BEGIN_DECLS

#define HEADROOM_CATALOG_ERROR (headroom_catalog_error_quark ())

typedef enum
{
  HEADROOM_CATALOG_ERROR_PARSE,      /* a catalog file is not valid JSON or has a bad entry */
  HEADROOM_CATALOG_ERROR_NOT_FOUND,  /* no preset or GPU with that id */
  HEADROOM_CATALOG_ERROR_INVALID,    /* an entry or a new user GPU has a bad field */
  HEADROOM_CATALOG_ERROR_EXISTS,     /* a user GPU or model would shadow a built-in id */
} HeadroomCatalogError;

GQuark headroom_catalog_error_quark (void);

#define HEADROOM_TYPE_CATALOG (headroom_catalog_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomCatalog, headroom_catalog, HEADROOM, CATALOG, GObject)

/* Shared instance using $XDG_DATA_HOME/headroom; not thread-safe. */
HeadroomCatalog *headroom_catalog_get_default      (void);
HeadroomCatalog *headroom_catalog_new_for_user_dir (const char *dir);
/* Copies of the model `model_id` and the GPU `gpu_id` (NULL or unknown: left
 * out) sharing no memory with `self`, for a worker thread to own while
 * `self` changes; no user files: it saves nothing. */
HeadroomCatalog *headroom_catalog_dup_entries      (HeadroomCatalog *self,
                                                    const char      *model_id,
                                                    const char      *gpu_id);

/* Errors met while loading the user files (the catalog still loads the rest);
 * NULL when none. */
const GError    *headroom_catalog_get_load_error   (HeadroomCatalog *self);

/* GListModel of HeadroomModelPreset / HeadroomGpuInfo: built-in first, then user entries. */
GListModel      *headroom_catalog_get_models       (HeadroomCatalog *self);
GListModel      *headroom_catalog_get_gpus         (HeadroomCatalog *self);

HeadroomModelPreset *headroom_catalog_find_model   (HeadroomCatalog *self,
                                                    const char      *id);
HeadroomGpuInfo     *headroom_catalog_find_gpu     (HeadroomCatalog *self,
                                                    const char      *id);

gboolean headroom_catalog_lookup_model (HeadroomCatalog  *self,
                                        const char       *id,
                                        HrModel          *out,
                                        GError          **error);
gboolean headroom_catalog_lookup_gpu   (HeadroomCatalog  *self,
                                        const char       *id,
                                        HrGpu            *out,
                                        GError          **error);

/* Adds (or replaces) a user GPU and saves <user dir>/gpus.json atomically. */
gboolean headroom_catalog_add_user_gpu (HeadroomCatalog  *self,
                                        const char       *id,
                                        const char       *name,
                                        const char       *vendor,
                                        const char       *source,
                                        const HrGpu      *gpu,
                                        GError          **error);

/* Adds (or replaces) a user model preset and saves <user dir>/models.json
 * atomically; `config` (a Hugging Face config.json object, referenced, not
 * copied) must read into a valid model. */
gboolean headroom_catalog_add_user_model (HeadroomCatalog  *self,
                                          const char       *id,
                                          const char       *name,
                                          const char       *hf_id,
                                          const char       *source,
                                          JsonObject       *config,
                                          GError          **error);

G_END_DECLS
