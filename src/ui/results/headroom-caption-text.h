/* headroom-caption-text.h: captions that wrap at words only
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* `text` with a word joiner (U+2060, which Pango does not break at: UAX #14
 * class WJ) after each hyphen between two letters, so that names such as
 * "llm-foundry" or "fms-fsdp" wrap whole. For display only: the CLI and the
 * files keep the plain text. */
static inline char *
headroom_caption_join_hyphens (const char *text)
{
  GString *joined = g_string_sized_new (strlen (text) + 16);

  for (const char *p = text; *p != '\0'; p++)
    {
      g_string_append_c (joined, *p);
      if (*p == '-' && p > text && g_ascii_isalpha (p[-1]) && g_ascii_isalpha (p[1]))
        g_string_append (joined, "\u2060");
    }
  return g_string_free (joined, FALSE);
}

G_END_DECLS
