/* test-training-time.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Training time, utilization and cost. Every expected value is derived by
 * hand in the comment beside it.
 */

#include "test-training.h"

static void
time_ok (const HrModel    *model,
         const HrTraining *t,
         const HrGpu      *gpu,
         HrTrainingTime   *time)
{
  HrError err = { 0 };

  g_assert_cmpint (hr_training_time (model, t, gpu, time, &err), ==, HR_OK);
}

static void
test_step_time (void)
{
  /* 1 GPU at 1e12 FLOP/s, MFU 0.5: 3,422,552,064 / 5e11 = 0.006845104128 s;
   * 256 tokens / step → 37,399.0... tokens/s. */
  HrTrainingTime time;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  measured_gpt2 (&model, &t);
  round_gpu (&gpu);
  t.mfu = 0.5;
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.model_flops_per_step, ==, 3422552064);
  g_assert_cmpfloat (time.tokens_per_step, ==, 256);
  assert_near (0.006845104128, time.step_seconds, 1e-12);
  assert_near (256 / 0.006845104128, time.tokens_per_second, 1e-12);
  assert_near (256 / 0.006845104128, time.tokens_per_second_per_gpu, 1e-12);
  g_assert_cmpfloat (time.mfu, ==, 0.5);
  assert_near (0.5, time.hfu, 1e-12);

  /* The same micro-batch on each of 2 data-parallel GPUs, global batch 4:
   * twice the FLOPs on twice the GPUs, the same step; 512 tokens a step,
   * 74,798 tokens/s, and per GPU the one GPU's 37,399. */
  t.gpus_per_node = 2;
  t.global_batch = 4;
  time_ok (&model, &t, &gpu, &time);
  assert_near (0.006845104128, time.step_seconds, 1e-12);
  assert_near (512 / 0.006845104128, time.tokens_per_second, 1e-12);
  assert_near (256 / 0.006845104128, time.tokens_per_second_per_gpu, 1e-12);
  t.gpus_per_node = 1;
  t.global_batch = 0;

  /* Full recomputation runs the layers' forward again: measured backward
   * 3,154,116,608, step 4,294,967,296 hardware FLOPs. The utilisation set
   * applies to those: 4,294,967,296 / 5e11 = 0.008589934592 s; HFU 0.5 and
   * the achieved MFU 0.5 · 3,422,552,064 / 4,294,967,296 = 0.3984375. */
  t.recompute = HR_RECOMPUTE_FULL;
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.hardware_flops_per_step, ==, 4294967296);
  assert_near (0.008589934592, time.step_seconds, 1e-12);
  assert_near (0.5, time.hfu, 1e-12);
  assert_near (0.3984375, time.mfu, 1e-12);
}

/* The prediction does not time an optimizer step on the CPU. With the
 * optimizer offloaded (ZeRO-Offload) and no utilisation set, the estimate
 * still gives the memory and the FLOPs, and says the times need a measured
 * utilisation instead of showing one: the same 3,422,552,064 model FLOPs and
 * 256 tokens a step as test_step_time, 1,000 steps for 256,000 tokens, and
 * every time 0. A utilisation set times it as any run. */
static void
test_cpu_optimizer_needs_utilization (void)
{
  HrTrainingMemory offloaded, on_gpu;
  HrTrainingTime time;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  measured_gpt2 (&model, &t);
  round_gpu (&gpu);
  t.tokens = 256000;
  t.offload_optimizer = true;
  g_assert_cmpint (hr_training_estimate (&model, &t, &gpu, &offloaded, &time, NULL, &err), ==,
                   HR_OK);
  g_assert_true (time.needs_utilization);
  g_assert_false (time.predicted);
  g_assert_cmpfloat (time.model_flops_per_step, ==, 3422552064);
  g_assert_cmpfloat (time.tokens_per_step, ==, 256);
  g_assert_cmpfloat (time.steps, ==, 1000);
  g_assert_cmpfloat (time.step_seconds, ==, 0);
  g_assert_cmpfloat (time.total_seconds, ==, 0);
  g_assert_cmpfloat (time.tokens_per_second, ==, 0);
  g_assert_cmpfloat (time.mfu, ==, 0);
  /* The memory is the one a set utilisation gives: it does not depend on it. */
  t.mfu = 0.5;
  g_assert_cmpint (hr_training_estimate (&model, &t, &gpu, &on_gpu, &time, NULL, &err), ==, HR_OK);
  g_assert_false (time.needs_utilization);
  g_assert_cmpfloat (offloaded.total, ==, on_gpu.total);
  g_assert_cmpfloat (offloaded.cpu_bytes, ==, on_gpu.cpu_bytes);
  assert_near (6.845104128, time.total_seconds, 1e-12);
}

static void
test_peak_by_precision (void)
{
  /* The peak of the compute dtype: fp32 → fp32 (TF32 off in PyTorch's
   * matmuls by default), bf16-mixed → bf16, fp16-mixed → fp16, fp8-mixed →
   * fp8. Halving the rate doubles the step. */
  HrTrainingTime time;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  measured_gpt2 (&model, &t);
  round_gpu (&gpu);
  gpu.peak_flops[HR_DTYPE_FP32] = 0.25e12;
  gpu.peak_flops[HR_DTYPE_FP16] = 0.5e12;
  gpu.peak_flops[HR_DTYPE_FP8] = 2e12;
  t.mfu = 1;
  t.precision = HR_PRECISION_FP32;
  time_ok (&model, &t, &gpu, &time);
  assert_near (3422552064 / 0.25e12, time.step_seconds, 1e-12);
  t.precision = HR_PRECISION_FP16_MIXED;
  time_ok (&model, &t, &gpu, &time);
  assert_near (3422552064 / 0.5e12, time.step_seconds, 1e-12);
  t.precision = HR_PRECISION_FP8_MIXED;
  time_ok (&model, &t, &gpu, &time);
  assert_near (3422552064 / 2e12, time.step_seconds, 1e-12);
  t.precision = HR_PRECISION_BF16;
  time_ok (&model, &t, &gpu, &time);
  assert_near (3422552064 / 1e12, time.step_seconds, 1e-12);
}

static void
test_cost_and_energy (void)
{
  /* Budget 256,000 tokens = 1,000 steps of 256; MFU 0.5 → 6.845104128 s;
   * 1 GPU → 0.001901417813 GPU-hours; at 2.5 per GPU-hour 0.004753544533;
   * 500 W → 500·6.845104128/3.6e6 = 0.000950708907 kWh. A budget of 256,001
   * tokens needs a 1,001st step. */
  HrTrainingTime time;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  measured_gpt2 (&model, &t);
  round_gpu (&gpu);
  t.mfu = 0.5;
  t.tokens = 256000;
  t.price_per_gpu_hour = 2.5;
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.steps, ==, 1000);
  assert_near (6.845104128, time.total_seconds, 1e-12);
  assert_near (6.845104128 / 3600, time.gpu_hours, 1e-12);
  assert_near (2.5 * 6.845104128 / 3600, time.cost, 1e-12);
  assert_near (500 * 6.845104128 / 3.6e6, time.energy_kwh, 1e-12);

  t.tokens = 256001;
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.steps, ==, 1001);
}

static void
test_bubble_and_communication (void)
{
  /* PP 4 on 8 GPUs (dp 2), micro 1, global 16 → m = 8: bubble (p − 1)/m =
   * 3/8; interleaved with v = 2: 3/16; GPipe 3/8. Its share of the step is
   * b/(1 + b). */
  HrTrainingTime time;
  HrModel model;
  HrTraining t;
  HrGpu gpu;
  double tp_activation;

  gpt_like (&model, 8, 256, 4, 1024, 2048);
  hr_training_init (&t);
  t.seq_len = 128;
  t.pipeline_parallel = 4;
  t.global_batch = 16;
  t.mfu = 0.4;   /* a set utilisation; the prediction has the bubble in its split */
  round_gpu (&gpu);
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.bubble_fraction, ==, 0.375);
  assert_near (time.step_seconds * 0.375 / 1.375, time.bubble_seconds, 1e-12);
  /* PP: 2·m activations of b·s·h·2 = 65,536 B per step = 1,048,576 B */
  g_assert_cmpfloat (time.pp_comm_bytes, ==, 1048576);
  g_assert_cmpfloat (time.pp_comm_seconds, ==, 1048576 / 100e9);

  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  t.virtual_stages = 2;
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.bubble_fraction, ==, 0.1875);

  t.pipeline_schedule = HR_PIPELINE_GPIPE;
  t.virtual_stages = 1;
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.bubble_fraction, ==, 0.375);

  /* TP 2 × DP 4, micro 1, seq 128, no accumulation: per layer 4 all-reduces
   * of b·s·h·2 = 65,536 B at ring factor 2(2 − 1)/2 = 1: 262,144 B × 8
   * layers = 2,097,152 B. DP: gradients 2 B × rank params × 2(4 − 1)/4. */
  hr_training_init (&t);
  t.seq_len = 128;
  t.tensor_parallel = 2;
  time_ok (&model, &t, &gpu, &time);
  tp_activation = 128 * 256 * 2;
  g_assert_cmpfloat (time.tp_comm_bytes, ==, 8 * 4 * tp_activation);
  g_assert_cmpfloat (time.tp_comm_seconds, ==, 8 * 4 * tp_activation / 100e9);
  g_assert_cmpfloat (time.bubble_fraction, ==, 0);
  /* Full recompute runs the forward's two all-reduces again: 6 per layer */
  t.recompute = HR_RECOMPUTE_FULL;
  time_ok (&model, &t, &gpu, &time);
  g_assert_cmpfloat (time.tp_comm_bytes, ==, 8 * 6 * tp_activation);
  t.recompute = HR_RECOMPUTE_NONE;
  {
    HrTrainingRank rank;
    HrError err = { 0 };

    g_assert_cmpint (hr_training_rank (&model, &t, 0, &rank, &err), ==, HR_OK);
    g_assert_cmpfloat (time.dp_comm_bytes, ==, 2.0 * (double) rank.params * 1.5);
    /* ZeRO-3 gathers the weights again in the backward: 1.5× ([ZeRO] §7) */
    t.zero_stage = 3;
    time_ok (&model, &t, &gpu, &time);
    g_assert_cmpfloat (time.dp_comm_bytes, ==, 1.5 * 2.0 * (double) rank.params * 1.5);
  }
}

static void
test_utilization_from_throughput (void)
{
  /* 10,000 tokens/s on the measured model: 3,422,552,064 / 256 =
   * 13,369,344 FLOPs per token → 1.3369344e11 FLOP/s on a 1e12 GPU:
   * MFU 0.13369344. A step of 256 tokens in 0.0256 s is the same rate.
   * Flash attention recomputes the probabilities in the backward: measured
   * 3,456,106,496 hardware FLOPs → HFU 0.13369344 · 3,456,106,496 /
   * 3,422,552,064. */
  HrTrainingUtilization u;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  measured_gpt2 (&model, &t);
  t.attention = HR_ATTENTION_FLASH;
  round_gpu (&gpu);
  g_assert_cmpint (hr_training_utilization_from_tokens_per_second (&model, &t, &gpu, 10000,
                                                                   &u, &err), ==, HR_OK);
  assert_near (0.13369344, u.mfu, 1e-12);
  assert_near (0.0256, u.step_seconds, 1e-12);
  assert_near (0.13369344 * 3456106496.0 / 3422552064.0, u.hfu, 1e-12);

  g_assert_cmpint (hr_training_utilization_from_step_seconds (&model, &t, &gpu, 0.0256,
                                                              &u, &err), ==, HR_OK);
  assert_near (0.13369344, u.mfu, 1e-12);
  assert_near (10000, u.tokens_per_second, 1e-12);

  g_assert_cmpint (hr_training_utilization_from_tokens_per_second (&model, &t, &gpu, 0,
                                                                   &u, &err), ==,
                   HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "tokens_per_second");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/training/time/step", test_step_time);
  g_test_add_func ("/training/time/cpu-optimizer", test_cpu_optimizer_needs_utilization);
  g_test_add_func ("/training/time/peak-by-precision", test_peak_by_precision);
  g_test_add_func ("/training/time/cost-energy", test_cost_and_energy);
  g_test_add_func ("/training/time/bubble-communication", test_bubble_and_communication);
  g_test_add_func ("/training/time/utilization", test_utilization_from_throughput);

  return g_test_run ();
}
