/* test-inference.h: the GPU, models and settings shared by the inference tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <math.h>

#include <glib.h>

#include "hr-flops.h"
#include "hr-inference.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* H100 SXM5 80 GB (NVIDIA H100 datasheet): 80 GiB of HBM3 at 3.35 TB/s,
 * 989.4 TFLOP/s dense bf16/fp16, 1978.9 fp8, NVLink 900 GB/s both ways. */
static inline HrGpu
h100 (void)
{
  HrGpu gpu = { 0 };

  gpu.memory_bytes = 80.0 * GiB;
  gpu.memory_bandwidth = 3.35e12;
  gpu.peak_flops[HR_DTYPE_BF16] = 989.4e12;
  gpu.peak_flops[HR_DTYPE_FP16] = 989.4e12;
  gpu.peak_flops[HR_DTYPE_FP8] = 1978.9e12;
  gpu.intra_node_bandwidth = 450e9;
  return gpu;
}

/* meta-llama/Meta-Llama-3-8B config.json. */
static inline HrModel
llama3_8b (void)
{
  HrModel m;

  hr_model_init (&m);
  m.n_layers = 32;
  m.hidden_size = 4096;
  m.n_heads = 32;
  m.n_kv_heads = 8;
  m.head_dim = 128;
  m.ffn_size = 14336;
  m.ffn_kind = HR_FFN_GATED;
  m.vocab_size = 128256;
  m.positions = HR_POSITIONS_ROTARY;
  m.norm_kind = HR_NORM_RMSNORM;
  m.norm_bias = false;
  m.qkv_bias = m.out_bias = m.mlp_bias = false;
  m.tied_embeddings = false;
  return m;
}

/* mistralai/Mistral-7B-v0.1: Llama-3-8B's layers with vocab 32000 and
 * sliding_window 4096 on every layer. */
static inline HrModel
mistral_7b (void)
{
  HrModel m = llama3_8b ();

  m.vocab_size = 32000;
  m.sliding_window = 4096;
  m.sliding_window_period = 0;
  return m;
}

/* tiiuae/falcon-7b: multi_query (one KV head), 71 heads of 64, parallel
 * attention and MLP under one LayerNorm, no biases. */
static inline HrModel
falcon_7b (void)
{
  HrModel m;

  hr_model_init (&m);
  m.n_layers = 32;
  m.hidden_size = 4544;
  m.n_heads = 71;
  m.n_kv_heads = 1;
  m.head_dim = 64;
  m.ffn_size = 4 * 4544;
  m.vocab_size = 65024;
  m.positions = HR_POSITIONS_ROTARY;
  m.norms_per_layer = 1;
  m.parallel_block = true;
  m.qkv_bias = m.out_bias = m.mlp_bias = false;
  return m;
}

/* google/gemma-2-9b: 42 layers, even layers windowed (4096), odd global;
 * head_dim 256 with 16 query and 8 KV heads; four norms per layer. */
static inline HrModel
gemma2_9b (void)
{
  HrModel m;

  hr_model_init (&m);
  m.n_layers = 42;
  m.hidden_size = 3584;
  m.n_heads = 16;
  m.n_kv_heads = 8;
  m.head_dim = 256;
  m.ffn_size = 14336;
  m.ffn_kind = HR_FFN_GATED;
  m.vocab_size = 256000;
  m.positions = HR_POSITIONS_ROTARY;
  m.norm_kind = HR_NORM_RMSNORM;
  m.norm_bias = false;
  m.norm_placement = HR_NORM_SANDWICH;
  m.norms_per_layer = 4;
  m.qkv_bias = m.out_bias = m.mlp_bias = false;
  m.sliding_window = 4096;
  m.sliding_window_period = 2;
  return m;
}

/* deepseek-ai/DeepSeek-V2-Lite: MLA with kv_lora_rank 512 and a 64-wide
 * rope key, no q LoRA; 27 layers, the first dense, then 64 routed experts
 * (6 per token) and 2 shared ones of 1408. */
static inline HrModel
deepseek_v2_lite (void)
{
  HrModel m;

  hr_model_init (&m);
  m.n_layers = 27;
  m.hidden_size = 2048;
  m.n_heads = 16;
  m.n_kv_heads = 16;
  m.head_dim = 0;
  m.ffn_size = 10944;
  m.ffn_kind = HR_FFN_GATED;
  m.vocab_size = 102400;
  m.positions = HR_POSITIONS_ROTARY;
  m.norm_kind = HR_NORM_RMSNORM;
  m.norm_bias = false;
  m.qkv_bias = m.out_bias = m.mlp_bias = false;
  m.tied_embeddings = false;
  m.n_experts = 64;
  m.experts_per_token = 6;
  m.n_shared_experts = 2;
  m.expert_ffn_size = 1408;
  m.shared_expert_ffn_size = 1408;
  m.first_dense_layers = 1;
  m.moe_layer_freq = 1;
  m.kv_lora_rank = 512;
  m.qk_rope_head_dim = 64;
  m.qk_nope_head_dim = 128;
  m.v_head_dim = 128;
  return m;
}

static inline HrInference
settings (int64_t batch,
          int64_t prompt,
          int64_t generate)
{
  HrInference inf;

  hr_inference_init (&inf);
  inf.batch = batch;
  inf.prompt = prompt;
  inf.generate = generate;
  return inf;
}

static inline HrInferenceMemory
memory_of (const HrModel     *model,
           const HrInference *inf)
{
  HrGpu gpu = h100 ();
  HrInferenceMemory mem;
  HrError err = { 0 };

  g_assert_cmpint (hr_inference_memory (model, inf, &gpu, &mem, &err), ==, HR_OK);
  return mem;
}
