/* An extender's preemptVerb (ProcessPreemption, upstream's v1 wire format): the candidate
 * nodes and their victims go out as
 *   {pod, nodeNameToVictims: {node: {pods: [Pod], numPDBViolations}}}       (nodes sent whole)
 *   {pod, nodeNameToMetaVictims: {node: {pods: [{uid}], numPDBViolations}}} (nodeCacheCapable)
 * and the reply {nodeNameToMetaVictims: ...} says which nodes stay and with which victims
 * (any pods on that node, by uid). A node the reply leaves out is no candidate any more; a
 * node it adds that was no candidate is ignored (its victims were never simulated here); a
 * victim uid not on the node fails the call, as upstream's conversion does. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/extender-preempt.h"

static json_t *victims_json(Extender *x, const SchedCandidate *c, bool meta) {
        json_t *pods = json_array();
        json_t *v = pods ? json_pack("{s:o, s:I}", "Pods", pods, "NumPDBViolations", (json_int_t) c->n_pdb_violations) : NULL;
        if (!v)
                return NULL;
        for (uint32_t i = 0; i < c->n_victims; i++) {
                json_t *p = meta ? json_pack("{s:s}", "UID", c->victims[i]->uid)
                                 : json_incref(extender_pod_object(x, c->victims[i]));
                if (!p)
                        p = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", c->victims[i]->name, "namespace",
                                      c->victims[i]->namespace_, "uid", c->victims[i]->uid);
                if (!p || json_array_append_new(pods, p) < 0) {
                        json_decref(v);
                        return NULL;
                }
        }
        return v;
}

static SchedPod *pod_on_node(const SchedCache *cache, SchedStr node, const char *uid) {
        const SchedNodeInfo *ni = sched_cache_node_by_name(cache, node);
        for (uint32_t i = 0; ni && i < ni->n_pods; i++)
                if (strcmp(ni->pods[i]->uid, uid) == 0)
                        return ni->pods[i];
        return NULL;
}

static int process(void *userdata, const SchedPod *pod, SchedCandidate *cands, uint32_t *n) {
        ExtenderPreempt *ep = userdata;
        Extender *x = ep->extender;
        const char *verb = extender_preempt_verb(x);
        if (!verb || !extender_is_interested(x, pod))
                return 0;
        bool meta = extender_node_cache_capable(x);
        json_t *map = json_object(), *p = extender_pod_object(x, pod);
        /* ExtenderPreemptionArgs as v1.20 marshals it: Go field names, the unused map null */
        json_auto_t *args = map ? json_pack("{s:O, s:o, s:n}", "Pod", p ? p : json_null(),
                                            meta ? "NodeNameToMetaVictims" : "NodeNameToVictims", map,
                                            meta ? "NodeNameToVictims" : "NodeNameToMetaVictims")
                                : NULL;
        if (!args)
                return -ENOMEM;
        for (uint32_t i = 0; i < *n; i++) {
                json_t *v = victims_json(x, &cands[i], meta);
                if (!v || json_object_set_new(map, extender_node_name(x, cands[i].node), v) < 0)
                        return -ENOMEM;
        }
        json_auto_t *res = NULL;
        int r = extender_call(x, verb, args, &res);
        if (r < 0)
                return r;
        json_t *out = extender_reply_get(res, "nodeNameToMetaVictims");
        /* count the victims first: the new lists live in ep->pool */
        size_t total = 0;
        const char *k;
        json_t *v;
        json_object_foreach(out, k, v)
                total += json_array_size(extender_reply_get(v, "pods"));
        if (total > ep->pool_cap) {
                SchedPod **np = reallocarray(ep->pool, total, sizeof(*np));
                if (!np)
                        return -ENOMEM;
                ep->pool = np;
                ep->pool_cap = total;
        }
        size_t used = 0;
        uint32_t kept = 0;
        for (uint32_t i = 0; i < *n; i++) {
                json_t *nv = json_object_get(out, extender_node_name(x, cands[i].node));
                if (!nv)
                        continue;
                SchedCandidate c = cands[i];
                c.victims = ep->pool + used;
                c.n_victims = 0;
                c.n_pdb_violations = (uint32_t) json_integer_value(extender_reply_get(nv, "numPDBViolations"));
                size_t j;
                json_t *mp;
                json_array_foreach(extender_reply_get(nv, "pods"), j, mp) {
                        const char *uid = json_string_value(extender_reply_get(mp, "uid"));
                        SchedPod *vp = uid ? pod_on_node(ep->cache, c.node, uid) : NULL;
                        if (!vp) {
                                char msg[512];
                                snprintf(msg, sizeof msg, "extender %s: victim %s is not on node %s", extender_url(x),
                                         uid ? uid : "(no uid)", extender_node_name(x, c.node));
                                extender_set_error(x, msg);
                                return -EBADMSG;
                        }
                        c.victims[c.n_victims++] = vp;
                }
                used += c.n_victims;
                cands[kept++] = c;
        }
        *n = kept;
        return 0;
}

void extender_preempt_hook(ExtenderPreempt *ep, Extender *x, const SchedCache *cache, SchedPreemptExtender *ret) {
        ep->extender = x;
        ep->cache = cache;
        *ret = (SchedPreemptExtender) {
                .name = extender_url(x),
                .ignorable = extender_ignorable(x),
                .userdata = ep,
                .process = process,
        };
}

void extender_preempt_done(ExtenderPreempt *ep) {
        free(ep->pool);
        *ep = (ExtenderPreempt) {};
}
