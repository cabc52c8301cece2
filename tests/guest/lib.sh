# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts that run inside the guests.

# retry N CMD...: run CMD until it succeeds, at most N times, 1 s apart
retry() {
	local n=$1 i=1
	shift
	until "$@"; do
		[ $i -ge "$n" ] && return 1
		i=$((i + 1))
		sleep 1
	done
}

# wait_peer: wait up to 60 s for the peer guest to answer ping
wait_peer() { retry 60 ping -c 1 -W 1 "$EBPFCOUNT_PEER" >/dev/null 2>&1; }
