# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make               the tools, their man pages and the README's example programs, into build/
# make tests         all that, and the test suites, test programs and benchmarks' programs
# make deps          install the Debian packages the build, tests and demo need
# make test          deps, build, and run every test (tests/run.sh: the Check suites, the
#                    layout and writer checks, the docs, the perf.data fuzzer for
#                    FUZZ_SECONDS, 60 by default)
# make demo          deps, build, and run ldlat-hist on the bundled workload
# make bench         benchmarks (see BENCHMARKS.md); make bench-tools builds their programs
# make install       the tools, tools.conf, man pages, completions and systemd units under
#                    DESTDIR and PREFIX; make uninstall removes them
# make deb           build/ldlat.deb (make check-deb: lintian on it); make tarball
# make test-kernels  the suites that load the BPF program, on Debian's kernels under QEMU
# make test-asan, fuzz, fuzz-cli, test-kill, soak, test-mutants: robustness
#                    (docs/testing-robustness.md); make hwcheck: the hardware self-check
# make check-format, check-deps, check-writers, check-selftest, check-man: the static checks
# make vmlinux       regenerate vmlinux/vmlinux.h from this kernel's BTF
#
# The Makefile by kind: the toolchain and flags, the lists of what is built (one word
# adds a tool, a BPF program, a test program), the rules that build them (pattern rules
# over the lists), generated files, then the targets that run, install and package.
# docs/contributing.md says how to add to each list.

# ---- toolchain and flags ---------------------------------------------------------------

CC	?= gcc
CLANG	?= clang
BPFTOOL	?= bpftool
STRIP	?= llvm-strip
PREFIX	?= /usr/local

BUILD	:= build
OBJ	:= $(BUILD)/obj
ARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-Wno-format-truncation
# One include style: every project header by its path from the top of the
# source tree ("kernel/abi/pmu.h"), or of build/ for what the build generates
# ("bpf/ldlat.skel.h").
CPPFLAGS += -iquote . -iquote $(BUILD)
LDLIBS	:= -lbpf -ldw -lelf -lz -lm -liberty -lcapstone -lprotobuf-c
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-iquote . -iquote $(BUILD)
# the suites' Check
$(OBJ)/tests/%.o: CPPFLAGS += $(shell pkg-config --cflags check 2>/dev/null)
# the programs the tests run include nothing of the project (tests/progs/README.md)
PROG_CFLAGS := -O2 -g -Wall -Wextra -Werror
# ELF files the tests symbolize: with symbols, without optimisations that would merge
# or inline what the tests name
TEST_ELF_CFLAGS := -O1 -g -Wall -Wextra -Werror -Wl,--build-id
# the perf.data reader under libFuzzer and AddressSanitizer (Debian: libclang-rt-14-dev)
FUZZ_CC ?= clang
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

# The version -V, the man pages and the package carry (dist/version.sh): the release
# number in VERSION, then git's distance from it (0.9.0+5.g01fc7b7), a valid Debian
# version; build/version changes only when it does, so a new commit rebuilds what prints it.
VERSION := $(shell sh dist/version.sh .)
ifeq ($(VERSION),)
$(error dist/version.sh printed no version (see its message))
endif
# the man pages are dated by the last commit
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)

# ---- what is built: one list of each kind ------------------------------------------------

# The tools: build/NAME from user/<dir>/NAME.c (ldlat-hist from user/hist/ldlat-hist.c)
# and the library every tool links, build/libldlat.a: kernel/<role>/*.c and the rest of
# user/<role>/*.c (see each folder's README).
TOOLS := ldlat-hist ldlat-top ldlat-stat ldlat-c2c
TOOL_BINS := $(addprefix $(BUILD)/,$(TOOLS))
KERNEL_SRCS := $(wildcard kernel/*/*.c)
USER_LIB_SRCS := $(filter-out $(addprefix %/,$(addsuffix .c,$(TOOLS))),$(wildcard user/*/*.c))
# pprof's profile.proto as Debian ships it (golang-github-google-pprof-dev, Apache-2.0),
# compiled by protoc-c into build/user/report/ for the one pprof writer (user/report/pprof.c)
PPROF_PROTO ?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
PPROF_PB := $(BUILD)/user/report/profile.pb-c
LIB_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(KERNEL_SRCS) $(USER_LIB_SRCS)) \
	$(OBJ)/toolsconf_builtin.o $(OBJ)/$(PPROF_PB).o
LIB := $(BUILD)/libldlat.a

# The BPF programs: bpf/NAME.bpf.c, each an object of its own with its own skeleton
# (build/bpf/NAME.skel.h, struct NAME_bpf).
BPF_PROGS := ldlat c2c
BPF_SKELS := $(patsubst %,$(BUILD)/bpf/%.skel.h,$(BPF_PROGS))

# The benchmarks' programs: build/bench/NAME from bench/NAME.c and the library.
BENCH_TOOLS := ldlat-floor ldlat-logic ldlat-types
BENCH_BINS := $(addprefix $(BUILD)/bench/,$(BENCH_TOOLS))

# The workload with known loads and addresses (tests/progs/workload.c), for the tests,
# the demo, the README's examples and the benchmarks.
WORKLOAD := $(BUILD)/ldlat-workload

# The suites are the files tests/suites/check_*.c: that folder is their one list
# (tests/run.sh runs the same files); each links the test library and the tools'.
TEST_SUITES := $(sort $(basename $(notdir $(wildcard tests/suites/check_*.c))))
TEST_BINS := $(addprefix $(BUILD)/tests/,$(TEST_SUITES))
TEST_LIB_OBJS := $(OBJ)/tests/lib/testutil.o $(OBJ)/tests/lib/perfwrite.o \
	$(OBJ)/tests/lib/clicase.o

# ELF files the tests (and the README's ldlat-top examples) symbolize, built by make:
# build/tests/ldlat-NAME from tests/progs/NAME.c, a library of symprog's, and symprog
# stripped (tests/progs/README.md)
TEST_ELFS := $(BUILD)/tests/ldlat-topprog $(BUILD)/tests/ldlat-symprog \
	$(BUILD)/tests/libldlatsym.so $(BUILD)/tests/ldlat-symprog-stripped
# the data-type tests' builds of tests/progs/typeprog.c (check_types; their rules below)
TYPE_ELFS := $(addprefix $(BUILD)/tests/ldlat-typeprog-,O0 O2 stripped debuglink nodebug remote)
# and of tests/progs/falseshare.c (check_types' ldlat-c2c cases)
FALSESHARE_ELFS := $(addprefix $(BUILD)/tests/ldlat-falseshare-,O0 O2)
# Programs the suites run, built by make tests: build/tests/ldlat-NAME from
# tests/progs/NAME.c, and a library LD_PRELOAD'ed by check_run
TEST_PROGS := $(patsubst %,$(BUILD)/tests/ldlat-%,churn deny bigtouch names dlchurn callprog \
	unwindprog unwindprog-debugframe cxxnames datarows stackprobe) \
	$(BUILD)/tests/libldlatearly.so \
	$(BUILD)/tests/libldlatunwind.so
FUZZ_BIN := $(BUILD)/tests/fuzz-perfdata
GEN_PERFDATA := $(BUILD)/tests/gen-perfdata

# Man pages: each tool's from its --help (section 8), tools.conf's from its comment
# (section 5).
MAN8 := $(addprefix $(BUILD)/man/,$(addsuffix .8,$(TOOLS)))
MAN5 := $(BUILD)/man/tools.conf.5

# The systemd units (user/systemd/): ldlat-hist@NAME.service pins a set at boot,
# ldlat-textfile@NAME.timer refreshes its textfile for node_exporter; ldlat-pprof@NAME.service
# writes a pprof profile per interval, ldlat-pprof-push@NAME.timer sends them with the script
# ldlat-pprof-push (installed in UNIT_LIBEXECDIR, and copied into build/ for the tests);
# docs/fleet.md and docs/pprof.md, which they name, beside them.
UNITS := ldlat-hist@.service ldlat-textfile@.service ldlat-textfile@.timer \
	ldlat-pprof@.service ldlat-pprof-push@.service ldlat-pprof-push@.timer
UNIT_SCRIPTS := ldlat-pprof-push
UNIT_DOCS := docs/fleet.md docs/pprof.md

.PHONY: all workload tests bench-tools
all: $(TOOL_BINS) $(MAN8) $(MAN5) $(WORKLOAD) $(TEST_ELFS) $(addprefix $(BUILD)/,$(UNIT_SCRIPTS))
workload: $(WORKLOAD)
tests: all $(WORKLOAD) $(TEST_BINS) $(TEST_ELFS) $(TEST_PROGS) $(TYPE_ELFS) $(FALSESHARE_ELFS) $(FUZZ_BIN) $(GEN_PERFDATA) \
	$(BENCH_BINS)
bench-tools: all $(WORKLOAD) $(BENCH_BINS)

# ---- how: pattern rules over the lists ----------------------------------------------------

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c vmlinux/vmlinux.h $(BUILD)/bpf/perf_mem_defs.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(STRIP) -g $@
# the headers each program includes
$(BUILD)/bpf/ldlat.bpf.o: bpf/ldlat.h bpf/ldlat_read.h bpf/ldlat_pin.h bpf/unwind.h
$(BUILD)/bpf/c2c.bpf.o: bpf/c2c.h bpf/ldlat.h bpf/ldlat_read.h

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(OBJ)/%.o: %.c | $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# made anew: a member of a source file renamed or removed would stay and be linked twice
$(LIB): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# a tool's main is user/<its name less "ldlat-">/<its name>.c: user/hist/ldlat-hist.c
$(foreach t,$(TOOLS),$(eval $(BUILD)/$(t): $(OBJ)/user/$(t:ldlat-%=%)/$(t).o $(LIB)))
$(TOOL_BINS):
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/bench/%: $(OBJ)/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/check_%: $(OBJ)/tests/suites/check_%.o $(TEST_LIB_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter-out $(LIB),$^) $(LIB) $(LDLIBS) $$(pkg-config --libs check) -o $@

# modules one suite links beyond the test library (tests/suites/README.md):
# libpfm4's encodings, the independent oracle (kernel/abi/pfm.c opens libpfm4 when a
# vendor event name is first encoded, as ldlat-stat does); ldlat-top --input's cases;
# --output's files
$(BUILD)/tests/check_pfm: $(OBJ)/tests/lib/pfm_oracle.o
$(BUILD)/tests/check_top: $(OBJ)/tests/suites/top_input.o
$(BUILD)/tests/check_output: $(OBJ)/tests/suites/output_file.o
# the unwind tables' oracle: readelf's frames
$(BUILD)/tests/check_unwind: $(OBJ)/tests/suites/unwind_oracle.o

# A test program: PROG_CFLAGS and PROG_LDLIBS, set below where one differs.
$(BUILD)/tests/ldlat-%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) $< $(PROG_LDLIBS) -o $@

$(BUILD)/tests/lib%.so:
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fPIC -shared $(filter %.c,$^) $(PROG_LDLIBS) -o $@

# stripped, its debug info under tests/debug/.build-id/xx/rest.debug (no debuglink)
$(BUILD)/tests/%-stripped: $(BUILD)/tests/%
	id=$$(readelf -n $< | sed -n 's/.*Build ID: *//p'); test -n "$$id" && \
	mkdir -p $(BUILD)/tests/debug/.build-id/$${id%$${id#??}} && \
	objcopy --only-keep-debug $< $(BUILD)/tests/debug/.build-id/$${id%$${id#??}}/$${id#??}.debug && \
	objcopy --strip-all $< $@

# What differs from one test program to another ("private": not passed on to what
# the program needs built first).
$(BUILD)/tests/ldlat-topprog $(BUILD)/tests/ldlat-symprog $(BUILD)/tests/ldlat-bigtouch \
$(BUILD)/tests/ldlat-names: private PROG_CFLAGS := $(TEST_ELF_CFLAGS) -fPIE -pie
$(BUILD)/tests/libldlatsym.so: private PROG_CFLAGS := $(TEST_ELF_CFLAGS)
$(BUILD)/tests/libldlatsym.so: tests/progs/symlib.c
$(BUILD)/tests/ldlat-symprog: $(BUILD)/tests/libldlatsym.so
$(BUILD)/tests/ldlat-symprog: private PROG_LDLIBS := -L$(BUILD)/tests -lldlatsym \
	-Wl,-rpath,'$$ORIGIN'
# a process whose threads come and go (-p)
$(BUILD)/tests/ldlat-churn: private PROG_CFLAGS := $(PROG_CFLAGS) -pthread
# -O0: a frame pointer in every function, leaves too (gcc 12 at -O1 leaves a leaf without one,
# whatever -mno-omit-leaf-frame-pointer says), so the kernel's walk of the user stack sees
# every frame
$(BUILD)/tests/ldlat-callprog: private PROG_CFLAGS := -O0 -g -fno-omit-frame-pointer -Wall \
	-Wextra -Werror
# without frame pointers, as Debian builds its packages: no frame-pointer walk finds
# the callers (--call-graph dwarf); a library called through the PLT; and the same
# program with its rules in .debug_frame, not .eh_frame (but the C runtime's)
UNWIND_PROG_CFLAGS := -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -Wl,--build-id
$(BUILD)/tests/libldlatunwind.so: tests/progs/unwindlib.c
$(BUILD)/tests/libldlatunwind.so: private PROG_CFLAGS := $(UNWIND_PROG_CFLAGS)
$(BUILD)/tests/ldlat-unwindprog: $(BUILD)/tests/libldlatunwind.so
$(BUILD)/tests/ldlat-unwindprog $(BUILD)/tests/ldlat-unwindprog-debugframe: \
	private PROG_LDLIBS := -pthread -L$(BUILD)/tests -lldlatunwind -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/ldlat-unwindprog: private PROG_CFLAGS := $(UNWIND_PROG_CFLAGS)
$(BUILD)/tests/ldlat-unwindprog-debugframe: tests/progs/unwindprog.c \
		$(BUILD)/tests/libldlatunwind.so
	$(CC) $(UNWIND_PROG_CFLAGS) -fno-asynchronous-unwind-tables -fno-unwind-tables $< \
		$(PROG_LDLIBS) -o $@
# a frame probed a page at a time, each probe's fault at SP: a sample with no stack to copy
$(BUILD)/tests/ldlat-stackprobe: private PROG_CFLAGS := -O1 -g -fno-omit-frame-pointer \
	-fstack-clash-protection -Wall -Wextra -Werror
# data rows beside perf's (check_top): an executable linked at a fixed address
$(BUILD)/tests/ldlat-datarows: private PROG_CFLAGS := $(PROG_CFLAGS) -fno-pie -no-pie
# C++ names and libc's aliases beside perf's (check_top): C++, with frame pointers
$(BUILD)/tests/ldlat-cxxnames: tests/progs/cxxnames.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -Wl,--build-id $< -o $@
# LD_PRELOAD'ed by check_run: a signal raised in the tools' argument parsing
$(BUILD)/tests/libldlatearly.so: tests/progs/early_signal.c
$(BUILD)/tests/libldlatearly.so: private PROG_LDLIBS := -ldl

# ldlat-typeprog: fields of known layouts (tests/progs/typeprog.c and its C++ part
# typeclass.cc) at -O0 and -O2 with -g; the -O2 one stripped with its debug info by build ID
# (as the %-stripped rule) and with a .gnu_debuglink to the file beside it; without debug
# info; and a build of its own (another build ID) whose debug info only a debuginfod server
# has (tests/debuginfod/; .full, unstripped, is the tests' oracle)
TYPEPROG_SRCS := tests/progs/typeprog.c tests/progs/typeclass.cc
typeprog = mkdir -p $(dir $(2)) && $(CXX) -Wall -Wextra -Werror -fno-stack-clash-protection \
	-Wl,--build-id $(1) -x c tests/progs/typeprog.c -x c++ tests/progs/typeclass.cc -o $(2)
$(BUILD)/tests/ldlat-typeprog-O0 $(BUILD)/tests/ldlat-typeprog-O2 \
$(BUILD)/tests/ldlat-typeprog-nodebug $(BUILD)/tests/ldlat-typeprog-remote: $(TYPEPROG_SRCS)
$(BUILD)/tests/ldlat-typeprog-O0:
	$(call typeprog,-O0 -g,$@)
$(BUILD)/tests/ldlat-typeprog-O2:
	$(call typeprog,-O2 -g,$@)
$(BUILD)/tests/ldlat-typeprog-nodebug:
	$(call typeprog,-O2,$@)
$(BUILD)/tests/ldlat-typeprog-stripped: $(BUILD)/tests/ldlat-typeprog-O2
	id=$$(readelf -n $< | sed -n 's/.*Build ID: *//p'); test -n "$$id" && \
	mkdir -p $(BUILD)/tests/debug/.build-id/$${id%$${id#??}} && \
	objcopy --only-keep-debug $< $(BUILD)/tests/debug/.build-id/$${id%$${id#??}}/$${id#??}.debug && \
	objcopy --strip-all $< $@
$(BUILD)/tests/ldlat-typeprog-debuglink: $(BUILD)/tests/ldlat-typeprog-O2
	objcopy --only-keep-debug $< $@.debug
	objcopy --strip-all --add-gnu-debuglink=$@.debug $< $@
$(BUILD)/tests/ldlat-typeprog-remote:
	@mkdir -p $(BUILD)/tests/debuginfod
	$(call typeprog,-O2 -g -DTYPEPROG_VARIANT='"remote"',$@.full)
	objcopy --only-keep-debug $@.full $(BUILD)/tests/debuginfod/ldlat-typeprog-remote.debug
	objcopy --strip-all $@.full $@

# ldlat-falseshare: two threads writing two fields of one cache line, at -O0 and -O2 with -g
$(FALSESHARE_ELFS): $(BUILD)/tests/ldlat-falseshare-%: tests/progs/falseshare.c
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -$* $< -pthread -o $@

$(WORKLOAD): tests/progs/workload.c | $(BUILD)
	$(CC) $(PROG_CFLAGS) $< -o $@

$(GEN_PERFDATA): $(OBJ)/tests/progs/gen_perfdata.o $(OBJ)/tests/lib/perfwrite.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@

$(FUZZ_BIN): tests/fuzz/fuzz_perfdata.c kernel/abi/perfdata.c kernel/abi/perfdata.h \
	     kernel/lib/err.c kernel/lib/err.h kernel/lib/unctrl.c kernel/lib/unctrl.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -iquote . \
		tests/fuzz/fuzz_perfdata.c kernel/abi/perfdata.c kernel/lib/err.c \
		kernel/lib/unctrl.c -o $@

$(BUILD):
	mkdir -p $@

$(addprefix $(BUILD)/,$(UNIT_SCRIPTS)): $(BUILD)/%: user/systemd/%
	@mkdir -p $(dir $@)
	install -m 0755 $< $@

# ---- generated files ----------------------------------------------------------------------

# profile.proto into protobuf-c's code (PPROF_PROTO, PPROF_PB: with the library's list)
$(PPROF_PB).h: $(PPROF_PB).c
$(PPROF_PB).c: $(PPROF_PROTO)
	@mkdir -p $(dir $@)
	protoc-c --proto_path=$(dir $<) --c_out=$(dir $@) $(notdir $<)
	touch $(PPROF_PB).h
$(OBJ)/$(PPROF_PB).o: $(PPROF_PB).c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(OBJ)/user/report/pprof.o: $(PPROF_PB).h

# The PERF_MEM_* macros of the UAPI header, for the BPF build (vmlinux.h and
# <linux/perf_event.h> cannot be included together).
$(BUILD)/bpf/perf_mem_defs.h:
	@mkdir -p $(dir $@)
	echo '#include <linux/perf_event.h>' | $(CC) -E -dM -x c - | \
		grep -E '^#define PERF_MEM_' | LC_ALL=C sort > $@.tmp
	test -s $@.tmp && mv $@.tmp $@

$(BUILD)/version: FORCE
	@mkdir -p $(BUILD)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(OBJ)/user/run/modes.o: $(BUILD)/version
$(OBJ)/user/run/modes.o: CPPFLAGS += -DLDLAT_VERSION='"$(VERSION)"'
.PHONY: FORCE
FORCE:

# tools.conf built into the tools: the table a binary copied on its own reads
# (a tools.conf file still comes first: user/run/toolsconf.h)
$(BUILD)/toolsconf_builtin.c: tools.conf
	@mkdir -p $(dir $@)
	{ echo '/* generated from tools.conf by make */'; \
	  echo 'const char toolsconf_builtin[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@
$(OBJ)/toolsconf_builtin.o: $(BUILD)/toolsconf_builtin.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/man/%.8: $(BUILD)/% dist/mkman.py
	@mkdir -p $(dir $@)
	python3 dist/mkman.py tool $< '$(VERSION)' $(MAN_DATE) $@
$(MAN5): tools.conf dist/mkman.py $(BUILD)/version
	@mkdir -p $(dir $@)
	python3 dist/mkman.py conf $< '$(VERSION)' $(MAN_DATE) $@

.PHONY: vmlinux
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h

# ---- static checks ------------------------------------------------------------------------

.PHONY: check-format check-deps check-writers check-selftest check-man
# Debian 12's clang-format (14) with the committed .clang-format; make test runs it.
# The files git knows of, tracked or new and not ignored, that are still on disk
# (as tests/sources.py lists them for check-deps and check-writers).
FORMAT_SRCS = $(filter-out vmlinux/%,$(sort $(wildcard $(shell \
	git ls-files --cached --others --exclude-standard '*.[ch]' 2>/dev/null || \
	find bpf kernel user tests bench -name '*.[ch]'))))
check-format:
	clang-format --dry-run --Werror $(FORMAT_SRCS)
	@echo "check-format: $(words $(FORMAT_SRCS)) files as .clang-format wants them"

# The dependency rule of the layout (tests/deps.py; each folder's README.md)
check-deps:
	python3 tests/deps.py

# One writer per format: JSON in user/report/json.c, OpenMetrics in user/report/openmetrics.c,
# text tables in user/report/table.c (tests/writers.py)
check-writers:
	python3 tests/writers.py

# That check-deps and check-writers fail, naming the file, on each violation
# planted in a copy of the tree (tests/checks_selftest.py)
check-selftest:
	python3 tests/checks_selftest.py

check-man: $(MAN8) $(MAN5)
	@out=$$(mandoc -T lint $^ 2>&1); test -z "$$out" || { echo "$$out" >&2; exit 1; }
	@echo "check-man: $(words $^) pages, mandoc -T lint clean"

# ---- running the tests --------------------------------------------------------------------

.PHONY: test fuzz test-kernels hwcheck check-hwcheck asan-tests test-asan fuzz-cli test-kill \
	soak test-mutants
test: deps
	$(MAKE) tests
	tests/run.sh

# the fuzzer alone, longer: make fuzz FUZZ_SECONDS=600
FUZZ_SECONDS ?= 60
fuzz: $(FUZZ_BIN)
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/fuzz.sh

# Debian's own kernels (6.1, 6.12, 5.10) booted under QEMU with the suites that
# load the BPF program run inside each (tests/kernels.sh; docs/kernels.md).
# LDLAT_KERNELS="6.1" picks kernels; packages are cached in /var/cache/ldlat/kernels.
test-kernels: tests
	tests/kernels.sh

# The hardware self-check: on a machine with a load-latency PMU, the pointer
# chase under ldlat-hist and under perf mem record (perf mem report and perf
# script read it), class by class (shares,
# p50, p90), a verdict table and build/hwcheck-report.txt to attach to a bug;
# without one, a line saying so (tests/hwcheck.py, docs/hardware.md).
# HWCHECK_ARGS='--keep DIR' keeps perf's recording, '--seconds S' sets the chase's
# length.  check-hwcheck compares the Skylake-SP recording both ways and tests
# the comparison on recorded inputs, no PMU needed.
hwcheck: tests
	python3 tests/hwcheck.py $(HWCHECK_ARGS)

check-hwcheck: tests
	python3 tests/hwcheck_check.py

# Robustness (docs/testing-robustness.md):
# make test-asan     the tools and every suite built with AddressSanitizer and
#                    UndefinedBehaviorSanitizer in build-asan/, the suites run on
#                    them, then the command-line fuzzer for CLI_FUZZ_SECONDS
# make fuzz-cli      the command-line fuzzer alone, on $(BUILD) (CLI_FUZZ_SECONDS)
# make test-kill     SIGINT/SIGTERM/SIGKILL at random points of runs (KILL_TRIALS)
# make soak          ldlat-top under exec and dlopen churn for SOAK_SECONDS: RSS flat
# make test-mutants  mutations of the core against the suites, and the kill rate
#                    (MUTANTS=all, or a number: a sample of that many)
ASAN_BUILD := build-asan
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
# CK_MAX_MSG_SIZE: a failed check's message holds the tool's stderr, a sanitizer's report in it
SAN_ENV := LDLAT_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	CK_TIMEOUT_MULTIPLIER=4 CK_MAX_MSG_SIZE=32768
CLI_FUZZ_SECONDS ?= 120
KILL_TRIALS ?= 40
KILL_BUILD ?= $(BUILD)
SOAK_SECONDS ?= 600
MUTANTS ?= all
# on a shared machine: MUTANTS_LOCK=/tmp/ldlat-tests.lock (held by each root suite, not the builds)
MUTANTS_LOCK ?=
asan-tests:
	CFLAGS="$(ASAN_CFLAGS)" $(MAKE) BUILD=$(ASAN_BUILD) tests
test-asan: deps
	$(MAKE) asan-tests
	$(SAN_ENV) LDLAT_BUILD=$(CURDIR)/$(ASAN_BUILD) tests/run.sh $(TEST_SUITES)
	$(SAN_ENV) python3 tests/fuzz/cli_fuzz.py --build $(ASAN_BUILD) --seconds $(CLI_FUZZ_SECONDS)
fuzz-cli: tests
	python3 tests/fuzz/cli_fuzz.py --build $(BUILD) --seconds $(CLI_FUZZ_SECONDS)
test-kill: tests
	$(SAN_ENV) python3 tests/kill/kill_test.py --build $(KILL_BUILD) --trials $(KILL_TRIALS)
soak: tests
	python3 tests/soak/soak.py --build $(BUILD) --seconds $(SOAK_SECONDS)
test-mutants: tests
	python3 tests/mutants/mutants.py --mutants $(MUTANTS) $(if $(MUTANTS_LOCK),--lock $(MUTANTS_LOCK))

# ---- the demo, the benchmarks, the packages they need -------------------------------------

.PHONY: deps demo bench
# Debian packages: to build, to test, and to run the demo and benchmarks.
BUILD_DEPS := make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config check libpfm4-dev libiberty-dev \
	linux-libc-dev libdw-dev libcapstone-dev binutils python3 libprotobuf-c-dev \
	protobuf-c-compiler golang-github-google-pprof-dev
TEST_DEPS := jq python3 clang-format prometheus valgrind linux-perf bpftrace time libclang-rt-14-dev \
	libpfm4-dev util-linux prometheus-node-exporter python3-prometheus-client curl systemd \
	qemu-system-x86 busybox-static cpio kmod xz-utils \
	mandoc lintian bash-completion dpkg-dev stress-ng chromium debootstrap dwarves debuginfod g++ \
	golang-go
deps:
	@missing=""; for p in $(BUILD_DEPS) $(TEST_DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || \
			missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all installed"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "deps: missing Debian packages:$$missing" >&2; \
		echo "deps: install them as root: apt-get install$$missing" >&2; exit 1; \
	fi; \
	echo "deps: installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1 || \
	{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $$missing; } || \
	{ echo "deps: apt-get failed; install by hand:$$missing" >&2; exit 1; }

demo: deps
	$(MAKE) all workload
	tests/demo.sh

bench: deps
	$(MAKE) bench-tools
	bench/run.sh

# ---- install, packages, tarball -----------------------------------------------------------

.PHONY: install install-units uninstall deb check-deb tarball clean
# make install / uninstall: PREFIX and DESTDIR are read here, at install time;
# nothing of PREFIX is compiled into the tools (they find tools.conf next to
# themselves, else use their built-in copy).
BINDIR = $(DESTDIR)$(PREFIX)/bin
DATADIR = $(DESTDIR)$(PREFIX)/share
COMPLETIONS = $(DATADIR)/bash-completion/completions
# UNIT_BINDIR: where the units find ldlat-hist; UNIT_LIBEXECDIR: the scripts only units
# run, ldlat-pprof-push (check_fleet points both at build/ to verify and run them).
UNITDIR ?= $(PREFIX)/lib/systemd/system
UNIT_BINDIR ?= $(PREFIX)/bin
UNIT_LIBEXECDIR ?= $(PREFIX)/lib/ldlat
DOCDIR ?= $(PREFIX)/share/doc/ldlat
install: all install-units
	install -d $(BINDIR) $(DATADIR)/ldlat $(DATADIR)/man/man8 $(DATADIR)/man/man5 $(COMPLETIONS)
	install -m 0755 $(TOOL_BINS) $(BINDIR)
	install -m 0644 tools.conf $(DATADIR)/ldlat/tools.conf
	install -m 0644 $(MAN8) $(DATADIR)/man/man8
	install -m 0644 $(MAN5) $(DATADIR)/man/man5
	install -m 0644 dist/ldlat.bash $(COMPLETIONS)/ldlat-hist
	for t in $(filter-out ldlat-hist,$(TOOLS)); do ln -sf ldlat-hist $(COMPLETIONS)/$$t; done
install-units:
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)
	for u in $(UNITS); do \
		sed -e 's|@BINDIR@|$(UNIT_BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
			-e 's|@LIBEXECDIR@|$(UNIT_LIBEXECDIR)|g' user/systemd/$$u \
			> $(DESTDIR)$(UNITDIR)/$$u.tmp && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$$u.tmp $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -m 0644 $(UNIT_DOCS) $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(UNIT_LIBEXECDIR)
	install -m 0755 $(addprefix user/systemd/,$(UNIT_SCRIPTS)) $(DESTDIR)$(UNIT_LIBEXECDIR)/
uninstall:
	rm -f $(addprefix $(BINDIR)/,$(TOOLS)) $(DATADIR)/ldlat/tools.conf \
		$(addprefix $(DATADIR)/man/man8/,$(addsuffix .8,$(TOOLS))) \
		$(DATADIR)/man/man5/tools.conf.5 $(addprefix $(COMPLETIONS)/,$(TOOLS))
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(UNIT_DOCS))) \
		$(addprefix $(DESTDIR)$(UNIT_LIBEXECDIR)/,$(UNIT_SCRIPTS))
	-rmdir $(DATADIR)/ldlat $(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNIT_LIBEXECDIR) 2>/dev/null

# make deb: build/ldlat.deb, to install with dpkg -i (dist/mkdeb.sh); make
# check-deb runs lintian on it.
DEB_STAGE := $(BUILD)/deb
deb: all
	rm -rf $(DEB_STAGE)
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DEB_STAGE)) PREFIX=/usr >/dev/null
	dist/mkdeb.sh $(DEB_STAGE) '$(VERSION)' $(BUILD)/ldlat.deb
check-deb: deb
	lintian --fail-on error,warning $(BUILD)/ldlat.deb
	@echo "check-deb: lintian finds no error or warning"

# make tarball: the committed tree (HEAD, so never .dirty) as build/ldlat-VERSION.tar.gz,
# with the .tarball-version that dist/version.sh reads first
TARBALL_VERSION = $(shell sh dist/version.sh --committed .)
tarball:
	rm -rf $(BUILD)/dist && mkdir -p $(BUILD)/dist/ldlat-$(TARBALL_VERSION)
	echo '$(TARBALL_VERSION)' > $(BUILD)/dist/ldlat-$(TARBALL_VERSION)/.tarball-version
	git archive --prefix=ldlat-$(TARBALL_VERSION)/ -o $(BUILD)/ldlat-$(TARBALL_VERSION).tar HEAD
	tar -rf $(BUILD)/ldlat-$(TARBALL_VERSION).tar -C $(BUILD)/dist \
		ldlat-$(TARBALL_VERSION)/.tarball-version
	gzip -9nf $(BUILD)/ldlat-$(TARBALL_VERSION).tar
	@echo $(BUILD)/ldlat-$(TARBALL_VERSION).tar.gz

clean:
	rm -rf $(BUILD)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
.SECONDARY:
