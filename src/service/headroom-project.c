/* headroom-project.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-project"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "headroom-catalog.h"
#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-json.h"
#include "headroom-project.h"
#include "headroom-scenario.h"

/* Exact integers of a double stop at 2^53; no count Headroom takes is larger. */
#define MAX_COUNT 9007199254740992.0

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
static const char * const overlap_choices[] = { "on", "off", NULL };
static const char * const overlap_labels[] = { N_("On"), N_("Off"), NULL };
static const char * const norm_kernel_choices[] = { "fused", "eager", NULL };
static const char * const norm_kernel_labels[] = { N_("Fused"), N_("Eager"), NULL };
static const char * const rope_kernel_choices[] = {
  "fused", "rotate-half", "complex", "interleaved", NULL
};
static const char * const rope_kernel_labels[] = {
  N_("Fused"), N_("Eager, rotate-half (Hugging Face)"), N_("Eager, complex (torchtitan)"),
  N_("Eager, interleaved (torchtune)"), NULL
};
static const char * const glu_kernel_choices[] = { "fused", "eager", NULL };
static const char * const glu_kernel_labels[] = { N_("Fused"), N_("Eager"), NULL };
static const char * const loss_choices[] = { "full", "chunked", "fused", NULL };
static const char * const loss_labels[] = { N_("Full logits"), N_("Chunked"), N_("Fused"), NULL };
static const char * const optimizer_choices[] = {
  "adamw", "adamw-8bit", "sgd", "sgd-momentum", "lion", "adafactor", NULL };
static const char * const optimizer_labels[] = {
  N_("AdamW"), N_("AdamW, 8-bit states"), N_("SGD"), N_("SGD with momentum"), N_("Lion"),
  N_("Adafactor"), NULL };
static const char * const schedule_choices[] = { "1f1b", "interleaved", "gpipe", NULL };
static const char * const schedule_labels[] = {
  N_("1F1B"), N_("Interleaved 1F1B"), N_("GPipe"), NULL };
static const char * const fsdp_choices[] = { "none", "full", "grad-op", "hybrid", NULL };
static const char * const fsdp_labels[] = {
  N_("None"), N_("Full"), N_("Gradients and optimizer"), N_("Hybrid"), NULL };
static const char * const attention_choices[] = { "eager", "flash", NULL };
static const char * const attention_labels[] = { N_("Eager"), N_("FlashAttention"), NULL };
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

static void apply_price (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
static void apply_precision (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
static void apply_overlap (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
static void apply_lora_targets (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
static void apply_overhead (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
static void apply_gb_per_s (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
static void apply_ms (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
static void apply_gpu (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);

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
/* … GPU (field), CUSTOM_GPU (field): the HrGpu member, in the unit's base (apply_gpu ()); */
#define GPU(f) FIELD_OF (HEADROOM_KEY_FIELD_GPU, HrGpu, f), APPLY (apply_gpu)
#define CUSTOM_GPU(f) FIELD_OF (HEADROOM_KEY_FIELD_CUSTOM_GPU, HrGpu, f), APPLY (apply_gpu)
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
       GROUP ("hardware/cluster"), OPTION ("price"), APPLY (apply_price)),
  DBL ("hardware.inter_node_bandwidth", 0, 1e6, "0", "GB/s", N_("Inter-node bandwidth per GPU"),
       GROUP ("hardware/cluster"), PLACEHOLDER (N_("The GPU’s figure")), GPU (inter_node_bandwidth)),
  DBL ("hardware.inter_node_latency", 0, 1e9, "0", "µs", N_("Inter-node latency"),
       GROUP ("hardware/cluster"), PLACEHOLDER (N_("The GPU’s figure")), GPU (inter_node_latency)),
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
       OPTION ("overhead"), APPLY (apply_overhead)),
  DBL ("hardware.cpu_memory_bandwidth", 0.001, 1e6, "89.6", "GB/s", N_("Host memory bandwidth"),
       GROUP ("hardware/cluster"), VISIBLE_WHEN ("workload", "inference"),
       FIELD_OF (HEADROOM_KEY_FIELD_SERVING, HrServing, cpu_memory_bandwidth),
       APPLY (apply_gb_per_s)),

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
       GROUP ("workload/parallelism"), PLACEHOLDER (N_("An even split")), TRAIN (pp_first_stage_layers)),
  INT ("training.pp_last_stage_layers", 0, 1e6, "0", "layers", N_("Last stage layers"),
       GROUP ("workload/parallelism"), PLACEHOLDER (N_("An even split")), TRAIN (pp_last_stage_layers)),
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
  BOOL ("training.torch_pipelining", "false", N_("PyTorch pipelining"),
        GROUP ("workload/parallelism"), TRAIN (torch_pipelining),
        DESCRIPTION (N_("Stages run by torch.distributed.pipelining (torchtitan): each "
                        "micro-batch’s stage output is kept until its backward, a "
                        "receive buffer is allocated for every micro-batch, and the "
                        "interleaved schedule runs its micro-batches in rounds"))),
  INT ("training.context_parallel", 1, 1e6, "1", NULL, N_("Context parallel"),
       GROUP ("workload/parallelism"), OPTION ("cp"), TRAIN (context_parallel)),
  INT ("training.expert_parallel", 1, 1e6, "1", NULL, N_("Expert parallel"),
       GROUP ("workload/parallelism"), OPTION ("ep"), TRAIN (expert_parallel)),
  INT ("training.zero_stage", 0, 3, "1", NULL, N_("ZeRO stage"),
       GROUP ("workload/parallelism"), OPTION ("zero"), TRAIN (zero_stage)),
  CHOICE ("training.fsdp", fsdp, "none", N_("FSDP"),
          GROUP ("workload/parallelism"), TRAIN (fsdp), ENUM (hr_fsdp_from_name)),
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
                          "loss, recomputation…) as that framework ships them."))),
  CHOICE ("training.precision", precision, "bf16-mixed", N_("Precision"),
          GROUP ("workload/numerics"), APPLY (apply_precision)),
  BOOL ("training.fp32_gradients", "false", N_("fp32 gradients"),
        GROUP ("workload/numerics"), TRAIN (fp32_gradients),
        DESCRIPTION (N_("Mixed precision keeps and reduces the gradients in fp32 (Megatron’s "
                        "main_grad, FSDP2 reduce_dtype fp32) instead of the 16-bit dtype."))),
  CHOICE ("training.optimizer", optimizer, "adamw", N_("Optimizer"),
          GROUP ("workload/numerics"), TRAIN (optimizer), ENUM (hr_optimizer_from_name)),
  BOOL ("training.offload_optimizer", "false", N_("Offload optimizer"),
        GROUP ("workload/numerics"), TRAIN (offload_optimizer)),
  CHOICE ("training.attention", attention, "flash", N_("Attention"),
          GROUP ("workload/numerics"), TRAIN (attention), ENUM (hr_training_attention_from_name)),
  CHOICE ("training.recompute", recompute, "none", N_("Recomputation"),
          GROUP ("workload/numerics"), TRAIN (recompute), ENUM (hr_training_recompute_from_name)),
  INT ("training.recompute_layers", 0, 1e6, "0", "layers", N_("Recomputed layers per stage"),
       GROUP ("workload/numerics"), PLACEHOLDER (N_("All layers")), TRAIN (recompute_layers)),
  INT ("training.recompute_every", 0, 1e6, "0", NULL, N_("Recompute every k-th layer"),
       GROUP ("workload/numerics"), PLACEHOLDER (N_("Every layer")), TRAIN (recompute_every)),
  BOOL ("training.offload_activations", "false", N_("Offload activations"),
        GROUP ("workload/numerics"), TRAIN (offload_activations)),
  CHOICE ("training.norm_kernel", norm_kernel, "fused", N_("Norm kernel"),
          GROUP ("workload/numerics"), TRAIN (norm_kernel), ENUM (hr_norm_kernel_from_name)),
  CHOICE ("training.rope_kernel", rope_kernel, "fused", N_("Rotary embedding kernel"),
          GROUP ("workload/numerics"), TRAIN (rope_kernel), ENUM (hr_rope_kernel_from_name),
          DESCRIPTION (N_("How q and k are rotated: one fused kernel, or the eager PyTorch ops of "
                          "a code base, each a pass over memory; torch.compile fuses them"))),
  CHOICE ("training.glu_kernel", glu_kernel, "fused", N_("Gated MLP kernel"),
          GROUP ("workload/numerics"), TRAIN (glu_kernel), ENUM (hr_glu_kernel_from_name),
          DESCRIPTION (N_("SwiGLU’s silu and product in one kernel, or as two eager passes "
                          "over the MLP’s intermediate; torch.compile fuses them"))),
  BOOL ("training.compile", "false", N_("torch.compile"), GROUP ("workload/numerics"), TRAIN (compile)),
  BOOL ("training.compile_loss", "true", N_("Compile the loss"), GROUP ("workload/numerics"),
        TRAIN (compile_loss), VISIBLE_WHEN ("training.compile", "true")),
  CHOICE ("training.loss", loss, "full", N_("Loss"),
          GROUP ("workload/numerics"), TRAIN (loss), ENUM (hr_loss_from_name)),
  INT ("training.loss_chunks", 1, 1e6, "8", NULL, N_("Loss chunks"),
       GROUP ("workload/numerics"), TRAIN (loss_chunks)),
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
  BOOL ("training.dropout", "false", N_("Dropout"), GROUP ("workload/numerics"), TRAIN (dropout)),
  /* docs/planner.md, "Overlap" */
  CHOICE ("training.overlap", overlap, "on", N_("Overlap communication"),
          GROUP ("workload/throughput"), APPLY (apply_overlap),
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
       GROUP ("workload/finetune"), APPLY (apply_lora_targets), VISIBLE_WHEN ("training.method", "lora|qlora|dora")),
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
  BOOL ("training.quant_saves_input", "false", N_("4-bit layers save their input (bitsandbytes before 0.44)"),
        GROUP ("workload/finetune"), TRAIN (finetune.quant_saves_input), VISIBLE_WHEN ("training.method", "qlora")),
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
       GROUP ("workload/numerics"), INFER (group_size)),
  BOOL ("inference.fp8_keep_attention", "false", N_("FP8 keeps attention and the first and last layers 16-bit"),
        GROUP ("workload/numerics"), INFER (fp8_keep_attention)),
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
       GROUP ("workload/serving"), PLACEHOLDER (N_("Engine’s default")), SERVE (gpu_memory_utilization)),
  INT ("inference.max_model_len", 0, 1e9, "0", "tokens", N_("Longest request"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Prompt + generated")), SERVE (max_model_len)),
  INT ("inference.max_num_batched_tokens", 0, 1e9, "0", "tokens", N_("Tokens per engine step"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Engine’s default")), SERVE (max_num_batched_tokens)),
  INT ("inference.gpu_layers", -1, 1e6, "-1", "layers", N_("Layers on the GPU (llama.cpp)"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("All layers")), SERVE (gpu_layers)),
  DBL ("inference.first_token_overhead", -1, 10000, "-1", "ms",
       N_("Engine work before a first token"),
       GROUP ("workload/serving"), PLACEHOLDER (N_("Engine’s default")),
       SERVE (first_token_overhead), APPLY (apply_ms)),

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

struct _HeadroomProject
{
  GObject parent_instance;

  GFile *file;
  JsonObject *config;        /* model overrides, HF config keys */
  GHashTable *values;        /* table key → JsonNode, keys explicitly set */
  GPtrArray *unknown;        /* Unknown, in file order, kept for saving */
  GPtrArray *unknown_paths;  /* their dotted paths, NULL-terminated */
  char *model_name;          /* an imported model's name: the title until saved */
  GListStore *scenarios;     /* HeadroomScenario, in file order */
  HeadroomCatalog *catalog;  /* presets and GPUs; NULL: the default catalog */

  guint modified : 1;
};

/* A member the table does not know. Its parent is a known section, so its
 * dotted path is safe to split; its own name may hold dots. */
typedef struct
{
  char     *section;  /* NULL at the top level */
  char     *name;
  JsonNode *node;
} Unknown;

static void
unknown_free (Unknown *unknown)
{
  g_free (unknown->section);
  g_free (unknown->name);
  json_node_unref (unknown->node);
  g_free (unknown);
}

G_DEFINE_FINAL_TYPE (HeadroomProject, headroom_project, G_TYPE_OBJECT)

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

enum {
  PROP_0,
  PROP_FILE,
  PROP_MODIFIED,
  N_PROPS
};

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

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
  g_return_val_if_fail (key != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (keys[i].key, key) == 0)
      return &keys[i];
  return NULL;
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

/* "model.x" keys other than the preset live in the config. */
static const char *
config_member (const char *key)
{
  if (g_str_has_prefix (key, "model.") && strcmp (key, "model.preset") != 0
      && key[strlen ("model.")] != '\0' && strchr (key + strlen ("model."), '.') == NULL)
    return key + strlen ("model.");
  return NULL;
}

/* Model keys whose value the derived HrModel holds, and the other spellings
 * of the families that read them (src/core/hr-config.c: GPT-2 n_layer, n_embd,
 * n_head, n_positions, n_inner; Falcon n_layer, n_head, num_kv_heads,
 * n_head_kv, ffn_hidden_size). */
static const struct
{
  const char *key;
  gsize offset;
  gboolean boolean;
  const char *aliases[3];
} model_fields[] = {
  { "model.num_hidden_layers", G_STRUCT_OFFSET (HrModel, n_layers), FALSE, { "n_layer" } },
  { "model.hidden_size", G_STRUCT_OFFSET (HrModel, hidden_size), FALSE, { "n_embd" } },
  { "model.num_attention_heads", G_STRUCT_OFFSET (HrModel, n_heads), FALSE, { "n_head" } },
  { "model.num_key_value_heads", G_STRUCT_OFFSET (HrModel, n_kv_heads), FALSE,
    { "num_kv_heads", "n_head_kv" } },
  { "model.head_dim", G_STRUCT_OFFSET (HrModel, head_dim), FALSE, { NULL } },
  { "model.intermediate_size", G_STRUCT_OFFSET (HrModel, ffn_size), FALSE,
    { "n_inner", "ffn_hidden_size" } },
  { "model.vocab_size", G_STRUCT_OFFSET (HrModel, vocab_size), FALSE, { NULL } },
  { "model.max_position_embeddings", G_STRUCT_OFFSET (HrModel, max_positions), FALSE,
    { "n_positions" } },
  { "model.tie_word_embeddings", G_STRUCT_OFFSET (HrModel, tied_embeddings), TRUE, { NULL } },
  { "model.attention_bias", G_STRUCT_OFFSET (HrModel, qkv_bias), TRUE, { NULL } },
  { "model.mlp_bias", G_STRUCT_OFFSET (HrModel, mlp_bias), TRUE, { NULL } },
};

static int
find_model_field (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (model_fields); i++)
    if (strcmp (model_fields[i].key, key) == 0)
      return (int) i;
  return -1;
}

static gboolean
is_section (const char *path)
{
  gsize len = strlen (path);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strncmp (keys[i].key, path, len) == 0 && keys[i].key[len] == '.')
      return TRUE;
  return FALSE;
}

/* Shortest decimal that reads back as the same double, always with a '.' or
 * an exponent so that it stays a double. */
static void
append_double (GString *out,
               double   value)
{
  g_autofree char *text = headroom_format_exact_double (value);

  g_string_append (out, text);
  if (strpbrk (text, ".eEn") == NULL)
    g_string_append (out, ".0");
}

static void
append_string (GString    *out,
               const char *str)
{
  g_string_append_c (out, '"');
  for (const char *p = str; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

static void
append_node (GString  *out,
             JsonNode *node,
             guint     depth)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        if (members == NULL)
          {
            g_string_append (out, "{}");
            break;
          }
        g_string_append (out, "{\n");
        for (GList *l = members; l != NULL; l = l->next)
          {
            g_string_append_printf (out, "%*s", (int) (depth + 1) * 2, "");
            append_string (out, l->data);
            g_string_append (out, ": ");
            append_node (out, json_object_get_member (object, l->data), depth + 1);
            g_string_append (out, l->next != NULL ? ",\n" : "\n");
          }
        g_string_append_printf (out, "%*s}", (int) depth * 2, "");
      }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        /* Objects (scenarios) one per line, values (LoRA targets) on one. */
        gboolean objects = n > 0 && JSON_NODE_HOLDS_OBJECT (json_array_get_element (array, 0));

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (objects)
              g_string_append_printf (out, "%s%*s", i > 0 ? ",\n" : "\n",
                                      (int) (depth + 1) * 2, "");
            else if (i > 0)
              g_string_append (out, ", ");
            append_node (out, json_array_get_element (array, i), depth + (objects ? 1 : 0));
          }
        if (objects)
          g_string_append_printf (out, "\n%*s", (int) depth * 2, "");
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          append_double (out, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          append_string (out, json_node_get_string (node));
          break;
        default:
          g_string_append (out, "null");
          break;
        }
      break;

    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

static JsonNode *copy_node (JsonNode *node);

/* json_node_copy() shares objects and arrays; the config is edited in place. */
static JsonObject *
copy_object (JsonObject *object)
{
  JsonObject *copy = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy, l->data, copy_node (json_object_get_member (object, l->data)));
  return copy;
}

static JsonNode *
copy_node (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *copy = json_node_new (JSON_NODE_OBJECT);

      json_node_take_object (copy, copy_object (json_node_get_object (node)));
      return copy;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      JsonArray *copy_array = json_array_new ();
      JsonNode *copy = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < json_array_get_length (array); i++)
        json_array_add_element (copy_array, copy_node (json_array_get_element (array, i)));
      json_node_take_array (copy, copy_array);
      return copy;
    }
  return json_node_copy (node);
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
  { "megatron", "training.glu_kernel", "fused" },
  { "megatron", "training.loss", "full" },
  { "megatron", "training.recompute", "none" },
  /* --bf16 turns on accumulate_allreduce_grads_in_fp32 (arguments.py):
   * fp32 main_grad buffers. */
  { "megatron", "training.fp32_gradients", "true" },
  /* --overlap-grad-reduce and --overlap-param-gather are opt-in
   * (arguments.py, action='store_true'). */
  { "megatron", "training.overlap", "off" },
  /* DeepSpeed runs Hugging Face models: their eager RMSNorm, bf16 weights
   * with an fp32 master copy (bf16.enabled, BF16_Optimizer). */
  { "deepspeed", "training.precision", "bf16-mixed" },
  { "deepspeed", "training.norm_kernel", "eager" },
  { "deepspeed", "training.rope_kernel", "rotate-half" },
  { "deepspeed", "training.glu_kernel", "eager" },
  { "deepspeed", "training.loss", "full" },
  { "deepspeed", "training.recompute", "none" },
  /* PyTorch FSDP with MixedPrecision(param_dtype=bf16) on a Hugging Face
   * model. */
  { "fsdp", "training.precision", "bf16-mixed" },
  { "fsdp", "training.norm_kernel", "eager" },
  { "fsdp", "training.rope_kernel", "rotate-half" },
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
  /* parallelize_llama.py: apply_tp is parallelize_module with DTensor
   * plans (ColwiseParallel, RowwiseParallel, PrepareModuleInput). */
  { "torchtitan", "training.dtensor_tp", "true" },
  /* optimizer.py build_optimizers: AdamW with fused = optimizer.fused (off
   * by default, config_manager.py) and foreach = not fused. */
  { "torchtitan", "training.optimizer_foreach", "true" },
  /* Hugging Face Trainer --bf16: autocast over fp32 parameters, eager
   * LlamaRMSNorm, full logits, no gradient checkpointing by default. */
  { "hf", "training.precision", "bf16-autocast" },
  { "hf", "training.norm_kernel", "eager" },
  { "hf", "training.rope_kernel", "rotate-half" },
  { "hf", "training.glu_kernel", "eager" },
  { "hf", "training.loss", "full" },
  { "hf", "training.recompute", "none" },
  /* optim "adamw_torch": torch.optim.AdamW, foreach by default on CUDA. */
  { "hf", "training.optimizer_foreach", "true" },
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
  { "torchtune", "training.recompute", "full" },
  { "torchtune", "training.optimizer_in_backward", "true" },
  { "torchtune", "training.optimizer", "adamw-8bit" },
  /* gradient_accumulation_steps: 1 in the same config ("optimizer_in_bwd
   * ... Requires gradient_accumulation_steps=1"): one micro-batch per GPU
   * per step, which the key table's 0 means. */
  { "torchtune", "training.global_batch", "0" },
  { "torchtune", "training.zero_stage", "0" },
  /* torchtune's QLoRA builders quantise the LoRA-wrapped linears only
   * (FrozenNF4Linear), with torchao to_nf4's per-256 scaler blocks. */
  { "torchtune", "training.quant_scope", "adapted" },
  { "torchtune", "training.double_quant", "true" },
};

/* The default of a key: the table's, or the one the project's framework
 * implies. */
static const char *
default_value (HeadroomProject       *self,
               const HeadroomKeyInfo *info)
{
  JsonNode *node;
  const char *framework;

  if (self == NULL || !g_str_has_prefix (info->key, "training."))
    return info->default_value;
  /* FSDP shards in place of ZeRO (the two exclude each other,
   * hr_training_validate()): with an FSDP mode set, no ZeRO stage. */
  node = g_hash_table_lookup (self->values, "training.fsdp");
  if (strcmp (info->key, "training.zero_stage") == 0 && node != NULL
      && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
      && strcmp (json_node_get_string (node), "none") != 0)
    return "0";
  node = g_hash_table_lookup (self->values, "training.framework");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return info->default_value;
  framework = json_node_get_string (node);
  for (guint i = 0; i < G_N_ELEMENTS (framework_defaults); i++)
    if (strcmp (framework_defaults[i].framework, framework) == 0
        && strcmp (framework_defaults[i].key, info->key) == 0)
      return framework_defaults[i].value;
  return info->default_value;
}

static JsonNode *
default_node (HeadroomProject       *self,
              const HeadroomKeyInfo *info)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  const char *value = default_value (self, info);

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

static void
set_invalid (GError     **error,
             const char  *key,
             const char  *problem)
{
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                "%s", problem);
}

static gboolean
node_is_number (JsonNode *node)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

/* Type and bounds of one value; `info` NULL for model keys outside the table. */
static gboolean
check_node (const char             *key,
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

        if (!node_is_number (node))
          {
            headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, key,
                                          info->type == HEADROOM_KEY_INT ? _("expected an integer")
                                                                         : _("expected a number"));
            return FALSE;
          }
        value = json_node_get_double (node);
        if (!isfinite (value))
          {
            set_invalid (error, key, _("not a finite number"));
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
          set_invalid (error, key, _("not valid UTF-8"));
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

static void
headroom_project_finalize (GObject *object)
{
  HeadroomProject *self = (HeadroomProject *)object;

  g_clear_object (&self->file);
  g_clear_pointer (&self->config, json_object_unref);
  g_clear_pointer (&self->values, g_hash_table_unref);
  g_clear_pointer (&self->unknown, g_ptr_array_unref);
  g_clear_pointer (&self->unknown_paths, g_ptr_array_unref);
  g_clear_pointer (&self->model_name, g_free);
  g_clear_object (&self->scenarios);
  g_clear_object (&self->catalog);

  G_OBJECT_CLASS (headroom_project_parent_class)->finalize (object);
}

static void
headroom_project_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  HeadroomProject *self = HEADROOM_PROJECT (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_project_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  HeadroomProject *self = HEADROOM_PROJECT (object);

  switch (prop_id)
    {
    case PROP_MODIFIED:
      headroom_project_set_modified (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_project_class_init (HeadroomProjectClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_project_finalize;
  object_class->get_property = headroom_project_get_property;
  object_class->set_property = headroom_project_set_property;

  /**
   * HeadroomProject:file:
   *
   * Where the project was loaded from or last saved to; NULL for a new one.
   */
  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * HeadroomProject:modified:
   *
   * Whether a key changed since the project was loaded or saved.
   */
  properties[PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * HeadroomProject::changed:
   * @key: the dotted key that changed ("model" when the whole config was replaced)
   *
   * Emitted after a value changed, with the key as the detail.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
headroom_project_init (HeadroomProject *self)
{
  self->config = json_object_new ();
  self->values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                        (GDestroyNotify) json_node_unref);
  self->unknown = g_ptr_array_new_with_free_func ((GDestroyNotify) unknown_free);
  self->unknown_paths = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->unknown_paths, NULL);
  self->scenarios = g_list_store_new (HEADROOM_TYPE_SCENARIO);
}

HeadroomProject *
headroom_project_new (void)
{
  return g_object_new (HEADROOM_TYPE_PROJECT, NULL);
}

HeadroomProject *
headroom_project_new_default (void)
{
  g_autoptr(HeadroomProject) self = headroom_project_new ();

  headroom_project_set_string (self, "model.preset", "llama-3.1-8b", NULL);
  /* Megatron-style: with TP 1 the activations of 8192-token sequences
   * (45 GiB) and fp32 gradients overflow 80 GiB; TP 2 with sequence
   * parallelism halves both and fits with room to spare. */
  headroom_project_set_int (self, "training.tensor_parallel", 2, NULL);
  headroom_project_set_boolean (self, "training.sequence_parallel", TRUE, NULL);
  headroom_project_set_string (self, "training.recompute", "selective", NULL);
  headroom_project_set_double (self, "training.tokens", 1e12, NULL);
  self->modified = FALSE;

  return g_steal_pointer (&self);
}

static void
store_value (HeadroomProject       *self,
             const HeadroomKeyInfo *info,
             JsonNode              *node)
{
  g_hash_table_replace (self->values, (gpointer) info->key, node);
}

static void
keep_unknown (HeadroomProject *self,
              const char      *section,
              const char      *name,
              JsonNode        *node)
{
  Unknown *unknown = g_new0 (Unknown, 1);

  unknown->section = g_strdup (section);
  unknown->name = g_strdup (name);
  unknown->node = json_node_copy (node);
  g_ptr_array_add (self->unknown, unknown);
  g_ptr_array_insert (self->unknown_paths, self->unknown_paths->len - 1,
                      section != NULL ? g_strconcat (section, ".", name, NULL) : g_strdup (name));
}

/* Walks one section object of the file: known keys are checked and stored,
 * sub-sections recursed into, anything else kept as unknown. */
static gboolean
load_section (HeadroomProject  *self,
              const char       *prefix,
              JsonObject       *object,
              GError          **error)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (object, name);
      g_autofree char *path = prefix != NULL ? g_strconcat (prefix, ".", name, NULL)
                                             : g_strdup (name);
      const HeadroomKeyInfo *info = headroom_project_find_key (path);

      if (prefix == NULL && (strcmp (name, "format") == 0 || strcmp (name, "version") == 0
                             || strcmp (name, "scenarios") == 0))
        continue;

      /* "custom.memory" inside "hardware" is not hardware.custom.memory. */
      if (*name == '\0' || strchr (name, '.') != NULL)
        keep_unknown (self, prefix, name, node);
      else if (info != NULL && config_member (path) == NULL)
        {
          if (!check_node (path, info, node, error))
            return FALSE;
          store_value (self, info, json_node_copy (node));
        }
      else if (strcmp (path, "model.config") == 0)
        {
          if (!JSON_NODE_HOLDS_OBJECT (node))
            {
              g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE,
                           _("%s: expected an object (a Hugging Face config.json)"), path);
              return FALSE;
            }
          g_clear_pointer (&self->config, json_object_unref);
          self->config = copy_object (json_node_get_object (node));
        }
      else if (is_section (path) || strcmp (path, "model") == 0)
        {
          if (!JSON_NODE_HOLDS_OBJECT (node))
            {
              g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE,
                           _("%s: expected an object"), path);
              return FALSE;
            }
          if (!load_section (self, path, json_node_get_object (node), error))
            return FALSE;
        }
      else
        keep_unknown (self, prefix, name, node);
    }
  return TRUE;
}

/* A scenario's name on one line, without surrounding spaces; NULL when blank. */
static char *
scenario_name (const char *text)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  char *name = headroom_format_one_line (trimmed);

  if (*name == '\0')
    g_clear_pointer (&name, g_free);
  return name;
}

/* Prefixes an error of a scenario's settings with the scenario: the key it
 * names is the scenario's, not one of the editor's. */
static void
scenario_error (GError     **error,
                guint        index,
                const char  *name,
                GError      *local_error)
{
  g_autofree char *message = NULL;

  if (name != NULL)
    message = g_strdup_printf (_("scenario %u (“%s”): %s"), index + 1, name,
                               local_error->message);
  else
    message = g_strdup_printf (_("scenario %u: %s"), index + 1, local_error->message);
  headroom_project_set_key_error (error, local_error->code, "scenarios", "%s", message);
}

/* "scenarios": [{ "name": …, "model": …, "hardware": …, … }]. Each one's
 * keys are checked as the project's are; whether they fit together is
 * checked when the scenario is estimated, and shown in its column. */
static gboolean
load_scenarios (HeadroomProject  *self,
                JsonNode         *node,
                GError          **error)
{
  JsonArray *array;
  guint n;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, "scenarios",
                                      _("expected an array"));
      return FALSE;
    }
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n > HEADROOM_PROJECT_MAX_SCENARIOS)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "scenarios",
                                      _("%u scenarios; a project keeps at most %d"),
                                      n, HEADROOM_PROJECT_MAX_SCENARIOS);
      return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autoptr(HeadroomProject) settings = NULL;
      g_autoptr(HeadroomScenario) scenario = NULL;
      g_autoptr(JsonObject) object = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *text = NULL;
      JsonNode *name;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, "scenarios",
                                          _("scenario %u: expected an object"), i + 1);
          return FALSE;
        }
      object = copy_object (json_node_get_object (element));
      name = json_object_get_member (object, "name");
      if (name == NULL || !JSON_NODE_HOLDS_VALUE (name)
          || json_node_get_value_type (name) != G_TYPE_STRING
          || (text = scenario_name (json_node_get_string (name))) == NULL)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, "scenarios",
                                          _("scenario %u: expected a name (a string)"), i + 1);
          return FALSE;
        }
      json_object_remove_member (object, "name");
      settings = headroom_project_new ();
      if (!load_section (settings, NULL, object, &local_error))
        {
          scenario_error (error, i, text, local_error);
          return FALSE;
        }
      settings->modified = FALSE;
      scenario = headroom_scenario_new (text, settings);
      g_list_store_append (self->scenarios, scenario);
    }
  return TRUE;
}

static gboolean
load_root (HeadroomProject  *self,
           JsonNode         *root,
           GError          **error)
{
  JsonObject *object;
  JsonNode *node;
  gint64 version;

  if (root == NULL)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                           _("Not a valid project file: the file is empty"));
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                           _("Not a Headroom project: the file is not a JSON object"));
      return FALSE;
    }
  object = json_node_get_object (root);

  node = json_object_get_member (object, "format");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING
      || strcmp (json_node_get_string (node), HEADROOM_PROJECT_FORMAT) != 0)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_FORMAT,
                   _("Not a Headroom project (expected the format “%s”)"), HEADROOM_PROJECT_FORMAT);
      return FALSE;
    }

  node = json_object_get_member (object, "version");
  /* An integral number, 1.0 included (docs/project-format.md). */
  if (node == NULL || !node_is_number (node)
      || json_node_get_double (node) != floor (json_node_get_double (node))
      || fabs (json_node_get_double (node)) > MAX_COUNT)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_TYPE,
                           _("The format version is not an integer"));
      return FALSE;
    }
  version = json_node_get_value_type (node) == G_TYPE_INT64 ? json_node_get_int (node)
                                                            : (gint64) json_node_get_double (node);
  if (version > HEADROOM_PROJECT_VERSION)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_VERSION,
                   _("This project was written by a newer Headroom (format version %"
                     G_GINT64_FORMAT "; this version reads up to %d); please update Headroom"),
                   version, HEADROOM_PROJECT_VERSION);
      return FALSE;
    }
  if (version < 1)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                   _("%" G_GINT64_FORMAT " is not a valid format version"), version);
      return FALSE;
    }

  if (!load_section (self, NULL, object, error))
    return FALSE;
  node = json_object_get_member (object, "scenarios");
  return node == NULL || load_scenarios (self, node, error);
}

/* A loaded project must be valid, but for a model_type Headroom does not
 * know: that one opens, and its estimate then names the model_type and
 * offers the generic decoder (model.assume_architecture). */
static gboolean
validate_loaded (HeadroomProject  *self,
                 GError          **error)
{
  g_autoptr(GError) local_error = NULL;

  if (headroom_project_validate (self, &local_error)
      || g_error_matches (local_error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE))
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

HeadroomProject *
headroom_project_new_from_bytes (GBytes  *bytes,
                                 GError **error)
{
  return headroom_project_new_from_bytes_with_catalog (bytes, NULL, error);
}

HeadroomProject *
headroom_project_new_from_bytes_with_catalog (GBytes           *bytes,
                                              HeadroomCatalog  *catalog,
                                              GError          **error)
{
  g_autoptr(HeadroomProject) self = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize size;
  const char *data;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (catalog == NULL || HEADROOM_IS_CATALOG (catalog), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (data == NULL)
    data = "";
  if (size > G_MAXSSIZE || !g_utf8_validate (data, size, NULL))
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                           _("Not a Headroom project: the file is not UTF-8 text"));
      return NULL;
    }
  /* Depth, trailing content and non-finite numbers checked; one line. */
  root = headroom_json_parse (data, size, &local_error);
  if (root == NULL && g_error_matches (local_error, HEADROOM_JSON_ERROR,
                                       HEADROOM_JSON_ERROR_NOT_FINITE))
    {
      /* The key is the fault, not the syntax. */
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID,
                                      headroom_json_error_get_path (local_error),
                                      _("not a finite number"));
      return NULL;
    }
  if (root == NULL)
    {
      g_set_error (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_PARSE,
                   _("Not a valid project file: %s"), local_error->message);
      return NULL;
    }

  self = headroom_project_new ();
  if (catalog != NULL)
    self->catalog = g_object_ref (catalog);
  if (!load_root (self, root, error)
      || !validate_loaded (self, error))
    {
      /* Messages quote values from the file, which may hold control characters. */
      if (error != NULL)
        {
          char *message = headroom_format_one_line ((*error)->message);

          g_free ((*error)->message);
          (*error)->message = message;
        }
      return NULL;
    }

  return g_steal_pointer (&self);
}

HeadroomProject *
headroom_project_new_from_file (GFile   *file,
                                GError **error)
{
  g_autoptr(GBytes) bytes = NULL;
  HeadroomProject *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, error);
  if (bytes == NULL)
    return NULL;

  self = headroom_project_new_from_bytes (bytes, error);
  if (self != NULL)
    self->file = g_object_ref (file);
  return self;
}

HeadroomProject *
headroom_project_new_from_config (JsonObject  *config,
                                  GError     **error)
{
  g_autoptr(HeadroomProject) self = headroom_project_new ();

  g_return_val_if_fail (config != NULL, NULL);

  if (!headroom_project_import_config (self, config, NULL, error))
    return NULL;
  self->modified = FALSE;

  return g_steal_pointer (&self);
}

static void changed (HeadroomProject *self,
                     const char      *key);

/* The name a config gives itself: the last part of "_name_or_path"
 * ("meta-llama/Llama-3.1-8B" → "Llama-3.1-8B"), as transformers writes it. */
static char *
config_name (JsonObject *config)
{
  JsonNode *node = json_object_get_member (config, "_name_or_path");
  const char *path, *slash;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  path = json_node_get_string (node);
  slash = strrchr (path, '/');
  path = slash != NULL ? slash + 1 : path;
  return *path != '\0' && g_utf8_validate (path, -1, NULL) ? g_strdup (path) : NULL;
}

/* A config error about one key becomes an error about "model.KEY", named by
 * its label ("Key/value heads: 5 does not divide 32"). */
static void
config_error_to_key (GError **error)
{
  const char *field;
  g_autofree char *key = NULL;
  g_autofree char *problem = NULL;

  if (error == NULL || *error == NULL)
    return;
  field = headroom_hf_config_error_get_field (*error);
  if (field == NULL)
    return;
  key = g_strconcat ("model.", field, NULL);
  problem = g_strdup (headroom_hf_config_error_get_problem (*error));
  g_clear_error (error);
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key, "%s", problem);
}

gboolean
headroom_project_import_config (HeadroomProject  *self,
                                JsonObject       *config,
                                const char       *name,
                                GError          **error)
{
  HrModel model;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  /* Refused before anything changes. */
  if (!headroom_hf_config_read (config, &model, NULL, NULL, error))
    {
      config_error_to_key (error);
      return FALSE;
    }

  if (g_hash_table_remove (self->values, "model.preset"))
    changed (self, "model.preset");
  g_free (self->model_name);
  self->model_name = name != NULL && *name != '\0' ? g_strdup (name) : config_name (config);
  headroom_project_set_config (self, config);
  return TRUE;
}

/* The object at a dotted section path under `root` (NULL = root), created as needed. */
static JsonObject *
ensure_section (JsonObject *root,
                const char *path)
{
  g_auto(GStrv) parts = NULL;
  JsonObject *object = root;

  if (path == NULL)
    return root;
  parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      JsonNode *child = json_object_get_member (object, parts[i]);

      if (child == NULL || !JSON_NODE_HOLDS_OBJECT (child))
        {
          JsonObject *section = json_object_new ();

          json_object_set_object_member (object, parts[i], section);
          object = section;
        }
      else
        object = json_node_get_object (child);
    }
  return object;
}

/* Places `node` (taken) at a dotted key under `root`. */
static void
place_node (JsonObject *root,
            const char *key,
            JsonNode   *node)
{
  const char *dot = strrchr (key, '.');
  g_autofree char *section = dot != NULL ? g_strndup (key, dot - key) : NULL;

  json_object_set_member (ensure_section (root, section), dot != NULL ? dot + 1 : key, node);
}

static gboolean
uses_custom_gpu (HeadroomProject *self)
{
  return g_strcmp0 (headroom_project_get_string (self, "hardware.gpu"), "custom") == 0;
}

/* The settings into `root`, in file order: the model, then every key of the
 * table (notes when `notes`), defaults included. */
static void
write_settings (HeadroomProject *self,
                JsonObject      *root,
                gboolean         notes)
{
  if (headroom_project_get_preset (self) != NULL)
    place_node (root, "model.preset", json_node_copy (g_hash_table_lookup (self->values,
                                                                            "model.preset")));
  place_node (root, "model.config", json_node_init_object (json_node_alloc (),
                                                           self->config));

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonNode *node;

      if (g_str_has_prefix (keys[i].key, "model.") || (!notes && strcmp (keys[i].key, "notes") == 0))
        continue;
      node = g_hash_table_lookup (self->values, keys[i].key);
      /* The custom GPU figures are written only when they matter or were set. */
      if (node == NULL && g_str_has_prefix (keys[i].key, "hardware.custom.")
          && !uses_custom_gpu (self))
        continue;
      place_node (root, keys[i].key, node != NULL ? json_node_copy (node)
                                                  : default_node (self, &keys[i]));
    }
}

GBytes *
headroom_project_to_bytes (HeadroomProject *self)
{
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonNode) root_node = json_node_new (JSON_NODE_OBJECT);
  GString *out = g_string_new (NULL);
  guint n_scenarios;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  n_scenarios = g_list_model_get_n_items (G_LIST_MODEL (self->scenarios));
  json_object_set_string_member (root, "format", HEADROOM_PROJECT_FORMAT);
  /* Version 1 while the file holds nothing of version 2, so that an older
   * Headroom still opens it (docs/project-format.md). */
  json_object_set_int_member (root, "version", n_scenarios > 0 ? HEADROOM_PROJECT_VERSION : 1);
  write_settings (self, root, TRUE);

  if (n_scenarios > 0)
    {
      JsonArray *array = json_array_new ();

      for (guint i = 0; i < n_scenarios; i++)
        {
          g_autoptr(HeadroomScenario) scenario = g_list_model_get_item (G_LIST_MODEL (self->scenarios), i);
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "name", headroom_scenario_get_name (scenario));
          write_settings (headroom_scenario_get_settings (scenario), object, FALSE);
          json_array_add_object_element (array, object);
        }
      json_object_set_array_member (root, "scenarios", array);
    }

  for (guint i = 0; i < self->unknown->len; i++)
    {
      Unknown *unknown = g_ptr_array_index (self->unknown, i);

      json_object_set_member (ensure_section (root, unknown->section), unknown->name,
                              json_node_copy (unknown->node));
    }

  json_node_set_object (root_node, root);
  append_node (out, root_node, 0);
  g_string_append_c (out, '\n');

  return g_string_free_to_bytes (out);
}

gboolean
headroom_project_save (HeadroomProject  *self,
                       GFile            *file,
                       GCancellable     *cancellable,
                       GError          **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  bytes = headroom_project_to_bytes (self);
  if (!headroom_file_save (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                           cancellable, error))
    return FALSE;

  if (self->file == NULL || !g_file_equal (self->file, file))
    {
      g_set_object (&self->file, file);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
    }
  headroom_project_set_modified (self, FALSE);
  return TRUE;
}

GFile *
headroom_project_get_file (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return self->file;
}

gboolean
headroom_project_get_modified (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  return self->modified;
}

void
headroom_project_set_modified (HeadroomProject *self,
                               gboolean         modified)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));

  modified = !!modified;
  if (self->modified == modified)
    return;
  self->modified = modified;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

char *
headroom_project_dup_title (HeadroomProject *self)
{
  const char *preset;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  if (self->file != NULL)
    return g_file_get_basename (self->file);
  if (self->model_name != NULL)
    return g_strdup (self->model_name);
  preset = headroom_project_get_preset (self);
  if (preset != NULL && *preset != '\0')
    return g_strdup (preset);
  return g_strdup (_("Untitled Project"));
}

static void
changed (HeadroomProject *self,
         const char      *key)
{
  /* Another model: the imported one's name no longer titles the project. */
  if (strcmp (key, "model.preset") == 0)
    g_clear_pointer (&self->model_name, g_free);
  g_signal_emit (self, signals[SIGNAL_CHANGED], g_quark_from_string (key), key);
  headroom_project_set_modified (self, TRUE);
}

/* A family that reads a model field under another spelling (Falcon's
 * n_layer) lets that spelling win when present, so a new value goes under
 * every spelling the model has. Returns whether any changed. */
static gboolean
set_aliases (HeadroomProject *self,
             const char      *key,
             JsonNode        *node)
{
  int field = find_model_field (key);
  g_autoptr(JsonObject) effective = NULL;
  gboolean any = FALSE;

  if (field < 0 || model_fields[field].aliases[0] == NULL)
    return FALSE;
  effective = headroom_project_dup_effective_config (self);
  for (guint i = 0; i < G_N_ELEMENTS (model_fields[field].aliases); i++)
    {
      const char *alias = model_fields[field].aliases[i];
      JsonNode *current;

      if (alias == NULL)
        break;
      current = json_object_get_member (effective, alias);
      if (current == NULL || json_node_equal (current, node))
        continue;
      json_object_set_member (self->config, alias, json_node_copy (node));
      any = TRUE;
    }
  return any;
}

/* Takes `node`. */
static gboolean
set_node (HeadroomProject  *self,
          const char       *key,
          JsonNode         *node,
          GError          **error)
{
  g_autoptr(JsonNode) owned = node;
  const HeadroomKeyInfo *info;
  const char *member;
  JsonNode *current;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  info = headroom_project_find_key (key);
  member = config_member (key);
  if (info == NULL && member == NULL)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_UNKNOWN_KEY, key,
                                    _("no such setting"));
      return FALSE;
    }
  if (!check_node (key, info, node, error))
    {
      if (error != NULL)
        g_strdelimit ((*error)->message, "\t\r\n", ' ');
      return FALSE;
    }

  if (member != NULL)
    {
      gboolean aliases_changed = set_aliases (self, key, node);

      current = json_object_get_member (self->config, member);
      if (current != NULL && json_node_equal (current, node) && !aliases_changed)
        return TRUE;
      json_object_set_member (self->config, member, g_steal_pointer (&owned));
    }
  else
    {
      current = g_hash_table_lookup (self->values, info->key);
      if (current == NULL)
        current = info->default_value != NULL ? default_node (self, info) : NULL;
      else
        current = json_node_ref (current);
      if (current != NULL && json_node_equal (current, node))
        {
          json_node_unref (current);
          /* Setting a default explicitly still records it as set. */
          store_value (self, info, g_steal_pointer (&owned));
          return TRUE;
        }
      g_clear_pointer (&current, json_node_unref);
      store_value (self, info, g_steal_pointer (&owned));
    }

  changed (self, info != NULL ? info->key : key);
  return TRUE;
}

gboolean
headroom_project_set_int (HeadroomProject  *self,
                          const char       *key,
                          gint64            value,
                          GError          **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  const HeadroomKeyInfo *info = key != NULL ? headroom_project_find_key (key) : NULL;

  /* An integer is a fine value for a double key. */
  if (info != NULL && info->type == HEADROOM_KEY_DOUBLE)
    json_node_set_double (node, (double) value);
  else
    json_node_set_int (node, value);
  return set_node (self, key, node, error);
}

gboolean
headroom_project_set_double (HeadroomProject  *self,
                             const char       *key,
                             double            value,
                             GError          **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  const HeadroomKeyInfo *info = key != NULL ? headroom_project_find_key (key) : NULL;

  if (info != NULL && info->type == HEADROOM_KEY_INT && isfinite (value)
      && value == floor (value) && fabs (value) <= MAX_COUNT)
    json_node_set_int (node, (gint64) value);
  else
    json_node_set_double (node, value);
  return set_node (self, key, node, error);
}

gboolean
headroom_project_set_boolean (HeadroomProject  *self,
                              const char       *key,
                              gboolean          value,
                              GError          **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  json_node_set_boolean (node, value);
  return set_node (self, key, node, error);
}

gboolean
headroom_project_set_string (HeadroomProject  *self,
                             const char       *key,
                             const char       *value,
                             GError          **error)
{
  JsonNode *node;

  g_return_val_if_fail (value != NULL, FALSE);

  node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, value);
  return set_node (self, key, node, error);
}

gboolean
headroom_project_set_from_string (HeadroomProject  *self,
                                  const char       *key,
                                  const char       *text,
                                  GError          **error)
{
  const HeadroomKeyInfo *info;
  JsonNode *node;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (key != NULL && text != NULL, FALSE);

  info = headroom_project_find_key (key);
  if (info == NULL || info->type == HEADROOM_KEY_INT || info->type == HEADROOM_KEY_DOUBLE
      || info->type == HEADROOM_KEY_BOOLEAN)
    {
      /* A JSON scalar: 4, 0.5, true; a model key outside the table takes any. */
      g_autoptr(GError) parse_error = NULL;
      gint64 integer;

      /* json-glib wraps an integer past 2^63 around; say so instead. */
      if (info != NULL && info->type == HEADROOM_KEY_INT && strpbrk (text, ".eE") == NULL
          && !g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &integer, &parse_error)
          && g_error_matches (parse_error, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                        _("%s does not fit in 64 bits"), text);
          return FALSE;
        }
      g_clear_error (&parse_error);
      node = json_from_string (text, &parse_error);
      if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
        {
          g_clear_pointer (&node, json_node_unref);
          if (info != NULL)
            {
              headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, key,
                                            info->type == HEADROOM_KEY_BOOLEAN ? _("expected true or false")
                                            : info->type == HEADROOM_KEY_INT ? _("expected an integer")
                                                                             : _("expected a number"));
              return FALSE;
            }
          node = json_node_new (JSON_NODE_VALUE);
          json_node_set_string (node, text);
        }
      if (info != NULL && info->type == HEADROOM_KEY_DOUBLE
          && json_node_get_value_type (node) == G_TYPE_INT64)
        json_node_set_double (node, (double) json_node_get_int (node));
    }
  else
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, text);
    }
  return set_node (self, key, node, error);
}

void
headroom_project_unset (HeadroomProject *self,
                        const char      *key)
{
  const char *member;

  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (key != NULL);

  member = config_member (key);
  if (member != NULL)
    {
      int field = find_model_field (key);
      gboolean removed = FALSE;

      for (guint i = 0; field >= 0 && i < G_N_ELEMENTS (model_fields[field].aliases); i++)
        {
          const char *alias = model_fields[field].aliases[i];

          if (alias != NULL && json_object_has_member (self->config, alias))
            {
              json_object_remove_member (self->config, alias);
              removed = TRUE;
            }
        }
      if (json_object_has_member (self->config, member))
        {
          json_object_remove_member (self->config, member);
          removed = TRUE;
        }
      if (removed)
        changed (self, key);
    }
  else if (member == NULL && g_hash_table_remove (self->values, key))
    changed (self, key);
}

static HeadroomCatalog *
project_catalog (HeadroomProject *self)
{
  return self->catalog != NULL ? self->catalog : headroom_catalog_get_default ();
}

static JsonObject *
preset_config (HeadroomProject *self)
{
  const char *preset = headroom_project_get_preset (self);
  HeadroomModelPreset *entry;

  if (preset == NULL)
    return NULL;
  entry = headroom_catalog_find_model (project_catalog (self), preset);
  return entry != NULL ? headroom_model_preset_get_config (entry) : NULL;
}

/* The value in force, or NULL where neither set nor defaulted; borrowed or
 * new according to *owned. */
static JsonNode *
lookup_node (HeadroomProject  *self,
             const char       *key,
             gboolean         *owned)
{
  const HeadroomKeyInfo *info;
  const char *member;
  JsonNode *node;

  *owned = FALSE;
  member = config_member (key);
  if (member != NULL)
    {
      JsonObject *preset;

      node = json_object_get_member (self->config, member);
      if (node == NULL && (preset = preset_config (self)) != NULL)
        node = json_object_get_member (preset, member);
      return node;
    }

  info = headroom_project_find_key (key);
  if (info == NULL)
    {
      /* A mistyped key is a programming error, not a silent 0. */
      g_critical ("“%s” is not a key of the project table", key);
      return NULL;
    }
  node = g_hash_table_lookup (self->values, info->key);
  if (node == NULL && info->default_value != NULL)
    {
      *owned = TRUE;
      node = default_node (self, info);
    }
  return node;
}

/* A model field the config does not spell as `key` (GPT-2's n_layer) or
 * leaves to the family's default: the value the model is read with. */
static gboolean
derived_model_value (HeadroomProject *self,
                     const char      *key,
                     gint64          *value)
{
  int field = find_model_field (key);
  HrModel model;

  if (field < 0 || !headroom_project_get_model (self, &model, NULL))
    return FALSE;
  if (model_fields[field].boolean)
    *value = G_STRUCT_MEMBER (bool, &model, model_fields[field].offset);
  else
    *value = G_STRUCT_MEMBER (int64_t, &model, model_fields[field].offset);
  return TRUE;
}

gint64
headroom_project_get_int (HeadroomProject *self,
                          const char      *key)
{
  gboolean owned;
  JsonNode *node;
  gint64 value = 0;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), 0);
  g_return_val_if_fail (key != NULL, 0);

  node = lookup_node (self, key, &owned);
  if (node == NULL && derived_model_value (self, key, &value))
    return value;
  if (node != NULL && node_is_number (node))
    {
      double d = json_node_get_double (node);

      if (json_node_get_value_type (node) == G_TYPE_INT64)
        value = json_node_get_int (node);
      else if (isfinite (d) && fabs (d) <= MAX_COUNT)
        value = (gint64) d;
    }
  if (owned)
    json_node_unref (node);
  return value;
}

double
headroom_project_get_double (HeadroomProject *self,
                             const char      *key)
{
  gboolean owned;
  JsonNode *node;
  double value = 0;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), 0);
  g_return_val_if_fail (key != NULL, 0);

  node = lookup_node (self, key, &owned);
  if (node != NULL && node_is_number (node))
    value = json_node_get_double (node);
  if (owned)
    json_node_unref (node);
  return value;
}

gboolean
headroom_project_get_boolean (HeadroomProject *self,
                              const char      *key)
{
  gboolean owned;
  JsonNode *node;
  gboolean value = FALSE;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  node = lookup_node (self, key, &owned);
  if (node == NULL)
    {
      gint64 derived;

      return derived_model_value (self, key, &derived) && derived != 0;
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    value = json_node_get_boolean (node);
  if (owned)
    json_node_unref (node);
  return value;
}

const char *
headroom_project_get_string (HeadroomProject *self,
                             const char      *key)
{
  const HeadroomKeyInfo *info;
  gboolean owned;
  JsonNode *node;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  node = lookup_node (self, key, &owned);
  if (owned)
    {
      /* Defaults are static strings of the table. */
      json_node_unref (node);
      info = headroom_project_find_key (key);
      return info->type == HEADROOM_KEY_STRING || info->type == HEADROOM_KEY_CHOICE
             ? default_value (self, info) : NULL;
    }
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

char *
headroom_project_dup_value_string (HeadroomProject *self,
                                   const char      *key)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean owned;
  JsonNode *node;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  node = lookup_node (self, key, &owned);
  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    g_string_append (out, json_node_get_string (node));
  else
    append_node (out, node, 0);
  if (owned)
    json_node_unref (node);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
headroom_project_key_applies (HeadroomProject *self,
                              const char      *key)
{
  const HeadroomKeyInfo *info;
  g_autofree char *condition = NULL;
  g_auto(GStrv) values = NULL;
  const char *value;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), TRUE);
  g_return_val_if_fail (key != NULL, TRUE);

  /* A workload's keys apply under it only: the training and serving rows
   * of a shared group (numerics, parallelism) are not each other's. */
  if (g_str_has_prefix (key, "training.")
      && headroom_project_get_workload (self) != HEADROOM_WORKLOAD_TRAINING)
    return FALSE;
  if (g_str_has_prefix (key, "inference.")
      && headroom_project_get_workload (self) != HEADROOM_WORKLOAD_INFERENCE)
    return FALSE;
  info = headroom_project_find_key (key);
  if (info == NULL || info->visible_when == NULL)
    return TRUE;
  condition = headroom_key_info_dup_condition_key (info);
  value = headroom_project_get_string (self, condition);
  values = g_strsplit (info->visible_when + strlen (condition) + 1, "|", -1);
  return value != NULL && g_strv_contains ((const char * const *) values, value);
}

HeadroomWorkload
headroom_project_get_workload (HeadroomProject *self)
{
  return g_strcmp0 (headroom_project_get_string (self, "workload"), "inference") == 0
         ? HEADROOM_WORKLOAD_INFERENCE : HEADROOM_WORKLOAD_TRAINING;
}

const char *
headroom_project_get_preset (HeadroomProject *self)
{
  const char *preset;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  preset = headroom_project_get_string (self, "model.preset");
  return preset != NULL && *preset != '\0' ? preset : NULL;
}

JsonObject *
headroom_project_get_config (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return self->config;
}

void
headroom_project_set_config (HeadroomProject *self,
                             JsonObject      *config)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (config != NULL);

  g_clear_pointer (&self->config, json_object_unref);
  self->config = copy_object (config);
  changed (self, "model");
}

JsonObject *
headroom_project_dup_effective_config (HeadroomProject *self)
{
  JsonObject *preset;
  JsonObject *config;
  g_autoptr(GList) members = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  preset = preset_config (self);
  config = preset != NULL ? copy_object (preset) : json_object_new ();
  members = json_object_get_members (self->config);
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (config, l->data,
                            copy_node (json_object_get_member (self->config, l->data)));
  return config;
}

const char *
headroom_project_get_assumed_architecture (HeadroomProject *self)
{
  g_autoptr(JsonObject) config = NULL;
  JsonNode *assume, *type;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  config = headroom_project_dup_effective_config (self);
  assume = json_object_get_member (config, "assume_architecture");
  type = json_object_get_member (config, "model_type");
  if (assume == NULL || !JSON_NODE_HOLDS_VALUE (assume)
      || json_node_get_value_type (assume) != G_TYPE_STRING
      || hr_assume_from_name (json_node_get_string (assume)) != HR_ASSUME_LLAMA)
    return NULL;
  /* A known family is read as itself, whatever is assumed. */
  if (type != NULL && JSON_NODE_HOLDS_VALUE (type) && json_node_get_value_type (type) == G_TYPE_STRING
      && hr_config_knows_model_type (json_node_get_string (type)))
    return NULL;
  return "llama";
}

char *
headroom_project_dup_assumed_note (HeadroomProject *self)
{
  const char *assumed = headroom_project_get_assumed_architecture (self);

  if (assumed == NULL)
    return NULL;
  return g_strdup_printf (_("Architecture assumed: %s; the model_type is unknown, so these "
                            "figures are only as right as that guess"),
                          _(headroom_key_info_get_choice_label (headroom_project_find_key ("model.assume_architecture"),
                                                                assumed)));
}

gboolean
headroom_project_get_model (HeadroomProject  *self,
                            HrModel          *model,
                            GError          **error)
{
  g_autoptr(JsonObject) config = NULL;
  const char *preset;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (model != NULL, FALSE);

  preset = headroom_project_get_preset (self);
  if (preset != NULL && preset_config (self) == NULL)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_NOT_FOUND, "model.preset",
                                    _("no model “%s” in the catalog"), preset);
      return FALSE;
    }
  if (preset == NULL && json_object_get_size (self->config) == 0)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                           _("No model: choose a preset or import a config.json"));
      return FALSE;
    }

  config = headroom_project_dup_effective_config (self);
  if (!headroom_hf_config_read (config, model, NULL, NULL, error))
    {
      config_error_to_key (error);
      return FALSE;
    }
  return TRUE;
}

gint64
headroom_project_get_n_gpus (HeadroomProject *self)
{
  return headroom_project_get_int (self, "hardware.nodes")
         * headroom_project_get_int (self, "hardware.gpus_per_node");
}

/* Units of the file: GiB = 2^30 bytes, GB/s = 1e9 bytes/s, TFLOP/s and TOP/s = 1e12,
 * µs = 1e-6 s, W as it is. */
static double
unit_scale (const char *unit)
{
  if (g_strcmp0 (unit, "GiB") == 0)
    return 1073741824.0;
  if (g_strcmp0 (unit, "GB/s") == 0)
    return 1e9;
  if (g_strcmp0 (unit, "TFLOP/s") == 0 || g_strcmp0 (unit, "TOP/s") == 0)
    return 1e12;
  if (g_strcmp0 (unit, "µs") == 0)
    return 1e-6;
  return 1;
}

/* A GPU figure in its field, in bytes, bytes/s, FLOP/s, s or W. The
 * hardware.* ones replace the GPU's figure only where set (0: the GPU's). */
static void
apply_gpu (HeadroomProject       *self,
           const HeadroomKeyInfo *info,
           HeadroomKeyField       field,
           void                  *out)
{
  double value;

  if (field != info->field)
    return;
  value = headroom_project_get_double (self, info->key) * unit_scale (info->unit);
  if (field == HEADROOM_KEY_FIELD_GPU && !(value > 0))
    return;
  G_STRUCT_MEMBER (double, out, info->field_offset) = value;
}

static void fill_struct (HeadroomProject *, HeadroomKeyField, void *);

/* The catalog's GPU or the custom one (hardware.custom.*), with the cluster's
 * figures (hardware.inter_node_bandwidth and friends) where set: all from the
 * key table (CUSTOM_GPU (…), GPU (…)). */
gboolean
headroom_project_get_gpu (HeadroomProject  *self,
                          HrGpu            *gpu,
                          GError          **error)
{
  g_autoptr(GError) lookup_error = NULL;
  const char *id;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (gpu != NULL, FALSE);

  id = headroom_project_get_string (self, "hardware.gpu");
  if (uses_custom_gpu (self))
    {
      memset (gpu, 0, sizeof *gpu);
      fill_struct (self, HEADROOM_KEY_FIELD_CUSTOM_GPU, gpu);
      if (gpu->memory_bytes <= 0)
        {
          set_invalid (error, "hardware.custom.memory", _("must be positive"));
          return FALSE;
        }
    }
  else if (id == NULL || *id == '\0')
    {
      set_invalid (error, "hardware.gpu", _("missing; choose a GPU"));
      return FALSE;
    }
  else if (!headroom_catalog_lookup_gpu (project_catalog (self), id, gpu, &lookup_error))
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_NOT_FOUND, "hardware.gpu", "%s",
                                      lookup_error->message);
      return FALSE;
    }
  fill_struct (self, HEADROOM_KEY_FIELD_GPU, gpu);
  return TRUE;
}

/* Writes the value of `info` into its field of `out` (a struct of kind `field`). */
static void
fill_field (HeadroomProject       *self,
            const HeadroomKeyInfo *info,
            HeadroomKeyField       field,
            void                  *out)
{
  guint8 *member;

  if (info->apply != NULL)
    {
      info->apply (self, info, field, out);
      return;
    }
  if (info->field != field || field == HEADROOM_KEY_FIELD_NONE)
    return;

  member = (guint8 *) out + info->field_offset;
  switch (info->type)
    {
    case HEADROOM_KEY_INT:
      if (info->field_size == sizeof (gint64))
        *(gint64 *) member = headroom_project_get_int (self, info->key);
      else if (info->field_size == sizeof (int))
        *(int *) member = (int) headroom_project_get_int (self, info->key);
      else
        g_critical ("%s: an integer field of %" G_GSIZE_FORMAT " bytes", info->key, info->field_size);
      break;
    case HEADROOM_KEY_DOUBLE:
      g_return_if_fail (info->field_size == sizeof (double));
      *(double *) member = headroom_project_get_double (self, info->key);
      break;
    case HEADROOM_KEY_BOOLEAN:
      g_return_if_fail (info->field_size == sizeof (bool));
      *(bool *) member = headroom_project_get_boolean (self, info->key);
      break;
    case HEADROOM_KEY_CHOICE:
      /* An unknown name leaves the field at its init value; validation names it. */
      g_return_if_fail (info->from_name != NULL);
      info->from_name (headroom_project_get_string (self, info->key), member);
      break;
    case HEADROOM_KEY_STRING:
    default:
      g_critical ("%s: a string key needs an apply function to reach a field", info->key);
      break;
    }
}

static void
fill_struct (HeadroomProject  *self,
             HeadroomKeyField  field,
             void             *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    fill_field (self, &keys[i], field, out);
}

/* hardware.price_per_gpu_hour: both workloads cost it. */
static void
apply_price (HeadroomProject       *self,
             const HeadroomKeyInfo *info,
             HeadroomKeyField       field,
             void                  *out)
{
  if (field == HEADROOM_KEY_FIELD_TRAINING)
    ((HrTraining *) out)->price_per_gpu_hour = headroom_project_get_double (self, info->key);
  else if (field == HEADROOM_KEY_FIELD_INFERENCE)
    ((HrInference *) out)->price_per_gpu_hour = headroom_project_get_double (self, info->key);
}

static void
apply_overlap (HeadroomProject       *self,
               const HeadroomKeyInfo *info,
               HeadroomKeyField       field,
               void                  *out)
{
  if (field == HEADROOM_KEY_FIELD_TRAINING)
    ((HrTraining *) out)->overlap = g_strcmp0 (headroom_project_get_string (self, info->key),
                                               "off") != 0;
}

/* Autocast over fp32 parameters (Hugging Face Trainer --bf16, Lightning
 * "bf16-mixed"): the mixed recipe with the fp32 residual stream. */
static void
apply_precision (HeadroomProject       *self,
                 const HeadroomKeyInfo *info,
                 HeadroomKeyField       field,
                 void                  *out)
{
  HrTraining *training = out;
  const char *precision;

  if (field != HEADROOM_KEY_FIELD_TRAINING)
    return;
  precision = headroom_project_get_string (self, info->key);
  if (g_strcmp0 (precision, "bf16-autocast") == 0 || g_strcmp0 (precision, "fp16-autocast") == 0)
    {
      training->precision = precision[0] == 'b' ? HR_PRECISION_BF16_MIXED
                                                : HR_PRECISION_FP16_MIXED;
      training->fp32_residual = true;
    }
  else
    hr_precision_from_name (precision, &training->precision);
}

static void
apply_lora_targets (HeadroomProject       *self,
                    const HeadroomKeyInfo *info,
                    HeadroomKeyField       field,
                    void                  *out)
{
  HrTraining *training = out;

  if (field != HEADROOM_KEY_FIELD_TRAINING)
    return;
  /* An unknown target list leaves none, which validation names. */
  if (!hr_finetune_targets_from_string (headroom_project_get_string (self, info->key),
                                        &training->finetune.targets))
    training->finetune.targets = 0;
}

/* hardware.overhead: both workloads' overhead_bytes, unless -1 (the core's default). */
static void
apply_overhead (HeadroomProject       *self,
                const HeadroomKeyInfo *info,
                HeadroomKeyField       field,
                void                  *out)
{
  double bytes = headroom_project_get_double (self, info->key);

  if (bytes < 0)
    return;
  if (field == HEADROOM_KEY_FIELD_TRAINING)
    ((HrTraining *) out)->overhead_bytes = bytes;
  else if (field == HEADROOM_KEY_FIELD_INFERENCE)
    ((HrInference *) out)->overhead_bytes = bytes;
}

/* A DOUBLE in GB/s into its field in bytes/s. */
static void
apply_gb_per_s (HeadroomProject       *self,
                const HeadroomKeyInfo *info,
                HeadroomKeyField       field,
                void                  *out)
{
  if (field == info->field)
    G_STRUCT_MEMBER (double, out, info->field_offset) = headroom_project_get_double (self, info->key) * 1e9;
}

/* A DOUBLE in ms into its field in s (a negative "engine default" stays negative). */
static void
apply_ms (HeadroomProject       *self,
          const HeadroomKeyInfo *info,
          HeadroomKeyField       field,
          void                  *out)
{
  if (field == info->field)
    G_STRUCT_MEMBER (double, out, info->field_offset) = headroom_project_get_double (self, info->key) * 1e-3;
}

void
headroom_project_get_training (HeadroomProject *self,
                               HrTraining      *training)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (training != NULL);

  hr_training_init (training);
  fill_struct (self, HEADROOM_KEY_FIELD_TRAINING, training);
  /* Fused projections are one adapted matrix: by the model's model_type. */
  {
    g_autoptr(JsonObject) config = headroom_project_dup_effective_config (self);
    JsonNode *node = config != NULL ? json_object_get_member (config, "model_type") : NULL;

    if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
        && json_node_get_value_type (node) == G_TYPE_STRING)
      hr_finetune_set_model_type (&training->finetune, json_node_get_string (node));
  }
}

void
headroom_project_get_inference (HeadroomProject *self,
                                HrInference     *inference)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (inference != NULL);

  hr_inference_init (inference);
  fill_struct (self, HEADROOM_KEY_FIELD_INFERENCE, inference);
  inference->gpus = inference->tensor_parallel * inference->pipeline_parallel;
}

void
headroom_project_get_serving (HeadroomProject *self,
                              HrServing       *serving)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (serving != NULL);

  hr_serving_init (serving);
  fill_struct (self, HEADROOM_KEY_FIELD_SERVING, serving);
}

void
headroom_project_set_core_error (GError        **error,
                                 const char     *section,
                                 const HrError  *err)
{
  char line[512];
  const char *key;

  g_return_if_fail (err != NULL);

  key = headroom_project_key_for_field (section, err->field);
  if (key == NULL)
    {
      hr_error_format (err, line, sizeof line);
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID, line);
      return;
    }
  hr_error_format_problem (err, line, sizeof line);
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key, "%s", line);
}

gboolean
headroom_project_validate (HeadroomProject  *self,
                           GError          **error)
{
  HrModel model;
  HrGpu gpu;
  HrError err = { 0 };
  gint64 n_gpus;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);

  if (!headroom_project_get_model (self, &model, error)
      || !headroom_project_get_gpu (self, &gpu, error))
    return FALSE;

  n_gpus = headroom_project_get_n_gpus (self);
  if (headroom_project_get_workload (self) == HEADROOM_WORKLOAD_TRAINING)
    {
      HrTraining training;
      gint64 model_parallel;

      headroom_project_get_training (self, &training);
      model_parallel = training.tensor_parallel * training.pipeline_parallel
                       * training.context_parallel;
      if (n_gpus % training.tensor_parallel != 0)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "training.tensor_parallel",
                                        _("%" G_GINT64_FORMAT " does not divide %"
                                          G_GINT64_FORMAT " GPUs"), training.tensor_parallel, n_gpus);
          return FALSE;
        }
      if (n_gpus % model_parallel != 0)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "training.pipeline_parallel",
                                        _("tensor × pipeline × context parallel (%"
                                          G_GINT64_FORMAT ") does not divide %" G_GINT64_FORMAT " GPUs"),
                                        model_parallel, n_gpus);
          return FALSE;
        }
      if (hr_training_validate (&training, &model, &err) != HR_OK)
        {
          headroom_project_set_core_error (error, "training", &err);
          return FALSE;
        }
    }
  else
    {
      HrInference inference;

      headroom_project_get_inference (self, &inference);
      if (n_gpus % inference.gpus != 0)
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "inference.tensor_parallel",
                                        _("tensor × pipeline parallel (%"
                                          G_GINT64_FORMAT ") does not divide %" G_GINT64_FORMAT " GPUs"),
                                        inference.gpus, n_gpus);
          return FALSE;
        }
      if (hr_inference_validate (&model, &inference, &err) != HR_OK)
        {
          headroom_project_set_core_error (error, "inference", &err);
          return FALSE;
        }
    }
  return TRUE;
}

const char * const *
headroom_project_get_unknown_keys (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return (const char * const *) self->unknown_paths->pdata;
}

GListModel *
headroom_project_get_scenarios (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return G_LIST_MODEL (self->scenarios);
}

void
headroom_project_copy_settings (HeadroomProject *self,
                                HeadroomProject *source)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (HEADROOM_IS_PROJECT (source));

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const HeadroomKeyInfo *info = &keys[i];
      JsonNode *node;

      if (strcmp (info->key, "notes") == 0 || config_member (info->key) != NULL)
        continue;
      node = g_hash_table_lookup (source->values, info->key);
      if (node != NULL)
        {
          /* The source's values passed the same checks. */
          set_node (self, info->key, json_node_copy (node), NULL);
        }
      else if (g_hash_table_contains (self->values, info->key))
        {
          g_autofree char *before = headroom_project_dup_value_string (self, info->key);
          g_autofree char *after = NULL;

          g_hash_table_remove (self->values, info->key);
          after = headroom_project_dup_value_string (self, info->key);
          if (g_strcmp0 (before, after) != 0)
            changed (self, info->key);
        }
    }
  if (!json_object_equal (self->config, source->config))
    headroom_project_set_config (self, source->config);
}

/* Whether key `info` is a setting of a project working on `workloads`
 * (a mask of 1 << HeadroomWorkload), `custom` when the custom GPU is used. */
static gboolean
key_in_use (const HeadroomKeyInfo *info,
            guint                  workloads,
            gboolean               custom)
{
  if (strcmp (info->key, "notes") == 0 || g_str_has_prefix (info->key, "model."))
    return FALSE;
  if (g_str_has_prefix (info->key, "hardware.custom."))
    return custom;
  if (g_str_has_prefix (info->key, "training."))
    return (workloads & (1u << HEADROOM_WORKLOAD_TRAINING)) != 0;
  if (g_str_has_prefix (info->key, "inference."))
    return (workloads & (1u << HEADROOM_WORKLOAD_INFERENCE)) != 0;
  return TRUE;
}

static gboolean
values_differ (HeadroomProject *self,
               HeadroomProject *other,
               const char      *key)
{
  g_autofree char *a = headroom_project_dup_value_string (self, key);
  g_autofree char *b = headroom_project_dup_value_string (other, key);

  return g_strcmp0 (a, b) != 0;
}

char **
headroom_project_dup_differences (HeadroomProject *self,
                                  HeadroomProject *other)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint workloads;
  gboolean custom;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  g_return_val_if_fail (HEADROOM_IS_PROJECT (other), NULL);

  workloads = (1u << headroom_project_get_workload (self))
              | (1u << headroom_project_get_workload (other));
  custom = uses_custom_gpu (self) || uses_custom_gpu (other);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (key_in_use (&keys[i], workloads, custom) && values_differ (self, other, keys[i].key))
      g_strv_builder_add (builder, keys[i].key);

  if (values_differ (self, other, "model.preset"))
    g_strv_builder_add (builder, "model.preset");
  else if (!json_object_equal (self->config, other->config))
    {
      gboolean any = FALSE;

      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        if (config_member (keys[i].key) != NULL && values_differ (self, other, keys[i].key))
          {
            g_strv_builder_add (builder, keys[i].key);
            any = TRUE;
          }
      if (!any)
        g_strv_builder_add (builder, "model");
    }
  return g_strv_builder_end (builder);
}

static HeadroomScenario *
get_scenario (HeadroomProject *self,
              guint            position)
{
  g_autoptr(HeadroomScenario) scenario = g_list_model_get_item (G_LIST_MODEL (self->scenarios),
                                                                position);

  /* The store holds a reference. */
  return scenario;
}

static gboolean
name_taken (HeadroomProject *self,
            const char      *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)); i++)
    if (g_strcmp0 (headroom_scenario_get_name (get_scenario (self, i)), name) == 0)
      return TRUE;
  return FALSE;
}

/* `name`, or "name (2)", "name (3)"… the first no scenario has. */
static char *
unique_name (HeadroomProject *self,
             const char      *name)
{
  char *candidate = g_strdup (name);

  for (guint n = 2; name_taken (self, candidate); n++)
    {
      g_free (candidate);
      candidate = g_strdup_printf ("%s (%u)", name, n);
    }
  return candidate;
}

static gboolean
check_room (HeadroomProject  *self,
            GError          **error)
{
  if (g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)) < HEADROOM_PROJECT_MAX_SCENARIOS)
    return TRUE;
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "scenarios",
                                  _("a project keeps at most %d scenarios; remove one first"),
                                  HEADROOM_PROJECT_MAX_SCENARIOS);
  return FALSE;
}

HeadroomScenario *
headroom_project_keep_scenario (HeadroomProject  *self,
                                const char       *name,
                                GError          **error)
{
  g_autoptr(HeadroomProject) settings = NULL;
  g_autoptr(HeadroomScenario) scenario = NULL;
  g_autofree char *given = NULL;
  g_autofree char *chosen = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  if (!check_room (self, error))
    return NULL;

  settings = headroom_project_new ();
  headroom_project_copy_settings (settings, self);
  settings->modified = FALSE;

  given = name != NULL ? scenario_name (name) : NULL;
  if (given == NULL)
    {
      HeadroomScenario *first = g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)) > 0
                                ? get_scenario (self, 0) : NULL;

      given = headroom_scenario_dup_default_name (settings, first != NULL
                                                  ? headroom_scenario_get_settings (first) : NULL);
      if (given == NULL)
        given = g_strdup (headroom_scenario_get_name (first));
    }
  chosen = unique_name (self, given);
  scenario = headroom_scenario_new (chosen, settings);
  g_list_store_append (self->scenarios, scenario);
  headroom_project_set_modified (self, TRUE);
  return scenario;
}

HeadroomScenario *
headroom_project_duplicate_scenario (HeadroomProject  *self,
                                     guint             position,
                                     GError          **error)
{
  g_autoptr(HeadroomProject) settings = NULL;
  g_autoptr(HeadroomScenario) scenario = NULL;
  g_autofree char *name = NULL;
  HeadroomScenario *source;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  source = get_scenario (self, position);
  g_return_val_if_fail (source != NULL, NULL);
  if (!check_room (self, error))
    return NULL;

  settings = headroom_project_new ();
  headroom_project_copy_settings (settings, headroom_scenario_get_settings (source));
  settings->modified = FALSE;
  name = unique_name (self, headroom_scenario_get_name (source));
  scenario = headroom_scenario_new (name, settings);
  g_list_store_insert (self->scenarios, position + 1, scenario);
  headroom_project_set_modified (self, TRUE);
  return scenario;
}

gboolean
headroom_project_rename_scenario (HeadroomProject  *self,
                                  guint             position,
                                  const char       *name,
                                  GError          **error)
{
  g_autofree char *text = NULL;
  HeadroomScenario *scenario;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  scenario = get_scenario (self, position);
  g_return_val_if_fail (scenario != NULL, FALSE);
  text = scenario_name (name);
  if (text == NULL)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "scenarios",
                                      _("a scenario needs a name"));
      return FALSE;
    }
  if (g_strcmp0 (text, headroom_scenario_get_name (scenario)) == 0)
    return TRUE;
  headroom_scenario_set_name (scenario, text);
  /* Views of the list (the Compare view's columns) redraw the one item. */
  g_list_model_items_changed (G_LIST_MODEL (self->scenarios), position, 1, 1);
  headroom_project_set_modified (self, TRUE);
  return TRUE;
}

void
headroom_project_remove_scenario (HeadroomProject *self,
                                  guint            position)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (position < g_list_model_get_n_items (G_LIST_MODEL (self->scenarios)));

  g_list_store_remove (self->scenarios, position);
  headroom_project_set_modified (self, TRUE);
}

void
headroom_project_apply_scenario (HeadroomProject *self,
                                 guint            position)
{
  HeadroomScenario *scenario;

  g_return_if_fail (HEADROOM_IS_PROJECT (self));

  scenario = get_scenario (self, position);
  g_return_if_fail (scenario != NULL);
  headroom_project_copy_settings (self, headroom_scenario_get_settings (scenario));
}
