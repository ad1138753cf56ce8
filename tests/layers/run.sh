#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The library's layering (tests/layers/layers.py): lib/ folders use only
# themselves and the folders below them, by their includes and by the
# symbols of the built objects; no call cycle between the files of a
# folder; no file in lib/ over 1,200 lines.  First the checks check
# themselves on made-up trees.
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
