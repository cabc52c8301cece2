# SPDX-License-Identifier: GPL-2.0
# Shared by the host-side guest test drivers (tests/vm/*.t).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
KERNEL=${EBPFCOUNT_KERNEL:-patched}
vm() { "$top/qemu-env/vm" "$@"; }
