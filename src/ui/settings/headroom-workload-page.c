/* headroom-workload-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Training or inference, and the settings of the one chosen: the sections
 * of the other workload are hidden.
 *
 * The rows are built when the page is first shown or asked for a row, as
 * the Hardware page's are (see ensure_built).
 */
#include "config.h"

#include "headroom-setting.h"
#include "headroom-workload-page.h"

typedef enum
{
  SECTION_WORKLOAD,
  SECTION_BATCH,
  SECTION_FINETUNE,  /* what is trained, first after the batch: it decides the rest */
  SECTION_NUMERICS,
  SECTION_PARALLELISM,
  SECTION_THROUGHPUT,
  SECTION_REQUESTS,
  SECTION_SERVING,
  N_SECTIONS
} Section;

/* The key table's group names, in the .ui's order. */
static const char * const section_names[N_SECTIONS] = {
  "workload/workload", "workload/batch", "workload/finetune", "workload/numerics",
  "workload/parallelism", "workload/throughput", "workload/requests", "workload/serving",
};

struct _HeadroomWorkloadPage
{
  AdwPreferencesPage  parent_instance;

  GtkWidget          *sections[N_SECTIONS];

  GPtrArray          *settings;  /* NULL until the rows are built */
  HeadroomEstimator  *estimator;
  HeadroomProject    *project;
};

G_DEFINE_FINAL_TYPE (HeadroomWorkloadPage, headroom_workload_page, ADW_TYPE_PREFERENCES_PAGE)

static void
refresh_sections (HeadroomWorkloadPage *self)
{
  gboolean training = headroom_project_get_workload (self->project) == HEADROOM_WORKLOAD_TRAINING;

  /* Batch and fine-tuning are training's, requests and serving serving's;
   * numerics, parallelism and throughput hold rows of both, each row shown
   * under its own workload (headroom_project_key_applies). */
  gtk_widget_set_visible (self->sections[SECTION_BATCH], training);
  gtk_widget_set_visible (self->sections[SECTION_FINETUNE], training);
  gtk_widget_set_visible (self->sections[SECTION_REQUESTS], !training);
  gtk_widget_set_visible (self->sections[SECTION_SERVING], !training);
}

static void
set_project (HeadroomWorkloadPage *self,
             HeadroomProject      *project)
{
  if (self->project == project)
    return;
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_set_object (&self->project, project);
  for (guint i = 0; self->settings != NULL && i < self->settings->len; i++)
    headroom_setting_set_project (self->settings->pdata[i], project);
  if (project == NULL)
    return;
  g_signal_connect_object (project, "changed::workload", G_CALLBACK (refresh_sections),
                           self, G_CONNECT_SWAPPED);
  refresh_sections (self);
}

/* The rows in the key table's order, each in the section the table files
 * it in, bound to the project, once: they took 134 M of the 414 M
 * instructions that built the window (callgrind, bench-window --start),
 * while the window starts on the Model page. */
static void
ensure_built (HeadroomWorkloadPage *self)
{
  if (self->settings != NULL)
    return;
  self->settings = headroom_setting_list_page ("workload");
  for (guint i = 0; i < self->settings->len; i++)
    {
      HeadroomSetting *setting = self->settings->pdata[i];
      const char *group = headroom_setting_get_group (setting);
      Section section = SECTION_WORKLOAD;

      for (Section s = 0; s < N_SECTIONS; s++)
        if (g_str_equal (section_names[s], group))
          section = s;
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->sections[section]),
                                 headroom_setting_get_row (setting));
      if (self->project != NULL)
        headroom_setting_set_project (setting, self->project);
    }
}

static void
on_estimator_project (HeadroomWorkloadPage *self)
{
  set_project (self, headroom_estimator_get_project (self->estimator));
}

void
headroom_workload_page_set_estimator (HeadroomWorkloadPage *self,
                                      HeadroomEstimator    *estimator)
{
  g_return_if_fail (HEADROOM_IS_WORKLOAD_PAGE (self));
  g_return_if_fail (HEADROOM_IS_ESTIMATOR (estimator));
  g_return_if_fail (self->estimator == NULL);

  self->estimator = g_object_ref (estimator);
  g_signal_connect_object (estimator, "notify::project", G_CALLBACK (on_estimator_project),
                           self, G_CONNECT_SWAPPED);
  on_estimator_project (self);
}

GtkWidget *
headroom_workload_page_get_row (HeadroomWorkloadPage *self,
                                const char           *key)
{
  g_return_val_if_fail (HEADROOM_IS_WORKLOAD_PAGE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (!headroom_setting_is_on_page (key, "workload"))
    return NULL;
  ensure_built (self);
  for (guint i = 0; i < self->settings->len; i++)
    if (g_str_equal (headroom_setting_get_key (self->settings->pdata[i]), key))
      return headroom_setting_get_row (self->settings->pdata[i]);
  return NULL;
}

static void
headroom_workload_page_map (GtkWidget *widget)
{
  ensure_built (HEADROOM_WORKLOAD_PAGE (widget));

  GTK_WIDGET_CLASS (headroom_workload_page_parent_class)->map (widget);
}

static void
headroom_workload_page_dispose (GObject *object)
{
  HeadroomWorkloadPage *self = HEADROOM_WORKLOAD_PAGE (object);

  set_project (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), HEADROOM_TYPE_WORKLOAD_PAGE);
  g_clear_object (&self->estimator);
  g_clear_pointer (&self->settings, g_ptr_array_unref);

  G_OBJECT_CLASS (headroom_workload_page_parent_class)->dispose (object);
}

static void
headroom_workload_page_class_init (HeadroomWorkloadPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = headroom_workload_page_dispose;
  widget_class->map = headroom_workload_page_map;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE_PATH "/headroom-workload-page.ui");
  gtk_widget_class_bind_template_child_full (widget_class, "workload_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_WORKLOAD]));
  gtk_widget_class_bind_template_child_full (widget_class, "batch_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_BATCH]));
  gtk_widget_class_bind_template_child_full (widget_class, "numerics_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_NUMERICS]));
  gtk_widget_class_bind_template_child_full (widget_class, "parallelism_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_PARALLELISM]));
  gtk_widget_class_bind_template_child_full (widget_class, "throughput_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_THROUGHPUT]));
  gtk_widget_class_bind_template_child_full (widget_class, "finetune_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_FINETUNE]));
  gtk_widget_class_bind_template_child_full (widget_class, "requests_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_REQUESTS]));
  gtk_widget_class_bind_template_child_full (widget_class, "serving_group", FALSE,
                                             G_STRUCT_OFFSET (HeadroomWorkloadPage, sections[SECTION_SERVING]));
}

static void
headroom_workload_page_init (HeadroomWorkloadPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
