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

/* Sequence lengths of the attention rate tables below: 512, 1k, 2k, 4k, 8k
 * and 16k tokens, the grid of the FlashAttention-2 and -3 papers' benchmarks
 * (Dao 2023 §4.1; Shah et al. 2024 §4.1). */
#define HR_GPU_ATTENTION_POINTS 6

/* Which FlashAttention kernel a run uses (docs/planner.md, "Attention
 * kernel"). */
typedef enum
{
  HR_FLASH_KERNEL_FA2,     /* FlashAttention-2: PyTorch SDPA's flash backend, flash-attn 2 */
  HR_FLASH_KERNEL_TRITON,  /* flash-attn 1's Triton kernel (llm-foundry's attn_impl triton) */
} HrFlashKernel;

typedef struct
{
  double memory_bytes;          /* usable device memory, bytes */
  double driver_memory_bytes;   /* total the CUDA driver reports (cudaMemGetInfo), bytes;
                                 * 0 = not known, take memory_bytes (hr-serving.h) */
  double memory_bandwidth;      /* bytes/s, the datasheet's peak */
  double memory_sustained_bandwidth; /* bytes/s a streaming copy reaches, measured (the
                                      * catalog cites it); 0 = not measured, and the
                                      * estimates take peak × their memory_efficiency */
  double peak_flops[HR_DTYPE_N];/* dense FLOP/s (OP/s for int8); 0 = not supported */
  double intra_node_bandwidth;  /* NVLink/xGMI per GPU, one direction, bytes/s */
  double inter_node_bandwidth;  /* network per GPU, one direction, bytes/s */
  double inter_node_latency;    /* seconds per message */
  double host_bandwidth;        /* link to the host's memory (PCIe; NVLink-C2C on Grace
                                 * parts), one direction, bytes/s; 0 = not published */
  double power_watts;           /* board power */
  double sm_count;              /* streaming multiprocessors; 0 = not published, and
                                 * collectives take none from the compute (hr-planner.c) */
  double nvlink_nccl_channels;  /* channels (one CTA each) NCCL runs a collective on within
                                 * a node, derived from its graph search; 0 = not derived,
                                 * and those collectives take no SMs from the compute */

  /* Sustained rates, measured (the catalog cites each source); 0 = not
   * measured, and the planner falls back on peak × its gemm_efficiency. */
  double gemm_sustained_flops[HR_DTYPE_N];  /* large dense matrix products, FLOP/s */
  /* The 16-bit FlashAttention kernel that PyTorch's SDPA runs, at each
   * sequence length of the grid (queries = keys, head dim 128), FLOP/s as
   * the papers count them (a causal mask counts half the product). */
  double attention_fwd_flops[HR_GPU_ATTENTION_POINTS];         /* forward, no mask */
  double attention_fwd_causal_flops[HR_GPU_ATTENTION_POINTS];  /* forward, causal */
  double attention_bwd_flops[HR_GPU_ATTENTION_POINTS];         /* backward, no mask */
  /* The same kernel timed over forward and backward together (the
   * benchmark's 3.5 forwards of FLOPs over both passes' time): where given,
   * training takes these and inference the forward tables above */
  double attention_fwd_bwd_flops[HR_GPU_ATTENTION_POINTS];        /* no mask */
  double attention_fwd_bwd_causal_flops[HR_GPU_ATTENTION_POINTS]; /* causal */
  /* flash-attn 1's Triton kernel, forward and backward together (the
   * benchmark's 3.5 forwards of FLOPs over both passes' time), head dim 128 */
  double attention_triton_flops[HR_GPU_ATTENTION_POINTS];        /* no mask */
  double attention_triton_causal_flops[HR_GPU_ATTENTION_POINTS]; /* causal */
} HrGpu;
