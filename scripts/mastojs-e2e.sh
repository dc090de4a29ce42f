#!/usr/bin/env bash
# Runs masto.js's own e2e suite, its specs unchanged, against a Rookery standalone instance
# started here (fresh SQLite DATA_DIR, RATE_LIMITS=false, free loopback ports) and stopped at
# the end. masto.js is cloned into a scratch directory, and there scripts/mastojs-e2e/prepare.ts
# edits a few exact strings of its test-utils/ (the instance URL, the admin's login, the token
# pool's Redis, the docker waits) and adds our Tootctl (scripts/mastojs-e2e/tootctl-rookery.ts):
# accounts come from Rookery's CLI instead of `tootctl` in a container. The token pool keeps
# masto.js's Redis code, on a private redis-server started and stopped here.
#
#   scripts/mastojs-e2e.sh <masto.js repository> [vitest arguments…]
#
# The repository is anything `git clone` takes: a bare mirror, a checkout or a URL
# (MASTOJS_REF picks a commit or branch; default its HEAD). Extra arguments go to vitest, e.g.
# a file filter: scripts/mastojs-e2e.sh ../masto.js tests/rest/v1/statuses.spec.ts
# The work directory (checkout, DATA_DIR, rookery.log, redis.log, results.json) is kept and
# printed; MASTOJS_WORKDIR chooses it (it must not exist yet).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 <masto.js repository> [vitest arguments…]" >&2
  exit 2
fi
source_repo=$1
shift

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Rookery runs on Node 24 (type stripping, node:sqlite): the one `npm install` brought, else
# the `node` on PATH if it is new enough.
node_bin=$root/node_modules/.bin/node
[ -x "$node_bin" ] || node_bin=$(command -v node)
if ! "$node_bin" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 24 ? 0 : 1)'; then
  echo "Rookery needs Node 24: run npm install in $root first" >&2
  exit 1
fi
node_bin=$(cd "$(dirname "$node_bin")" && pwd)/$(basename "$node_bin")
redis_bin=$(command -v redis-server) || { echo "redis-server is needed (masto.js's token pool): install it first" >&2; exit 1; }

if [ -n "${MASTOJS_WORKDIR:-}" ]; then
  [ ! -e "$MASTOJS_WORKDIR" ] || { echo "MASTOJS_WORKDIR $MASTOJS_WORKDIR exists already" >&2; exit 2; }
  mkdir -p "$MASTOJS_WORKDIR"
  work=$(cd "$MASTOJS_WORKDIR" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/mastojs-e2e.XXXXXX")
fi
checkout=$work/masto.js
data_dir=$work/data
log=$work/rookery.log
results=$work/results.json
echo "work directory: $work"

# masto.js's npm scripts and vitest run on the same Node 24 (masto.js needs 22 or newer).
mkdir -p "$work/bin"
ln -sf "$node_bin" "$work/bin/node"
export PATH=$work/bin:$PATH

git clone --quiet "$source_repo" "$checkout"
if [ -n "${MASTOJS_REF:-}" ]; then git -C "$checkout" checkout --quiet "$MASTOJS_REF"; fi
echo "masto.js $(git -C "$checkout" rev-parse HEAD)"
"$node_bin" "$root/scripts/mastojs-e2e/prepare.ts" "$checkout"
(cd "$checkout" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

free_port() {
  "$node_bin" -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}
port=$(free_port)
streaming_port=$(free_port)
redis_port=$(free_port)
while [ "$streaming_port" = "$port" ]; do streaming_port=$(free_port); done
while [ "$redis_port" = "$port" ] || [ "$redis_port" = "$streaming_port" ]; do redis_port=$(free_port); done

server_pid=
redis_pid=
stop() {
  local pid
  for pid in $server_pid $redis_pid; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      wait "$pid" || true
    fi
  done
  server_pid= redis_pid=
}
trap stop EXIT

# The token pool's Redis: this run's alone, in memory only, so no token of an earlier run or of
# anyone else's Redis is handed out.
mkdir -p "$work/redis"
"$redis_bin" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$work/redis" --logfile "$work/redis.log" &
redis_pid=$!
# Ready when it answers PING (tries every 50 ms for 10 s; stops early if the process ended).
if ! "$node_bin" -e '
  const [port, pid] = process.argv.slice(1).map(Number);
  const deadline = Date.now() + 10_000;
  const attempt = () => {
    const socket = require("node:net").connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.on("data", (data) => { socket.destroy(); process.exit(String(data).startsWith("+PONG") ? 0 : 1); });
    socket.on("error", () => {
      let alive = true;
      try { process.kill(pid, 0); } catch { alive = false; }
      if (!alive || Date.now() > deadline) process.exit(1);
      setTimeout(attempt, 50);
    });
  };
  attempt();' "$redis_port" "$redis_pid"; then
  echo "redis-server did not come up on port $redis_port; its log:" >&2
  tail -n 20 "$work/redis.log" >&2
  exit 1
fi

# The instance and the CLI read the same settings.
export PORT=$port STREAMING_PORT=$streaming_port BIND=127.0.0.1 DATA_DIR=$data_dir
export RATE_LIMITS=false REGISTRATIONS=open LOG_LEVEL=${LOG_LEVEL:-info}
unset LOCAL_DOMAIN DATABASE_URL MONGODB_URI REDIS_URL ROOKERY_ROLE
url=http://localhost:$port

(cd "$root" && exec "$node_bin" examples/standalone/server.ts) >"$log" 2>&1 &
server_pid=$!

# Up when /api/v1/instance answers (curl waits between tries); gone if the process ended.
if ! curl -sf -o /dev/null --retry 60 --retry-connrefused --retry-delay 1 --retry-max-time 120 "$url/api/v1/instance"; then
  echo "Rookery did not come up at $url; its log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "Rookery up at $url (pid $server_pid, streaming port $streaming_port, DATA_DIR $data_dir); redis-server pid $redis_pid, port $redis_port"

# The admin the suite signs in as: masto.js's fixture is admin@localhost / mastodonadmin, the
# Owner of Mastodon's development data, but Rookery reserves the username "admin" and refuses an
# address without a dot, so the global setup signs in with this e-mail address instead
# (tests/oauth/token.spec.ts still uses the fixture's and is reported).
admin_login=admin@localhost.example
"$node_bin" "$root/examples/standalone/cli.ts" accounts create mastodonadmin --email "$admin_login" --password mastodonadmin --role Owner

export MASTO_E2E_URL=$url MASTO_E2E_ADMIN_LOGIN=$admin_login MASTO_E2E_REDIS_URL=redis://127.0.0.1:$redis_port
export ROOKERY_NODE=$node_bin ROOKERY_CLI=$root/examples/standalone/cli.ts
[ -t 1 ] || export NO_COLOR=1
status=0
# One worker, one file at a time: the machine is shared. No retries: each failure is measured.
(cd "$checkout" && npx vitest run --project e2e --no-file-parallelism --maxWorkers=1 \
  --reporter=default --reporter=json --outputFile.json="$results" "$@") || status=$?

stop
trap - EXIT

# Each failing test, one line each, from vitest's JSON report.
if [ -f "$results" ]; then
  "$node_bin" -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const prefix = process.argv[2] + "/";
    const files = r.testResults.length, failedFiles = r.testResults.filter((f) => f.status === "failed").length;
    console.log(`\nFiles: ${failedFiles} failed / ${files}; tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped, ${r.numTotalTests} total`);
    for (const file of r.testResults) {
      const name = file.name.replace(prefix, "");
      const failed = file.assertionResults.filter((t) => t.status === "failed");
      if (failed.length === 0 && file.status !== "failed") continue;
      if (failed.length === 0) console.log(`FAIL ${name}: ${(file.message || "").split("\n")[0]}`);
      for (const t of failed) console.log(`FAIL ${name} > ${t.fullName}: ${(t.failureMessages[0] || "").split("\n")[0].slice(0, 300)}`);
    }' "$results" "$checkout"
fi
echo "log: $log  results: $results"
exit "$status"
