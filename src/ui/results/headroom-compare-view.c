/* headroom-compare-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-compare-view"

#include "config.h"

#include <glib/gi18n.h>

#include "headroom-compare-view.h"
#include "headroom-report.h"
#include "headroom-scenario.h"

/* One bar: a line of text, then the bar. */
#define BAR_HEIGHT   12
#define BAR_GAP      4
#define BAR_SPACING  12

struct _HeadroomCompareView
{
  AdwBin parent_instance;

  AdwToastOverlay    *toast_overlay;
  GtkStack           *stack;
  GtkLabel           *summary_label;
  GtkDrawingArea     *bars;
  GtkGrid            *table;

  HeadroomProject    *project;
  HeadroomComparison *comparison;
};

G_DEFINE_FINAL_TYPE (HeadroomCompareView, headroom_compare_view, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_PROJECT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Escaped, since toast titles are Pango markup: a scenario named "A & B"
 * would otherwise give an empty toast. */
static void
toast (HeadroomCompareView *self,
       const char          *message)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_timeout (toast, 3);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* The shown figure named `name`, or -1. */
static int
find_figure (HeadroomComparison *comparison,
             const char         *name)
{
  for (guint f = 0; f < headroom_comparison_get_n_figures (comparison); f++)
    if (g_str_equal (headroom_comparison_get_figure_name (comparison, f), name))
      return (int) f;
  return -1;
}

static void
lookup_color (GtkWidget  *widget,
              const char *name,
              GdkRGBA    *color)
{
  GtkStyleContext *context = gtk_widget_get_style_context (widget);

  if (!gtk_style_context_lookup_color (context, name, color))
    gtk_style_context_get_color (context, color);
}

static PangoLayout *
bar_text (HeadroomCompareView *self,
          guint                column,
          int                  memory,
          int                  capacity,
          int                  width)
{
  HeadroomComparison *comparison = self->comparison;
  const char *error = headroom_comparison_get_error (comparison, column);
  g_autofree char *text = NULL;
  PangoLayout *layout;

  if (error != NULL || memory < 0 || capacity < 0)
    /* TRANSLATORS: a scenario's name and why it has no estimate */
    text = g_strdup_printf (_("%s: %s"), headroom_comparison_get_name (comparison, column),
                            error != NULL ? error : "—");
  else
    {
      g_autofree char *used = headroom_comparison_dup_value_text (comparison, memory, column);
      g_autofree char *total = headroom_comparison_dup_value_text (comparison, capacity, column);

      /* TRANSLATORS: a scenario's name, its memory per GPU and the GPU's, "A — 41 GiB of 80 GiB" */
      text = g_strdup_printf (_("%s — %s of %s"), headroom_comparison_get_name (comparison, column),
                              used, total);
    }
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->bars), text);
  pango_layout_set_width (layout, width * PANGO_SCALE);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  return layout;
}

static int
row_height (HeadroomCompareView *self)
{
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->bars), "Ag");
  int text_height;

  pango_layout_get_pixel_size (layout, NULL, &text_height);
  return text_height + BAR_GAP + BAR_HEIGHT;
}

/* Every scenario's memory per GPU on one scale, the largest of the
 * memories and capacities; a line marks each GPU's capacity. */
static void
draw_bars (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        user_data)
{
  HeadroomCompareView *self = user_data;
  HeadroomComparison *comparison = self->comparison;
  int memory = find_figure (comparison, "memory_per_gpu");
  int capacity = find_figure (comparison, "gpu_memory");
  int fits = find_figure (comparison, "fits");
  int row = row_height (self);
  GdkRGBA fg, accent, error;
  double scale = 0;

  lookup_color (GTK_WIDGET (area), "window_fg_color", &fg);
  lookup_color (GTK_WIDGET (area), "accent_bg_color", &accent);
  lookup_color (GTK_WIDGET (area), "error_color", &error);

  for (guint c = 0; c < headroom_comparison_get_n_columns (comparison); c++)
    {
      double value;

      if (memory >= 0 && headroom_comparison_get_value (comparison, memory, c, &value))
        scale = MAX (scale, value);
      if (capacity >= 0 && headroom_comparison_get_value (comparison, capacity, c, &value))
        scale = MAX (scale, value);
    }

  for (guint c = 0; c < headroom_comparison_get_n_columns (comparison); c++)
    {
      g_autoptr(PangoLayout) layout = bar_text (self, c, memory, capacity, width);
      double y = c * (row + BAR_SPACING);
      double used = 0, total = 0, fit = 1;
      int text_height;
      gboolean has;

      has = memory >= 0 && capacity >= 0 && scale > 0
            && headroom_comparison_get_value (comparison, memory, c, &used)
            && headroom_comparison_get_value (comparison, capacity, c, &total);
      if (fits >= 0)
        headroom_comparison_get_value (comparison, fits, c, &fit);

      pango_layout_get_pixel_size (layout, NULL, &text_height);
      gdk_cairo_set_source_rgba (cr, has ? &fg : &error);
      cairo_move_to (cr, 0, y);
      pango_cairo_show_layout (cr, layout);
      if (!has)
        continue;

      y += text_height + BAR_GAP;
      /* The GPU's memory as a trough, what is used over it. */
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.1);
      cairo_rectangle (cr, 0, y, width * total / scale, BAR_HEIGHT);
      cairo_fill (cr);
      gdk_cairo_set_source_rgba (cr, fit > 0 ? &accent : &error);
      cairo_rectangle (cr, 0, y, width * MIN (used, scale) / scale, BAR_HEIGHT);
      cairo_fill (cr);
      /* The capacity line, a little taller than the bar. */
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_rectangle (cr, MAX (0, width * total / scale - 2), y - 2, 2, BAR_HEIGHT + 4);
      cairo_fill (cr);
    }
}

static void
resize_bars (HeadroomCompareView *self)
{
  guint n = headroom_comparison_get_n_columns (self->comparison);

  gtk_drawing_area_set_content_height (self->bars,
                                       n > 0 ? n * row_height (self) + (n - 1) * BAR_SPACING : 0);
  gtk_widget_queue_draw (GTK_WIDGET (self->bars));
}

static GtkWidget *
cell_label (const char *text,
            float       xalign,
            const char *style)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  if (style != NULL)
    gtk_widget_add_css_class (label, style);
  return label;
}

/* Names, labels and lists wrap at `chars`; figures stay on one line. A
 * wrapped label asks for the same width as its minimum and its natural
 * size, so that a narrow window scrolls the table sideways rather than
 * squeezing it. */
static GtkWidget *
wrapped_label (const char *text,
               float       xalign,
               const char *style,
               int         chars)
{
  GtkWidget *label = cell_label (text, xalign, style);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_width_chars (GTK_LABEL (label), chars);
  gtk_label_set_max_width_chars (GTK_LABEL (label), chars);
  return label;
}

/* A row's label, in the first column: 20 characters wide where the window
 * has the room, down to 14 (wrapped) where it has not, so that a 360 px
 * window shows the labels and one scenario's column side by side. */
static GtkWidget *
row_label (const char *text)
{
  GtkWidget *label = wrapped_label (text, 0, "dim-label", 14);

  gtk_label_set_max_width_chars (GTK_LABEL (label), 20);
  /* Level with the value, above its change. */
  gtk_widget_set_valign (label, GTK_ALIGN_START);
  return label;
}

/* A column's header: its name, "Baseline" under the baseline's, and its
 * menu; Delete removes it while it has the focus. */
static GtkWidget *
column_header (HeadroomCompareView *self,
               guint                column,
               gboolean             mixed)
{
  HeadroomComparison *comparison = self->comparison;
  gboolean baseline = column == headroom_comparison_get_baseline (comparison);
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) edit = g_menu_new ();
  GtkWidget *button = gtk_menu_button_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *name = wrapped_label (headroom_comparison_get_name (comparison, column), 1, "heading", 16);
  GtkEventController *shortcuts = gtk_shortcut_controller_new ();
  GtkShortcutAction *remove = gtk_named_action_new ("compare.remove");
  GtkShortcut *shortcut;
  GMenuItem *item;

  gtk_label_set_justify (GTK_LABEL (name), GTK_JUSTIFY_RIGHT);
  gtk_box_append (GTK_BOX (box), name);
  /* Under the name: the baseline says so; the workload only where they mix. */
  gtk_box_append (GTK_BOX (box),
                  cell_label (baseline ? _("Baseline")
                              : !mixed ? ""
                              : headroom_comparison_get_workload (comparison, column)
                                == HEADROOM_WORKLOAD_TRAINING ? _("Training") : _("Inference"),
                              1, baseline ? "accent" : "dim-label"));
  gtk_menu_button_set_child (GTK_MENU_BUTTON (button), box);
  gtk_menu_button_set_has_frame (GTK_MENU_BUTTON (button), FALSE);
  gtk_widget_set_halign (button, GTK_ALIGN_END);
  gtk_widget_set_valign (button, GTK_ALIGN_END);
  gtk_widget_set_tooltip_text (button, _("Scenario menu (Delete removes the scenario)"));

#define ADD_ITEM(menu_, label_, action_) \
  item = g_menu_item_new (label_, NULL); \
  g_menu_item_set_action_and_target_value (item, action_, g_variant_new_uint32 (column)); \
  g_menu_append_item (menu_, item); \
  g_object_unref (item)

  if (!baseline)
    {
      ADD_ITEM (menu, _("Use as _Baseline"), "compare.baseline");
    }
  ADD_ITEM (menu, _("_Apply to Editor"), "compare.apply");
  ADD_ITEM (edit, _("_Rename…"), "compare.rename");
  ADD_ITEM (edit, _("_Duplicate"), "compare.duplicate");
  ADD_ITEM (edit, _("Re_move"), "compare.remove");
#undef ADD_ITEM
  g_menu_append_section (menu, NULL, G_MENU_MODEL (edit));
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));

  shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Delete, 0), remove);
  gtk_shortcut_set_arguments (shortcut, g_variant_new_uint32 (column));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts), shortcut);
  gtk_widget_add_controller (button, shortcuts);
  return button;
}

static const char *
verdict_style (HeadroomVerdict verdict)
{
  switch (verdict)
    {
    case HEADROOM_VERDICT_BETTER:
      return "success";
    case HEADROOM_VERDICT_WORSE:
      return "error";
    case HEADROOM_VERDICT_SAME:
    case HEADROOM_VERDICT_NONE:
    default:
      return "dim-label";
    }
}

static GtkWidget *
value_cell (HeadroomComparison *comparison,
            guint               figure,
            guint               column)
{
  g_autofree char *value = headroom_comparison_dup_value_text (comparison, figure, column);
  g_autofree char *change = headroom_comparison_dup_change_text (comparison, figure, column);
  HeadroomVerdict verdict = headroom_comparison_get_verdict (comparison, figure, column);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  double fits;

  if (g_str_equal (headroom_comparison_get_figure_unit (comparison, figure), "boolean")
      && headroom_comparison_get_value (comparison, figure, column, &fits))
    gtk_box_append (GTK_BOX (box), cell_label (value, 1, fits > 0 ? "success" : "error"));
  else
    gtk_box_append (GTK_BOX (box), cell_label (value, 1, "numeric"));
  if (change != NULL)
    {
      GtkWidget *label = cell_label (change, 1, verdict_style (verdict));

      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (GTK_BOX (box), label);
    }
  return box;
}

static void
rebuild (HeadroomCompareView *self)
{
  HeadroomComparison *comparison = self->comparison;
  guint n_columns = headroom_comparison_get_n_columns (comparison);
  guint n_figures = headroom_comparison_get_n_figures (comparison);
  guint baseline = headroom_comparison_get_baseline (comparison);
  g_autofree char *summary = NULL;
  GtkWidget *child;
  int row = 0;
  gboolean any_error = FALSE, mixed = FALSE;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))) != NULL)
    gtk_grid_remove (self->table, child);

  gtk_stack_set_visible_child_name (self->stack, n_columns > 0 ? "compare" : "empty");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.keep",
                                 n_columns < HEADROOM_PROJECT_MAX_SCENARIOS);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.export", n_columns > 0);
  if (n_columns == 0)
    return;

  summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u scenario, against “%s”",
                                          "%u scenarios, against “%s”", n_columns),
                             n_columns, headroom_comparison_get_name (comparison, baseline));
  gtk_label_set_label (self->summary_label, summary);

  for (guint c = 0; c < n_columns; c++)
    if (headroom_comparison_get_workload (comparison, c) != headroom_comparison_get_workload (comparison, 0))
      mixed = TRUE;
  for (guint c = 0; c < n_columns; c++)
    gtk_grid_attach (self->table, column_header (self, c, mixed), 1 + c, row, 1, 1);
  row++;

  for (guint f = 0; f < n_figures; f++, row++)
    {
      gtk_grid_attach (self->table, row_label (headroom_comparison_get_figure_label (comparison, f)),
                       0, row, 1, 1);
      for (guint c = 0; c < n_columns; c++)
        gtk_grid_attach (self->table, value_cell (comparison, f, c), 1 + c, row, 1, 1);
    }

  gtk_grid_attach (self->table, row_label (_("Settings that differ")), 0, row, 1, 1);
  for (guint c = 0; c < n_columns; c++)
    {
      g_autofree char *text = headroom_comparison_dup_differences_text (comparison, c);

      if (headroom_comparison_get_error (comparison, c) != NULL)
        any_error = TRUE;
      child = wrapped_label (c == baseline ? "—" : *text != '\0' ? text : _("None"), 1,
                             c == baseline ? "dim-label" : NULL, 16);
      gtk_label_set_justify (GTK_LABEL (child), GTK_JUSTIFY_RIGHT);
      gtk_widget_set_valign (child, GTK_ALIGN_START);
      gtk_grid_attach (self->table, child, 1 + c, row, 1, 1);
    }
  row++;

  if (any_error)
    {
      gtk_grid_attach (self->table, row_label (_("Problem")), 0, row, 1, 1);
      for (guint c = 0; c < n_columns; c++)
        {
          const char *error = headroom_comparison_get_error (comparison, c);

          child = wrapped_label (error != NULL ? error : "", 1, "error", 16);
          gtk_label_set_justify (GTK_LABEL (child), GTK_JUSTIFY_RIGHT);
          gtk_widget_set_valign (child, GTK_ALIGN_START);
          gtk_grid_attach (self->table, child, 1 + c, row, 1, 1);
        }
    }
  resize_bars (self);
}

static void
scenarios_changed (HeadroomCompareView *self)
{
  headroom_comparison_set_scenarios (self->comparison, headroom_project_get_scenarios (self->project));
}

static void
keep_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  headroom_compare_view_keep (HEADROOM_COMPARE_VIEW (widget));
}

static void
baseline_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (widget);
  guint column = g_variant_get_uint32 (parameter);

  if (column < headroom_comparison_get_n_columns (self->comparison))
    headroom_comparison_set_baseline (self->comparison, column);
}

static void
apply_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (widget);
  guint column = g_variant_get_uint32 (parameter);
  g_autofree char *message = NULL;

  if (column >= headroom_comparison_get_n_columns (self->comparison))
    return;
  headroom_project_apply_scenario (self->project, column);
  message = g_strdup_printf (_("The editor now holds “%s”"),
                             headroom_comparison_get_name (self->comparison, column));
  toast (self, message);
}

static void
duplicate_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (widget);
  guint column = g_variant_get_uint32 (parameter);
  g_autoptr(GError) error = NULL;

  if (column < headroom_comparison_get_n_columns (self->comparison)
      && headroom_project_duplicate_scenario (self->project, column, &error) == NULL)
    toast (self, error->message);
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (widget);
  guint column = g_variant_get_uint32 (parameter);

  if (column < headroom_comparison_get_n_columns (self->comparison))
    headroom_project_remove_scenario (self->project, column);
}

static void
on_rename_response (AdwMessageDialog *dialog,
                    const char       *response,
                    gpointer          user_data)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (user_data);
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  guint column = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (dialog), "column"));
  g_autoptr(GError) error = NULL;

  if (!g_str_equal (response, "rename")
      || column >= headroom_comparison_get_n_columns (self->comparison))
    return;
  if (!headroom_project_rename_scenario (self->project, column, gtk_editable_get_text (entry),
                                         &error))
    toast (self, error->message);
}

static void
rename_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (widget);
  guint column = g_variant_get_uint32 (parameter);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *dialog, *entry;

  if (column >= headroom_comparison_get_n_columns (self->comparison))
    return;
  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Rename Scenario"), NULL);
  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), headroom_comparison_get_name (self->comparison, column));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "rename", _("_Rename"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rename",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "column", GUINT_TO_POINTER (column));
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_rename_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_export_response (HeadroomCompareView  *self,
                    int                   response,
                    GtkFileChooserNative *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *csv = headroom_report_comparison_to_csv (self->comparison);
      g_autoptr(GError) error = NULL;

      if (!headroom_report_save (csv, file, &error))
        toast (self, error->message);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_object_unref (chooser);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Export Comparison"),
                                         GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), _("comparison.csv"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_export_response), self,
                           G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

gboolean
headroom_compare_view_keep (HeadroomCompareView *self)
{
  g_autoptr(GError) error = NULL;
  HeadroomScenario *scenario;
  g_autofree char *message = NULL;

  g_return_val_if_fail (HEADROOM_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (self->project != NULL, FALSE);

  scenario = headroom_project_keep_scenario (self->project, NULL, &error);
  if (scenario == NULL)
    {
      toast (self, error->message);
      return FALSE;
    }
  message = g_strdup_printf (_("Kept as “%s”"), headroom_scenario_get_name (scenario));
  toast (self, message);
  return TRUE;
}

static void
headroom_compare_view_dispose (GObject *object)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (object);

  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (headroom_project_get_scenarios (self->project), self);
  g_clear_object (&self->project);
  if (self->comparison != NULL)
    g_signal_handlers_disconnect_by_data (self->comparison, self);
  g_clear_object (&self->comparison);
  /* AdwBin unparents the template's child, and with it every template widget. */
  G_OBJECT_CLASS (headroom_compare_view_parent_class)->dispose (object);
}

static void
headroom_compare_view_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_compare_view_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  HeadroomCompareView *self = HEADROOM_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      headroom_compare_view_set_project (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_compare_view_class_init (HeadroomCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_compare_view_dispose;
  object_class->get_property = headroom_compare_view_get_property;
  object_class->set_property = headroom_compare_view_set_property;

  /**
   * HeadroomCompareView:project:
   *
   * The project whose scenarios the view compares.
   */
  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, HEADROOM_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/headroom/Headroom/headroom-compare-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomCompareView, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HeadroomCompareView, stack);
  gtk_widget_class_bind_template_child (widget_class, HeadroomCompareView, summary_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomCompareView, bars);
  gtk_widget_class_bind_template_child (widget_class, HeadroomCompareView, table);

  gtk_widget_class_install_action (widget_class, "compare.keep", NULL, keep_action);
  gtk_widget_class_install_action (widget_class, "compare.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "compare.baseline", "u", baseline_action);
  gtk_widget_class_install_action (widget_class, "compare.apply", "u", apply_action);
  gtk_widget_class_install_action (widget_class, "compare.rename", "u", rename_action);
  gtk_widget_class_install_action (widget_class, "compare.duplicate", "u", duplicate_action);
  gtk_widget_class_install_action (widget_class, "compare.remove", "u", remove_action);
}

static void
headroom_compare_view_init (HeadroomCompareView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->comparison = headroom_comparison_new ();
  g_signal_connect_object (self->comparison, "changed", G_CALLBACK (rebuild), self,
                           G_CONNECT_SWAPPED);
  gtk_drawing_area_set_draw_func (self->bars, draw_bars, self, NULL);
  rebuild (self);
}

GtkWidget *
headroom_compare_view_new (HeadroomProject *project)
{
  return g_object_new (HEADROOM_TYPE_COMPARE_VIEW, "project", project, NULL);
}

HeadroomProject *
headroom_compare_view_get_project (HeadroomCompareView *self)
{
  g_return_val_if_fail (HEADROOM_IS_COMPARE_VIEW (self), NULL);
  return self->project;
}

void
headroom_compare_view_set_project (HeadroomCompareView *self,
                                   HeadroomProject     *project)
{
  g_return_if_fail (HEADROOM_IS_COMPARE_VIEW (self));
  g_return_if_fail (project == NULL || HEADROOM_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (headroom_project_get_scenarios (self->project), self);
  g_set_object (&self->project, project);
  if (project != NULL)
    {
      g_signal_connect_object (headroom_project_get_scenarios (project), "items-changed",
                               G_CALLBACK (scenarios_changed), self, G_CONNECT_SWAPPED);
      scenarios_changed (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

HeadroomComparison *
headroom_compare_view_get_comparison (HeadroomCompareView *self)
{
  g_return_val_if_fail (HEADROOM_IS_COMPARE_VIEW (self), NULL);
  return self->comparison;
}
