# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the shell tests, host and guest (kselftest style).
# A result whose name holds "# TODO" is reported but does not fail the run.
#   . tests/tap.sh; plan 3; ok "name" cmd...; is "$got" "$want" "name"
tap_n=0
tap_failed=0
plan() { echo "1..$1"; }
_tap_result() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2"
	else
		case $2 in *"# TODO"*) ;; *) tap_failed=$((tap_failed + 1)) ;; esac
		echo "not ok $tap_n - $2"
	fi
}
# ok NAME CMD...: passes when CMD exits 0
ok() {
	local name=$1 rc=0
	shift
	"$@" || rc=$?
	_tap_result "$rc" "$name"
}
# is GOT WANT NAME
is() {
	if [ "$1" = "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
	fi
}
# cmp_ok A OP B NAME, OP one of -eq -ne -gt -ge -lt -le
cmp_ok() {
	if [ "$1" "$2" "$3" ] 2>/dev/null; then
		_tap_result 0 "$4"
	else
		_tap_result 1 "$4"
		echo "#   failed: $1 $2 $3"
	fi
}
diag() { echo "# $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
done_testing() { [ "$tap_failed" = 0 ]; }
