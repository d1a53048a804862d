/* test-catalog.c: the model and GPU catalogs and the config.json bridge
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "headroom-catalog.h"
#include "headroom-hf-config.h"

static char *
make_user_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("headroom-catalog-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_user_dir (const char *dir)
{
  g_autofree char *gpus = g_build_filename (dir, "gpus.json", NULL);
  g_autofree char *models = g_build_filename (dir, "models.json", NULL);

  g_unlink (gpus);
  g_unlink (models);
  g_rmdir (dir);
}

/* Every built-in preset reads into a valid model and every GPU has memory
 * and bandwidth, with no load error. */
static void
test_builtin (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  GListModel *models = headroom_catalog_get_models (catalog);
  GListModel *gpus = headroom_catalog_get_gpus (catalog);

  g_assert_null (headroom_catalog_get_load_error (catalog));

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(HeadroomModelPreset) preset = g_list_model_get_item (models, i);
      g_autoptr(GError) error = NULL;
      HrModel model;

      g_test_message ("preset %s", headroom_model_preset_get_id (preset));
      g_assert_false (headroom_model_preset_get_user_defined (preset));
      g_assert_true (headroom_catalog_lookup_model (catalog, headroom_model_preset_get_id (preset),
                                                    &model, &error));
      g_assert_no_error (error);
      g_assert_cmpint (model.n_layers, >, 0);
    }

  for (guint i = 0; i < g_list_model_get_n_items (gpus); i++)
    {
      g_autoptr(HeadroomGpuInfo) info = g_list_model_get_item (gpus, i);
      const HrGpu *gpu = headroom_gpu_info_get_gpu (info);

      g_test_message ("GPU %s", headroom_gpu_info_get_id (info));
      g_assert_cmpfloat (gpu->memory_bytes, >, 0);
      g_assert_cmpfloat (gpu->memory_bandwidth, >, 0);
      /* The driver keeps a reserve: it never reports more than the memory. */
      g_assert_cmpfloat (gpu->driver_memory_bytes, <, gpu->memory_bytes);
      if (g_str_equal (headroom_gpu_info_get_id (info), "h100-sxm"))
        /* 79.22 GiB (vLLM PR #10511's log): round(79.22 × 2^30). */
        g_assert_cmpfloat (gpu->driver_memory_bytes, ==, 85061827297.0);
      /* CUDA deviceQuery prints totalGlobalMem in bytes and, rounded, in
       * MiB: 22491 MBytes = round(23583784960 / 2^20) on an L4 (bottlerocket-
       * kernel-kit PR #139), 14931 = round(15655829504 / 2^20) on a T4
       * (bottlerocket PR #3798). */
      if (g_str_equal (headroom_gpu_info_get_id (info), "l4"))
        {
          g_assert_cmpfloat (gpu->driver_memory_bytes, ==, 23583784960.0);
          g_assert_cmpfloat (round (gpu->driver_memory_bytes / 1048576.0), ==, 22491.0);
        }
      if (g_str_equal (headroom_gpu_info_get_id (info), "t4"))
        {
          g_assert_cmpfloat (gpu->driver_memory_bytes, ==, 15655829504.0);
          g_assert_cmpfloat (round (gpu->driver_memory_bytes / 1048576.0), ==, 14931.0);
        }
      /* mixbench prints totalGlobalMem in whole MiB: 81049 on an A100 80GB PCIe
       * (ekondis/mixbench issue #47), so 81049 × 2^20 bytes. */
      if (g_str_equal (headroom_gpu_info_get_id (info), "a100-80gb-pcie"))
        g_assert_cmpfloat (gpu->driver_memory_bytes, ==, 81049.0 * 1048576.0);
      /* A measured rate never exceeds the peak it is measured against. */
      for (int dtype = 0; dtype < HR_DTYPE_N; dtype++)
        g_assert_cmpfloat (gpu->gemm_sustained_flops[dtype], <=, gpu->peak_flops[dtype]);
      g_assert_cmpfloat (gpu->memory_sustained_bandwidth, <=, gpu->memory_bandwidth);
      for (int point = 0; point < HR_GPU_ATTENTION_POINTS; point++)
        {
          g_assert_cmpfloat (gpu->attention_fwd_flops[point], <=, gpu->peak_flops[HR_DTYPE_BF16]);
          g_assert_cmpfloat (gpu->attention_fwd_causal_flops[point], <=, gpu->attention_fwd_flops[point]);
          g_assert_cmpfloat (gpu->attention_bwd_flops[point], <=, gpu->peak_flops[HR_DTYPE_BF16]);
          g_assert_cmpfloat (gpu->attention_triton_causal_flops[point], <=,
                             gpu->attention_triton_flops[point]);
          g_assert_cmpfloat (gpu->attention_triton_flops[point], <=, gpu->peak_flops[HR_DTYPE_BF16]);
          g_assert_cmpfloat (gpu->attention_fwd_bwd_causal_flops[point], <=,
                             gpu->attention_fwd_bwd_flops[point]);
          g_assert_cmpfloat (gpu->attention_fwd_bwd_flops[point], <=, gpu->peak_flops[HR_DTYPE_BF16]);
        }
    }

  remove_user_dir (dir);
}

/* Two of the 2026-11 additions against their datasheets (resources/gpus.json
 * cites each): the L40's table gives FP32 90.5, BF16 181.05 | 362.1*, FP8
 * 362 | 724* (* with sparsity: the catalog keeps the dense figure), 864 GB/s,
 * 300 W, PCIe Gen4 x16 64 GB/s bidirectional = 32 one way; the A40's gives
 * TF32 74.8 | 149.6*, BF16 149.7 | 299.4*, INT8 299.3 | 598.6*, no FP8,
 * 696 GB/s, NVLink 112.5 GB/s bidirectional = 56.25 one way, 300 W. Both
 * keep 1/16 of 48 GiB of GDDR6 for ECC: 45 × 2^30 bytes. */
static void
test_datasheet_additions (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autoptr(GError) error = NULL;
  HrGpu l40, a40;

  g_assert_true (headroom_catalog_lookup_gpu (catalog, "l40", &l40, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "a40", &a40, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (l40.peak_flops[HR_DTYPE_FP32], ==, 90.5e12);
  g_assert_cmpfloat (l40.peak_flops[HR_DTYPE_BF16], ==, 362.1e12 / 2);
  g_assert_cmpfloat (l40.peak_flops[HR_DTYPE_FP8], ==, 724e12 / 2);
  g_assert_cmpfloat (l40.memory_bandwidth, ==, 864e9);
  g_assert_cmpfloat (l40.host_bandwidth, ==, 64e9 / 2);
  g_assert_cmpfloat (l40.power_watts, ==, 300);
  g_assert_cmpfloat (l40.memory_bytes, ==, 45.0 * 1073741824.0);
  g_assert_cmpfloat (a40.peak_flops[HR_DTYPE_TF32], ==, 74.8e12);
  g_assert_cmpfloat (a40.peak_flops[HR_DTYPE_BF16], ==, 149.7e12);
  g_assert_cmpfloat (a40.peak_flops[HR_DTYPE_INT8], ==, 299.3e12);
  g_assert_cmpfloat (a40.peak_flops[HR_DTYPE_FP8], ==, 0);
  g_assert_cmpfloat (a40.memory_bandwidth, ==, 696e9);
  g_assert_cmpfloat (a40.intra_node_bandwidth, ==, 112.5e9 / 2);
  g_assert_cmpfloat (a40.power_watts, ==, 300);
  remove_user_dir (dir);
}

/* The 2026-11 data-center and workstation additions against their sources
 * (resources/gpus.json cites each; * = with sparsity, which the catalog
 * halves):
 * - RTX 6000 Ada datasheet: FP32 91.1, tensor 1,457.0* (FP8), 960 GB/s,
 *   300 W, PCIe 4.0 x16 = 64 GB/s bidirectional, 32 one way.
 * - RTX PRO 6000 Blackwell Server Edition datasheet: FP32 120, 1,597 GB/s,
 *   up to 600 W, 96 GB of GDDR7 = 96 × 2^30 bytes.
 * - H200 NVL (NVIDIA's H200 page): 141 GB at 4.8 TB/s, up to 600 W, NVLink
 *   bridge 900 GB/s bidirectional = 450 one way.
 * - HGX B300 table, 8 GPUs: BF16 36 PF*, FP8 72 PF*, INT8 2 POPS*, so per GPU
 *   / 8 / 2; NVLink 1.8 TB/s bidirectional; DGX B300: 800 Gb/s per GPU =
 *   100 GB/s, 1,100 W, 270 GB.
 * - Blackwell datasheet, GB200 NVL72 per GPU: BF16 5 PF*, FP8 10 PF*, FP32
 *   80 TF, 186 GB at 8 TB/s, up to 1,200 W.
 * - Cloud TPU v6e page: bf16 918 TF, int8 1,836 TOPS, no fp8 figure, 32 GB
 *   at 1,638 GBps, ICI 800 GBps bidirectional = 400 one way.
 * The MAMF table (stas00/ml-engineering at 744d01e1) measured B300 SXM BF16
 * at 1,769.0 and GB200 FP8 at 3,615.6 TFLOP/s. */
static void
test_datasheet_additions_accelerators (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autoptr(GError) error = NULL;
  const double gib = 1073741824.0;
  HrGpu ada, pro, nvl, b300, gb200, v6e;

  g_assert_true (headroom_catalog_lookup_gpu (catalog, "rtx-6000-ada", &ada, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "rtx-pro-6000-bse", &pro, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "h200-nvl", &nvl, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "b300", &b300, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "gb200", &gb200, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "tpu-v6e", &v6e, &error));
  g_assert_no_error (error);

  g_assert_cmpfloat (ada.peak_flops[HR_DTYPE_FP32], ==, 91.1e12);
  g_assert_cmpfloat (ada.peak_flops[HR_DTYPE_FP8], ==, 1457.0e12 / 2);
  g_assert_cmpfloat (ada.memory_bandwidth, ==, 960e9);
  g_assert_cmpfloat (ada.host_bandwidth, ==, 64e9 / 2);
  g_assert_cmpfloat (ada.power_watts, ==, 300);

  g_assert_cmpfloat (pro.peak_flops[HR_DTYPE_FP32], ==, 120e12);
  g_assert_cmpfloat (pro.memory_bandwidth, ==, 1597e9);
  g_assert_cmpfloat (pro.memory_bytes, ==, 96.0 * gib);
  g_assert_cmpfloat (pro.power_watts, ==, 600);

  g_assert_cmpfloat (nvl.memory_bytes, ==, 141.0 * gib);
  g_assert_cmpfloat (nvl.memory_bandwidth, ==, 4.8e12);
  g_assert_cmpfloat (nvl.intra_node_bandwidth, ==, 900e9 / 2);
  g_assert_cmpfloat (nvl.power_watts, ==, 600);

  g_assert_cmpfloat (b300.peak_flops[HR_DTYPE_BF16], ==, 36e15 / 8 / 2);
  g_assert_cmpfloat (b300.peak_flops[HR_DTYPE_FP8], ==, 72e15 / 8 / 2);
  g_assert_cmpfloat (b300.peak_flops[HR_DTYPE_INT8], ==, 2e15 / 8 / 2);
  g_assert_cmpfloat (b300.intra_node_bandwidth, ==, 1.8e12 / 2);
  g_assert_cmpfloat (b300.inter_node_bandwidth, ==, 800e9 / 8);
  g_assert_cmpfloat (b300.memory_bytes, ==, 270.0 * gib);
  g_assert_cmpfloat (b300.power_watts, ==, 1100);
  g_assert_cmpfloat (b300.gemm_sustained_flops[HR_DTYPE_BF16], ==, 1769.0e12);

  g_assert_cmpfloat (gb200.peak_flops[HR_DTYPE_BF16], ==, 5e15 / 2);
  g_assert_cmpfloat (gb200.peak_flops[HR_DTYPE_FP8], ==, 10e15 / 2);
  g_assert_cmpfloat (gb200.peak_flops[HR_DTYPE_FP32], ==, 80e12);
  g_assert_cmpfloat (gb200.memory_bytes, ==, 186.0 * gib);
  g_assert_cmpfloat (gb200.memory_bandwidth, ==, 8e12);
  g_assert_cmpfloat (gb200.power_watts, ==, 1200);
  g_assert_cmpfloat (gb200.gemm_sustained_flops[HR_DTYPE_FP8], ==, 3615.6e12);

  g_assert_cmpfloat (v6e.peak_flops[HR_DTYPE_BF16], ==, 918e12);
  g_assert_cmpfloat (v6e.peak_flops[HR_DTYPE_INT8], ==, 1836e12);
  g_assert_cmpfloat (v6e.peak_flops[HR_DTYPE_FP8], ==, 0);
  g_assert_cmpfloat (v6e.memory_bytes, ==, 32.0 * gib);
  g_assert_cmpfloat (v6e.memory_bandwidth, ==, 1638e9);
  g_assert_cmpfloat (v6e.intra_node_bandwidth, ==, 800e9 / 2);

  /* MI355X: AMD's dense FP32 157.3 and INT8 5,000 (its spec page, tabulated
   * in stas00/ml-engineering at 744d01e1), MAMF BF16 1,565.0 there. */
  {
    HrGpu mi355x;

    g_assert_true (headroom_catalog_lookup_gpu (catalog, "mi355x", &mi355x, &error));
    g_assert_cmpfloat (mi355x.peak_flops[HR_DTYPE_FP32], ==, 157.3e12);
    g_assert_cmpfloat (mi355x.peak_flops[HR_DTYPE_INT8], ==, 5000e12);
    g_assert_cmpfloat (mi355x.gemm_sustained_flops[HR_DTYPE_BF16], ==, 1565.0e12);
  }
  /* torchao's measured shares (testing/training/roofline_utils.py at
   * 36027d82): Meta's H100 variant 0.78 of 989 and 1,979 TFLOP/s and 0.92 of
   * 2.4 TB/s; B300 0.84 of 8 TB/s. */
  {
    HrGpu meta;

    g_assert_true (headroom_catalog_lookup_gpu (catalog, "h100-sxm-hbm2e", &meta, &error));
    g_assert_cmpfloat (fabs (meta.gemm_sustained_flops[HR_DTYPE_BF16] - 0.78 * 989e12), <, 1e3);
    g_assert_cmpfloat (fabs (meta.gemm_sustained_flops[HR_DTYPE_FP8] - 0.78 * 1979e12), <, 1e3);
    g_assert_cmpfloat (fabs (meta.memory_sustained_bandwidth - 0.92 * 2.4e12), <, 1);
    /* FlashAttention-2's rates of the SXM5 (an assumption, an upper bound):
     * 335 TFLOP/s causal at 16k tokens, as on the H100 SXM5. */
    g_assert_cmpfloat (meta.attention_fwd_causal_flops[5], ==, 335e12);
    g_assert_cmpfloat (meta.attention_bwd_flops[0], ==, 214e12);
    g_assert_cmpfloat (fabs (b300.memory_sustained_bandwidth - 0.84 * 8e12), <, 1);
  }
  remove_user_dir (dir);
}

/* The sustained rates as the catalog cites them (resources/gpus.json):
 * the MAMF table's H100 SXM 794.5 (BF16) and 1,402.6 (FP8) TFLOP/s, the
 * FlashAttention-3 paper's FlashAttention-2 rates on an H100 at 512 and
 * 16k tokens, and the FlashAttention-2 paper's 73 % and 63 % of an A100's
 * 312 TFLOP/s: 227.8 and 196.6 (rounded to 0.1 in the catalog). */
static void
test_sustained_rates (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autoptr(GError) error = NULL;
  HrGpu h100, a100, pcie;

  g_assert_true (headroom_catalog_lookup_gpu (catalog, "h100-sxm", &h100, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "a100-80gb-sxm", &a100, &error));
  g_assert_true (headroom_catalog_lookup_gpu (catalog, "h100-pcie", &pcie, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (h100.gemm_sustained_flops[HR_DTYPE_BF16], ==, 794.5e12);
  g_assert_cmpfloat (h100.gemm_sustained_flops[HR_DTYPE_FP8], ==, 1402.6e12);
  g_assert_cmpfloat (h100.attention_fwd_flops[0], ==, 309e12);
  g_assert_cmpfloat (h100.attention_fwd_causal_flops[5], ==, 335e12);
  g_assert_cmpfloat (h100.attention_bwd_flops[5], ==, 322e12);
  g_assert_cmpfloat (fabs (a100.attention_fwd_flops[3] - 0.73 * 312e12), <, 0.1e12);
  g_assert_cmpfloat (fabs (a100.attention_bwd_flops[3] - 0.63 * 312e12), <, 0.1e12);
  /* flash-attn 1's Triton kernel, forward and backward together, read off
   * the FlashAttention-2 release's A100 chart (causal, head dim 128: 68 at
   * 2k) and, on the H100, flash-attn 1's CUDA bars (no mask: 139 at 16k);
   * FlashAttention-2 over both passes from the same A100 chart (155 at 2k
   * causal, 203 at 16k without a mask), where the H100 has its passes'
   * own tables. */
  g_assert_cmpfloat (a100.attention_triton_causal_flops[2], ==, 68e12);
  g_assert_cmpfloat (a100.attention_fwd_bwd_causal_flops[2], ==, 155e12);
  g_assert_cmpfloat (a100.attention_fwd_bwd_flops[5], ==, 203e12);
  g_assert_cmpfloat (h100.attention_fwd_bwd_flops[0], ==, 0);
  g_assert_cmpfloat (a100.attention_triton_flops[5], ==, 95e12);
  g_assert_cmpfloat (h100.attention_triton_flops[5], ==, 139e12);
  g_assert_cmpfloat (pcie.attention_triton_flops[0], ==, 0);
  /* No published sweep: 0, and the planner's fallback applies. */
  g_assert_cmpfloat (pcie.gemm_sustained_flops[HR_DTYPE_BF16], ==, 0);
  g_assert_cmpfloat (pcie.attention_fwd_flops[0], ==, 0);
  /* chsasank/device-benchmarks' copy: the H100 PCIe at 1630 GB/s of its
   * 2.0 TB/s; no published figure for the A100 SXM (0: peak × efficiency). */
  g_assert_cmpfloat (pcie.memory_sustained_bandwidth, ==, 1630e9);
  g_assert_cmpfloat (a100.memory_sustained_bandwidth, ==, 0);
  /* The architecture whitepapers' SM counts: 108 on the A100, 132 on the
   * H100 SXM5 and 114 on the H100 PCIe. */
  g_assert_cmpfloat (a100.sm_count, ==, 108);
  /* NCCL's rings within a node (resources/gpus.json), 6 doubled twice:
   * DGX A100, 240 GB/s of NVLink at 40 a ring; DGX H100, 360 at 60. The
   * H100 PCIe's NVLink bridges join pairs, not a node: none counted. */
  g_assert_cmpfloat (a100.nvlink_nccl_channels, ==, 24);
  g_assert_cmpfloat (h100.nvlink_nccl_channels, ==, 24);
  g_assert_cmpfloat (pcie.nvlink_nccl_channels, ==, 0);
  g_assert_cmpfloat (h100.sm_count, ==, 132);
  g_assert_cmpfloat (pcie.sm_count, ==, 114);
  remove_user_dir (dir);
}

static void
test_not_found (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autoptr(GError) model_error = NULL;
  g_autoptr(GError) gpu_error = NULL;
  HrModel model;
  HrGpu gpu;

  g_assert_false (headroom_catalog_lookup_model (catalog, "no-such-model", &model, &model_error));
  g_assert_error (model_error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (model_error->message, "no-such-model"));
  g_assert_false (headroom_catalog_lookup_gpu (catalog, "no-such-gpu", &gpu, &gpu_error));
  g_assert_error (gpu_error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_NOT_FOUND);

  remove_user_dir (dir);
}

/* A user GPU is saved, survives a new catalog (a restart) with the same
 * figures, and replacing it keeps one entry. */
static void
test_user_gpu (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autoptr(HeadroomCatalog) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  guint n_builtin = g_list_model_get_n_items (headroom_catalog_get_gpus (catalog));
  HrGpu gpu = {
    .memory_bytes = 48.0 * 1073741824.0,
    .memory_bandwidth = 864e9,
    .memory_sustained_bandwidth = 760e9,
    .peak_flops = { 91.6e12, 183e12, 362e12, 362e12, 733e12, 733e12 },
    .intra_node_bandwidth = 32e9,
    .power_watts = 350,
    .sm_count = 142,
    .nvlink_nccl_channels = 16,
    .gemm_sustained_flops = { 0, 0, 300e12, 300e12, 600e12, 0 },
    .attention_fwd_flops = { 150e12, 160e12, 170e12, 180e12, 190e12, 200e12 },
    .attention_bwd_flops = { 100e12, 110e12, 120e12, 130e12, 140e12, 150e12 },
  };
  HrGpu read;

  g_assert_true (headroom_catalog_add_user_gpu (catalog, "my-gpu", "My GPU", "Vendor",
                                                "my notes", &gpu, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_gpus (catalog)), ==, n_builtin + 1);

  reloaded = headroom_catalog_new_for_user_dir (dir);
  g_assert_null (headroom_catalog_get_load_error (reloaded));
  g_assert_true (headroom_catalog_lookup_gpu (reloaded, "my-gpu", &read, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (&read, sizeof read, &gpu, sizeof gpu);
  g_assert_true (headroom_gpu_info_get_user_defined (headroom_catalog_find_gpu (reloaded, "my-gpu")));
  g_assert_cmpstr (headroom_gpu_info_get_name (headroom_catalog_find_gpu (reloaded, "my-gpu")), ==, "My GPU");

  gpu.memory_bytes = 24.0 * 1073741824.0;
  g_assert_true (headroom_catalog_add_user_gpu (reloaded, "my-gpu", "My GPU", NULL, NULL, &gpu, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_gpus (reloaded)), ==, n_builtin + 1);
  /* The same catalog finds the replacement, not the entry it looked up
   * above (its index by id follows the store). */
  g_assert_true (headroom_catalog_lookup_gpu (reloaded, "my-gpu", &read, &error));
  g_assert_cmpfloat (read.memory_bytes, ==, 24.0 * 1073741824.0);
  g_clear_object (&reloaded);
  reloaded = headroom_catalog_new_for_user_dir (dir);
  g_assert_true (headroom_catalog_lookup_gpu (reloaded, "my-gpu", &read, &error));
  g_assert_cmpfloat (read.memory_bytes, ==, 24.0 * 1073741824.0);

  remove_user_dir (dir);
}

static void
test_user_gpu_invalid (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  GListModel *gpus = headroom_catalog_get_gpus (catalog);
  HrGpu gpu = { .memory_bytes = 0, .memory_bandwidth = 1e12 };
  g_autoptr(GError) zero_error = NULL;
  g_autoptr(GError) nan_error = NULL;
  g_autoptr(GError) above_error = NULL;

  g_assert_false (headroom_catalog_add_user_gpu (catalog, "bad", NULL, NULL, NULL, &gpu, &zero_error));
  g_assert_error (zero_error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (zero_error->message, "memory_bytes"));

  gpu.memory_bytes = 1e9;
  gpu.peak_flops[HR_DTYPE_BF16] = NAN;
  g_assert_false (headroom_catalog_add_user_gpu (catalog, "bad", NULL, NULL, NULL, &gpu, &nan_error));
  g_assert_true (g_str_has_prefix (nan_error->message, "peak_flops.bf16"));

  /* A copy never runs faster than the datasheet's peak. */
  gpu.peak_flops[HR_DTYPE_BF16] = 0;
  gpu.memory_sustained_bandwidth = 1.1e12;
  g_assert_false (headroom_catalog_add_user_gpu (catalog, "bad", NULL, NULL, NULL, &gpu, &above_error));
  g_assert_true (g_str_has_prefix (above_error->message, "memory_sustained_bandwidth"));
  gpu.memory_sustained_bandwidth = 0;

  /* SMs come whole. */
  {
    g_autoptr(GError) sm_error = NULL;

    g_autoptr(GError) channel_error = NULL;

    gpu.sm_count = 13.5;
    g_assert_false (headroom_catalog_add_user_gpu (catalog, "bad", NULL, NULL, NULL, &gpu, &sm_error));
    g_assert_true (g_str_has_prefix (sm_error->message, "sm_count"));
    gpu.sm_count = 0;
    gpu.nvlink_nccl_channels = -1;
    g_assert_false (headroom_catalog_add_user_gpu (catalog, "bad", NULL, NULL, NULL, &gpu,
                                                   &channel_error));
    g_assert_true (g_str_has_prefix (channel_error->message, "nvlink_nccl_channels"));
    gpu.nvlink_nccl_channels = 0;
  }

  /* A built-in id cannot be taken over. */
  if (g_list_model_get_n_items (gpus) > 0)
    {
      g_autoptr(HeadroomGpuInfo) builtin = g_list_model_get_item (gpus, 0);
      g_autoptr(GError) error = NULL;

      gpu.peak_flops[HR_DTYPE_BF16] = 0;
      g_assert_false (headroom_catalog_add_user_gpu (catalog, headroom_gpu_info_get_id (builtin),
                                                     NULL, NULL, NULL, &gpu, &error));
      g_assert_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_EXISTS);
    }

  remove_user_dir (dir);
}

/* User presets load beside the built-in ones; a built-in id is not shadowed. */
static void
test_user_models (void)
{
  static const char models[] =
    "{ \"format\": \"headroom-models\", \"version\": 1, \"models\": ["
    "  { \"id\": \"my-model\", \"name\": \"Mine\", \"hf_id\": \"me/mine\", \"source\": \"test\","
    "    \"config\": { \"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,"
    "                \"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"vocab_size\": 100 } },"
    "  { \"id\": \"llama-2-7b\", \"config\": { \"model_type\": \"llama\", \"hidden_size\": 64 } } ] }";
  g_autofree char *dir = make_user_dir ();
  g_autofree char *path = g_build_filename (dir, "models.json", NULL);
  g_autoptr(HeadroomCatalog) catalog = NULL;
  g_autoptr(GError) error = NULL;
  HeadroomModelPreset *preset;
  HrModel model;

  g_assert_true (g_file_set_contents (path, models, -1, NULL));
  catalog = headroom_catalog_new_for_user_dir (dir);
  g_assert_null (headroom_catalog_get_load_error (catalog));

  preset = headroom_catalog_find_model (catalog, "my-model");
  g_assert_nonnull (preset);
  g_assert_true (headroom_model_preset_get_user_defined (preset));
  g_assert_cmpstr (headroom_model_preset_get_hf_id (preset), ==, "me/mine");
  g_assert_true (headroom_catalog_lookup_model (catalog, "my-model", &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (model.hidden_size, ==, 64);

  /* The built-in Llama-2-7B (hidden size 4096) wins over the user's entry. */
  preset = headroom_catalog_find_model (catalog, "llama-2-7b");
  if (preset != NULL)
    {
      g_assert_false (headroom_model_preset_get_user_defined (preset));
      g_assert_true (headroom_catalog_lookup_model (catalog, "llama-2-7b", &model, &error));
      g_assert_cmpint (model.hidden_size, ==, 4096);
    }

  remove_user_dir (dir);
}

/* A user preset saved from an edited built-in config survives a reload:
 * Llama-2-7B cut to 16 layers. Llama-2-7B has 6,738,415,616 parameters
 * (known-models.json); one layer is q, k, v, o 4 · 4096² = 67,108,864, MLP
 * 3 · 4096 · 11008 = 135,266,304 and two norms of 4096: 202,383,360; the rest
 * (embedding, untied head 2 · 32000 · 4096, final norm 4096) is 262,148,096.
 * 16 layers: 262,148,096 + 16 · 202,383,360 = 3,500,281,856. */
static void
test_add_user_model (void)
{
  g_autofree char *dir = make_user_dir ();
  g_autoptr(HeadroomCatalog) catalog = headroom_catalog_new_for_user_dir (dir);
  g_autoptr(HeadroomCatalog) reloaded = NULL;
  g_autoptr(JsonObject) config = json_object_new ();
  g_autoptr(JsonObject) broken = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) exists_error = NULL;
  g_autoptr(GError) invalid_error = NULL;
  HeadroomModelPreset *source = headroom_catalog_find_model (catalog, "llama-2-7b");
  HeadroomModelPreset *saved;
  guint n_builtin = g_list_model_get_n_items (headroom_catalog_get_models (catalog));
  HrModel model;
  HrParams params;
  g_autoptr(GList) members = NULL;

  g_assert_nonnull (source);
  members = json_object_get_members (headroom_model_preset_get_config (source));
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (config, l->data,
                            json_node_copy (json_object_get_member (headroom_model_preset_get_config (source), l->data)));
  json_object_set_int_member (config, "num_hidden_layers", 16);

  g_assert_true (headroom_catalog_add_user_model (catalog, "llama-2-7b-16l", "Llama 2 7B, 16 layers",
                                                  NULL, NULL, config, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_models (catalog)), ==, n_builtin + 1);

  reloaded = headroom_catalog_new_for_user_dir (dir);
  g_assert_null (headroom_catalog_get_load_error (reloaded));
  saved = headroom_catalog_find_model (reloaded, "llama-2-7b-16l");
  g_assert_nonnull (saved);
  g_assert_true (headroom_model_preset_get_user_defined (saved));
  g_assert_cmpstr (headroom_model_preset_get_name (saved), ==, "Llama 2 7B, 16 layers");
  g_assert_true (headroom_catalog_lookup_model (reloaded, "llama-2-7b-16l", &model, &error));
  g_assert_no_error (error);
  g_assert_cmpint (hr_model_params (&model, &params, NULL), ==, HR_OK);
  g_assert_cmpint (params.total, ==, 3500281856);

  /* Replacing the user's own entry keeps one copy. */
  json_object_set_int_member (config, "num_hidden_layers", 32);
  g_assert_true (headroom_catalog_add_user_model (reloaded, "llama-2-7b-16l", "Llama 2 7B",
                                                  NULL, NULL, config, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_models (reloaded)), ==, n_builtin + 1);
  g_assert_true (headroom_catalog_lookup_model (reloaded, "llama-2-7b-16l", &model, &error));
  g_assert_cmpint (hr_model_params (&model, &params, NULL), ==, HR_OK);
  g_assert_cmpint (params.total, ==, 6738415616);

  /* Built-in ids are refused, and so is a config that does not read. */
  g_assert_false (headroom_catalog_add_user_model (reloaded, "llama-2-7b", NULL, NULL, NULL,
                                                   config, &exists_error));
  g_assert_error (exists_error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_EXISTS);
  json_object_set_string_member (broken, "model_type", "llama");
  json_object_set_string_member (broken, "hidden_size", "big");
  g_assert_false (headroom_catalog_add_user_model (reloaded, "broken", NULL, NULL, NULL,
                                                   broken, &invalid_error));
  g_assert_error (invalid_error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID);
  g_assert_null (headroom_catalog_find_model (reloaded, "broken"));
  g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_models (reloaded)), ==, n_builtin + 1);

  remove_user_dir (dir);
}

/* A broken user file is reported; the built-in entries still load, and
 * looking up a GPU the file would have held says why it is missing. */
static void
test_user_file_malformed (void)
{
  static const char * const contents[] = {
    "{ \"gpus\": [",
    "{ \"gpus\": {} }",
    "{ \"gpus\": [ { \"id\": \"x\", \"memory_bytes\": -1, \"memory_bandwidth\": 1, \"peak_flops\": {} } ] }",
    "{ \"gpus\": [ { \"id\": \"x\", \"memory_bytes\": \"80\", \"memory_bandwidth\": 1, \"peak_flops\": {} } ] }",
    "{ \"gpus\": [ { \"id\": \"x\", \"memory_bytes\": 1, \"memory_bandwidth\": 1, \"peak_flops\": {}, \"nvlink_nccl_channels\": 2.5 } ] }",
  };
  static const char * const needles[] = {
    "gpus.json", "gpus", "memory_bytes", "memory_bytes", "nvlink_nccl_channels",
  };

  for (guint i = 0; i < G_N_ELEMENTS (contents); i++)
    {
      g_autofree char *dir = make_user_dir ();
      g_autofree char *path = g_build_filename (dir, "gpus.json", NULL);
      g_autoptr(HeadroomCatalog) builtin = headroom_catalog_new_for_user_dir ("/nonexistent");
      g_autoptr(HeadroomCatalog) catalog = NULL;
      g_autoptr(GError) lookup_error = NULL;
      const GError *error;
      HrGpu gpu;

      g_assert_true (g_file_set_contents (path, contents[i], -1, NULL));
      catalog = headroom_catalog_new_for_user_dir (dir);
      error = headroom_catalog_get_load_error (catalog);
      g_assert_error ((GError *) error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE);
      g_assert_nonnull (strstr (error->message, needles[i]));
      g_assert_false (headroom_catalog_lookup_gpu (catalog, "x", &gpu, &lookup_error));
      g_assert_true (g_str_has_prefix (lookup_error->message, "no GPU “x”; "));
      g_assert_nonnull (strstr (lookup_error->message, needles[i]));
      g_assert_cmpuint (g_list_model_get_n_items (headroom_catalog_get_models (catalog)), ==,
                        g_list_model_get_n_items (headroom_catalog_get_models (builtin)));

      remove_user_dir (dir);
    }
}

/* The source answers the core's look-ups, nested keys with dots. */
static void
test_hf_source (void)
{
  static const char json[] =
    "{ \"a\": { \"b\": 3 }, \"s\": \"x\", \"f\": 1.5, \"t\": true, \"n\": null, \"arr\": [] }";
  g_autoptr(GBytes) bytes = g_bytes_new_static (json, strlen (json));
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) config = headroom_hf_config_parse_bytes (bytes, &error);
  HrConfigSource source;
  HrValue value;

  g_assert_no_error (error);
  headroom_hf_config_source_init (&source, config);

  source.lookup (source.user_data, "a.b", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_INT);
  g_assert_cmpint (value.i, ==, 3);
  g_assert_cmpfloat (value.d, ==, 3.0);
  source.lookup (source.user_data, "a", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_OTHER);
  source.lookup (source.user_data, "a.c", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_ABSENT);
  source.lookup (source.user_data, "s.x", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_ABSENT);
  source.lookup (source.user_data, "s", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_STRING);
  g_assert_cmpstr (value.s, ==, "x");
  source.lookup (source.user_data, "f", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_DOUBLE);
  g_assert_cmpfloat (value.d, ==, 1.5);
  source.lookup (source.user_data, "t", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_BOOL);
  g_assert_true (value.b);
  source.lookup (source.user_data, "n", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_NULL);
  source.lookup (source.user_data, "arr", &value);
  g_assert_cmpint (value.type, ==, HR_VALUE_OTHER);
}

/* Llama-2-7B's config reads as the HF modeling code reads it. */
static void
test_hf_read_file (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (TEST_DATA_DIR "/cli/llama-2-7b-config.json");
  g_autoptr(GError) error = NULL;
  g_autofree char *model_type = NULL;
  unsigned warnings = 1;
  HrModel model;

  g_assert_true (headroom_hf_config_read_file (file, &model, &model_type, &warnings, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (model_type, ==, "llama");
  g_assert_cmpuint (warnings, ==, 0);
  g_assert_cmpint (model.n_layers, ==, 32);
  g_assert_cmpint (model.hidden_size, ==, 4096);
  g_assert_cmpint (model.head_dim, ==, 128);
  g_assert_cmpint (model.ffn_size, ==, 11008);
  g_assert_false (model.tied_embeddings);
}

static void
test_hf_errors (void)
{
  static const struct { const char *json; int code; const char *prefix; } cases[] = {
    { "{ \"hidden_size\": ", HEADROOM_HF_CONFIG_ERROR_PARSE, "not valid JSON" },
    { "[ 1 ]", HEADROOM_HF_CONFIG_ERROR_PARSE, "not a config" },
    { "", HEADROOM_HF_CONFIG_ERROR_PARSE, "" },
    { "{ \"model_type\": 7 }", HEADROOM_HF_CONFIG_ERROR_TYPE, "model_type" },
    { "{ \"model_type\": \"llama\", \"hidden_size\": 64, \"num_attention_heads\": 3,"
      " \"num_hidden_layers\": 1, \"intermediate_size\": 128, \"vocab_size\": 10 }",
      HEADROOM_HF_CONFIG_ERROR_INVALID, "num_attention_heads" },
    { "{ \"model_type\": \"llama\", \"hidden_size\": \"64\" }",
      HEADROOM_HF_CONFIG_ERROR_TYPE, "hidden_size" },
    /* json-glib would wrap this to -1 */
    { "{ \"model_type\": \"llama\", \"hidden_size\": 18446744073709551615 }",
      HEADROOM_HF_CONFIG_ERROR_INVALID, "hidden_size: 18446744073709551615 does not fit 64 bits" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static (cases[i].json, strlen (cases[i].json));
      g_autoptr(GError) error = NULL;
      HrModel model;

      g_test_message ("case %u: %s", i, cases[i].json);
      g_assert_false (headroom_hf_config_read_bytes (bytes, &model, NULL, NULL, &error));
      g_assert_error (error, HEADROOM_HF_CONFIG_ERROR, cases[i].code);
      g_assert_true (g_str_has_prefix (error->message, cases[i].prefix));
      g_assert_null (strchr (error->message, '\n'));
    }
}

static void
test_hf_missing_file (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (TEST_DATA_DIR "/cli/no-such-config.json");
  g_autoptr(GError) error = NULL;
  HrModel model;

  g_assert_false (headroom_hf_config_read_file (file, &model, NULL, NULL, &error));
  g_assert_error (error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "no-such-config.json"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/catalog/builtin", test_builtin);
  g_test_add_func ("/catalog/sustained-rates", test_sustained_rates);
  g_test_add_func ("/catalog/datasheet-additions", test_datasheet_additions);
  g_test_add_func ("/catalog/datasheet-additions-accelerators",
                   test_datasheet_additions_accelerators);
  g_test_add_func ("/catalog/not-found", test_not_found);
  g_test_add_func ("/catalog/user-gpu", test_user_gpu);
  g_test_add_func ("/catalog/user-gpu-invalid", test_user_gpu_invalid);
  g_test_add_func ("/catalog/user-models", test_user_models);
  g_test_add_func ("/catalog/add-user-model", test_add_user_model);
  g_test_add_func ("/catalog/user-file-malformed", test_user_file_malformed);
  g_test_add_func ("/hf-config/source", test_hf_source);
  g_test_add_func ("/hf-config/read-file", test_hf_read_file);
  g_test_add_func ("/hf-config/errors", test_hf_errors);
  g_test_add_func ("/hf-config/missing-file", test_hf_missing_file);

  return g_test_run ();
}
