/* headroom-fits-plot.h: memory per GPU against one setting, with the capacity line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HEADROOM_TYPE_FITS_PLOT (headroom_fits_plot_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomFitsPlot, headroom_fits_plot, HEADROOM, FITS_PLOT, GtkWidget)

GtkWidget  *headroom_fits_plot_new             (void);

/* `n` points of (setting, bytes), the setting increasing; the x axis is
 * logarithmic (base 2), as the settings swept are powers of two. */
void        headroom_fits_plot_set_points      (HeadroomFitsPlot *self,
                                                const char       *x_label,
                                                const double     *x,
                                                const double     *bytes,
                                                guint             n);
void        headroom_fits_plot_set_capacity    (HeadroomFitsPlot *self,
                                                double            bytes);
guint       headroom_fits_plot_get_n_points    (HeadroomFitsPlot *self);
/* The same text as the accessible description. */
const char *headroom_fits_plot_get_description (HeadroomFitsPlot *self);

G_END_DECLS
