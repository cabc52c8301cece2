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
