# Coverage-guided fuzz targets (fuzz/targets/, docs/fuzzing-targets.md).
# Included from the Makefile.
#
#   make fuzz-targets   builds every target with clang's libFuzzer and
#                       ASan+UBSan into build/fuzz/ (FUZZ_OUT), through
#                       .clusterfuzzlite/build.sh with the variables
#                       ClusterFuzzLite sets; clang comes from
#                       ci/deps.sh --clang when missing
#   (tests)             builds a replay binary per target with $(CC):
#                       $(BUILD)/fuzz/replay/<target>, the target linked
#                       with replay_main.c instead of libFuzzer, so that
#                       tests/fuzz/test_targets.sh replays every seed corpus
#                       (fuzz/corpus/<target>/) in make check without clang
#
# A target is every fuzz/targets/*.c but the two helpers.
FUZZ_HELPERS   := fuzz/targets/target_util.c fuzz/targets/replay_main.c
FUZZ_TARGETS   := $(sort $(basename $(notdir $(filter-out $(FUZZ_HELPERS),$(wildcard fuzz/targets/*.c)))))
FUZZ_REPLAY    := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/replay/%)
# Internal headers the targets reach: the runtime's disk cache and the
# conformance checker and JSON reader are not public API.
FUZZ_INC       := -Iconformance -Iruntime -Ifuzz/targets
FUZZ_OUT       ?= build/fuzz
FUZZ_SANITIZE  ?= address,undefined
FUZZ_CLANG     ?= clang
FUZZ_CLANGXX   ?= clang++

tests: $(FUZZ_REPLAY)

# One compiler call per binary (three sources): the dependency files of
# -MMD would be named after the temporary objects, so they are left out and
# every header under fuzz/targets/ and include/ is listed instead.
$(BUILD)/fuzz/replay/%: fuzz/targets/%.c $(FUZZ_HELPERS) fuzz/targets/target.h $(wildcard include/plumb/*.h) \
                        $(TESTLIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(FUZZ_INC) -o $@ $< $(FUZZ_HELPERS) $(TESTLIB_LINK) $(LDLIBS)

.PHONY: fuzz-targets
fuzz-targets: | deps
	@command -v $(FUZZ_CLANG) > /dev/null 2>&1 || sh ci/deps.sh --clang
	CC=$(FUZZ_CLANG) CXX=$(FUZZ_CLANGXX) \
	CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=$(FUZZ_SANITIZE) -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" \
	CXXFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=$(FUZZ_SANITIZE) -fno-sanitize-recover=all" \
	LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	SRC=$(CURDIR) OUT=$(abspath $(FUZZ_OUT)) WORK=$(abspath $(FUZZ_OUT))/work \
	sh .clusterfuzzlite/build.sh

# AFL++ (Debian's afl++, ci/deps.sh --afl): the same targets instrumented
# with afl-clang-fast and linked with AFL++'s libFuzzer driver
# (libAFLDriver.a: LLVMFuzzerTestOneInput under afl-fuzz), through the same
# build.sh, into build/fuzz-afl/ (FUZZ_AFL_OUT). FUZZ_AFL_ASAN=1 adds
# AddressSanitizer (AFL_USE_ASAN). fuzz-afl-smoke runs afl-fuzz on every
# target for AFL_SMOKE_SECONDS (default 10) over its seed corpus and fails
# on a crash or a target that executes nothing. Without afl++ both say so
# in one line and succeed. Neither is part of make check.
FUZZ_AFL_OUT   ?= build/fuzz-afl
AFL_DRIVER     ?= /usr/lib/afl/libAFLDriver.a
FUZZ_AFL_ASAN  ?=

.PHONY: fuzz-targets-afl fuzz-afl-smoke
fuzz-targets-afl: | deps
	@if ! command -v afl-clang-fast > /dev/null 2>&1 || [ ! -f $(AFL_DRIVER) ]; then \
	  echo "fuzz-targets-afl: skipped: afl++ is not installed (sh ci/deps.sh --afl)"; exit 0; fi; \
	AFL_USE_ASAN=$(FUZZ_AFL_ASAN) AFL_QUIET=1 CC=afl-clang-fast CXX=afl-clang-fast++ \
	CFLAGS="-O1 -g -fno-omit-frame-pointer" CXXFLAGS="-O1 -g" \
	LIB_FUZZING_ENGINE=$(AFL_DRIVER) \
	SRC=$(CURDIR) OUT=$(abspath $(FUZZ_AFL_OUT)) WORK=$(abspath $(FUZZ_AFL_OUT))/work \
	sh .clusterfuzzlite/build.sh

fuzz-afl-smoke: fuzz-targets-afl
	sh fuzz/afl_smoke.sh $(FUZZ_AFL_OUT)
