#!/usr/bin/env bash
# Runs every tap test and ends with one machine-readable line: "N passed, M failed".
# tap's own summary ("# { total: …, pass: … }") is turned into that line by tap-summary.awk.
set -u
cd "$(dirname "$0")/.."
out=tap-output.txt

# The Redis tests use the server at 127.0.0.1:6379 (each under a key prefix of its own). Where
# none answers there, a private redis-server serves this run on a free port instead.
redis_answers() {
  { exec 3<>"/dev/tcp/127.0.0.1/$1" && printf 'PING\r\n' >&3 && IFS= read -r -t 2 reply <&3 && exec 3>&-; } 2>/dev/null || return 1
  [[ "$reply" == +PONG* ]]
}
private_redis=
if [ -z "${ROOKERY_TEST_REDIS_URL:-}" ] && ! redis_answers 6379; then
  if command -v redis-server >/dev/null 2>&1; then
    port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >/tmp/rookery-test-redis.log 2>&1 &
    private_redis=$!
    for _ in $(seq 1 100); do redis_answers "$port" && break; sleep 0.1; done
    export ROOKERY_TEST_REDIS_URL="redis://127.0.0.1:$port"
    echo "No Redis at 127.0.0.1:6379: the tests use a private redis-server on port $port."
  else
    echo "No Redis at 127.0.0.1:6379 and no redis-server to start one: the Redis tests will fail (apt-get install redis-server)." >&2
  fi
fi
npx tap --reporter=tap "$@" > "$out" 2>&1
rc=$?
[ -n "$private_redis" ] && kill "$private_redis"
cat "$out"
awk -f scripts/tap-summary.awk "$out"
exit $rc
