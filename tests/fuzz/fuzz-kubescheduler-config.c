/* libFuzzer target over the KubeSchedulerConfiguration front door: parser, strict decoder,
 * v1beta2 conversion, defaults and every rule, with and without the DefaultPodTopologySpread
 * gate. For valid input the effective configuration must have its documented shape
 * (kubescheduler-config.h: every extension point with an enabled list, weights at score
 * only) and render as the audit view. Any crash, leak, sanitizer report or broken invariant
 * is a finding. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/kubescheduler-config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_shape(const json_t *eff) {
        size_t i;
        json_t *p;
        if (json_array_size(json_object_get(eff, "profiles")) == 0)
                abort();
        /* the v1.20 line has no preEnqueue, the v1.32 line has all the points */
        bool v132 = strcmp(json_string_value(json_object_get(eff, "decisionsLike")), KSC_DECISIONS_LIKE_1_32) == 0;
        size_t n_points = v132 ? _KSC_EXTENSION_POINT_MAX : _KSC_EXTENSION_POINT_V1_20_MAX;
        json_array_foreach(json_object_get(eff, "profiles"), i, p)
                for (KscExtensionPoint x = 0; x < n_points; x++) {
                        const json_t *set = json_object_get(json_object_get(p, "plugins"), ksc_extension_point_to_string(x));
                        size_t j;
                        json_t *e;
                        if (!json_is_array(json_object_get(set, "enabled")))
                                abort();
                        json_array_foreach(json_object_get(set, "enabled"), j, e)
                                if ((json_object_get(e, "weight") != NULL) != (x == KSC_SCORE))
                                        abort();
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        for (int gate = 0; gate < 2; gate++) {
                KscOptions opts = { .default_pod_topology_spread_off = gate };
                PolicyDiags d = {};
                json_t *eff = NULL;
                int r = ksc_load((const char *) data, size, &opts, &eff, &d);
                if ((r == 0) != (eff != NULL) || (r == 0 && d.n_errors > 0))
                        abort();
                if (eff) {
                        check_shape(eff);
                        char *text = NULL;
                        if (ksc_effective_format_text(eff, &text) < 0)
                                abort();
                        free(text);
                }
                char *text = NULL;
                if (policy_diags_format_text(&d, "fuzz", &text) == 0)
                        free(text);
                json_decref(policy_diags_to_json(&d));
                json_decref(eff);
                policy_diags_clear(&d);
        }
        return 0;
}
