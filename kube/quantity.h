#pragma once
/* Resource quantities (k8s.io/apimachinery resource.Quantity) as int64: "100m", "1Gi",
 * "1e3", "0.5", "+2.5M". A quantity is <sign?><digits>[.<digits>]<suffix?> where the suffix
 * is a binary SI one (Ki Mi Gi Ti Pi Ei), a decimal SI one (n u m "" k M G T P E) or an
 * exponent (e<int> / E<int>). Results round up (away from zero) like Quantity.Value() and
 * MilliValue(): "0.1m" is 1 milli, "1.5" is 2 units. A result that does not fit in int64 is
 * -ERANGE, never a wrap-around. Digits past the 19th significant one only round up. */

#include <stddef.h>
#include <stdint.h>

/* Parses s into whole units (bytes, pods, cores rounded up). Returns 0, -EINVAL on a syntax
 * error (empty, junk, unknown suffix, longer than 128 chars), -ERANGE on overflow. *ret is
 * written only on success. */
int kube_quantity_value(const char *s, int64_t *ret);

/* Same, in thousandths of a unit: "100m" -> 100, "2" -> 2000 (CPU in millicores). */
int kube_quantity_milli(const char *s, int64_t *ret);

/* Formats a value canonically into buf (at least 32 bytes): milli=true takes thousandths
 * ("1500" -> "1500m", "2000" -> "2"); otherwise whole units, using Ki..Ei when the value is
 * an exact multiple ("8589934592" -> "8Gi"). Returns the length or -ENOBUFS. */
int kube_quantity_format(int64_t v, int milli, char *buf, size_t size);
