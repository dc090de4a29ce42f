#!/usr/bin/env bash
# System packages the project needs, named as arguments (default: chromium redis-server postgresql):
#   chromium  the browser test drives Debian's Chromium (playwright-core never downloads one);
#   redis-server  the Redis tests start private servers to kill and restart (and the test run
#             starts one for itself when none answers at 127.0.0.1:6379);
#   postgresql  the PostgreSQL tests use the server at 127.0.0.1:5432, or start private clusters
#             with the installed server's initdb and pg_ctl (test/helpers/postgres.ts);
#   gcc, patchelf  scripts/uws-glibc-compat.mjs builds and links a shim so that uWebSockets.js
#             loads on a glibc older than 2.38 (it asks for them only there).
# Installs what is missing with apt-get when it may (root); otherwise says exactly what to do.
set -u
[ $# -eq 0 ] && set -- chromium redis-server postgresql

missing=()
for tool in "$@"; do
  case "$tool" in
    chromium) [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium) ;;
    # The server's programs, not a command on the PATH (Debian keeps them per version).
    postgresql) compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql) ;;
    *) command -v "$tool" >/dev/null 2>&1 || missing+=("$tool") ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing ${missing[*]} (apt-get install ${missing[*]})…"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y --no-install-recommends "${missing[@]}" || { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }; } >/tmp/rookery-apt.log 2>&1 \
    || { echo "apt-get could not install ${missing[*]}; see /tmp/rookery-apt.log" >&2; exit 1; }
  exit 0
fi
for tool in "${missing[@]}"; do
  case "$tool" in
    chromium) echo "The browser test needs Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}: run 'sudo apt-get install chromium' or set CHROMIUM_PATH." >&2 ;;
    redis-server) echo "The Redis tests need redis-server: run 'sudo apt-get install redis-server'." >&2 ;;
    postgresql) echo "The PostgreSQL tests need PostgreSQL: run 'sudo apt-get install postgresql' (or set ROOKERY_TEST_POSTGRES_URL to a server they may create databases on)." >&2 ;;
    *) echo "$tool is needed (uWebSockets.js on glibc < 2.38): run 'sudo apt-get install $tool'." >&2 ;;
  esac
done
exit 1
