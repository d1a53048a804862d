/* headroom-project-file.c: a project loaded from and written to a file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-project"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-json.h"
#include "headroom-project-private.h"
#include "headroom-scenario.h"

/* Shortest decimal that reads back as the same double, always with a '.' or
 * an exponent so that it stays a double. */
static void
append_double (GString *out,
               double   value)
{
  g_autofree char *text = headroom_format_exact_double (value);

  g_string_append (out, text);
  if (strpbrk (text, ".eEn") == NULL)
    g_string_append (out, ".0");
}

static void
append_string (GString    *out,
               const char *str)
{
  g_string_append_c (out, '"');
  for (const char *p = str; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

void
headroom_project_append_node (GString  *out,
                              JsonNode *node,
                              guint     depth)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        if (members == NULL)
          {
            g_string_append (out, "{}");
            break;
          }
        g_string_append (out, "{\n");
        for (GList *l = members; l != NULL; l = l->next)
          {
            g_string_append_printf (out, "%*s", (int) (depth + 1) * 2, "");
            append_string (out, l->data);
            g_string_append (out, ": ");
            headroom_project_append_node (out, json_object_get_member (object, l->data), depth + 1);
            g_string_append (out, l->next != NULL ? ",\n" : "\n");
          }
        g_string_append_printf (out, "%*s}", (int) depth * 2, "");
      }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        /* Objects (scenarios) one per line, values (LoRA targets) on one. */
        gboolean objects = n > 0 && JSON_NODE_HOLDS_OBJECT (json_array_get_element (array, 0));

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (objects)
              g_string_append_printf (out, "%s%*s", i > 0 ? ",\n" : "\n",
                                      (int) (depth + 1) * 2, "");
            else if (i > 0)
              g_string_append (out, ", ");
            headroom_project_append_node (out, json_array_get_element (array, i), depth + (objects ? 1 : 0));
          }
        if (objects)
          g_string_append_printf (out, "\n%*s", (int) depth * 2, "");
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          append_double (out, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          append_string (out, json_node_get_string (node));
          break;
        default:
          g_string_append (out, "null");
          break;
        }
      break;

    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

static void
keep_unknown (HeadroomProject *self,
              const char      *section,
              const char      *name,
              JsonNode        *node)
{
  Unknown *unknown = g_new0 (Unknown, 1);

  unknown->section = g_strdup (section);
  unknown->name = g_strdup (name);
  unknown->node = json_node_copy (node);
  g_ptr_array_add (self->unknown, unknown);
  g_ptr_array_insert (self->unknown_paths, self->unknown_paths->len - 1,
                      section != NULL ? g_strconcat (section, ".", name, NULL) : g_strdup (name));
}

/* Walks one section object of the file: known keys are checked and stored,
 * sub-sections recursed into, anything else kept as unknown. */
static gboolean
load_section (HeadroomProject  *self,
              const char       *prefix,
              JsonObject       *object,
              GError          **error)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (object, name);
      g_autofree char *path = prefix != NULL ? g_strconcat (prefix, ".", name, NULL)
                                             : g_strdup (name);
      const HeadroomKeyInfo *info = headroom_project_find_key (path);

      if (prefix == NULL && (strcmp (name, "format") == 0 || strcmp (name, "version") == 0
                             || strcmp (name, "scenarios") == 0))
        continue;

      /* "custom.memory" inside "hardware" is not hardware.custom.memory. */
      if (*name == '\0' || strchr (name, '.') != NULL)
        keep_unknown (self, prefix, name, node);
      else if (info != NULL && headroom_project_config_member (path) == NULL)
        {
          if (!headroom_project_check_node (path, info, node, error))
            return FALSE;
          headroom_project_store_value (self, info, json_node_copy (node));
        }
      else if (strcmp (path, "model.config") == 0)
        {
          if (!JSON_NODE_HOLDS_OBJECT (node))
            {
              g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE,
                           _("%s: expected an object (a Hugging Face config.json)"), path);
              return FALSE;
            }
          g_clear_pointer (&self->config, json_object_unref);
          self->config = headroom_project_copy_object (json_node_get_object (node));
        }
      else if (headroom_project_is_section (path) || strcmp (path, "model") == 0)
        {
          if (!JSON_NODE_HOLDS_OBJECT (node))
            {
              g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE,
                           _("%s: expected an object"), path);
              return FALSE;
            }
          if (!load_section (self, path, json_node_get_object (node), error))
            return FALSE;
        }
      else
        keep_unknown (self, prefix, name, node);
    }
  return TRUE;
}

/* Prefixes an error of a scenario's settings with the scenario: the key it
 * names is the scenario's, not one of the editor's. */
static void
scenario_error (GError     **error,
                guint        index,
                const char  *name,
                GError      *local_error)
{
  g_autofree char *message = NULL;

  if (name != NULL)
    message = g_strdup_printf (_("scenario %u (“%s”): %s"), index + 1, name,
                               local_error->message);
  else
    message = g_strdup_printf (_("scenario %u: %s"), index + 1, local_error->message);
  headroom_project_set_key_error (error, local_error->code, "scenarios", "%s", message);
}

/* "scenarios": [{ "name": …, "model": …, "hardware": …, … }]. Each one's
 * keys are checked as the project's are; whether they fit together is
 * checked when the scenario is estimated, and shown in its column. */
static gboolean
load_scenarios (HeadroomProject  *self,
                JsonNode         *node,
                GError          **error)
{
  JsonArray *array;
  guint n;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, "scenarios",
                                      _("expected an array"));
      return FALSE;
    }
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n > HEADROOM_PROJECT_MAX_SCENARIOS)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "scenarios",
                                      _("%u scenarios; a project keeps at most %d"),
                                      n, HEADROOM_PROJECT_MAX_SCENARIOS);
      return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autoptr(HeadroomProject) settings = NULL;
      g_autoptr(HeadroomScenario) scenario = NULL;
      g_autoptr(JsonObject) object = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *text = NULL;
      JsonNode *name;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, "scenarios",
                                          _("scenario %u: expected an object"), i + 1);
          return FALSE;
        }
      object = headroom_project_copy_object (json_node_get_object (element));
      name = json_object_get_member (object, "name");
      if (name == NULL || !JSON_NODE_HOLDS_VALUE (name)
          || json_node_get_value_type (name) != G_TYPE_STRING
          || (text = headroom_project_scenario_name (json_node_get_string (name))) == NULL)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, "scenarios",
                                          _("scenario %u: expected a name (a string)"), i + 1);
          return FALSE;
        }
      json_object_remove_member (object, "name");
      settings = headroom_project_new ();
      if (!load_section (settings, NULL, object, &local_error))
        {
          scenario_error (error, i, text, local_error);
          return FALSE;
        }
      settings->modified = FALSE;
      scenario = headroom_scenario_new (text, settings);
      g_list_store_append (self->scenarios, scenario);
    }
  return TRUE;
}

static gboolean
load_root (HeadroomProject  *self,
           JsonNode         *root,
           GError          **error)
{
  JsonObject *object;
  JsonNode *node;
  gint64 version;

  if (root == NULL)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                           _("Not a valid project file: the file is empty"));
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                           _("Not a Headroom project: the file is not a JSON object"));
      return FALSE;
    }
  object = json_node_get_object (root);

  node = json_object_get_member (object, "format");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING
      || strcmp (json_node_get_string (node), HEADROOM_PROJECT_FORMAT) != 0)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_FORMAT,
                   _("Not a Headroom project (expected the format “%s”)"), HEADROOM_PROJECT_FORMAT);
      return FALSE;
    }

  node = json_object_get_member (object, "version");
  /* An integral number, 1.0 included (docs/project-format.md). */
  if (node == NULL || !headroom_project_node_is_number (node)
      || json_node_get_double (node) != floor (json_node_get_double (node))
      || fabs (json_node_get_double (node)) > MAX_COUNT)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE,
                           _("The format version is not an integer"));
      return FALSE;
    }
  version = json_node_get_value_type (node) == G_TYPE_INT64 ? json_node_get_int (node)
                                                            : (gint64) json_node_get_double (node);
  if (version > HEADROOM_PROJECT_VERSION)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_VERSION,
                   _("This project was written by a newer Headroom (format version %"
                     G_GINT64_FORMAT "; this version reads up to %d); please update Headroom"),
                   version, HEADROOM_PROJECT_VERSION);
      return FALSE;
    }
  if (version < 1)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                   _("%" G_GINT64_FORMAT " is not a valid format version"), version);
      return FALSE;
    }

  if (!load_section (self, NULL, object, error))
    return FALSE;
  node = json_object_get_member (object, "scenarios");
  return node == NULL || load_scenarios (self, node, error);
}

/* A loaded project must be valid, but for a model_type Headroom does not
 * know: that one opens, and its estimate then names the model_type and
 * offers the generic decoder (model.assume_architecture). */
static gboolean
validate_loaded (HeadroomProject  *self,
                 GError          **error)
{
  g_autoptr(GError) local_error = NULL;

  if (headroom_project_validate (self, &local_error)
      || g_error_matches (local_error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE))
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

HeadroomProject *
headroom_project_new_from_bytes (GBytes  *bytes,
                                 GError **error)
{
  return headroom_project_new_from_bytes_with_catalog (bytes, NULL, error);
}

/* `whole`: the settings must also go together (validate_loaded); else each
 * key is checked alone, as the window edits them. */
static HeadroomProject *
new_from_bytes (GBytes           *bytes,
                HeadroomCatalog  *catalog,
                gboolean          whole,
                GError          **error)
{
  g_autoptr(HeadroomProject) self = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize size;
  const char *data;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (catalog == NULL || HEADROOM_IS_CATALOG (catalog), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (data == NULL)
    data = "";
  if (size > G_MAXSSIZE || !g_utf8_validate (data, size, NULL))
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                           _("Not a Headroom project: the file is not UTF-8 text"));
      return NULL;
    }
  /* Depth, trailing content and non-finite numbers checked; one line. */
  root = headroom_json_parse (data, size, &local_error);
  if (root == NULL && g_error_matches (local_error, HEADROOM_JSON_ERROR,
                                       HEADROOM_JSON_ERROR_NOT_FINITE))
    {
      /* The key is the fault, not the syntax. */
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID,
                                      headroom_json_error_get_path (local_error),
                                      _("not a finite number"));
      return NULL;
    }
  if (root == NULL)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                   _("Not a valid project file: %s"), local_error->message);
      return NULL;
    }

  self = headroom_project_new ();
  if (catalog != NULL)
    self->catalog = g_object_ref (catalog);
  if (!load_root (self, root, error)
      || (whole && !validate_loaded (self, error)))
    {
      /* Messages quote values from the file, which may hold control characters. */
      if (error != NULL)
        {
          char *message = headroom_format_one_line ((*error)->message);

          g_free ((*error)->message);
          (*error)->message = message;
        }
      return NULL;
    }

  return g_steal_pointer (&self);
}

HeadroomProject *
headroom_project_new_from_bytes_with_catalog (GBytes           *bytes,
                                              HeadroomCatalog  *catalog,
                                              GError          **error)
{
  return new_from_bytes (bytes, catalog, TRUE, error);
}

static HeadroomProject *
new_from_file (GFile    *file,
               gboolean  whole,
               GError  **error)
{
  g_autoptr(GBytes) bytes = NULL;
  HeadroomProject *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, error);
  if (bytes == NULL)
    return NULL;

  self = new_from_bytes (bytes, NULL, whole, error);
  if (self != NULL)
    self->file = g_object_ref (file);
  return self;
}

HeadroomProject *
headroom_project_new_from_file (GFile   *file,
                                GError **error)
{
  return new_from_file (file, TRUE, error);
}

HeadroomProject *
headroom_project_new_from_file_to_edit (GFile   *file,
                                        GError **error)
{
  return new_from_file (file, FALSE, error);
}

HeadroomProject *
headroom_project_new_from_config (JsonObject  *config,
                                  GError     **error)
{
  g_autoptr(HeadroomProject) self = headroom_project_new ();

  g_return_val_if_fail (config != NULL, NULL);

  if (!headroom_project_import_config (self, config, NULL, error))
    return NULL;
  self->modified = FALSE;

  return g_steal_pointer (&self);
}

/* The name a config gives itself: the last part of "_name_or_path"
 * ("meta-llama/Llama-3.1-8B" → "Llama-3.1-8B"), as transformers writes it. */
static char *
config_name (JsonObject *config)
{
  JsonNode *node = json_object_get_member (config, "_name_or_path");
  const char *path, *slash;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  path = json_node_get_string (node);
  slash = strrchr (path, '/');
  path = slash != NULL ? slash + 1 : path;
  return *path != '\0' && g_utf8_validate (path, -1, NULL) ? g_strdup (path) : NULL;
}

/* A config error about one key becomes an error about "model.KEY", named by
 * its label ("Key/value heads: 5 does not divide 32"). */
void
headroom_project_config_error_to_key (GError **error)
{
  const char *field;
  g_autofree char *key = NULL;
  g_autofree char *problem = NULL;

  if (error == NULL || *error == NULL)
    return;
  field = headroom_hf_config_error_get_field (*error);
  if (field == NULL)
    return;
  key = g_strconcat ("model.", field, NULL);
  problem = g_strdup (headroom_hf_config_error_get_problem (*error));
  g_clear_error (error);
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key, "%s", problem);
}

gboolean
headroom_project_import_config (HeadroomProject  *self,
                                JsonObject       *config,
                                const char       *name,
                                GError          **error)
{
  HrModel model;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  /* Refused before anything changes. */
  if (!headroom_hf_config_read (config, &model, NULL, NULL, error))
    {
      headroom_project_config_error_to_key (error);
      return FALSE;
    }

  if (g_hash_table_remove (self->values, "model.preset"))
    headroom_project_changed (self, "model.preset");
  g_free (self->model_name);
  self->model_name = name != NULL && *name != '\0' ? g_strdup (name) : config_name (config);
  headroom_project_set_config (self, config);
  return TRUE;
}

/* The object at a dotted section path under `root` (NULL = root), created as needed. */
static JsonObject *
ensure_section (JsonObject *root,
                const char *path)
{
  g_auto(GStrv) parts = NULL;
  JsonObject *object = root;

  if (path == NULL)
    return root;
  parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      JsonNode *child = json_object_get_member (object, parts[i]);

      if (child == NULL || !JSON_NODE_HOLDS_OBJECT (child))
        {
          JsonObject *section = json_object_new ();

          json_object_set_object_member (object, parts[i], section);
          object = section;
        }
      else
        object = json_node_get_object (child);
    }
  return object;
}

/* Places `node` (taken) at a dotted key under `root`. */
static void
place_node (JsonObject *root,
            const char *key,
            JsonNode   *node)
{
  const char *dot = strrchr (key, '.');
  g_autofree char *section = dot != NULL ? g_strndup (key, dot - key) : NULL;

  json_object_set_member (ensure_section (root, section), dot != NULL ? dot + 1 : key, node);
}

/* The settings into `root`, in file order: the model, then every key of the
 * table (notes when `notes`), defaults included. */
static void
write_settings (HeadroomProject *self,
                JsonObject      *root,
                gboolean         notes)
{
  guint n_keys;
  const HeadroomKeyInfo *keys = headroom_project_get_keys (&n_keys);

  if (headroom_project_get_preset (self) != NULL)
    place_node (root, "model.preset", json_node_copy (g_hash_table_lookup (self->values,
                                                                            "model.preset")));
  place_node (root, "model.config", json_node_init_object (json_node_alloc (),
                                                           self->config));

  for (guint i = 0; i < n_keys; i++)
    {
      JsonNode *node;

      if (g_str_has_prefix (keys[i].key, "model.") || (!notes && strcmp (keys[i].key, "notes") == 0))
        continue;
      node = g_hash_table_lookup (self->values, keys[i].key);
      /* The custom GPU figures are written only when they matter or were set. */
      if (node == NULL && g_str_has_prefix (keys[i].key, "hardware.custom.")
          && !headroom_project_uses_custom_gpu (self))
        continue;
      place_node (root, keys[i].key, node != NULL ? json_node_copy (node)
                                                  : headroom_project_default_node (self, &keys[i]));
    }
}

GBytes *
headroom_project_to_bytes (HeadroomProject *self)
{
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonNode) root_node = json_node_new (JSON_NODE_OBJECT);
  GString *out = g_string_new (NULL);
  guint n_scenarios;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  n_scenarios = g_list_model_get_n_items (G_LIST_MODEL (self->scenarios));
  json_object_set_string_member (root, "format", HEADROOM_PROJECT_FORMAT);
  /* Version 1 while the file holds nothing of version 2, so that an older
   * Headroom still opens it (docs/project-format.md). */
  json_object_set_int_member (root, "version", n_scenarios > 0 ? HEADROOM_PROJECT_VERSION : 1);
  write_settings (self, root, TRUE);

  if (n_scenarios > 0)
    {
      JsonArray *array = json_array_new ();

      for (guint i = 0; i < n_scenarios; i++)
        {
          g_autoptr(HeadroomScenario) scenario = g_list_model_get_item (G_LIST_MODEL (self->scenarios), i);
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "name", headroom_scenario_get_name (scenario));
          write_settings (headroom_scenario_get_settings (scenario), object, FALSE);
          json_array_add_object_element (array, object);
        }
      json_object_set_array_member (root, "scenarios", array);
    }

  for (guint i = 0; i < self->unknown->len; i++)
    {
      Unknown *unknown = g_ptr_array_index (self->unknown, i);

      json_object_set_member (ensure_section (root, unknown->section), unknown->name,
                              json_node_copy (unknown->node));
    }

  json_node_set_object (root_node, root);
  headroom_project_append_node (out, root_node, 0);
  g_string_append_c (out, '\n');

  return g_string_free_to_bytes (out);
}
