/* headroom-flops-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "headroom-flops-row.h"

struct _HeadroomFlopsRow
{
  GObject parent_instance;

  char *name;
  char *label;
  double forward;
  double backward;
  double recompute;
  double share;
};

G_DEFINE_FINAL_TYPE (HeadroomFlopsRow, headroom_flops_row, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_LABEL,
  PROP_FORWARD,
  PROP_BACKWARD,
  PROP_RECOMPUTE,
  PROP_TOTAL,
  PROP_SHARE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
headroom_flops_row_finalize (GObject *object)
{
  HeadroomFlopsRow *self = (HeadroomFlopsRow *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->label, g_free);

  G_OBJECT_CLASS (headroom_flops_row_parent_class)->finalize (object);
}

static void
headroom_flops_row_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  HeadroomFlopsRow *self = HEADROOM_FLOPS_ROW (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_LABEL:
      g_value_set_string (value, self->label);
      break;
    case PROP_FORWARD:
      g_value_set_double (value, self->forward);
      break;
    case PROP_BACKWARD:
      g_value_set_double (value, self->backward);
      break;
    case PROP_RECOMPUTE:
      g_value_set_double (value, self->recompute);
      break;
    case PROP_TOTAL:
      g_value_set_double (value, headroom_flops_row_get_total (self));
      break;
    case PROP_SHARE:
      g_value_set_double (value, self->share);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static GParamSpec *
flops_param (const char *name)
{
  return g_param_spec_double (name, NULL, NULL, 0, G_MAXDOUBLE, 0,
                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}

static void
headroom_flops_row_class_init (HeadroomFlopsRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_flops_row_finalize;
  object_class->get_property = headroom_flops_row_get_property;

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LABEL] = g_param_spec_string ("label", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_FORWARD] = flops_param ("forward");
  properties[PROP_BACKWARD] = flops_param ("backward");
  properties[PROP_RECOMPUTE] = flops_param ("recompute");
  properties[PROP_TOTAL] = flops_param ("total");
  properties[PROP_SHARE] = g_param_spec_double ("share", NULL, NULL, 0, 1, 0,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
headroom_flops_row_init (HeadroomFlopsRow *self)
{
}

HeadroomFlopsRow *
headroom_flops_row_new (const char *name,
                        const char *label,
                        double      forward,
                        double      backward,
                        double      recompute,
                        double      share)
{
  HeadroomFlopsRow *self = g_object_new (HEADROOM_TYPE_FLOPS_ROW, NULL);

  self->name = g_strdup (name);
  self->label = g_strdup (label);
  self->forward = forward;
  self->backward = backward;
  self->recompute = recompute;
  self->share = CLAMP (share, 0.0, 1.0);
  return self;
}

const char *
headroom_flops_row_get_name (HeadroomFlopsRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_FLOPS_ROW (self), NULL);
  return self->name;
}

const char *
headroom_flops_row_get_label (HeadroomFlopsRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_FLOPS_ROW (self), NULL);
  return self->label;
}

double
headroom_flops_row_get_forward (HeadroomFlopsRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_FLOPS_ROW (self), 0);
  return self->forward;
}

double
headroom_flops_row_get_backward (HeadroomFlopsRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_FLOPS_ROW (self), 0);
  return self->backward;
}

double
headroom_flops_row_get_recompute (HeadroomFlopsRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_FLOPS_ROW (self), 0);
  return self->recompute;
}

double
headroom_flops_row_get_total (HeadroomFlopsRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_FLOPS_ROW (self), 0);
  return self->forward + self->backward + self->recompute;
}

double
headroom_flops_row_get_share (HeadroomFlopsRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_FLOPS_ROW (self), 0);
  return self->share;
}
