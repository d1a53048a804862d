/* headroom-format.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "headroom-format.h"

#define GIB 1073741824.0

char *
headroom_format_gib (double bytes)
{
  /* + 0.0 turns -0 into 0: no "-0.00" on screen. */
  double gib = bytes / GIB + 0.0;

  if (!isfinite (gib))
    return g_strdup ("—");
  /* Per-token sizes (a KV cache entry) would read 0.00 GiB: use MiB there. */
  if (gib != 0 && fabs (gib) < 0.01)
    return g_strdup_printf (_("%.3g MiB"), bytes / 1048576.0);
  /* Two decimals below 10 GiB, where 0.1 GiB is still a large share. */
  if (fabs (gib) < 10.0)
    return g_strdup_printf (_("%.2f GiB"), gib);
  return g_strdup_printf (_("%.1f GiB"), gib);
}

/* Value and SI prefix so that 1 <= value < 1000 (up to exa). */
static const char *
si_scale (double  value,
          double *scaled)
{
  static const char *const prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
  guint i = 0;

  while (fabs (value) >= 1000.0 && i < G_N_ELEMENTS (prefixes) - 1)
    {
      value /= 1000.0;
      i++;
    }
  *scaled = value;
  return prefixes[i];
}

char *
headroom_format_flops (double flops)
{
  double scaled;
  const char *prefix;

  if (!isfinite (flops))
    return g_strdup ("—");
  prefix = si_scale (flops + 0.0, &scaled);
  /* TRANSLATORS: a number, an SI prefix (k, M, G, T, P, E) and the FLOP unit */
  return g_strdup_printf (_("%.3g %sFLOP"), scaled, prefix);
}

char *
headroom_format_count (double count)
{
  double scaled;
  const char *prefix;

  if (!isfinite (count))
    return g_strdup ("—");
  count += 0.0;
  if (fabs (count) < 1000.0)
    return g_strdup_printf ("%.4g", count);
  prefix = si_scale (count, &scaled);
  /* Counts use B for billions, as parameter counts are usually written. */
  if (g_str_equal (prefix, "G"))
    prefix = "B";
  return g_strdup_printf ("%.3g %s", scaled, prefix);
}

char *
headroom_format_duration (double seconds)
{
  if (!isfinite (seconds) || seconds < 0)
    return g_strdup ("—");
  if (seconds < 1e-3)
    return g_strdup_printf (_("%.1f µs"), seconds * 1e6);
  if (seconds < 1.0)
    return g_strdup_printf (_("%.1f ms"), seconds * 1e3);
  if (seconds < 120.0)
    return g_strdup_printf (_("%.2f s"), seconds);
  if (seconds < 2 * 3600.0)
    return g_strdup_printf (_("%.1f min"), seconds / 60.0);
  if (seconds < 3 * 86400.0)
    return g_strdup_printf (_("%.1f h"), seconds / 3600.0);
  if (seconds < HEADROOM_LONGEST_IN_DAYS)
    return g_strdup_printf (_("%.1f days"), seconds / 86400.0);
  return g_strdup_printf (_("%.3g years"), seconds / HEADROOM_JULIAN_YEAR);
}

char *
headroom_format_integer (double value)
{
  const char *separator = localeconv ()->thousands_sep;
  g_autofree char *digits = NULL;
  GString *out;
  gsize start, len;

  if (!isfinite (value))
    return g_strdup ("—");
  /* Whole numbers: -0 and -0.4 would print "-0". */
  if (fabs (value) <= 0.5)
    value = 0.0;
  /* Past 10^15 the digits say nothing a reader can use. */
  if (fabs (value) >= 1e15)
    return g_strdup_printf ("%.3g", value);
  if (separator != NULL && *separator != '\0')
    return g_strdup_printf ("%'.0f", value);

  digits = g_strdup_printf ("%.0f", value);
  start = digits[0] == '-' ? 1 : 0;
  len = strlen (digits);
  out = g_string_new_len (digits, start);
  for (gsize i = start; i < len; i++)
    {
      if (i > start && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
headroom_format_money (double dollars)
{
  g_autofree char *whole = NULL;

  if (!isfinite (dollars))
    return g_strdup ("—");
  /* A cost rounds to cents: -0 and -0.004 read $0.00. */
  dollars = fabs (dollars) < 0.005 ? 0.0 : dollars;
  if (fabs (dollars) < 100.0)
    return g_strdup_printf (_("$%.2f"), dollars);
  whole = headroom_format_integer (dollars);
  /* TRANSLATORS: an amount in US dollars, e.g. "$1,234,567" */
  return g_strdup_printf (_("$%s"), whole);
}

/* `number` (the figure shown for `count`) with its unit in the singular or plural. */
static char *
with_unit (char       *number,
           double      count,
           const char *unit)
{
  g_autofree char *owned = number;
  /* The plural form follows the whole number shown; a scaled "1.5 k" counts as 1500. */
  gulong n = isfinite (count) ? (gulong) MIN (fabs (round (count)), (double) G_MAXULONG) : 0;

  if (g_strcmp0 (unit, "GPUs") == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s GPU", "%s GPUs", n), owned);
  if (g_strcmp0 (unit, "tokens") == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s token", "%s tokens", n), owned);
  if (g_strcmp0 (unit, "sequences") == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s sequence", "%s sequences", n),
                            owned);
  if (g_strcmp0 (unit, "micro-batches") == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s micro-batch", "%s micro-batches", n),
                            owned);
  if (g_strcmp0 (unit, "steps") == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s step", "%s steps", n), owned);
  if (unit == NULL)
    return g_steal_pointer (&owned);
  return g_strdup_printf ("%s %s", owned, unit);
}

char *
headroom_format_count_unit (double      count,
                            const char *unit)
{
  return with_unit (headroom_format_count (count), count, unit);
}

char *
headroom_format_integer_unit (double      count,
                              const char *unit)
{
  return with_unit (headroom_format_integer (count), count, unit);
}

char *
headroom_format_exact_double (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* JSON has no infinity nor NaN (and the exponent below would overflow an int). */
  if (!isfinite (value))
    return g_strdup ("null");
  /* -0 reads back as 0 wherever it is shown. */
  if (value == 0)
    value = 0;
  for (int precision = 1; precision <= 17; precision++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, format, value);
      if (g_ascii_strtod (buf, NULL) == value)
        {
          /* Whole digits rather than 8e+01. */
          int exponent = value != 0 ? (int) floor (log10 (fabs (value))) : 0;

          if (exponent >= precision && exponent < 17)
            {
              g_snprintf (format, sizeof format, "%%.%dg", exponent + 1);
              g_ascii_formatd (buf, sizeof buf, format, value);
            }
          break;
        }
    }
  return g_strdup (buf);
}

char *
headroom_format_one_line (const char *text)
{
  GString *out;
  const char *p;

  if (text == NULL)
    return g_strdup ("");
  out = g_string_sized_new (strlen (text));
  for (p = text; *p != '\0';)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8: the byte's value. */
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      /* C0, DEL and C1 (U+009B is a terminal's CSI), and the line and
       * paragraph separators. */
      else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029)
        g_string_append_printf (out, c < 0x100 ? "\\x%02x" : "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

char *
headroom_format_quantity (double      value,
                          const char *unit)
{
  if (unit == NULL)
    return g_strdup_printf ("%.4g", value);
  if (g_str_equal (unit, "bytes"))
    return headroom_format_gib (value);
  if (g_str_equal (unit, "FLOP"))
    return headroom_format_flops (value);
  if (g_str_equal (unit, "s"))
    return headroom_format_duration (value);
  if (g_str_equal (unit, "USD"))
    return headroom_format_money (value);
  if (g_str_equal (unit, "%"))
    return g_strdup_printf ("%.1f %%", value);
  if (g_str_equal (unit, "ratio"))
    return g_strdup_printf ("%.1f %%", 100.0 * value);
  if (g_str_equal (unit, "parameters"))
    return headroom_format_count (value);
  return headroom_format_count_unit (value, unit);
}
