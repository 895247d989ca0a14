# libpolicy (static lib "policy") and the policy-validator command; tests, bench and fuzzer.
POLICY_LIB_SRCS := policy-validator/util.c policy-validator/registry.c

$(eval $(call static_lib,policy,$(POLICY_LIB_SRCS)))
