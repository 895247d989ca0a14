# nodesim: the node and kubelet simulator (tests/nodesim/nodesim.c) and testapp, the small
# program the smoke test runs as a pod. nodesim's pure modules form a static library so
# the unit tests (tests/unit/test-nodesim*.c) link the same code.
NODESIM_SRCS := tests/nodesim/util.c tests/nodesim/options.c tests/nodesim/render.c \
                tests/nodesim/ipalloc.c tests/nodesim/expand.c tests/nodesim/volumes.c \
                tests/nodesim/logfile.c tests/nodesim/spawn.c tests/nodesim/probe.c
$(eval $(call static_lib,nodesim,$(NODESIM_SRCS)))
$(eval $(call program,nodesim,tests/nodesim/nodesim.c tests/nodesim/nodes.c tests/nodesim/pods.c \
        tests/nodesim/containers.c tests/nodesim/pod-deps.c tests/nodesim/pod-status.c tests/nodesim/pod-probes.c \
        tests/nodesim/kubelet.c,nodesim kube common))
$(eval $(call program,testapp,tests/nodesim/testapp.c,nodesim common))
HARNESS_PROGRAMS += $(O)/bin/nodesim $(O)/bin/testapp
$(eval $(call unit_test,test-nodesim,tests/unit/test-nodesim.c,nodesim kube common))
$(eval $(call unit_test,test-nodesim-runtime,tests/unit/test-nodesim-runtime.c,nodesim kube common))
