/* Node and Pod JSON -> model conversion, string interning, the refusals, and the informer
 * cache trimming (the model from a trimmed object equals the one from the full object). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kube/kube.h"
#include "scheduler/core/pod-relations.h"
#include "tests/unit/testlib.h"

static void test_strtab(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(100, 0);
        SchedStr a, b, c;
        assert_int_equal(sched_strtab_intern_str(t, "zone", &a), 0);
        assert_int_equal(sched_strtab_intern(t, "zonex", 4, &b), 0);
        assert_int_equal(a, b);
        assert_int_equal(sched_strtab_intern_str(t, "", &c), 0);
        assert_int_equal(c, 0);
        assert_string_equal(sched_strtab_get(t, a), "zone");
        assert_string_equal(sched_strtab_get(t, 0), "");
        assert_string_equal(sched_strtab_get(t, 9999), "");
        assert_int_equal(sched_strtab_lookup(t, "nope", 4), 0);
        for (int i = 0; i < 99; i++) {
                char s[16];
                snprintf(s, sizeof s, "s%d", i);
                assert_int_equal(sched_strtab_intern_str(t, s, &c), 0);
        }
        assert_int_equal(sched_strtab_count(t), 100);
        assert_int_equal(sched_strtab_intern_str(t, "one-more", &c), -E2BIG);
        assert_int_equal(sched_strtab_intern_str(t, "s42", &c), 0); /* known strings still work */
        assert_string_equal(sched_strtab_get(t, c), "s42");
}

static void test_node(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        _cleanup_(sched_node_freep) SchedNode *n = tl_node_json(t,
                "{'metadata':{'name':'n1','resourceVersion':'7','labels':{'b':'2','a':'1'},"
                "'annotations':{'scheduler.alpha.kubernetes.io/preferAvoidPods':"
                "'{\\'preferAvoidPods\\':[{\\'podSignature\\':{\\'podController\\':{\\'kind\\':\\'ReplicationController\\',"
                "\\'uid\\':\\'u1\\'}}}]}'}},"
                "'spec':{'unschedulable':true,'taints':[{'key':'k','value':'v','effect':'NoExecute'},{'key':'x','effect':'Weird'}]},"
                "'status':{'allocatable':{'cpu':'3500m','memory':'2Gi','pods':'110','ephemeral-storage':'1G',"
                "'hugepages-2Mi':'64Mi','example.com/gpu':'2'},"
                "'images':[{'names':['a:1','a@sha256:1'],'sizeBytes':100}],"
                "'conditions':[{'type':'MemoryPressure','status':'False'},{'type':'Ready','status':'True'}]}}");
        assert_non_null(n);
        assert_string_equal(sched_strtab_get(t, n->name), "n1");
        assert_string_equal(n->resource_version, "7");
        assert_int_equal(n->n_labels, 2);
        assert_true(n->labels[0].key < n->labels[1].key);
        assert_true(n->unschedulable);
        assert_true(n->ready);
        assert_int_equal(n->alloc_milli_cpu, 3500);
        assert_int_equal(n->alloc_memory, 2LL << 30);
        assert_int_equal(n->alloc_pods, 110);
        assert_int_equal(n->alloc_ephemeral, 1000000000);
        assert_int_equal(n->n_alloc_scalar, 2);
        SchedStr gpu = sched_strtab_lookup(t, "example.com/gpu", 15);
        assert_int_equal(sched_scalars_get(n->alloc_scalar, n->n_alloc_scalar, gpu), 2);
        assert_int_equal(n->n_taints, 2);
        assert_int_equal(n->taints[0].effect, SCHED_EFFECT_NO_EXECUTE);
        assert_int_equal(n->taints[1].effect, SCHED_EFFECT_UNKNOWN);
        assert_int_equal(n->n_images, 2);
        assert_int_equal(n->images[1].size, 100);
        assert_int_equal(n->n_avoid, 1);
        assert_string_equal(sched_strtab_get(t, n->avoid[0].kind), "ReplicationController");
        assert_string_equal(n->avoid[0].uid, "u1");

        /* refusals */
        assert_null(tl_node_json(t, "{'metadata':{}}"));
        assert_null(tl_node_json(t, "{'metadata':{'name':'x'},'status':{'allocatable':{'cpu':'lots'}}}"));
        assert_null(tl_node_json(t, "[]"));
        /* a bad preferAvoidPods annotation is ignored, as upstream */
        _cleanup_(sched_node_freep) SchedNode *m = tl_node_json(t,
                "{'metadata':{'name':'m','annotations':{'scheduler.alpha.kubernetes.io/preferAvoidPods':'{'}}}");
        assert_non_null(m);
        assert_int_equal(m->n_avoid, 0);
}

static void test_pod(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = tl_pod_json(t,
                "{'metadata':{'name':'web-1','namespace':'prod','uid':'u-1','resourceVersion':'9',"
                "'creationTimestamp':'2026-11-21T08:00:00.25Z','labels':{'app':'web'},"
                "'ownerReferences':[{'kind':'Foo','uid':'f','controller':false},{'kind':'ReplicaSet','uid':'rs','controller':true}]},"
                "'spec':{'priority':1000,'nodeName':'n9','nodeSelector':{'disk':'ssd'},"
                "'containers':[{'name':'a','image':'nginx','ports':[{'containerPort':80,'hostPort':80,'hostIP':'0.0.0.0'},"
                "{'containerPort':53,'hostPort':53,'protocol':'UDP','hostIP':'10.1.1.1'},{'containerPort':9}],"
                "'resources':{'requests':{'cpu':'1.5','memory':'1G','example.com/gpu':'1'}}},"
                "{'name':'b','image':'registry:5000/app','resources':{'requests':{'example.com/gpu':'2'}}},"
                "{'name':'c','image':'registry:5000/app:v2@sha256:abc'}],"
                "'initContainers':[{'name':'i','image':'init','resources':{'requests':{'example.com/gpu':'5'}}}],"
                "'tolerations':[{'key':'k','operator':'Exists','effect':'NoSchedule'},{'key':'j','value':'v'},"
                "{'operator':'Nope'}],"
                "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                "{'matchExpressions':[{'key':'a','operator':'In','values':['1','2']}]},"
                "{'matchExpressions':[{'key':'bad key!','operator':'Exists'}]},"
                "{'matchFields':[{'key':'metadata.uid','operator':'In','values':['x']}]}]}}}}}");
        assert_non_null(p);
        assert_string_equal(p->namespace_, "prod");
        assert_string_equal(p->name, "web-1");
        assert_string_equal(p->uid, "u-1");
        assert_string_equal(sched_strtab_get(t, p->scheduler_name), "default-scheduler");
        assert_string_equal(sched_strtab_get(t, p->node_name), "n9");
        assert_int_equal(p->priority, 1000);
        assert_int_equal(p->creation_usec, 1795248000LL * 1000000 + 250000);
        assert_string_equal(sched_strtab_get(t, p->owner_kind), "ReplicaSet");
        assert_string_equal(p->owner_uid, "rs");
        assert_int_equal(p->req.milli_cpu, 1500);
        assert_int_equal(p->req.memory, 1000000000);
        assert_int_equal(p->req.n_scalar, 1);
        assert_int_equal(p->req.scalar[0].value, 5); /* max(1 + 2, 5) */
        assert_int_equal(p->nonzero_milli_cpu, 1700); /* 1500 + 100 + 100 */
        assert_int_equal(p->n_ports, 2);
        assert_int_equal(p->ports[0].ip, 0);
        assert_int_equal(p->ports[1].protocol, SCHED_PROTO_UDP);
        assert_string_equal(sched_strtab_get(t, p->ports[1].ip), "10.1.1.1");
        assert_int_equal(p->n_images, 3);
        assert_string_equal(sched_strtab_get(t, p->images[0]), "nginx:latest");
        assert_string_equal(sched_strtab_get(t, p->images[1]), "registry:5000/app:latest");
        assert_string_equal(sched_strtab_get(t, p->images[2]), "registry:5000/app:v2@sha256:abc");
        assert_int_equal(p->n_tolerations, 3);
        assert_int_equal(p->tolerations[0].op, SCHED_TOL_EXISTS);
        assert_int_equal(p->tolerations[1].op, SCHED_TOL_EQUAL);
        assert_int_equal(p->tolerations[1].effect, SCHED_EFFECT_ALL);
        assert_int_equal(p->tolerations[2].op, SCHED_TOL_INVALID);
        assert_true(p->has_required_affinity);
        assert_int_equal(p->n_required_terms, 3);
        assert_false(p->required_terms[0].invalid);
        assert_int_equal(p->required_terms[0].exprs[0].n_values, 2);
        assert_true(p->required_terms[1].invalid);       /* libkube refuses the key */
        assert_true(p->required_terms[2].invalid);       /* only metadata.name is a field */
        assert_int_equal(p->n_node_selector, 1);
        assert_int_equal(p->n_labels, 1);

        /* refusals */
        assert_null(tl_pod_json(t, "{'metadata':{'name':'x'}}"));
        assert_null(tl_pod_json(t, "{'metadata':{'name':'x','uid':'u'},'spec':{'containers':[{'resources':"
                                   "{'requests':{'cpu':'1x'}}}]}}"));
        /* creationTimestamp: RFC 3339 with its zone, else no time (the queue orders it first) */
        _cleanup_(sched_pod_unrefp) SchedPod *no_zone =
                tl_pod_json(t, "{'metadata':{'name':'a','uid':'ua','creationTimestamp':'2026-11-21T08:00:00'}}");
        _cleanup_(sched_pod_unrefp) SchedPod *dated =
                tl_pod_json(t, "{'metadata':{'name':'b','uid':'ub','creationTimestamp':'1970-01-01T00:00:01Z'}}");
        assert_non_null(no_zone);
        assert_non_null(dated);
        assert_int_equal(no_zone->creation_usec, 0);
        assert_int_equal(dated->creation_usec, 1000000);
}

static void test_bounds(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        json_t *tols = json_array();
        for (int i = 0; i < SCHED_JSON_MAX_ITEMS + 1; i++)
                json_array_append_new(tols, json_pack("{s:s}", "operator", "Exists"));
        json_t *pod = json_pack("{s:{s:s,s:s},s:{s:o}}", "metadata", "name", "p", "uid", "u", "spec", "tolerations", tols);
        SchedPod *p = NULL;
        assert_int_equal(sched_pod_from_json(t, pod, &p), -E2BIG);
        assert_null(p);
        json_decref(pod);
}

/* What the scheduler's decisions can depend on, as text (strtab ids are comparable: both
 * models use one strtab). */
static void pod_digest(const SchedPod *p, char *out, size_t size) {
        size_t n = 0;
#define PUT(...) (n += (size_t) snprintf(out + n, n < size ? size - n : 0, __VA_ARGS__))
        PUT("%s/%s %s sn=%u node=%u prio=%d t=%lld rv=%s ", p->namespace_, p->name, p->uid, p->scheduler_name,
            p->node_name, p->priority, (long long) p->creation_usec, p->resource_version ? p->resource_version : "-");
        PUT("req=%lld,%lld,%lld nz=%lld,%lld be=%d ", (long long) p->req.milli_cpu, (long long) p->req.memory,
            (long long) p->req.ephemeral, (long long) p->nonzero_milli_cpu, (long long) p->nonzero_memory,
            p->best_effort);
        for (uint32_t i = 0; i < p->req.n_scalar; i++)
                PUT("sc%u=%lld ", p->req.scalar[i].name, (long long) p->req.scalar[i].value);
        for (uint32_t i = 0; i < p->n_ports; i++)
                PUT("port=%u/%u/%u ", p->ports[i].ip, p->ports[i].port, p->ports[i].protocol);
        for (uint32_t i = 0; i < p->n_node_selector; i++)
                PUT("ns=%u:%u ", p->node_selector[i].key, p->node_selector[i].value);
        PUT("aff=%d,%u,%u ", p->has_required_affinity, p->n_required_terms, p->n_preferred);
        for (uint32_t i = 0; i < p->n_required_terms; i++)
                PUT("term=%u,%u,%d ", p->required_terms[i].n_exprs, p->required_terms[i].n_fields,
                    p->required_terms[i].invalid);
        for (uint32_t i = 0; i < p->n_tolerations; i++)
                PUT("tol=%u,%u,%u,%u ", p->tolerations[i].key, p->tolerations[i].value, p->tolerations[i].op,
                    p->tolerations[i].effect);
        for (uint32_t i = 0; i < p->n_images; i++)
                PUT("img=%u ", p->images[i]);
        PUT("owner=%u,%s ", p->owner_kind, p->owner_uid ? p->owner_uid : "-");
        for (uint32_t i = 0; i < p->n_labels; i++)
                PUT("l=%u:%u ", p->labels[i].key, p->labels[i].value);
        const SchedPodRelations *x = p->rel;
        if (x) {
                PUT("vols=%u,%u ", x->n_volumes, x->n_pvcs);
                for (uint32_t i = 0; i < x->n_volumes; i++)
                        PUT("vol=%u,%d,%s,%s,%u ", x->volumes[i].kind, x->volumes[i].read_only,
                            x->volumes[i].id ? x->volumes[i].id : "-", x->volumes[i].pool ? x->volumes[i].pool : "-",
                            x->volumes[i].n_monitors);
                PUT("pa=%u,%u,%u,%u,%d spread=%u owner=%s,%s del=%d", x->n_affinity, x->n_anti_affinity,
                    x->n_pref_affinity, x->n_pref_anti_affinity, x->has_pod_affinity, x->n_spread,
                    x->owner_name ? x->owner_name : "-", x->owner_api_version ? x->owner_api_version : "-",
                    x->deleting);
        }
#undef PUT
}

/* A pod as the API server stores it once a kubelet runs it, with most of what a pod can carry. */
static const char *const FULL_POD =
        "{'kind':'Pod','apiVersion':'v1','metadata':{'name':'web-1','generateName':'web-','namespace':'prod',"
        "'selfLink':'/api/v1/namespaces/prod/pods/web-1','uid':'u-1','resourceVersion':'9','generation':1,"
        "'creationTimestamp':'2026-11-21T08:00:00Z','deletionTimestamp':'2026-11-21T09:00:00Z',"
        "'deletionGracePeriodSeconds':30,'labels':{'app':'web','tier':'fe'},'annotations':{'a':'b'},"
        "'finalizers':['x/y'],'ownerReferences':[{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'web',"
        "'uid':'rs','controller':true,'blockOwnerDeletion':true}],"
        "'managedFields':[{'manager':'kubectl','operation':'Update','fieldsV1':{'f:spec':{}}}]},"
        "'spec':{'volumes':[{'name':'data','persistentVolumeClaim':{'claimName':'c1','readOnly':true}},"
        "{'name':'pd','gcePersistentDisk':{'pdName':'disk-1'}},"
        "{'name':'r','rbd':{'image':'img','pool':'p','monitors':['m1','m2']}},"
        "{'name':'tok','secret':{'secretName':'tok-1','defaultMode':420}},"
        "{'name':'cm','configMap':{'name':'cfg','items':[{'key':'k','path':'p'}]}},"
        "{'name':'proj','projected':{'sources':[{'serviceAccountToken':{'path':'t'}}]}},"
        "{'name':'dapi','downwardAPI':{'items':[{'path':'l','fieldRef':{'fieldPath':'metadata.labels'}}]}},"
        "{'name':'tmp','emptyDir':{}}],"
        "'initContainers':[{'name':'i','image':'init','command':['sh'],'args':['-c','true'],"
        "'resources':{'requests':{'cpu':'2'}},'terminationMessagePath':'/dev/termination-log',"
        "'imagePullPolicy':'Always'}],"
        "'containers':[{'name':'a','image':'nginx','command':['nginx'],'args':['-g','daemon off;'],"
        "'workingDir':'/','ports':[{'containerPort':80,'hostPort':8080,'protocol':'TCP'}],"
        "'env':[{'name':'A','value':'1'},{'name':'B','valueFrom':{'fieldRef':{'fieldPath':'status.podIP'}}}],"
        "'envFrom':[{'configMapRef':{'name':'cfg'}}],'resources':{'requests':{'cpu':'500m','memory':'1Gi',"
        "'example.com/gpu':'1'},'limits':{'cpu':'1'}},'volumeMounts':[{'name':'tok','mountPath':'/var/run'}],"
        "'livenessProbe':{'httpGet':{'path':'/','port':80}},'readinessProbe':{'tcpSocket':{'port':80}},"
        "'startupProbe':{'exec':{'command':['true']}},'lifecycle':{'preStop':{'exec':{'command':['sleep','1']}}},"
        "'terminationMessagePath':'/dev/termination-log','terminationMessagePolicy':'File',"
        "'imagePullPolicy':'IfNotPresent','securityContext':{'runAsUser':1000},'stdin':false,'tty':false},"
        "{'name':'b','image':'registry:5000/side:v2'}],"
        "'ephemeralContainers':[{'name':'dbg','image':'busybox','targetContainerName':'a','stdin':true}],"
        "'restartPolicy':'Always','terminationGracePeriodSeconds':30,'activeDeadlineSeconds':600,"
        "'dnsPolicy':'ClusterFirst','dnsConfig':{'nameservers':['1.1.1.1']},'nodeSelector':{'disk':'ssd'},"
        "'serviceAccountName':'default','serviceAccount':'default','automountServiceAccountToken':true,"
        "'nodeName':'n9','hostNetwork':false,'securityContext':{'fsGroup':2000},'imagePullSecrets':[{'name':'pull'}],"
        "'hostname':'h','subdomain':'s','hostAliases':[{'ip':'1.2.3.4','hostnames':['x']}],"
        "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
        "{'matchExpressions':[{'key':'zone','operator':'In','values':['a','b']}]}]},"
        "'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':5,'preference':{'matchExpressions':["
        "{'key':'fast','operator':'Exists'}]}}]},"
        "'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[{'labelSelector':{'matchLabels':"
        "{'app':'web'}},'topologyKey':'kubernetes.io/hostname'}]},"
        "'podAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':10,'podAffinityTerm':{"
        "'labelSelector':{'matchExpressions':[{'key':'tier','operator':'Exists'}]},'topologyKey':'zone'}}]}},"
        "'schedulerName':'custom','tolerations':[{'key':'k','operator':'Exists','effect':'NoSchedule'},"
        "{'key':'node.kubernetes.io/not-ready','operator':'Exists','effect':'NoExecute','tolerationSeconds':300}],"
        "'priorityClassName':'high','priority':1000,'readinessGates':[{'conditionType':'x'}],"
        "'runtimeClassName':'kata','overhead':{'cpu':'250m'},'enableServiceLinks':true,"
        "'preemptionPolicy':'PreemptLowerPriority','shareProcessNamespace':false,'setHostnameAsFQDN':false,"
        "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone','whenUnsatisfiable':'DoNotSchedule',"
        "'labelSelector':{'matchLabels':{'app':'web'}}}]},"
        "'status':{'phase':'Running','conditions':[{'type':'Ready','status':'True',"
        "'lastTransitionTime':'2026-11-21T08:00:01Z'}],'hostIP':'10.0.0.1','podIP':'10.1.0.5',"
        "'podIPs':[{'ip':'10.1.0.5'}],'startTime':'2026-11-21T08:00:00Z','qosClass':'Burstable',"
        "'containerStatuses':[{'name':'a','ready':true,'restartCount':0,'image':'nginx','imageID':'x',"
        "'containerID':'c://1','started':true,'state':{'running':{'startedAt':'2026-11-21T08:00:01Z'}},"
        "'lastState':{}}]}}";

static void test_trim_pod(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        json_auto_t *full = tl_json(FULL_POD);
        json_auto_t *trimmed = json_deep_copy(full);
        assert_non_null(full);
        sched_pod_json_trim(trimmed);
        _cleanup_(sched_pod_unrefp) SchedPod *a = NULL;
        _cleanup_(sched_pod_unrefp) SchedPod *b = NULL;
        assert_int_equal(sched_pod_from_json(t, full, &a), 0);
        assert_int_equal(sched_pod_from_json(t, trimmed, &b), 0);
        char da[4096], db[4096];
        pod_digest(a, da, sizeof da);
        pod_digest(b, db, sizeof db);
        assert_string_equal(da, db);
        /* the digest sees what the fixture sets */
        assert_non_null(strstr(da, "vols=8,1"));
        assert_non_null(strstr(da, "pa=0,1,1,0,1 spread=1 owner=web,apps/v1 del=1"));

        /* what the daemon compares on updates is untouched */
        static const char *const kept[] = { "spec.nodeName", "spec.activeDeadlineSeconds", "spec.tolerations",
                                            "spec.affinity", "spec.overhead", "spec.hostNetwork",
                                            "metadata.labels", "metadata.annotations", "metadata.ownerReferences",
                                            "metadata.deletionTimestamp", "metadata.creationTimestamp",
                                            "metadata.resourceVersion", "metadata.uid", "metadata.namespace" };
        for (size_t i = 0; i < ELEMENTSOF(kept); i++)
                assert_true(json_equal(kube_obj_path(full, kept[i]), kube_obj_path(trimmed, kept[i])));
        /* and the bulk is gone */
        static const char *const gone[] = { "status.phase", "status.conditions", "kind", "metadata.managedFields", "metadata.finalizers",
                                            "metadata.selfLink", "spec.dnsPolicy", "spec.securityContext",
                                            "spec.serviceAccountName", "spec.hostAliases" };
        for (size_t i = 0; i < ELEMENTSOF(gone); i++)
                assert_null(kube_obj_path(trimmed, gone[i]));
        /* what preemption reads stays: the start time and the preemption policy */
        assert_string_equal(json_string_value(kube_obj_path(trimmed, "status.startTime")), "2026-11-21T08:00:00Z");
        assert_int_equal(json_object_size(kube_obj_path(trimmed, "status")), 1);
        assert_non_null(kube_obj_path(trimmed, "spec.preemptionPolicy"));
        json_t *c = json_array_get(kube_obj_path(trimmed, "spec.containers"), 0);
        assert_int_equal(json_object_size(c), 4);       /* name, image, ports, resources */
        assert_true(json_equal(json_object_get(c, "resources"),
                               json_object_get(json_array_get(kube_obj_path(full, "spec.containers"), 0), "resources")));
        assert_int_equal(json_object_size(json_array_get(kube_obj_path(trimmed, "spec.initContainers"), 0)), 3);
        assert_int_equal(json_object_size(json_array_get(kube_obj_path(trimmed, "spec.ephemeralContainers"), 0)), 2);
        json_t *vols = kube_obj_path(trimmed, "spec.volumes");
        assert_int_equal(json_array_size(vols), 8);
        assert_int_equal(json_object_size(json_array_get(vols, 3)), 1); /* secret: the name stays */
        assert_true(json_equal(json_array_get(vols, 2), json_array_get(kube_obj_path(full, "spec.volumes"), 2)));

        /* idempotent, and harmless on what is not a pod */
        json_auto_t *again = json_deep_copy(trimmed);
        sched_pod_json_trim(again);
        assert_true(json_equal(again, trimmed));
        json_auto_t *arr = json_array();
        sched_pod_json_trim(arr);
        sched_pod_json_trim(NULL);
        json_auto_t *odd = tl_json("{'metadata':'x','spec':{'containers':{'a':1},'volumes':[1,'x']}}");
        sched_pod_json_trim(odd);
        assert_non_null(json_object_get(odd, "spec"));
}

/* A pending pod's PodScheduled condition survives trimming (the other conditions do not) and
 * reaches the model as a digest and a transition time: an unchanged failure writes nothing. */
static void test_pod_scheduled_condition(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        json_auto_t *obj = tl_json(
                "{'metadata':{'name':'p','uid':'u'},'spec':{'containers':[{'name':'a'}]},"
                "'status':{'phase':'Pending','nominatedNodeName':'n1','conditions':[{'type':'Ready','status':'False'},"
                "{'type':'PodScheduled','status':'False','reason':'Unschedulable','lastProbeTime':null,"
                "'message':'0/3 nodes are available: 3 Insufficient cpu.',"
                "'lastTransitionTime':'1970-01-01T00:00:07Z'}]}}");
        _cleanup_(sched_pod_unrefp) SchedPod *full = NULL;
        assert_int_equal(sched_pod_from_json(t, obj, &full), 0);
        sched_pod_json_trim(obj);
        json_t *conds = kube_obj_path(obj, "status.conditions");
        assert_int_equal(json_array_size(conds), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(conds, 0), "type")), "PodScheduled");
        _cleanup_(sched_pod_unrefp) SchedPod *p = NULL;
        assert_int_equal(sched_pod_from_json(t, obj, &p), 0);
        assert_true(p->scheduled_digest == full->scheduled_digest);
        assert_true(p->scheduled_digest ==
                    sched_pod_condition_digest("False", "Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.",
                                               NULL));
        assert_true(p->scheduled_digest !=
                    sched_pod_condition_digest("False", "Unschedulable", "0/3 nodes are available: 2 Insufficient cpu.",
                                               NULL));
        assert_true(p->scheduled_false);
        assert_int_equal(p->scheduled_since_usec, 7000000);
        assert_string_equal(sched_strtab_get(t, p->nominated_node), "n1");
        /* none: digest 0, which no condition has */
        _cleanup_(sched_pod_unrefp) SchedPod *none = tl_pod_json(t, "{'metadata':{'name':'q','uid':'v'}}");
        assert_non_null(none);
        assert_true(none->scheduled_digest == 0);
        assert_true(sched_pod_condition_digest(NULL, NULL, NULL, NULL) != 0);
}

static void test_trim_node(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        json_auto_t *full = tl_json(
                "{'kind':'Node','apiVersion':'v1','metadata':{'name':'n1','uid':'u','resourceVersion':'7',"
                "'selfLink':'/api/v1/nodes/n1','labels':{'zone':'a'},'annotations':{'scheduler.alpha.kubernetes.io/"
                "preferAvoidPods':'{\\'preferAvoidPods\\':[{\\'podSignature\\':{\\'podController\\':"
                "{\\'kind\\':\\'ReplicationController\\',\\'uid\\':\\'u1\\'}}}]}','x':'y'}},"
                "'spec':{'podCIDR':'10.1.0.0/24','taints':[{'key':'k','value':'v','effect':'NoSchedule'}]},"
                "'status':{'capacity':{'cpu':'4','memory':'8Gi','pods':'110'},'allocatable':{'cpu':'3500m',"
                "'memory':'7Gi','pods':'110'},'conditions':[{'type':'Ready','status':'True','reason':'KubeletReady',"
                "'message':'kubelet is posting ready status','lastHeartbeatTime':'2026-11-21T08:00:00Z',"
                "'lastTransitionTime':'2026-11-21T07:00:00Z'},{'type':'MemoryPressure','status':'True'}],"
                "'addresses':[{'type':'InternalIP','address':'10.0.0.1'}],'daemonEndpoints':{'kubeletEndpoint':"
                "{'Port':10250}},'nodeInfo':{'kubeletVersion':'v1.20.2','osImage':'x'},"
                "'images':[{'names':['a:1','a@sha256:1'],'sizeBytes':100}],'volumesInUse':['v'],"
                "'volumesAttached':[{'name':'v','devicePath':'/dev/x'}],'phase':'Running'}}");
        assert_non_null(full);
        json_auto_t *trimmed = json_deep_copy(full);
        sched_node_json_trim(trimmed);
        _cleanup_(sched_node_freep) SchedNode *a = NULL;
        _cleanup_(sched_node_freep) SchedNode *b = NULL;
        assert_int_equal(sched_node_from_json(t, full, &a), 0);
        assert_int_equal(sched_node_from_json(t, trimmed, &b), 0);
        assert_int_equal(a->name, b->name);
        assert_string_equal(a->resource_version, b->resource_version);
        assert_int_equal(a->n_labels, b->n_labels);
        assert_int_equal(a->n_taints, b->n_taints);
        assert_int_equal(a->alloc_milli_cpu, b->alloc_milli_cpu);
        assert_int_equal(a->alloc_memory, b->alloc_memory);
        assert_int_equal(a->alloc_pods, b->alloc_pods);
        assert_int_equal(a->n_images, b->n_images);
        assert_int_equal(a->images[1].size, b->images[1].size);
        assert_int_equal(a->n_avoid, 1);
        assert_int_equal(b->n_avoid, 1);
        assert_int_equal(a->ready, b->ready);
        assert_true(b->ready);
        assert_int_equal(a->conditions, b->conditions);
        assert_int_equal(b->conditions, SCHED_NODE_MEMORY_PRESSURE);
        static const char *const kept[] = { "spec", "metadata.labels", "metadata.annotations", "status.allocatable",
                                            "status.capacity", "status.images", "metadata.resourceVersion" };
        for (size_t i = 0; i < ELEMENTSOF(kept); i++)
                assert_true(json_equal(kube_obj_path(full, kept[i]), kube_obj_path(trimmed, kept[i])));
        static const char *const gone[] = { "kind", "status.addresses", "status.nodeInfo", "status.daemonEndpoints",
                                            "status.volumesAttached", "metadata.selfLink" };
        for (size_t i = 0; i < ELEMENTSOF(gone); i++)
                assert_null(kube_obj_path(trimmed, gone[i]));
        json_t *c = json_array_get(kube_obj_path(trimmed, "status.conditions"), 0);
        assert_int_equal(json_object_size(c), 2);
        assert_string_equal(json_string_value(json_object_get(c, "type")), "Ready");
        sched_node_json_trim(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strtab),
                cmocka_unit_test(test_node),
                cmocka_unit_test(test_pod),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_trim_pod),
                cmocka_unit_test(test_pod_scheduled_condition),
                cmocka_unit_test(test_trim_node),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
