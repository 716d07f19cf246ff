#!/usr/bin/env bash
# A second SARIF validator, by hand (not in CI: it needs the network once): the SARIF SDK's
# `sarif validate` (npm @microsoft/sarif-multitool-linux, a self-contained executable) on the
# log of a two-file project checked from its build directory. It runs offline once fetched.
# Usage: bench/sarif/multitool.sh BANKCHECK [WORK_DIR]   (from the repository root)
# The multitool is kept in $SARIF_MULTITOOL_DIR (default ~/.cache/bankcheck/sarif-multitool).
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=${2:-$(mktemp -d)}
version=5.7.0
tool_dir=${SARIF_MULTITOOL_DIR:-$HOME/.cache/bankcheck/sarif-multitool}
tool=$tool_dir/package/Sarif.Multitool
if [ ! -x "$tool" ]; then
  mkdir -p "$tool_dir"
  (cd "$tool_dir" && npm pack --silent "@microsoft/sarif-multitool-linux@$version" >/dev/null &&
     tar xzf "microsoft-sarif-multitool-linux-$version.tgz" && rm -f ./*.tgz)
  chmod +x "$tool"
fi
rm -rf "$work/project" && mkdir -p "$work/project"/{src,lib,build,.git}
cp examples/transpose.cu "$work/project/src/"
cp examples/cmake/tiles.cu "$work/project/lib/"
(cd "$work/project/build" &&
   "$bin" check ../src/transpose.cu ../lib/tiles.cu --blocks 2 --no-progress --format sarif \
     -o "$work/two.sarif")
rm -f "$work/two.validation.sarif"
"$tool" validate "$work/two.sarif" -o "$work/two.validation.sarif" | tee "$work/validate.txt"
# Errors fail the run; warnings (SARIF2005: no informationUri) are shown.
! grep -q ': error ' "$work/validate.txt"
