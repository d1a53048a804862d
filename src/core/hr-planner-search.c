/* hr-planner-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout search: every layout of the request's GPUs, each timed by the
 * step-time model (hr-planner.c) and kept when it fits and is among the
 * fastest. docs/planner.md derives every term; the comments here name the
 * source of each.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hr-internal.h"
#include "hr-planner.h"

/* Virtual stages the search tries (interleaved schedule): a search bound,
 * so that the layout loops never walk the layers (docs/project-format.md,
 * Limits). Megatron-LM's interleaved runs use a few per rank. */
#define PLAN_MAX_VIRTUAL_STAGES 64

static bool
pinned_out (int64_t pin,
            int64_t value)
{
  return pin > 0 && pin != value;
}

typedef struct
{
  HrPlanContext        ctx;
  const HrPlanRequest *request;
  HrPlanLayout        *best;
  size_t               best_size;
  HrPlanLayout        *pareto;
  size_t               pareto_size;
  HrPlanResult        *result;
  /* Divisors of one replica's share of the batch, ascending (cached for
   * `divisors_of`): the micro-batch sizes, found without a walk to the share. */
  int64_t              divisors_of;
  int64_t             *divisors;
  size_t               n_divisors;
  size_t               divisors_size;
  /* The first layout the core refused, and why: when it refuses them all,
   * the search fails with that reason, as `train` would for any of them. */
  HrError              refused;
} Search;

/* The batch the search takes (a replica's share is walked by its divisors,
 * found by trial division up to its square root): docs/project-format.md. */
#define PLAN_MAX_GLOBAL_BATCH INT64_C (1000000000000)

/* Fills search->divisors with the divisors of `n` (1 ≤ n ≤ 10^12), ascending. */
static bool
share_divisors (Search  *search,
                int64_t  n)
{
  if (search->divisors_of == n && search->divisors != NULL)
    return true;
  search->n_divisors = 0;
  search->divisors_of = 0;
  for (int pass = 0; pass < 2; pass++)
    {
      int64_t root = (int64_t) sqrt ((double) n);

      while (root * root > n)
        root--;
      while ((root + 1) * (root + 1) <= n)
        root++;
      for (int64_t k = 0; k < root; k++)
        {
          /* Small divisors ascending, then their cofactors, also ascending. */
          int64_t i = pass == 0 ? k + 1 : root - k;
          int64_t d = pass == 0 ? i : n / i;

          if (n % i != 0 || (pass == 1 && d == i))
            continue;
          if (search->n_divisors == search->divisors_size)
            {
              size_t size = search->divisors_size > 0 ? 2 * search->divisors_size : 64;
              int64_t *grown = realloc (search->divisors, size * sizeof *grown);

              if (grown == NULL)
                return false;
              search->divisors = grown;
              search->divisors_size = size;
            }
          search->divisors[search->n_divisors++] = d;
        }
    }
  search->divisors_of = n;
  return true;
}

/* Keeps best[] sorted by step time, then memory. */
static void
offer_best (Search             *search,
            const HrPlanLayout *layout)
{
  size_t n = search->result->n_best;
  size_t at = n;

  while (at > 0
         && (layout->step.step_seconds < search->best[at - 1].step.step_seconds
             || (layout->step.step_seconds == search->best[at - 1].step.step_seconds
                 && layout->memory_total < search->best[at - 1].memory_total)))
    at--;
  if (at >= search->best_size)
    return;
  if (n == search->best_size)
    n--;
  memmove (&search->best[at + 1], &search->best[at], (n - at) * sizeof *layout);
  search->best[at] = *layout;
  search->result->n_best = n + 1;
}

/* Keeps pareto[] as the front of least memory against most tokens per
 * second, sorted by memory (throughput then rises strictly). */
static void
offer_pareto (Search             *search,
              const HrPlanLayout *layout)
{
  HrPlanLayout *front = search->pareto;
  size_t n = search->result->n_pareto;
  size_t i, kept;
  size_t at;

  for (i = 0; i < n; i++)
    if (front[i].memory_total <= layout->memory_total
        && front[i].step.tokens_per_second >= layout->step.tokens_per_second)
      return;

  /* Drop the points the newcomer dominates, then insert it in order. */
  for (i = 0, kept = 0; i < n; i++)
    {
      if (front[i].memory_total >= layout->memory_total
          && front[i].step.tokens_per_second <= layout->step.tokens_per_second)
        continue;
      if (kept != i)
        front[kept] = front[i];
      kept++;
    }
  n = kept;
  for (at = 0; at < n && front[at].memory_total < layout->memory_total; at++)
    ;
  if (n == search->pareto_size)
    {
      search->result->pareto_truncated = true;
      search->result->n_pareto = n;
      return;
    }
  memmove (&front[at + 1], &front[at], (n - at) * sizeof *layout);
  front[at] = *layout;
  search->result->n_pareto = n + 1;
}

static bool
wanted_best (const Search     *search,
             const HrPlanStep *step,
             double            memory)
{
  const HrPlanLayout *last;

  if (search->best_size == 0)
    return false;
  if (search->result->n_best < search->best_size)
    return true;
  last = &search->best[search->best_size - 1];
  return step->step_seconds < last->step.step_seconds
         || (step->step_seconds == last->step.step_seconds && memory < last->memory_total);
}

static bool
wanted_pareto (const Search     *search,
               const HrPlanStep *step,
               double            memory)
{
  size_t i;

  if (search->pareto_size == 0)
    return false;
  for (i = 0; i < search->result->n_pareto; i++)
    if (search->pareto[i].memory_total <= memory
        && search->pareto[i].step.tokens_per_second >= step->tokens_per_second)
      return false;
  return true;
}

/* Returns false when the layout is valid but does not fit. */
static bool
try_layout (Search     *search,
            HrTraining *training)
{
  HrPlanLayout layout;
  HrTrainingMemory memory;
  HrPlanStep step;
  HrError err = { 0 };

  if (hr_training_memory (search->ctx.model, training, search->ctx.gpu, &memory, &err) != HR_OK)
    {
      if (search->refused.status == HR_OK)
        search->refused = err;
      return true;
    }
  search->result->searched++;
  if (!memory.fits)
    return false;
  search->result->fitting++;

  hr_plan_evaluate (&search->ctx, training, &memory, &step);
  /* Bytes over a host link of unknown rate cannot be timed (hr_plan_step
   * refuses them): such a layout fits but is not offered. */
  if (step.host.bytes > 0 && !(search->ctx.gpu->host_bandwidth > 0.0))
    return true;
  if (!wanted_best (search, &step, memory.total) && !wanted_pareto (search, &step, memory.total))
    return true;

  memset (&layout, 0, sizeof layout);
  layout.step = step;
  layout.training = *training;
  layout.training.mfu = 0;              /* predicted: hr_training_time() gives `step` */
  layout.data_parallel = memory.data_parallel;
  layout.grad_accumulation = step.micro_batches;
  layout.memory_total = memory.total;
  layout.memory_capacity = memory.capacity;

  if (search->best_size > 0)
    offer_best (search, &layout);
  if (search->pareto_size > 0)
    offer_pareto (search, &layout);
  return true;
}

/* Every micro-batch that divides a replica's share of the batch, smallest
 * first. hr_training_memory() grows with the micro-batch (activations in
 * flight, min (stages, micro-batches) × micro-batch, and the logits) except
 * at a single micro-batch per step, which needs no gradient-accumulation
 * buffer; so once one does not fit, the larger ones with several
 * micro-batches per step do not either and are counted without a call. */
static void
try_micro_batches (Search     *search,
                   HrTraining *training,
                   int64_t     dp,
                   bool        hopeless)
{
  const HrPlanRequest *request = search->request;
  int64_t share = training->global_batch / dp;
  bool full = false;

  if (share < 1 || !share_divisors (search, share))
    return;
  for (size_t d = 0; d < search->n_divisors; d++)
    {
      int64_t mb = search->divisors[d];
      int64_t micro_batches = share / mb;

      if (pinned_out (request->micro_batch, mb)
          || (training->virtual_stages > 1
              && !hr_training_interleaved_micro_batches (training, micro_batches)))
        continue;
      if (hopeless || (full && micro_batches > 1))
        {
          search->result->searched++;
          continue;
        }
      training->micro_batch = mb;
      if (!try_layout (search, training) && micro_batches > 1)
        full = true;
    }
}

/* The schedule of layouts with one stage per rank: the request's (GPipe,
 * ZB-H1), or 1F1B where it asks for the interleaved one. */
static HrPipelineSchedule
one_chunk_schedule (const HrPlanRequest *request)
{
  HrPipelineSchedule asked = request->training.pipeline_schedule;

  return asked == HR_PIPELINE_INTERLEAVED ? HR_PIPELINE_1F1B : asked;
}

/* Whether any layout of this TP/PP/CP/EP/sharding group may fit: memory is
 * least with one virtual stage, full recomputation, sequence parallel and
 * the smallest micro-batch (or a single micro-batch per step, which needs
 * no accumulation buffer), as the micro-batch note above and Korthikanti
 * et al. 2022 §4 (Table 2) order them. */
static bool
may_fit (Search           *search,
         const HrTraining *group,
         int64_t           dp)
{
  const HrPlanRequest *request = search->request;
  int64_t share = group->global_batch / dp;
  int64_t sizes[2];
  HrTraining floor = *group;
  HrTrainingMemory memory;
  int i;

  floor.virtual_stages = request->virtual_stages > 0 ? request->virtual_stages : 1;
  floor.pipeline_schedule = floor.virtual_stages > 1 ? HR_PIPELINE_INTERLEAVED
                                                     : one_chunk_schedule (request);
  floor.recompute = request->recompute != HR_PLAN_FREE ? (HrRecompute) request->recompute
                                                        : HR_RECOMPUTE_FULL;
  floor.sequence_parallel = request->sequence_parallel != HR_PLAN_FREE
                            ? request->sequence_parallel == 1 : group->tensor_parallel > 1;
  floor.async_tp = group->async_tp && floor.sequence_parallel && floor.tensor_parallel > 1;
  sizes[0] = request->micro_batch > 0 ? request->micro_batch : 1;
  sizes[1] = request->micro_batch > 0 ? request->micro_batch : share;
  for (i = 0; i < 2; i++)
    {
      floor.micro_batch = sizes[i];
      if (hr_training_memory (search->ctx.model, &floor, search->ctx.gpu, &memory, NULL) != HR_OK
          || memory.fits)
        return true;
    }
  return false;
}

/* Whether the search tries recomputation `mode`: the pinned one, else the
 * request's modes (none, selective and full unless it names them). */
static bool
searches_recompute (const HrPlanRequest *request,
                    int                  mode)
{
  unsigned modes = request->recompute_modes != 0
                   ? request->recompute_modes
                   : (1u << HR_RECOMPUTE_NONE) | (1u << HR_RECOMPUTE_SELECTIVE)
                     | (1u << HR_RECOMPUTE_FULL);

  if (request->recompute != HR_PLAN_FREE)
    return request->recompute == mode;
  return (modes & (1u << mode)) != 0;
}

typedef struct
{
  int    zero_stage;
  HrFsdp fsdp;
} Sharding;

/* ZeRO stages and FSDP modes to try. FULL and GRAD_OP cost what ZeRO 3
 * and 2 cost, so they are tried only when pinned; DeepSpeed runs ZeRO 2/3
 * (and FSDP) without pipeline parallelism, torch.distributed.pipelining
 * runs FSDP's modules as its stages (torchtitan's pipeline_llm shards each
 * model part, parallelize_llama.py apply_fsdp keeps them gathered under
 * PP). */
static size_t
shardings (const HrPlanRequest *request,
           int64_t              pp,
           int64_t              replicas,
           Sharding            *out)
{
  size_t n = 0;
  int zero;
  /* A family without DDP replicates nothing over several ranks. */
  bool replicated = replicas == 1 || request->sharding != HR_PLAN_SHARDING_FSDP_SHARDED;

  if (request->fsdp != HR_PLAN_FREE && request->fsdp != HR_FSDP_NONE)
    {
      if (pp == 1 || request->training.torch_pipelining)
        out[n++] = (Sharding) { 0, (HrFsdp) request->fsdp };
      return n;
    }
  /* Frozen weights get gradients through FSDP1's flat parameters
   * (hr-finetune.h): such a run is an FSDP run, in any of its modes. */
  if (request->training.finetune.frozen_gradients)
    {
      if (pp == 1 || request->training.torch_pipelining)
        {
          out[n++] = (Sharding) { 0, HR_FSDP_FULL };
          out[n++] = (Sharding) { 0, HR_FSDP_GRAD_OP };
          if (request->training.nodes > 1)
            out[n++] = (Sharding) { 0, HR_FSDP_HYBRID };
        }
      return n;
    }
  if (request->zero_stage != HR_PLAN_FREE)
    {
      if ((request->zero_stage < 2 || pp == 1) && replicated)
        out[n++] = (Sharding) { request->zero_stage, HR_FSDP_NONE };
      return n;
    }
  if (replicated)
    out[n++] = (Sharding) { 0, HR_FSDP_NONE };
  if (replicas == 1)
    return n;
  switch (request->sharding)
    {
    case HR_PLAN_SHARDING_FSDP:
    case HR_PLAN_SHARDING_FSDP_SHARDED:
      /* FSDP's modes, named as the framework runs them (their costs are
       * ZeRO 3's and 2's); not a pinned FSDP off. */
      if (request->fsdp == HR_PLAN_FREE && (pp == 1 || request->training.torch_pipelining))
        {
          out[n++] = (Sharding) { 0, HR_FSDP_FULL };
          out[n++] = (Sharding) { 0, HR_FSDP_GRAD_OP };
          if (request->training.nodes > 1)
            out[n++] = (Sharding) { 0, HR_FSDP_HYBRID };
        }
      return n;
    case HR_PLAN_SHARDING_ZERO1:
      out[n++] = (Sharding) { 1, HR_FSDP_NONE };
      return n;
    case HR_PLAN_SHARDING_ZERO:
    case HR_PLAN_SHARDING_ANY:
    default:
      for (zero = 1; zero <= 3; zero++)
        if (zero < 2 || pp == 1)
          out[n++] = (Sharding) { zero, HR_FSDP_NONE };
      if (request->sharding == HR_PLAN_SHARDING_ANY && request->fsdp == HR_PLAN_FREE && pp == 1
          && request->training.nodes > 1)
        out[n++] = (Sharding) { 0, HR_FSDP_HYBRID };
      return n;
    }
}

static HrStatus
check_request (const HrPlanRequest *request,
               HrError             *err)
{
  const HrTraining *tr = &request->training;

  if (tr->nodes <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "nodes", tr->nodes, 0, NULL);
  if (tr->gpus_per_node <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "gpus_per_node", tr->gpus_per_node, 0, NULL);
  if (tr->global_batch <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "global_batch", tr->global_batch, 0,
                         "the planner needs the sequences per step");
  if (tr->seq_len <= 0)
    return hr_error_set (err, HR_ERROR_NOT_POSITIVE, "seq_len", tr->seq_len, 0, NULL);
  /* As hr_training_validate() refuses them for one layout. */
  if (request->zero_stage != HR_PLAN_FREE && request->zero_stage != 0
      && request->fsdp != HR_PLAN_FREE && request->fsdp != HR_FSDP_NONE)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "zero_stage", request->zero_stage, 0,
                         "choose either a ZeRO stage or an FSDP mode");
  if (request->tensor_parallel < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "tensor_parallel", request->tensor_parallel, 0,
                         "0 searches it");
  if (request->pipeline_parallel < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "pipeline_parallel", request->pipeline_parallel, 0,
                         "0 searches it");
  if (request->virtual_stages < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "virtual_stages", request->virtual_stages, 0,
                         "0 searches it");
  if (request->context_parallel < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "context_parallel", request->context_parallel, 0,
                         "0 searches it");
  if (request->expert_parallel < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "expert_parallel", request->expert_parallel, 0,
                         "0 searches it");
  if (request->micro_batch < 0)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "micro_batch", request->micro_batch, 0,
                         "0 searches it");
  if (request->zero_stage < HR_PLAN_FREE || request->zero_stage > 3)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "zero_stage", request->zero_stage, 3,
                         "0-3, or free");
  if (request->fsdp < HR_PLAN_FREE || request->fsdp > HR_FSDP_HYBRID)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "fsdp", request->fsdp, HR_FSDP_HYBRID, NULL);
  if ((int) request->sharding < HR_PLAN_SHARDING_ANY
      || request->sharding > HR_PLAN_SHARDING_FSDP_SHARDED)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "sharding", (int64_t) request->sharding,
                         HR_PLAN_SHARDING_FSDP_SHARDED, NULL);
  if (request->sequence_parallel < HR_PLAN_FREE || request->sequence_parallel > 1)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "sequence_parallel",
                         request->sequence_parallel, 1, NULL);
  if (request->recompute < HR_PLAN_FREE || request->recompute > HR_RECOMPUTE_OP_SELECTIVE)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute", request->recompute,
                         HR_RECOMPUTE_OP_SELECTIVE, NULL);
  if (request->recompute_modes >= 1u << (HR_RECOMPUTE_OP_SELECTIVE + 1))
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "recompute_modes",
                         (int64_t) request->recompute_modes,
                         (1 << (HR_RECOMPUTE_OP_SELECTIVE + 1)) - 1, "bits of HrRecompute");
  if (tr->nodes > INT64_MAX / tr->gpus_per_node)
    return hr_error_set (err, HR_ERROR_OVERFLOW, "nodes", tr->nodes, tr->gpus_per_node, NULL);
  return HR_OK;
}

HrStatus
hr_plan_search (const HrModel       *model,
                const HrGpu         *gpu,
                const HrPlanRequest *request,
                HrPlanLayout        *best,
                size_t               n_best,
                HrPlanLayout        *pareto,
                size_t               n_pareto,
                HrPlanResult        *result,
                HrError             *err)
{
  Search search;
  HrTraining tr;
  HrStatus status;
  int64_t gpus, gpn, layers, tp, pp, cp, dp, ep, vs, per_replica;
  int rc, sp;

  memset (result, 0, sizeof *result);
  status = check_request (request, err);
  if (status != HR_OK)
    return status;
  status = hr_plan_context_init (&search.ctx, model, gpu, &request->assumptions, NULL, err);
  if (status != HR_OK)
    return status;
  if (request->training.finetune.frozen_gradients && request->fsdp == HR_FSDP_NONE)
    return hr_error_set (err, HR_ERROR_UNSUPPORTED, "frozen_gradients", 1, 0,
                         "frozen weights get gradients through FSDP's flat parameters: leave "
                         "FSDP to the search or set it");
  status = hr_plan_check_setting (&search.ctx, &request->training, err);
  if (status != HR_OK)
    return status;
  for (rc = HR_RECOMPUTE_NONE; rc <= HR_RECOMPUTE_OP_SELECTIVE; rc++)
    if (searches_recompute (request, rc))
      {
        status = hr_plan_context_flops (&search.ctx, &request->training, (HrRecompute) rc, err);
        if (status != HR_OK)
          return status;
      }

  search.request = request;
  search.best = best;
  search.best_size = best != NULL ? n_best : 0;
  search.pareto = pareto;
  search.pareto_size = pareto != NULL ? n_pareto : 0;
  search.result = result;
  search.divisors_of = 0;
  search.divisors = NULL;
  search.n_divisors = search.divisors_size = 0;
  memset (&search.refused, 0, sizeof search.refused);

  tr = request->training;
  if (tr.global_batch > PLAN_MAX_GLOBAL_BATCH)
    return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, "global_batch", tr.global_batch,
                         PLAN_MAX_GLOBAL_BATCH, "at most 10^12 sequences for the search");
  gpn = tr.gpus_per_node;
  gpus = tr.nodes * gpn;
  layers = model->n_layers;

  /* TP stays within a node, divides the query heads and divides or is a
   * multiple of the key/value heads (replicated then, as Megatron-Core does); PP at most the
   * layers, split as torchtitan splits them when it does not divide them; CP splits the
   * sequence into 2·cp load-balanced chunks; EP divides the experts and the
   * dp·cp ranks; the micro-batch divides each replica's share of the batch;
   * interleaving needs the micro-batches to be a multiple of pp. */
  for (tp = 1; tp <= gpn; tp++)
    {
      if (gpn % tp != 0 || pinned_out (request->tensor_parallel, tp)
          || model->n_heads % tp != 0
          || (model->n_kv_heads % tp != 0 && tp % model->n_kv_heads != 0))
        continue;
      /* pp ≤ gpus / tp: the loop never walks the layers. */
      for (pp = 1; pp <= layers && pp <= gpus / tp; pp++)
        {
          if (gpus % (tp * pp) != 0 || pinned_out (request->pipeline_parallel, pp))
            continue;
          per_replica = gpus / (tp * pp);
          /* cp splits the sequence in 2·cp chunks: at most seq_len / 2. */
          for (cp = 1; cp <= per_replica && (cp == 1 || 2 * cp <= tr.seq_len); cp++)
            {
              Sharding options[6];
              size_t n_options, o;

              if (per_replica % cp != 0 || pinned_out (request->context_parallel, cp)
                  || (cp > 1 && tr.seq_len % (2 * cp) != 0))
                continue;
              dp = per_replica / cp;
              if (tr.global_batch % dp != 0)
                continue;
              n_options = shardings (request, pp, dp * cp, options);
              for (ep = 1; ep <= tp * dp * cp && ep <= (model->n_experts > 0 ? model->n_experts : 1);
                   ep++)
                {
                  /* Whole experts on fewer TP ranks spread EP over the TP ranks too. */
                  if (hr_expert_ranks (tr.expert_tensor_parallel, tp, dp * cp) % ep != 0 || pinned_out (request->expert_parallel, ep)
                      || (model->n_experts > 0 ? model->n_experts % ep != 0 : ep != 1))
                    continue;
                  for (o = 0; o < n_options; o++)
                    {
                      bool hopeless;

                      tr.tensor_parallel = tp;
                      tr.pipeline_parallel = pp;
                      tr.context_parallel = cp;
                      tr.expert_parallel = ep;
                      tr.zero_stage = options[o].zero_stage;
                      tr.fsdp = options[o].fsdp;
                      hopeless = !may_fit (&search, &tr, dp);
                      for (vs = 1; vs <= (pp < 2 ? 1 : PLAN_MAX_VIRTUAL_STAGES)
                                   && pp * vs <= layers + 2;
                           vs++)
                        {
                          /* Stages need not divide the layers
                           * (docs/training.md, "Pipelines"); the search
                           * tries the chunk counts that do and 2,
                           * torchtitan's stages per rank for its looped
                           * schedules (pipeline_parallel.py,
                           * _get_pipeline_metadata). */
                          if (pinned_out (request->virtual_stages, vs)
                              || (vs > 2 && layers % (pp * vs) != 0))
                            continue;
                          for (rc = HR_RECOMPUTE_NONE; rc <= HR_RECOMPUTE_OP_SELECTIVE; rc++)
                            {
                              if (!searches_recompute (request, rc))
                                continue;
                              for (sp = 0; sp <= 1; sp++)
                                {
                                  if ((sp == 1 && tp == 1)
                                      || (request->sequence_parallel != HR_PLAN_FREE
                                          && request->sequence_parallel != sp))
                                    continue;
                                  tr.sequence_parallel = sp == 1;
                                  /* Async TP where it applies (hr_training_validate()). */
                                  tr.async_tp = request->training.async_tp && request->training.compile && sp == 1;
                                  tr.pipeline_schedule = vs > 1 ? HR_PIPELINE_INTERLEAVED
                                                                : one_chunk_schedule (request);
                                  tr.virtual_stages = vs;
                                  tr.recompute = (HrRecompute) rc;
                                  try_micro_batches (&search, &tr, dp, hopeless);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
  free (search.divisors);
  if (result->searched == 0 && search.refused.status != HR_OK)
    {
      if (err != NULL)
        *err = search.refused;
      return search.refused.status;
    }
  return HR_OK;
}
