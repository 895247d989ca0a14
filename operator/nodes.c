/* nodes: see nodes.h. */
#include "operator/nodes.h"

#include <errno.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

/* A request in flight keeps the list alive; a cancelled list only forgets its caller (the
 * client, when freed, completes every request with -ECANCELED). */
struct NodeList {
        KubeClient *client;     /* borrowed: the caller keeps it alive while listing */
        bool in_flight, cancelled;
        json_t *nodes;
        NodeListDoneFn done;
        void *userdata;
};

static void node_list_free(NodeList *l) {
        json_decref(l->nodes);
        free(l);
}

json_t *node_trim(const json_t *node) {
        const char *name = kube_obj_name(node);
        if (!name)
                return NULL;
        json_auto_t *out = json_pack("{s:{s:s}, s:{}, s:{s:[]}}", "metadata", "name", name, "spec", "status",
                                     "conditions");
        if (!out)
                return NULL;
        json_t *labels = kube_obj_path(node, "metadata.labels");
        json_t *taints = kube_obj_path(node, "spec.taints");
        if ((json_is_object(labels) && json_object_set(json_object_get(out, "metadata"), "labels", labels) < 0) ||
            (json_is_array(taints) && json_object_set(json_object_get(out, "spec"), "taints", taints) < 0))
                return NULL;
        json_t *conds = kube_obj_path(node, "status.conditions");
        json_t *kept = kube_obj_path(out, "status.conditions");
        size_t i;
        json_t *c;
        json_array_foreach(conds, i, c) {
                const char *type = json_string_value(json_object_get(c, "type"));
                const char *status = json_string_value(json_object_get(c, "status"));
                if (type && status && strcmp(type, "Ready") == 0 &&
                    json_array_append_new(kept, json_pack("{s:s, s:s}", "type", type, "status", status)) < 0)
                        return NULL;
        }
        return TAKE_PTR(out);
}

static int request_page(NodeList *l, const char *continue_token);

static void finish(NodeList *l, int r, const KubeError *err) {
        if (!l->cancelled)
                l->done(l, r, r >= 0 ? l->nodes : NULL, err, l->userdata);
        node_list_free(l);
}

static void on_page(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        NodeList *l = userdata;
        l->in_flight = false;
        if (l->cancelled)
                return node_list_free(l);
        if (r < 0)
                return finish(l, r, err);
        size_t i;
        json_t *node;
        json_array_foreach(json_object_get(body, "items"), i, node) {
                if (json_array_size(l->nodes) >= NODES_MAX) {
                        KubeError e = {};
                        kube_error_set(&e, -E2BIG, 0, "TooMany", "more than %d nodes", NODES_MAX);
                        return finish(l, -E2BIG, &e);
                }
                json_t *t = node_trim(node);
                if (t && json_array_append_new(l->nodes, t) < 0)
                        t = NULL;
                if (!t && kube_obj_name(node))
                        return finish(l, -ENOMEM, NULL);
        }
        const char *cont = json_string_value(kube_obj_path(body, "metadata.continue"));
        if (cont && cont[0]) {
                r = request_page(l, cont);
                if (r < 0)
                        finish(l, r, NULL);
                return;
        }
        finish(l, 0, NULL);
}

static int request_page(NodeList *l, const char *continue_token) {
        _cleanup_buf_ Buf path;
        buf_init(&path, 8192);
        KubeListOptions o = { .limit = NODES_PAGE_SIZE, .continue_token = continue_token };
        int r = kube_path(&path, &KUBE_NODES, NULL, NULL, NULL);
        if (r >= 0)
                r = kube_list_query(&path, &o);
        if (r >= 0)
                r = kube_request_async(l->client, "GET", buf_str(&path), NULL, NULL, on_page, l);
        l->in_flight = r >= 0;
        return r;
}

int node_list_start(KubeClient *c, NodeListDoneFn done, void *userdata, NodeList **ret) {
        NodeList *l = calloc(1, sizeof(NodeList));
        if (!l)
                return -ENOMEM;
        l->client = c;
        l->done = done;
        l->userdata = userdata;
        l->nodes = json_array();
        int r = l->nodes ? request_page(l, NULL) : -ENOMEM;
        if (r < 0) {
                node_list_free(l);
                return r;
        }
        *ret = l;
        return 0;
}

void node_list_cancel(NodeList *l) {
        if (!l)
                return;
        if (l->in_flight)
                l->cancelled = true;
        else
                node_list_free(l);
}
