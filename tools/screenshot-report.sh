#!/bin/sh
# Renders an HTML report to PNG with headless Chromium (Debian's `chromium` package),
# at a desktop and a phone width, so the layout can be looked at.
#
#   tools/screenshot-report.sh Reports/chorus-paywall-copy.html [OUT_PREFIX]
#
# Writes OUT_PREFIX-desktop.png (1280 px wide) and OUT_PREFIX-phone.png (390 px wide);
# OUT_PREFIX defaults to the HTML file's path without `.html`.
set -eu
html=${1:?usage: tools/screenshot-report.sh REPORT.html [OUT_PREFIX]}
out=${2:-${html%.html}}
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  echo "screenshot-report: installing Debian's chromium" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
abs=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
# No network: the report must be self-contained, so block every request that is not the file itself.
# Tall enough for the longest demo report (segment tables, forecast, survival); blank below its end.
for shot in "desktop 1280 10000" "phone 390 18000"; do
  set -- $shot
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="http://0.0.0.0:1" \
    --window-size="$2,$3" --screenshot="$out-$1.png" "file://$abs" >/dev/null 2>&1
  echo "$out-$1.png"
done
