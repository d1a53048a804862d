/* headroom-project-core.c: the project as the core takes it, and its checks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "headroom-project"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "headroom-format.h"
#include "headroom-framework.h"
#include "headroom-hf-config.h"
#include "headroom-project-private.h"
#include "hr-config.h"

const char *
headroom_project_get_assumed_architecture (HeadroomProject *self)
{
  JsonNode *assume, *type;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), NULL);

  assume = headroom_project_config_node (self, "assume_architecture");
  if (assume == NULL || !JSON_NODE_HOLDS_VALUE (assume)
      || json_node_get_value_type (assume) != G_TYPE_STRING
      || hr_assume_from_name (json_node_get_string (assume)) != HR_ASSUME_LLAMA)
    return NULL;
  /* A known family is read as itself, whatever is assumed. */
  type = headroom_project_config_node (self, "model_type");
  if (type != NULL && JSON_NODE_HOLDS_VALUE (type) && json_node_get_value_type (type) == G_TYPE_STRING
      && hr_config_knows_model_type (json_node_get_string (type)))
    return NULL;
  return "llama";
}

char *
headroom_project_dup_assumed_note (HeadroomProject *self)
{
  const char *assumed = headroom_project_get_assumed_architecture (self);

  if (assumed == NULL)
    return NULL;
  return g_strdup_printf (_("Architecture assumed: %s; the model_type is unknown, so these "
                            "figures are only as right as that guess"),
                          _(headroom_key_info_get_choice_label (headroom_project_find_key ("model.assume_architecture"),
                                                                assumed)));
}

gboolean
headroom_project_get_text_only (HeadroomProject *self)
{
  JsonNode *type;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);

  type = headroom_project_config_node (self, "model_type");
  return type != NULL && JSON_NODE_HOLDS_VALUE (type)
         && json_node_get_value_type (type) == G_TYPE_STRING
         && hr_config_is_vision_language (json_node_get_string (type));
}

char *
headroom_project_dup_text_only_note (HeadroomProject *self)
{
  if (!headroom_project_get_text_only (self))
    return NULL;
  return g_strdup (_("Language model only: the vision tower and its projector are not counted"));
}

char *
headroom_project_dup_unknown_keys_note (HeadroomProject *self)
{
  const char * const *unknown = headroom_project_get_unknown_keys (self);
  g_autofree char *keys = NULL;

  if (unknown[0] == NULL)
    return NULL;
  keys = g_strjoinv (", ", (char **) unknown);
  /* TRANSLATORS: followed by the file's member names, e.g. "training.tensor_paralel" */
  return g_strdup_printf (_("Not read, no such setting: %s"), keys);
}

gboolean
headroom_project_get_model (HeadroomProject  *self,
                            HrModel          *model,
                            GError          **error)
{
  g_autoptr(JsonObject) config = NULL;
  const char *preset;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (model != NULL, FALSE);

  preset = headroom_project_get_preset (self);
  if (preset != NULL && headroom_project_preset_config (self) == NULL)
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_NOT_FOUND, "model.preset",
                                    _("no model “%s” in the catalog"), preset);
      return FALSE;
    }
  if (preset == NULL && json_object_get_size (self->config) == 0)
    {
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID,
                           _("No model: choose a preset or import a config.json"));
      return FALSE;
    }

  config = headroom_project_dup_effective_config (self);
  if (!headroom_hf_config_read (config, model, NULL, NULL, error))
    {
      headroom_project_config_error_to_key (error);
      return FALSE;
    }
  return TRUE;
}

gint64
headroom_project_get_n_gpus (HeadroomProject *self)
{
  return headroom_project_get_int (self, "hardware.nodes")
         * headroom_project_get_int (self, "hardware.gpus_per_node");
}

/* Units of the file: GiB = 2^30 bytes, GB/s = 1e9 bytes/s, TFLOP/s and TOP/s = 1e12,
 * µs = 1e-6 s, W as it is. */
static double
unit_scale (const char *unit)
{
  if (g_strcmp0 (unit, "GiB") == 0)
    return 1073741824.0;
  if (g_strcmp0 (unit, "GB/s") == 0)
    return 1e9;
  if (g_strcmp0 (unit, "TFLOP/s") == 0 || g_strcmp0 (unit, "TOP/s") == 0)
    return 1e12;
  if (g_strcmp0 (unit, "µs") == 0)
    return 1e-6;
  return 1;
}

/* A GPU figure in its field, in bytes, bytes/s, FLOP/s, s or W. The
 * hardware.* ones replace the GPU's figure only where set (0: the GPU's). */
void
headroom_project_apply_gpu (HeadroomProject       *self,
                            const HeadroomKeyInfo *info,
                            HeadroomKeyField       field,
                            void                  *out)
{
  double value;

  if (field != info->field)
    return;
  value = headroom_project_get_double (self, info->key) * unit_scale (info->unit);
  if (field == HEADROOM_KEY_FIELD_GPU && !(value > 0))
    return;
  G_STRUCT_MEMBER (double, out, info->field_offset) = value;
}

static void fill_struct (HeadroomProject *, HeadroomKeyField, void *);

/* The catalog's GPU or the custom one (hardware.custom.*), with the cluster's
 * figures (hardware.inter_node_bandwidth and friends) where set: all from the
 * key table (CUSTOM_GPU (…), GPU (…)). */
gboolean
headroom_project_get_gpu (HeadroomProject  *self,
                          HrGpu            *gpu,
                          GError          **error)
{
  g_autoptr(GError) lookup_error = NULL;
  const char *id;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (gpu != NULL, FALSE);

  id = headroom_project_get_string (self, "hardware.gpu");
  if (headroom_project_uses_custom_gpu (self))
    {
      memset (gpu, 0, sizeof *gpu);
      fill_struct (self, HEADROOM_KEY_FIELD_CUSTOM_GPU, gpu);
      if (gpu->memory_bytes <= 0)
        {
          headroom_project_set_invalid (error, "hardware.custom.memory", _("must be positive"));
          return FALSE;
        }
    }
  else if (id == NULL || *id == '\0')
    {
      headroom_project_set_invalid (error, "hardware.gpu", _("missing; choose a GPU"));
      return FALSE;
    }
  else if (!headroom_catalog_lookup_gpu (headroom_project_catalog (self), id, gpu, &lookup_error))
    {
      headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_NOT_FOUND, "hardware.gpu", "%s",
                                      lookup_error->message);
      return FALSE;
    }
  fill_struct (self, HEADROOM_KEY_FIELD_GPU, gpu);
  return TRUE;
}

/* Writes the value of `info` into its field of `out` (a struct of kind `field`). */
static void
fill_field (HeadroomProject       *self,
            const HeadroomKeyInfo *info,
            HeadroomKeyField       field,
            void                  *out)
{
  guint8 *member;

  if (info->apply != NULL)
    {
      info->apply (self, info, field, out);
      return;
    }
  if (info->field != field || field == HEADROOM_KEY_FIELD_NONE)
    return;

  member = (guint8 *) out + info->field_offset;
  switch (info->type)
    {
    case HEADROOM_KEY_INT:
      if (info->field_size == sizeof (gint64))
        *(gint64 *) member = headroom_project_get_int (self, info->key);
      else if (info->field_size == sizeof (int))
        *(int *) member = (int) headroom_project_get_int (self, info->key);
      else
        g_critical ("%s: an integer field of %" G_GSIZE_FORMAT " bytes", info->key, info->field_size);
      break;
    case HEADROOM_KEY_DOUBLE:
      g_return_if_fail (info->field_size == sizeof (double));
      *(double *) member = headroom_project_get_double (self, info->key);
      break;
    case HEADROOM_KEY_BOOLEAN:
      g_return_if_fail (info->field_size == sizeof (bool));
      *(bool *) member = headroom_project_get_boolean (self, info->key);
      break;
    case HEADROOM_KEY_CHOICE:
      /* An unknown name leaves the field at its init value; validation names it. */
      g_return_if_fail (info->from_name != NULL);
      info->from_name (headroom_project_get_string (self, info->key), member);
      break;
    case HEADROOM_KEY_STRING:
    default:
      g_critical ("%s: a string key needs an apply function to reach a field", info->key);
      break;
    }
}

static void
fill_struct (HeadroomProject  *self,
             HeadroomKeyField  field,
             void             *out)
{
  guint n_keys;
  const HeadroomKeyInfo *keys = headroom_project_get_keys (&n_keys);

  for (guint i = 0; i < n_keys; i++)
    fill_field (self, &keys[i], field, out);
}

/* hardware.price_per_gpu_hour: both workloads cost it. */
void
headroom_project_apply_price (HeadroomProject       *self,
                              const HeadroomKeyInfo *info,
                              HeadroomKeyField       field,
                              void                  *out)
{
  if (field == HEADROOM_KEY_FIELD_TRAINING)
    ((HrTraining *) out)->price_per_gpu_hour = headroom_project_get_double (self, info->key);
  else if (field == HEADROOM_KEY_FIELD_INFERENCE)
    ((HrInference *) out)->price_per_gpu_hour = headroom_project_get_double (self, info->key);
}

void
headroom_project_apply_overlap (HeadroomProject       *self,
                                const HeadroomKeyInfo *info,
                                HeadroomKeyField       field,
                                void                  *out)
{
  if (field == HEADROOM_KEY_FIELD_TRAINING)
    ((HrTraining *) out)->overlap = g_strcmp0 (headroom_project_get_string (self, info->key),
                                               "off") != 0;
}

/* Autocast over fp32 parameters (Hugging Face Trainer --bf16, Lightning
 * "bf16-mixed"): the mixed recipe with the fp32 residual stream. */
void
headroom_project_apply_precision (HeadroomProject       *self,
                                  const HeadroomKeyInfo *info,
                                  HeadroomKeyField       field,
                                  void                  *out)
{
  HrTraining *training = out;
  const char *precision;

  if (field != HEADROOM_KEY_FIELD_TRAINING)
    return;
  precision = headroom_project_get_string (self, info->key);
  if (g_strcmp0 (precision, "bf16-autocast") == 0 || g_strcmp0 (precision, "fp16-autocast") == 0)
    {
      training->precision = precision[0] == 'b' ? HR_PRECISION_BF16_MIXED
                                                : HR_PRECISION_FP16_MIXED;
      training->fp32_residual = true;
    }
  else
    hr_precision_from_name (precision, &training->precision);
}

void
headroom_project_apply_lora_targets (HeadroomProject       *self,
                                     const HeadroomKeyInfo *info,
                                     HeadroomKeyField       field,
                                     void                  *out)
{
  HrTraining *training = out;

  if (field != HEADROOM_KEY_FIELD_TRAINING)
    return;
  /* An unknown name sets a bit outside the targets, which validation names. */
  if (!hr_finetune_targets_from_string (headroom_project_get_string (self, info->key),
                                        &training->finetune.targets))
    training->finetune.targets = ~HR_TARGETS_MASK;
}

/* training.recompute_modules: Megatron's module names into their bits; an
 * unknown name sets a bit outside them, which validation names. */
void
headroom_project_apply_recompute_modules (HeadroomProject       *self,
                                          const HeadroomKeyInfo *info,
                                          HeadroomKeyField       field,
                                          void                  *out)
{
  HrTraining *training = out;

  if (field != HEADROOM_KEY_FIELD_TRAINING)
    return;
  if (!hr_recompute_modules_from_string (headroom_project_get_string (self, info->key),
                                         &training->recompute_modules))
    training->recompute_modules = ~HR_RECOMPUTE_MODULES_MASK;
}

/* hardware.overhead: both workloads' overhead_bytes, unless -1 (the core's default). */
void
headroom_project_apply_overhead (HeadroomProject       *self,
                                 const HeadroomKeyInfo *info,
                                 HeadroomKeyField       field,
                                 void                  *out)
{
  double bytes = headroom_project_get_double (self, info->key);

  if (bytes < 0)
    return;
  if (field == HEADROOM_KEY_FIELD_TRAINING)
    ((HrTraining *) out)->overhead_bytes = bytes;
  else if (field == HEADROOM_KEY_FIELD_INFERENCE)
    ((HrInference *) out)->overhead_bytes = bytes;
}

/* A DOUBLE in GB/s into its field in bytes/s. */
void
headroom_project_apply_gb_per_s (HeadroomProject       *self,
                                 const HeadroomKeyInfo *info,
                                 HeadroomKeyField       field,
                                 void                  *out)
{
  if (field == info->field)
    G_STRUCT_MEMBER (double, out, info->field_offset) = headroom_project_get_double (self, info->key) * 1e9;
}

/* A DOUBLE in ms into its field in s (a negative "engine default" stays negative). */
void
headroom_project_apply_ms (HeadroomProject       *self,
                           const HeadroomKeyInfo *info,
                           HeadroomKeyField       field,
                           void                  *out)
{
  if (field == info->field)
    G_STRUCT_MEMBER (double, out, info->field_offset) = headroom_project_get_double (self, info->key) * 1e-3;
}

void
headroom_project_get_training (HeadroomProject *self,
                               HrTraining      *training)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (training != NULL);

  hr_training_init (training);
  fill_struct (self, HEADROOM_KEY_FIELD_TRAINING, training);
  /* Fused projections are one adapted matrix: by the model's model_type. */
  {
    JsonNode *node = headroom_project_config_node (self, "model_type");

    if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
        && json_node_get_value_type (node) == G_TYPE_STRING)
      hr_finetune_set_model_type (&training->finetune, json_node_get_string (node));
  }
}

void
headroom_project_get_inference (HeadroomProject *self,
                                HrInference     *inference)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (inference != NULL);

  hr_inference_init (inference);
  fill_struct (self, HEADROOM_KEY_FIELD_INFERENCE, inference);
  inference->gpus = inference->tensor_parallel * inference->pipeline_parallel;
}

void
headroom_project_get_serving (HeadroomProject *self,
                              HrServing       *serving)
{
  g_return_if_fail (HEADROOM_IS_PROJECT (self));
  g_return_if_fail (serving != NULL);

  hr_serving_init (serving);
  fill_struct (self, HEADROOM_KEY_FIELD_SERVING, serving);
}

void
headroom_project_set_core_error (GError        **error,
                                 const char     *section,
                                 const HrError  *err)
{
  char line[512];
  const char *key;

  g_return_if_fail (err != NULL);

  key = headroom_project_key_for_field (section, err->field);
  if (key == NULL)
    {
      hr_error_format (err, line, sizeof line);
      g_set_error_literal (error, HEADROOM_PROJECT_ERROR, HEADROOM_PROJECT_ERROR_INVALID, line);
      return;
    }
  hr_error_format_problem (err, line, sizeof line);
  headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, key, "%s", line);
}

gboolean
headroom_project_validate (HeadroomProject  *self,
                           GError          **error)
{
  HrModel model;
  HrGpu gpu;
  HrTraining training;
  HrInference inference;

  return headroom_project_validate_and_get (self, &model, &gpu, &training, &inference, error);
}

gboolean
headroom_project_validate_and_get (HeadroomProject  *self,
                                   HrModel          *model,
                                   HrGpu            *gpu,
                                   HrTraining       *training,
                                   HrInference      *inference,
                                   GError          **error)
{
  HrError err = { 0 };
  gint64 n_gpus;

  g_return_val_if_fail (HEADROOM_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (model != NULL && gpu != NULL && training != NULL && inference != NULL, FALSE);

  if (!headroom_project_get_model (self, model, error)
      || !headroom_project_get_gpu (self, gpu, error))
    return FALSE;

  n_gpus = headroom_project_get_n_gpus (self);
  if (headroom_project_get_workload (self) == HEADROOM_WORKLOAD_TRAINING)
    {
      gint64 model_parallel;

      headroom_project_get_training (self, training);
      model_parallel = training->tensor_parallel * training->pipeline_parallel
                       * training->context_parallel;
      if (n_gpus % training->tensor_parallel != 0)
        {
          g_autofree char *count = headroom_format_integer_unit ((double) n_gpus, "GPUs");

          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "training.tensor_parallel",
                                        _("%" G_GINT64_FORMAT " does not divide %s"),
                                        training->tensor_parallel, count);
          return FALSE;
        }
      if (n_gpus % model_parallel != 0)
        {
          g_autofree char *count = headroom_format_integer_unit ((double) n_gpus, "GPUs");

          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "training.pipeline_parallel",
                                        _("tensor × pipeline × context parallel (%"
                                          G_GINT64_FORMAT ") does not divide %s"),
                                        model_parallel, count);
          return FALSE;
        }
      /* The core's check says only which number fails to divide which;
       * here the global batch is named with its factors. */
      if (training->global_batch > 0 && training->micro_batch > 0
          && training->global_batch % (training->micro_batch * (n_gpus / model_parallel)) != 0)
        {
          gint64 data_parallel = n_gpus / model_parallel;

          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "training.global_batch",
                                        g_dngettext (GETTEXT_PACKAGE,
                                                     "%" G_GINT64_FORMAT " sequence is not a multiple of "
                                                     "the micro-batch × data parallel (%" G_GINT64_FORMAT
                                                     " × %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT ")",
                                                     "%" G_GINT64_FORMAT " sequences is not a multiple of "
                                                     "the micro-batch × data parallel (%" G_GINT64_FORMAT
                                                     " × %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT ")",
                                                     (gulong) training->global_batch),
                                        training->global_batch, training->micro_batch, data_parallel,
                                        training->micro_batch * data_parallel);
          return FALSE;
        }
      if (!headroom_framework_check (headroom_project_get_string (self, "training.framework"),
                                     training, error))
        return FALSE;
      if (hr_training_validate (training, model, &err) != HR_OK)
        {
          headroom_project_set_core_error (error, "training", &err);
          return FALSE;
        }
    }
  else
    {
      headroom_project_get_inference (self, inference);
      if (n_gpus % inference->gpus != 0)
        {
          g_autofree char *count = headroom_format_integer_unit ((double) n_gpus, "GPUs");

          headroom_project_set_key_error (error, HEADROOM_PROJECT_ERROR_INVALID, "inference.tensor_parallel",
                                        _("tensor × pipeline parallel (%"
                                          G_GINT64_FORMAT ") does not divide %s"),
                                        inference->gpus, count);
          return FALSE;
        }
      if (hr_inference_validate (model, inference, &err) != HR_OK)
        {
          headroom_project_set_core_error (error, "inference", &err);
          return FALSE;
        }
    }
  return TRUE;
}
