/* headroom-quantity.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "headroom-quantity.h"

struct _HeadroomQuantity
{
  GObject parent_instance;

  char *name;
  char *label;
  char *unit;
  char *role;
  char *formula;
  char *detail;
  char *needs;
  double value;
};

G_DEFINE_FINAL_TYPE (HeadroomQuantity, headroom_quantity, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_LABEL,
  PROP_VALUE,
  PROP_UNIT,
  PROP_ROLE,
  PROP_FORMULA,
  PROP_DETAIL,
  PROP_NEEDS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
headroom_quantity_finalize (GObject *object)
{
  HeadroomQuantity *self = (HeadroomQuantity *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->label, g_free);
  g_clear_pointer (&self->unit, g_free);
  g_clear_pointer (&self->role, g_free);
  g_clear_pointer (&self->formula, g_free);
  g_clear_pointer (&self->detail, g_free);
  g_clear_pointer (&self->needs, g_free);

  G_OBJECT_CLASS (headroom_quantity_parent_class)->finalize (object);
}

static void
headroom_quantity_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  HeadroomQuantity *self = HEADROOM_QUANTITY (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_LABEL:
      g_value_set_string (value, self->label);
      break;
    case PROP_VALUE:
      g_value_set_double (value, self->value);
      break;
    case PROP_UNIT:
      g_value_set_string (value, self->unit);
      break;
    case PROP_ROLE:
      g_value_set_string (value, self->role);
      break;
    case PROP_FORMULA:
      g_value_set_string (value, self->formula);
      break;
    case PROP_DETAIL:
      g_value_set_string (value, self->detail);
      break;
    case PROP_NEEDS:
      g_value_set_string (value, self->needs);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_quantity_class_init (HeadroomQuantityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_quantity_finalize;
  object_class->get_property = headroom_quantity_get_property;

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LABEL] = g_param_spec_string ("label", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VALUE] = g_param_spec_double ("value", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UNIT] = g_param_spec_string ("unit", NULL, NULL, NULL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_ROLE] = g_param_spec_string ("role", NULL, NULL, NULL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_FORMULA] = g_param_spec_string ("formula", NULL, NULL, NULL,
                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_DETAIL] = g_param_spec_string ("detail", NULL, NULL, NULL,
                                                 G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_NEEDS] = g_param_spec_string ("needs", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
headroom_quantity_init (HeadroomQuantity *self)
{
}

HeadroomQuantity *
headroom_quantity_new (const char *name,
                       const char *label,
                       double      value,
                       const char *unit,
                       const char *role,
                       const char *formula)
{
  HeadroomQuantity *self = g_object_new (HEADROOM_TYPE_QUANTITY, NULL);

  self->name = g_strdup (name);
  self->label = g_strdup (label);
  self->value = value;
  self->unit = g_strdup (unit);
  self->role = g_strdup (role);
  self->formula = g_strdup (formula);
  return self;
}

const char *
headroom_quantity_get_name (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), NULL);
  return self->name;
}

const char *
headroom_quantity_get_label (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), NULL);
  return self->label;
}

double
headroom_quantity_get_value (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), 0);
  return self->value;
}

void
headroom_quantity_set_value (HeadroomQuantity *self,
                             double            value)
{
  g_return_if_fail (HEADROOM_IS_QUANTITY (self));

  if (self->value == value)
    return;
  self->value = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALUE]);
}

const char *
headroom_quantity_get_unit (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), NULL);
  return self->unit;
}

const char *
headroom_quantity_get_role (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), NULL);
  return self->role;
}

const char *
headroom_quantity_get_formula (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), NULL);
  return self->formula;
}

const char *
headroom_quantity_get_detail (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), NULL);
  return self->detail;
}

void
headroom_quantity_set_detail (HeadroomQuantity *self,
                              const char       *detail)
{
  g_return_if_fail (HEADROOM_IS_QUANTITY (self));

  if (g_strcmp0 (self->detail, detail) == 0)
    return;
  g_free (self->detail);
  self->detail = g_strdup (detail);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DETAIL]);
}

HeadroomQuantity *
headroom_quantity_new_missing (const char *name,
                               const char *label,
                               const char *unit,
                               const char *formula,
                               const char *needs)
{
  HeadroomQuantity *self = headroom_quantity_new (name, label, 0, unit, NULL, formula);

  g_return_val_if_fail (needs != NULL, self);
  self->needs = g_strdup (needs);
  return self;
}

const char *
headroom_quantity_get_needs (HeadroomQuantity *self)
{
  g_return_val_if_fail (HEADROOM_IS_QUANTITY (self), NULL);
  return self->needs;
}
