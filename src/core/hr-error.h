/* hr-error.h: status codes of the estimation core
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The core returns a status and fills an HrError that names the offending
 * field, so that the service can build a translated message and the CLI can
 * print one line. Field names are the project-file keys: Hugging Face
 * config.json names for the model (e.g. "num_attention_heads"), the
 * project's training/inference keys otherwise (e.g. "tensor_parallel").
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef enum
{
  HR_OK = 0,
  HR_ERROR_NOT_POSITIVE,   /* value must be > 0 (or >= 0 where documented) */
  HR_ERROR_NOT_DIVISIBLE,  /* value does not divide / is not divided by `other` */
  HR_ERROR_OVERFLOW,       /* a derived quantity does not fit 64 bits */
  HR_ERROR_OUT_OF_RANGE,   /* value outside [0, other] or another documented range */
  HR_ERROR_UNSUPPORTED,    /* a combination the core cannot estimate */
  HR_ERROR_MISSING,        /* a required value is absent */
  HR_ERROR_WRONG_TYPE,     /* a config value has the wrong JSON type */
} HrStatus;

typedef struct
{
  HrStatus    status;
  const char *field;   /* static string: the key at fault */
  int64_t     value;   /* the offending value, where it is a number */
  int64_t     other;   /* divisor, bound or other party, where relevant */
  const char *detail;  /* static English text, optional */
} HrError;

/* Sets *err (when err is non-NULL) and returns status. */
HrStatus hr_error_set (HrError    *err,
                       HrStatus    status,
                       const char *field,
                       int64_t     value,
                       int64_t     other,
                       const char *detail);

/* A double as an HrError value: converting NaN, an infinity or a value past
 * int64's range is undefined behaviour; those give 0, INT64_MAX or INT64_MIN. */
int64_t  hr_error_value (double value);

/* One English line, e.g. "num_attention_heads: 3 does not divide hidden_size 4096".
 * Returns the length that snprintf would have written. */
size_t hr_error_format (const HrError *err,
                        char          *buf,
                        size_t         size);
/* The same line without the field: "3 does not divide hidden_size 4096". */
size_t hr_error_format_problem (const HrError *err,
                                char          *buf,
                                size_t         size);
