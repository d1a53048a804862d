/* headroom-project-keys.c: the key table and its look-ups
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-project"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "headroom-project-private.h"

/* Choices: the names as a file spells them and, in the same order, their labels.
 * The core's enums are read from the names (hr_*_from_name), so the order here
 * is the window's, not the enum's. */
static const char * const assume_choices[] = { "none", "llama", NULL };
static const char * const assume_labels[] = { N_("Refuse"), N_("Generic decoder (Llama-style)"), NULL };
static const char * const workload_choices[] = { "training", "inference", NULL };
static const char * const workload_labels[] = { N_("Training"), N_("Inference"), NULL };
static const char * const precision_choices[] = {
  "fp32", "bf16-mixed", "fp16-mixed", "bf16-autocast", "fp16-autocast", "bf16", "fp8-mixed",
  NULL };
static const char * const precision_labels[] = {
  N_("FP32"), N_("BF16 mixed precision"), N_("FP16 mixed precision"), N_("BF16 autocast"),
  N_("FP16 autocast"), N_("BF16"), N_("FP8 mixed precision"), NULL };
static const char * const framework_choices[] = {
  "none", "megatron", "deepspeed", "fsdp", "torchtitan", "hf", "torchtune", NULL };
static const char * const framework_labels[] = {
  N_("None"), N_("Megatron-LM"), N_("DeepSpeed"), N_("PyTorch FSDP"), N_("torchtitan"),
  N_("Hugging Face Trainer"), N_("torchtune"), NULL };
static const char * const fp8_recipe_choices[] = { "transformer-engine", "torchao", NULL };
static const char * const fp8_recipe_labels[] = {
  N_("Transformer Engine"), N_("torchao float8"), NULL };
static const char * const overlap_choices[] = { "on", "off", NULL };
static const char * const overlap_labels[] = { N_("On"), N_("Off"), NULL };
static const char * const norm_kernel_choices[] = { "fused", "eager", "low-precision", NULL };
static const char * const norm_kernel_labels[] = {
  N_("Fused"), N_("Eager"), N_("16-bit under autocast (MPT)"), NULL
};
static const char * const rope_kernel_choices[] = {
  "fused", "rotate-half", "complex", "interleaved", NULL
};
static const char * const rope_kernel_labels[] = {
  N_("Fused"), N_("Eager, rotate-half (Hugging Face)"), N_("Eager, complex (torchtitan)"),
  N_("Eager, interleaved (torchtune)"), NULL
};
static const char * const projections_choices[] = { "fused", "split", "separate", NULL };
static const char * const projections_labels[] = {
  N_("One product, read in place (Transformer Engine)"), N_("One product, split into views"),
  N_("Separate products"), NULL
};
static const char * const glu_kernel_choices[] = { "fused", "eager", NULL };
static const char * const glu_kernel_labels[] = { N_("Fused"), N_("Eager"), NULL };
static const char * const loss_choices[] = { "full", "chunked", "fused", "kernel", "vocab-parallel",
                                              "te", "chunked-head", NULL };
static const char * const loss_labels[] = {
  N_("Full logits"), N_("Chunked"), N_("Fused with the head"), N_("Kernel on 16-bit logits"),
  N_("Megatron vocab-parallel"), N_("Transformer Engine"), N_("Chunked with the head"), NULL
};
static const char * const optimizer_choices[] = {
  "adamw", "adamw-8bit", "sgd", "sgd-momentum", "lion", "adafactor", NULL };
static const char * const optimizer_labels[] = {
  N_("AdamW"), N_("AdamW, 8-bit states"), N_("SGD"), N_("SGD with momentum"), N_("Lion"),
  N_("Adafactor"), NULL };
static const char * const schedule_choices[] = { "1f1b", "interleaved", "gpipe", "zb-h1", NULL };
static const char * const schedule_labels[] = {
  N_("1F1B"), N_("Interleaved 1F1B"), N_("GPipe"), N_("Zero bubble (ZB-H1)"), NULL };
static const char * const fsdp_choices[] = { "none", "full", "grad-op", "hybrid", NULL };
static const char * const fsdp_labels[] = {
  N_("None"), N_("Full"), N_("Gradients and optimizer"), N_("Hybrid"), NULL };
static const char * const attention_choices[] = { "eager", "flash", NULL };
static const char * const attention_labels[] = { N_("Eager"), N_("FlashAttention"), NULL };
static const char * const flash_kernel_choices[] = { "fa2", "triton", NULL };
static const char * const flash_kernel_labels[] = {
  N_("FlashAttention-2"), N_("flash-attn 1’s Triton"), NULL };
static const char * const recompute_choices[] = {
  "none", "selective", "op-selective", "full", NULL };
static const char * const recompute_labels[] = {
  N_("None"), N_("Selective"), N_("Selective, by operation"), N_("Full"), NULL };
static const char * const method_choices[] = { "full", "lora", "qlora", "dora", "freeze", NULL };
static const char * const method_labels[] = {
  N_("Full"), N_("LoRA"), N_("QLoRA"), N_("DoRA"), N_("Frozen layers"), NULL };
static const char * const quant_choices[] = { "nf4", "fp4", "int8", NULL };
static const char * const quant_labels[] = { N_("NF4"), N_("FP4"), N_("INT8"), NULL };
static const char * const quant_scope_choices[] = { "linear", "adapted", "all", NULL };
static const char * const quant_scope_labels[] = {
  N_("Linear layers"), N_("Adapted layers"), N_("All"), NULL };
/* In the order of HrWeightPrecision (hr-inference.h). */
static const char * const weights_choices[] = {
  "bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", "q4_0", "q4_k_m", "q5_k_m", "q6_k", "q8_0",
  "iq2_xxs", "iq2_xs", "iq3_xxs", "iq4_nl", "iq4_xs", NULL };
static const char * const weights_labels[] = {
  N_("BF16"), N_("FP16"), N_("FP8"), N_("INT8"), N_("INT4"), N_("AWQ"), N_("GPTQ"), N_("GGUF Q4_0"),
  N_("GGUF Q4_K_M"), N_("GGUF Q5_K_M"), N_("GGUF Q6_K"), N_("GGUF Q8_0"),
  N_("GGUF IQ2_XXS"), N_("GGUF IQ2_XS"), N_("GGUF IQ3_XXS"), N_("GGUF IQ4_NL"), N_("GGUF IQ4_XS"), NULL };
static const char * const kv_choices[] = { "fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q4_0", NULL };
static const char * const kv_labels[] = {
  N_("FP32"), N_("BF16"), N_("FP16"), N_("FP8"), N_("INT8"), N_("GGUF Q8_0"), N_("GGUF Q4_0"), NULL };
/* In the order of HrEngine (hr-serving.h). */
static const char * const engine_choices[] = { "hf", "vllm", "sglang", "trtllm", "llamacpp", NULL };
static const char * const engine_labels[] = {
  N_("Hugging Face Transformers"), N_("vLLM"), N_("SGLang"), N_("TensorRT-LLM"), N_("llama.cpp"),
  NULL };

/* A row: the key, its type, bounds, default (as a file writes it), unit and
 * label, then any of these, in any order: */
#define INT(k_, lo_, hi_, def_, unit_, label_, ...) \
  { .key = k_, .type = HEADROOM_KEY_INT, .minimum = lo_, .maximum = hi_, .default_value = def_, \
    .unit = unit_, .label = label_, __VA_ARGS__ }
#define DBL(k_, lo_, hi_, def_, unit_, label_, ...) \
  { .key = k_, .type = HEADROOM_KEY_DOUBLE, .minimum = lo_, .maximum = hi_, .default_value = def_, \
    .unit = unit_, .label = label_, __VA_ARGS__ }
#define BOOL(k_, def_, label_, ...) \
  { .key = k_, .type = HEADROOM_KEY_BOOLEAN, .minimum = 0, .maximum = 1, .default_value = def_, \
    .label = label_, __VA_ARGS__ }
#define STR(k_, def_, label_, ...) \
  { .key = k_, .type = HEADROOM_KEY_STRING, .default_value = def_, .label = label_, __VA_ARGS__ }
/* `c_` names both arrays: NAME_choices and NAME_labels. */
#define CHOICE(k_, c_, def_, label_, ...) \
  { .key = k_, .type = HEADROOM_KEY_CHOICE, .default_value = def_, .choices = c_##_choices, \
    .choice_labels = c_##_labels, .label = label_, __VA_ARGS__ }
/* … GROUP ("page/section"): where the window shows it; */
#define GROUP(g) .group = g
/* … OPTION ("tp"): its command-line option, when not the one derived from the key; */
#define OPTION(o) .option = o
/* … PLACEHOLDER (N_("…")): what its sentinel 0 means; DESCRIPTION (N_("…")): a tooltip; */
#define PLACEHOLDER(p) .placeholder = p
#define DESCRIPTION(d) .description = d
/* … VISIBLE_WHEN ("training.method", "lora|qlora"): shown only while that key has one of these; */
#define VISIBLE_WHEN(k, values) .visible_when = k "=" values
/* … TRAIN (field), INFER (field), SERVE (field): the HrTraining, HrInference or
 * HrServing member it sets, ENUM (hr_x_from_name) for a choice; APPLY (fn) otherwise. */
#define FIELD_OF(kind, type, f) \
  .field = kind, .field_offset = G_STRUCT_OFFSET (type, f), .field_size = sizeof (((type *) 0)->f)
#define TRAIN(f) FIELD_OF (HEADROOM_KEY_FIELD_TRAINING, HrTraining, f)
#define INFER(f) FIELD_OF (HEADROOM_KEY_FIELD_INFERENCE, HrInference, f)
#define SERVE(f) FIELD_OF (HEADROOM_KEY_FIELD_SERVING, HrServing, f)
/* … GPU (field), CUSTOM_GPU (field): the HrGpu member, in the unit's base (headroom_project_apply_gpu ()); */
#define GPU(f) FIELD_OF (HEADROOM_KEY_FIELD_GPU, HrGpu, f), APPLY (headroom_project_apply_gpu)
#define CUSTOM_GPU(f) FIELD_OF (HEADROOM_KEY_FIELD_CUSTOM_GPU, HrGpu, f), APPLY (headroom_project_apply_gpu)
#define ENUM(fn) .from_name = (HeadroomKeyFromName) (void (*) (void)) fn
#define APPLY(fn) .apply = fn

/* File order. Model keys have no default: the preset or the config gives them. */
static const HeadroomKeyInfo keys[] = {
  STR ("model.preset", NULL, N_("Preset"), OPTION ("model")),
  INT ("model.num_hidden_layers", 1, 1e6, NULL, NULL, N_("Layers"), GROUP ("model/architecture")),
  INT ("model.hidden_size", 1, 1e7, NULL, NULL, N_("Hidden size"), GROUP ("model/architecture")),
  INT ("model.num_attention_heads", 1, 1e6, NULL, NULL, N_("Attention heads"), GROUP ("model/architecture")),
  INT ("model.num_key_value_heads", 1, 1e6, NULL, NULL, N_("Key/value heads"), GROUP ("model/architecture")),
  INT ("model.intermediate_size", 1, 1e8, NULL, NULL, N_("MLP size"), GROUP ("model/architecture")),
  INT ("model.vocab_size", 1, 1e8, NULL, NULL, N_("Vocabulary"), GROUP ("model/architecture")),
  INT ("model.max_position_embeddings", 1, 1e9, NULL, NULL, N_("Context length"), GROUP ("model/architecture")),
  BOOL ("model.tie_word_embeddings", NULL, N_("Tied embeddings"), GROUP ("model/architecture")),
  /* Read into the config as Headroom's "assume_architecture" (headroom-hf-config.c):
   * "llama" reads an unknown model_type as a Llama-style decoder ("generic decoder"). */
  CHOICE ("model.assume_architecture", assume, NULL, N_("Unknown model type"),
          GROUP ("model/architecture"),
          DESCRIPTION (N_("How to read a config whose model_type Headroom does not know: refuse "
                          "it, or read it as a generic Llama-style decoder, and every result "
                          "then says the architecture was assumed"))),

  STR ("hardware.gpu", "h100-sxm", N_("GPU"), GROUP ("hardware/cluster")),
  INT ("hardware.nodes", 1, 1e6, "1", NULL, N_("Nodes"), GROUP ("hardware/cluster"), TRAIN (nodes)),
  INT ("hardware.gpus_per_node", 1, 1024, "8", NULL, N_("GPUs per node"), GROUP ("hardware/cluster"),
       TRAIN (gpus_per_node)),
  /* A typical on-demand H100 price (2025); 0 leaves the cost out. */
  DBL ("hardware.price_per_gpu_hour", 0, 1e6, "2.5", "USD", N_("Price per GPU-hour"),
       GROUP ("hardware/cluster"), OPTION ("price"), APPLY (headroom_project_apply_price)),
  DBL ("hardware.inter_node_bandwidth", 0, 1e6, "0", "GB/s", N_("Inter-node bandwidth per GPU"),
       GROUP ("hardware/cluster"), PLACEHOLDER (N_("The GPU’s figure")), GPU (inter_node_bandwidth)),
  DBL ("hardware.inter_node_latency", 0, 1e9, "0", "µs", N_("Inter-node latency"),
       GROUP ("hardware/cluster"), PLACEHOLDER (N_("NCCL’s 14 µs a step")),
       DESCRIPTION (N_("Latency of one ring step between nodes. Empty: the GPU’s figure where "
                       "the catalog has one, else NCCL’s own model, 14 µs (3.4 µs a step "
                       "over NVLink)")),
       GPU (inter_node_latency)),
  DBL ("hardware.host_bandwidth", 0, 1e6, "0", "GB/s", N_("Host link bandwidth per GPU"),
       GROUP ("hardware/cluster"), PLACEHOLDER (N_("The GPU’s figure")),
       DESCRIPTION (N_("One direction of the GPU’s link to host memory (PCIe x16, NVLink-C2C): "
                       "what a paged optimizer’s evicted states and offloaded activations cross")),
       VISIBLE_WHEN ("workload", "training"), GPU (host_bandwidth)),
  DBL ("hardware.custom.memory", 0, 1e6, "80", "GiB", N_("Memory"), GROUP ("hardware/custom"),
       CUSTOM_GPU (memory_bytes)),
  DBL ("hardware.custom.memory_bandwidth", 0, 1e6, "3350", "GB/s", N_("Memory bandwidth"), GROUP ("hardware/custom"),
       CUSTOM_GPU (memory_bandwidth)),
  DBL ("hardware.custom.fp32", 0, 1e6, "67", "TFLOP/s", N_("FP32 peak"), GROUP ("hardware/custom"),
       CUSTOM_GPU (peak_flops[HR_DTYPE_FP32])),
  DBL ("hardware.custom.tf32", 0, 1e6, "495", "TFLOP/s", N_("TF32 peak"), GROUP ("hardware/custom"),
       CUSTOM_GPU (peak_flops[HR_DTYPE_TF32])),
  DBL ("hardware.custom.bf16", 0, 1e6, "989", "TFLOP/s", N_("BF16 peak"), GROUP ("hardware/custom"),
       CUSTOM_GPU (peak_flops[HR_DTYPE_BF16])),
  DBL ("hardware.custom.fp16", 0, 1e6, "989", "TFLOP/s", N_("FP16 peak"), GROUP ("hardware/custom"),
       CUSTOM_GPU (peak_flops[HR_DTYPE_FP16])),
  DBL ("hardware.custom.fp8", 0, 1e6, "1979", "TFLOP/s", N_("FP8 peak"), GROUP ("hardware/custom"),
       CUSTOM_GPU (peak_flops[HR_DTYPE_FP8])),
  DBL ("hardware.custom.int8", 0, 1e6, "1979", "TOP/s", N_("INT8 peak"), GROUP ("hardware/custom"),
       CUSTOM_GPU (peak_flops[HR_DTYPE_INT8])),
  DBL ("hardware.custom.intra_node_bandwidth", 0, 1e6, "450", "GB/s", N_("Intra-node bandwidth per GPU"), GROUP ("hardware/custom"),
       CUSTOM_GPU (intra_node_bandwidth)),
  /* The H100 SXM's PCIe Gen5 x16, one direction (resources/gpus.json). */
  DBL ("hardware.custom.host_bandwidth", 0, 1e6, "64", "GB/s", N_("Host link bandwidth per GPU"), GROUP ("hardware/custom"),
       CUSTOM_GPU (host_bandwidth)),
  DBL ("hardware.custom.power", 0, 1e5, "700", "W", N_("Board power"), GROUP ("hardware/custom"),
       CUSTOM_GPU (power_watts)),
  /* The core's defaults differ by workload (1 GiB training, HR_INFERENCE_DEFAULT_OVERHEAD_BYTES). */
  DBL ("hardware.overhead", -1, 1e15, "-1", "bytes", N_("Framework memory per GPU (−1: the default)"),
       OPTION ("overhead"), APPLY (headroom_project_apply_overhead)),
  DBL ("hardware.cpu_memory_bandwidth", 0.001, 1e6, "89.6", "GB/s", N_("Host memory bandwidth"),
       GROUP ("hardware/cluster"), VISIBLE_WHEN ("workload", "inference"),
       FIELD_OF (HEADROOM_KEY_FIELD_SERVING, HrServing, cpu_memory_bandwidth),
       APPLY (headroom_project_apply_gb_per_s)),

  CHOICE ("workload", workload, "training", N_("Workload"), GROUP ("workload/workload")),

  INT ("training.tensor_parallel", 1, 1e6, "1", NULL, N_("Tensor parallel"),
       GROUP ("workload/parallelism"), OPTION ("tp"), TRAIN (tensor_parallel)),
  BOOL ("training.sequence_parallel", "false", N_("Sequence parallel"),
        GROUP ("workload/parallelism"), TRAIN (sequence_parallel)),
  INT ("training.pipeline_parallel", 1, 1e6, "1", NULL, N_("Pipeline parallel"),
       GROUP ("workload/parallelism"), OPTION ("pp"), TRAIN (pipeline_parallel)),
  CHOICE ("training.pipeline_schedule", schedule, "1f1b", N_("Pipeline schedule"),
          GROUP ("workload/parallelism"), OPTION ("pp-schedule"), TRAIN (pipeline_schedule),
          ENUM (hr_pipeline_schedule_from_name)),
  INT ("training.virtual_stages", 1, 1e6, "1", NULL, N_("Virtual stages"),
       GROUP ("workload/parallelism"), OPTION ("vpp"), TRAIN (virtual_stages)),
  INT ("training.pp_first_stage_layers", 0, 1e6, "0", "layers", N_("First stage layers"),
       GROUP ("workload/parallelism"), PLACEHOLDER (N_("The framework’s split")), TRAIN (pp_first_stage_layers)),
  INT ("training.pp_last_stage_layers", 0, 1e6, "0", "layers", N_("Last stage layers"),
       GROUP ("workload/parallelism"), PLACEHOLDER (N_("The framework’s split")), TRAIN (pp_last_stage_layers)),
  BOOL ("training.dtensor_tp", "false", N_("DTensor tensor parallel"),
        GROUP ("workload/parallelism"), TRAIN (dtensor_tp),
        VISIBLE_WHEN ("training.sequence_parallel", "true"),
        DESCRIPTION (N_("Tensor parallelism through DTensor (torchtitan): under sequence "
                        "parallelism the projections save their all-gathered input, where "
                        "Megatron saves it split and gathers it again in the backward"))),
  /* docs/planner.md, "Async tensor parallel" */
  BOOL ("training.async_tp", "false", N_("Async tensor parallel"),
        GROUP ("workload/parallelism"), TRAIN (async_tp),
        VISIBLE_WHEN ("training.sequence_parallel", "true"),
        DESCRIPTION (N_("torchtitan’s async TP (needs torch.compile): each sequence-parallel "
                        "all-gather and reduce-scatter is split into one chunk per GPU, "
                        "overlapped with the projection it feeds or follows"))),
  /* docs/planner.md, "FSDP2's copies" */
  BOOL ("training.fsdp2", "false", N_("FSDP2"),
        GROUP ("workload/parallelism"), TRAIN (fsdp2), VISIBLE_WHEN ("training.fsdp", "full|grad-op|hybrid"),
        DESCRIPTION (N_("FSDP by PyTorch’s fully_shard (torchtitan, torchtune): each "
                        "all-gather is copied out to the parameters and each reduce-scatter "
                        "copies the gradients in, memory-bound passes on the compute stream "
                        "that FSDP1’s flat parameters and DeepSpeed do not make"))),
  /* torchtune's custom_sharded_layers: ['tok_embeddings', 'output'] in its
   * Llama 3 and 3.1 full fine-tune configs (recipes/configs/llama3_1/
   * 70B_full.yaml at 1814feb), passed to shard_model's conditions. */
  BOOL ("training.fsdp_embedding_units", "false", N_("Embedding and head sharded apart"),
        GROUP ("workload/parallelism"), TRAIN (fsdp_embedding_units),
        VISIBLE_WHEN ("training.fsdp", "full|grad-op|hybrid"),
        DESCRIPTION (N_("The embedding and the LM head are FSDP units of their own, gathered "
                        "for their forward and their backward only (torchtune’s "
                        "custom_sharded_layers), not kept gathered in the root through the "
                        "step; refused for a tied head"))),
  BOOL ("training.megatron_fsdp", "false", N_("Megatron FSDP"),
        GROUP ("workload/parallelism"), TRAIN (megatron_fsdp),
        VISIBLE_WHEN ("training.fsdp", "full|grad-op|hybrid"),
        DESCRIPTION (N_("FSDP by Megatron-Core’s own implementation, on with the Megatron "
                        "framework: parameters and gradients live in its contiguous buffers, "
                        "so it makes neither FSDP1’s passes over each gradient nor FSDP2’s "
                        "copies"))),
  BOOL ("training.torch_pipelining", "false", N_("PyTorch pipelining"),
        GROUP ("workload/parallelism"), TRAIN (torch_pipelining),
        DESCRIPTION (N_("Stages run by torch.distributed.pipelining (torchtitan), as torch "
                        "ran them before 2.10: each micro-batch’s stage output is kept for "
                        "the whole step and the last stage concatenates them at its end, a "
                        "receive buffer is allocated for every micro-batch, and the "
                        "interleaved schedule runs its micro-batches in rounds"))),
  INT ("training.context_parallel", 1, 1e6, "1", NULL, N_("Context parallel"),
       GROUP ("workload/parallelism"), OPTION ("cp"), TRAIN (context_parallel)),
  /* docs/planner.md, "Context parallel in PyTorch" */
  BOOL ("training.torch_context_parallel", "false", N_("PyTorch context parallel"),
        GROUP ("workload/parallelism"), TRAIN (torch_context_parallel),
        DESCRIPTION (N_("Context parallelism by PyTorch’s context_parallel() (torchtitan): "
                        "keys and values expanded to every query head and all-gathered, "
                        "the partial outputs merged and the key and value gradients summed "
                        "in fp32 by separate kernels at each step"))),
  INT ("training.expert_parallel", 1, 1e6, "1", NULL, N_("Expert parallel"),
       GROUP ("workload/parallelism"), OPTION ("ep"), TRAIN (expert_parallel)),
  INT ("training.expert_tensor_parallel", 0, 1e6, "0", NULL, N_("Expert tensor parallel"),
       GROUP ("workload/parallelism"), OPTION ("etp"), PLACEHOLDER (N_("As tensor parallel")),
       TRAIN (expert_tensor_parallel),
       DESCRIPTION (N_("Tensor parallelism inside each routed expert (Megatron-Core’s "
                       "expert_tensor_parallel_size); 1 keeps experts whole and spreads expert "
                       "parallelism over the tensor-parallel ranks too"))),
  INT ("training.zero_stage", 0, 3, "1", NULL, N_("ZeRO stage"),
       GROUP ("workload/parallelism"), OPTION ("zero"), TRAIN (zero_stage)),
  CHOICE ("training.fsdp", fsdp, "none", N_("FSDP"),
          GROUP ("workload/parallelism"), TRAIN (fsdp), ENUM (hr_fsdp_from_name)),
  BOOL ("training.no_sync", "false", N_("Accumulate without sync"),
        GROUP ("workload/parallelism"), TRAIN (no_sync), VISIBLE_WHEN ("training.fsdp", "full|grad-op|hybrid"),
        DESCRIPTION (N_("Gradient accumulation inside FSDP’s no_sync() (the Hugging Face Trainer’s "
                        "default): every micro-batch but the step’s last keeps whole, unsharded "
                        "gradients, reduce-scattered once per step."))),
  INT ("training.micro_batch", 1, 1e9, "1", "sequences", N_("Micro-batch"),
       GROUP ("workload/batch"), TRAIN (micro_batch)),
  INT ("training.global_batch", 0, 1e12, "512", "sequences", N_("Global batch"),
       GROUP ("workload/batch"), PLACEHOLDER (N_("One micro-batch per GPU")), TRAIN (global_batch)),
  INT ("training.seq_len", 1, 1e9, "8192", "tokens", N_("Sequence length"),
       GROUP ("workload/batch"), OPTION ("seq"), TRAIN (seq_len)),
  DBL ("training.tokens", 0, 1e18, "0", "tokens", N_("Training tokens"),
       GROUP ("workload/batch"), PLACEHOLDER (N_("Not set")), TRAIN (tokens)),
  /* docs/training.md, "Frameworks"; applied by the estimator, not a struct field */
  CHOICE ("training.framework", framework, "none", N_("Framework"), GROUP ("workload/numerics"),
          DESCRIPTION (N_("Fills the recipe settings you have not set (precision, norm, rotary and MLP kernels, "
                          "loss, recomputation…) as that framework ships them, and keeps the layout to what "
                          "it can run. torchtitan’s are those of December 2024: a 2026 torchtitan "
                          "chunks its loss with the head (Loss: Chunked with the head) and fuses "
                          "AdamW."))),
  CHOICE ("training.precision", precision, "bf16-mixed", N_("Precision"),
          GROUP ("workload/numerics"), APPLY (headroom_project_apply_precision)),
  BOOL ("training.sharding_16bit_params", "false", N_("16-bit parameters when sharded"),
        GROUP ("workload/numerics"), TRAIN (sharding_16bit_params),
        VISIBLE_WHEN ("training.precision", "bf16-autocast|fp16-autocast"),
        DESCRIPTION (N_("The framework holds 16-bit parameters once FSDP or ZeRO shards them, "
                        "autocast or not (the Hugging Face Trainer: accelerate’s FSDP plugin, "
                        "DeepSpeed’s bf16), so autocast over fp32 parameters applies to "
                        "replicated data parallelism only"))),
  CHOICE ("training.fp8_recipe", fp8_recipe, "transformer-engine", N_("FP8 implementation"),
          GROUP ("workload/numerics"), TRAIN (fp8_recipe), ENUM (hr_fp8_recipe_from_name),
          VISIBLE_WHEN ("training.precision", "fp8-mixed"),
          DESCRIPTION (N_("Whose fp8 linear layers: Transformer Engine’s save fp8 casts of their "
                          "inputs and keep the fp8 weight and its transpose; torchao’s float8 "
                          "(torchtitan, torchtune) saves the 16-bit inputs and weights, as BF16 mixed "
                          "precision does, and casts each operand again in the backward, an "
                          "amax pass before every cast"))),
  BOOL ("training.fp8_params", "false", N_("FP8 parameters"),
        GROUP ("workload/numerics"), TRAIN (fp8_params),
        VISIBLE_WHEN ("training.precision", "fp8-mixed"),
        DESCRIPTION (N_("The parameters are Transformer Engine fp8 tensors, their data and "
                        "transpose, with no 16-bit copy, and are all-gathered in fp8 (Megatron’s "
                        "--fp8-param-gather, which Megatron-Bridge’s fp8 recipes set); not with "
                        "torchao’s float8, whose fp8 all-gather is not modelled."))),
  BOOL ("training.fp32_gradients", "false", N_("fp32 gradients"),
        GROUP ("workload/numerics"), TRAIN (fp32_gradients),
        DESCRIPTION (N_("Mixed precision keeps and reduces the gradients in fp32 (Megatron’s "
                        "main_grad, FSDP2 reduce_dtype fp32) instead of the 16-bit dtype."))),
  BOOL ("training.fp32_accumulation_buffer", "true", N_("fp32 accumulation buffer"),
        GROUP ("workload/numerics"), TRAIN (fp32_accumulation_buffer),
        DESCRIPTION (N_("16-bit gradients of several micro-batches are summed in a separate fp32 "
                        "buffer (DeepSpeed’s bf16 optimizer); Megatron sums them in its gradient "
                        "buffer instead."))),
  CHOICE ("training.optimizer", optimizer, "adamw", N_("Optimizer"),
          GROUP ("workload/numerics"), TRAIN (optimizer), ENUM (hr_optimizer_from_name)),
  BOOL ("training.offload_optimizer", "false", N_("Offload optimizer"),
        GROUP ("workload/numerics"), TRAIN (offload_optimizer)),
  BOOL ("training.offload_params", "false", N_("Offload parameters"),
        GROUP ("workload/numerics"), TRAIN (offload_params),
        DESCRIPTION (N_("FSDP’s CPU offload (torchtune’s fsdp_cpu_offload) or ZeRO-3’s "
                        "offload_param: the sharded parameters, gradients and optimizer states "
                        "in host memory and the optimizer step on the CPU. Needs ZeRO-3 or "
                        "FSDP, and a measured utilisation for the time."))),
  CHOICE ("training.attention", attention, "flash", N_("Attention"),
          GROUP ("workload/numerics"), TRAIN (attention), ENUM (hr_training_attention_from_name)),
  /* docs/planner.md, "Attention kernel" */
  CHOICE ("training.flash_kernel", flash_kernel, "fa2", N_("Attention kernel"),
          GROUP ("workload/numerics"), TRAIN (flash_kernel), ENUM (hr_flash_kernel_from_name),
          VISIBLE_WHEN ("training.attention", "flash"),
          DESCRIPTION (N_("Which FlashAttention kernel runs, for its measured speed: "
                          "FlashAttention-2, or flash-attn 1’s Triton kernel (llm-foundry’s "
                          "attn_impl triton until 2024), about half as fast on an A100. The "
                          "memory is the same. A GPU without the kernel’s measured rates (the A100 "
                          "SXM, H100 SXM and H200 have them) prices the attention core as "
                          "two matrix products either way"))),
  CHOICE ("training.recompute", recompute, "none", N_("Recomputation"),
          GROUP ("workload/numerics"), TRAIN (recompute), ENUM (hr_training_recompute_from_name)),
  /* docs/training.md, "Recomputation" */
  STR ("training.recompute_modules", "core_attn", N_("Recomputed modules"),
       GROUP ("workload/numerics"), APPLY (headroom_project_apply_recompute_modules),
       VISIBLE_WHEN ("training.recompute", "selective"),
       DESCRIPTION (N_("Megatron’s recompute_modules, comma-separated: core_attn, layernorm, "
                       "moe_act, mlp, moe, shared_experts, mla_up_proj. Its default is core_attn, "
                       "the attention core; empty recomputes nothing."))),
  INT ("training.recompute_layers", 0, 1e6, "0", "layers", N_("Recomputed layers per stage"),
       GROUP ("workload/numerics"), PLACEHOLDER (N_("All layers")), TRAIN (recompute_layers),
       VISIBLE_WHEN ("training.recompute", "selective|op-selective|full")),
  INT ("training.recompute_every", 0, 1e6, "0", NULL, N_("Recompute every k-th layer"),
       GROUP ("workload/numerics"), PLACEHOLDER (N_("Every layer")), TRAIN (recompute_every),
       VISIBLE_WHEN ("training.recompute", "selective|op-selective|full")),
  BOOL ("training.offload_activations", "false", N_("Offload activations"),
        GROUP ("workload/numerics"), TRAIN (offload_activations)),
  INT ("training.offload_layers", 0, 1e6, "0", "layers", N_("Offloaded layers per stage"),
       GROUP ("workload/numerics"), PLACEHOLDER (N_("All but the last")), TRAIN (offload_layers),
       VISIBLE_WHEN ("training.offload_activations", "true"),
       DESCRIPTION (N_("With Offload activations, the layers whose saved tensors go to the "
                       "host (Megatron’s cpu_offloading_num_layers); as many as the stage has "
                       "or more: all but the last"))),
  CHOICE ("training.norm_kernel", norm_kernel, "fused", N_("Norm kernel"),
          GROUP ("workload/numerics"), TRAIN (norm_kernel), ENUM (hr_norm_kernel_from_name)),
  CHOICE ("training.rope_kernel", rope_kernel, "fused", N_("Rotary embedding kernel"),
          GROUP ("workload/numerics"), TRAIN (rope_kernel), ENUM (hr_rope_kernel_from_name),
          DESCRIPTION (N_("How q and k are rotated: one fused kernel, or the eager PyTorch ops of "
                          "a code base, each a pass over memory; torch.compile fuses them"))),
  /* Eager by default, as the PyTorch code of Hugging Face models runs it
   * (down(silu(gate(x)) * up(x)), measured-small.json's Llama configs);
   * --framework megatron fuses it. */
  CHOICE ("training.glu_kernel", glu_kernel, "eager", N_("Gated MLP kernel"),
          GROUP ("workload/numerics"), TRAIN (glu_kernel), ENUM (hr_glu_kernel_from_name),
          DESCRIPTION (N_("SwiGLU’s silu and product in one kernel, which saves its two inputs "
                          "only, or as eager passes over the MLP’s intermediate, which also save "
                          "silu’s output; torch.compile fuses the passes"))),
  /* nn.Linear by default (addmm: the bias's gradient is a sum over the
   * tokens of its own); --framework megatron runs Transformer Engine's
   * linears, which compute it in the weight-gradient GEMM. */
  BOOL ("training.fused_bias_grad", "false", N_("Bias gradients in the GEMM"),
        GROUP ("workload/numerics"), TRAIN (fused_bias_grad),
        DESCRIPTION (N_("Transformer Engine computes a linear’s bias gradient in its "
                        "weight-gradient GEMM; PyTorch’s nn.Linear sums the output gradient "
                        "over the tokens in a pass of its own. Only models with biases (GPT-2, "
                        "MPT, Qwen2’s q, k and v …) are affected."))),
  BOOL ("training.expand_kv", "false", N_("K/V copied to every query head"),
        GROUP ("workload/numerics"), TRAIN (expand_kv), VISIBLE_WHEN ("training.attention", "flash"),
        DESCRIPTION (N_("The model copies grouped keys and values to every query head before "
                        "the attention kernel (torchtitan, torchtune): the copies are "
                        "memory-bound passes, and without recomputation the kernel keeps them "
                        "for the backward"))),
  /* Separate by default, as transformers' Llama family, torchtune and
   * torchtitan run them; --framework megatron fuses them. One product split
   * into views (llm-foundry's MPT Wqkv, transformers' GPT-2 c_attn) costs
   * the same for a model whose q, k and v are equally wide and whose MLP
   * is not gated. */
  CHOICE ("training.projections", projections, "separate", N_("q, k, v products"),
          GROUP ("workload/numerics"), TRAIN (projections), ENUM (hr_projections_from_name),
          DESCRIPTION (N_("How q, k and v (and the MLP’s gate and up) are multiplied: one "
                          "product the attention reads in place (Transformer Engine), one "
                          "product split into views, whose backward copies the gradients "
                          "together, or separate linears, whose input gradients the backward "
                          "adds; torch.compile fuses those passes"))),
  BOOL ("training.compile", "false", N_("torch.compile"), GROUP ("workload/numerics"), TRAIN (compile)),
  BOOL ("training.compile_loss", "true", N_("Compile the loss"), GROUP ("workload/numerics"),
        TRAIN (compile_loss), VISIBLE_WHEN ("training.compile", "true")),
  CHOICE ("training.loss", loss, "full", N_("Loss"),
          GROUP ("workload/numerics"), TRAIN (loss), ENUM (hr_loss_from_name),
          DESCRIPTION (N_("How the cross-entropy meets the logits: all of them in fp32, chunk by "
                          "chunk after the head (torchtune), fused with the head (Liger), a "
                          "kernel on the 16-bit logits (flash-attn), Megatron’s or Transformer "
                          "Engine’s, or the head, loss and backward chunk by chunk in the "
                          "forward (torchtitan’s ChunkedLossWrapper)"))),
  BOOL ("training.model_upcasts_logits", "false", N_("Model returns fp32 logits"),
        GROUP ("workload/numerics"), TRAIN (model_upcasts_logits),
        VISIBLE_WHEN ("training.loss", "full"),
        DESCRIPTION (N_("The model casts its logits to fp32 before the loss (torchtune); "
                        "otherwise the loss upcasts them, and a compiled loss keeps the "
                        "16-bit logits for its backward"))),
  INT ("training.loss_chunks", 1, 1e6, "8", NULL, N_("Loss chunks"),
       GROUP ("workload/numerics"), TRAIN (loss_chunks),
       VISIBLE_WHEN ("training.loss", "chunked|chunked-head")),
  BOOL ("training.loss_parallel", "false", N_("DTensor loss parallel"), GROUP ("workload/numerics"),
        TRAIN (loss_parallel)),
  BOOL ("training.optimizer_in_backward", "false", N_("Optimizer step in backward"),
        GROUP ("workload/numerics"), TRAIN (optimizer_in_backward)),
  BOOL ("training.paged_optimizer", "false", N_("Paged optimizer"),
        GROUP ("workload/numerics"), TRAIN (paged_optimizer),
        DESCRIPTION (N_("bitsandbytes’ paged AdamW, 8-bit AdamW or Lion: the optimizer states "
                        "move to host memory when the GPU runs out, and come back for the "
                        "update."))),
  BOOL ("training.optimizer_foreach", "false", N_("Optimizer step over lists (foreach)"),
        GROUP ("workload/numerics"), TRAIN (optimizer_foreach),
        DESCRIPTION (N_("torch.optim.AdamW’s default foreach step, which holds one more "
                        "state-sized buffer; off: a fused step in place."))),
  BOOL ("training.optimizer_loop", "false", N_("Optimizer step one tensor at a time"),
        GROUP ("workload/numerics"), TRAIN (optimizer_loop),
        VISIBLE_WHEN ("training.optimizer", "adamw"),
        DESCRIPTION (N_("AdamW as a Python loop of unfused ops over each tensor (Composer’s "
                        "DecoupledAdamW, llm-foundry’s optimizer): the passes of the foreach "
                        "step, with one tensor’s temporaries at a time."))),
  BOOL ("training.dropout", "false", N_("Dropout"), GROUP ("workload/numerics"), TRAIN (dropout)),
  /* docs/planner.md, "Overlap" */
  CHOICE ("training.overlap", overlap, "on", N_("Overlap communication"),
          GROUP ("workload/throughput"), APPLY (headroom_project_apply_overlap),
          DESCRIPTION (N_("On: data-parallel gradient reduction and parameter gathers run during "
                          "the passes, as today’s frameworks do by default. Off: after the "
                          "backward pass."))),
  /* docs/conventions.md, "Causal attention" */
  BOOL ("training.causal", "false", N_("Causal attention FLOPs"), GROUP ("workload/throughput"),
        TRAIN (causal),
        DESCRIPTION (N_("Off: QKᵀ and attention over V count as the full s×s product, as eager "
                        "attention computes them and PaLM’s model FLOPs count them. On: both are "
                        "halved, as causal FlashAttention kernels execute them; FLOPs and step "
                        "time drop accordingly."))),
  CHOICE ("training.method", method, "full", N_("Fine-tuning method"),
          GROUP ("workload/finetune"), TRAIN (finetune.method), ENUM (hr_finetune_method_from_name)),
  INT ("training.lora_rank", 1, 1e6, "8", NULL, N_("LoRA rank"),
       GROUP ("workload/finetune"), TRAIN (finetune.rank), VISIBLE_WHEN ("training.method", "lora|qlora|dora")),
  DBL ("training.lora_alpha", 0, 1e6, "16", NULL, N_("LoRA alpha"),
       GROUP ("workload/finetune"), TRAIN (finetune.alpha), VISIBLE_WHEN ("training.method", "lora|qlora|dora"),
       DESCRIPTION (N_("Scales the adapters’ output by alpha ÷ rank: no effect on memory or time"))),
  DBL ("training.lora_dropout", 0, 0.99, "0", NULL, N_("LoRA dropout"),
       GROUP ("workload/finetune"), TRAIN (finetune.dropout), VISIBLE_WHEN ("training.method", "lora|qlora|dora")),
  STR ("training.lora_targets", "attention", N_("LoRA target modules"),
       GROUP ("workload/finetune"), APPLY (headroom_project_apply_lora_targets), VISIBLE_WHEN ("training.method", "lora|qlora|dora")),
  BOOL ("training.fp32_adapters", "false", N_("Adapters in fp32"),
        GROUP ("workload/finetune"), TRAIN (finetune.fp32_adapters), VISIBLE_WHEN ("training.method", "lora|qlora|dora")),
  INT ("training.freeze_layers", 0, 1e6, "0", "layers", N_("Frozen bottom layers"),
       GROUP ("workload/finetune"), PLACEHOLDER (N_("None")), TRAIN (finetune.freeze_layers),
       VISIBLE_WHEN ("training.method", "freeze")),
  CHOICE ("training.quant", quant, "nf4", N_("Base weight quantisation"),
          GROUP ("workload/finetune"), TRAIN (finetune.quant), ENUM (hr_quant_from_name), VISIBLE_WHEN ("training.method", "qlora")),
  BOOL ("training.double_quant", "false", N_("Double quantisation"),
        GROUP ("workload/finetune"), TRAIN (finetune.double_quant), VISIBLE_WHEN ("training.method", "qlora")),
  CHOICE ("training.quant_scope", quant_scope, "linear", N_("Quantised layers"),
          GROUP ("workload/finetune"), TRAIN (finetune.quant_scope), ENUM (hr_quant_scope_from_name),
          VISIBLE_WHEN ("training.method", "qlora")),
  BOOL ("training.dora_base_rerun", "true", N_("DoRA reruns the frozen product on the dropped input"),
        GROUP ("workload/finetune"), TRAIN (finetune.dora_base_rerun), VISIBLE_WHEN ("training.method", "dora"),
        DESCRIPTION (N_("PEFT: with LoRA dropout, each DoRA layer multiplies the dropped input by "
                        "the frozen weight once more, forward and backward. torchtune reuses the "
                        "base output."))),
  BOOL ("training.frozen_gradients", "false", N_("Gradients of frozen weights"),
        GROUP ("workload/finetune"), TRAIN (finetune.frozen_gradients), VISIBLE_WHEN ("training.method", "lora|dora"),
        DESCRIPTION (N_("FSDP1 with use_orig_params (Lightning Fabric’s default, LitGPT) flattens "
                        "each wrapped layer’s frozen and trained weights together: the frozen "
                        "ones get gradients and save their inputs as if trained. PEFT’s FSDP wrap "
                        "policy and FSDP2 avoid it."))),
  /* docs/training.md, "Inputs kept on autograd contexts" */
  BOOL ("training.quant_saves_input", "false", N_("4-bit layers keep their input (bitsandbytes before 0.43.2)"),
        GROUP ("workload/finetune"), TRAIN (finetune.quant_saves_input), VISIBLE_WHEN ("training.method", "qlora"),
        DESCRIPTION (N_("bitsandbytes’ 4-bit matmul kept its input on its autograd context until "
                        "0.43.2 (its 8-bit one still does): the backward does not free it, the "
                        "graph’s end does"))),
  BOOL ("training.loop_keeps_loss", "false", N_("Loop keeps the last loss"),
        GROUP ("workload/finetune"), TRAIN (finetune.loop_keeps_loss), VISIBLE_WHEN ("training.method", "qlora"),
        DESCRIPTION (N_("The training loop holds each micro-batch’s loss until the next one’s is "
                        "computed (a plain loop, LitGPT): the inputs quantised layers keep on their "
                        "autograd contexts outlive the backward into the next forward. The Hugging "
                        "Face Trainer returns the loss detached."))),
  BOOL ("training.quant_from_fp16", "false", N_("4-bit weights quantised from fp16 (Lightning)"),
        GROUP ("workload/finetune"), TRAIN (finetune.quant_from_fp16), VISIBLE_WHEN ("training.method", "qlora"),
        DESCRIPTION (N_("Lightning’s bitsandbytes precision (LitGPT) quantises an fp16 copy of "
                        "each weight: every 4-bit product dequantises to fp16 and casts to the "
                        "compute dtype, two copies of the matrix at once"))),
  /* docs/training.md, "Model load" */
  BOOL ("training.quant_load_whole", "false", N_("NF4 quantised whole at load (torchao 0.1)"),
        GROUP ("workload/finetune"), TRAIN (finetune.quant_load_whole), VISIBLE_WHEN ("training.method", "qlora"),
        DESCRIPTION (N_("torchtune 0.1 with torchao 0.1 quantised each weight in one piece as it "
                        "built and loaded the model, with 64 bytes of temporaries per element: "
                        "what the allocator keeps from the load then sets the peak. torchao 0.2 "
                        "and later quantise in chunks."))),
  /* docs/training.md, "Time, MFU and cost" */
  DBL ("training.mfu", 0, 1, "0", NULL, N_("Measured FLOPs utilisation"),
       GROUP ("workload/throughput"), PLACEHOLDER (N_("Predicted")), TRAIN (mfu),
       DESCRIPTION (N_("0: the step time is predicted from the hardware (docs/planner.md), the "
                       "same figure the planner shows. Above 0: a utilisation you measured, which "
                       "overrides the prediction: step time = (model FLOPs + recomputation) ÷ "
                       "(GPUs × peak × this); every time shown then says so."))),

  INT ("inference.tensor_parallel", 1, 1e6, "1", NULL, N_("Tensor parallel"),
       GROUP ("workload/parallelism"), OPTION ("tp"), INFER (tensor_parallel)),
  INT ("inference.pipeline_parallel", 1, 1e6, "1", NULL, N_("Pipeline parallel"),
       GROUP ("workload/parallelism"), OPTION ("pp"), INFER (pipeline_parallel)),
  INT ("inference.batch", 1, 1e9, "1", "sequences", N_("Batch"),
       GROUP ("workload/requests"), INFER (batch)),
  INT ("inference.prompt", 1, 1e9, "1024", "tokens", N_("Prompt"),
       GROUP ("workload/requests"), INFER (prompt)),
  INT ("inference.generate", 0, 1e9, "256", "tokens", N_("Generated tokens"),
       GROUP ("workload/requests"), INFER (generate)),
  CHOICE ("inference.weights", weights, "bf16", N_("Weights"),
          GROUP ("workload/numerics"), INFER (weights), ENUM (hr_weight_precision_from_name)),
  INT ("inference.group_size", 1, 1e9, "128", NULL, N_("Quantisation group"),
       GROUP ("workload/numerics"), INFER (group_size), VISIBLE_WHEN ("inference.weights", "int8|int4|awq|gptq")),
  BOOL ("inference.fp8_keep_attention", "false", N_("FP8 keeps attention and the first and last layers 16-bit"),
        GROUP ("workload/numerics"), INFER (fp8_keep_attention), VISIBLE_WHEN ("inference.weights", "fp8")),
  CHOICE ("inference.kv_dtype", kv, "bf16", N_("KV cache type"),
          GROUP ("workload/numerics"), OPTION ("kv-cache"), INFER (kv_dtype), ENUM (hr_kv_dtype_from_name)),
  INT ("inference.paged_block", 0, 1e6, "16", "tokens", N_("KV block"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Contiguous cache")), INFER (paged_block)),
  INT ("inference.prefill_chunk", 0, 1e9, "0", "tokens", N_("Prefill chunk"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Whole prompt")), INFER (prefill_chunk)),
  DBL ("inference.compute_efficiency", 0.001, 1, "0.5", NULL, N_("Compute efficiency"),
       GROUP ("workload/throughput"), INFER (compute_efficiency)),
  DBL ("inference.memory_efficiency", 0.001, 1, "0.7", NULL, N_("Memory bandwidth efficiency"),
       GROUP ("workload/throughput"), INFER (memory_efficiency)),
  CHOICE ("inference.engine", engine, "vllm", N_("Serving engine"),
          GROUP ("workload/serving"), SERVE (engine), ENUM (hr_engine_from_name)),
  DBL ("inference.gpu_memory_utilization", 0, 1, "0", NULL, N_("GPU memory utilization"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Engine’s default")), SERVE (gpu_memory_utilization),
       VISIBLE_WHEN ("inference.engine", "vllm|sglang|trtllm")),
  INT ("inference.max_model_len", 0, 1e9, "0", "tokens", N_("Longest request"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Prompt + generated")), SERVE (max_model_len)),
  INT ("inference.max_num_batched_tokens", 0, 1e9, "0", "tokens", N_("Tokens per engine step"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Engine’s default")), SERVE (max_num_batched_tokens)),
  INT ("inference.gpu_layers", -1, 1e6, "-1", "layers", N_("Layers on the GPU (llama.cpp)"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("All layers")), SERVE (gpu_layers),
       VISIBLE_WHEN ("inference.engine", "llamacpp")),
  DBL ("inference.first_token_overhead", -1, 10000, "-1", "ms",
       N_("Engine work before a first token"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Engine’s default")),
       SERVE (first_token_overhead), APPLY (headroom_project_apply_ms)),

  STR ("notes", "", N_("Notes")),
};

/* Model keys the window shows besides the table's: config.json keys a preset
 * may leave out, where 0 hands the value back to the preset. Not loaded,
 * saved or validated as settings: they live in the config. */
static const HeadroomKeyInfo extra_model_keys[] = {
  INT ("model.head_dim", 0, 1e8, NULL, NULL, N_("Head dimension"), GROUP ("model/architecture"),
       PLACEHOLDER (N_("Hidden size ÷ heads"))),
  BOOL ("model.attention_bias", NULL, N_("Attention biases"), GROUP ("model/architecture")),
  BOOL ("model.mlp_bias", NULL, N_("MLP biases"), GROUP ("model/architecture")),
  INT ("model.sliding_window", 0, 1e8, NULL, NULL, N_("Sliding window"), GROUP ("model/architecture"),
       PLACEHOLDER (N_("None (full attention)"))),
  INT ("model.num_local_experts", 0, 1e8, NULL, NULL, N_("Routed experts"), GROUP ("model/moe"),
       PLACEHOLDER (N_("None (dense)"))),
  INT ("model.num_experts_per_tok", 0, 1e8, NULL, NULL, N_("Experts per token"), GROUP ("model/moe"),
       PLACEHOLDER (N_("Preset’s"))),
  INT ("model.n_shared_experts", 0, 1e8, NULL, NULL, N_("Shared experts"), GROUP ("model/moe"),
       PLACEHOLDER (N_("None"))),
  INT ("model.moe_intermediate_size", 0, 1e8, NULL, NULL, N_("Expert MLP size"), GROUP ("model/moe"),
       PLACEHOLDER (N_("MLP size"))),
  INT ("model.first_k_dense_replace", 0, 1e8, NULL, NULL, N_("Leading dense layers"), GROUP ("model/moe"),
       PLACEHOLDER (N_("None"))),
  INT ("model.q_lora_rank", 0, 1e8, NULL, NULL, N_("Query rank"), GROUP ("model/mla"),
       PLACEHOLDER (N_("Full rank"))),
  INT ("model.kv_lora_rank", 0, 1e8, NULL, NULL, N_("Key/value rank"), GROUP ("model/mla"),
       PLACEHOLDER (N_("None (no latent attention)"))),
  INT ("model.qk_rope_head_dim", 0, 1e8, NULL, NULL, N_("Rotary head dimension"), GROUP ("model/mla"),
       PLACEHOLDER (N_("Preset’s"))),
  INT ("model.qk_nope_head_dim", 0, 1e8, NULL, NULL, N_("Non-rotary head dimension"), GROUP ("model/mla"),
       PLACEHOLDER (N_("Preset’s"))),
  INT ("model.v_head_dim", 0, 1e8, NULL, NULL, N_("Value head dimension"), GROUP ("model/mla"),
       PLACEHOLDER (N_("Preset’s"))),
};

/* Errors carry the key at fault and the problem without it as data
 * (headroom_project_error_get_key()), so that the window can name the
 * setting by its label and the CLI by its option. */
typedef struct
{
  char *key;
  char *problem;
} HeadroomProjectErrorPrivate;

static void
headroom_project_error_private_init (HeadroomProjectErrorPrivate *priv)
{
  priv->key = NULL;
  priv->problem = NULL;
}

static void
headroom_project_error_private_copy (const HeadroomProjectErrorPrivate *src,
                                     HeadroomProjectErrorPrivate       *dest)
{
  dest->key = g_strdup (src->key);
  dest->problem = g_strdup (src->problem);
}

static void
headroom_project_error_private_clear (HeadroomProjectErrorPrivate *priv)
{
  g_clear_pointer (&priv->key, g_free);
  g_clear_pointer (&priv->problem, g_free);
}

G_DEFINE_EXTENDED_ERROR (HeadroomProjectError, headroom_project_error)

const char *
headroom_project_error_get_key (const GError *error)
{
  if (error == NULL || error->domain != HEADROOM_PROJECT_ERROR)
    return NULL;
  return headroom_project_error_get_private (error)->key;
}

const char *
headroom_project_error_get_problem (const GError *error)
{
  if (error == NULL || error->domain != HEADROOM_PROJECT_ERROR)
    return NULL;
  return headroom_project_error_get_private (error)->problem;
}

/* How a message names `key`: its label, else the key itself. */
static const char *
key_name (const char *key)
{
  const char *label = headroom_project_get_key_label (key);

  return label != NULL ? label : key;
}

void
headroom_project_set_key_error (GError     **error,
                                int          code,
                                const char  *key,
                                const char  *format,
                                ...)
{
  HeadroomProjectErrorPrivate *priv;
  va_list args;
  char *problem;

  if (error == NULL)
    return;
  va_start (args, format);
  problem = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, HEADROOM_PROJECT_ERROR, code, "%s: %s", key_name (key), problem);
  priv = headroom_project_error_get_private (*error);
  priv->key = g_strdup (key);
  priv->problem = problem;
}

G_LOCK_DEFINE_STATIC (derived_options);

const HeadroomKeyInfo *
headroom_project_get_keys (guint *n_keys)
{
  if (n_keys != NULL)
    *n_keys = G_N_ELEMENTS (keys);
  return keys;
}

const HeadroomKeyInfo *
headroom_project_find_key (const char *key)
{
  static GHashTable *rows = NULL;

  g_return_val_if_fail (key != NULL, NULL);

  /* Every read of a setting looks its key up, an estimate every key of its
   * workload: a table from key to row, built once for all threads (the
   * sweeper reads its copy of the project in a worker), read-only after. */
  if (g_once_init_enter (&rows))
    {
      GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        g_hash_table_insert (table, (char *) keys[i].key, (gpointer) &keys[i]);
      g_once_init_leave (&rows, table);
    }
  return g_hash_table_lookup (rows, key);
}

const HeadroomKeyInfo *
headroom_project_get_extra_model_keys (guint *n_keys)
{
  if (n_keys != NULL)
    *n_keys = G_N_ELEMENTS (extra_model_keys);
  return extra_model_keys;
}

const char *
headroom_project_get_key_label (const char *key)
{
  const HeadroomKeyInfo *info;

  g_return_val_if_fail (key != NULL, NULL);

  info = headroom_project_find_key (key);
  for (guint i = 0; info == NULL && i < G_N_ELEMENTS (extra_model_keys); i++)
    if (strcmp (extra_model_keys[i].key, key) == 0)
      info = &extra_model_keys[i];
  /* The table's labels are English: translated here. */
  return info != NULL ? _(info->label) : NULL;
}

const char *
headroom_key_info_get_option (const HeadroomKeyInfo *info)
{
  static GHashTable *derived = NULL;
  const char *name;
  char *option;

  g_return_val_if_fail (info != NULL, NULL);

  if (info->option != NULL)
    return info->option;
  /* The table is static: derive each option once and keep it. */
  if (g_once_init_enter (&derived))
    g_once_init_leave (&derived, g_hash_table_new (g_str_hash, g_str_equal));
  G_LOCK (derived_options);
  option = g_hash_table_lookup (derived, info->key);
  if (option == NULL)
    {
      name = strchr (info->key, '.');
      option = g_strdup (name != NULL ? name + 1 : info->key);
      g_strdelimit (option, "._", '-');
      g_hash_table_insert (derived, (char *) info->key, option);
    }
  G_UNLOCK (derived_options);
  return option;
}

const char *
headroom_key_info_get_choice_label (const HeadroomKeyInfo *info,
                                    const char            *value)
{
  g_return_val_if_fail (info != NULL, value);

  if (info->choices == NULL || info->choice_labels == NULL || value == NULL)
    return value;
  for (guint i = 0; info->choices[i] != NULL; i++)
    if (strcmp (info->choices[i], value) == 0)
      return info->choice_labels[i];
  return value;
}

const char *
headroom_key_info_get_choice_for_enum (const HeadroomKeyInfo *info,
                                       int                    value)
{
  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (info->type == HEADROOM_KEY_CHOICE && info->from_name != NULL, NULL);

  /* The table's names read into the core's enums: the one that reads as `value`. */
  for (guint i = 0; info->choices[i] != NULL; i++)
    {
      int read = -1;

      if (info->from_name (info->choices[i], &read) && read == value)
        return info->choices[i];
    }
  return NULL;
}

char *
headroom_key_info_dup_condition_key (const HeadroomKeyInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);

  if (info->visible_when == NULL)
    return NULL;
  return g_strndup (info->visible_when, strcspn (info->visible_when, "="));
}

const HeadroomKeyInfo *
headroom_project_find_option (const char *section,
                              const char *option)
{
  g_return_val_if_fail (option != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *key = keys[i].key;
      gboolean in_section = section != NULL && g_str_has_prefix (key, section)
                            && key[strlen (section)] == '.';

      if ((in_section || g_str_has_prefix (key, "hardware."))
          && strcmp (headroom_key_info_get_option (&keys[i]), option) == 0)
        return &keys[i];
    }
  return NULL;
}

const char *
headroom_project_key_for_field (const char *section,
                                const char *field)
{
  const char *sections[] = { section, "hardware", "model" };

  if (field == NULL)
    return NULL;

  for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
    {
      g_autofree char *key = NULL;
      const HeadroomKeyInfo *info;

      if (sections[i] == NULL)
        continue;
      key = g_strconcat (sections[i], ".", field, NULL);
      info = headroom_project_find_key (key);
      if (info != NULL)
        return info->key;
    }

  /* Model fields are Hugging Face config keys; the table lists only some. */
  if (g_strcmp0 (section, "training") != 0 && g_strcmp0 (section, "inference") != 0)
    {
      g_autofree char *key = g_strconcat ("model.", field, NULL);
      return g_intern_string (key);
    }
  return field;
}

gboolean
headroom_project_is_section (const char *path)
{
  gsize len = strlen (path);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strncmp (keys[i].key, path, len) == 0 && keys[i].key[len] == '.')
      return TRUE;
  return FALSE;
}

/* The recipe each framework ships, filling the defaults of the keys the
 * project does not set (docs/training.md, "Frameworks"). */
static const struct
{
  const char *framework;
  const char *key;
  const char *value;
} framework_defaults[] = {
  /* Megatron-LM: bf16 params with fp32 main params and grads
   * (--bf16, Float16OptimizerWithFloat16Params), Transformer Engine fused
   * norms, no recomputation unless asked. */
  { "megatron", "training.precision", "bf16-mixed" },
  { "megatron", "training.norm_kernel", "fused" },
  /* Megatron-Core fuses RoPE (apply_rope_fusion) and SwiGLU
   * (bias_swiglu_fusion) unless --no-rope-fusion / --no-bias-swiglu-fusion. */
  { "megatron", "training.rope_kernel", "fused" },
  /* Megatron-Core's linear_qkv, split by Transformer Engine's SplitAlongDim,
   * whose backward skips the concatenation when the attention's backward
   * wrote the gradients into one buffer (an assumption: TE does for its
   * packed q, k, v layouts); linear_fc1 feeds bias_swiglu whole. */
  { "megatron", "training.projections", "fused" },
  { "megatron", "training.glu_kernel", "fused" },
  /* Transformer Engine's Linear: the bias gradient in the GEMM's epilogue
   * (cuBLASLt BGRADB) or its fp8 cast kernel (cast_transpose_dbias). */
  { "megatron", "training.fused_bias_grad", "true" },
  /* tensor_parallel.vocab_parallel_cross_entropy unless --cross-entropy-loss-fusion. */
  { "megatron", "training.loss", "vocab-parallel" },
  { "megatron", "training.recompute", "none" },
  /* --bf16 turns on accumulate_allreduce_grads_in_fp32 (arguments.py):
   * fp32 main_grad buffers. */
  { "megatron", "training.fp32_gradients", "true" },
  /* main_grad is the accumulation buffer (param_and_grad_buffer.py). */
  { "megatron", "training.fp32_accumulation_buffer", "false" },
  /* --overlap-grad-reduce and --overlap-param-gather are opt-in
   * (arguments.py, action='store_true'). */
  { "megatron", "training.overlap", "off" },
  /* --use-distributed-optimizer is opt-in too (action='store_true'). */
  { "megatron", "training.zero_stage", "0" },
  /* DeepSpeed runs Hugging Face models: their eager RMSNorm, bf16 weights
   * with an fp32 master copy (bf16.enabled, BF16_Optimizer). */
  { "deepspeed", "training.precision", "bf16-mixed" },
  { "deepspeed", "training.norm_kernel", "eager" },
  { "deepspeed", "training.rope_kernel", "rotate-half" },
  { "deepspeed", "training.projections", "separate" },
  { "deepspeed", "training.glu_kernel", "eager" },
  { "deepspeed", "training.loss", "full" },
  { "deepspeed", "training.recompute", "none" },
  /* DeepSpeedZeroConfig.stage defaults to 0 (runtime/zero/config.py). */
  { "deepspeed", "training.zero_stage", "0" },
  /* PyTorch FSDP with MixedPrecision(param_dtype=bf16) on a Hugging Face
   * model. */
  { "fsdp", "training.precision", "bf16-mixed" },
  { "fsdp", "training.norm_kernel", "eager" },
  { "fsdp", "training.rope_kernel", "rotate-half" },
  { "fsdp", "training.projections", "separate" },
  { "fsdp", "training.glu_kernel", "eager" },
  { "fsdp", "training.loss", "full" },
  { "fsdp", "training.fsdp", "full" },
  { "fsdp", "training.zero_stage", "0" },
  { "fsdp", "training.optimizer_foreach", "true" },
  /* torchtitan: FSDP2 (fp32 shards, bf16 param_dtype), nn.RMSNorm run
   * eagerly, cross_entropy on fp32 logits, selective op-level AC
   * (train_configs/llama3_8b.toml: mode "selective", option "op"). */
  { "torchtitan", "training.precision", "bf16-mixed" },
  { "torchtitan", "training.norm_kernel", "eager" },
  { "torchtitan", "training.rope_kernel", "complex" },
  { "torchtitan", "training.glu_kernel", "eager" },
  { "torchtitan", "training.loss", "full" },
  { "torchtitan", "training.recompute", "op-selective" },
  /* MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32): the sharded
   * fp32 parameters get fp32 gradients. */
  { "torchtitan", "training.fp32_gradients", "true" },
  { "torchtitan", "training.fsdp", "full" },
  /* train.py at 9dec370 (the H100 runs of docs/performance.md): the loss
   * stays eager ("compiling loss function causes CUDA errors"). */
  { "torchtitan", "training.compile_loss", "false" },
  /* train.py: parallelize with enable_loss_parallel = not
   * training.disable_loss_parallel (off by default): under TP the loss runs
   * in loss_parallel(). */
  { "torchtitan", "training.loss_parallel", "true" },
  { "torchtitan", "training.zero_stage", "0" },
  /* pipeline_llama.py: each stage is a torch.distributed.pipelining
   * PipelineStage run by its schedules. */
  { "torchtitan", "training.torch_pipelining", "true" },
  /* parallelize_llama.py: apply_fsdp is fully_shard per block and root. */
  { "torchtitan", "training.fsdp2", "true" },
  /* parallelize_llama.py: apply_tp is parallelize_module with DTensor
   * plans (ColwiseParallel, RowwiseParallel, PrepareModuleInput). */
  { "torchtitan", "training.dtensor_tp", "true" },
  /* train.py: create_context_parallel_ctx, torch's context_parallel() with
   * rotate method allgather (config_manager.py); the model expands K and V
   * before SDPA (models/llama/model.py, repeat_kv). */
  { "torchtitan", "training.torch_context_parallel", "true" },
  /* optimizer.py build_optimizers: AdamW with fused = optimizer.fused (off
   * by default, config_manager.py) and foreach = not fused. */
  { "torchtitan", "training.optimizer_foreach", "true" },
  /* models/llama/model.py, Attention.forward: repeat_kv(xk), repeat_kv(xv)
   * (expand, then reshape: a copy) before F.scaled_dot_product_attention. */
  { "torchtitan", "training.expand_kv", "true" },
  { "torchtitan", "training.projections", "separate" },
  /* float8.py: convert_to_float8_training (torchao.float8), dynamic
   * tensorwise scaling. */
  { "torchtitan", "training.fp8_recipe", "torchao" },
  /* Hugging Face Trainer --bf16: autocast over fp32 parameters, eager
   * LlamaRMSNorm, full logits, no gradient checkpointing by default. */
  { "hf", "training.precision", "bf16-autocast" },
  /* accelerate's FullyShardedDataParallelPlugin.set_mixed_precision:
   * MixedPrecision(param_dtype=bf16, reduce_dtype=bf16, buffer_dtype=bf16);
   * DeepSpeedPlugin.set_mixed_precision: bf16.enabled. */
  { "hf", "training.sharding_16bit_params", "true" },
  { "hf", "training.norm_kernel", "eager" },
  { "hf", "training.rope_kernel", "rotate-half" },
  { "hf", "training.glu_kernel", "eager" },
  /* LlamaAttention's q_proj, k_proj, v_proj; LlamaMLP's gate_proj, up_proj. */
  { "hf", "training.projections", "separate" },
  { "hf", "training.loss", "full" },
  { "hf", "training.recompute", "none" },
  /* DDP unless TrainingArguments names a DeepSpeed config or --fsdp. */
  { "hf", "training.zero_stage", "0" },
  /* optim "adamw_torch": torch.optim.AdamW, foreach by default on CUDA. */
  { "hf", "training.optimizer_foreach", "true" },
  /* Trainer._inner_training_loop runs every micro-batch but the step's last
   * in accelerator.no_sync() unless sync_each_batch is set or DeepSpeed
   * runs (transformers/trainer.py). */
  { "hf", "training.no_sync", "true" },
  /* PEFT's get_peft_model(autocast_adapter_dtype=True) keeps adapters in
   * fp32 over a 16-bit base; bitsandbytes quantises every linear but the
   * head (transformers get_keys_to_not_convert). */
  { "hf", "training.fp32_adapters", "true" },
  { "hf", "training.quant_scope", "linear" },
  /* torchtune full_finetune_single_device with
   * recipes/configs/llama3_2/3B_full_single_device.yaml: dtype bf16 (pure),
   * its eager RMSNorm, CEWithChunkedOutputLoss, activation checkpointing,
   * optimizer_in_bwd, bitsandbytes PagedAdamW8bit. */
  { "torchtune", "training.precision", "bf16" },
  { "torchtune", "training.norm_kernel", "eager" },
  { "torchtune", "training.rope_kernel", "interleaved" },
  { "torchtune", "training.glu_kernel", "eager" },
  { "torchtune", "training.loss", "chunked" },
  /* TransformerDecoder.unembed: output = self.output(h).float() without
   * output chunks (torchtune/modules/transformer.py). */
  { "torchtune", "training.model_upcasts_logits", "true" },
  /* modules/attention.py, MultiHeadAttention.forward: k and v expanded to
   * every query head and flattened (a copy) before the SDPA call. */
  { "torchtune", "training.expand_kv", "true" },
  { "torchtune", "training.projections", "separate" },
  /* full_finetune_distributed.py, enable_fp8_training:
   * training/quantization.py convert_to_float8_training, torchao's
   * Float8Linear (tensorwise; its fp8 all-gather is not modelled). */
  { "torchtune", "training.fp8_recipe", "torchao" },
  { "torchtune", "training.recompute", "full" },
  { "torchtune", "training.optimizer_in_backward", "true" },
  { "torchtune", "training.optimizer", "adamw-8bit" },
  /* training/_distributed.py, shard_model: fully_shard per layer and root. */
  { "torchtune", "training.fsdp2", "true" },
  /* gradient_accumulation_steps: 1 in the same config ("optimizer_in_bwd
   * ... Requires gradient_accumulation_steps=1"): one micro-batch per GPU
   * per step, which the key table's 0 means. */
  { "torchtune", "training.global_batch", "0" },
  { "torchtune", "training.zero_stage", "0" },
  /* torchtune's QLoRA builders quantise every linear of the layers, the
   * ones without an adapter as FrozenNF4Linear (since pytorch/torchtune
   * #1119, July 2024), never the output layer, with torchao to_nf4's
   * per-256 scaler blocks. */
  { "torchtune", "training.quant_scope", "linear" },
  /* torchtune DoRALinear.forward: dropout on the adapter's input only, the
   * base output reused. */
  { "torchtune", "training.dora_base_rerun", "false" },
  { "torchtune", "training.double_quant", "true" },
};

/* The project's framework, or NULL. */
static const char *
project_framework (HeadroomProject *self)
{
  JsonNode *node = g_hash_table_lookup (self->values, "training.framework");

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* The value the project's framework gives a key, or NULL where it gives
 * none. */
static const char *
framework_default (HeadroomProject       *self,
                   const HeadroomKeyInfo *info)
{
  const char *framework = project_framework (self);

  if (framework == NULL || !g_str_has_prefix (info->key, "training."))
    return NULL;
  /* torchtune's distributed recipes shard every model with FSDP2's
   * fully_shard (reshard_after_forward by default), its single-device
   * recipes do not shard: FSDP full wherever there are data-parallel ranks
   * to shard over. */
  if (strcmp (framework, "torchtune") == 0 && strcmp (info->key, "training.fsdp") == 0)
    {
      gint64 model_parallel = headroom_project_get_int (self, "training.tensor_parallel")
                              * headroom_project_get_int (self, "training.pipeline_parallel")
                              * headroom_project_get_int (self, "training.context_parallel");

      return model_parallel > 0 && headroom_project_get_n_gpus (self) / model_parallel > 1
             ? "full" : NULL;
    }
  /* Sharded by FSDP, Megatron runs its own (--use-megatron-fsdp;
   * megatron/core/distributed/fsdp), unless told to run PyTorch's
   * (--use-torch-fsdp2, training.fsdp2). */
  if (strcmp (framework, "megatron") == 0 && strcmp (info->key, "training.megatron_fsdp") == 0)
    return headroom_project_get_boolean (self, "training.fsdp2") ? "false" : "true";
  for (guint i = 0; i < G_N_ELEMENTS (framework_defaults); i++)
    if (strcmp (framework_defaults[i].framework, framework) == 0
        && strcmp (framework_defaults[i].key, info->key) == 0)
      return framework_defaults[i].value;
  return NULL;
}

/* The default of a key: the table's, or the one the project's framework
 * implies. */
const char *
headroom_project_default_value (HeadroomProject       *self,
                                const HeadroomKeyInfo *info)
{
  JsonNode *node;
  const char *value;

  if (self == NULL || !g_str_has_prefix (info->key, "training."))
    return info->default_value;
  /* FSDP shards in place of ZeRO (the two exclude each other,
   * hr_training_validate()): with an FSDP mode set, no ZeRO stage. */
  node = g_hash_table_lookup (self->values, "training.fsdp");
  if (strcmp (info->key, "training.zero_stage") == 0 && node != NULL
      && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
      && strcmp (json_node_get_string (node), "none") != 0)
    return "0";
  value = framework_default (self, info);
  return value != NULL ? value : info->default_value;
}

const char *
headroom_project_get_default_source (HeadroomProject *self,
                                     const char      *key)
{
  const HeadroomKeyInfo *info;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  info = headroom_project_find_key (key);
  if (info == NULL || g_hash_table_contains (self->values, key)
      || framework_default (self, info) == NULL)
    return NULL;
  return headroom_project_get_framework_label (self);
}

const char *
headroom_project_get_framework_label (HeadroomProject *self)
{
  const char *framework;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  framework = headroom_project_get_string (self, "training.framework");
  if (framework == NULL || strcmp (framework, "none") == 0)
    return NULL;
  return _(headroom_key_info_get_choice_label (headroom_project_find_key ("training.framework"),
                                               framework));
}

gboolean
headroom_project_key_moves_defaults (const char *key)
{
  /* The framework; FSDP, which leaves no ZeRO stage; the counts torchtune's
   * FSDP default follows. */
  static const char * const movers[] = {
    "training.framework", "training.fsdp", "hardware.nodes", "hardware.gpus_per_node",
    "training.tensor_parallel", "training.pipeline_parallel", "training.context_parallel",
  };

  g_return_val_if_fail (key != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (movers); i++)
    if (strcmp (movers[i], key) == 0)
      return TRUE;
  return FALSE;
}

JsonNode *
headroom_project_default_node (HeadroomProject       *self,
                               const HeadroomKeyInfo *info)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  const char *value = headroom_project_default_value (self, info);

  switch (info->type)
    {
    case HEADROOM_KEY_INT:
      json_node_set_int (node, g_ascii_strtoll (value, NULL, 10));
      break;
    case HEADROOM_KEY_DOUBLE:
      json_node_set_double (node, g_ascii_strtod (value, NULL));
      break;
    case HEADROOM_KEY_BOOLEAN:
      json_node_set_boolean (node, strcmp (value, "true") == 0);
      break;
    case HEADROOM_KEY_STRING:
    case HEADROOM_KEY_CHOICE:
    default:
      json_node_set_string (node, value);
      break;
    }
  return node;
}

void
headroom_project_set_invalid (GError     **error,
                              const char  *key,
                              const char  *problem)
{
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                "%s", problem);
}

gboolean
headroom_project_node_is_number (JsonNode *node)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

/* Type and bounds of one value; `info` NULL for model keys outside the table. */
gboolean
headroom_project_check_node (const char             *key,
                             const HeadroomKeyInfo  *info,
                             JsonNode               *node,
                             GError                **error)
{
  if (info == NULL)
    return TRUE;

  switch (info->type)
    {
    case HEADROOM_KEY_INT:
    case HEADROOM_KEY_DOUBLE:
      {
        double value;

        if (!headroom_project_node_is_number (node))
          {
            headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, key,
                                          info->type == HEADROOM_KEY_INT ? _("expected an integer")
                                                                         : _("expected a number"));
            return FALSE;
          }
        value = json_node_get_double (node);
        if (!isfinite (value))
          {
            headroom_project_set_invalid (error, key, _("not a finite number"));
            return FALSE;
          }
        if (info->type == HEADROOM_KEY_INT && value != floor (value))
          {
            headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, key,
                                          _("expected an integer"));
            return FALSE;
          }
        if (value < info->minimum || value > info->maximum)
          {
            char value_str[G_ASCII_DTOSTR_BUF_SIZE];
            char lo[G_ASCII_DTOSTR_BUF_SIZE];
            char hi[G_ASCII_DTOSTR_BUF_SIZE];

            g_ascii_formatd (value_str, sizeof value_str, "%.15g", value);
            g_ascii_formatd (lo, sizeof lo, "%.15g", info->minimum);
            g_ascii_formatd (hi, sizeof hi, "%.15g", info->maximum);
            headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                          _("%s is out of range (%s to %s)"), value_str, lo, hi);
            return FALSE;
          }
      }
      return TRUE;

    case HEADROOM_KEY_BOOLEAN:
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, key,
                                        _("expected true or false"));
          return FALSE;
        }
      return TRUE;

    case HEADROOM_KEY_STRING:
    case HEADROOM_KEY_CHOICE:
    default:
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, key,
                                        _("expected a string"));
          return FALSE;
        }
      if (!g_utf8_validate (json_node_get_string (node), -1, NULL))
        {
          headroom_project_set_invalid (error, key, _("not valid UTF-8"));
          return FALSE;
        }
      if (info->type == HEADROOM_KEY_CHOICE
          && !g_strv_contains ((const char * const *) info->choices, json_node_get_string (node)))
        {
          g_autofree char *list = g_strjoinv (", ", (char **) info->choices);

          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                        _("“%s” is not one of %s"), json_node_get_string (node), list);
          return FALSE;
        }
      return TRUE;
    }
}
