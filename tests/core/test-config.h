/* test-config.h: reading a JSON object as config.json, shared by the config tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "hr-config.h"

/* An HrConfigSource over a JSON object (the key table of each test). */
static inline void
object_lookup (void       *user_data,
               const char *key,
               HrValue    *value)
{
  JsonObject *object = user_data;
  g_auto(GStrv) parts = g_strsplit (key, ".", -1);
  JsonNode *node = NULL;

  JsonArray *array = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (array != NULL)
        {
          guint index = (guint) g_ascii_strtoull (parts[i], NULL, 10);

          if (index >= json_array_get_length (array))
            return;
          node = json_array_get_element (array, index);
        }
      else if (object != NULL && json_object_has_member (object, parts[i]))
        node = json_object_get_member (object, parts[i]);
      else
        return;
      object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
    }
  if (node == NULL)
    return;
  if (JSON_NODE_HOLDS_NULL (node))
    value->type = HR_VALUE_NULL;
  else if (array != NULL)
    {
      value->type = HR_VALUE_OTHER;
      value->i = json_array_get_length (array);
    }
  else if (!JSON_NODE_HOLDS_VALUE (node))
    {
      value->type = HR_VALUE_OTHER;
      value->i = -1;
    }
  else
    switch (json_node_get_value_type (node))
      {
      case G_TYPE_INT64:
        value->type = HR_VALUE_INT;
        value->i = json_node_get_int (node);
        value->d = (double) value->i;
        break;
      case G_TYPE_DOUBLE:
        value->type = HR_VALUE_DOUBLE;
        value->d = json_node_get_double (node);
        break;
      case G_TYPE_BOOLEAN:
        value->type = HR_VALUE_BOOL;
        value->b = json_node_get_boolean (node);
        break;
      case G_TYPE_STRING:
        value->type = HR_VALUE_STRING;
        value->s = json_node_get_string (node);
        break;
      default:
        value->type = HR_VALUE_OTHER;
        break;
      }
}

/* The architecture the next read_object() assumes for an unknown model_type. */
static HrAssume assume = HR_ASSUME_NONE;

static inline HrStatus
read_object (JsonObject *object,
             HrModel    *model,
             unsigned   *warnings,
             HrError    *err)
{
  HrConfigSource source = { object, object_lookup };

  return hr_model_from_config_assuming (&source, assume, model, warnings, err);
}

static inline JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return node;
}

/* Reads `json` and counts it; returns the counts. */
static inline HrParams
count (const char *json,
       unsigned    expected_warnings)
{
  g_autoptr(JsonNode) node = parse (json);
  HrModel model;
  HrParams params;
  HrError err = { 0 };
  unsigned warnings = 99;

  g_assert_cmpint (read_object (json_node_get_object (node), &model, &warnings, &err), ==, HR_OK);
  g_assert_cmpuint (warnings, ==, expected_warnings);
  g_assert_cmpint (hr_model_params (&model, &params, &err), ==, HR_OK);
  return params;
}

static inline HrModel
model_of (const char *json)
{
  g_autoptr(JsonNode) node = parse (json);
  HrModel model;
  HrError err = { 0 };

  g_assert_cmpint (read_object (json_node_get_object (node), &model, NULL, &err), ==, HR_OK);
  return model;
}

static inline void
expect_error (const char *json,
              HrStatus    status,
              const char *field)
{
  g_autoptr(JsonNode) node = parse (json);
  HrModel model;
  HrParams params;
  HrError err = { 0 };
  HrStatus got;

  got = read_object (json_node_get_object (node), &model, NULL, &err);
  if (got == HR_OK && status == HR_ERROR_OVERFLOW)
    got = hr_model_params (&model, &params, &err);
  g_assert_cmpint (got, ==, status);
  g_assert_cmpstr (err.field, ==, field);
}
