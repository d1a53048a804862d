/* headroom-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-window.h"

struct _HeadroomWindow
{
  AdwApplicationWindow parent_instance;
};

G_DEFINE_FINAL_TYPE (HeadroomWindow, headroom_window, ADW_TYPE_APPLICATION_WINDOW)

static void
headroom_window_class_init (HeadroomWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-window.ui");
}

static void
headroom_window_init (HeadroomWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

HeadroomWindow *
headroom_window_new (HeadroomApplication *application)
{
  return g_object_new (HEADROOM_TYPE_WINDOW, "application", application, NULL);
}
