KUBE_SRCS := kube/error.c kube/quantity.c kube/selector.c kube/log.c
$(eval $(call static_lib,kube,$(KUBE_SRCS)))

$(eval $(call unit_test,test-kube-quantity,tests/unit/test-kube-quantity.c,kube common))
$(eval $(call unit_test,test-kube-selector,tests/unit/test-kube-selector.c,kube common))
$(eval $(call unit_test,test-kube-log,tests/unit/test-kube-log.c,kube common))
