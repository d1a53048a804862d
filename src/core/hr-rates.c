/* hr-rates.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * docs/planner.md ("Matrix products", "Sustained rates", "Attention kernel")
 * derives each rate; docs/inference.md says how serving uses them.
 */
#include <math.h>

#include "hr-rates.h"

/* m and n are padded to whole tiles, k to 64-deep slices (the same guide). */
#define TILE_MN HR_RATES_TILE_MN
#define TILE_K  64.0

/* Sequence lengths of HrGpu's attention tables (hr-gpu.h). */
static const double attention_lengths[HR_GPU_ATTENTION_POINTS] = {
  512, 1024, 2048, 4096, 8192, 16384,
};

double
hr_rates_gemm (const HrGpu *gpu,
               HrDtype      dtype,
               double       efficiency)
{
  double measured = gpu->gemm_sustained_flops[dtype];

  return measured > 0.0 ? measured : gpu->peak_flops[dtype] * efficiency;
}

double
hr_rates_bandwidth (const HrGpu *gpu,
                    double       efficiency)
{
  double measured = gpu->memory_sustained_bandwidth;

  return measured > 0.0 ? measured : gpu->memory_bandwidth * efficiency;
}

/* A product has at least one row, column and term on each side. */
static double
at_least_one (double x)
{
  return x < 1.0 ? 1.0 : x;
}

double
hr_rates_tile (double m,
               double n,
               double k)
{
  m = at_least_one (m);
  n = at_least_one (n);
  k = at_least_one (k);
  return (m / (ceil (m / TILE_MN) * TILE_MN))
         * (n / (ceil (n / TILE_MN) * TILE_MN))
         * (k / (ceil (k / TILE_K) * TILE_K));
}

/* A roofline (Williams et al. 2009) with NVIDIA's tile quantization. */
double
hr_rates_gemm_seconds_per_flop (double rate,
                                double bandwidth,
                                double elem,
                                double m,
                                double n,
                                double k,
                                bool   write_out)
{
  double compute, traffic, bytes;

  m = at_least_one (m);
  n = at_least_one (n);
  k = at_least_one (k);
  compute = 1.0 / (rate * hr_rates_tile (m, n, k));
  bytes = elem * (m * k + k * n + (write_out ? m * n : 0.0));
  traffic = bytes / (2.0 * m * n * k) / bandwidth;
  return compute > traffic ? compute : traffic;
}

/* A table's rate at `len` tokens: linear in log2 of the length between the
 * grid's points, the end rates beyond them; 0 unless every point is set. */
static double
table_rate (const double *table,
            double        len)
{
  int i;

  for (i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
    if (!(table[i] > 0.0))
      return 0.0;
  if (len <= attention_lengths[0])
    return table[0];
  for (i = 1; i < HR_GPU_ATTENTION_POINTS; i++)
    if (len <= attention_lengths[i])
      return table[i - 1] + log2 (len / attention_lengths[i - 1]) * (table[i] - table[i - 1]);
  return table[HR_GPU_ATTENTION_POINTS - 1];
}

/* FlashAttention-2's forward and backward tables. The papers time no causal
 * backward: it is taken to lose to the mask what the causal forward loses
 * at the same length. */
static bool
fa2_rates (const HrGpu *gpu,
           double       len,
           bool         causal,
           double      *f,
           double      *b)
{
  double fc = causal ? table_rate (gpu->attention_fwd_causal_flops, len) : 0.0;

  *f = table_rate (gpu->attention_fwd_flops, len);
  *b = table_rate (gpu->attention_bwd_flops, len);
  if (!(*f > 0.0 && *b > 0.0))
    return false;
  if (fc > 0.0)
    {
      *b *= fc / *f;
      *f = fc;
    }
  return true;
}

/* A kernel timed over both passes together runs every FLOP of either at
 * that rate. */
bool
hr_rates_attention_seconds_per_flop (const HrGpu   *gpu,
                                     HrFlashKernel  kernel,
                                     double         len,
                                     bool           causal,
                                     double        *fwd,
                                     double        *bwd)
{
  double f, b;

  if (kernel == HR_FLASH_KERNEL_TRITON)
    f = b = table_rate (causal ? gpu->attention_triton_causal_flops
                               : gpu->attention_triton_flops, len);
  else
    {
      f = b = table_rate (causal ? gpu->attention_fwd_bwd_causal_flops
                                 : gpu->attention_fwd_bwd_flops, len);
      if (!(f > 0.0) && !fa2_rates (gpu, len, causal, &f, &b))
        return false;
    }
  if (!(f > 0.0))
    return false;
  *fwd = 1.0 / f;
  *bwd = 1.0 / b;
  return true;
}

bool
hr_rates_attention_forward_seconds_per_flop (const HrGpu *gpu,
                                             double       len,
                                             bool         causal,
                                             double      *fwd)
{
  double f, b;

  if (!fa2_rates (gpu, len, causal, &f, &b))
    return false;
  *fwd = 1.0 / f;
  return true;
}
