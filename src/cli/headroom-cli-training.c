/* headroom-cli-training.c: the train and plan commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"
#include "hr-planner.h"
#include "hr-training.h"

/* Each list is in the order of its core enum. */
static const char * const schedule_choices[] = { "1f1b", "interleaved", "gpipe", NULL };
static const char * const fsdp_choices[] = { "none", "full", "grad-op", "hybrid", NULL };
static const char * const precision_choices[] = {
  "fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp8-mixed", NULL };
static const char * const optimizer_choices[] = {
  "adamw", "adamw-8bit", "sgd", "sgd-momentum", "lion", "adafactor", NULL };
static const char * const attention_choices[] = { "eager", "flash", NULL };
static const char * const recompute_choices[] = { "none", "selective", "full", NULL };
static const char * const method_choices[] = { "full", "lora", "qlora", "dora", "freeze", NULL };
static const char * const quant_choices[] = { "none", "nf4", "fp4", "int8", NULL };
static const char * const quant_scope_choices[] = { "linear", "adapted", "all", NULL };

/* The options of train (plan takes a subset), as typed. */
typedef struct
{
  char    *model;
  char    *gpu;
  char    *gpus;
  char    *nodes;
  char    *gpus_per_node;
  char    *tp;
  gboolean sequence_parallel;
  char    *pp;
  char    *pp_schedule;
  char    *vpp;
  char    *cp;
  char    *ep;
  char    *zero;
  char    *fsdp;
  char    *micro_batch;
  char    *global_batch;
  char    *seq;
  char    *tokens;
  char    *precision;
  char    *optimizer;
  gboolean offload_optimizer;
  char    *attention;
  char    *recompute;
  gboolean dropout;
  gboolean causal;
  char    *overhead;
  char    *mfu;
  char    *price;
  char    *measured_tokens_per_second;
  char    *measured_step_seconds;
  char    *top;
  char    *method;
  char    *lora_rank;
  char    *lora_alpha;
  char    *lora_dropout;
  char    *lora_targets;
  gboolean fp32_adapters;
  char    *freeze_layers;
  char    *quant;
  gboolean double_quant;
  char    *quant_scope;
  gboolean quant_saves_input;
  char    *inter_node_bandwidth;
  char    *inter_node_latency;
  gboolean json;
  gboolean csv;
} TrainArgs;

static void
train_args_clear (TrainArgs *args)
{
  char **strings[] = {
    &args->model, &args->gpu, &args->gpus, &args->nodes, &args->gpus_per_node, &args->tp,
    &args->pp, &args->pp_schedule, &args->vpp, &args->cp, &args->ep, &args->zero, &args->fsdp,
    &args->micro_batch, &args->global_batch, &args->seq, &args->tokens, &args->precision,
    &args->optimizer, &args->attention, &args->recompute, &args->overhead, &args->mfu,
    &args->price, &args->measured_tokens_per_second, &args->measured_step_seconds, &args->top,
    &args->inter_node_bandwidth, &args->inter_node_latency, &args->method, &args->lora_rank,
    &args->lora_alpha, &args->lora_dropout, &args->lora_targets, &args->freeze_layers,
    &args->quant, &args->quant_scope,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TrainArgs, train_args_clear)

#define STRING_OPTION(name, field, description, arg) \
  { name, 0, 0, G_OPTION_ARG_STRING, &args->field, description, arg }
#define FLAG_OPTION(name, field, description) \
  { name, 0, 0, G_OPTION_ARG_NONE, &args->field, description, NULL }

static void
add_layout_entries (GOptionContext *context,
                    TrainArgs      *args,
                    gboolean        plan)
{
  const GOptionEntry entries[] = {
    STRING_OPTION ("model", model, N_("Preset id, Hugging Face config.json or project file"), N_("MODEL")),
    STRING_OPTION ("gpu", gpu, N_("GPU id (see “headroom-cli gpus”)"), N_("GPU")),
    STRING_OPTION ("gpus", gpus, N_("Number of GPUs"), N_("N")),
    STRING_OPTION ("gpus-per-node", gpus_per_node, N_("GPUs in one node (default 8)"), N_("N")),
    STRING_OPTION ("tp", tp, N_("Tensor-parallel degree"), N_("N")),
    FLAG_OPTION ("sequence-parallel", sequence_parallel, N_("Shard norms and dropout over the TP group")),
    STRING_OPTION ("pp", pp, N_("Pipeline-parallel degree"), N_("N")),
    STRING_OPTION ("vpp", vpp, N_("Virtual pipeline stages per rank (interleaved schedule)"), N_("N")),
    STRING_OPTION ("cp", cp, N_("Context-parallel degree"), N_("N")),
    STRING_OPTION ("ep", ep, N_("Expert-parallel degree"), N_("N")),
    STRING_OPTION ("zero", zero, N_("ZeRO stage"), N_("0|1|2|3")),
    STRING_OPTION ("fsdp", fsdp, N_("FSDP sharding (instead of ZeRO)"), N_("full|grad-op|hybrid")),
    STRING_OPTION ("micro-batch", micro_batch, N_("Sequences per GPU per forward pass"), N_("B")),
    STRING_OPTION ("global-batch", global_batch, N_("Sequences per optimizer step"), N_("B")),
    STRING_OPTION ("seq", seq, N_("Sequence length in tokens"), N_("N")),
    STRING_OPTION ("precision", precision, N_("Precision recipe"),
                   N_("fp32|bf16-mixed|fp16-mixed|bf16|fp8-mixed")),
    STRING_OPTION ("optimizer", optimizer, N_("Optimizer"),
                   N_("adamw|adamw-8bit|sgd|sgd-momentum|lion|adafactor")),
    STRING_OPTION ("recompute", recompute, N_("Activation recomputation"), N_("none|selective|full")),
    STRING_OPTION ("method", method, N_("What is trained (fine-tuning method)"),
                   N_("full|lora|qlora|dora|freeze")),
    STRING_OPTION ("lora-rank", lora_rank, N_("Adapter rank"), N_("R")),
    STRING_OPTION ("lora-alpha", lora_alpha, N_("Adapter scale alpha (no effect on memory or time)"), N_("A")),
    STRING_OPTION ("lora-dropout", lora_dropout, N_("Dropout on the adapters' input, in [0, 1)"), N_("P")),
    STRING_OPTION ("lora-targets", lora_targets, N_("Adapted modules"),
                   N_("q,k,v,o,gate,up,down,lm_head,embed|attention|all-linear")),
    FLAG_OPTION ("fp32-adapters", fp32_adapters, N_("Keep the adapters in fp32 (PEFT's autocast_adapter_dtype)")),
    STRING_OPTION ("freeze-layers", freeze_layers, N_("Freeze: the first N layers (and the embeddings)"), N_("N")),
    STRING_OPTION ("quant", quant, N_("QLoRA: storage of the frozen linears"), N_("nf4|fp4|int8")),
    FLAG_OPTION ("double-quant", double_quant, N_("QLoRA: quantise the 4-bit scales too")),
    STRING_OPTION ("quant-scope", quant_scope, N_("QLoRA: which frozen linears are quantised"),
                   N_("linear|adapted|all")),
    FLAG_OPTION ("quant-saves-input", quant_saves_input,
                 N_("4-bit linears save their input (bitsandbytes before 0.44)")),
    STRING_OPTION ("inter-node-bandwidth", inter_node_bandwidth,
                   N_("Network bandwidth per GPU between nodes, one direction, in GB/s"), N_("GBPS")),
    STRING_OPTION ("inter-node-latency", inter_node_latency,
                   N_("Network latency per message in µs"), N_("US")),
    FLAG_OPTION ("json", json, N_("Print one JSON object")),
    { NULL }
  };
  const GOptionEntry train_entries[] = {
    STRING_OPTION ("nodes", nodes, N_("Number of nodes (with --gpus-per-node)"), N_("N")),
    STRING_OPTION ("pp-schedule", pp_schedule, N_("Pipeline schedule"), N_("1f1b|interleaved|gpipe")),
    STRING_OPTION ("tokens", tokens, N_("Training budget in tokens"), N_("T")),
    FLAG_OPTION ("offload-optimizer", offload_optimizer, N_("Keep optimizer states on the CPU (ZeRO-Offload)")),
    STRING_OPTION ("attention", attention, N_("Attention implementation"), N_("eager|flash")),
    FLAG_OPTION ("dropout", dropout, N_("Train with dropout")),
    FLAG_OPTION ("causal", causal, N_("Count causal attention as half the s×s product")),
    STRING_OPTION ("overhead", overhead, N_("Framework memory per GPU in bytes (default 1 GiB)"), N_("BYTES")),
    STRING_OPTION ("mfu", mfu, N_("Utilisation of peak on every FLOP executed, recomputation included; above 0 and at most 1 (default 0.4)"), N_("F")),
    STRING_OPTION ("price", price, N_("Price of one GPU-hour"), N_("USD_PER_GPU_HOUR")),
    STRING_OPTION ("measured-tokens-per-second", measured_tokens_per_second,
                   N_("Measured throughput of the whole run: report its MFU and HFU"), N_("X")),
    STRING_OPTION ("measured-step-seconds", measured_step_seconds,
                   N_("Measured time of one optimizer step: report its MFU and HFU"), N_("S")),
    { NULL }
  };
  const GOptionEntry plan_entries[] = {
    STRING_OPTION ("top", top, N_("Layouts to print (default 10)"), N_("K")),
    FLAG_OPTION ("csv", csv, N_("Print CSV instead of a table")),
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, plan ? plan_entries : train_entries, GETTEXT_PACKAGE);
}

/* --gpus N splits into nodes of --gpus-per-node (else the project's node,
 * else 8) when N is a multiple of it, else makes one node of N GPUs. */
static gboolean
apply_gpu_count (HrTraining  *training,
                 TrainArgs   *args,
                 GError     **error)
{
  gint64 gpus = 0;
  gboolean per_node_given = args->gpus_per_node != NULL;

  if (!headroom_cli_parse_optional_int ("--gpus-per-node", args->gpus_per_node,
                                        1, &training->gpus_per_node, error)
      || !headroom_cli_parse_optional_int ("--nodes", args->nodes, 1, &training->nodes, error)
      || !headroom_cli_parse_optional_int ("--gpus", args->gpus, 1, &gpus, error))
    return FALSE;

  if (args->gpus != NULL && args->nodes != NULL)
    {
      g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--gpus: give either --gpus or --nodes with --gpus-per-node"));
      return FALSE;
    }

  if (args->gpus == NULL)
    return TRUE;

  if (gpus >= training->gpus_per_node && gpus % training->gpus_per_node == 0)
    training->nodes = gpus / training->gpus_per_node;
  else if (per_node_given)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--gpus: %" G_GINT64_FORMAT " is not a multiple of --gpus-per-node %" G_GINT64_FORMAT),
                   gpus, training->gpus_per_node);
      return FALSE;
    }
  else
    {
      training->nodes = 1;
      training->gpus_per_node = gpus;
    }

  return TRUE;
}

/* The fine-tuning options (hr-finetune.h), shared by train and plan. */
static gboolean
apply_finetune (HrFinetune  *f,
                TrainArgs   *args,
                GError     **error)
{
  if (!headroom_cli_parse_optional_choice ("--method", args->method, method_choices,
                                           (int *) &f->method, error)
      || !headroom_cli_parse_optional_int ("--lora-rank", args->lora_rank, 1, &f->rank, error)
      || !headroom_cli_parse_optional_int ("--freeze-layers", args->freeze_layers, 0,
                                           &f->freeze_layers, error)
      || !headroom_cli_parse_optional_choice ("--quant", args->quant, quant_choices,
                                              (int *) &f->quant, error)
      || !headroom_cli_parse_optional_choice ("--quant-scope", args->quant_scope,
                                              quant_scope_choices, (int *) &f->quant_scope, error))
    return FALSE;
  if (args->lora_alpha != NULL
      && !headroom_cli_parse_double ("--lora-alpha", args->lora_alpha, 0, G_MAXDOUBLE, FALSE,
                                     &f->alpha, error))
    return FALSE;
  if (args->lora_dropout != NULL
      && !headroom_cli_parse_double ("--lora-dropout", args->lora_dropout, 0, 0.99, FALSE,
                                     &f->dropout, error))
    return FALSE;
  if (args->lora_targets != NULL && !hr_finetune_targets_from_string (args->lora_targets,
                                                                      &f->targets))
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--lora-targets: %s is not a list of q, k, v, o, gate, up, down, lm_head, "
                     "embed, nor attention or all-linear"), args->lora_targets);
      return FALSE;
    }
  if (args->fp32_adapters)
    f->fp32_adapters = TRUE;
  if (args->double_quant)
    f->double_quant = TRUE;
  if (args->quant_saves_input)
    f->quant_saves_input = TRUE;
  return TRUE;
}

/* The recipe options, shared by train and plan. */
static gboolean
apply_recipe (HrTraining  *training,
              TrainArgs   *args,
              GError     **error)
{
  return apply_finetune (&training->finetune, args, error)
         && headroom_cli_parse_optional_int ("--global-batch", args->global_batch,
                                          1, &training->global_batch, error)
         && headroom_cli_parse_optional_int ("--seq", args->seq, 1, &training->seq_len, error)
         && headroom_cli_parse_optional_choice ("--precision", args->precision,
                                                precision_choices, (int *) &training->precision, error)
         && headroom_cli_parse_optional_choice ("--optimizer", args->optimizer,
                                                optimizer_choices, (int *) &training->optimizer, error);
}

static gboolean
apply_train_args (HrTraining  *training,
                  TrainArgs   *args,
                  GError     **error)
{
  gint64 zero = training->zero_stage;

  if (!apply_gpu_count (training, args, error)
      || !apply_recipe (training, args, error)
      || !headroom_cli_parse_optional_int ("--tp", args->tp, 1, &training->tensor_parallel, error)
      || !headroom_cli_parse_optional_int ("--pp", args->pp, 1, &training->pipeline_parallel, error)
      || !headroom_cli_parse_optional_choice ("--pp-schedule", args->pp_schedule,
                                              schedule_choices, (int *) &training->pipeline_schedule, error)
      || !headroom_cli_parse_optional_int ("--vpp", args->vpp, 1, &training->virtual_stages, error)
      || !headroom_cli_parse_optional_int ("--cp", args->cp, 1, &training->context_parallel, error)
      || !headroom_cli_parse_optional_int ("--ep", args->ep, 1, &training->expert_parallel, error)
      || !headroom_cli_parse_optional_int ("--zero", args->zero, 0, &zero, error)
      || !headroom_cli_parse_optional_choice ("--fsdp", args->fsdp,
                                              fsdp_choices, (int *) &training->fsdp, error)
      || !headroom_cli_parse_optional_int ("--micro-batch", args->micro_batch,
                                           1, &training->micro_batch, error)
      || !headroom_cli_parse_optional_choice ("--attention", args->attention,
                                              attention_choices, (int *) &training->attention, error)
      || !headroom_cli_parse_optional_choice ("--recompute", args->recompute,
                                              recompute_choices, (int *) &training->recompute, error))
    return FALSE;

  if (zero > 3)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--zero: %s is not one of 0|1|2|3"), args->zero);
      return FALSE;
    }
  training->zero_stage = (int) zero;

  /* A virtual stage count above 1 only means something when interleaved. */
  if (args->vpp != NULL && training->virtual_stages > 1 && args->pp_schedule == NULL)
    training->pipeline_schedule = HR_PIPELINE_INTERLEAVED;

  if (args->tokens != NULL
      && !headroom_cli_parse_double ("--tokens", args->tokens, 0, G_MAXDOUBLE, FALSE,
                                     &training->tokens, error))
    return FALSE;
  if (args->overhead != NULL
      && !headroom_cli_parse_double ("--overhead", args->overhead, 0, G_MAXDOUBLE, FALSE,
                                     &training->overhead_bytes, error))
    return FALSE;
  if (args->mfu != NULL
      && !headroom_cli_parse_double ("--mfu", args->mfu, 0, 1, TRUE, &training->mfu, error))
    return FALSE;
  if (args->price != NULL
      && !headroom_cli_parse_double ("--price", args->price, 0, G_MAXDOUBLE, FALSE,
                                     &training->price_per_gpu_hour, error))
    return FALSE;

  if (args->sequence_parallel)
    training->sequence_parallel = TRUE;
  if (args->offload_optimizer)
    training->offload_optimizer = TRUE;
  if (args->dropout)
    training->dropout = TRUE;
  if (args->causal)
    training->causal = TRUE;

  return TRUE;
}

/* The GPU: --gpu, else the project's; the network options over it. */
static gboolean
resolve_gpu (HeadroomCliModel  *model,
             TrainArgs         *args,
             HrGpu             *gpu,
             GError           **error)
{
  g_autoptr(GError) local_error = NULL;

  double bandwidth = 0;
  double latency = 0;

  if (args->inter_node_bandwidth != NULL
      && !headroom_cli_parse_double ("--inter-node-bandwidth", args->inter_node_bandwidth,
                                     0, G_MAXDOUBLE, FALSE, &bandwidth, error))
    return FALSE;
  if (args->inter_node_latency != NULL
      && !headroom_cli_parse_double ("--inter-node-latency", args->inter_node_latency,
                                     0, G_MAXDOUBLE, FALSE, &latency, error))
    return FALSE;

  if (args->gpu != NULL || model->project == NULL)
    {
      if (!headroom_cli_resolve_gpu ("--gpu", args->gpu, gpu, error))
        return FALSE;
    }
  else if (!headroom_project_get_gpu (model->project, gpu, &local_error))
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   "%s: %s", model->name, local_error->message);
      return FALSE;
    }

  /* The project's network (0: the GPU entry's) still applies under --gpu. */
  if (args->gpu != NULL && model->project != NULL)
    {
      if (bandwidth == 0)
        bandwidth = headroom_project_get_double (model->project, "hardware.inter_node_bandwidth");
      if (latency == 0)
        latency = headroom_project_get_double (model->project, "hardware.inter_node_latency");
    }

  /* GB/s and µs, as the project file writes them. */
  if (bandwidth > 0)
    gpu->inter_node_bandwidth = bandwidth * 1e9;
  if (latency > 0)
    gpu->inter_node_latency = latency * 1e-6;

  return TRUE;
}

typedef struct
{
  HrParams         params;
  HrFlops          flops;
  HrTrainingMemory memory;
  HrTrainingTime   time;
  HrTrainingLimits limits;
  gboolean         has_measured;
  HrTrainingUtilization measured;
  gboolean         power_known;   /* the catalog gives the board power (0: unpublished) */
} TrainResult;

static gboolean
compute_training (const HrModel    *model,
                  const HrTraining *training,
                  const HrGpu      *gpu,
                  TrainResult      *result,
                  GError          **error)
{
  HrFlopsOptions flops_options = {
    .seq_len = training->seq_len,
    .micro_batch = training->micro_batch,
    .attention = training->attention,
    .recompute = training->recompute,
    .causal = training->causal,
    .finetune = &training->finetune,
  };
  HrError err = { 0 };

  if (hr_training_validate (training, model, &err) != HR_OK
      || hr_model_params (model, &result->params, &err) != HR_OK
      || hr_flops_training (model, &flops_options, &result->flops, &err) != HR_OK
      || hr_training_memory (model, training, gpu, &result->memory, &err) != HR_OK
      || hr_training_time (model, training, gpu, &result->time, &err) != HR_OK
      || hr_training_limits (model, training, gpu, &result->limits, &err) != HR_OK)
    {
      headroom_cli_set_core_error (error, &err);
      return FALSE;
    }
  result->power_known = gpu->power_watts > 0;

  return TRUE;
}

/* MFU and HFU of a measured throughput (--measured-tokens-per-second or
 * --measured-step-seconds), when one is given. */
static gboolean
compute_measured (const HrModel    *model,
                  const HrTraining *training,
                  const HrGpu      *gpu,
                  TrainArgs        *args,
                  TrainResult      *result,
                  GError          **error)
{
  HrError err = { 0 };
  HrStatus status;
  double value;

  if (args->measured_tokens_per_second != NULL && args->measured_step_seconds != NULL)
    {
      g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--measured-step-seconds: give either --measured-tokens-per-second "
                             "or --measured-step-seconds"));
      return FALSE;
    }

  if (args->measured_tokens_per_second != NULL)
    {
      if (!headroom_cli_parse_double ("--measured-tokens-per-second",
                                      args->measured_tokens_per_second,
                                      0, G_MAXDOUBLE, TRUE, &value, error))
        return FALSE;
      status = hr_training_utilization_from_tokens_per_second (model, training, gpu, value,
                                                               &result->measured, &err);
    }
  else if (args->measured_step_seconds != NULL)
    {
      if (!headroom_cli_parse_double ("--measured-step-seconds", args->measured_step_seconds,
                                      0, G_MAXDOUBLE, TRUE, &value, error))
        return FALSE;
      status = hr_training_utilization_from_step_seconds (model, training, gpu, value,
                                                          &result->measured, &err);
    }
  else
    return TRUE;

  if (status != HR_OK)
    {
      headroom_cli_set_core_error (error, &err);
      return FALSE;
    }
  result->has_measured = TRUE;
  return TRUE;
}

static void
print_train_json (const TrainResult *r)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const HrTrainingMemory *m = &r->memory;
  const HrTrainingTime *t = &r->time;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "params");
  /* trainable = total for full training: every parameter gets a gradient */
  headroom_cli_json_params_trained (builder, &r->params,
                                    m->trainable_params > 0 || m->frozen_params > 0
                                    ? m->trainable_params : r->params.total,
                                    m->frozen_params);
  json_builder_set_member_name (builder, "flops");
  headroom_cli_json_flops (builder, &r->flops);

  json_builder_set_member_name (builder, "memory");
  json_builder_begin_object (builder);
  headroom_cli_json_bytes (builder, "frozen_weights", m->frozen_weights);
  headroom_cli_json_bytes (builder, "adapters", m->adapters);
  headroom_cli_json_bytes (builder, "weights", m->weights);
  headroom_cli_json_bytes (builder, "master_weights", m->master_weights);
  headroom_cli_json_bytes (builder, "gradients", m->gradients);
  headroom_cli_json_bytes (builder, "grad_accumulation_buffer", m->grad_accumulation_buffer);
  headroom_cli_json_bytes (builder, "optimizer", m->optimizer);
  headroom_cli_json_bytes (builder, "activations", m->activations);
  headroom_cli_json_bytes (builder, "activations_per_layer", m->activations_per_layer);
  headroom_cli_json_bytes (builder, "temporary", m->temporary);
  headroom_cli_json_bytes (builder, "overhead", m->overhead);
  headroom_cli_json_bytes (builder, "recompute", m->recompute);
  headroom_cli_json_bytes (builder, "allocated_peak", m->allocated_peak);
  headroom_cli_json_bytes (builder, "reserved_peak", m->reserved_peak);
  headroom_cli_json_bytes (builder, "total", m->total);
  headroom_cli_json_bytes (builder, "capacity", m->capacity);
  headroom_cli_json_bool (builder, "fits", m->fits);
  headroom_cli_json_bytes (builder, "headroom", m->headroom);
  headroom_cli_json_bytes (builder, "overflow", m->overflow);
  headroom_cli_json_bytes (builder, "cpu", m->cpu_bytes);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "time");
  json_builder_begin_object (builder);
  headroom_cli_json_double (builder, "step_seconds", t->step_seconds);
  headroom_cli_json_double (builder, "tokens_per_second", t->tokens_per_second);
  headroom_cli_json_double (builder, "total_seconds", t->total_seconds);
  headroom_cli_json_double (builder, "gpu_hours", t->gpu_hours);
  headroom_cli_json_double (builder, "cost", t->cost);
  /* null, not 0, where the board power is unpublished (TPUs) */
  headroom_cli_json_double (builder, "energy_kwh", r->power_known ? t->energy_kwh : NAN);
  headroom_cli_json_double (builder, "mfu", t->mfu);
  if (r->has_measured)
    {
      json_builder_set_member_name (builder, "measured");
      json_builder_begin_object (builder);
      headroom_cli_json_double (builder, "mfu", r->measured.mfu);
      headroom_cli_json_double (builder, "hfu", r->measured.hfu);
      headroom_cli_json_double (builder, "tokens_per_second", r->measured.tokens_per_second);
      headroom_cli_json_double (builder, "step_seconds", r->measured.step_seconds);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "limits");
  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "max_micro_batch", r->limits.max_micro_batch);
  headroom_cli_json_int (builder, "max_seq", r->limits.max_seq_len);
  headroom_cli_json_int (builder, "min_gpus", r->limits.min_gpus);
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  headroom_cli_print_json (builder);
}

static void
print_train_table (const char       *name,
                   const HrTraining *training,
                   const TrainResult *r)
{
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (2);
  const HrTrainingMemory *m = &r->memory;
  const HrTrainingTime *t = &r->time;
  g_autofree char *params = headroom_cli_format_count (r->params.total);
  g_autofree char *mfu = headroom_cli_format_number (100 * t->mfu, 3);

  g_autofree char *gpus = headroom_cli_format_gpus (hr_training_gpus (training));

  printf (_("%s (%s parameters) on %s: TP %" G_GINT64_FORMAT
            ", PP %" G_GINT64_FORMAT ", CP %" G_GINT64_FORMAT ", DP %" G_GINT64_FORMAT
            ", micro batch %" G_GINT64_FORMAT ", sequence %" G_GINT64_FORMAT "\n"),
          name, params, gpus, training->tensor_parallel,
          training->pipeline_parallel, training->context_parallel, m->data_parallel,
          training->micro_batch, training->seq_len);
  printf ("\n%s\n", _("Memory of the most loaded GPU (first pipeline stage)"));
  if (!hr_finetune_is_full (&training->finetune))
    headroom_cli_table_add_gib (table, _("Frozen weights"), m->frozen_weights);
  headroom_cli_table_add_gib (table, _("Weights"), m->weights);
  headroom_cli_table_add_gib (table, _("Master weights"), m->master_weights);
  headroom_cli_table_add_gib (table, _("Gradients"), m->gradients + m->grad_accumulation_buffer);
  headroom_cli_table_add_gib (table, _("Optimizer states"), m->optimizer);
  if (hr_finetune_is_adapter (&training->finetune))
    headroom_cli_table_add_gib (table, _("  of these four, adapters"), m->adapters);
  headroom_cli_table_add_gib (table, _("Activations"), m->activations);
  headroom_cli_table_add_gib (table, _("  of which one layer"), m->activations_per_layer);
  headroom_cli_table_add_gib (table, _("Temporary buffers"), m->temporary);
  headroom_cli_table_add_gib (table, _("Framework overhead"), m->overhead);
  headroom_cli_table_add_gib (table, _("Total"), m->total);
  headroom_cli_table_add_gib (table, _("Capacity"), m->capacity);
  if (m->fits)
    headroom_cli_table_add_gib (table, _("Headroom"), m->headroom);
  else
    headroom_cli_table_add_gib (table, _("Overflow (does not fit)"), m->overflow);
  if (m->cpu_bytes > 0)
    headroom_cli_table_add_gib (table, _("Offloaded to CPU"), m->cpu_bytes);
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Time"));
  headroom_cli_table_take (table, g_strdup (_("Step")), headroom_cli_format_duration (t->step_seconds), NULL);
  headroom_cli_table_take (table, g_strdup (_("Tokens per second")),
                           headroom_cli_format_count (t->tokens_per_second), NULL);
  headroom_cli_table_take (table, g_strdup (_("MFU")), g_strdup_printf ("%s%%", mfu), NULL);
  if (r->has_measured)
    {
      g_autofree char *measured_mfu = headroom_cli_format_number (100 * r->measured.mfu, 3);
      g_autofree char *measured_hfu = headroom_cli_format_number (100 * r->measured.hfu, 3);

      headroom_cli_table_take (table, g_strdup (_("Measured MFU")),
                               g_strdup_printf ("%s%%", measured_mfu), NULL);
      headroom_cli_table_take (table, g_strdup (_("Measured HFU")),
                               g_strdup_printf ("%s%%", measured_hfu), NULL);
    }
  if (t->total_seconds > 0)
    {
      headroom_cli_table_take (table, g_strdup (_("Training time")),
                               headroom_cli_format_duration (t->total_seconds), NULL);
      headroom_cli_table_take (table, g_strdup (_("GPU-hours")),
                               headroom_cli_format_count (t->gpu_hours), NULL);
      headroom_cli_table_take (table, g_strdup (_("Cost (USD)")),
                               headroom_cli_format_count (t->cost), NULL);
      headroom_cli_table_take (table, g_strdup (_("Energy (kWh)")),
                               r->power_known ? headroom_cli_format_count (t->energy_kwh)
                                              : g_strdup (_("unknown (board power not published)")),
                               NULL);
    }
  headroom_cli_table_print (table);

  g_clear_pointer (&table, headroom_cli_table_free);
  table = headroom_cli_table_new (2);
  printf ("\n%s\n", _("Limits"));
  headroom_cli_table_take (table, g_strdup (_("Largest micro batch")),
                           headroom_cli_format_limit (r->limits.max_micro_batch), NULL);
  headroom_cli_table_take (table, g_strdup (_("Longest sequence")),
                           headroom_cli_format_limit (r->limits.max_seq_len), NULL);
  headroom_cli_table_take (table, g_strdup (_("Fewest GPUs")),
                           headroom_cli_format_limit (r->limits.min_gpus), NULL);
  headroom_cli_table_print (table);
}

/* Runs train on `model` with the options in `args` over the project's settings. */
static int
run_train (HeadroomCliModel *model,
           TrainArgs        *args)
{
  g_autoptr(GError) error = NULL;
  HrTraining training;
  HrGpu gpu;
  TrainResult result = { 0 };

  hr_training_init (&training);
  if (model->project != NULL)
    headroom_project_get_training (model->project, &training);
  else if (args->gpus == NULL && args->nodes == NULL)
    training.gpus_per_node = 1;

  if (!apply_train_args (&training, args, &error)
      || !resolve_gpu (model, args, &gpu, &error)
      || !compute_training (&model->model, &training, &gpu, &result, &error)
      || !compute_measured (&model->model, &training, &gpu, args, &result, &error))
    return headroom_cli_report_error (error);

  if (args->json)
    print_train_json (&result);
  else
    print_train_table (model->name, &training, &result);

  return HEADROOM_CLI_EXIT_OK;
}

int
headroom_cli_train (int    argc,
                    char **argv)
{
  g_auto(TrainArgs) args = { 0 };
  g_autoptr(GOptionContext) context = g_option_context_new ("");
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };

  g_option_context_set_summary (context, _("Estimate the memory per GPU, time and cost of a training run."));
  add_layout_entries (context, &args, FALSE);
  if (!headroom_cli_parse_options (context, &argc, &argv, &error)
      || !headroom_cli_resolve_model (args.model, &model, &error))
    return headroom_cli_report_error (error);

  return run_train (&model, &args);
}

int
headroom_cli_report_training (HeadroomCliModel *model,
                              gboolean          json)
{
  TrainArgs args = { .json = json };

  return run_train (model, &args);
}

/* The layout fields of plan's output, in order. */
static const char * const layout_keys[] = {
  "tp", "pp", "vpp", "dp", "cp", "ep", "zero", "fsdp", "sequence_parallel", "micro_batch",
  "recompute", "memory_total", "step_seconds", "mfu", "tokens_per_second", "bound", NULL
};

static void
json_layout (JsonBuilder        *builder,
             const HrPlanLayout *layout)
{
  const HrTraining *t = &layout->training;

  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "tp", t->tensor_parallel);
  headroom_cli_json_int (builder, "pp", t->pipeline_parallel);
  headroom_cli_json_int (builder, "vpp", t->virtual_stages);
  headroom_cli_json_int (builder, "dp", layout->data_parallel);
  headroom_cli_json_int (builder, "cp", t->context_parallel);
  headroom_cli_json_int (builder, "ep", t->expert_parallel);
  headroom_cli_json_int (builder, "zero", t->fsdp == HR_FSDP_NONE ? t->zero_stage : 0);
  headroom_cli_json_string (builder, "fsdp", fsdp_choices[t->fsdp]);
  headroom_cli_json_bool (builder, "sequence_parallel", t->sequence_parallel);
  headroom_cli_json_int (builder, "micro_batch", t->micro_batch);
  headroom_cli_json_string (builder, "recompute", recompute_choices[t->recompute]);
  headroom_cli_json_bytes (builder, "memory_total", layout->memory_total);
  headroom_cli_json_double (builder, "step_seconds", layout->step.step_seconds);
  headroom_cli_json_double (builder, "mfu", layout->step.mfu);
  headroom_cli_json_double (builder, "tokens_per_second", layout->step.tokens_per_second);
  headroom_cli_json_string (builder, "bound", hr_plan_bound_name (layout->step.bound));
  json_builder_end_object (builder);
}

static char *
csv_number (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_dtostr (buf, sizeof buf, value));
}

/* One CSV row; no field needs quoting (numbers and fixed words). */
static void
print_layout_csv (const HrPlanLayout *layout)
{
  const HrTraining *t = &layout->training;
  g_autofree char *step = csv_number (layout->step.step_seconds);
  g_autofree char *mfu = csv_number (layout->step.mfu);
  g_autofree char *tokens = csv_number (layout->step.tokens_per_second);

  printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
          ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%d,%s,%s,%" G_GINT64_FORMAT ",%s,%.0f,%s,%s,%s,%s\r\n",
          t->tensor_parallel, t->pipeline_parallel, t->virtual_stages, layout->data_parallel,
          t->context_parallel, t->expert_parallel,
          t->fsdp == HR_FSDP_NONE ? t->zero_stage : 0, fsdp_choices[t->fsdp],
          t->sequence_parallel ? "true" : "false", t->micro_batch,
          recompute_choices[t->recompute], layout->memory_total, step, mfu, tokens,
          hr_plan_bound_name (layout->step.bound));
}

/* The rows of plan's table; `throughput` adds a tokens per second column. */
static void
print_layouts_table (const HrPlanLayout *layouts,
                     size_t              n_layouts,
                     gboolean            throughput)
{
  g_autoptr(HeadroomCliTable) table = headroom_cli_table_new (throughput ? 17 : 16);

  headroom_cli_table_add (table, "#", "TP", "PP", "VPP", "DP", "CP", "EP", "ZeRO", "FSDP", "SP",
                          _("Micro"), _("Recompute"), _("Memory"), _("Step"), "MFU",
                          _("Bound"), throughput ? _("Tokens/s") : NULL, NULL);
  for (size_t i = 0; i < n_layouts; i++)
    {
      const HrPlanLayout *l = &layouts[i];
      const HrTraining *t = &l->training;
      g_autofree char *mfu = headroom_cli_format_number (100 * l->step.mfu, 3);

      headroom_cli_table_take (table,
                               g_strdup_printf ("%zu", i + 1),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->tensor_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->pipeline_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->virtual_stages),
                               g_strdup_printf ("%" G_GINT64_FORMAT, l->data_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->context_parallel),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->expert_parallel),
                               g_strdup_printf ("%d", t->fsdp == HR_FSDP_NONE ? t->zero_stage : 0),
                               g_strdup (fsdp_choices[t->fsdp]),
                               g_strdup (t->sequence_parallel ? _("yes") : _("no")),
                               g_strdup_printf ("%" G_GINT64_FORMAT, t->micro_batch),
                               g_strdup (recompute_choices[t->recompute]),
                               headroom_cli_format_gib (l->memory_total),
                               headroom_cli_format_duration (l->step.step_seconds),
                               g_strdup_printf ("%s%%", mfu),
                               g_strdup (hr_plan_bound_name (l->step.bound)),
                               throughput ? headroom_cli_format_count (l->step.tokens_per_second)
                                          : NULL,
                               NULL);
    }
  headroom_cli_table_print (table);
}

static gboolean
same_layout (const HrPlanLayout *a,
             const HrPlanLayout *b)
{
  const HrTraining *s = &a->training;
  const HrTraining *t = &b->training;

  return s->tensor_parallel == t->tensor_parallel && s->pipeline_parallel == t->pipeline_parallel
         && s->virtual_stages == t->virtual_stages && a->data_parallel == b->data_parallel
         && s->context_parallel == t->context_parallel && s->expert_parallel == t->expert_parallel
         && s->zero_stage == t->zero_stage && s->fsdp == t->fsdp
         && s->sequence_parallel == t->sequence_parallel && s->micro_batch == t->micro_batch
         && s->recompute == t->recompute;
}

/* Whether every Pareto layout is already among the ranked ones. */
static gboolean
pareto_in_best (const HrPlanLayout *best,
                const HrPlanLayout *pareto,
                const HrPlanResult *result)
{
  for (size_t i = 0; i < result->n_pareto; i++)
    {
      gboolean found = FALSE;

      for (size_t j = 0; j < result->n_best && !found; j++)
        found = same_layout (&pareto[i], &best[j]);
      if (!found)
        return FALSE;
    }

  return result->n_pareto == result->n_best;
}

static void
print_plan_table (const char          *name,
                  const HrPlanRequest *request,
                  const HrPlanLayout  *layouts,
                  const HrPlanLayout  *pareto,
                  const HrPlanResult  *result,
                  double               seconds)
{
  g_autofree char *ms = headroom_cli_format_number (seconds * 1e3, 3);
  g_autofree char *gpus = headroom_cli_format_gpus (hr_training_gpus (&request->training));

  printf (_("%s on %s (%" G_GINT64_FORMAT " per node), global batch %"
            G_GINT64_FORMAT ", sequence %" G_GINT64_FORMAT "\n"),
          name, gpus, request->training.gpus_per_node,
          request->training.global_batch, request->training.seq_len);
  printf (_("%" G_GINT64_FORMAT " layouts searched, %" G_GINT64_FORMAT " fit, in %s ms\n\n"),
          result->searched, result->fitting, ms);

  if (result->n_best == 0)
    {
      printf ("%s\n", _("No layout fits in memory."));
      return;
    }

  print_layouts_table (layouts, result->n_best, FALSE);

  if (pareto_in_best (layouts, pareto, result))
    return;
  printf ("\n%s\n", _("Pareto front (memory vs throughput)"));
  print_layouts_table (pareto, result->n_pareto, TRUE);
  if (result->pareto_truncated)
    printf (_("(the first %zu points of a longer front)\n"), result->n_pareto);
}

/* Points of the memory/throughput front plan keeps (more are noted as cut). */
#define PARETO_SIZE 256

/* Smallest multiple of the GPU count that is at least 512 sequences. */
static gint64
default_global_batch (gint64 gpus)
{
  return gpus >= 512 ? gpus : ((512 + gpus - 1) / gpus) * gpus;
}

int
headroom_cli_plan (int    argc,
                   char **argv)
{
  g_auto(TrainArgs) args = { 0 };
  g_autoptr(GOptionContext) context = g_option_context_new ("");
  g_autoptr(GError) error = NULL;
  g_auto(HeadroomCliModel) model = { 0 };
  g_autofree HrPlanLayout *layouts = NULL;
  g_autofree HrPlanLayout *pareto = g_new0 (HrPlanLayout, PARETO_SIZE);
  HrPlanRequest request;
  HrPlanResult result = { 0 };
  HrError err = { 0 };
  HrGpu gpu;
  gint64 top = 10;
  gint64 zero = HR_PLAN_FREE;
  int fsdp = HR_PLAN_FREE;
  int recompute = HR_PLAN_FREE;
  gint64 started;
  double seconds;

  g_option_context_set_summary (context, _("Search the parallel layouts of a training run and rank those that fit."));
  add_layout_entries (context, &args, TRUE);
  if (!headroom_cli_parse_options (context, &argc, &argv, &error)
      || !headroom_cli_resolve_model (args.model, &model, &error))
    return headroom_cli_report_error (error);

  hr_plan_request_init (&request);
  if (model.project != NULL)
    headroom_project_get_training (model.project, &request.training);

  if (args.gpus == NULL && model.project == NULL)
    {
      g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--gpus: missing (the number of GPUs to plan for)"));
      return headroom_cli_report_error (error);
    }
  if (args.json && args.csv)
    {
      g_set_error_literal (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--csv: give either --json or --csv"));
      return headroom_cli_report_error (error);
    }

  if (model.project == NULL)
    request.training.global_batch = 0;
  if (!apply_gpu_count (&request.training, &args, &error)
      || !apply_recipe (&request.training, &args, &error)
      || !headroom_cli_parse_optional_int ("--top", args.top, 1, &top, &error)
      || !headroom_cli_parse_optional_int ("--tp", args.tp, 1, &request.tensor_parallel, &error)
      || !headroom_cli_parse_optional_int ("--pp", args.pp, 1, &request.pipeline_parallel, &error)
      || !headroom_cli_parse_optional_int ("--vpp", args.vpp, 1, &request.virtual_stages, &error)
      || !headroom_cli_parse_optional_int ("--cp", args.cp, 1, &request.context_parallel, &error)
      || !headroom_cli_parse_optional_int ("--ep", args.ep, 1, &request.expert_parallel, &error)
      || !headroom_cli_parse_optional_int ("--micro-batch", args.micro_batch,
                                           1, &request.micro_batch, &error)
      || !headroom_cli_parse_optional_int ("--zero", args.zero, 0, &zero, &error)
      || !headroom_cli_parse_optional_choice ("--fsdp", args.fsdp, fsdp_choices, &fsdp, &error)
      || !headroom_cli_parse_optional_choice ("--recompute", args.recompute,
                                              recompute_choices, &recompute, &error)
      || !resolve_gpu (&model, &args, &gpu, &error))
    return headroom_cli_report_error (error);

  if (zero > 3)
    {
      g_set_error (&error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--zero: %s is not one of 0|1|2|3"), args.zero);
      return headroom_cli_report_error (error);
    }
  request.zero_stage = (int) zero;
  /* A pinned ZeRO stage means no FSDP unless --fsdp says otherwise. */
  request.fsdp = args.zero != NULL && args.fsdp == NULL ? HR_FSDP_NONE : fsdp;
  request.recompute = recompute;
  if (args.sequence_parallel)
    request.sequence_parallel = 1;
  if (request.training.global_batch == 0)
    request.training.global_batch = default_global_batch (hr_training_gpus (&request.training));

  if (top > 1000)
    top = 1000;
  layouts = g_new0 (HrPlanLayout, top);

  started = g_get_monotonic_time ();
  if (hr_plan_search (&model.model, &gpu, &request, layouts, (size_t) top, pareto, PARETO_SIZE,
                      &result, &err) != HR_OK)
    {
      headroom_cli_set_core_error (&error, &err);
      return headroom_cli_report_error (error);
    }
  seconds = (g_get_monotonic_time () - started) / 1e6;

  if (args.json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "layouts");
      json_builder_begin_array (builder);
      for (size_t i = 0; i < result.n_best; i++)
        json_layout (builder, &layouts[i]);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "pareto");
      json_builder_begin_array (builder);
      for (size_t i = 0; i < result.n_pareto; i++)
        json_layout (builder, &pareto[i]);
      json_builder_end_array (builder);
      headroom_cli_json_int (builder, "searched", result.searched);
      headroom_cli_json_int (builder, "fitting", result.fitting);
      headroom_cli_json_double (builder, "seconds", seconds);
      json_builder_end_object (builder);
      headroom_cli_print_json (builder);
    }
  else if (args.csv)
    {
      g_autofree char *header = g_strjoinv (",", (char **) layout_keys);

      printf ("%s\r\n", header);
      for (size_t i = 0; i < result.n_best; i++)
        print_layout_csv (&layouts[i]);
    }
  else
    print_plan_table (model.name, &request, layouts, pareto, &result, seconds);

  return HEADROOM_CLI_EXIT_OK;
}
