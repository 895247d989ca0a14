/* event-action: see event-action.h. */
#include "operator/event-action.h"

#include <errno.h>
#include <jansson.h>

int event_action_record(KubeEventRecorder *r, const ReconcileAction *a) {
        const json_t *ev = a->body;
        const json_t *involved = json_object_get(ev, "involvedObject");
        const char *type = json_string_value(json_object_get(ev, "type"));
        const char *reason = json_string_value(json_object_get(ev, "reason"));
        const char *message = json_string_value(json_object_get(ev, "message"));
        const char *kind = json_string_value(json_object_get(involved, "kind"));
        const char *api_version = json_string_value(json_object_get(involved, "apiVersion"));
        const char *name = json_string_value(json_object_get(involved, "name"));
        const char *uid = json_string_value(json_object_get(involved, "uid"));

        if (a->verb != RECONCILE_EVENT || !kind || !api_version || !name)
                return -EINVAL;
        json_auto_t *regarding = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", api_version, "kind", kind,
                                           "metadata", "name", name);
        if (!regarding)
                return -ENOMEM;
        if (uid && json_object_set_new(json_object_get(regarding, "metadata"), "uid", json_string(uid)) < 0)
                return -ENOMEM;
        return kube_event_record(r, regarding, type ? type : "Normal", reason ? reason : "Unknown", "Reconcile", "%s",
                                 message ? message : "");
}
