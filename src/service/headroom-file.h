/* headroom-file.h: reading and saving the user's files without losing them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loading refuses what is not a regular file (a FIFO, /dev/zero) and files
 * over a size cap, before reading them. Saving writes a temporary file next
 * to the target and renames it over the target only once every byte is
 * written: a full disk leaves the old file as it was. A symbolic link is
 * saved through to its target, and an existing file keeps its mode.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Projects, config.json files and catalogs: a few kB in practice. */
#define HEADROOM_FILE_MAX_SIZE (4 * 1024 * 1024)

GBytes  *headroom_file_load (GFile         *file,
                             gsize          max_size,
                             GCancellable  *cancellable,
                             GError       **error) G_GNUC_WARN_UNUSED_RESULT;
gboolean headroom_file_save (GFile         *file,
                             const void    *data,
                             gsize          size,
                             GCancellable  *cancellable,
                             GError       **error);

G_END_DECLS
