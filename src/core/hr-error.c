/* hr-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>

#include "hr-error.h"

HrStatus
hr_error_set (HrError    *err,
              HrStatus    status,
              const char *field,
              int64_t     value,
              int64_t     other,
              const char *detail)
{
  if (err != NULL)
    {
      err->status = status;
      err->field = field;
      err->value = value;
      err->other = other;
      err->detail = detail;
    }
  return status;
}

int64_t
hr_error_value (double value)
{
  if (isnan (value))
    return 0;
  /* 2^63 is exactly representable; anything at or past it does not fit. */
  if (value >= 9223372036854775808.0)
    return INT64_MAX;
  if (value <= -9223372036854775808.0)
    return INT64_MIN;
  return (int64_t) value;
}

size_t
hr_error_format_problem (const HrError *err,
                         char          *buf,
                         size_t         size)
{
  const char *detail = err->detail ? err->detail : "";
  int n;

  switch (err->status)
    {
    case HR_OK:
      n = snprintf (buf, size, "no error");
      break;
    case HR_ERROR_NOT_POSITIVE:
      n = snprintf (buf, size, "%lld must be positive%s%s",
                    (long long) err->value, *detail ? "; " : "", detail);
      break;
    case HR_ERROR_NOT_DIVISIBLE:
      n = snprintf (buf, size, "%lld does not divide %lld%s%s",
                    (long long) err->value, (long long) err->other,
                    *detail ? " " : "", detail);
      break;
    case HR_ERROR_OVERFLOW:
      n = snprintf (buf, size, "value too large, the result overflows 64 bits%s%s",
                    *detail ? "; " : "", detail);
      break;
    case HR_ERROR_OUT_OF_RANGE:
      n = snprintf (buf, size, "%lld is out of range%s%s",
                    (long long) err->value, *detail ? "; " : "", detail);
      break;
    case HR_ERROR_UNSUPPORTED:
      n = snprintf (buf, size, "unsupported%s%s", *detail ? ": " : "", detail);
      break;
    case HR_ERROR_MISSING:
      n = snprintf (buf, size, "missing%s%s", *detail ? "; " : "", detail);
      break;
    case HR_ERROR_WRONG_TYPE:
      n = snprintf (buf, size, "wrong type%s%s", *detail ? ", expected " : "", detail);
      break;
    default:
      n = snprintf (buf, size, "invalid");
      break;
    }
  return n < 0 ? 0 : (size_t) n;
}

size_t
hr_error_format (const HrError *err,
                 char          *buf,
                 size_t         size)
{
  const char *field = err->field ? err->field : "input";
  int n = err->status == HR_OK ? 0 : snprintf (buf, size, "%s: ", field);
  size_t used;

  if (n < 0)
    return 0;
  used = (size_t) n < size ? (size_t) n : size;
  return (size_t) n + hr_error_format_problem (err, buf + used, size - used);
}
