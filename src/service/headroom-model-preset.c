/* headroom-model-preset.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "headroom-hf-config.h"
#include "headroom-model-preset.h"

struct _HeadroomModelPreset
{
  GObject     parent_instance;

  char       *id;
  char       *name;
  char       *hf_id;
  char       *source;
  JsonObject *config;
  gboolean    user_defined;
};

G_DEFINE_FINAL_TYPE (HeadroomModelPreset, headroom_model_preset, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_NAME,
  PROP_HF_ID,
  PROP_SOURCE,
  PROP_USER_DEFINED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
headroom_model_preset_finalize (GObject *object)
{
  HeadroomModelPreset *self = (HeadroomModelPreset *) object;

  g_free (self->id);
  g_free (self->name);
  g_free (self->hf_id);
  g_free (self->source);
  g_clear_pointer (&self->config, json_object_unref);

  G_OBJECT_CLASS (headroom_model_preset_parent_class)->finalize (object);
}

static void
headroom_model_preset_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  HeadroomModelPreset *self = HEADROOM_MODEL_PRESET (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_HF_ID:
      g_value_set_string (value, self->hf_id);
      break;
    case PROP_SOURCE:
      g_value_set_string (value, self->source);
      break;
    case PROP_USER_DEFINED:
      g_value_set_boolean (value, self->user_defined);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_model_preset_class_init (HeadroomModelPresetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_model_preset_finalize;
  object_class->get_property = headroom_model_preset_get_property;

  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_HF_ID] =
    g_param_spec_string ("hf-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SOURCE] =
    g_param_spec_string ("source", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_USER_DEFINED] =
    g_param_spec_boolean ("user-defined", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
headroom_model_preset_init (HeadroomModelPreset *self)
{
}

HeadroomModelPreset *
headroom_model_preset_new (const char *id,
                           const char *name,
                           const char *hf_id,
                           const char *source,
                           JsonObject *config,
                           gboolean    user_defined)
{
  HeadroomModelPreset *self;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);

  self = g_object_new (HEADROOM_TYPE_MODEL_PRESET, NULL);
  self->id = g_strdup (id);
  self->name = g_strdup (name != NULL ? name : id);
  self->hf_id = g_strdup (hf_id);
  self->source = g_strdup (source);
  self->config = json_object_ref (config);
  self->user_defined = !!user_defined;

  return self;
}

const char *
headroom_model_preset_get_id (HeadroomModelPreset *self)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PRESET (self), NULL);
  return self->id;
}

const char *
headroom_model_preset_get_name (HeadroomModelPreset *self)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PRESET (self), NULL);
  return self->name;
}

const char *
headroom_model_preset_get_hf_id (HeadroomModelPreset *self)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PRESET (self), NULL);
  return self->hf_id;
}

const char *
headroom_model_preset_get_source (HeadroomModelPreset *self)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PRESET (self), NULL);
  return self->source;
}

JsonObject *
headroom_model_preset_get_config (HeadroomModelPreset *self)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PRESET (self), NULL);
  return self->config;
}

gboolean
headroom_model_preset_get_user_defined (HeadroomModelPreset *self)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PRESET (self), FALSE);
  return self->user_defined;
}

gboolean
headroom_model_preset_get_model (HeadroomModelPreset  *self,
                                 HrModel              *model,
                                 GError              **error)
{
  g_return_val_if_fail (HEADROOM_IS_MODEL_PRESET (self), FALSE);

  return headroom_hf_config_read (self->config, model, NULL, NULL, error);
}
