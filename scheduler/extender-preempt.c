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

/* The request for the candidates; -ENOENT when the extender has nothing to say about pod. */
static int request(ExtenderPreempt *ep, const SchedPod *pod, const SchedCandidate *cands, uint32_t n,
                   json_t **ret) {
        Extender *x = ep->extender;
        if (!extender_preempt_verb(x) || !extender_is_interested(x, pod))
                return -ENOENT;
        bool meta = extender_node_cache_capable(x);
        json_t *map = json_object(), *p = extender_pod_object(x, pod);
        /* ExtenderPreemptionArgs as v1.20 marshals it: Go field names, the unused map null */
        json_auto_t *args = map ? json_pack("{s:O, s:o, s:n}", "Pod", p ? p : json_null(),
                                            meta ? "NodeNameToMetaVictims" : "NodeNameToVictims", map,
                                            meta ? "NodeNameToVictims" : "NodeNameToMetaVictims")
                                : NULL;
        if (!args)
                return -ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
                json_t *v = victims_json(x, &cands[i], meta);
                if (!v || json_object_set_new(map, extender_node_name(x, cands[i].node), v) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(args);
        return 0;
}

/* Narrows the candidates to the reply's, with the victims it names, looked up in the cache
 * as it is now. */
static int apply(ExtenderPreempt *ep, json_t *res, SchedCandidate *cands, uint32_t *n) {
        Extender *x = ep->extender;
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

static int process(void *userdata, const SchedPod *pod, SchedCandidate *cands, uint32_t *n) {
        ExtenderPreempt *ep = userdata;
        json_auto_t *args = NULL;
        int r = request(ep, pod, cands, *n, &args);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        json_auto_t *res = NULL;
        r = extender_call(ep->extender, extender_preempt_verb(ep->extender), args, &res);
        if (r < 0)
                return r;
        return apply(ep, res, cands, n);
}

static void on_reply(Extender *x, int r, json_t *reply, void *userdata) {
        ExtenderPreempt *ep = userdata;
        uint32_t n = ep->n;
        if (r >= 0)
                r = apply(ep, reply, ep->cands, &n);
        ExtenderPreemptDoneFn done = ep->done;
        void *ud = ep->userdata;
        ep->done = NULL;
        ep->cands = NULL;
        if (done)
                done(ep, r, n, ud);
}

int extender_preempt_async(ExtenderPreempt *ep, CurlEvent *ce, const SchedPod *pod, SchedCandidate *cands,
                           uint32_t n, ExtenderPreemptDoneFn done, void *userdata) {
        if (ep->done)
                return -EBUSY;
        json_auto_t *args = NULL;
        int r = request(ep, pod, cands, n, &args);
        if (r < 0)
                return r;
        r = extender_post_async(ep->extender, ce, extender_preempt_verb(ep->extender), args, on_reply, ep);
        if (r < 0)
                return r;
        ep->cands = cands;
        ep->n = n;
        ep->done = done;
        ep->userdata = userdata;
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
