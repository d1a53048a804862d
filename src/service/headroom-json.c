/* headroom-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "headroom-format.h"
#include "headroom-json.h"

/* NOT_FINITE carries the path of the number as data. */
typedef struct
{
  char *path;
} HeadroomJsonErrorPrivate;

static void
headroom_json_error_private_init (HeadroomJsonErrorPrivate *priv)
{
  priv->path = NULL;
}

static void
headroom_json_error_private_copy (const HeadroomJsonErrorPrivate *src,
                                  HeadroomJsonErrorPrivate       *dest)
{
  dest->path = g_strdup (src->path);
}

static void
headroom_json_error_private_clear (HeadroomJsonErrorPrivate *priv)
{
  g_clear_pointer (&priv->path, g_free);
}

G_DEFINE_EXTENDED_ERROR (HeadroomJsonError, headroom_json_error)

const char *
headroom_json_error_get_path (const GError *error)
{
  if (error == NULL || error->domain != HEADROOM_JSON_ERROR)
    return NULL;
  return headroom_json_error_get_private (error)->path;
}

/* One pass over the text as json-glib's scanner reads it (strings with
 * escapes, C and C++ comments): the nesting depth, and what follows the
 * closing bracket of the root. Unbalanced text is left to json-glib. */
static gboolean
prescan (const char  *data,
         gsize        size,
         GError     **error)
{
  guint depth = 0;
  gboolean closed = FALSE;
  guint line = 1;

  for (gsize i = 0; i < size; i++)
    {
      char c = data[i];

      if (c == '\n')
        line++;
      if (c == '"')
        {
          for (i++; i < size && data[i] != '"'; i++)
            {
              if (data[i] == '\\')
                {
                  /* RFC 8259 §7 has these escapes only; json-glib also takes
                   * octal ones ("\222"), which make text that is not UTF-8. */
                  if (++i < size && (data[i] == '\0' || strchr ("\"\\/bfnrtu", data[i]) == NULL))
                    {
                      g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX,
                                   _("line %u: “\\%c” is not a JSON escape"), line,
                                   g_ascii_isprint (data[i]) ? data[i] : '?');
                      return FALSE;
                    }
                  /* json-glib reads "\\ude" followed by a non-digit as a lone
                   * surrogate; RFC 8259 wants exactly four hex digits. */
                  if (i < size && data[i] == 'u')
                    {
                      for (int d = 1; d <= 4; d++)
                        if (i + d >= size || !g_ascii_isxdigit (data[i + d]))
                          {
                            g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX,
                                         _("line %u: “\\u” needs four hex digits"), line);
                            return FALSE;
                          }
                    }
                }
              else if (data[i] == '\n')
                line++;
            }
          if (closed)
            goto trailing;
          continue;
        }
      if (c == '/' && i + 1 < size && data[i + 1] == '*')
        {
          for (i += 2; i + 1 < size && !(data[i] == '*' && data[i + 1] == '/'); i++)
            if (data[i] == '\n')
              line++;
          i++;
          continue;
        }
      if (c == '/' && i + 1 < size && data[i + 1] == '/')
        {
          while (i + 1 < size && data[i + 1] != '\n')
            i++;
          continue;
        }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
        continue;
      if (closed)
        goto trailing;
      if (c == '{' || c == '[')
        {
          if (++depth > HEADROOM_JSON_MAX_DEPTH)
            {
              g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_DEPTH,
                           _("line %u: nested deeper than %d levels"), line,
                           HEADROOM_JSON_MAX_DEPTH);
              return FALSE;
            }
        }
      else if (c == '}' || c == ']')
        {
          if (depth == 0)
            return TRUE;
          if (--depth == 0)
            closed = TRUE;
        }
    }
  return TRUE;

trailing:
  g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_TRAILING,
               _("line %u: unexpected content after the end of the JSON object"), line);
  return FALSE;
}

gboolean
headroom_json_check_finite (JsonNode    *node,
                            const char  *path,
                            GError     **error)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *child = NULL;

          /* A "\ud800" escape alone decodes to text that is not UTF-8. */
          if (!g_utf8_validate (l->data, -1, NULL))
            {
              g_autofree char *name = path != NULL ? headroom_format_one_line (path) : NULL;

              if (name != NULL)
                g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX,
                             _("%s: a member’s name is not UTF-8 text"), name);
              else
                g_set_error_literal (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX,
                                     _("a member’s name is not UTF-8 text"));
              return FALSE;
            }
          child = path != NULL ? g_strconcat (path, ".", l->data, NULL) : g_strdup (l->data);

          if (!headroom_json_check_finite (json_object_get_member (object, l->data), child,
                                           error))
            return FALSE;
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_autofree char *child = g_strdup_printf ("%s[%u]", path != NULL ? path : "", i);

          if (!headroom_json_check_finite (json_array_get_element (array, i), child, error))
            return FALSE;
        }
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
           && !g_utf8_validate (json_node_get_string (node), -1, NULL))
    {
      /* "\\ud800" alone is a valid escape that decodes to text that is not
       * UTF-8; kept as an unknown member it would save a file that cannot load. */
      g_autofree char *name = headroom_format_one_line (path != NULL ? path : "");

      g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX,
                   _("%s: not UTF-8 text"), name);
      return FALSE;
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE
           && !isfinite (json_node_get_double (node)))
    {
      g_autofree char *name = headroom_format_one_line (path != NULL ? path : "");

      g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_NOT_FINITE,
                   _("%s: not a finite number"), name);
      if (error != NULL)
        headroom_json_error_get_private (*error)->path = g_steal_pointer (&name);
      return FALSE;
    }
  return TRUE;
}

JsonNode *
headroom_json_parse (const char  *data,
                     gsize        size,
                     GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  g_return_val_if_fail (data != NULL || size == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (data == NULL)
    data = "";
  if (size > G_MAXSSIZE)
    size = G_MAXSSIZE;
  if (!prescan (data, size, error))
    return NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) size, &local_error))
    {
      /* json-glib quotes the offending text: raw bytes, line breaks included. */
      g_autofree char *message = headroom_format_one_line (local_error->message);
      const char *rest = message;
      guint64 line, column;
      char *end;

      /* "<data>:3:14: Parse error: …" → "line 3, column 14: …" */
      if (g_str_has_prefix (rest, "<data>:"))
        {
          line = g_ascii_strtoull (rest + 7, &end, 10);
          if (*end == ':')
            {
              column = g_ascii_strtoull (end + 1, &end, 10);
              if (g_str_has_prefix (end, ": Parse error: "))
                {
                  g_set_error (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX,
                               _("line %" G_GUINT64_FORMAT ", column %" G_GUINT64_FORMAT ": %s"),
                               line, column, end + strlen (": Parse error: "));
                  return NULL;
                }
            }
        }
      g_set_error_literal (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX, message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, HEADROOM_JSON_ERROR, HEADROOM_JSON_ERROR_SYNTAX,
                           _("the file is empty"));
      return NULL;
    }
  if (!headroom_json_check_finite (root, NULL, error))
    return NULL;
  return json_node_ref (root);
}
