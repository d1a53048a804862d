/* test-planner-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout search (hr-planner-search.c): ranking, pins, counts and errors.
 */
#include "test-planner.h"

static void
llama_7b (HrModel *m)
{
  hr_model_init (m);
  m->n_layers = 32;
  m->hidden_size = 4096;
  m->n_heads = m->n_kv_heads = 32;
  m->head_dim = 128;
  m->ffn_size = 11008;
  m->ffn_kind = HR_FFN_GATED;
  m->vocab_size = 32000;
  m->positions = HR_POSITIONS_ROTARY;
  m->max_positions = 4096;
  m->norm_kind = HR_NORM_RMSNORM;
  m->norm_bias = false;
  m->qkv_bias = m->out_bias = m->mlp_bias = false;
  m->tied_embeddings = false;
}

static void
search_request (HrPlanRequest *r)
{
  hr_plan_request_init (r);
  r->training.nodes = 2;
  r->training.gpus_per_node = 8;
  r->training.global_batch = 64;
  r->training.seq_len = 4096;
}

static void
search_ok (const HrModel       *model,
           const HrGpu         *gpu,
           const HrPlanRequest *request,
           HrPlanLayout        *best,
           size_t               n_best,
           HrPlanLayout        *pareto,
           size_t               n_pareto,
           HrPlanResult        *result)
{
  HrError err = { 0 };

  if (hr_plan_search (model, gpu, request, best, n_best, pareto, n_pareto, result, &err) != HR_OK)
    {
      char message[256];

      hr_error_format (&err, message, sizeof message);
      g_error ("hr_plan_search: %s", message);
    }
}

/* Ranked, fitting, Pareto-optimal, and consistent with hr_plan_step. */
static void
test_search (void)
{
  HrPlanLayout best[8], front[64];
  HrPlanRequest request;
  HrPlanResult result;
  HrModel model;
  HrGpu gpu;
  size_t i, j;

  llama_7b (&model);
  a100 (&gpu);
  search_request (&request);
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), front, G_N_ELEMENTS (front), &result);

  g_assert_cmpint (result.n_best, ==, G_N_ELEMENTS (best));
  g_assert_cmpint (result.fitting, >, 0);
  g_assert_cmpint (result.fitting, <=, result.searched);
  g_assert_false (result.pareto_truncated);
  for (i = 0; i < result.n_best; i++)
    {
      HrPlanStep again;

      g_assert_cmpfloat (best[i].memory_total, <=, best[i].memory_capacity);
      g_assert_cmpint (best[i].training.tensor_parallel * best[i].training.pipeline_parallel
                       * best[i].training.context_parallel * best[i].data_parallel, ==, 16);
      if (i > 0)
        g_assert_cmpfloat (best[i - 1].step.step_seconds, <=, best[i].step.step_seconds);
      step_ok (&model, &best[i].training, &gpu, &request.assumptions, &again);
      assert_close (again.step_seconds, best[i].step.step_seconds, 1e-12);
      /* The layout is predicted (mfu 0): its estimate is its step, to the last digit. */
      g_assert_cmpfloat (best[i].training.mfu, ==, 0);
      {
        HrTrainingTime time;
        HrError err = { 0 };

        g_assert_cmpint (hr_training_time (&model, &best[i].training, &gpu, &time, &err), ==, HR_OK);
        g_assert_true (time.predicted);
        g_assert_cmpfloat (time.step_seconds, ==, best[i].step.step_seconds);
      }
    }
  g_assert_cmpint (result.n_pareto, >, 0);
  for (i = 0; i < result.n_pareto; i++)
    {
      if (i > 0)
        {
          g_assert_cmpfloat (front[i - 1].memory_total, <, front[i].memory_total);
          g_assert_cmpfloat (front[i - 1].step.tokens_per_second, <, front[i].step.tokens_per_second);
        }
      for (j = 0; j < result.n_best; j++)
        g_assert_false (best[j].memory_total <= front[i].memory_total
                        && best[j].step.tokens_per_second > front[i].step.tokens_per_second);
    }
  /* The fastest layout is the front's fastest point. */
  assert_close (front[result.n_pareto - 1].step.tokens_per_second,
                best[0].step.tokens_per_second, 1e-12);
}

/* The search prices fine-tuning's layouts with their own memory and step:
 * every layout that fits under full training fits under LoRA (frozen weights
 * hold no gradients or optimizer states), and each best layout is what
 * hr_plan_step predicts for it. */
static void
test_search_lora (void)
{
  HrPlanLayout best[8];
  HrPlanRequest request;
  HrPlanResult full, lora;
  HrModel model;
  HrGpu gpu;

  llama_7b (&model);
  a100 (&gpu);
  search_request (&request);
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &full);
  request.training.finetune.method = HR_FINETUNE_LORA;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &lora);
  g_assert_cmpint (lora.searched, ==, full.searched);
  g_assert_cmpint (lora.fitting, >=, full.fitting);
  for (size_t i = 0; i < lora.n_best; i++)
    {
      HrPlanStep again;

      g_assert_cmpfloat (best[i].memory_total, <=, best[i].memory_capacity);
      g_assert_cmpint (best[i].training.finetune.method, ==, HR_FINETUNE_LORA);
      step_ok (&model, &best[i].training, &gpu, &request.assumptions, &again);
      assert_close (again.step_seconds, best[i].step.step_seconds, 1e-12);
    }
}

/* Frozen weights with gradients are an FSDP1 run's: the search tries FSDP's
 * modes only, and refuses FSDP pinned off, naming the setting. */
static void
test_search_frozen_gradients (void)
{
  HrPlanLayout best[8];
  HrPlanRequest request;
  HrPlanResult result;
  HrError err = { 0 };
  HrModel model;
  HrGpu gpu;

  llama_7b (&model);
  a100 (&gpu);
  search_request (&request);
  request.training.finetune.method = HR_FINETUNE_LORA;
  request.training.finetune.frozen_gradients = true;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &result);
  g_assert_cmpint (result.n_best, >, 0);
  for (size_t i = 0; i < result.n_best; i++)
    g_assert_cmpint (best[i].training.fsdp, !=, HR_FSDP_NONE);
  request.fsdp = HR_FSDP_NONE;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0,
                                   &result, &err), ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "frozen_gradients");
}

/* A framework's sharding family: FSDP's modes (zero 0, any FSDP mode;
 * FULL among the fitting), Megatron's ZeRO 0 or 1, DeepSpeed's ZeRO 0-3
 * without FSDP, FSDP without DDP; in every fitting layout of the 64
 * fastest and the front. */
static void
test_search_sharding (void)
{
  HrPlanLayout best[64], pareto[32];
  HrPlanRequest request;
  HrPlanResult result;
  HrError err = { 0 };
  HrModel model;
  HrGpu gpu;
  bool full = false, zero3 = false;

  llama_7b (&model);
  a100 (&gpu);
  search_request (&request);
  request.sharding = HR_PLAN_SHARDING_FSDP;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), pareto, G_N_ELEMENTS (pareto),
             &result);
  g_assert_cmpint (result.n_best, >, 0);
  for (size_t i = 0; i < result.n_best; i++)
    {
      g_assert_cmpint (best[i].training.zero_stage, ==, 0);
      full = full || best[i].training.fsdp == HR_FSDP_FULL;
    }
  for (size_t i = 0; i < result.n_pareto; i++)
    g_assert_cmpint (pareto[i].training.zero_stage, ==, 0);
  g_assert_true (full);

  request.sharding = HR_PLAN_SHARDING_ZERO1;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), pareto, G_N_ELEMENTS (pareto),
             &result);
  g_assert_cmpint (result.n_best, >, 0);
  for (size_t i = 0; i < result.n_best; i++)
    {
      g_assert_cmpint (best[i].training.zero_stage, <=, 1);
      g_assert_cmpint (best[i].training.fsdp, ==, HR_FSDP_NONE);
    }

  request.sharding = HR_PLAN_SHARDING_ZERO;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), pareto, G_N_ELEMENTS (pareto),
             &result);
  for (size_t i = 0; i < result.n_best; i++)
    {
      g_assert_cmpint (best[i].training.fsdp, ==, HR_FSDP_NONE);
      zero3 = zero3 || best[i].training.zero_stage == 3;
    }
  for (size_t i = 0; i < result.n_pareto; i++)
    g_assert_cmpint (pareto[i].training.fsdp, ==, HR_FSDP_NONE);
  g_assert_true (zero3);

  /* FSDP's sharded modes only (torchtune): no layout of the 16 GPUs
   * replicates over several data-parallel ranks; on one rank (TP × PP × CP
   * = 16) FSDP off is what FSDP over one rank is. Pinned off, FSDP leaves
   * only such layouts. */
  request.sharding = HR_PLAN_SHARDING_FSDP_SHARDED;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), pareto, G_N_ELEMENTS (pareto),
             &result);
  g_assert_cmpint (result.n_best, >, 0);
  for (size_t i = 0; i < result.n_best; i++)
    {
      g_assert_cmpint (best[i].training.zero_stage, ==, 0);
      if (best[i].data_parallel > 1)
        g_assert_cmpint (best[i].training.fsdp, !=, HR_FSDP_NONE);
    }
  request.fsdp = HR_FSDP_NONE;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), pareto, G_N_ELEMENTS (pareto),
             &result);
  g_assert_cmpint (result.n_best, >, 0);
  for (size_t i = 0; i < result.n_best; i++)
    g_assert_cmpint (best[i].data_parallel, ==, 1);
  request.fsdp = HR_PLAN_FREE;

  request.sharding = (HrPlanSharding) 7;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 1, NULL, 0, &result, &err),
                   ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "sharding");
}

/* The recomputation a framework runs: with none, full and op-level SAC
 * (torchtitan's modes) no layout of the 64 fastest or the front is
 * Megatron's selective and op-level SAC is among them (on the front,
 * between none's memory and full's time); bits beyond the
 * modes are refused, naming the field. */
static void
test_search_recompute_modes (void)
{
  HrPlanLayout best[64], pareto[32];
  HrPlanRequest request;
  HrPlanResult result;
  HrError err = { 0 };
  HrModel model;
  HrGpu gpu;
  bool op = false;

  llama_7b (&model);
  a100 (&gpu);
  search_request (&request);
  request.recompute_modes = (1u << HR_RECOMPUTE_NONE) | (1u << HR_RECOMPUTE_FULL)
                            | (1u << HR_RECOMPUTE_OP_SELECTIVE);
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), pareto, G_N_ELEMENTS (pareto),
             &result);
  g_assert_cmpint (result.n_best, >, 0);
  for (size_t i = 0; i < result.n_best; i++)
    {
      g_assert_cmpint (best[i].training.recompute, !=, HR_RECOMPUTE_SELECTIVE);
      op = op || best[i].training.recompute == HR_RECOMPUTE_OP_SELECTIVE;
    }
  for (size_t i = 0; i < result.n_pareto; i++)
    {
      g_assert_cmpint (pareto[i].training.recompute, !=, HR_RECOMPUTE_SELECTIVE);
      op = op || pareto[i].training.recompute == HR_RECOMPUTE_OP_SELECTIVE;
    }
  g_assert_true (op);

  request.recompute_modes = 1u << (HR_RECOMPUTE_OP_SELECTIVE + 1);
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 1, NULL, 0, &result, &err),
                   ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "recompute_modes");
}

/* Pinned dimensions hold; everything pinned leaves one layout, the one
 * hr_plan_step predicts. */
static void
test_search_pins (void)
{
  HrPlanLayout best[4];
  HrPlanRequest request;
  HrPlanResult result;
  HrModel model;
  HrGpu gpu;
  HrPlanStep step;
  size_t i;

  llama_7b (&model);
  a100 (&gpu);
  search_request (&request);
  request.tensor_parallel = 2;
  request.recompute = HR_RECOMPUTE_SELECTIVE;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &result);
  g_assert_cmpint (result.n_best, >, 0);
  for (i = 0; i < result.n_best; i++)
    {
      g_assert_cmpint (best[i].training.tensor_parallel, ==, 2);
      g_assert_cmpint (best[i].training.recompute, ==, HR_RECOMPUTE_SELECTIVE);
    }

  request.pipeline_parallel = 2;
  request.virtual_stages = 1;
  request.context_parallel = 1;
  request.expert_parallel = 1;
  request.micro_batch = 1;
  request.zero_stage = 1;
  request.fsdp = HR_FSDP_NONE;
  request.sequence_parallel = 1;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &result);
  g_assert_cmpint (result.searched, ==, 1);
  g_assert_cmpint (result.n_best, ==, 1);
  g_assert_cmpint (best[0].data_parallel, ==, 4);
  g_assert_cmpint (best[0].grad_accumulation, ==, 16);
  step_ok (&model, &best[0].training, &gpu, NULL, &step);
  assert_close (step.step_seconds, best[0].step.step_seconds, 1e-12);

  /* FSDP pinned with PP 2: DeepSpeed does not pipeline ZeRO-3 (nothing),
   * torch.distributed.pipelining runs FSDP modules as stages (torchtitan):
   * the one layout. */
  request.zero_stage = HR_PLAN_FREE;
  request.fsdp = HR_FSDP_FULL;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &result);
  g_assert_cmpint (result.searched, ==, 0);
  request.training.torch_pipelining = true;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &result);
  g_assert_cmpint (result.searched, ==, 1);
  g_assert_cmpint (best[0].training.fsdp, ==, HR_FSDP_FULL);
  g_assert_cmpint (best[0].training.pipeline_parallel, ==, 2);
}

/* The search skips memory look-ups it can decide from a smaller setting;
 * its counts must equal those of one search per pinned micro-batch,
 * virtual-stage count, recompute mode and sequence-parallel flag, where
 * nothing is skipped. A 24 GiB GPU makes many layouts miss. */
static void
test_search_counts (void)
{
  HrPlanRequest request;
  HrPlanResult all, one;
  HrModel model;
  HrGpu gpu;
  int64_t searched = 0, fitting = 0, mb, vs;
  int rc, sp;

  llama_7b (&model);
  a100 (&gpu);
  gpu.memory_bytes = 24 * GIB;
  search_request (&request);
  request.training.global_batch = 16;
  search_ok (&model, &gpu, &request, NULL, 0, NULL, 0, &all);
  g_assert_cmpint (all.fitting, >, 0);
  g_assert_cmpint (all.fitting, <, all.searched);

  for (mb = 1; mb <= 16; mb++)
    for (vs = 1; vs <= 32; vs++)
      for (rc = HR_RECOMPUTE_NONE; rc <= HR_RECOMPUTE_FULL; rc++)
        for (sp = 0; sp <= 1; sp++)
          {
            request.micro_batch = mb;
            request.virtual_stages = vs;
            request.recompute = rc;
            request.sequence_parallel = sp;
            search_ok (&model, &gpu, &request, NULL, 0, NULL, 0, &one);
            searched += one.searched;
            fitting += one.fitting;
          }
  g_assert_cmpint (searched, ==, all.searched);
  g_assert_cmpint (fitting, ==, all.fitting);
}

/* Nothing fits: not an error, no layout. Bad requests name their field. */
static void
test_search_errors (void)
{
  HrPlanLayout best[2];
  HrPlanRequest request;
  HrPlanResult result;
  HrModel model;
  HrGpu gpu;
  HrError err = { 0 };

  gpt (&model, 128, 20480, 105);
  a100 (&gpu);
  hr_plan_request_init (&request);
  request.training.nodes = 1;
  request.training.gpus_per_node = 1;
  request.training.global_batch = 8;
  request.training.seq_len = 2048;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &result);
  g_assert_cmpint (result.n_best, ==, 0);
  g_assert_cmpint (result.fitting, ==, 0);
  g_assert_cmpint (result.searched, >, 0);

  request.training.nodes = 0;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 2, NULL, 0, &result, &err),
                   ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "nodes");

  request.training.nodes = 1;
  request.training.global_batch = 0;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 2, NULL, 0, &result, &err),
                   ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "global_batch");

  request.training.global_batch = 8;
  request.zero_stage = 4;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 2, NULL, 0, &result, &err),
                   ==, HR_ERROR_OUT_OF_RANGE);
  g_assert_cmpstr (err.field, ==, "zero_stage");

  /* Both pinned: refused as hr_training_validate() refuses them. */
  request.zero_stage = 3;
  request.fsdp = HR_FSDP_FULL;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 2, NULL, 0, &result, &err),
                   ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "zero_stage");
  request.fsdp = HR_PLAN_FREE;

  /* A setting the core refuses in every layout fails the search with the
   * core's reason, not "no layout suits the model": torchao's fp8 with
   * fp8 parameters. */
  request.zero_stage = HR_PLAN_FREE;
  gpu.peak_flops[HR_DTYPE_FP8] = 2 * gpu.peak_flops[HR_DTYPE_BF16];
  request.training.precision = HR_PRECISION_FP8_MIXED;
  request.training.fp8_recipe = HR_FP8_RECIPE_TORCHAO;
  request.training.fp8_params = true;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 2, NULL, 0, &result, &err),
                   ==, HR_ERROR_UNSUPPORTED);
  g_assert_cmpstr (err.field, ==, "fp8_params");
  g_assert_cmpint (result.searched, ==, 0);
  request.training.fp8_params = false;
  search_ok (&model, &gpu, &request, best, G_N_ELEMENTS (best), NULL, 0, &result);
  g_assert_cmpint (result.searched, >, 0);
  request.training.precision = HR_PRECISION_BF16_MIXED;

  request.training.gpus_per_node = 8;
  request.training.nodes = 2;
  gpu.inter_node_bandwidth = 0;
  g_assert_cmpint (hr_plan_search (&model, &gpu, &request, best, 2, NULL, 0, &result, &err),
                   ==, HR_ERROR_NOT_POSITIVE);
  g_assert_cmpstr (err.field, ==, "inter_node_bandwidth");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/planner/search/ranked", test_search);
  g_test_add_func ("/planner/search/lora", test_search_lora);
  g_test_add_func ("/planner/search/frozen-gradients", test_search_frozen_gradients);
  g_test_add_func ("/planner/search/pins", test_search_pins);
  g_test_add_func ("/planner/search/sharding", test_search_sharding);
  g_test_add_func ("/planner/search/recompute-modes", test_search_recompute_modes);
  g_test_add_func ("/planner/search/counts", test_search_counts);
  g_test_add_func ("/planner/search/errors", test_search_errors);

  return g_test_run ();
}
