/* headroom-cli.h: pieces shared by the headroom-cli commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every command returns an exit status: 0 done, 1 a failure outside the
 * input (writing a file), 2 bad input. Bad input is reported as one line on
 * stderr ("headroom-cli: --tp: …") with nothing on stdout: commands compute
 * everything before they print.
 */
#pragma once

#include <json-glib/json-glib.h>

/* The core's types come with the service's headers: the CLI includes no
 * core header (tests/check-layers.py). */
#include "headroom-estimator.h"
#include "headroom-project.h"

G_BEGIN_DECLS

#define HEADROOM_CLI_EXIT_OK      0
#define HEADROOM_CLI_EXIT_FAILURE 1
#define HEADROOM_CLI_EXIT_USAGE   2

#define HEADROOM_CLI_ERROR (headroom_cli_error_quark ())

typedef enum
{
  HEADROOM_CLI_ERROR_USAGE,    /* bad input: exit status 2 */
  HEADROOM_CLI_ERROR_FAILED,   /* anything else: exit status 1 */
} HeadroomCliError;

GQuark headroom_cli_error_quark (void);

typedef struct _HeadroomCliKeyOptions HeadroomCliKeyOptions;

/* The model a command runs on, from --model. */
typedef struct
{
  HrModel          model;
  char            *name;     /* preset id, file name */
  char            *preset;   /* set when MODEL was a preset id */
  JsonObject      *config;   /* set when MODEL was a config.json */
  HeadroomProject *project;  /* set when MODEL was a project file */
} HeadroomCliModel;

void     headroom_cli_model_clear   (HeadroomCliModel *model);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HeadroomCliModel, headroom_cli_model_clear)

/* MODEL: a preset id, a Hugging Face config.json or a project file, read
 * with the options' --assume-architecture (`options` may be NULL). */
gboolean headroom_cli_resolve_model (const char             *text,
                                     HeadroomCliKeyOptions  *options,
                                     HeadroomCliModel       *out,
                                     GError                **error);

/* A USAGE error "TEXT: MESSAGE" from reading a model; an unknown model_type's
 * says which option reads it. */
void     headroom_cli_set_model_error (GError       **error,
                                       const char    *text,
                                       const GError  *model_error);

/* Strict number parsing; errors name `option`. */
gboolean headroom_cli_parse_int     (const char  *option,
                                     const char  *text,
                                     gint64       minimum,
                                     gint64      *out,
                                     GError     **error);
gboolean headroom_cli_parse_double  (const char  *option,
                                     const char  *text,
                                     double       minimum,
                                     double       maximum,
                                     gboolean     exclusive_minimum,
                                     double      *out,
                                     GError     **error);
/* As above, but a NULL `text` (option not given) leaves *out as it is. */
gboolean headroom_cli_parse_optional_int    (const char         *option,
                                             const char         *text,
                                             gint64              minimum,
                                             gint64             *out,
                                             GError            **error);
gboolean headroom_cli_parse_optional_choice (const char         *option,
                                             const char         *text,
                                             const char * const *choices,
                                             int                *out,
                                             GError            **error);
/* Sets *out to the index of `text` in the NULL-terminated `choices`. */
gboolean headroom_cli_parse_choice  (const char         *option,
                                     const char         *text,
                                     const char * const *choices,
                                     int                *out,
                                     GError            **error);

/* g_option_context_parse(), its error a USAGE one; arguments are left in argv. */
gboolean headroom_cli_parse_context (GOptionContext  *context,
                                     int             *argc,
                                     char          ***argv,
                                     GError         **error);

/* Parses argv with `context`; a non-option argument left over is an error. */
gboolean headroom_cli_parse_options (GOptionContext  *context,
                                     int             *argc,
                                     char          ***argv,
                                     GError         **error);

/* As above, for the commands that read a model: one argument left over is
 * MODEL, as if given with --model (given both ways, it is an error). */
gboolean headroom_cli_parse_model_options (GOptionContext  *context,
                                           int             *argc,
                                           char          ***argv,
                                           char           **model,
                                           GError         **error);

/* --gpus N on `project`: whole nodes of its GPUs per node when N is a
 * multiple of it, else one node of N GPUs (an error when the node size was
 * given); an error naming --gpus when N is past the keys' ranges. */
gboolean headroom_cli_set_gpu_count (HeadroomProject  *project,
                                     gint64            gpus,
                                     gboolean          per_node_given,
                                     GError          **error);

/* Prints "headroom-cli: MESSAGE" as one line and returns the exit status. */
int      headroom_cli_report_error  (const GError *error);

/* JSON output */
void     headroom_cli_json_int      (JsonBuilder *builder,
                                     const char  *key,
                                     gint64       value);
/* Bytes held in a double: written as an integer. */
void     headroom_cli_json_bytes    (JsonBuilder *builder,
                                     const char  *key,
                                     double       bytes);
void     headroom_cli_json_double   (JsonBuilder *builder,
                                     const char  *key,
                                     double       value);
void     headroom_cli_json_bool     (JsonBuilder *builder,
                                     const char  *key,
                                     gboolean     value);
void     headroom_cli_json_string   (JsonBuilder *builder,
                                     const char  *key,
                                     const char  *value);
void     headroom_cli_json_params   (JsonBuilder    *builder,
                                     const HrParams *params);
void      headroom_cli_json_params_trained (JsonBuilder    *builder,
                                            const HrParams *params,
                                            gint64          trainable,
                                            gint64          frozen);
void     headroom_cli_json_flops    (JsonBuilder   *builder,
                                     const HrFlops *flops);
/* "unknown_keys": the project file's members that no setting has; NULL
 * when there are none (headroom_project_get_unknown_keys). */
JsonNode *headroom_cli_unknown_keys_node (HeadroomProject *project) G_GNUC_WARN_UNUSED_RESULT;
void     headroom_cli_print_json    (JsonBuilder *builder);
/* The same, with "assumed_architecture": "llama" added to the object when
 * the project's model was read as an assumed architecture, "text_only": true
 * when it is a vision-language model's language model alone, and
 * "unknown_keys" where the project file has some. */
void     headroom_cli_print_model_json (JsonBuilder     *builder,
                                        HeadroomProject *project);
/* The same as a line of text under a table. */
void     headroom_cli_print_assumed (HeadroomProject *project);

/* Readable numbers (C locale, so that tables read the same everywhere). */
char    *headroom_cli_format_gib      (double bytes);
char    *headroom_cli_format_flops    (double flops);    /* "1.23 TFLOP" */
char    *headroom_cli_format_count    (double count);    /* "6,738,415,616" */
char    *headroom_cli_format_gpus     (gint64 gpus);     /* "1 GPU", "8 GPUs" */
char    *headroom_cli_format_number   (double value,
                                       int    digits);
char    *headroom_cli_format_duration (double seconds);
char    *headroom_cli_format_limit    (gint64 value);    /* "none fits" for 0 */
/* A longest sequence or context against the model's `context`:
 * "8192 (the model's context)", "262144 (beyond the model's context of 131072)". */
char    *headroom_cli_format_length_limit (gint64 value,
                                           gint64 context);
/* `text` (taken) marked as a figure of a run that does not fit when !fits. */
char    *headroom_cli_mark_not_fit    (char    *text,
                                       gboolean fits);

/* --explain: each figure's derivation, as the window's "show why" popovers
 * give it (headroom_estimator_dup_explanation()); pairs of id and text. */
GPtrArray *headroom_cli_dup_explanations   (HeadroomEstimator *estimator);
void       headroom_cli_print_explanations (GPtrArray         *explanations);
void       headroom_cli_json_explanations  (JsonBuilder       *builder,
                                            GPtrArray         *explanations);

/* A table: first column left-aligned, the others right-aligned. */
typedef struct _HeadroomCliTable HeadroomCliTable;

HeadroomCliTable *headroom_cli_table_new     (guint             n_columns);
/* One letter per column, 'l' or 'r' (the default after the first column). */
void              headroom_cli_table_set_align (HeadroomCliTable *table,
                                                const char       *align);
void              headroom_cli_table_add     (HeadroomCliTable *table,
                                              const char       *first,
                                              ...) G_GNUC_NULL_TERMINATED;
/* Takes ownership of each cell. */
void              headroom_cli_table_take    (HeadroomCliTable *table,
                                              char             *first,
                                              ...) G_GNUC_NULL_TERMINATED;
/* The next cell, row after row, for rows of any width; takes it. */
void              headroom_cli_table_take_cell (HeadroomCliTable *table,
                                                char             *cell);
/* A row of a label and a size in GiB. */
void              headroom_cli_table_add_gib (HeadroomCliTable *table,
                                              const char       *label,
                                              double            bytes);
void              headroom_cli_table_print   (HeadroomCliTable *table);
void              headroom_cli_table_free    (HeadroomCliTable *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HeadroomCliTable, headroom_cli_table_free)

/* Options made from the key table (headroom-cli-options.c): every key of
 * `section` ("training", "inference") and of hardware.*, or none of them for
 * a NULL `section`; and --assume-architecture always. */
HeadroomCliKeyOptions *headroom_cli_key_options_new   (GOptionContext        *context,
                                                       const char            *section);
void                   headroom_cli_key_options_free  (HeadroomCliKeyOptions *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HeadroomCliKeyOptions, headroom_cli_key_options_free)
/* The text given for `key` ("true" for a flag), NULL when not given. */
const char            *headroom_cli_key_options_get   (HeadroomCliKeyOptions *self,
                                                       const char            *key);
/* Checks the value given for `key` (if any) by the table alone; an error names the option. */
gboolean               headroom_cli_key_options_check (HeadroomCliKeyOptions  *self,
                                                       const char             *key,
                                                       GError                **error);
/* Sets every value given on `project`; an error names the option. An
 * option that the project's other settings leave out (the key table's
 * visible_when) is an error too, but for a condition on a key of
 * `searched` that was not given (set_searched). */
gboolean               headroom_cli_key_options_apply (HeadroomCliKeyOptions *self,
                                                       HeadroomProject       *project,
                                                       GError               **error);
/* The two halves of apply: set every value given; then refuse an option
 * that applies in none of `projects` (compare's columns: one that a column
 * uses is fine). */
gboolean               headroom_cli_key_options_set   (HeadroomCliKeyOptions *self,
                                                       HeadroomProject       *project,
                                                       GError               **error);
gboolean               headroom_cli_key_options_check_applies (HeadroomCliKeyOptions   *self,
                                                               HeadroomProject * const *projects,
                                                               guint                    n_projects,
                                                               GError                 **error);
/* The NULL-terminated keys the command varies itself (plan's layout keys). */
void                   headroom_cli_key_options_set_searched (HeadroomCliKeyOptions *self,
                                                              const char * const    *keys);
/* How a file and an option name the core's enum `value` of the choice `key`
 * ("training.fsdp"): the key table's choice, not the core's own name. */
const char            *headroom_cli_choice_name       (const char            *key,
                                                       int                    value);
/* A USAGE error from a project error set by an option: the setting's label
 * and its option ("Tensor parallel (--tp): 3 does not divide 8 GPUs"). */
void                   headroom_cli_set_key_error     (GError               **error,
                                                       const GError          *key_error);
/* A USAGE error from a project's or a config's error about FILE: the label
 * and the key as the file spells it ("a.json: Attention heads
 * (num_attention_heads): …"), else FILE and the message. */
void                   headroom_cli_set_file_error    (GError               **error,
                                                       const char            *file,
                                                       const GError          *file_error);

/* The project a command computes on: MODEL's own project, else a new one
 * (every key at the table's default) holding the preset or the config. */
HeadroomProject *headroom_cli_model_dup_project (HeadroomCliModel *model);

/* The commands: argv[0] is the command name. */
int headroom_cli_params (int argc, char **argv);
int headroom_cli_flops  (int argc, char **argv);
int headroom_cli_gpus   (int argc, char **argv);
int headroom_cli_models (int argc, char **argv);
int headroom_cli_train  (int argc, char **argv);
int headroom_cli_plan   (int argc, char **argv);
int headroom_cli_infer  (int argc, char **argv);
int headroom_cli_report (int argc, char **argv);
int headroom_cli_import (int argc, char **argv);
int headroom_cli_compare (int argc, char **argv);

/* report: the project's own workload, with no options over it. */
int headroom_cli_report_training  (HeadroomCliModel *model,
                                   gboolean          json,
                                   gboolean          explain);
int headroom_cli_report_inference (HeadroomCliModel *model,
                                   gboolean          json,
                                   gboolean          explain);

G_END_DECLS
