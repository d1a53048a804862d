/* test-compare-view.c: the Compare view keeps, shows, colours, applies and
 * removes scenarios
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under Xvfb with GTK_A11Y=none; gtk_test_init makes warnings and
 * criticals fatal. The default project is Llama-3.1-8B pretraining on one
 * node of 8 H100 SXM (80 GiB), ZeRO-1, tensor parallel 2.
 */
#include "config.h"

#include "test-ui.h"

#include "headroom-compare-view.h"
#include "headroom-scenario.h"

/* The label under `widget` whose shown text (markup rendered) is `text`. */
static GtkLabel *
find_shown_text (GtkWidget  *widget,
                 const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_shown_text (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
window_new (HeadroomProject      *project,
            HeadroomCompareView **view)
{
  GtkWidget *window = gtk_window_new ();

  *view = HEADROOM_COMPARE_VIEW (headroom_compare_view_new (project));
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 800);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (*view));
  gtk_window_present (GTK_WINDOW (window));
  drain_main_loop ();
  return window;
}

static void
collect (GtkWidget *widget,
         GType      type,
         GPtrArray *found)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type) && gtk_widget_get_mapped (child))
        g_ptr_array_add (found, child);
      collect (child, type, found);
    }
}

/* The mapped labels reading `text`. */
static GtkWidget *
find_label_exact (GtkWidget  *root,
            const char *text)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_label (labels->pdata[i]), text) == 0)
      return labels->pdata[i];
  return NULL;
}

static guint
count_mapped (GtkWidget *root,
              GType      type)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new ();

  collect (root, type, found);
  return found->len;
}

static guint
figure_index (HeadroomComparison *comparison,
              const char         *name)
{
  for (guint f = 0; f < headroom_comparison_get_n_figures (comparison); f++)
    if (g_str_equal (headroom_comparison_get_figure_name (comparison, f), name))
      return f;
  g_assert_not_reached ();
}

static void
test_keep_and_colour (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomCompareView *view;
  GtkWidget *window = window_new (project, &view);
  HeadroomComparison *comparison = headroom_compare_view_get_comparison (view);
  g_autofree char *change = NULL;
  GtkWidget *label;
  guint memory;

  /* No scenario yet: the empty page and its button. */
  g_assert_nonnull (find_label_exact (GTK_WIDGET (view), "No Scenarios"));
  g_assert_cmpuint (count_mapped (GTK_WIDGET (view), GTK_TYPE_MENU_BUTTON), ==, 0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.keep", NULL));
  g_assert_true (headroom_project_set_int (project, "hardware.nodes", 2, NULL));
  g_assert_true (headroom_compare_view_keep (view));
  drain_main_loop ();

  /* Two columns, each with its menu, named by what differs. */
  g_assert_cmpuint (headroom_comparison_get_n_columns (comparison), ==, 2);
  g_assert_cmpuint (count_mapped (GTK_WIDGET (view), GTK_TYPE_MENU_BUTTON), ==, 2);
  g_assert_nonnull (find_label_exact (GTK_WIDGET (view), "8 × NVIDIA H100 SXM5 80GB, Llama 3.1 8B"));
  g_assert_nonnull (find_label_exact (GTK_WIDGET (view), "16 × NVIDIA H100 SXM5 80GB"));
  g_assert_nonnull (find_label_exact (GTK_WIDGET (view), "Nodes"));

  /* ZeRO-1 over twice the data-parallel ranks (8 instead of 4) shards the
   * fp32 master weights and Adam states twice as thin: less memory per GPU,
   * shown in the "success" colour. */
  memory = figure_index (comparison, "memory_per_gpu");
  g_assert_cmpint (headroom_comparison_get_verdict (comparison, memory, 1), ==,
                   HEADROOM_VERDICT_BETTER);
  change = headroom_comparison_dup_change_text (comparison, memory, 1);
  label = find_label_exact (GTK_WIDGET (view), change);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_has_css_class (label, "success"));

  /* The other way round once the second is the baseline. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.baseline", "u", 1));
  drain_main_loop ();
  g_clear_pointer (&change, g_free);
  change = headroom_comparison_dup_change_text (comparison, memory, 0);
  label = find_label_exact (GTK_WIDGET (view), change);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_has_css_class (label, "error"));
  g_assert_nonnull (find_label_exact (GTK_WIDGET (view), "Baseline"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_apply_and_remove (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
  HeadroomCompareView *view;
  GtkWidget *window = window_new (project, &view);
  GListModel *scenarios = headroom_project_get_scenarios (project);
  GtkEventController *controller = NULL;
  GtkShortcut *shortcut;

  g_assert_true (headroom_compare_view_keep (view));
  g_assert_true (headroom_project_set_int (project, "training.zero_stage", 3, NULL));
  g_assert_true (headroom_compare_view_keep (view));
  drain_main_loop ();

  /* Apply the first back to the editor. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.apply", "u", 0));
  g_assert_cmpint (headroom_project_get_int (project, "training.zero_stage"), ==, 1);

  /* Duplicate the second: three. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.duplicate", "u", 1));
  drain_main_loop ();
  g_assert_cmpuint (g_list_model_get_n_items (scenarios), ==, 3);

  /* Delete on the focused header removes that scenario: the header's own
   * shortcut, as the keyboard reaches it. */
  collect (GTK_WIDGET (view), GTK_TYPE_MENU_BUTTON, buttons);
  g_assert_cmpuint (buttons->len, ==, 3);
  for (guint i = 0; controller == NULL; i++)
    {
      g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (buttons->pdata[0]);
      g_autoptr(GObject) item = g_list_model_get_item (controllers, i);

      g_assert_nonnull (item);
      if (GTK_IS_SHORTCUT_CONTROLLER (item))
        controller = GTK_EVENT_CONTROLLER (item);
    }
  shortcut = g_list_model_get_item (G_LIST_MODEL (controller), 0);
  g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0,
                                               buttons->pdata[0],
                                               gtk_shortcut_get_arguments (shortcut)));
  g_object_unref (shortcut);
  drain_main_loop ();
  g_assert_cmpuint (g_list_model_get_n_items (scenarios), ==, 2);
  {
    g_autoptr(HeadroomScenario) first = g_list_model_get_item (scenarios, 0);

    g_assert_cmpint (headroom_project_get_int (headroom_scenario_get_settings (first),
                                               "training.zero_stage"), ==, 3);
  }

  /* Six at most: the seventh is refused and Keep is disabled. */
  for (guint i = 2; i < HEADROOM_PROJECT_MAX_SCENARIOS; i++)
    g_assert_true (headroom_compare_view_keep (view));
  drain_main_loop ();
  g_assert_false (headroom_compare_view_keep (view));
  g_ptr_array_set_size (buttons, 0);
  collect (GTK_WIDGET (view), GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_actionable_get_action_name (buttons->pdata[i]), "compare.keep") == 0)
      g_assert_false (gtk_widget_is_sensitive (buttons->pdata[i]));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A confirmation names the scenario as typed: toast titles are markup, so
 * "&" is escaped rather than emptying the toast. */
static void
test_toast_escaped (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomCompareView *view;
  GtkWidget *window;

  g_assert_nonnull (headroom_project_keep_scenario (project, NULL, NULL));
  g_assert_true (headroom_project_rename_scenario (project, 0, "A & B", NULL));
  window = window_new (project, &view);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.apply", "u", 0));
  drain_main_loop ();
  g_assert_nonnull (find_shown_text (GTK_WIDGET (view), "The editor now holds “A & B”"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/compare-view/keep-and-colour", test_keep_and_colour);
  g_test_add_func ("/compare-view/apply-and-remove", test_apply_and_remove);
  g_test_add_func ("/compare-view/toast-escaped", test_toast_escaped);

  return g_test_run ();
}
