/* headroom-scenario.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-scenario"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "headroom-catalog.h"
#include "headroom-format.h"
#include "headroom-gpu-info.h"
#include "headroom-model-preset.h"
#include "headroom-scenario.h"

/* A name lists at most this many changes, then "…". */
#define NAME_CHANGES 3

struct _HeadroomScenario
{
  GObject parent_instance;

  HeadroomProject *settings;
  char *name;
};

G_DEFINE_FINAL_TYPE (HeadroomScenario, headroom_scenario, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
headroom_scenario_finalize (GObject *object)
{
  HeadroomScenario *self = HEADROOM_SCENARIO (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->name, g_free);
  G_OBJECT_CLASS (headroom_scenario_parent_class)->finalize (object);
}

static void
headroom_scenario_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  HeadroomScenario *self = HEADROOM_SCENARIO (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_scenario_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  HeadroomScenario *self = HEADROOM_SCENARIO (object);

  switch (prop_id)
    {
    case PROP_NAME:
      headroom_scenario_set_name (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_scenario_class_init (HeadroomScenarioClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_scenario_finalize;
  object_class->get_property = headroom_scenario_get_property;
  object_class->set_property = headroom_scenario_set_property;

  /**
   * HeadroomScenario:name:
   *
   * The name the Compare view and the CLI head its column with.
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
headroom_scenario_init (HeadroomScenario *self)
{
}

HeadroomScenario *
headroom_scenario_new (const char      *name,
                       HeadroomProject *settings)
{
  HeadroomScenario *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (HEADROOM_IS_PROJECT (settings), NULL);

  self = g_object_new (HEADROOM_TYPE_SCENARIO, NULL);
  self->name = g_strdup (name);
  self->settings = g_object_ref (settings);
  return self;
}

const char *
headroom_scenario_get_name (HeadroomScenario *self)
{
  g_return_val_if_fail (HEADROOM_IS_SCENARIO (self), NULL);
  return self->name;
}

void
headroom_scenario_set_name (HeadroomScenario *self,
                            const char       *name)
{
  g_return_if_fail (HEADROOM_IS_SCENARIO (self));
  g_return_if_fail (name != NULL);

  if (g_strcmp0 (self->name, name) == 0)
    return;
  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
}

HeadroomProject *
headroom_scenario_get_settings (HeadroomScenario *self)
{
  g_return_val_if_fail (HEADROOM_IS_SCENARIO (self), NULL);
  return self->settings;
}

/* "8 × H100 SXM" */
static char *
describe_gpus (HeadroomProject *settings)
{
  const char *id = headroom_project_get_string (settings, "hardware.gpu");
  HeadroomGpuInfo *info = headroom_catalog_find_gpu (headroom_catalog_get_default (), id);
  g_autofree char *count = headroom_format_integer ((double) headroom_project_get_n_gpus (settings));

  /* TRANSLATORS: a GPU count and the GPU, "16 × A100 SXM 80GB" */
  return g_strdup_printf (_("%s × %s"), count,
                          info != NULL ? headroom_gpu_info_get_name (info)
                          : g_strcmp0 (id, "custom") == 0 ? _("custom GPU") : id);
}

/* The preset's name, else the config's _name_or_path, else "custom model". */
static char *
describe_model (HeadroomProject *settings)
{
  const char *preset = headroom_project_get_preset (settings);
  HeadroomModelPreset *entry = preset != NULL
                               ? headroom_catalog_find_model (headroom_catalog_get_default (), preset)
                               : NULL;
  g_autoptr(JsonObject) config = NULL;
  const char *path;

  if (entry != NULL && json_object_get_size (headroom_project_get_config (settings)) == 0)
    return g_strdup (headroom_model_preset_get_name (entry));
  config = headroom_project_dup_effective_config (settings);
  path = json_object_get_string_member_with_default (config, "_name_or_path", NULL);
  if (path != NULL && *path != '\0')
    return g_path_get_basename (path);
  if (entry != NULL)
    /* TRANSLATORS: a preset whose settings were changed, "Llama 3.1 8B, edited" */
    return g_strdup_printf (_("%s, edited"), headroom_model_preset_get_name (entry));
  return g_strdup (_("custom model"));
}

/* "ZeRO stage 3", "Optimizer AdamW (8-bit)", "Sequence parallel off" */
static char *
describe_key (HeadroomProject *settings,
              const char      *key)
{
  const HeadroomKeyInfo *info = headroom_project_find_key (key);
  g_autofree char *value = headroom_project_dup_value_string (settings, key);
  g_autofree char *text = NULL;

  if (info == NULL || value == NULL)
    return g_strdup (key);
  switch (info->type)
    {
    case HEADROOM_KEY_BOOLEAN:
      if (g_str_equal (value, "true"))
        return g_strdup (_(info->label));
      /* TRANSLATORS: a switch turned off, "Sequence parallel off" */
      return g_strdup_printf (_("%s off"), _(info->label));
    case HEADROOM_KEY_CHOICE:
      text = g_strdup (_(headroom_key_info_get_choice_label (info, value)));
      break;
    case HEADROOM_KEY_INT:
      text = headroom_format_integer (headroom_project_get_int (settings, key));
      break;
    case HEADROOM_KEY_DOUBLE:
      text = g_strdup_printf ("%.4g", headroom_project_get_double (settings, key));
      break;
    case HEADROOM_KEY_STRING:
    default:
      text = headroom_format_one_line (value);
      break;
    }
  if (info->unit != NULL && info->type != HEADROOM_KEY_CHOICE)
    return g_strdup_printf ("%s %s %s", _(info->label), text, info->unit);
  return g_strdup_printf ("%s %s", _(info->label), text);
}

static gboolean
is_gpu_key (const char *key)
{
  return g_str_equal (key, "hardware.gpu") || g_str_equal (key, "hardware.nodes")
         || g_str_equal (key, "hardware.gpus_per_node");
}

char *
headroom_scenario_dup_default_name (HeadroomProject *settings,
                                    HeadroomProject *base)
{
  g_auto(GStrv) differences = NULL;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  gboolean gpus = FALSE, model = FALSE;
  guint n_changes = 0;
  GString *name;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (settings), NULL);
  g_return_val_if_fail (base == NULL || HEADROOM_IS_PROJECT (base), NULL);

  if (base == NULL)
    {
      g_ptr_array_add (parts, describe_gpus (settings));
      g_ptr_array_add (parts, describe_model (settings));
      n_changes = 2;
    }
  else
    {
      differences = headroom_project_dup_differences (settings, base);
      for (guint i = 0; differences[i] != NULL; i++)
        {
          const char *key = differences[i];
          char *part = NULL;

          if (is_gpu_key (key))
            {
              if (!gpus)
                part = describe_gpus (settings);
              gpus = TRUE;
            }
          else if (g_str_equal (key, "model") || g_str_equal (key, "model.preset"))
            {
              if (!model)
                part = describe_model (settings);
              model = TRUE;
            }
          else
            part = describe_key (settings, key);
          if (part == NULL)
            continue;
          n_changes++;
          if (parts->len < NAME_CHANGES)
            g_ptr_array_add (parts, part);
          else
            g_free (part);
        }
    }

  if (parts->len == 0)
    return NULL;
  name = g_string_new (g_ptr_array_index (parts, 0));
  for (guint i = 1; i < parts->len; i++)
    g_string_append_printf (name, ", %s", (const char *) g_ptr_array_index (parts, i));
  if (n_changes > parts->len)
    g_string_append (name, ", …");
  return g_string_free (name, FALSE);
}
