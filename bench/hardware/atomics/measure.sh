# One corpus's measurement, shared by atomics/run.sh and matrix/run.sh (sourced; defines
# `measure`): compile the probe, check its SASS, keep the metrics this Nsight Compute
# knows, and run ncu over the patterns in chunks within a time budget.
#
# The caller sets: here (its folder, holding patterns.txt and the probe source), out,
# corpus (the output files' prefix), source (the probe .cu), ignore (a regex of SASS
# mnemonics the check skips, may be empty), required (metrics known on the H100, one a
# line), optional (used only if the listing has them), discover (a regex: further base
# names taken from the listing, may be empty).
# Environment: BUDGET_S, CHUNK, QUERY_METRICS, PATTERNS (see run.sh).

measure() {
  local tools budget chunk start work patterns total
  tools=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  budget=${BUDGET_S:-180}
  chunk=${CHUNK:-200}
  patterns=${PATTERNS:-$here/patterns.txt}
  start=$(date +%s)
  mkdir -p "$out"
  work=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" EXIT
  total=$(grep -vc '^#' "$patterns")
  echo "[$corpus] $total patterns, budget ${budget} s, chunks of $chunk"

  nvcc -arch=sm_90 -O3 -lineinfo -o "$work/probe" "$here/$source"
  echo "[$corpus] compiled in $(( $(date +%s) - start )) s"

  # The SASS check: exactly the intended shared-memory instruction(s) per kernel.
  local sass="$out/${corpus}_sass.txt"
  if ! cuobjdump -sass "$work/probe" > "$sass" 2>&1; then
    echo "[$corpus] cuobjdump failed; forms unknown"
  fi
  python3 "$tools/sass_check.py" "$here/$source" "$sass" ${ignore:+--ignore "$ignore"} \
    > "$work/check.txt" || echo "[$corpus] sass_check failed"
  cat "$work/check.txt" >> "$sass"
  grep -E '^sass-check' "$work/check.txt" | sed "s/^/[$corpus] /" || true

  # Metrics: the required ones, then those of the listing asked for.
  local listing=${QUERY_METRICS:-$work/query.txt}
  if [[ -z ${QUERY_METRICS:-} ]]; then
    ncu --query-metrics > "$listing" 2>&1 || echo "[$corpus] ncu --query-metrics failed"
  fi
  awk '{print $1}' "$listing" 2>/dev/null | grep -E '^[a-z0-9]+__[a-z0-9_]+$' | sort -u \
    > "$work/names.txt" || true
  local metrics m
  metrics=$(echo "$required" | paste -sd, -)
  local extra=""
  for m in $optional; do
    if grep -qx "${m%.sum}" "$work/names.txt"; then extra="$extra $m"; fi
  done
  if [[ -n $discover ]]; then
    for m in $(grep -E "$discover" "$work/names.txt" | grep -E '^(l1tex|smsp)__' || true); do
      case " $extra " in *" $m.sum "*) ;; *) extra="$extra $m.sum" ;; esac
    done
  fi
  # At most MAX_EXTRA (16) extra metrics: each few more cost ncu another replay pass per launch.
  extra=$(echo "$extra" | tr ' ' '\n' | grep -v '^$' | head -"${MAX_EXTRA:-16}" | paste -sd, - || true)
  # A metric this ncu refuses would fail every chunk: try them on one launch first, drop
  # those its error names (up to three rounds), else keep the required ones only.
  awk '!/^#/ { print; exit }' "$patterns" > "$work/first.txt"
  local round named
  for round in 1 2 3 4; do
    [[ -n $extra ]] || break
    rm -f "$work/dry.csv"
    if timeout 120 ncu --csv --metrics "$metrics,$extra" --log-file "$work/dry.csv" \
        "$work/probe" "$work/first.txt" > "$work/dry.log" 2>&1; then
      metrics="$metrics,$extra"
      extra=""
      break
    fi
    named=""
    grep -hi error "$work/dry.log" "$work/dry.csv" > "$work/dry.err" 2>/dev/null || true
    for m in ${extra//,/ }; do
      if grep -qF "${m%.sum}" "$work/dry.err"; then named="$named $m"; fi
    done
    echo "[$corpus] ncu refused a metric (round $round), dropping:${named:- all extras}"
    tail -3 "$work/dry.log" || true
    if [[ -z $named || $round == 4 ]]; then extra=""; break; fi
    for m in $named; do extra=$(echo ",$extra," | sed "s/,$m,/,/; s/^,//; s/,$//"); done
  done
  echo "[$corpus] metrics: $metrics"

  # Chunks, so that a run cut short by the budget still returns whole launches. Before a
  # chunk, stop if the slowest chunk so far would not fit.
  grep -v '^#' "$patterns" | split -l "$chunk" -d -a 4 - "$work/chunk."
  : > "$work/all.csv"
  local first=0 est=$(( chunk / 8 + 10 )) f n t0 now left rc
  for f in "$work"/chunk.*; do
    n=$(wc -l < "$f")
    now=$(date +%s)
    left=$(( budget - (now - start) ))
    if (( est > left )); then
      echo "[$corpus] stopping at the time budget: patterns $first..$(( total - 1 )) not measured"
      break
    fi
    t0=$now
    rm -f "$work/ncu.csv"
    rc=0
    timeout $(( left + 30 )) ncu --csv --print-units base --cache-control none \
      --clock-control none --metrics "$metrics" --log-file "$work/ncu.csv" \
      "$work/probe" "$f" > "$work/probe.log" 2>&1 || rc=$?
    if (( rc != 0 )); then
      echo "[$corpus] ncu exit $rc on patterns $first..$(( first + n - 1 )):"
      tail -5 "$work/probe.log" || true
    fi
    echo "==CHUNK== first=$first count=$n" >> "$work/all.csv"
    if [[ -f $work/ncu.csv ]]; then cat "$work/ncu.csv" >> "$work/all.csv"; fi
    gzip -c "$work/all.csv" > "$out/${corpus}_ncu.csv.gz.part"
    mv "$out/${corpus}_ncu.csv.gz.part" "$out/${corpus}_ncu.csv.gz"
    first=$(( first + n ))
    now=$(date +%s)
    if (( now - t0 + 2 > est )); then est=$(( now - t0 + 2 )); fi
    echo "[$corpus] ncu: $first of $total patterns in $(( now - start )) s"
  done
}
