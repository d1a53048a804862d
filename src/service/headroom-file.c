/* headroom-file.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-file.h"
#include "headroom-format.h"

/* GIO quotes file names as they are: keep its messages on one line. */
static void
escape_message (GError *error)
{
  char *message;

  if (error == NULL)
    return;
  message = headroom_format_one_line (error->message);
  g_free (error->message);
  error->message = message;
}

/* The name of `file` for a message: one line, control characters escaped. */
static char *
display_name (GFile *file)
{
  g_autofree char *name = g_file_get_parse_name (file);

  return headroom_format_one_line (name);
}

static void
set_too_large (GError     **error,
               const char  *name,
               gsize        max_size)
{
  /* TRANSLATORS: the limit is in KiB, "4096 KiB" */
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
               _("%s: the file is larger than %" G_GSIZE_FORMAT " KiB, the most Headroom reads"),
               name, max_size / 1024);
}

GBytes *
headroom_file_load (GFile         *file,
                    gsize          max_size,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *buffer = NULL;
  gsize length = 0;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, cancellable, &local_error);
  if (info == NULL)
    {
      escape_message (local_error);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  name = display_name (file);
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("%s: not a regular file"), name);
      return NULL;
    }
  if ((guint64) g_file_info_get_size (info) > max_size)
    {
      set_too_large (error, name, max_size);
      return NULL;
    }

  stream = g_file_read (file, cancellable, &local_error);
  /* The size may have changed since: read one byte past the cap to know. */
  buffer = g_malloc (max_size + 1);
  if (stream == NULL
      || !g_input_stream_read_all (G_INPUT_STREAM (stream), buffer, max_size + 1, &length,
                                   cancellable, &local_error))
    {
      escape_message (local_error);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (length > max_size)
    {
      set_too_large (error, name, max_size);
      return NULL;
    }
  return g_bytes_new_take (g_realloc (g_steal_pointer (&buffer), MAX (length, 1)), length);
}

/* The file `file` names once symbolic links are followed (the link itself
 * when it dangles: saving creates its target). */
static GFile *
resolve_links (GFile   *file,
               GError **error)
{
  g_autoptr(GFile) target = g_object_ref (file);

  /* 40 as Linux's MAXSYMLINKS. */
  for (int i = 0; i < 40; i++)
    {
      g_autoptr(GFileInfo) info = NULL;
      g_autoptr(GFile) parent = NULL;
      const char *link;

      info = g_file_query_info (target, G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK ","
                                        G_FILE_ATTRIBUTE_STANDARD_SYMLINK_TARGET,
                                G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
      if (info == NULL || !g_file_info_get_is_symlink (info))
        return g_steal_pointer (&target);
      link = g_file_info_get_symlink_target (info);
      parent = g_file_get_parent (target);
      if (link == NULL || parent == NULL)
        return g_steal_pointer (&target);
      g_object_unref (target);
      target = g_file_resolve_relative_path (parent, link);
    }

  {
    g_autofree char *name = display_name (file);

    g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                 _("%s: too many levels of symbolic links"), name);
  }
  return NULL;
}

/* A new, empty file next to `target`, named after it. */
static GFileOutputStream *
create_temporary (GFile         *target,
                  GFile        **temporary,
                  GCancellable  *cancellable,
                  GError       **error)
{
  g_autoptr(GFile) parent = g_file_get_parent (target);
  g_autofree char *base = g_file_get_basename (target);

  if (parent == NULL || base == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                           _("Cannot save to the root of a file system"));
      return NULL;
    }
  for (int attempt = 0;; attempt++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autofree char *name = g_strdup_printf (".%s.%08x~", base, g_random_int ());
      g_autoptr(GFile) file = g_file_get_child (parent, name);
      GFileOutputStream *stream;

      stream = g_file_create (file, G_FILE_CREATE_NONE, cancellable, &local_error);
      if (stream != NULL)
        {
          *temporary = g_steal_pointer (&file);
          return stream;
        }
      if (attempt >= 100 || !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
    }
}

gboolean
headroom_file_save (GFile         *file,
                    const void    *data,
                    gsize          size,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GFile) target = NULL;
  g_autoptr(GFile) temporary = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (data != NULL || size == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  target = resolve_links (file, error);
  if (target == NULL)
    return FALSE;

  if (g_file_query_exists (target, cancellable))
    /* GIO writes a temporary file next to an existing one, gives it the
     * original's mode and renames it over the original on close. */
    stream = g_file_replace (target, NULL, FALSE, G_FILE_CREATE_NONE, cancellable, error);
  else
    stream = create_temporary (target, &temporary, cancellable, error);
  if (stream == NULL)
    return FALSE;

  if (!g_output_stream_write_all (G_OUTPUT_STREAM (stream), data, size, NULL, cancellable,
                                  &local_error))
    {
      g_autoptr(GCancellable) abandon = g_cancellable_new ();

      /* Closing with a cancelled cancellable drops the temporary file and
       * leaves the original untouched (a plain close would rename the
       * partial file over it). */
      g_cancellable_cancel (abandon);
      g_output_stream_close (G_OUTPUT_STREAM (stream), abandon, NULL);
      if (temporary != NULL)
        g_file_delete (temporary, NULL, NULL);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (!g_output_stream_close (G_OUTPUT_STREAM (stream), cancellable, error))
    {
      if (temporary != NULL)
        g_file_delete (temporary, NULL, NULL);
      return FALSE;
    }
  if (temporary != NULL
      && !g_file_move (temporary, target, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NO_FALLBACK_FOR_MOVE,
                       cancellable, NULL, NULL, error))
    {
      g_file_delete (temporary, NULL, NULL);
      return FALSE;
    }
  return TRUE;
}
