/* test-training-limits.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Training limits: the largest micro-batch, the longest sequence and the
 * fewest GPUs, against plain bisections and walks. Every expected value is
 * derived by hand in the comment beside it.
 */

#include "test-training.h"

static bool
brute_fits (const HrModel    *model,
            const HrTraining *t,
            const HrGpu      *gpu)
{
  HrTrainingMemory m;

  return hr_training_memory (model, t, gpu, &m, NULL) == HR_OK && m.fits;
}

/* The limits' searches (secant steps, a bisection over the data-parallel
 * degrees a layout can take) give what a walk gives: the largest
 * micro-batch and sequence fit and one more does not; the fewest GPUs is
 * the first degree, walking up from 1, whose layout is valid and fits. */
static void
test_limits_match_walk (void)
{
  HrModel models[3];
  HrGpu gpu;

  llama2_7b (&models[0]);
  llama_like (&models[1], 80, 8192, 64, 8, 28672, 128256);
  gpt_like (&models[2], 8, 256, 4, 1024, 2048);
  round_gpu (&gpu);
  for (guint mi = 0; mi < G_N_ELEMENTS (models); mi++)
    for (int zero = 0; zero <= 3; zero++)
      for (int variant = 0; variant < 4; variant++)
        {
          HrTrainingLimits limits;
          HrTraining t;
          HrError err = { 0 };
          int64_t walk = 0;

          hr_training_init (&t);
          t.zero_stage = zero;
          t.global_batch = variant % 2 ? 0 : 96;
          t.tensor_parallel = variant >= 2 ? 2 : 1;
          t.attention = variant == 3 ? HR_ATTENTION_EAGER : HR_ATTENTION_FLASH;
          t.recompute = HR_RECOMPUTE_SELECTIVE;
          gpu.memory_bytes = (mi == 2 ? 2.0 : 40.0) * GIB;
          g_assert_cmpint (hr_training_limits (&models[mi], &t, &gpu, &limits, &err), ==, HR_OK);

          if (limits.max_micro_batch > 0)
            {
              HrTraining u = t;
              /* The accumulation steps stay: global = micro × dp × steps. */
              int64_t steps = t.global_batch / hr_training_data_parallel (&t);

              u.micro_batch = limits.max_micro_batch;
              if (t.global_batch > 0)
                u.global_batch = u.micro_batch * hr_training_data_parallel (&t) * steps;
              g_assert_true (brute_fits (&models[mi], &u, &gpu));
              u.micro_batch++;
              if (t.global_batch > 0)
                u.global_batch = u.micro_batch * hr_training_data_parallel (&t) * steps;
              g_assert_false (brute_fits (&models[mi], &u, &gpu));
            }
          if (limits.max_seq_len > 0)
            {
              HrTraining u = t;
              int64_t unit = t.sequence_parallel ? t.tensor_parallel : 1;

              u.seq_len = limits.max_seq_len;
              g_assert_true (brute_fits (&models[mi], &u, &gpu));
              u.seq_len += unit;
              /* A learned position table caps the sequence. */
              if (!(models[mi].positions == HR_POSITIONS_LEARNED
                    && limits.max_seq_len + unit > models[mi].max_positions))
                {
                  if (brute_fits (&models[mi], &u, &gpu))
                    g_error ("model %u zero %d variant %d: seq %" G_GINT64_FORMAT " + 1 fits",
                             mi, zero, variant, limits.max_seq_len);
                }
            }
          for (int64_t dp = 1; dp <= 4096 && walk == 0; dp++)
            {
              HrTraining u = t;
              int64_t gpus = t.tensor_parallel * dp;

              if (gpus <= t.gpus_per_node)
                {
                  u.nodes = 1;
                  u.gpus_per_node = gpus;
                }
              else if (gpus % t.gpus_per_node == 0)
                u.nodes = gpus / t.gpus_per_node;
              else
                continue;
              if (brute_fits (&models[mi], &u, &gpu))
                walk = gpus;
            }
          if (walk > 0 || limits.min_gpus <= 4096 * t.tensor_parallel)
            g_assert_cmpint (limits.min_gpus, ==, walk);
        }
}

/* Largest n in [1, max] whose setting fits, by plain bisection over the
 * public estimate (memory grows with n): what the limits' secant search
 * must give. seq_unit 0: n is the micro-batch (accumulation steps kept);
 * else the sequence in units of seq_unit tokens. */
static int64_t
bisect_largest (const HrModel    *model,
                const HrTraining *t,
                const HrGpu      *gpu,
                int64_t           seq_unit,
                int64_t           max)
{
  int64_t lo = 0, hi = max + 1;

  while (hi - lo > 1)
    {
      int64_t mid = lo + (hi - lo) / 2;
      HrTraining u = *t;

      if (seq_unit > 0)
        u.seq_len = mid * seq_unit;
      else
        {
          u.micro_batch = mid;
          if (t->global_batch > 0)
            u.global_batch = t->global_batch / t->micro_batch * mid;
        }
      if (brute_fits (model, &u, gpu))
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* Several thousand pseudo-random valid settings (fixed seed): model sizes,
 * tp/pp/dp, ZeRO and FSDP, recomputation, flash or eager attention,
 * precision, schedules, global batches and GPU sizes; then 3,000 more that
 * also bend the memory's growth away from what the first guess assumes
 * (hr-training-limits.c, proportional_guess()): the loss's kinds, activation
 * offloading, the optimizer step in the backward, dropout, compiled layers
 * and eager norms, context parallelism, fine-tuning methods and paged
 * states. The largest micro-batch and sequence equal a plain bisection's,
 * and the fewest GPUs the first data-parallel degree, walking up, whose
 * layout fits. */
/* hr_training_estimate() gives, to the bit, what hr_training_memory(),
 * hr_training_time() and hr_training_limits() give one by one (`limits`),
 * or the time's error where the time has none to give. */
static void
assert_estimate_matches (const HrModel          *model,
                         const HrTraining       *t,
                         const HrGpu            *gpu,
                         const HrTrainingLimits *limits)
{
  HrTrainingMemory m1, m2;
  HrTrainingTime t1, t2;
  HrTrainingLimits l2;
  HrError e1 = { 0 }, e2 = { 0 };
  HrStatus status;

  g_assert_cmpint (hr_training_memory (model, t, gpu, &m1, NULL), ==, HR_OK);
  status = hr_training_time (model, t, gpu, &t1, &e1);
  g_assert_cmpint (hr_training_estimate (model, t, gpu, &m2, &t2, &l2, &e2), ==, status);
  g_assert_cmpint (memcmp (&m1, &m2, offsetof (HrTrainingMemory, fits)), ==, 0);
  g_assert_true (m1.fits == m2.fits);
  g_assert_cmpint (memcmp (&m1.cpu_bytes, &m2.cpu_bytes,
                           sizeof m1 - offsetof (HrTrainingMemory, cpu_bytes)), ==, 0);
  if (status != HR_OK)
    {
      g_assert_cmpstr (e2.field, ==, e1.field);
      g_assert_cmpstr (e2.detail, ==, e1.detail);
      return;
    }
  g_assert_cmpint (memcmp (&t1, &t2, offsetof (HrTrainingTime, predicted)), ==, 0);
  g_assert_true (t1.predicted == t2.predicted);
  g_assert_cmpint (memcmp (&t1.tokens_per_second, &t2.tokens_per_second,
                           sizeof t1 - offsetof (HrTrainingTime, tokens_per_second)), ==, 0);
  g_assert_cmpint (memcmp (limits, &l2, sizeof l2), ==, 0);
}

static void
test_limits_random (void)
{
  static const int64_t tps[] = { 1, 2, 4, 8 }, pps[] = { 1, 2, 4 }, dps[] = { 1, 2, 4, 8, 16 };
  static const double gibs[] = { 16, 24, 40, 80, 141 };
  GRand *rand = g_rand_new_with_seed (20261125);
  HrModel models[5];
  int valid = 0, fitting = 0;

  gpt_like (&models[0], 8, 256, 4, 1024, 2048);
  gpt_like (&models[1], 24, 1024, 16, 4096, 50304);
  llama2_7b (&models[2]);
  llama_like (&models[3], 80, 8192, 64, 8, 28672, 128256);
  /* Mixtral-like MoE with sliding windows on every other layer */
  llama_like (&models[4], 32, 4096, 32, 8, 14336, 32000);
  models[4].n_experts = 8;
  models[4].experts_per_token = 2;
  models[4].expert_ffn_size = 14336;
  models[4].sliding_window = 4096;
  models[4].sliding_window_period = 2;

  while (valid < 6000)
    {
      const HrModel *model = &models[g_rand_int_range (rand, 0, G_N_ELEMENTS (models))];
      HrTrainingLimits limits;
      HrTraining t;
      HrGpu gpu;
      HrError err = { 0 };
      int64_t dp, n_gpus, unit, max_units, walk = 0;

      hr_training_init (&t);
      round_gpu (&gpu);
      gpu.memory_bytes = gibs[g_rand_int_range (rand, 0, G_N_ELEMENTS (gibs))] * GIB;
      t.tensor_parallel = tps[g_rand_int_range (rand, 0, G_N_ELEMENTS (tps))];
      t.pipeline_parallel = pps[g_rand_int_range (rand, 0, G_N_ELEMENTS (pps))];
      dp = dps[g_rand_int_range (rand, 0, G_N_ELEMENTS (dps))];
      if (valid >= 3000 && g_rand_int_range (rand, 0, 4) == 0)
        t.context_parallel = 2;
      n_gpus = t.tensor_parallel * t.pipeline_parallel * t.context_parallel * dp;
      t.gpus_per_node = 8;
      t.nodes = 1;
      if (n_gpus <= 8)
        t.gpus_per_node = n_gpus;
      else
        t.nodes = n_gpus / 8;
      t.pipeline_schedule = g_rand_int_range (rand, 0, 3);
      if (t.pipeline_schedule == HR_PIPELINE_INTERLEAVED)
        t.virtual_stages = 2;
      if (g_rand_boolean (rand))
        t.fsdp = g_rand_int_range (rand, 1, 3);
      else
        t.zero_stage = g_rand_int_range (rand, 0, 4);
      t.recompute = g_rand_int_range (rand, 0, 3);
      t.attention = g_rand_boolean (rand) ? HR_ATTENTION_FLASH : HR_ATTENTION_EAGER;
      t.precision = g_rand_int_range (rand, 0, 5);
      t.sequence_parallel = t.tensor_parallel > 1 && g_rand_boolean (rand);
      t.micro_batch = g_rand_int_range (rand, 1, 5);
      t.global_batch = g_rand_boolean (rand) ? 0 : t.micro_batch * dp * 4 * g_rand_int_range (rand, 1, 9);
      t.seq_len = 512 * g_rand_int_range (rand, 1, 17);
      if (valid >= 3000)
        {
          t.loss = g_rand_int_range (rand, 0, 3);
          t.offload_activations = g_rand_int_range (rand, 0, 4) == 0;
          t.optimizer_in_backward = g_rand_int_range (rand, 0, 4) == 0;
          t.dropout = g_rand_boolean (rand);
          t.compile = g_rand_boolean (rand);
          t.norm_kernel = g_rand_boolean (rand) ? HR_NORM_KERNEL_EAGER : HR_NORM_KERNEL_FUSED;
          t.finetune.method = g_rand_int_range (rand, 0, 5);
          t.paged_optimizer = g_rand_boolean (rand);
        }
      if (hr_training_validate (&t, model, NULL) != HR_OK)
        continue;
      valid++;
      g_assert_cmpint (hr_training_limits (model, &t, &gpu, &limits, &err), ==, HR_OK);

      g_assert_cmpint (limits.max_micro_batch, ==,
                       bisect_largest (model, &t, &gpu, 0, INT64_C (1) << 20));
      unit = t.context_parallel * (t.sequence_parallel ? t.tensor_parallel : 1);
      max_units = INT64_C (1) << 24;
      if (model->positions == HR_POSITIONS_LEARNED && model->max_positions < max_units)
        max_units = model->max_positions;
      g_assert_cmpint (limits.max_seq_len, ==,
                       bisect_largest (model, &t, &gpu, unit, max_units / unit) * unit);
      fitting += limits.max_micro_batch > 0;
      assert_estimate_matches (model, &t, &gpu, &limits);

      for (int64_t d = 1; d <= 1024 && walk == 0; d++)
        {
          HrTraining u = t;
          int64_t gpus = t.tensor_parallel * t.pipeline_parallel * t.context_parallel * d;

          if (gpus <= t.gpus_per_node)
            {
              u.nodes = 1;
              u.gpus_per_node = gpus;
            }
          else if (gpus % t.gpus_per_node == 0)
            u.nodes = gpus / t.gpus_per_node;
          else
            continue;
          if (brute_fits (model, &u, &gpu))
            walk = gpus;
        }
      if (walk > 0
          || limits.min_gpus <= 1024 * t.tensor_parallel * t.pipeline_parallel * t.context_parallel)
        g_assert_cmpint (limits.min_gpus, ==, walk);
    }
  /* Not a sweep of settings that never fit. */
  g_assert_cmpint (fitting, >, 2000);
  g_rand_free (rand);
}

/* Pipelines of more stages than the limits' probes keep halves of
 * (HR_STAGE_CACHE, 8 in hr-internal.h), even and uneven: the searches give
 * what a plain bisection and a walk give, and the one call what the three
 * give. */
static void
test_limits_many_stages (void)
{
  static const int64_t pps[] = { 3, 9, 10, 16 };
  static const double gibs[] = { 16, 24, 80 };
  HrModel model;
  HrGpu gpu;

  llama2_7b (&model);
  round_gpu (&gpu);
  for (guint i = 0; i < G_N_ELEMENTS (pps); i++)
    for (guint g = 0; g < G_N_ELEMENTS (gibs); g++)
      for (int variant = 0; variant < 2; variant++)
        {
          HrTrainingLimits limits;
          HrTraining t;
          int64_t walk = 0;

          hr_training_init (&t);
          t.pipeline_parallel = pps[i];
          t.nodes = 1;
          t.gpus_per_node = pps[i];
          t.zero_stage = 1;
          t.recompute = variant ? HR_RECOMPUTE_FULL : HR_RECOMPUTE_SELECTIVE;
          t.global_batch = variant ? 0 : 4 * pps[i];
          t.seq_len = 2048;
          gpu.memory_bytes = gibs[g] * GIB;
          g_assert_cmpint (hr_training_validate (&t, &model, NULL), ==, HR_OK);
          g_assert_cmpint (hr_training_limits (&model, &t, &gpu, &limits, NULL), ==, HR_OK);
          g_assert_cmpint (limits.max_micro_batch, ==,
                           bisect_largest (&model, &t, &gpu, 0, INT64_C (1) << 20));
          g_assert_cmpint (limits.max_seq_len, ==,
                           bisect_largest (&model, &t, &gpu, 1, INT64_C (1) << 24));
          for (int64_t dp = 1; dp <= 64 && walk == 0; dp++)
            {
              HrTraining u = t;

              /* Whole nodes of pp GPUs past the first. */
              u.nodes = dp;
              if (brute_fits (&model, &u, &gpu))
                walk = pps[i] * dp;
            }
          if (walk > 0 || limits.min_gpus <= 64 * pps[i])
            g_assert_cmpint (limits.min_gpus, ==, walk);
          assert_estimate_matches (&model, &t, &gpu, &limits);
        }
}

static void
test_limits (void)
{
  /* Llama-2-7B, ZeRO-3 on 8 GPUs, flash, full recompute. Memory grows by the
   * same bytes with each sequence of the micro-batch (Δ = M(2) − M(1));
   * a capacity of M(1) + 4Δ + 1 byte fits 5 sequences, not 6. */
  HrTrainingMemory one, two;
  HrTrainingLimits limits;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;
  double delta;

  llama2_7b (&model);
  hr_training_init (&t);
  t.zero_stage = 3;
  t.recompute = HR_RECOMPUTE_FULL;
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &one);
  t.micro_batch = 2;
  memory_ok (&model, &t, &gpu, &two);
  t.micro_batch = 1;
  delta = two.total - one.total;
  gpu.memory_bytes = one.total + 4 * delta + 1;
  g_assert_cmpint (hr_training_limits (&model, &t, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.max_micro_batch, ==, 5);
  /* The longest sequence fits too, and one token more does not. */
  g_assert_cmpint (limits.max_seq_len, >=, 4096);
  {
    HrTrainingMemory at;

    t.seq_len = limits.max_seq_len;
    memory_ok (&model, &t, &gpu, &at);
    g_assert_true (at.fits);
    t.seq_len = limits.max_seq_len + 1;
    memory_ok (&model, &t, &gpu, &at);
    g_assert_false (at.fits);
    t.seq_len = 4096;
  }

  /* Fewest GPUs: model states 16·P/dp + the rest R (independent of dp for
   * dp > 1). On an 80 GiB GPU at 16 GPUs the states are 6.28 GiB, at 8
   * 12.55 GiB: the answer is where 16P/dp + R first fits. ZeRO-0 on a GPU
   * smaller than the states never fits. */
  round_gpu (&gpu);
  gpu.memory_bytes = 20 * GIB;
  g_assert_cmpint (hr_training_limits (&model, &t, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.min_gpus, >, 0);
  {
    HrTrainingMemory at;
    HrTraining fewer = t;

    fewer.gpus_per_node = limits.min_gpus < 8 ? limits.min_gpus : 8;
    fewer.nodes = limits.min_gpus / fewer.gpus_per_node;
    memory_ok (&model, &fewer, &gpu, &at);
    g_assert_true (at.fits);
    if (limits.min_gpus > 1)
      {
        fewer.nodes = 1;
        fewer.gpus_per_node = limits.min_gpus - 1;
        memory_ok (&model, &fewer, &gpu, &at);
        g_assert_false (at.fits);
      }
  }
  t.zero_stage = 0;
  g_assert_cmpint (hr_training_limits (&model, &t, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.min_gpus, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/training/limits", test_limits);
  g_test_add_func ("/training/limits/match-walk", test_limits_match_walk);
  g_test_add_func ("/training/limits/random", test_limits_random);
  g_test_add_func ("/training/limits/many-stages", test_limits_many_stages);

  return g_test_run ();
}
