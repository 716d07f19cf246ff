#!/bin/bash
# The include rules of docs/architecture.md, checked: a layer includes only the headers of
# the layers below it. Usage: layering.sh SOURCE_DIR. Prints every include that breaks a
# rule and exits 1 when there is one.
set -u
root=$1
# layer: the bankcheck/<dir>/ headers it may include (its own included).
declare -A allowed=(
  [model]="model"
  [ptx]="ptx"
  [explain]="model explain"
  [emu]="model ptx emu"
  [sass]="sass model/sass_family.hpp"
  [analysis]="model ptx explain emu/events.hpp sass analysis"
  [report]="model ptx analysis report version.hpp"
  [driver]="model ptx explain emu sass analysis driver"
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
exit $bad
