/* headroom-spin-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "headroom-spin-row.h"

struct _HeadroomSpinRow
{
  AdwActionRow   parent_instance;

  GtkSpinButton *spin_button;
  char          *key;
};

G_DEFINE_FINAL_TYPE (HeadroomSpinRow, headroom_spin_row, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_KEY,
  PROP_VALUE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
on_value_changed (HeadroomSpinRow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALUE]);
}

static void
headroom_spin_row_activate (AdwActionRow *row)
{
  gtk_widget_grab_focus (GTK_WIDGET (HEADROOM_SPIN_ROW (row)->spin_button));
}

static void
headroom_spin_row_finalize (GObject *object)
{
  g_free (HEADROOM_SPIN_ROW (object)->key);

  G_OBJECT_CLASS (headroom_spin_row_parent_class)->finalize (object);
}

static void
headroom_spin_row_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  HeadroomSpinRow *self = HEADROOM_SPIN_ROW (object);

  switch (prop_id)
    {
    case PROP_KEY:
      g_value_set_string (value, self->key);
      break;
    case PROP_VALUE:
      g_value_set_double (value, headroom_spin_row_get_value (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_spin_row_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  HeadroomSpinRow *self = HEADROOM_SPIN_ROW (object);

  switch (prop_id)
    {
    case PROP_KEY:
      g_free (self->key);
      self->key = g_value_dup_string (value);
      break;
    case PROP_VALUE:
      headroom_spin_row_set_value (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_spin_row_class_init (HeadroomSpinRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_spin_row_finalize;
  object_class->get_property = headroom_spin_row_get_property;
  object_class->set_property = headroom_spin_row_set_property;
  ADW_ACTION_ROW_CLASS (klass)->activate = headroom_spin_row_activate;

  properties[PROP_KEY] =
    g_param_spec_string ("key", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VALUE] =
    g_param_spec_double ("value", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
headroom_spin_row_init (HeadroomSpinRow *self)
{
  self->spin_button = GTK_SPIN_BUTTON (gtk_spin_button_new (NULL, 1, 0));
  gtk_widget_set_valign (GTK_WIDGET (self->spin_button), GTK_ALIGN_CENTER);
  gtk_spin_button_set_numeric (self->spin_button, TRUE);
  gtk_spin_button_set_update_policy (self->spin_button, GTK_UPDATE_IF_VALID);
  gtk_editable_set_width_chars (GTK_EDITABLE (self->spin_button), 10);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), GTK_WIDGET (self->spin_button));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self), GTK_WIDGET (self->spin_button));
  g_signal_connect_object (self->spin_button, "value-changed",
                           G_CALLBACK (on_value_changed), self, G_CONNECT_SWAPPED);
}

GtkWidget *
headroom_spin_row_new (const char *title,
                       const char *key,
                       double      lower,
                       double      upper,
                       double      step,
                       guint       digits)
{
  HeadroomSpinRow *self = g_object_new (HEADROOM_TYPE_SPIN_ROW,
                                        "title", title,
                                        "key", key,
                                        NULL);

  gtk_spin_button_set_digits (self->spin_button, digits);
  gtk_spin_button_set_range (self->spin_button, lower, upper);
  gtk_spin_button_set_increments (self->spin_button, step, step * 10);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->spin_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  -1);
  return GTK_WIDGET (self);
}

const char *
headroom_spin_row_get_key (HeadroomSpinRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_SPIN_ROW (self), NULL);

  return self->key;
}

GtkSpinButton *
headroom_spin_row_get_spin_button (HeadroomSpinRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_SPIN_ROW (self), NULL);

  return self->spin_button;
}

double
headroom_spin_row_get_value (HeadroomSpinRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_SPIN_ROW (self), 0);

  return gtk_spin_button_get_value (self->spin_button);
}

void
headroom_spin_row_set_value (HeadroomSpinRow *self,
                             double           value)
{
  g_return_if_fail (HEADROOM_IS_SPIN_ROW (self));

  gtk_spin_button_set_value (self->spin_button, value);
}
