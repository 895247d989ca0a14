/* Small JSON, time and number helpers of the reconciler. The objects come from the API
 * server and may be missing anything, so every accessor tolerates absent keys and wrong
 * types by returning "not there". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "reconcilers/internal.h"

static const json_t *jpath_v(const json_t *o, va_list ap) {
        const char *k;

        while ((k = va_arg(ap, const char *))) {
                if (!json_is_object(o))
                        return NULL;
                o = json_object_get(o, k);
        }
        return o;
}

const json_t *jpath_sentinel(const json_t *o, ...) {
        va_list ap;
        va_start(ap, o);
        const json_t *r = jpath_v(o, ap);
        va_end(ap);
        return r;
}

const char *jstr_sentinel(const json_t *o, ...) {
        va_list ap;
        va_start(ap, o);
        const json_t *r = jpath_v(o, ap);
        va_end(ap);
        return json_is_string(r) ? json_string_value(r) : NULL;
}

int64_t jint_sentinel(const json_t *o, int64_t def, ...) {
        va_list ap;
        va_start(ap, def);
        const json_t *r = jpath_v(o, ap);
        va_end(ap);
        return json_is_integer(r) ? (int64_t) json_integer_value(r) : def;
}

int jset_str(json_t *o, const char *key, const char *value) {
        return json_object_set_new(o, key, json_string(value)) < 0 ? -ENOMEM : 0;
}

int jset_new(json_t *o, const char *key, json_t *value) {
        if (!value)
                return -ENOMEM;
        return json_object_set_new(o, key, value) < 0 ? -ENOMEM : 0;
}

/* The reconciler counts whole seconds; common/time-util.h counts microseconds. */
void format_time(int64_t t, char ret[static RFC3339_MAX]) {
        rfc3339_format(t > 0 ? (uint64_t) t * 1000000u : 0, false, ret, RFC3339_MAX);
}

int parse_time(const char *s, int64_t *ret) {
        uint64_t usec;

        if (!s || rfc3339_parse(s, &usec) < 0)
                return -EINVAL;
        *ret = (int64_t) (usec / 1000000u);
        return 0;
}

int parse_int64(const char *s, int64_t min, int64_t max, int64_t *ret) {
        char *end = NULL;

        if (!s || *s == '\0' || strlen(s) > 20)
                return -EINVAL;
        /* No sign, no spaces, no leading zeros: the forms we write ourselves. */
        if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\0'))
                return -EINVAL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0 || !end || *end != '\0')
                return -EINVAL;
        if (v < min || v > max)
                return -ERANGE;
        *ret = (int64_t) v;
        return 0;
}

void truncate_message(char *s, size_t max) {
        size_t n = strlen(s);

        if (n <= max || max < 4)
                return;
        size_t cut = max - 3;
        /* Step back over UTF-8 continuation bytes so no character is split. */
        while (cut > 0 && ((unsigned char) s[cut] & 0xC0) == 0x80)
                cut--;
        memcpy(s + cut, "...", 4);
}
