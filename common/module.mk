$(eval $(call static_lib,common,common/buf.c))
$(eval $(call unit_test,test-buf,tests/unit/test-buf.c,common))
