/* headroom-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-application.h"
#include "headroom-window.h"

struct _HeadroomApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (HeadroomApplication, headroom_application, ADW_TYPE_APPLICATION)

static void
headroom_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (headroom_window_new (HEADROOM_APPLICATION (app)));
  gtk_window_present (window);
}

static void
headroom_application_class_init (HeadroomApplicationClass *klass)
{
  G_APPLICATION_CLASS (klass)->activate = headroom_application_activate;
}

static void
headroom_application_init (HeadroomApplication *self)
{
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
