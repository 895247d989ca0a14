# The reconcile logic of the operator as pure functions (static lib "reconcilers"); it
# validates policies through libconfig and uses libkube's condition and merge-patch helpers.
# Link order for users: reconcilers config kube common.
RECONCILERS_SRCS := reconcilers/reconcile.c reconcilers/actions.c reconcilers/revisions.c reconcilers/rollout.c \
                    reconcilers/status.c reconcilers/events.c reconcilers/source.c reconcilers/render.c \
                    reconcilers/conditions.c reconcilers/bootstrap.c reconcilers/util.c \
                    reconcilers/coexistence.c reconcilers/profiles.c \
                    reconcilers/operator-config.c reconcilers/config-defaults.c reconcilers/clusteroperator.c \
                    reconcilers/plugin-decls.c reconcilers/cluster.c \
                    reconcilers/customizations.c reconcilers/source-profile.c reconcilers/tls-observe.c

$(eval $(call static_lib,reconcilers,$(RECONCILERS_SRCS)))
RECONCILE_WORLD := tests/unit/reconcile-world.c
$(foreach j,install policy rollout drift,$(eval $(call unit_test,test-reconcile-$(j),tests/unit/test-reconcile-$(j).c $(RECONCILE_WORLD),reconcilers config kube common)))
$(eval $(call unit_test,test-reconcile-operator-config,tests/unit/test-reconcile-operator-config.c $(RECONCILE_WORLD),reconcilers config kube common))
$(eval $(call unit_test,test-reconcile-scheduler-config,tests/unit/test-reconcile-scheduler-config.c $(RECONCILE_WORLD),reconcilers config kube common))
$(eval $(call unit_test,test-reconcile-scheduler-config-v1,tests/unit/test-reconcile-scheduler-config-v1.c $(RECONCILE_WORLD),reconcilers config kube common))
$(eval $(call unit_test,test-reconcile-profiles,tests/unit/test-reconcile-profiles.c $(RECONCILE_WORLD),reconcilers config kube common))
$(eval $(call unit_test,test-reconcile-profiles-v1,tests/unit/test-reconcile-profiles-v1.c $(RECONCILE_WORLD),reconcilers config kube common))
$(eval $(call unit_test,test-reconcile-parts,tests/unit/test-reconcile-parts.c,reconcilers config kube common))
$(eval $(call unit_test,test-reconcile-clusteroperator,tests/unit/test-reconcile-clusteroperator.c $(RECONCILE_WORLD),reconcilers config kube common))
$(eval $(call unit_test,test-reconcile-plugins,tests/unit/test-reconcile-plugins.c $(RECONCILE_WORLD),reconcilers config kube common))
$(eval $(call unit_test,test-tls-observe,tests/unit/test-tls-observe.c,reconcilers config kube common))
