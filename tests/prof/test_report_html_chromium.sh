#!/bin/sh
# report.html opens in headless Chromium: no console errors, every picture
# decodes (naturalWidth > 0) and nothing is fetched from anywhere but data: URIs.
# The page is copied alone into an empty directory so that only embedded
# content can load.  Skips (exit 77) when Chromium is not installed.
# usage: test_report_html_chromium.sh COREPROF GEN
set -u
COREPROF=$1 GEN=$2
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
    echo "SKIP: chromium not installed (apt-get install -y chromium) - HTML not checked in a browser"
    exit 77
fi
T=$(mktemp -d /tmp/coreprof-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

"$GEN" "$T/tr" 4 6 || fail generator
"$COREPROF" report "$T/tr" > /dev/null 2>&1 || fail "coreprof report"
mkdir "$T/page"
# a probe appended after the page: counts broken pictures and non-data: fetches into the title
sed 's#</body></html>##' "$T/tr/report/report.html" > "$T/page/report.html"
cat >> "$T/page/report.html" <<'HTML'
<script>
window.addEventListener('load', function () {
  var imgs = document.images.length, bad = 0;
  for (var i = 0; i < document.images.length; i++) {
    var im = document.images[i];
    if (!(im.complete && im.naturalWidth > 0)) bad++;
  }
  var ext = performance.getEntriesByType('resource').filter(function (e) { return !e.name.startsWith('data:'); }).length;
  document.title = 'PROBE images=' + imgs + ' broken=' + bad + ' external=' + ext;
});
</script></body></html>
HTML
run_chrome() {
    timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
        --disable-extensions --user-data-dir="$T/profile" --enable-logging=stderr --v=0 \
        --virtual-time-budget=5000 --dump-dom "file://$1" > "$T/dom" 2> "$T/log"
}
run_chrome "$T/page/report.html" || { tail -5 "$T/log"; fail "chromium exited $?"; }
title=$(grep -o '<title>PROBE [^<]*' "$T/dom" | sed 's/<title>//')
echo "chromium: $title"
[ -n "$title" ] || fail "page did not finish loading in chromium"
case $title in *"broken=0 external=0"*) ;; *) fail "broken or external resources: $title";; esac
imgs=$(echo "$title" | sed 's/.*images=\([0-9]*\).*/\1/')
[ "$imgs" -ge 3 ] || fail "expected at least 3 pictures, found $imgs"
if grep 'CONSOLE' "$T/log" | grep -q .; then grep CONSOLE "$T/log"; fail "console messages"; fi

# the probe can fail: a page with a broken picture must be caught
sed 's#src="data:image/png;base64,iVBOR#src="data:image/png;base64,XXXX#' "$T/page/report.html" > "$T/page/broken.html"
run_chrome "$T/page/broken.html"
grep -q '<title>PROBE images=[0-9]* broken=[1-9]' "$T/dom" || fail "probe did not notice a broken picture"
echo "ok: report.html renders in chromium without errors"
