/* hr-rates.h: what a GPU's kernels sustain, shared by training and serving
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One rate source for the planner's step (hr-planner.h) and the serving
 * latencies (hr-inference.h): the catalog's measured rates where it has
 * them (docs/planner.md, "Sustained rates"), else peak × an efficiency, and
 * one roofline for a matrix product.
 */
#pragma once

#include <stdbool.h>

#include "hr-gpu.h"

/* FLOP/s large products sustain in `dtype`: the catalog's measured
 * gemm_sustained_flops, else peak × `efficiency`. */
double hr_rates_gemm (const HrGpu *gpu,
                      HrDtype      dtype,
                      double       efficiency);

/* Bytes/s memory-bound kernels sustain: the catalog's measured
 * memory_sustained_bandwidth, else peak × `efficiency`. */
double hr_rates_bandwidth (const HrGpu *gpu,
                           double       efficiency);

/* Rows and columns of a tensor-core GEMM's output tile (NVIDIA, "Matrix
 * Multiplication Background User's Guide", tile quantization). */
#define HR_RATES_TILE_MN 128.0

/* Share of a tensor-core product's work that is not padding: m and n padded
 * to 128-wide tiles, k to 64-deep slices; in (0, 1]. */
double hr_rates_tile (double m,
                      double n,
                      double k);

/* Seconds per FLOP of an m×k by k×n product of `elem`-byte elements: the
 * larger of its compute time at `rate` × hr_rates_tile() and its operand
 * traffic at `bandwidth` (bytes/s). `write_out` is false for fused kernels
 * that keep the product on chip (FlashAttention's scores). */
double hr_rates_gemm_seconds_per_flop (double rate,
                                       double bandwidth,
                                       double elem,
                                       double m,
                                       double n,
                                       double k,
                                       bool   write_out);

/* Seconds per FLOP of the FlashAttention `kernel` over `len` queries and
 * keys, forward and backward, from the catalog's tables (its forward +
 * backward tables where it has them); false when it has none. */
bool hr_rates_attention_seconds_per_flop (const HrGpu   *gpu,
                                          HrFlashKernel  kernel,
                                          double         len,
                                          bool           causal,
                                          double        *fwd,
                                          double        *bwd);

/* Seconds per FLOP of FlashAttention-2's forward pass alone (inference's
 * prefill), from the catalog's forward tables; false when it has none. */
bool hr_rates_attention_forward_seconds_per_flop (const HrGpu *gpu,
                                                  double       len,
                                                  bool         causal,
                                                  double      *fwd);
