/* headroom-catalog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "headroom-catalog.h"
#include "headroom-file.h"
#include "headroom-format.h"
#include "headroom-hf-config.h"
#include "headroom-json.h"

#define CATALOG_RESOURCE "/io/github/headroom/Headroom/catalog/"

struct _HeadroomCatalog
{
  GObject     parent_instance;

  char       *user_dir;
  GListStore *models;
  GListStore *gpus;
  /* Id → entry of models and gpus, borrowed: emptied when the store
   * changes, filled again by the next look-up (an estimate looks its preset
   * up for each model key it reads). */
  GHashTable *model_index;
  GHashTable *gpu_index;
  GError     *load_error;
  /* A user file that exists but did not load: never saved over. */
  GError     *user_models_error;
  GError     *user_gpus_error;
};

G_DEFINE_FINAL_TYPE (HeadroomCatalog, headroom_catalog, G_TYPE_OBJECT)

G_DEFINE_QUARK (headroom-catalog-error-quark, headroom_catalog_error)

/* Far above any GPU's streaming multiprocessors (the H100 SXM5 has 132). */
#define MAX_SM_COUNT 1e6

/* The GPU's counts (SMs, NCCL channels) are whole, and below MAX_SM_COUNT:
 * the name of the first that is not, else NULL. */
static const char *
bad_count (const HrGpu *gpu)
{
  if (!(gpu->sm_count >= 0 && gpu->sm_count <= MAX_SM_COUNT
        && gpu->sm_count == floor (gpu->sm_count)))
    return "sm_count";
  if (!(gpu->nvlink_nccl_channels >= 0 && gpu->nvlink_nccl_channels <= MAX_SM_COUNT
        && gpu->nvlink_nccl_channels == floor (gpu->nvlink_nccl_channels)))
    return "nvlink_nccl_channels";
  return NULL;
}

/* The JSON keys of HrGpu.peak_flops, in HrDtype order. */
static const char * const dtype_keys[HR_DTYPE_N] = {
  "fp32", "tf32", "bf16", "fp16", "fp8", "int8",
};

static void
headroom_catalog_finalize (GObject *object)
{
  HeadroomCatalog *self = (HeadroomCatalog *) object;

  g_free (self->user_dir);
  /* A view may keep a store: it no longer reaches the indexes. */
  g_signal_handlers_disconnect_by_data (self->models, self->model_index);
  g_signal_handlers_disconnect_by_data (self->gpus, self->gpu_index);
  g_clear_object (&self->models);
  g_clear_object (&self->gpus);
  g_clear_pointer (&self->model_index, g_hash_table_unref);
  g_clear_pointer (&self->gpu_index, g_hash_table_unref);
  g_clear_error (&self->load_error);
  g_clear_error (&self->user_models_error);
  g_clear_error (&self->user_gpus_error);

  G_OBJECT_CLASS (headroom_catalog_parent_class)->finalize (object);
}

static void
headroom_catalog_class_init (HeadroomCatalogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_catalog_finalize;
}

static void
store_changed_cb (GListModel *store,
                  guint       position,
                  guint       removed,
                  guint       added,
                  GHashTable *index)
{
  g_hash_table_remove_all (index);
}

static void
headroom_catalog_init (HeadroomCatalog *self)
{
  self->models = g_list_store_new (HEADROOM_TYPE_MODEL_PRESET);
  self->gpus = g_list_store_new (HEADROOM_TYPE_GPU_INFO);
  self->model_index = g_hash_table_new (g_str_hash, g_str_equal);
  self->gpu_index = g_hash_table_new (g_str_hash, g_str_equal);
  g_signal_connect (self->models, "items-changed", G_CALLBACK (store_changed_cb), self->model_index);
  g_signal_connect (self->gpus, "items-changed", G_CALLBACK (store_changed_cb), self->gpu_index);
}

static const char *
member_string (JsonObject *object,
               const char *key)
{
  JsonNode *node = json_object_get_member (object, key);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

/* Reads a rate or size: a finite number >= 0 (> 0 when `required`); absent is 0. */
static gboolean
member_number (JsonObject  *object,
               const char  *key,
               gboolean     required,
               double      *out,
               const char  *what,
               GError     **error)
{
  JsonNode *node = json_object_get_member (object, key);
  GType type;

  *out = 0;
  if (node == NULL && !required)
    return TRUE;

  type = node != NULL && JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: %s: must be a number", what, key);
      return FALSE;
    }

  *out = json_node_get_double (node);
  if (!isfinite (*out) || *out < 0 || (required && *out == 0))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: %s: must be %s", what, key, required ? "positive" : "zero or positive");
      return FALSE;
    }

  return TRUE;
}

/* The attention tables of HrGpu, in file order. */
static const struct
{
  const char *key;
  size_t      offset;
} attention_tables[] = {
  { "attention_fwd_flops", offsetof (HrGpu, attention_fwd_flops) },
  { "attention_fwd_causal_flops", offsetof (HrGpu, attention_fwd_causal_flops) },
  { "attention_bwd_flops", offsetof (HrGpu, attention_bwd_flops) },
  { "attention_fwd_bwd_flops", offsetof (HrGpu, attention_fwd_bwd_flops) },
  { "attention_fwd_bwd_causal_flops", offsetof (HrGpu, attention_fwd_bwd_causal_flops) },
  { "attention_triton_flops", offsetof (HrGpu, attention_triton_flops) },
  { "attention_triton_causal_flops", offsetof (HrGpu, attention_triton_causal_flops) },
};

/* Reads the optional sustained rates (docs/planner.md, "Sustained rates"):
 * gemm_sustained_flops by dtype, and each attention table as exactly
 * HR_GPU_ATTENTION_POINTS numbers >= 0. */
static gboolean
member_rates (JsonObject  *entry,
              HrGpu       *gpu,
              const char  *id,
              GError     **error)
{
  JsonNode *node = json_object_get_member (entry, "gemm_sustained_flops");

  if (node != NULL)
    {
      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                       "%s: gemm_sustained_flops: must be an object", id);
          return FALSE;
        }
      for (int dtype = 0; dtype < HR_DTYPE_N; dtype++)
        if (!member_number (json_node_get_object (node), dtype_keys[dtype], FALSE,
                            &gpu->gemm_sustained_flops[dtype], id, error))
          return FALSE;
    }
  for (size_t t = 0; t < G_N_ELEMENTS (attention_tables); t++)
    {
      double *table = (double *) ((char *) gpu + attention_tables[t].offset);
      JsonArray *array;

      node = json_object_get_member (entry, attention_tables[t].key);
      if (node == NULL)
        continue;
      array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
      if (array == NULL || json_array_get_length (array) != HR_GPU_ATTENTION_POINTS)
        {
          g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                       "%s: %s: must be a list of %d rates (512 to 16384 tokens)", id,
                       attention_tables[t].key, HR_GPU_ATTENTION_POINTS);
          return FALSE;
        }
      for (guint i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          GType type = JSON_NODE_HOLDS_VALUE (element) ? json_node_get_value_type (element)
                                                      : G_TYPE_INVALID;

          table[i] = type == G_TYPE_INT64 || type == G_TYPE_DOUBLE
                     ? json_node_get_double (element) : -1;
          if (!isfinite (table[i]) || table[i] < 0)
            {
              g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                           "%s: %s: must hold numbers, zero or positive", id,
                           attention_tables[t].key);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static HeadroomGpuInfo *
gpu_from_json (JsonObject  *entry,
               gboolean     user_defined,
               GError     **error)
{
  const char *id = member_string (entry, "id");
  JsonNode *peaks_node;
  JsonObject *peaks;
  HrGpu gpu = { 0 };

  if (id == NULL || *id == '\0')
    {
      g_set_error_literal (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                           "gpus: id: missing or not a string");
      return NULL;
    }

  if (!member_number (entry, "memory_bytes", TRUE, &gpu.memory_bytes, id, error)
      || !member_number (entry, "driver_memory_bytes", FALSE, &gpu.driver_memory_bytes, id, error)
      || !member_number (entry, "memory_bandwidth", TRUE, &gpu.memory_bandwidth, id, error)
      || !member_number (entry, "memory_sustained_bandwidth", FALSE,
                         &gpu.memory_sustained_bandwidth, id, error)
      || !member_number (entry, "intra_node_bandwidth", FALSE, &gpu.intra_node_bandwidth, id, error)
      || !member_number (entry, "inter_node_bandwidth", FALSE, &gpu.inter_node_bandwidth, id, error)
      || !member_number (entry, "inter_node_latency", FALSE, &gpu.inter_node_latency, id, error)
      || !member_number (entry, "host_bandwidth", FALSE, &gpu.host_bandwidth, id, error)
      || !member_number (entry, "power_watts", FALSE, &gpu.power_watts, id, error)
      || !member_number (entry, "sm_count", FALSE, &gpu.sm_count, id, error)
      || !member_number (entry, "nvlink_nccl_channels", FALSE, &gpu.nvlink_nccl_channels, id,
                         error))
    return NULL;

  if (bad_count (&gpu) != NULL)
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: %s: must be a whole number up to 1,000,000", id, bad_count (&gpu));
      return NULL;
    }

  /* A measured rate above the datasheet's peak is a typo. */
  if (gpu.memory_sustained_bandwidth > gpu.memory_bandwidth)
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: memory_sustained_bandwidth: must not exceed memory_bandwidth", id);
      return NULL;
    }

  peaks_node = json_object_get_member (entry, "peak_flops");
  if (peaks_node == NULL || !JSON_NODE_HOLDS_OBJECT (peaks_node))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: peak_flops: must be an object", id);
      return NULL;
    }
  peaks = json_node_get_object (peaks_node);
  for (int dtype = 0; dtype < HR_DTYPE_N; dtype++)
    if (!member_number (peaks, dtype_keys[dtype], FALSE, &gpu.peak_flops[dtype], id, error))
      return NULL;
  if (!member_rates (entry, &gpu, id, error))
    return NULL;

  return headroom_gpu_info_new (id, member_string (entry, "name"),
                                member_string (entry, "vendor"),
                                member_string (entry, "source"),
                                &gpu, user_defined);
}

static HeadroomModelPreset *
model_from_json (JsonObject  *entry,
                 gboolean     user_defined,
                 GError     **error)
{
  const char *id = member_string (entry, "id");
  JsonNode *config = json_object_get_member (entry, "config");

  if (id == NULL || *id == '\0')
    {
      g_set_error_literal (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                           "models: id: missing or not a string");
      return NULL;
    }
  if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: config: must be an object", id);
      return NULL;
    }

  return headroom_model_preset_new (id, member_string (entry, "name"),
                                    member_string (entry, "hf_id"),
                                    member_string (entry, "source"),
                                    json_node_get_object (config), user_defined);
}

static const char *
item_id (gpointer item)
{
  if (HEADROOM_IS_GPU_INFO (item))
    return headroom_gpu_info_get_id (item);
  return headroom_model_preset_get_id (item);
}

/* The first item of `store` with `id`, through `index`, the store's (filled
 * here when empty). Returns the item borrowed: the store keeps it alive. */
static gpointer
find_by_id (GListStore *store,
            GHashTable *index,
            const char *id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (store));

  if (g_hash_table_size (index) == 0)
    for (guint i = 0; i < n; i++)
      {
        g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (store), i);

        if (!g_hash_table_contains (index, item_id (item)))
          g_hash_table_insert (index, (char *) item_id (item), item);
      }

  return id != NULL ? g_hash_table_lookup (index, id) : NULL;
}

/* Loads the list `list_key` of a catalog file into `store`; entries whose id
 * is already present are skipped (built-in entries win). All or nothing: a
 * file with one bad entry adds none. */
static gboolean
load_catalog (HeadroomCatalog  *self,
              GBytes           *bytes,
              const char       *name,
              const char       *list_key,
              gboolean          user_defined,
              GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *safe_name = headroom_format_one_line (name);
  GListStore *store = g_str_equal (list_key, "gpus") ? self->gpus : self->models;
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);
  JsonNode *list;
  JsonArray *array;

  /* Nesting depth, trailing content, non-finite numbers; "line N" in the message. */
  root = headroom_json_parse (data != NULL ? data : "", size, &local_error);
  if (root == NULL)
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: %s", safe_name, local_error->message);
      return FALSE;
    }

  list = JSON_NODE_HOLDS_OBJECT (root)
         ? json_object_get_member (json_node_get_object (root), list_key) : NULL;
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                   "%s: %s: must be an array", safe_name, list_key);
      return FALSE;
    }

  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      GObject *item;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                       "%s: %s[%u]: must be an object", safe_name, list_key, i);
          return FALSE;
        }

      if (store == self->gpus)
        item = G_OBJECT (gpu_from_json (json_node_get_object (node), user_defined, &local_error));
      else
        item = G_OBJECT (model_from_json (json_node_get_object (node), user_defined, &local_error));

      if (item == NULL)
        {
          g_autofree char *message = headroom_format_one_line (local_error->message);

          g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
                       "%s: %s", safe_name, message);
          return FALSE;
        }
      g_ptr_array_add (items, item);
    }

  for (guint i = 0; i < items->len; i++)
    if (find_by_id (store, store == self->gpus ? self->gpu_index : self->model_index,
                    item_id (items->pdata[i])) == NULL)
      g_list_store_append (store, items->pdata[i]);

  return TRUE;
}

static void
note_load_error (HeadroomCatalog *self,
                 GError          *error)
{
  if (self->load_error == NULL)
    self->load_error = error;
  else
    g_error_free (error);
}

static void
load_builtin (HeadroomCatalog *self,
              const char      *file,
              const char      *list_key)
{
  g_autofree char *path = g_strconcat (CATALOG_RESOURCE, file, NULL);
  g_autoptr(GBytes) bytes = g_resources_lookup_data (path, 0, NULL);
  GError *error = NULL;

  /* The resource is compiled into the service: its absence is a build bug. */
  g_return_if_fail (bytes != NULL);

  if (!load_catalog (self, bytes, path, list_key, FALSE, &error))
    note_load_error (self, error);
}

static void
load_user (HeadroomCatalog *self,
           const char      *file,
           const char      *list_key)
{
  g_autofree char *path = g_build_filename (self->user_dir, file, NULL);
  g_autoptr(GFile) gfile = g_file_new_for_path (path);
  g_autoptr(GBytes) bytes = NULL;
  GError **user_error = g_str_equal (list_key, "gpus") ? &self->user_gpus_error
                                                       : &self->user_models_error;
  GError *error = NULL;

  bytes = headroom_file_load (gfile, HEADROOM_FILE_MAX_SIZE, NULL, &error);
  if (bytes == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_clear_error (&error);
      return;
    }
  if (bytes == NULL || !load_catalog (self, bytes, path, list_key, TRUE, &error))
    {
      g_clear_error (user_error);
      *user_error = g_error_copy (error);
      note_load_error (self, error);
    }
}

/* FALSE, saying why, when the user's `list_key` file did not load: saving
 * would replace the user's entries with the ones that did load. */
static gboolean
check_user_file_loaded (HeadroomCatalog  *self,
                        const char       *list_key,
                        GError          **error)
{
  const GError *user_error = g_str_equal (list_key, "gpus") ? self->user_gpus_error
                                                            : self->user_models_error;

  if (user_error == NULL)
    return TRUE;
  g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_PARSE,
               "nothing saved: the file did not load and is kept as it is; fix it or move it away (%s)",
               user_error->message);
  return FALSE;
}

HeadroomCatalog *
headroom_catalog_new_for_user_dir (const char *dir)
{
  HeadroomCatalog *self;

  g_return_val_if_fail (dir != NULL, NULL);

  self = g_object_new (HEADROOM_TYPE_CATALOG, NULL);
  self->user_dir = g_strdup (dir);

  load_builtin (self, "models.json", "models");
  load_builtin (self, "gpus.json", "gpus");
  load_user (self, "models.json", "models");
  load_user (self, "gpus.json", "gpus");

  return self;
}

HeadroomCatalog *
headroom_catalog_get_default (void)
{
  static HeadroomCatalog *instance;

  if (instance == NULL)
    {
      g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "headroom", NULL);

      instance = headroom_catalog_new_for_user_dir (dir);
    }

  return instance;
}

/* A copy of `config` that shares nothing with it: json_node_copy() shares
 * values, and json-glib counts references without atomics. */
static JsonObject *
copy_config_unshared (JsonObject *config)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), config);
  g_autofree char *text = json_to_string (node, FALSE);
  g_autoptr(JsonNode) copy = headroom_json_parse (text, strlen (text), NULL);

  /* The config was parsed once already: it parses again. */
  g_return_val_if_fail (copy != NULL && JSON_NODE_HOLDS_OBJECT (copy), json_object_new ());
  return json_object_ref (json_node_get_object (copy));
}

HeadroomCatalog *
headroom_catalog_dup_entries (HeadroomCatalog *self,
                              const char      *model_id,
                              const char      *gpu_id)
{
  HeadroomCatalog *copy;
  HeadroomModelPreset *preset;
  HeadroomGpuInfo *info;

  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), NULL);

  copy = g_object_new (HEADROOM_TYPE_CATALOG, NULL);
  preset = model_id != NULL ? headroom_catalog_find_model (self, model_id) : NULL;
  if (preset != NULL)
    {
      g_autoptr(JsonObject) config = copy_config_unshared (headroom_model_preset_get_config (preset));
      g_autoptr(HeadroomModelPreset) entry = NULL;

      entry = headroom_model_preset_new (model_id, headroom_model_preset_get_name (preset),
                                         headroom_model_preset_get_hf_id (preset),
                                         headroom_model_preset_get_source (preset), config,
                                         headroom_model_preset_get_user_defined (preset));
      g_list_store_append (copy->models, entry);
    }
  info = gpu_id != NULL ? headroom_catalog_find_gpu (self, gpu_id) : NULL;
  if (info != NULL)
    {
      g_autoptr(HeadroomGpuInfo) entry = NULL;

      entry = headroom_gpu_info_new (gpu_id, headroom_gpu_info_get_name (info),
                                     headroom_gpu_info_get_vendor (info),
                                     headroom_gpu_info_get_source (info),
                                     headroom_gpu_info_get_gpu (info),
                                     headroom_gpu_info_get_user_defined (info));
      g_list_store_append (copy->gpus, entry);
    }
  return copy;
}

const GError *
headroom_catalog_get_load_error (HeadroomCatalog *self)
{
  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), NULL);
  return self->load_error;
}

GListModel *
headroom_catalog_get_models (HeadroomCatalog *self)
{
  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), NULL);
  return G_LIST_MODEL (self->models);
}

GListModel *
headroom_catalog_get_gpus (HeadroomCatalog *self)
{
  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), NULL);
  return G_LIST_MODEL (self->gpus);
}

HeadroomModelPreset *
headroom_catalog_find_model (HeadroomCatalog *self,
                             const char      *id)
{
  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);
  return find_by_id (self->models, self->model_index, id);
}

HeadroomGpuInfo *
headroom_catalog_find_gpu (HeadroomCatalog *self,
                           const char      *id)
{
  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);
  return find_by_id (self->gpus, self->gpu_index, id);
}

gboolean
headroom_catalog_lookup_model (HeadroomCatalog  *self,
                               const char       *id,
                               HrModel          *out,
                               GError          **error)
{
  HeadroomModelPreset *preset;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  preset = headroom_catalog_find_model (self, id);
  if (preset == NULL)
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_NOT_FOUND,
                   "no model preset “%s”", id);
      return FALSE;
    }

  if (!headroom_model_preset_get_model (preset, out, &local_error))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                   "model preset %s: %s", id, local_error->message);
      return FALSE;
    }

  return TRUE;
}

gboolean
headroom_catalog_lookup_gpu (HeadroomCatalog  *self,
                             const char       *id,
                             HrGpu            *out,
                             GError          **error)
{
  HeadroomGpuInfo *info;

  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  info = headroom_catalog_find_gpu (self, id);
  if (info == NULL)
    {
      /* The id may be missing because the user's catalog file did not load. */
      if (self->load_error != NULL)
        g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_NOT_FOUND,
                     "no GPU “%s”; %s", id, self->load_error->message);
      else
        g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_NOT_FOUND,
                     "no GPU “%s”", id);
      return FALSE;
    }

  *out = *headroom_gpu_info_get_gpu (info);
  return TRUE;
}

static void
add_number (JsonBuilder *builder,
            const char  *key,
            double       value)
{
  json_builder_set_member_name (builder, key);
  /* Whole numbers (bytes, watts) are written as integers. */
  if (value == floor (value) && fabs (value) < 9007199254740992.0)
    json_builder_add_int_value (builder, (gint64) value);
  else
    json_builder_add_double_value (builder, value);
}

static void
add_string (JsonBuilder *builder,
            const char  *key,
            const char  *value)
{
  if (value == NULL)
    return;
  json_builder_set_member_name (builder, key);
  json_builder_add_string_value (builder, value);
}

/* Writes <user dir>/<file> atomically: a temporary file renamed over the old one. */
static gboolean
write_user_file (HeadroomCatalog  *self,
                 const char       *file_name,
                 JsonBuilder      *builder,
                 GError          **error)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autoptr(GFile) dir = g_file_new_for_path (self->user_dir);
  g_autoptr(GFile) file = g_file_get_child (dir, file_name);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *text = NULL;

  /* json-glib would write an infinity as "inf", which no JSON reader takes:
   * the file would no longer load (issue 15). */
  if (!headroom_json_check_finite (root, NULL, error))
    return FALSE;
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);

  if (!g_file_make_directory_with_parents (dir, NULL, &local_error)
      && !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  return headroom_file_save (file, text, strlen (text), NULL, error);
}

static void
begin_user_file (JsonBuilder *builder,
                 const char  *format,
                 const char  *list_key)
{
  json_builder_begin_object (builder);
  add_string (builder, "format", format);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, list_key);
  json_builder_begin_array (builder);
}

static gboolean
save_user_gpus (HeadroomCatalog  *self,
                GError          **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->gpus));

  begin_user_file (builder, "headroom-gpus", "gpus");
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomGpuInfo) info = g_list_model_get_item (G_LIST_MODEL (self->gpus), i);
      const HrGpu *gpu = headroom_gpu_info_get_gpu (info);

      if (!headroom_gpu_info_get_user_defined (info))
        continue;

      json_builder_begin_object (builder);
      add_string (builder, "id", headroom_gpu_info_get_id (info));
      add_string (builder, "name", headroom_gpu_info_get_name (info));
      add_string (builder, "vendor", headroom_gpu_info_get_vendor (info));
      add_number (builder, "memory_bytes", gpu->memory_bytes);
      if (gpu->driver_memory_bytes > 0)
        add_number (builder, "driver_memory_bytes", gpu->driver_memory_bytes);
      add_number (builder, "memory_bandwidth", gpu->memory_bandwidth);
      if (gpu->memory_sustained_bandwidth > 0)
        add_number (builder, "memory_sustained_bandwidth", gpu->memory_sustained_bandwidth);
      json_builder_set_member_name (builder, "peak_flops");
      json_builder_begin_object (builder);
      for (int dtype = 0; dtype < HR_DTYPE_N; dtype++)
        add_number (builder, dtype_keys[dtype], gpu->peak_flops[dtype]);
      json_builder_end_object (builder);
      add_number (builder, "intra_node_bandwidth", gpu->intra_node_bandwidth);
      add_number (builder, "inter_node_bandwidth", gpu->inter_node_bandwidth);
      add_number (builder, "inter_node_latency", gpu->inter_node_latency);
      add_number (builder, "host_bandwidth", gpu->host_bandwidth);
      add_number (builder, "power_watts", gpu->power_watts);
      if (gpu->sm_count > 0)
        add_number (builder, "sm_count", gpu->sm_count);
      if (gpu->nvlink_nccl_channels > 0)
        add_number (builder, "nvlink_nccl_channels", gpu->nvlink_nccl_channels);
      json_builder_set_member_name (builder, "gemm_sustained_flops");
      json_builder_begin_object (builder);
      for (int dtype = 0; dtype < HR_DTYPE_N; dtype++)
        add_number (builder, dtype_keys[dtype], gpu->gemm_sustained_flops[dtype]);
      json_builder_end_object (builder);
      for (size_t t = 0; t < G_N_ELEMENTS (attention_tables); t++)
        {
          const double *table = (const double *) ((const char *) gpu + attention_tables[t].offset);

          json_builder_set_member_name (builder, attention_tables[t].key);
          json_builder_begin_array (builder);
          for (int point = 0; point < HR_GPU_ATTENTION_POINTS; point++)
            json_builder_add_double_value (builder, table[point]);
          json_builder_end_array (builder);
        }
      add_string (builder, "source", headroom_gpu_info_get_source (info));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return write_user_file (self, "gpus.json", builder, error);
}

static gboolean
save_user_models (HeadroomCatalog  *self,
                  GError          **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->models));

  begin_user_file (builder, "headroom-models", "models");
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HeadroomModelPreset) preset = g_list_model_get_item (G_LIST_MODEL (self->models), i);
      JsonNode *config;

      if (!headroom_model_preset_get_user_defined (preset))
        continue;

      json_builder_begin_object (builder);
      add_string (builder, "id", headroom_model_preset_get_id (preset));
      add_string (builder, "name", headroom_model_preset_get_name (preset));
      add_string (builder, "hf_id", headroom_model_preset_get_hf_id (preset));
      add_string (builder, "source", headroom_model_preset_get_source (preset));
      json_builder_set_member_name (builder, "config");
      config = json_node_init_object (json_node_alloc (), headroom_model_preset_get_config (preset));
      json_builder_add_value (builder, config);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return write_user_file (self, "models.json", builder, error);
}

gboolean
headroom_catalog_add_user_gpu (HeadroomCatalog  *self,
                               const char       *id,
                               const char       *name,
                               const char       *vendor,
                               const char       *source,
                               const HrGpu      *gpu,
                               GError          **error)
{
  g_autoptr(HeadroomGpuInfo) info = NULL;
  HeadroomGpuInfo *existing;
  guint position;

  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (gpu != NULL, FALSE);
  g_return_val_if_fail (self->user_dir != NULL, FALSE);

  if (*id == '\0')
    {
      g_set_error_literal (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                           "id: must not be empty");
      return FALSE;
    }
  if (!isfinite (gpu->memory_bytes) || gpu->memory_bytes <= 0)
    {
      g_set_error_literal (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                           "memory_bytes: must be positive");
      return FALSE;
    }
  if (!isfinite (gpu->memory_bandwidth) || gpu->memory_bandwidth <= 0)
    {
      g_set_error_literal (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                           "memory_bandwidth: must be positive");
      return FALSE;
    }
  if (!isfinite (gpu->memory_sustained_bandwidth) || gpu->memory_sustained_bandwidth < 0
      || gpu->memory_sustained_bandwidth > gpu->memory_bandwidth)
    {
      g_set_error_literal (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                           "memory_sustained_bandwidth: must lie between 0 and memory_bandwidth");
      return FALSE;
    }
  if (bad_count (gpu) != NULL)
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                   "%s: must be a whole number up to 1,000,000", bad_count (gpu));
      return FALSE;
    }
  for (int dtype = 0; dtype < HR_DTYPE_N; dtype++)
    if (!isfinite (gpu->peak_flops[dtype]) || gpu->peak_flops[dtype] < 0)
      {
        g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                     "peak_flops.%s: must be zero or positive", dtype_keys[dtype]);
        return FALSE;
      }

  for (int dtype = 0; dtype < HR_DTYPE_N; dtype++)
    if (!isfinite (gpu->gemm_sustained_flops[dtype]) || gpu->gemm_sustained_flops[dtype] < 0)
      {
        g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                     "gemm_sustained_flops.%s: must be zero or positive", dtype_keys[dtype]);
        return FALSE;
      }
  for (size_t t = 0; t < G_N_ELEMENTS (attention_tables); t++)
    for (int i = 0; i < HR_GPU_ATTENTION_POINTS; i++)
      {
        double rate = ((const double *) ((const char *) gpu + attention_tables[t].offset))[i];

        if (!isfinite (rate) || rate < 0)
          {
            g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                         "%s: must hold numbers, zero or positive", attention_tables[t].key);
            return FALSE;
          }
      }

  if (!check_user_file_loaded (self, "gpus", error))
    return FALSE;

  existing = find_by_id (self->gpus, self->gpu_index, id);
  if (existing != NULL && !headroom_gpu_info_get_user_defined (existing))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_EXISTS,
                   "id: “%s” is a built-in GPU", id);
      return FALSE;
    }

  info = headroom_gpu_info_new (id, name, vendor, source, gpu, TRUE);
  if (existing != NULL && g_list_store_find (self->gpus, existing, &position))
    g_list_store_splice (self->gpus, position, 1, (gpointer *) &info, 1);
  else
    g_list_store_append (self->gpus, info);

  return save_user_gpus (self, error);
}

gboolean
headroom_catalog_add_user_model (HeadroomCatalog  *self,
                                 const char       *id,
                                 const char       *name,
                                 const char       *hf_id,
                                 const char       *source,
                                 JsonObject       *config,
                                 GError          **error)
{
  g_autoptr(HeadroomModelPreset) preset = NULL;
  g_autoptr(GError) local_error = NULL;
  HeadroomModelPreset *existing;
  HrModel model;
  guint position;

  g_return_val_if_fail (HEADROOM_IS_CATALOG (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (self->user_dir != NULL, FALSE);

  if (*id == '\0')
    {
      g_set_error_literal (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                           "id: must not be empty");
      return FALSE;
    }

  if (!check_user_file_loaded (self, "models", error))
    return FALSE;

  existing = find_by_id (self->models, self->model_index, id);
  if (existing != NULL && !headroom_model_preset_get_user_defined (existing))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_EXISTS,
                   "id: “%s” is a built-in model", id);
      return FALSE;
    }

  /* Only a config that reads into a valid model is worth keeping. */
  preset = headroom_model_preset_new (id, name, hf_id, source, config, TRUE);
  if (!headroom_model_preset_get_model (preset, &model, &local_error))
    {
      g_set_error (error, HEADROOM_CATALOG_ERROR, HEADROOM_CATALOG_ERROR_INVALID,
                   "config: %s", local_error->message);
      return FALSE;
    }

  if (existing != NULL && g_list_store_find (self->models, existing, &position))
    g_list_store_splice (self->models, position, 1, (gpointer *) &preset, 1);
  else
    g_list_store_append (self->models, preset);

  return save_user_models (self, error);
}
