/* headroom-cli.c: the estimates, headless
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"

typedef struct
{
  const char *name;
  int       (*run) (int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "params", headroom_cli_params, N_("Count the parameters of a model") },
  { "flops", headroom_cli_flops, N_("Count the FLOPs of one training step") },
  { "train", headroom_cli_train, N_("Memory per GPU, time and cost of a training run") },
  { "infer", headroom_cli_infer, N_("Memory per GPU, latency and cost of serving a model") },
  { "plan", headroom_cli_plan, N_("Search the parallel layouts of a training run") },
  { "compare", headroom_cli_compare, N_("Compare the scenarios of a project, or several projects") },
  { "report", headroom_cli_report, N_("Print or write the report of a project file") },
  { "import", headroom_cli_import, N_("Create a project from a Hugging Face config") },
  { "models", headroom_cli_models, N_("List the model presets of the catalog") },
  { "gpus", headroom_cli_gpus, N_("List the GPUs of the catalog") },
};

static void
print_help (FILE *out)
{
  fprintf (out, "%s\n\n", _("Usage: headroom-cli COMMAND [OPTION…]"));
  fprintf (out, "%s\n\n", _("Estimate the parameters, FLOPs, memory, time and cost of a transformer."));
  fprintf (out, "%s\n", _("Commands:"));
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s  %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n", _("MODEL is a preset id (llama-2-7b), a Hugging Face config.json or a project file."));
  fprintf (out, "%s\n", _("Run “headroom-cli COMMAND --help” for the options of a command."));
  fprintf (out, "%s\n", _("Exit status: 0 done, 1 failure, 2 bad input (one line on stderr)."));
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname ("headroom-cli");

  if (argc < 2)
    {
      fprintf (stderr, "headroom-cli: %s\n",
               _("missing command (try “headroom-cli --help”)"));
      return HEADROOM_CLI_EXIT_USAGE;
    }

  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h")
      || g_str_equal (argv[1], "help"))
    {
      print_help (stdout);
      return HEADROOM_CLI_EXIT_OK;
    }

  if (g_str_equal (argv[1], "--version"))
    {
      printf ("headroom-cli %s\n", PACKAGE_VERSION);
      return HEADROOM_CLI_EXIT_OK;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      {
        g_autofree char *prgname = g_strconcat ("headroom-cli ", commands[i].name, NULL);

        g_set_prgname (prgname);
        return commands[i].run (argc - 1, argv + 1);
      }

  fprintf (stderr, "headroom-cli: %s\n", _("unknown command (try “headroom-cli --help”)"));
  return HEADROOM_CLI_EXIT_USAGE;
}
