/* headroom-model-preset.h: one entry of the model catalog
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "hr-model.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_MODEL_PRESET (headroom_model_preset_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomModelPreset, headroom_model_preset, HEADROOM, MODEL_PRESET, GObject)

/* Takes a reference on `config` (the HF config.json object of the preset). */
HeadroomModelPreset *headroom_model_preset_new (const char *id,
                                                const char *name,
                                                const char *hf_id,
                                                const char *source,
                                                JsonObject *config,
                                                gboolean    user_defined);

const char *headroom_model_preset_get_id           (HeadroomModelPreset *self);
const char *headroom_model_preset_get_name         (HeadroomModelPreset *self);
const char *headroom_model_preset_get_hf_id        (HeadroomModelPreset *self);
const char *headroom_model_preset_get_source       (HeadroomModelPreset *self);
JsonObject *headroom_model_preset_get_config       (HeadroomModelPreset *self);
gboolean    headroom_model_preset_get_user_defined (HeadroomModelPreset *self);

/* Reads the preset's config into *model (see headroom_hf_config_read()). */
gboolean    headroom_model_preset_get_model        (HeadroomModelPreset  *self,
                                                    HrModel              *model,
                                                    GError              **error);

G_END_DECLS
