/* test-application.c: the application starts, opens files, presents About and shortcuts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under a display (Xvfb) with GTK_A11Y=none; gtk_test_init makes warnings and
 * criticals fatal, so presenting any of these windows with a broken template fails.
 */
#include "config.h"

#include "test-ui.h"

#include <string.h>

#include <glib/gstdio.h>

#include "headroom-application.h"
#include "headroom-window-private.h"

static HeadroomApplication *app;
static char *tmp_dir;

/* Dispatches what is pending, for at most a second (an animation would never run dry). */
static void
drain_main_loop_bounded (void)
{
  gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;

  while (g_main_context_iteration (NULL, FALSE) && g_get_monotonic_time () < deadline)
    ;
}

static GtkWindow *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type))
        return window;
    }
  return NULL;
}

static GtkWindow *
main_window (void)
{
  GtkWindow *window;

  g_application_activate (G_APPLICATION (app));
  window = gtk_application_get_active_window (GTK_APPLICATION (app));
  g_assert_true (HEADROOM_IS_WINDOW (window));
  wait_until_mapped (GTK_WIDGET (window));
  return window;
}

static void
test_window_presents (void)
{
  GtkWindow *window = main_window ();

  /* activate again presents the same window rather than a second one */
  g_application_activate (G_APPLICATION (app));
  g_assert_true (gtk_application_get_active_window (GTK_APPLICATION (app)) == window);
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 1);

  g_assert_cmpint (gtk_widget_has_css_class (GTK_WIDGET (window), "devel"), ==,
                   headroom_application_is_devel (app));
  /* the app icon comes from the resource bundle when running uninstalled */
  g_assert_true (gtk_icon_theme_has_icon (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                          APP_ID));
}

static void
test_quit_accel (void)
{
  g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "app.quit");

  g_assert_cmpstrv (accels, ((const char *[]) { "<Control>q", NULL }));
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (app), "quit"));
}

/* Issue 15: Ctrl+Q (app.quit) asks about unsaved changes as the close
 * button does; without changes, it closes the window. */
static void
test_quit_asks (void)
{
  GtkWindow *window = main_window ();
  HeadroomProject *project = headroom_window_get_project (HEADROOM_WINDOW (window));
  GtkWindow *dialog;

  g_object_ref (window);
  g_assert_true (headroom_project_set_int (project, "training.micro_batch", 2, NULL));
  g_assert_true (headroom_project_get_modified (project));
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  drain_main_loop_bounded ();

  dialog = find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  g_assert_nonnull (dialog);
  g_assert_nonnull (g_list_find (gtk_application_get_windows (GTK_APPLICATION (app)), window));
  /* As its Cancel button does: the response, then the dialog goes. */
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  gtk_window_destroy (dialog);
  drain_main_loop_bounded ();
  g_assert_nonnull (g_list_find (gtk_application_get_windows (GTK_APPLICATION (app)), window));

  /* Saved or unchanged: quit closes without asking. */
  headroom_project_set_modified (project, FALSE);
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  drain_main_loop_bounded ();
  dialog = find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  g_assert_true (dialog == NULL || !gtk_widget_get_visible (GTK_WIDGET (dialog)));
  g_assert_null (g_list_find (gtk_application_get_windows (GTK_APPLICATION (app)), window));
  g_object_unref (window);
}

static void
test_about (void)
{
  GtkWindow *window = main_window ();
  GtkWindow *about;

  g_assert_null (find_toplevel (ADW_TYPE_ABOUT_WINDOW));
  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  about = find_toplevel (ADW_TYPE_ABOUT_WINDOW);
  g_assert_nonnull (about);
  wait_until_mapped (GTK_WIDGET (about));

  g_assert_true (gtk_window_get_transient_for (about) == window);
  g_assert_cmpstr (adw_about_window_get_application_name (ADW_ABOUT_WINDOW (about)), ==, "Headroom");
  g_assert_cmpstr (adw_about_window_get_application_icon (ADW_ABOUT_WINDOW (about)), ==, APP_ID);
  g_assert_cmpstr (adw_about_window_get_version (ADW_ABOUT_WINDOW (about)), ==, PACKAGE_VERSION);
  g_assert_cmpint (adw_about_window_get_license_type (ADW_ABOUT_WINDOW (about)), ==, GTK_LICENSE_GPL_3_0);

  gtk_window_destroy (about);
  drain_main_loop_bounded ();
  g_assert_null (find_toplevel (ADW_TYPE_ABOUT_WINDOW));
}

static void
test_shortcuts (void)
{
  GtkWindow *window = main_window ();
  GtkShortcutsWindow *overlay;

  overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  g_assert_nonnull (overlay);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL));
  wait_until_mapped (GTK_WIDGET (overlay));

  gtk_widget_set_visible (GTK_WIDGET (overlay), FALSE);
  drain_main_loop_bounded ();
}

static void
test_size_in_settings (void)
{
  GSettings *settings = headroom_application_get_settings (app);
  GtkWindow *window;
  int width, height;

  /* A new window opens at the saved size... */
  g_settings_set_int (settings, "window-width", 900);
  g_settings_set_int (settings, "window-height", 600);
  window = GTK_WINDOW (headroom_window_new (app));
  gtk_window_get_default_size (window, &width, &height);
  g_assert_cmpint (width, ==, 900);
  g_assert_cmpint (height, ==, 600);

  /* ...and its size changes are saved. */
  gtk_window_set_default_size (window, 1000, 700);
  drain_main_loop_bounded ();
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1000);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 700);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));

  gtk_window_destroy (window);
}

static void
test_open_file (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GFile) file = g_file_new_build_filename (g_get_tmp_dir (), "opened.headroom.json", NULL);
  g_autoptr(GError) error = NULL;
  GtkApplication *gtk_app = GTK_APPLICATION (app);
  guint n_windows = g_list_length (gtk_application_get_windows (gtk_app));
  HeadroomWindow *window = NULL;

  g_assert_true (headroom_project_save (project, file, NULL, &error));
  g_assert_no_error (error);

  g_application_open (G_APPLICATION (app), &file, 1, "");

  /* a window of its own, showing that file */
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (gtk_app)), ==, n_windows + 1);
  for (GList *l = gtk_application_get_windows (gtk_app); l != NULL; l = l->next)
    {
      GFile *shown = headroom_project_get_file (headroom_window_get_project (l->data));

      if (shown != NULL && g_file_equal (shown, file))
        window = l->data;
    }
  g_assert_nonnull (window);
  wait_until_mapped (GTK_WIDGET (window));

  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop_bounded ();
}

/* `headroom bad.json` sent to a running instance: no new window with the
 * default project beside the error; the window the user has says what failed
 * and names the file, in a dialog (issue 16). */
static void
test_open_bad_file (void)
{
  g_autoptr(GFile) file = g_file_new_build_filename (g_get_tmp_dir (), "bad <&> project.json", NULL);
  g_autoptr(GError) error = NULL;
  GtkApplication *gtk_app = GTK_APPLICATION (app);
  GtkWindow *running = GTK_WINDOW (headroom_window_new (app));
  HeadroomProject *before = headroom_window_get_project (HEADROOM_WINDOW (running));
  AdwMessageDialog *dialog;
  guint n_windows;

  gtk_window_present (running);
  wait_until_mapped (GTK_WIDGET (running));
  /* Truncated JSON. */
  g_assert_true (g_file_replace_contents (file, "{\"format\": \"headroom-project\", ", 34, NULL, FALSE,
                                          G_FILE_CREATE_NONE, NULL, NULL, &error));
  g_assert_no_error (error);
  n_windows = g_list_length (gtk_application_get_windows (gtk_app));

  g_application_open (G_APPLICATION (app), &file, 1, "");
  drain_main_loop_bounded ();

  /* No project window was added; the running one shows the error. */
  dialog = headroom_window_get_error_dialog (HEADROOM_WINDOW (running));
  g_assert_nonnull (dialog);
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (gtk_app)), ==, n_windows);
  g_assert_true (headroom_window_get_project (HEADROOM_WINDOW (running)) == before);
  g_assert_nonnull (strstr (adw_message_dialog_get_heading (dialog), "bad <&> project.json"));
  g_assert_cmpstr (adw_message_dialog_get_body (dialog), !=, "");
  g_assert_false (adw_message_dialog_get_body_use_markup (dialog));

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (running);
  drain_main_loop_bounded ();
  g_file_delete (file, NULL, NULL);
}

/* A user gpus.json with a stray comma ending line 2 (where json-glib
 * reports it): the window names the file, the line and the fault in a
 * banner (issue 15). The first test, so that the catalog loads with the
 * file there; the others do not save to the catalog. */
static void
test_catalog_error (void)
{
  g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "headroom", NULL);
  g_autofree char *path = g_build_filename (dir, "gpus.json", NULL);
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  GtkLabel *banner;

  /* main's temporary XDG_DATA_HOME: never the user's own file. */
  g_assert_true (g_str_has_prefix (dir, tmp_dir));
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, "{\"format\": \"headroom-gpus\", \"version\": 1,\n"
                                            "  \"gpus\": [],\n}\n", -1, &error));
  window = main_window ();

  drain_main_loop_bounded ();
  banner = find_label (GTK_WIDGET (window), "A catalog file did not load");
  g_assert_nonnull (banner);
  g_assert_nonnull (strstr (gtk_label_get_label (banner), "headroom/gpus.json"));
  g_assert_nonnull (strstr (gtk_label_get_label (banner), "line 2"));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  /* The user's catalog goes to a temporary directory, not the real home:
   * gtk_test_init() does not isolate the directories. */
  tmp_dir = g_dir_make_tmp ("headroom-test-application-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  {
    g_autofree char *data_dir = g_build_filename (tmp_dir, "data", NULL);

    g_setenv ("XDG_DATA_HOME", data_dir, TRUE);
  }
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  app = headroom_application_new (APP_ID, G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/application/catalog-error", test_catalog_error);
  g_test_add_func ("/application/window-presents", test_window_presents);
  g_test_add_func ("/application/quit-accel", test_quit_accel);
  g_test_add_func ("/application/about", test_about);
  g_test_add_func ("/application/shortcuts", test_shortcuts);
  g_test_add_func ("/application/size-in-settings", test_size_in_settings);
  g_test_add_func ("/application/open-file", test_open_file);
  g_test_add_func ("/application/open-bad-file", test_open_bad_file);
  g_test_add_func ("/application/quit-asks", test_quit_asks);

  status = g_test_run ();

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL;
       l = gtk_application_get_windows (GTK_APPLICATION (app)))
    gtk_window_destroy (l->data);
  g_clear_object (&app);
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
