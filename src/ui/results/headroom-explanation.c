/* headroom-explanation.c: the "show why" popover of a figure
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The text is the service's (headroom_estimator_dup_explanation(),
 * headroom_plan_row_dup_explanation()): shown whole, wrapped and selectable,
 * in a popover that goes away once closed.
 */
#include "config.h"

#include "headroom-explanation.h"

static void
on_closed (GtkPopover *popover)
{
  /* Unparented after the closing has run its course. */
  g_idle_add_once ((GSourceOnceFunc) gtk_widget_unparent, popover);
}

/* Opens a popover on `anchor` showing `text`. */
void
headroom_explanation_popup (GtkWidget  *anchor,
                            const char *text)
{
  GtkWidget *popover, *label;

  g_return_if_fail (GTK_IS_WIDGET (anchor));
  g_return_if_fail (text != NULL);

  label = gtk_label_new (text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "headroom-explanation");
  popover = gtk_popover_new ();
  gtk_popover_set_child (GTK_POPOVER (popover), label);
  gtk_widget_set_parent (popover, anchor);
  g_signal_connect (popover, "closed", G_CALLBACK (on_closed), NULL);
  gtk_popover_popup (GTK_POPOVER (popover));
}
