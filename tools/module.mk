# tools/plugins-md: docs/plugins.md's in-tree plugin table, generated from the one plugin list
# (config/plugin-list.h). A build tool (never installed); its test fails `make unit` when the
# document in the tree is stale.
$(eval $(call program,plugins-md,tools/plugins-md-main.c tools/plugins-md.c,common))
HARNESS_PROGRAMS += $(O)/bin/plugins-md
$(eval $(call unit_test,test-plugins-md,tests/unit/test-plugins-md.c tools/plugins-md.c,common))
