/* headroom-gpu-info.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "headroom-gpu-info.h"
#include "hr-planner.h"

struct _HeadroomGpuInfo
{
  GObject   parent_instance;

  char     *id;
  char     *name;
  char     *vendor;
  char     *source;
  HrGpu     gpu;
  gboolean  user_defined;
};

G_DEFINE_FINAL_TYPE (HeadroomGpuInfo, headroom_gpu_info, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_NAME,
  PROP_VENDOR,
  PROP_SOURCE,
  PROP_MEMORY_BYTES,
  PROP_USER_DEFINED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
headroom_gpu_info_finalize (GObject *object)
{
  HeadroomGpuInfo *self = (HeadroomGpuInfo *) object;

  g_free (self->id);
  g_free (self->name);
  g_free (self->vendor);
  g_free (self->source);

  G_OBJECT_CLASS (headroom_gpu_info_parent_class)->finalize (object);
}

static void
headroom_gpu_info_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  HeadroomGpuInfo *self = HEADROOM_GPU_INFO (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_VENDOR:
      g_value_set_string (value, self->vendor);
      break;
    case PROP_SOURCE:
      g_value_set_string (value, self->source);
      break;
    case PROP_MEMORY_BYTES:
      g_value_set_double (value, self->gpu.memory_bytes);
      break;
    case PROP_USER_DEFINED:
      g_value_set_boolean (value, self->user_defined);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
headroom_gpu_info_class_init (HeadroomGpuInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = headroom_gpu_info_finalize;
  object_class->get_property = headroom_gpu_info_get_property;

  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VENDOR] =
    g_param_spec_string ("vendor", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SOURCE] =
    g_param_spec_string ("source", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_MEMORY_BYTES] =
    g_param_spec_double ("memory-bytes", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_USER_DEFINED] =
    g_param_spec_boolean ("user-defined", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
headroom_gpu_info_init (HeadroomGpuInfo *self)
{
}

HeadroomGpuInfo *
headroom_gpu_info_new (const char  *id,
                       const char  *name,
                       const char  *vendor,
                       const char  *source,
                       const HrGpu *gpu,
                       gboolean     user_defined)
{
  HeadroomGpuInfo *self;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (gpu != NULL, NULL);

  self = g_object_new (HEADROOM_TYPE_GPU_INFO, NULL);
  self->id = g_strdup (id);
  self->name = g_strdup (name != NULL ? name : id);
  self->vendor = g_strdup (vendor);
  self->source = g_strdup (source);
  self->gpu = *gpu;
  self->user_defined = !!user_defined;

  return self;
}

const char *
headroom_gpu_info_get_id (HeadroomGpuInfo *self)
{
  g_return_val_if_fail (HEADROOM_IS_GPU_INFO (self), NULL);
  return self->id;
}

const char *
headroom_gpu_info_get_name (HeadroomGpuInfo *self)
{
  g_return_val_if_fail (HEADROOM_IS_GPU_INFO (self), NULL);
  return self->name;
}

const char *
headroom_gpu_info_get_vendor (HeadroomGpuInfo *self)
{
  g_return_val_if_fail (HEADROOM_IS_GPU_INFO (self), NULL);
  return self->vendor;
}

const char *
headroom_gpu_info_get_source (HeadroomGpuInfo *self)
{
  g_return_val_if_fail (HEADROOM_IS_GPU_INFO (self), NULL);
  return self->source;
}

const HrGpu *
headroom_gpu_info_get_gpu (HeadroomGpuInfo *self)
{
  g_return_val_if_fail (HEADROOM_IS_GPU_INFO (self), NULL);
  return &self->gpu;
}

gboolean
headroom_gpu_info_get_user_defined (HeadroomGpuInfo *self)
{
  g_return_val_if_fail (HEADROOM_IS_GPU_INFO (self), FALSE);
  return self->user_defined;
}

/* Seconds of a ring step between nodes that the step model takes for `gpu`:
 * its figure, else NCCL's (docs/planner.md, "Assumptions"). */
double
headroom_gpu_network_latency (const HrGpu *gpu)
{
  g_return_val_if_fail (gpu != NULL, 0);

  return hr_plan_network_latency (gpu, NULL);
}
