/* Fixture for check-layers.py: a service header that reaches GTK. */
#include <gtk/gtk.h>
