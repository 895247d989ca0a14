KUBE_SRCS := kube/error.c kube/quantity.c kube/selector.c kube/log.c kube/util.c kube/config.c kube/client.c kube/ops.c kube/hashmap.c kube/watch.c kube/informer.c kube/workqueue.c kube/conditions.c kube/mergepatch.c kube/events.c kube/leader.c kube/notify.c
$(eval $(call static_lib,kube,$(KUBE_SRCS)))

$(eval $(call unit_test,test-kube-quantity,tests/unit/test-kube-quantity.c,kube common))
$(eval $(call unit_test,test-kube-selector,tests/unit/test-kube-selector.c,kube common))
$(eval $(call unit_test,test-kube-log,tests/unit/test-kube-log.c,kube common))
$(eval $(call unit_test,test-kube-config,tests/unit/test-kube-config.c,kube common))
$(eval $(call unit_test,test-kube-watch,tests/unit/test-kube-watch.c,kube common))
$(eval $(call unit_test,test-kube-helpers,tests/unit/test-kube-helpers.c,kube common))
$(eval $(call unit_test,test-kube-queue,tests/unit/test-kube-queue.c,kube common))
$(eval $(call integration_test,test-kube-crud,tests/integration/test-kube-crud.c,kube common))
$(eval $(call integration_test,test-kube-informer,tests/integration/test-kube-informer.c,kube common))
$(eval $(call integration_test,test-kube-leader,tests/integration/test-kube-leader.c,kube common))
