/* make_pod and make_node: see make-objects.h. */
#include <stdio.h>

#include "common/buf.h"
#include "scheduler/core/json.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

static bool given(const char *s) {
        return s && *s;
}

/* Appends ",MEMBERS" to B that holds members already ("MEMBERS" when it holds none);
 * nothing when MEMBERS is NULL or empty, so optional fragments need no test at the caller. */
static int member(Buf *b, bool has_members, const char *members) {
        if (!given(members))
                return 0;
        return buf_printf(b, "%s%s", has_members ? "," : "", members);
}

SchedPod *build_pod(SchedStrtab *t, PodSpec s) {
        _cleanup_buf_ Buf j;
        buf_init(&j, 0);
        /* The metadata always has members (name, namespace, uid) and so has the spec
         * (containers): what follows each is a "," and a member. */
        int r = buf_printf(&j, "{'metadata':{'name':'%s','namespace':'%s','uid':'%s%s'", s.name,
                           s.ns ? s.ns : "default", s.uid ? "" : "uid-", s.uid ? s.uid : s.name);
        if (r >= 0 && s.labels)
                r = buf_printf(&j, ",'labels':{%s}", s.labels);
        if (r >= 0)
                r = member(&j, true, s.meta);
        if (r >= 0)
                r = buf_puts(&j, "},'spec':{'containers':[{'name':'c','image':'img','resources':{'requests':{");
        if (r >= 0 && given(s.cpu))
                r = buf_printf(&j, "'cpu':'%s'", s.cpu);
        if (r >= 0 && given(s.mem))
                r = buf_printf(&j, "%s'memory':'%s'", given(s.cpu) ? "," : "", s.mem);
        if (r >= 0)
                r = member(&j, given(s.cpu) || given(s.mem), s.requests);
        if (r >= 0)
                r = buf_puts(&j, "}}}]");
        if (r >= 0 && s.node)
                r = buf_printf(&j, ",'nodeName':'%s'", s.node);
        if (r >= 0 && s.has_priority)
                r = buf_printf(&j, ",'priority':%d", s.priority);
        if (r >= 0)
                r = member(&j, true, s.spec);
        if (r >= 0)
                r = buf_puts(&j, "}}");
        return r < 0 ? NULL : tl_pod_json(t, buf_str(&j));
}

SchedNode *build_node(SchedStrtab *t, NodeSpec s) {
        _cleanup_buf_ Buf j;
        buf_init(&j, 0);
        int pods = s.no_pods ? 0 : s.pods ? s.pods : 110;
        int r = buf_printf(&j, "{'metadata':{'name':'%s'", s.name);
        if (r >= 0 && s.host_label)
                r = buf_printf(&j, ",'labels':{'kubernetes.io/hostname':'%s'%s%s}", s.name,
                               given(s.labels) ? "," : "", s.labels ? s.labels : "");
        else if (r >= 0 && s.labels)
                r = buf_printf(&j, ",'labels':{%s}", s.labels);
        if (r >= 0)
                r = member(&j, true, s.meta);
        if (r >= 0)
                r = buf_puts(&j, "},'spec':{");
        if (r >= 0)
                r = member(&j, false, s.spec);
        if (r >= 0)
                r = buf_printf(&j, "},'status':{'allocatable':{'cpu':'%s','memory':'%s','pods':'%d'",
                               s.cpu ? s.cpu : "4", s.mem ? s.mem : "8Gi", pods);
        if (r >= 0)
                r = member(&j, true, s.allocatable);
        if (r >= 0)
                r = buf_putc(&j, '}');
        if (r >= 0)
                r = member(&j, true, s.status);
        if (r >= 0)
                r = buf_puts(&j, "}}");
        return r < 0 ? NULL : tl_node_json(t, buf_str(&j));
}
