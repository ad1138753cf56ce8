# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What every test group's script shares (git's t/test-lib.sh is the model).
# Source it first:
#
#	. "$(dirname "$0")/../lib.sh"
#
# The output protocol, which tests/run.sh reads: one line per case,
#	PASS name
#	FAIL name: why
#	SKIP name: why
# and "# ..." lines of context, shown with the FAIL that follows them.  So
# context goes before its FAIL (show, failx).
#
# Set TEST_PREFIX (e.g. "targets/") before the first case to put it in
# front of every name.  test_done ends the script: exit status 1 if any case
# failed in this shell (tests/run.sh counts the FAIL lines either way).

# Names go through here, so that one prefix serves a whole script.
TEST_PREFIX=${TEST_PREFIX:-}
test_failed=0

pass() { echo "PASS $TEST_PREFIX$1"; }
fail() { echo "FAIL $TEST_PREFIX$1: $2"; test_failed=$((test_failed + 1)); }
skip() { echo "SKIP $TEST_PREFIX$1: $2"; }
note() { echo "# $*"; }

# show FILE [N]: FILE's first N lines (6) as context
show() { [ -s "$1" ] && head -n "${2:-6}" "$1" | sed 's/^/#   /'; return 0; }
# show_tail FILE [N]: its last N lines (12)
show_tail() { [ -s "$1" ] && tail -n "${2:-12}" "$1" | sed 's/^/#   | /'; return 0; }
# failx NAME WHY FILE [N]: FAIL, after FILE's first N lines (12) as context
failx() { show "$3" "${4:-12}"; fail "$1" "$2"; }
# fail_tail NAME WHY FILE [N]: FAIL, after FILE's last N lines (12)
fail_tail() { show_tail "$3" "${4:-12}"; fail "$1" "$2"; }

have() { command -v "$1" >/dev/null 2>&1; }

test_done() { [ "$test_failed" -eq 0 ]; exit $?; }

# need_built PROGRAM...: each must be built, else FAIL setup and stop
need_built()
{
	local t
	for t in "$@"; do
		if [ ! -x "$t" ] || [ -d "$t" ]; then
			fail setup "$t missing (make O=${BUILD:-build} tests)"
			exit 1
		fi
	done
}

# work_dir NAME KEEP: a work directory in $WORK, made the current one, and
# removed at exit unless KEEP is set (then its path is said)
work_dir()
{
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-$1.XXXXXX") || exit 1
	if [ -n "$2" ]; then
		note "work directory: $WORK"
	else
		trap 'rm -rf "$WORK"' EXIT
	fi
	cd "$WORK" || exit 1
}

# load_btf NAME BTF: NAME/load, the running kernel must accept the BTF
# (BPF_BTF_LOAD through tests/tools/btf_load, LOAD): SKIP where it cannot
# be asked, saying why (LOAD_SKIP, if set, says why for the whole script)
load_btf()
{
	local name=$1 out rc
	if [ -n "${LOAD_SKIP:-}" ]; then
		skip "$name/load" "$LOAD_SKIP"
		return
	fi
	if [ ! -x "${LOAD:-}" ]; then
		skip "$name/load" "no ${LOAD:-btf_load}"
		return
	fi
	out=$("$LOAD" "$2" 2>&1)
	rc=$?
	case $rc in
	0) pass "$name/load" ;;
	2) skip "$name/load" "$(tail -n 1 <<<"$out")" ;;
	*) [ -z "$out" ] || tail -n 8 <<<"$out" | sed 's/^/#   /'
	   fail "$name/load" "the kernel rejected the BTF (btf_load exit $rc)" ;;
	esac
}

# filter_expect "TAGS" FILE: the lines of an expectation file whose @tags
# all hold for a build with TAGS (@tag: TAGS has it, @!tag: it has not),
# the tags taken off
filter_expect()
{
	awk -v tags=" $1 " '
	{
		line = $0; ok = 1
		while (match(line, /^@!?[A-Za-z0-9_-]+[ \t]+/)) {
			tag = substr(line, 1, RLENGTH); sub(/[ \t]+$/, "", tag)
			line = substr(line, RLENGTH + 1)
			neg = (substr(tag, 2, 1) == "!")
			name = substr(tag, neg ? 3 : 2)
			has = index(tags, " " name " ") > 0
			if (has == neg) ok = 0
		}
		if (ok) print line
	}' "$2"
}
