/* headroom-project-private.h: what HeadroomProject's files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HeadroomProject is written in several files, one job each
 * (src/DESIGN.md): the object, its getters and setters (headroom-project.c),
 * the key table and its look-ups (headroom-project-keys.c), loading and
 * writing a file (headroom-project-file.c), the core's structs and the
 * cross-key checks (headroom-project-core.c) and the scenarios
 * (headroom-project-scenarios.c). Only those files include this header.
 */
#pragma once

#include "headroom-project.h"

G_BEGIN_DECLS

/* Exact integers of a double stop at 2^53; no count Headroom takes is larger. */
#define MAX_COUNT 9007199254740992.0

struct _HeadroomProject
{
  GObject parent_instance;

  GFile *file;
  JsonObject *config;        /* model overrides, HF config keys */
  GHashTable *values;        /* table key → JsonNode, keys explicitly set */
  GPtrArray *unknown;        /* Unknown, in file order, kept for saving */
  GPtrArray *unknown_paths;  /* their dotted paths, NULL-terminated */
  char *model_name;          /* an imported model's name: the title until saved */
  GListStore *scenarios;     /* HeadroomScenario, in file order */
  HeadroomCatalog *catalog;  /* presets and GPUs; NULL: the default catalog */

  guint modified : 1;
};

/* A member the table does not know. Its parent is a known section, so its
 * dotted path is safe to split; its own name may hold dots. */
typedef struct
{
  char     *section;  /* NULL at the top level */
  char     *name;
  JsonNode *node;
} Unknown;

/* headroom-project.c */

/* The config member of a "model.x" key other than the preset; NULL for other keys. */
const char *headroom_project_config_member (const char *key);
/* A deep copy: json_node_copy() shares objects and arrays. */
JsonObject *headroom_project_copy_object   (JsonObject *object);
/* Stores `node` (taken) as the value of `info`, without a signal. */
void        headroom_project_store_value   (HeadroomProject       *self,
                                            const HeadroomKeyInfo *info,
                                            JsonNode              *node);
/* Emits ::changed::KEY and sets :modified. */
void        headroom_project_changed       (HeadroomProject *self,
                                            const char      *key);
/* Sets a key to `node` (taken) as the setters do. */
gboolean    headroom_project_set_node      (HeadroomProject  *self,
                                            const char       *key,
                                            JsonNode         *node,
                                            GError          **error);
/* The project's catalog, else the default one. */
HeadroomCatalog *headroom_project_catalog  (HeadroomProject *self);
/* The preset's config, or NULL without a preset or when the catalog lacks it. */
JsonObject *headroom_project_preset_config (HeadroomProject *self);
/* The member `member` of the effective config (headroom_project_dup_effective_config()),
 * borrowed, without copying the config; NULL when absent. */
JsonNode   *headroom_project_config_node   (HeadroomProject *self,
                                            const char      *member);
gboolean    headroom_project_uses_custom_gpu (HeadroomProject *self);

/* headroom-project-keys.c */

/* Whether `path` is a section of the table's keys ("training", "hardware.custom"). */
gboolean    headroom_project_is_section    (const char *path);
/* The default of a key: the table's, or the one the project's framework
 * implies (`self` may be NULL: the table's). */
const char *headroom_project_default_value (HeadroomProject       *self,
                                            const HeadroomKeyInfo *info);
JsonNode   *headroom_project_default_node  (HeadroomProject       *self,
                                            const HeadroomKeyInfo *info);
gboolean    headroom_project_node_is_number (JsonNode *node);
void        headroom_project_set_invalid   (GError     **error,
                                            const char  *key,
                                            const char  *problem);
/* Type and bounds of one value; `info` NULL for model keys outside the table. */
gboolean    headroom_project_check_node    (const char             *key,
                                            const HeadroomKeyInfo  *info,
                                            JsonNode               *node,
                                            GError                **error);

/* headroom-project-file.c */

/* `node` as JSON, indented as a project file is at `depth`. */
void        headroom_project_append_node   (GString  *out,
                                            JsonNode *node,
                                            guint     depth);
/* A config error about one key becomes an error about "model.KEY". */
void        headroom_project_config_error_to_key (GError **error);

/* headroom-project-core.c: the key table's APPLY () functions. */
void        headroom_project_apply_price        (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_precision    (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_overlap      (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_lora_targets (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_recompute_modules (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_overhead     (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_gb_per_s     (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_ms           (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);
void        headroom_project_apply_gpu          (HeadroomProject *, const HeadroomKeyInfo *, HeadroomKeyField, void *);

/* headroom-project-scenarios.c */

/* A scenario's name on one line, without surrounding spaces; NULL when blank. */
char       *headroom_project_scenario_name (const char *text);

G_END_DECLS
