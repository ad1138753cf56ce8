# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The selftests' Makefile (build-selftests.sh runs make -f this file in
# tools/testing/selftests/bpf), with test_progs linked statically: it runs
# in a busybox initramfs without a C library.  A target-specific variable:
# nothing else of the build changes (veristat, a prerequisite, is linked
# statically too).

include Makefile

$(OUTPUT)/test_progs: LDFLAGS += -static
