# kubectl-scheduler_policy: the kubectl plugin (kubectl finds kubectl-* programs on PATH),
# installed with the other programs by `make install`, with its man page.
KUBECTL_PLUGIN_SRCS := kubectl-plugin/history.c kubectl-plugin/diff.c kubectl-plugin/diff-framework.c kubectl-plugin/explain.c kubectl-plugin/util.c \
                       kubectl-plugin/migrate.c kubectl-plugin/simulate.c kubectl-plugin/migrate-decisions.c kubectl-plugin/sim-objects.c
$(eval $(call static_lib,kubectlplugin,$(KUBECTL_PLUGIN_SRCS)))
$(eval $(call program,kubectl-scheduler_policy,kubectl-plugin/main.c,kubectlplugin reconcilers schedcore config kube common))
$(eval $(call unit_test,test-kubectl-plugin,tests/unit/test-kubectl-plugin.c,kubectlplugin reconcilers schedcore config kube common))
MANPAGES += kubectl-plugin/kubectl-scheduler_policy.1
$(eval $(call bench,bench-simulate,tests/bench/bench-simulate.c,kubectlplugin reconcilers schedcore config kube common))
$(eval $(call unit_test,test-migrate-decisions,tests/unit/test-migrate-decisions.c,kubectlplugin reconcilers schedcore config kube common))
