/* headroom-hf-config.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gi18n.h>
#include <string.h>

#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-json.h"

/* An error about one key carries it and the problem as data
 * (headroom_hf_config_error_get_field()). */
typedef struct
{
  char *field;
  char *problem;
} HeadroomHfConfigErrorPrivate;

static void
headroom_hf_config_error_private_init (HeadroomHfConfigErrorPrivate *priv)
{
  priv->field = NULL;
  priv->problem = NULL;
}

static void
headroom_hf_config_error_private_copy (const HeadroomHfConfigErrorPrivate *src,
                                       HeadroomHfConfigErrorPrivate       *dest)
{
  dest->field = g_strdup (src->field);
  dest->problem = g_strdup (src->problem);
}

static void
headroom_hf_config_error_private_clear (HeadroomHfConfigErrorPrivate *priv)
{
  g_clear_pointer (&priv->field, g_free);
  g_clear_pointer (&priv->problem, g_free);
}

G_DEFINE_EXTENDED_ERROR (HeadroomHfConfigError, headroom_hf_config_error)

const char *
headroom_hf_config_error_get_field (const GError *error)
{
  if (error == NULL || error->domain != HEADROOM_HF_CONFIG_ERROR)
    return NULL;
  return headroom_hf_config_error_get_private (error)->field;
}

const char *
headroom_hf_config_error_get_problem (const GError *error)
{
  if (error == NULL || error->domain != HEADROOM_HF_CONFIG_ERROR)
    return NULL;
  return headroom_hf_config_error_get_private (error)->problem;
}

/* Follows a dotted key ("text_config.hidden_size", "layer_types.3") through
 * nested objects and arrays. */
static JsonNode *
find_member (JsonObject *config,
             const char *key)
{
  g_auto(GStrv) parts = g_strsplit (key, ".", -1);
  JsonNode *node = NULL;
  JsonObject *object = config;
  JsonArray *array = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (array != NULL)
        {
          guint64 index;

          if (!g_ascii_string_to_unsigned (parts[i], 10, 0, G_MAXUINT, &index, NULL)
              || index >= json_array_get_length (array))
            return NULL;
          node = json_array_get_element (array, (guint) index);
        }
      else if (object != NULL && json_object_has_member (object, parts[i]))
        node = json_object_get_member (object, parts[i]);
      else
        return NULL;
      object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
    }

  return node;
}

static void
lookup_json (void       *user_data,
             const char *key,
             HrValue    *value)
{
  JsonNode *node = find_member (user_data, key);

  memset (value, 0, sizeof *value);

  if (node == NULL)
    {
      value->type = HR_VALUE_ABSENT;
      return;
    }

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_NULL:
      value->type = HR_VALUE_NULL;
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_BOOLEAN:
          value->type = HR_VALUE_BOOL;
          value->b = json_node_get_boolean (node);
          break;

        case G_TYPE_INT64:
          value->type = HR_VALUE_INT;
          value->i = json_node_get_int (node);
          value->d = (double) value->i;
          break;

        case G_TYPE_DOUBLE:
          value->type = HR_VALUE_DOUBLE;
          value->d = json_node_get_double (node);
          break;

        case G_TYPE_STRING:
          value->type = HR_VALUE_STRING;
          value->s = json_node_get_string (node);
          break;

        default:
          value->type = HR_VALUE_OTHER;
          break;
        }
      break;

    case JSON_NODE_ARRAY:
      value->type = HR_VALUE_OTHER;
      value->i = json_array_get_length (json_node_get_array (node));
      break;

    case JSON_NODE_OBJECT:
    default:
      value->type = HR_VALUE_OTHER;
      value->i = -1;
      break;
    }
}

void
headroom_hf_config_source_init (HrConfigSource *source,
                                JsonObject     *config)
{
  g_return_if_fail (source != NULL);
  g_return_if_fail (config != NULL);

  source->user_data = config;
  source->lookup = lookup_json;
}

void
headroom_hf_config_set_error (GError        **error,
                              const HrError  *err)
{
  char message[256];
  g_autofree char *safe = NULL;
  int code;

  hr_error_format (err, message, sizeof message);
  /* Field names may be a config's own keys. */
  safe = headroom_format_one_line (message);

  switch (err->status)
    {
    case HR_ERROR_WRONG_TYPE:
      code = HEADROOM_HF_CONFIG_ERROR_TYPE;
      break;
    case HR_ERROR_MISSING:
      code = HEADROOM_HF_CONFIG_ERROR_MISSING;
      break;
    case HR_OK:
    case HR_ERROR_NOT_POSITIVE:
    case HR_ERROR_NOT_DIVISIBLE:
    case HR_ERROR_OVERFLOW:
    case HR_ERROR_OUT_OF_RANGE:
    case HR_ERROR_UNSUPPORTED:
    default:
      code = HEADROOM_HF_CONFIG_ERROR_INVALID;
      break;
    }

  g_set_error_literal (error, HEADROOM_HF_CONFIG_ERROR, code, safe);
  if (error != NULL && err->field != NULL)
    {
      HeadroomHfConfigErrorPrivate *priv = headroom_hf_config_error_get_private (*error);

      hr_error_format_problem (err, message, sizeof message);
      priv->field = headroom_format_one_line (err->field);
      priv->problem = headroom_format_one_line (message);
    }
}

gboolean
headroom_hf_config_read (JsonObject  *config,
                         HrModel     *model,
                         char       **model_type,
                         unsigned    *warnings,
                         GError     **error)
{
  HrConfigSource source;
  HrError err = { 0 };
  JsonNode *type_node, *assume_node;
  HrAssume assume = HR_ASSUME_NONE;

  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (model != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (warnings != NULL)
    *warnings = 0;
  if (model_type != NULL)
    *model_type = NULL;

  type_node = json_object_get_member (config, "model_type");
  if (type_node != NULL && !JSON_NODE_HOLDS_NULL (type_node)
      && (!JSON_NODE_HOLDS_VALUE (type_node)
          || json_node_get_value_type (type_node) != G_TYPE_STRING))
    {
      g_set_error_literal (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_TYPE,
                           "model_type: must be a string");
      return FALSE;
    }

  /* Headroom's own key (project key model.assume_architecture, CLI
   * --assume-architecture): how to read an unknown or absent model_type. */
  assume_node = json_object_get_member (config, "assume_architecture");
  if (assume_node != NULL && !JSON_NODE_HOLDS_NULL (assume_node))
    {
      if (!JSON_NODE_HOLDS_VALUE (assume_node)
          || json_node_get_value_type (assume_node) != G_TYPE_STRING
          || hr_assume_from_name (json_node_get_string (assume_node)) < 0)
        {
          g_set_error_literal (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_INVALID,
                               _("assume_architecture: must be “none” or “llama”"));
          return FALSE;
        }
      assume = hr_assume_from_name (json_node_get_string (assume_node));
    }

  headroom_hf_config_source_init (&source, config);
  if (hr_model_from_config_assuming (&source, assume, model, warnings, &err) != HR_OK
      || hr_model_validate (model, &err) != HR_OK)
    {
      if (err.field != NULL && strcmp (err.field, "model_type") == 0
          && (err.status == HR_ERROR_UNSUPPORTED || err.status == HR_ERROR_MISSING))
        {
          const char *type = type_node != NULL && JSON_NODE_HOLDS_VALUE (type_node)
                             ? json_node_get_string (type_node) : NULL;
          /* The name is quoted from the file: escaped, one line. */
          g_autofree char *name = type != NULL ? headroom_format_one_line (type) : NULL;

          /* What to do is said by the caller's own words: the CLI's option,
           * the window's choice. */
          if (name == NULL)
            g_set_error_literal (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE,
                                 _("model_type: missing, so the architecture is unknown; pick a "
                                   "preset, or read it as a generic Llama-style decoder"));
          /* Refused by name: the core's reason, no generic decoder offered. */
          else if (hr_config_refusal (type) != NULL)
            g_set_error (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNSUPPORTED,
                         "model_type “%s”: %s", name, hr_config_refusal (type));
          else
            g_set_error (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE,
                         _("model_type “%s” is not a family Headroom knows; pick a preset, or "
                           "read it as a generic Llama-style decoder"), name);
          return FALSE;
        }
      headroom_hf_config_set_error (error, &err);
      return FALSE;
    }

  if (model_type != NULL && type_node != NULL && JSON_NODE_HOLDS_VALUE (type_node))
    *model_type = g_strdup (json_node_get_string (type_node));

  return TRUE;
}

/* json-glib wraps integers beyond 64 bits silently, so the text is checked
 * first: an integer literal outside int64 is an error naming its key (the
 * string before the colon). */
static gboolean
check_integer_range (const char  *data,
                     gsize        size,
                     GError     **error)
{
  const char *key = NULL;
  gsize key_length = 0;
  char previous = '\0';

  for (gsize i = 0; i < size; i++)
    {
      char c = data[i];

      if (c == '"')
        {
          gsize start = ++i;

          while (i < size && data[i] != '"')
            i += data[i] == '\\' ? 2 : 1;
          key = data + start;
          key_length = MIN (i, size) - start;
          previous = '"';
        }
      else if ((c == '-' || g_ascii_isdigit (c))
               && (previous == ':' || previous == ',' || previous == '['))
        {
          gsize start = i;
          g_autofree char *literal = NULL;
          gint64 value;

          i += c == '-';
          while (i < size && g_ascii_isdigit (data[i]))
            i++;
          if (i < size && (data[i] == '.' || data[i] == 'e' || data[i] == 'E'))
            {
              /* A fraction or an exponent: json-glib reads a double. */
              while (i < size && (g_ascii_isalnum (data[i]) || data[i] == '.' || data[i] == '-' || data[i] == '+'))
                i++;
            }
          else
            {
              literal = g_strndup (data + start, i - start);
              if (!g_ascii_string_to_signed (literal, 10, G_MININT64, G_MAXINT64, &value, NULL))
                {
                  /* The key is quoted from the file: escaped, one line. */
                  g_autofree char *name = g_strndup (previous == ':' && key != NULL ? key : "value",
                                                     previous == ':' && key != NULL
                                                     ? MIN (key_length, 200) : 5);
                  g_autofree char *safe = headroom_format_one_line (name);

                  if (strcmp (literal, "-") == 0)
                    /* json-glib reads "- 1"; JSON has no such number. */
                    g_set_error (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_INVALID,
                                 "%s: a minus sign without digits is not a JSON number", safe);
                  else
                    g_set_error (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_INVALID,
                                 "%s: %s does not fit 64 bits", safe, literal);
                  return FALSE;
                }
            }
          i--;
          previous = '0';
        }
      else if (!g_ascii_isspace (c))
        previous = c;
    }

  return TRUE;
}

JsonObject *
headroom_hf_config_parse_bytes (GBytes  *bytes,
                                GError **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *data;
  gsize size;

  g_return_val_if_fail (bytes != NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (data == NULL)
    data = "";
  if (size > G_MAXSSIZE)
    size = G_MAXSSIZE;

  /* Nesting depth, trailing content and non-finite numbers checked; one line. */
  root = headroom_json_parse (data, size, &local_error);
  if (root == NULL)
    {
      if (g_error_matches (local_error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_NOT_FINITE))
        g_set_error_literal (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_INVALID,
                             local_error->message);
      else
        g_set_error (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_PARSE,
                     "not valid JSON: %s", local_error->message);
      return NULL;
    }

  if (!check_integer_range (data, size, error))
    return NULL;

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_PARSE,
                           "not a config: the JSON root is not an object");
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

gboolean
headroom_hf_config_read_bytes (GBytes      *bytes,
                               HrModel     *model,
                               char       **model_type,
                               unsigned    *warnings,
                               GError     **error)
{
  g_autoptr(JsonObject) config = headroom_hf_config_parse_bytes (bytes, error);

  if (config == NULL)
    return FALSE;

  return headroom_hf_config_read (config, model, model_type, warnings, error);
}

gboolean
headroom_hf_config_read_file (GFile       *file,
                              HrModel     *model,
                              char       **model_type,
                              unsigned    *warnings,
                              GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, &local_error);
  if (bytes == NULL)
    {
      /* The message names the file. */
      g_set_error_literal (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_IO,
                           local_error->message);
      return FALSE;
    }

  return headroom_hf_config_read_bytes (bytes, model, model_type, warnings, error);
}
