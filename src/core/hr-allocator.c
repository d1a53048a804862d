/* hr-allocator.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rules replayed, from c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.x):
 * round_size() rounds a request up to 512 bytes; requests of 1 MiB or less
 * come from the small pool, larger ones from the large pool
 * (get_pool()); a request no cached block can hold gets a new segment of
 * 2 MiB (small), 20 MiB (under 10 MiB) or the request rounded up to 2 MiB
 * (get_allocation_size()); the cached block chosen is the smallest that
 * holds the request, the lowest address among equals (get_free_block(), a
 * set ordered by size then address); a block is split when what remains is
 * at least 512 bytes (small pool) or more than 1 MiB (large pool:
 * should_split()), the request taking its front; a freed block merges with
 * free neighbours of its segment (free_block(), try_merge_blocks()).
 * Segments are never released: nothing here runs out of GPU memory or calls
 * empty_cache(). Addresses are taken as (segment, offset), segments in the
 * order they were made.
 */
#include "hr-allocator.h"

#include <stdlib.h>
#include <string.h>

#define MIN_BLOCK       512                  /* kMinBlockSize */
#define SMALL_SIZE      (1 << 20)            /* kSmallSize */
#define SMALL_BUFFER    (2 << 20)            /* kSmallBuffer */
#define LARGE_BUFFER    (20 << 20)           /* kLargeBuffer */
#define MIN_LARGE_ALLOC (10 << 20)           /* kMinLargeAlloc */
#define ROUND_LARGE     (2 << 20)            /* kRoundLarge */

struct HrAllocatorBlock
{
  int64_t size;
  int64_t segment, offset;
  int64_t prev, next;     /* neighbours in the segment, -1 at its ends */
  bool    small;
  bool    free;
};

void
hr_allocator_init (HrAllocator *a)
{
  memset (a, 0, sizeof *a);
}

void
hr_allocator_clear (HrAllocator *a)
{
  free (a->blocks);
  free (a->unused);
  free (a->pool[0]);
  free (a->pool[1]);
  hr_allocator_init (a);
}

static bool
grow (void    **array,
      int64_t  *capacity,
      int64_t   needed,
      size_t    element)
{
  int64_t size;
  void *grown;

  if (needed <= *capacity)
    return true;
  size = *capacity > 0 ? 2 * *capacity : 64;
  grown = realloc (*array, (size_t) size * element);
  if (grown == NULL)
    return false;
  *array = grown;
  *capacity = size;
  return true;
}

static int64_t
new_block (HrAllocator *a)
{
  if (a->n_unused > 0)
    return a->unused[--a->n_unused];
  if (!grow ((void **) &a->blocks, &a->capacity, a->n_blocks + 1, sizeof *a->blocks))
    {
      a->failed = true;
      return -1;
    }
  return a->n_blocks++;
}

/* Pools are kept sorted as the allocator's std::set is: by size, then
 * address. */
static bool
before (const HrAllocatorBlock *a,
        const HrAllocatorBlock *b)
{
  if (a->size != b->size)
    return a->size < b->size;
  if (a->segment != b->segment)
    return a->segment < b->segment;
  return a->offset < b->offset;
}

/* Index of the first block of the pool not before `key`. */
static int64_t
lower_bound (const HrAllocator      *a,
             int                     pool,
             const HrAllocatorBlock *key)
{
  int64_t lo = 0, hi = a->n_pool[pool];

  while (lo < hi)
    {
      int64_t mid = lo + (hi - lo) / 2;

      if (before (&a->blocks[a->pool[pool][mid]], key))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
pool_add (HrAllocator *a,
          int64_t      handle)
{
  int p = a->blocks[handle].small ? 0 : 1;
  int64_t at;

  if (!grow ((void **) &a->pool[p], &a->pool_capacity[p], a->n_pool[p] + 1, sizeof (int64_t)))
    {
      a->failed = true;
      return;
    }
  at = lower_bound (a, p, &a->blocks[handle]);
  memmove (&a->pool[p][at + 1], &a->pool[p][at], (size_t) (a->n_pool[p] - at) * sizeof (int64_t));
  a->pool[p][at] = handle;
  a->n_pool[p]++;
}

static void
pool_remove (HrAllocator *a,
             int64_t      handle)
{
  int p = a->blocks[handle].small ? 0 : 1;
  int64_t at = lower_bound (a, p, &a->blocks[handle]);

  memmove (&a->pool[p][at], &a->pool[p][at + 1],
           (size_t) (a->n_pool[p] - at - 1) * sizeof (int64_t));
  a->n_pool[p]--;
}

/* The smallest free block of the pool that holds `size`, the lowest
 * address among equals; -1 when none does. */
static int64_t
best_fit (const HrAllocator *a,
          int                pool,
          int64_t            size)
{
  HrAllocatorBlock key = { .size = size, .segment = -1, .offset = -1 };
  int64_t at = lower_bound (a, pool, &key);

  return at < a->n_pool[pool] ? a->pool[pool][at] : -1;
}

int64_t
hr_allocator_malloc (HrAllocator *a,
                     int64_t      bytes)
{
  int64_t size, handle, remaining;
  HrAllocatorBlock *b;
  bool small;

  if (a->failed || bytes <= 0)
    return -1;
  size = bytes < MIN_BLOCK ? MIN_BLOCK : (bytes + MIN_BLOCK - 1) / MIN_BLOCK * MIN_BLOCK;
  small = size <= SMALL_SIZE;
  handle = best_fit (a, small ? 0 : 1, size);
  if (handle >= 0)
    pool_remove (a, handle);
  else
    {
      int64_t segment = small ? SMALL_BUFFER
                        : size < MIN_LARGE_ALLOC ? LARGE_BUFFER
                        : (size + ROUND_LARGE - 1) / ROUND_LARGE * ROUND_LARGE;

      if ((handle = new_block (a)) < 0)
        return -1;
      a->blocks[handle] = (HrAllocatorBlock) { segment, a->segments++, 0, -1, -1, small, false };
      a->reserved += (double) segment;
      if (a->reserved > a->reserved_peak)
        a->reserved_peak = a->reserved;
    }
  remaining = a->blocks[handle].size - size;
  if (small ? remaining >= MIN_BLOCK : remaining > SMALL_SIZE)
    {
      int64_t rest = new_block (a);

      if (rest < 0)
        return -1;
      b = &a->blocks[handle];
      a->blocks[rest] = (HrAllocatorBlock) { remaining, b->segment, b->offset + size, handle,
                                             b->next, small, true };
      if (b->next >= 0)
        a->blocks[b->next].prev = rest;
      b->next = rest;
      b->size = size;
      pool_add (a, rest);
    }
  b = &a->blocks[handle];
  b->free = false;
  a->allocated += (double) b->size;
  if (a->allocated > a->allocated_peak)
    a->allocated_peak = a->allocated;
  return a->failed ? -1 : handle;
}

/* Merges the free neighbour `other` into `handle`'s block. */
static void
merge (HrAllocator *a,
       int64_t      handle,
       int64_t      other)
{
  HrAllocatorBlock *b, *o;

  if (other < 0 || !a->blocks[other].free)
    return;
  b = &a->blocks[handle];
  o = &a->blocks[other];
  pool_remove (a, other);
  if (b->prev == other)
    {
      b->offset = o->offset;
      b->prev = o->prev;
      if (b->prev >= 0)
        a->blocks[b->prev].next = handle;
    }
  else
    {
      b->next = o->next;
      if (b->next >= 0)
        a->blocks[b->next].prev = handle;
    }
  b->size += o->size;
  a->unused[a->n_unused++] = other;
}

void
hr_allocator_free (HrAllocator *a,
                   int64_t      handle)
{
  HrAllocatorBlock *b;

  if (a->failed || handle < 0 || handle >= a->n_blocks)
    return;
  b = &a->blocks[handle];
  if (b->free)
    return;
  b->free = true;
  a->allocated -= (double) b->size;
  /* room for the two handles a merge may set aside */
  if (!grow ((void **) &a->unused, &a->unused_capacity, a->n_unused + 2, sizeof (int64_t)))
    {
      a->failed = true;
      return;
    }
  merge (a, handle, a->blocks[handle].prev);
  merge (a, handle, a->blocks[handle].next);
  pool_add (a, handle);
}
