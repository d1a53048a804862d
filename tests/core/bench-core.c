/* bench-core.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Full estimates (parameters and a training step's FLOPs) per second over a
 * mix of models, then a training estimate (memory and the predicted step
 * time) and the same with its limits (largest micro-batch, longest
 * sequence, fewest GPUs) on 8 GPUs of 80 GiB: in separate calls, and in
 * one (hr_training_estimate(), as the estimator calls it). Each figure is
 * wall time and the process's CPU time (clock()), which a loaded machine
 * inflates less.
 * A benchmark to run by hand, not a test:
 *   bench-core [SECONDS]
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hr-flops.h"
#include "hr-training.h"

#include "test-models.h"

/* CPU time of the process since `start`, in µs. */
static double
cpu_us (clock_t start)
{
  return (double) (clock () - start) * 1e6 / CLOCKS_PER_SEC;
}

int
main (int   argc,
      char *argv[])
{
  HrModel models[5];
  double seconds = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 1.0;
  int64_t start, elapsed, done = 0;
  clock_t cpu_start;
  double checksum = 0;

  /* GPT-2 small */
  hr_model_init (&models[0]);
  /* Llama-2-7B */
  llama_like (&models[1], 32, 4096, 32, 32, 11008, 32000);
  /* Mixtral 8x7B */
  llama_like (&models[2], 32, 4096, 32, 8, 14336, 32000);
  models[2].n_experts = 8;
  models[2].experts_per_token = 2;
  models[2].expert_ffn_size = 14336;
  /* Gemma 2 9B: sandwich norms, windows on even layers */
  llama_like (&models[3], 42, 3584, 16, 8, 14336, 256000);
  models[3].head_dim = 256;
  models[3].tied_embeddings = true;
  models[3].norms_per_layer = 4;
  models[3].sliding_window = 4096;
  models[3].sliding_window_period = 2;
  /* DeepSeek-V3: MLA, dense then MoE layers with a shared expert */
  llama_like (&models[4], 61, 7168, 128, 128, 18432, 129280);
  models[4].head_dim = 192;
  models[4].q_lora_rank = 1536;
  models[4].kv_lora_rank = 512;
  models[4].qk_rope_head_dim = 64;
  models[4].qk_nope_head_dim = 128;
  models[4].v_head_dim = 128;
  models[4].n_experts = 256;
  models[4].experts_per_token = 8;
  models[4].n_shared_experts = 1;
  models[4].expert_ffn_size = 2048;
  models[4].shared_expert_ffn_size = 2048;
  models[4].first_dense_layers = 3;

  if (!(seconds > 0))
    {
      fprintf (stderr, "usage: %s [SECONDS]\n", argv[0]);
      return EXIT_FAILURE;
    }

  start = g_get_monotonic_time ();
  cpu_start = clock ();
  do
    {
      for (int i = 0; i < 1000; i++)
        {
          const HrModel *m = &models[done % G_N_ELEMENTS (models)];
          HrFlopsOptions options = {
            .seq_len = 2048 + done % 7, .micro_batch = 1 + done % 3,
            .attention = HR_ATTENTION_FLASH, .recompute = HR_RECOMPUTE_SELECTIVE,
            .recompute_modules = HR_RECOMPUTE_CORE_ATTN, .causal = true,
          };
          HrParams params;
          HrFlops flops;

          if (hr_model_params (m, &params, NULL) != HR_OK
              || hr_flops_training (m, &options, &flops, NULL) != HR_OK)
            return EXIT_FAILURE;
          checksum += flops.per_token + (double) params.total;
          done++;
        }
      elapsed = g_get_monotonic_time () - start;
    }
  while (elapsed < seconds * G_USEC_PER_SEC);

  printf ("%" G_GINT64_FORMAT " estimates in %.3f s: %.0f estimates per second "
          "(%.2f µs each, %.2f µs CPU; checksum %g)\n",
          done, elapsed / 1e6, done / (elapsed / 1e6), elapsed / (double) done,
          cpu_us (cpu_start) / (double) done, checksum);

  /* Training: memory + time, then memory + time + limits in three calls,
   * then in one. */
  for (int mode = 0; mode < 3; mode++)
    {
      static const char * const names[] = {
        "training estimate", "training estimate with limits",
        "training estimate with limits, one call",
      };
      bool with_limits = mode > 0;
      HrGpu gpu = { 0 };

      gpu.memory_bytes = 80.0 * (1 << 30);
      gpu.memory_bandwidth = 3.35e12;
      gpu.peak_flops[HR_DTYPE_BF16] = 989e12;
      gpu.intra_node_bandwidth = 450e9;
      gpu.inter_node_bandwidth = 50e9;
      gpu.inter_node_latency = 5e-6;
      done = 0;
      checksum = 0;
      start = g_get_monotonic_time ();
      cpu_start = clock ();
      do
        {
          for (int i = 0; i < 1000; i++)
            {
              const HrModel *m = &models[done % G_N_ELEMENTS (models)];
              HrTraining t;
              HrTrainingMemory memory;
              HrTrainingTime time;
              HrTrainingLimits limits;

              hr_training_init (&t);
              t.zero_stage = 1 + done % 3;
              t.seq_len = 2048 << (done % 3);
              t.recompute = HR_RECOMPUTE_SELECTIVE;
              if (mode == 2
                  ? hr_training_estimate (m, &t, &gpu, &memory, &time, &limits, NULL) != HR_OK
                  : (hr_training_memory (m, &t, &gpu, &memory, NULL) != HR_OK
                     || hr_training_time (m, &t, &gpu, &time, NULL) != HR_OK
                     || (with_limits
                         && hr_training_limits (m, &t, &gpu, &limits, NULL) != HR_OK)))
                return EXIT_FAILURE;
              checksum += memory.total + time.step_seconds
                          + (with_limits ? (double) limits.max_micro_batch : 0);
              done++;
            }
          elapsed = g_get_monotonic_time () - start;
        }
      while (elapsed < seconds * G_USEC_PER_SEC);
      printf ("%s: %" G_GINT64_FORMAT " in %.3f s, %.2f µs each, %.2f µs CPU (checksum %g)\n",
              names[mode], done, elapsed / 1e6, elapsed / (double) done,
              cpu_us (cpu_start) / (double) done, checksum);
    }
  return EXIT_SUCCESS;
}
