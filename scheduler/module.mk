# policy-scheduler. Two libraries, so tests link what the daemon links:
#  - libschedcore (scheduler/core/): the I/O-free core — data model, JSON conversion, node
#    cache, cluster object store, pending-pod queue, algorithm, and the plugin table with one
#    file per predicate/priority family under scheduler/core/plugins/ (every .c there is
#    built: adding a plugin is its file plus its row in config/plugin-list.h);
#  - libscheduler (scheduler/): the daemon's modules — options, HTTP extenders, manager.
#    main.c alone makes the program; out-of-tree plugins load through plugin-loader/.
SCHEDCORE_SRCS := $(sort $(wildcard scheduler/core/*.c scheduler/core/plugins/*.c))
$(eval $(call static_lib,schedcore,$(SCHEDCORE_SRCS)))

SCHED_DAEMON_SRCS := $(filter-out scheduler/main.c,$(sort $(wildcard scheduler/*.c)))
$(eval $(call static_lib,scheduler,$(SCHED_DAEMON_SRCS)))
$(eval $(call program,policy-scheduler,scheduler/main.c,scheduler pluginloader schedcore config kube common))

SCHED_TEST_LIBS := scheduler pluginloader schedcore config kube common
$(foreach t,$(patsubst tests/unit/%.c,%,$(sort $(wildcard tests/unit/test-sched-*.c))),\
  $(eval $(call unit_test,$(t),tests/unit/$(t).c tests/unit/builders.c tests/unit/make-objects.c tests/unit/pki-helper.c,$(SCHED_TEST_LIBS))))

$(eval $(call bench,bench-sched,tests/bench/bench-sched.c,schedcore config kube common))
$(eval $(call bench,bench-sched-default,tests/bench/bench-sched-default.c,scheduler pluginloader schedcore config kube common))
$(eval $(call bench,bench-sched-preempt,tests/bench/bench-sched-preempt.c tests/unit/make-objects.c,schedcore config kube common))
$(eval $(call bench,bench-sched-soak,tests/bench/bench-sched-soak.c,schedcore config kube common))
$(eval $(call bench,bench-sched-bind,tests/bench/bench-sched-bind.c,kube common))
MANPAGES += scheduler/policy-scheduler.1

# out-of-tree plugin examples (installed to PLUGINDIR) and the tests' own plugins
$(eval $(call plugin,pair-anti-affinity,scheduler/examples/pair-anti-affinity.c,plugins))
$(eval $(call plugin,node-label-score,scheduler/examples/node-label-score.c,plugins))
$(foreach p,$(patsubst tests/plugins/%.c,%,$(sort $(wildcard tests/plugins/*.c))),\
  $(eval $(call plugin,$(p),tests/plugins/$(p).c,test-plugins)))
