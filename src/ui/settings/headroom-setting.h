/* headroom-setting.h: one setting row bound to one project key
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A setting is built from its key alone: the key table (headroom_project_find_key)
 * gives the row's kind (a number, a switch, a choice or a text), its range,
 * unit, label and choices. It writes the row's edits to the project and
 * reads the project back on ::changed::KEY only, so an edit refreshes one row.
 * The table also says where the row goes (group), what a sentinel 0 means
 * (placeholder) and what the setting does (description, the tooltip).
 * The row is a HeadroomSpinRow, HeadroomSwitchRow, AdwComboRow or AdwEntryRow;
 * headroom_setting_from_row() finds the setting again.
 */
#pragma once

#include <adwaita.h>

#include "headroom-project.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_SETTING (headroom_setting_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomSetting, headroom_setting, HEADROOM, SETTING, GObject)

/* NULL for a key neither the table nor the extra model keys know. */
HeadroomSetting *headroom_setting_new          (const char      *key) G_GNUC_WARN_UNUSED_RESULT;
HeadroomSetting *headroom_setting_from_row     (GtkWidget       *row);

const char      *headroom_setting_get_key      (HeadroomSetting *self);
/* The row (owned by the setting until it is put in a container). */
GtkWidget       *headroom_setting_get_row      (HeadroomSetting *self);
/* The label the user sees, translated ("Tensor parallel"). */
const char      *headroom_setting_get_label    (HeadroomSetting *self);
/* Where the table files the setting: "workload/parallelism", "model/moe", … */
const char      *headroom_setting_get_group    (HeadroomSetting *self);

HeadroomProject *headroom_setting_get_project  (HeadroomSetting *self);
void             headroom_setting_set_project  (HeadroomSetting *self,
                                                HeadroomProject *project);

/* Marks the row as the one at fault (NULL clears), with the message as tooltip. */
void             headroom_setting_set_error    (HeadroomSetting *self,
                                                const char      *message);

/* New settings for every key shown on `page` ("model", "hardware",
 * "workload") or in one of its groups ("model/moe"), in the table's order,
 * then the extra model keys; the preset and GPU choosers are the pages' own. */
GPtrArray       *headroom_setting_list_page    (const char      *page) G_GNUC_WARN_UNUSED_RESULT;
/* Whether the key table files `key` on `page` or in its group (the list
 * above, or the page's own chooser: hardware.gpu), without building a row. */
gboolean         headroom_setting_is_on_page   (const char      *key,
                                                const char      *page);

/* How a choice value of `key` reads ("bf16-mixed" → "BF16 mixed precision"),
 * from the key table, translated. */
const char      *headroom_setting_choice_label   (const char *key,
                                                  const char *value);

G_END_DECLS
