/* headroom-gpu-info.h: one entry of the GPU catalog
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "hr-gpu.h"

G_BEGIN_DECLS

#define HEADROOM_TYPE_GPU_INFO (headroom_gpu_info_get_type ())

G_DECLARE_FINAL_TYPE (HeadroomGpuInfo, headroom_gpu_info, HEADROOM, GPU_INFO, GObject)

HeadroomGpuInfo *headroom_gpu_info_new (const char  *id,
                                        const char  *name,
                                        const char  *vendor,
                                        const char  *source,
                                        const HrGpu *gpu,
                                        gboolean     user_defined);

const char  *headroom_gpu_info_get_id           (HeadroomGpuInfo *self);
const char  *headroom_gpu_info_get_name         (HeadroomGpuInfo *self);
const char  *headroom_gpu_info_get_vendor       (HeadroomGpuInfo *self);
const char  *headroom_gpu_info_get_source       (HeadroomGpuInfo *self);
const HrGpu *headroom_gpu_info_get_gpu          (HeadroomGpuInfo *self);
gboolean     headroom_gpu_info_get_user_defined (HeadroomGpuInfo *self);

double       headroom_gpu_network_latency       (const HrGpu     *gpu);

G_END_DECLS
