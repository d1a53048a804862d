/* headroom-cli-common.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "headroom-catalog.h"
#include "headroom-cli.h"
#include "headroom-file.h"
#include "headroom-flops-row.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-quantity.h"

G_DEFINE_QUARK (headroom-cli-error-quark, headroom_cli_error)

void
headroom_cli_model_clear (HeadroomCliModel *model)
{
  g_clear_pointer (&model->name, g_free);
  g_clear_pointer (&model->preset, g_free);
  g_clear_pointer (&model->config, json_object_unref);
  g_clear_object (&model->project);
}

HeadroomProject *
headroom_cli_model_dup_project (HeadroomCliModel *model)
{
  HeadroomProject *project;

  if (model->project != NULL)
    return g_object_ref (model->project);
  project = headroom_project_new ();
  if (model->preset != NULL)
    headroom_project_set_string (project, "model.preset", model->preset, NULL);
  else if (model->config != NULL)
    headroom_project_set_config (project, model->config);
  return project;
}

static gboolean
looks_like_path (const char *text)
{
  return strchr (text, '/') != NULL || g_str_has_suffix (text, ".json")
         || g_str_has_suffix (text, ".headroom");
}

/* An id may be missing because a user catalog file is broken: say so. */
static const char *
catalog_trouble (HeadroomCatalog *catalog)
{
  static char *text;
  const GError *error = headroom_catalog_get_load_error (catalog);

  if (error == NULL)
    return "";
  if (text == NULL)
    text = g_strdup_printf ("; %s", error->message);
  return text;
}

void
headroom_cli_set_model_error (GError       **error,
                              const char    *text,
                              const GError  *local_error)
{
  if (g_error_matches (local_error, HEADROOM_HF_CONFIG_ERROR, HEADROOM_HF_CONFIG_ERROR_UNKNOWN_TYPE))
    g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                 _("%s: %s with --assume-architecture llama"), text, local_error->message);
  else
    headroom_cli_set_file_error (error, text, local_error);
}

gboolean
headroom_cli_resolve_model (const char             *text,
                            HeadroomCliKeyOptions  *options,
                            HeadroomCliModel       *out,
                            GError                **error)
{
  g_autoptr(GError) local_error = NULL;
  HeadroomCatalog *catalog;
  const char *assume = NULL;

  memset (out, 0, sizeof *out);

  if (options != NULL)
    {
      if (!headroom_cli_key_options_check (options, "model.assume_architecture", error))
        return FALSE;
      assume = headroom_cli_key_options_get (options, "model.assume_architecture");
    }

  if (text == NULL || *text == '\0')
    {
      g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           _("--model: missing (a preset id, a config.json or a project file, as --model MODEL or the one argument)"));
      return FALSE;
    }

  if (g_file_test (text, G_FILE_TEST_EXISTS))
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (text);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(JsonObject) config = NULL;
      g_autofree char *model_type = NULL;
      unsigned warnings = 0;
      JsonNode *format;

      bytes = headroom_file_load (file, HEADROOM_FILE_MAX_SIZE, NULL, &local_error);
      if (bytes == NULL)
        {
          g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                       "--model: %s", local_error->message);
          return FALSE;
        }

      config = headroom_hf_config_parse_bytes (bytes, &local_error);
      if (config == NULL)
        {
          g_autoptr(GError) project_error = NULL;
          g_autoptr(HeadroomProject) project = headroom_project_new_from_bytes (bytes, &project_error);

          /* A project's loader names the setting at fault by its label (a
           * number that is not finite, say); the config's reader, the field. */
          if (project == NULL && headroom_project_error_get_key (project_error) != NULL)
            headroom_cli_set_file_error (error, text, project_error);
          else
            g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                         "%s: %s", text, local_error->message);
          return FALSE;
        }

      out->name = g_path_get_basename (text);

      format = json_object_get_member (config, "format");
      /* A "format" tag (and no model_type) marks a project, mistyped ones
       * included: the project loader then names the tag as the fault rather
       * than the config reader a missing hidden_size. */
      if (format != NULL && JSON_NODE_HOLDS_VALUE (format)
          && json_node_get_value_type (format) == G_TYPE_STRING
          && (g_strcmp0 (json_node_get_string (format), HEADROOM_PROJECT_FORMAT) == 0
              || !json_object_has_member (config, "model_type")))
        {
          out->project = headroom_project_new_from_bytes (bytes, &local_error);
          if (out->project != NULL && assume != NULL)
            headroom_project_set_string (out->project, "model.assume_architecture", assume, NULL);
          if (out->project == NULL
              || !headroom_project_get_model (out->project, &out->model, &local_error))
            {
              headroom_cli_set_model_error (error, text, local_error);
              headroom_cli_model_clear (out);
              return FALSE;
            }
          return TRUE;
        }

      /* Read as the option says: the project made from the config holds it. */
      if (assume != NULL)
        json_object_set_string_member (config, "assume_architecture", assume);
      if (!headroom_hf_config_read (config, &out->model, &model_type, &warnings, &local_error))
        {
          headroom_cli_set_model_error (error, text, local_error);
          headroom_cli_model_clear (out);
          return FALSE;
        }

      /* An assumed architecture: one line on stderr, and the JSON and the
       * tables say so too (headroom_cli_json_assumed()). */
      if (warnings & HR_CONFIG_WARN_NO_MODEL_TYPE)
        fprintf (stderr, _("headroom-cli: warning: %s: no model_type, read as Llama-style as assumed\n"),
                 text);
      else if (warnings & HR_CONFIG_WARN_UNKNOWN_MODEL_TYPE)
        fprintf (stderr, _("headroom-cli: warning: %s: model_type “%s” is unknown, read as "
                           "Llama-style as assumed\n"), text, model_type);
      else if (warnings & HR_CONFIG_WARN_TEXT_ONLY)
        fprintf (stderr, _("headroom-cli: warning: %s: the text model only; the vision tower is "
                           "not included\n"), text);
      out->config = json_object_ref (config);
      return TRUE;
    }

  if (looks_like_path (text))
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--model: %s: no such file"), text);
      return FALSE;
    }

  catalog = headroom_catalog_get_default ();
  if (headroom_catalog_find_model (catalog, text) == NULL)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--model: unknown preset “%s” and no such file (see “headroom-cli models”)%s"),
                   text, catalog_trouble (catalog));
      return FALSE;
    }
  if (!headroom_catalog_lookup_model (catalog, text, &out->model, &local_error))
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   "--model: %s", local_error->message);
      return FALSE;
    }

  out->name = g_strdup (text);
  out->preset = g_strdup (text);
  return TRUE;
}

gboolean
headroom_cli_parse_int (const char  *option,
                        const char  *text,
                        gint64       minimum,
                        gint64      *out,
                        GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  gint64 value;

  if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &value, &local_error))
    {
      if (g_error_matches (local_error, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
        g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                     _("%s: %s does not fit 64 bits"), option, text);
      else
        g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                     _("%s: “%s” is not a whole number"), option, text);
      return FALSE;
    }

  if (value < minimum)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("%s: %s must be at least %" G_GINT64_FORMAT), option, text, minimum);
      return FALSE;
    }

  *out = value;
  return TRUE;
}

gboolean
headroom_cli_parse_double (const char  *option,
                           const char  *text,
                           double       minimum,
                           double       maximum,
                           gboolean     exclusive_minimum,
                           double      *out,
                           GError     **error)
{
  char *end = NULL;
  double value;

  errno = 0;
  value = g_ascii_strtod (text, &end);
  if (*text == '\0' || end == NULL || *end != '\0' || g_ascii_isspace (*text))
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("%s: “%s” is not a number"), option, text);
      return FALSE;
    }
  if (errno == ERANGE || !isfinite (value))
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("%s: %s is out of range"), option, text);
      return FALSE;
    }
  if (value < minimum || (exclusive_minimum && value == minimum) || value > maximum)
    {
      g_autofree char *low = headroom_cli_format_number (minimum, 6);
      g_autofree char *high = headroom_cli_format_number (maximum, 6);

      if (maximum < G_MAXDOUBLE)
        g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                     exclusive_minimum ? _("%s: %s must be above %s and at most %s")
                                       : _("%s: %s must be between %s and %s"),
                     option, text, low, high);
      else
        g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                     exclusive_minimum ? _("%s: %s must be above %s")
                                       : _("%s: %s must be at least %s"),
                     option, text, low);
      return FALSE;
    }

  *out = value;
  return TRUE;
}

gboolean
headroom_cli_parse_choice (const char         *option,
                           const char         *text,
                           const char * const *choices,
                           int                *out,
                           GError            **error)
{
  g_autofree char *list = NULL;

  for (int i = 0; choices[i] != NULL; i++)
    if (g_str_equal (text, choices[i]))
      {
        *out = i;
        return TRUE;
      }

  list = g_strjoinv ("|", (char **) choices);
  g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
               _("%s: “%s” is not one of %s"), option, text, list);
  return FALSE;
}

gboolean
headroom_cli_parse_optional_int (const char  *option,
                                 const char  *text,
                                 gint64       minimum,
                                 gint64      *out,
                                 GError     **error)
{
  return text == NULL || headroom_cli_parse_int (option, text, minimum, out, error);
}

gboolean
headroom_cli_parse_optional_choice (const char         *option,
                                    const char         *text,
                                    const char * const *choices,
                                    int                *out,
                                    GError            **error)
{
  return text == NULL || headroom_cli_parse_choice (option, text, choices, out, error);
}

gboolean
headroom_cli_parse_context (GOptionContext  *context,
                            int             *argc,
                            char          ***argv,
                            GError         **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!g_option_context_parse (context, argc, argv, &local_error))
    {
      g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                           local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Parses; `model`, when not NULL, takes one argument left over. */
static gboolean
parse_arguments (GOptionContext  *context,
                 int             *argc,
                 char          ***argv,
                 char           **model,
                 GError         **error)
{
  int allowed = model != NULL ? 2 : 1;

  if (!headroom_cli_parse_context (context, argc, argv, error))
    return FALSE;
  if (*argc > allowed)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("unexpected argument “%s”"), (*argv)[allowed]);
      return FALSE;
    }
  if (*argc == 2 && model != NULL)
    {
      if (*model != NULL)
        {
          g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                       _("MODEL given twice: “%s” (--model) and “%s”"), *model, (*argv)[1]);
          return FALSE;
        }
      *model = g_strdup ((*argv)[1]);
    }
  return TRUE;
}

gboolean
headroom_cli_parse_options (GOptionContext  *context,
                            int             *argc,
                            char          ***argv,
                            GError         **error)
{
  return parse_arguments (context, argc, argv, NULL, error);
}

gboolean
headroom_cli_parse_model_options (GOptionContext  *context,
                                  int             *argc,
                                  char          ***argv,
                                  char           **model,
                                  GError         **error)
{
  return parse_arguments (context, argc, argv, model, error);
}

gboolean
headroom_cli_set_gpu_count (HeadroomProject  *project,
                            gint64            gpus,
                            gboolean          per_node_given,
                            GError          **error)
{
  gint64 per_node = headroom_project_get_int (project, "hardware.gpus_per_node");
  const HeadroomKeyInfo *nodes = headroom_project_find_key ("hardware.nodes");
  const HeadroomKeyInfo *node_size = headroom_project_find_key ("hardware.gpus_per_node");
  gint64 max_nodes = (gint64) nodes->maximum;
  gint64 max_per_node = (gint64) node_size->maximum;

  if (gpus >= per_node && gpus % per_node == 0)
    {
      if (gpus / per_node > max_nodes)
        {
          g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                       g_dngettext (GETTEXT_PACKAGE,
                                    "--gpus: %" G_GINT64_FORMAT " is out of range: at most %"
                                    G_GINT64_FORMAT " nodes of %" G_GINT64_FORMAT " GPU",
                                    "--gpus: %" G_GINT64_FORMAT " is out of range: at most %"
                                    G_GINT64_FORMAT " nodes of %" G_GINT64_FORMAT " GPUs",
                                    (gulong) per_node),
                       gpus, max_nodes, per_node);
          return FALSE;
        }
      return headroom_project_set_int (project, "hardware.nodes", gpus / per_node, error);
    }
  if (per_node_given)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--gpus: %" G_GINT64_FORMAT " is not a multiple of --gpus-per-node %" G_GINT64_FORMAT),
                   gpus, per_node);
      return FALSE;
    }
  if (gpus > max_per_node)
    {
      g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                   _("--gpus: %" G_GINT64_FORMAT " is not whole nodes of %" G_GINT64_FORMAT
                     " GPUs, nor one node of at most %" G_GINT64_FORMAT " (give --gpus-per-node)"),
                   gpus, per_node, max_per_node);
      return FALSE;
    }
  return headroom_project_set_int (project, "hardware.nodes", 1, error)
         && headroom_project_set_int (project, "hardware.gpus_per_node", gpus, error);
}

int
headroom_cli_report_error (const GError *error)
{
  /* One line, control characters escaped, whatever a library, a file or a
   * server put in the message. */
  g_autofree char *line = headroom_format_one_line (error->message);

  fflush (stdout);
  fprintf (stderr, "headroom-cli: %s\n", line);

  if (error->domain == HEADROOM_CLI_ERROR && error->code == HEADROOM_CLI_ERROR_FAILED)
    return HEADROOM_CLI_EXIT_FAILURE;
  return HEADROOM_CLI_EXIT_USAGE;
}

void
headroom_cli_json_int (JsonBuilder *builder,
                       const char  *key,
                       gint64       value)
{
  json_builder_set_member_name (builder, key);
  json_builder_add_int_value (builder, value);
}

void
headroom_cli_json_bytes (JsonBuilder *builder,
                         const char  *key,
                         double       bytes)
{
  json_builder_set_member_name (builder, key);
  /* The core keeps bytes as whole numbers below 2^53; round what a ratio left. */
  if (isfinite (bytes) && fabs (bytes) < 9.2e18)
    json_builder_add_int_value (builder, (gint64) llround (bytes));
  else
    json_builder_add_null_value (builder);
}

void
headroom_cli_json_double (JsonBuilder *builder,
                          const char  *key,
                          double       value)
{
  json_builder_set_member_name (builder, key);
  /* + 0.0: -0 is written 0. */
  if (isfinite (value))
    json_builder_add_double_value (builder, value + 0.0);
  else
    json_builder_add_null_value (builder);
}

void
headroom_cli_json_bool (JsonBuilder *builder,
                        const char  *key,
                        gboolean     value)
{
  json_builder_set_member_name (builder, key);
  json_builder_add_boolean_value (builder, value);
}

void
headroom_cli_json_string (JsonBuilder *builder,
                          const char  *key,
                          const char  *value)
{
  json_builder_set_member_name (builder, key);
  json_builder_add_string_value (builder, value);
}

void
headroom_cli_json_params (JsonBuilder    *builder,
                          const HrParams *params)
{
  headroom_cli_json_params_trained (builder, params, -1, -1);
}

/* With the trained and frozen counts of a fine-tuning run; -1 leaves them out. */
void
headroom_cli_json_params_trained (JsonBuilder    *builder,
                                  const HrParams *params,
                                  gint64          trainable,
                                  gint64          frozen)
{
  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "total", params->total);
  headroom_cli_json_int (builder, "active", params->active);
  if (trainable >= 0)
    headroom_cli_json_int (builder, "trainable", trainable);
  if (frozen >= 0)
    headroom_cli_json_int (builder, "frozen", frozen);
  json_builder_set_member_name (builder, "breakdown");
  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "embedding", params->embedding);
  headroom_cli_json_int (builder, "position_embedding", params->position_embedding);
  headroom_cli_json_int (builder, "attention", params->attention);
  headroom_cli_json_int (builder, "mlp", params->mlp);
  headroom_cli_json_int (builder, "router", params->router);
  headroom_cli_json_int (builder, "norm", params->norm);
  headroom_cli_json_int (builder, "lm_head", params->lm_head);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

static void
json_flops_part (JsonBuilder *builder,
                 double       forward,
                 double       backward,
                 double       recompute)
{
  headroom_cli_json_double (builder, "forward", forward);
  headroom_cli_json_double (builder, "backward", backward);
  headroom_cli_json_double (builder, "recompute", recompute);
}

void
headroom_cli_json_flops (JsonBuilder   *builder,
                         const HrFlops *flops)
{
  json_builder_begin_object (builder);
  headroom_cli_json_int (builder, "tokens", flops->tokens);
  json_flops_part (builder, flops->forward, flops->backward, flops->recompute);
  headroom_cli_json_double (builder, "total", flops->total);
  headroom_cli_json_double (builder, "per_token", flops->per_token);
  json_builder_set_member_name (builder, "breakdown");
  json_builder_begin_object (builder);
  for (int c = 0; c < HR_FLOPS_N_COMPONENTS; c++)
    {
      const HrFlopsPart *part = &flops->component[c];

      json_builder_set_member_name (builder, hr_flops_component_name (c));
      json_builder_begin_object (builder);
      json_flops_part (builder, part->forward, part->backward, part->recompute);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

void
headroom_cli_print_json (JsonBuilder *builder)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

JsonNode *
headroom_cli_unknown_keys_node (HeadroomProject *project)
{
  const char * const *unknown = headroom_project_get_unknown_keys (project);
  JsonArray *keys;
  JsonNode *node;

  if (unknown[0] == NULL)
    return NULL;
  keys = json_array_new ();
  for (guint i = 0; unknown[i] != NULL; i++)
    json_array_add_string_element (keys, unknown[i]);
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, keys);
  return node;
}

void
headroom_cli_print_model_json (JsonBuilder     *builder,
                               HeadroomProject *project)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  const char *assumed = headroom_project_get_assumed_architecture (project);
  JsonNode *unknown = headroom_cli_unknown_keys_node (project);
  g_autofree char *text = NULL;

  if (assumed != NULL)
    json_object_set_string_member (json_node_get_object (root), "assumed_architecture", assumed);
  if (headroom_project_get_text_only (project))
    json_object_set_boolean_member (json_node_get_object (root), "text_only", TRUE);
  if (unknown != NULL)
    json_object_set_member (json_node_get_object (root), "unknown_keys", unknown);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

void
headroom_cli_print_assumed (HeadroomProject *project)
{
  g_autofree char *note = headroom_project_dup_assumed_note (project);
  g_autofree char *text_only = headroom_project_dup_text_only_note (project);
  g_autofree char *unknown = headroom_project_dup_unknown_keys_note (project);

  if (note != NULL)
    printf ("\n%s\n", note);
  if (text_only != NULL)
    printf ("\n%s\n", text_only);
  if (unknown != NULL)
    printf ("\n%s\n", unknown);
}

/* What a figure too large for a double (or undefined) prints as: never
 * "inf" or "nan". */
#define NOT_A_NUMBER "—"

/* "-0", "-0.00": a negative zero, or a small negative rounded to zero, loses its sign. */
static char *
drop_negative_zero (char *text)
{
  if (text[0] == '-' && text[1] != '\0' && strspn (text + 1, "0.,") == strlen (text + 1))
    memmove (text, text + 1, strlen (text));
  return text;
}

/* g_ascii_formatd() that never writes inf, nan or -0; NULL when `value` is not finite. */
static const char *
format_finite (char       *buf,
               gsize       size,
               const char *format,
               double      value)
{
  if (!isfinite (value))
    return NULL;
  return drop_negative_zero (g_ascii_formatd (buf, size, format, value));
}

char *
headroom_cli_format_number (double value,
                            int    digits)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char format[16];
  const char *text;

  g_snprintf (format, sizeof format, "%%.%dg", digits);
  text = format_finite (buf, sizeof buf, format, value);
  return g_strdup (text != NULL ? text : NOT_A_NUMBER);
}

char *
headroom_cli_format_gib (double bytes)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const char *text;

  /* GiB: 2^30 bytes (IEC). */
  text = format_finite (buf, sizeof buf, "%.2f", bytes / 1073741824.0);
  if (text == NULL)
    return g_strdup (NOT_A_NUMBER);
  return g_strdup_printf ("%s GiB", text);
}

char *
headroom_cli_format_flops (double flops)
{
  static const char * const prefixes[] = { "", "k", "M", "G", "T", "P", "E", "Z", "Y" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint exponent = 0;
  double scaled = flops;

  if (!isfinite (flops))
    return g_strdup (NOT_A_NUMBER);
  while (fabs (scaled) >= 1000 && exponent + 1 < G_N_ELEMENTS (prefixes))
    {
      scaled /= 1000;
      exponent++;
    }

  format_finite (buf, sizeof buf, exponent == 0 ? "%.0f" : "%.3f", scaled);
  return g_strdup_printf ("%s %sFLOP", buf, prefixes[exponent]);
}

char *
headroom_cli_format_count (double count)
{
  char digits[64];
  GString *out = g_string_new (NULL);
  gsize n;

  if (!isfinite (count))
    {
      g_string_free (out, TRUE);
      return g_strdup (NOT_A_NUMBER);
    }
  /* Past 10^15 the digits say nothing a reader can use. */
  if (fabs (count) >= 1e15)
    {
      g_string_free (out, TRUE);
      return g_strdup (g_ascii_formatd (digits, sizeof digits, "%.3g", count));
    }
  g_snprintf (digits, sizeof digits, "%.0f", fabs (count));
  n = strlen (digits);
  /* No "-0" for -0 or a small negative. */
  if (count < 0 && strcmp (digits, "0") != 0)
    g_string_append_c (out, '-');
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }

  return g_string_free (out, FALSE);
}

char *
headroom_cli_format_gpus (gint64 gpus)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" G_GINT64_FORMAT " GPU",
                                       "%" G_GINT64_FORMAT " GPUs", gpus),
                          gpus);
}

char *
headroom_cli_format_duration (double seconds)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (seconds) || seconds < 0)
    return g_strdup (NOT_A_NUMBER);
  if (seconds < 1e-3)
    return g_strdup_printf ("%s µs", g_ascii_formatd (buf, sizeof buf, "%.1f", seconds * 1e6));
  if (seconds < 1)
    return g_strdup_printf ("%s ms", g_ascii_formatd (buf, sizeof buf, "%.2f", seconds * 1e3));
  if (seconds < 120)
    return g_strdup_printf ("%s s", g_ascii_formatd (buf, sizeof buf, "%.2f", seconds));
  if (seconds < 2 * 3600)
    return g_strdup_printf ("%s min", g_ascii_formatd (buf, sizeof buf, "%.1f", seconds / 60));
  if (seconds < 2 * 86400)
    return g_strdup_printf ("%s h", g_ascii_formatd (buf, sizeof buf, "%.1f", seconds / 3600));
  if (seconds < HEADROOM_LONGEST_IN_DAYS)
    return g_strdup_printf ("%s days", g_ascii_formatd (buf, sizeof buf, "%.1f", seconds / 86400));
  return g_strdup_printf ("%s years", g_ascii_formatd (buf, sizeof buf, "%.3g", seconds / HEADROOM_JULIAN_YEAR));
}

char *
headroom_cli_format_limit (gint64 value)
{
  return value > 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, value) : g_strdup (_("none fits"));
}

char *
headroom_cli_format_length_limit (gint64 value,
                                  gint64 context)
{
  if (value <= 0 || context <= 0 || value < context)
    return headroom_cli_format_limit (value);
  if (value == context)
    /* TRANSLATORS: a longest sequence that stops at what the model reads */
    return g_strdup_printf (_("%" G_GINT64_FORMAT " (the model’s context)"), value);
  /* TRANSLATORS: e.g. "262144 (beyond the model's context of 131072)" */
  return g_strdup_printf (_("%" G_GINT64_FORMAT " (beyond the model’s context of %" G_GINT64_FORMAT ")"),
                          value, context);
}

char *
headroom_cli_mark_not_fit (char    *text,
                           gboolean fits)
{
  char *marked;

  if (fits)
    return text;
  /* TRANSLATORS: a time or cost of a configuration that does not fit in memory */
  marked = g_strdup_printf (_("%s (does not fit)"), text);
  g_free (text);
  return marked;
}

static void
add_explanations (GPtrArray         *explanations,
                  HeadroomEstimator *estimator,
                  const char        *prefix,
                  GListModel        *items)
{
  guint n = g_list_model_get_n_items (items);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (items, i);
      const char *name = HEADROOM_IS_QUANTITY (item) ? headroom_quantity_get_name (HEADROOM_QUANTITY (item))
                                                     : headroom_flops_row_get_name (HEADROOM_FLOPS_ROW (item));
      g_autofree char *id = NULL;
      char *text;

      /* A time or cost of 0 is one the tables leave out (no training tokens set). */
      if (HEADROOM_IS_QUANTITY (item) && g_str_equal (prefix, "summary.")
          && headroom_quantity_get_value (HEADROOM_QUANTITY (item)) == 0)
        continue;
      id = g_strconcat (prefix, name, NULL);
      text = headroom_estimator_dup_explanation (estimator, id);
      if (text == NULL)
        continue;
      g_ptr_array_add (explanations, g_steal_pointer (&id));
      g_ptr_array_add (explanations, text);
    }
}

GPtrArray *
headroom_cli_dup_explanations (HeadroomEstimator *estimator)
{
  GPtrArray *explanations = g_ptr_array_new_with_free_func (g_free);
  HeadroomPlanRow *step;

  add_explanations (explanations, estimator, "memory.", headroom_estimator_get_memory_segments (estimator));
  if (headroom_estimator_get_workload (estimator) == HEADROOM_WORKLOAD_TRAINING)
    add_explanations (explanations, estimator, "flops.", headroom_estimator_get_flops_rows (estimator));
  add_explanations (explanations, estimator, "summary.", headroom_estimator_get_summary (estimator));
  /* The predicted step's parts, as the Plan view explains a layout's. */
  step = headroom_estimator_get_step_row (estimator);
  for (guint part = 0; step != NULL && part < HEADROOM_PLAN_N_PARTS; part++)
    {
      if (part != HEADROOM_PLAN_PART_COMPUTE && headroom_plan_row_get_part_seconds (step, part) <= 0)
        continue;
      g_ptr_array_add (explanations, g_strconcat ("step.", headroom_plan_part_get_name (part), NULL));
      g_ptr_array_add (explanations, headroom_plan_row_dup_explanation (step, part));
    }
  return explanations;
}

/* Under "Why": each derivation, its assumption and source lines indented. */
void
headroom_cli_print_explanations (GPtrArray *explanations)
{
  if (explanations == NULL || explanations->len == 0)
    return;
  printf ("\n%s\n", _("Why"));
  for (guint i = 0; i + 1 < explanations->len; i += 2)
    {
      g_auto(GStrv) lines = g_strsplit (explanations->pdata[i + 1], "\n", -1);

      for (guint k = 0; lines[k] != NULL; k++)
        if (*lines[k] != '\0')
          printf ("%s%s\n", k == 0 ? "" : "  ", lines[k]);
    }
}

void
headroom_cli_json_explanations (JsonBuilder *builder,
                                GPtrArray   *explanations)
{
  if (explanations == NULL)
    return;
  json_builder_set_member_name (builder, "explanations");
  json_builder_begin_object (builder);
  for (guint i = 0; i + 1 < explanations->len; i += 2)
    headroom_cli_json_string (builder, explanations->pdata[i], explanations->pdata[i + 1]);
  json_builder_end_object (builder);
}

struct _HeadroomCliTable
{
  guint      n_columns;
  GPtrArray *cells;   /* row-major; NULL cells print empty */
  char      *align;   /* 'l' or 'r' per column */
};

HeadroomCliTable *
headroom_cli_table_new (guint n_columns)
{
  HeadroomCliTable *table = g_new0 (HeadroomCliTable, 1);

  table->n_columns = n_columns;
  table->cells = g_ptr_array_new_with_free_func (g_free);
  table->align = g_strnfill (n_columns, 'r');
  table->align[0] = 'l';
  return table;
}

void
headroom_cli_table_set_align (HeadroomCliTable *table,
                              const char       *align)
{
  for (guint i = 0; i < table->n_columns && align[i] != '\0'; i++)
    table->align[i] = align[i];
}

static void
table_add_row (HeadroomCliTable *table,
               char             *first,
               va_list           args,
               gboolean          take)
{
  char *cell = first;

  for (guint i = 0; i < table->n_columns; i++)
    {
      g_ptr_array_add (table->cells, take ? cell : g_strdup (cell));
      if (cell != NULL && i + 1 < table->n_columns)
        cell = va_arg (args, char *);
      else
        cell = NULL;
    }
}

void
headroom_cli_table_add (HeadroomCliTable *table,
                        const char       *first,
                        ...)
{
  va_list args;

  va_start (args, first);
  table_add_row (table, (char *) first, args, FALSE);
  va_end (args);
}

void
headroom_cli_table_take (HeadroomCliTable *table,
                         char             *first,
                         ...)
{
  va_list args;

  va_start (args, first);
  table_add_row (table, first, args, TRUE);
  va_end (args);
}

void
headroom_cli_table_take_cell (HeadroomCliTable *table,
                              char             *cell)
{
  g_ptr_array_add (table->cells, cell);
}

void
headroom_cli_table_add_gib (HeadroomCliTable *table,
                            const char       *label,
                            double            bytes)
{
  headroom_cli_table_take (table, g_strdup (label), headroom_cli_format_gib (bytes), NULL);
}

void
headroom_cli_table_print (HeadroomCliTable *table)
{
  g_autofree glong *widths = g_new0 (glong, table->n_columns);
  guint n_rows = table->cells->len / table->n_columns;

  for (guint i = 0; i < table->cells->len; i++)
    {
      const char *cell = g_ptr_array_index (table->cells, i);

      if (cell != NULL)
        widths[i % table->n_columns] = MAX (widths[i % table->n_columns], g_utf8_strlen (cell, -1));
    }

  for (guint row = 0; row < n_rows; row++)
    {
      GString *line = g_string_new (NULL);

      for (guint column = 0; column < table->n_columns; column++)
        {
          const char *cell = g_ptr_array_index (table->cells, row * table->n_columns + column);
          glong pad = widths[column] - (cell != NULL ? g_utf8_strlen (cell, -1) : 0);

          gboolean right = table->align[column] == 'r';

          if (column > 0)
            g_string_append (line, "  ");
          if (right)
            for (glong i = 0; i < pad; i++)
              g_string_append_c (line, ' ');
          g_string_append (line, cell != NULL ? cell : "");
          if (!right)
            for (glong i = 0; i < pad; i++)
              g_string_append_c (line, ' ');
        }

      /* No trailing blanks on rows that end early. */
      while (line->len > 0 && line->str[line->len - 1] == ' ')
        g_string_truncate (line, line->len - 1);
      printf ("%s\n", line->str);
      g_string_free (line, TRUE);
    }
}

void
headroom_cli_table_free (HeadroomCliTable *table)
{
  g_ptr_array_unref (table->cells);
  g_free (table->align);
  g_free (table);
}
