# Reads tap's final "# { total: N, pass: P, fail: F, skip: S, todo: T }" line.
/^# \{ total: [0-9]+/ { line = $0 }
function count(key,   r) {
  if (match(line, key ": [0-9]+")) { r = substr(line, RSTART, RLENGTH); sub(/.*: /, "", r); return r + 0 }
  return 0
}
END {
  if (line == "") { print "0 passed, 1 failed"; exit }
  skipped = count("skip") + count("todo")
  printf "%d passed, %d failed%s\n", count("pass"), count("fail"), (skipped ? ", " skipped " skipped" : "")
}
