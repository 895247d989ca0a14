# The scheduler-operator daemon: a thin shell around the pure reconciler.
OPERATOR_SRCS := operator/apply.c operator/apply-error.c operator/event-action.c operator/metrics.c operator/metrics-server.c operator/expectations.c operator/logtext.c operator/nodes.c \
	operator/pass.c operator/cycle.c operator/manager-state.c operator/manager.c operator/coexistence.c operator/clusteroperator.c operator/discovery.c operator/optional-watch.c operator/apiserver-tls.c
$(eval $(call static_lib,operator,$(OPERATOR_SRCS)))
$(eval $(call program,scheduler-operator,operator/main.c,operator reconcilers config kube common))
$(eval $(call unit_test,test-operator,tests/unit/test-operator.c,operator reconcilers config kube common))
$(eval $(call bench,bench-operator,tests/bench/bench-operator.c,operator reconcilers config kube common))
MANPAGES += operator/scheduler-operator.1
