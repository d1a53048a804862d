/* test-finetune.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fine-tuning: adapter parameters, frozen and quantised weights, the model
 * states of the trained part, activations through frozen and adapted
 * linears, the FLOPs of a frozen backward, QLoRA's dequantisation and FSDP
 * with frozen parameters. Every expected value is derived by hand beside it;
 * the parameter counts are also the ones PEFT and torchtune published
 * (tests/data/reference: ../shared/data/peft-runs.json).
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "hr-finetune.h"
#include "hr-planner.h"
#include "hr-training.h"

#include "test-models.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static void
assert_near (double expected,
             double actual,
             double relative)
{
  if (fabs (actual - expected) > relative * fabs (expected))
    g_error ("expected %.10g, got %.10g (%.4f%% off, allowed %.4f%%)", expected, actual,
             100 * (actual - expected) / expected, 100 * relative);
}

/* Llama 2 7B: 32 layers, h 4096, 32 heads (MHA), SwiGLU 11008, vocab 32000. */
static void
llama2_7b (HrModel *m)
{
  llama_like (m, 32, 4096, 32, 32, 11008, 32000);
}

/* Llama 3.2 3B: 28 layers, h 3072, 24 heads, 8 KV heads, head_dim 128,
 * SwiGLU 8192, vocab 128256, tied embeddings. */
static void
llama32_3b (HrModel *m)
{
  llama_like (m, 28, 3072, 24, 8, 8192, 128256);
  m->head_dim = 128;
  m->tied_embeddings = true;
}

static void
params_ok (const HrModel    *model,
           const HrFinetune *f,
           HrFinetuneParams *p)
{
  HrError err = { 0 };

  g_assert_cmpint (hr_finetune_params (model, f, 2, p, &err), ==, HR_OK);
}

static void
one_gpu (HrTraining *t)
{
  hr_training_init (t);
  t->nodes = 1;
  t->gpus_per_node = 1;
  t->precision = HR_PRECISION_BF16;
  t->seq_len = 512;
  /* PEFT, LitGPT and torchtune run their SwiGLU eagerly (gate, silu, up
   * and the product saved). */
  t->glu_kernel = HR_GLU_KERNEL_EAGER;
}

static void
round_gpu (HrGpu *gpu)
{
  memset (gpu, 0, sizeof *gpu);
  gpu->memory_bytes = 80 * GIB;
  gpu->memory_bandwidth = 2e12;
  for (int i = 0; i < HR_DTYPE_N; i++)
    gpu->peak_flops[i] = 1e15;
  gpu->intra_node_bandwidth = 100e9;
  gpu->inter_node_bandwidth = 25e9;
  gpu->power_watts = 500;
}

/* LoRA of Llama 2 7B under FSDP full shard on 8 GPUs of round_gpu(). */
static void
llama2_7b_lora_fsdp8 (HrModel    *m,
                      HrTraining *t,
                      HrGpu      *gpu)
{
  llama2_7b (m);
  round_gpu (gpu);
  one_gpu (t);
  t->gpus_per_node = 8;
  t->fsdp = HR_FSDP_FULL;
  t->finetune.method = HR_FINETUNE_LORA;
}

/* Parameters */

static void
test_params_published (void)
{
  HrFinetuneParams p;
  HrFinetune f;
  HrModel m;

  hr_finetune_init (&f);
  f.method = HR_FINETUNE_LORA;

  /* Llama 2 7B, r 8 on q and v (torchtune tutorial, LitGPT): per layer
   * 8·(4096 + 4096) · 2 = 131,072; × 32 = 4,194,304, as both state. */
  llama2_7b (&m);
  f.rank = 8;
  f.targets = HR_TARGETS_ATTENTION;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.adapters, ==, 4194304);
  g_assert_cmpint (p.trainable, ==, 4194304);
  g_assert_cmpint (p.frozen, ==, 6738415616);
  g_assert_cmpint (p.adapted_matrices, ==, 64);

  /* torchtune QLoRA, r 8 on q, k, v, o, gate, up, down: 4 · 65,536 +
   * 3 · 8·(4096 + 11008) = 262,144 + 362,496 = 624,640; × 32 = 19,988,480. */
  f.targets = HR_TARGETS_ALL_LINEAR;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.adapters, ==, 19988480);

  /* PEFT MetaMathQA, Llama 3.2 3B, r 32 on q and v: q 32·(3072 + 3072) =
   * 196,608, v 32·(3072 + 1024) = 131,072; × 28 = 9,175,040
   * (num_trainable_params in lora--llama-3.2-3B-rank32.json). */
  llama32_3b (&m);
  f.rank = 32;
  f.targets = HR_TARGETS_ATTENTION;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.trainable, ==, 9175040);

  /* DoRA adds a magnitude per output feature: 28 · (3072 + 1024) = 114,688;
   * 9,289,728 in all (lora--llama-3.2-3B-rank32-dora.json). */
  f.method = HR_FINETUNE_DORA;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.magnitude, ==, 114688);
  g_assert_cmpint (p.trainable, ==, 9289728);

  /* torchtune's llama3_2/3B_lora_single_device: r 64 on q, v, o and the
   * MLP: q 64·6144 = 393,216, v 64·4096 = 262,144, o 393,216, gate, up and
   * down 64·(3072 + 8192) = 720,896 each: 3,211,264 per layer, × 28 =
   * 89,915,392. */
  f.method = HR_FINETUNE_LORA;
  f.rank = 64;
  f.targets = HR_TARGET_Q | HR_TARGET_V | HR_TARGET_O | HR_TARGET_GATE | HR_TARGET_UP
              | HR_TARGET_DOWN;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.trainable, ==, 89915392);
}

static void
test_params_fused_moe_head (void)
{
  HrFinetuneParams p;
  HrFinetune f;
  HrModel m;

  hr_finetune_init (&f);
  f.method = HR_FINETUNE_LORA;
  f.rank = 8;

  /* A fused qkv linear (NeoX query_key_value) is one adapted matrix:
   * r·(h + 3h) = 8 · 16,384 = 131,072 per layer, not 3 · 8 · 8192. */
  llama2_7b (&m);
  f.fused_qkv = true;
  f.targets = HR_TARGET_Q;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.adapters, ==, 32 * 131072);
  f.fused_qkv = false;

  /* LM head and embedding: r·(h + V) each (lora.Linear, lora.Embedding):
   * 8 · 36,096 = 288,768 twice. DoRA magnitudes: V for the head, h for
   * the embedding (norm over the vocabulary per hidden column). */
  f.targets = HR_TARGET_LM_HEAD | HR_TARGET_EMBEDDING;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.adapters, ==, 2 * 288768);
  f.method = HR_FINETUNE_DORA;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.magnitude, ==, 32000 + 4096);
  f.method = HR_FINETUNE_LORA;

  /* Mixtral-like MoE: 8 experts of width 14,336, h 4096, every layer MoE.
   * PEFT's ParamWrapper gives a 3-D expert weight r·E·(in + out): gate, up
   * and down 8 · 8 · 18,432 each = 3 · 1,179,648 = 3,538,944 per layer;
   * fused gate_up: 8·8·(4096 + 28,672) + 1,179,648 = 3,276,800. */
  llama_like (&m, 2, 4096, 32, 8, 14336, 32000);
  m.n_experts = 8;
  m.experts_per_token = 2;
  m.expert_ffn_size = 14336;
  f.targets = HR_TARGET_GATE | HR_TARGET_UP | HR_TARGET_DOWN;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.adapters, ==, 2 * 3538944);
  f.fused_gate_up = true;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.adapters, ==, 2 * 3276800);
}

/* Frozen weights and quantisation */

static void
test_quant_bytes (void)
{
  HrFinetune f;

  hr_finetune_init (&f);
  /* QLoRA §2: 4 bits + 32/64 = 0.5 bits of absmax: 4.5 bits = 0.5625 B;
   * double quantisation 8/64 + 32/(64·256) = 0.127 bits: 0.515869140625 B. */
  f.quant = HR_QUANT_NF4;
  f.double_quant = false;
  g_assert_cmpfloat (hr_finetune_quant_bytes (&f, 4096), ==, 0.5625);
  f.double_quant = true;
  g_assert_cmpfloat (hr_finetune_quant_bytes (&f, 4096), ==, 0.515869140625);
  assert_near (0.127, 8 * (hr_finetune_quant_bytes (&f, 4096) - 0.5), 0.002);
  /* LLM.int8: 1 B + an fp32 absmax per row of 4096 inputs: 1 + 4/4096. */
  f.quant = HR_QUANT_INT8;
  g_assert_cmpfloat (hr_finetune_quant_bytes (&f, 4096), ==, 1 + 4.0 / 4096);
}

static void
test_frozen_bytes_scopes (void)
{
  /* Llama 2 7B: the layers' linears hold 32 · (4 · 4096² + 3 · 4096 · 11008)
   * = 6,476,005,376 parameters; head and embedding 131,072,000 each; norms
   * 266,240; total 6,738,415,616. NF4 with DQ at 0.515869140625 B. */
  const double q = 0.515869140625, linear = 6476005376.0, head = 131072000.0;
  const double total = 6738415616.0;
  HrFinetuneParams p;
  HrFinetune f;
  HrModel m;

  llama2_7b (&m);
  hr_finetune_init (&f);
  f.method = HR_FINETUNE_QLORA;
  f.double_quant = true;
  f.targets = HR_TARGETS_ATTENTION;

  /* PEFT + bitsandbytes: every linear but the head. */
  f.quant_scope = HR_QUANT_SCOPE_LINEAR;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.quantized, ==, 6476005376);
  assert_near (linear * q + (total - linear) * 2, p.frozen_bytes, 1e-12);
  /* one matrix dequantised at a time: gate/up/down, 4096 · 11008 */
  g_assert_cmpint (p.largest_quantized, ==, 4096 * 11008);

  g_assert_cmpint (p.quantized_head, ==, 0);

  /* LitGPT: the head too, dequantised in its own forward and backward. */
  f.quant_scope = HR_QUANT_SCOPE_ALL;
  params_ok (&m, &f, &p);
  assert_near ((linear + head) * q + (total - linear - head) * 2, p.frozen_bytes, 1e-12);
  g_assert_cmpint (p.largest_quantized, ==, 4096 * 11008);
  g_assert_cmpint (p.quantized_head, ==, 4096 * 32000);

  /* torchtune before July 2024: only q and v carry adapters, so only they
   * are NF4: 32 · 2 · 4096² = 1,073,741,824. An adapted head stays bf16
   * (its builders never quantise output_proj). */
  f.quant_scope = HR_QUANT_SCOPE_ADAPTED;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.quantized, ==, 1073741824);
  assert_near (1073741824.0 * q + (total - 1073741824.0) * 2, p.frozen_bytes, 1e-12);
  f.targets |= HR_TARGET_LM_HEAD;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.quantized, ==, 1073741824);
  g_assert_cmpint (p.quantized_head, ==, 0);
  f.targets = HR_TARGETS_ATTENTION;

  /* Plain LoRA: the whole base in bf16, 2 B per parameter. */
  f.method = HR_FINETUNE_LORA;
  params_ok (&m, &f, &p);
  g_assert_cmpfloat (p.frozen_bytes, ==, 2 * total);

  /* Freeze the embedding and 8 layers: 131,072,000 + 8 · 202,383,360
   * (a layer's linears 202,375,168 + two norms 8192). */
  f.method = HR_FINETUNE_FREEZE;
  f.freeze_layers = 8;
  params_ok (&m, &f, &p);
  g_assert_cmpint (p.frozen, ==, 131072000 + 8 * INT64_C (202383360));
  g_assert_cmpint (p.trainable, ==, 6738415616 - p.frozen);
}

/* Model states of the trained part */

static void
test_states (void)
{
  /* Llama 2 7B LoRA q,v r 8 in pure bf16 with AdamW: the base 2 B ×
   * 6,738,415,616; adapters 4,194,304 × (2 weights + 2 gradients + 2·2
   * states). With PEFT's fp32 adapters: 4 + 4 + 8 = 16 B per adapter. */
  HrTrainingMemory mem;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;

  llama2_7b (&m);
  round_gpu (&gpu);
  one_gpu (&t);
  t.finetune.method = HR_FINETUNE_LORA;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  g_assert_cmpfloat (mem.frozen_weights, ==, 2 * 6738415616.0);
  g_assert_cmpfloat (mem.weights, ==, 2 * 4194304.0);
  g_assert_cmpfloat (mem.gradients, ==, 2 * 4194304.0);
  g_assert_cmpfloat (mem.optimizer, ==, 4 * 4194304.0);
  g_assert_cmpfloat (mem.master_weights, ==, 0);
  g_assert_cmpfloat (mem.adapters, ==, 8 * 4194304.0);
  g_assert_cmpint (mem.trainable_params, ==, 4194304);

  t.finetune.fp32_adapters = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  g_assert_cmpfloat (mem.adapters, ==, 16 * 4194304.0);

  /* bf16-mixed: the adapters get an fp32 master and fp32 states (2 + 4 +
   * 2 + 8 = 16 B); the frozen base stays bf16, with no master copy. */
  t.finetune.fp32_adapters = false;
  t.precision = HR_PRECISION_BF16_MIXED;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  g_assert_cmpfloat (mem.frozen_weights, ==, 2 * 6738415616.0);
  g_assert_cmpfloat (mem.adapters, ==, 16 * 4194304.0);
}

static void
test_fsdp_frozen (void)
{
  /* FSDP full shard over 8 GPUs shards the frozen base too (2 B · P / 8)
   * and the adapters' states; gradients and states exist for the adapters
   * only: 4,194,304 · (2 + 2 + 4) / 8. ZeRO-2 keeps the base whole. */
  HrTrainingMemory mem;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;

  llama2_7b_lora_fsdp8 (&m, &t, &gpu);
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  assert_near (2 * 6738415616.0 / 8, mem.frozen_weights, 1e-12);
  assert_near (8 * 4194304.0 / 8, mem.adapters, 1e-12);
  /* FSDP gathers the largest layer (202,383,360 parameters) for the
   * current and the next: in bf16 and without the base gradient that full
   * training holds until its reduce-scatter (2 · 2 + 2 bytes there): 2 B
   * per parameter less. */
  {
    HrTrainingMemory full;

    t.finetune.method = HR_FINETUNE_FULL;
    g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &full, &err), ==, HR_OK);
    assert_near (full.temporary - 2 * 202383360.0, mem.temporary, 1e-12);
    t.finetune.method = HR_FINETUNE_LORA;
  }

  t.fsdp = HR_FSDP_NONE;
  t.zero_stage = 2;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  g_assert_cmpfloat (mem.frozen_weights, ==, 2 * 6738415616.0);
  /* weights whole (2 B), gradients and states sharded: (2 + 4) / 8 */
  assert_near (4194304.0 * (2 + 6.0 / 8), mem.adapters, 1e-12);
}

/* The frozen base's tensors are separate blocks under ZeRO 1 and 2, which
 * flatten only what they optimise: on one GPU, ZeRO 0 and ZeRO 1 reserve
 * the same. Llama 2 7B's 224 matrices in bf16 (22.5–86 MiB each, over the
 * allocator's 10 MiB large-block threshold) each waste half of the 2 MiB
 * rounding on average: 224 MiB of rounding, beside the saved tensors' own,
 * under either stage. */
static void
test_frozen_blocks (void)
{
  HrTrainingMemory zero0, zero1;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;

  llama2_7b (&m);
  round_gpu (&gpu);
  one_gpu (&t);
  t.finetune.method = HR_FINETUNE_LORA;
  t.zero_stage = 0;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &zero0, &err), ==, HR_OK);
  t.zero_stage = 1;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &zero1, &err), ==, HR_OK);
  g_assert_cmpfloat (zero1.reserved_peak - zero1.allocated_peak - zero1.cached_free, ==,
                     zero0.reserved_peak - zero0.allocated_peak - zero0.cached_free);
  g_assert_cmpfloat (zero0.reserved_peak - zero0.allocated_peak - zero0.cached_free, >=,
                     224 * 1024.0 * 1024.0);
}

/* Activations */

static double
layer_bytes (const HrModel    *m,
             const HrTraining *t)
{
  HrTrainingActivations act;
  HrError err = { 0 };

  g_assert_cmpint (hr_training_activations (m, t, 0, &act, &err), ==, HR_OK);
  return act.per_layer;
}

static void
test_activations (void)
{
  /* Llama 2 7B, b·s = 512 tokens, bf16, flash attention. Against full
   * training, LoRA on q and v (bf16 adapters, no dropout) no longer saves
   * the MLP input (512 · 4096 · 2: gate and up are frozen) nor the down
   * input (512 · 11008 · 2); the attention input stays (lora_A of q and v
   * reads the same tensor); each adapter adds A's output, 512 · 8 · 2. */
  const double T = 512, h = 4096, f = 11008, r = 8;
  HrTraining t;
  HrModel m;
  double full, lora;

  llama2_7b (&m);
  one_gpu (&t);
  full = layer_bytes (&m, &t);
  t.finetune.method = HR_FINETUNE_LORA;
  lora = layer_bytes (&m, &t);
  assert_near (full - T * h * 2 - T * f * 2 + 2 * T * r * 2, lora, 1e-12);

  /* An eager RMSNorm (transformers' LlamaRMSNorm) saves its normalised
   * input only for its weight's gradient (weight · x̂): frozen, the two
   * norms of a layer no longer keep 512 · 4096 · 2 bytes each. */
  t.norm_kernel = HR_NORM_KERNEL_EAGER;
  t.finetune.method = HR_FINETUNE_FULL;
  full = layer_bytes (&m, &t);
  t.finetune.method = HR_FINETUNE_LORA;
  assert_near (full - T * h * 2 - T * f * 2 + 2 * T * r * 2 - 2 * T * h * 2,
               layer_bytes (&m, &t), 1e-12);
  t.norm_kernel = HR_NORM_KERNEL_FUSED;
  t.finetune.method = HR_FINETUNE_FULL;
  full = layer_bytes (&m, &t);
  t.finetune.method = HR_FINETUNE_LORA;

  /* PEFT's fp32 adapters cast x for each adapter: q and v each save an
   * fp32 copy (512 · 4096 · 4) and the shared bf16 attention input goes;
   * A's outputs are fp32 (512 · 8 · 4). */
  t.finetune.fp32_adapters = true;
  assert_near (full - 2 * T * h * 2 - T * f * 2 + 2 * T * (h * 4 + r * 4),
               layer_bytes (&m, &t), 1e-12);

  /* Dropout 0.05 on bf16 adapters: each adapter a bool mask and a dropped
   * copy (512 · 4096 · (1 + 2)); the shared input goes. */
  t.finetune.fp32_adapters = false;
  t.finetune.dropout = 0.05;
  assert_near (full - 2 * T * h * 2 - T * f * 2 + 2 * T * (h * 3 + r * 2),
               layer_bytes (&m, &t), 1e-12);

  /* DoRA (bf16, no dropout) adds per adapter the LoRA result and the base
   * result, 512 · out · (2 + 2), out = 4096 for q and v. */
  t.finetune.dropout = 0;
  t.finetune.method = HR_FINETUNE_DORA;
  assert_near (full - T * h * 2 - T * f * 2 + 2 * T * (r * 2 + h * 4),
               layer_bytes (&m, &t), 1e-12);

  /* QLoRA with bitsandbytes before 0.43.2 (LitGPT's runs: 0.41.1): every
   * 4-bit matmul saved its input, so with every linear quantised nothing
   * is dropped against full training; the adapters add A's outputs. */
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.quant_scope = HR_QUANT_SCOPE_ALL;
  t.finetune.quant_saves_input = true;
  assert_near (full + 2 * T * r * 2, layer_bytes (&m, &t), 1e-12);
  t.finetune.quant_saves_input = false;
  /* LLM.int8 (bitsandbytes MatMul8bitLt) always saves its input: the same. */
  t.finetune.quant = HR_QUANT_INT8;
  assert_near (full + 2 * T * r * 2, layer_bytes (&m, &t), 1e-12);
  t.finetune.quant = HR_QUANT_NF4;
  t.finetune.method = HR_FINETUNE_DORA;

  /* Full recomputation keeps the layer input only, whatever is trained. */
  t.recompute = HR_RECOMPUTE_FULL;
  g_assert_cmpfloat (layer_bytes (&m, &t), ==, T * h * 2);
}

/* Inputs kept on autograd contexts (docs/training.md, "Inputs kept on
 * autograd contexts"): QLoRA of Llama 2 7B with every linear and the head
 * in 4 bits, bitsandbytes before 0.43.2, 512 tokens, q and v adapted, no
 * dropout. Each layer's 4-bit matmuls keep four inputs: the attention's
 * (q, k and v read the same norm output), o's (the attention output, 4096
 * wide), the MLP's (gate and up read one) and down's (11008 wide), 2 bytes
 * each: 512 · (3 · 4096 + 11008) · 2 = 23,855,104 B; 32 layers and the
 * head's input (512 · 4096 · 2) make 767,557,632 B. */
static void
test_held_inputs (void)
{
  const double T = 512, h = 4096, f = 11008;
  const double layer = T * (3 * h + f) * 2, held = 32 * layer + T * h * 2;
  HrTrainingMemory kept, dropped, saves, plain;
  HrTrainingActivations act;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;

  llama2_7b (&m);
  round_gpu (&gpu);
  one_gpu (&t);
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.quant_scope = HR_QUANT_SCOPE_ALL;
  t.finetune.quant_saves_input = true;
  g_assert_cmpint (hr_training_activations (&m, &t, 0, &act, &err), ==, HR_OK);
  assert_near (layer, act.held_per_layer, 1e-12);
  assert_near (held, act.held_inputs, 1e-12);

  /* The backward does not free them: its last layer's phase holds the other
   * 31 layers' and the head's beyond what that layer saves. Against a run
   * whose 4-bit matmuls keep nothing, that layer saves its MLP and down
   * inputs more (lora_A keeps the attention input; the flash kernel, o's)
   * and the forward's end those of every layer and the head. */
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &saves, &err), ==, HR_OK);
  t.finetune.quant_saves_input = false;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &plain, &err), ==, HR_OK);
  assert_near (32 * T * (h + f) * 2 + T * h * 2, saves.peak_forward - plain.peak_forward, 1e-12);
  assert_near (T * (h + f) * 2 + held - layer,
               saves.peak_layer_backward - plain.peak_layer_backward, 1e-12);

  /* A loop that keeps the loss keeps them through the optimizer step and
   * the next micro-batch's forward; the loss's backward follows the next
   * loss, which frees the previous graph. */
  t.finetune.quant_saves_input = true;
  t.finetune.loop_keeps_loss = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &kept, &err), ==, HR_OK);
  assert_near (held, kept.peak_forward - saves.peak_forward, 1e-12);
  assert_near (held, kept.peak_optimizer - saves.peak_optimizer, 1e-12);
  g_assert_cmpfloat (kept.peak_loss_backward, ==, saves.peak_loss_backward);
  g_assert_cmpfloat (kept.peak_layer_backward, ==, saves.peak_layer_backward);

  /* LLM.int8 (MatMul8bitLt: ctx.tensors = (CAt, subA, A)) keeps them in
   * every bitsandbytes version. */
  t.finetune.quant_saves_input = false;
  t.finetune.quant = HR_QUANT_INT8;
  g_assert_cmpint (hr_training_activations (&m, &t, 0, &act, &err), ==, HR_OK);
  assert_near (held, act.held_inputs, 1e-12);

  /* Under reentrant checkpointing the layers' forward builds no graph:
   * only the head, outside the checkpoints, keeps its input. A 16-bit run
   * keeps nothing. */
  t.recompute = HR_RECOMPUTE_FULL;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &kept, &err), ==, HR_OK);
  g_assert_cmpfloat (kept.activation.held_inputs, ==, T * h * 2);
  t.recompute = HR_RECOMPUTE_NONE;
  t.finetune.method = HR_FINETUNE_LORA;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &dropped, &err), ==, HR_OK);
  g_assert_cmpfloat (dropped.activation.held_inputs, ==, 0);
  g_assert_cmpfloat (dropped.peak_held_inputs, ==, 0);
}

static void
test_freeze_activations_and_head (void)
{
  /* Freezing the embedding and the first 8 of 32 layers leaves those
   * layers outside the autograd graph: 24 layers' activations remain.
   * LoRA (head frozen, not adapted) drops the head's saved input:
   * 512 · 4096 · 2. */
  HrTrainingActivations full, act;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;

  llama2_7b (&m);
  one_gpu (&t);
  g_assert_cmpint (hr_training_activations (&m, &t, 0, &full, &err), ==, HR_OK);
  t.finetune.method = HR_FINETUNE_FREEZE;
  t.finetune.freeze_layers = 8;
  g_assert_cmpint (hr_training_activations (&m, &t, 0, &act, &err), ==, HR_OK);
  assert_near (full.micro_batch - 8 * full.per_layer, act.micro_batch, 1e-12);

  t.finetune.method = HR_FINETUNE_LORA;
  g_assert_cmpint (hr_training_activations (&m, &t, 0, &act, &err), ==, HR_OK);
  g_assert_cmpfloat (act.lm_head, ==, 0);
  g_assert_cmpfloat (full.lm_head, ==, 512.0 * 4096 * 2);
}

/* FLOPs and time */

/* FSDP1 with use_orig_params (Lightning Fabric's default, LitGPT's FSDP
 * fine-tunes) flattens each wrapped layer's frozen and trained weights into
 * one FlatParameter that requires grad: the frozen weights get gradients,
 * and save their inputs, as if trained (torch FSDP docstring: "equivalent
 * to not freezing those parameters"). Llama 2 7B, LoRA r 8 on q, v, bf16,
 * FSDP full shard over 8 GPUs, 512 tokens. */
static void
test_frozen_gradients (void)
{
  /* 32 layers of 202,383,360 parameters (embedding, head and final norm,
   * 262,148,096, are FSDP's root unit, all frozen). */
  const double layers = 32 * 202383360.0, adapters = 4194304.0;
  const double T = 512, r = 8;
  HrTrainingMemory plain, mem;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;
  double full;

  llama2_7b_lora_fsdp8 (&m, &t, &gpu);
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &plain, &err), ==, HR_OK);
  t.finetune.frozen_gradients = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  /* bf16 gradients of every layer weight, sharded: 2 B × 6,476,267,520 ÷ 8;
   * the adapters' states unchanged. */
  assert_near (2 * layers / 8, mem.frozen_gradients, 1e-12);
  assert_near (plain.gradients + 2 * layers / 8, mem.gradients, 1e-12);
  assert_near (plain.adapters, mem.adapters, 1e-12);
  assert_near ((adapters + layers) / 6738415616.0, mem.gradient_share, 1e-9);
  /* Each gathered layer's unsharded gradient is back in the backward's
   * buffers until its reduce-scatter: 2 B × the largest layer. */
  assert_near (plain.temporary + 2 * 202383360.0, mem.temporary, 1e-12);

  /* Under no_sync() with 2 micro-batches a step (16 sequences on 8 GPUs),
   * the gradients stay whole: 2 B × (layers + adapters). */
  t.global_batch = 16;
  t.no_sync = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  assert_near (2 * layers, mem.frozen_gradients, 1e-12);
  assert_near (2 * (layers + adapters), mem.gradients, 1e-12);
  t.global_batch = 0;
  t.no_sync = false;

  /* Activations: what full training saves, plus A's r-wide outputs. */
  t.finetune.frozen_gradients = false;
  t.finetune.method = HR_FINETUNE_FULL;
  full = layer_bytes (&m, &t);
  t.finetune.method = HR_FINETUNE_LORA;
  t.finetune.frozen_gradients = true;
  assert_near (full + 2 * T * r * 2, layer_bytes (&m, &t), 1e-12);

  /* Only LoRA and DoRA, and only under FSDP. */
  t.finetune.method = HR_FINETUNE_QLORA;
  g_assert_cmpint (hr_training_validate (&t, &m, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "frozen_gradients");
  t.finetune.method = HR_FINETUNE_DORA;
  g_assert_cmpint (hr_training_validate (&t, &m, &err), ==, HR_OK);
  t.fsdp = HR_FSDP_NONE;
  g_assert_cmpint (hr_training_validate (&t, &m, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "frozen_gradients");
}

/* The layers' weight gradients come back: backward = 2F − F_head + 2C + 2A
 * (test_flops' notation; the head is in the frozen root unit). */
static void
test_frozen_gradients_flops (void)
{
  const double A = 2 * 512 * 4194304.0;
  HrFlopsOptions o = { .seq_len = 512, .micro_batch = 1, .attention = HR_ATTENTION_EAGER };
  HrFlops full, lora;
  HrFinetune f;
  HrError err = { 0 };
  HrModel m;
  double core, weights, head;

  llama2_7b (&m);
  g_assert_cmpint (hr_flops_training (&m, &o, &full, &err), ==, HR_OK);
  core = full.component[HR_FLOPS_ATTN_SCORES].forward + full.component[HR_FLOPS_ATTN_OVER_V].forward;
  weights = full.forward - core;
  head = full.component[HR_FLOPS_LM_HEAD].forward;
  hr_finetune_init (&f);
  f.method = HR_FINETUNE_LORA;
  f.frozen_gradients = true;
  o.finetune = &f;
  g_assert_cmpint (hr_flops_training (&m, &o, &lora, &err), ==, HR_OK);
  assert_near (2 * weights - head + 2 * core + 2 * A, lora.backward, 1e-12);
}

static void
test_flops (void)
{
  /* For T tokens, with F the forward FLOPs of the weight products and C of
   * the attention core: full training runs 3F + 3C (+ flash's recomputed
   * QKᵀ). LoRA's frozen base computes input gradients only: F + 2C in the
   * backward, plus the adapters: forward A = 2·T·r·(in + out) summed over
   * adapted matrices, backward 2A. Llama 2 7B r 8 on q, v: A = 2 · 512 ·
   * 4,194,304 (the adapter count is Σ r·(in + out)). */
  const double T = 512, A = 2 * T * 4194304.0;
  HrFlopsOptions o = { .seq_len = 512, .micro_batch = 1, .attention = HR_ATTENTION_EAGER };
  HrFlops full, lora;
  HrFinetune f;
  HrError err = { 0 };
  HrModel m;
  double core, weights;

  llama2_7b (&m);
  g_assert_cmpint (hr_flops_training (&m, &o, &full, &err), ==, HR_OK);
  core = full.component[HR_FLOPS_ATTN_SCORES].forward + full.component[HR_FLOPS_ATTN_OVER_V].forward;
  weights = full.forward - core;

  hr_finetune_init (&f);
  f.method = HR_FINETUNE_LORA;
  o.finetune = &f;
  g_assert_cmpint (hr_flops_training (&m, &o, &lora, &err), ==, HR_OK);
  assert_near (full.forward + A, lora.forward, 1e-12);
  assert_near (weights + 2 * core + 2 * A, lora.backward, 1e-12);
  /* the weight products: 2F (≈ 4N per token) instead of 3F (6N) */
  assert_near (2.0 / 3.0, (lora.forward + lora.backward - 3 * core - 3 * A)
                          / (full.forward + full.backward - 3 * core), 1e-12);

  /* Freezing 16 of 32 layers (and the embedding): their backward is gone;
   * the head's backward stays whole (2 × its forward). */
  f.method = HR_FINETUNE_FREEZE;
  f.freeze_layers = 16;
  g_assert_cmpint (hr_flops_training (&m, &o, &lora, &err), ==, HR_OK);
  {
    double head = full.component[HR_FLOPS_LM_HEAD].forward;

    assert_near ((full.backward - 2 * head) / 2 + 2 * head, lora.backward, 1e-12);
  }
}

static void
test_qlora_time_and_buffer (void)
{
  /* QLoRA on Llama 2 7B, NF4 + DQ over every linear but the head (6,476,005,376
   * parameters): each micro-batch reads 0.515869140625 B and writes 2 B per
   * quantised parameter in the forward and again in the backward; 4
   * micro-batches at the rate the planner's memory-bound kernels run at,
   * 2e12 B/s × 0.8: 4 · 2 · P · 2.515869140625 / 1.6e12 s. The
   * dequantisation buffer: the largest matrix in bf16, 4096 · 11008 · 2. */
  HrTrainingMemory mem, lora_mem;
  HrTrainingTime time;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;

  llama2_7b (&m);
  round_gpu (&gpu);
  one_gpu (&t);
  t.global_batch = 4;
  t.finetune.method = HR_FINETUNE_LORA;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &lora_mem, &err), ==, HR_OK);
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.double_quant = true;
  t.mfu = 0.4;   /* a set utilisation: the dequantisation is added on top */
  g_assert_cmpint (hr_training_time (&m, &t, &gpu, &time, &err), ==, HR_OK);
  assert_near (4 * 2 * 6476005376.0 * 2.515869140625 / 1.6e12, time.dequant_seconds, 1e-12);
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  assert_near (lora_mem.temporary + 4096.0 * 11008 * 2, mem.temporary, 1e-12);
  /* It lives inside a layer: in the layers' backward, not at the loss
   * (whose head stays bf16) nor in the optimizer step. The two runs save
   * the same activations, so against LoRA only the frozen weights move
   * every phase alike, and the layers' backward by the buffer more. */
  assert_near (mem.peak_loss_backward - lora_mem.peak_loss_backward + 4096.0 * 11008 * 2,
               mem.peak_layer_backward - lora_mem.peak_layer_backward, 1e-12);
  assert_near (mem.peak_loss_backward - lora_mem.peak_loss_backward,
               mem.peak_optimizer - lora_mem.peak_optimizer, 1e-12);
  /* LitGPT's quantised head (4096 · 32000) is dequantised for the head's
   * backward, at the loss; the layers' backward holds a layer's matrix. */
  t.finetune.quant_scope = HR_QUANT_SCOPE_ALL;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  assert_near (lora_mem.temporary + 4096.0 * 32000 * 2, mem.temporary, 1e-12);
  assert_near (mem.peak_loss_backward - lora_mem.peak_loss_backward
               - (4096.0 * 32000 - 4096.0 * 11008) * 2,
               mem.peak_layer_backward - lora_mem.peak_layer_backward, 1e-12);
  /* Quantised from fp16 (Lightning): dequantize_4bit gives fp16 and
   * .to(bf16) a second copy beside it, 4 B per element of the head; the
   * pass writes 2 B, reads them and writes 2 B more: 2.515869140625 + 4
   * per quantised parameter, the head's 131,072,000 now among them. In
   * fp16 the cast is a no-op. */
  t.finetune.quant_from_fp16 = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  assert_near (lora_mem.temporary + 4096.0 * 32000 * 4, mem.temporary, 1e-12);
  g_assert_cmpint (hr_training_time (&m, &t, &gpu, &time, &err), ==, HR_OK);
  assert_near (4 * 2 * (6476005376.0 + 131072000.0) * (2.515869140625 + 4) / 1.6e12,
               time.dequant_seconds, 1e-12);
  t.precision = HR_PRECISION_FP16_MIXED;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  t.finetune.quant_from_fp16 = false;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &lora_mem, &err), ==, HR_OK);
  assert_near (lora_mem.temporary, mem.temporary, 1e-12);
}

/* Published runs */

static double
within (const char *id,
        double      measured_gib,
        double      predicted_bytes,
        double      tolerance)
{
  double ratio = predicted_bytes / GIB / measured_gib;

  g_test_message ("%s: measured %.2f GiB, predicted %.2f GiB (%+.1f %%)", id, measured_gib,
                  predicted_bytes / GIB, 100 * (ratio - 1));
  if (fabs (ratio - 1) > tolerance)
    g_error ("%s: predicted %.2f GiB against %.2f GiB measured", id, predicted_bytes / GIB,
             measured_gib);
  return ratio;
}

static void
memory_of (const HrModel    *m,
           const HrTraining *t,
           HrTrainingMemory *mem)
{
  HrError err = { 0 };
  HrGpu gpu;

  round_gpu (&gpu);
  g_assert_cmpint (hr_training_memory (m, t, &gpu, mem, &err), ==, HR_OK);
}

/* ../shared/data/peft-runs.json and real-runs.json, each run with its
 * published settings and no constant fitted; each against the statistic its
 * project reports (docs/training.md, "Checked against published runs").
 * Within 10 %. */
static void
test_reference_runs (void)
{
  HrTrainingMemory mem;
  HrTraining t;
  HrModel l2, l3;

  llama2_7b (&l2);
  llama32_3b (&l3);

  /* torchtune-tutorial-l2-7b-lora-qv-r8: batch 2 × 512, AC, bf16, AdamW,
   * r 8 on q, v, dropout 0.05; peak reserved 15.57 GB = 14.50 GiB. */
  one_gpu (&t);
  t.micro_batch = 2;
  t.global_batch = 128;
  t.recompute = HR_RECOMPUTE_FULL;
  t.finetune.method = HR_FINETUNE_LORA;
  t.finetune.dropout = 0.05;
  memory_of (&l2, &t, &mem);
  within ("torchtune L2-7B LoRA", 14.501, mem.reserved_peak, 0.10);
  /* Beyond the shared file, the same tutorial table's other rows
   * (docs/source/tutorials/lora_finetune.rst): all layers (q, k, v, output,
   * the MLP and the LM head) at r 8, 15.87 GB; q, v at r 64, 15.86 GB; all
   * layers at r 64, 17.04 GB. */
  t.finetune.targets = HR_TARGETS_ALL_LINEAR | HR_TARGET_LM_HEAD;
  memory_of (&l2, &t, &mem);
  within ("torchtune L2-7B LoRA all r 8", 15.87e9 / GIB, mem.reserved_peak, 0.10);
  t.finetune.rank = 64;
  memory_of (&l2, &t, &mem);
  within ("torchtune L2-7B LoRA all r 64", 17.04e9 / GIB, mem.reserved_peak, 0.10);
  t.finetune.targets = HR_TARGETS_ATTENTION;
  memory_of (&l2, &t, &mem);
  within ("torchtune L2-7B LoRA q,v r 64", 15.86e9 / GIB, mem.reserved_peak, 0.10);
  t.finetune.rank = 8;

  /* torchtune-tutorial-l2-7b-qlora (docs/source/tutorials/qlora_finetune.rst
   * at 0914d5c, torchao 0.1): qlora_llama2_7b, r 8 on q, k, v, output and
   * the MLP, NF4 with double quantisation on the adapted linears. Peak
   * reserved 9.13 GB after model init and 9.29 GB over training: the
   * load's reserve (hr-finetune-load.c, a replay of the caching allocator,
   * no constant in it) against the first, the run's peak against the
   * second. Without the load the step alone reserves 5.1 GB. */
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.targets = HR_TARGETS_ALL_LINEAR;
  t.finetune.double_quant = true;
  t.finetune.quant_scope = HR_QUANT_SCOPE_ADAPTED;
  memory_of (&l2, &t, &mem);
  g_assert_cmpfloat (mem.load_reserved, ==, 0);
  g_assert_cmpfloat (mem.reserved_peak, <, 5.5e9);
  {
    /* torchao 0.1 dequantises the largest matrix, 4,096 × 11,008 =
     * 45,088,768 elements, at 14 B each where a 16-bit copy takes 2:
     * 12 · 45,088,768 = 541,065,216 B more of temporaries. */
    double chunked = mem.temporary;

    t.finetune.quant_load_whole = true;
    memory_of (&l2, &t, &mem);
    g_assert_cmpfloat (mem.temporary - chunked, ==, 541065216);
  }
  g_assert_cmpfloat (fabs (mem.load_reserved / 9.13e9 - 1), <=, 0.02);
  g_assert_cmpfloat (mem.load_excess, >, 0);
  within ("torchtune L2-7B QLoRA", 9.29e9 / GIB, mem.reserved_peak, 0.10);
  t.finetune.quant_load_whole = false;
  t.finetune.targets = HR_TARGETS_ATTENTION;
  t.finetune.double_quant = false;
  t.finetune.quant_scope = HR_QUANT_SCOPE_LINEAR;
  t.finetune.method = HR_FINETUNE_LORA;

  /* litgpt-a100-40g-l2-7b-lora-mb1: bf16-true, 1 × 1304 (the longest
   * Alpaca sample first), no AC, eager RMSNorm, r 8 q, v, dropout 0.05;
   * max_memory_allocated 21.3 GB = 19.84 GiB. */
  one_gpu (&t);
  t.seq_len = 1304;
  t.global_batch = 128;
  t.norm_kernel = HR_NORM_KERNEL_EAGER;
  t.finetune.method = HR_FINETUNE_LORA;
  t.finetune.dropout = 0.05;
  memory_of (&l2, &t, &mem);
  within ("LitGPT L2-7B LoRA", 19.837, mem.allocated_peak, 0.10);

  /* litgpt-a100-40g-l2-7b-qlora-dq-mb1: bnb.nf4-dq on every linear with the
   * head, bitsandbytes 0.41.1 (4-bit matmuls save their input); 13.84 GB. */
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.double_quant = true;
  t.finetune.quant_scope = HR_QUANT_SCOPE_ALL;
  t.finetune.quant_saves_input = true;
  memory_of (&l2, &t, &mem);
  within ("LitGPT L2-7B QLoRA", 12.89, mem.allocated_peak, 0.10);

  /* peft-l40s-l32-3b-*: bf16 (no autocast), 4 × 768, AdamW, no AC, eager
   * LlamaRMSNorm. PEFT's MetaMathQA run.py logs memory_reserved() after each
   * step and empties the cache after it: each step's own reserve. Batches are
   * bucketed by length, so the 99th percentile over steps (printed) sits
   * below the reserve of the longest, 768-token batch the estimate describes
   * — once the reserve holds the 16-bit logits' block (their `outputs` keep
   * the logits through the backward), LoRA's and DoRA's by 12 %. Held to the
   * run's maximum, accelerator_memory_max (evaluation included): 38.87,
   * 22.29 and 24.53 GB. */
  one_gpu (&t);
  t.micro_batch = 4;
  t.seq_len = 768;
  t.global_batch = 4;
  t.norm_kernel = HR_NORM_KERNEL_EAGER;
  memory_of (&l3, &t, &mem);
  g_test_message ("PEFT L3.2-3B full: 99th percentile 34.78 GiB (%+.1f %%)",
                  100 * (mem.reserved_peak / GIB / 34.78 - 1));
  within ("PEFT L3.2-3B full", 38868615168 / GIB, mem.reserved_peak, 0.10);
  t.finetune.method = HR_FINETUNE_LORA;
  t.finetune.rank = 32;
  t.finetune.fp32_adapters = true;
  memory_of (&l3, &t, &mem);
  g_test_message ("PEFT L3.2-3B LoRA: 99th percentile 18.74 GiB (%+.1f %%)",
                  100 * (mem.reserved_peak / GIB / 18.738 - 1));
  within ("PEFT L3.2-3B LoRA", 22292725760 / GIB, mem.reserved_peak, 0.10);
  t.finetune.method = HR_FINETUNE_DORA;
  memory_of (&l3, &t, &mem);
  g_test_message ("PEFT L3.2-3B DoRA: 99th percentile 20.66 GiB (%+.1f %%)",
                  100 * (mem.reserved_peak / GIB / 20.656 - 1));
  within ("PEFT L3.2-3B DoRA", 24532484096 / GIB, mem.reserved_peak, 0.10);
  /* Beyond the shared file, two more LoRA runs of the same MetaMathQA table
   * (huggingface/peft method_comparison/MetaMathQA/results, 2026-07):
   * lora--llama-3.2-3B-rank64 (q, v; 18,350,080 trainable) and
   * lora--llama-3.2-3B-rank10-target-mlp (gate, up, down; 9,461,760),
   * accelerator_memory_max 22.55 and 24.70 GB. */
  t.finetune.method = HR_FINETUNE_LORA;
  t.finetune.rank = 64;
  memory_of (&l3, &t, &mem);
  within ("PEFT L3.2-3B LoRA r 64", 22552772608 / GIB, mem.reserved_peak, 0.10);
  t.finetune.rank = 10;
  t.finetune.targets = HR_TARGET_GATE | HR_TARGET_UP | HR_TARGET_DOWN;
  memory_of (&l3, &t, &mem);
  within ("PEFT L3.2-3B LoRA r 10 MLP", 24698159104 / GIB, mem.reserved_peak, 0.10);

  /* torchtune-a100-l32-3b-lora (README, llama3_2/3B_lora_single_device):
   * r 64 on q, v, o and the MLP, 2 × 4096 packed, AC, compile, chunked
   * cross-entropy, activation offloading; peak active 8.5 GiB. */
  one_gpu (&t);
  t.micro_batch = 2;
  t.seq_len = 4096;
  t.global_batch = 2;
  t.recompute = HR_RECOMPUTE_FULL;
  t.compile = true;
  t.loss = HR_LOSS_CHUNKED;
  t.offload_activations = true;
  t.causal = true;
  t.finetune.method = HR_FINETUNE_LORA;
  t.finetune.rank = 64;
  t.finetune.targets = HR_TARGET_Q | HR_TARGET_V | HR_TARGET_O | HR_TARGET_GATE | HR_TARGET_UP
                       | HR_TARGET_DOWN;
  memory_of (&l3, &t, &mem);
  within ("torchtune L3.2-3B LoRA", 8.5, mem.allocated_peak, 0.10);

  /* The README's QLoRA row (llama3_2/3B_qlora_single_device, the same
   * adapters and techniques): peak active 4.6 GiB. torchtune quantises
   * every linear of the layers, k without an adapter as FrozenNF4Linear
   * (torchtune #1119), never the tied output (the embedding table). The
   * peak is the loss's backward, T = 8,192 tokens:
   *   NF4 + DQ  28 · 100,663,296 linears · 0.515869140625 = 1,454,014,464
   *   the embedding 394,002,432 · 2, norms 175,104 · 2    =   788,355,072
   *   adapters 28 · 3,211,264 = 89,915,392 · (2 + 4)     =   539,492,352
   *   saved: two layer inputs 2 · T·h·2, the compiled final
   *     norm T·h·2 + T·4, the bf16 logits and labels T·V·2 + T·8,
   *     the token ids T·8                                  = 2,252,505,088
   *   one chunk's logit gradient 1,024 · 128,256 · 2      =   262,668,288
   *                                                         5,297,035,264 B
   * = 4.93 GiB (+7.2 %). No NF4 matrix is dequantised there: the tied
   * head is bf16. Counting k in bf16 (+130,722,816) and a dequantised
   * 3072 × 8192 matrix at the loss (+50,331,648) gave 5.10 GiB (+10.9 %). */
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.double_quant = true;
  t.finetune.quant_scope = HR_QUANT_SCOPE_LINEAR;
  memory_of (&l3, &t, &mem);
  g_assert_cmpfloat (mem.frozen_weights, ==, 2242369536);
  g_assert_cmpfloat (mem.peak_loss_backward, ==, 5297035264);
  g_assert_cmpfloat (mem.allocated_peak, ==, 5297035264);
  within ("torchtune L3.2-3B QLoRA", 4.6, mem.allocated_peak, 0.10);
  t.finetune.method = HR_FINETUNE_LORA;

  /* Its throughput, 8,210 tokens/s on an A100 (312 TFLOP/s bf16, 2.039
   * TB/s), at the utilisation the same table's full fine-tune with AC
   * reached (7,210 tokens/s; torch AdamW, no offloading): within 15 %.
   * tests/service/test-real-runs.c predicts the same run, with the same
   * settings, from the hardware instead (no utilisation set: the planner's
   * step model at the catalog's A100 rates), 10,272 tokens/s (+25 %), as
   * optimistic as its prediction of the table's full fine-tunes; this test
   * checks the fine-tuning FLOPs against a measured utilisation. */
  {
    HrTrainingUtilization u;
    HrTrainingTime time;
    HrTraining full = t;
    HrError err = { 0 };
    HrGpu a100;

    round_gpu (&a100);
    for (int i = 0; i < HR_DTYPE_N; i++)
      a100.peak_flops[i] = 312e12;
    a100.memory_bandwidth = 2.039e12;
    full.finetune.method = HR_FINETUNE_FULL;
    full.offload_activations = false;
    g_assert_cmpint (hr_training_utilization_from_tokens_per_second (&l3, &full, &a100, 7210,
                                                                     &u, &err), ==, HR_OK);
    t.mfu = u.hfu;
    g_assert_cmpint (hr_training_time (&l3, &t, &a100, &time, &err), ==, HR_OK);
    g_test_message ("torchtune L3.2-3B LoRA: %.0f tokens/s predicted, 8210 measured",
                    time.tokens_per_second);
    g_assert_cmpfloat (fabs (time.tokens_per_second / 8210 - 1), <=, 0.15);
  }
}

static void
test_names (void)
{
  unsigned targets;
  char buf[128];
  HrFinetuneMethod method;

  g_assert_true (hr_finetune_targets_from_string ("attention", &targets));
  g_assert_cmpuint (targets, ==, HR_TARGET_Q | HR_TARGET_V);
  g_assert_true (hr_finetune_targets_from_string ("all-linear", &targets));
  hr_finetune_targets_to_string (targets, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "q,k,v,o,gate,up,down");
  g_assert_true (hr_finetune_targets_from_string ("q,v,lm_head", &targets));
  g_assert_cmpuint (targets, ==, HR_TARGET_Q | HR_TARGET_V | HR_TARGET_LM_HEAD);
  g_assert_false (hr_finetune_targets_from_string ("q,,v", &targets));
  g_assert_false (hr_finetune_targets_from_string ("qkv", &targets));
  /* spaces around the names, as people type lists */
  g_assert_true (hr_finetune_targets_from_string (" q, v ,lm_head", &targets));
  g_assert_cmpuint (targets, ==, HR_TARGET_Q | HR_TARGET_V | HR_TARGET_LM_HEAD);
  g_assert_false (hr_finetune_targets_from_string ("q, ,v", &targets));
  g_assert_true (hr_finetune_method_from_name ("qlora", &method));
  g_assert_cmpstr (hr_finetune_method_name (method), ==, "qlora");
  g_assert_false (hr_finetune_method_from_name ("QLoRA", &method));
  {
    HrFinetune f;

    hr_finetune_init (&f);
    hr_finetune_set_model_type (&f, "phi3");
    g_assert_true (f.fused_qkv && f.fused_gate_up);
    hr_finetune_set_model_type (&f, "gpt_neox");
    g_assert_true (f.fused_qkv && !f.fused_gate_up);
    hr_finetune_set_model_type (&f, "llama");
    g_assert_false (f.fused_qkv || f.fused_gate_up);
    /* Remote code: InternLM2's wqkv, Baichuan's W_pack and Qwen-1's c_attn
     * fuse q, k, v (Qwen-1's w1 and w2 are separate);
     * EXAONE's and InternLM3's projections are separate. */
    hr_finetune_set_model_type (&f, "internlm2");
    g_assert_true (f.fused_qkv && !f.fused_gate_up);
    hr_finetune_set_model_type (&f, "baichuan");
    g_assert_true (f.fused_qkv && !f.fused_gate_up);
    hr_finetune_set_model_type (&f, "qwen");
    g_assert_true (f.fused_qkv && !f.fused_gate_up);
    hr_finetune_set_model_type (&f, "exaone");
    g_assert_false (f.fused_qkv || f.fused_gate_up);
    hr_finetune_set_model_type (&f, "internlm3");
    g_assert_false (f.fused_qkv || f.fused_gate_up);
  }
}

/* Paged optimizers (QLoRA §2; bitsandbytes optim/optimizer.py
 * get_state_buffer): the states of tensors of 1e5 elements or more live in
 * unified memory. They count in the total while the GPU has room; past it
 * they are evicted to the host, and the run fails only when the rest does
 * not fit. */
static void
test_paged_optimizer (void)
{
  HrTrainingMemory plain, paged;
  HrTrainingLimits limits;
  HrFinetuneParams fp;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;
  double states;

  llama2_7b (&m);
  round_gpu (&gpu);
  one_gpu (&t);
  t.paged_optimizer = true;

  /* LoRA r 8 on q, v: lora_A 8 × 4096 and lora_B 4096 × 8 are 32,768
   * elements each, under 1e5: nothing is paged. */
  t.finetune.method = HR_FINETUNE_LORA;
  params_ok (&m, &t.finetune, &fp);
  g_assert_cmpint (fp.paged, ==, 0);
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &paged, &err), ==, HR_OK);
  g_assert_cmpfloat (paged.pageable, ==, 0);

  /* r 64: 262,144 elements each, all paged: 64 · (4096 + 4096) · 2 · 32 =
   * 33,554,432 parameters; pure bf16 AdamW keeps m and v in bf16, 4 B per
   * parameter. */
  t.finetune.rank = 64;
  params_ok (&m, &t.finetune, &fp);
  g_assert_cmpint (fp.paged, ==, 33554432);
  g_assert_cmpint (fp.trainable, ==, 33554432);
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &paged, &err), ==, HR_OK);
  g_assert_cmpfloat (paged.pageable, ==, 4 * 33554432.0);
  g_assert_cmpfloat (paged.paged_out, ==, 0);

  /* Full training in pure bf16 with 8-bit AdamW: m and v one byte each
   * plus an fp32 absmax per 256-element block, 2 · (1 + 4/256) = 2.03125 B
   * per parameter, all of it paged. */
  t.finetune.method = HR_FINETUNE_FULL;
  t.optimizer = HR_OPTIMIZER_ADAMW_8BIT;
  t.paged_optimizer = false;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &plain, &err), ==, HR_OK);
  states = 2.03125 * 6738415616.0;
  assert_near (states, plain.optimizer, 1e-12);
  g_assert_cmpfloat (plain.pageable, ==, 0);

  /* Paged, the states are outside PyTorch's allocator (get_paged wraps
   * them with torch.frombuffer): not in the allocated peak, nor their 576
   * blocks (32 layers × 9 tensors × m and v) in the reserved peak's
   * rounding, 576 × 1 MiB; the total still holds the states themselves. */
  t.paged_optimizer = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &paged, &err), ==, HR_OK);
  assert_near (plain.allocated_peak - states, paged.allocated_peak, 1e-12);
  assert_near (plain.reserved_peak - states - 576 * 1048576.0, paged.reserved_peak, 1e-12);
  assert_near (plain.total - 576 * 1048576.0, paged.total, 1e-12);

  /* A GPU half the states short: without paging the run overflows by
   * them; paged, it fits, with the missing half evicted to the host. */
  gpu.memory_bytes = paged.total - states / 2;
  t.paged_optimizer = false;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &plain, &err), ==, HR_OK);
  g_assert_false (plain.fits);
  assert_near (states / 2 + 576 * 1048576.0, plain.overflow, 1e-12);
  g_assert_cmpint (hr_training_limits (&m, &t, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.max_micro_batch, ==, 0);

  t.paged_optimizer = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &paged, &err), ==, HR_OK);
  g_assert_true (paged.fits);
  assert_near (states, paged.pageable, 1e-12);
  assert_near (states / 2, paged.paged_out, 1e-12);
  g_assert_cmpfloat (paged.headroom, ==, 0);
  g_assert_cmpfloat (paged.overflow, ==, 0);
  g_assert_cmpint (hr_training_limits (&m, &t, &gpu, &limits, &err), ==, HR_OK);
  g_assert_cmpint (limits.max_micro_batch, >=, 1);

  /* Short of more than the states: it does not fit, by what is left. */
  gpu.memory_bytes = paged.total - states - 1e9;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &paged, &err), ==, HR_OK);
  g_assert_false (paged.fits);
  assert_near (1e9, paged.overflow, 1e-6);
  g_assert_cmpfloat (paged.paged_out, ==, 0);

  /* bitsandbytes pages AdamW, 8-bit AdamW and Lion; not ZeRO-Offload too. */
  t.optimizer = HR_OPTIMIZER_SGD;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &paged, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "paged_optimizer");
  t.optimizer = HR_OPTIMIZER_ADAMW;
  t.offload_optimizer = true;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &paged, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "paged_optimizer");
}

/* The host link (docs/training.md, "Time on the host link"): paged-out
 * states leave in the forward and backward and come back for the update,
 * 2 × paged_out a step at the link's rate with nothing to hide behind;
 * offloaded activations overlap the passes. */
static void
test_host_link (void)
{
  HrTrainingMemory memory;
  HrTrainingTime time;
  HrPlanStep step;
  HrTraining t;
  HrError err = { 0 };
  HrModel m;
  HrGpu gpu;
  double states = 2.03125 * 6738415616.0;   /* 8-bit AdamW of Llama 2 7B, as above */

  llama2_7b (&m);
  round_gpu (&gpu);
  gpu.host_bandwidth = 32e9;                /* an A100's PCIe Gen4 x16, one direction */
  one_gpu (&t);
  t.optimizer = HR_OPTIMIZER_ADAMW_8BIT;
  t.paged_optimizer = true;
  t.global_batch = 1;

  /* Room for everything: nothing crosses the link. */
  g_assert_cmpint (hr_training_time (&m, &t, &gpu, &time, &err), ==, HR_OK);
  g_assert_cmpfloat (time.host_bytes, ==, 0);
  g_assert_cmpfloat (time.host_seconds, ==, 0);

  /* Half the states short: 13,687,406,720 B paged out, out and back in,
   * 2 × 6,843,703,360 B ÷ 32 GB/s = 0.42773 s a step, inside the step. */
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &memory, &err), ==, HR_OK);
  gpu.memory_bytes = memory.total - states / 2;
  g_assert_cmpint (hr_plan_step (&m, &t, &gpu, NULL, &step, &err), ==, HR_OK);
  assert_near (states, step.host.bytes, 1e-12);
  assert_near (states / 32e9, step.host.seconds, 1e-12);
  assert_near (0.427731460, step.split.host_transfer, 1e-8);
  assert_near (step.split.compute + step.split.memory_bound + step.split.recompute
               + step.split.communication + step.split.bubble + step.split.optimizer
               + step.split.host_transfer, step.step_seconds, 1e-12);
  g_assert_cmpint (hr_training_time (&m, &t, &gpu, &time, &err), ==, HR_OK);
  g_assert_cmpfloat (time.host_seconds, ==, step.split.host_transfer);
  g_assert_cmpfloat (time.step_seconds, ==, step.step_seconds);

  /* A set utilisation does not see the link: hardware FLOPs ÷ (peak × u)
   * plus the same 0.4277 s. */
  t.mfu = 0.5;
  g_assert_cmpint (hr_training_time (&m, &t, &gpu, &time, &err), ==, HR_OK);
  assert_near (states / 32e9, time.host_seconds, 1e-12);
  assert_near (time.hardware_flops_per_step / (1e15 * 0.5) + states / 32e9, time.step_seconds,
               1e-12);

  /* A link of unknown rate cannot time them: the error names it. */
  gpu.host_bandwidth = 0;
  g_assert_cmpint (hr_training_time (&m, &t, &gpu, &time, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "host_bandwidth");
  t.mfu = 0;
  g_assert_cmpint (hr_training_time (&m, &t, &gpu, &time, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "host_bandwidth");

  /* Activation offloading: each micro-batch's offloaded tensors go out in
   * its forward and back in its backward, 2 × 1 × offloaded bytes, on a
   * side stream. At PCIe's rate they hide behind the passes; over a link
   * a thousand times slower what outlasts the passes is exposed. */
  round_gpu (&gpu);
  gpu.host_bandwidth = 32e9;
  one_gpu (&t);
  t.global_batch = 1;
  t.recompute = HR_RECOMPUTE_FULL;
  t.offload_activations = true;
  t.finetune.method = HR_FINETUNE_LORA;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &memory, &err), ==, HR_OK);
  /* 30 of 32 layer inputs (2 stay): 30 · 512 · 4096 · 2 B = 125,829,120 B. */
  g_assert_cmpfloat (memory.offloaded_activations, ==, 30.0 * 512 * 4096 * 2);
  g_assert_cmpint (hr_plan_step (&m, &t, &gpu, NULL, &step, &err), ==, HR_OK);
  g_assert_cmpfloat (step.host.bytes, ==, 2 * memory.offloaded_activations);
  g_assert_cmpfloat (step.split.host_transfer, ==, 0);
  gpu.host_bandwidth = 32e6;
  g_assert_cmpint (hr_plan_step (&m, &t, &gpu, NULL, &step, &err), ==, HR_OK);
  assert_near (2 * memory.offloaded_activations / 32e6, step.host.seconds, 1e-12);
  g_assert_cmpfloat (step.split.host_transfer, <, step.host.seconds);
  g_assert_cmpfloat (step.split.host_transfer, >=, step.host.seconds
                     - (step.split.compute + step.split.memory_bound + step.split.recompute));

  /* bitsandbytes synchronises the device after every parameter's update
   * (Optimizer8bit.step). Stepped inside the backward, it leaves each copy
   * back to start on an idle GPU: the whole way back, 125,829,120 B ÷
   * 32 GB/s = 3.93216 ms, is exposed; the way out still hides behind the
   * forward. torch's AdamW in the backward does not synchronise. */
  gpu.host_bandwidth = 32e9;
  t.optimizer_in_backward = true;
  g_assert_cmpint (hr_plan_step (&m, &t, &gpu, NULL, &step, &err), ==, HR_OK);
  g_assert_false (step.host_after_sync);
  g_assert_cmpfloat (step.split.host_transfer, ==, 0);
  t.optimizer = HR_OPTIMIZER_ADAMW_8BIT;
  g_assert_cmpint (hr_plan_step (&m, &t, &gpu, NULL, &step, &err), ==, HR_OK);
  g_assert_true (step.host_after_sync);
  assert_near (0.00393216, step.split.host_transfer, 1e-12);
  /* Stepped after the backward, the synchronisations come too late to matter. */
  t.optimizer_in_backward = false;
  g_assert_cmpint (hr_plan_step (&m, &t, &gpu, NULL, &step, &err), ==, HR_OK);
  g_assert_false (step.host_after_sync);
  g_assert_cmpfloat (step.split.host_transfer, ==, 0);
}

static void
test_validate (void)
{
  HrFinetune f;
  HrError err = { 0 };
  HrModel m;

  llama2_7b (&m);
  hr_finetune_init (&f);
  f.method = HR_FINETUNE_LORA;
  f.rank = 0;
  g_assert_cmpint (hr_finetune_validate (&f, &m, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "lora_rank");
  f.rank = 8;
  f.targets = 0;
  g_assert_cmpint (hr_finetune_validate (&f, &m, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "lora_targets");
  f.targets = HR_TARGETS_ATTENTION;
  f.method = HR_FINETUNE_QLORA;
  f.quant = HR_QUANT_NONE;
  g_assert_cmpint (hr_finetune_validate (&f, &m, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "quant");
  f.method = HR_FINETUNE_FREEZE;
  f.freeze_layers = 33;
  g_assert_cmpint (hr_finetune_validate (&f, &m, &err), !=, HR_OK);
  g_assert_cmpstr (err.field, ==, "freeze_layers");
  /* JetMoE's attention has no q/k/v/o Linear to adapt; its MLP targets
   * stay. */
  m.attention_experts = 8;
  m.n_heads = 64;
  f.method = HR_FINETUNE_LORA;
  f.targets = HR_TARGETS_ATTENTION;
  g_assert_cmpint (hr_finetune_validate (&f, &m, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "lora_targets");
  f.targets = HR_TARGET_UP | HR_TARGET_DOWN;
  g_assert_cmpint (hr_finetune_validate (&f, &m, &err), ==, HR_OK);
}

/* The whole-tensor NF4 load (hr-finetune-load.c) replays every layer: up
 * to HR_FINETUNE_LOAD_MAX_LAYERS, in bounded time; one more is refused by
 * name, and so are FP4, sharded layouts and mixtures of experts. */
static void
test_qlora_load_bounds (void)
{
  HrTrainingMemory mem;
  HrTraining t;
  HrModel m;
  HrError err = { 0 };
  HrGpu gpu;
  gint64 start;

  round_gpu (&gpu);
  llama2_7b (&m);
  one_gpu (&t);
  t.seq_len = 512;
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.targets = HR_TARGETS_ALL_LINEAR;
  t.finetune.quant_load_whole = true;
  m.n_layers = HR_FINETUNE_LOAD_MAX_LAYERS;
  start = g_get_monotonic_time ();
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_OK);
  g_test_message ("%d layers replayed in %.1f ms", HR_FINETUNE_LOAD_MAX_LAYERS,
                  (double) (g_get_monotonic_time () - start) / 1000);
  g_assert_true (isfinite (mem.load_reserved) && mem.load_reserved > mem.frozen_weights);
  g_assert_cmpfloat (mem.reserved_peak, >=, mem.load_reserved);
  m.n_layers++;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "quant_load_whole");
  m.n_layers = 32;
  t.finetune.quant = HR_QUANT_FP4;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "quant_load_whole");
  t.finetune.quant = HR_QUANT_NF4;
  t.gpus_per_node = 2;
  t.fsdp = HR_FSDP_FULL;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "quant_load_whole");
  one_gpu (&t);
  t.finetune.method = HR_FINETUNE_QLORA;
  t.finetune.quant_load_whole = true;
  m.n_experts = 8;
  m.experts_per_token = 2;
  m.expert_ffn_size = 1024;
  m.moe_layer_freq = 1;
  g_assert_cmpint (hr_training_memory (&m, &t, &gpu, &mem, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "quant_load_whole");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/finetune/params/published", test_params_published);
  g_test_add_func ("/finetune/params/fused-moe-head", test_params_fused_moe_head);
  g_test_add_func ("/finetune/quant/bytes", test_quant_bytes);
  g_test_add_func ("/finetune/quant/scopes", test_frozen_bytes_scopes);
  g_test_add_func ("/finetune/states", test_states);
  g_test_add_func ("/finetune/states/fsdp", test_fsdp_frozen);
  g_test_add_func ("/finetune/states/frozen-blocks", test_frozen_blocks);
  g_test_add_func ("/finetune/frozen-gradients", test_frozen_gradients);
  g_test_add_func ("/finetune/frozen-gradients/flops", test_frozen_gradients_flops);
  g_test_add_func ("/finetune/activations", test_activations);
  g_test_add_func ("/finetune/activations/freeze-head", test_freeze_activations_and_head);
  g_test_add_func ("/finetune/activations/held-inputs", test_held_inputs);
  g_test_add_func ("/finetune/flops", test_flops);
  g_test_add_func ("/finetune/qlora/time-buffer", test_qlora_time_and_buffer);
  g_test_add_func ("/finetune/qlora/load-bounds", test_qlora_load_bounds);
  g_test_add_func ("/finetune/reference-runs", test_reference_runs);
  g_test_add_func ("/finetune/names", test_names);
  g_test_add_func ("/finetune/validate", test_validate);
  g_test_add_func ("/finetune/paged-optimizer", test_paged_optimizer);
  g_test_add_func ("/finetune/host-link", test_host_link);

  return g_test_run ();
}
