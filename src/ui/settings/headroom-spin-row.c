/* headroom-spin-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "headroom-format.h"
#include "headroom-spin-row.h"

struct _HeadroomSpinRow
{
  AdwActionRow   parent_instance;

  GtkSpinButton *spin_button;
  char          *key;
  char          *zero_text;
  double         unset_value;   /* the value zero_text stands for */
  gboolean       percent;
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

char *
headroom_spin_row_format (HeadroomSpinRow *self,
                          double           value)
{
  guint digits;
  g_autofree char *whole = NULL;
  g_autofree char *fraction = NULL;
  double scale, rounded;

  g_return_val_if_fail (HEADROOM_IS_SPIN_ROW (self), NULL);

  if (value == self->unset_value && self->zero_text != NULL)
    return g_strdup ("");
  digits = gtk_spin_button_get_digits (self->spin_button);
  if (self->percent)
    {
      value *= 100;
      digits = digits >= 2 ? digits - 2 : 0;
    }
  /* The whole part grouped as results are, then the decimals the row keeps,
   * trailing zeros dropped ("2.5", not "2.50"). */
  scale = pow (10, digits);
  rounded = round (fabs (value) * scale) / scale;
  whole = headroom_format_integer (trunc (rounded));
  if (digits > 0 && rounded != trunc (rounded))
    {
      char *point, *end;

      fraction = g_strdup_printf ("%.*f", digits, rounded - trunc (rounded));
      point = strpbrk (fraction, ".,");
      end = fraction + strlen (fraction) - 1;
      while (end > point && *end == '0')
        *end-- = '\0';
      return g_strdup_printf ("%s%s%s%s", value < 0 ? "−" : "", whole, point,
                              self->percent ? " %" : "");
    }
  return g_strdup_printf ("%s%s%s", value < 0 ? "−" : "", whole, self->percent ? " %" : "");
}

gboolean
headroom_spin_row_parse (HeadroomSpinRow *self,
                         const char      *text,
                         double          *value)
{
  g_autoptr(GString) clean = g_string_new (NULL);
  g_autofree char *grouped = headroom_format_integer (1000);
  const char *decimal = localeconv ()->decimal_point;
  gunichar group = g_utf8_get_char (g_utf8_next_char (grouped));
  double scale = 1, result;
  char *end;

  g_return_val_if_fail (HEADROOM_IS_SPIN_ROW (self), FALSE);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isdigit (c) && c < 128)
        g_string_append_c (clean, (char) c);
      else if (decimal != NULL && g_str_has_prefix (p, decimal) && group != (gunichar) decimal[0])
        g_string_append_c (clean, '.');
      else if (c == '.' && group != '.')
        g_string_append_c (clean, '.');
      else if (c == '-' || c == 0x2212)
        g_string_append_c (clean, '-');
      else if (c == 'e' || c == 'E')
        g_string_append_c (clean, 'e');
      else if (c == 'k' || c == 'K')
        scale = 1e3;
      else if (c == 'M')
        scale = 1e6;
      else if (c == 'G' || c == 'B')
        scale = 1e9;
      else if (c == 'T')
        scale = 1e12;
      /* Grouping, spaces and the percent sign are presentation only. */
    }
  if (clean->len == 0)
    {
      if (self->zero_text == NULL)
        return FALSE;
      *value = self->unset_value;
      return TRUE;
    }
  result = g_ascii_strtod (clean->str, &end);
  if (*end != '\0' || !isfinite (result))
    return FALSE;
  result *= scale;
  if (self->percent)
    result /= 100;
  *value = result;
  return TRUE;
}

static gboolean
on_output (GtkSpinButton   *spin_button,
           HeadroomSpinRow *self)
{
  g_autofree char *text = headroom_spin_row_format (self, gtk_spin_button_get_value (spin_button));

  if (g_strcmp0 (text, gtk_editable_get_text (GTK_EDITABLE (spin_button))) != 0)
    gtk_editable_set_text (GTK_EDITABLE (spin_button), text);
  return TRUE;
}

static int
on_input (GtkSpinButton   *spin_button,
          double          *new_value,
          HeadroomSpinRow *self)
{
  if (!headroom_spin_row_parse (self, gtk_editable_get_text (GTK_EDITABLE (spin_button)), new_value))
    return GTK_INPUT_ERROR;
  return TRUE;
}

/* The wheel scrolls the page: a number never changes under a scrolling
 * pointer (GtkSpinButton's own scroll controller is removed, so the event
 * goes on to the scrolled window). */
static void
remove_scroll_controller (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  g_autoptr(GPtrArray) scrolls = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller))
        g_ptr_array_add (scrolls, g_object_ref (controller));
    }
  for (guint i = 0; i < scrolls->len; i++)
    gtk_widget_remove_controller (widget, scrolls->pdata[i]);
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
  g_free (HEADROOM_SPIN_ROW (object)->zero_text);

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
  gtk_spin_button_set_numeric (self->spin_button, FALSE);
  gtk_spin_button_set_update_policy (self->spin_button, GTK_UPDATE_IF_VALID);
  gtk_editable_set_width_chars (GTK_EDITABLE (self->spin_button), 12);
  gtk_editable_set_alignment (GTK_EDITABLE (self->spin_button), 1);
  gtk_widget_add_css_class (GTK_WIDGET (self->spin_button), "numeric");
  g_signal_connect_object (self->spin_button, "output", G_CALLBACK (on_output), self, 0);
  g_signal_connect_object (self->spin_button, "input", G_CALLBACK (on_input), self, 0);
  remove_scroll_controller (GTK_WIDGET (self->spin_button));
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

void
headroom_spin_row_set_percent (HeadroomSpinRow *self,
                               gboolean         percent)
{
  g_return_if_fail (HEADROOM_IS_SPIN_ROW (self));

  self->percent = !!percent;
  gtk_spin_button_update (self->spin_button);
  on_output (self->spin_button, self);
}

void
headroom_spin_row_set_zero_text (HeadroomSpinRow *self,
                                 const char      *text)
{
  GtkEditable *delegate;

  g_return_if_fail (HEADROOM_IS_SPIN_ROW (self));

  g_free (self->zero_text);
  self->zero_text = g_strdup (text);
  /* A range from −1 keeps −1 for "not set" (llama.cpp's -ngl, say). */
  self->unset_value = MIN (gtk_adjustment_get_lower (gtk_spin_button_get_adjustment (self->spin_button)), 0);
  /* Room for a short placeholder ("Default (25 GB/s)"); a longer one is
   * cut rather than squeezing the row's title in a 360 px column. */
  if (text != NULL)
    gtk_editable_set_width_chars (GTK_EDITABLE (self->spin_button),
                                  CLAMP ((int) g_utf8_strlen (text, -1),
                                         gtk_editable_get_width_chars (GTK_EDITABLE (self->spin_button)), 16));
  delegate = gtk_editable_get_delegate (GTK_EDITABLE (self->spin_button));
  if (GTK_IS_TEXT (delegate))
    gtk_text_set_placeholder_text (GTK_TEXT (delegate), text);
  on_output (self->spin_button, self);
}
