/* test-allocator.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The caching allocator's replay (hr-allocator.c) against the rules of
 * c10/cuda/CUDACachingAllocator.cpp, each expected value worked out by hand
 * from them: 512-byte rounding, the small pool up to 1 MiB in 2 MiB
 * segments, 20 MiB segments under 10 MiB, larger ones rounded to 2 MiB,
 * best fit, splits that leave more than 1 MiB (large pool), merges on free.
 */
#include <glib.h>

#include "hr-allocator.h"

#define MIB (1024 * 1024)

static void
test_rounding (void)
{
  HrAllocator a;
  int64_t x, y;

  hr_allocator_init (&a);
  /* 1 byte: a 512-byte block in a new 2 MiB small segment. */
  x = hr_allocator_malloc (&a, 1);
  g_assert_cmpfloat (a.allocated, ==, 512);
  g_assert_cmpfloat (a.reserved, ==, 2 * MIB);
  /* 1 MiB is still small: it fits the rest of that segment (2 MiB − 512). */
  y = hr_allocator_malloc (&a, MIB);
  g_assert_cmpfloat (a.reserved, ==, 2 * MIB);
  g_assert_cmpfloat (a.allocated, ==, MIB + 512);
  /* 0 bytes: nothing. */
  g_assert_cmpint (hr_allocator_malloc (&a, 0), ==, -1);
  hr_allocator_free (&a, x);
  hr_allocator_free (&a, y);
  g_assert_cmpfloat (a.allocated, ==, 0);
  /* 11 MiB + 1 byte rounds to 11 MiB + 512, its segment to 12 MiB; what
   * is left, 1 MiB − 512, is not more than 1 MiB: no split, the whole 12 MiB
   * block counts as allocated. */
  x = hr_allocator_malloc (&a, 11 * MIB + 1);
  g_assert_cmpfloat (a.reserved, ==, 14 * MIB);
  g_assert_cmpfloat (a.allocated, ==, 12 * MIB);
  hr_allocator_free (&a, x);
  g_assert_cmpfloat (a.allocated_peak, ==, 12 * MIB);
  g_assert_cmpfloat (a.reserved_peak, ==, 14 * MIB);
  hr_allocator_clear (&a);
}

static void
test_split_and_merge (void)
{
  HrAllocator a;
  int64_t x, y;

  hr_allocator_init (&a);
  /* 5 MiB (under 10 MiB): a 20 MiB segment, split; the second 5 MiB takes
   * the 15 MiB remainder, reserving nothing more. */
  x = hr_allocator_malloc (&a, 5 * MIB);
  y = hr_allocator_malloc (&a, 5 * MIB);
  g_assert_cmpfloat (a.reserved, ==, 20 * MIB);
  /* Freed, both merge back with the 10 MiB remainder: one 20 MiB block,
   * which a 20 MiB request takes whole. */
  hr_allocator_free (&a, x);
  hr_allocator_free (&a, y);
  x = hr_allocator_malloc (&a, 20 * MIB);
  g_assert_cmpfloat (a.reserved, ==, 20 * MIB);
  g_assert_cmpfloat (a.allocated, ==, 20 * MIB);
  hr_allocator_clear (&a);
}

static void
test_best_fit_and_pinning (void)
{
  HrAllocator a;
  int64_t big, small, medium, keep;

  hr_allocator_init (&a);
  /* Free blocks of 30 and 50 MiB (two segments): 25 MiB takes the 30 MiB
   * one (best fit), leaving 5 MiB there; 45 MiB then fits the 50 MiB one. */
  medium = hr_allocator_malloc (&a, 30 * MIB);
  big = hr_allocator_malloc (&a, 50 * MIB);
  hr_allocator_free (&a, medium);
  hr_allocator_free (&a, big);
  small = hr_allocator_malloc (&a, 25 * MIB);
  big = hr_allocator_malloc (&a, 45 * MIB);
  g_assert_cmpfloat (a.reserved, ==, 80 * MIB);
  hr_allocator_free (&a, small);
  hr_allocator_free (&a, big);
  g_assert_cmpfloat (a.allocated, ==, 0);
  hr_allocator_clear (&a);
  /* Pinning: a 12 MiB tensor kept in the front of a cached 50 MiB block
   * leaves 38 MiB there; a 50 MiB request needs a new 50 MiB segment. */
  hr_allocator_init (&a);
  big = hr_allocator_malloc (&a, 50 * MIB);
  hr_allocator_free (&a, big);
  keep = hr_allocator_malloc (&a, 12 * MIB);
  g_assert_cmpfloat (a.reserved, ==, 50 * MIB);
  big = hr_allocator_malloc (&a, 50 * MIB);
  g_assert_cmpfloat (a.reserved, ==, 100 * MIB);
  g_assert_cmpfloat (a.allocated, ==, 62 * MIB);
  hr_allocator_free (&a, keep);
  hr_allocator_free (&a, big);
  hr_allocator_clear (&a);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/allocator/rounding", test_rounding);
  g_test_add_func ("/allocator/split-and-merge", test_split_and_merge);
  g_test_add_func ("/allocator/best-fit-and-pinning", test_best_fit_and_pinning);
  return g_test_run ();
}
