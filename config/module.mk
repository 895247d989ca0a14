# libconfig (static lib "config"): the configuration model of both front doors, the Policy
# and the KubeSchedulerConfiguration (decoding, defaults, validation, translation), with its
# unit tests, benchmark and fuzz targets. Consumers link `config common`.
CONFIG_LIB_SRCS := \
	config/util.c \
	config/pem.c \
	config/registry.c \
	config/diag.c \
	config/parse.c \
	config/parse-dispatch.c \
	config/parse-json.c \
	config/parse-yaml.c \
	config/decode.c \
	config/validate.c \
	config/policy-model.c \
	config/conflicts.c \
	config/policy.c \
	config/effective.c \
	config/limits.c \
	config/render.c \
	config/translate.c \
	config/translate-v1beta1.c \
	config/ksc.c \
	config/ksc-diag.c \
	config/ksc-schema.c \
	config/ksc-decode.c \
	config/ksc-duration.c \
	config/ksc-plugins.c \
	config/ksc-args.c \
	config/ksc-defaults.c \
	config/ksc-v1beta2.c \
	config/ksc-v1.c \
	config/ksc-v1-validate.c \
	config/ksc-v1-bridge.c \
	config/ksc-validate.c

$(eval $(call static_lib,config,$(CONFIG_LIB_SRCS)))


$(eval $(call unit_test,test-policy,tests/unit/test-policy.c tests/unit/case-dirs.c,config common))

$(eval $(call fuzzer,fuzz-policy,tests/fuzz/fuzz-policy.c $(CONFIG_LIB_SRCS) common/buf.c common/base64.c))
$(eval $(call bench,bench-policy,tests/bench/bench-policy.c,config common))
$(eval $(call unit_test,test-kubescheduler-config,tests/unit/test-kubescheduler-config.c tests/unit/case-dirs.c,config common))
$(eval $(call fuzzer,fuzz-kubescheduler-config,tests/fuzz/fuzz-kubescheduler-config.c $(CONFIG_LIB_SRCS) common/buf.c common/base64.c))
