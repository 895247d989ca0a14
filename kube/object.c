/* Reading API objects: a dotted-path lookup and the metadata fields every caller needs. */
#include <jansson.h>
#include <string.h>

#include "kube/kube.h"

json_t *kube_obj_path(const json_t *obj, const char *dotted) {
        const json_t *cur = obj;
        const char *p = dotted;
        while (cur && *p) {
                const char *dot = strchr(p, '.');
                size_t n = dot ? (size_t) (dot - p) : strlen(p);
                if (!json_is_object(cur))
                        return NULL;
                cur = json_object_getn(cur, p, n);
                p += n + (dot ? 1 : 0);
        }
        return (json_t *) cur;
}

static const char *meta_str(const json_t *obj, const char *key) {
        return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

const char *kube_obj_name(const json_t *obj) {
        return meta_str(obj, "name");
}
const char *kube_obj_namespace(const json_t *obj) {
        return meta_str(obj, "namespace");
}
const char *kube_obj_uid(const json_t *obj) {
        return meta_str(obj, "uid");
}
const char *kube_obj_resource_version(const json_t *obj) {
        return meta_str(obj, "resourceVersion");
}
