# libschedcore (static lib "schedcore"): the I/O-free core of policy-scheduler — data model,
# node cache, predicates, priorities, algorithm, pending-pod queue, JSON conversion.
SCHEDCORE_SRCS := scheduler/sched-strtab.c scheduler/sched-hash.c scheduler/sched-model.c \
                  scheduler/sched-cache.c scheduler/sched-predicates.c scheduler/sched-priorities.c \
                  scheduler/sched-config.c scheduler/sched-algo.c scheduler/sched-queue.c \
                  scheduler/sched-json.c scheduler/sched-ext.c scheduler/sched-objects.c \
                  scheduler/sched-cycle-ext.c scheduler/sched-volumes.c scheduler/sched-interpod.c \
                  scheduler/sched-spread.c

$(eval $(call static_lib,schedcore,$(SCHEDCORE_SRCS)))

SCHED_TEST_LIBS := schedcore policy kube common
$(eval $(call unit_test,test-sched-predicates,tests/unit/test-sched-predicates.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-priorities,tests/unit/test-sched-priorities.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-algo,tests/unit/test-sched-algo.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-cache,tests/unit/test-sched-cache.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-queue,tests/unit/test-sched-queue.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-json,tests/unit/test-sched-json.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-ext,tests/unit/test-sched-ext.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-part2,tests/unit/test-sched-part2.c,$(SCHED_TEST_LIBS)))

$(eval $(call bench,bench-sched,tests/bench/bench-sched.c,schedcore policy kube common))
$(eval $(call bench,bench-sched-default,tests/bench/bench-sched-default.c,schedcore policy kube common))
$(eval $(call unit_test,test-sched-options,tests/unit/test-sched-options.c scheduler/sched-options.c,$(SCHED_TEST_LIBS)))
$(eval $(call unit_test,test-sched-extender,tests/unit/test-sched-extender.c scheduler/extender.c,$(SCHED_TEST_LIBS)))

# The daemon: the imperative shell around libschedcore.
SCHED_DAEMON_SRCS := scheduler/main.c scheduler/manager.c scheduler/sched-options.c \
                     scheduler/extender.c
$(eval $(call program,policy-scheduler,$(SCHED_DAEMON_SRCS),schedcore policy kube common))
$(eval $(call bench,bench-sched-bind,tests/bench/bench-sched-bind.c,kube common))
