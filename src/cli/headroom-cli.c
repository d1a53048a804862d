/* headroom-cli.c: the estimates, headless
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>

int
main (int   argc,
      char *argv[])
{
  g_print ("headroom-cli %s\n", PACKAGE_VERSION);
  return 0;
}
