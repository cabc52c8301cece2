# SPDX-License-Identifier: GPL-2.0
# Shared by the host-side guest test drivers (tests/vm/*.t).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
# The kernel of the tests that boot one, and the kernels of those that
# compare stock with the series (make check-debug points both elsewhere).
KERNEL=${EBPFCOUNT_KERNEL:-patched}
KERNELS=${EBPFCOUNT_KERNELS:-stock patched}
# has_series KERNEL: true when KERNEL carries kernel-patches/
has_series() { [ "$1" != stock ]; }
vm() { "$top/qemu-env/vm" "$@"; }

# import PREFIX: re-emit a guest's TAP lines as results of this test, so a
# driver that boots several guests prints one plan (at its end).  Sets
# import_planned and import_seen.
import() {
	local line
	import_planned=0 import_seen=0
	while IFS= read -r line; do
		case $line in
		"ok "*) import_seen=$((import_seen + 1)); _tap_result 0 "$1${line#ok * - }" ;;
		"not ok "*) import_seen=$((import_seen + 1)); _tap_result 1 "$1${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		"1.."*) import_planned=${line#1..} ;;
		*) echo "# $line" ;;
		esac
	done
}

# vm_tap PREFIX VM-ARGS...: run a guest whose command prints TAP and import
# its results; the run must exit 0 and report every test it planned.
vm_tap() {
	local prefix=$1 rc=0 out
	shift
	out=$(vm "$@" 2>&1) || rc=$?
	import "$prefix" <<<"$out"
	is "$rc:$import_seen" "0:$import_planned" "${prefix}guest exits 0 after all its $import_planned tests"
}

# at_exit CMD: run the shell command CMD when the test exits, after those
# registered later (tests that use these helpers call at_exit instead of
# setting an EXIT trap of their own, which would replace this one)
_at_exit=()
_run_at_exit() {
	local c
	for c in "${_at_exit[@]}"; do eval "$c"; done
}
at_exit() {
	if [ ${#_at_exit[@]} -eq 0 ]; then
		trap _run_at_exit EXIT
		trap 'exit 130' INT TERM
	fi
	_at_exit=("$1" "${_at_exit[@]}")
}

# free_tcp_port: print a TCP port of 127.0.0.1 that nothing listens on
free_tcp_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# stop_pid PID: TERM, then KILL after 10 s; reaps PID when it is our child
# (nothing when PID is empty)
stop_pid() {
	local i
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	for i in $(seq 20); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.5
	done
	kill -0 "$1" 2>/dev/null && kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# vm_start OUT VM-ARGS...: run qemu-env/vm VM-ARGS... in the background,
# its stdout and stderr to the file OUT; sets VM_PID.  A guest still
# running at exit is stopped (qemu-env/vm kills QEMU on SIGTERM).
# vm_finish: wait for it and return its exit status.
vm_start() {
	local out=$1
	shift
	# not through vm(): $! must be qemu-env/vm itself, not a subshell
	"$top/qemu-env/vm" "$@" >"$out" 2>&1 &
	VM_PID=$!
	at_exit 'stop_pid "${VM_PID:-}"'
}
vm_finish() {
	local rc=0
	wait "$VM_PID" || rc=$?
	VM_PID=""
	return $rc
}

# wait_http URL [SECONDS]: poll URL once a second until it answers 200,
# for at most SECONDS (default 300; guests boot slowly under TCG on a busy
# machine); fails at once when the guest of vm_start has stopped
wait_http() {
	local url=$1 end=$((SECONDS + ${2:-300}))
	while [ $SECONDS -lt $end ]; do
		curl -fs -o /dev/null --max-time 5 "$url" && return 0
		if [ -n "${VM_PID:-}" ] && ! kill -0 "$VM_PID" 2>/dev/null; then
			return 1
		fi
		sleep 1
	done
	return 1
}

# prom_start TARGET_PORT: start a Prometheus server (/usr/bin/prometheus)
# on 127.0.0.1 with a fresh storage in a temporary directory, scraping
# http://127.0.0.1:TARGET_PORT/metrics every second (scrape timeout 1 s,
# job "guest"), and wait until it is ready (at most PROM_START_TIMEOUT s,
# default 60).  Sets PROM_PORT (its web port), PROM_DIR, PROM_LOG (its
# log) and PROM_PID; it is stopped and PROM_DIR removed at exit.  Returns
# 1, with the end of its log as TAP diagnostics, when it did not start.
prom_start() {
	local target=$1 try end
	PROM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ebpfcount-prom.XXXXXX")
	PROM_LOG=$PROM_DIR/prometheus.log
	at_exit "rm -rf '$PROM_DIR'"
	at_exit 'stop_pid "${PROM_PID:-}"'
	cat >"$PROM_DIR/prometheus.yml" <<END
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: guest
    metrics_path: /metrics
    static_configs:
      - targets: ['127.0.0.1:$target']
END
	# another process may take the free port first: try three of them
	for try in 1 2 3; do
		PROM_PORT=$(free_tcp_port)
		prometheus --config.file="$PROM_DIR/prometheus.yml" \
			--storage.tsdb.path="$PROM_DIR/data" \
			--web.listen-address="127.0.0.1:$PROM_PORT" >"$PROM_LOG" 2>&1 &
		PROM_PID=$!
		end=$((SECONDS + ${PROM_START_TIMEOUT:-60}))
		while [ $SECONDS -lt $end ] && kill -0 "$PROM_PID" 2>/dev/null; do
			curl -fs -o /dev/null --max-time 5 "http://127.0.0.1:$PROM_PORT/-/ready" && return 0
			sleep 0.5
		done
		stop_pid "$PROM_PID"
		PROM_PID=""
		grep -q 'address already in use' "$PROM_LOG" || break
	done
	diag "prometheus did not start; the end of its log:"
	tail -n 20 "$PROM_LOG" | sed 's/^/#   /'
	return 1
}

# prom_query PROMQL: run the instant query PROMQL on the server of
# prom_start and print its value: a scalar's, or the value of each element
# of a vector, one a line (nothing for an empty vector, such as a metric
# not scraped yet or a comparison that filtered everything out).  Values
# are printed as Prometheus formats them: 42, 0.5, NaN, +Inf.  Fails, with
# a message on stderr, when the server does not answer or rejects PROMQL.
prom_query() {
	python3 - "$PROM_PORT" "$1" <<'END'
import json, sys, urllib.error, urllib.parse, urllib.request
port, query = sys.argv[1], sys.argv[2]
url = "http://127.0.0.1:%s/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": query}))
try:
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
except urllib.error.HTTPError as e:
    try:
        msg = json.load(e).get("error", e)
    except Exception:
        msg = e
    sys.exit("prom_query: %s: %s" % (query, msg))
except Exception as e:
    sys.exit("prom_query: %s: %s" % (query, e))
res = d["data"]
if res["resultType"] in ("scalar", "string"):
    print(res["result"][1])
elif res["resultType"] == "vector":
    for el in res["result"]:
        print(el["value"][1])
else:
    sys.exit("prom_query: %s: a %s, not a scalar or vector" % (query, res["resultType"]))
END
}

# prom_poll SECONDS PROMQL: run prom_query PROMQL once a second until it
# prints something and print that; fails after SECONDS without a value.
# A comparison waits for a condition: prom_poll 60 'some_total >= 100'.
prom_poll() {
	local end=$((SECONDS + $1)) v
	while :; do
		v=$(prom_query "$2" 2>/dev/null) || v=""
		[ -n "$v" ] && { echo "$v"; return 0; }
		[ $SECONDS -ge $end ] && return 1
		sleep 1
	done
}
