/* headroom-format.h: numbers as the window shows them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Memory in GiB (2^30 bytes, IEC; MiB below 0.01 GiB), FLOPs with SI prefixes, durations in the
 * largest unit that keeps the number readable. Every function returns a
 * newly allocated, translated string.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Durations past 10,000 days (27 years) read in Julian years of 365.25 days. */
#define HEADROOM_JULIAN_YEAR (365.25 * 86400.0)
#define HEADROOM_LONGEST_IN_DAYS (10000.0 * 86400.0)

char *headroom_format_gib      (double bytes) G_GNUC_WARN_UNUSED_RESULT;
char *headroom_format_flops    (double flops) G_GNUC_WARN_UNUSED_RESULT;
char *headroom_format_count    (double count) G_GNUC_WARN_UNUSED_RESULT;
char *headroom_format_duration (double seconds) G_GNUC_WARN_UNUSED_RESULT;
char *headroom_format_money    (double dollars) G_GNUC_WARN_UNUSED_RESULT;
/* A whole number with thousands separators: the locale's, or "," where it
 * has none (the C locale). */
char *headroom_format_integer  (double value) G_GNUC_WARN_UNUSED_RESULT;
/* "1 GPU", "8 GPUs", "1.5 k tokens": a count (headroom_format_count) with
 * its unit in the singular or plural, for the units the estimator uses
 * ("GPUs", "tokens", "sequences", "micro-batches", "steps"); others follow
 * the number as they are. */
char *headroom_format_count_unit (double      count,
                                  const char *unit) G_GNUC_WARN_UNUSED_RESULT;
/* The same with the whole number (headroom_format_integer): "1,024 GPUs", as
 * an explanation's arithmetic shows it. */
char *headroom_format_integer_unit (double      count,
                                    const char *unit) G_GNUC_WARN_UNUSED_RESULT;
/* A figure by its unit as the estimator names them: "bytes" in GiB, "FLOP",
 * "s" as a duration, "USD", "ratio" and "%" as percentages, "parameters",
 * else headroom_format_count_unit(); NULL: four significant digits. */
char *headroom_format_quantity (double      value,
                                const char *unit) G_GNUC_WARN_UNUSED_RESULT;
/* For files, not people: the shortest decimal that reads back as the same
 * double, in the C locale whatever the user's ("0.1", "80", "1e+300");
 * "null" for infinities and NaN, which JSON cannot hold, and "0" for -0. */
char *headroom_format_exact_double (double value) G_GNUC_WARN_UNUSED_RESULT;

/* For messages quoting a file, a server or a library: `text` on one line,
 * control characters (C0, DEL, C1, line separators) and bytes that are not
 * UTF-8 written as escapes ("\n", "\x1b"), so that no input can move the
 * cursor or colour the user's terminal. NULL gives "". */
char *headroom_format_one_line (const char *text) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
