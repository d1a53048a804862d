/* hr-training-pipeline.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pipeline: which layers each stage holds and how many micro-batches
 * its schedule keeps in flight, the interleaved schedule walked chunk by
 * chunk (docs/training.md).
 *
 * Sources, cited where used:
 * [MLM]   Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
 *         on GPU Clusters Using Megatron-LM", arXiv 2104.04473.
 * [SP]    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 *         Transformer Models", arXiv 2205.05198.
 */
#include "hr-training.h"
#include "hr-internal.h"

#include <math.h>
#include <string.h>

/* Stages */

bool
hr_training_even_stages (const HrTraining *t,
                         int64_t           n_layers)
{
  return t->pipeline_parallel <= 1
         || (t->pp_first_stage_layers == 0 && t->pp_last_stage_layers == 0 && !t->torch_pipelining
             && n_layers % (t->pipeline_parallel * t->virtual_stages) == 0);
}

/* Layers of stage k of n_stages without first and last sizes,
 * [*first, *first + count):
 * - `even` (hr_training_even_stages()): L / n_stages each;
 * - otherwise torchtitan's split, which counts the embedding and the norm
 *   with the output as one layer each and gives the remainder to the first
 *   stages (torchtitan/distributed/pipeline_parallel.py,
 *   _generate_llm_fqn_per_model_part, its first and last stage "less
 *   layers" at their default 1). torchtitan splits so even when the stages
 *   divide the layers: 32 on 4 stages are 8, 9, 8, 7. Llama 3.1 405B's 126
 *   layers on 16 stages are 7, 8 × 14, 7, as the checked H100 runs'
 *   generate_split_points made them too. */
static int64_t
split_stage (int64_t  n_layers,
             int64_t  n_stages,
             int64_t  k,
             bool     even,
             int64_t *first)
{
  int64_t units, per, extra, count;

  if (even)
    {
      *first = k * (n_layers / n_stages);
      return n_layers / n_stages;
    }
  units = n_layers + 2;
  per = units / n_stages;
  extra = units % n_stages;
  /* Units before stage k: k · per + min(k, extra); the embedding is the
   * first stage's first unit. */
  *first = k * per + (k < extra ? k : extra) - (k > 0 ? 1 : 0);
  count = per + (k < extra ? 1 : 0) - (k == 0) - (k == n_stages - 1);
  if (*first > n_layers)
    *first = n_layers;
  if (count > n_layers - *first)
    count = n_layers - *first;
  return count > 0 ? count : 0;
}

/* Layers of pipeline rank `stage` over all its chunks, [*first, *first +
 * count) counted as if they were contiguous (Megatron's first and last
 * stage sizes):
 * - Megatron's --decoder-first-pipeline-num-layers and
 *   --decoder-last-pipeline-num-layers: the first and last stages hold what
 *   is asked, the others share the rest evenly
 *   (megatron/core/transformer/transformer_block.py, get_num_layers_to_build);
 * - otherwise split_stage() over the pp stages. */
static int64_t
stage_layers (const HrTraining *t,
              int64_t           n_layers,
              int64_t           stage,
              int64_t          *first)
{
  int64_t pp = t->pipeline_parallel;

  if (t->pp_first_stage_layers > 0 || t->pp_last_stage_layers > 0)
    {
      int64_t fixed = (t->pp_first_stage_layers > 0) + (t->pp_last_stage_layers > 0);
      int64_t rest = n_layers - t->pp_first_stage_layers - t->pp_last_stage_layers;
      int64_t mid = pp > fixed ? rest / (pp - fixed) : 0;
      int64_t head = t->pp_first_stage_layers > 0 ? t->pp_first_stage_layers : mid;

      *first = stage == 0 ? 0 : head + (stage - 1) * mid;
      if (stage == 0)
        return head;
      if (stage == pp - 1 && t->pp_last_stage_layers > 0)
        return t->pp_last_stage_layers;
      return mid;
    }
  return split_stage (n_layers, pp, stage, hr_training_even_stages (t, n_layers), first);
}

/* Chunk j (0 … v − 1) of rank `stage`: its first layer and layer count.
 * The looped assignment: rank s runs stages s, s + pp, …, s + (v − 1)·pp of
 * the pp · v (Megatron [MLM] §2.2.1; torch.distributed.pipelining
 * _get_pp_rank_to_stage_indices_mapping, style "loop", in torchtitan's
 * pipeline_parallel.py). With Megatron's first and last stage sizes each
 * rank's layers are cut into v equal chunks, chunk j of every rank inside
 * model chunk j (megatron/core/transformer/transformer_layer.py,
 * get_transformer_layer_offset); otherwise the pp · v stages are split by
 * split_stage(). */
int64_t
hr_training_stage_chunk (const HrTraining *t,
                         int64_t           n_layers,
                         int64_t           stage,
                         int64_t           j,
                         int64_t          *first)
{
  int64_t v = t->virtual_stages, count;

  if (v <= 1)
    return stage_layers (t, n_layers, stage, first);
  if (t->pp_first_stage_layers > 0 || t->pp_last_stage_layers > 0)
    {
      count = stage_layers (t, n_layers, stage, first) / v;
      *first = j * (n_layers / v) + *first / v;
      return count;
    }
  return split_stage (n_layers, t->pipeline_parallel * v, j * t->pipeline_parallel + stage,
                      hr_training_even_stages (t, n_layers), first);
}

static int64_t
min_i64 (int64_t a,
         int64_t b)
{
  return a < b ? a : b;
}

double
hr_training_recompute_skipped (const HrTraining *training,
                               const HrModel    *model)
{
  int64_t n = model->n_layers, v = training->virtual_stages > 1 ? training->virtual_stages : 1;
  int64_t chunks = training->pipeline_parallel * v, covered = 0, first;

  /* Settings validation refuses are left to it. */
  if (training->recompute == HR_RECOMPUTE_NONE || n <= 0 || training->pipeline_parallel <= 0
      || chunks > n)
    return 0;
  /* activation_checkpoint.py: blocks i with (i + 1) mod k = 0 */
  if (training->recompute_every > 1)
    return 1.0 - (double) (n / training->recompute_every) / (double) n;
  if (training->recompute_layers <= 0)
    return 0;
  if (hr_training_even_stages (training, n))
    covered = chunks * min_i64 (training->recompute_layers, n / chunks);
  else
    for (int64_t stage = 0; stage < training->pipeline_parallel; stage++)
      for (int64_t j = 0; j < v; j++)
        covered += min_i64 (training->recompute_layers,
                            hr_training_stage_chunk (training, n, stage, j, &first));
  return 1.0 - (double) covered / (double) n;
}

int64_t
hr_training_stage_layers (const HrTraining *training,
                          const HrModel    *model,
                          int64_t           stage)
{
  int64_t n = 0;

  if (training->pipeline_parallel <= 1)
    return model->n_layers;
  for (int64_t j = 0; j < training->virtual_stages; j++)
    {
      int64_t first;

      n += hr_training_stage_chunk (training, model->n_layers, stage, j, &first);
    }
  return n;
}

/* Schedules */

bool
hr_training_interleaved_micro_batches (const HrTraining *training,
                                       int64_t           m)
{
  int64_t pp = training->pipeline_parallel;

  if (m < pp)
    return false;
  return training->torch_pipelining ? m % (m / pp) == 0 : m % pp == 0;
}

/* Micro-batches of a round of the interleaved schedule, which runs each
 * chunk for a round before the next (torch ScheduleInterleaved1F1B
 * microbatches_per_round; Megatron: pp). */
static int64_t
round_size (const HrTraining *t)
{
  int64_t m = hr_training_grad_accumulation (t), rounds = m / t->pipeline_parallel;

  return rounds > 1 ? m / rounds : m;
}

/* Micro-batches whose activations stage `stage` holds at once, in units of
 * all its layers. 1F1B: stage i warms up with pp − i forwards ([MLM] §2.2.1);
 * GPipe keeps all m. The interleaved schedule counts chunk by chunk
 * (hr_training_interleaved_peak). */
double
hr_training_in_flight (const HrTraining *t,
                       int64_t           stage)
{
  double m = (double) hr_training_grad_accumulation (t);
  double pp = (double) t->pipeline_parallel;
  double n;

  if (t->pipeline_parallel == 1)
    return 1;
  if (t->pipeline_schedule == HR_PIPELINE_GPIPE)
    return m;
  n = pp - (double) stage;
  return n < m ? n : m;
}

/* Forwards of chunk j among the rank's first n, or backwards of chunk j
 * among its first n when `backward`: rounds of r micro-batches (round_size),
 * chunk (t / r) mod v for the forwards and v − 1 − (t / r) mod v for the
 * backwards (Megatron schedules.py get_model_chunk_id, r = pp; torch
 * ScheduleInterleaved1F1B forward_stage_index and backward_stage_index). */
static int64_t
chunk_ops (int64_t r,
           int64_t v,
           int64_t j,
           int64_t n,
           bool    backward)
{
  int64_t period = r * v, rest = n % period - (backward ? v - 1 - j : j) * r;

  return n / period * r + (rest < 0 ? 0 : rest > r ? r : rest);
}

/* One micro-batch of chunk j of rank `stage`: what its backward frees by
 * the chunk's first layer (*freed: the layers' saved tensors, the head's on
 * the model's last stage) and, with the embedding's and the kept stage
 * output (hr_training_stage_activations), all it holds. `alike`, when not negative, is
 * what the layers of each of the rank's chunks save. */
static double
chunk_micro_batch (const HrModel               *model,
                   const HrTraining            *training,
                   const HrActShape            *a,
                   const HrLayerKinds          *kinds,
                   const HrTrainingActivations *act,
                   int64_t                      graph_start,
                   int64_t                      stage,
                   int64_t                      j,
                   double                       alike,
                   double                      *freed)
{
  int64_t pp = training->pipeline_parallel, v = training->virtual_stages;
  int64_t count[2] = { 0, 0 };
  bool last = stage == pp - 1 && j == v - 1;
  double output = 0;

  if (hr_training_torch_pipelining (training))
    output = last ? a->tokens * ceil ((double) model->vocab_size
                                      / (double) training->tensor_parallel) * a->compute
                  : a->tokens * a->h_rep * a->residual;
  *freed = (alike >= 0 ? alike : hr_training_chunk_layer_bytes (model, training, kinds, graph_start,
                                                                stage, j, count))
           + (last ? act->final_norm + act->lm_head + act->loss : 0);
  return *freed + (stage == 0 && j == 0 ? act->embedding : 0) + output;
}

/* chunk_micro_batch() of one rank's chunks, the first CHUNK_MEMO of them
 * worked out once: the schedule's walk asks for each several times. */
#define CHUNK_MEMO 64

typedef struct
{
  const HrModel               *model;
  const HrTraining            *training;
  const HrActShape              *a;
  const HrLayerKinds            *kinds;
  const HrTrainingActivations *act;
  int64_t                      graph_start;
  int64_t                      stage;
  double                       alike;  /* chunk_micro_batch()'s */
  double                       held[CHUNK_MEMO];
  double                       freed[CHUNK_MEMO];
  bool                         have[CHUNK_MEMO];
} Chunks;

static double
chunk_held (Chunks  *c,
            int64_t  j,
            double  *freed)
{
  if (j >= CHUNK_MEMO)
    return chunk_micro_batch (c->model, c->training, c->a, c->kinds, c->act, c->graph_start,
                              c->stage, j, c->alike, freed);
  if (!c->have[j])
    {
      c->held[j] = chunk_micro_batch (c->model, c->training, c->a, c->kinds, c->act,
                                      c->graph_start, c->stage, j, c->alike, &c->freed[j]);
      c->have[j] = true;
    }
  *freed = c->freed[j];
  return c->held[j];
}

/* The interleaved 1F1B schedule on rank s (Megatron schedules.py
 * forward_backward_pipelining_with_interleaving; torch
 * ScheduleInterleaved1F1B, _get_1f1b_rank_ops), in rounds of r
 * micro-batches (round_size: pp when pp divides m): W = min((v − 1)·r +
 * 2(pp − s − 1), m·v) forwards of a chunk and a micro-batch warm up, then
 * each forward is followed by a backward. After the k-th forward (k ≥ W)
 * the rank holds forwards 0 … k less backwards 0 … k − W − 1, chunk by
 * chunk (chunk_ops). From one forward to the next the saved bytes change by
 * the forward's chunk less the backward's, both fixed over runs of steps,
 * and repeat every r·v steps: the peak is at the end of such a run within
 * one period. Equal chunks give (W + 1)/v micro-batches of the rank's
 * layers, [SP] §4.2.3's 2(pp − s − 1) + (v − 1)·pp + 1 chunk forwards. */
void
hr_training_interleaved_peak (const HrModel               *model,
                              const HrTraining            *training,
                              const HrActShape            *a,
                              const HrLayerKinds          *kinds,
                              const HrTrainingActivations *act,
                              int64_t                      stage,
                              HrInterleavedPeak           *peak)
{
  int64_t pp = training->pipeline_parallel, v = training->virtual_stages;
  int64_t m = hr_training_grad_accumulation (training);
  int64_t r = round_size (training);
  int64_t warmup = (v - 1) * r + 2 * (pp - stage - 1);
  int64_t k, end, at, back;
  double total = 0, freed;
  Chunks c;

  c.model = model;
  c.training = training;
  c.a = a;
  c.kinds = kinds;
  c.act = act;
  c.graph_start = hr_training_first_layer_in_graph (training, model->n_layers);
  c.stage = stage;
  /* Chunks of one size whose layers all save alike (one layer kind, all in
   * autograd's graph, recomputed alike) share the rank's layers evenly. */
  c.alike = model->n_experts == 0 && c.graph_start == 0 && training->recompute_every <= 1
            && (hr_training_even_stages (training, model->n_layers)
                || training->pp_first_stage_layers > 0 || training->pp_last_stage_layers > 0)
            ? act->layers_total / (double) v : -1;
  memset (c.have, 0, sizeof c.have);
  if (warmup > m * v)
    warmup = m * v;
  /* After the forward of step `warmup` (or the last, when the warm-up is
   * all of them): no backward yet. */
  k = warmup < m * v ? warmup : m * v - 1;
  for (int64_t j = 0; j < v; j++)
    total += (double) chunk_ops (r, v, j, k + 1, false) * chunk_held (&c, j, &freed);
  peak->activations = total;
  at = k;
  end = warmup + r * v < m * v ? warmup + r * v - 1 : m * v - 1;
  while (k < end)
    {
      int64_t done = k - warmup;  /* the backward between this forward and the next */
      int64_t jf = ((k + 1) / r) % v, jb = v - 1 - (done / r) % v;
      int64_t run = r - (k + 1) % r;

      if (r - done % r < run)
        run = r - done % r;
      if (end - k < run)
        run = end - k;
      if (jf != jb)
        total += (double) run * (chunk_held (&c, jf, &freed) - chunk_held (&c, jb, &freed));
      k += run;
      if (total > peak->activations)
        {
          peak->activations = total;
          at = k;
        }
    }

  /* The backward that follows the peak, and the chunks in flight there. */
  back = at - warmup > 0 ? at - warmup : 0;
  chunk_held (&c, v - 1 - (back / r) % v, &peak->freed);
  peak->inputs = 0;
  for (int64_t j = 0; j < v; j++)
    if (j * pp + stage > 0)
      peak->inputs += (double) (chunk_ops (r, v, j, at + 1, false)
                                - chunk_ops (r, v, j, back, true));
}

/* torch.distributed.pipelining runs every backward of a stage but its last
 * without gradient sync or resharding, and at its last FSDP's post_backward,
 * which reduce-scatters the gradients and frees the unsharded ones
 * (stage.py, backward_maybe_with_nosync; last_backward per stage in
 * PipelineScheduleMulti). Each of a rank's stages is its own FSDP module
 * (torchtitan applies fully_shard to each model part), so it holds its
 * unsharded gradients from its first backward to its last, then their
 * shards. With one round of micro-batches (m < 2·pp, round_size) the
 * interleaved schedule runs chunk v − 1's backwards for all m, then chunk
 * v − 2's, … (chunk_ops):
 * the windows do not overlap, and the rank holds one chunk's unsharded
 * gradients at most, with the shards of the chunks after it. Chunks share
 * `gradients` (the rank's, unsharded) by their parameters: their layers, and
 * the embedding or the head where they hold it. */
double
hr_training_interleaved_fsdp_gradients (const HrModel          *model,
                                        const HrTraining       *training,
                                        const HrParams         *params,
                                        int64_t                 stage,
                                        const HrTrainingMemory *memory)
{
  int64_t pp = training->pipeline_parallel, v = training->virtual_stages;
  double total = (double) (memory->rank.params + memory->rank.expert_params);
  double after = 0, most = 0;
  HrRankLayerParams r;
  HrShardGroups g;

  hr_training_shard_groups (training, &g);
  hr_training_rank_layer_params (model, training, params, &r);
  for (int64_t j = v - 1; j >= 0; j--)
    {
      HrLayerCounts c;
      int64_t first, n = hr_training_stage_chunk (training, model->n_layers, stage, j, &first);
      double chunk, grads;

      hr_model_count_layers (model, first, first + n, &c);
      chunk = (double) (r.dense * (c.n[0][0] + c.n[0][1])
                        + (r.moe + r.moe_experts) * (c.n[1][0] + c.n[1][1]));
      if ((stage == 0 && j == 0) || (stage == pp - 1 && j == v - 1))
        chunk += (double) memory->rank.outside_layers;
      grads = memory->gradients * chunk / total;
      if (grads + after > most)
        most = grads + after;
      after += grads / g.dense;
    }
  return most;
}
