#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The library's layering (tests/layers/layers.py): each lib/ folder uses
# only itself and the folders that the graph of lib/README (layers.py's
# USES) gives it, and every one of them, by its includes and by the
# symbols of the built objects; no call cycle between the files of a
# folder; no file in lib/ over 1,200 lines; every README of lib/, tests/,
# dwarf2btf/ and examples/ names the files of its folder.  First the
# checks check themselves on made-up trees.
#
#	tests/layers/run.sh BUILD_DIR

set -u

build=${1:?usage: tests/layers/run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../lib.sh"

for tool in python3 nm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		skip layers "$tool not found"
		exit 0
	fi
done

rc=0
python3 "$here/layers.py" --self-test || rc=1
python3 "$here/layers.py" "$src" "$build" || rc=1
exit $rc
