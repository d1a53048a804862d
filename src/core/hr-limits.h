/* hr-limits.h: the documented range of every model value
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Far above any published model, low enough that no product of them
 * overflows the estimates' doubles and no search runs long. The table is
 * repeated in docs/project-format.md (Limits).
 */
#pragma once

#include "hr-error.h"
#include "hr-model.h"

/* HR_ERROR_OUT_OF_RANGE naming the config key when a value exceeds its limit. */
HrStatus hr_model_check_limits (const HrModel *model,
                                HrError       *err);
