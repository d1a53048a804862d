/* test-plan-view.c: the Plan view lists, applies and undoes layouts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under Xvfb with GTK_A11Y=none; gtk_test_init makes warnings and
 * criticals fatal. The default project is Llama-3.1-8B pretraining on one
 * node of 8 H100 SXM (80 GiB), bf16 mixed precision, AdamW, ZeRO-1,
 * sequences of 8192, global batch 512.
 */
#include "config.h"

#include "test-ui.h"

#include <math.h>
#include <string.h>

#include "headroom-plan-row.h"
#include "headroom-plan-view.h"
#include "headroom-split-bar.h"

/* The keys "Use This Layout" writes. */
static const char * const layout_keys[] = {
  "training.tensor_parallel", "training.pipeline_parallel", "training.pipeline_schedule",
  "training.virtual_stages", "training.context_parallel", "training.expert_parallel",
  "training.zero_stage", "training.fsdp", "training.sequence_parallel",
  "training.micro_batch", "training.recompute",
};

/* A window showing a Plan view of `project`; the view searches when shown. */
static GtkWidget *
window_new (HeadroomProject   *project,
            HeadroomPlanView **view)
{
  GtkWidget *window = gtk_window_new ();

  *view = HEADROOM_PLAN_VIEW (headroom_plan_view_new (project));
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 700);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (*view));
  gtk_window_present (GTK_WINDOW (window));
  drain_main_loop ();
  return window;
}

static HeadroomPlanRow *
row_at (HeadroomPlanView *view,
        guint             position)
{
  GListModel *rows = G_LIST_MODEL (headroom_plan_view_get_layouts (view));
  g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (rows, position);

  /* The view's list store keeps the row alive. */
  return row;
}

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        return child;
      found = find_descendant (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkColumnViewColumn *
column_titled (GtkColumnView *column_view,
               const char    *title)
{
  GListModel *columns = gtk_column_view_get_columns (column_view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return column;
    }
  g_assert_not_reached ();
}

static void
test_plan_view_fills (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomPlanView *view;
  GtkWidget *window = window_new (project, &view);
  GListModel *rows = G_LIST_MODEL (headroom_plan_view_get_layouts (view));
  HeadroomSplitBar *split_bar = HEADROOM_SPLIT_BAR (find_descendant (GTK_WIDGET (view),
                                                                    HEADROOM_TYPE_SPLIT_BAR));
  GtkColumnView *column_view = GTK_COLUMN_VIEW (find_descendant (GTK_WIDGET (view),
                                                                 GTK_TYPE_COLUMN_VIEW));
  HeadroomPlanRow *first;
  guint n = g_list_model_get_n_items (rows);

  g_assert_null (headroom_plan_view_get_message (view));
  g_assert_cmpuint (n, >, 0);
  /* Predicted times, as the Estimate view's: no note. */
  g_assert_null (strstr (headroom_plan_view_get_caption (view) ? headroom_plan_view_get_caption (view) : "",
                         "utilisation set"));
  g_assert_cmpint (headroom_plan_view_get_fitting (view), >=, n);
  g_assert_cmpint (headroom_plan_view_get_searched (view), >=, headroom_plan_view_get_fitting (view));

  /* Shown fastest first; every layout uses all 8 GPUs (tp · pp · cp · dp =
   * 1 node × 8) and fits in the H100's 80 GiB. */
  for (guint i = 0; i < n; i++)
    {
      HeadroomPlanRow *row = row_at (view, i);
      double step = headroom_plan_row_get_step_seconds (row);

      g_assert_cmpuint (headroom_plan_row_get_rank (row), ==, i + 1);
      g_assert_cmpint (headroom_plan_row_get_tensor_parallel (row)
                       * headroom_plan_row_get_pipeline_parallel (row)
                       * headroom_plan_row_get_context_parallel (row)
                       * headroom_plan_row_get_data_parallel (row), ==, 8);
      g_assert_cmpfloat (headroom_plan_row_get_memory (row), <=, 80.0 * 1073741824.0);
      g_assert_true (isfinite (step) && step > 0);
      if (i > 0)
        g_assert_cmpfloat (headroom_plan_row_get_step_seconds (row_at (view, i - 1)), <=, step);
    }

  /* The first row is selected and its split adds up to its step time. */
  first = row_at (view, 0);
  g_assert_true (gtk_selection_model_is_selected (GTK_SELECTION_MODEL (rows), 0));
  g_assert_cmpfloat_with_epsilon (headroom_split_bar_get_total (split_bar),
                                  headroom_plan_row_get_step_seconds (first),
                                  1e-9 * headroom_plan_row_get_step_seconds (first));

  /* Sorting by memory reorders the rows, least memory first. */
  gtk_column_view_sort_by_column (column_view, column_titled (column_view, "Memory/GPU"),
                                  GTK_SORT_ASCENDING);
  for (guint i = 1; i < n; i++)
    g_assert_cmpfloat (headroom_plan_row_get_memory (row_at (view, i - 1)),
                       <=, headroom_plan_row_get_memory (row_at (view, i)));
  gtk_column_view_sort_by_column (column_view, column_titled (column_view, "Step"),
                                  GTK_SORT_ASCENDING);
  g_assert_cmpuint (headroom_plan_row_get_rank (row_at (view, 0)), ==, 1);

  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

/* The value of `key` as a project file writes it for the layout of `row`. */
static char *
expected_value (HeadroomPlanRow *row,
                const char      *key)
{
  if (g_str_equal (key, "training.tensor_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_tensor_parallel (row));
  if (g_str_equal (key, "training.pipeline_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_pipeline_parallel (row));
  if (g_str_equal (key, "training.pipeline_schedule"))
    return g_strdup (headroom_plan_row_get_virtual_stages (row) > 1 ? "interleaved" : "1f1b");
  if (g_str_equal (key, "training.virtual_stages"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_virtual_stages (row));
  if (g_str_equal (key, "training.context_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_context_parallel (row));
  if (g_str_equal (key, "training.expert_parallel"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_expert_parallel (row));
  if (g_str_equal (key, "training.zero_stage"))
    return g_strdup_printf ("%d", headroom_plan_row_get_zero_stage (row));
  if (g_str_equal (key, "training.fsdp"))
    return g_strdup (headroom_plan_row_get_fsdp (row));
  if (g_str_equal (key, "training.sequence_parallel"))
    return g_strdup (headroom_plan_row_get_sequence_parallel (row) ? "true" : "false");
  if (g_str_equal (key, "training.micro_batch"))
    return g_strdup_printf ("%" G_GINT64_FORMAT, headroom_plan_row_get_micro_batch (row));
  if (g_str_equal (key, "training.recompute"))
    return g_strdup (headroom_plan_row_get_recompute (row));
  g_assert_not_reached ();
}

/* A torchtitan project's plan takes its op-level SAC (the framework's
 * recomputation: headroom-framework.c): Llama 3.1 70B on 8 nodes, 128 ×
 * 8,192 tokens. Its rows show and sort by recomputation, none first and
 * full last, op-level SAC between (the view knew only none, selective and
 * full, and failed on such a row), under a caption naming the framework. */
static void
test_plan_view_op_selective (void)
{
  static const char * const order[] = { "none", "selective", "op-selective", "full" };
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomPlanView *view;
  GtkWidget *window;
  GtkColumnView *column_view;
  GListModel *rows;
  guint n, previous = 0, op = 0;

  g_assert_true (headroom_project_set_from_string (project, "model.preset", "llama-3.1-70b", NULL));
  g_assert_true (headroom_project_set_from_string (project, "hardware.nodes", "8", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.global_batch", "128", NULL));
  g_assert_true (headroom_project_set_from_string (project, "training.seq_len", "8192", NULL));
  g_assert_true (headroom_project_set_string (project, "training.framework", "torchtitan", NULL));
  window = window_new (project, &view);
  column_view = GTK_COLUMN_VIEW (find_descendant (GTK_WIDGET (view), GTK_TYPE_COLUMN_VIEW));
  rows = G_LIST_MODEL (headroom_plan_view_get_layouts (view));
  n = g_list_model_get_n_items (rows);
  g_assert_cmpuint (n, >, 0);

  gtk_column_view_sort_by_column (column_view, column_titled (column_view, "Recompute"),
                                  GTK_SORT_ASCENDING);
  drain_main_loop ();
  for (guint i = 0; i < n; i++)
    {
      const char *recompute = headroom_plan_row_get_recompute (row_at (view, i));
      guint at = 0;

      while (at < G_N_ELEMENTS (order) && g_strcmp0 (order[at], recompute) != 0)
        at++;
      g_assert_cmpuint (at, <, G_N_ELEMENTS (order));
      g_assert_cmpuint (at, >=, previous);
      previous = at;
      op += at == 2;
    }
  g_assert_cmpuint (op, >, 0);
  /* The view says whose layouts it searched. */
  g_assert_nonnull (find_label (window, "Only layouts torchtitan runs are searched. "));

  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

/* Whether `widget` has a shortcut from `trigger` to the action `action_name`. */
static gboolean
has_shortcut (GtkWidget  *widget,
              const char *trigger,
              const char *action_name)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);
          g_autofree char *text = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (shortcut));

          if (g_strcmp0 (text, trigger) == 0 && GTK_IS_NAMED_ACTION (action)
              && g_strcmp0 (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)), action_name) == 0)
            return TRUE;
        }
    }
  return FALSE;
}

static void
test_plan_view_apply_and_undo (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) before = g_new0 (char *, G_N_ELEMENTS (layout_keys) + 1);
  HeadroomPlanView *view;
  GtkWidget *window = window_new (project, &view);
  HeadroomPlanRow *row;
  gint64 searched = headroom_plan_view_get_searched (view);
  guint changed = 0;

  for (guint i = 0; i < G_N_ELEMENTS (layout_keys); i++)
    before[i] = headroom_project_dup_value_string (project, layout_keys[i]);
  headroom_project_set_modified (project, FALSE);

  /* Nothing to undo yet: the action is disabled and changes nothing. */
  gtk_widget_activate_action (GTK_WIDGET (view), "plan.undo", NULL);
  g_assert_false (headroom_project_get_modified (project));

  /* The fastest layout (selected by default) replaces the project's layout;
   * the default project's ZeRO-1 with a micro-batch of 1 is not it, so at
   * least one key changes. */
  row = row_at (view, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "plan.apply", NULL));
  drain_main_loop ();
  for (guint i = 0; i < G_N_ELEMENTS (layout_keys); i++)
    {
      g_autofree char *expected = expected_value (row, layout_keys[i]);
      g_autofree char *value = headroom_project_dup_value_string (project, layout_keys[i]);

      g_assert_cmpstr (value, ==, expected);
      if (g_strcmp0 (value, before[i]) != 0)
        changed++;
    }
  g_assert_cmpuint (changed, >, 0);
  g_assert_true (headroom_project_get_modified (project));
  /* The written layout is consistent with the hardware and batch. */
  g_assert_true (headroom_project_validate (project, &error));
  g_assert_no_error (error);
  /* Layout keys do not change the search: the table stays as it was. */
  g_assert_cmpint (headroom_plan_view_get_searched (view), ==, searched);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (headroom_plan_view_get_layouts (view))), >, 0);

  /* Undo (Ctrl+Z) restores every key; a second undo has nothing to do. */
  gtk_widget_activate_action (GTK_WIDGET (view), "plan.undo", NULL);
  drain_main_loop ();
  for (guint i = 0; i < G_N_ELEMENTS (layout_keys); i++)
    {
      g_autofree char *value = headroom_project_dup_value_string (project, layout_keys[i]);

      g_assert_cmpstr (value, ==, before[i]);
    }
  headroom_project_set_modified (project, FALSE);
  gtk_widget_activate_action (GTK_WIDGET (view), "plan.undo", NULL);
  g_assert_false (headroom_project_get_modified (project));

  g_assert_true (has_shortcut (GTK_WIDGET (view), "<Control>z", "plan.undo"));

  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

static void
test_plan_view_nothing_fits (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomPlanView *view;
  GtkWidget *window = window_new (project, &view);
  const char *message;

  g_assert_null (headroom_plan_view_get_message (view));

  /* One 80 GiB GPU cannot hold Llama-3.1-8B's mixed-precision AdamW states
   * alone: 16 bytes × 8,030,261,248 parameters = 119.7 GiB, and one GPU has
   * nothing to shard them over. The change is picked up from an idle. */
  headroom_project_set_int (project, "hardware.gpus_per_node", 1, NULL);
  drain_main_loop ();
  message = headroom_plan_view_get_message (view);
  g_assert_nonnull (message);
  g_assert_true (strstr (message, "No layout of 1 GPU fits") != NULL);
  g_assert_true (strstr (message, "a model of 8.03 B parameters in 80.0 GiB per GPU") != NULL);
  g_assert_cmpint (headroom_plan_view_get_fitting (view), ==, 0);
  g_assert_cmpint (headroom_plan_view_get_searched (view), >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (headroom_plan_view_get_layouts (view))), ==, 0);

  /* Back to 8 GPUs: the table returns. */
  headroom_project_set_int (project, "hardware.gpus_per_node", 8, NULL);
  drain_main_loop ();
  g_assert_null (headroom_plan_view_get_message (view));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (headroom_plan_view_get_layouts (view))), >, 0);

  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

/* A measured utilisation overrides the Estimate view's times, not the
 * planner's: the plan view says so while it is on (issue 13). */
static void
test_plan_view_mfu_override (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomPlanView *view;
  GtkWidget *window = window_new (project, &view);

  g_assert_true (headroom_project_set_double (project, "training.mfu", 0.4, NULL));
  drain_main_loop ();
  g_assert_nonnull (headroom_plan_view_get_caption (view));
  g_assert_nonnull (strstr (headroom_plan_view_get_caption (view),
                            "Times here are predicted from the hardware; the Estimate view uses "
                            "the utilisation set (40 %) instead"));
  g_assert_true (headroom_project_set_double (project, "training.mfu", 0, NULL));
  drain_main_loop ();
  g_assert_true (headroom_plan_view_get_caption (view) == NULL
                 || strstr (headroom_plan_view_get_caption (view), "utilisation set") == NULL);

  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

static void
test_plan_view_bad_input (void)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  HeadroomPlanView *view;
  GtkWidget *window = window_new (project, &view);
  GListModel *layouts;

  /* A global batch of 0 (torchtune's default) is one micro-batch per GPU:
   * the default project's 8 GPUs at micro-batch 1 give 8 sequences a step
   * in every layout (data parallel × micro-batch × accumulation). */
  headroom_project_set_int (project, "training.global_batch", 0, NULL);
  headroom_plan_view_refresh (view);
  g_assert_null (headroom_plan_view_get_message (view));
  layouts = G_LIST_MODEL (headroom_plan_view_get_layouts (view));
  g_assert_cmpuint (g_list_model_get_n_items (layouts), >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (layouts); i++)
    {
      g_autoptr(HeadroomPlanRow) row = g_list_model_get_item (layouts, i);
      const HrPlanLayout *l = headroom_plan_row_get_layout (row);

      g_assert_cmpint (l->data_parallel * l->training.micro_batch * l->grad_accumulation, ==, 8);
    }
  /* An inference project has no training layout to plan. */
  headroom_project_set_int (project, "training.global_batch", 512, NULL);
  headroom_project_set_string (project, "workload", "inference", NULL);
  headroom_plan_view_refresh (view);
  g_assert_cmpstr (headroom_plan_view_get_message (view), ==,
                   "The planner searches the parallel layouts of a training run. "
                   "Switch the workload to training to plan it.");

  /* With no row, there is nothing to apply. */
  headroom_project_set_modified (project, FALSE);
  gtk_widget_activate_action (GTK_WIDGET (view), "plan.apply", NULL);
  g_assert_false (headroom_project_get_modified (project));

  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

/* A row whose step splits into `split`; the rest of the layout is unused. */
static HeadroomPlanRow *
split_row_new (const HrPlanSplit *split)
{
  HrPlanLayout layout = { 0 };

  layout.step.split = *split;
  return headroom_plan_row_new (&layout, 1);
}

static void
test_split_bar_parts (void)
{
  HeadroomSplitBar *bar = g_object_ref_sink (HEADROOM_SPLIT_BAR (headroom_split_bar_new ()));
  g_autoptr(HeadroomPlanRow) row = NULL;
  g_autoptr(HeadroomPlanRow) bad_row = NULL;
  HrPlanSplit split = { 0 };

  g_assert_cmpstr (headroom_split_bar_get_description (bar), ==, "No layout selected.");

  /* 3 + 1 + 0.5 + 0.5 = 5 s: compute 60%, memory-bound 20%, 10% each. */
  split.compute = 3.0;
  split.memory_bound = 1.0;
  split.communication = 0.5;
  split.bubble = 0.5;
  row = split_row_new (&split);
  headroom_split_bar_set_row (bar, row);
  g_assert_cmpfloat (headroom_split_bar_get_total (bar), ==, 5.0);
  g_assert_cmpstr (headroom_split_bar_get_description (bar), ==,
                   "Step time 5.00 s: Compute 3.00 s (60%); Memory-bound 1.00 s (20%); "
                   "Communication 500.0 ms (10%); Pipeline bubble 500.0 ms (10%).");

  /* A non-finite or negative part is drawn empty rather than breaking the scale. */
  split.compute = NAN;
  split.bubble = -1.0;
  bad_row = split_row_new (&split);
  headroom_split_bar_set_row (bar, bad_row);
  g_assert_cmpfloat (headroom_split_bar_get_total (bar), ==, 1.5);

  headroom_split_bar_set_row (bar, NULL);
  g_assert_cmpfloat (headroom_split_bar_get_total (bar), ==, 0.0);
  g_assert_finalize_object (bar);
}

/* The legend button whose label holds `part`. */
static GtkWidget *
find_legend_button (GtkWidget  *widget,
                    const char *part)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_BUTTON (child) && gtk_widget_has_css_class (child, "headroom-legend-entry")
          && GTK_IS_LABEL (gtk_button_get_child (GTK_BUTTON (child)))
          && strstr (gtk_label_get_label (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (child)))), part) != NULL)
        return child;
      found = find_legend_button (child, part);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* "Show why" on the split: each legend entry opens the part's derivation
 * with the layout's values (issue 16). */
static void
test_split_bar_explains (void)
{
  GtkWidget *window = gtk_window_new ();
  HeadroomSplitBar *bar = HEADROOM_SPLIT_BAR (headroom_split_bar_new ());
  g_autoptr(HeadroomPlanRow) row = NULL;
  g_autofree char *bubble = NULL;
  HrPlanLayout layout = { 0 };
  GtkWidget *button, *popover, *label;
  const char *text;

  /* 4 micro-batches of 1.25 s of matrix products at 54 % of peak: 5 s;
   * a bubble of 1.5 s over 4 stages, 1 virtual stage: (4 − 1) ÷ 1 × 0.5 s. */
  layout.step.split.compute = 5.0;
  layout.step.split.bubble = 1.5;
  layout.step.micro_batches = 4;
  layout.step.gemm_efficiency = 0.54;
  layout.training.pipeline_parallel = 4;
  layout.training.virtual_stages = 1;
  row = headroom_plan_row_new (&layout, 1);
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 300);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (bar));
  headroom_split_bar_set_row (bar, row);
  gtk_window_present (GTK_WINDOW (window));
  drain_main_loop ();

  button = find_legend_button (GTK_WIDGET (bar), "Compute");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  drain_main_loop ();
  popover = find_descendant (button, GTK_TYPE_POPOVER);
  g_assert_nonnull (popover);
  label = find_descendant (popover, GTK_TYPE_LABEL);
  text = gtk_label_get_label (GTK_LABEL (label));
  g_assert_true (g_str_has_prefix (text, "Compute = 4 micro-batches × 1.25 s = 5.00 s, the matrix "
                                         "products at 54 % of peak\nAssumes: "));
  g_assert_nonnull (strstr (text, "\nSource: "));
  gtk_popover_popdown (GTK_POPOVER (popover));
  drain_main_loop ();

  bubble = headroom_plan_row_dup_explanation (row, HEADROOM_PLAN_PART_BUBBLE);
  g_assert_true (g_str_has_prefix (bubble, "Pipeline bubble = (4 − 1) ÷ 1 × 500.0 ms a micro-batch = 1.50 s\n"));
  gtk_window_destroy (GTK_WINDOW (window));
  drain_main_loop ();
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/plan-view/fills", test_plan_view_fills);
  g_test_add_func ("/plan-view/op-selective", test_plan_view_op_selective);
  g_test_add_func ("/plan-view/apply-and-undo", test_plan_view_apply_and_undo);
  g_test_add_func ("/plan-view/nothing-fits", test_plan_view_nothing_fits);
  g_test_add_func ("/plan-view/bad-input", test_plan_view_bad_input);
  g_test_add_func ("/plan-view/mfu-override", test_plan_view_mfu_override);
  g_test_add_func ("/split-bar/parts", test_split_bar_parts);
  g_test_add_func ("/split-bar/explains", test_split_bar_explains);

  return g_test_run ();
}
