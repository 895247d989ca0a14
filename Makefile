# One non-recursive Makefile. Each folder describes its own targets in a module.mk fragment
# included below (still one make process and one dependency graph); the macros here are the
# only way fragments declare libraries, programs, tests, benchmarks and fuzz targets.
#
#   make            build everything           make test    deps + all tests (CI runs this)
#   make check      the quick tier: build, unit tests plain, a smoke run on a local plane
#   make demo       the administrator's journey on the local control plane
#   make bench      benchmarks                 make fuzz    longer fuzzing runs
#   make abuse-asan / abuse-valgrind   the abuse suites with the daemons under ASan+UBSan / memcheck
#   make lint       clang-tidy + cppcheck      make install PREFIX=/usr/local DESTDIR=
#   SANITIZE=address,undefined   build with sanitizers (objects go to a separate build dir)
#   VALGRIND=1                   run unit tests under valgrind
#   V=1                          full compiler command lines and every test's output

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
PLUGINDIR ?= $(PREFIX)/lib/policy-scheduler/plugins

SANITIZE ?=
VALGRIND ?=
# Object trees are kept apart per configuration so switching never mixes objects.
O ?= build/$(if $(SANITIZE),san,default)

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
            -Wwrite-strings -Wformat=2 -Wundef -Wno-unused-parameter
# A sanitizer build is for running the tests, not for speed: -O1, as the sanitizers' own
# documentation advises, compiles in about 60% of -O2's time and still finds what they find.
CFLAGS ?= $(if $(SANITIZE),-O1,-O2) -g
# -Wformat-truncation needs -O2's value ranges: at -O1 it warns about a counter's full int
# range. The plain build, part of every make test, keeps the check where it is precise.
SAN_WARNINGS := $(if $(SANITIZE),-Wno-format-truncation)
PKGS := libcurl jansson yaml-0.1 libsystemd libmicrohttpd gnutls
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
SAN_FLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)
ALL_CFLAGS = -std=gnu17 $(WARNINGS) $(SAN_WARNINGS) $(CFLAGS) $(SAN_FLAGS) -D_GNU_SOURCE -I. -MMD -MP $(PKG_CFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS) -Wl,--as-needed

# Short build lines ("  CC      kube/client.c") unless V=1.
V ?= 0
ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = printf '  %-7s %s\n' '$(1)' '$(2)';
endif

PROGRAMS :=
# test harness programs (nodesim, ...): built by `all`, never installed
HARNESS_PROGRAMS :=
UNIT_TESTS :=
INTEGRATION_TESTS :=
BENCHES :=
FUZZERS :=
MANPAGES :=
PLUGINS :=
LINT_SRCS :=

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(Q)$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c $< -o $@

# $(call static_lib,NAME,SOURCES) -> $(O)/lib/libNAME.a
define static_lib
LIB_$(1) := $(O)/lib/lib$(1).a
$(O)/lib/lib$(1).a: $(patsubst %.c,$(O)/%.o,$(2))
	@mkdir -p $$(@D)
	$(Q)$(call say,AR,$$@)rm -f $$@ && $(AR) rcs $$@ $$^
LINT_SRCS += $(2)
endef

# $(call program,NAME,SOURCES,LIBS) -> $(O)/bin/NAME; LIBS in link order (dependents first)
define program
PROGRAMS += $(O)/bin/$(1)
$(O)/bin/$(1): $(patsubst %.c,$(O)/%.o,$(2)) $(foreach l,$(3),$(O)/lib/lib$(l).a)
	@mkdir -p $$(@D)
	$(Q)$(call say,LD,$$@)$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(PKG_LIBS)
LINT_SRCS += $(2)
endef

# $(call unit_test,NAME,SOURCES,LIBS) -> $(O)/tests/NAME, a cmocka binary run by `make unit`
define unit_test
UNIT_TESTS += $(O)/tests/$(1)
$(O)/tests/$(1): $(patsubst %.c,$(O)/%.o,$(2)) $(foreach l,$(3),$(O)/lib/lib$(l).a)
	@mkdir -p $$(@D)
	$(Q)$(call say,LD,$$@)$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(CMOCKA_LIBS) $(PKG_LIBS)
$(patsubst %.c,$(O)/%.o,$(2)): ALL_CFLAGS += $(CMOCKA_CFLAGS)
endef

# $(call integration_test,NAME,SOURCES,LIBS): a cmocka binary run against the local plane
define integration_test
INTEGRATION_TESTS += $(O)/tests/$(1)
$(O)/tests/$(1): $(patsubst %.c,$(O)/%.o,$(2)) $(foreach l,$(3),$(O)/lib/lib$(l).a)
	@mkdir -p $$(@D)
	$(Q)$(call say,LD,$$@)$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(CMOCKA_LIBS) $(PKG_LIBS)
$(patsubst %.c,$(O)/%.o,$(2)): ALL_CFLAGS += $(CMOCKA_CFLAGS)
endef

# $(call bench,NAME,SOURCES,LIBS) -> $(O)/bench/NAME, run by `make bench`
define bench
BENCHES += $(O)/bench/$(1)
$(O)/bench/$(1): $(patsubst %.c,$(O)/%.o,$(2)) $(foreach l,$(3),$(O)/lib/lib$(l).a)
	@mkdir -p $$(@D)
	$(Q)$(call say,LD,$$@)$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(PKG_LIBS)
endef

# $(call plugin,NAME,SOURCES,DIR) -> $(O)/DIR/NAME.so, an out-of-tree scheduler plugin built
# against scheduler/include/policy-scheduler-plugin.h (DIR: plugins for the examples that are
# installed, test-plugins for the tests' own)
define plugin
PLUGINS += $(O)/$(3)/$(1).so
$(O)/$(3)/$(1).so: $(2) scheduler/include/policy-scheduler-plugin.h
	@mkdir -p $$(@D)
	$(Q)$(call say,SO,$$@)$(CC) -std=gnu17 $(WARNINGS) $(SAN_WARNINGS) $(CFLAGS) $(SAN_FLAGS) -D_GNU_SOURCE -I. $$(PKG_CFLAGS) \
		-fPIC -shared -fvisibility=hidden -Wl,--as-needed -o $$@ $(2) $$(shell $(PKG_CONFIG) --libs jansson)
endef

# $(call fuzzer,NAME,SOURCES): a libFuzzer target built from source with clang + ASan/UBSan
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=gnu17 -g -O1 -D_GNU_SOURCE -I. -fsanitize=fuzzer,address,undefined
define fuzzer
FUZZERS += build/fuzz/$(1)
build/fuzz/$(1): $(2) $$(wildcard common/*.h config/*.h kube/*.h)
	@mkdir -p $$(@D)
	$(Q)$(call say,FUZZ,$$@)$(FUZZ_CC) $(FUZZ_FLAGS) $$(PKG_CFLAGS) -o $$@ $(2) $$(PKG_LIBS)
endef

include $(sort $(wildcard */module.mk tests/*/module.mk))

all: $(PROGRAMS) $(PLUGINS)
tests-build: $(UNIT_TESTS) $(INTEGRATION_TESTS) $(PLUGINS)
benches-build: $(BENCHES)

deps:
	@tools/install-deps

# Unit tests need no server. VALGRIND=1 runs each binary under memcheck with leak checks.
unit: $(UNIT_TESTS)
	@tools/run-tests $(if $(VALGRIND),--valgrind) --name unit $(UNIT_TESTS)

# Rewrites tests/data/policy's expectation files from the current output (test-policy
# fails every case while it does so: an update is not a pass); review `git diff` after.
policy-cases-update: $(O)/tests/test-policy
	-@POLICY_CASES_UPDATE=1 $(O)/tests/test-policy > /dev/null 2>&1
	@git status --short tests/data/policy

# The same for tests/data/kubescheduler-config (test-kubescheduler-config).
ksc-cases-update: $(O)/tests/test-kubescheduler-config
	-@KSC_CASES_UPDATE=1 $(O)/tests/test-kubescheduler-config > /dev/null 2>&1
	@git status --short tests/data/kubescheduler-config

# Integration tests (cmocka binaries and scripts under tests/integration and tests/e2e) run
# as `make test` runs them: on TEST_PLANES local control planes started here and stopped
# afterwards (tools/test-all's plane lane, without the unit lane), the plane's own smoke test
# first.
INTEGRATION_SCRIPTS := $(sort $(wildcard tests/integration/*.sh tests/e2e/*.sh))
integration:
	@TEST_ONLY=integration MAKE="$(MAKE)" V=$(V) O=$(O) INTEGRATION_TESTS="$(INTEGRATION_TESTS)" \
		INTEGRATION_SCRIPTS="$(INTEGRATION_SCRIPTS)" tools/test-all

# What CI runs: dependencies, then tools/test-all's stages (a plain build, unit tests plain,
# under ASan+UBSan and under valgrind, the Kubernetes binaries, then the integration and
# end-to-end suites on a fresh local control plane). A failing stage does not hide the
# others' results: the summary is printed either way and its last line is
# "total: N passed, N failed, N skipped" (what it counts: tools/run-tests, README.md).
test: deps
	@MAKE="$(MAKE)" V=$(V) O=$(O) SAN_O=build/san UNIT_TESTS="$(UNIT_TESTS)" \
		INTEGRATION_TESTS="$(INTEGRATION_TESTS)" \
		INTEGRATION_SCRIPTS="$(INTEGRATION_SCRIPTS)" \
		tools/test-all

# The abuse suites with the daemons under the memory checkers: abuse-asan runs them from the
# ASan+UBSan build (build/san/bin), abuse-valgrind under valgrind's memcheck. Each fails on
# any report, leaks found as the daemons exit included (the timing bounds are the suites'
# own: under valgrind the daemons run many times slower, and those checks say so).
ABUSE_SCRIPTS := tests/e2e/70-abuse-http.sh tests/e2e/71-abuse-inputs.sh
abuse-asan:
	@$(MAKE) --no-print-directory SANITIZE=address,undefined all
	@BIN_DIR=build/san/bin CLUSTER_DIR=$(CURDIR)/build/cluster-abuse-asan tools/with-cluster \
		tools/run-tests --name abuse-asan $(ABUSE_SCRIPTS)
abuse-valgrind: all
	@ABUSE_VALGRIND=1 CLUSTER_DIR=$(CURDIR)/build/cluster-abuse-valgrind tools/with-cluster \
		tools/run-tests --name abuse-valgrind $(ABUSE_SCRIPTS)

# The quick tier for the edit-compile-test loop (a few minutes): the plain build, the unit
# tests plain, and on a fresh local control plane its smoke test and CHECK_SCRIPTS. `make
# test` stays the full gate.
CHECK_SCRIPTS ?= tests/integration/00-control-plane.sh tests/e2e/30-scheduler-basics.sh
check: all tests-build
	@tools/run-tests --name unit $(UNIT_TESTS)
	@tests/cluster/build.sh
	@CLUSTER_DIR=$(CURDIR)/build/cluster-check tools/with-cluster tools/run-tests --name smoke $(CHECK_SCRIPTS)

demo: deps all
	@tests/cluster/build.sh
	@tools/demo

# Benchmarks run on a fresh local control plane (those that need no server ignore it): the
# bench binaries, then the scripts tests/bench/*.sh (they find the programs in $(O)).
# BENCH_CLUSTER_DIR picks the plane's directory (one per concurrent run).
BENCH_SCRIPTS := $(sort $(wildcard tests/bench/*.sh))
# Bench binaries that the bench scripts drive with arguments (not benchmarks of their own):
# built by `make bench`, not run by it directly.
BENCH_HELPERS := bench-sched-bind
BENCH_CLUSTER_DIR ?= $(CURDIR)/build/cluster-bench
# Results as CSV and charts (tools/bench-plots, gnuplot) go to BENCH_DIR.
BENCH_DIR ?= $(CURDIR)/build/bench
# The end-to-end cases tests/bench/e2e-sched.sh runs beside kube-scheduler v1.20.
E2E_CASES ?= small large
bench: deps all benches-build
	@tests/cluster/build.sh
	@mkdir -p $(BENCH_DIR) && rm -f $(BENCH_DIR)/*.csv
	@BENCH_DIR=$(BENCH_DIR) CLUSTER_DIR=$(BENCH_CLUSTER_DIR) O=$(O) E2E_CASES="$(E2E_CASES)" tools/with-cluster bash -c \
		'for b in $(filter-out $(addprefix %/,$(BENCH_HELPERS)),$(BENCHES)) $(BENCH_SCRIPTS); do \
			echo "== $$b"; $$b || { echo "make bench: $$b failed" >&2; exit 1; }; done'
	@tools/bench-plots $(BENCH_DIR) && ls $(BENCH_DIR)/*.svg

FUZZ_SECONDS ?= 60
fuzz: deps $(FUZZERS)
	@for f in $(FUZZERS); do echo "== $$f ($(FUZZ_SECONDS)s)"; \
		mkdir -p build/fuzz/corpus/$$(basename $$f); \
		$$f -max_total_time=$(FUZZ_SECONDS) build/fuzz/corpus/$$(basename $$f) \
			$$(ls -d tests/fuzz/corpus/$$(basename $$f) 2>/dev/null) || exit 1; done

lint:
	@# clang-tidy reads .clang-tidy (the checks, and why some are left out); eight files a run,
	@# one run per core
	printf '%s\n' $(sort $(LINT_SRCS)) | \
		LINT_FLAGS="-std=gnu17 -D_GNU_SOURCE -I. $(PKG_CFLAGS) $(CMOCKA_CFLAGS)" \
		xargs -P$$(nproc) -n8 sh -c 'clang-tidy --quiet "$$@" -- $$LINT_FLAGS' clang-tidy
	@# memleak, resourceLeak: cppcheck does not model __attribute__((cleanup)) (_cleanup_free_);
	@# ASan and valgrind check leaks in make test.
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
		--std=c11 -I. -D_GNU_SOURCE --library=tools/cppcheck-jansson.cfg \
		--suppress=memleak --suppress=resourceLeak $(sort $(LINT_SRCS))

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(filter-out $(HARNESS_PROGRAMS),$(PROGRAMS)) $(DESTDIR)$(BINDIR)/
	$(if $(MANPAGES),install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PLUGINDIR)
	install -m 0644 scheduler/include/policy-scheduler-plugin.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0755 $(filter $(O)/plugins/%,$(PLUGINS)) $(DESTDIR)$(PLUGINDIR)/

clean:
	rm -rf build/default build/san build/fuzz build/summary

.PHONY: all deps unit policy-cases-update ksc-cases-update integration test check abuse-asan abuse-valgrind demo bench fuzz lint install clean tests-build benches-build

-include $(shell find $(O) -name '*.d' 2>/dev/null)
