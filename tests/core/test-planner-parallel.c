/* test-planner-parallel.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The step-time model's parallel terms (hr-planner.c): tensor, data,
 * context, pipeline and expert parallelism against hand derivations.
 */
#include "test-planner.h"

/* TP 2 in one node: per layer two all-reduces forward and two backward of
 * the T×h activations (V = 1024·1024·2 bytes); a ring all-reduce moves
 * 2·(t − 1)/t·V over the link (80 GB/s sustained) in 2·(t − 1) steps of
 * 3.4 µs (NCCL's ring step over NVLink). */
static void
test_tensor_parallel (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  double V = 1024.0 * 1024 * 2, L = 2;
  double all_reduce = 2 * (0.5 * V / 80e9 + 3.4e-6);

  toy_model (&model);
  toy_gpu (&gpu);
  toy_training (&t);
  t.gpus_per_node = 2;
  t.tensor_parallel = 2;
  step_ok (&model, &t, &gpu, NULL, &step);

  assert_close (step.comm[HR_PLAN_COMM_TP].seconds, L * 4 * all_reduce, 1e-9);
  assert_close (step.comm[HR_PLAN_COMM_TP].bytes, L * 4 * V, 1e-12);
  /* The forward ones block; the backward ones hide behind weight gradients. */
  g_assert_cmpfloat (step.comm[HR_PLAN_COMM_TP].exposed, >=, L * 2 * all_reduce * (1 - 1e-9));
  g_assert_cmpfloat (step.comm[HR_PLAN_COMM_TP].exposed, <=, L * 4 * all_reduce * (1 + 1e-9));

  /* Sequence parallel replaces each all-reduce by a reduce-scatter and an
   * all-gather: the same bytes (Korthikanti et al. 2022 §4.2.2). */
  t.sequence_parallel = true;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.comm[HR_PLAN_COMM_TP].bytes, L * 4 * V, 1e-12);
}

/* Async TP on the TP 2 setting above with sequence parallel (and
 * torch.compile, which it needs). Each all-gather or reduce-scatter moves
 * (t − 1)/t·V in t − 1 steps: c = 0.5 · 2,097,152 B ÷ 80e9 B/s + 3.4 µs =
 * 16.507 µs. Without async TP the forward ones block and the backward ones
 * hide behind half the backward products (L · 28h²T/t · 2 ÷ 75e12 / 2 =
 * 400.8 µs ≥ 4c per layer): exposed 2 · L · 2c. With it, each overlaps
 * chunk by chunk with the projection it feeds or follows, of g =
 * 2·T·h·n/t ÷ 75e12 (n = 3h for q, k, v; h for out; 4h for each MLP
 * product), exposed max(0, c − (t − 1)/t · g): q, k, v 42.95 µs, MLP 57.27
 * µs hide theirs; out, 14.32 µs, leaves 16.507 − 7.158 = 9.349 µs, in the
 * forward and again before the input-gradient product in the backward. */
static void
test_async_tensor_parallel (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  HrError err = { 0 };
  double V = 1024.0 * 1024 * 2, L = 2, T = 1024, h = 1024;
  double c = 0.5 * V / 80e9 + 3.4e-6;
  double out = 2 * T * h * h / 2 / 75e12;

  toy_model (&model);
  toy_gpu (&gpu);
  toy_training (&t);
  t.gpus_per_node = 2;
  t.tensor_parallel = 2;
  t.compile = true;
  t.async_tp = true;
  g_assert_cmpint (hr_plan_step (&model, &t, &gpu, NULL, &step, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "async_tp");

  t.sequence_parallel = true;
  t.async_tp = false;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.comm[HR_PLAN_COMM_TP].exposed, 2 * L * 2 * c, 1e-9);

  t.async_tp = true;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.comm[HR_PLAN_COMM_TP].exposed, 2 * L * (c - 0.5 * out), 1e-9);
  /* The same bytes and link time; only what is exposed changes. */
  assert_close (step.comm[HR_PLAN_COMM_TP].seconds, L * 8 * c, 1e-9);
  assert_close (step.comm[HR_PLAN_COMM_TP].bytes, L * 4 * V, 1e-12);

  /* Full recomputation gathers and scatters again in the recomputed forward. */
  t.recompute = HR_RECOMPUTE_FULL;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.comm[HR_PLAN_COMM_TP].exposed, 3 * L * (c - 0.5 * out), 1e-9);
}

/* DP 2 across two nodes, P parameters of 2-byte gradients: the ring
 * all-reduce moves 2·(n − 1)/n·2P = 2P bytes at 8 GB/s sustained plus
 * 2·(n − 1) latencies of 10 µs. ZeRO 3 gathers weights twice and
 * reduce-scatters gradients: 3·(n − 1)/n·2P = 3P bytes, 1.5× (Rajbhandari
 * et al. 2020 §7). */
static void
test_data_parallel (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  HrPlanAssumptions as;
  HrParams params;
  double P, R = 32768.0 * 1024 + 1024.0 * 1024 + 2 * 1024;

  toy_model (&model);
  g_assert_cmpint (hr_model_params (&model, &params, NULL), ==, HR_OK);
  P = (double) params.total;
  toy_gpu (&gpu);
  toy_training (&t);
  t.nodes = 2;
  t.global_batch = 2;
  hr_plan_assumptions_init (&as);
  t.overlap = false;

  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 2 * P, 1e-12);
  assert_close (step.comm[HR_PLAN_COMM_DP].seconds, 2 * (0.5 * 2 * P / 8e9 + 1e-5), 1e-9);
  assert_close (step.comm[HR_PLAN_COMM_DP].exposed, step.comm[HR_PLAN_COMM_DP].seconds, 1e-12);

  t.zero_stage = 3;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 3 * P, 1e-12);
  assert_close (step.comm[HR_PLAN_COMM_DP].seconds, 3 * (0.5 * 2 * P / 8e9 + 1e-5), 1e-9);

  /* fp8 parameters are gathered in fp8 (Megatron's --fp8-param-gather), the
   * bf16 gradients reduce-scattered as before: 2 · ½ · 1 B · P + ½ · 2 B · P
   * = 2P. The setting does nothing outside fp8-mixed: 3P again. */
  t.fp8_params = true;
  t.precision = HR_PRECISION_FP8_MIXED;
  gpu.peak_flops[HR_DTYPE_FP8] = 200e12;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 2 * P, 1e-12);
  t.precision = HR_PRECISION_BF16_MIXED;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 3 * P, 1e-12);
  t.fp8_params = false;

  /* Overlapped with the backward pass, at least the last bucket (one of
   * the L = 2 layers' gradients) stays exposed. */
  t.zero_stage = 0;
  t.overlap = true;
  step_ok (&model, &t, &gpu, &as, &step);
  g_assert_cmpfloat (step.comm[HR_PLAN_COMM_DP].exposed, <, step.comm[HR_PLAN_COMM_DP].seconds);
  g_assert_cmpfloat (step.comm[HR_PLAN_COMM_DP].exposed, >=,
                     step.comm[HR_PLAN_COMM_DP].seconds / 2 * (1 - 1e-9));

  /* FSDP full shard with 4 micro-batches a step (global batch 8 on 2
   * GPUs): each micro-batch gathers the weights for its forward and again
   * for its backward, but for the root unit, which FSDP never reshards
   * after the forward: the embedding (32,768 · 1,024), the position table
   * (1,024 · 1,024) and the final LayerNorm (2 · 1,024), R = 34,605,056,
   * the head tied. It reduce-scatters the gradients: 4 · (3P − R) bytes;
   * under no_sync() once, after the last: 4 · (2P − R) + P. */
  t.overlap = false;
  t.fsdp = HR_FSDP_FULL;
  t.global_batch = 8;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 4 * (3 * P - R), 1e-12);
  t.no_sync = true;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 4 * (2 * P - R) + P, 1e-12);
  /* A backward's gathers take (P − R)/P of a whole gather's time. */
  assert_close (step.comm[HR_PLAN_COMM_DP].seconds,
                (4 + 4 * (P - R) / P + 1) * (0.5 * 2 * P / 8e9 + 1e-5), 1e-9);
  /* FSDP2 as torchtitan runs it also keeps the last block gathered: one
   * layer (P − R) / 2 fewer a backward. DeepSpeed's ZeRO-3 has no root. */
  t.no_sync = false;
  t.fsdp2 = true;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 4 * (3 * P - R - (P - R) / 2), 1e-12);
  t.fsdp2 = false;
  /* An untied head (32,768 · 1,024 more) with the embedding and the head
   * wrapped apart (torchtune's custom_sharded_layers): only the position
   * table and the final norm stay gathered, 1,050,624; the two are
   * gathered again for their backward like the layers. */
  model.tied_embeddings = false;
  t.fsdp_embedding_units = true;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 4 * (3 * (P + 33554432) - 1050624), 1e-12);
  t.fsdp_embedding_units = false;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 4 * (3 * (P + 33554432) - (R + 33554432)), 1e-12);
  model.tied_embeddings = true;
  t.fsdp = HR_FSDP_NONE;
  t.zero_stage = 3;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, 4 * 3 * P, 1e-12);
  t.zero_stage = 0;

  /* Under a pipeline (2 stages, 2 GPUs a node, DP 2, still 4
   * micro-batches) a stage keeps its parameters gathered through the step
   * and reduce-scatters once: a stage's share, P/2, gathered once and
   * reduced once, 2 · ½ · 2 B · P/2 = P, where the micro-batches' gathers
   * would be 4 · 3 · P/2 without it. */
  t.fsdp = HR_FSDP_FULL;
  t.gpus_per_node = 2;
  t.pipeline_parallel = 2;
  step_ok (&model, &t, &gpu, &as, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].bytes, P, 1e-12);
}

/* CP 2 in one node: each rank sends its K and V block, 512 tokens × 2 ×
 * 1024 × 2 bytes, c − 1 = 1 hop forward and, in the backward, one message
 * with the block and its gradient, per layer. */
static void
test_context_parallel (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  double block = 512.0 * 2 * 1024 * 2, L = 2;

  toy_model (&model);
  toy_gpu (&gpu);
  toy_training (&t);
  t.gpus_per_node = 2;
  t.context_parallel = 2;
  step_ok (&model, &t, &gpu, NULL, &step);

  assert_close (step.comm[HR_PLAN_COMM_CP].bytes, L * 3 * block, 1e-12);
  assert_close (step.comm[HR_PLAN_COMM_CP].seconds, L * (3 * block / 80e9 + 2 * 3.4e-6), 1e-9);
}

/* The rate at a length interpolates in log2 of the length, and context
 * parallelism blends two kernels. Tables: forward and backward 100, 200,
 * 300, 400, 500, 600 TFLOP/s at 512…16k tokens, causal forward half that.
 * s = 4096 over CP 2, causal: each rank runs 1/c of its core under the mask
 * at s/c = 2048 tokens (forward 150, backward 300 × 150/300 = 150) and the
 * rest unmasked at s/(2c) = 1024 (200 both ways). Causal core FLOPs per
 * rank: forward 2·2·s·(s/2)·h per layer × 2 layers / c = 2s²h = 3.44e10,
 * backward twice that. The no-table run prices them at 75 (full tiles:
 * 2048 × 4096 × 128 and 2048 × 128 × 4096). A 1448-token sequence, about
 * √2 past 1024, sits about halfway: 200 + log2(1448/1024) × 100 ≈ 250. */
static void
test_attention_context_parallel (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep gemm, kernel;
  double s = 4096, h = 1024;
  double fwd = 2 * s * s * h, bwd = 2 * fwd;
  double spf = 0.5 / 150e12 + 0.5 / 200e12;

  toy_model (&model);
  model.max_positions = 4096;
  toy_gpu (&gpu);
  toy_training (&t);
  t.attention = HR_ATTENTION_FLASH;
  t.causal = true;
  t.seq_len = 4096;
  t.gpus_per_node = 2;
  t.context_parallel = 2;
  step_ok (&model, &t, &gpu, NULL, &gemm);
  for (int i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
    {
      gpu.attention_fwd_flops[i] = gpu.attention_bwd_flops[i] = 100e12 * (i + 1);
      gpu.attention_fwd_causal_flops[i] = 50e12 * (i + 1);
    }
  step_ok (&model, &t, &gpu, NULL, &kernel);
  assert_close (kernel.split.compute - gemm.split.compute,
                (fwd + bwd) * spf - (fwd + bwd) / 75e12, 1e-9);

  /* One GPU, no mask, 1448 tokens: core FLOPs 2 · 4·s²·h at ≈ 250. */
  t.causal = false;
  t.seq_len = 1448;
  t.gpus_per_node = 1;
  t.context_parallel = 1;
  step_ok (&model, &t, &gpu, NULL, &kernel);
  for (int i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
    gpu.attention_fwd_flops[i] = gpu.attention_bwd_flops[i] = gpu.attention_fwd_causal_flops[i] = 0;
  step_ok (&model, &t, &gpu, NULL, &gemm);
  fwd = 2 * 4 * 1448.0 * 1448.0 * h;
  /* Without tables: QKᵀ 1448 × 1448 × 128 fills 1448/1536 of its tiles
   * twice; attention over V, 1448 × 128 × 1448, 1448/1536 of m and k/64
   * 1448/1472 of k. */
  assert_close (kernel.split.compute - gemm.split.compute,
                3 * fwd / (200e12 + log2 (1448.0 / 1024) * 100e12)
                - 3 * fwd / 2 / (75e12 * pow (1448.0 / 1536, 2))
                - 3 * fwd / 2 / (75e12 * (1448.0 / 1536) * (1448.0 / 1472)), 1e-9);
}

/* Stages that do not divide the layers: 3 layers on 2 stages split as
 * torchtitan splits them (the embedding and the output count as a layer
 * each: 5 units, 3 and 2), 2 layers on the first stage, 1 and the LM head on
 * the last. 1F1B runs at the slower one's pace. A layer's products are
 * 3 · T · (24h² + 4sh) FLOPs forward and backward (T = s = h = 1024), the
 * head's 3 · T · 2hV, at 75 TFLOP/s: with V = 32768 the last stage (one
 * layer and a head of 2.3 layers' FLOPs) paces; with V = 128 the first. */
static void
test_uneven_stages (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  double h = 1024, T = 1024, layer = 3 * T * (24 * h * h + 4 * 1024 * h);

  toy_model (&model);
  model.n_layers = 3;
  toy_gpu (&gpu);
  toy_training (&t);
  t.gpus_per_node = 2;
  t.pipeline_parallel = 2;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.split.compute, (layer + 3 * T * 2 * h * 32768) / 75e12, 1e-12);

  model.vocab_size = 128;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.split.compute, 2 * layer / 75e12, 1e-12);

  /* Interleaved, 5 layers on 2 ranks × 2 stages (torchtitan's split of 7
   * units: the embedding and 1 layer, 2, 2, the output): rank 0 runs
   * stages 0 and 2, 3 layers; rank 1 stages 1 and 3, 2 layers and the
   * head. Each rank runs all its chunks of each of the m = 2 micro-batches:
   * the slower sets the pace, rank 1 with the 32,768-word head, rank 0
   * with a 128-word one. */
  model.n_layers = 5;
  model.vocab_size = 32768;
  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  t.virtual_stages = 2;
  t.global_batch = 2;
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 0), ==, 3);
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 1), ==, 2);
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.split.compute, 2 * (2 * layer + 3 * T * 2 * h * 32768) / 75e12, 1e-12);
  model.vocab_size = 128;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.split.compute, 2 * 3 * layer / 75e12, 1e-12);
}

/* A ring across nodes runs one channel per network card, a card per GPU:
 * DP 16 over 2 nodes of 8 has 8 members per node, so each rank moves at
 * min(8 × 10, 100) × 0.8 = 64 GB/s; with TP 8 each DP group has one member
 * per node and gets its own card, 10 × 0.8 = 8 GB/s. ZeRO 0 all-reduces
 * the 16-bit gradients, not overlapped: 2 · ((n − 1)/n · bytes / B + the
 * steps' latency), of whose n − 1 steps nodes − 1 cross the network (the
 * GPU's 10 µs) and the others NVLink (3.4 µs; NCCL's tuning.cc counts
 * them so). */
static void
test_network_cards (void)
{
  HrModel model;
  HrParams params;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  double P;

  toy_model (&model);
  g_assert_cmpint (hr_model_params (&model, &params, NULL), ==, HR_OK);
  P = (double) params.total;
  toy_gpu (&gpu);
  toy_training (&t);
  t.nodes = 2;
  t.gpus_per_node = 8;
  t.global_batch = 16;
  t.overlap = false;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].seconds, 2 * (15.0 / 16 * 2 * P / 64e9 + 1e-5 + 14 * 3.4e-6), 1e-9);
  /* A GPU without a network latency takes NCCL's ring step over the
   * network, 14 µs (tuning.cc, hwLat NET Ring Simple). */
  gpu.inter_node_latency = 0;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].seconds, 2 * (15.0 / 16 * 2 * P / 64e9 + 14e-6 + 14 * 3.4e-6), 1e-9);
  gpu.inter_node_latency = 1e-5;
  /* 16 sequences of 1,024 tokens a step over 16 GPUs: 1,024 tokens per
   * GPU a step, what each rank logs. */
  assert_close (step.tokens_per_second_per_gpu, 1024 / step.step_seconds, 1e-12);

  t.tensor_parallel = 8;
  t.global_batch = 2;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.comm[HR_PLAN_COMM_DP].seconds, 2 * (0.5 * 2 * P / 8 / 8e9 + 1e-5), 1e-9);
}

/* EP 2 over 4 experts, 2 per token: each pass dispatches and combines every
 * token copy, T·k·h·2 = 1024·2·1024·2 bytes, half of them leaving the GPU:
 * per MoE layer 2 passes × 2 all-to-alls × 2 MiB. */
static void
test_expert_parallel (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  double volume = 1024.0 * 2 * 1024 * 2, L = 2;
  double sent = 2 * volume * 0.5;

  toy_model (&model);
  model.n_experts = 4;
  model.experts_per_token = 2;
  model.expert_ffn_size = 1024;
  toy_gpu (&gpu);
  toy_training (&t);
  t.gpus_per_node = 2;
  t.global_batch = 2;
  t.expert_parallel = 2;
  step_ok (&model, &t, &gpu, NULL, &step);

  assert_close (step.comm[HR_PLAN_COMM_EP].bytes, L * 2 * sent, 1e-12);
  assert_close (step.comm[HR_PLAN_COMM_EP].seconds, L * 2 * (sent / 80e9 + 2 * 3.4e-6), 1e-9);
  assert_close (step.comm[HR_PLAN_COMM_EP].exposed, step.comm[HR_PLAN_COMM_EP].seconds, 1e-12);
}

/* The toy with 4 layers on a 2-stage pipeline in one node, 4 micro-batches,
 * sends that cost nothing: what the bubble tests share. */
static void
pipeline_toy (HrModel           *model,
              HrGpu             *gpu,
              HrPlanAssumptions *as,
              HrTraining        *t)
{
  toy_model (model);
  model->n_layers = 4;
  toy_gpu (gpu);
  gpu->intra_node_bandwidth = 1e30;
  hr_plan_assumptions_init (as);
  as->intra_node_latency = 0;
  toy_training (t);
  t->gpus_per_node = 2;
  t->pipeline_parallel = 2;
  t->global_batch = 4;
}

/* The pipeline bubble is (p − 1) micro-batch times, (p − 1)/v interleaved
 * (Narayanan et al. 2021 §2.2): the same for 4 or 8 micro-batches, halved
 * by two virtual stages when sends cost nothing. */
static void
test_bubble (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep four, eight, interleaved;
  HrPlanAssumptions as;

  pipeline_toy (&model, &gpu, &as, &t);
  step_ok (&model, &t, &gpu, &as, &four);
  t.global_batch = 8;
  step_ok (&model, &t, &gpu, &as, &eight);
  t.global_batch = 4;
  t.virtual_stages = 2;
  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  step_ok (&model, &t, &gpu, &as, &interleaved);

  g_assert_cmpfloat (four.split.bubble, >, 0);
  assert_close (eight.split.bubble, four.split.bubble, 1e-9);
  assert_close (interleaved.split.bubble, four.split.bubble / 2, 1e-9);
  g_assert_cmpint (four.micro_batches, ==, 4);
  /* One micro-batch through two stages: half the step idles. */
  t.global_batch = 1;
  t.virtual_stages = 1;
  t.pipeline_schedule = HR_PIPELINE_1F1B;
  step_ok (&model, &t, &gpu, &as, &four);
  g_assert_cmpint (four.bound, ==, HR_PLAN_BOUND_BUBBLE);
}

/* ZB-H1 (Qi et al. 2024, §2.1): the bubble is (p − 1)(T_F + T_B − T_W)
 * against 1F1B's (p − 1)(T_F + T_B + T_W), with the same memory. The toy
 * with 4 layers on 2 stages, 4 micro-batches of T = 1,024 tokens, free sends,
 * compute-bound at 75 TFLOP/s. Per token, in units of h² = 2^20 FLOPs
 * (s = h), one layer's forward is 24 (q, k, v, out, MLP) + 4 (QKᵀ and over
 * V) = 28; B, the input gradients, 24 + 8; W, the weight gradients, 24 (the
 * attention core has no weights); the LM head's 2hV = 64 each way. The
 * average rank holds 2 layers and half the head: F = 56 + 32 = 88, B = 64 +
 * 32 = 96, W = 48 + 32 = 80. One unit of a micro-batch is 1,024 · 2^20 /
 * 7.5e13 = 1.43165576533e-5 s: 1F1B's bubble (p − 1)·264 units =
 * 3.77957122048e-3 s, ZB-H1's 104 units = 1.48892199594e-3 s, 2W = 160
 * units = 2.29064922453e-3 s less (the memory-bound kernels at 8e17 B/s
 * add under 2e-9 s, 2e-6 of the bubbles). */
static void
test_zero_bubble (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep one_f_one_b, zero_bubble;
  HrPlanAssumptions as;
  HrTrainingMemory memory_1f1b, memory_zb;
  HrError err = { 0 };

  pipeline_toy (&model, &gpu, &as, &t);
  step_ok (&model, &t, &gpu, &as, &one_f_one_b);
  g_assert_cmpint (hr_training_memory (&model, &t, &gpu, &memory_1f1b, &err), ==, HR_OK);
  t.pipeline_schedule = HR_PIPELINE_ZB_H1;
  step_ok (&model, &t, &gpu, &as, &zero_bubble);
  g_assert_cmpint (hr_training_memory (&model, &t, &gpu, &memory_zb, &err), ==, HR_OK);

  assert_close (one_f_one_b.split.bubble, 3.77957122048e-3, 2e-6);
  assert_close (zero_bubble.split.bubble, 1.48892199594e-3, 2e-6);
  assert_close (one_f_one_b.step_seconds - zero_bubble.step_seconds, 2.29064922453e-3, 2e-6);
  g_assert_cmpfloat (zero_bubble.split.compute, ==, one_f_one_b.split.compute);
  g_assert_cmpfloat (memory_zb.total, ==, memory_1f1b.total);
  g_assert_cmpfloat (memory_zb.activations, ==, memory_1f1b.activations);
  /* The estimate's information line takes the paper's equal thirds:
   * (p − 1)/(3m) = 1/12. */
  {
    HrTrainingTime time;

    g_assert_cmpint (hr_training_time (&model, &t, &gpu, &time, &err), ==, HR_OK);
    assert_close (time.bubble_fraction, 1.0 / 12.0, 1e-12);
  }
  /* PyTorch's pipelining runs zero-bubble schedules only over virtual stages. */
  t.torch_pipelining = true;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "pipeline_schedule");
}

/* Context parallel by PyTorch's context_parallel() (torchtitan), against
 * Megatron's ring, on the toy with 2 key/value heads, CP 4 on 4 GPUs of one
 * node, flash attention, causal, 1.6e12 B/s sustained (2e12 × 0.8).
 * Local tokens T = 1,024 / 4 = 256; the output and the expanded K and V
 * have E = T · 8 heads · 128 = 262,144 elements each, a = 2 bytes.
 * Merges and accumulation per layer (torch_ring_bytes, c = 4):
 *   forward  E · (4a + 3·4a + (a + 4) + 3·(a + 4 + 32) + (4 + a))
 *          = E · (8 + 24 + 6 + 114 + 6) = 158 E;
 *   backward E · (12 + 4a + 3·4a + 3·(8 + a) + 3·(2·(8 + a) + 16) + 16·4
 *               + (4 + a) + (8 + 2a))
 *          = E · (12 + 8 + 24 + 30 + 108 + 64 + 6 + 12) = 264 E;
 * two layers: 2 · 422 · 262,144 B / 1.6e12 B/s = 1.3828096e-4 s more
 * memory-bound time (one micro-batch: DP 1, global batch 1).
 * Bytes sent per GPU: torch all-gathers the expanded block, T · 2 · 1,024 ·
 * 2 B = 1,048,576, once forward and once backward (3 blocks each), and
 * sends the fp32 K/V gradients at each of the 4 steps (2,097,152 B):
 * 2 · (2 · 3 · 1,048,576 + 4 · 2,097,152) = 29,360,128. Megatron's ring
 * passes the 2 heads' block, 256 · 2 · 256 · 2 = 262,144 B, three times per
 * hop over 3 hops: 2 · 9 · 262,144 = 4,718,592. */
static void
test_torch_context_parallel (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep megatron, torch;

  toy_model (&model);
  model.n_kv_heads = 2;
  toy_gpu (&gpu);
  gpu.memory_bandwidth = 2e12;
  toy_training (&t);
  t.gpus_per_node = 4;
  t.context_parallel = 4;
  t.attention = HR_ATTENTION_FLASH;
  t.causal = true;
  step_ok (&model, &t, &gpu, NULL, &megatron);
  t.torch_context_parallel = true;
  step_ok (&model, &t, &gpu, NULL, &torch);

  assert_close (torch.split.memory_bound - megatron.split.memory_bound, 1.3828096e-4, 1e-9);
  g_assert_cmpfloat (megatron.comm[HR_PLAN_COMM_CP].bytes, ==, 4718592);
  g_assert_cmpfloat (torch.comm[HR_PLAN_COMM_CP].bytes, ==, 29360128);
  /* Without context parallelism the setting changes nothing. */
  t.context_parallel = 1;
  t.gpus_per_node = 1;
  step_ok (&model, &t, &gpu, NULL, &torch);
  t.torch_context_parallel = false;
  step_ok (&model, &t, &gpu, NULL, &megatron);
  g_assert_cmpfloat (torch.step_seconds, ==, megatron.step_seconds);
}

/* FSDP's copies on the compute stream (docs/planner.md, "FSDP2's copies"),
 * FULL_SHARD over 2 GPUs, bf16 working copies, fp32 reduce, one
 * micro-batch, at 1 TB/s × 0.8.
 * - FSDP2: the rank's P parameters are gathered in the forward and again in
 *   the backward but for the last block and the root, G = 2P − layer −
 *   outside, each gathered element read and written in bf16 (4 bytes);
 *   every gradient read in bf16 and written in fp32 into the
 *   reduce-scatter buffer (6 bytes). SHARD_GRAD_OP gathers P once. Two
 *   micro-batches under no_sync: 2G gathered, and each gradient cast once
 *   (6), added once (2 + 8) and copied in once (8), 24 bytes.
 * - FSDP1: the backward concatenates the views' bf16 gradients into the
 *   flat parameter's, read and written: 4 bytes a micro-batch, whatever the
 *   sharding. Each reduction then casts the bf16 gradient to fp32 (2 + 4)
 *   and divides it by the predivide factor in place (4 + 4); over 2 ranks
 *   that factor is 2 and the postdivide 1, so no second division: 4 + 14 =
 *   18 bytes. Under no_sync the second micro-batch's is added to the kept
 *   one (2 + 2 read, 2 written) and the sum reduced once: 4 + 4 + 6 + 14 =
 *   28 bytes. Over 8 ranks the factors are 4 and 2: the shard, an eighth,
 *   is divided too (8 / 8), and with a reduction in each of two
 *   micro-batches the second shard is added to the first (3 · 4 / 8):
 *   2 · 4 + 2 · 15 + 1.5 = 39.5 bytes.
 * - Megatron FSDP keeps its gradients in its own buffers: no FSDP1 passes.
 * One data-parallel rank copies nothing. */
static double
fsdp_copies (const HrModel *model,
             HrTraining    *t,
             const HrGpu   *gpu,
             bool           fsdp2)
{
  HrPlanStep step;

  t->fsdp2 = fsdp2;
  step_ok (model, t, gpu, NULL, &step);
  return step.fsdp_copies;
}

static void
test_fsdp_copies (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrTrainingRank rank;
  HrError err = { 0 };
  double P, G;

  toy_model (&model);
  toy_gpu (&gpu);
  gpu.memory_bandwidth = 1e12;
  toy_training (&t);
  t.gpus_per_node = 2;
  t.global_batch = 2;
  t.fsdp = HR_FSDP_FULL;
  t.fp32_gradients = true;
  g_assert_cmpint (hr_training_rank (&model, &t, 0, &rank, &err), ==, HR_OK);
  P = (double) rank.params;
  G = 2 * P - (double) rank.largest_layer - (double) rank.outside_layers;

  assert_close (fsdp_copies (&model, &t, &gpu, true), (4 * G + 6 * P) / 0.8e12, 1e-9);
  assert_close (fsdp_copies (&model, &t, &gpu, false), 18 * P / 0.8e12, 1e-9);
  t.megatron_fsdp = true;
  g_assert_cmpfloat (fsdp_copies (&model, &t, &gpu, false), ==, 0);
  {
    HrTrainingMemory refused;

    t.fsdp2 = true;
    g_assert_cmpint (hr_training_memory (&model, &t, &gpu, &refused, &err), ==,
                     HR_ERROR_UNSUPPORTED);
    g_assert_cmpstr (err.field, ==, "megatron_fsdp");
    t.fsdp2 = false;
  }
  t.megatron_fsdp = false;
  t.fsdp = HR_FSDP_GRAD_OP;
  assert_close (fsdp_copies (&model, &t, &gpu, true), (4 * P + 6 * P) / 0.8e12, 1e-9);
  assert_close (fsdp_copies (&model, &t, &gpu, false), 18 * P / 0.8e12, 1e-9);
  t.fsdp = HR_FSDP_FULL;
  t.global_batch = 4;
  t.no_sync = true;
  assert_close (fsdp_copies (&model, &t, &gpu, true), (2 * 4 * G + 24 * P) / 0.8e12, 1e-9);
  assert_close (fsdp_copies (&model, &t, &gpu, false), 28 * P / 0.8e12, 1e-9);
  t.gpus_per_node = 8;
  t.global_batch = 16;
  t.no_sync = false;
  assert_close (fsdp_copies (&model, &t, &gpu, false), 39.5 * P / 0.8e12, 1e-9);
  t.gpus_per_node = 1;
  t.global_batch = 1;
  t.no_sync = false;
  g_assert_cmpfloat (fsdp_copies (&model, &t, &gpu, true), ==, 0);
  g_assert_cmpfloat (fsdp_copies (&model, &t, &gpu, false), ==, 0);
}

/* NCCL holds two SMs a network card while a collective crosses nodes
 * (docs/planner.md, "SMs that collectives hold"). On the toy, DP 2 over two
 * nodes all-reduces 2P bytes at 8 GB/s, 15 ms, longer than the layers'
 * backward it hides behind: 2 · T · L · (24h² + 4sh) FLOPs = 2 · 1024 · 2 ·
 * (25,165,824 + 4,194,304) = 120,259,084,288 at 0.75 × 100 TFLOP/s,
 * 1.6035 ms (the memory-bound kernels run at 1e18 B/s: under 2e-9 s, held
 * to 2e-6 of it). With 100 SMs the
 * ring of one card holds 2 of them: 0.02 × 1.6035 ms waits. Two GPUs a node
 * drive two cards: 0.04 × the same. Without the SM count or without
 * overlap nothing waits; hybrid FSDP's rings across nodes have one rank a
 * node, 2 SMs, and its shards within a node run on the GPU's NVLink
 * channels (2 here): 0.02 of all that is hidden. Within one node the
 * channels hold: 24 of 100 SMs for what of the all-reduce is hidden, none
 * where the GPU has no count. */
static void
test_nccl_sms (void)
{
  HrModel model;
  HrGpu gpu;
  HrTraining t;
  HrPlanStep step;
  double backward = 120259084288.0 / 7.5e13;

  toy_model (&model);
  toy_gpu (&gpu);
  gpu.sm_count = 100;
  toy_training (&t);
  t.nodes = 2;
  t.global_batch = 2;
  t.overlap = true;

  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.nccl_sm_share, 0.02, 1e-12);
  assert_close (step.comm[HR_PLAN_COMM_DP].seconds - step.comm[HR_PLAN_COMM_DP].exposed,
                backward, 2e-6);
  assert_close (step.nccl_sms, 0.02 * backward, 2e-6);
  assert_close (step.split.communication, step.comm[HR_PLAN_COMM_DP].exposed + step.nccl_sms, 1e-12);

  t.gpus_per_node = 2;
  t.global_batch = 4;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.nccl_sm_share, 0.04, 1e-12);
  assert_close (step.nccl_sms, 0.04 * backward, 2e-6);

  /* Hybrid FSDP: the cross-node all-reduce of a shard, one rank a node. */
  t.fsdp = HR_FSDP_HYBRID;
  gpu.nvlink_nccl_channels = 2;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.nccl_sm_share, 0.02, 1e-12);
  assert_close (step.nccl_sms,
                0.02 * (step.comm[HR_PLAN_COMM_DP].seconds - step.comm[HR_PLAN_COMM_DP].exposed),
                1e-12);
  gpu.nvlink_nccl_channels = 0;
  t.fsdp = HR_FSDP_NONE;

  t.overlap = false;
  step_ok (&model, &t, &gpu, NULL, &step);
  g_assert_cmpfloat (step.nccl_sms, ==, 0);
  t.overlap = true;

  gpu.sm_count = 0;
  step_ok (&model, &t, &gpu, NULL, &step);
  g_assert_cmpfloat (step.nccl_sms, ==, 0);
  gpu.sm_count = 100;

  t.nodes = 1;
  t.global_batch = 2;
  step_ok (&model, &t, &gpu, NULL, &step);
  g_assert_cmpfloat (step.comm[HR_PLAN_COMM_DP].seconds, >, 0);
  g_assert_cmpfloat (step.nccl_sms, ==, 0);
  gpu.nvlink_nccl_channels = 24;
  step_ok (&model, &t, &gpu, NULL, &step);
  assert_close (step.nccl_sm_share, 0.24, 1e-12);
  assert_close (step.nccl_sms,
                0.24 * (step.comm[HR_PLAN_COMM_DP].seconds - step.comm[HR_PLAN_COMM_DP].exposed),
                1e-12);
  g_assert_cmpfloat (step.nccl_sms, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/planner/step/tensor-parallel", test_tensor_parallel);
  g_test_add_func ("/planner/step/async-tensor-parallel", test_async_tensor_parallel);
  g_test_add_func ("/planner/step/data-parallel", test_data_parallel);
  g_test_add_func ("/planner/step/context-parallel", test_context_parallel);
  g_test_add_func ("/planner/step/attention-context-parallel", test_attention_context_parallel);
  g_test_add_func ("/planner/step/network-cards", test_network_cards);
  g_test_add_func ("/planner/step/torch-context-parallel", test_torch_context_parallel);
  g_test_add_func ("/planner/step/fsdp-copies", test_fsdp_copies);
  g_test_add_func ("/planner/step/nccl-sms", test_nccl_sms);
  g_test_add_func ("/planner/step/uneven-stages", test_uneven_stages);
  g_test_add_func ("/planner/step/expert-parallel", test_expert_parallel);
  g_test_add_func ("/planner/step/bubble", test_bubble);
  g_test_add_func ("/planner/step/zero-bubble", test_zero_bubble);

  return g_test_run ();
}
