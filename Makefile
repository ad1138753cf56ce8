# dwarf2btf — build, test, install.
#
#   make                      library and command, in build/
#   make check                every test (tests/run.sh)
#   make SANITIZE=address,undefined check   the same under sanitizers, in build-san/
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
#   make DEVELOPER=1          developer and CI build: warnings are errors
#   make SHARED=1             the command linked with libdwarf2btf.so, not the archive
#   make abi-update           take the library's exported symbols and ABI as they are now
#   make LTO=0                no link-time optimization (on by default with gcc)
#   make deps                 install build dependencies (Debian, as root)
#   make fuzz                 libFuzzer targets (clang-19), FUZZ_SECONDS=60 each

CC ?= cc
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
# A release build by default: a compiler newer than ours may warn where
# ours does not, and that must not stop a user's build.  DEVELOPER=1 (CI,
# and us) turns warnings into errors.
DEVELOPER ?=

CFLAGS ?= -O3 -g
WARNINGS := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wvla -Wformat=2 \
	    -Wno-missing-field-initializers
ifneq ($(DEVELOPER),)
WARNINGS += -Werror
endif
ALL_CFLAGS := -std=gnu11 $(WARNINGS) -Ilib -D_GNU_SOURCE -pthread -MMD -MP $(CFLAGS)
ALL_LDFLAGS := -pthread $(LDFLAGS)
LIBS := -ldw -lelf -lz

# Link-time optimization of the command, with gcc: the library's objects
# carry their code and gcc's intermediate form both ("fat"), so the tests
# link them as any objects, and the command is optimized across files.
# The link optimizes the whole program as one partition: a faster command
# for a slower link (the figures: tests/bench/README).  make LTO= or LTO=0
# turns it off; it is off with clang and under sanitizers.
LTO ?= $(if $(SANITIZE),,$(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo 1))
ifneq ($(filter-out 0,$(LTO)),)
OBJ_CFLAGS := -flto=auto -ffat-lto-objects
BIN_LDFLAGS := -flto=auto -flto-partition=one
endif

ifneq ($(SANITIZE),)
O ?= $(if $(findstring thread,$(SANITIZE)),build-tsan,build-san)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
else
O ?= build
endif

LIB_SRCS := $(sort $(wildcard lib/*.c lib/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/obj/%.o)
CLI_SRCS := $(sort $(wildcard dwarf2btf/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(O)/obj/%.o)
LIBA := $(O)/libdwarf2btf.a

# The shared library, beside the archive, from the same objects: they are
# compiled -fPIC with -fvisibility=hidden, so that only what lib/dwarf2btf.h
# declares is exported (its "#pragma GCC visibility"), each in the version
# lib/libdwarf2btf.map gives it; -fno-semantic-interposition lets the
# compiler inline a public function as it does a hidden one.  In the
# command and the tests, linked statically, that code is what -fPIE (gcc's
# default on Debian) gives: the library has no global variables to reach
# through a table, and with LTO the command is compiled again as an
# executable anyway.  SOMAJOR changes with any incompatible change of the
# ABI (tests/libso checks it against tests/libso/abi/), SOMINOR with each
# new version node of lib/libdwarf2btf.map (1.1: d2b_btf__load_base).
SOMAJOR := 1
SOMINOR := 1.0
SONAME := libdwarf2btf.so.$(SOMAJOR)
SOLIB := $(O)/$(SONAME).$(SOMINOR)
LIB_MAP := lib/libdwarf2btf.map
LIB_PIC_CFLAGS := -fPIC -fvisibility=hidden -fno-semantic-interposition
VERSION := $(shell sed -n 's/^\#define D2B_VERSION "\(.*\)"/\1/p' dwarf2btf/cli.h)
$(LIB_OBJS): OBJ_CFLAGS += $(LIB_PIC_CFLAGS)
BIN := $(O)/dwarf2btf
PAHOLE_BIN := $(O)/dwarf2btf-pahole

# tests/unit/test_*.c: one program each, linked with the library
# (tests/unit/*_libbpf.c and tests/tools/libbpf_*.c also with libbpf, when present)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(O)/tests/%)
HAVE_LIBBPF := $(shell pkg-config --exists libbpf 2>/dev/null && echo 1)

.PHONY: all check install uninstall clean deps sample tests fuzz soak abi-update
all: $(LIBA) $(SOLIB) $(BIN) $(PAHOLE_BIN)

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(OBJ_CFLAGS) -c -o $@ $<

$(LIBA): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(SOLIB): $(LIB_OBJS) $(LIB_MAP)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=$(LIB_MAP) $(if $(SANITIZE),,-Wl,--no-undefined) -o $@ $(LIB_OBJS) $(LIBS)
	ln -sf $(notdir $@) $(O)/$(SONAME)
	ln -sf $(SONAME) $(O)/libdwarf2btf.so

# make SHARED=1: the command uses the shared library (found beside it, in
# the build, and in LIBDIR once installed), with the same behaviour
ifneq ($(SHARED),)
$(BIN): $(CLI_OBJS) $(SOLIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -o $@ $(CLI_OBJS) -L$(O) -ldwarf2btf \
		-Wl,-rpath,'$$ORIGIN:$(LIBDIR)'
else
$(BIN): $(CLI_OBJS) $(LIBA)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -o $@ $(CLI_OBJS) $(LIBA) $(LIBS)
endif

# the pahole-compatible command line: the same program under another name
$(PAHOLE_BIN): $(BIN)
	ln -sf dwarf2btf $@

$(O)/tests/%: tests/unit/%.c $(LIBA) tests/unit/test.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIBA) $(ALL_LDFLAGS) $(LIBS) \
		$(if $(findstring libbpf,$<),$(shell pkg-config --libs libbpf 2>/dev/null))

$(O)/tests/%: tests/tools/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBA) $(ALL_LDFLAGS) $(LIBS) \
		$(if $(findstring libbpf,$<),$(shell pkg-config --libs libbpf 2>/dev/null))

tests: all $(UNIT_BINS) $(TOOL_BINS)

# Installs missing test dependencies first when run as root (else says how).
check:
	-@tests/install-deps.sh test
	$(MAKE) tests
	tests/run.sh $(O)

# The soak: tests/mutate and tests/kill with the day's seed and more runs
# (tests/soak.sh; make check runs fixed seeds only, the same every day)
soak: tests
	tests/soak.sh $(O)

# make fuzz: the libFuzzer targets tests/fuzz/fuzz_*.c, built with clang-19,
# ASan and UBSan into $(O)/fuzz/, each run for FUZZ_SECONDS (0: build only)
# over its seeds, its regressions and the corpus it grows in $(O)/fuzz/corpus/
# (tests/fuzz/fuzz.sh; tests/fuzz/README).
FUZZ_CC ?= clang-19
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -std=gnu11 -Ilib -D_GNU_SOURCE -pthread -g -O1 -fno-omit-frame-pointer \
	       -fsanitize=address,undefined -fno-sanitize-recover=all -MMD -MP
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(O)/fuzz/obj/%.o)
.SECONDARY: $(FUZZ_LIB_OBJS)

$(O)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(O)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(LIBS)

fuzz: $(FUZZ_BINS) $(BIN) $(O)/tests/btfdump
	tests/fuzz/fuzz.sh $(O) $(FUZZ_SECONDS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/dwarf2btf
	ln -sf dwarf2btf $(DESTDIR)$(BINDIR)/dwarf2btf-pahole
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libdwarf2btf.a
	install -m 755 $(SOLIB) $(DESTDIR)$(LIBDIR)/$(notdir $(SOLIB))
	ln -sf $(notdir $(SOLIB)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libdwarf2btf.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' lib/dwarf2btf.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/dwarf2btf.pc
	install -m 644 lib/dwarf2btf.h $(DESTDIR)$(INCLUDEDIR)/dwarf2btf.h
	install -m 644 man/dwarf2btf.1 $(DESTDIR)$(MANDIR)/man1/dwarf2btf.1
	install -m 644 man/libdwarf2btf.3 $(DESTDIR)$(MANDIR)/man3/libdwarf2btf.3

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/dwarf2btf $(DESTDIR)$(BINDIR)/dwarf2btf-pahole $(DESTDIR)$(LIBDIR)/libdwarf2btf.a \
	      $(DESTDIR)$(INCLUDEDIR)/dwarf2btf.h $(DESTDIR)$(MANDIR)/man1/dwarf2btf.1
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(SOLIB)) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/libdwarf2btf.so $(DESTDIR)$(LIBDIR)/pkgconfig/dwarf2btf.pc \
	      $(DESTDIR)$(MANDIR)/man3/libdwarf2btf.3

# After an intended change of the ABI (with a new version node in
# lib/libdwarf2btf.map, or a new SOMAJOR): record it for tests/libso.
abi-update: $(SOLIB)
	tests/libso/abi.sh update $(SOLIB)

deps:
	tests/install-deps.sh build

# Quick start: build, then convert the shipped sample and print its BTF.
sample:
	tests/install-deps.sh build
	$(MAKE) all
	cp tests/sample/sample.o $(O)/sample.o
	$(BIN) $(O)/sample.o
	$(BIN) --dump $(O)/sample.o

clean:
	rm -rf build build-san build-tsan

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(UNIT_BINS:=.d) $(TOOL_BINS:=.d)
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_BINS:=.d)
