/* hr-allocator.h: a replay of PyTorch's CUDA caching allocator
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where a peak depends on the order in which tensors come and go (a model
 * built and quantised one weight at a time), the reserved bytes are not a
 * sum: freed blocks stay cached, are split for smaller requests and pinned
 * by the long-lived tensors carved out of them. HrAllocator replays a
 * sequence of allocations and frees under the rules of
 * c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.x, default settings: no
 * max_split_size, no expandable segments, one stream) and reports the
 * allocated and reserved peaks that torch.cuda.max_memory_allocated() and
 * max_memory_reserved() would. docs/training.md, "Model load".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct HrAllocatorBlock HrAllocatorBlock;

typedef struct
{
  HrAllocatorBlock *blocks;   /* every block, free or not, by handle */
  int64_t n_blocks, capacity;
  int64_t *unused;            /* handles of merged-away blocks, for reuse */
  int64_t n_unused, unused_capacity;
  int64_t *pool[2];           /* free blocks of the small and the large pool */
  int64_t n_pool[2], pool_capacity[2];
  int64_t segments;           /* cudaMalloc calls so far */
  double  allocated, allocated_peak;
  double  reserved, reserved_peak;
  bool    failed;             /* the replay ran out of host memory: figures are void */
} HrAllocator;

void    hr_allocator_init  (HrAllocator *allocator);
void    hr_allocator_clear (HrAllocator *allocator);

/* A block for `bytes` (rounded as the allocator rounds them); the handle to
 * free it with, or -1 for 0 bytes or a failed replay. */
int64_t hr_allocator_malloc (HrAllocator *allocator,
                             int64_t      bytes);
/* Frees a handle from hr_allocator_malloc(); -1 is ignored. */
void    hr_allocator_free   (HrAllocator *allocator,
                             int64_t      handle);
