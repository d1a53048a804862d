/* A core file that reaches up: check-layers.py must reject it. */
#include <glib.h>
#include "headroom-project.h"
