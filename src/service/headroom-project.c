/* headroom-project.c: the project object, its getters and setters
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-project"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "headroom-catalog.h"
#include "headroom-file.h"
#include "headroom-project-private.h"
#include "headroom-scenario.h"

static void
unknown_free (Unknown *unknown)
{
  g_free (unknown->section);
  g_free (unknown->name);
  json_node_unref (unknown->node);
  g_free (unknown);
}

G_DEFINE_FINAL_TYPE (HeadroomProject, headroom_project, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_MODIFIED,
  N_PROPS
};

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* "model.x" keys other than the preset live in the config. */
const char *
headroom_project_config_member (const char *key)
{
  if (g_str_has_prefix (key, "model.") && strcmp (key, "model.preset") != 0
      && key[strlen ("model.")] != '\0' && strchr (key + strlen ("model."), '.') == NULL)
    return key + strlen ("model.");
  return NULL;
}

/* Model keys whose value the derived HrModel holds, and the other spellings
 * of the families that read them (src/core/hr-config*.c: GPT-2 n_layer, n_embd,
 * n_head, n_positions, n_inner; Falcon n_layer, n_head, num_kv_heads,
 * n_head_kv, ffn_hidden_size; DeepSeek and GLM-4.5 n_routed_experts; Qwen
 * MoE, OLMoE, Hunyuan and FlexOlmo num_experts; ERNIE 4.5 moe_num_experts,
 * moe_k and moe_num_shared_experts; Hunyuan moe_topk; GPT-Neo num_layers and
 * num_heads; GPT-BigCode and CodeGen GPT-2's). Qwen2-MoE has no
 * n_shared_experts: its one shared expert shows, derived from
 * shared_expert_intermediate_size; Hunyuan's one shared MLP likewise. */
static const struct
{
  const char *key;
  gsize offset;
  gboolean boolean;
  const char *aliases[4];
} model_fields[] = {
  { "model.num_hidden_layers", G_STRUCT_OFFSET (HrModel, n_layers), FALSE,
    { "n_layer", "num_layers" } },
  { "model.hidden_size", G_STRUCT_OFFSET (HrModel, hidden_size), FALSE, { "n_embd" } },
  { "model.num_attention_heads", G_STRUCT_OFFSET (HrModel, n_heads), FALSE,
    { "n_head", "num_heads" } },
  { "model.num_key_value_heads", G_STRUCT_OFFSET (HrModel, n_kv_heads), FALSE,
    { "num_kv_heads", "n_head_kv" } },
  { "model.head_dim", G_STRUCT_OFFSET (HrModel, head_dim), FALSE, { NULL } },
  { "model.intermediate_size", G_STRUCT_OFFSET (HrModel, ffn_size), FALSE,
    { "n_inner", "ffn_hidden_size" } },
  { "model.vocab_size", G_STRUCT_OFFSET (HrModel, vocab_size), FALSE, { NULL } },
  { "model.max_position_embeddings", G_STRUCT_OFFSET (HrModel, max_positions), FALSE,
    { "n_positions" } },
  { "model.tie_word_embeddings", G_STRUCT_OFFSET (HrModel, tied_embeddings), TRUE, { NULL } },
  { "model.attention_bias", G_STRUCT_OFFSET (HrModel, qkv_bias), TRUE, { NULL } },
  { "model.mlp_bias", G_STRUCT_OFFSET (HrModel, mlp_bias), TRUE, { NULL } },
  { "model.num_local_experts", G_STRUCT_OFFSET (HrModel, n_experts), FALSE,
    { "n_routed_experts", "num_experts", "moe_num_experts" } },
  { "model.num_experts_per_tok", G_STRUCT_OFFSET (HrModel, experts_per_token), FALSE,
    { "moe_k", "moe_topk" } },
  { "model.n_shared_experts", G_STRUCT_OFFSET (HrModel, n_shared_experts), FALSE,
    { "moe_num_shared_experts" } },
};

static int
find_model_field (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (model_fields); i++)
    if (strcmp (model_fields[i].key, key) == 0)
      return (int) i;
  return -1;
}

static JsonNode *copy_node (JsonNode *node);

/* json_node_copy() shares objects and arrays; the config is edited in place. */
JsonObject *
headroom_project_copy_object (JsonObject *object)
{
  JsonObject *copy = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy, l->data, copy_node (json_object_get_member (object, l->data)));
  return copy;
}

static JsonNode *
copy_node (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *copy = json_node_new (JSON_NODE_OBJECT);

      json_node_take_object (copy, headroom_project_copy_object (json_node_get_object (node)));
      return copy;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      JsonArray *copy_array = json_array_new ();
      JsonNode *copy = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < json_array_get_length (array); i++)
        json_array_add_element (copy_array, copy_node (json_array_get_element (array, i)));
      json_node_take_array (copy, copy_array);
      return copy;
    }
  return json_node_copy (node);
}

static void
headroom_project_finalize (GObject *object)
{
  HeadroomProject *self = (HeadroomProject *)object;

  g_clear_object (&self->file);
  g_clear_pointer (&self->config, json_object_unref);
  g_clear_pointer (&self->values, g_hash_table_unref);
  g_clear_pointer (&self->unknown, g_ptr_array_unref);
  g_clear_pointer (&self->unknown_paths, g_ptr_array_unref);
  g_clear_pointer (&self->model_name, g_free);
  g_clear_object (&self->scenarios);
  g_clear_object (&self->catalog);

  G_OBJECT_CLASS (headroom_project_parent_class)->finalize (object);
}

static void
headroom_project_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  HeadroomProject *self = HEADROOM_PROJECT (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_project_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  HeadroomProject *self = HEADROOM_PROJECT (object);

  switch (prop_id)
    {
    case PROP_MODIFIED:
      headroom_project_set_modified (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_project_class_init (HeadroomProjectClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_project_finalize;
  object_class->get_property = headroom_project_get_property;
  object_class->set_property = headroom_project_set_property;

  /**
   * HeadroomProject:file:
   *
   * Where the project was loaded from or last saved to; NULL for a new one.
   */
  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * HeadroomProject:modified:
   *
   * Whether a key changed since the project was loaded or saved.
   */
  properties[PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * HeadroomProject::changed:
   * @key: the dotted key that headroom_project_changed ("model" when the whole config was replaced)
   *
   * Emitted after a value changed, with the key as the detail.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
headroom_project_init (HeadroomProject *self)
{
  self->config = json_object_new ();
  self->values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                        (GDestroyNotify) json_node_unref);
  self->unknown = g_ptr_array_new_with_free_func ((GDestroyNotify) unknown_free);
  self->unknown_paths = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->unknown_paths, NULL);
  self->scenarios = g_list_store_new (HEADROOM_TYPE_SCENARIO);
}

HeadroomProject *
headroom_project_new (void)
{
  return g_object_new (HEADROOM_TYPE_PROJECT, NULL);
}

HeadroomProject *
headroom_project_new_default (void)
{
  g_autoptr(HeadroomProject) self = headroom_project_new ();

  headroom_project_set_string (self, "model.preset", "llama-3.1-8b", NULL);
  /* Megatron-style: with TP 1 the activations of 8192-token sequences
   * (45 GiB) and fp32 gradients overflow 80 GiB; TP 2 with sequence
   * parallelism halves both and fits with room to spare. */
  headroom_project_set_int (self, "training.tensor_parallel", 2, NULL);
  headroom_project_set_boolean (self, "training.sequence_parallel", TRUE, NULL);
  headroom_project_set_string (self, "training.recompute", "selective", NULL);
  headroom_project_set_double (self, "training.tokens", 1e12, NULL);
  self->modified = FALSE;

  return g_steal_pointer (&self);
}

void
headroom_project_store_value (HeadroomProject       *self,
                              const HeadroomKeyInfo *info,
                              JsonNode              *node)
{
  g_hash_table_replace (self->values, (gpointer) info->key, node);
}

gboolean
headroom_project_uses_custom_gpu (HeadroomProject *self)
{
  return g_strcmp0 (headroom_project_get_string (self, "hardware.gpu"), "custom") == 0;
}

gboolean
headroom_project_save (HeadroomProject  *self,
                       GFile            *file,
                       GCancellable     *cancellable,
                       GError          **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  bytes = headroom_project_to_bytes (self);
  if (!headroom_file_save (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                           cancellable, error))
    return FALSE;

  if (self->file == NULL || !g_file_equal (self->file, file))
    {
      g_set_object (&self->file, file);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
    }
  headroom_project_set_modified (self, FALSE);
  return TRUE;
}

GFile *
headroom_project_get_file (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return self->file;
}

gboolean
headroom_project_get_modified (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  return self->modified;
}

void
headroom_project_set_modified (HeadroomProject *self,
                               gboolean         modified)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));

  modified = !!modified;
  if (self->modified == modified)
    return;
  self->modified = modified;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

char *
headroom_project_dup_title (HeadroomProject *self)
{
  const char *preset;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  if (self->file != NULL)
    return g_file_get_basename (self->file);
  if (self->model_name != NULL)
    return g_strdup (self->model_name);
  preset = headroom_project_get_preset (self);
  if (preset != NULL && *preset != '\0')
    return g_strdup (preset);
  return g_strdup (_("Untitled Project"));
}

void
headroom_project_changed (HeadroomProject *self,
                          const char      *key)
{
  /* Another model: the imported one's name no longer titles the project. */
  if (strcmp (key, "model.preset") == 0)
    g_clear_pointer (&self->model_name, g_free);
  g_signal_emit (self, signals[SIGNAL_CHANGED], g_quark_from_string (key), key);
  headroom_project_set_modified (self, TRUE);
}

static gboolean
is_longcat (JsonObject *config)
{
  return g_strcmp0 (json_object_get_string_member_with_default (config, "model_type", NULL),
                    "longcat_flash") == 0;
}

/* A family that reads a model field under another spelling (Falcon's
 * n_layer) lets that spelling win when present, so a new value goes under
 * every spelling the model has. Returns whether any changed. */
static gboolean
set_aliases (HeadroomProject *self,
             const char      *key,
             JsonNode        *node)
{
  int field = find_model_field (key);
  g_autoptr(JsonObject) effective = NULL;
  gboolean any = FALSE;

  if (field < 0 || model_fields[field].aliases[0] == NULL)
    return FALSE;
  effective = headroom_project_dup_effective_config (self);
  for (guint i = 0; i < G_N_ELEMENTS (model_fields[field].aliases); i++)
    {
      const char *alias = model_fields[field].aliases[i];
      g_autoptr(JsonNode) value = NULL;
      JsonNode *current;

      if (alias == NULL)
        break;
      current = json_object_get_member (effective, alias);
      if (current == NULL)
        continue;
      /* LongCat Flash builds num_layers decoder layers of two attention
       * sub-layers each, and num_hidden_layers, the Layers field, counts
       * the sub-layers (hr-config-mla.c): num_layers takes half. */
      if (is_longcat (effective) && strcmp (alias, "num_layers") == 0 && JSON_NODE_HOLDS_VALUE (node)
          && json_node_get_value_type (node) == G_TYPE_INT64 && json_node_get_int (node) > 0)
        {
          value = json_node_new (JSON_NODE_VALUE);
          json_node_set_int (value, json_node_get_int (node) / 2);
        }
      else
        value = json_node_copy (node);
      if (json_node_equal (current, value))
        continue;
      json_object_set_member (self->config, alias, g_steal_pointer (&value));
      any = TRUE;
    }
  return any;
}

/* Whether the model read from the config has the value just set under
 * `key` (a model field): a family that spells it where no alias reaches
 * (DBRX's ffn_config.moe_num_experts, ERNIE's use_bias for the attention
 * biases) or fixes it (GPT-2's biases, Gemma's tied embeddings) would ignore
 * it. A whole number 0 hands the value back to the preset; a config that
 * does not read is validation's. */
static gboolean
model_takes (HeadroomProject *self,
             const char      *key,
             JsonNode        *node)
{
  int field = find_model_field (key);
  GType type = json_node_get_value_type (node);
  HrModel model;

  if (field < 0 || (model_fields[field].boolean ? type != G_TYPE_BOOLEAN
                                                : type != G_TYPE_INT64 || json_node_get_int (node) == 0)
      || !headroom_project_get_model (self, &model, NULL))
    return TRUE;
  if (model_fields[field].boolean)
    return G_STRUCT_MEMBER (bool, &model, model_fields[field].offset) == json_node_get_boolean (node);
  return G_STRUCT_MEMBER (int64_t, &model, model_fields[field].offset) == json_node_get_int (node);
}

/* Takes `node`. */
gboolean
headroom_project_set_node (HeadroomProject  *self,
                           const char       *key,
                           JsonNode         *node,
                           GError          **error)
{
  g_autoptr(JsonNode) owned = node;
  const HeadroomKeyInfo *info;
  const char *member;
  JsonNode *current;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  info = headroom_project_find_key (key);
  member = headroom_project_config_member (key);
  if (info == NULL && member == NULL)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_UNKNOWN_KEY, key,
                                    _("no such setting"));
      return FALSE;
    }
  if (!headroom_project_check_node (key, info, node, error))
    {
      if (error != NULL)
        g_strdelimit ((*error)->message, "\t\r\n", ' ');
      return FALSE;
    }

  if (member != NULL && strcmp (key, "model.num_hidden_layers") == 0 && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_INT64 && json_node_get_int (node) % 2 != 0)
    {
      g_autoptr(JsonObject) effective = headroom_project_dup_effective_config (self);

      if (is_longcat (effective))
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                          _("LongCat Flash builds its layers in pairs, two "
                                            "attention sub-layers to a decoder layer: give an "
                                            "even number"));
          return FALSE;
        }
    }
  if (member != NULL)
    {
      g_autoptr(JsonObject) before = headroom_project_copy_object (self->config);
      gboolean aliases_changed = set_aliases (self, key, node);

      current = json_object_get_member (self->config, member);
      if (current != NULL && json_node_equal (current, node) && !aliases_changed)
        return TRUE;
      json_object_set_member (self->config, member, json_node_ref (node));
      if (!model_takes (self, key, node))
        {
          json_object_unref (self->config);
          self->config = g_steal_pointer (&before);
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                          _("this model type reads it from another field "
                                            "of its config.json; edit the config instead"));
          return FALSE;
        }
    }
  else
    {
      current = g_hash_table_lookup (self->values, info->key);
      if (current == NULL)
        current = info->default_value != NULL ? headroom_project_default_node (self, info) : NULL;
      else
        current = json_node_ref (current);
      if (current != NULL && json_node_equal (current, node))
        {
          json_node_unref (current);
          /* Setting a default explicitly still records it as set. */
          headroom_project_store_value (self, info, g_steal_pointer (&owned));
          return TRUE;
        }
      g_clear_pointer (&current, json_node_unref);
      headroom_project_store_value (self, info, g_steal_pointer (&owned));
    }

  headroom_project_changed (self, info != NULL ? info->key : key);
  return TRUE;
}

gboolean
headroom_project_set_int (HeadroomProject  *self,
                          const char       *key,
                          gint64            value,
                          GError          **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  const HeadroomKeyInfo *info = key != NULL ? headroom_project_find_key (key) : NULL;

  /* An integer is a fine value for a double key. */
  if (info != NULL && info->type == HEADROOM_KEY_DOUBLE)
    json_node_set_double (node, (double) value);
  else
    json_node_set_int (node, value);
  return headroom_project_set_node (self, key, node, error);
}

gboolean
headroom_project_set_double (HeadroomProject  *self,
                             const char       *key,
                             double            value,
                             GError          **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  const HeadroomKeyInfo *info = key != NULL ? headroom_project_find_key (key) : NULL;

  if (info != NULL && info->type == HEADROOM_KEY_INT && isfinite (value)
      && value == floor (value) && fabs (value) <= MAX_COUNT)
    json_node_set_int (node, (gint64) value);
  else
    json_node_set_double (node, value);
  return headroom_project_set_node (self, key, node, error);
}

gboolean
headroom_project_set_boolean (HeadroomProject  *self,
                              const char       *key,
                              gboolean          value,
                              GError          **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  json_node_set_boolean (node, value);
  return headroom_project_set_node (self, key, node, error);
}

gboolean
headroom_project_set_string (HeadroomProject  *self,
                             const char       *key,
                             const char       *value,
                             GError          **error)
{
  JsonNode *node;

  g_return_val_if_fail (value != NULL, FALSE);

  node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, value);
  return headroom_project_set_node (self, key, node, error);
}

gboolean
headroom_project_set_from_string (HeadroomProject  *self,
                                  const char       *key,
                                  const char       *text,
                                  GError          **error)
{
  const HeadroomKeyInfo *info;
  JsonNode *node;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (key != NULL && text != NULL, FALSE);

  info = headroom_project_find_key (key);
  if (info == NULL || info->type == HEADROOM_KEY_INT || info->type == HEADROOM_KEY_DOUBLE
      || info->type == HEADROOM_KEY_BOOLEAN)
    {
      /* A JSON scalar: 4, 0.5, true; a model key outside the table takes any. */
      g_autoptr(GError) parse_error = NULL;
      gint64 integer;

      /* json-glib wraps an integer past 2^63 around; say so instead. */
      if (info != NULL && info->type == HEADROOM_KEY_INT && strpbrk (text, ".eE") == NULL
          && !g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &integer, &parse_error)
          && g_error_matches (parse_error, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
        {
          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key,
                                        _("%s does not fit in 64 bits"), text);
          return FALSE;
        }
      g_clear_error (&parse_error);
      node = json_from_string (text, &parse_error);
      if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
        {
          g_clear_pointer (&node, json_node_unref);
          if (info != NULL)
            {
              headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_TYPE, key,
                                            info->type == HEADROOM_KEY_BOOLEAN ? _("expected true or false")
                                            : info->type == HEADROOM_KEY_INT ? _("expected an integer")
                                                                             : _("expected a number"));
              return FALSE;
            }
          node = json_node_new (JSON_NODE_VALUE);
          json_node_set_string (node, text);
        }
      if (info != NULL && info->type == HEADROOM_KEY_DOUBLE
          && json_node_get_value_type (node) == G_TYPE_INT64)
        json_node_set_double (node, (double) json_node_get_int (node));
    }
  else
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, text);
    }
  return headroom_project_set_node (self, key, node, error);
}

void
headroom_project_unset (HeadroomProject *self,
                        const char      *key)
{
  const char *member;

  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (key != NULL);

  member = headroom_project_config_member (key);
  if (member != NULL)
    {
      int field = find_model_field (key);
      gboolean removed = FALSE;

      for (guint i = 0; field >= 0 && i < G_N_ELEMENTS (model_fields[field].aliases); i++)
        {
          const char *alias = model_fields[field].aliases[i];

          if (alias != NULL && json_object_has_member (self->config, alias))
            {
              json_object_remove_member (self->config, alias);
              removed = TRUE;
            }
        }
      if (json_object_has_member (self->config, member))
        {
          json_object_remove_member (self->config, member);
          removed = TRUE;
        }
      if (removed)
        headroom_project_changed (self, key);
    }
  else if (member == NULL && g_hash_table_remove (self->values, key))
    headroom_project_changed (self, key);
}

HeadroomCatalog *
headroom_project_catalog (HeadroomProject *self)
{
  return self->catalog != NULL ? self->catalog : headroom_catalog_get_default ();
}

JsonObject *
headroom_project_preset_config (HeadroomProject *self)
{
  const char *preset = headroom_project_get_preset (self);
  HeadroomModelPreset *entry;

  if (preset == NULL)
    return NULL;
  entry = headroom_catalog_find_model (headroom_project_catalog (self), preset);
  return entry != NULL ? headroom_model_preset_get_config (entry) : NULL;
}

JsonNode *
headroom_project_config_node (HeadroomProject *self,
                              const char      *member)
{
  JsonObject *preset;
  JsonNode *node = json_object_get_member (self->config, member);

  if (node == NULL && (preset = headroom_project_preset_config (self)) != NULL)
    node = json_object_get_member (preset, member);
  return node;
}

/* The value in force, or NULL where neither set nor defaulted; borrowed or
 * new according to *owned. */
static JsonNode *
lookup_node (HeadroomProject  *self,
             const char       *key,
             gboolean         *owned)
{
  const HeadroomKeyInfo *info;
  const char *member;
  JsonNode *node;

  *owned = FALSE;
  member = headroom_project_config_member (key);
  if (member != NULL)
    return headroom_project_config_node (self, member);

  info = headroom_project_find_key (key);
  if (info == NULL)
    {
      /* A mistyped key is a programming error, not a silent 0. */
      g_critical ("“%s” is not a key of the project table", key);
      return NULL;
    }
  node = g_hash_table_lookup (self->values, info->key);
  if (node == NULL && info->default_value != NULL)
    {
      *owned = TRUE;
      node = headroom_project_default_node (self, info);
    }
  return node;
}

/* A model field the config does not spell as `key` (GPT-2's n_layer) or
 * leaves to the family's default: the value the model is read with. */
static gboolean
derived_model_value (HeadroomProject *self,
                     const char      *key,
                     gint64          *value)
{
  int field = find_model_field (key);
  HrModel model;

  if (field < 0 || !headroom_project_get_model (self, &model, NULL))
    return FALSE;
  if (model_fields[field].boolean)
    *value = G_STRUCT_MEMBER (bool, &model, model_fields[field].offset);
  else
    *value = G_STRUCT_MEMBER (int64_t, &model, model_fields[field].offset);
  return TRUE;
}

gint64
headroom_project_get_int (HeadroomProject *self,
                          const char      *key)
{
  gboolean owned;
  JsonNode *node;
  gint64 value = 0;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), 0);
  g_return_val_if_fail (key != NULL, 0);

  node = lookup_node (self, key, &owned);
  if (node == NULL && derived_model_value (self, key, &value))
    return value;
  if (node != NULL && headroom_project_node_is_number (node))
    {
      double d = json_node_get_double (node);

      if (json_node_get_value_type (node) == G_TYPE_INT64)
        value = json_node_get_int (node);
      else if (isfinite (d) && fabs (d) <= MAX_COUNT)
        value = (gint64) d;
    }
  if (owned)
    json_node_unref (node);
  return value;
}

double
headroom_project_get_double (HeadroomProject *self,
                             const char      *key)
{
  gboolean owned;
  JsonNode *node;
  double value = 0;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), 0);
  g_return_val_if_fail (key != NULL, 0);

  node = lookup_node (self, key, &owned);
  if (node != NULL && headroom_project_node_is_number (node))
    value = json_node_get_double (node);
  if (owned)
    json_node_unref (node);
  return value;
}

gboolean
headroom_project_get_boolean (HeadroomProject *self,
                              const char      *key)
{
  gboolean owned;
  JsonNode *node;
  gboolean value = FALSE;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  node = lookup_node (self, key, &owned);
  if (node == NULL)
    {
      gint64 derived;

      return derived_model_value (self, key, &derived) && derived != 0;
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    value = json_node_get_boolean (node);
  if (owned)
    json_node_unref (node);
  return value;
}

const char *
headroom_project_get_string (HeadroomProject *self,
                             const char      *key)
{
  const HeadroomKeyInfo *info;
  gboolean owned;
  JsonNode *node;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  node = lookup_node (self, key, &owned);
  if (owned)
    {
      /* Defaults are static strings of the table. */
      json_node_unref (node);
      info = headroom_project_find_key (key);
      return info->type == HEADROOM_KEY_STRING || info->type == HEADROOM_KEY_CHOICE
             ? headroom_project_default_value (self, info) : NULL;
    }
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

char *
headroom_project_dup_value_string (HeadroomProject *self,
                                   const char      *key)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean owned;
  JsonNode *node;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  node = lookup_node (self, key, &owned);
  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    g_string_append (out, json_node_get_string (node));
  else
    headroom_project_append_node (out, node, 0);
  if (owned)
    json_node_unref (node);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
headroom_project_key_applies (HeadroomProject *self,
                              const char      *key)
{
  const HeadroomKeyInfo *info;
  const HeadroomKeyInfo *condition_info;
  g_autofree char *condition = NULL;
  g_auto(GStrv) values = NULL;
  const char *value;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), TRUE);
  g_return_val_if_fail (key != NULL, TRUE);

  /* A workload's keys apply under it only: the training and serving rows
   * of a shared group (numerics, parallelism) are not each other's. */
  if (g_str_has_prefix (key, "training.")
      && headroom_project_get_workload (self) != HEADROOM_WORKLOAD_TRAINING)
    return FALSE;
  if (g_str_has_prefix (key, "inference.")
      && headroom_project_get_workload (self) != HEADROOM_WORKLOAD_INFERENCE)
    return FALSE;
  info = headroom_project_find_key (key);
  if (info == NULL || info->visible_when == NULL)
    return TRUE;
  condition = headroom_key_info_dup_condition_key (info);
  /* A switch's value reads as "true" or "false". */
  condition_info = headroom_project_find_key (condition);
  if (condition_info != NULL && condition_info->type == HEADROOM_KEY_BOOLEAN)
    value = headroom_project_get_boolean (self, condition) ? "true" : "false";
  else
    value = headroom_project_get_string (self, condition);
  values = g_strsplit (info->visible_when + strlen (condition) + 1, "|", -1);
  return value != NULL && g_strv_contains ((const char * const *) values, value);
}

HeadroomWorkload
headroom_project_get_workload (HeadroomProject *self)
{
  return g_strcmp0 (headroom_project_get_string (self, "workload"), "inference") == 0
         ? HEADROOM_WORKLOAD_INFERENCE : HEADROOM_WORKLOAD_TRAINING;
}

const char *
headroom_project_get_preset (HeadroomProject *self)
{
  const char *preset;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  preset = headroom_project_get_string (self, "model.preset");
  return preset != NULL && *preset != '\0' ? preset : NULL;
}

JsonObject *
headroom_project_get_config (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return self->config;
}

void
headroom_project_set_config (HeadroomProject *self,
                             JsonObject      *config)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (config != NULL);

  g_clear_pointer (&self->config, json_object_unref);
  self->config = headroom_project_copy_object (config);
  headroom_project_changed (self, "model");
}

JsonObject *
headroom_project_dup_effective_config (HeadroomProject *self)
{
  JsonObject *preset;
  JsonObject *config;
  g_autoptr(GList) members = NULL;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  preset = headroom_project_preset_config (self);
  config = preset != NULL ? headroom_project_copy_object (preset) : json_object_new ();
  members = json_object_get_members (self->config);
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (config, l->data,
                            copy_node (json_object_get_member (self->config, l->data)));
  return config;
}

const char * const *
headroom_project_get_unknown_keys (HeadroomProject *self)
{
  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);
  return (const char * const *) self->unknown_paths->pdata;
}
