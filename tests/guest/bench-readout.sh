# SPDX-License-Identifier: GPL-2.0
# Main guest of tests/bench/readout.sh: bench_readout (tests/progs) on this
# kernel, an idle interval, then N keys for each N given.  Its lines on
# stdout ("idle ...", "keys ..."), after "jit 0|1".
#
#   sh /tests/guest/bench-readout.sh N...
. /tests/guest/lib.sh

echo "jit $(cat /proc/sys/net/core/bpf_jit_enable)"
bench_readout idle || exit 1
bench_readout keys "$@" || exit 1
