$(eval $(call static_lib,common,common/buf.c common/http-server.c common/sha256.c))
$(eval $(call unit_test,test-buf,tests/unit/test-buf.c,common))
$(eval $(call unit_test,test-http-server,tests/unit/test-http-server.c,common))
$(eval $(call unit_test,test-sha256,tests/unit/test-sha256.c,common))
