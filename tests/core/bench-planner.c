/* bench-planner.c: time a full layout search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Searches every layout of a Llama-2-70B-shaped model on 1024 H100s
 * (128 nodes × 8) and prints the time per search, the counts and the best
 * layouts. The target is under 50 ms on one core (issue 8); this is a
 * benchmark, not a test.
 */
#include <stdio.h>
#include <time.h>

#include "hr-planner.h"

#define BEST 5
#define FRONT 64

/* CPU time of this process: one core, whatever else the machine runs. */
static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

int
main (void)
{
  static HrPlanLayout best[BEST], front[FRONT];
  HrPlanRequest request;
  HrPlanResult result;
  HrModel model;
  HrGpu gpu = { 0 };
  HrError err = { 0 };
  double start, seconds;
  int runs = 0;
  size_t i;

  /* Llama-2-70B (meta-llama/Llama-2-70b-hf config.json). */
  hr_model_init (&model);
  model.n_layers = 80;
  model.hidden_size = 8192;
  model.n_heads = 64;
  model.n_kv_heads = 8;
  model.head_dim = 128;
  model.ffn_size = 28672;
  model.ffn_kind = HR_FFN_GATED;
  model.vocab_size = 32000;
  model.positions = HR_POSITIONS_ROTARY;
  model.max_positions = 4096;
  model.norm_kind = HR_NORM_RMSNORM;
  model.norm_bias = false;
  model.qkv_bias = model.out_bias = model.mlp_bias = false;
  model.tied_embeddings = false;

  /* H100 SXM as resources/gpus.json has it (h100-sxm); 8×400 Gb/s InfiniBand
   * per 8-GPU node = 50 GB/s per GPU, 5 µs per message. */
  gpu.memory_bytes = 85899345920.0;
  gpu.memory_bandwidth = 3.35e12;
  gpu.peak_flops[HR_DTYPE_BF16] = 989.4e12;
  gpu.peak_flops[HR_DTYPE_FP16] = 989.4e12;
  gpu.peak_flops[HR_DTYPE_FP8] = 1978.9e12;
  gpu.intra_node_bandwidth = 450e9;
  gpu.inter_node_bandwidth = 50e9;
  gpu.inter_node_latency = 5e-6;
  gpu.power_watts = 700;

  hr_plan_request_init (&request);
  request.training.nodes = 128;
  request.training.gpus_per_node = 8;
  request.training.global_batch = 1024;
  request.training.seq_len = 4096;
  request.training.precision = HR_PRECISION_BF16_MIXED;
  request.training.optimizer = HR_OPTIMIZER_ADAMW;
  request.training.attention = HR_ATTENTION_FLASH;
  request.training.causal = true;
  request.training.dropout = false;

  start = now ();
  do
    {
      if (hr_plan_search (&model, &gpu, &request, best, BEST, front, FRONT, &result, &err) != HR_OK)
        {
          char message[256];

          hr_error_format (&err, message, sizeof message);
          fprintf (stderr, "bench-planner: %s\n", message);
          return 1;
        }
      runs++;
    }
  while (now () - start < 1.0);
  seconds = (now () - start) / runs;

  printf ("search: %.2f ms of CPU per search (%d runs), %lld layouts searched, %lld fit, %zu on the Pareto front%s\n",
          seconds * 1e3, runs, (long long) result.searched, (long long) result.fitting,
          result.n_pareto, result.pareto_truncated ? " (truncated)" : "");
  for (i = 0; i < result.n_best; i++)
    {
      const HrTraining *t = &best[i].training;

      printf ("%zu. tp %lld pp %lld vpp %lld dp %lld cp %lld ep %lld zero %d fsdp %s sp %d mb %lld "
              "recompute %s: %.3f s/step, MFU %.1f %%, %.1f GiB, bound %s\n",
              i + 1, (long long) t->tensor_parallel, (long long) t->pipeline_parallel,
              (long long) t->virtual_stages, (long long) best[i].data_parallel,
              (long long) t->context_parallel, (long long) t->expert_parallel, t->zero_stage,
              hr_fsdp_name (t->fsdp), t->sequence_parallel, (long long) t->micro_batch,
              hr_training_recompute_name (t->recompute), best[i].step.step_seconds,
              100.0 * best[i].step.mfu, best[i].memory_total / 1073741824.0,
              hr_plan_bound_name (best[i].step.bound));
    }
  return 0;
}
