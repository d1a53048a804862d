/* headroom-setting.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "headroom-setting.h"
#include "headroom-spin-row.h"
#include "headroom-switch-row.h"

struct _HeadroomSetting
{
  GObject                parent_instance;

  char                  *key;
  const HeadroomKeyInfo *info;
  gboolean               extra;  /* an extra model key: 0 hands it back to the preset */
  GtkWidget             *row;    /* weak: the row owns its setting */
  HeadroomProject       *project;
  gulong                 changed_id[6];
  gboolean               syncing;
};

G_DEFINE_FINAL_TYPE (HeadroomSetting, headroom_setting, G_TYPE_OBJECT)

/* A row of the key table, or of its extra model keys. */
static const HeadroomKeyInfo *
find_key (const char *key,
          gboolean   *extra)
{
  const HeadroomKeyInfo *extras;
  const HeadroomKeyInfo *info = headroom_project_find_key (key);
  guint n_extras;

  *extra = FALSE;
  if (info != NULL)
    return info;
  extras = headroom_project_get_extra_model_keys (&n_extras);
  for (guint i = 0; i < n_extras; i++)
    if (g_str_equal (extras[i].key, key))
      {
        *extra = TRUE;
        return &extras[i];
      }
  return NULL;
}

const char *
headroom_setting_choice_label (const char *key,
                               const char *value)
{
  const HeadroomKeyInfo *info = headroom_project_find_key (key);

  /* The table's labels are English: translated here. */
  return info != NULL ? _(headroom_key_info_get_choice_label (info, value)) : value;
}

/* Row → project */

static void
report (HeadroomSetting *self,
        gboolean         ok,
        GError          *error)
{
  if (ok)
    {
      headroom_setting_set_error (self, NULL);
      return;
    }
  headroom_setting_set_error (self, error->message);
}

static void
on_spin_changed (HeadroomSetting *self)
{
  g_autoptr(GError) error = NULL;
  double value = headroom_spin_row_get_value (HEADROOM_SPIN_ROW (self->row));
  gboolean ok;

  if (self->syncing || self->project == NULL)
    return;
  /* Extra model keys: 0 hands the value back to the preset. */
  if (self->extra && value == 0)
    {
      headroom_project_unset (self->project, self->key);
      return;
    }
  if (self->info->type == HEADROOM_KEY_DOUBLE)
    ok = headroom_project_set_double (self->project, self->key, value, &error);
  else
    ok = headroom_project_set_int (self->project, self->key, (gint64) llround (value), &error);
  report (self, ok, error);
}

static void
on_switch_changed (HeadroomSetting *self)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (self->syncing || self->project == NULL)
    return;
  ok = headroom_project_set_boolean (self->project, self->key,
                                     headroom_switch_row_get_active (HEADROOM_SWITCH_ROW (self->row)),
                                     &error);
  report (self, ok, error);
}

static void
on_combo_changed (HeadroomSetting *self)
{
  g_autoptr(GError) error = NULL;
  guint selected = adw_combo_row_get_selected (ADW_COMBO_ROW (self->row));
  gboolean ok;

  if (self->syncing || self->project == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  ok = headroom_project_set_string (self->project, self->key, self->info->choices[selected], &error);
  report (self, ok, error);
}

static void
on_entry_apply (HeadroomSetting *self)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (self->project == NULL)
    return;
  ok = headroom_project_set_string (self->project, self->key,
                                    gtk_editable_get_text (GTK_EDITABLE (self->row)), &error);
  report (self, ok, error);
}

/* Project → row */

/* The row's subtitle: its unit, and whose default it shows when the
 * project's framework fills it ("torchtune’s default"). */
static void
refresh_subtitle (HeadroomSetting *self)
{
  const char *source = headroom_project_get_default_source (self->project, self->key);
  const char *unit = self->info->unit;
  g_autofree char *subtitle = NULL;

  if (!ADW_IS_ACTION_ROW (self->row))
    return;
  if (source != NULL)
    /* TRANSLATORS: %s is a framework, e.g. "torchtune"; the value shown is its default */
    subtitle = g_strdup_printf (_("%s’s default"), source);
  if (subtitle != NULL && unit != NULL)
    {
      /* TRANSLATORS: a unit and whose default, e.g. "sequences · torchtune’s default" */
      char *joined = g_strdup_printf (_("%s · %s"), unit, subtitle);

      g_free (subtitle);
      subtitle = joined;
    }
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->row),
                               subtitle != NULL ? subtitle : unit != NULL ? unit : "");
}

static void
refresh (HeadroomSetting *self)
{
  if (self->project == NULL || self->row == NULL)
    return;
  refresh_subtitle (self);
  self->syncing = TRUE;
  if (HEADROOM_IS_SPIN_ROW (self->row))
    {
      double value;

      if (self->info != NULL && self->info->type == HEADROOM_KEY_DOUBLE)
        value = headroom_project_get_double (self->project, self->key);
      else
        value = (double) headroom_project_get_int (self->project, self->key);
      /* Setting the same value would rewrite text the user is typing. */
      if (headroom_spin_row_get_value (HEADROOM_SPIN_ROW (self->row)) != value)
        headroom_spin_row_set_value (HEADROOM_SPIN_ROW (self->row), value);
    }
  else if (HEADROOM_IS_SWITCH_ROW (self->row))
    headroom_switch_row_set_active (HEADROOM_SWITCH_ROW (self->row),
                                    headroom_project_get_boolean (self->project, self->key));
  else if (ADW_IS_COMBO_ROW (self->row))
    {
      const char *value = headroom_project_get_string (self->project, self->key);

      /* A choice without a default (model.assume_architecture) unset: the first. */
      if (value == NULL)
        adw_combo_row_set_selected (ADW_COMBO_ROW (self->row), 0);
      for (guint i = 0; self->info->choices[i] != NULL; i++)
        if (g_strcmp0 (self->info->choices[i], value) == 0)
          adw_combo_row_set_selected (ADW_COMBO_ROW (self->row), i);
    }
  else if (ADW_IS_ENTRY_ROW (self->row))
    {
      const char *value = headroom_project_get_string (self->project, self->key);

      gtk_editable_set_text (GTK_EDITABLE (self->row), value ? value : "");
    }
  self->syncing = FALSE;
}

static GtkWidget *
spin_row_new (HeadroomSetting *self,
              const char      *label,
              double           lower,
              double           upper,
              gboolean         fractional,
              const char      *unit)
{
  GtkWidget *row;
  double step = 1;
  guint digits = 0;
  const char *placeholder = NULL;

  /* Token budgets and the like are whole numbers, however large. */
  if (fractional && upper <= 1e6)
    {
      digits = upper <= 1 ? 3 : 2;
      step = upper <= 1 ? 0.01 : 0.1;
    }
  row = headroom_spin_row_new (label, self->key, lower, upper, step, digits);
  /* Fractions of one are shown and typed as percentages (0.4 reads "40 %"). */
  if (fractional && upper <= 1)
    headroom_spin_row_set_percent (HEADROOM_SPIN_ROW (row), TRUE);
  /* Room for a token budget of 10¹² and more. */
  if (upper > 1e10)
    gtk_editable_set_width_chars (GTK_EDITABLE (headroom_spin_row_get_spin_button (HEADROOM_SPIN_ROW (row))), 17);
  if (unit != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), unit);
  if (self->info->placeholder != NULL)
    placeholder = _(self->info->placeholder);
  if (placeholder != NULL)
    headroom_spin_row_set_zero_text (HEADROOM_SPIN_ROW (row), placeholder);
  g_signal_connect_object (row, "notify::value", G_CALLBACK (on_spin_changed),
                           self, G_CONNECT_SWAPPED);
  return row;
}

static GtkWidget *
row_new (HeadroomSetting *self)
{
  const HeadroomKeyInfo *info = self->info;
  GtkWidget *row = NULL;

  switch (info->type)
    {
    case HEADROOM_KEY_INT:
    case HEADROOM_KEY_DOUBLE:
      row = spin_row_new (self, _(info->label), info->minimum, info->maximum,
                          info->type == HEADROOM_KEY_DOUBLE, info->unit);
      break;
    case HEADROOM_KEY_BOOLEAN:
      row = headroom_switch_row_new (_(info->label), info->key);
      g_signal_connect_object (row, "notify::active", G_CALLBACK (on_switch_changed),
                               self, G_CONNECT_SWAPPED);
      break;
    case HEADROOM_KEY_CHOICE:
      {
        g_autoptr(GtkStringList) choices = gtk_string_list_new (NULL);

        /* Same order as info->choices: the selected index maps back to the value. */
        for (guint i = 0; info->choices[i] != NULL; i++)
          gtk_string_list_append (choices, headroom_setting_choice_label (info->key, info->choices[i]));
        row = adw_combo_row_new ();
        adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(info->label));
        adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (choices));
        g_signal_connect_object (row, "notify::selected", G_CALLBACK (on_combo_changed),
                                 self, G_CONNECT_SWAPPED);
      }
      break;
    case HEADROOM_KEY_STRING:
      row = adw_entry_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(info->label));
      adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
      g_signal_connect_object (row, "apply", G_CALLBACK (on_entry_apply),
                               self, G_CONNECT_SWAPPED);
      break;
    default:
      g_assert_not_reached ();
    }
  return row;
}

static void
headroom_setting_dispose (GObject *object)
{
  HeadroomSetting *self = HEADROOM_SETTING (object);

  headroom_setting_set_project (self, NULL);
  if (self->row != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->row), (gpointer *) &self->row);
  self->row = NULL;

  G_OBJECT_CLASS (headroom_setting_parent_class)->dispose (object);
}

static void
headroom_setting_finalize (GObject *object)
{
  g_free (HEADROOM_SETTING (object)->key);

  G_OBJECT_CLASS (headroom_setting_parent_class)->finalize (object);
}

static void
headroom_setting_class_init (HeadroomSettingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = headroom_setting_dispose;
  object_class->finalize = headroom_setting_finalize;
}

static void
headroom_setting_init (HeadroomSetting *self)
{
}

HeadroomSetting *
headroom_setting_new (const char *key)
{
  HeadroomSetting *self;
  const HeadroomKeyInfo *info;
  gboolean extra;

  g_return_val_if_fail (key != NULL, NULL);

  info = find_key (key, &extra);
  if (info == NULL)
    return NULL;

  self = g_object_new (HEADROOM_TYPE_SETTING, NULL);
  self->key = g_strdup (key);
  self->info = info;
  self->extra = extra;
  self->row = row_new (self);
  g_object_add_weak_pointer (G_OBJECT (self->row), (gpointer *) &self->row);
  if (info->description != NULL)
    gtk_widget_set_tooltip_text (self->row, _(info->description));
  /* The row keeps its setting alive: a page may hold rows only. */
  g_object_set_data_full (G_OBJECT (self->row), "headroom-setting", g_object_ref (self),
                          g_object_unref);
  return self;
}

HeadroomSetting *
headroom_setting_from_row (GtkWidget *row)
{
  g_return_val_if_fail (GTK_IS_WIDGET (row), NULL);

  return g_object_get_data (G_OBJECT (row), "headroom-setting");
}

const char *
headroom_setting_get_key (HeadroomSetting *self)
{
  g_return_val_if_fail (HEADROOM_IS_SETTING (self), NULL);

  return self->key;
}

GtkWidget *
headroom_setting_get_row (HeadroomSetting *self)
{
  g_return_val_if_fail (HEADROOM_IS_SETTING (self), NULL);

  return self->row;
}

const char *
headroom_setting_get_label (HeadroomSetting *self)
{
  g_return_val_if_fail (HEADROOM_IS_SETTING (self), NULL);

  return _(self->info->label);
}

const char *
headroom_setting_get_group (HeadroomSetting *self)
{
  g_return_val_if_fail (HEADROOM_IS_SETTING (self), NULL);

  return self->info->group;
}

/* Whether the table files `info` on page `where` ("model") or in its
 * group `where` ("model/moe"). */
static gboolean
key_info_is_in (const HeadroomKeyInfo *info,
                const char            *where)
{
  gsize length = strlen (where);

  return info->group != NULL && strncmp (info->group, where, length) == 0
         && (info->group[length] == '\0' || info->group[length] == '/');
}

GPtrArray *
headroom_setting_list_page (const char *page)
{
  GPtrArray *settings = g_ptr_array_new_with_free_func (g_object_unref);
  const HeadroomKeyInfo *tables[2];
  guint n_keys[2];

  tables[0] = headroom_project_get_keys (&n_keys[0]);
  tables[1] = headroom_project_get_extra_model_keys (&n_keys[1]);
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    for (guint i = 0; i < n_keys[t]; i++)
      {
        const HeadroomKeyInfo *info = &tables[t][i];

        /* The preset and GPU choosers search catalogs: their pages build them. */
        if (!key_info_is_in (info, page) || g_str_equal (info->key, "hardware.gpu"))
          continue;
        g_ptr_array_add (settings, headroom_setting_new (info->key));
      }
  return settings;
}

gboolean
headroom_setting_is_on_page (const char *key,
                             const char *page)
{
  gboolean extra;
  const HeadroomKeyInfo *info;

  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (page != NULL, FALSE);

  info = find_key (key, &extra);
  return info != NULL && key_info_is_in (info, page);
}

HeadroomProject *
headroom_setting_get_project (HeadroomSetting *self)
{
  g_return_val_if_fail (HEADROOM_IS_SETTING (self), NULL);

  return self->project;
}

static void
on_project_changed (HeadroomSetting *self)
{
  refresh (self);
}

/* A training key left unset shows a default that other keys choose
 * (training.framework, headroom_project_key_moves_defaults()). */
static void
on_other_changed (HeadroomSetting *self,
                  const char      *key)
{
  if (strcmp (key, self->key) != 0 && headroom_project_key_moves_defaults (key))
    refresh (self);
}

/* Rows that apply under some settings only (the key table's visible_when):
 * LoRA rank under LoRA, QLoRA and DoRA; and a workload's rows under it
 * (headroom_project_key_applies()). */
static void
refresh_visible (HeadroomSetting *self)
{
  if (self->project != NULL && self->row != NULL)
    gtk_widget_set_visible (self->row, headroom_project_key_applies (self->project, self->key));
}

void
headroom_setting_set_project (HeadroomSetting *self,
                              HeadroomProject *project)
{
  g_return_if_fail (HEADROOM_IS_SETTING (self));
  g_return_if_fail (project == NULL || HEADROOM_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    for (guint i = 0; i < G_N_ELEMENTS (self->changed_id); i++)
      g_clear_signal_handler (&self->changed_id[i], self->project);
  g_set_object (&self->project, project);
  if (project == NULL)
    return;
  {
    g_autofree char *signal = g_strconcat ("changed::", self->key, NULL);

    self->changed_id[0] = g_signal_connect_object (project, signal, G_CALLBACK (on_project_changed),
                                                   self, G_CONNECT_SWAPPED);
  }
  /* A new preset or config changes every model value at once. */
  if (g_str_has_prefix (self->key, "model."))
    {
      self->changed_id[1] = g_signal_connect_object (project, "changed::model",
                                                     G_CALLBACK (on_project_changed),
                                                     self, G_CONNECT_SWAPPED);
      self->changed_id[2] = g_signal_connect_object (project, "changed::model.preset",
                                                     G_CALLBACK (on_project_changed),
                                                     self, G_CONNECT_SWAPPED);
    }
  if (self->info != NULL && self->info->visible_when != NULL)
    {
      g_autofree char *condition = headroom_key_info_dup_condition_key (self->info);
      g_autofree char *signal = g_strconcat ("changed::", condition, NULL);

      self->changed_id[3] = g_signal_connect_object (project, signal, G_CALLBACK (refresh_visible),
                                                     self, G_CONNECT_SWAPPED);
    }
  if (g_str_has_prefix (self->key, "training.") || g_str_has_prefix (self->key, "inference."))
    self->changed_id[4] = g_signal_connect_object (project, "changed::workload",
                                                   G_CALLBACK (refresh_visible), self,
                                                   G_CONNECT_SWAPPED);
  if (g_str_has_prefix (self->key, "training."))
    self->changed_id[5] = g_signal_connect_object (project, "changed",
                                                   G_CALLBACK (on_other_changed), self,
                                                   G_CONNECT_SWAPPED);
  if (self->changed_id[3] != 0 || self->changed_id[4] != 0)
    refresh_visible (self);
  headroom_setting_set_error (self, NULL);
  refresh (self);
}

void
headroom_setting_set_error (HeadroomSetting *self,
                            const char      *message)
{
  g_return_if_fail (HEADROOM_IS_SETTING (self));

  if (self->row == NULL)
    return;
  if (message != NULL)
    gtk_widget_add_css_class (self->row, "error");
  else
    gtk_widget_remove_css_class (self->row, "error");
  if (self->info->description == NULL
      && g_strcmp0 (gtk_widget_get_tooltip_text (self->row), message) != 0)
    gtk_widget_set_tooltip_text (self->row, message);
}
