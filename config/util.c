/* Helpers for libconfig: suggestions and the name grammars Kubernetes uses. */
#include "config/util.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "common/macro.h"

#define NAME_MAX_FOR_DISTANCE 128

size_t policy_edit_distance(const char *a, const char *b, size_t cap) {
        size_t la = strlen(a), lb = strlen(b);
        if (la > NAME_MAX_FOR_DISTANCE || lb > NAME_MAX_FOR_DISTANCE)
                return cap;
        if ((la > lb ? la - lb : lb - la) >= cap)
                return cap;
        size_t row[NAME_MAX_FOR_DISTANCE + 1];
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t prev = row[0];
                row[0] = i;
                size_t best = row[0];
                for (size_t j = 1; j <= lb; j++) {
                        size_t cost = tolower((unsigned char) a[i - 1]) == tolower((unsigned char) b[j - 1]) ? 0 : 1;
                        size_t v = MIN(MIN(row[j] + 1, row[j - 1] + 1), prev + cost);
                        prev = row[j];
                        row[j] = v;
                        best = MIN(best, v);
                }
                if (best >= cap)
                        return cap;
        }
        return MIN(row[lb], cap);
}

const char *policy_closest(const char *name, const char *const *candidates, size_t n) {
        size_t len = strlen(name);
        /* Short names tolerate one edit, longer ones about a third of their length. */
        size_t limit = len <= 4 ? 1 : MAX((size_t) 2, len / 3);
        const char *best = NULL;
        size_t best_d = limit + 1;
        for (size_t i = 0; i < n; i++) {
                if (!candidates[i])
                        continue;
                size_t d = policy_edit_distance(name, candidates[i], best_d);
                if (d < best_d) {
                        best_d = d;
                        best = candidates[i];
                }
        }
        if (best || len < 5)
                return best;
        /* A truncated or extended name ("LeastRequested" for "LeastRequestedPriority"). */
        for (size_t i = 0; i < n; i++) {
                if (!candidates[i])
                        continue;
                size_t cl = strlen(candidates[i]);
                if (cl >= len ? strncasecmp(candidates[i], name, len) == 0 : strncasecmp(candidates[i], name, cl) == 0 && cl >= 5)
                        return candidates[i];
        }
        return NULL;
}

bool policy_custom_name_valid(const char *name) {
        size_t n = strlen(name);
        if (n < 2)
                return false;
        if (!isalnum((unsigned char) name[0]) || !isalnum((unsigned char) name[n - 1]))
                return false;
        for (size_t i = 1; i + 1 < n; i++)
                if (!isalnum((unsigned char) name[i]) && name[i] != '-')
                        return false;
        return true;
}

static bool dns_label_valid(const char *s, size_t n) {
        if (n == 0 || n > 63)
                return false;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];
                bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                if (!ok)
                        return false;
        }
        return s[0] != '-' && s[n - 1] != '-';
}

static bool dns_subdomain_valid(const char *s, size_t n) {
        if (n == 0 || n > 253)
                return false;
        size_t start = 0;
        for (size_t i = 0; i <= n; i++)
                if (i == n || s[i] == '.') {
                        if (!dns_label_valid(s + start, i - start))
                                return false;
                        start = i + 1;
                }
        return true;
}

bool policy_qualified_name_valid(const char *s) {
        const char *slash = strchr(s, '/');
        const char *name = s;
        if (slash) {
                if (strchr(slash + 1, '/'))
                        return false;
                if (!dns_subdomain_valid(s, (size_t) (slash - s)))
                        return false;
                name = slash + 1;
        }
        size_t n = strlen(name);
        if (n == 0 || n > 63)
                return false;
        if (!isalnum((unsigned char) name[0]) || !isalnum((unsigned char) name[n - 1]))
                return false;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) name[i];
                if (!isalnum(c) && c != '-' && c != '_' && c != '.')
                        return false;
        }
        return true;
}

bool policy_base64_valid(const char *s) {
        size_t n = strlen(s);
        if (n % 4 != 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];
                if (isalnum(c) || c == '+' || c == '/')
                        continue;
                /* Padding: only in the last two places, and only trailing. */
                if (c == '=' && i >= n - 2 && (i == n - 1 || s[n - 1] == '='))
                        continue;
                return false;
        }
        return true;
}
