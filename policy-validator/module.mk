# The policy-validator command (a thin front end of libconfig) and its own tests.
$(eval $(call program,policy-validator,policy-validator/main.c,pluginloader schedcore config kube common))
MANPAGES += policy-validator/policy-validator.1
# The command's own tests run the binary built beside them.
$(eval $(call unit_test,test-policy-cli,tests/unit/test-policy-cli.c,common))
$(O)/tests/test-policy-cli: | $(O)/bin/policy-validator
