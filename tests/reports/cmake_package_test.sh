#!/usr/bin/env bash
# `cmake --install` of this build into a scratch prefix, then examples/cmake configured
# with find_package(bankcheck) against it, built, and its CTest run: the padded kernel's
# gate passes, the unpadded one's fails on its gate (WILL_FAIL), which the log must show.
# Usage: cmake_package_test.sh CMAKE CTEST BUILD_DIR WORK_DIR   (from the repository root)
set -euo pipefail
cmake=$1 ctest=$2 build=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/bankcheck"
[ -n "$(find "$work/prefix" -name bankcheckConfig.cmake)" ]
"$cmake" -S examples/cmake -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix"
"$cmake" --build "$work/example"
"$ctest" --test-dir "$work/example" --output-on-failure
log="$work/example/Testing/Temporary/LastTest.log"
if ! grep -q "bankcheck: --fail-on 'ways>1' crossed: 32-way bank conflict at tiles.cu:13" "$log"; then
  echo "cmake_package_test: the unpadded kernel's test did not fail on its gate:" >&2
  cat "$log" >&2
  exit 1
fi
echo "cmake_package_test: installed, found, one gate passed and one crossed as expected"
