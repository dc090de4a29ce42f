#!/usr/bin/env bash
# The browser test drives Debian's Chromium (playwright-core never downloads a browser here).
# Installs it with apt-get when it is missing and we may; otherwise says exactly what to do.
set -u
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$browser" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Chromium for the browser test (apt-get install chromium)…"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y --no-install-recommends chromium || { apt-get update && apt-get install -y --no-install-recommends chromium; }; } >/tmp/rookery-apt.log 2>&1 \
    || { echo "apt-get could not install chromium; see /tmp/rookery-apt.log" >&2; exit 1; }
  exit 0
fi
echo "The browser test needs Chromium at $browser: run 'sudo apt-get install chromium' or set CHROMIUM_PATH." >&2
exit 1
