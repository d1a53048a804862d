/* headroom-project.h: a Headroom project document (model, hardware, workload)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every setting is reached through a dotted key ("hardware.gpu",
 * "training.tensor_parallel", "inference.batch"). One key table gives each
 * key its type, bounds, default and unit; file loading and saving, command
 * line overrides and the window's rows all go through it. Model keys are
 * Hugging Face config.json names under "model." ("model.num_attention_heads"):
 * they override the preset named by "model.preset". The file format is
 * described in docs/project-format.md.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "headroom-catalog.h"
#include "hr-gpu.h"
#include "hr-inference.h"
#include "hr-model.h"
#include "hr-serving.h"
#include "hr-training.h"

G_BEGIN_DECLS

#define HEADROOM_PROJECT_FORMAT  "headroom-project"
/* Version 2 added scenarios; a file without them is still written as 1. */
#define HEADROOM_PROJECT_VERSION 2
/* The most scenarios a project keeps (the Compare view shows them side by side). */
#define HEADROOM_PROJECT_MAX_SCENARIOS 6

#define HEADROOM_PROJECT_ERROR (headroom_project_error_quark ())

typedef enum
{
  HEADROOM_PROJECT_ERROR_PARSE,        /* not JSON (truncated, not an object) */
  HEADROOM_PROJECT_ERROR_FORMAT,       /* no or wrong "format" tag */
  HEADROOM_PROJECT_ERROR_VERSION,      /* written by a newer Headroom */
  HEADROOM_PROJECT_ERROR_INVALID,      /* a value is out of bounds or inconsistent */
  HEADROOM_PROJECT_ERROR_TYPE,         /* a value has the wrong JSON type */
  HEADROOM_PROJECT_ERROR_UNKNOWN_KEY,  /* a key the table does not know (setters) */
  HEADROOM_PROJECT_ERROR_NOT_FOUND,    /* a preset or GPU id absent from the catalog */
} HeadroomProjectError;

GQuark headroom_project_error_quark (void) G_GNUC_CONST;

/* The key an error of HEADROOM_PROJECT_ERROR is about ("training.tensor_parallel")
 * and its problem without the key ("3 does not divide 8 GPUs"): the window
 * marks the key's row, the CLI names the option. NULL when the error names no
 * key (or is of another domain). The message names the setting by its label:
 * "Tensor parallel: 3 does not divide 8 GPUs". */
const char *headroom_project_error_get_key     (const GError *error);
const char *headroom_project_error_get_problem (const GError *error);
/* Sets such an error: `key` and the problem (FORMAT) as data, and the message
 * "LABEL: PROBLEM", so that the window, the report and the CLI say the same. */
void        headroom_project_set_key_error     (GError      **error,
                                                int           code,
                                                const char   *key,
                                                const char   *format,
                                                ...) G_GNUC_PRINTF (4, 5);

typedef enum
{
  HEADROOM_WORKLOAD_TRAINING,
  HEADROOM_WORKLOAD_INFERENCE,
} HeadroomWorkload;

typedef enum
{
  HEADROOM_KEY_INT,
  HEADROOM_KEY_DOUBLE,
  HEADROOM_KEY_BOOLEAN,
  HEADROOM_KEY_STRING,   /* free text or an id */
  HEADROOM_KEY_CHOICE,   /* a string from `choices` */
} HeadroomKeyType;

/* Which core struct a key's value goes into (headroom_project_get_training() and
 * friends fill them from the table). */
typedef enum
{
  HEADROOM_KEY_FIELD_NONE,       /* no struct field: the model, the GPU, notes */
  HEADROOM_KEY_FIELD_TRAINING,   /* HrTraining */
  HEADROOM_KEY_FIELD_INFERENCE,  /* HrInference */
  HEADROOM_KEY_FIELD_SERVING,    /* HrServing */
  HEADROOM_KEY_FIELD_CUSTOM_GPU, /* HrGpu of hardware.gpu "custom" */
  HEADROOM_KEY_FIELD_GPU,        /* HrGpu, over the catalog's or the custom one's where set */
} HeadroomKeyField;

typedef struct _HeadroomKeyInfo HeadroomKeyInfo;
typedef struct _HeadroomProject HeadroomProject;
typedef struct _HeadroomScenario HeadroomScenario;

/* A choice's core enum from its name (the core's hr_*_from_name()). */
typedef bool (*HeadroomKeyFromName) (const char *name,
                                     void       *out);
/* For a value that is not one field as it is (a scale, two fields, a choice
 * that sets two): writes the key's value into `out`, a struct of kind `field`.
 * Called for every kind; does nothing for the kinds it does not touch. */
typedef void (*HeadroomKeyApply) (HeadroomProject       *project,
                                  const HeadroomKeyInfo *info,
                                  HeadroomKeyField       field,
                                  void                  *out);

/* One row of the key table: everything about a setting. Adding a setting is
 * adding a row in headroom-project-keys.c (src/DESIGN.md, "Adding a setting"). */
struct _HeadroomKeyInfo
{
  const char         *key;            /* "training.tensor_parallel" */
  HeadroomKeyType     type;
  double              minimum;        /* INT and DOUBLE: inclusive bounds */
  double              maximum;
  const char         *default_value;  /* as written in a file: "8", "0.4", "true", "adamw" */
  const char * const *choices;        /* CHOICE: NULL-terminated names, as in a file */
  const char         *unit;           /* "GiB", "GB/s", "USD", …; NULL for plain counts */
  const char         *label;          /* English; translate with _() at display time */

  /* Presentation: where the window shows it and how. */
  const char         *group;          /* "page/section": "workload/parallelism"; NULL: not shown */
  const char * const *choice_labels;  /* CHOICE: parallel to `choices`, English (_() them) */
  const char         *placeholder;    /* shown for a sentinel 0 ("The GPU’s figure"); or NULL */
  const char         *description;    /* a longer explanation (tooltip); or NULL */
  const char         *visible_when;   /* "key=a|b": shown only while `key` is a or b (LoRA
                                       * rank under LoRA, QLoRA, DoRA); NULL: always */

  /* The command line: "--OPTION VALUE" ("--flag" for a boolean) in the
   * commands of the key's section (train and plan: training.*; infer:
   * inference.*; every command: hardware.*). NULL: derived from the key,
   * "training.lora_rank" → "lora-rank", "hardware.custom.fp8" → "custom-fp8". */
  const char         *option;

  /* The core struct field it maps to. INT fields are int64_t or int (by
   * `field_size`), DOUBLE double, BOOLEAN bool, CHOICE the enum the
   * `from_name` function reads. `apply`, when set, replaces all of this. */
  HeadroomKeyField    field;
  gsize               field_offset;
  gsize               field_size;
  HeadroomKeyFromName from_name;
  HeadroomKeyApply    apply;
};

/* The table, in file order. Model keys listed are those the window shows;
 * any other "model.<config key>" is accepted too and kept in the config. */
const HeadroomKeyInfo *headroom_project_get_keys (guint *n_keys);
/* NULL for unknown keys and for model keys outside the table. */
const HeadroomKeyInfo *headroom_project_find_key (const char *key);
/* Model keys the window shows besides the table's: config.json keys that a
 * preset may leave out, where 0 hands the value back to the preset. Rows of
 * the same form, but not loaded, saved or validated as settings. */
const HeadroomKeyInfo *headroom_project_get_extra_model_keys (guint *n_keys);
/* The translated label of a key of either table ("Tensor parallel"); NULL when none. */
const char            *headroom_project_get_key_label (const char *key);
/* The command-line option of a key, without the dashes ("tp", "lora-rank"). */
const char            *headroom_key_info_get_option (const HeadroomKeyInfo *info);
/* The English label of `value` among the key's choices; `value` when it has none. */
const char            *headroom_key_info_get_choice_label (const HeadroomKeyInfo *info,
                                                           const char            *value);
/* The key `info`'s row depends on (its visible_when), as a new string; NULL when none. */
char                  *headroom_key_info_dup_condition_key (const HeadroomKeyInfo *info) G_GNUC_WARN_UNUSED_RESULT;
/* The name among a choice key's choices that reads as the core's enum `value`
 * (HR_FSDP_GRAD_OP → "grad-op"), so that what prints a result's setting says
 * it as a file and an option do; NULL when none does. */
const char            *headroom_key_info_get_choice_for_enum (const HeadroomKeyInfo *info,
                                                              int                    value);
/* The key whose option is `option` ("tp") among the keys of `section`
 * ("training", "inference") and hardware; NULL when none. */
const HeadroomKeyInfo *headroom_project_find_option (const char *section,
                                                     const char *option);

#define HEADROOM_TYPE_PROJECT (headroom_project_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomProject, headroom_project, HEADROOM, PROJECT, GObject)

/* Every key at its default and no model: the estimator reports "No model: …". */
HeadroomProject *headroom_project_new           (void) G_GNUC_WARN_UNUSED_RESULT;
/* Llama-3.1-8B pretraining on one node of 8 H100 SXM, bf16 mixed precision, AdamW,
 * ZeRO-1, tensor parallel 2 with sequence parallelism, selective recomputation,
 * sequences of 8192, global batch 512, flash attention, 1T tokens at 2.50 USD
 * per GPU-hour. */
HeadroomProject *headroom_project_new_default   (void) G_GNUC_WARN_UNUSED_RESULT;
/* Loads and validates; sets :file. */
HeadroomProject *headroom_project_new_from_file (GFile       *file,
                                                 GError     **error) G_GNUC_WARN_UNUSED_RESULT;
/* The same for editing: each key is checked, but settings that do not go
 * together (a layout the GPU count does not divide, an unknown GPU) load,
 * as the window lets them be saved; the estimate then names the problem. */
HeadroomProject *headroom_project_new_from_file_to_edit (GFile   *file,
                                                         GError **error) G_GNUC_WARN_UNUSED_RESULT;
HeadroomProject *headroom_project_new_from_bytes (GBytes     *bytes,
                                                  GError    **error) G_GNUC_WARN_UNUSED_RESULT;
/* The same, with presets and GPUs looked up in `catalog` rather than the
 * default one: a worker thread's project reads only what it owns. */
HeadroomProject *headroom_project_new_from_bytes_with_catalog (GBytes           *bytes,
                                                               HeadroomCatalog  *catalog,
                                                               GError          **error) G_GNUC_WARN_UNUSED_RESULT;
/* A project whose model is `config` (a Hugging Face config.json object),
 * other keys at their defaults; fails if the config does not describe a model. */
HeadroomProject *headroom_project_new_from_config (JsonObject *config,
                                                   GError    **error) G_GNUC_WARN_UNUSED_RESULT;
/* Import: `config` becomes the model (the preset and any model overrides
 * go); hardware, workload and every other key stay. The title becomes
 * `name` (the model's, "Llama-3.1-8B"), else the config's _name_or_path,
 * until the project is saved. Fails, changing nothing, if the config does
 * not describe a model. */
gboolean         headroom_project_import_config   (HeadroomProject  *self,
                                                   JsonObject       *config,
                                                   const char       *name,
                                                   GError          **error);

/* The file as it would be saved: stable key order, UTF-8, ends in a newline. */
GBytes          *headroom_project_to_bytes      (HeadroomProject  *self) G_GNUC_WARN_UNUSED_RESULT;
/* Atomic write (headroom_file_save): a failure leaves the file as it was;
 * sets :file and clears :modified. */
gboolean         headroom_project_save          (HeadroomProject  *self,
                                                 GFile            *file,
                                                 GCancellable     *cancellable,
                                                 GError          **error);

GFile           *headroom_project_get_file      (HeadroomProject  *self);
gboolean         headroom_project_get_modified  (HeadroomProject  *self);
void             headroom_project_set_modified  (HeadroomProject  *self,
                                                 gboolean          modified);
/* File basename, or an imported model's name, or the preset, or "Untitled Project" (translated). */
char            *headroom_project_dup_title     (HeadroomProject  *self) G_GNUC_WARN_UNUSED_RESULT;

/* Setters check type and bounds (not cross-key consistency: see
 * headroom_project_validate()); on success they emit ::changed with the key
 * as detail (when the value changed) and set :modified. */
gboolean    headroom_project_set_int     (HeadroomProject  *self,
                                          const char       *key,
                                          gint64            value,
                                          GError          **error);
gboolean    headroom_project_set_double  (HeadroomProject  *self,
                                          const char       *key,
                                          double            value,
                                          GError          **error);
gboolean    headroom_project_set_boolean (HeadroomProject  *self,
                                          const char       *key,
                                          gboolean          value,
                                          GError          **error);
gboolean    headroom_project_set_string  (HeadroomProject  *self,
                                          const char       *key,
                                          const char       *value,
                                          GError          **error);
/* Parses `text` by the key's type ("4", "0.5", "true", "adamw"); for the CLI's KEY=VALUE. */
gboolean    headroom_project_set_from_string (HeadroomProject  *self,
                                              const char       *key,
                                              const char       *text,
                                              GError          **error);
/* Removes a "model.*" override so the preset's value shows again. */
void        headroom_project_unset       (HeadroomProject  *self,
                                          const char       *key);

/* Getters return the current value: for model keys the effective value
 * (override, else preset); where the config has no such member (GPT-2
 * spells num_hidden_layers n_layer; Llama leaves head_dim out), the value
 * the model is read with for the layer, size, head, vocabulary, position,
 * tied-embedding and bias keys, else 0 / FALSE / NULL. Unknown keys: 0 / NULL.
 * Setting a model key also sets the family's other spellings of it present
 * in the config, and unset removes them. */
gint64      headroom_project_get_int     (HeadroomProject  *self,
                                          const char       *key);
double      headroom_project_get_double  (HeadroomProject  *self,
                                          const char       *key);
gboolean    headroom_project_get_boolean (HeadroomProject  *self,
                                          const char       *key);
const char *headroom_project_get_string  (HeadroomProject  *self,
                                          const char       *key);
/* The value as it is written in a file ("8", "0.4", "true"); NULL when unset. */
char       *headroom_project_dup_value_string (HeadroomProject *self,
                                               const char      *key) G_GNUC_WARN_UNUSED_RESULT;

HeadroomWorkload headroom_project_get_workload (HeadroomProject *self);
/* The framework whose default an unset key shows ("torchtune", translated:
 * training.framework fills it); NULL for a key the project sets, or whose
 * default is the table's. */
const char *headroom_project_get_default_source (HeadroomProject *self,
                                                 const char      *key);
/* The project's framework by its label, translated ("DeepSpeed"); NULL
 * without one. */
const char *headroom_project_get_framework_label (HeadroomProject *self);
/* Whether a change of `key` can change other keys' defaults (the framework,
 * FSDP, the GPU and parallel counts torchtune's FSDP follows). */
gboolean    headroom_project_key_moves_defaults (const char      *key);
/* Whether `key`'s setting applies given the others: training.* keys under
 * the training workload only, inference.* under inference, and the key
 * table's visible_when (LoRA rank only under LoRA, QLoRA or DoRA). TRUE for
 * other keys without a condition. */
gboolean    headroom_project_key_applies (HeadroomProject *self,
                                          const char      *key);

/* The model: "model.preset" (may be NULL) and the explicit config keys
 * (never NULL, maybe empty). set_config replaces the overrides wholesale and
 * emits ::changed with detail "model". */
const char *headroom_project_get_preset     (HeadroomProject  *self);
JsonObject *headroom_project_get_config     (HeadroomProject  *self);
void        headroom_project_set_config     (HeadroomProject  *self,
                                             JsonObject       *config);
/* The preset's config with the overrides applied (a new object). */
JsonObject *headroom_project_dup_effective_config (HeadroomProject *self) G_GNUC_WARN_UNUSED_RESULT;

/* "llama" when the model is read as an assumed Llama-style decoder (its
 * model_type unknown or absent, "model.assume_architecture" set to llama);
 * NULL when its family is known or nothing is assumed. */
const char *headroom_project_get_assumed_architecture (HeadroomProject *self);
/* One translated sentence saying so (report, CLI, window), or NULL. */
char       *headroom_project_dup_assumed_note (HeadroomProject *self) G_GNUC_WARN_UNUSED_RESULT;
/* TRUE when the model is a vision-language model of which only the language
 * model is counted (Qwen2.5-VL, Gemma 3, LLaVA…: hr_config_is_vision_language()). */
gboolean    headroom_project_get_text_only (HeadroomProject *self);
/* One translated sentence saying so (report, CLI, window), or NULL. */
char       *headroom_project_dup_text_only_note (HeadroomProject *self) G_GNUC_WARN_UNUSED_RESULT;
/* "Not read, no such setting: training.tensor_paralel": the file's members
 * that no key has (kept on save, never read); NULL when there are none. */
char       *headroom_project_dup_unknown_keys_note (HeadroomProject *self) G_GNUC_WARN_UNUSED_RESULT;

/* The model and GPU the estimates use (catalog look-ups included). */
gboolean    headroom_project_get_model      (HeadroomProject  *self,
                                             HrModel          *model,
                                             GError          **error);
gboolean    headroom_project_get_gpu        (HeadroomProject  *self,
                                             HrGpu            *gpu,
                                             GError          **error);
/* The workload settings as the core takes them (from the training.* or
 * inference.* keys and the hardware keys they need); not validated. */
void        headroom_project_get_training   (HeadroomProject  *self,
                                             HrTraining       *training);
void        headroom_project_get_inference  (HeadroomProject  *self,
                                             HrInference      *inference);
/* The serving engine and its memory settings (inference.engine …). */
void        headroom_project_get_serving    (HeadroomProject  *self,
                                             HrServing        *serving);
/* hardware.nodes × hardware.gpus_per_node */
gint64      headroom_project_get_n_gpus     (HeadroomProject  *self);

/* Cross-key checks, e.g. "Tensor parallel: 3 does not divide 8 GPUs" (key
 * "training.tensor_parallel"). */
gboolean    headroom_project_validate       (HeadroomProject  *self,
                                             GError          **error);
/* The same checks, handing back what they read: the model, the GPU and the
 * workload's settings (`training` under the training workload, `inference`
 * under inference; the other is left as it was), so that an estimate reads
 * the project once. On failure the outputs are unspecified. */
gboolean    headroom_project_validate_and_get (HeadroomProject  *self,
                                               HrModel          *model,
                                               HrGpu            *gpu,
                                               HrTraining       *training,
                                               HrInference      *inference,
                                               GError          **error);

/* The dotted key for a field named by the core (HrError.field), looked up in
 * `section` ("training", "inference"), then hardware, then model: e.g.
 * "tensor_parallel" → "training.tensor_parallel". Returns `field` when unknown. */
const char *headroom_project_key_for_field (const char *section,
                                            const char *field);

/* Sets `error` (HEADROOM_PROJECT_ERROR_INVALID) from a core error, with the
 * full key as data and its label in the message: "Tensor parallel: 3 does
 * not divide 8". */
void        headroom_project_set_core_error (GError        **error,
                                             const char     *section,
                                             const HrError  *err);

/* Scenarios (headroom-scenario.h): named copies of the settings, in order.
 * GListModel of HeadroomScenario; each change sets :modified. */
GListModel *headroom_project_get_scenarios  (HeadroomProject  *self);
/* Keeps the current settings (every key and the model, not the notes) as a
 * new last scenario named `name`, or when NULL or blank by what differs
 * from the first scenario (headroom_scenario_dup_default_name()), made
 * unique with " (2)"…; fails past HEADROOM_PROJECT_MAX_SCENARIOS.
 * Returns the scenario (owned by the project). */
HeadroomScenario *headroom_project_keep_scenario (HeadroomProject  *self,
                                                  const char       *name,
                                                  GError          **error);
/* A copy of scenario `position` placed after it, named "NAME (2)". */
HeadroomScenario *headroom_project_duplicate_scenario (HeadroomProject  *self,
                                                       guint             position,
                                                       GError          **error);
/* Fails on a blank name; the name is kept on one line, trimmed. */
gboolean    headroom_project_rename_scenario (HeadroomProject  *self,
                                              guint             position,
                                              const char       *name,
                                              GError          **error);
void        headroom_project_remove_scenario (HeadroomProject  *self,
                                              guint             position);
/* Puts scenario `position`'s settings back in the editor: ::changed for each
 * key whose value changes. */
void        headroom_project_apply_scenario  (HeadroomProject  *self,
                                              guint             position);
/* Sets every setting of `source` (keys and model, not the notes) on `self`,
 * emitting ::changed for each key whose value changes. */
void        headroom_project_copy_settings   (HeadroomProject  *self,
                                              HeadroomProject  *source);
/* The settings whose values differ between `self` and `other`, as keys in
 * the table's order: "workload", hardware.* (hardware.custom.* when either
 * uses the custom GPU), the keys of the section of either's workload,
 * "model.preset", and the table's model keys that differ, or "model" when
 * only other config keys do. Notes are not settings. NULL-terminated. */
char      **headroom_project_dup_differences (HeadroomProject  *self,
                                              HeadroomProject  *other) G_GNUC_WARN_UNUSED_RESULT;

/* Keys found in the loaded file that the table does not know, as dotted
 * paths; they are kept and written back on save. NULL-terminated, never NULL. */
const char * const *headroom_project_get_unknown_keys (HeadroomProject *self);

G_END_DECLS
