# plumb — the one entry point. See README.md.
#   make            build build/libplumb.a and build/plumb
#   make check      every test (unit, corpus, stablehlo testdata, docs), then
#                   the docs and portability checks
#   make asan       every test under AddressSanitizer + UBSan (build/asan/;
#                   `make asan CC=clang`: clang's, in build/asan-clang/)
#   make docs       regenerate docs/ops.md and docs/cli.md
#   make clean

CC      ?= cc
BUILD   ?= build
SHARED  ?= ../shared

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# -ffp-contract=off: the reference must round every operation exactly as
# written (no fused multiply-add); fast-math is never used anywhere.
CFLAGS   ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L $(WARN) \
              -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fPIC -Iinclude \
              $(CFLAGS) $(EXTRA_CFLAGS) -MMD -MP
LDLIBS   := -lxxhash -lmpfr -lgmp -lgsl -lgslcblas -lm -lpthread -ldl
TEST_LDLIBS := -lcmocka $(LDLIBS)

LIB_DIRS := ir ref runtime conformance golden fuzz nn
LIB_SRCS := $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
CLI_SRCS := $(sort $(wildcard cli/*.c))
TEST_SRCS := $(sort $(wildcard tests/*/test_*.c))
TOOL_SRCS := $(sort $(wildcard tools/*.c))

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BINS := $(TEST_SRCS:%.c=$(BUILD)/%)
TOOL_BINS := $(TOOL_SRCS:tools/%.c=$(BUILD)/tools/%)
LIB       := $(BUILD)/libplumb.a
PLUMB     := $(BUILD)/plumb

# Dependencies: ci/deps.sh installs what is missing (or says how to).
# stdlib.h: Debian's gcc only recommends libc6-dev, so a gcc installed with
# --no-install-recommends compiles nothing until it is there.
DEP_HDRS := stdlib.h cmocka.h xxhash.h mpfr.h gmp.h gsl/gsl_rng.h
HDR_DIRS := /usr/include /usr/include/x86_64-linux-gnu /usr/include/aarch64-linux-gnu /usr/local/include
# The shell tests check JSON and XML reports with jq and xmllint, and the
# installed library with pkg-config.
DEP_TOOLS := jq xmllint pkg-config
MISSING_DEPS := $(strip $(foreach h,$(DEP_HDRS),$(if $(wildcard $(addsuffix /$(h),$(HDR_DIRS))),,$(h))) \
                $(foreach t,$(DEP_TOOLS),$(if $(shell command -v $(t)),,$(t))))

.PHONY: all deps check asan clean tests docs check-docs check-portable
all: $(LIB) $(PLUMB) $(TOOL_BINS)

deps:
ifneq ($(MISSING_DEPS),)
	@echo "plumb: missing: $(MISSING_DEPS); running ci/deps.sh"
	@sh ci/deps.sh
endif

$(BUILD)/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(PLUMB): $(CLI_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

# Test programs, test plugins and fuzz replays link the library as one
# shared object, $(TESTLIB), found through an absolute rpath: linked
# statically, each of the ~200 carried its own copy (30-45 MB apiece under
# ASan, 6 GB per sanitized build, which filled a CI machine's disk). The
# objects are the same -fPIC ones libplumb.a holds. Two tests load test
# plugins into their own process and stay static, so that a plugin's copy
# of the library (its own libplumb-test.so) never shares state with the
# host's, as with plumb itself, which is always static.
TESTLIB      := $(BUILD)/libplumb-test.so
TESTLIB_LINK := $(TESTLIB) -Wl,-rpath,$(abspath $(BUILD))
STATIC_TESTS := $(BUILD)/tests/conformance/test_abi $(BUILD)/tests/conformance/test_runner

$(TESTLIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libplumb-test.so -o $@ $(LIB_OBJS) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(TESTLIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(TESTLIB_LINK) $(TEST_LDLIBS)

$(STATIC_TESTS): $(BUILD)/tests/%: tests/%.c $(LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(LIB) $(TEST_LDLIBS)

$(BUILD)/tools/%: tools/%.c $(LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

tests: $(TEST_BINS) $(PLUMB)

# The runtime's build identity (tools/gen_build_id.sh): a hash of the
# compiler flags and of every source that decides what a compiled program
# means, regenerated whenever one of them changes. The disk cache keys and
# authenticates its entries with it, so no build serves another's entries.
RT_ID_SRCS := $(sort $(wildcard runtime/*.c runtime/*.h ir/*.c ir/*.h ir/*.def include/plumb/*.h))
$(BUILD)/gen/rt_build_id.h: $(RT_ID_SRCS) Makefile tools/gen_build_id.sh
	@mkdir -p $(dir $@)
	sh tools/gen_build_id.sh "$(CC) $(ALL_CFLAGS)" $(RT_ID_SRCS) > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/runtime/build_id.o: $(BUILD)/gen/rt_build_id.h
$(BUILD)/obj/runtime/build_id.o: ALL_CFLAGS += -I$(BUILD)/gen

# docs/ops.md is generated from ir/ops.def, docs/cli.md from every command's
# --help (tools/gen_cli_md.sh); check-docs fails when either is stale.
docs: $(PLUMB)
	$(PLUMB) ops --markdown > docs/ops.md
	sh tools/gen_cli_md.sh $(PLUMB) > docs/cli.md

check-docs: $(PLUMB)
	@$(PLUMB) ops --markdown | diff -u docs/ops.md - > /dev/null || \
	  { echo "docs/ops.md is stale: run 'make docs' and commit it"; exit 1; }
	@sh tools/gen_cli_md.sh $(PLUMB) | diff -u docs/cli.md - > /dev/null || \
	  { echo "docs/cli.md is stale: run 'make docs' and commit it"; exit 1; }
	@echo "check-docs: docs/ops.md and docs/cli.md are current"

# The tests run first and always report; the docs and portability checks run
# after them (a stale doc or a missing cross compiler cannot hide a test
# result), and any failure fails the target. StableHLO's test files come from
# STABLEHLO_TESTDATA, else $(SHARED)/stablehlo-testdata; the suites that need
# them are skipped (and say how to enable them) when neither exists.
CHECK_PORTABLE ?= yes
# check-golden (about 50 CPU-s, one process) runs beside the suites rather
# than after them, when one lane would work and the other idle; its output
# prints after theirs. CHECK_GOLDEN=no leaves it out and says so (.ci/run:
# clang's sanitized run, when gcc's has made it).
CHECK_GOLDEN ?= yes
check: all tests
	@rc=0; gold=$$(mktemp) || exit 1; \
	if [ "$(CHECK_GOLDEN)" = yes ]; then \
	  $(MAKE) --no-print-directory BUILD=$(BUILD) check-golden > "$$gold" 2>&1 & gpid=$$!; \
	else echo "check-golden: not run here (CHECK_GOLDEN=$(CHECK_GOLDEN))" > "$$gold"; gpid=; fi; \
	BUILD=$(BUILD) SHARED=$(SHARED) SANITIZED=$(if $(findstring -fsanitize,$(EXTRA_CFLAGS)),yes,no) \
	  SANITIZER=$(if $(findstring -fsanitize,$(EXTRA_CFLAGS)),$(if $(findstring clang,$(notdir $(CC))),clang,gcc),) \
	  sh tests/run.sh || rc=1; \
	$(MAKE) --no-print-directory BUILD=$(BUILD) check-docs || rc=1; \
	if [ -n "$$gpid" ]; then wait $$gpid || rc=1; fi; cat "$$gold"; rm -f "$$gold"; \
	if [ "$(CHECK_PORTABLE)" = yes ]; then \
	  $(MAKE) --no-print-directory BUILD=$(BUILD) check-portable || rc=1; fi; \
	exit $$rc

# Every source also compiles, warnings as errors, for a target without the
# x86 kernels (the portable path alone): aarch64, with Debian's cross
# compiler (ci/deps.sh --cross installs it). Compile only: nothing runs.
CROSS_CC ?= aarch64-linux-gnu-gcc
PORTABLE_SRCS := $(LIB_SRCS) $(CLI_SRCS) $(TEST_SRCS) $(TOOL_SRCS) $(sort $(wildcard bench/*.c))
check-portable: $(BUILD)/gen/rt_build_id.h | deps
	@printf '#include <stdio.h>\n' | $(CROSS_CC) -E - > /dev/null 2>&1 || sh ci/deps.sh --cross
	@printf '#include <stdio.h>\n' | $(CROSS_CC) -E - > /dev/null 2>&1 || \
	  { echo "check-portable: $(CROSS_CC) is missing or has no C library headers (ci/deps.sh --cross)"; exit 1; }
	@n=0; for f in $(PORTABLE_SRCS); do \
	  $(CROSS_CC) -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L $(WARN) -ffp-contract=off \
	    -fno-fast-math -fno-strict-aliasing -Iinclude -Iconformance -Itests -I$(BUILD)/gen \
	    -idirafter /usr/include/$$($(CC) -print-multiarch) -O0 -c $$f -o /dev/null \
	    || { echo "check-portable: $$f does not compile for $(CROSS_CC)"; exit 1; }; \
	  n=$$((n + 1)); \
	done; echo "check-portable: $$n sources compile for $(CROSS_CC)"

# Sanitizers of the compiler in CC: gcc's by default, clang's with
# `make asan CC=clang` (its UBSan also flags offsets applied to a null
# pointer, NULL + 0 included, which gcc's does not), each in its own build folder. The portability check is skipped:
# it compiles for another target and runs nothing.
ASAN_BUILD := build/asan$(if $(findstring clang,$(notdir $(CC))),-clang,)
asan:
	$(MAKE) BUILD=$(ASAN_BUILD) CFLAGS="-O1 -g" CHECK_PORTABLE=no \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  check

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(TEST_BINS:=.d) $(TOOL_BINS:=.d)

# Backends as shared libraries: each examples/backend/*.c builds against
# include/plumb/backend.h alone (what an out-of-tree backend has); each
# tests/conformance/plugins/*.c may also link the library (test backends
# that wrap ref or runtime and plant faults).
BACKEND_SRCS := $(sort $(wildcard examples/backend/*.c))
PLUGIN_SRCS  := $(sort $(wildcard tests/conformance/plugins/*.c))
BACKEND_SOS  := $(BACKEND_SRCS:examples/backend/%.c=$(BUILD)/backends/%.so)
PLUGIN_SOS   := $(PLUGIN_SRCS:tests/conformance/plugins/%.c=$(BUILD)/plugins/%.so)
CERTIFY_OUT  ?= $(BUILD)/certify

all: $(BACKEND_SOS) $(PLUGIN_SOS)

$(BUILD)/backends/%.so: examples/backend/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fvisibility=hidden -o $@ $< -lm

$(BUILD)/plugins/%.so: tests/conformance/plugins/%.c $(TESTLIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iconformance -shared -o $@ $< $(TESTLIB_LINK) $(LDLIBS)

# The main job: bootstrap (deps), build, certify the runtime on the quick
# suite; reports in $(CERTIFY_OUT)/report.txt, report.json, report.xml and
# report.html (--out writes all four).
.PHONY: certify
certify: all
	@mkdir -p $(CERTIFY_OUT)
	$(PLUMB) certify --backend runtime --suite quick --out $(CERTIFY_OUT)

# The HTML report in a real browser: headless Chromium renders the pages of
# runs with planted faults, the DOM and the NetLog are checked, and tidy
# validates them (tests/browser/check_browser.sh). Not part of `make check`
# (Chromium is large); .ci/run runs it. ci/deps.sh --browser installs
# chromium and tidy when they are missing.
.PHONY: check-browser
check-browser: all
	@{ command -v chromium || command -v chromium-headless-shell || command -v chromium-browser; } > /dev/null 2>&1 && \
	  command -v tidy > /dev/null 2>&1 || sh ci/deps.sh --browser
	@BUILD=$(BUILD) PLUMB=$(PLUMB) sh tests/browser/check_browser.sh

-include $(BACKEND_SOS:.so=.d) $(PLUGIN_SOS:.so=.d)

# Benchmarks (bench/, docs/bench.md): `all` builds the program so that the
# smoke test (tests/bench/test_bench.sh, --quick) runs in `make check`;
# `make bench` runs the full measurement and writes $(BUILD)/bench.json.
# Never part of `make check` beyond that smoke run.
BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_OBJS := $(BENCH_SRCS:%.c=$(BUILD)/obj/%.o)
BENCH_BIN  := $(BUILD)/bench/plumb-bench

all: $(BENCH_BIN)

$(BENCH_BIN): $(BENCH_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(BENCH_OBJS) $(LIB) $(LDLIBS)

.PHONY: bench
bench: $(BENCH_BIN)
	nice $(BENCH_BIN) --json $(BUILD)/bench.json
	nice $(BENCH_BIN) --ops --json $(BUILD)/bench-ops.json
	nice $(BENCH_BIN) --suite broad --threads 1 --json $(BUILD)/bench-broad.json

-include $(BENCH_OBJS:.o=.d)

# make install / uninstall: the library, headers, plumb.pc, man page, completion (docs/install.md)
include mk/install.mk
include mk/fuzz.mk
include mk/golden.mk
