/* test-training.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Training settings and model states: defaults, names and validation, the
 * model states per ZeRO stage, precision and optimizer, and the parameters
 * each rank holds. Every expected value is derived by hand in the comment
 * beside it; the model states are also checked against the ZeRO paper's
 * Figure 1 (tests/data/reference/published.json).
 */

#include "test-training.h"

/* Model states */

static void
test_zero_published (void)
{
  /* ZeRO Figure 1: Ψ = 7.5B, Nd = 64, mixed-precision Adam (K = 12):
   * baseline (2 + 2 + 12)Ψ = 120 GB; Pos 4Ψ + 12Ψ/64 = 31.40625 GB;
   * Pos+g 2Ψ + 14Ψ/64 = 16.640625 GB; Pos+g+p 16Ψ/64 = 1.875 GB. */
  const double expected[] = { 120e9, 31.40625e9, 16.640625e9, 1.875e9 };
  const double published[] = { 120e9, 31.4e9, 16.6e9, 1.9e9 };
  HrTrainingRank rank = { .params = 7500000000 };
  HrTraining t;

  hr_training_init (&t);
  t.nodes = 8;
  t.gpus_per_node = 8;
  for (int stage = 0; stage <= 3; stage++)
    {
      HrTrainingMemory m = { 0 };

      t.zero_stage = stage;
      hr_training_model_states (&t, &rank, &m);
      assert_near (expected[stage], states (&m), 1e-12);
      /* the paper rounds to 0.1 GB */
      g_assert_cmpfloat (fabs (states (&m) - published[stage]), <=, 0.05e9);
    }
}

static void
test_zero_stages (void)
{
  /* P = 1e9 on 8 data-parallel GPUs, bf16-mixed AdamW. Stage 1 shards the
   * optimizer (8 B) and master (4 B): 1e9 + 0.5e9; stage 2 the gradients
   * too: 0.25e9; stage 3 the weights too: 0.25e9. */
  HrTrainingRank rank = { .params = 1000000000 };
  HrTrainingMemory m = { 0 };
  HrTraining t;

  hr_training_init (&t);
  t.zero_stage = 1;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 2e9);
  g_assert_cmpfloat (m.gradients, ==, 2e9);
  g_assert_cmpfloat (m.master_weights, ==, 0.5e9);
  g_assert_cmpfloat (m.optimizer, ==, 1e9);

  t.zero_stage = 2;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 2e9);
  g_assert_cmpfloat (m.gradients, ==, 0.25e9);

  t.zero_stage = 3;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 0.25e9);
  g_assert_cmpfloat (states (&m), ==, 2e9);
}

static void
test_fsdp (void)
{
  /* P = 1e9, 16 B per parameter. FSDP full shard on 8 GPUs = ZeRO-3 less
   * the 16-bit shard FSDP never keeps (it casts the fp32 shard at each
   * all-gather): 14 B / 8 → 1.75e9. Shard-grad-op = ZeRO-2: 2 + 14/8 = 3.75 B
   * → 3.75e9. Hybrid on 2 nodes of 8: sharded over the 8 GPUs of a node
   * only, 1.75e9, where full shard over all 16 gives 14/16 → 0.875e9. */
  HrTrainingRank rank = { .params = 1000000000 };
  HrTrainingMemory m = { 0 };
  HrTraining t;

  hr_training_init (&t);
  t.fsdp = HR_FSDP_FULL;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 0);
  g_assert_cmpfloat (states (&m), ==, 1.75e9);

  t.fsdp = HR_FSDP_GRAD_OP;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (states (&m), ==, 3.75e9);

  t.nodes = 2;
  t.fsdp = HR_FSDP_HYBRID;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (states (&m), ==, 1.75e9);
  t.fsdp = HR_FSDP_FULL;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (states (&m), ==, 0.875e9);
}

static void
test_precisions (void)
{
  /* P = 1e9, AdamW, no sharding. Bytes per parameter
   * (weights, master, gradients, optimizer):
   * fp32 4/0/4/8; bf16-mixed and fp16-mixed 2/4/2/8 ([ZeRO] 16 B);
   * pure bf16 2/0/2/4 (m and v in bf16); fp8-mixed 4/4/2/8 (bf16 weights,
   * Transformer Engine's fp8 cast and its fp8 transpose); fp32 gradients 4;
   * autocast trains fp32 params: 4. */
  static const struct { HrPrecision p; double w, mw, g, o; } cases[] = {
    { HR_PRECISION_FP32, 4, 0, 4, 8 },
    { HR_PRECISION_BF16_MIXED, 2, 4, 2, 8 },
    { HR_PRECISION_FP16_MIXED, 2, 4, 2, 8 },
    { HR_PRECISION_BF16, 2, 0, 2, 4 },
    { HR_PRECISION_FP8_MIXED, 4, 4, 2, 8 },
  };
  HrTrainingRank rank = { .params = 1000000000 };
  HrTrainingMemory m = { 0 };
  HrError err = { 0 };
  HrModel model;
  HrTraining t;

  one_gpu (&t);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      t.precision = cases[i].p;
      hr_training_model_states (&t, &rank, &m);
      g_assert_cmpfloat (m.weights, ==, cases[i].w * 1e9);
      g_assert_cmpfloat (m.master_weights, ==, cases[i].mw * 1e9);
      g_assert_cmpfloat (m.gradients, ==, cases[i].g * 1e9);
      g_assert_cmpfloat (m.optimizer, ==, cases[i].o * 1e9);
    }

  /* fp8 parameters (Megatron's --fp8-param-gather): the Float8Tensor's data
   * and transpose are the weights, 1 + 1 B, no bf16 copy; master, gradients
   * and states as before. */
  t.precision = HR_PRECISION_FP8_MIXED;
  t.fp8_params = true;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 2e9);
  g_assert_cmpfloat (m.master_weights, ==, 4e9);
  g_assert_cmpfloat (m.gradients, ==, 2e9);
  t.fp8_params = false;

  /* torchao's float8 (torchtitan) keeps the bf16 weight alone, its fp8
   * casts made within each product: 2/4/2/8 as bf16-mixed. Under FSDP it
   * keeps only the fp32 shard, as bf16-mixed does: 4e9 ÷ 8 of master
   * weights and no weights. torchao with fp8 parameters is refused. */
  t.fp8_recipe = HR_FP8_RECIPE_TORCHAO;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 2e9);
  g_assert_cmpfloat (m.master_weights, ==, 4e9);
  t.gpus_per_node = 8;
  t.fsdp = HR_FSDP_FULL;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 0);
  g_assert_cmpfloat (m.master_weights, ==, 0.5e9);
  llama_like (&model, 2, 64, 4, 4, 128, 256);
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  t.fp8_params = true;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "fp8_params");
  one_gpu (&t);
  t.precision = HR_PRECISION_BF16_MIXED;

  t.fp32_gradients = true;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.gradients, ==, 4e9);
  t.fp32_gradients = false;
  t.fp32_residual = true;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.gradients, ==, 4e9);
}

static void
test_optimizers (void)
{
  /* P = 1e9, bf16-mixed (fp32 states). AdamW m + v 8 B; 8-bit AdamW 2 B +
   * two fp32 absmax per block of 256 values (bitsandbytes Optimizer8bit):
   * 2 + 8/256 = 2.03125 B; SGD 0;
   * SGD with momentum 4; Lion 4; Adafactor: 4 B per factored element. */
  static const struct { HrOptimizer o; double bytes; } cases[] = {
    { HR_OPTIMIZER_ADAMW, 8e9 },
    { HR_OPTIMIZER_ADAMW_8BIT, 2.03125e9 },
    { HR_OPTIMIZER_SGD, 0 },
    { HR_OPTIMIZER_SGD_MOMENTUM, 4e9 },
    { HR_OPTIMIZER_LION, 4e9 },
    { HR_OPTIMIZER_ADAFACTOR, 4e6 },
  };
  HrTrainingRank rank = { .params = 1000000000, .factored_elements = 1000000 };
  HrTrainingMemory m = { 0 };
  HrTraining t;

  one_gpu (&t);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      t.optimizer = cases[i].o;
      hr_training_model_states (&t, &rank, &m);
      g_assert_cmpfloat (m.optimizer, ==, cases[i].bytes);
    }
}

static void
test_adafactor_shapes (void)
{
  /* Llama-like, 1 layer, h 8, 2 heads of 4 (MHA), ffn 16, vocab 32, untied.
   * Factored elements (rows + cols per matrix, vectors whole):
   * q, k, v, o (8×8): 4·16 = 64; two RMSNorms 2·8 = 16; gate, up, down
   * (8×16): 3·24 = 72; embedding and LM head (32×8): 2·40 = 80; final norm 8.
   * Total 240 → 960 B of fp32 state. */
  HrTrainingMemory m;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama_like (&model, 1, 8, 2, 2, 16, 32);
  one_gpu (&t);
  round_gpu (&gpu);
  t.optimizer = HR_OPTIMIZER_ADAFACTOR;
  t.seq_len = 4;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.rank.factored_elements, ==, 240);
  assert_near (960, m.optimizer, 1e-12);
}

static void
test_offload (void)
{
  /* ZeRO-Offload, P = 1e9, bf16-mixed AdamW: the GPU keeps 16-bit weights and
   * gradients (2e9 each); the CPU holds master 4 + m, v 8 + an fp32 gradient
   * copy 4 = 16e9. With ZeRO-2 on 8 GPUs each holds 1/8 on the CPU: 2e9. */
  HrTrainingRank rank = { .params = 1000000000 };
  HrTrainingMemory m = { 0 };
  HrTraining t;

  one_gpu (&t);
  t.offload_optimizer = true;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.weights, ==, 2e9);
  g_assert_cmpfloat (m.gradients, ==, 2e9);
  g_assert_cmpfloat (m.master_weights, ==, 0);
  g_assert_cmpfloat (m.optimizer, ==, 0);
  g_assert_cmpfloat (m.cpu_bytes, ==, 16e9);

  hr_training_init (&t);
  t.offload_optimizer = true;
  t.zero_stage = 2;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.cpu_bytes, ==, 2e9);
  g_assert_cmpfloat (m.gradients, ==, 0.25e9);
}

static void
test_offload_params (void)
{
  /* Offloaded parameters (FSDP CPU offload, ZeRO-3 offload_param), P = 1e9
   * on 8 GPUs under ZeRO-3, bf16-mixed AdamW: every sharded state goes to
   * the CPU, 16 B × 1e9 ÷ 8 = 2e9 (weights 0.25e9, master 0.5e9, gradients
   * 0.25e9, m and v 1e9), and nothing of them stays on the GPU. With 4
   * accumulation steps the fp32 buffer's shard goes too: 4 × 1e9 ÷ 8. */
  HrTrainingRank rank = { .params = 1000000000 };
  HrTrainingMemory m = { 0 };
  HrError err = { 0 };
  HrModel model;
  HrTraining t;

  hr_training_init (&t);
  t.zero_stage = 3;
  t.global_batch = 8;
  t.offload_params = true;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.cpu_bytes, ==, 2e9);
  g_assert_cmpfloat (m.weights + m.master_weights + m.gradients + m.optimizer, ==, 0);
  t.global_batch = 32;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.cpu_bytes, ==, 2.5e9);
  g_assert_cmpfloat (m.grad_accumulation_buffer, ==, 0);

  /* Only sharded parameters are offloaded. */
  llama_like (&model, 2, 64, 4, 4, 128, 256);
  t.zero_stage = 2;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "offload_params");
  t.zero_stage = 0;
  t.fsdp = HR_FSDP_FULL;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  /* Nor under pipeline parallelism, where FSDP keeps the stage gathered. */
  t.pipeline_parallel = 2;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "offload_params");
}

/* torch's context_parallel() (torchtitan) gathers every rank's K and V
 * again in each layer's backward and sums dq, dk and dv in fp32. Llama 2 7B
 * at 4,096 tokens on CP 2: 2,048 tokens a rank, 32 heads of 128: a rank's K
 * and V block 2,048 · 32 · 256 · 2 B = 33,554,432, two of them 67,108,864;
 * fp32 dq, dk, dv 2,048 · (32 · 128 + 32 · 256) · 4 = 100,663,296: the
 * layer backward's peak grows by 167,772,160 bytes. */
static void
test_torch_context_parallel_backward (void)
{
  HrTrainingMemory ring, plain;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama2_7b (&model);
  hr_training_init (&t);
  t.gpus_per_node = 2;
  t.context_parallel = 2;
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &plain);
  t.torch_context_parallel = true;
  memory_ok (&model, &t, &gpu, &ring);
  g_assert_cmpfloat (ring.peak_layer_backward - plain.peak_layer_backward, ==, 167772160);
  g_assert_cmpfloat (ring.peak_forward, ==, plain.peak_forward);
}

static void
test_no_sync (void)
{
  /* FSDP's no_sync(): P = 1e9 on 8 GPUs, FSDP full shard, bf16-mixed (bf16
   * gradients), 4 micro-batches a step (32 sequences). The gradients stay
   * unsharded between micro-batches: 2 B × 1e9, not 2 B × 1e9 ÷ 8. One
   * micro-batch a step syncs every time: sharded. */
  HrTrainingRank rank = { .params = 1000000000 };
  HrTrainingMemory m = { 0 };
  HrError err = { 0 };
  HrModel model;
  HrTraining t;

  hr_training_init (&t);
  t.fsdp = HR_FSDP_FULL;
  t.global_batch = 32;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.gradients, ==, 0.25e9);
  t.no_sync = true;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.gradients, ==, 2e9);
  t.global_batch = 8;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.gradients, ==, 0.25e9);

  /* It is FSDP's: DeepSpeed ZeRO-2 keeps its partitioned gradients (the
   * Hugging Face Trainer syncs every micro-batch under DeepSpeed). */
  llama_like (&model, 2, 64, 4, 4, 128, 256);
  t.fsdp = HR_FSDP_NONE;
  t.zero_stage = 2;
  t.global_batch = 32;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.gradients, ==, 0.25e9);
}

static void
test_accumulation_buffer (void)
{
  /* 8 GPUs, micro 1, global 32: 4 accumulation steps. 16-bit gradients are
   * accumulated in an fp32 buffer: 4 B × 1e9. Not with 1 step, not when the
   * gradients are fp32 already. */
  HrTrainingRank rank = { .params = 1000000000 };
  HrTrainingMemory m = { 0 };
  HrTraining t;

  hr_training_init (&t);
  t.global_batch = 32;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.grad_accumulation_buffer, ==, 4e9);
  t.global_batch = 8;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.grad_accumulation_buffer, ==, 0);
  t.global_batch = 32;
  t.fp32_gradients = true;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.grad_accumulation_buffer, ==, 0);
  /* Megatron without --accumulate-allreduce-grads-in-fp32 (Megatron-Bridge's
   * grad_reduce_in_fp32 false): a 16-bit main_grad, summed in place, 2 B ×
   * 1e9 of gradients and no other buffer. */
  t.fp32_gradients = false;
  t.fp32_accumulation_buffer = false;
  hr_training_model_states (&t, &rank, &m);
  g_assert_cmpfloat (m.grad_accumulation_buffer, ==, 0);
  g_assert_cmpfloat (m.gradients, ==, 2e9);
}

static void
test_llama2_7b_zero3 (void)
{
  /* ZeRO-3 on 8 GPUs, bf16-mixed AdamW, seq 4096, micro 1, flash.
   * P = 6,738,415,616; per GPU P/8 = 842,301,952 parameters:
   *   weights 2 B → 1,684,603,904 (1.569 GiB)
   *   master  4 B → 3,369,207,808 (3.138 GiB)
   *   grads   2 B → 1,684,603,904 (1.569 GiB)
   *   m + v   8 B → 6,738,415,616 (6.276 GiB)
   *   model states 13,476,831,232 B = 12.551 GiB.
   * Activations of one layer, b 1, s 4096 (T = 4096), bf16 (2 B):
   *   2 RMSNorm inputs 2·T·h·2 + rstd 2·T·4         =  67,141,632
   *   q/k/v input and MLP input 2·T·h·2             =  67,108,864
   *   q T·h·2, k and v T·h·2·2, output T·h·2         = 134,217,728
   *   log-sum-exp a·T·4 = 32·4096·4                  =     524,288
   *   gate, SiLU, up, product 4·T·11008·2            = 360,710,144
   *   per layer 629,702,656; ×32 = 20,150,484,992.
   * Outside layers: token ids 8T = 32,768; final norm T·h·2 + 4T = 33,570,816;
   * LM head input T·h·2 = 33,554,432; fp32 log-probs T·32000·4 + labels 8T
   * = 524,320,768. Total 20,741,963,776 (19.32 GiB).
   * Full recompute: 32 layer inputs T·h·2 = 1,073,741,824 + the same outside
   * = 1,665,220,608 saved; the recomputed layer's transient is its full set
   * (629,702,656) less its saved input (33,554,432).
   * Buffers live throughout: gathered layer and the prefetched one 2·2 B +
   * its gradient 2 B, × 202,383,360 = 1,214,300,160; two 25 MiB buckets
   * 52,428,800 → 1,266,728,960. The loss's backward adds the gradients of
   * the fp32 log-probabilities and of the logits, 2·T·32000·4 =
   * 1,048,576,000 (temporary shows both: 2,315,304,960).
   * Phases: states without gradients 11,792,227,328; ZeRO keeps its
   * gradient partitions (1,684,603,904) through the forward.
   *   end of forward 11,792,227,328 + 1,684,603,904 + 20,741,963,776
   *     + 1,266,728,960 = 35,485,523,968
   *   loss backward + 1,048,576,000 = 36,534,099,968   ← the peak
   *   first layer's backward: states, gradients, buffers, one layer
   *     629,702,656 and the token ids 32,768 = 15,373,295,616.
   * Reserved: 9 tensors a layer (4 attention, 3 MLP, 2 norms) × 32 layers ×
   * 1 micro-batch saved (ZeRO-3 keeps flat shards: not counted) = 288
   * blocks × 1 MiB (half of kRoundLarge) = 301,989,888; and the freed
   * bf16 logits' block, T·32000·2 = 262,144,000, too small for the loss's
   * fp32 buffers: reserved 37,098,233,856; total + 1 GiB overhead. */
  HrTrainingMemory m;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama2_7b (&model);
  hr_training_init (&t);
  t.glu_kernel = HR_GLU_KERNEL_EAGER;   /* the derivation's four SwiGLU tensors */
  t.zero_stage = 3;
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.params_on_gpu, ==, 6738415616);
  g_assert_cmpfloat (m.weights, ==, 1684603904);
  g_assert_cmpfloat (m.master_weights, ==, 3369207808);
  g_assert_cmpfloat (m.gradients, ==, 1684603904);
  g_assert_cmpfloat (m.optimizer, ==, 6738415616);
  g_assert_cmpfloat (states (&m), ==, 13476831232);
  g_assert_cmpfloat (m.activations_per_layer, ==, 629702656);
  g_assert_cmpfloat (m.activations, ==, 20741963776);
  g_assert_cmpfloat (m.temporary, ==, 2315304960);
  g_assert_cmpfloat (m.overhead, ==, GIB);
  g_assert_cmpfloat (m.peak_forward, ==, 35485523968);
  g_assert_cmpfloat (m.peak_loss_backward, ==, 36534099968);
  g_assert_cmpfloat (m.peak_layer_backward, ==, 15373295616);
  g_assert_cmpfloat (m.allocated_peak, ==, 36534099968);
  g_assert_cmpfloat (m.cached_free, ==, 262144000);
  g_assert_cmpfloat (m.reserved_peak, ==, 37098233856);
  g_assert_cmpfloat (m.total, ==, 37098233856 + GIB);
  g_assert_true (m.fits);
  g_assert_cmpfloat (m.headroom, ==, 80 * GIB - m.total);
  g_assert_cmpfloat (m.overflow, ==, 0);

  t.recompute = HR_RECOMPUTE_FULL;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpfloat (m.activations_per_layer, ==, 33554432);
  g_assert_cmpfloat (m.activations, ==, 1665220608);
  g_assert_cmpfloat (m.recompute, ==, 629702656 - 33554432);

  /* On a 16 GiB GPU it overflows by total − 16 GiB. */
  gpu.memory_bytes = 16 * GIB;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_false (m.fits);
  g_assert_cmpfloat (m.headroom, ==, 0);
  g_assert_cmpfloat (m.overflow, ==, m.total - 16 * GIB);
}

/* Parallelism: what each rank holds */

static void
test_tensor_parallel_params (void)
{
  /* Llama-2-7B, TP 8: per layer attention 4·4096²/8 = 8,388,608, MLP
   * 3·4096·11008/8 = 16,908,288, norms 8,192 (replicated) → 25,305,088;
   * ×32 = 809,762,816; embedding and LM head 32000·4096/8 = 16,384,000 each;
   * final norm 4,096. Total 842,534,912. */
  HrTrainingMemory m;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama2_7b (&model);
  hr_training_init (&t);
  t.tensor_parallel = 8;
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.params_on_gpu, ==, 842534912);
  g_assert_cmpint (m.rank.largest_layer, ==, 25305088);
}

static void
test_gqa_replication (void)
{
  /* h 64, 8 query heads and 2 KV heads of 8, TP 4 > 2 KV heads: each rank
   * holds q and o for 2 heads ((64·64 + 64·64)/4 = 2,048) and one replicated
   * KV head (k and v 2·8·64 = 1,024): attention 3,072 per layer. */
  HrTrainingRank rank;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  int64_t layer_rest;

  llama_like (&model, 1, 64, 8, 2, 128, 64);
  hr_training_init (&t);
  t.nodes = 1;
  t.gpus_per_node = 4;
  t.tensor_parallel = 4;
  t.seq_len = 16;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  g_assert_cmpint (hr_training_rank (&model, &t, 0, &rank, &err), ==, HR_OK);
  /* the rest of the rank: norms 2·64, MLP 3·64·128/4, embedding and head
   * 64·64/4 each, final norm 64 */
  layer_rest = 128 + 3 * 64 * 128 / 4 + 2 * 64 * 64 / 4 + 64;
  g_assert_cmpint (rank.params, ==, 3072 + layer_rest);
}

static void
test_pipeline (void)
{
  /* Llama-2-7B, PP 4 × DP 2 on 8 GPUs, micro 1, global 16: 8 micro-batches
   * per step. Stage 0: 8 layers + embedding = 8·202,383,360 + 131,072,000 =
   * 1,750,138,880 parameters. 1F1B keeps min(pp, m) = 4 micro-batches in
   * flight on stage 0; GPipe all 8; interleaved with v = 2, chunk by
   * chunk: stage 0 warms up with W = (v − 1)·pp + 2(pp − 1) = 10 forwards
   * (chunk 0 for micro-batches 0–3, chunk 1 for 0–3, chunk 0 for 4–5), then
   * forward 11 (chunk 0, micro-batch 6) comes before the first backward
   * (chunk 1): 8 micro-batches of chunk 0 and 3 of chunk 1 in flight, 11
   * chunks = pp + (pp − 1)/v = 5.5 micro-batches of the stage's layers
   * ([SP] §4.2.3), and chunk 0's 8 the embedding's tensors. */
  HrTrainingMemory m;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama2_7b (&model);
  hr_training_init (&t);
  t.pipeline_parallel = 4;
  t.global_batch = 16;
  round_gpu (&gpu);
  gpu.memory_bytes = 1e15;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.pipeline_stage, ==, 0);
  g_assert_cmpint (m.params_on_gpu, ==, 1750138880);
  g_assert_cmpint (m.activation.layers, ==, 8);
  g_assert_cmpfloat (m.micro_batches_in_flight, ==, 4);
  g_assert_cmpfloat (m.activations, ==, 4 * m.activation.micro_batch);

  t.pipeline_schedule = HR_PIPELINE_GPIPE;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpfloat (m.micro_batches_in_flight, ==, 8);

  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  t.virtual_stages = 2;
  memory_ok (&model, &t, &gpu, &m);
  assert_near (11 * m.activation.layers_total / 2 + 8 * m.activation.embedding, m.activations,
               1e-12);
  g_assert_cmpint (m.activation.layers, ==, 8);

  /* Under torch.distributed.pipelining, torchtitan splits the 8 stages
   * with generate_llm_fqn_per_model_part (embedding and output one unit
   * each): 34 units, 4 per stage and the 2 over to stages 0 and 1, less the
   * embedding and the output: 4, 5, 4, 4, 4, 4, 4, 3 layers. Rank r holds
   * stages r and r + 4: rank 0 8 layers and the embedding (1,750,138,880
   * parameters), rank 1 5 + 4 = 9 (9·202,383,360 = 1,821,450,240), the
   * most loaded. It runs 6 micro-batches in one round of 6
   * (ScheduleInterleaved1F1B, microbatches_per_round): rank 1 warms up with
   * min((v − 1)·6 + 2(pp − 2), m·v) = 10 forwards (chunk 0 for micro-batches
   * 0–5, chunk 1 for 0–3) and runs an 11th (chunk 1, micro-batch 4) before
   * its first backward: 6·5 + 5·4 = 50 layer micro-batches, and the 11
   * chunks' received inputs, b·s·h bf16 each. */
  t.global_batch = 12;
  t.torch_pipelining = true;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.pipeline_stage, ==, 1);
  g_assert_cmpint (m.params_on_gpu, ==, 1821450240);
  g_assert_cmpint (m.activation.layers, ==, 9);
  assert_near (50 * m.activation.layers_total / 9 + 11 * 2.0 * 4096 * 4096, m.activations, 1e-12);
  t.torch_pipelining = false;

  /* Fewer micro-batches than stages: 1F1B holds them all (2). */
  t.pipeline_schedule = HR_PIPELINE_1F1B;
  t.virtual_stages = 1;
  t.global_batch = 4;
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpfloat (m.micro_batches_in_flight, ==, 2);
}

static void
test_last_stage (void)
{
  /* A huge vocabulary makes the last stage the larger: 2 layers of h 64,
   * vocab 1,000,000, PP 2, micro 1, seq 16, global 2 (2 micro-batches).
   * Its fp32 log-probs alone are 16·1e6·4 = 64e6 B. */
  HrTrainingMemory m;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  llama_like (&model, 2, 64, 4, 4, 128, 1000000);
  hr_training_init (&t);
  t.nodes = 1;
  t.gpus_per_node = 2;
  t.pipeline_parallel = 2;
  t.seq_len = 16;
  t.global_batch = 2;
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.pipeline_stage, ==, 1);
  g_assert_cmpfloat (m.activation.loss, ==, 16 * 1e6 * 4 + 16 * 8);
  g_assert_cmpfloat (m.micro_batches_in_flight, ==, 1);
}

static void
test_tied_head_on_last_stage (void)
{
  /* GPT-style, tied embeddings, 4 layers of h 64 (LayerNorm with bias, 4h
   * MLP with biases): per layer q/k/v 64·192 + 192, o 64·64 + 64, fc 64·256
   * + 256, proj 256·64 + 64, 2 norms 4·64 → 49,984. PP 2: stage 0 holds 2
   * layers, the token embedding 1000·64 = 64,000 and the position table
   * 1024·64 = 65,536: 229,504. The last stage holds 2 layers, the final norm
   * 128 and, the head being tied, its own copy of the embedding (Megatron):
   * 164,096. */
  HrTrainingRank rank;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;

  gpt_like (&model, 4, 64, 4, 256, 1000);
  hr_training_init (&t);
  t.seq_len = 16;
  t.pipeline_parallel = 2;
  g_assert_cmpint (hr_training_rank (&model, &t, 0, &rank, &err), ==, HR_OK);
  g_assert_cmpint (rank.params, ==, 2 * 49984 + 64000 + 65536);
  g_assert_cmpint (hr_training_rank (&model, &t, 1, &rank, &err), ==, HR_OK);
  g_assert_cmpint (rank.params, ==, 2 * 49984 + 128 + 64000);
  g_assert_cmpint (hr_training_rank (&model, &t, 2, &rank, &err), ==, HR_ERROR_OUT_OF_RANGE);
}

static void
test_expert_parallel (void)
{
  /* Each MoE layer's routed experts hold 8·3·64·32 = 49,152 parameters;
   * EP 4 leaves 2 experts per rank: 12,288 per layer, 24,576 for 2 layers.
   * 8 GPUs, dp 8, ZeRO-1: expert optimizer states shard over the expert
   * data-parallel group dp/ep = 2: 8 B · 24,576 / 2 = 98,304; without EP
   * they shard over 8: 8 · 98,304 / 8 = 98,304 too, but the routed weights
   * on the GPU drop from 2·98,304 to 2·24,576. */
  HrTrainingMemory m, dense;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  moe_model (&model);
  hr_training_init (&t);
  t.seq_len = 16;
  t.zero_stage = 1;
  t.expert_parallel = 4;
  round_gpu (&gpu);
  memory_ok (&model, &t, &gpu, &m);
  g_assert_cmpint (m.rank.expert_params, ==, 24576);
  g_assert_cmpint (m.rank.moe_layers, ==, 2);

  t.expert_parallel = 1;
  memory_ok (&model, &t, &gpu, &dense);
  g_assert_cmpint (dense.rank.expert_params, ==, 98304);
  g_assert_cmpint (dense.rank.params, ==, m.rank.params);
  g_assert_cmpfloat (dense.weights - m.weights, ==, 2 * (98304 - 24576));
  /* optimizer: dense part identical; experts 8·98,304/8 vs 8·24,576/2 */
  g_assert_cmpfloat (dense.optimizer - m.optimizer, ==, 0);
  g_assert_cmpfloat (dense.master_weights - m.master_weights, ==, 0);
}

/* Validation */

static void
expect_error (const HrTraining *t,
              const HrModel    *model,
              HrStatus          status,
              const char       *field)
{
  HrError err = { 0 };
  char line[256];

  g_assert_cmpint (hr_training_validate (t, model, &err), ==, status);
  g_assert_cmpstr (err.field, ==, field);
  hr_error_format (&err, line, sizeof line);
  g_test_message ("%s", line);
}

static void
test_validation (void)
{
  HrModel model;
  HrTraining t;
  HrError err = { 0 };
  char line[256];

  llama2_7b (&model);

  /* tp 3 does not divide 8 GPUs */
  hr_training_init (&t);
  t.tensor_parallel = 3;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "tensor_parallel");
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  hr_error_format (&err, line, sizeof line);
  g_assert_cmpstr (line, ==, "tensor_parallel: 3 does not divide 8 GPUs");

  /* pp 3: 8 GPUs */
  hr_training_init (&t);
  t.pipeline_parallel = 3;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "pipeline_parallel");

  /* 40 GPUs, pp 5: 5 does not divide 32 layers, which torchtitan's split
   * takes (docs/training.md, "Pipelines"); pp 40 leaves stages empty, even
   * counting the embedding and the loss as layers (34 < 40). */
  hr_training_init (&t);
  t.nodes = 5;
  t.pipeline_parallel = 5;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  t.pipeline_parallel = 40;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "pipeline_parallel");

  /* cp 3 */
  hr_training_init (&t);
  t.context_parallel = 3;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "context_parallel");

  /* tp 8 does not divide 12 heads */
  {
    HrModel small;

    llama_like (&small, 2, 768, 12, 12, 3072, 1000);
    hr_training_init (&t);
    t.tensor_parallel = 8;
    expect_error (&t, &small, HR_ERROR_NOT_DIVISIBLE, "tensor_parallel");
    /* 4 KV heads and TP 8: replicated, valid; 3 KV heads and TP 2: neither */
    llama_like (&small, 2, 1024, 8, 4, 4096, 1000);
    g_assert_cmpint (hr_training_validate (&t, &small, &err), ==, HR_OK);
    llama_like (&small, 2, 768, 6, 3, 3072, 1000);
    t.tensor_parallel = 2;
    expect_error (&t, &small, HR_ERROR_NOT_DIVISIBLE, "tensor_parallel");
  }

  /* global batch 12 is not a multiple of micro 1 × dp 8 */
  hr_training_init (&t);
  t.global_batch = 12;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "global_batch");

  /* expert parallel on a dense model */
  hr_training_init (&t);
  t.expert_parallel = 2;
  expect_error (&t, &model, HR_ERROR_UNSUPPORTED, "expert_parallel");

  /* ep 3 does not divide 8 experts */
  {
    HrModel moe;

    moe_model (&moe);
    hr_training_init (&t);
    t.nodes = 3;
    t.expert_parallel = 3;
    expect_error (&t, &moe, HR_ERROR_NOT_DIVISIBLE, "expert_parallel");
  }

  /* virtual stages: the interleaved schedule only; 4 × 3 stages split 32
   * layers unevenly (torchtitan), but 4 × 9 = 36 stages exceed the 32
   * layers with the embedding and the output (34 units). */
  hr_training_init (&t);
  t.virtual_stages = 2;
  expect_error (&t, &model, HR_ERROR_UNSUPPORTED, "virtual_stages");
  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  t.pipeline_parallel = 4;
  t.global_batch = 16;
  t.virtual_stages = 3;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  t.virtual_stages = 9;
  expect_error (&t, &model, HR_ERROR_OUT_OF_RANGE, "virtual_stages");
  /* Megatron's first and last stage sizes cut into equal chunks: 6, 10,
   * 10, 6 take 2 chunks a rank, not 3. */
  t.pp_first_stage_layers = 6;
  t.pp_last_stage_layers = 6;
  t.virtual_stages = 2;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  t.virtual_stages = 3;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  hr_error_format (&err, line, sizeof line);
  g_assert_cmpstr (line, ==, "virtual_stages: 3 does not divide 10 layers of a stage "
                             "(Megatron cuts each stage into equal chunks)");

  /* Micro-batches per step (global 4, 12, 20, 18 over 2 replicas: 2, 6,
   * 10, 9): at least pp, a multiple of pp (Megatron) or rounds of equal
   * size (torch's ScheduleInterleaved1F1B: m ÷ pp rounds, 6 in one, 10 in
   * two of 5, 9 not in two). */
  hr_training_init (&t);
  t.pipeline_schedule = HR_PIPELINE_INTERLEAVED;
  t.pipeline_parallel = 4;
  t.virtual_stages = 2;
  t.global_batch = 4;
  expect_error (&t, &model, HR_ERROR_OUT_OF_RANGE, "global_batch");
  t.global_batch = 12;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "global_batch");
  t.torch_pipelining = true;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  t.global_batch = 20;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_OK);
  t.global_batch = 18;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), ==, HR_ERROR_NOT_DIVISIBLE);
  hr_error_format (&err, line, sizeof line);
  g_assert_cmpstr (line, ==, "global_batch: 2 does not divide 9 micro-batches per step (torch's "
                             "interleaved schedule runs them in rounds of equal size, "
                             "micro-batches ÷ pipeline stages)");

  /* ranges */
  hr_training_init (&t);
  t.zero_stage = 4;
  expect_error (&t, &model, HR_ERROR_OUT_OF_RANGE, "zero_stage");
  hr_training_init (&t);
  t.zero_stage = 2;
  t.fsdp = HR_FSDP_FULL;
  expect_error (&t, &model, HR_ERROR_UNSUPPORTED, "zero_stage");
  hr_training_init (&t);
  t.mfu = -0.1;   /* 0 is "predicted"; a measured utilisation lies in (0, 1] */
  expect_error (&t, &model, HR_ERROR_OUT_OF_RANGE, "mfu");
  t.mfu = 1.01;
  expect_error (&t, &model, HR_ERROR_OUT_OF_RANGE, "mfu");
  t.mfu = NAN;
  expect_error (&t, &model, HR_ERROR_WRONG_TYPE, "mfu");
  hr_training_init (&t);
  t.micro_batch = 0;
  expect_error (&t, &model, HR_ERROR_NOT_POSITIVE, "micro_batch");
  hr_training_init (&t);
  t.seq_len = -5;
  expect_error (&t, &model, HR_ERROR_NOT_POSITIVE, "seq_len");
  hr_training_init (&t);
  t.tokens = INFINITY;
  expect_error (&t, &model, HR_ERROR_WRONG_TYPE, "tokens");
  hr_training_init (&t);
  t.price_per_gpu_hour = -1;
  expect_error (&t, &model, HR_ERROR_OUT_OF_RANGE, "price_per_gpu_hour");
  hr_training_init (&t);
  t.sequence_parallel = true;
  t.tensor_parallel = 8;
  t.seq_len = 4100;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "sequence_parallel");

  /* a bad model is reported by the model's own key */
  hr_training_init (&t);
  model.n_heads = 0;
  g_assert_cmpint (hr_training_validate (&t, &model, &err), !=, HR_OK);
}

static void
test_gpu_errors (void)
{
  /* No bf16 peak (V100): the time cannot be estimated; no memory at all: no
   * estimate either. Never NaN. */
  HrTrainingMemory m;
  HrTrainingTime time;
  HrError err = { 0 };
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  measured_gpt2 (&model, &t);
  round_gpu (&gpu);
  gpu.peak_flops[HR_DTYPE_BF16] = 0;
  g_assert_cmpint (hr_training_time (&model, &t, &gpu, &time, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "precision");
  gpu.memory_bytes = 0;
  g_assert_cmpint (hr_training_memory (&model, &t, &gpu, &m, &err), ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "memory_bytes");
}

static void
test_names (void)
{
  HrPrecision p;
  HrOptimizer o;
  HrPipelineSchedule s;
  HrFsdp f;
  HrAttentionImpl a;
  HrRecompute r;

  g_assert_true (hr_precision_from_name ("fp8-mixed", &p));
  g_assert_cmpint (p, ==, HR_PRECISION_FP8_MIXED);
  g_assert_cmpstr (hr_precision_name (HR_PRECISION_BF16_MIXED), ==, "bf16-mixed");
  g_assert_false (hr_precision_from_name ("bf16mixed", &p));
  g_assert_true (hr_optimizer_from_name ("adamw-8bit", &o));
  g_assert_cmpint (o, ==, HR_OPTIMIZER_ADAMW_8BIT);
  g_assert_true (hr_pipeline_schedule_from_name ("interleaved", &s));
  g_assert_cmpint (s, ==, HR_PIPELINE_INTERLEAVED);
  g_assert_true (hr_fsdp_from_name ("grad-op", &f));
  g_assert_cmpint (f, ==, HR_FSDP_GRAD_OP);
  g_assert_true (hr_training_attention_from_name ("eager", &a));
  g_assert_cmpint (a, ==, HR_ATTENTION_EAGER);
  g_assert_true (hr_training_recompute_from_name ("selective", &r));
  g_assert_cmpint (r, ==, HR_RECOMPUTE_SELECTIVE);
  g_assert_false (hr_training_recompute_from_name (NULL, &r));
}

static void
test_defaults (void)
{
  HrTraining t;

  hr_training_init (&t);
  g_assert_cmpint (hr_training_gpus (&t), ==, 8);
  g_assert_cmpint (hr_training_data_parallel (&t), ==, 8);
  g_assert_cmpint (t.precision, ==, HR_PRECISION_BF16_MIXED);
  g_assert_cmpint (t.optimizer, ==, HR_OPTIMIZER_ADAMW);
  g_assert_cmpint (t.attention, ==, HR_ATTENTION_FLASH);
  g_assert_cmpint (t.recompute, ==, HR_RECOMPUTE_NONE);
  g_assert_cmpint (t.micro_batch, ==, 1);
  g_assert_cmpint (t.seq_len, ==, 4096);
  g_assert_cmpfloat (t.mfu, ==, 0);   /* predicted from the hardware */
  g_assert_cmpint (hr_training_compute_dtype (&t), ==, HR_DTYPE_BF16);
}

/* Megatron-Core's MoE parallel folding: TP 2 over 8 GPUs leaves DP 4, so
 * with experts split over both TP ranks (etp = tp) EP 8 does not divide
 * dp · cp = 4. With whole experts (etp 1) the stage's tp · dp · cp = 8
 * ranks re-split as etp 1 × ep 8 × edp 1: each rank holds one whole expert,
 * 3·64·32 = 6,144 a layer, 12,288 for 2 layers, the same as EP 4 over
 * experts halved by TP (2 experts / 2 ranks); its states shard over edp 1. */
static void
test_expert_tensor_parallel (void)
{
  HrTrainingMemory folded, split;
  HrModel model;
  HrTraining t;
  HrGpu gpu;

  moe_model (&model);
  hr_training_init (&t);
  t.seq_len = 16;
  t.zero_stage = 1;
  t.tensor_parallel = 2;
  t.sequence_parallel = true;
  t.expert_parallel = 8;
  round_gpu (&gpu);
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "expert_parallel");

  t.expert_tensor_parallel = 1;
  memory_ok (&model, &t, &gpu, &folded);
  g_assert_cmpint (folded.rank.expert_params, ==, 12288);

  t.expert_tensor_parallel = 0;
  t.expert_parallel = 4;
  memory_ok (&model, &t, &gpu, &split);
  g_assert_cmpint (split.rank.expert_params, ==, 12288);
  /* 8 B · 12,288 over edp 1 folded, over dp / ep = 1 split: the same. */
  g_assert_cmpfloat (folded.optimizer, ==, split.optimizer);

  /* Whole experts on fewer TP ranks need sequence parallelism
   * (Megatron-Core), and the expert TP must divide the TP. */
  t.expert_parallel = 8;
  t.expert_tensor_parallel = 1;
  t.sequence_parallel = false;
  expect_error (&t, &model, HR_ERROR_UNSUPPORTED, "expert_tensor_parallel");
  t.sequence_parallel = true;
  t.expert_tensor_parallel = 3;
  expect_error (&t, &model, HR_ERROR_NOT_DIVISIBLE, "expert_tensor_parallel");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/training/defaults", test_defaults);
  g_test_add_func ("/training/names", test_names);
  g_test_add_func ("/training/states/zero-published", test_zero_published);
  g_test_add_func ("/training/states/zero-stages", test_zero_stages);
  g_test_add_func ("/training/states/fsdp", test_fsdp);
  g_test_add_func ("/training/states/precisions", test_precisions);
  g_test_add_func ("/training/states/optimizers", test_optimizers);
  g_test_add_func ("/training/states/adafactor-shapes", test_adafactor_shapes);
  g_test_add_func ("/training/states/offload", test_offload);
  g_test_add_func ("/training/states/offload-params", test_offload_params);
  g_test_add_func ("/training/states/no-sync", test_no_sync);
  g_test_add_func ("/training/memory/torch-context-parallel", test_torch_context_parallel_backward);
  g_test_add_func ("/training/states/accumulation-buffer", test_accumulation_buffer);
  g_test_add_func ("/training/memory/llama2-7b-zero3", test_llama2_7b_zero3);
  g_test_add_func ("/training/parallel/tensor", test_tensor_parallel_params);
  g_test_add_func ("/training/parallel/gqa-replication", test_gqa_replication);
  g_test_add_func ("/training/parallel/pipeline", test_pipeline);
  g_test_add_func ("/training/parallel/last-stage", test_last_stage);
  g_test_add_func ("/training/parallel/tied-head", test_tied_head_on_last_stage);
  g_test_add_func ("/training/parallel/expert", test_expert_parallel);
  g_test_add_func ("/training/parallel/expert-tensor-parallel", test_expert_tensor_parallel);
  g_test_add_func ("/training/validation", test_validation);
  g_test_add_func ("/training/validation/gpu", test_gpu_errors);

  return g_test_run ();
}
