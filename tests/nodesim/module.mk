# nodesim: the node and kubelet simulator (see tests/nodesim/nodesim.c). Its modules form a
# static library so the unit tests (tests/unit/test-nodesim*.c) link the same code.
NODESIM_SRCS := tests/nodesim/util.c tests/nodesim/options.c tests/nodesim/render.c \
                tests/nodesim/ipalloc.c tests/nodesim/expand.c tests/nodesim/volumes.c
$(eval $(call static_lib,nodesim,$(NODESIM_SRCS)))
