/* headroom-scenario.h: a named copy of a project's settings, kept to compare
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "Keep as Scenario" pins the project's settings (every key of the key
 * table and the model, notes aside) under a name. The settings live in a
 * HeadroomProject of their own, which a HeadroomEstimator estimates exactly
 * as it does the editor's project. A project holds its scenarios
 * (headroom_project_get_scenarios()) and saves them in its file
 * (docs/project-format.md, "Scenarios").
 */
#pragma once

#include <glib-object.h>

#include "headroom-project.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_SCENARIO (headroom_scenario_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomScenario, headroom_scenario, HEADROOM, SCENARIO, GObject)

/* Takes a reference on `settings`, which the scenario owns from then on:
 * nothing else should change it. */
HeadroomScenario *headroom_scenario_new         (const char       *name,
                                                 HeadroomProject  *settings) G_GNUC_WARN_UNUSED_RESULT;

const char       *headroom_scenario_get_name     (HeadroomScenario *self);
void              headroom_scenario_set_name     (HeadroomScenario *self,
                                                  const char       *name);
HeadroomProject  *headroom_scenario_get_settings (HeadroomScenario *self);

/* A name saying what `settings` changes against `base` (the keys whose
 * values differ, by their labels: "16 × A100 SXM 80GB, ZeRO stage 3"), at
 * most three changes; with no base, the GPUs and the model
 * ("8 × H100 SXM, Llama 3.1 8B"). NULL when nothing differs. */
char             *headroom_scenario_dup_default_name (HeadroomProject *settings,
                                                      HeadroomProject *base) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
