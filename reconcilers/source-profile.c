/* The desired configuration when it is a profile rendered as a plugin set: OpenShift's
 * rendering for the cluster's configuration API (reconcilers/profiles.h) and its judgement,
 * and the status view of an effective KubeSchedulerConfiguration that it shares with the
 * sources (source.c). */
#include <errno.h>
#include <string.h>

#include "common/buf.h"
#include "config/kubescheduler-config.h"
#include "reconcilers/internal.h"
#include "reconcilers/profiles.h"

json_t *desired_effective_plugins(const json_t *effective) {
        _cleanup_json_ json_t *list = json_array();
        const json_t *profiles = json_object_get(effective, "profiles");
        size_t i;
        json_t *prof;

        if (!list)
                return NULL;
        json_array_foreach(profiles, i, prof) {
                _cleanup_json_ json_t *points = json_object();
                if (!points)
                        return NULL;
                for (int pt = 0; pt < _KSC_EXTENSION_POINT_MAX; pt++) {
                        const char *key = ksc_extension_point_to_string(pt);
                        const json_t *enabled = jpath(prof, "plugins", key, "enabled");
                        if (json_array_size(enabled) == 0)
                                continue;
                        if (json_object_set(points, key, (json_t *) enabled) < 0)
                                return NULL;
                }
                json_t *e = json_pack("{s:s?, s:O}", "schedulerName", jstr(prof, "schedulerName"), "extensionPoints",
                                      points);
                if (json_array_append_new(list, e) < 0)
                        return NULL;
        }
        return TAKE_PTR(list);
}

/* The profile's plugin set, in the layout of OpenShift's asset for api, for a valid profile
 * source. */
int desired_render_profile(const ReconcileConfig *c, SchedulerConfigApi api, Desired *d) {
        _cleanup_buf_ Buf b;
        int p = scheduler_profile_from_string(d->profile_name), r;

        if (p < 0)
                return 0;       /* judge() has rejected it: no built-in policy either */
        buf_init(&b, 16 * 1024);
        r = scheduler_profile_render_for(p, api, c->scheduler_name, &b);
        if (r < 0)
                return r == -EINVAL ? 0 : -ENOMEM;
        d->framework = buf_steal(&b);
        if (!d->framework)
                return -ENOMEM;
        if (api != SCHEDULER_CONFIG_API_V1BETA1)
                d->api_version = scheduler_config_api_version(api);
        return 0;
}

/* A profile rendered for a v1 (or v1beta3) cluster: OpenShift's own rendering, so valid by
 * construction (the unit tests hold it to 4.19's assets); the status shows its effective
 * plugins once libconfig decodes the line (no Policy lists: none is in use). */
int desired_judge_profile_framework(Desired *d) {
        _cleanup_free_ char *text = NULL;
        _cleanup_json_ json_t *eff = NULL;
        PolicyDiags diags = {};

        if (asprintf(&text, "apiVersion: %s\nkind: " KSC_KIND "\n%s", d->api_version, d->framework) < 0)
                return -ENOMEM;
        int r = ksc_load(text, strlen(text), NULL, &eff, &diags);
        bool oom = r == -ENOMEM || diags.oom;
        policy_diags_clear(&diags);
        if (oom)
                return -ENOMEM;
        if (r >= 0 && eff) {
                d->plugins = desired_effective_plugins(eff);
                if (!d->plugins)
                        return -ENOMEM;
        }
        d->predicates = json_array();
        d->priorities = json_array();
        if (!d->predicates || !d->priorities ||
            asprintf(&d->message, "the plugin set of profile %s is valid: %s, as OpenShift 4.19 renders it",
                     d->profile_name, d->api_version) < 0)
                return -ENOMEM;
        d->valid = true;
        d->reason = "AsExpected";
        return 0;
}
