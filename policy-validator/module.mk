# libpolicy (static lib "policy") and the policy-validator command, with its unit tests,
# benchmark and fuzz target. Consumers link `policy common`.
POLICY_LIB_SRCS := \
	policy-validator/util.c \
	policy-validator/pem.c \
	policy-validator/registry.c \
	policy-validator/diag.c \
	policy-validator/parse.c \
	policy-validator/parse-json.c \
	policy-validator/parse-yaml.c \
	policy-validator/decode.c \
	policy-validator/validate.c \
	policy-validator/conflicts.c \
	policy-validator/policy.c \
	policy-validator/effective.c \
	policy-validator/limits.c \
	policy-validator/render.c \
	policy-validator/translate.c \
	policy-validator/translate-v1beta1.c \
	policy-validator/ksc.c \
	policy-validator/ksc-schema.c \
	policy-validator/ksc-decode.c \
	policy-validator/ksc-duration.c \
	policy-validator/ksc-plugins.c \
	policy-validator/ksc-args.c \
	policy-validator/ksc-defaults.c \
	policy-validator/ksc-v1beta2.c \
	policy-validator/ksc-validate.c

$(eval $(call static_lib,policy,$(POLICY_LIB_SRCS)))

$(eval $(call program,policy-validator,policy-validator/main.c,scheduler schedcore policy kube common))
MANPAGES += policy-validator/policy-validator.1

$(eval $(call unit_test,test-policy,tests/unit/test-policy.c tests/unit/case-dirs.c,policy common))

$(eval $(call fuzzer,fuzz-policy,tests/fuzz/fuzz-policy.c $(POLICY_LIB_SRCS) common/buf.c common/base64.c))
$(eval $(call bench,bench-policy,tests/bench/bench-policy.c,policy common))
# The command's own tests run the binary built beside them.
$(eval $(call unit_test,test-policy-cli,tests/unit/test-policy-cli.c,common))
$(O)/tests/test-policy-cli: | $(O)/bin/policy-validator
$(eval $(call unit_test,test-kubescheduler-config,tests/unit/test-kubescheduler-config.c tests/unit/case-dirs.c,policy common))
$(eval $(call fuzzer,fuzz-kubescheduler-config,tests/fuzz/fuzz-kubescheduler-config.c $(POLICY_LIB_SRCS) common/buf.c common/base64.c))
