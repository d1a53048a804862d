/* headroom-switch-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "headroom-switch-row.h"

struct _HeadroomSwitchRow
{
  AdwActionRow  parent_instance;

  GtkSwitch    *toggle;
  char         *key;
};

G_DEFINE_FINAL_TYPE (HeadroomSwitchRow, headroom_switch_row, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_KEY,
  PROP_ACTIVE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
on_active_changed (HeadroomSwitchRow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

static void
headroom_switch_row_finalize (GObject *object)
{
  g_free (HEADROOM_SWITCH_ROW (object)->key);

  G_OBJECT_CLASS (headroom_switch_row_parent_class)->finalize (object);
}

static void
headroom_switch_row_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  HeadroomSwitchRow *self = HEADROOM_SWITCH_ROW (object);

  switch (prop_id)
    {
    case PROP_KEY:
      g_value_set_string (value, self->key);
      break;
    case PROP_ACTIVE:
      g_value_set_boolean (value, headroom_switch_row_get_active (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_switch_row_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  HeadroomSwitchRow *self = HEADROOM_SWITCH_ROW (object);

  switch (prop_id)
    {
    case PROP_KEY:
      g_free (self->key);
      self->key = g_value_dup_string (value);
      break;
    case PROP_ACTIVE:
      headroom_switch_row_set_active (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_switch_row_class_init (HeadroomSwitchRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_switch_row_finalize;
  object_class->get_property = headroom_switch_row_get_property;
  object_class->set_property = headroom_switch_row_set_property;

  properties[PROP_KEY] =
    g_param_spec_string ("key", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ACTIVE] =
    g_param_spec_boolean ("active", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
headroom_switch_row_init (HeadroomSwitchRow *self)
{
  self->toggle = GTK_SWITCH (gtk_switch_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->toggle), GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), GTK_WIDGET (self->toggle));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self), GTK_WIDGET (self->toggle));
  g_signal_connect_object (self->toggle, "notify::active",
                           G_CALLBACK (on_active_changed), self, G_CONNECT_SWAPPED);
}

GtkWidget *
headroom_switch_row_new (const char *title,
                         const char *key)
{
  HeadroomSwitchRow *self = g_object_new (HEADROOM_TYPE_SWITCH_ROW,
                                          "title", title,
                                          "key", key,
                                          NULL);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->toggle),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  -1);
  return GTK_WIDGET (self);
}

const char *
headroom_switch_row_get_key (HeadroomSwitchRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_SWITCH_ROW (self), NULL);

  return self->key;
}

gboolean
headroom_switch_row_get_active (HeadroomSwitchRow *self)
{
  g_return_val_if_fail (HEADROOM_IS_SWITCH_ROW (self), FALSE);

  return gtk_switch_get_active (self->toggle);
}

void
headroom_switch_row_set_active (HeadroomSwitchRow *self,
                                gboolean           active)
{
  g_return_if_fail (HEADROOM_IS_SWITCH_ROW (self));

  gtk_switch_set_active (self->toggle, active);
}
