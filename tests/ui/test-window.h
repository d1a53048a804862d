/* test-window.h: the application, windows and helpers the window tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "test-ui.h"

#include "headroom-application.h"
#include "headroom-spin-row.h"
#include "headroom-window-private.h"

/* Llama-3.1-8B has 8,030,261,248 parameters (known-models.json). One layer:
 * q and o 4096², k and v 4096·1024 each, MLP 3·4096·14336, two RMSNorms of
 * 4096: 33,554,432 + 8,388,608 + 176,160,768 + 8,192 = 218,112,000. */
#define LLAMA_8B_PARAMS   8030261248.0
#define LLAMA_8B_PER_LAYER 218112000.0

static HeadroomApplication *app;
static char *tmp_dir;

static inline HeadroomWindow *
window_new (void)
{
  HeadroomWindow *window = headroom_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  drain_main_loop ();
  return window;
}

static inline void
window_destroy (HeadroomWindow *window)
{
  headroom_project_set_modified (headroom_window_get_project (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

static inline void
set_spin (HeadroomWindow *window,
          const char     *key,
          double          value)
{
  GtkWidget *row = headroom_window_get_row (window, key);

  g_assert_true (HEADROOM_IS_SPIN_ROW (row));
  headroom_spin_row_set_value (HEADROOM_SPIN_ROW (row), value);
  drain_main_loop ();
}

/* The application and a temporary home, before the tests are added. */
static inline void
window_tests_init (int          *argc,
                   char       ***argv,
                   const char   *app_id)
{
  /* The cairo renderer draws faster than GL under Xvfb's software rendering. */
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  tmp_dir = g_dir_make_tmp ("headroom-test-window-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* The user's catalog and recent files go there, not to the real home. */
  {
    g_autofree char *data_dir = g_build_filename (tmp_dir, "data", NULL);

    g_setenv ("XDG_DATA_HOME", data_dir, TRUE);
  }
  gtk_test_init (argc, argv, NULL);
  adw_init ();

  app = headroom_application_new (app_id, G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
}

static inline void
window_tests_finish (void)
{
  g_clear_object (&app);
  remove_tree (tmp_dir);
  g_free (tmp_dir);
}
