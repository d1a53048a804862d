/* test-ui.h: helpers the window tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

/* Runs the main loop until nothing is left, three times over with a pause:
 * the estimator and the views work from idle sources. */
static inline void
drain_main_loop (void)
{
  for (guint i = 0; i < 3; i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }
}

/* Spins the main loop until @widget is mapped, failing after five seconds. */
static inline void
wait_until_mapped (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (!gtk_widget_get_mapped (widget) && g_get_monotonic_time () < deadline)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  g_assert_true (gtk_widget_get_mapped (widget));
}

/* The first mapped label under `widget` whose text contains `part`. */
static inline GtkLabel *
find_label (GtkWidget  *widget,
            const char *part)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget)
      && strstr (gtk_label_get_label (GTK_LABEL (widget)), part) != NULL)
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label (child, part);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Removes the temporary tree of the tests (files the tests or GTK wrote). */
static inline void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
      g_dir_close (dir);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}
