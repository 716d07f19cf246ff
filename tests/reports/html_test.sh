#!/usr/bin/env bash
# The HTML report in headless Chromium: examples/transpose.cu with a script-injection
# comment added must load with no console error, fetch nothing, show the comment as text
# (no <img> element) and draw its bank picture; examples/scan.cu draws one picture per
# conflicting line; examples/sgemm.cu's sgemm_vectorized shows the SASS beside each source
# line (a SASS column with the widened LDS.128 and the PTX's own figures where they differ).
# Screenshots go to OUTDIR.
# Usage: html_test.sh BANKCHECK NODE CHROMIUM OUTDIR   (run from the repository root)
set -euo pipefail
bin=$1 node=$2 chromium=$3 out=$4
for tool in node chromium; do
  if [ -z "${!tool}" ] || ! command -v "${!tool}" >/dev/null; then
    echo "html_test: $tool not found: run scripts/install-deps.sh" >&2
    exit 1
  fi
done
rm -rf "$out" && mkdir -p "$out"
evil='</script><img src=x onerror=alert(1)>'
sed "s#^// bankcheck: kernel=transposeShared #// $evil\n&#" examples/transpose.cu > "$out/transpose.cu"
grep -qF "$evil" "$out/transpose.cu"
"$bin" check "$out/transpose.cu" --kernel transposeShared --format html -o "$out/transpose.html"
"$node" tests/reports/browser_check.js "$chromium" "$out/transpose.html" "$out/transpose.png" \
  --text "$evil" --text "32-way bank conflict" --min-svgs 1
"$bin" check examples/scan.cu --format html -o "$out/scan.html"
conflicts=$("$bin" check examples/scan.cu | grep -cE ': (error|warning|note): .*bank conflict')
"$node" tests/reports/browser_check.js "$chromium" "$out/scan.html" "$out/scan.png" \
  --min-svgs "$conflicts"
"$bin" check examples/sgemm.cu --kernel sgemm_vectorized --blocks 4 --format html -o "$out/sgemm.html"
"$node" tests/reports/browser_check.js "$chromium" "$out/sgemm.html" "$out/sgemm.png" \
  --selector 'table.src th[title*="SASS"]' --selector '#L140 td.sass .ptx' \
  --text 'LDS.128 ×2 (as PTX: 8 sites of 4 B, excess 393216, 4-way)' --text 'STS.128' \
  --min-svgs 1
