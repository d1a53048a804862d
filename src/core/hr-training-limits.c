/* hr-training-limits.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The limits of a setting (largest micro-batch, longest sequence, fewest
 * GPUs), searched over the memory estimate, and the combined estimate
 * (docs/training.md).
 */
#include "hr-training.h"
#include "hr-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Search bounds of hr_training_limits(). */
#define LIMIT_MAX_MICRO_BATCH (INT64_C (1) << 20)
#define LIMIT_MAX_SEQ_LEN (INT64_C (1) << 24)
#define LIMIT_MAX_DATA_PARALLEL (INT64_C (1) << 16)

/* What every probe of a search shares: the model, its fine-tuning and the
 * GPU are checked once, the model's parameters counted once, and half of
 * each examined stage of the setting's own estimate kept (HrStageCache). */
typedef struct
{
  const HrModel    *model;
  const HrTraining *training;
  const HrGpu      *gpu;
  HrParams          params;
  HrStageCache        cache;
} Search;

/* Bytes the GPU must hold for t, the setting with another data-parallel
 * degree, or +inf when that is invalid: what hr_training_memory() gives
 * (less what is pageable), with only the checks the degree can fail. */
static double
dp_bytes (Search           *s,
          const HrTraining *t)
{
  HrTrainingMemory memory;

  if (hr_training_validate_settings (t, NULL) != HR_OK
      || hr_training_validate_layout (t, s->model, NULL) != HR_OK)
    return INFINITY;
  hr_training_stages_memory (s->model, t, &s->params, &s->cache, HR_KEEP_ACTIVATIONS, &memory);
  return memory.total - memory.pageable;
}

static bool
fits (Search           *s,
      const HrTraining *training)
{
  return dp_bytes (s, training) <= s->gpu->memory_bytes;
}

/* Bytes at n (micro-batch or sequence units), +inf when invalid; memory is
 * nondecreasing in n. `memory` (or NULL) receives the estimate. */
typedef double (*Probe) (Search *, int64_t, HrTrainingMemory *);

/* Where the bytes reach `capacity`, solved from the estimate at n as if
 * what each phase adds for its activations (and the loss's buffers) were
 * proportional to n and nothing else grew (`growing`, set by phases()):
 * the first guess of largest(). The activations scale with the tokens
 * b·s; eager attention's s² scores make the sequence's guess high, which
 * the secant then corrects.
 * Rounding, overhead and paged states are held as they are at n. */
static double
proportional_guess (const HrTrainingMemory *m,
                    int64_t                 n,
                    double                  capacity)
{
  double room = capacity - (m->total - m->pageable - m->allocated_peak);
  double peaks[3] = { m->peak_forward, m->peak_loss_backward, m->peak_layer_backward };
  double guess = INFINITY;

  for (int p = 0; p < 3; p++)
    if (m->growing[p] > 0)
      {
        double at = (double) n * (1 + (room - peaks[p]) / m->growing[p]);

        if (at < guess)
          guess = at;
      }
  return guess;
}

/* Largest n in [1, max] with probe(n) <= capacity, for probe nondecreasing;
 * 0 when none fits. `known` (or NULL) is the estimate at n = `start`, the
 * setting itself, else n = 1 is probed first. The first guess solves that
 * estimate for the capacity (proportional_guess()); the memory is affine in
 * the micro-batch and at most quadratic in the sequence, so it lands on the
 * answer or next to it, and the n after a guess that fits is probed at
 * once. Later guesses are secant steps through the last two probes. Each
 * probe only narrows the bracket [lo, hi) (lo fits or is 0, hi does not),
 * so the result is the bisection's whatever the shape; a bisection closes a
 * bracket the guesses have not closed in a few steps. */
static int64_t
largest (Probe                   probe,
         Search                 *s,
         int64_t                 max,
         int64_t                 start,
         const HrTrainingMemory *known)
{
  double capacity = s->gpu->memory_bytes;
  HrTrainingMemory at_one;
  int64_t lo = 0, hi = max + 1;
  int64_t n0, n1;
  double m0, m1, guess;

  if (max < 1)
    return 0;
  if (known == NULL || start < 1 || start > max)
    {
      start = 1;
      m0 = probe (s, 1, &at_one);
      known = &at_one;
      if (!isfinite (m0))
        return 0;
    }
  else
    m0 = known->total - known->pageable;
  if (m0 <= capacity)
    lo = start;
  else
    hi = start;
  if (hi - lo <= 1)
    return lo;
  guess = proportional_guess (known, start, capacity);
  n0 = n1 = start;
  m1 = m0;

  for (int step = 0; step < 6 && hi - lo > 1; step++)
    {
      int64_t g;
      double mg;

      if (step > 0)
        {
          double slope = (m1 - m0) / (double) (n1 - n0);

          guess = slope > 0 && isfinite (m0) && isfinite (m1)
                  ? (double) n1 + (capacity - m1) / slope : (double) hi;
        }
      if (!(guess < (double) hi))
        guess = (double) (hi - 1);
      g = guess > (double) lo ? (int64_t) floor (guess) : lo + 1;
      if (g <= lo)
        g = lo + 1;
      if (g >= hi)
        g = hi - 1;
      mg = probe (s, g, NULL);
      if (mg <= capacity)
        {
          lo = g;
          /* The answer is often the guess itself: try the next one at once. */
          if (g + 1 < hi)
            {
              double next = probe (s, g + 1, NULL);

              if (next <= capacity)
                lo = g + 1;
              else
                hi = g + 1;
              n0 = g;
              m0 = mg;
              n1 = g + 1;
              m1 = next;
              continue;
            }
        }
      else
        hi = g;
      if (n1 != g)
        {
          n0 = n1;
          m0 = m1;
        }
      n1 = g;
      m1 = mg;
    }

  while (hi - lo > 1)
    {
      int64_t mid = lo + (hi - lo) / 2;

      if (probe (s, mid, NULL) <= capacity)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* Bytes for the setting changed by a probe of the micro-batch or the
 * sequence, which no check can fail (the setting itself passed them all):
 * the model states are the setting's. */
static double
states_kept_bytes (Search           *s,
                   const HrTraining *t,
                   HrTrainingMemory *memory)
{
  HrTrainingMemory scratch;

  if (memory == NULL)
    memory = &scratch;
  hr_training_stages_memory (s->model, t, &s->params, &s->cache, HR_KEEP_STATES, memory);
  return memory->total - memory->pageable;
}

/* Keeps the gradient-accumulation steps: global = micro × dp × steps, still
 * a multiple of micro × dp; +inf where that overflows. */
static double
micro_batch_bytes (Search           *s,
                   int64_t           micro_batch,
                   HrTrainingMemory *memory)
{
  const HrTraining *training = s->training;
  HrTraining t = *training;

  t.micro_batch = micro_batch;
  if (training->global_batch > 0
      && (__builtin_mul_overflow (micro_batch, hr_training_dp (training),
                                  &t.global_batch)
          || __builtin_mul_overflow (t.global_batch, hr_training_grad_accumulation (training),
                                     &t.global_batch)))
    return INFINITY;
  return states_kept_bytes (s, &t, memory);
}

/* The sequence in units of what CP and SP must divide. */
static int64_t
seq_unit (const HrTraining *training)
{
  return training->context_parallel
         * (training->sequence_parallel ? training->tensor_parallel : 1);
}

/* In units of seq_unit(): the sequence stays divisible. */
static double
seq_bytes (Search           *s,
           int64_t           units,
           HrTrainingMemory *memory)
{
  const HrTraining *training = s->training;
  HrTraining t = *training;

  t.seq_len = units * seq_unit (training);
  return states_kept_bytes (s, &t, memory);
}

/* The same layout (tp, pp, cp, ep, schedule) with data-parallel degree dp,
 * whole nodes once it outgrows one. */
static bool
with_data_parallel (const HrTraining *training,
                    int64_t           dp,
                    HrTraining       *t)
{
  int64_t gpus = training->tensor_parallel * training->pipeline_parallel
                 * training->context_parallel * dp;

  *t = *training;
  if (gpus <= training->gpus_per_node)
    {
      t->nodes = 1;
      t->gpus_per_node = gpus;
    }
  else if (gpus % training->gpus_per_node == 0)
    t->nodes = gpus / training->gpus_per_node;
  else
    return false;
  return true;
}

/* The data-parallel degrees up to LIMIT_MAX_DATA_PARALLEL the layout can
 * take, ascending: whole nodes once it outgrows one, and with a global batch
 * set, the divisors of global ÷ micro-batch (hr_training_validate()). */
typedef struct
{
  int64_t *divisors;            /* global batch set: the degrees; else NULL */
  int64_t  n;
  int64_t  in_node;             /* no global batch: degrees 1..in_node fit one node */
  int64_t  step;                /* then multiples of step from first_j on */
  int64_t  first_j;
} DpCandidates;

static int64_t
gcd64 (int64_t a,
       int64_t b)
{
  while (b != 0)
    {
      int64_t r = a % b;

      a = b;
      b = r;
    }
  return a;
}

static int
compare_int64 (const void *a,
               const void *b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

  return (x > y) - (x < y);
}

static void
dp_candidates_init (DpCandidates     *c,
                    const HrTraining *training)
{
  int64_t unit = training->tensor_parallel * training->pipeline_parallel
                 * training->context_parallel;
  int64_t gpn = training->gpus_per_node;
  HrTraining t;

  memset (c, 0, sizeof *c);
  c->in_node = unit <= gpn ? gpn / unit : 0;
  c->step = gpn / gcd64 (unit, gpn);
  c->first_j = c->in_node / c->step + 1;
  if (training->global_batch <= 0)
    {
      c->n = c->in_node + (LIMIT_MAX_DATA_PARALLEL / c->step - c->first_j + 1);
      return;
    }
  {
    int64_t q = training->global_batch / training->micro_batch;
    size_t size = 64;

    c->divisors = malloc (size * sizeof *c->divisors);
    for (int64_t i = 1; c->divisors != NULL && i <= LIMIT_MAX_DATA_PARALLEL && i <= q / i; i++)
      {
        int64_t pair[2] = { i, q / i };

        if (q % i != 0)
          continue;
        for (int k = 0; k < (pair[0] == pair[1] ? 1 : 2); k++)
          {
            /* The interleaved schedule's micro-batches per step, q ÷ dp
             * (hr_training_validate()). */
            if (pair[k] > LIMIT_MAX_DATA_PARALLEL || !with_data_parallel (training, pair[k], &t)
                || (training->pipeline_schedule == HR_PIPELINE_INTERLEAVED
                    && !hr_training_interleaved_micro_batches (training, q / pair[k])))
              continue;
            if ((size_t) c->n == size)
              {
                int64_t *grown = realloc (c->divisors, 2 * size * sizeof *grown);

                if (grown == NULL)
                  break;
                c->divisors = grown;
                size *= 2;
              }
            c->divisors[c->n++] = pair[k];
          }
      }
    if (c->divisors == NULL)
      c->n = 0;
    else
      qsort (c->divisors, (size_t) c->n, sizeof *c->divisors, compare_int64);
  }
}

static int64_t
dp_candidate (const DpCandidates *c,
              int64_t             index)
{
  if (c->divisors != NULL)
    return c->divisors[index];
  if (index < c->in_node)
    return index + 1;
  return (c->first_j + index - c->in_node) * c->step;
}

/* The index of degree `dp` among the candidates, −1 when it is not one. */
static int64_t
dp_index (const DpCandidates *c,
          int64_t             dp)
{
  int64_t lo = 0, hi = c->n;

  while (hi > lo)
    {
      int64_t mid = lo + (hi - lo) / 2;

      if (dp_candidate (c, mid) < dp)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < c->n && dp_candidate (c, lo) == dp ? lo : -1;
}

/* Starts a search of a validated setting on a checked GPU, the model's
 * parameters counted: the setting's own memory, kept in the cache, goes to
 * `memory` (hr_training_memory()'s). */
static void
search_init (Search           *s,
             const HrModel    *model,
             const HrTraining *training,
             const HrGpu      *gpu,
             HrTrainingMemory *memory)
{
  s->model = model;
  s->training = training;
  s->gpu = gpu;
  hr_training_stages_memory (model, training, &s->params, &s->cache, HR_KEEP_NOTHING, memory);
  hr_training_memory_against (gpu, memory);
}

/* The limits of the search's setting, whose memory is `at`: a point of all
 * three searches. */
static void
limits_of (Search                 *s,
           const HrTrainingMemory *at,
           HrTrainingLimits       *limits)
{
  const HrModel *model = s->model;
  const HrTraining *training = s->training;
  const HrGpu *gpu = s->gpu;
  int64_t max_units, unit;

  limits->max_micro_batch = largest (micro_batch_bytes, s, LIMIT_MAX_MICRO_BATCH,
                                     training->micro_batch, at);

  /* A learned position table bounds the sequence too. */
  max_units = LIMIT_MAX_SEQ_LEN;
  if (model->positions == HR_POSITIONS_LEARNED && model->max_positions < max_units)
    max_units = model->max_positions;
  unit = seq_unit (training);
  limits->max_seq_len = largest (seq_bytes, s, max_units / unit,
                                 training->seq_len % unit == 0 ? training->seq_len / unit : 0,
                                 at) * unit;

  {
    DpCandidates c;
    HrTraining t;
    /* The bracket over the candidates' indices: lo does not fit (or is −1),
     * hi fits (or is c.n: none known to). */
    int64_t lo = -1, hi, dp, at_index;
    /* Two points of M(dp) for the guess, as (dp, bytes). */
    double d[2] = { 0, 0 }, m[2] = { 0, 0 };
    int n_points = 0;

    /* Memory does not grow with the data-parallel degree (more sharding,
     * fewer micro-batches in flight), so the fewest GPUs is a bisection over
     * the degrees the layout can take. The setting's own degree starts the
     * bracket; the largest is probed only when that does not fit. */
    dp_candidates_init (&c, training);
    hi = c.n;
    at_index = dp_index (&c, hr_training_dp (training));
    if (at_index >= 0)
      {
        d[n_points] = (double) hr_training_dp (training);
        m[n_points++] = at->total - at->pageable;
        if (at->total - at->pageable <= gpu->memory_bytes)
          hi = at_index;
        else
          lo = at_index;
      }
    if (hi == c.n && lo < c.n - 1 && c.n > 0)
      {
        dp = dp_candidate (&c, c.n - 1);
        if (with_data_parallel (training, dp, &t)
            && (m[n_points] = dp_bytes (s, &t)) <= gpu->memory_bytes)
          {
            d[n_points++] = (double) dp;
            hi = c.n - 1;
          }
      }
    if (hi < c.n)
      {
        /* The sharded states fall as 1/dp: M(dp) ≈ A + B/dp through two
         * points guesses the edge; it and the degree before it are probed,
         * and the bisection closes what is left. The first degree is the
         * second point where the setting gave one. */
        if (n_points == 1 && hi - lo > 2 && lo < 0
            && with_data_parallel (training, dp_candidate (&c, 0), &t))
          {
            d[1] = (double) dp_candidate (&c, 0);
            m[1] = dp_bytes (s, &t);
            if (m[1] <= gpu->memory_bytes)
              hi = 0;
            else
              {
                lo = 0;
                n_points = 2;
              }
          }
        if (n_points == 2 && hi - lo > 2 && isfinite (m[0]) && isfinite (m[1]) && d[0] != d[1])
          {
            double b = (m[1] - m[0]) / (1.0 / d[1] - 1.0 / d[0]);
            double a = m[0] - b / d[0];
            double guess = gpu->memory_bytes > a && b > 0
                           ? b / (gpu->memory_bytes - a) : (double) dp_candidate (&c, hi);
            int64_t at_lo = lo, at_hi = hi;

            /* The first candidate at or above the guess. */
            while (at_hi - at_lo > 1)
              {
                int64_t mid = at_lo + (at_hi - at_lo) / 2;

                if ((double) dp_candidate (&c, mid) >= guess)
                  at_hi = mid;
                else
                  at_lo = mid;
              }
            if (at_hi < hi)
              {
                if (with_data_parallel (training, dp_candidate (&c, at_hi), &t) && fits (s, &t))
                  {
                    hi = at_hi;
                    if (at_hi - 1 > lo
                        && !(with_data_parallel (training, dp_candidate (&c, at_hi - 1), &t)
                             && fits (s, &t)))
                      lo = at_hi - 1;
                  }
                else
                  lo = at_hi;
              }
          }
        while (hi - lo > 1)
          {
            int64_t mid = lo + (hi - lo) / 2;

            dp = dp_candidate (&c, mid);
            if (with_data_parallel (training, dp, &t) && fits (s, &t))
              hi = mid;
            else
              lo = mid;
          }
        dp = dp_candidate (&c, hi);
        with_data_parallel (training, dp, &t);
        limits->min_gpus = hr_training_gpus (&t);
        limits->min_gpus_tensor_parallel = t.tensor_parallel;
        limits->min_gpus_pipeline_parallel = t.pipeline_parallel;
        limits->min_gpus_data_parallel = dp;
      }
    free (c.divisors);
  }
}

HrStatus
hr_training_limits (const HrModel    *model,
                    const HrTraining *training,
                    const HrGpu      *gpu,
                    HrTrainingLimits *limits,
                    HrError          *err)
{
  HrStatus status;
  Search s;
  HrTrainingMemory at;

  memset (limits, 0, sizeof *limits);
  if ((status = hr_training_check_setting (model, training, gpu, false, &s.params, err)) != HR_OK)
    return status;
  search_init (&s, model, training, gpu, &at);
  limits_of (&s, &at, limits);
  return HR_OK;
}

HrStatus
hr_training_estimate (const HrModel    *model,
                      const HrTraining *training,
                      const HrGpu      *gpu,
                      HrTrainingMemory *memory,
                      HrTrainingTime   *time,
                      HrTrainingLimits *limits,
                      HrError          *err)
{
  HrStatus status;
  Search s;

  memset (time, 0, sizeof *time);
  if (limits != NULL)
    memset (limits, 0, sizeof *limits);
  /* hr_training_memory()'s checks, then what hr_training_time() adds. */
  if ((status = hr_training_check_setting (model, training, gpu, false, &s.params, err)) != HR_OK)
    return status;
  search_init (&s, model, training, gpu, memory);
  if ((status = hr_training_check_gpu (training, gpu, true, err)) != HR_OK
      || (status = hr_training_time_of (model, training, gpu, &s.params, memory, time,
                                        err)) != HR_OK)
    return status;
  if (limits != NULL)
    limits_of (&s, memory, limits);
  return HR_OK;
}
