/* headroom-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-application.h"
#include "headroom-window-private.h"
#include "headroom-window.h"

struct _HeadroomApplication
{
  AdwApplication  parent_instance;

  GSettings      *settings;
};

G_DEFINE_FINAL_TYPE (HeadroomApplication, headroom_application, ADW_TYPE_APPLICATION)

static GtkWindow *
headroom_application_new_window (HeadroomApplication *self)
{
  GtkWindow *window = GTK_WINDOW (headroom_window_new (self));

  if (headroom_application_is_devel (self))
    gtk_widget_add_css_class (GTK_WIDGET (window), "devel");
  return window;
}

static void
headroom_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = headroom_application_new_window (HEADROOM_APPLICATION (app));
  gtk_window_present (window);
}

/* `headroom FILE...`: each project or config.json in a window of its own, so that a
 * running instance keeps its document. A file that cannot be opened opens no
 * window: the error shows on the window the user has (or a new one if none). */
static void
headroom_application_open (GApplication  *app,
                           GFile        **files,
                           int            n_files,
                           const char    *hint)
{
  for (int i = 0; i < n_files; i++)
    {
      g_autoptr(GError) error = NULL;
      GtkWindow *previous = NULL;
      GtkWindow *window;

      /* The most recently focused project window comes first. */
      for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
        if (HEADROOM_IS_WINDOW (l->data))
          {
            previous = l->data;
            break;
          }
      window = headroom_application_new_window (HEADROOM_APPLICATION (app));
      if (headroom_window_load_file (HEADROOM_WINDOW (window), files[i], &error))
        {
          gtk_window_present (window);
          continue;
        }
      if (previous != NULL)
        {
          gtk_window_destroy (window);
          window = previous;
        }
      gtk_window_present (window);
      {
        g_autofree char *name = g_file_get_basename (files[i]);
        /* TRANSLATORS: a dialog's heading; %s is a file name */
        g_autofree char *heading = g_strdup_printf (_("Could Not Open “%s”"), name);

        headroom_window_show_error (HEADROOM_WINDOW (window), heading, error);
      }
    }
}

static void
headroom_application_quit_action (GSimpleAction *action,
                                  GVariant      *parameter,
                                  gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  GList *windows = g_list_copy (gtk_application_get_windows (app));

  /* Every way out asks about unsaved changes, as the close button does: each
   * window closes through its close-request, and the application ends with
   * its last window. */
  if (windows == NULL)
    g_application_quit (G_APPLICATION (app));
  g_list_foreach (windows, (GFunc) (void (*) (void)) g_object_ref, NULL);
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free_full (windows, g_object_unref);
}

static void
headroom_application_about_action (GSimpleAction *action,
                                   GVariant      *parameter,
                                   gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  const char *developers[] = { _("The Headroom developers"), NULL };

  adw_show_about_window (gtk_application_get_active_window (app),
                         "application-name", _("Headroom"),
                         "application-icon", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Estimate the memory and compute of transformer models"),
                         "developer-name", _("The Headroom developers"),
                         "developers", developers,
                         /* Translators: Replace with your names, one per line. */
                         "translator-credits", _("translator-credits"),
                         "copyright", _("© 2026 The Headroom developers"),
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "website", "https://github.com/headroom/headroom",
                         "issue-url", "https://github.com/headroom/headroom/issues",
                         NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", headroom_application_quit_action },
  { "about", headroom_application_about_action },
};

static void
headroom_application_startup (GApplication *app)
{
  G_APPLICATION_CLASS (headroom_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions,
                                   G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit",
                                         (const char *[]) { "<primary>q", NULL });
}

static void
headroom_application_dispose (GObject *object)
{
  HeadroomApplication *self = HEADROOM_APPLICATION (object);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (headroom_application_parent_class)->dispose (object);
}

static void
headroom_application_class_init (HeadroomApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = headroom_application_dispose;
  app_class->startup = headroom_application_startup;
  app_class->activate = headroom_application_activate;
  app_class->open = headroom_application_open;
}

static void
headroom_application_init (HeadroomApplication *self)
{
  self->settings = g_settings_new (HEADROOM_SETTINGS_SCHEMA_ID);
}

HeadroomApplication *
headroom_application_new (const char        *application_id,
                          GApplicationFlags  flags)
{
  return g_object_new (HEADROOM_TYPE_APPLICATION,
                       "application-id", application_id,
                       "flags", flags,
                       "resource-base-path", RESOURCE_BASE_PATH,
                       NULL);
}

/**
 * headroom_application_get_settings:
 * @self: a #HeadroomApplication
 *
 * Returns: (transfer none): the application's settings (schema %HEADROOM_SETTINGS_SCHEMA_ID)
 */
GSettings *
headroom_application_get_settings (HeadroomApplication *self)
{
  g_return_val_if_fail (HEADROOM_IS_APPLICATION (self), NULL);

  return self->settings;
}

/**
 * headroom_application_is_devel:
 * @self: a #HeadroomApplication
 *
 * Returns: whether this is the development profile (the .Devel application id)
 */
gboolean
headroom_application_is_devel (HeadroomApplication *self)
{
  g_return_val_if_fail (HEADROOM_IS_APPLICATION (self), FALSE);

  return g_str_equal (PROFILE, "development");
}
