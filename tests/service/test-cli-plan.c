/* test-cli-plan.c: headroom-cli plan as a user runs it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Its layouts against hand-derived figures and against headroom-cli train
 * (test-cli.h runs it).
 */
#include "test-cli.h"

/* One step-time model: `train` of a layout `plan` found predicts the same
 * step, to the last digit (both print 17 significant digits). */
static void
test_plan_train_agree (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  JsonArray *layouts;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", "--json", NULL);
  out = parse_output (&run);
  layouts = json_node_get_array (member (out, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), >, 0);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    {
      JsonObject *l = json_array_get_object_element (layouts, i);
      g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      g_auto(Run) train = { 0 };
      g_autoptr(JsonObject) t = NULL;
      const char *fsdp = json_object_get_string_member (l, "fsdp");
      const char * const fixed[] = {
        "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
        "--global-batch", "64", "--seq", "2048", "--json",
      };

      for (guint k = 0; k < G_N_ELEMENTS (fixed); k++)
        g_ptr_array_add (argv, g_strdup (fixed[k]));
#define ADD_INT(option, member_name) \
      g_ptr_array_add (argv, g_strdup (option)); \
      g_ptr_array_add (argv, g_strdup_printf ("%" G_GINT64_FORMAT, member_int (l, member_name)))
      ADD_INT ("--tp", "tp");
      ADD_INT ("--pp", "pp");
      ADD_INT ("--cp", "cp");
      ADD_INT ("--ep", "ep");
      ADD_INT ("--micro-batch", "micro_batch");
      if (member_int (l, "vpp") > 1)
        {
          g_ptr_array_add (argv, g_strdup ("--pp-schedule"));
          g_ptr_array_add (argv, g_strdup ("interleaved"));
          ADD_INT ("--vpp", "vpp");
        }
      if (g_strcmp0 (fsdp, "none") != 0)
        g_ptr_array_add (argv, g_strdup_printf ("--fsdp=%s", fsdp));
      else
        {
          ADD_INT ("--zero", "zero");
        }
#undef ADD_INT
      if (json_object_get_boolean_member (l, "sequence_parallel"))
        g_ptr_array_add (argv, g_strdup ("--sequence-parallel"));
      g_ptr_array_add (argv, g_strdup_printf ("--recompute=%s",
                                              json_object_get_string_member (l, "recompute")));
      g_ptr_array_add (argv, NULL);

      run_cli_argv (&train, (const char * const *) argv->pdata);
      t = parse_output (&train);
      g_assert_true (json_node_get_boolean (member (t, "time.predicted")));
      g_assert_cmpfloat (member_double (t, "time.step_seconds"), ==, member_double (l, "step_seconds"));
      g_assert_cmpfloat (member_double (t, "time.mfu"), ==, member_double (l, "mfu"));
      g_assert_cmpfloat (member_double (t, "time.tokens_per_second"), ==,
                         member_double (l, "tokens_per_second"));
    }
}

/* --framework torchtune steps the optimizer in the backward, which
 * accumulates nothing, and leaves the global batch at 0: one micro-batch per
 * GPU, 8 sequences on 8 GPUs, every layout without accumulation. */
static void
test_plan_optimizer_in_backward (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) out = NULL;
  JsonArray *layouts;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--gpus", "8",
           "--framework", "torchtune", "--seq", "2048", "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  out = parse_output (&run);
  layouts = json_node_get_array (member (out, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), >, 0);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    {
      JsonObject *l = json_array_get_object_element (layouts, i);

      g_assert_cmpint (member_int (l, "dp") * member_int (l, "micro_batch"), ==, 8);
    }
}

/* A framework bounds the search and the table says so; without one it
 * does not. DeepSpeed cannot run context parallelism: a pinned --cp 2 is
 * refused, naming the option, exit 2. */
static void
test_plan_framework (void)
{
  g_auto(Run) deepspeed = { 0 };
  g_auto(Run) none = { 0 };
  g_auto(Run) refused = { 0 };

  run_cli (&deepspeed, "plan", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--gpus", "8",
           "--framework", "deepspeed", "--seq", "2048", "--global-batch", "64", NULL);
  g_assert_cmpint (deepspeed.status, ==, 0);
  g_assert_nonnull (strstr (deepspeed.out, "\nOnly layouts DeepSpeed runs are searched (--framework)\n"));
  run_cli (&none, "plan", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--gpus", "8",
           "--seq", "2048", "--global-batch", "64", NULL);
  g_assert_cmpint (none.status, ==, 0);
  g_assert_null (strstr (none.out, "Only layouts"));
  run_cli (&refused, "plan", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--gpus", "8",
           "--framework", "deepspeed", "--cp", "2", "--seq", "2048", "--global-batch", "64", NULL);
  g_assert_cmpint (refused.status, ==, 2);
  g_assert_nonnull (strstr (refused.err, "Context parallel (--cp): DeepSpeed has no ring-attention"));
}

/* plan searches recomputation itself: --recompute-modules, which applies
 * under selective recomputation only, passes while --recompute is free, and
 * is refused, naming what it needs, once --recompute pins another mode
 * (train refuses it under the default none). */
static void
test_plan_searched_condition (void)
{
  g_auto(Run) free_run = { 0 };
  g_auto(Run) pinned_run = { 0 };
  g_auto(Run) train_run = { 0 };
  static const char message[] = "headroom-cli: Recomputed modules (--recompute-modules): applies only "
                                "when Recomputation (--recompute) is Selective\n";

  run_cli (&free_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--gpus", "8",
           "--recompute-modules", "core_attn,mlp", "--seq", "2048", "--global-batch", "64", NULL);
  g_assert_cmpint (free_run.status, ==, 0);
  run_cli (&pinned_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--gpus", "8",
           "--recompute", "full", "--recompute-modules", "core_attn,mlp", "--seq", "2048",
           "--global-batch", "64", NULL);
  g_assert_cmpint (pinned_run.status, ==, 2);
  g_assert_cmpstr (pinned_run.err, ==, message);
  run_cli (&train_run, "train", "--model", LLAMA_CONFIG, "--gpu", "a100-80gb-sxm", "--gpus", "8",
           "--recompute-modules", "core_attn,mlp", "--seq", "2048", "--global-batch", "64", NULL);
  g_assert_cmpint (train_run.status, ==, 2);
  g_assert_cmpstr (train_run.err, ==, message);
}

/* --async-tp reaches the step model through `train` and `plan` alike: with
 * TP 8, sequence parallel and --compile, `plan`'s layout and `train` of it
 * predict the same step, shorter than without (tests/core/test-planner.c
 * derives the term); without --compile it is refused, naming the setting. */
static void
test_async_tp (void)
{
  g_auto(Run) plan = { 0 };
  g_auto(Run) train = { 0 };
  g_auto(Run) sync_run = { 0 };
  g_auto(Run) bad_run = { 0 };
  g_autoptr(JsonObject) p = NULL;
  g_autoptr(JsonObject) t = NULL;
  g_autoptr(JsonObject) sync = NULL;
  JsonObject *layout;
  g_autofree char *micro = NULL;
  g_autofree char *zero = NULL;

  run_cli (&plan, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "8", "--sequence-parallel",
           "--compile", "--async-tp", "--top", "1", "--json", NULL);
  p = parse_output (&plan);
  layout = json_array_get_object_element (json_node_get_array (member (p, "layouts")), 0);
  g_assert_cmpint (member_int (layout, "tp"), ==, 8);
  micro = g_strdup_printf ("%" G_GINT64_FORMAT, member_int (layout, "micro_batch"));
  zero = g_strdup_printf ("%" G_GINT64_FORMAT, member_int (layout, "zero"));
  run_cli (&train, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "8", "--sequence-parallel",
           "--compile", "--async-tp", "--micro-batch", micro,
           "--zero", zero, "--fsdp", json_object_get_string_member (layout, "fsdp"),
           "--recompute", json_object_get_string_member (layout, "recompute"), "--json", NULL);
  t = parse_output (&train);
  g_assert_cmpfloat (member_double (t, "time.step_seconds"), ==, member_double (layout, "step_seconds"));

  run_cli (&sync_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "8", "--sequence-parallel",
           "--compile", "--micro-batch", micro, "--zero", zero, "--fsdp", json_object_get_string_member (layout, "fsdp"),
           "--recompute", json_object_get_string_member (layout, "recompute"), "--json", NULL);
  sync = parse_output (&sync_run);
  g_assert_cmpfloat (member_double (t, "time.step_seconds"), <, member_double (sync, "time.step_seconds"));

  run_cli (&bad_run, "train", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--tp", "8", "--sequence-parallel", "--async-tp", NULL);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_nonnull (strstr (bad_run.err, "Async tensor parallel (--async-tp)"));
}

/* Every layout of 8 GPUs multiplies out to 8, fits, and comes fastest first;
 * a pinned --tp holds in every layout, and so does sequence parallelism
 * pinned on or off. */
static void
test_plan (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) pinned_run = { 0 };
  g_auto(Run) csv = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(JsonObject) pinned = NULL;
  JsonArray *layouts;
  double previous = 0;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", "--json", NULL);
  out = parse_output (&run);
  g_assert_cmpint (member_int (out, "searched"), >=, member_int (out, "fitting"));
  g_assert_cmpint (member_int (out, "fitting"), >, 0);
  layouts = json_node_get_array (member (out, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), ==, 5);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    {
      JsonObject *l = json_array_get_object_element (layouts, i);

      g_assert_cmpint (member_int (l, "tp") * member_int (l, "pp") * member_int (l, "cp")
                       * member_int (l, "dp"), ==, 8);
      g_assert_cmpint (member_int (l, "memory_total"), <=, 25769803776);
      g_assert_cmpfloat (member_double (l, "step_seconds"), >=, previous);
      previous = member_double (l, "step_seconds");
      /* tokens per second = 64 × 2048 / step */
      assert_close (member_double (l, "tokens_per_second"), 64 * 2048 / previous);
    }

  run_cli (&pinned_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--tp", "2", "--json", NULL);
  pinned = parse_output (&pinned_run);
  layouts = json_node_get_array (member (pinned, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), >, 0);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    g_assert_cmpint (member_int (json_array_get_object_element (layouts, i), "tp"), ==, 2);

  /* --sequence-parallel pins it on, --sequence-parallel=false off: each
   * search at TP 2 has layouts with and without it otherwise. */
  for (guint on = 0; on < 2; on++)
    {
      g_auto(Run) sp_run = { 0 };
      g_autoptr(JsonObject) sp = NULL;

      run_cli (&sp_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
               "--global-batch", "64", "--seq", "2048", "--tp", "2", "--top", "1000",
               on ? "--sequence-parallel" : "--sequence-parallel=false", "--json", NULL);
      sp = parse_output (&sp_run);
      layouts = json_node_get_array (member (sp, "layouts"));
      g_assert_cmpuint (json_array_get_length (layouts), >, 0);
      for (guint i = 0; i < json_array_get_length (layouts); i++)
        g_assert_cmpint (json_node_get_boolean (member (json_array_get_object_element (layouts, i),
                                                        "sequence_parallel")), ==, on);
    }

  /* --zero alone pins ZeRO and leaves FSDP off. */
  {
    g_auto(Run) zero_run = { 0 };
    g_autoptr(JsonObject) zero = NULL;

    run_cli (&zero_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
             "--global-batch", "64", "--seq", "2048", "--zero", "3", "--json", NULL);
    zero = parse_output (&zero_run);
    layouts = json_node_get_array (member (zero, "layouts"));
    g_assert_cmpuint (json_array_get_length (layouts), >, 0);
    for (guint i = 0; i < json_array_get_length (layouts); i++)
      {
        JsonObject *l = json_array_get_object_element (layouts, i);

        g_assert_cmpint (member_int (l, "zero"), ==, 3);
        g_assert_cmpstr (json_node_get_string (member (l, "fsdp")), ==, "none");
      }
  }

  run_cli (&csv, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "3", "--csv", NULL);
  g_assert_cmpint (csv.status, ==, 0);
  g_assert_true (g_str_has_prefix (csv.out, "tp,pp,vpp,dp,cp,ep,zero,fsdp,sequence_parallel,"
                                   "micro_batch,recompute,memory_total,step_seconds,mfu,"
                                   "tokens_per_second,tokens_per_second_per_gpu,bound\r\n"));
}

/* Issue 8: the Pareto set of memory against throughput. Every point of it
 * is a fitting layout that no other point beats on both; least memory first,
 * so throughput rises along it; its last point is the fastest layout of all
 * and its first needs no more memory than any ranked layout. */
static void
test_plan_pareto (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) table = { 0 };
  g_auto(Run) single = { 0 };
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(GList) layout_keys = NULL;
  JsonArray *layouts, *pareto;
  JsonObject *first, *last;
  guint n;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", "--json", NULL);
  out = parse_output (&run);
  layouts = json_node_get_array (member (out, "layouts"));
  pareto = json_node_get_array (member (out, "pareto"));
  n = json_array_get_length (pareto);
  g_assert_cmpuint (n, >, 1);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *a = json_array_get_object_element (pareto, i);
      gint64 memory = member_int (a, "memory_total");
      double rate = member_double (a, "tokens_per_second");

      g_assert_cmpint (memory, <=, 25769803776);
      g_assert_cmpint (member_int (a, "tp") * member_int (a, "pp") * member_int (a, "cp")
                       * member_int (a, "dp"), ==, 8);
      for (guint j = 0; j < n; j++)
        {
          JsonObject *b = json_array_get_object_element (pareto, j);
          gint64 other_memory = member_int (b, "memory_total");
          double other_rate = member_double (b, "tokens_per_second");

          if (i != j && other_memory <= memory && other_rate >= rate)
            g_assert_true (other_memory == memory && other_rate == rate);
          if (i != j)
            g_assert_false (other_memory == memory && other_rate == rate);
        }
      if (i > 0)
        {
          JsonObject *previous = json_array_get_object_element (pareto, i - 1);

          g_assert_cmpint (memory, >, member_int (previous, "memory_total"));
          g_assert_cmpfloat (rate, >, member_double (previous, "tokens_per_second"));
        }
    }

  /* Same keys in the same order as "layouts". */
  first = json_array_get_object_element (pareto, 0);
  last = json_array_get_object_element (pareto, n - 1);
  layout_keys = json_object_get_members (json_array_get_object_element (layouts, 0));
  {
    g_autoptr(GList) pareto_keys = json_object_get_members (first);

    g_assert_cmpuint (g_list_length (pareto_keys), ==, g_list_length (layout_keys));
    for (GList *k = layout_keys, *l = pareto_keys; k != NULL; k = k->next, l = l->next)
      g_assert_cmpstr (k->data, ==, l->data);
  }

  g_assert_cmpfloat (member_double (last, "tokens_per_second"), ==,
                     member_double (json_array_get_object_element (layouts, 0), "tokens_per_second"));
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    g_assert_cmpint (member_int (first, "memory_total"), <=,
                     member_int (json_array_get_object_element (layouts, i), "memory_total"));

  run_cli (&table, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--top", "5", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "Pareto front (memory vs throughput)"));

  /* Every dimension pinned on one GPU leaves one layout: the front is the
   * ranked table, which is not printed twice. */
  run_cli (&single, "plan", "--model", CLI_DATA "/tiny-llama.json", "--gpu", "test-gpu",
           "--gpus", "1", "--global-batch", "4", "--seq", "8", "--micro-batch", "1",
           "--recompute", "none", "--zero", "0", NULL);
  g_assert_cmpint (single.status, ==, 0);
  g_assert_nonnull (strstr (single.out, "1 layouts searched"));
  g_assert_null (strstr (single.out, "Pareto"));
}

/* Nothing fits: the table says why, as the window's Plan view does (Llama 2
 * 7B at 64 × 65,536 tokens on one 80 GiB test GPU); LoRA with the frozen
 * weights' gradients searches FSDP's modes only. */
static void
test_plan_nothing_fits (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) lora_run = { 0 };
  g_autoptr(JsonObject) lora = NULL;
  JsonArray *layouts;

  run_cli (&run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "1",
           "--global-batch", "64", "--seq", "65536", "--micro-batch", "64", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "\nNo layout of 1 GPU fits a model of 6.74 B parameters in "));

  run_cli (&lora_run, "plan", "--model", LLAMA_CONFIG, "--gpu", "test-gpu", "--gpus", "8",
           "--global-batch", "64", "--seq", "2048", "--method", "lora", "--frozen-gradients",
           "--json", NULL);
  lora = parse_output (&lora_run);
  layouts = json_node_get_array (member (lora, "layouts"));
  g_assert_cmpuint (json_array_get_length (layouts), >, 0);
  for (guint i = 0; i < json_array_get_length (layouts); i++)
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (layouts, i),
                                                    "fsdp"), !=, "none");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/plan", test_plan);
  g_test_add_func ("/cli/plan/train-agree", test_plan_train_agree);
  g_test_add_func ("/cli/plan/async-tp", test_async_tp);
  g_test_add_func ("/cli/plan/optimizer-in-backward", test_plan_optimizer_in_backward);
  g_test_add_func ("/cli/plan/framework", test_plan_framework);
  g_test_add_func ("/cli/plan/searched-condition", test_plan_searched_condition);
  g_test_add_func ("/cli/plan/pareto", test_plan_pareto);
  g_test_add_func ("/cli/plan/nothing-fits", test_plan_nothing_fits);

  return g_test_run ();
}
