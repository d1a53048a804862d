/* headroom-framework.h: the layouts each framework can run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `training.framework` fills the defaults of the recipe (headroom-project-keys.c)
 * and bounds the layout: a DeepSpeed run has no interleaved schedule, a
 * torchtune run no pipeline. The estimate refuses a layout its framework
 * cannot run, naming the setting; the planner searches only the layouts it
 * can (docs/training.md, "Frameworks").
 */
#pragma once

#include <glib.h>

#include "hr-planner.h"

G_BEGIN_DECLS

/* The data-parallel sharding the framework has, for the planner's search. */
HrPlanSharding headroom_framework_sharding     (const char       *framework);

/* The recomputation modes the framework runs: bits 1 << HrRecompute. */
unsigned       headroom_framework_recompute_modes (const char *framework);

/* FALSE with an error of HEADROOM_PROJECT_ERROR naming the setting when the
 * framework cannot run the layout of `training`. */
gboolean       headroom_framework_check        (const char       *framework,
                                                const HrTraining *training,
                                                GError          **error);

/* Sets the request's sharding family and recomputation modes to the
 * framework's and pins the free dimensions it cannot vary to what it runs;
 * FALSE with the error of headroom_framework_check() when a pinned one, or
 * the project's schedule, is out of its reach. */
gboolean       headroom_framework_restrict     (const char       *framework,
                                                HrPlanRequest    *request,
                                                GError          **error);

G_END_DECLS
