#!/bin/bash
# The layer rules of docs/architecture.md, checked: a layer includes only the headers of
# the layers below it, and its libraries link only to libraries of those layers (a header
# a layer may include alone, such as emu/events.hpp, allows no link). Usage: layering.sh
# SOURCE_DIR. Prints every include and link that breaks a rule and exits 1 when there is one.
set -u
root=$1
# layer: the bankcheck/<dir>/ headers it may include (its own included).
declare -A allowed=(
  [model]="model"
  [nvtx]="nvtx"
  [ptx]="ptx"
  [explain]="model explain"
  [emu]="model ptx emu"
  [sass]="sass model/sass_family.hpp"
  [analysis]="model ptx explain emu/events.hpp sass analysis"
  [report]="model ptx analysis report version.hpp"
  [driver]="model ptx explain emu sass analysis driver"
  [runtime]="model ptx explain emu sass analysis report driver nvtx runtime"
  [device]="model ptx explain emu sass analysis report driver nvtx runtime device"
  [launch]="model ptx explain emu sass analysis report driver nvtx runtime launch"
)
bad=0
for layer in "${!allowed[@]}"; do
  for f in $(find "$root/include/bankcheck/$layer" "$root/src/$layer" -type f 2>/dev/null); do
    while IFS= read -r inc; do
      target=${inc#bankcheck/}
      ok=0
      for a in ${allowed[$layer]}; do
        case $a in
          *.hpp) [ "$target" = "$a" ] && ok=1 ;;
          *) [ "${target%%/*}" = "$a" ] && ok=1 ;;
        esac
      done
      if [ $ok = 0 ]; then
        echo "${f#$root/}: includes $inc ($layer may include: ${allowed[$layer]})"
        bad=1
      fi
    done < <(sed -n 's/^#include "\(bankcheck\/[^"]*\)".*/\1/p' "$f")
  done
done
# The libraries of src/CMakeLists.txt, by layer.
declare -A layer_of=(
  [bankcheck_model]=model [bankcheck_ptx]=ptx [bankcheck_ir]=ptx [bankcheck_explain]=explain
  [bankcheck_emu]=emu [bankcheck_sass]=sass [bankcheck_analysis]=analysis
  [bankcheck_report]=report [bankcheck_driver]=driver [bankcheck_check]=driver
  [bankcheck_runtime_core]=runtime [bankcheck_cuda]=runtime [bankcheck_nvtx_ranges]=runtime [bankcheck_run_agent]=runtime
  [bankcheck_device_core]=device [bankcheck_gpu]=device
  [bankcheck_nvtx]=nvtx [bankcheck_nvtx_client]=nvtx
  [bankcheck_launch]=launch
)
# target_link_libraries(TARGET [PUBLIC|PRIVATE|INTERFACE] LIBS...), possibly over lines.
links=$(sed -e 's/#.*//' "$root"/src/CMakeLists.txt "$root"/src/*/CMakeLists.txt "$root/CMakeLists.txt" |
        tr '\n' ' ' | grep -o 'target_link_libraries([^)]*)' || true)
while IFS= read -r call; do
  [ -z "$call" ] && continue
  set -- $(echo "$call" | sed -e 's/target_link_libraries(//' -e 's/)//')
  target=$1
  shift
  from=${layer_of[$target]:-}
  [ -z "$from" ] && continue
  for lib in "$@"; do
    to=${layer_of[$lib]:-}
    [ -z "$to" ] && continue  # PUBLIC, PRIVATE, external libraries
    ok=0
    for a in ${allowed[$from]}; do
      [ "$a" = "$to" ] && ok=1
    done
    if [ $ok = 0 ]; then
      echo "CMake: $target links $lib ($from may link: ${allowed[$from]//emu\/events.hpp/})"
      bad=1
    fi
  done
done <<< "$links"
exit $bad
