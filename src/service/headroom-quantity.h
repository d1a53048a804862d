/* headroom-quantity.h: one named figure of an estimate (a list-model item)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Rows of the parameter breakdown, segments of the memory bar and lines of
 * the time and cost summary are all quantities: a stable name ("optimizer"),
 * a translated label, a value in `unit`, a colour role for charts and the
 * formula behind it for a tooltip.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_QUANTITY (headroom_quantity_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomQuantity, headroom_quantity, HEADROOM, QUANTITY, GObject)

HeadroomQuantity *headroom_quantity_new (const char *name,
                                         const char *label,
                                         double      value,
                                         const char *unit,
                                         const char *role,
                                         const char *formula) G_GNUC_WARN_UNUSED_RESULT;

/* Stable English identifier, also the CSV row name. */
const char *headroom_quantity_get_name    (HeadroomQuantity *self);
/* Translated label. */
const char *headroom_quantity_get_label   (HeadroomQuantity *self);
double      headroom_quantity_get_value   (HeadroomQuantity *self);
/* The estimator's update of a list item in place; notifies "value". */
void        headroom_quantity_set_value   (HeadroomQuantity *self,
                                           double            value);
/* "bytes", "parameters", "FLOP", "s", "USD", "tokens/s", "%" */
const char *headroom_quantity_get_unit    (HeadroomQuantity *self);
/* Chart colour role: "weights", "gradients", "optimizer", "activations",
 * "kv-cache", "buffers", "overhead", "free"; NULL for non-memory rows. */
const char *headroom_quantity_get_role    (HeadroomQuantity *self);
/* The formula and its source, e.g. "2·P bytes (bf16 weights)"; may be NULL. */
const char *headroom_quantity_get_formula (HeadroomQuantity *self);
/* A translated note the service made to go with the figure, e.g. "0.44 % of
 * all parameters"; may be NULL. */
const char *headroom_quantity_get_detail  (HeadroomQuantity *self);
/* The estimator's update in place; notifies "detail". */
void        headroom_quantity_set_detail  (HeadroomQuantity *self,
                                           const char       *detail);

/* A figure that cannot be computed until a setting is given: its value is 0
 * and no result; `needs` is that setting's label, e.g. "Training tokens". */
HeadroomQuantity *headroom_quantity_new_missing (const char *name,
                                                 const char *label,
                                                 const char *unit,
                                                 const char *formula,
                                                 const char *needs) G_GNUC_WARN_UNUSED_RESULT;
/* The label of the setting the figure needs; NULL when it is a result. */
const char *headroom_quantity_get_needs   (HeadroomQuantity *self);

G_END_DECLS
