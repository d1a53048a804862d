/* headroom-cli-options.c: command-line options made from the project's key table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every row of the key table in a command's section (training.* for train and
 * plan, inference.* for infer) and in hardware.*, and the keys that say how to
 * read MODEL (--assume-architecture) on every command, is an option, "--OPTION VALUE"
 * or, for a boolean, "--FLAG" (true) or "--FLAG=true|false", named by
 * headroom_key_info_get_option(). A value
 * given is set on the command's HeadroomProject with the table's own parsing
 * and bounds, so the CLI, project files and the window read a value alike.
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "headroom-cli.h"
#include "headroom-hf-config.h"

struct _HeadroomCliKeyOptions
{
  GPtrArray *infos;     /* const HeadroomKeyInfo *, one per entry */
  char     **values;    /* the text given, NULL when not given */
  GOptionEntry *entries;
  GPtrArray *owned;     /* argument descriptions */
  const char * const *searched;  /* keys the command varies itself; NULL: none */
};

/* The options whose flags a callback is filling: GOption gives a main
 * entry's callback no data of its own. A command parses one set at a time. */
static HeadroomCliKeyOptions *parsing;

/* "--FLAG" is true; "--FLAG=VALUE" keeps VALUE for the key table to read
 * (true or false), so that an explicit false overrides a framework's
 * default and any other word is an error naming the option. */
static gboolean
flag_given (const char  *option_name,
            const char  *value,
            gpointer     data,
            GError     **error)
{
  const char *name = option_name + strspn (option_name, "-");

  g_return_val_if_fail (parsing != NULL, FALSE);
  for (guint i = 0; i < parsing->infos->len; i++)
    if (strcmp (headroom_key_info_get_option (parsing->infos->pdata[i]), name) == 0)
      {
        g_free (parsing->values[i]);
        parsing->values[i] = g_strdup (value != NULL ? value : "true");
        return TRUE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "%s", option_name);
  return FALSE;
}

void
headroom_cli_key_options_free (HeadroomCliKeyOptions *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->infos->len; i++)
    g_free (self->values[i]);
  g_free (self->values);
  g_free (self->entries);
  g_ptr_array_unref (self->infos);
  g_ptr_array_unref (self->owned);
  if (parsing == self)
    parsing = NULL;
  g_free (self);
}

/* Model keys that are not the config's own but say how to read it: an
 * option of every command that reads MODEL. */
static const char * const model_reading_keys[] = { "model.assume_architecture", NULL };

static gboolean
in_section (const HeadroomKeyInfo *info,
            const char            *section)
{
  gsize len;

  if (section == NULL)
    return FALSE;
  len = strlen (section);
  return strncmp (info->key, section, len) == 0 && info->key[len] == '.';
}

HeadroomCliKeyOptions *
headroom_cli_key_options_new (GOptionContext *context,
                              const char     *section)
{
  HeadroomCliKeyOptions *self = g_new0 (HeadroomCliKeyOptions, 1);
  const HeadroomKeyInfo *keys;
  guint n_keys, n = 0;

  self->infos = g_ptr_array_new ();
  self->owned = g_ptr_array_new_with_free_func (g_free);
  keys = headroom_project_get_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    if (g_strv_contains (model_reading_keys, keys[i].key)
        || (section != NULL && (in_section (&keys[i], section) || in_section (&keys[i], "hardware"))))
      g_ptr_array_add (self->infos, (gpointer) &keys[i]);

  self->values = g_new0 (char *, self->infos->len);
  self->entries = g_new0 (GOptionEntry, self->infos->len + 1);
  for (guint i = 0; i < self->infos->len; i++)
    {
      const HeadroomKeyInfo *info = self->infos->pdata[i];
      GOptionEntry *entry = &self->entries[n++];
      char *arg;

      entry->long_name = headroom_key_info_get_option (info);
      entry->description = info->label;
      if (info->type == HEADROOM_KEY_BOOLEAN)
        {
          entry->arg = G_OPTION_ARG_CALLBACK;
          entry->flags = G_OPTION_FLAG_OPTIONAL_ARG;
          entry->arg_data = flag_given;
          continue;
        }
      entry->arg = G_OPTION_ARG_STRING;
      entry->arg_data = &self->values[i];
      if (info->type == HEADROOM_KEY_CHOICE)
        arg = g_strjoinv ("|", (char **) info->choices);
      else if (info->unit != NULL)
        arg = g_ascii_strup (info->unit, -1);
      else
        arg = g_strdup (info->type == HEADROOM_KEY_STRING ? "TEXT" : "N");
      g_strdelimit (arg, " /", '_');
      g_ptr_array_add (self->owned, arg);
      entry->arg_description = arg;
    }
  g_option_context_add_main_entries (context, self->entries, GETTEXT_PACKAGE);
  parsing = self;
  return self;
}

const char *
headroom_cli_key_options_get (HeadroomCliKeyOptions *self,
                              const char            *key)
{
  for (guint i = 0; i < self->infos->len; i++)
    {
      const HeadroomKeyInfo *info = self->infos->pdata[i];

      if (strcmp (info->key, key) == 0)
        return self->values[i];
    }
  g_critical ("%s: not an option of this command", key);
  return NULL;
}

gboolean
headroom_cli_key_options_check (HeadroomCliKeyOptions  *self,
                                const char             *key,
                                GError                **error)
{
  g_autoptr(HeadroomProject) scratch = headroom_project_new ();
  g_autoptr(GError) local_error = NULL;
  const char *text = headroom_cli_key_options_get (self, key);

  if (text == NULL || headroom_project_set_from_string (scratch, key, text, &local_error))
    return TRUE;
  g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, "--%s: %s",
               headroom_key_info_get_option (headroom_project_find_key (key)),
               headroom_project_error_get_problem (local_error) != NULL
               ? headroom_project_error_get_problem (local_error) : local_error->message);
  return FALSE;
}

const char *
headroom_cli_choice_name (const char *key,
                          int         value)
{
  const HeadroomKeyInfo *info = headroom_project_find_key (key);
  const char *name;

  g_return_val_if_fail (info != NULL, "");
  name = headroom_key_info_get_choice_for_enum (info, value);
  return name != NULL ? name : "";
}

void
headroom_cli_set_key_error (GError      **error,
                            const GError *key_error)
{
  const char *key = headroom_project_error_get_key (key_error);
  const char *problem = headroom_project_error_get_problem (key_error);
  const HeadroomKeyInfo *info = key != NULL ? headroom_project_find_key (key) : NULL;

  /* The label, as the window and the report say it, and the option that sets it. */
  if (info != NULL && problem != NULL && !g_str_has_prefix (key, "model."))
    g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, "%s (--%s): %s",
                 headroom_project_get_key_label (key), headroom_key_info_get_option (info), problem);
  else
    g_set_error_literal (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, key_error->message);
}

void
headroom_cli_set_file_error (GError       **error,
                             const char    *file,
                             const GError  *file_error)
{
  const char *key = headroom_project_error_get_key (file_error);
  const char *problem = headroom_project_error_get_problem (file_error);
  const char *field = headroom_hf_config_error_get_field (file_error);
  g_autofree char *model_key = NULL;
  const char *label;

  if (field != NULL)
    {
      key = model_key = g_strconcat ("model.", field, NULL);
      problem = headroom_hf_config_error_get_problem (file_error);
    }
  label = key != NULL && problem != NULL ? headroom_project_get_key_label (key) : NULL;
  /* A config's field read by the project loader (a number that is not
   * finite): the model key of that name. */
  if (label == NULL && key != NULL && problem != NULL && model_key == NULL)
    {
      model_key = g_strconcat ("model.", key, NULL);
      label = headroom_project_get_key_label (model_key);
      if (label != NULL)
        key = model_key;
    }
  /* The label and, in parentheses, the key as the file spells it: a config's
   * own name for a model key. */
  if (label != NULL)
    g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, "%s: %s (%s): %s", file,
                 label, g_str_has_prefix (key, "model.") ? key + strlen ("model.") : key, problem);
  else
    g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE, "%s: %s", file,
                 file_error->message);
}

/* "LoRA, QLoRA or DoRA": the values under which `info` applies, as the
 * window says them. */
static char *
dup_condition_values (const HeadroomKeyInfo *info,
                      const HeadroomKeyInfo *condition)
{
  g_auto(GStrv) values = g_strsplit (strchr (info->visible_when, '=') + 1, "|", -1);
  guint n = g_strv_length (values);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      const char *value = values[i];

      if (i > 0)
        /* TRANSLATORS: separators of a list of values: "LoRA, QLoRA or DoRA" */
        g_string_append (text, i + 1 == n ? _(" or ") : ", ");
      if (condition != NULL && condition->type == HEADROOM_KEY_CHOICE)
        value = _(headroom_key_info_get_choice_label (condition, value));
      else if (condition != NULL && condition->type == HEADROOM_KEY_BOOLEAN)
        value = g_str_equal (value, "true") ? _("on") : _("off");
      g_string_append (text, value);
    }
  return g_string_free (text, FALSE);
}

/* Whether `key` applies in one of `projects` at least. */
static gboolean
applies_in_any (HeadroomProject * const *projects,
                guint                    n_projects,
                const char              *key)
{
  for (guint p = 0; p < n_projects; p++)
    if (headroom_project_key_applies (projects[p], key))
      return TRUE;
  return FALSE;
}

gboolean
headroom_cli_key_options_check_applies (HeadroomCliKeyOptions   *self,
                                        HeadroomProject * const *projects,
                                        guint                    n_projects,
                                        GError                 **error)
{
  for (guint i = 0; i < self->infos->len; i++)
    {
      const HeadroomKeyInfo *info = self->infos->pdata[i];
      g_autofree char *condition_key = NULL;
      g_autofree char *values = NULL;
      const HeadroomKeyInfo *condition;

      if (self->values[i] == NULL || info->visible_when == NULL
          || (info->type == HEADROOM_KEY_BOOLEAN && g_str_equal (self->values[i], "false"))
          || applies_in_any (projects, n_projects, info->key))
        continue;
      condition_key = headroom_key_info_dup_condition_key (info);
      /* The command tries the condition's values itself (plan's layouts). */
      if (self->searched != NULL && g_strv_contains (self->searched, condition_key)
          && headroom_cli_key_options_get (self, condition_key) == NULL)
        continue;
      condition = headroom_project_find_key (condition_key);
      values = dup_condition_values (info, condition);
      if (condition != NULL && !g_str_equal (condition_key, "workload"))
        g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                     _("%s (--%s): applies only when %s (--%s) is %s"),
                     headroom_project_get_key_label (info->key), headroom_key_info_get_option (info),
                     headroom_project_get_key_label (condition_key),
                     headroom_key_info_get_option (condition), values);
      else
        g_set_error (error, HEADROOM_CLI_ERROR, HEADROOM_CLI_ERROR_USAGE,
                     _("%s (--%s): applies only to %s"),
                     headroom_project_get_key_label (info->key), headroom_key_info_get_option (info),
                     g_str_has_suffix (info->visible_when, "=training") ? _("training (train, plan)")
                                                                       : _("serving (infer)"));
      return FALSE;
    }
  return TRUE;
}

void
headroom_cli_key_options_set_searched (HeadroomCliKeyOptions *self,
                                       const char * const    *keys)
{
  self->searched = keys;
}

gboolean
headroom_cli_key_options_set (HeadroomCliKeyOptions  *self,
                              HeadroomProject        *project,
                              GError                **error)
{
  for (guint i = 0; i < self->infos->len; i++)
    {
      const HeadroomKeyInfo *info = self->infos->pdata[i];
      g_autoptr(GError) local_error = NULL;
      const char *text = self->values[i];

      if (text == NULL)
        continue;
      if (!headroom_project_set_from_string (project, info->key, text, &local_error))
        {
          headroom_cli_set_key_error (error, local_error);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
headroom_cli_key_options_apply (HeadroomCliKeyOptions  *self,
                                HeadroomProject        *project,
                                GError                **error)
{
  return headroom_cli_key_options_set (self, project, error)
         && headroom_cli_key_options_check_applies (self, &project, 1, error);
}
