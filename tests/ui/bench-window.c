/* bench-window.c: how fast the real window answers an edit, and screenshots of it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built, not run as a test: it measures wall-clock time on whatever machine
 * runs it. Under Xvfb:
 *
 *   GSK_RENDERER=cairo bench-window          # or gl, ngl
 *   bench-window --shot wide.png --width 1280 --height 800 [--dark] [--page hardware] [--scroll 1]
 *   valgrind --tool=callgrind bench-window --start   # the start's instructions
 *
 * Start: from main() to the end of the first frame painted with results.
 * Change: from a row's new value (as typing it sets it, its page shown)
 * through project, estimator and results view to the end of the next
 * painted frame; 50 changes over 5 settings. Stall: the longest single main-loop dispatch
 * while the changes run (a frame, an idle recompute, a sweep step…).
 * Frame: that frame's layout (measure and allocate) and its snapshot and
 * render, in wall-clock and in the main thread's CPU time.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "headroom-application.h"
#include "headroom-spin-row.h"
#include "headroom-window-private.h"

static gint64 t_main;
static gint64 cpu_paint;     /* process CPU time at updated_paint */

/* Process CPU time in µs: the work itself, without the waits a loaded
 * machine adds to the wall clock (the X server's own work is not in it). */
static gint64
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}
static gint64 frame_at, laid_out_at, rendered_at; /* this frame's before-paint, layout, paint */
static gint64 frame_cpu, laid_out_cpu, rendered_cpu; /* the same in the main thread's CPU time */
static double sum_layout, sum_render, sum_layout_cpu, sum_render_cpu;

static gint64
thread_cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gint64 painted_at;   /* last after-paint */
static guint  n_paints;
static gboolean updated;    /* the estimator emitted ::updated since the last change */
static gint64 updated_paint; /* first after-paint after ::updated */

/* Connected after the window's own handlers: the end of the frame's layout
 * (measure and allocate) and of its paint (snapshot and render). */
static void
on_before_paint (GdkFrameClock *clock)
{
  frame_at = laid_out_at = rendered_at = g_get_monotonic_time ();
  frame_cpu = laid_out_cpu = rendered_cpu = thread_cpu_now ();
}

static void
on_layout (GdkFrameClock *clock)
{
  laid_out_at = rendered_at = g_get_monotonic_time ();
  laid_out_cpu = rendered_cpu = thread_cpu_now ();
}

static void
on_paint (GdkFrameClock *clock)
{
  rendered_at = g_get_monotonic_time ();
  rendered_cpu = thread_cpu_now ();
}

static void
on_after_paint (GdkFrameClock *clock)
{
  painted_at = g_get_monotonic_time ();
  n_paints++;
  if (updated && updated_paint == 0)
    {
      updated_paint = painted_at;
      cpu_paint = cpu_now ();
      sum_layout += (laid_out_at - frame_at) / 1000.0;
      sum_render += (rendered_at - laid_out_at) / 1000.0;
      sum_layout_cpu += (laid_out_cpu - frame_cpu) / 1000.0;
      sum_render_cpu += (rendered_cpu - laid_out_cpu) / 1000.0;
    }
}

static gint64 hook_at, handled_at;
static double sum_compute, sum_handlers, sum_paint;

/* The window's estimator only: What Fits' search and the sweep's worker
 * thread run estimators of their own. */
static gboolean
updated_hook (GSignalInvocationHint *hint,
              guint                  n_values,
              const GValue          *values,
              gpointer               data)
{
  if (g_value_get_object (&values[0]) == data)
    hook_at = g_get_monotonic_time ();
  return TRUE;
}

static void
on_updated (void)
{
  updated = TRUE;
  handled_at = g_get_monotonic_time ();
}

static gint64 stall_cpu;     /* the longest dispatch in the main thread's CPU time */

/* One dispatch at a time, timing each; returns the longest. */
static gint64
iterate_until (gboolean (*done) (gpointer), gpointer data, gint64 timeout_us)
{
  gint64 deadline = g_get_monotonic_time () + timeout_us;
  gint64 longest = 0;

  while (!done (data) && g_get_monotonic_time () < deadline)
    {
      gint64 start = g_get_monotonic_time ();
      gint64 start_cpu = thread_cpu_now ();

      if (g_main_context_iteration (NULL, FALSE))
        {
          longest = MAX (longest, g_get_monotonic_time () - start);
          stall_cpu = MAX (stall_cpu, thread_cpu_now () - start_cpu);
        }
      else
        g_usleep (200);
    }
  return longest;
}

static gboolean
has_painted_update (gpointer data)
{
  return updated_paint != 0;
}

static gboolean
painted_since (gpointer data)
{
  return n_paints > *(guint *) data;
}

/* No frame for 100 ms: what an action animates is over. */
static gboolean
settled (gpointer data)
{
  return g_get_monotonic_time () - painted_at > 100 * 1000;
}

static gboolean
first_frame_with_results (gpointer data)
{
  return n_paints > 0 && headroom_estimator_get_has_result (headroom_window_get_estimator (data))
         && updated_paint != 0;
}

static gboolean
never (gpointer data)
{
  return FALSE;
}

static int
compare (const void *a,
         const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static GtkWidget *
find_view_stack (GtkWidget  *widget,
                 const char *child_name)
{
  if (ADW_IS_VIEW_STACK (widget)
      && adw_view_stack_get_child_by_name (ADW_VIEW_STACK (widget), child_name) != NULL)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_view_stack (child, child_name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first scrolled window under `widget` that is drawn. */
static GtkScrolledWindow *
find_shown_scroller (GtkWidget *widget)
{
  if (!gtk_widget_get_mapped (widget))
    return NULL;
  if (GTK_IS_SCROLLED_WINDOW (widget))
    return GTK_SCROLLED_WINDOW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkScrolledWindow *found = find_shown_scroller (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Show the settings page that holds `row`, as a user editing it sees it. */
static void
show_page_of (GtkWidget *row)
{
  for (GtkWidget *page = row; gtk_widget_get_parent (page) != NULL; page = gtk_widget_get_parent (page))
    if (ADW_IS_VIEW_STACK (gtk_widget_get_parent (page)))
      {
        adw_view_stack_set_visible_child (ADW_VIEW_STACK (gtk_widget_get_parent (page)), page);
        return;
      }
}

static void
save_shot (GtkWidget  *window,
           const char *path)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (window), height = gtk_widget_get_height (window);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (!gdk_texture_save_to_png (texture, path))
    g_printerr ("could not write %s\n", path);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *shot = NULL;
  g_autofree char *page = NULL;
  g_autofree char *view = NULL;
  g_autofree char *open = NULL;
  int width = 1280, height = 800, n_changes = 50;
  double scroll = 0;
  gboolean dark = FALSE, results = FALSE, start_only = FALSE, verbose = FALSE;
  GOptionEntry entries[] = {
    { "shot", 0, 0, G_OPTION_ARG_FILENAME, &shot, "Save a screenshot instead of timing", "PNG" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Window width", "PX" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Window height", "PX" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark style", NULL },
    { "page", 0, 0, G_OPTION_ARG_STRING, &page, "Settings page: model, hardware, workload", "NAME" },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view, "Results view: estimate, plan, compare", "NAME" },
    { "results", 0, 0, G_OPTION_ARG_NONE, &results, "Folded: show the results", NULL },
    { "open", 0, 0, G_OPTION_ARG_FILENAME, &open, "Open a project first", "FILE" },
    { "scroll", 0, 0, G_OPTION_ARG_DOUBLE, &scroll, "Scroll the results (the --page folded) this far down (0 to 1)", "F" },
    { "changes", 0, 0, G_OPTION_ARG_INT, &n_changes, "Number of changes", "N" },
    { "start", 0, 0, G_OPTION_ARG_NONE, &start_only, "Time the start only: quit after the first frame", NULL },
    { "verbose", 0, 0, G_OPTION_ARG_NONE, &verbose, "Print each change's figures", NULL },
    { NULL }
  };
  static const struct { const char *key; double a, b; } edits[] = {
    { "training.micro_batch", 2, 1 },
    { "training.seq_len", 4096, 8192 },
    { "training.tensor_parallel", 4, 2 },
    { "training.zero_stage", 2, 1 },
    { "model.num_hidden_layers", 40, 32 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(HeadroomApplication) app = NULL;
  g_autofree double *latency = NULL;
  g_autofree double *cpu = NULL;
  HeadroomWindow *window;
  GdkFrameClock *clock;
  gint64 stall = 0, start_us, start_cpu;
  double start_layout, start_render, start_layout_cpu, start_render_cpu;

  t_main = g_get_monotonic_time ();
  /* The window binds its size to GSettings: in memory, --width is not
   * overridden by the saved size (nor reverted when dconf cannot write
   * without a session bus), and the user's saved size is left alone. */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  setlocale (LC_ALL, "");
  context = g_option_context_new ("- time the Headroom window");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (n_changes < 1)
    {
      g_printerr ("--changes: at least 1\n");
      return 2;
    }
  gtk_init ();
  adw_init ();
  /* GNOME's title buttons (Xvfb has no desktop to say so). */
  g_object_set (gtk_settings_get_default (), "gtk-decoration-layout", ":close", NULL);
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);

  app = headroom_application_new ("io.github.headroom.Headroom.Bench", G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, NULL);
  window = headroom_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  g_signal_connect (headroom_window_get_estimator (window), "updated", G_CALLBACK (on_updated), NULL);
  g_signal_add_emission_hook (g_signal_lookup ("updated", HEADROOM_TYPE_ESTIMATOR), 0,
                              updated_hook, headroom_window_get_estimator (window), NULL);
  /* The window computed its first estimate as it was built. */
  updated = headroom_estimator_get_has_result (headroom_window_get_estimator (window));
  if (open != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (open);

      if (!headroom_window_load_file (window, file, &error))
        g_printerr ("%s\n", error->message);
    }
  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_realize (GTK_WIDGET (window));
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), NULL);
  g_signal_connect (clock, "layout", G_CALLBACK (on_layout), NULL);
  g_signal_connect (clock, "paint", G_CALLBACK (on_paint), NULL);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), NULL);

  iterate_until (first_frame_with_results, window, 10 * G_USEC_PER_SEC);
  start_us = updated_paint - t_main;
  start_cpu = cpu_paint;
  start_layout = sum_layout;
  start_render = sum_render;
  start_layout_cpu = sum_layout_cpu;
  start_render_cpu = sum_render_cpu;

  if (start_only)
    {
      g_print ("start to first frame with results: %.1f ms (%.1f ms of process CPU since exec)\n",
               start_us / 1000.0, start_cpu / 1000.0);
      headroom_project_set_modified (headroom_window_get_project (window), FALSE);
      gtk_window_destroy (GTK_WINDOW (window));
      return 0;
    }

  if (shot != NULL)
    {
      if (page != NULL)
        adw_view_stack_set_visible_child_name (ADW_VIEW_STACK (find_view_stack (GTK_WIDGET (window), page)),
                                               page);
      if (view != NULL)
        adw_view_stack_set_visible_child_name (ADW_VIEW_STACK (find_view_stack (GTK_WIDGET (window), view)),
                                               view);
      if (results)
        gtk_widget_activate_action (GTK_WIDGET (window), "win.show-results", NULL);
      /* Let the layout settle (the sweep, the plan's search). */
      iterate_until (never, NULL, 1500 * 1000);
      if (scroll > 0)
        {
          /* A settings page while it is the one shown (folded, without --results). */
          const char *stack = page != NULL && !results ? page : "estimate";
          GtkWidget *results_view = adw_view_stack_get_visible_child (ADW_VIEW_STACK (find_view_stack (GTK_WIDGET (window), stack)));
          GtkScrolledWindow *scroller = find_shown_scroller (results_view);
          GtkAdjustment *adjustment = scroller != NULL ? gtk_scrolled_window_get_vadjustment (scroller) : NULL;

          if (adjustment != NULL)
            gtk_adjustment_set_value (adjustment, scroll * (gtk_adjustment_get_upper (adjustment)
                                                            - gtk_adjustment_get_page_size (adjustment)));
          iterate_until (never, NULL, 300 * 1000);
        }
      save_shot (GTK_WIDGET (window), shot);
      headroom_project_set_modified (headroom_window_get_project (window), FALSE);
      gtk_window_destroy (GTK_WINDOW (window));
      return 0;
    }

  /* Settle: the first sweep and the plan's search run after the first frame. */
  iterate_until (never, NULL, 1000 * 1000);

  stall_cpu = 0;
  latency = g_new0 (double, n_changes);
  cpu = g_new0 (double, n_changes);
  for (int i = 0; i < n_changes; i++)
    {
      guint e = i % G_N_ELEMENTS (edits);
      GtkWidget *row = headroom_window_get_row (window, edits[e].key);
      double value = (i / G_N_ELEMENTS (edits)) % 2 == 0 ? edits[e].a : edits[e].b;
      gint64 changed, longest, cpu_changed, thread_cpu_changed, stall_in_change;
      double layout_before = sum_layout, render_before = sum_render;

      /* A user edits a row on the page shown: turning to it is not the
       * change. The turn ends when its frames stop (the page's first frame,
       * which a loaded machine takes longer than a fixed pause to paint, and
       * the page switcher's 200 ms transition), as a user finds the row. */
      if (!gtk_widget_get_mapped (row))
        {
          gint64 stall_before = stall_cpu;
          guint paints = n_paints;

          show_page_of (row);
          iterate_until (painted_since, &paints, 2 * G_USEC_PER_SEC);
          iterate_until (settled, NULL, 2 * G_USEC_PER_SEC);
          stall_cpu = stall_before;
        }
      updated = FALSE;
      updated_paint = 0;
      cpu_changed = cpu_now ();
      thread_cpu_changed = thread_cpu_now ();
      changed = g_get_monotonic_time ();
      headroom_spin_row_set_value (HEADROOM_SPIN_ROW (row), value);
      longest = g_get_monotonic_time () - changed;
      stall_cpu = MAX (stall_cpu, thread_cpu_now () - thread_cpu_changed);
      stall = MAX (stall, longest);
      stall_in_change = longest;
      longest = iterate_until (has_painted_update, NULL, 2 * G_USEC_PER_SEC);
      stall = MAX (stall, longest);
      stall_in_change = MAX (stall_in_change, longest);
      latency[i] = (updated_paint - changed) / 1000.0;
      cpu[i] = (cpu_paint - cpu_changed) / 1000.0;
      sum_compute += (hook_at - changed) / 1000.0;
      sum_handlers += (handled_at - hook_at) / 1000.0;
      sum_paint += (updated_paint - handled_at) / 1000.0;
      /* What runs after the frame (the sweep) counts as a stall too: a key
       * pressed now would wait for it. */
      longest = iterate_until (never, NULL, 60 * 1000);
      stall = MAX (stall, longest);
      if (verbose)
        g_print ("%-28s %6g: %6.2f ms (%.2f CPU), layout %.2f, render %.2f, longest dispatch %.2f then %.2f ms\n",
                 edits[e].key, value, latency[i], cpu[i], sum_layout - layout_before,
                 sum_render - render_before, stall_in_change / 1000.0, longest / 1000.0);
    }
  qsort (latency, n_changes, sizeof (double), compare);
  qsort (cpu, n_changes, sizeof (double), compare);
  /* The service's share: a recompute and the views' handlers, without a frame. */
  {
    HeadroomEstimator *estimator = headroom_window_get_estimator (window);
    gint64 t0 = g_get_monotonic_time ();
    gint64 c0 = cpu_now ();
    int n = g_getenv ("BENCH_RECOMPUTES") ? atoi (g_getenv ("BENCH_RECOMPUTES")) : 20;

    for (int i = 0; i < n; i++)
      headroom_estimator_recompute_now (estimator);
    g_print ("recompute with the views' handlers: %.2f ms (%.2f ms CPU)\n",
             (g_get_monotonic_time () - t0) / (n * 1000.0), (cpu_now () - c0) / (n * 1000.0));
  }
  g_print ("renderer %s\n", G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window))));
  g_print ("start to first frame with results: %.1f ms (%.1f ms of process CPU since exec)\n",
           start_us / 1000.0, start_cpu / 1000.0);
  g_print ("change to redrawn results over %d changes: median %.2f ms, p95 %.2f ms, max %.2f ms\n",
           n_changes, latency[n_changes / 2], latency[(int) ceil (0.95 * n_changes) - 1],
           latency[n_changes - 1]);
  g_print ("the same in process CPU time: median %.2f ms, p95 %.2f ms\n",
           cpu[n_changes / 2], cpu[(int) ceil (0.95 * n_changes) - 1]);
  g_print ("mean phases: change to ::updated %.2f ms, views' handlers %.2f ms, to painted %.2f ms\n",
           sum_compute / n_changes, sum_handlers / n_changes, sum_paint / n_changes);
  g_print ("mean of that frame: layout %.2f ms, snapshot and render %.2f ms "
           "(main thread's CPU: %.2f ms, %.2f ms)\n",
           (sum_layout - start_layout) / n_changes, (sum_render - start_render) / n_changes,
           (sum_layout_cpu - start_layout_cpu) / n_changes,
           (sum_render_cpu - start_render_cpu) / n_changes);
  g_print ("longest main-loop stall: %.2f ms (%.2f ms of the main thread's CPU)\n", stall / 1000.0,
           stall_cpu / 1000.0);

  headroom_project_set_modified (headroom_window_get_project (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
