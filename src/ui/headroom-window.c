/* headroom-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's own job: the header bars, the actions, opening and saving
 * files, and the split between the settings pages (settings/) and the
 * results (results/). The pages' rows write to the project; the estimator
 * recomputes; the views redraw from the estimator. While the project is
 * invalid the banner names the setting at fault by its label.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-catalog.h"
#include "headroom-catalog-dialog.h"
#include "headroom-compare-view.h"
#include "headroom-file.h"
#include "headroom-hardware-page.h"
#include "headroom-hf-config.h"
#include "headroom-hub.h"
#include "headroom-hub-dialog.h"
#include "headroom-model-page.h"
#include "headroom-plan-view.h"
#include "headroom-report.h"
#include "headroom-results-view.h"
#include "headroom-setting.h"
#include "headroom-sweep-dialog.h"
#include "headroom-sweeper.h"
#include "headroom-window-private.h"
#include "headroom-workload-page.h"

#define MAX_RECENT 8

typedef enum
{
  PENDING_NONE,
  PENDING_NEW,
  PENDING_OPEN,
  PENDING_IMPORT_CONFIG,
  PENDING_IMPORT_HUB,
  PENDING_LOAD,
  PENDING_CLOSE,
} Pending;

struct _HeadroomWindow
{
  AdwApplicationWindow  parent_instance;

  AdwToastOverlay      *toast_overlay;
  AdwLeaflet           *leaflet;
  GtkWidget            *sidebar;
  GtkWidget            *content;
  AdwViewStackPage     *workload_stack_page;
  HeadroomModelPage    *model_page;
  HeadroomHardwarePage *hardware_page;
  HeadroomWorkloadPage *workload_page;
  AdwViewSwitcherTitle *window_title;
  AdwViewSwitcherBar   *switcher_bar;
  AdwViewSwitcherTitle *section_title;
  GtkMenuButton        *folded_menu_button;
  GtkWidget            *content_open_button;
  GtkWidget            *export_button;
  GtkRevealer          *catalog_revealer;
  GtkLabel             *catalog_label;
  GtkRevealer          *error_revealer;
  GtkLabel             *error_label;
  GtkLabel             *error_note;
  GtkRevealer          *assumed_revealer;
  GtkLabel             *assumed_label;
  AdwStatusPage        *unknown_page;
  HeadroomResultsView  *results_view;
  AdwViewStack         *results_stack;
  AdwViewStackPage     *plan_stack_page;
  HeadroomPlanView     *plan_view;
  HeadroomCompareView  *compare_view;
  GMenu                *recent_section;

  GtkWidget            *error_row;
  AdwMessageDialog     *error_dialog;

  HeadroomProject      *project;
  HeadroomEstimator    *estimator;
  GSettings            *settings;

  Pending               pending;
  GFile                *pending_file;
  GCancellable         *hub_cancellable;
  char                 *hub_token;
};

G_DEFINE_FINAL_TYPE (HeadroomWindow, headroom_window, ADW_TYPE_APPLICATION_WINDOW)

static void run_pending (HeadroomWindow *self);
static void save_as (HeadroomWindow *self);
static void show_hub_dialog (HeadroomWindow *self);

static GtkWidget *
find_row (HeadroomWindow *self,
          const char     *key)
{
  GtkWidget *row = headroom_model_page_get_row (self->model_page, key);

  if (row == NULL)
    row = headroom_hardware_page_get_row (self->hardware_page, key);
  if (row == NULL)
    row = headroom_workload_page_get_row (self->workload_page, key);
  return row;
}

static void
mark_row (HeadroomWindow *self,
          GtkWidget      *row)
{
  if (self->error_row == row)
    return;
  if (self->error_row != NULL)
    gtk_widget_remove_css_class (self->error_row, "error");
  g_set_weak_pointer (&self->error_row, row);
  if (row != NULL)
    gtk_widget_add_css_class (row, "error");
}

/* The banner shows the service's message, which names the setting by its
 * label, and marks the row of the key the error carries. A model_type
 * Headroom does not know is no setting's fault: the results give way to a page
 * that names it and offers the generic decoder, and no figure stays in view. */
static void
refresh_error (HeadroomWindow *self)
{
  const GError *error = headroom_estimator_get_error_detail (self->estimator);
  const char *key = headroom_project_error_get_key (error);
  const char *message = error != NULL ? error->message : NULL;
  gboolean unknown = g_error_matches (error, HEADROOM_HF_CONFIG_ERROR,
                                      HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE);

  adw_status_page_set_description (self->unknown_page, unknown ? message : NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->unknown_page), unknown);
  gtk_widget_set_visible (GTK_WIDGET (self->results_stack), !unknown);
  gtk_widget_set_visible (GTK_WIDGET (self->assumed_revealer), !unknown);
  gtk_label_set_label (self->error_label, message && !unknown ? message : "");
  gtk_label_set_label (self->error_note, headroom_estimator_get_has_result (self->estimator)
                                         ? _("Showing the last valid estimate")
                                         : _("No estimate until this is changed"));
  gtk_revealer_set_reveal_child (self->error_revealer, message != NULL && !unknown);
  mark_row (self, key != NULL && !unknown ? find_row (self, key) : NULL);
}

/* Figures of a model read as an assumed architecture, or of a
 * vision-language model's language model alone, say so; so does a project
 * file whose settings name keys that no setting has. */
static void
refresh_assumed (HeadroomWindow *self)
{
  g_autofree char *model_note = NULL;
  g_autofree char *unknown = headroom_project_dup_unknown_keys_note (self->project);
  g_autofree char *note = NULL;

  if (headroom_estimator_get_assumed_architecture (self->estimator) != NULL)
    model_note = headroom_project_dup_assumed_note (self->project);
  else if (headroom_estimator_get_text_only (self->estimator))
    model_note = headroom_project_dup_text_only_note (self->project);
  if (model_note != NULL && unknown != NULL)
    note = g_strjoin ("\n", model_note, unknown, NULL);
  else
    note = g_strdup (model_note != NULL ? model_note : unknown);
  gtk_label_set_label (self->assumed_label, note != NULL ? note : "");
  gtk_revealer_set_reveal_child (self->assumed_revealer, note != NULL);
}

static void
assume_generic_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);

  headroom_project_set_string (self->project, "model.assume_architecture", "llama", NULL);
}

/* Import replaces the model only: the hardware and workload stay (issue
 * 13). A config of an unknown model_type comes in refused (the model key
 * "Unknown model type" at "none"): the window then shows the error state
 * that names it, with the generic decoder to choose. */
static gboolean
import_config (HeadroomWindow  *self,
               JsonObject      *config,
               const char      *name,
               GError         **error)
{
  g_autoptr(GError) local_error = NULL;

  if (headroom_project_import_config (self->project, config, name, &local_error))
    return TRUE;
  if (!g_error_matches (local_error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* Read once as assumed so that every other key is checked, then refused. */
  json_object_set_string_member (config, "assume_architecture", "llama");
  if (!headroom_project_import_config (self->project, config, name, error))
    return FALSE;
  return headroom_project_set_string (self->project, "model.assume_architecture", "none", error);
}

/* The Estimate/Plan/Compare switcher: in the header bar when wide, at the
 * bottom when narrow (inference has no Plan; Compare is always there). */
static void
refresh_switchers (HeadroomWindow *self)
{
  /* Folded, Open and Export CSV are in the main menu: the title keeps its room. */
  gtk_widget_set_visible (self->content_open_button, !adw_leaflet_get_folded (self->leaflet));
  gtk_widget_set_visible (self->export_button, !adw_leaflet_get_folded (self->leaflet));
  adw_view_switcher_bar_set_reveal (self->switcher_bar,
                                    adw_view_switcher_title_get_title_visible (self->window_title));
}

static void
refresh_workload (HeadroomWindow *self)
{
  gboolean training = headroom_project_get_workload (self->project) == HEADROOM_WORKLOAD_TRAINING;

  adw_view_stack_page_set_title (self->workload_stack_page, training ? _("Training") : _("Inference"));
  /* The planner searches training layouts only. */
  adw_view_stack_page_set_visible (self->plan_stack_page, training);
  refresh_switchers (self);
}

static void
refresh_title (HeadroomWindow *self)
{
  g_autofree char *name = headroom_project_dup_title (self->project);
  g_autofree char *title = NULL;
  GFile *file = headroom_project_get_file (self->project);
  g_autofree char *subtitle = NULL;

  if (headroom_project_get_modified (self->project))
    title = g_strdup_printf ("• %s", name);
  else
    title = g_strdup (name);
  if (file != NULL)
    {
      g_autoptr(GFile) parent = g_file_get_parent (file);

      subtitle = parent ? g_file_get_parse_name (parent) : NULL;
    }
  adw_view_switcher_title_set_title (self->window_title, title);
  adw_view_switcher_title_set_subtitle (self->window_title, subtitle ? subtitle : _("Not saved"));
  gtk_window_set_title (GTK_WINDOW (self), name);
}

/* Documents */

static void
add_recent (HeadroomWindow *self,
            GFile          *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_auto(GStrv) recent = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) updated = NULL;
  guint n = 1;

  if (self->settings == NULL)
    return;
  recent = g_settings_get_strv (self->settings, "recent-projects");
  g_strv_builder_add (builder, uri);
  for (guint i = 0; recent[i] != NULL && n < MAX_RECENT; i++)
    if (!g_str_equal (recent[i], uri))
      {
        g_strv_builder_add (builder, recent[i]);
        n++;
      }
  updated = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "recent-projects", (const char * const *) updated);
}

static void
refresh_recent_menu (HeadroomWindow *self)
{
  g_auto(GStrv) recent = NULL;

  g_menu_remove_all (self->recent_section);
  if (self->settings == NULL)
    return;
  recent = g_settings_get_strv (self->settings, "recent-projects");
  for (guint i = 0; recent[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_uri (recent[i]);
      g_autofree char *name = g_file_get_basename (file);
      g_autoptr(GMenuItem) item = g_menu_item_new (name, NULL);

      g_menu_item_set_action_and_target (item, "win.open-recent", "s", recent[i]);
      g_menu_append_item (self->recent_section, item);
    }
}

static void
set_project (HeadroomWindow  *self,
             HeadroomProject *project)
{
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_set_object (&self->project, project);
  g_signal_connect_object (project, "changed::workload", G_CALLBACK (refresh_workload),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::modified", G_CALLBACK (refresh_title),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::file", G_CALLBACK (refresh_title),
                           self, G_CONNECT_SWAPPED);
  /* The pages follow the estimator's project. */
  headroom_estimator_set_project (self->estimator, project);
  headroom_plan_view_set_project (self->plan_view, project);
  headroom_compare_view_set_project (self->compare_view, project);
  headroom_estimator_recompute_now (self->estimator);
  refresh_workload (self);
  refresh_title (self);
  refresh_error (self);
  refresh_assumed (self);
}

/* A Hugging Face config.json has no "format" tag; a project has one. */
gboolean
headroom_window_load_file (HeadroomWindow  *self,
                           GFile           *file,
                           GError         **error)
{
  g_autoptr(HeadroomProject) project = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  /* A project saved while its settings did not go together opens as it was
   * left, with the estimate's error: nothing saved is lost. */
  project = headroom_project_new_from_file_to_edit (file, &local_error);
  if (project == NULL && g_error_matches (local_error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_FORMAT))
    {
      /* Size cap, nesting depth and finite numbers checked by the service. */
      g_autoptr(GBytes) bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, error);
      g_autoptr(JsonObject) config = NULL;

      if (bytes == NULL)
        return FALSE;
      config = headroom_hf_config_parse_bytes (bytes, NULL);
      if (config == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      /* Import replaces the model only: the hardware and workload stay
       * (issue 13); the title becomes the model's directory name. */
      {
        g_autofree char *base = g_file_get_basename (file);
        g_autoptr(GFile) parent = g_file_get_parent (file);
        g_autofree char *name = g_str_equal (base, "config.json") && parent != NULL
                                ? g_file_get_basename (parent) : NULL;

        if (!import_config (self, config, name, error))
          return FALSE;
        headroom_project_set_modified (self->project, TRUE);
        refresh_title (self);
        return TRUE;
      }
    }
  else if (project == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  else
    add_recent (self, file);

  set_project (self, project);
  return TRUE;
}

gboolean
headroom_window_save_to_file (HeadroomWindow  *self,
                              GFile           *file,
                              GError         **error)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (!headroom_project_save (self->project, file, NULL, error))
    return FALSE;
  add_recent (self, file);
  refresh_title (self);
  return TRUE;
}

/* Errors the user must read go to a dialog, whole (a toast would cut them
 * and, in libadwaita 1.2, read them as markup); settings are named by their
 * labels. Transient confirmations stay toasts. */
AdwMessageDialog *
headroom_window_show_error (HeadroomWindow *self,
                            const char     *heading,
                            const GError   *error)
{
  AdwMessageDialog *dialog;

  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);
  g_return_val_if_fail (heading != NULL && error != NULL, NULL);

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), heading, NULL));
  /* Plain text: a message may hold "<", "&" or a file name with them. */
  adw_message_dialog_set_body (dialog, error->message);
  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  adw_message_dialog_set_default_response (dialog, "close");
  adw_message_dialog_set_close_response (dialog, "close");
  g_set_weak_pointer (&self->error_dialog, dialog);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}

AdwMessageDialog *
headroom_window_get_error_dialog (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return self->error_dialog;
}

/* A transient confirmation: escaped, since toast titles are Pango markup. */
static void
toast (HeadroomWindow *self,
       const char     *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_timeout (toast, 3);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
show_file_error (HeadroomWindow *self,
                 const char     *format,
                 GFile          *file,
                 const GError   *error)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *heading = NULL;

  /* The formats are the translated headings below, each with one %s. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  heading = g_strdup_printf (format, name);
#pragma GCC diagnostic pop
  headroom_window_show_error (self, heading, error);
}

static void
load_or_report (HeadroomWindow *self,
                 GFile          *file)
{
  g_autoptr(GError) error = NULL;

  if (!headroom_window_load_file (self, file, &error))
    /* TRANSLATORS: a dialog's heading; %s is a file name */
    show_file_error (self, _("Could Not Open “%s”"), file, error);
}

static GtkFileFilter *
json_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Projects and config.json files"));
  gtk_file_filter_add_mime_type (filter, "application/json");
  gtk_file_filter_add_suffix (filter, "json");
  return filter;
}

static void
on_open_response (HeadroomWindow       *self,
                  int                   response,
                  GtkFileChooserNative *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      load_or_report (self, file);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_object_unref (chooser);
}

static void
show_open_dialog (HeadroomWindow *self,
                  const char     *title)
{
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = json_filter ();

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Open"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_open_response), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
on_save_response (HeadroomWindow       *self,
                  int                   response,
                  GtkFileChooserNative *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr(GError) error = NULL;

      if (headroom_window_save_to_file (self, file, &error))
        run_pending (self);
      else
        /* TRANSLATORS: a dialog's heading; %s is a file name */
        show_file_error (self, _("Could Not Save “%s”"), file, error);
    }
  else
    self->pending = PENDING_NONE;
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_object_unref (chooser);
}

static void
save_as (HeadroomWindow *self)
{
  GtkFileChooserNative *chooser;
  g_autofree char *title = headroom_project_dup_title (self->project);
  g_autofree char *name = g_str_has_suffix (title, ".json") ? g_strdup (title)
                                                             : g_strdup_printf ("%s.json", title);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  chooser = gtk_file_chooser_native_new (_("Save Project"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_save_response), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* Saves in place when the project has a file; else asks where. Runs the
 * pending action once saved. */
static void
save (HeadroomWindow *self)
{
  GFile *file = headroom_project_get_file (self->project);
  g_autoptr(GError) error = NULL;

  if (file == NULL)
    {
      save_as (self);
      return;
    }
  if (headroom_window_save_to_file (self, file, &error))
    run_pending (self);
  else
    {
      self->pending = PENDING_NONE;
      show_file_error (self, _("Could Not Save “%s”"), file, error);
    }
}

/* Hugging Face Hub import: asks for "org/name", fetches config.json
 * asynchronously and opens it as a new, unsaved project. */
static void
on_hub_fetched (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(HeadroomWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = headroom_hub_fetch_config_finish (HEADROOM_HUB (source), result, &error);

  g_clear_object (&self->hub_cancellable);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (config == NULL || !import_config (self, config, NULL, &error))
    {
      headroom_window_show_error (self, _("Could Not Import the Model"), error);
      return;
    }
  headroom_project_set_modified (self->project, TRUE);
  refresh_title (self);
}

void
headroom_window_import_hub (HeadroomWindow *self,
                            const char     *text)
{
  g_autoptr(HeadroomHub) hub = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *model_id = NULL;

  g_return_if_fail (HEADROOM_IS_WINDOW (self));
  g_return_if_fail (text != NULL);

  model_id = headroom_hub_parse_model_id (text, &error);
  if (model_id == NULL)
    {
      headroom_window_show_error (self, _("Could Not Import the Model"), error);
      return;
    }
  hub = headroom_hub_new ();
  /* The dialog's token, else $HF_TOKEN as the hub read it. */
  if (self->hub_token != NULL)
    headroom_hub_set_token (hub, self->hub_token);
  g_cancellable_cancel (self->hub_cancellable);
  g_set_object (&self->hub_cancellable, g_cancellable_new ());
  headroom_hub_fetch_config_async (hub, model_id, self->hub_cancellable, on_hub_fetched,
                                   g_object_ref (self));
  {
    g_autofree char *fetching = g_strdup_printf (_("Fetching %s…"), model_id);

    toast (self, fetching);
  }
}

static void
on_hub_response (HeadroomWindow    *self,
                 const char        *response,
                 HeadroomHubDialog *dialog)
{
  g_autoptr(GError) error = NULL;

  if (!g_str_equal (response, "import"))
    return;
  g_free (self->hub_token);
  self->hub_token = g_strdup (headroom_hub_dialog_get_token (dialog));
  /* Without a keyring the token still serves this import; say why it is not kept. */
  if (!headroom_hub_dialog_remember_token (dialog, &error) && self->hub_token != NULL)
    g_message ("%s", error->message);
  headroom_window_import_hub (self, headroom_hub_dialog_get_model_id (dialog));
}

static void
show_hub_dialog (HeadroomWindow *self)
{
  HeadroomHubDialog *dialog = headroom_hub_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_hub_response), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
run_pending (HeadroomWindow *self)
{
  Pending pending = self->pending;
  g_autoptr(GFile) file = g_steal_pointer (&self->pending_file);

  self->pending = PENDING_NONE;
  switch (pending)
    {
    case PENDING_NONE:
      break;
    case PENDING_NEW:
      {
        g_autoptr(HeadroomProject) project = headroom_project_new_default ();

        set_project (self, project);
      }
      break;
    case PENDING_OPEN:
      show_open_dialog (self, _("Open Project"));
      break;
    case PENDING_IMPORT_CONFIG:
      show_open_dialog (self, _("Import a Hugging Face config.json"));
      break;
    case PENDING_IMPORT_HUB:
      show_hub_dialog (self);
      break;
    case PENDING_LOAD:
      load_or_report (self, file);
      break;
    case PENDING_CLOSE:
      /* The project is saved or discarded now: closing will not ask again. */
      headroom_project_set_modified (self->project, FALSE);
      gtk_window_close (GTK_WINDOW (self));
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
on_unsaved_response (HeadroomWindow   *self,
                     const char       *response,
                     AdwMessageDialog *dialog)
{
  if (g_str_equal (response, "discard"))
    run_pending (self);
  else if (g_str_equal (response, "save"))
    save (self);
  else
    {
      self->pending = PENDING_NONE;
      g_clear_object (&self->pending_file);
  if (self->hub_cancellable != NULL)
    g_cancellable_cancel (self->hub_cancellable);
  g_clear_object (&self->hub_cancellable);
    }
}

static AdwMessageDialog *
run_guarded (HeadroomWindow *self,
             Pending         pending,
             GFile          *file)
{
  g_autofree char *title = NULL;
  GtkWidget *dialog;

  self->pending = pending;
  g_set_object (&self->pending_file, file);
  if (!headroom_project_get_modified (self->project))
    {
      run_pending (self);
      return NULL;
    }

  title = headroom_project_dup_title (self->project);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("“%s” has unsaved changes. Changes which are not saved will be permanently lost."),
                                  title);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_unsaved_response),
                           self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
  return ADW_MESSAGE_DIALOG (dialog);
}

AdwMessageDialog *
headroom_window_new_project (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return run_guarded (self, PENDING_NEW, NULL);
}

AdwMessageDialog *
headroom_window_close_project (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return run_guarded (self, PENDING_CLOSE, NULL);
}

static gboolean
headroom_window_close_request (GtkWindow *window)
{
  HeadroomWindow *self = HEADROOM_WINDOW (window);

  if (self->project != NULL && headroom_project_get_modified (self->project))
    {
      run_guarded (self, PENDING_CLOSE, NULL);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (headroom_window_parent_class)->close_request (window);
}

static gboolean
on_drop (HeadroomWindow *self,
         const GValue   *value,
         double          x,
         double          y)
{
  GFile *file = g_value_get_object (value);

  if (file == NULL)
    return FALSE;
  run_guarded (self, PENDING_LOAD, file);
  return TRUE;
}

/* Actions */

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  headroom_window_new_project (HEADROOM_WINDOW (widget));
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  run_guarded (HEADROOM_WINDOW (widget), PENDING_OPEN, NULL);
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  run_guarded (HEADROOM_WINDOW (widget), PENDING_LOAD, file);
}

/* Saving the custom GPU or the current model to the user's catalog */

gboolean
headroom_window_save_custom_gpu (HeadroomWindow  *self,
                                 const char      *name,
                                 GError         **error)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);

  return headroom_catalog_dialog_save_gpu (self->project, name, error);
}

gboolean
headroom_window_save_model_preset (HeadroomWindow  *self,
                                   const char      *name,
                                   GError         **error)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), FALSE);

  return headroom_catalog_dialog_save_model (self->project, name, error);
}

static void
on_catalog_name_response (HeadroomWindow        *self,
                          const char            *response,
                          HeadroomCatalogDialog *dialog)
{
  const char *name = headroom_catalog_dialog_get_name (dialog);
  g_autoptr(GError) error = NULL;

  if (!g_str_equal (response, "save"))
    return;
  if (headroom_catalog_dialog_get_kind (dialog) == HEADROOM_CATALOG_ENTRY_GPU)
    {
      if (!headroom_window_save_custom_gpu (self, name, &error))
        headroom_window_show_error (self, _("Could Not Save the GPU"), error);
    }
  else if (!headroom_window_save_model_preset (self, name, &error))
    headroom_window_show_error (self, _("Could Not Save the Preset"), error);
}

static void
show_catalog_name_dialog (HeadroomWindow       *self,
                          HeadroomCatalogEntry  kind)
{
  HeadroomCatalogDialog *dialog = headroom_catalog_dialog_new (GTK_WINDOW (self), kind);

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_catalog_name_response),
                           self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_gpu_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  show_catalog_name_dialog (HEADROOM_WINDOW (widget), HEADROOM_CATALOG_ENTRY_GPU);
}

static void
save_preset_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  show_catalog_name_dialog (HEADROOM_WINDOW (widget), HEADROOM_CATALOG_ENTRY_MODEL);
}

static void
import_config_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  run_guarded (HEADROOM_WINDOW (widget), PENDING_IMPORT_CONFIG, NULL);
}

static void
import_hub_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  run_guarded (HEADROOM_WINDOW (widget), PENDING_IMPORT_HUB, NULL);
}

/* Saving reports: the file chooser keeps what to write as data. */
static void
on_export_response (HeadroomWindow       *self,
                    int                   response,
                    GtkFileChooserNative *chooser)
{
  const char *text = g_object_get_data (G_OBJECT (chooser), "text");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr(GError) error = NULL;

      if (headroom_report_save (text, file, &error))
        {
          g_autofree char *name = g_file_get_basename (file);

          g_autofree char *exported = g_strdup_printf (_("Exported “%s”"), name);

          toast (self, exported);
        }
      else
        show_file_error (self, _("Could Not Export “%s”"), file, error);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
  g_object_unref (chooser);
}

static void
export_text (HeadroomWindow *self,
             char           *text,
             const char     *suggested_name)
{
  GtkFileChooserNative *chooser;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  chooser = gtk_file_chooser_native_new (_("Export CSV"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), suggested_name);
  /* Next to the project, when it has a file. */
  if (headroom_project_get_file (self->project) != NULL)
    {
      g_autoptr(GFile) folder = g_file_get_parent (headroom_project_get_file (self->project));

      if (folder != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_object_set_data_full (G_OBJECT (chooser), "text", text, g_free);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_export_response), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static char *
suggested_name (HeadroomWindow *self,
                const char     *suffix)
{
  g_autofree char *title = headroom_project_dup_title (self->project);

  if (g_str_has_suffix (title, ".json"))
    title[strlen (title) - strlen (".json")] = '\0';
  return g_strdup_printf ("%s%s.csv", title, suffix);
}

static void
export_csv_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = suggested_name (self, "");
  char *text = headroom_report_to_csv (self->estimator, &error);

  if (text == NULL)
    headroom_window_show_error (self, _("Could Not Export"), error);
  else
    export_text (self, text, name);
}

/* The service's sweep finished off the main thread: export its CSV. */
static void
sweep_computed_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(HeadroomWindow) self = user_data;
  HeadroomSweeper *sweeper = HEADROOM_SWEEPER (source);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *file_name = NULL;

  if (!headroom_sweeper_compute_finish (sweeper, result, &error))
    {
      headroom_window_show_error (self, _("Could Not Export"), error);
      return;
    }
  name = g_strdup_printf ("-sweep-%s", headroom_sweep_to_name (headroom_sweeper_get_axis (sweeper)));
  file_name = suggested_name (self, name);
  export_text (self, headroom_report_sweeper_to_csv (sweeper), file_name);
}

static void
on_sweep_response (HeadroomWindow      *self,
                   const char          *response,
                   HeadroomSweepDialog *dialog)
{
  g_autofree gint64 *values = NULL;
  g_autoptr(HeadroomSweeper) sweeper = NULL;
  guint n_values;

  if (!g_str_equal (response, "export"))
    return;
  values = headroom_sweep_dialog_dup_values (dialog, &n_values);
  sweeper = headroom_sweeper_new (self->project, headroom_sweep_dialog_get_axis (dialog),
                                  values, n_values);
  headroom_sweeper_compute_async (sweeper, NULL, sweep_computed_cb, g_object_ref (self));
}

/* A dialog with the setting and its range, as `headroom-cli sweep` takes them. */
static void
export_sweep_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);
  HeadroomSweepDialog *dialog = headroom_sweep_dialog_new (GTK_WINDOW (self), self->project);

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_sweep_response), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  HEADROOM_WINDOW (widget)->pending = PENDING_NONE;
  save (HEADROOM_WINDOW (widget));
}

static void
save_as_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  HEADROOM_WINDOW (widget)->pending = PENDING_NONE;
  save_as (HEADROOM_WINDOW (widget));
}

static void
show_results_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

/* "What would make it fit" sends the user to the Plan view's search. */
static void
show_plan_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->results_stack, "plan");
  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

/* Alt+1, 2, 3: Estimate, Plan (training only), Compare. */
static void
show_view_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);
  const char *name = g_variant_get_string (parameter, NULL);
  GtkWidget *child = adw_view_stack_get_child_by_name (self->results_stack, name);

  if (child == NULL || !adw_view_stack_page_get_visible (adw_view_stack_get_page (self->results_stack,
                                                                                   child)))
    return;
  adw_view_stack_set_visible_child (self->results_stack, child);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

/* Ctrl+K keeps the settings as a scenario and shows the comparison. */
static void
keep_scenario_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->results_stack, "compare");
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  headroom_compare_view_keep (self->compare_view);
}

static void
show_settings_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  HeadroomWindow *self = HEADROOM_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->sidebar);
}

/* Life cycle */

static void
headroom_window_dispose (GObject *object)
{
  HeadroomWindow *self = HEADROOM_WINDOW (object);

  if (self->estimator != NULL)
    g_signal_handlers_disconnect_by_data (self->estimator, self);
  g_clear_weak_pointer (&self->error_row);
  g_clear_weak_pointer (&self->error_dialog);
  gtk_widget_dispose_template (GTK_WIDGET (self), HEADROOM_TYPE_WINDOW);
  g_clear_object (&self->estimator);
  g_clear_object (&self->project);
  g_clear_object (&self->settings);
  g_clear_object (&self->pending_file);
  if (self->hub_cancellable != NULL)
    g_cancellable_cancel (self->hub_cancellable);
  g_clear_object (&self->hub_cancellable);
  g_clear_pointer (&self->hub_token, g_free);

  G_OBJECT_CLASS (headroom_window_parent_class)->dispose (object);
}

static void
headroom_window_class_init (HeadroomWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = headroom_window_dispose;
  window_class->close_request = headroom_window_close_request;

  g_type_ensure (HEADROOM_TYPE_HARDWARE_PAGE);
  g_type_ensure (HEADROOM_TYPE_MODEL_PAGE);
  g_type_ensure (HEADROOM_TYPE_PLAN_VIEW);
  g_type_ensure (HEADROOM_TYPE_COMPARE_VIEW);
  g_type_ensure (HEADROOM_TYPE_RESULTS_VIEW);
  g_type_ensure (HEADROOM_TYPE_WORKLOAD_PAGE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, content);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, workload_stack_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, model_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, hardware_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, workload_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, switcher_bar);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, section_title);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, folded_menu_button);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, content_open_button);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, export_button);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, catalog_revealer);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, catalog_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, error_note);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, assumed_revealer);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, assumed_label);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, unknown_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, results_view);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, results_stack);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, plan_stack_page);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, plan_view);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, compare_view);
  gtk_widget_class_bind_template_child (widget_class, HeadroomWindow, recent_section);

  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.import-config", NULL, import_config_action);
  gtk_widget_class_install_action (widget_class, "win.import-hub", NULL, import_hub_action);
  gtk_widget_class_install_action (widget_class, "win.save-gpu", NULL, save_gpu_action);
  gtk_widget_class_install_action (widget_class, "win.save-preset", NULL, save_preset_action);
  gtk_widget_class_install_action (widget_class, "win.export-csv", NULL, export_csv_action);
  gtk_widget_class_install_action (widget_class, "win.export-sweep", NULL, export_sweep_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.show-results", NULL, show_results_action);
  gtk_widget_class_install_action (widget_class, "win.show-settings", NULL, show_settings_action);
  gtk_widget_class_install_action (widget_class, "win.show-plan", NULL, show_plan_action);
  gtk_widget_class_install_action (widget_class, "win.assume-generic", NULL, assume_generic_action);
  gtk_widget_class_install_action (widget_class, "win.show-view", "s", show_view_action);
  gtk_widget_class_install_action (widget_class, "win.keep-scenario", NULL, keep_scenario_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, GDK_CONTROL_MASK, "win.new", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "win.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.save-as", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.export-csv", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_k, GDK_CONTROL_MASK, "win.keep-scenario", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_ALT_MASK, "win.show-view", "s", "estimate");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_2, GDK_ALT_MASK, "win.show-view", "s", "plan");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_3, GDK_ALT_MASK, "win.show-view", "s", "compare");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
headroom_window_init (HeadroomWindow *self)
{
  g_autoptr(HeadroomProject) project = headroom_project_new_default ();
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* A user catalog file that did not load is named with its fault, not
   * silently left out (issue 15); the service keeps the file as it is. */
  {
    const GError *catalog_error = headroom_catalog_get_load_error (headroom_catalog_get_default ());

    if (catalog_error != NULL)
      {
        /* TRANSLATORS: the catalog's message names the file, the line and the fault */
        g_autofree char *text = g_strdup_printf (_("A catalog file did not load, so its entries are "
                                                   "missing: %s. The file is kept as it is; fix it "
                                                   "and restart Headroom."),
                                                 catalog_error->message);

        gtk_label_set_label (self->catalog_label, text);
        gtk_revealer_set_reveal_child (self->catalog_revealer, TRUE);
      }
  }

  self->estimator = headroom_estimator_new (project);
  headroom_model_page_set_estimator (self->model_page, self->estimator);
  headroom_hardware_page_set_estimator (self->hardware_page, self->estimator);
  headroom_workload_page_set_estimator (self->workload_page, self->estimator);
  headroom_results_view_set_estimator (self->results_view, self->estimator);
  g_signal_connect_object (self->estimator, "notify::error", G_CALLBACK (refresh_error),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->estimator, "updated", G_CALLBACK (refresh_assumed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->window_title, "notify::title-visible",
                           G_CALLBACK (refresh_switchers), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->leaflet, "notify::folded",
                           G_CALLBACK (refresh_switchers), self, G_CONNECT_SWAPPED);

  drop = gtk_drop_target_new (G_TYPE_FILE, GDK_ACTION_COPY);
  g_signal_connect_object (drop, "drop", G_CALLBACK (on_drop), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  set_project (self, project);
}

HeadroomWindow *
headroom_window_new (HeadroomApplication *application)
{
  HeadroomWindow *self = g_object_new (HEADROOM_TYPE_WINDOW, "application", application, NULL);

  self->settings = g_object_ref (headroom_application_get_settings (application));
  g_settings_bind (self->settings, "window-width", self, "default-width", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-height", self, "default-height", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (self->settings, "changed::recent-projects",
                           G_CALLBACK (refresh_recent_menu), self, G_CONNECT_SWAPPED);
  refresh_recent_menu (self);
  return self;
}

HeadroomProject *
headroom_window_get_project (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return self->project;
}

HeadroomEstimator *
headroom_window_get_estimator (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return self->estimator;
}

const char *
headroom_window_get_time_caption (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return headroom_results_view_get_time_caption (self->results_view);
}

HeadroomMemoryBar *
headroom_window_get_memory_bar (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return headroom_results_view_get_memory_bar (self->results_view);
}

HeadroomMemoryBar *
headroom_window_get_cpu_bar (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return headroom_results_view_get_cpu_bar (self->results_view);
}

GtkWidget *
headroom_window_get_row (HeadroomWindow *self,
                         const char     *key)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  return find_row (self, key);
}

const char *
headroom_window_get_assumed_text (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  if (!gtk_revealer_get_reveal_child (self->assumed_revealer)
      || !gtk_widget_get_visible (GTK_WIDGET (self->assumed_revealer)))
    return NULL;
  return gtk_label_get_label (self->assumed_label);
}

const char *
headroom_window_get_unknown_model_text (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->unknown_page)))
    return NULL;
  return adw_status_page_get_description (self->unknown_page);
}

const char *
headroom_window_get_error_text (HeadroomWindow *self)
{
  g_return_val_if_fail (HEADROOM_IS_WINDOW (self), NULL);

  if (!gtk_revealer_get_reveal_child (self->error_revealer))
    return NULL;
  return gtk_label_get_label (self->error_label);
}
