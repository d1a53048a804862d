/* hr-gpu.h: the figures of one accelerator that the estimates need
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The service fills this from the GPU catalog (resources/gpus.json); the
 * core only reads it. Rates are per second; peaks are dense (no sparsity).
 */
#pragma once

#include <stdint.h>

typedef enum
{
  HR_DTYPE_FP32,
  HR_DTYPE_TF32,
  HR_DTYPE_BF16,
  HR_DTYPE_FP16,
  HR_DTYPE_FP8,
  HR_DTYPE_INT8,
  HR_DTYPE_N
} HrDtype;

typedef struct
{
  double memory_bytes;          /* usable device memory, bytes */
  double driver_memory_bytes;   /* total the CUDA driver reports (cudaMemGetInfo), bytes;
                                 * 0 = not known, take memory_bytes (hr-serving.h) */
  double memory_bandwidth;      /* bytes/s */
  double peak_flops[HR_DTYPE_N];/* dense FLOP/s (OP/s for int8); 0 = not supported */
  double intra_node_bandwidth;  /* NVLink/xGMI per GPU, one direction, bytes/s */
  double inter_node_bandwidth;  /* network per GPU, one direction, bytes/s */
  double inter_node_latency;    /* seconds per message */
  double power_watts;           /* board power */
} HrGpu;
