/* test-rates.c: the rate source training and serving share (hr-rates.h)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "hr-rates.h"

/* The catalog's measured rate wins over peak × efficiency; without one,
 * A100 bf16 at 312e12 × 0.5 = 156e12. */
static void
test_gemm_rate (void)
{
  HrGpu gpu = { 0 };

  gpu.peak_flops[HR_DTYPE_BF16] = 312e12;
  g_assert_cmpfloat_with_epsilon (hr_rates_gemm (&gpu, HR_DTYPE_BF16, 0.5), 156e12, 1.0);
  gpu.gemm_sustained_flops[HR_DTYPE_BF16] = 271.2e12;
  g_assert_cmpfloat (hr_rates_gemm (&gpu, HR_DTYPE_BF16, 0.5), ==, 271.2e12);
}

/* A measured copy rate wins over peak × efficiency: the H100 PCIe's
 * 1630e9 B/s (resources/gpus.json) against 2.0e12 × 0.7 = 1.4e12. */
static void
test_bandwidth (void)
{
  HrGpu gpu = { .memory_bandwidth = 2.0e12 };

  g_assert_cmpfloat_with_epsilon (hr_rates_bandwidth (&gpu, 0.7), 1.4e12, 1.0);
  gpu.memory_sustained_bandwidth = 1630e9;
  g_assert_cmpfloat (hr_rates_bandwidth (&gpu, 0.7), ==, 1630e9);
}

/* Tiles of 128 × 128 × 64: 100 rows fill 100/128 of one; 4096 × 11008 ×
 * 4096 pads n to 11008 → 11008 (86 × 128 exactly) and fills every tile;
 * one row, as in an LM head over the last position, is 1/128; k = 96 pads
 * to 128: 0.75. */
static void
test_tile (void)
{
  g_assert_cmpfloat (hr_rates_tile (100, 4096, 4096), ==, 100.0 / 128.0);
  g_assert_cmpfloat (hr_rates_tile (4096, 11008, 4096), ==, 1.0);
  g_assert_cmpfloat (hr_rates_tile (1, 4096, 4096), ==, 1.0 / 128.0);
  g_assert_cmpfloat (hr_rates_tile (4096, 4096, 96), ==, 0.75);
}

/* The roofline: 4096³ at 2 B is compute-bound, 1 / 271.2e12 s a FLOP; one
 * row (m = 1) by a 4096 × 4096 matrix moves 2 × (4096 + 4096² + 4096) B for
 * 2 × 4096² FLOPs, about 1 B a FLOP: 1 / 1.43e12 s at 1.43e12 B/s, more
 * than its padded compute, 128 / 271.2e12. */
static void
test_roofline (void)
{
  double big = hr_rates_gemm_seconds_per_flop (271.2e12, 1.43e12, 2.0, 4096, 4096, 4096, true);
  double row = hr_rates_gemm_seconds_per_flop (271.2e12, 1.43e12, 2.0, 1, 4096, 4096, true);
  double bytes = 2.0 * (4096.0 + 4096.0 * 4096.0 + 4096.0);

  g_assert_cmpfloat_with_epsilon (big, 1.0 / 271.2e12, 1e-27);
  g_assert_cmpfloat_with_epsilon (row, bytes / (2.0 * 4096.0 * 4096.0) / 1.43e12, 1e-27);
  g_assert_cmpfloat (row, >, 128.0 / 271.2e12);
}

/* The attention tables interpolate in log2 of the length: 1.5k tokens sit
 * log2(1.5) = 0.585 of the way from 1k to 2k. A missing table gives none. */
static void
test_attention (void)
{
  HrGpu gpu = { 0 };
  double fwd, bwd, rate;

  g_assert_false (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_FA2, 1024, true, &fwd, &bwd));
  for (int i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
    {
      gpu.attention_fwd_flops[i] = 300e12 + 10e12 * i;
      gpu.attention_bwd_flops[i] = 200e12;
    }
  g_assert_true (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_FA2, 1536, false, &fwd, &bwd));
  rate = 310e12 + log2 (1.5) * 10e12;
  g_assert_cmpfloat_with_epsilon (fwd, 1.0 / rate, 1e-27);
  g_assert_cmpfloat_with_epsilon (bwd, 1.0 / 200e12, 1e-27);
}

/* flash-attn 1's Triton kernel on an A100 80GB SXM4, head dim 128, forward
 * and backward together (the FlashAttention-2 paper's Figure 4, as
 * resources/gpus.json gives it): 68 TFLOP/s at 2k causal, 74 at 4k, 90 at
 * 2k without a mask. Both passes run at the one rate; 3k tokens sit
 * log2(1.5) of the way from 2k to 4k. The FA2 tables do not stand in for a
 * missing Triton table. */
static void
test_attention_triton (void)
{
  static const double causal[] = { 50e12, 61e12, 68e12, 74e12, 78e12, 80e12 };
  static const double unmasked[] = { 78e12, 85e12, 90e12, 93e12, 95e12, 95e12 };
  HrGpu gpu = { 0 };
  double fwd, bwd;

  for (int i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
    gpu.attention_fwd_flops[i] = gpu.attention_fwd_causal_flops[i]
      = gpu.attention_bwd_flops[i] = 200e12;
  g_assert_false (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_TRITON, 2048, true,
                                                       &fwd, &bwd));
  memcpy (gpu.attention_triton_causal_flops, causal, sizeof causal);
  memcpy (gpu.attention_triton_flops, unmasked, sizeof unmasked);
  g_assert_true (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_TRITON, 2048, true,
                                                      &fwd, &bwd));
  g_assert_cmpfloat_with_epsilon (fwd, 1.0 / 68e12, 1e-27);
  g_assert_cmpfloat_with_epsilon (bwd, 1.0 / 68e12, 1e-27);
  g_assert_true (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_TRITON, 3072, true,
                                                      &fwd, &bwd));
  g_assert_cmpfloat_with_epsilon (bwd, 1.0 / (68e12 + log2 (1.5) * 6e12), 1e-27);
  g_assert_true (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_TRITON, 2048, false,
                                                      &fwd, &bwd));
  g_assert_cmpfloat_with_epsilon (fwd, 1.0 / 90e12, 1e-27);
  g_assert_true (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_FA2, 2048, true,
                                                      &fwd, &bwd));
  g_assert_cmpfloat_with_epsilon (fwd, 1.0 / 200e12, 1e-27);
}

/* FlashAttention-2 timed over both passes (the A100 chart: 155 TFLOP/s at
 * 2k causal tokens) prices a training step's forward and backward alike;
 * inference's forward keeps the forward table (here 227.8). */
static void
test_attention_fwd_bwd (void)
{
  HrGpu gpu = { 0 };
  double fwd, bwd;

  for (int i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
    {
      gpu.attention_fwd_flops[i] = 227.8e12;
      gpu.attention_bwd_flops[i] = 196.6e12;
      gpu.attention_fwd_bwd_flops[i] = 187e12;
      gpu.attention_fwd_bwd_causal_flops[i] = 155e12;
    }
  g_assert_true (hr_rates_attention_seconds_per_flop (&gpu, HR_FLASH_KERNEL_FA2, 2048, true,
                                                      &fwd, &bwd));
  g_assert_cmpfloat_with_epsilon (fwd, 1.0 / 155e12, 1e-27);
  g_assert_cmpfloat_with_epsilon (bwd, 1.0 / 155e12, 1e-27);
  g_assert_true (hr_rates_attention_forward_seconds_per_flop (&gpu, 2048, true, &fwd));
  g_assert_cmpfloat_with_epsilon (fwd, 1.0 / 227.8e12, 1e-27);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rates/gemm", test_gemm_rate);
  g_test_add_func ("/rates/bandwidth", test_bandwidth);
  g_test_add_func ("/rates/tile", test_tile);
  g_test_add_func ("/rates/roofline", test_roofline);
  g_test_add_func ("/rates/attention", test_attention);
  g_test_add_func ("/rates/attention-triton", test_attention_triton);
  g_test_add_func ("/rates/attention-fwd-bwd", test_attention_fwd_bwd);

  return g_test_run ();
}
