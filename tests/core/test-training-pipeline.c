/* test-training-pipeline.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Training pipelines: uneven stages, the interleaved schedule and
 * torch.distributed.pipelining. Every expected value is derived by hand in
 * the comment beside it.
 */

#include "test-training.h"

static void
test_uneven_pipeline (void)
{
  /* Llama 3.1 405B's 126 layers on 8 stages: torchtitan counts the
   * embedding and the output as a layer each, 128 units, 16 a stage: the
   * first and last stages hold 15 layers, the six others 16. */
  HrTrainingRank rank;
  HrTrainingMemory m;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama_like (&model, 126, 1024, 8, 8, 2048, 1000);
  hr_training_init (&t);
  t.pipeline_parallel = 8;
  g_assert_cmpint (hr_training_rank (&model, &t, 0, &rank, &err), ==, HR_OK);
  g_assert_cmpint (rank.layers, ==, 15);
  g_assert_cmpint (hr_training_rank (&model, &t, 3, &rank, &err), ==, HR_OK);
  g_assert_cmpint (rank.layers, ==, 16);
  g_assert_cmpint (hr_training_rank (&model, &t, 7, &rank, &err), ==, HR_OK);
  g_assert_cmpint (rank.layers, ==, 15);

  /* Megatron's first and last stage sizes: 32 layers on 4 stages, 6 on the
   * first and the last, 20 / 2 = 10 on each of the others. Under 1F1B with
   * 8 micro-batches, stage 1 holds 3 micro-batches of 10 layers (30 layer
   * activations) against stage 0's 4 of 6 (24): it is the one reported. */
  llama_like (&model, 32, 1024, 8, 8, 2048, 1000);
  hr_training_init (&t);
  t.nodes = 1;
  t.gpus_per_node = 4;
  t.pipeline_parallel = 4;
  t.global_batch = 8;
  t.pp_first_stage_layers = 6;
  t.pp_last_stage_layers = 6;
  g_assert_cmpint (hr_training_rank (&model, &t, 1, &rank, &err), ==, HR_OK);
  g_assert_cmpint (rank.layers, ==, 10);
  g_assert_cmpint (hr_training_rank (&model, &t, 3, &rank, &err), ==, HR_OK);
  g_assert_cmpint (rank.layers, ==, 6);
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.pipeline_stage, ==, 1);
  g_assert_cmpint (m.activation.layers, ==, 10);
  g_assert_cmpfloat (m.micro_batches_in_flight, ==, 3);

  /* 7 and 6 leave 19 layers, which 2 stages cannot share. */
  t.pp_first_stage_layers = 7;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "pp_first_stage_layers");
}

static void
test_interleaved_uneven (void)
{
  /* Llama 3.1 405B's 126 layers on 8 ranks × 2 stages (torchtitan's
   * Interleaved1F1B default): 128 units on 16 stages, 8 a stage, so stage 0
   * holds the embedding and 7 layers, stages 1–14 8 layers, stage 15 7
   * layers and the output. Rank r runs stages r and r + 8: ranks 0 and 7
   * hold 7 + 8 = 15 layers, ranks 1–6 16. */
  HrTrainingActivations last;
  HrTrainingMemory m;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;
  double pl;

  llama_like (&model, 126, 1024, 8, 8, 2048, 1000);
  hr_training_init (&t);
  t.nodes = 1;
  t.gpus_per_node = 8;
  t.pipeline_parallel = 8;
  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  t.virtual_stages = 2;
  t.seq_len = 4096;
  t.global_batch = 8;
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 0), ==, 15);
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 1), ==, 16);
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 6), ==, 16);
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 7), ==, 15);

  /* m = 8 micro-batches. Rank 1 warms up with min((v − 1)·pp + 2(pp − 2),
   * m·v) = min(20, 16) = 16 forwards: all of them, 8 micro-batches of its
   * 16 layers in flight, the most loaded rank. */
  round_gpu (&gpu);
  gpu.memory_bytes = 1e15;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.pipeline_stage, ==, 1);
  g_assert_cmpint (m.rank.layers, ==, 16);
  pl = m.activation.per_layer;
  assert_near (8 * 16 * pl, m.activations, 1e-12);
  g_assert_cmpfloat (m.micro_batches_in_flight, ==, 8);

  /* torch.distributed.pipelining, each of the rank's two stages a
   * PipelineStage: its 8 outputs kept, 8 gradient and 8 input receive
   * buffers, the inputs of the 8 micro-batches in flight being the first
   * layers' saved inputs: 16 + 16 + 16 − 16 = 32 boundaries of 4096 · 1024
   * · 2 B at the end of the forward. */
  {
    HrTrainingMemory on;

    t.torch_pipelining = true;
    memory_ok (&model, &t, &gpu, &on);
    t.torch_pipelining = false;
    g_assert_cmpint (on.pipeline_stage, ==, 1);
    assert_near (32 * 4096.0 * 1024 * 2, on.peak_forward - m.peak_forward, 1e-9);
  }

  /* A 256,000-word vocabulary makes the last rank the most loaded. It
   * warms up with (v − 1)·pp = 8 forwards, chunk 0 (stage 7, 8 layers)
   * for micro-batches 0–7; then each forward of chunk 1 (stage 15: 7
   * layers, the norm, the head and the loss) is followed by its backward:
   * 8 micro-batches of chunk 0 and one of chunk 1 at the peak, where the
   * even-chunk count (W + 1)/v = 4.5 micro-batches of the whole rank would
   * hold 4.5 losses. */
  llama_like (&model, 126, 1024, 8, 8, 2048, 256000);
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.pipeline_stage, ==, 7);
  g_assert_cmpint (hr_training_activations (&model, &t, 7, &last, &err), ==, HR_OK);
  pl = last.per_layer;
  assert_near (8 * 8 * pl + 7 * pl + last.final_norm + last.lm_head + last.loss,
               m.activations, 1e-12);

  /* Megatron's first and last stage sizes, each rank's layers in 2 equal
   * chunks: 32 layers as 6, 10, 10, 6 give rank 1 chunks of 5 layers. */
  llama_like (&model, 32, 1024, 8, 8, 2048, 1000);
  t.gpus_per_node = 4;
  t.pipeline_parallel = 4;
  t.pp_first_stage_layers = 6;
  t.pp_last_stage_layers = 6;
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 0), ==, 6);
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 1), ==, 10);
  g_assert_cmpint (hr_training_stage_layers (&t, &model, 3), ==, 6);
}

static void
test_interleaved_fsdp (void)
{
  /* FSDP under the interleaved schedule: each of a rank's stages reduces
   * and frees its unsharded gradients at its own last backward
   * (backward_maybe_with_nosync). 32 layers on 4 ranks × 2 stages of 4,
   * FSDP over dp = 2. With m = pp = 4 micro-batches, rank 0 runs stage 4's
   * backwards for all 4, then stage 0's: it holds stage 0's unsharded
   * gradients (4 layers and the embedding, c0 parameters) with stage 4's
   * shards (4 layers, c1 / 2); with m = 8 the two windows overlap and it
   * holds both unsharded: G (c0 + c1 / 2) / (c0 + c1) against G. */
  HrTrainingRank r0, r1;
  HrTrainingMemory one, two;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;
  double layer, c0, c1;

  llama_like (&model, 32, 1024, 8, 8, 2048, 1000);
  hr_training_init (&t);
  t.nodes = 1;
  t.gpus_per_node = 8;
  t.pipeline_parallel = 4;
  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  t.virtual_stages = 2;
  t.zero_stage = 0;
  t.fsdp = HR_FSDP_FULL;
  t.seq_len = 1024;
  t.global_batch = 8;
  round_gpu (&gpu);
  gpu.memory_bytes = 1e15;
  memory_ok (&model, &t, &gpu, &one);
  t.global_batch = 16;
  memory_ok (&model, &t, &gpu, &two);
  g_assert_cmpint (one.pipeline_stage, ==, 0);
  g_assert_cmpint (two.pipeline_stage, ==, 0);

  g_assert_cmpint (hr_training_rank (&model, &t, 0, &r0, &err), ==, HR_OK);
  g_assert_cmpint (hr_training_rank (&model, &t, 1, &r1, &err), ==, HR_OK);
  layer = (double) r1.params / 8;
  c1 = 4 * layer;
  c0 = (double) r0.params - c1;
  assert_near (two.gradients * (c0 + c1 / 2) / (c0 + c1), one.gradients, 1e-12);
}

static void
test_torch_pipelining (void)
{
  /* torch.distributed.pipelining (stage.py): each micro-batch's stage output
   * stays in fwd_cache until its backward, and the stage allocates one
   * receive buffer per micro-batch, for its output's gradient (all but the
   * last stage) and for its input (all but the first). 32 layers on 4
   * stages of 6, 10, 10, 6 (Megatron's sizes), 8 micro-batches of 1 × 4096
   * tokens, bf16: a stage boundary is 4096 · 1024 · 2 B = 8 MiB. Stage 1
   * (3 micro-batches in flight under 1F1B) is reported either way. */
  const double boundary = 4096.0 * 1024 * 2;
  HrTrainingActivations act;
  HrTrainingMemory off, on;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama_like (&model, 32, 1024, 8, 8, 2048, 1000);
  hr_training_init (&t);
  t.nodes = 1;
  t.gpus_per_node = 4;
  t.pipeline_parallel = 4;
  t.global_batch = 8;
  t.pp_first_stage_layers = 6;
  t.pp_last_stage_layers = 6;
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &off);
  t.torch_pipelining = true;
  memory_ok (&model, &t, &gpu, &on);
  g_assert_cmpint (off.pipeline_stage, ==, 1);
  g_assert_cmpint (on.pipeline_stage, ==, 1);
  g_assert_cmpfloat (on.micro_batches_in_flight, ==, 3);
  g_assert_cmpfloat (on.activation.stage_output, ==, boundary);

  /* End of the forward: 3 outputs in flight, 8 gradient buffers, and 8
   * input buffers of which the 3 in flight are the first layer's saved
   * inputs, already counted: 3 + 8 + 5 = 16 boundaries; and output_chunks
   * keeps every output until the step ends: by the last forward of 1F1B's
   * steady state, 8 − 3 = 5 more. 21 boundaries. */
  g_assert_cmpfloat (fabs (on.peak_forward - off.peak_forward - 21 * boundary), <, 1);
  /* The first layer's backward: 2 other micro-batches' outputs, the one
   * being backpropagated (held by backward_one_chunk), the 13 buffers and
   * the 5 kept outputs. */
  g_assert_cmpfloat (fabs (on.peak_layer_backward - off.peak_layer_backward - 21 * boundary), <, 1);
  /* The optimizer step: the 13 buffers and all 8 kept outputs. */
  g_assert_cmpfloat (fabs (on.peak_optimizer - off.peak_optimizer - 21 * boundary), <, 1);

  /* The first stage keeps its outputs but receives no input; the last
   * keeps its 16-bit logits, 4096 × 1000 × 2 B. */
  activations_ok (&model, &t, &act);
  g_assert_cmpfloat (act.stage_output, ==, boundary);
  g_assert_cmpint (hr_training_activations (&model, &t, 3, &act, &err), ==, HR_OK);
  g_assert_cmpfloat (act.stage_output, ==, 4096.0 * 1000 * 2);

  /* With 64,000 words the last stage, its logits L = 4096 · 64000 · 2 B a
   * micro-batch, is the most loaded. Its optimizer step has all 8 kept and,
   * before it, step() concatenates them (_merge_outputs): 16 L, with the 8
   * input buffers less the one in flight (7 boundaries). */
  model.vocab_size = 64000;
  t.torch_pipelining = false;
  memory_ok (&model, &t, &gpu, &off);
  t.torch_pipelining = true;
  memory_ok (&model, &t, &gpu, &on);
  g_assert_cmpint (off.pipeline_stage, ==, 3);
  g_assert_cmpint (on.pipeline_stage, ==, 3);
  g_assert_cmpfloat (fabs (on.peak_optimizer - off.peak_optimizer
                           - 16 * 4096.0 * 64000 * 2 - 7 * boundary), <, 1);

  /* Off (Megatron: its schedules free the sent output's data,
   * deallocate_output_tensor with deallocate_pipeline_outputs, which
   * Megatron-LM's training sets), no output is kept. */
  g_assert_cmpfloat (off.activation.stage_output, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/training/pipeline/uneven-stages", test_uneven_pipeline);
  g_test_add_func ("/training/pipeline/torch-pipelining", test_torch_pipelining);
  g_test_add_func ("/training/pipeline/interleaved-uneven", test_interleaved_uneven);
  g_test_add_func ("/training/pipeline/interleaved-fsdp", test_interleaved_fsdp);

  return g_test_run ();
}
