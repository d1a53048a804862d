/* headroom-spin-row.h: a preferences row holding a number (AdwSpinRow is libadwaita 1.4)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_SPIN_ROW (headroom_spin_row_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomSpinRow, headroom_spin_row, HEADROOM, SPIN_ROW, AdwActionRow)

GtkWidget     *headroom_spin_row_new            (const char      *title,
                                                 const char      *key,
                                                 double           lower,
                                                 double           upper,
                                                 double           step,
                                                 guint            digits);

/* The project key the row edits, e.g. "training.micro_batch". */
const char    *headroom_spin_row_get_key        (HeadroomSpinRow *self);
GtkSpinButton *headroom_spin_row_get_spin_button (HeadroomSpinRow *self);
double         headroom_spin_row_get_value      (HeadroomSpinRow *self);
void           headroom_spin_row_set_value      (HeadroomSpinRow *self,
                                                 double           value);
/* Shows and takes the value as a percentage: 0.4 reads "40 %". */
void           headroom_spin_row_set_percent    (HeadroomSpinRow *self,
                                                 gboolean         percent);
/* A 0 that means "not set" (or the lower bound, where the range starts below
 * 0) shows as this placeholder, the field left empty; clearing the field sets
 * it back. */
void           headroom_spin_row_set_zero_text  (HeadroomSpinRow *self,
                                                 const char      *text);

/* Text ↔ value as the row shows them, for tests: digits grouped
 * ("1,000,000,000,000"), "40 %" in percent mode. Parsing accepts the
 * grouping, spaces and the suffixes k, M, G (or B) and T. */
char          *headroom_spin_row_format         (HeadroomSpinRow *self,
                                                 double           value);
gboolean       headroom_spin_row_parse          (HeadroomSpinRow *self,
                                                 const char      *text,
                                                 double          *value);

G_END_DECLS
