/* util: see util.h. */
#include "kubectl-plugin/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>

json_t *jget_keys(const json_t *obj, ...) {
        va_list ap;
        va_start(ap, obj);
        json_t *cur = (json_t *) obj;
        const char *k;
        while (cur && (k = va_arg(ap, const char *)))
                cur = json_object_get(cur, k);
        va_end(ap);
        return cur;
}

int parse_int64_str(const char *s, int64_t *ret) {
        if (!s || !*s)
                return -EINVAL;
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}
