/* test-cli-train.c: headroom-cli train as a user runs it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Its JSON and tables against hand-derived figures (test-cli.h runs it).
 */
#include <math.h>

#include "test-cli.h"

/* measured-small.json's Llama-style bf16 configuration (h 256, 2 layers,
 * 8 heads, 2 KV heads of 32, SwiGLU 688, vocabulary 2048, b 2, s 256) was
 * measured under bf16 autocast, its SwiGLU run eagerly (the default):
 * through the CLI with --precision bf16-autocast, the activations saved at the end of the forward are within
 * 10 % of PyTorch's (each storage once): flash 17,270,772 B, eager
 * attention 30,083,064 B, every layer checkpointed 6,023,156 B. */
static void
test_train_measured_small (void)
{
  static const struct { const char *attention, *recompute; double measured; } variants[] = {
    { "flash", "none", 17270772 },
    { "eager", "none", 30083064 },
    { "eager", "full", 6023156 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) out = NULL;
      double saved;

      run_cli (&run, "train", "--model", CLI_DATA "/llamaish-measured.json", "--gpu", "test-gpu",
               "--gpus", "1", "--micro-batch", "2", "--global-batch", "0", "--seq", "256",
               "--precision", "bf16-autocast",
               "--attention", variants[i].attention, "--recompute", variants[i].recompute, "--json",
               NULL);
      out = parse_output (&run);
      saved = member_double (out, "memory.activations");
      g_test_message ("%s/%s: %.0f against %.0f", variants[i].attention, variants[i].recompute,
                      saved, variants[i].measured);
      g_assert_cmpfloat (ABS (saved / variants[i].measured - 1), <, 0.10);
    }
}

/* --framework torchtune is torchtune's 3B_full_single_device.yaml (pure
 * bf16, eager RMSNorm, chunked loss, full recomputation, the step in the
 * backward, 8-bit AdamW): the same figures as those options given one by
 * one; an explicit option still wins (no recomputation: more activations),
 * a flag too when given false (the step after the backward: the whole
 * gradient buffer again); an unknown framework, and a flag given anything
 * but true or false, are refused. One micro-batch per step, as the step in
 * the backward needs. */
static void
test_train_framework (void)
{
  g_auto(Run) implied = { 0 };
  g_auto(Run) spelled = { 0 };
  g_auto(Run) overridden = { 0 };
  g_auto(Run) flag_off = { 0 };
  g_auto(Run) bad = { 0 };
  g_auto(Run) bad_flag = { 0 };
  g_autoptr(JsonObject) a = NULL;
  g_autoptr(JsonObject) b = NULL;
  g_autoptr(JsonObject) c = NULL;
  g_autoptr(JsonObject) d = NULL;

  run_cli (&implied, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--seq", "1024", "--global-batch", "0", "--zero", "0", "--framework", "torchtune",
           "--json", NULL);
  run_cli (&spelled, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--seq", "1024", "--global-batch", "0", "--zero", "0", "--precision", "bf16",
           "--norm-kernel", "eager", "--loss", "chunked", "--recompute", "full",
           "--optimizer-in-backward", "--optimizer", "adamw-8bit", "--json", NULL);
  run_cli (&overridden, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--seq", "1024", "--global-batch", "0", "--zero", "0", "--framework", "torchtune",
           "--recompute", "none", "--json", NULL);
  a = parse_output (&implied);
  b = parse_output (&spelled);
  c = parse_output (&overridden);
  g_assert_cmpint (member_int (a, "memory.allocated_peak"), ==,
                   member_int (b, "memory.allocated_peak"));
  g_assert_cmpint (member_int (a, "memory.activations"), <, member_int (c, "memory.activations"));
  g_assert_cmpint (member_int (a, "memory.gradients"), ==, member_int (c, "memory.gradients"));

  run_cli (&flag_off, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--seq", "1024", "--global-batch", "1", "--zero", "0", "--framework", "torchtune",
           "--optimizer-in-backward=false", "--json", NULL);
  d = parse_output (&flag_off);
  g_assert_cmpint (member_int (d, "memory.gradients"), >, member_int (a, "memory.gradients"));
  run_cli (&bad_flag, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--compile=banana", NULL);
  g_assert_cmpint (bad_flag.status, ==, 2);
  g_assert_nonnull (strstr (bad_flag.err, "--compile"));
  g_assert_null (strchr (strchr (bad_flag.err, '\n') + 1, '\n'));

  run_cli (&bad, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--framework", "jax", NULL);
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "--framework"));
}

/* --flash-kernel triton prices the attention core at flash-attn 1's Triton
 * kernel's rate and changes nothing else. Llama 3.2 1B, one sequence of
 * 2,048 causal tokens on an A100 SXM: QKᵀ is 2·s²·(32 · 64)·16 layers,
 * halved by the mask, 2^37 FLOPs forward, as many for attention over V,
 * twice both backward, and QKᵀ once more in the backward (flash's
 * recomputation). Each kernel's A100 table times both passes together,
 * FlashAttention-2 at 155 TFLOP/s and the Triton kernel at 68 at 2k causal
 * tokens (resources/gpus.json), so every one of those FLOPs runs at that
 * rate: the compute grows by 6·2^37·(1/68e12 − 1/155e12) and the
 * recomputation by 2^37·(1/68e12 − 1/155e12); the memory is the same. An
 * unknown kernel is refused naming the option. */
static void
test_train_flash_kernel (void)
{
  g_auto(Run) fa2 = { 0 };
  g_auto(Run) triton = { 0 };
  g_auto(Run) bad = { 0 };
  g_autoptr(JsonObject) a = NULL;
  g_autoptr(JsonObject) b = NULL;
  double core = 137438953472.0;

  run_cli (&fa2, "train", "--model", "llama-3.2-1b", "--gpu", "a100-80gb-sxm", "--gpus", "1",
           "--seq", "2048", "--global-batch", "1", "--causal", "--json", NULL);
  run_cli (&triton, "train", "--model", "llama-3.2-1b", "--gpu", "a100-80gb-sxm", "--gpus", "1",
           "--seq", "2048", "--global-batch", "1", "--causal", "--flash-kernel", "triton",
           "--json", NULL);
  a = parse_output (&fa2);
  b = parse_output (&triton);
  g_assert_cmpfloat (member_double (a, "flops.breakdown.attention_scores.forward"), ==, core);
  g_assert_cmpfloat (member_double (a, "flops.breakdown.attention_scores.recompute"), ==, core);
  assert_close (member_double (b, "time.split.compute") - member_double (a, "time.split.compute"),
                6 * core * (1 / 68e12 - 1 / 155e12));
  assert_close (member_double (b, "time.split.recompute")
                - member_double (a, "time.split.recompute"),
                core * (1 / 68e12 - 1 / 155e12));
  g_assert_cmpfloat (member_double (b, "time.split.memory_bound"), ==,
                     member_double (a, "time.split.memory_bound"));
  g_assert_cmpint (member_int (b, "memory.allocated_peak"), ==,
                   member_int (a, "memory.allocated_peak"));

  run_cli (&bad, "train", "--model", "llama-3.2-1b", "--gpu", "a100-80gb-sxm", "--gpus", "1",
           "--flash-kernel", "fa3", NULL);
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "--flash-kernel"));
}

/* Runs `train` with `args` (NULL-terminated) and --explain, which must
 * print `explained`, then with --json with and without `option`: returns
 * how much memory-bound time the option takes off the step. */
static double
memory_bound_dropped_by (const char * const *args,
                         const char         *explained,
                         const char         *option)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(Run) explain = { 0 };
  g_auto(Run) with = { 0 };
  g_auto(Run) without = { 0 };
  g_autoptr(JsonObject) a = NULL;
  g_autoptr(JsonObject) b = NULL;

  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, "--explain");
  g_ptr_array_add (argv, NULL);
  run_cli_argv (&explain, (const char * const *) argv->pdata);
  g_assert_cmpint (explain.status, ==, 0);
  g_assert_nonnull (strstr (explain.out, explained));
  argv->pdata[argv->len - 2] = "--json";
  run_cli_argv (&without, (const char * const *) argv->pdata);
  argv->pdata[argv->len - 1] = (gpointer) option;
  g_ptr_array_add (argv, NULL);
  run_cli_argv (&with, (const char * const *) argv->pdata);
  a = parse_output (&without);
  b = parse_output (&with);
  return member_double (a, "time.split.memory_bound") - member_double (b, "time.split.memory_bound");
}

/* --framework torchtitan turns on --fsdp2, whose copies the memory-bound
 * time shows apart. Llama 3 8B (P = 8,030,261,248 parameters; a block
 * 218,112,000, the root 1,050,677,248) FSDP over 64 A100 SXM, one sequence
 * of 8,192 per GPU: 2P − block − root = 14,791,733,248 elements gathered,
 * read and written in bf16, and P gradients read in bf16 and written in
 * fp32: 4 · 14,791,733,248 + 6 · 8,030,261,248 = 107,348,500,480 bytes at
 * 2.039e12 × 0.8 B/s, 65.8 ms. --fsdp2=false leaves FSDP1's concatenation
 * of the bf16 gradients (4P) and its reduction's passes: the cast to fp32
 * (2 + 4 bytes), the division by the predivide factor, 8 over 64 ranks
 * (4 + 4), and the shard's by the postdivide, 8 (8 bytes over 64): 18.125P
 * = 145,548,485,120 bytes, 38,199,984,640 more. */
static void
test_train_fsdp2 (void)
{
  static const char * const args[] = {
    "train", "--model", "llama-3-8b", "--gpu", "a100-80gb-sxm", "--nodes", "8",
    "--gpus-per-node", "8", "--framework", "torchtitan", "--micro-batch", "1",
    "--global-batch", "64", "--seq", "8192", "--causal", NULL
  };

  assert_close (memory_bound_dropped_by (args, " + FSDP2’s copies 65.8 ms = ", "--fsdp2=false"),
                -38199984640.0 / (2.039e12 * 0.8));
}

/* Under --framework megatron an FSDP run is Megatron's own FSDP, without
 * FSDP1's or FSDP2's passes; --fsdp2 (Megatron's --use-torch-fsdp2) turns it
 * off instead of conflicting with it, and prices FSDP2's copies, 65.8 ms on
 * the run above; both spelled out are refused. */
static void
test_train_megatron_fsdp (void)
{
  g_auto(Run) own = { 0 };
  g_auto(Run) torch_fsdp2 = { 0 };
  g_auto(Run) both = { 0 };

  run_cli (&own, "train", "--model", "llama-3-8b", "--gpu", "a100-80gb-sxm", "--nodes", "8",
           "--gpus-per-node", "8", "--framework", "megatron", "--fsdp", "full", "--micro-batch",
           "1", "--global-batch", "64", "--seq", "8192", "--explain", NULL);
  run_cli (&torch_fsdp2, "train", "--model", "llama-3-8b", "--gpu", "a100-80gb-sxm", "--nodes",
           "8", "--gpus-per-node", "8", "--framework", "megatron", "--fsdp", "full", "--fsdp2",
           "--micro-batch", "1", "--global-batch", "64", "--seq", "8192", "--explain", NULL);
  run_cli (&both, "train", "--model", "llama-3-8b", "--gpus", "8", "--fsdp", "full", "--fsdp2",
           "--megatron-fsdp", NULL);
  g_assert_cmpint (own.status, ==, 0);
  g_assert_null (strstr (own.out, "FSDP1’s gradient passes"));
  g_assert_null (strstr (own.out, "FSDP2’s copies"));
  g_assert_cmpint (torch_fsdp2.status, ==, 0);
  g_assert_nonnull (strstr (torch_fsdp2.out, " + FSDP2’s copies 65.8 ms = "));
  g_assert_cmpint (both.status, ==, 2);
  g_assert_cmpstr (both.err, ==, "headroom-cli: Megatron FSDP (--megatron-fsdp): unsupported: not "
                                 "with FSDP2: they are two implementations of FSDP\n");
}

/* GPT-2 XL (h 1,600, 48 layers, biases on c_attn, c_proj, c_fc and the
 * MLP's c_proj) on one A100 SXM, one sequence of 1,024: nn.Linear sums
 * each bias's gradient over the tokens, a read of 3 · 1,600 + 1,600 +
 * 6,400 + 1,600 = 14,400 outputs a token: 1,024 · 14,400 · 2 B · 48 layers
 * = 1,415,577,600 bytes at 2.039e12 × 0.8 B/s, 0.868 ms, which
 * --fused-bias-grad (Transformer Engine's GEMM epilogue) drops. */
static void
test_train_bias_grads (void)
{
  static const char * const args[] = {
    "train", "--model", "gpt2-xl", "--gpu", "a100-80gb-sxm", "--gpus", "1", "--micro-batch", "1",
    "--global-batch", "1", "--seq", "1024", NULL
  };

  assert_close (memory_bound_dropped_by (args, ", of which 867.8 µs sum the bias gradients",
                                         "--fused-bias-grad"),
                1415577600.0 / (2.039e12 * 0.8));
}

/* Llama-2-7B on 8 test GPUs (24 GiB, bf16 2e14 FLOP/s, 350 W), ZeRO-3,
 * bf16 mixed precision and AdamW: model states of Ψ = 6,738,415,616
 * parameters split over N_d = 8 ranks as the ZeRO paper (Rajbhandari et al.
 * 2020, §5.3) counts them: 2Ψ/8 bf16 weights = 1,684,603,904; 4Ψ/8 fp32
 * master weights = 3,369,207,808; 2Ψ/8 bf16 gradients = 1,684,603,904; 8Ψ/8
 * fp32 Adam m and v = 6,738,415,616. Time at a measured utilisation of 0.4
 * (--mfu, which overrides the prediction from the hardware):
 * the global batch defaults to micro batch × DP = 8 sequences of 4096, so a
 * step runs 8 micro-steps of FLOPs (flash attention's recomputation included)
 * at 8 × 2e14 × 0.4 FLOP/s, and the achieved MFU counts only the model FLOPs
 * (forward + backward): 0.4 × model / executed FLOPs (PaLM App. B). 1e12
 * tokens take ceil (1e12 / 32768) = 30,517,579 steps. */
static void
test_train (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  double model_flops, hardware_flops, step, total;

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--tokens", "1e12", "--price", "2",
           "--mfu", "0.4", "--glu-kernel", "eager",
           "--json", NULL);
  out = parse_output (&run);
  g_assert_false (json_node_get_boolean (member (out, "time.predicted")));

  g_assert_cmpint (member_int (out, "params.total"), ==, 6738415616);
  g_assert_cmpint (member_int (out, "flops.tokens"), ==, 4096);
  g_assert_cmpint (member_int (out, "memory.weights"), ==, 1684603904);
  g_assert_cmpint (member_int (out, "memory.master_weights"), ==, 3369207808);
  g_assert_cmpint (member_int (out, "memory.gradients"), ==, 1684603904);
  g_assert_cmpint (member_int (out, "memory.optimizer"), ==, 6738415616);
  g_assert_cmpint (member_int (out, "memory.capacity"), ==, 25769803776);
  /* The same run as test-training's /training/memory/llama2-7b-zero3 (its
   * eager SwiGLU saves gate, silu(gate), up and their product): the
   * peak is the loss's backward, 36,534,099,968 B allocated; 301,989,888 B
   * of allocator rounding and the freed bf16 logits' block, 262,144,000 B;
   * total = reserved + 1 GiB overhead. */
  g_assert_cmpint (member_int (out, "memory.allocated_peak"), ==, 36534099968);
  g_assert_cmpint (member_int (out, "memory.reserved_peak"), ==, 37098233856);
  g_assert_cmpint (member_int (out, "memory.recompute"), ==, 0);
  g_assert_cmpint (member_int (out, "memory.total"), ==,
                   member_int (out, "memory.reserved_peak") + member_int (out, "memory.overhead"));
  /* 12 bytes per parameter of model states alone are 75.3 GiB / 8 = 9.4 GiB:
   * with activations this does not fit in 24 GiB */
  g_assert_false (json_node_get_boolean (member (out, "memory.fits")));
  g_assert_cmpint (member_int (out, "memory.overflow"), ==,
                   member_int (out, "memory.total") - 25769803776);

  model_flops = 8 * (member_double (out, "flops.forward") + member_double (out, "flops.backward"));
  hardware_flops = 8 * member_double (out, "flops.total");
  step = member_double (out, "time.step_seconds");
  assert_close (step, hardware_flops / (8 * 2e14 * 0.4));
  assert_close (member_double (out, "time.tokens_per_second"), 32768 / step);
  total = member_double (out, "time.total_seconds");
  assert_close (total, 30517579 * step);
  assert_close (member_double (out, "time.gpu_hours"), total * 8 / 3600);
  assert_close (member_double (out, "time.cost"), 2 * total * 8 / 3600);
  assert_close (member_double (out, "time.energy_kwh"), 8 * 350 * total / 3.6e6);
  assert_close (member_double (out, "time.mfu"), 0.4 * model_flops / hardware_flops);
  g_assert_cmpint (member_int (out, "limits.max_micro_batch"), ==, 0);
  g_assert_cmpint (member_int (out, "limits.min_gpus"), >, 8);
}

/* Fine-tuning options (docs/training.md, Fine-tuning): Llama 2 7B on one
 * GPU in bf16-mixed, one micro-batch per step (no accumulation buffer). LoRA r 8 on q and v: 4,194,304 trainable parameters
 * (8 · (4096 + 4096) · 2 · 32); the frozen base in bf16, 2 · 6,738,415,616 B;
 * the adapters 2 + 4 + 2 + 8 = 16 B each. QLoRA, NF4 with double
 * quantisation on every linear but the head (6,476,005,376 parameters at
 * 0.515869140625 B, the other 262,410,240 in bf16): 3,865,591,808 B; r 8 on
 * all linears: 19,988,480 adapters. */
static void
test_train_finetune (void)
{
  g_auto(Run) lora_run = { 0 };
  g_auto(Run) lora_table = { 0 };
  g_auto(Run) qlora_run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_autoptr(JsonObject) lora = NULL;
  g_autoptr(JsonObject) qlora = NULL;

  run_cli (&lora_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--global-batch", "0", "--method", "lora", "--lora-rank", "8", "--lora-targets", "attention", "--json", NULL);
  lora = parse_output (&lora_run);
  g_assert_cmpint (member_int (lora, "params.trainable"), ==, 4194304);
  g_assert_cmpint (member_int (lora, "params.frozen"), ==, 6738415616);
  g_assert_cmpint (member_int (lora, "memory.frozen_weights"), ==, 13476831232);
  g_assert_cmpint (member_int (lora, "memory.adapters"), ==, 16 * 4194304);
  /* The table says the share: 4,194,304 / (4,194,304 + 6,738,415,616) = 0.0622 %. */
  run_cli (&lora_table, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--global-batch", "0", "--method", "lora", "--lora-rank", "8", "--lora-targets", "attention", NULL);
  g_assert_nonnull (strstr (lora_table.out, "\nTrainable: 4,194,304 parameters (0.062 %)\n"));

  run_cli (&qlora_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--method", "qlora", "--quant", "nf4", "--double-quant", "--lora-targets",
           "q,k,v,o,gate,up,down", "--json", NULL);
  qlora = parse_output (&qlora_run);
  g_assert_cmpint (member_int (qlora, "params.trainable"), ==, 19988480);
  g_assert_cmpint (member_int (qlora, "memory.frozen_weights"), ==, 3865591808);

  run_cli (&bad_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--method", "lora", "--lora-targets", "qkv", NULL);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_nonnull (strstr (bad_run.err, "--lora-targets"));
  /* Only a paged optimizer reports its pageable states. */
  g_assert_false (json_object_has_member (json_object_get_object_member (qlora, "memory"),
                                          "pageable"));
}

/* --frozen-gradients and --no-sync (docs/training.md): LoRA r 8 on q, v of
 * Llama 2 7B under FSDP over 8 GPUs. The 32 layers' 6,476,267,520 weights get
 * bf16 gradients, sharded: 2 × 6,476,267,520 ÷ 8 = 1,619,066,880 B; with
 * no_sync and 2 micro-batches a step (16 sequences) they stay whole,
 * 12,952,535,040 B. Without FSDP the setting is refused, naming it. */
static void
test_train_frozen_gradients (void)
{
  g_auto(Run) sharded_run = { 0 };
  g_auto(Run) whole_run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_autoptr(JsonObject) sharded = NULL;
  g_autoptr(JsonObject) whole = NULL;

  run_cli (&sharded_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--fsdp", "full", "--zero", "0", "--global-batch", "0", "--method", "lora",
           "--frozen-gradients", "--json", NULL);
  sharded = parse_output (&sharded_run);
  g_assert_cmpint (member_int (sharded, "memory.frozen_gradients"), ==, 1619066880);
  run_cli (&whole_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--fsdp", "full", "--zero", "0", "--global-batch", "16", "--method", "lora",
           "--frozen-gradients", "--no-sync", "--json", NULL);
  whole = parse_output (&whole_run);
  g_assert_cmpint (member_int (whole, "memory.frozen_gradients"), ==, 12952535040);

  run_cli (&bad_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--method", "lora", "--frozen-gradients", NULL);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_true (g_str_has_prefix (bad_run.err, "headroom-cli: Gradients of frozen weights "
                                                "(--frozen-gradients): "));
}

/* --paged-optimizer (docs/training.md, "Paged optimizers"): QLoRA r 64 on
 * every linear of Llama 2 7B, 64 · (4 · 8192 + 2 · 15104 + 15104) · 32 =
 * 159,907,840 adapter parameters, every lora_A and lora_B of 1e5 elements
 * or more (64 · 4096 = 262,144 the smallest), so all their fp32 AdamW
 * states are paged: 8 B each, 1,279,262,720 B. The GPU has room for them:
 * none is evicted. AdamW's alternative, SGD, has no paged version. */
static void
test_train_paged_optimizer (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_auto(Run) host_run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) host = NULL;

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--method", "qlora", "--quant", "nf4", "--double-quant", "--lora-rank", "64",
           "--lora-targets", "all-linear", "--paged-optimizer", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpint (member_int (out, "params.trainable"), ==, 159907840);
  g_assert_cmpint (member_int (out, "memory.optimizer"), ==, 1279262720);
  g_assert_cmpint (member_int (out, "memory.pageable"), ==, 1279262720);
  g_assert_cmpint (member_int (out, "memory.paged_out"), ==, 0);
  g_assert_false (json_object_has_member (json_object_get_object_member (out, "time"),
                                          "host_bytes"));

  /* Full training with paged 8-bit AdamW (12.75 GiB of states) on 75 GiB,
   * Hugging Face's eager SwiGLU: 80.21 GiB in all (with the freed bf16 logits' block the loss's backward
   * cannot use, 8192 · 32000 · 2 = 524,288,000 B), 86,122,168,448 −
   * 80,530,636,800 = 5,591,531,648 B paged out, out and back in each step
   * over the 32 GB/s set: 11,183,063,296 B ÷ 32e9 B/s = 0.349470728 s inside
   * the step. */
  run_cli (&host_run, "train", "--model", LLAMA_CONFIG, "--gpu", "custom", "--custom-memory", "75",
           "--gpus", "1", "--precision", "bf16", "--optimizer", "adamw-8bit", "--paged-optimizer",
           "--global-batch", "1", "--host-bandwidth", "32", "--glu-kernel", "eager", "--json", NULL);
  host = parse_output (&host_run);
  g_assert_cmpint (member_int (host, "memory.paged_out"), ==, 5591531648);
  g_assert_cmpint (member_int (host, "time.host_bytes"), ==, 11183063296);
  g_assert_cmpfloat_with_epsilon (member_double (host, "time.host_seconds"), 0.349470728, 1e-9);

  run_cli (&bad_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--optimizer", "sgd", "--paged-optimizer", NULL);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_nonnull (strstr (bad_run.err, "Paged optimizer (--paged-optimizer)"));
}

/* ZeRO-Offload: the step model does not time an optimizer step on the CPU.
 * Llama 2 7B, P = 6,738,415,616, ZeRO-2 on 8 GPUs, bf16-mixed AdamW: the
 * host holds each rank's fp32 master, m, v and fp32 gradient copy, 16 B ×
 * P ÷ 8 = 13,476,831,232 B, the GPU the whole bf16 weights, 2 B × P =
 * 13,476,831,232 B, and its bf16 gradient shard, 2 B × P ÷ 8 =
 * 1,684,603,904 B. The memory is given; every time is null (not 0) and
 * names --mfu, in the JSON and the table; with --mfu the times are back. */
static void
test_train_cpu_optimizer (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) table_run = { 0 };
  g_auto(Run) mfu_run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) timed = NULL;
  JsonObject *time;

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "2", "--offload-optimizer", "--tokens", "1e9", "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  out = parse_output (&run);
  g_assert_cmpint (member_int (out, "memory.cpu"), ==, 13476831232);
  g_assert_cmpint (member_int (out, "memory.weights"), ==, 13476831232);
  g_assert_cmpint (member_int (out, "memory.gradients"), ==, 1684603904);
  time = json_object_get_object_member (out, "time");
  for (guint i = 0; i < 8; i++)
    {
      const char *names[] = { "step_seconds", "tokens_per_second", "tokens_per_second_per_gpu",
                              "total_seconds", "gpu_hours", "cost", "energy_kwh", "mfu" };

      g_assert_true (json_object_get_null_member (time, names[i]));
    }
  g_assert_false (json_object_get_boolean_member (time, "predicted"));
  g_assert_cmpstr (json_object_get_string_member (time, "needs"), ==, "mfu");
  g_assert_false (json_object_has_member (time, "split"));

  run_cli (&table_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "2", "--offload-optimizer", "--tokens", "1e9", NULL);
  g_assert_cmpint (table_run.status, ==, 0);
  g_assert_nonnull (strstr (table_run.out, "\nNot predicted: the step model does not time an "
                                           "optimizer step on the CPU"));
  g_assert_nonnull (strstr (table_run.out, "Measured FLOPs utilisation not set (give --mfu)"));
  g_assert_nonnull (strstr (table_run.out, "Offloaded to CPU"));
  g_assert_null (strstr (table_run.out, "Tokens per second"));

  run_cli (&mfu_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "2", "--offload-optimizer", "--mfu", "0.4", "--json", NULL);
  timed = parse_output (&mfu_run);
  g_assert_cmpfloat (member_double (timed, "time.step_seconds"), >, 0);
  g_assert_false (json_object_has_member (json_object_get_object_member (timed, "time"), "needs"));
  g_assert_cmpint (member_int (timed, "memory.cpu"), ==, 13476831232);
}

/* --fp8-params: Llama 2 7B, P = 6,738,415,616, on one H100 in fp8-mixed.
 * Transformer Engine's bf16 weight, fp8 cast and fp8 transpose are 4 B × P
 * = 26,953,662,464 B; as fp8 parameters only the fp8 data and transpose
 * stay, 2 B × P = 13,476,831,232 B. In bf16-mixed the option would change
 * nothing, and is refused rather than ignored. */
static void
test_train_fp8_params (void)
{
  g_auto(Run) cast_run = { 0 };
  g_auto(Run) fp8_run = { 0 };
  g_auto(Run) bf16_run = { 0 };
  g_autoptr(JsonObject) cast = NULL;
  g_autoptr(JsonObject) fp8 = NULL;

  run_cli (&cast_run, "train", "--model", LLAMA_CONFIG, "--gpu", "h100-sxm", "--gpus", "1",
           "--precision", "fp8-mixed", "--json", NULL);
  run_cli (&fp8_run, "train", "--model", LLAMA_CONFIG, "--gpu", "h100-sxm", "--gpus", "1",
           "--precision", "fp8-mixed", "--fp8-params", "--json", NULL);
  run_cli (&bf16_run, "train", "--model", LLAMA_CONFIG, "--gpu", "h100-sxm", "--gpus", "1",
           "--fp8-params", "--json", NULL);
  cast = parse_output (&cast_run);
  fp8 = parse_output (&fp8_run);
  g_assert_cmpint (member_int (cast, "memory.weights"), ==, 26953662464);
  g_assert_cmpint (member_int (fp8, "memory.weights"), ==, 13476831232);
  g_assert_cmpint (member_int (fp8, "memory.master_weights"), ==,
                   member_int (cast, "memory.master_weights"));
  g_assert_cmpint (bf16_run.status, ==, 2);
  g_assert_cmpstr (bf16_run.out, ==, "");
  g_assert_cmpstr (bf16_run.err, ==, "headroom-cli: FP8 parameters (--fp8-params): applies only when "
                                     "Precision (--precision) is FP8 mixed precision\n");
}

/* --quant-load-whole: torchtune 0.1's QLoRA tutorial (qlora_llama2_7b: r 8
 * on every linear of the layers, NF4 with double quantisation on those,
 * batch 2 × 512, AC) on one A100. The replay of the load gives what the
 * tutorial measured after model init, 9.13 GB reserved, within 2 %, and
 * the load sets both peaks (the step alone reserves about 5 GB). Under
 * FSDP the setting is refused: the recipe held every weight on its GPU. */
static void
test_train_quant_load_whole (void)
{
  g_auto(Run) whole_run = { 0 };
  g_auto(Run) chunked_run = { 0 };
  g_auto(Run) table_run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_autoptr(JsonObject) whole = NULL;
  g_autoptr(JsonObject) chunked = NULL;
#define TUTORIAL "train", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--framework", \
                 "torchtune", "--method", "qlora", "--lora-targets", "all-linear", \
                 "--quant-scope", "adapted", "--micro-batch", "2", "--seq", "512", \
                 "--recompute", "full"

  run_cli (&whole_run, TUTORIAL, "--gpus", "1", "--quant-load-whole", "--json", NULL);
  run_cli (&chunked_run, TUTORIAL, "--gpus", "1", "--json", NULL);
  run_cli (&table_run, TUTORIAL, "--gpus", "1", "--quant-load-whole", NULL);
  run_cli (&bad_run, TUTORIAL, "--gpus", "2", "--fsdp", "full", "--quant-load-whole", NULL);
#undef TUTORIAL
  whole = parse_output (&whole_run);
  chunked = parse_output (&chunked_run);
  g_assert_cmpfloat (fabs (member_double (whole, "memory.load_reserved") / 9.13e9 - 1), <=, 0.02);
  g_assert_cmpint (member_int (whole, "memory.reserved_peak"), ==,
                   member_int (whole, "memory.load_reserved"));
  g_assert_cmpint (member_int (whole, "memory.allocated_peak"), ==,
                   member_int (whole, "memory.load_allocated_peak"));
  g_assert_cmpint (member_int (chunked, "memory.reserved_peak"), <, 5.5e9);
  g_assert_false (json_object_has_member (json_object_get_object_member (chunked, "memory"),
                                          "load_reserved"));
  g_assert_nonnull (strstr (table_run.out, "\nKept from the model load "));
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_true (g_str_has_prefix (bad_run.err, "headroom-cli: NF4 quantised whole at load "
                                                "(torchao\u00a00.1) (--quant-load-whole): "));
}

/* Options change the figures by their mechanism (same run as above). */
static void
test_train_options (void)
{
  g_auto(Run) base_run = { 0 };
  g_auto(Run) mfu_run = { 0 };
  g_auto(Run) zero_run = { 0 };
  g_auto(Run) overhead_run = { 0 };
  g_autoptr(JsonObject) base = NULL;
  g_autoptr(JsonObject) mfu = NULL;
  g_autoptr(JsonObject) zero = NULL;
  g_autoptr(JsonObject) overhead = NULL;

  run_cli (&base_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--mfu", "0.4", "--json", NULL);
  base = parse_output (&base_run);

  /* Half the MFU, twice the step. */
  run_cli (&mfu_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--mfu", "0.2", "--json", NULL);
  mfu = parse_output (&mfu_run);
  assert_close (member_double (mfu, "time.step_seconds"), 2 * member_double (base, "time.step_seconds"));

  /* A utilisation of 0.001, the least accepted, stretches the step 400
   * times past the 0.4 run's; 1e18 tokens at $1e6 an hour then take
   * 9.34e8 years and cost 6.55e19 dollars: the table says years and three
   * digits, never twenty of them. Under 0.1 % is refused by name. */
  {
    g_auto(Run) slow_run = { 0 };
    g_auto(Run) vanishing_run = { 0 };
    const char *cost;

    run_cli (&slow_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
             "--zero", "3", "--seq", "4096", "--global-batch", "0", "--mfu", "0.001",
             "--tokens", "1e18", "--price", "1000000", NULL);
    g_assert_cmpint (slow_run.status, ==, 0);
    g_assert_nonnull (strstr (slow_run.out, " 9.34e+08 years"));
    cost = strstr (slow_run.out, "\nCost (USD)");
    g_assert_nonnull (cost);
    g_assert_nonnull (strstr (cost, " 6.55e+19 "));
    g_assert_cmpuint (strcspn (cost + 1, "\n"), <, 60);

    run_cli (&vanishing_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
             "--mfu", "1e-300", NULL);
    assert_bad_input (&vanishing_run, "Measured FLOPs utilisation (--mfu): unsupported: a "
                                      "measured utilisation under 0.1 %");
  }
  /* An inter-node bandwidth of 1e-300 GB/s makes the step's all-reduce
   * overflow a double: refused, naming what can cause it. */
  {
    g_auto(Run) overflow_run = { 0 };

    run_cli (&overflow_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--nodes", "2",
             "--gpus-per-node", "8", "--inter-node-bandwidth=1e-300", "--tokens", "1e18", NULL);
    assert_bad_input (&overflow_run, "The training time is too long to compute; check the "
                                     "bandwidths");
  }

  /* ZeRO-1 partitions only the optimizer states, which for mixed precision
   * include the fp32 master copy (ZeRO paper §5.1, K = 12): bf16 weights and
   * gradients whole, 2Ψ = 13,476,831,232 each; master 4Ψ/8 = 3,369,207,808
   * and Adam 8Ψ/8 = 6,738,415,616 per rank. */
  run_cli (&zero_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "1", "--seq", "4096", "--global-batch", "0", "--json", NULL);
  zero = parse_output (&zero_run);
  g_assert_cmpint (member_int (zero, "memory.weights"), ==, 13476831232);
  g_assert_cmpint (member_int (zero, "memory.gradients"), ==, 13476831232);
  g_assert_cmpint (member_int (zero, "memory.master_weights"), ==, 3369207808);
  g_assert_cmpint (member_int (zero, "memory.optimizer"), ==, 6738415616);

  /* 2 nodes of 4 are 8 GPUs: the same ZeRO-3 shards, 2Ψ/8 bf16 weights. */
  {
    g_auto(Run) nodes_run = { 0 };
    g_autoptr(JsonObject) nodes = NULL;

    run_cli (&nodes_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--nodes", "2",
             "--gpus-per-node", "4", "--zero", "3", "--seq", "4096", "--global-batch", "0",
             "--inter-node-bandwidth", "50", "--json", NULL);
    nodes = parse_output (&nodes_run);
    g_assert_cmpint (member_int (nodes, "memory.weights"), ==, 1684603904);
    g_assert_cmpint (member_int (nodes, "memory.optimizer"), ==, 6738415616);
  }

  /* --causal halves QKᵀ and attention over V: Llama-2-7B at s = 4096, b = 1,
   * h = 4096 (32 heads × 128), L = 32 has 2·b·s²·h = 137,438,953,472 FLOPs for
   * each of the two per layer in full, so the forward pass loses
   * 32 × 137,438,953,472 = 4,398,046,511,104, and the step time shrinks with it. */
  {
    g_auto(Run) causal_run = { 0 };
    g_autoptr(JsonObject) causal = NULL;

    run_cli (&causal_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
             "--zero", "3", "--seq", "4096", "--global-batch", "0", "--causal", "--json", NULL);
    causal = parse_output (&causal_run);
    assert_close (member_double (base, "flops.forward") - member_double (causal, "flops.forward"),
                  4398046511104.0);
    g_assert_cmpfloat (member_double (causal, "time.step_seconds"), <,
                       member_double (base, "time.step_seconds"));
  }

  /* --overhead sets the framework reserve, byte for byte. */
  run_cli (&overhead_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--overhead", "123456789", "--json", NULL);
  overhead = parse_output (&overhead_run);
  g_assert_cmpint (member_int (overhead, "memory.overhead"), ==, 123456789);
  g_assert_cmpint (member_int (overhead, "memory.total") - member_int (base, "memory.total"), ==,
                   123456789 - member_int (base, "memory.overhead"));
}

static void
test_train_table (void)
{
  g_auto(Run) run = { 0 };

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", NULL);
  g_assert_cmpint (run.status, ==, 0);
  /* 1,684,603,904 bytes = 1.569 GiB; 24 GiB capacity */
  g_assert_nonnull (strstr (run.out, "1.57 GiB"));
  g_assert_nonnull (strstr (run.out, "24.00 GiB"));
  g_assert_nonnull (strstr (run.out, "does not fit"));
}

/* The table's memory rows are the window's segments and add up to its
 * total: Llama 3.1 8B on 8 H100, ZeRO 1, 64 sequences of 8,192 in 8
 * micro-batches keeps an fp32 accumulation buffer (8,030,261,248 × 4 B =
 * 29.92 GiB) as its own row beside the 16-bit gradients (14.96 GiB), and
 * the allocator's rounding is a row; each row is rounded to 0.01 GiB. */
static void
test_train_table_adds_up (void)
{
  const char *const layouts[][6] = {
    { "--global-batch", "64", "--micro-batch", "1", "--method", "full" },
    { "--global-batch", "8", "--micro-batch", "1", "--method", "qlora" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (layouts); i++)
    {
      g_auto(Run) run = { 0 };
      g_auto(GStrv) lines = NULL;
      double sum = 0, total = -1;
      guint rows = 0;
      gboolean in_memory = FALSE;

      run_cli (&run, "train", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8",
               layouts[i][0], layouts[i][1], layouts[i][2], layouts[i][3], layouts[i][4],
               layouts[i][5], NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (i == 0)
        {
          g_assert_nonnull (strstr (run.out, "\nGradients                      14.96 GiB\n"));
          g_assert_nonnull (strstr (run.out, "\nGradient accumulation          29.92 GiB\n"));
          g_assert_nonnull (strstr (run.out, "\nAllocator rounding and cache"));
        }
      lines = g_strsplit (run.out, "\n", -1);
      for (guint j = 0; lines[j] != NULL; j++)
        {
          const char *gib = strstr (lines[j], " GiB");
          const char *number = gib;

          if (g_str_has_prefix (lines[j], "Memory of the most loaded GPU"))
            {
              in_memory = TRUE;
              continue;
            }
          if (!in_memory || gib == NULL || g_str_has_prefix (lines[j], "  of which"))
            continue;
          while (number > lines[j] && number[-1] != ' ')
            number--;
          if (g_str_has_prefix (lines[j], "Total"))
            {
              total = g_ascii_strtod (number, NULL);
              break;
            }
          sum += g_ascii_strtod (number, NULL);
          rows++;
        }
      g_assert_cmpuint (rows, >=, 5);
      g_assert_cmpfloat (total, >, 0);
      g_assert_cmpfloat_with_epsilon (sum, total, 0.005 * (rows + 1));
    }
}

/* A run that does not fit gets the window's What Fits changes, each with the
 * memory that train gives the changed run. Llama 3.1 8B on 4 H100s at
 * micro-batch 2 (the key table's defaults otherwise) fits by one change
 * only, TP 4: a smaller micro-batch does not exist and the others are short.
 * That change's memory is train's with --tp 4 and --sequence-parallel off
 * (the default): the same figure, one answer. */
static void
test_train_fit_advice (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) json_run = { 0 };
  g_auto(Run) changed = { 0 };
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonObject) changed_json = NULL;
  JsonArray *advice;
  JsonObject *first;

  run_cli (&run, "train", "llama-3.1-8b", "--gpus", "4", "--micro-batch", "2", NULL);
  run_cli (&json_run, "train", "llama-3.1-8b", "--gpus", "4", "--micro-batch", "2", "--json", NULL);
  run_cli (&changed, "train", "llama-3.1-8b", "--gpus", "4", "--micro-batch", "2", "--tp", "4",
           "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  json = parse_output (&json_run);
  changed_json = parse_output (&changed);
  g_assert_false (json_node_get_boolean (member (json, "memory.fits")));
  advice = json_node_get_array (member (json, "fit_advice"));
  g_assert_cmpuint (json_array_get_length (advice), ==, 1);
  first = json_array_get_object_element (advice, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "key"), ==, "training.tensor_parallel");
  g_assert_cmpstr (json_object_get_string_member (first, "value"), ==, "4");
  g_assert_cmpint (json_object_get_int_member (first, "memory"), ==,
                   member_int (changed_json, "memory.total"));
  g_assert_true (json_node_get_boolean (member (changed_json, "memory.fits")));
  g_assert_nonnull (strstr (run.out, "\nTo fit, any one of\n  Tensor parallel: 4 (now 1), "));
  /* A run that fits has none. */
  g_assert_cmpuint (json_array_get_length (json_node_get_array (member (changed_json, "fit_advice"))),
                    ==, 0);
}

/* QLoRA of Llama 3.1 70B on one L40S with paged 8-bit AdamW does not fit
 * even with every paged state in host memory: the overflow is what is over
 * beyond them, total − pageable − capacity, and the table says so. */
static void
test_train_table_paged_overflow (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) json_run = { 0 };
  g_autoptr(JsonObject) json = NULL;

#define PAGED_OVERFLOW_ARGS "train", "--model", "llama-3.1-70b", "--gpu", "l40s", "--gpus", "1", \
    "--method", "qlora", "--lora-rank", "16", "--lora-targets", "all-linear", "--micro-batch", "1", \
    "--global-batch", "16", "--seq", "2048", "--recompute", "full", "--optimizer", "adamw-8bit", \
    "--paged-optimizer"
  run_cli (&run, PAGED_OVERFLOW_ARGS, NULL);
  run_cli (&json_run, PAGED_OVERFLOW_ARGS, "--json", NULL);
#undef PAGED_OVERFLOW_ARGS
  g_assert_cmpint (run.status, ==, 0);
  json = parse_output (&json_run);
  g_assert_false (json_node_get_boolean (member (json, "memory.fits")));
  g_assert_cmpint (member_int (json, "memory.pageable"), >, 0);
  g_assert_cmpint (member_int (json, "memory.overflow"), ==,
                   member_int (json, "memory.total") - member_int (json, "memory.pageable")
                   - member_int (json, "memory.capacity"));
  g_assert_nonnull (strstr (run.out, "\nOverflow with the paged states out (does not fit)"));
  /* The paged states are a row of their own, once, out of the adapters':
   * the rows above Total still add up to it, and what is left without them
   * is what the window's bar calls needed, whose excess is the overflow. */
  g_assert_nonnull (strstr (run.out, "\nPaged optimizer states"));
  g_assert_null (strstr (strstr (run.out, "\nPaged optimizer states") + 1, "\nPaged optimizer states"));
  g_assert_true (strstr (run.out, "\nPaged optimizer states") < strstr (run.out, "\nTotal"));
}

/* Under PP the memory is the most loaded stage's, named counted from 1:
 * Llama 3.1 405B's 126 layers on 8 ranks × 2 stages, torchtitan's split,
 * rank 1 of 0–7 holds 16 layers and all its 16 chunk forwards in flight. */
static void
test_train_table_stage (void)
{
  g_auto(Run) run = { 0 };

  run_cli (&run, "train", "--model", "llama-3.1-405b", "--gpu", "h100-sxm", "--nodes", "64",
           "--gpus-per-node", "8", "--tp", "8", "--pp", "8", "--pp-schedule", "interleaved",
           "--vpp", "2", "--micro-batch", "4", "--global-batch", "256", "--framework",
           "torchtitan", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "Memory of the most loaded GPU (pipeline stage 2 of 8)"));
}

/* The catalog's TPUs have no published board power (power_watts 0): the
 * energy is null in JSON and "unknown" in the table, never 0 kWh, while
 * time and GPU-hours are still given; "gpus" lists their power as unknown. */
static void
test_train_unknown_power (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) table = { 0 };
  g_auto(Run) gpus = { 0 };
  g_autoptr(JsonObject) out = NULL;

  run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "tpu-v5e", "--gpus", "8",
           "--tokens", "1e9", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpfloat (member_double (out, "time.gpu_hours"), >, 0);
  g_assert_true (JSON_NODE_HOLDS_NULL (member (out, "time.energy_kwh")));

  run_cli (&table, "train", "--model", LLAMA_CONFIG, "--gpu", "tpu-v5e", "--gpus", "8",
           "--tokens", "1e9", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "unknown (board power not published)"));

  run_cli (&gpus, "gpus", NULL);
  g_assert_cmpint (gpus.status, ==, 0);
  g_assert_nonnull (strstr (gpus.out, "tpu-v5e"));
  g_assert_nonnull (strstr (gpus.out, "unknown"));
}

/* A measured throughput on the run of test_train (8 sequences of 4096 =
 * 32,768 tokens per step on 8 GPUs of 2e14 bf16 FLOP/s): a step of 10 s is
 * 3,276.8 tokens/s, and the other way round. MFU counts the model FLOPs of the
 * step, 8 × (forward + backward) of one sequence; HFU adds the recomputation
 * (flash attention's): 8 × total (PaLM, Chowdhery et al. 2022, App. B). Both
 * over 8 × 2e14 × 10 FLOP. The predicted MFU at the predicted step scales to
 * the measured one by predicted step / 10 s. */
static void
test_train_measured (void)
{
  g_auto(Run) step_run = { 0 };
  g_auto(Run) tokens_run = { 0 };
  g_auto(Run) base_run = { 0 };
  g_auto(Run) table = { 0 };
  g_autoptr(JsonObject) step = NULL;
  g_autoptr(JsonObject) tokens = NULL;
  g_autoptr(JsonObject) base = NULL;
  double model_flops, hardware_flops;

  run_cli (&step_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--measured-step-seconds", "10",
           "--json", NULL);
  step = parse_output (&step_run);
  model_flops = 8 * (member_double (step, "flops.forward") + member_double (step, "flops.backward"));
  hardware_flops = 8 * member_double (step, "flops.total");
  g_assert_cmpfloat (hardware_flops, >, model_flops);
  assert_close (member_double (step, "time.measured.step_seconds"), 10);
  assert_close (member_double (step, "time.measured.tokens_per_second"), 3276.8);
  assert_close (member_double (step, "time.measured.mfu"), model_flops / (8 * 2e14 * 10));
  assert_close (member_double (step, "time.measured.hfu"), hardware_flops / (8 * 2e14 * 10));
  assert_close (member_double (step, "time.measured.mfu"),
                member_double (step, "time.mfu") * member_double (step, "time.step_seconds") / 10);

  run_cli (&tokens_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--measured-tokens-per-second",
           "3276.8", "--json", NULL);
  tokens = parse_output (&tokens_run);
  assert_close (member_double (tokens, "time.measured.step_seconds"), 10);
  assert_close (member_double (tokens, "time.measured.mfu"), member_double (step, "time.measured.mfu"));
  assert_close (member_double (tokens, "time.measured.hfu"), member_double (step, "time.measured.hfu"));

  /* The prediction itself does not move; without the options there is no "measured". */
  run_cli (&base_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--json", NULL);
  base = parse_output (&base_run);
  g_assert_false (json_object_has_member (json_node_get_object (member (base, "time")), "measured"));
  g_assert_cmpfloat (member_double (base, "time.step_seconds"), ==,
                     member_double (step, "time.step_seconds"));
  g_assert_cmpfloat (member_double (base, "time.mfu"), ==, member_double (step, "time.mfu"));

  run_cli (&table, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--zero", "3", "--seq", "4096", "--global-batch", "0", "--measured-step-seconds", "10", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "Measured MFU"));
  g_assert_nonnull (strstr (table.out, "Measured HFU"));
  {
    g_autofree char *percent = g_strdup_printf ("%.3g%%",
                                                100 * member_double (step, "time.measured.mfu"));

    g_assert_nonnull (strstr (table.out, percent));
  }
}

/* Issue 15: no figure prints as inf, nan or -0, whatever the input (the
 * smallest MFU the key table takes, 0.001, on the largest budget; a price
 * of -0). */
static void
test_no_inf_nan_negative_zero (void)
{
  static const char * const extra[][3] = {
    { "--mfu", "0.001", "--json" },
    { "--mfu", "0.001", NULL },
    { "--price", "-0", "--json" },
    { "--price", "-0", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (extra); i++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
               "--tokens", "1e12", extra[i][0], extra[i][1], extra[i][2], NULL);
      g_test_message ("%s %s %s", extra[i][0], extra[i][1], extra[i][2]);
      g_assert_cmpint (run.status, ==, 0);
      if (g_regex_match_simple ("\\b(inf|nan|infinity)\\b|(^|[^0-9.])-0([^0-9.]|$)|-0\\.0*([^0-9]|$)",
                                run.out, G_REGEX_CASELESS | G_REGEX_MULTILINE, 0))
        g_error ("inf, nan or -0 printed:\n%s", run.out);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/train/measured-small", test_train_measured_small);
  g_test_add_func ("/cli/train/framework", test_train_framework);
  g_test_add_func ("/cli/train/flash-kernel", test_train_flash_kernel);
  g_test_add_func ("/cli/train/fsdp2", test_train_fsdp2);
  g_test_add_func ("/cli/train/megatron-fsdp", test_train_megatron_fsdp);
  g_test_add_func ("/cli/train/bias-grads", test_train_bias_grads);
  g_test_add_func ("/cli/train", test_train);
  g_test_add_func ("/cli/train/options", test_train_options);
  g_test_add_func ("/cli/train/finetune", test_train_finetune);
  g_test_add_func ("/cli/train/frozen-gradients", test_train_frozen_gradients);
  g_test_add_func ("/cli/train/paged-optimizer", test_train_paged_optimizer);
  g_test_add_func ("/cli/train/cpu-optimizer", test_train_cpu_optimizer);
  g_test_add_func ("/cli/train/fp8-params", test_train_fp8_params);
  g_test_add_func ("/cli/train/quant-load-whole", test_train_quant_load_whole);
  g_test_add_func ("/cli/train/table", test_train_table);
  g_test_add_func ("/cli/train/table-stage", test_train_table_stage);
  g_test_add_func ("/cli/train/table-adds-up", test_train_table_adds_up);
  g_test_add_func ("/cli/train/table-paged-overflow", test_train_table_paged_overflow);
  g_test_add_func ("/cli/train/fit-advice", test_train_fit_advice);
  g_test_add_func ("/cli/train/no-inf-nan-negative-zero", test_no_inf_nan_negative_zero);
  g_test_add_func ("/cli/train/measured", test_train_measured);
  g_test_add_func ("/cli/train/unknown-power", test_train_unknown_power);

  return g_test_run ();
}
