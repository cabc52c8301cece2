#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Both kernels boot; qemu-env/vm propagates exit status and timeouts.
. "$(dirname "$0")/lib.sh"
plan $(($(wc -w <<<"$KERNELS") + 3))
for k in $KERNELS; do
	rel=$(vm --kernel "$k" --smp 1 -- uname -r)
	want=$(cat "$(dirname "$(readlink -f "$top/build/kernel/$k/bzImage")")/release")
	case $rel in 6.1.*) r=0 ;; *) r=1 ;; esac
	[ "$rel" = "$want" ] || r=1
	_tap_result $r "$k kernel boots: uname -r is '$rel'"
done
rc=0; vm --kernel "$KERNEL" --smp 1 -- sh -c 'exit 3' || rc=$?
is "$rc" 3 "exit status of the guest command is propagated"
n=$(vm --kernel "$KERNEL" --smp 2 -- sh -c 'grep -c ^processor /proc/cpuinfo')
is "$n" 2 "--smp 2 brings up two CPUs"
rc=0; vm --kernel "$KERNEL" --smp 1 --timeout 15 -- sleep 600 >/dev/null 2>&1 || rc=$?
is "$rc" 124 "a guest that hangs times out with status 124"
done_testing
