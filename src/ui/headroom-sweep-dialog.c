/* headroom-sweep-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's twin of `headroom-cli sweep --axis --from --to`: one setting,
 * powers of two between two values, as CSV.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "headroom-sweep-dialog.h"

struct _HeadroomSweepDialog
{
  AdwMessageDialog  parent_instance;

  GtkDropDown      *axis;
  GtkSpinButton    *from;
  GtkSpinButton    *to;
  HeadroomProject  *project;
};

G_DEFINE_FINAL_TYPE (HeadroomSweepDialog, headroom_sweep_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* The drop-down's order. */
static const HeadroomSweep axes[] = {
  HEADROOM_SWEEP_MICRO_BATCH, HEADROOM_SWEEP_SEQ_LEN, HEADROOM_SWEEP_GPUS,
};

static void
reset_range (HeadroomSweepDialog *self)
{
  guint n = 0;
  g_autofree gint64 *values = headroom_report_sweep_default_values (self->project,
                                                                    headroom_sweep_dialog_get_axis (self), &n);

  if (n > 0)
    headroom_sweep_dialog_set_range (self, values[0], values[n - 1]);
}

static void
on_range_changed (HeadroomSweepDialog *self)
{
  gboolean valid = gtk_spin_button_get_value (self->from) <= gtk_spin_button_get_value (self->to);

  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (self), "export", valid);
}

static GtkWidget *
labelled (const char *text,
          GtkWidget  *widget)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new_with_mnemonic (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), widget);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), widget);
  return box;
}

static void
headroom_sweep_dialog_dispose (GObject *object)
{
  g_clear_object (&HEADROOM_SWEEP_DIALOG (object)->project);

  G_OBJECT_CLASS (headroom_sweep_dialog_parent_class)->dispose (object);
}

static void
headroom_sweep_dialog_class_init (HeadroomSweepDialogClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = headroom_sweep_dialog_dispose;
}

static void
headroom_sweep_dialog_init (HeadroomSweepDialog *self)
{
  const char *names[] = { _("Micro-batch"), _("Sequence length"), _("GPUs"), NULL };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);

  self->axis = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (names));
  self->from = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (1, 1e9, 1));
  self->to = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (1, 1e9, 1));
  gtk_box_append (GTK_BOX (box), labelled (_("_Setting"), GTK_WIDGET (self->axis)));
  gtk_box_append (GTK_BOX (box), labelled (_("_From"), GTK_WIDGET (self->from)));
  gtk_box_append (GTK_BOX (box), labelled (_("_To"), GTK_WIDGET (self->to)));
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (self), box);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (self),
                                    "cancel", _("_Cancel"), "export", _("_Export…"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (self), "export",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (self), "export");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (self), "cancel");
  g_signal_connect_object (self->axis, "notify::selected", G_CALLBACK (reset_range),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->from, "value-changed", G_CALLBACK (on_range_changed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->to, "value-changed", G_CALLBACK (on_range_changed),
                           self, G_CONNECT_SWAPPED);
}

HeadroomSweepDialog *
headroom_sweep_dialog_new (GtkWindow       *parent,
                           HeadroomProject *project)
{
  HeadroomSweepDialog *self;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (project), NULL);

  self = g_object_new (HEADROOM_TYPE_SWEEP_DIALOG,
                       "transient-for", parent,
                       "heading", _("Export Sweep"),
                       "body", _("Memory per GPU, step time and throughput at powers of two of "
                                 "one setting, as CSV."),
                       NULL);
  self->project = g_object_ref (project);
  reset_range (self);
  return self;
}

HeadroomSweep
headroom_sweep_dialog_get_axis (HeadroomSweepDialog *self)
{
  guint selected;

  g_return_val_if_fail (HEADROOM_IS_SWEEP_DIALOG (self), HEADROOM_SWEEP_MICRO_BATCH);

  selected = gtk_drop_down_get_selected (self->axis);
  return selected < G_N_ELEMENTS (axes) ? axes[selected] : HEADROOM_SWEEP_MICRO_BATCH;
}

void
headroom_sweep_dialog_set_axis (HeadroomSweepDialog *self,
                                HeadroomSweep        axis)
{
  g_return_if_fail (HEADROOM_IS_SWEEP_DIALOG (self));

  for (guint i = 0; i < G_N_ELEMENTS (axes); i++)
    if (axes[i] == axis)
      gtk_drop_down_set_selected (self->axis, i);
}

void
headroom_sweep_dialog_set_range (HeadroomSweepDialog *self,
                                 gint64               from,
                                 gint64               to)
{
  g_return_if_fail (HEADROOM_IS_SWEEP_DIALOG (self));

  gtk_spin_button_set_value (self->from, (double) from);
  gtk_spin_button_set_value (self->to, (double) to);
}

gint64 *
headroom_sweep_dialog_dup_values (HeadroomSweepDialog *self,
                                  guint               *n_values)
{
  gint64 from, to;
  GArray *values = g_array_new (FALSE, FALSE, sizeof (gint64));

  g_return_val_if_fail (HEADROOM_IS_SWEEP_DIALOG (self), NULL);
  g_return_val_if_fail (n_values != NULL, NULL);

  from = (gint64) gtk_spin_button_get_value (self->from);
  to = (gint64) gtk_spin_button_get_value (self->to);
  for (gint64 v = MAX (from, 1); v <= to; v *= 2)
    g_array_append_val (values, v);
  *n_values = values->len;
  return (gint64 *) g_array_free (values, FALSE);
}
