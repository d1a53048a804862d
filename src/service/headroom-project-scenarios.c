/* headroom-project-scenarios.c: the scenarios a project keeps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-project"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "headroom-format.h"
#include "headroom-project-private.h"
#include "headroom-scenario.h"

/* A scenario's name on one line, without surrounding spaces; NULL when blank. */
char *
headroom_project_scenario_name (const char *text)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  char *name = headroom_format_one_line (trimmed);

  if (*name == '\0')
    g_clear_pointer (&name, g_free);
  return name;
}

GListModel *
headroom_project_get_scenarios (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return G_LIST_MODEL (self->scenarios);
}

void
headroom_project_copy_settings (HeadroomProject *self,
                                HeadroomProject *source)
{
  guint n_keys;
  const HeadroomKeyInfo *keys = headroom_project_get_keys (&n_keys);
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (HEADROOM_IS_PROJECT (source));

  for (guint i = 0; i < n_keys; i++)
    {
      const HeadroomKeyInfo *info = &keys[i];
      JsonNode *node;

      if (strcmp (info->key, "notes") == 0 || headroom_project_config_member (info->key) != NULL)
        continue;
      node = g_hash_table_lookup (source->values, info->key);
      if (node != NULL)
        {
          /* The source's values passed the same checks. */
          headroom_project_set_node (self, info->key, json_node_copy (node), NULL);
        }
      else if (g_hash_table_contains (self->values, info->key))
        {
          g_autofree char *before = headroom_project_dup_value_string (self, info->key);
          g_autofree char *after = NULL;

          g_hash_table_remove (self->values, info->key);
          after = headroom_project_dup_value_string (self, info->key);
          if (g_strcmp0 (before, after) != 0)
            headroom_project_changed (self, info->key);
        }
    }
  if (!json_object_equal (self->config, source->config))
    headroom_project_set_config (self, source->config);
}

/* Whether key `info` is a setting of a project working on `workloads`
 * (a mask of 1 << HeadroomWorkload), `custom` when the custom GPU is used. */
static gboolean
key_in_use (const HeadroomKeyInfo *info,
            guint                  workloads,
            gboolean               custom)
{
  if (strcmp (info->key, "notes") == 0 || g_str_has_prefix (info->key, "model."))
    return FALSE;
  if (g_str_has_prefix (info->key, "hardware.custom."))
    return custom;
  if (g_str_has_prefix (info->key, "training."))
    return (workloads & (1u << HEADROOM_WORKLOAD_TRAINING)) != 0;
  if (g_str_has_prefix (info->key, "inference."))
    return (workloads & (1u << HEADROOM_WORKLOAD_INFERENCE)) != 0;
  return TRUE;
}

static gboolean
values_differ (HeadroomProject *self,
               HeadroomProject *other,
               const char      *key)
{
  g_autofree char *a = headroom_project_dup_value_string (self, key);
  g_autofree char *b = headroom_project_dup_value_string (other, key);

  return g_strcmp0 (a, b) != 0;
}

char **
headroom_project_dup_differences (HeadroomProject *self,
                                  HeadroomProject *other)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint n_keys;
  const HeadroomKeyInfo *keys = headroom_project_get_keys (&n_keys);
  guint workloads;
  gboolean custom;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  g_return_val_if_fail (HEADROOM_IS_PROJECT (other), NULL);

  workloads = (1u << headroom_project_get_workload (self))
              | (1u << headroom_project_get_workload (other));
  custom = headroom_project_uses_custom_gpu (self) || headroom_project_uses_custom_gpu (other);
  for (guint i = 0; i < n_keys; i++)
    if (key_in_use (&keys[i], workloads, custom) && values_differ (self, other, keys[i].key))
      g_strv_builder_add (builder, keys[i].key);

  if (values_differ (self, other, "model.preset"))
    g_strv_builder_add (builder, "model.preset");
  else if (!json_object_equal (self->config, other->config))
    {
      gboolean any = FALSE;

      for (guint i = 0; i < n_keys; i++)
        if (headroom_project_config_member (keys[i].key) != NULL && values_differ (self, other, keys[i].key))
          {
            g_strv_builder_add (builder, keys[i].key);
            any = TRUE;
          }
      if (!any)
        g_strv_builder_add (builder, "model");
    }
  return g_strv_builder_end (builder);
}

static HeadroomScenario *
get_scenario (HeadroomProject *self,
              guint            position)
{
  g_autoptr(HeadroomScenario) scenario = g_list_model_get_item (G_LIST_MODEL (self->scenarios),
                                                                position);

  /* The store holds a reference. */
  return scenario;
}

static gboolean
name_taken (HeadroomProject *self,
            const char      *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)); i++)
    if (g_strcmp0 (headroom_scenario_get_name (get_scenario (self, i)), name) == 0)
      return TRUE;
  return FALSE;
}

/* `name`, or "name (2)", "name (3)"… the first no scenario has. */
static char *
unique_name (HeadroomProject *self,
             const char      *name)
{
  char *candidate = g_strdup (name);

  for (guint n = 2; name_taken (self, candidate); n++)
    {
      g_free (candidate);
      candidate = g_strdup_printf ("%s (%u)", name, n);
    }
  return candidate;
}

static gboolean
check_room (HeadroomProject  *self,
            GError          **error)
{
  if (g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)) < HEADROOM_PROJECT_MAX_SCENARIOS)
    return TRUE;
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "scenarios",
                                  _("a project keeps at most %d scenarios; remove one first"),
                                  HEADROOM_PROJECT_MAX_SCENARIOS);
  return FALSE;
}

HeadroomScenario *
headroom_project_keep_scenario (HeadroomProject  *self,
                                const char       *name,
                                GError          **error)
{
  g_autoptr(HeadroomProject) settings = NULL;
  g_autoptr(HeadroomScenario) scenario = NULL;
  g_autofree char *given = NULL;
  g_autofree char *chosen = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  if (!check_room (self, error))
    return NULL;

  settings = headroom_project_new ();
  headroom_project_copy_settings (settings, self);
  settings->modified = FALSE;

  given = name != NULL ? headroom_project_scenario_name (name) : NULL;
  if (given == NULL)
    {
      HeadroomScenario *first = g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)) > 0
                                ? get_scenario (self, 0) : NULL;

      given = headroom_scenario_dup_default_name (settings, first != NULL
                                                  ? headroom_scenario_get_settings (first) : NULL);
      if (given == NULL)
        given = g_strdup (headroom_scenario_get_name (first));
    }
  chosen = unique_name (self, given);
  scenario = headroom_scenario_new (chosen, settings);
  g_list_store_append (self->scenarios, scenario);
  headroom_project_set_modified (self, TRUE);
  return scenario;
}

HeadroomScenario *
headroom_project_duplicate_scenario (HeadroomProject  *self,
                                     guint             position,
                                     GError          **error)
{
  g_autoptr(HeadroomProject) settings = NULL;
  g_autoptr(HeadroomScenario) scenario = NULL;
  g_autofree char *name = NULL;
  HeadroomScenario *source;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  source = get_scenario (self, position);
  g_return_val_if_fail (source != NULL, NULL);
  if (!check_room (self, error))
    return NULL;

  settings = headroom_project_new ();
  headroom_project_copy_settings (settings, headroom_scenario_get_settings (source));
  settings->modified = FALSE;
  name = unique_name (self, headroom_scenario_get_name (source));
  scenario = headroom_scenario_new (name, settings);
  g_list_store_insert (self->scenarios, position + 1, scenario);
  headroom_project_set_modified (self, TRUE);
  return scenario;
}

gboolean
headroom_project_rename_scenario (HeadroomProject  *self,
                                  guint             position,
                                  const char       *name,
                                  GError          **error)
{
  g_autofree char *text = NULL;
  HeadroomScenario *scenario;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  scenario = get_scenario (self, position);
  g_return_val_if_fail (scenario != NULL, FALSE);
  text = headroom_project_scenario_name (name);
  if (text == NULL)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "scenarios",
                                      _("a scenario needs a name"));
      return FALSE;
    }
  if (g_strcmp0 (text, headroom_scenario_get_name (scenario)) == 0)
    return TRUE;
  headroom_scenario_set_name (scenario, text);
  /* Views of the list (the Compare view's columns) redraw the one item. */
  g_list_model_items_changed (G_LIST_MODEL (self->scenarios), position, 1, 1);
  headroom_project_set_modified (self, TRUE);
  return TRUE;
}

void
headroom_project_remove_scenario (HeadroomProject *self,
                                  guint            position)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (position < g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)));

  g_list_store_remove (self->scenarios, position);
  headroom_project_set_modified (self, TRUE);
}

void
headroom_project_apply_scenario (HeadroomProject *self,
                                 guint            position)
{
  HeadroomScenario *scenario;

  g_return_if_fail (HEADROOM_IS_PROJECT (self));

  scenario = get_scenario (self, position);
  g_return_if_fail (scenario != NULL);
  headroom_project_copy_settings (self, headroom_scenario_get_settings (scenario));
}
