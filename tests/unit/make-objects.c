/* make_pod and make_node: see make-objects.h. */
#include <stdarg.h>
#include <stdio.h>

#include "common/buf.h"
#include "scheduler/core/json.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

/* JSON text being written; the first failure sticks (later writes do nothing), so a builder
 * checks once at the end. */
typedef struct Text {
        Buf b;
        int r;
} Text;

static void text_done(Text *x) {
        buf_free(&x->b);
}

static bool given(const char *s) {
        return s && *s;
}

static void put(Text *x, const char *fmt, ...) _printf_(2, 3);
static void put(Text *x, const char *fmt, ...) {
        if (x->r < 0)
                return;
        va_list ap;
        va_start(ap, fmt);
        x->r = buf_vprintf(&x->b, fmt, ap);
        va_end(ap);
}

/* ",MEMBERS" after members already written; nothing when MEMBERS is NULL or empty. */
static void more(Text *x, const char *members) {
        if (given(members))
                put(x, ",%s", members);
}

/* ",'labels':{...}" of LABELS, led by kubernetes.io/hostname=HOST when HOST is not NULL;
 * nothing when there is neither. */
static void labels(Text *x, const char *host, const char *members) {
        if (host)
                put(x, ",'labels':{'kubernetes.io/hostname':'%s'%s%s}", host, given(members) ? "," : "",
                    members ? members : "");
        else if (members)
                put(x, ",'labels':{%s}", members);
}

SchedPod *build_pod(SchedStrtab *t, PodSpec s) {
        _cleanup_(text_done) Text x = {};
        buf_init(&x.b, 0);
        put(&x, "{'metadata':{'name':'%s','namespace':'%s','uid':'%s%s'", s.name, s.ns ? s.ns : "default",
            s.uid ? "" : "uid-", s.uid ? s.uid : s.name);
        labels(&x, NULL, s.labels);
        more(&x, s.meta);
        put(&x, "},'spec':{'containers':[{'name':'c','image':'img','resources':{'requests':{");
        const char *sep = "";
        if (given(s.cpu)) {
                put(&x, "'cpu':'%s'", s.cpu);
                sep = ",";
        }
        if (given(s.mem)) {
                put(&x, "%s'memory':'%s'", sep, s.mem);
                sep = ",";
        }
        if (given(s.requests))
                put(&x, "%s%s", sep, s.requests);
        /* the spec has a member (containers) already: the rest follow a "," */
        put(&x, "}}}]");
        if (s.node)
                put(&x, ",'nodeName':'%s'", s.node);
        if (s.has_priority)
                put(&x, ",'priority':%d", s.priority);
        more(&x, s.spec);
        put(&x, "}}");
        return x.r < 0 ? NULL : tl_pod_json(t, buf_str(&x.b));
}

SchedNode *build_node(SchedStrtab *t, NodeSpec s) {
        _cleanup_(text_done) Text x = {};
        buf_init(&x.b, 0);
        put(&x, "{'metadata':{'name':'%s'", s.name);
        labels(&x, s.host_label ? s.name : NULL, s.labels);
        more(&x, s.meta);
        put(&x, "},'spec':{%s},'status':{'allocatable':{'cpu':'%s','memory':'%s','pods':'%d'", s.spec ? s.spec : "",
            s.cpu ? s.cpu : "4", s.mem ? s.mem : "8Gi", s.no_pods ? 0 : s.pods ? s.pods : 110);
        more(&x, s.allocatable);
        put(&x, "}");
        more(&x, s.status);
        put(&x, "}}");
        return x.r < 0 ? NULL : tl_node_json(t, buf_str(&x.b));
}
