/* spec.profileCustomizations, as openshift/api config/v1 (types_scheduling.go) of OpenShift
 * 4.19 defines it: one field, dynamicResourceAllocation ("", Enabled, Disabled; omitted means
 * the platform's default, Disabled). 4.19 renders Enabled as the DynamicResources plugin
 * appended to the first profile's multiPoint. The bundled scheduler has no DynamicResources,
 * so Enabled is refused, never dropped: the admin asked for claims to be allocated and
 * nothing would allocate them. The CRD keeps unknown fields of the object so that a field
 * of a later OpenShift reaches this judgement instead of being pruned unseen. */
#include <errno.h>
#include <string.h>

#include "reconcilers/internal.h"

#define PC_FIELD "spec.profileCustomizations"
#define PC_DRA "dynamicResourceAllocation"

static const char *const dra_values[] = { "", "Enabled", "Disabled" };

int desired_check_profile_customizations(Desired *d, const json_t *pc) {
        const char *dra = "";
        const char *k;
        json_t *v;

        if (pc && !json_is_object(pc)) {
                if (!d->valid)
                        return 0;
                return desired_reject(d, "InvalidProfileCustomizations",
                                      "is not rolled out: " PC_FIELD " is not an object");
        }
        json_object_foreach((json_t *) pc, k, v) {
                if (strcmp(k, PC_DRA) != 0) {
                        if (!d->valid)
                                return 0;
                        return desired_reject(d, "UnknownProfileCustomization",
                                              "is not rolled out: " PC_FIELD ".%.128s is not a customization "
                                              "OpenShift 4.19 defines (only " PC_DRA "); remove it",
                                              k);
                }
                bool known = false;
                for (size_t i = 0; i < ELEMENTSOF(dra_values); i++)
                        known = known || (json_is_string(v) && strcmp(json_string_value(v), dra_values[i]) == 0);
                if (!known) {
                        if (!d->valid)
                                return 0;
                        _cleanup_free_ char *shown = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
                        return desired_reject(d, "InvalidProfileCustomizations",
                                              "is not rolled out: " PC_FIELD "." PC_DRA " is %.128s; it takes "
                                              "Enabled, Disabled or \"\" (the default, Disabled)",
                                              shown ? shown : "not a string");
                }
                dra = json_string_value(v);
        }

        d->customizations = json_pack("{s:s}", PC_DRA, dra[0] ? dra : "Disabled");
        if (!d->customizations)
                return -ENOMEM;
        if (!d->valid || strcmp(dra, "Enabled") != 0)
                return 0;
        return desired_reject(d, "DynamicResourceAllocationUnsupported",
                              "is not rolled out: " PC_FIELD "." PC_DRA " is Enabled, which OpenShift 4.19 "
                              "renders as the DynamicResources plugin in the profile's multiPoint; the bundled "
                              "scheduler has no DynamicResources plugin, so pods with resource claims would "
                              "never be placed. Set it to Disabled or remove it");
}
