#pragma once
/* Small JSON and parsing helpers of kubectl-scheduler_policy. */
#include <stdint.h>

typedef struct json_t json_t;

/* Follows object keys (NULL-terminated list); NULL when any step is missing. */
json_t *jget(const json_t *obj, ...);
/* A decimal int64; -EINVAL for NULL, empty or trailing garbage. */
int parse_int64_str(const char *s, int64_t *ret);
