/* test-project.h: helpers the project test programs share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "headroom-project.h"

/* Llama-3.1-8B (same shapes as Llama-3-8B in tests/data/reference/known-models.json):
 *   embedding = lm_head = 128256 × 4096                      =   525 336 576 each
 *   one layer: q, o 4096² + k, v 4096 × 1024 (8 KV heads × 128) =    41 943 040
 *              MLP 3 × 4096 × 14336                            =   176 160 768
 *              two RMSNorms 2 × 4096                           =         8 192
 *              → 218 112 000 × 32 layers                       = 6 979 584 000
 *   final norm 4096
 *   total = 2 × 525 336 576 + 6 979 584 000 + 4096             = 8 030 261 248 */
#define LLAMA_31_8B_PARAMS G_GINT64_CONSTANT (8030261248)

static inline HeadroomProject *
custom_gpu_project (void)
{
  HeadroomProject *project = headroom_project_new_default ();

  /* The catalogue is another component's; the custom GPU keeps these tests on their own. */
  g_assert_true (headroom_project_set_string (project, "hardware.gpu", "custom", NULL));
  headroom_project_set_modified (project, FALSE);
  return project;
}

static inline HeadroomProject *
load_string (const char  *text,
             GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return headroom_project_new_from_bytes (bytes, error);
}

static inline char *
to_string (HeadroomProject *project)
{
  g_autoptr(GBytes) bytes = headroom_project_to_bytes (project);

  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

static inline JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}
