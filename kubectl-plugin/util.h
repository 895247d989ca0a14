#pragma once
/* Small JSON and parsing helpers of kubectl-scheduler_policy. */
#include <stdint.h>

typedef struct json_t json_t;

/* Follows object keys: jget(obj, "metadata", "name"); NULL when any step is missing. */
#define jget(obj, ...) jget_keys((obj), __VA_ARGS__, (const char *) NULL)
json_t *jget_keys(const json_t *obj, ...);
/* A decimal int64; -EINVAL for NULL, empty or trailing garbage. */
int parse_int64_str(const char *s, int64_t *ret);
